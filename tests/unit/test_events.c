/* The event feed (acct_event.c, api_events.c) on a migrated SQLite
 * database: the events a managed database's operations write, their
 * lifecycle with req->now moved by hand (the test clock), the X-Filter
 * fields and operators clients send, seen and read, retention and prune,
 * restricted users and other accounts, and the operator's set-status. */
#include "unit.h"

#include <apr_strings.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "unit_db.h"
#include "acct_auth.h"
#include "acct_db.h"
#include "acct_event.h"
#include "acct_grants.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "acct_profile.h"
#include "acct_sshkey.h"
#include "acct_tags.h"
#include "acct_tfa.h"
#include "acct_router.h"
#include "acct_seal.h"
#include "acct_time.h"
#include "api_handlers.h"

#define PROVISION 1200
#define OPERATION 180
#define DAY 86400
#define ED25519 "ssh-ed25519 " \
    "AAAAC3NzaC1lZDI1NTE5AAAAIODawwa+Vh+oKziAsrGIN7OpMSUL4u4dBPf4dZfXjl+p"

static const unsigned char seal_key[ACCT_SEAL_KEY_LEN] =
    "0123456789abcdef0123456789abcdef";

static const acct_settings emulated = {
    0, 0, "https://r.example/", seal_key, NULL, NULL,
    0, PROVISION, PROVISION, OPERATION, "db.unit.test"
};
static const acct_settings external = {
    0, 0, "https://r.example/", seal_key, NULL, NULL,
    1, PROVISION, PROVISION, OPERATION, "db.unit.test"
};

static const acct_route mysql_route = {ACCT_METHOD_POST,
    "/databases/mysql/instances", NULL, ACCT_ROUTE_BODY, ACCT_FAM_DATABASES,
    ACCT_LEVEL_READ_WRITE, ACCT_DB_MYSQL};
static const acct_route events_route = {ACCT_METHOD_GET, "/account/events",
    NULL, ACCT_ROUTE_LIST, ACCT_FAM_EVENTS, ACCT_LEVEL_READ_ONLY, NULL};

typedef struct ctx {
    unit_db *db;
    acct_principal who;
    const acct_settings *settings;
    apr_int64_t now;
} ctx;

static void ctx_init(ctx *c, unit_db *db, const char *username)
{
    memset(c, 0, sizeof(*c));
    c->db = db;
    c->settings = &emulated;
    c->now = apr_time_sec(apr_time_now());
    unit_identity(db, username, 0, "*", &c->who);
}

/* Another user of c's account. */
static void member(ctx *c, ctx *m, const char *username, int restricted)
{
    *m = *c;
    unit_member(c->db, c->who.account_id, username, restricted, c->now,
                &m->who);
}

static acct_req *request(ctx *c, const acct_route *route, const char *id,
                         const char *body, const char *filter)
{
    acct_req *req = unit_req(c->db, &c->who);

    req->settings = c->settings;
    req->now = c->now;
    req->route = route;
    req->params[0] = id;
    req->filter = filter;
    if (body) {
        req->body = acct_json_own(c->db->pool, json_loads(body, 0, NULL));
        assert_non_null(req->body);
    }
    return req;
}

static json_t *call(acct_req *req, acct_handler *h, int want)
{
    int status;
    const char *text = unit_call(req, h, &status);
    json_t *doc = json_loads(text, 0, NULL);

    assert_non_null(doc);
    if (status != want) {
        fail_msg("status %d, want %d: %s", status, want, text);
    }
    return acct_json_own(req->pool, doc);
}

static apr_int64_t create_db(ctx *c, const char *label)
{
    json_t *doc = call(request(c, &mysql_route, NULL, apr_psprintf(
        c->db->pool, "{\"label\":\"%s\",\"region\":\"us-east\","
        "\"type\":\"g6-dedicated-2\",\"engine\":\"mysql/8.0.30\"}", label),
        NULL), api_database_create, 200);

    return (apr_int64_t)json_integer_value(json_object_get(doc, "id"));
}

/* The page of events `filter` selects (200 expected). */
static json_t *list(ctx *c, const char *filter)
{
    /* The identities' own token_create events aside. */
    if (!filter) {
        filter = "{\"entity.type\":\"database\"}";
    }
    return json_object_get(call(request(c, &events_route, NULL, NULL, filter),
                                api_events_list, 200), "data");
}

static json_t *get_event(ctx *c, json_int_t id, int want)
{
    return call(request(c, &events_route,
                        acct_i64(c->db->pool, (apr_int64_t)id),
                        NULL, NULL), api_event_get, want);
}

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static json_int_t num(json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

/* ------------------------------------------------------------------------
 * Tests
 */

/* A database's create event follows its provisioning second by second. */
static void test_create_lifecycle(void **state)
{
    ctx c;
    apr_int64_t id, start;
    json_t *e, *data;
    const char *filter;

    ctx_init(&c, *state, "alice");
    start = c.now;
    id = create_db(&c, "db-one");
    filter = apr_psprintf(c.db->pool, "{\"+order_by\":\"created\","
                          "\"+order\":\"desc\",\"entity.type\":\"database\","
                          "\"entity.id\":%" APR_INT64_T_FMT ","
                          "\"action\":\"database_create\"}", id);
    data = list(&c, filter);
    assert_int_equal(json_array_size(data), 1);
    e = json_array_get(data, 0);
    assert_string_equal(str(e, "action"), "database_create");
    assert_string_equal(str(e, "status"), "started");
    assert_int_equal(num(e, "percent_complete"), 0);
    assert_string_equal(str(e, "time_remaining"), "00:20:00");
    assert_true(json_is_null(json_object_get(e, "duration")));
    assert_true(json_is_null(json_object_get(e, "rate")));
    assert_true(json_is_null(json_object_get(e, "secondary_entity")));
    assert_string_equal(str(e, "message"), "");
    assert_true(json_is_object(json_object_get(e, "details")));
    assert_int_equal(json_object_size(json_object_get(e, "details")), 0);
    assert_true(json_is_false(json_object_get(e, "seen")));
    assert_true(json_is_false(json_object_get(e, "read")));
    assert_string_equal(str(e, "username"), "alice");
    assert_string_equal(str(e, "created"),
                        acct_format_timestamp(c.db->pool, start));
    assert_int_equal(num(json_object_get(e, "entity"), "id"), id);
    assert_string_equal(str(json_object_get(e, "entity"), "type"), "database");
    assert_string_equal(str(json_object_get(e, "entity"), "label"), "db-one");
    assert_string_equal(str(json_object_get(e, "entity"), "url"),
                        apr_psprintf(c.db->pool, "/v4/databases/mysql/"
                                     "instances/%" APR_INT64_T_FMT, id));

    /* Half way, by the clock alone: nothing was written meanwhile. */
    c.now = start + PROVISION / 2;
    e = get_event(&c, num(e, "id"), 200);
    assert_string_equal(str(e, "status"), "started");
    assert_int_equal(num(e, "percent_complete"), 50);
    assert_string_equal(str(e, "time_remaining"), "00:10:00");

    /* A second before, and at the moment it becomes active. */
    c.now = start + PROVISION - 1;
    e = get_event(&c, num(e, "id"), 200);
    assert_string_equal(str(e, "status"), "started");
    assert_int_equal(num(e, "percent_complete"), 99);
    assert_string_equal(str(e, "time_remaining"), "00:00:01");
    c.now = start + PROVISION;
    e = get_event(&c, num(e, "id"), 200);
    assert_string_equal(str(e, "status"), "finished");
    assert_int_equal(num(e, "percent_complete"), 100);
    assert_int_equal(num(e, "duration"), PROVISION);
    assert_true(json_is_null(json_object_get(e, "time_remaining")));
    /* The status filter sees what a reader sees. */
    assert_int_equal(json_array_size(list(&c, "{\"status\":\"finished\"}")), 1);
    assert_int_equal(json_array_size(list(&c, "{\"status\":\"started\"}")), 0);
    c.now = start;
    assert_int_equal(json_array_size(list(&c, "{\"status\":\"started\"}")), 1);
}

/* Seen marks the event and every older one; read only the one. */
static void test_seen_read(void **state)
{
    ctx c;
    json_t *data;
    json_int_t newest, oldest;

    ctx_init(&c, *state, "bob");
    create_db(&c, "db-a");
    create_db(&c, "db-b");
    c.now++;
    create_db(&c, "db-c");
    data = list(&c, NULL);
    assert_int_equal(json_array_size(data), 3);
    newest = num(json_array_get(data, 0), "id");
    oldest = num(json_array_get(data, 2), "id");
    assert_true(newest > oldest);     /* newest first */
    call(request(&c, &events_route, acct_i64(c.db->pool, newest - 1), NULL, NULL), api_event_seen,
         200);
    assert_int_equal(json_array_size(list(&c, "{\"seen\":true,\"entity.type\":\"database\"}")), 2);
    assert_int_equal(num(json_array_get(list(&c, "{\"seen\":false,\"entity.type\":\"database\"}"), 0),
                         "id"), newest);
    call(request(&c, &events_route, acct_i64(c.db->pool, oldest), NULL, NULL), api_event_read, 200);
    data = list(&c, "{\"read\":true}");
    assert_int_equal(json_array_size(data), 1);
    assert_int_equal(num(json_array_get(data, 0), "id"), oldest);
    /* Marking again is fine; an unknown event is 404. */
    call(request(&c, &events_route, acct_i64(c.db->pool, oldest), NULL, NULL), api_event_read, 200);
    call(request(&c, &events_route, "99999", NULL, NULL), api_event_seen, 404);
    call(request(&c, &events_route, "99999", NULL, NULL), api_event_read, 404);
}

/* A restricted user sees the events of its grants; another account's
 * events are 404. */
static void test_visibility(void **state)
{
    ctx c, r, other;
    apr_int64_t id;
    json_int_t eid;

    ctx_init(&c, *state, "carol");
    id = create_db(&c, "db-v");
    eid = num(json_array_get(list(&c, NULL), 0), "id");
    member(&c, &r, "carol-r", 1);
    assert_int_equal(json_array_size(list(&r, NULL)), 0);
    get_event(&r, eid, 404);
    call(request(&r, &events_route, acct_i64(c.db->pool, eid), NULL, NULL), api_event_seen, 404);
    assert_int_equal(acct_grant_entity_put(c.db->store, c.db->pool,
                                           r.who.user_id, ACCT_ENTITY_DATABASE,
                                           id, ACCT_GRANT_READ_ONLY),
                     ACCT_STORE_OK);
    assert_int_equal(json_array_size(list(&r, NULL)), 1);
    get_event(&r, eid, 200);
    ctx_init(&other, *state, "dave");
    assert_int_equal(json_array_size(list(&other, NULL)), 0);
    get_event(&other, eid, 404);
}

/* Reads never show events older than 90 days; prune deletes them. */
static void test_retention(void **state)
{
    ctx c;
    json_int_t eid;
    int deleted = -1;

    ctx_init(&c, *state, "erin");
    create_db(&c, "db-r");
    eid = num(json_array_get(list(&c, NULL), 0), "id");
    c.now += ACCT_EVENT_RETENTION - 1;
    get_event(&c, eid, 200);
    assert_int_equal(acct_event_prune(c.db->store, c.db->pool, c.now,
                                      &deleted), ACCT_STORE_OK);
    assert_int_equal(deleted, 0);
    c.now += 1;
    get_event(&c, eid, 404);
    assert_int_equal(json_array_size(list(&c, NULL)), 0);
    assert_int_equal(acct_event_prune(c.db->store, c.db->pool, c.now,
                                      &deleted), ACCT_STORE_OK);
    assert_true(deleted >= 1);    /* the database's, and maybe the token's */
    c.now -= ACCT_EVENT_RETENTION;
    assert_int_equal(json_array_size(list(&c, NULL)), 0);
}

/* With an external backend nothing is scheduled: the operator's
 * set-status ends the operation and reports failures. */
static void test_external(void **state)
{
    ctx c;
    apr_int64_t id;
    json_t *e, *data;
    int changed = 0;

    ctx_init(&c, *state, "frank");
    c.settings = &external;
    id = create_db(&c, "db-x");
    c.now += 3 * DAY;
    e = json_array_get(list(&c, NULL), 0);
    assert_string_equal(str(e, "status"), "started");
    assert_int_equal(num(e, "percent_complete"), 0);
    assert_true(json_is_null(json_object_get(e, "time_remaining")));
    assert_int_equal(acct_db_set_status(c.db->store, c.db->pool, id,
                                        ACCT_DB_ACTIVE, NULL, NULL, c.now,
                                        &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 1);
    e = json_array_get(list(&c, NULL), 0);
    assert_string_equal(str(e, "status"), "finished");
    assert_int_equal(num(e, "duration"), 3 * DAY);
    assert_int_equal(acct_db_set_status(c.db->store, c.db->pool, id,
                                        ACCT_DB_FAILED, NULL, NULL, c.now,
                                        &changed), ACCT_STORE_OK);
    data = list(&c, NULL);
    assert_int_equal(json_array_size(data), 2);
    e = json_array_get(data, 0);
    assert_string_equal(str(e, "action"), "database_failed");
    assert_string_equal(str(e, "status"), "notification");
    assert_int_equal(num(e, "duration"), 0);
    assert_true(json_is_null(json_object_get(e, "percent_complete")));
    assert_true(json_is_null(json_object_get(e, "username")));
}

/* The entity of event `e`: {id, label, type, url} as text. */
static void check_entity(json_t *e, const char *action, const char *id,
                         const char *label, const char *type, const char *url)
{
    json_t *en = json_object_get(e, "entity");
    json_t *jid = json_object_get(en, "id");
    char *id_text = json_dumps(jid, JSON_ENCODE_ANY);

    assert_string_equal(str(e, "action"), action);
    assert_string_equal(str(e, "status"), "notification");
    assert_string_equal(id_text, id);
    free(id_text);
    if (label) {
        assert_string_equal(str(en, "label"), label);
    }
    else {
        assert_true(json_is_null(json_object_get(en, "label")));
    }
    assert_string_equal(str(en, "type"), type);
    assert_string_equal(str(en, "url"), url);
}

/* The writes of SSH keys, two-factor, the profile, tags and the operator's
 * users each write their event; a write that changes nothing writes none. */
static void test_other_writes(void **state)
{
    ctx c;
    acct_store *st;
    apr_pool_t *p;
    apr_int64_t key = 0, tag = 0, uid = 0;
    acct_profile_changes changes;
    acct_ident_result res;
    json_t *data;
    int changed = 0;
    size_t i;
    const char *key_url, *uid_text;

    ctx_init(&c, *state, "gina");
    st = c.db->store;
    p = c.db->pool;
    assert_int_equal(acct_sshkey_create(st, p, c.who.user_id, "key", ED25519,
                                        c.now, &key), ACCT_STORE_OK);
    assert_int_equal(acct_sshkey_update(st, p, key, c.who.user_id, "laptop",
                                        c.now, &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 1);
    /* Another user's key: no change, no event. */
    assert_int_equal(acct_sshkey_update(st, p, key, c.who.user_id + 999, "x",
                                        c.now, &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 0);
    assert_int_equal(acct_tfa_secret_issue(st, p, c.who.user_id, "sealed",
                                           c.now + 600), ACCT_STORE_OK);
    assert_int_equal(acct_tfa_confirm(st, p, c.who.user_id, 42, "hash",
                                      c.now, &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 1);
    assert_int_equal(acct_tfa_disable(st, p, c.who.user_id, c.now),
                     ACCT_STORE_OK);
    /* Off already: no second tfa_disabled. */
    assert_int_equal(acct_tfa_disable(st, p, c.who.user_id, c.now),
                     ACCT_STORE_OK);
    acct_profile_changes_init(&changes);
    changes.timezone = "Europe/Paris";
    assert_int_equal(acct_profile_update(st, p, c.who.user_id, &changes,
                                         c.now), ACCT_STORE_OK);
    assert_int_equal(acct_tags_create(st, p, c.who.account_id, "blue sky/2",
                                      "gina", c.now, &tag), ACCT_STORE_OK);
    assert_true(tag > 0);
    assert_int_equal(acct_tags_delete(st, p, c.who.account_id, tag,
                                      "blue sky/2", "gina", c.now),
                     ACCT_STORE_OK);
    /* Gone already (a concurrent delete came first): no second event. */
    assert_int_equal(acct_tags_delete(st, p, c.who.account_id, tag,
                                      "blue sky/2", "gina", c.now),
                     ACCT_STORE_OK);
    assert_int_equal(acct_user_create(st, p, c.who.account_id, "gina-2",
                                      "g2@example.com", 0, c.now, &uid, &res),
                     ACCT_IDENT_OK);

    data = list(&c, "{}");
    key_url = apr_psprintf(p, "/v4/profile/sshkeys/%" APR_INT64_T_FMT, key);
    uid_text = apr_psprintf(p, "%" APR_INT64_T_FMT, uid);
    check_entity(json_array_get(data, 0), "user_create", uid_text, "gina-2",
                 "user", "/v4/account/users/gina-2");
    /* By the operator. */
    assert_true(json_is_null(json_object_get(json_array_get(data, 0),
                                             "username")));
    check_entity(json_array_get(data, 1), "tag_delete", "\"blue sky/2\"",
                 "blue sky/2", "tag", "/v4/tags/blue%20sky%2f2");
    check_entity(json_array_get(data, 2), "tag_create", "\"blue sky/2\"",
                 "blue sky/2", "tag", "/v4/tags/blue%20sky%2f2");
    check_entity(json_array_get(data, 3), "profile_update", "null", "gina",
                 "profile", "/v4/profile");
    check_entity(json_array_get(data, 4), "tfa_disabled", "null", "gina",
                 "profile", "/v4/profile");
    check_entity(json_array_get(data, 5), "tfa_enabled", "null", "gina",
                 "profile", "/v4/profile");
    check_entity(json_array_get(data, 6), "user_ssh_key_update",
                 acct_i64(p, key), "laptop", "user_ssh_key", key_url);
    check_entity(json_array_get(data, 7), "user_ssh_key_add",
                 acct_i64(p, key), "key", "user_ssh_key", key_url);
    /* unit_identity's. */
    assert_string_equal(str(json_array_get(data, 8), "action"),
                        "token_create");
    assert_string_equal(str(json_array_get(data, 9), "action"),
                        "user_create");
    assert_int_equal(json_array_size(data), 10);
    for (i = 1; i < 9; i++) {
        assert_string_equal(str(json_array_get(data, i), "username"), "gina");
    }
}

/* The text of a response's "data" array. */
static const char *data_text(apr_pool_t *p, const char *doc)
{
    const char *start = strstr(doc, "{\"data\":");
    const char *end = strstr(doc, "],\"page\":");

    assert_non_null(start);
    assert_non_null(end);
    return apr_pstrndup(p, start + 8, (apr_size_t)(end + 1 - start - 8));
}

/* A page is written as text (api_events.c): byte for byte the compact dump
 * of the objects a single answer builds with jansson, whatever the values
 * (nulls, a tag's label as its id, escapes, text that is not UTF-8, a
 * running operation's figures). */
static void test_page_text_is_the_objects_dump(void **state)
{
    static const char *const labels[] = {
        "plain", "quote\" back\\ slash/ tab\t nl\n \x01 del\x7f",
        "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "bad \xff utf-8", NULL
    };
    ctx c;
    apr_int64_t tag = 0, uid = 0;
    acct_ident_result res;
    acct_profile_changes changes;
    const char *page, *joined = "[";
    json_t *data;
    size_t i;
    int status;

    ctx_init(&c, *state, "hana");
    create_db(&c, "db-text");
    for (i = 0; labels[i]; i++) {
        assert_int_equal(acct_tags_create(c.db->store, c.db->pool,
                                          c.who.account_id, labels[i], "hana",
                                          c.now, &tag), ACCT_STORE_OK);
    }
    acct_profile_changes_init(&changes);
    assert_int_equal(acct_profile_update(c.db->store, c.db->pool,
                                         c.who.user_id, &changes, c.now),
                     ACCT_STORE_OK);
    assert_int_equal(acct_user_create(c.db->store, c.db->pool,
                                      c.who.account_id, "hana-2",
                                      "h2@example.com", 0, c.now, &uid, &res),
                     ACCT_IDENT_OK);
    c.now += PROVISION / 3;       /* the database's create runs: 33% */
    page = unit_call(request(&c, &events_route, NULL, NULL, "{}"),
                     api_events_list, &status);
    assert_int_equal(status, 200);
    data = json_object_get(acct_json_own(c.db->pool, json_loads(page, 0, NULL)),
                           "data");
    assert_true(json_array_size(data) >= 9);
    for (i = 0; i < json_array_size(data); i++) {
        json_int_t id = num(json_array_get(data, i), "id");
        const char *one = unit_call(request(&c, &events_route,
                                            acct_i64(c.db->pool, (apr_int64_t)id),
                                            NULL, NULL),
                                    api_event_get, &status);

        assert_int_equal(status, 200);
        joined = apr_pstrcat(c.db->pool, joined, i ? "," : "", one, NULL);
    }
    joined = apr_pstrcat(c.db->pool, joined, "]", NULL);
    assert_string_equal(data_text(c.db->pool, page), joined);
    /* What the values were. */
    assert_non_null(strstr(page, "\"percent_complete\":33"));
    assert_non_null(strstr(page, "{\"id\":null,\"label\":null,"
                                 "\"type\":\"tag\""));
    assert_non_null(strstr(page, "\"id\":\"plain\""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_DB_TEST(test_create_lifecycle),
        UNIT_DB_TEST(test_seen_read),
        UNIT_DB_TEST(test_visibility),
        UNIT_DB_TEST(test_retention),
        UNIT_DB_TEST(test_external),
        UNIT_DB_TEST(test_other_writes),
        UNIT_DB_TEST(test_page_text_is_the_objects_dump),
    };

    return UNIT_DB_RUN(tests);
}
