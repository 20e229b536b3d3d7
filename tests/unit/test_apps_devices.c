/* The records other systems own: authorized apps (and their tokens),
 * trusted devices and logins, from their creation (acct_apps.c,
 * acct_devices.c, acct_logins.c) through authentication and the /profile
 * routes, on a migrated SQLite database. */
#include "unit.h"

#include <apr_dbd.h>
#include <apr_strings.h>
#include <jansson.h>
#include <string.h>

#include "unit_db.h"
#include "acct_auth.h"
#include "acct_addr.h"
#include "acct_apps.h"
#include "acct_devices.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "acct_logins.h"
#include "acct_own.h"
#include "acct_time.h"
#include "api_handlers.h"

#define DAY 86400



/* Calls a handler and parses its answer; fails the test on non-JSON. */
static json_t *call(acct_req *req, acct_handler *h, int *status)
{
    const char *text = unit_call(req, h, status);
    json_t *doc = json_loads(text, 0, NULL);

    assert_non_null(doc);
    return acct_json_own(req->pool, doc);
}

/* Calls a handler on the object `id` and returns the status. */
static int call_on(acct_req *req, acct_handler *h, apr_int64_t id,
                   json_t **doc)
{
    int status;

    req->params[0] = apr_psprintf(req->pool, "%" APR_INT64_T_FMT, id);
    *doc = call(req, h, &status);
    return status;
}

static const char *first_reason(json_t *doc)
{
    return json_string_value(json_object_get(
        json_array_get(json_object_get(doc, "errors"), 0), "reason"));
}

static const char *first_field(json_t *doc)
{
    return json_string_value(json_object_get(
        json_array_get(json_object_get(doc, "errors"), 0), "field"));
}

/* `h` on the path parameter `param` answers 404 "Not found"; a macro so that
 * a failure names the caller's line. */
#define ASSERT_NOT_FOUND(req, h, param)                                      \
    do {                                                                     \
        json_t *doc_;                                                        \
        int status_;                                                         \
                                                                             \
        (req)->params[0] = (param);                                          \
        doc_ = call((req), (h), &status_);                                   \
        assert_int_equal(status_, 404);                                      \
        assert_string_equal(first_reason(doc_), "Not found");                \
    } while (0)

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static json_int_t num(json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

/* The ids of a list answer, in order, as "1,2,3". */
static const char *ids(apr_pool_t *p, json_t *doc)
{
    const char *out = "";
    json_t *item;
    size_t i;

    json_array_foreach(json_object_get(doc, "data"), i, item) {
        out = apr_psprintf(p, "%s%s%" APR_INT64_T_FMT, out, i ? "," : "",
                           (apr_int64_t)num(item, "id"));
    }
    return out;
}

/* Exactly these keys, in this order. */
static void assert_keys(apr_pool_t *p, json_t *o, const char *const *keys)
{
    const char *text = acct_json_dump(p, o, NULL), *prev = NULL, *at;
    size_t n = 0;

    for (; keys[n]; n++) {
        at = strstr(text, apr_psprintf(p, "\"%s\":", keys[n]));
        UNIT_CHECK(keys[n], at && (!prev || at > prev));
        prev = at;
    }
    assert_int_equal(json_object_size(o), n);
}

static const char *bearer(apr_pool_t *p, const char *token)
{
    return apr_pstrcat(p, "Bearer ", token, NULL);
}

static const char *ts(apr_pool_t *p, apr_int64_t epoch)
{
    return acct_format_timestamp(p, epoch);
}

static const char *id_text(apr_pool_t *p, apr_int64_t id)
{
    return apr_psprintf(p, "%" APR_INT64_T_FMT, id);
}

static void sql(unit_db *db, const char *text)
{
    assert_int_equal(acct_store_exec_script(db->store, db->pool, text),
                     ACCT_STORE_OK);
}

/* ------------------------------------------------------------------------
 * Authorized apps and their tokens
 */

static apr_int64_t authorize(unit_db *db, apr_int64_t uid, const char *label,
                             const char *scopes, apr_int64_t expiry,
                             apr_int64_t now, const char **token)
{
    acct_ident_result res;
    apr_int64_t id = 0;

    assert_int_equal(acct_app_authorize(db->store, db->pool, uid, label,
                                        scopes, "https://app.example/",
                                        NULL, expiry, now, &id, token, &res),
                     ACCT_IDENT_OK);
    return id;
}

static void test_app_token_authentication(void **state)
{
    unit_db *db = *state;
    acct_principal owner, who;
    acct_store_rc src;
    apr_int64_t now = apr_time_sec(apr_time_now()), app, brief;
    const char *token, *expiring, *personal, *args[1];
    acct_rows *rows = NULL;

    personal = unit_identity(db, "alice", 0, "*", &owner);
    app = authorize(db, owner.user_id, "CI bot",
                    "domains:read_write,account:read_only", 0, now, &token);
    assert_int_equal(strlen(token), 64);

    /* valid: the app is the client, its scopes canonical */
    assert_int_equal(acct_authenticate(db->store, db->pool,
                                       bearer(db->pool, token), now, &who,
                                       &src), ACCT_AUTH_OK);
    assert_string_equal(who.client, apr_psprintf(db->pool, "app:%"
                                                 APR_INT64_T_FMT, app));
    assert_string_equal(who.scopes_text,
                        "account:read_only domains:read_write");
    assert_true(who.user_id == owner.user_id);
    assert_string_equal(who.username, "alice");
    assert_string_equal(owner.client, apr_psprintf(db->pool, "pat:%"
                                                   APR_INT64_T_FMT,
                                                   owner.token_id));

    /* the app's scopes decide, not a copy on the token row */
    sql(db, apr_psprintf(db->pool, "UPDATE apps SET scopes = "
                         "'databases:read_only' WHERE id = %" APR_INT64_T_FMT,
                         app));
    assert_int_equal(acct_authenticate(db->store, db->pool,
                                       bearer(db->pool, token), now, &who,
                                       &src), ACCT_AUTH_OK);
    assert_string_equal(who.scopes_text, "databases:read_only");

    /* expired with the app; its token row repeats the app's grant */
    brief = authorize(db, owner.user_id, "brief", "account:read_only",
                      now + 60, now, &expiring);
    args[0] = id_text(db->pool, brief);
    assert_int_equal(acct_store_select_dynamic(db->store, db->pool,
                                               "SELECT kind, scopes, expiry"
                                               " FROM tokens WHERE app_id ="
                                               " CAST(%s AS BIGINT)",
                                               &rows, 1, args),
                     ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    assert_string_equal(acct_rows_get(rows, 0, "kind"), "app");
    assert_string_equal(acct_rows_get(rows, 0, "scopes"), "account:read_only");
    assert_string_equal(acct_rows_get(rows, 0, "expiry"),
                        id_text(db->pool, now + 60));
    assert_int_equal(acct_authenticate(db->store, db->pool,
                                       bearer(db->pool, expiring), now + 59,
                                       &who, &src), ACCT_AUTH_OK);
    assert_int_equal(acct_authenticate(db->store, db->pool,
                                       bearer(db->pool, expiring), now + 60,
                                       &who, &src), ACCT_AUTH_INVALID);
    /* the app's expiry decides even if the token row says otherwise */
    sql(db, apr_psprintf(db->pool, "UPDATE tokens SET expiry = NULL WHERE "
                         "app_id = %" APR_INT64_T_FMT, brief));
    assert_int_equal(acct_authenticate(db->store, db->pool,
                                       bearer(db->pool, expiring), now + 60,
                                       &who, &src), ACCT_AUTH_INVALID);

    /* revoked with the app, even if its token row were not */
    sql(db, apr_psprintf(db->pool, "UPDATE apps SET revoked = 1 WHERE id = %"
                         APR_INT64_T_FMT, app));
    assert_int_equal(acct_authenticate(db->store, db->pool,
                                       bearer(db->pool, token), now, &who,
                                       &src), ACCT_AUTH_INVALID);
    assert_null(who.client);

    /* the owner's personal token is untouched */
    assert_int_equal(acct_authenticate(db->store, db->pool,
                                       bearer(db->pool, personal), now, &who,
                                       &src), ACCT_AUTH_OK);
    assert_string_equal(who.client, owner.client);
}

static void test_app_token_of_another_users_app(void **state)
{
    unit_db *db = *state;
    acct_principal alice, bob, who;
    acct_store_rc src;
    apr_int64_t now = apr_time_sec(apr_time_now()), app;
    const char *token;

    unit_identity(db, "alice", 0, "*", &alice);
    unit_identity(db, "bob", 0, "*", &bob);
    app = authorize(db, alice.user_id, "shared?", "account:read_only", 0, now,
                    &token);
    /* a token row pointing at someone else's app grants nothing */
    sql(db, apr_psprintf(db->pool, "UPDATE tokens SET user_id = %"
                         APR_INT64_T_FMT " WHERE app_id = %" APR_INT64_T_FMT,
                         bob.user_id, app));
    assert_int_equal(acct_authenticate(db->store, db->pool,
                                       bearer(db->pool, token), now, &who,
                                       &src), ACCT_AUTH_INVALID);
}

static void test_app_authorize_refusals(void **state)
{
    static const struct {
        const char *label, *scopes, *website, *thumbnail;
        apr_int64_t expiry_delta;
    } bad[] = {
        {"", "*", NULL, NULL, 0},
        {"tab\there", "*", NULL, NULL, 0},
        {"\xff\xfe", "*", NULL, NULL, 0},
        {"x", "account:read_some", NULL, NULL, 0},
        {"x", "", NULL, NULL, 0},
        {"x", NULL, NULL, NULL, 0},
        {"x", "*", "ftp://files.example/", NULL, 0},
        {"x", "*", "https://", NULL, 0},
        {"x", "*", "app.example", NULL, 0},
        {"x", "*", "https://app.example/a b", NULL, 0},
        {"x", "*", NULL, "javascript:alert(1)", 0},
        {"x", "*", NULL, NULL, -1},
    };
    unit_db *db = *state;
    acct_principal owner;
    acct_ident_result res;
    apr_int64_t now = apr_time_sec(apr_time_now()), id;
    const char *token = NULL, *longest;
    size_t i;

    unit_identity(db, "alice", 0, "*", &owner);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        apr_int64_t expiry = bad[i].expiry_delta ? now + bad[i].expiry_delta
                                                 : 0;

        UNIT_CHECK_CASE(i, acct_app_authorize(db->store, db->pool,
                                              owner.user_id, bad[i].label,
                                              bad[i].scopes, bad[i].website,
                                              bad[i].thumbnail, expiry, now,
                                              &id, &token, &res)
                           == ACCT_IDENT_INVALID);
        UNIT_CHECK_CASE(i, res.error != NULL);
    }
    /* an expiry of exactly now is not in the future */
    assert_int_equal(acct_app_authorize(db->store, db->pool, owner.user_id,
                                        "x", "*", NULL, NULL, now, now, &id,
                                        &token, &res), ACCT_IDENT_INVALID);
    /* 100 characters (multi-byte ones) pass, 101 do not */
    longest = "";
    for (i = 0; i < 100; i++) {
        longest = apr_pstrcat(db->pool, longest, "\xc3\xa9", NULL);
    }
    assert_int_equal(acct_app_authorize(db->store, db->pool, owner.user_id,
                                        longest, "*", NULL, NULL, 0, now, &id,
                                        &token, &res), ACCT_IDENT_OK);
    assert_int_equal(acct_app_authorize(db->store, db->pool, owner.user_id,
                                        apr_pstrcat(db->pool, longest, "e",
                                                    NULL),
                                        "*", NULL, NULL, 0, now, &id, &token,
                                        &res), ACCT_IDENT_INVALID);
    /* no such user: nothing is left behind */
    assert_int_equal(acct_app_authorize(db->store, db->pool, 999999, "x", "*",
                                        NULL, NULL, 0, now, &id, &token,
                                        &res), ACCT_IDENT_NOT_FOUND);
}

static void test_apps_routes(void **state)
{
    static const char *const keys[] = {"id", "label", "created", "expiry",
                                       "scopes", "thumbnail_url", "website",
                                       NULL};
    unit_db *db = *state;
    acct_principal owner, other, app_who;
    acct_ident_result res;
    acct_store_rc src;
    acct_req *req;
    apr_int64_t now = apr_time_sec(apr_time_now()), a1, a2, a3;
    const char *t1, *t2, *t3;
    json_t *doc;
    int status;

    unit_identity(db, "alice", 0, "*", &owner);
    unit_identity(db, "bob", 0, "*", &other);
    a1 = authorize(db, owner.user_id, "Terraform", "*", 0, now, &t1);
    assert_int_equal(acct_app_authorize(db->store, db->pool, owner.user_id,
                                        "Grafana", "account:read_only",
                                        "https://grafana.example/",
                                        "https://grafana.example/t.png",
                                        now + 7 * DAY, now, &a2, &t2, &res),
                     ACCT_IDENT_OK);
    a3 = authorize(db, other.user_id, "Bob's", "*", 0, now, &t3);

    /* list: the user's own, by id */
    req = unit_req(db, &owner);
    doc = call(req, api_apps_list, &status);
    assert_int_equal(status, 200);
    assert_int_equal(num(doc, "results"), 2);
    assert_string_equal(ids(db->pool, doc),
                        apr_psprintf(db->pool, "%" APR_INT64_T_FMT ",%"
                                     APR_INT64_T_FMT, a1, a2));

    /* view: every key, nulls where unset */
    assert_int_equal(call_on(req, api_app_get, a1, &doc), 200);
    assert_keys(db->pool, doc, keys);
    assert_string_equal(str(doc, "label"), "Terraform");
    assert_string_equal(str(doc, "scopes"), "*");
    assert_true(json_is_null(json_object_get(doc, "expiry")));
    assert_true(json_is_null(json_object_get(doc, "thumbnail_url")));
    assert_string_equal(str(doc, "website"), "https://app.example/");
    assert_string_equal(str(doc, "created"), ts(db->pool, now));
    assert_int_equal(call_on(req, api_app_get, a2, &doc), 200);
    assert_string_equal(str(doc, "thumbnail_url"),
                        "https://grafana.example/t.png");
    assert_string_equal(str(doc, "expiry"), ts(db->pool, now + 7 * DAY));

    /* X-Filter: label, created, expiry; nothing else */
    req->filter = "{\"label\":{\"+contains\":\"Graf\"}}";
    doc = call(req, api_apps_list, &status);
    assert_int_equal(status, 200);
    assert_string_equal(ids(db->pool, doc), id_text(db->pool, a2));
    req->filter = apr_psprintf(db->pool, "{\"expiry\":{\"+gt\":\"%s\"}}",
                               ts(db->pool, now));
    doc = call(req, api_apps_list, &status);
    assert_int_equal(status, 200);
    assert_string_equal(ids(db->pool, doc), id_text(db->pool, a2));
    req->filter = "{\"+order_by\":\"created\",\"+order\":\"desc\"}";
    doc = call(req, api_apps_list, &status);
    assert_int_equal(status, 200);
    assert_int_equal(num(doc, "results"), 2);
    req->filter = "{\"token\":\"*\"}";
    doc = call(req, api_apps_list, &status);
    assert_int_equal(status, 400);
    assert_string_equal(first_reason(doc), "Cannot filter on token");
    assert_string_equal(first_field(doc), "X-Filter");
    req->filter = NULL;

    /* another user's app, and ids that are not positive integers */
    ASSERT_NOT_FOUND(req, api_app_get, id_text(db->pool, a3));
    ASSERT_NOT_FOUND(req, api_app_revoke, id_text(db->pool, a3));
    ASSERT_NOT_FOUND(req, api_app_get, id_text(db->pool, 0));
    ASSERT_NOT_FOUND(req, api_app_get, id_text(db->pool, -a1));
    ASSERT_NOT_FOUND(req, api_app_get, "1x");
    ASSERT_NOT_FOUND(req, api_app_revoke, "99999999999999999999");
    /* bob's app survived alice's attempt */
    assert_int_equal(acct_authenticate(db->store, db->pool,
                                       bearer(db->pool, t3), now, &app_who,
                                       &src), ACCT_AUTH_OK);

    /* revoke: {} once, then gone everywhere, its token refused */
    assert_int_equal(acct_authenticate(db->store, db->pool,
                                       bearer(db->pool, t2), now, &app_who,
                                       &src), ACCT_AUTH_OK);
    assert_int_equal(call_on(req, api_app_revoke, a2, &doc), 200);
    assert_int_equal(json_object_size(doc), 0);
    assert_int_equal(acct_authenticate(db->store, db->pool,
                                       bearer(db->pool, t2), now, &app_who,
                                       &src), ACCT_AUTH_INVALID);
    ASSERT_NOT_FOUND(req, api_app_get, id_text(db->pool, a2));
    ASSERT_NOT_FOUND(req, api_app_revoke, id_text(db->pool, a2));
    doc = call(req, api_apps_list, &status);
    assert_string_equal(ids(db->pool, doc), id_text(db->pool, a1));

    /* an expired app stays listed until revoked, its token refused */
    req->now = now + 8 * DAY;
    assert_int_equal(call_on(req, api_app_get, a1, &doc), 200);
    assert_int_equal(acct_authenticate(db->store, db->pool,
                                       bearer(db->pool, t1), req->now,
                                       &app_who, &src), ACCT_AUTH_OK);

    /* app tokens are not personal access tokens */
    doc = call(req, api_tokens_list, &status);
    assert_int_equal(status, 200);
    assert_int_equal(num(doc, "results"), 1);
}

/* ------------------------------------------------------------------------
 * Trusted devices
 */

static apr_int64_t add_device(unit_db *db, apr_int64_t uid, const char *ip,
                              apr_int64_t expiry, apr_int64_t now)
{
    acct_ident_result res;
    apr_int64_t id = 0;

    assert_int_equal(acct_device_add(db->store, db->pool, uid, ip,
                                     "Mozilla/5.0 (X11; Linux x86_64)",
                                     expiry, now, &id, &res), ACCT_IDENT_OK);
    return id;
}

static void test_devices_routes(void **state)
{
    static const char *const keys[] = {"id", "created", "expiry",
                                       "last_authenticated",
                                       "last_remote_addr", "user_agent",
                                       NULL};
    unit_db *db = *state;
    acct_principal owner, other;
    acct_req *req;
    apr_int64_t now = apr_time_sec(apr_time_now()), d1, d2, d3;
    json_t *doc;
    int status;

    unit_identity(db, "alice", 0, "*", &owner);
    unit_identity(db, "bob", 0, "*", &other);
    d1 = add_device(db, owner.user_id, "2001:DB8:0:0::1", 0, now);
    d2 = add_device(db, owner.user_id, "198.51.100.7", now + DAY, now);
    d3 = add_device(db, other.user_id, "203.0.113.9", 0, now);

    req = unit_req(db, &owner);
    req->now = now;
    doc = call(req, api_devices_list, &status);
    assert_int_equal(status, 200);
    assert_string_equal(ids(db->pool, doc),
                        apr_psprintf(db->pool, "%" APR_INT64_T_FMT ",%"
                                     APR_INT64_T_FMT, d1, d2));

    assert_int_equal(call_on(req, api_device_get, d1, &doc), 200);
    assert_keys(db->pool, doc, keys);
    assert_string_equal(str(doc, "last_remote_addr"), "2001:db8::1");
    assert_string_equal(str(doc, "user_agent"),
                        "Mozilla/5.0 (X11; Linux x86_64)");
    assert_string_equal(str(doc, "created"), str(doc, "last_authenticated"));
    /* 30 days by default */
    assert_string_equal(str(doc, "expiry"), ts(db->pool, now + 30 * DAY));

    /* linode_api4's TrustedDevice properties, and no other key */
    req->filter = "{\"user_agent\":\"x\"}";
    doc = call(req, api_devices_list, &status);
    assert_int_equal(status, 200);
    assert_int_equal(num(doc, "results"), 0);
    req->filter = "{\"browser\":\"x\"}";
    doc = call(req, api_devices_list, &status);
    assert_int_equal(status, 400);
    assert_string_equal(first_reason(doc), "Cannot filter on browser");
    req->filter = "{\"+order\":\"desc\"}";
    doc = call(req, api_devices_list, &status);
    assert_int_equal(status, 200);
    assert_string_equal(ids(db->pool, doc),
                        apr_psprintf(db->pool, "%" APR_INT64_T_FMT ",%"
                                     APR_INT64_T_FMT, d2, d1));
    req->filter = NULL;

    /* another user's device, malformed ids */
    ASSERT_NOT_FOUND(req, api_device_get, id_text(db->pool, d3));
    ASSERT_NOT_FOUND(req, api_device_revoke, id_text(db->pool, d3));
    ASSERT_NOT_FOUND(req, api_device_get, id_text(db->pool, 0));
    ASSERT_NOT_FOUND(req, api_device_revoke, "abc");

    /* expired: gone from list and view, cannot be revoked */
    req->now = now + DAY;
    doc = call(req, api_devices_list, &status);
    assert_string_equal(ids(db->pool, doc), id_text(db->pool, d1));
    ASSERT_NOT_FOUND(req, api_device_get, id_text(db->pool, d2));
    ASSERT_NOT_FOUND(req, api_device_revoke, id_text(db->pool, d2));
    req->now = now + DAY - 1;
    assert_int_equal(call_on(req, api_device_get, d2, &doc), 200);

    /* revoked: {} once, then gone */
    req->now = now;
    assert_int_equal(call_on(req, api_device_revoke, d1, &doc), 200);
    assert_int_equal(json_object_size(doc), 0);
    ASSERT_NOT_FOUND(req, api_device_get, id_text(db->pool, d1));
    ASSERT_NOT_FOUND(req, api_device_revoke, id_text(db->pool, d1));
    doc = call(req, api_devices_list, &status);
    assert_string_equal(ids(db->pool, doc), id_text(db->pool, d2));

    /* the other user's device was never touched */
    req = unit_req(db, &other);
    assert_int_equal(call_on(req, api_device_get, d3, &doc), 200);
}

/* The model's own-record calls say what they found as an outcome, by id:
 * the acting user's record is done, another's or a gone one not found. */
static void test_own_record_outcomes(void **state)
{
    unit_db *db = *state;
    acct_principal owner, other;
    acct_outcome out;
    acct_rows *rows;
    acct_req *req;
    apr_int64_t now = apr_time_sec(apr_time_now()), mine, theirs;

    unit_identity(db, "alice", 0, "*", &owner);
    unit_identity(db, "bob", 0, "*", &other);
    mine = add_device(db, owner.user_id, "198.51.100.7", 0, now);
    theirs = add_device(db, other.user_id, "203.0.113.9", 0, now);
    req = unit_req(db, &owner);
    req->now = now;

    rows = acct_own_row(req, acct_device_get, mine, &out);
    assert_int_equal(out.kind, ACCT_OUT_DONE);
    assert_non_null(rows);
    assert_string_equal(acct_rows_get(rows, 0, "id"), id_text(db->pool, mine));
    rows = acct_own_row(req, acct_device_get, theirs, &out);
    assert_int_equal(out.kind, ACCT_OUT_NOT_FOUND);
    assert_null(rows);

    out = acct_own_change(req, acct_device_revoke, theirs);
    assert_int_equal(out.kind, ACCT_OUT_NOT_FOUND);
    out = acct_own_change(req, acct_device_revoke, mine);
    assert_int_equal(out.kind, ACCT_OUT_DONE);
    out = acct_own_change(req, acct_device_revoke, mine);
    assert_int_equal(out.kind, ACCT_OUT_NOT_FOUND);
    assert_null(acct_own_row(req, acct_device_get, mine, &out));
    assert_int_equal(out.kind, ACCT_OUT_NOT_FOUND);
}

static void test_device_add_refusals(void **state)
{
    unit_db *db = *state;
    acct_principal owner;
    acct_ident_result res;
    apr_int64_t now = apr_time_sec(apr_time_now()), id;
    const char *long_ua = "";
    int i;

    unit_identity(db, "alice", 0, "*", &owner);
    for (i = 0; i <= ACCT_USER_AGENT_MAX; i++) {
        long_ua = apr_pstrcat(db->pool, long_ua, "a", NULL);
    }
    assert_int_equal(acct_device_add(db->store, db->pool, owner.user_id,
                                     "host.example", "UA", 0, now, &id, &res),
                     ACCT_IDENT_INVALID);
    assert_int_equal(acct_device_add(db->store, db->pool, owner.user_id,
                                     "10.0.0.1", "", 0, now, &id, &res),
                     ACCT_IDENT_INVALID);
    assert_int_equal(acct_device_add(db->store, db->pool, owner.user_id,
                                     "10.0.0.1", NULL, 0, now, &id, &res),
                     ACCT_IDENT_INVALID);
    assert_int_equal(acct_device_add(db->store, db->pool, owner.user_id,
                                     "10.0.0.1", long_ua, 0, now, &id, &res),
                     ACCT_IDENT_INVALID);
    assert_int_equal(acct_device_add(db->store, db->pool, owner.user_id,
                                     "10.0.0.1", "UA", now, now, &id, &res),
                     ACCT_IDENT_INVALID);
    assert_int_equal(acct_device_add(db->store, db->pool, 999999, "10.0.0.1",
                                     "UA", 0, now, &id, &res),
                     ACCT_IDENT_NOT_FOUND);
}

/* ------------------------------------------------------------------------
 * Logins
 */

static apr_int64_t record(unit_db *db, apr_int64_t uid, const char *status,
                          apr_int64_t at)
{
    acct_ident_result res;
    apr_int64_t id = 0;

    assert_int_equal(acct_login_record(db->store, db->pool, uid,
                                       "192.0.2.10", status, at, &id, &res),
                     ACCT_IDENT_OK);
    return id;
}

static void test_logins_routes(void **state)
{
    static const char *const keys[] = {"id", "datetime", "ip", "restricted",
                                       "status", "username", NULL};
    unit_db *db = *state;
    acct_principal owner, limited;
    acct_req *req;
    apr_int64_t now = apr_time_sec(apr_time_now());
    apr_int64_t old, edge, recent, failed, gone, theirs;
    json_t *doc;
    int status;

    unit_identity(db, "alice", 0, "*", &owner);
    unit_identity(db, "limited", 1, "*", &limited);
    old = record(db, owner.user_id, "successful", now - 91 * DAY);
    edge = record(db, owner.user_id, "successful", now - 90 * DAY);
    gone = record(db, owner.user_id, "successful", now - 90 * DAY - 1);
    recent = record(db, owner.user_id, "successful", now - 60);
    failed = record(db, owner.user_id, "failed", now);
    theirs = record(db, limited.user_id, "successful", now);

    req = unit_req(db, &owner);
    req->now = now;
    doc = call(req, api_logins_list, &status);
    assert_int_equal(status, 200);
    /* the contract lists successful logins only */
    assert_int_equal(num(doc, "results"), 2);
    assert_string_equal(ids(db->pool, doc),
                        apr_psprintf(db->pool, "%" APR_INT64_T_FMT ",%"
                                     APR_INT64_T_FMT, edge, recent));
    ASSERT_NOT_FOUND(req, api_login_get, id_text(db->pool, failed));

    assert_int_equal(call_on(req, api_login_get, recent, &doc), 200);
    assert_keys(db->pool, doc, keys);
    assert_string_equal(str(doc, "status"), "successful");
    assert_string_equal(str(doc, "ip"), "192.0.2.10");
    assert_string_equal(str(doc, "username"), "alice");
    assert_true(json_is_false(json_object_get(doc, "restricted")));
    assert_int_equal(call_on(req, api_login_get, edge, &doc), 200);

    /* older than 90 days: gone */
    ASSERT_NOT_FOUND(req, api_login_get, id_text(db->pool, old));
    ASSERT_NOT_FOUND(req, api_login_get, id_text(db->pool, gone));
    /* the window moves with the clock */
    req->now = now + 1;
    ASSERT_NOT_FOUND(req, api_login_get, id_text(db->pool, edge));
    doc = call(req, api_logins_list, &status);
    assert_int_equal(num(doc, "results"), 1);
    req->now = now;

    /* another user's login, malformed ids */
    ASSERT_NOT_FOUND(req, api_login_get, id_text(db->pool, theirs));
    ASSERT_NOT_FOUND(req, api_login_get, id_text(db->pool, 0));
    ASSERT_NOT_FOUND(req, api_login_get, "+1");

    /* linode_api4's ProfileLogin properties, and no other key: only
     * successful logins are listed */
    req->filter = "{\"status\":\"failed\"}";
    doc = call(req, api_logins_list, &status);
    assert_int_equal(status, 200);
    assert_int_equal(num(doc, "results"), 0);
    req->filter = "{\"location\":\"x\"}";
    doc = call(req, api_logins_list, &status);
    assert_int_equal(status, 400);
    assert_string_equal(first_reason(doc), "Cannot filter on location");
    req->filter = NULL;

    /* a restricted user's login says so, under the name it had */
    req = unit_req(db, &limited);
    assert_int_equal(call_on(req, api_login_get, theirs, &doc), 200);
    assert_true(json_is_true(json_object_get(doc, "restricted")));
    assert_string_equal(str(doc, "username"), "limited");
}

static void test_logins_pagination(void **state)
{
    unit_db *db = *state;
    acct_principal owner;
    acct_req *req;
    apr_int64_t now = apr_time_sec(apr_time_now()), first = 0, id;
    json_t *doc;
    int status, i;

    unit_identity(db, "alice", 0, "*", &owner);
    for (i = 0; i < 30; i++) {
        id = record(db, owner.user_id, "successful", now - i * DAY);
        first = first ? first : id;
    }
    /* failed logins are not listed, so they do not count */
    record(db, owner.user_id, "failed", now);
    req = unit_req(db, &owner);
    req->now = now;
    apr_table_setn(req->query, "page_size", "25");
    apr_table_setn(req->query, "page", "2");
    doc = call(req, api_logins_list, &status);
    assert_int_equal(status, 200);
    assert_int_equal(num(doc, "results"), 30);
    assert_int_equal(num(doc, "pages"), 2);
    assert_int_equal(json_array_size(json_object_get(doc, "data")), 5);
    assert_int_equal(num(json_array_get(json_object_get(doc, "data"), 0),
                         "id"), first + 25);
    apr_table_setn(req->query, "page_size", "24");
    doc = call(req, api_logins_list, &status);
    assert_int_equal(status, 400);
    assert_string_equal(first_field(doc), "page_size");
}

static void test_login_record_refusals(void **state)
{
    unit_db *db = *state;
    acct_principal owner;
    acct_ident_result res;
    apr_int64_t now = apr_time_sec(apr_time_now()), id;

    unit_identity(db, "alice", 0, "*", &owner);
    assert_int_equal(acct_login_record(db->store, db->pool, owner.user_id,
                                       "300.1.1.1", "successful", now, &id,
                                       &res), ACCT_IDENT_INVALID);
    assert_int_equal(acct_login_record(db->store, db->pool, owner.user_id,
                                       "10.0.0.1", "maybe", now, &id, &res),
                     ACCT_IDENT_INVALID);
    assert_int_equal(acct_login_record(db->store, db->pool, owner.user_id,
                                       "10.0.0.1", NULL, now, &id, &res),
                     ACCT_IDENT_INVALID);
    assert_int_equal(acct_login_record(db->store, db->pool, owner.user_id,
                                       "10.0.0.1", "failed", -1, &id, &res),
                     ACCT_IDENT_INVALID);
    assert_int_equal(acct_login_record(db->store, db->pool, 999999,
                                       "10.0.0.1", "failed", now, &id, &res),
                     ACCT_IDENT_NOT_FOUND);
}

static void test_ip_canonical(void **state)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"192.0.2.1", "192.0.2.1"},
        {"0.0.0.0", "0.0.0.0"},
        {"::1", "::1"},
        {"2001:DB8:0000:0:0::10", "2001:db8::10"},
        {"::ffff:192.0.2.1", "::ffff:192.0.2.1"},
        {"192.0.2", NULL},
        {"192.0.2.256", NULL},
        {"192.0.2.1 ", NULL},
        {" 192.0.2.1", NULL},
        {"2001:db8::1%eth0", NULL},
        {"2001:db8:::1", NULL},
        {"localhost", NULL},
        {"", NULL},
        {NULL, NULL},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *got = acct_ip_canonical(pool, cases[i].in);

        if (cases[i].out) {
            UNIT_CHECK_CASE(i, got && strcmp(got, cases[i].out) == 0);
        }
        else {
            UNIT_CHECK_CASE(i, got == NULL);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_DB_TEST(test_app_token_authentication),
        UNIT_DB_TEST(test_app_token_of_another_users_app),
        UNIT_DB_TEST(test_app_authorize_refusals),
        UNIT_DB_TEST(test_apps_routes),
        UNIT_DB_TEST(test_devices_routes),
        UNIT_DB_TEST(test_own_record_outcomes),
        UNIT_DB_TEST(test_device_add_refusals),
        UNIT_DB_TEST(test_logins_routes),
        UNIT_DB_TEST(test_logins_pagination),
        UNIT_DB_TEST(test_login_record_refusals),
        UNIT_TEST(test_ip_canonical),
    };

    return UNIT_DB_RUN(tests);
}
