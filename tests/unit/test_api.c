/* Route handlers, authentication and authorisation through the core, on a
 * migrated SQLite database: what the module does minus httpd. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_dbd.h>
#include <apr_strings.h>
#include <jansson.h>
#include <string.h>

#include "unit_db.h"
#include "acct_auth.h"
#include "acct_clock.h"
#include "acct_crypto.h"
#include "acct_grants.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "acct_names.h"
#include "acct_router.h"
#include "acct_tokens.h"
#include "api_catalog.h"
#include "api_handlers.h"


/* Calls a handler and parses its answer; fails the test on non-JSON. */
static json_t *call(acct_req *req, acct_handler *h, int *status)
{
    const char *text = unit_call(req, h, status);
    json_t *doc;

    if (!*text) {
        return NULL;
    }
    doc = json_loads(text, 0, NULL);
    assert_non_null(doc);
    return doc;
}

static const char *first_reason(json_t *doc)
{
    return json_string_value(json_object_get(
        json_array_get(json_object_get(doc, "errors"), 0), "reason"));
}

static void test_regions_list(void **state)
{
    unit_db *db = *state;
    acct_req *req = unit_req(db, NULL);
    json_t *doc, *item;
    size_t i;
    int status, outages = 0;

    doc = call(req, api_regions_list, &status);
    assert_int_equal(status, 200);
    assert_true(json_integer_value(json_object_get(doc, "results")) >= 10);
    assert_int_equal(json_integer_value(json_object_get(doc, "page")), 1);
    assert_int_equal(json_integer_value(json_object_get(doc, "pages")), 1);
    json_array_foreach(json_object_get(doc, "data"), i, item) {
        assert_non_null(json_object_get(item, "id"));
        assert_true(json_is_array(json_object_get(item, "capabilities")));
        assert_true(json_is_string(json_object_get(
            json_object_get(item, "resolvers"), "ipv4")));
        assert_non_null(json_object_get(item, "site_type"));
        outages += strcmp(json_string_value(json_object_get(item, "status")),
                          "outage") == 0;
    }
    assert_int_equal(outages, 1);
    json_decref(doc);
}

static void test_pagination_errors_and_slices(void **state)
{
    unit_db *db = *state;
    acct_req *req = unit_req(db, NULL);
    json_t *doc;
    int status;

    apr_table_setn(req->query, "page_size", "10");
    doc = call(req, api_types_list, &status);
    assert_int_equal(status, 400);
    assert_string_equal(json_string_value(json_object_get(json_array_get(
        json_object_get(doc, "errors"), 0), "field")), "page_size");
    json_decref(doc);

    apr_table_setn(req->query, "page_size", "25");
    apr_table_setn(req->query, "page", "2");
    doc = call(req, api_types_list, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_integer_value(json_object_get(doc, "page")), 2);
    assert_int_equal(json_array_size(json_object_get(doc, "data")),
                     json_integer_value(json_object_get(doc, "results")) - 25);
    json_decref(doc);

    apr_table_setn(req->query, "page", "40");
    doc = call(req, api_types_list, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_array_size(json_object_get(doc, "data")), 0);
    assert_int_equal(json_integer_value(json_object_get(doc, "page")), 40);
    assert_int_equal(json_integer_value(json_object_get(doc, "pages")), 2);
    json_decref(doc);
}

static void test_types_filter_and_order(void **state)
{
    unit_db *db = *state;
    acct_req *req = unit_req(db, NULL);
    json_t *doc, *item;
    json_int_t last = -1;
    size_t i;
    int status;

    req->filter = "{\"class\":\"gpu\",\"+order_by\":\"memory\",\"+order\":\"desc\"}";
    doc = call(req, api_types_list, &status);
    assert_int_equal(status, 200);
    assert_true(json_array_size(json_object_get(doc, "data")) >= 2);
    json_array_foreach(json_object_get(doc, "data"), i, item) {
        json_int_t mem = json_integer_value(json_object_get(item, "memory"));

        assert_string_equal(json_string_value(json_object_get(item, "class")),
                            "gpu");
        assert_true(last < 0 || mem <= last);
        last = mem;
    }
    json_decref(doc);

    req->filter = "{\"price\":1}";
    doc = call(req, api_types_list, &status);
    assert_int_equal(status, 400);
    assert_string_equal(first_reason(doc), "Cannot filter on price");
    json_decref(doc);
}

static void test_type_key_order(void **state)
{
    static const char *const keys[] = {
        "id", "label", "price", "region_prices", "addons", "memory", "disk",
        "transfer", "vcpus", "gpus", "network_out", "class", "successor"
    };
    unit_db *db = *state;
    acct_req *req = unit_req(db, NULL);
    const char *text, *prev = NULL, *at;
    int status;
    size_t i;

    req->params[0] = "g6-nanode-1";
    text = unit_call(req, api_type_get, &status);
    assert_int_equal(status, 200);
    for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        at = strstr(text, apr_psprintf(db->pool, "\"%s\":", keys[i]));
        assert_non_null(at);
        assert_true(!prev || at > prev);
        prev = at;
    }
}

static void test_items_and_not_found(void **state)
{
    unit_db *db = *state;
    acct_req *req = unit_req(db, NULL);
    json_t *doc;
    int status;

    req->params[0] = "mysql/8.0.30";
    doc = call(req, api_engine_get, &status);
    assert_int_equal(status, 200);
    assert_string_equal(json_string_value(json_object_get(doc, "engine")),
                        "mysql");
    json_decref(doc);

    req->params[0] = "us-east";
    doc = call(req, api_region_availability, &status);
    assert_int_equal(status, 200);
    assert_true(json_is_array(doc));
    json_decref(doc);

    req->params[0] = "atlantis";
    doc = call(req, api_region_get, &status);
    assert_int_equal(status, 404);
    assert_string_equal(first_reason(doc), "Not found");
    json_decref(doc);
    doc = call(req, api_region_availability, &status);
    assert_int_equal(status, 404);
    json_decref(doc);
    doc = call(req, api_type_get, &status);
    assert_int_equal(status, 404);
    json_decref(doc);
}

static void test_authentication(void **state)
{
    unit_db *db = *state;
    acct_principal who;
    acct_store_rc src;
    apr_int64_t uid, tid, now = apr_time_sec(apr_time_now());
    acct_ident_result res;
    const char *token, *expiring;

    token = unit_identity(db, "carol", 0, "*", &who);
    assert_string_equal(who.scopes_text, "*");
    assert_int_equal(who.restricted, 0);
    assert_string_equal(who.username, "carol");

    /* malformed headers never reach the database */
    assert_int_equal(acct_authenticate(db->store, db->pool, NULL, now, &who,
                                       &src), ACCT_AUTH_INVALID);
    assert_int_equal(acct_authenticate(db->store, db->pool, token, now, &who,
                                       &src), ACCT_AUTH_INVALID);
    assert_int_equal(acct_authenticate(db->store, db->pool,
                                       apr_pstrcat(db->pool, "Basic ", token,
                                                   NULL), now, &who, &src),
                     ACCT_AUTH_INVALID);
    assert_int_equal(acct_authenticate(db->store, db->pool,
                                       apr_pstrcat(db->pool, "Bearer ", token,
                                                   "0", NULL), now, &who, &src),
                     ACCT_AUTH_INVALID);
    assert_int_equal(acct_authenticate(db->store, db->pool,
                                       apr_pstrcat(db->pool, "bearer  ", token,
                                                   NULL), now, &who, &src),
                     ACCT_AUTH_OK);
    /* a well-formed token nobody minted */
    assert_int_equal(acct_authenticate(db->store, db->pool,
        "Bearer 0000000000000000000000000000000000000000000000000000000000000000",
        now, &who, &src), ACCT_AUTH_INVALID);

    /* expiry is honoured against the clock it is given */
    assert_int_equal(acct_user_find(db->store, db->pool, "carol", &uid, &res),
                     ACCT_IDENT_OK);
    assert_int_equal(acct_token_create(db->store, db->pool, uid, "soon",
                                       "domains:read_only", now + 60, now,
                                       &tid, &expiring, &res), ACCT_IDENT_OK);
    assert_int_equal(acct_authenticate(db->store, db->pool,
                                       apr_pstrcat(db->pool, "Bearer ",
                                                   expiring, NULL),
                                       now, &who, &src), ACCT_AUTH_OK);
    assert_string_equal(who.scopes_text, "domains:read_only");
    assert_int_equal(acct_authenticate(db->store, db->pool,
                                       apr_pstrcat(db->pool, "Bearer ",
                                                   expiring, NULL),
                                       now + 60, &who, &src), ACCT_AUTH_INVALID);
}

/* A read sent with the lookup (acct_auth_also): it reads the rows of the
 * account it is told, or of none, and records what it was told. */
typedef struct hinted_read {
    apr_pool_t *pool;
    acct_token_ref told;
    const char *arg;
    int builds;
} hinted_read;

static int build_hinted_read(void *baton, const acct_token_ref *token,
                             acct_store_read *read)
{
    hinted_read *h = baton;

    h->told = *token;
    h->builds++;
    read->sql = "SELECT id FROM accounts WHERE id = CAST(%s AS BIGINT)";
    read->nargs = 1;
    h->arg = apr_psprintf(h->pool, "%" APR_INT64_T_FMT, token->account);
    read->args = &h->arg;
    return 0;
}

static void test_token_hints(void **state)
{
    static const char slot0[] =
        "0000aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    static const char slot0_too[] =
        "0400bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    unit_db *db = *state;
    acct_principal who, theirs;
    acct_store_rc src;
    apr_int64_t now = apr_time_sec(apr_time_now());
    hinted_read h = {NULL, {NULL, 0}, NULL, 0};
    acct_auth_also also;
    const char *header;

    /* The table: one token a slot, the last one noted; nothing for what
     * is not a token's hash, nor for an account that cannot be. */
    assert_int_equal(acct_auth_hint(slot0), 0);
    acct_auth_hint_note(slot0, 7);
    assert_int_equal(acct_auth_hint(slot0), 7);
    acct_auth_hint_note(slot0_too, 8);
    assert_int_equal(acct_auth_hint(slot0_too), 8);
    assert_int_equal(acct_auth_hint(slot0), 0);
    acct_auth_hint_note("0000", 9);
    assert_int_equal(acct_auth_hint("0000"), 0);
    assert_int_equal(acct_auth_hint(NULL), 0);
    acct_auth_hint_note(slot0, 0);
    assert_int_equal(acct_auth_hint(slot0), 0);

    header = apr_pstrcat(db->pool, "Bearer ",
                         unit_identity(db, "dora", 0, "*", &who), NULL);
    unit_identity(db, "erin", 0, "*", &theirs);
    h.pool = db->pool;
    also.build = build_hinted_read;
    also.baton = &h;

    /* First sight: no hint; the lookup teaches the token's account.  No
     * profile row was asked for: none read. */
    assert_int_equal(acct_authenticate_with(db->store, db->pool, header, now,
                                            &who, &src, 0, &also), ACCT_AUTH_OK);
    assert_int_equal(h.told.account, 0);
    assert_null(who.user_row);
    assert_int_equal(acct_authenticate(db->store, db->pool, header, now, &who,
                                       &src), ACCT_AUTH_OK);
    assert_non_null(who.user_row);
    assert_non_null(acct_rows_get(who.user_row, 0, "email"));
    assert_int_equal(acct_auth_hint(h.told.hash), who.account_id);

    /* Then the read goes to that account, and is kept. */
    assert_int_equal(acct_authenticate_with(db->store, db->pool, header, now,
                                            &who, &src, 0, &also), ACCT_AUTH_OK);
    assert_int_equal(h.told.account, who.account_id);
    assert_int_equal(also.read.rc, ACCT_STORE_OK);
    assert_non_null(also.read.rows);
    assert_int_equal(also.read.rows->nrows, 1);

    /* A hint the lookup contradicts: its rows are another account's, and
     * dropped; the hint is mended for the next request. */
    acct_auth_hint_note(h.told.hash, theirs.account_id);
    assert_int_equal(acct_authenticate_with(db->store, db->pool, header, now,
                                            &who, &src, 0, &also), ACCT_AUTH_OK);
    assert_int_equal(h.told.account, theirs.account_id);
    assert_null(also.read.rows);
    assert_int_equal(acct_auth_hint(h.told.hash), who.account_id);

    /* A refused token sends no hint of its own, and teaches nothing. */
    h.builds = 0;
    assert_int_equal(acct_authenticate_with(db->store, db->pool,
        "Bearer 1111111111111111111111111111111111111111111111111111111111111111",
        now, &who, &src, 0, &also), ACCT_AUTH_INVALID);
    assert_int_equal(h.builds, 1);
    assert_int_equal(h.told.account, 0);
    assert_int_equal(acct_auth_hint(h.told.hash), 0);
}

static void test_route_permits(void **state)
{
    static const acct_route scoped = {ACCT_METHOD_GET, "/x", NULL, 0,
                                      ACCT_FAM_DATABASES, ACCT_LEVEL_READ_WRITE};
    static const acct_route unrestricted = {ACCT_METHOD_GET, "/y", NULL,
                                            ACCT_ROUTE_ANY_TOKEN
                                            | ACCT_ROUTE_UNRESTRICTED_ONLY,
                                            ACCT_FAM_ACCOUNT, ACCT_LEVEL_NONE};
    unit_db *db = *state;
    acct_principal ro, rw, restricted;
    const char *reason = NULL;

    unit_identity(db, "ro-user", 0, "databases:read_only", &ro);
    unit_identity(db, "rw-user", 0, "databases:read_write", &rw);
    unit_identity(db, "limited", 1, "*", &restricted);
    assert_int_equal(acct_route_permits(&scoped, &ro, &reason), 401);
    assert_string_equal(reason,
                        "Your OAuth token is not authorized to use this endpoint.");
    assert_int_equal(acct_route_permits(&scoped, &rw, &reason), 0);
    assert_int_equal(acct_route_permits(&unrestricted, &rw, &reason), 0);
    assert_int_equal(acct_route_permits(&unrestricted, &restricted, &reason),
                     403);
    assert_string_equal(reason, "Unauthorized");
}

/* Both names of the shell's method by default (docs/conventions.md, "Today's
 * clients): lish_auth_method next to shell_auth_method, the same value;
 * and the public API's user_type. */
static void test_profile(void **state)
{
    static const char *const keys[] = {
        "authentication_type", "authorized_keys", "email",
        "email_notifications", "ip_whitelist_enabled", "shell_auth_method",
        "lish_auth_method", "referrals", "restricted", "timezone",
        "two_factor_auth", "uid", "user_type", "username",
        "verified_phone_number"
    };
    unit_db *db = *state;
    acct_principal who;
    acct_req *req;
    json_t *doc;
    size_t i;
    int status;

    unit_identity(db, "dave", 0, "domains:read_only", &who);
    req = unit_req(db, &who);
    doc = call(req, api_profile_get, &status);
    assert_int_equal(status, 200);
    for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        assert_non_null(json_object_get(doc, keys[i]));
    }
    assert_int_equal(json_object_size(doc), sizeof(keys) / sizeof(keys[0]));
    assert_true(json_equal(json_object_get(doc, "shell_auth_method"),
                           json_object_get(doc, "lish_auth_method")));
    assert_string_equal(json_string_value(json_object_get(doc, "username")),
                        "dave");
    assert_true(json_is_null(json_object_get(doc, "verified_phone_number")));
    assert_true(json_is_false(json_object_get(doc, "restricted")));
    assert_string_equal(json_string_value(json_object_get(doc, "user_type")),
                        "default");
    assert_true(json_integer_value(json_object_get(doc, "uid")) == who.user_id);
    assert_non_null(json_object_get(json_object_get(doc, "referrals"), "url"));
    json_decref(doc);
}

/* The names a document's keys carry: `want` in order, nothing else. */
static void assert_keys(json_t *o, const char *const *want)
{
    const char *key;
    json_t *v;
    size_t i = 0;

    json_object_foreach(o, key, v) {
        assert_non_null(want[i]);
        assert_string_equal(key, want[i]);
        i++;
    }
    assert_null(want[i]);
}

/* Both names of instance/linode, monitoring/longview and three global
 * grants by default (docs/conventions.md, "Today's clients"), and the keys
 * only the
 * public API has. */
static void test_grants(void **state)
{
    static const char *const keys[] = {
        "database", "domain", "firewall", "global", "image", "instance",
        "linode", "monitoring", "longview", "nodebalancer", "placement_group",
        "stackscript", "volume", "vpc", NULL
    };
    unit_db *db = *state;
    acct_principal boss, limited;
    json_t *doc, *global;
    int status;

    unit_identity(db, "boss", 0, "*", &boss);
    doc = call(unit_req(db, &boss), api_profile_grants, &status);
    assert_int_equal(status, 204);
    assert_null(doc);

    unit_identity(db, "limited", 1, "*", &limited);
    doc = call(unit_req(db, &limited), api_profile_grants, &status);
    assert_int_equal(status, 200);
    assert_keys(doc, keys);
    global = json_object_get(doc, "global");
    assert_true(json_is_null(json_object_get(global, "account_access")));
    assert_int_equal(json_array_size(json_object_get(doc, "domain")), 0);
    assert_true(json_is_false(json_object_get(global, "add_domains")));
    assert_true(json_is_false(json_object_get(global, "monitoring_subscription")));
    assert_true(json_is_false(json_object_get(global, "longview_subscription")));
    assert_true(json_is_false(json_object_get(global, "add_linodes")));
    assert_true(json_is_false(json_object_get(global, "add_longview")));
    /* The public API's only: the module has no placement groups, firewalls
     * or parent accounts. */
    assert_true(json_is_false(json_object_get(global, "add_placement_groups")));
    assert_true(json_is_null(json_object_get(global, "child_account_access")));
    assert_int_equal(json_array_size(json_object_get(doc, "firewall")), 0);
    assert_int_equal(json_array_size(json_object_get(doc, "placement_group")),
                     0);
    /* account_access, 12 flags (3 of them under two names) and the public
     * API's add_placement_groups and child_account_access */
    assert_int_equal(json_object_size(global), 18);
    assert_true(json_is_array(json_object_get(doc, "domain")));
    json_decref(doc);
}

/*
 * AcctapiFieldNames public: the public API's names only (its schema forbids
 * other keys); contract: the contract's only.  The values are the same
 * under either name.
 */
static void test_field_names(void **state)
{
    static const char *const public_grants[] = {
        "database", "domain", "firewall", "global", "image", "linode",
        "longview", "nodebalancer", "placement_group", "stackscript",
        "volume", "vpc", NULL
    };
    static const char *const contract_grants[] = {
        "database", "domain", "global", "image", "instance", "monitoring",
        "nodebalancer", "stackscript", "volume", "vpc", NULL
    };
    static const char *const public_global[] = {
        "account_access", "add_databases", "add_domains", "add_firewalls",
        "add_images", "add_linodes", "add_longview", "add_nodebalancers",
        "add_stackscripts", "add_volumes", "add_vpcs", "cancel_account",
        "longview_subscription", "add_placement_groups",
        "child_account_access", NULL
    };
    unit_db *db = *state;
    acct_settings pub = {0, 0, "https://r.example/"};
    acct_settings contract = {0, 0, "https://r.example/"};
    acct_principal who, limited;
    acct_req *req;
    json_t *doc;
    int status;

    pub.field_names = ACCT_NAMES_PUBLIC;
    contract.field_names = ACCT_NAMES_CONTRACT;
    unit_identity(db, "erin", 0, "*", &who);
    unit_identity(db, "frank", 1, "*", &limited);

    req = unit_req(db, &who);
    req->settings = &pub;
    doc = call(req, api_profile_get, &status);
    assert_int_equal(status, 200);
    assert_null(json_object_get(doc, "shell_auth_method"));
    assert_string_equal(json_string_value(json_object_get(doc,
                                                          "lish_auth_method")),
                        "password_keys");
    json_decref(doc);
    req->settings = &contract;
    doc = call(req, api_profile_get, &status);
    assert_null(json_object_get(doc, "lish_auth_method"));
    assert_string_equal(json_string_value(json_object_get(doc,
                                                          "shell_auth_method")),
                        "password_keys");
    json_decref(doc);

    req = unit_req(db, &limited);
    req->settings = &pub;
    doc = call(req, api_profile_grants, &status);
    assert_int_equal(status, 200);
    assert_keys(doc, public_grants);
    assert_keys(json_object_get(doc, "global"), public_global);
    json_decref(doc);
    req->settings = &contract;
    doc = call(req, api_profile_grants, &status);
    assert_keys(doc, contract_grants);
    assert_int_equal(json_object_size(json_object_get(doc, "global")), 13);
    assert_non_null(json_object_get(json_object_get(doc, "global"),
                                    "monitoring_subscription"));
    json_decref(doc);
}

/*
 * The pairs of acct_names.c: every contract name is one the module uses (a
 * rename elsewhere must not leave a pair behind), each name is in one pair,
 * and the lookups go both ways and leave other names alone.
 */
static void test_name_pairs(void **state)
{
    const acct_name_pair *p, *q;
    const char *other = "add_domains";

    (void)state;
    for (p = acct_name_pairs; p->contract; p++) {
        assert_true(acct_grant_flag_index(p->contract) >= 0
                    || acct_grant_entity_type_index(p->contract) >= 0
                    || strcmp(p->contract, "instances") == 0
                    || strcmp(p->contract, "shell_auth_method") == 0);
        assert_string_not_equal(p->contract, p->public_name);
        assert_string_equal(acct_name_public(p->contract), p->public_name);
        assert_string_equal(acct_name_contract(p->public_name), p->contract);
        for (q = p + 1; q->contract; q++) {
            assert_string_not_equal(p->contract, q->contract);
            assert_string_not_equal(p->public_name, q->public_name);
        }
    }
    assert_ptr_equal(acct_name_public(other), other);
    assert_ptr_equal(acct_name_contract(other), other);
    assert_string_equal(acct_name_contract("instance"), "instance");
    assert_string_equal(acct_names_value(ACCT_NAMES_BOTH, "instance"), "linode");
    assert_string_equal(acct_names_value(ACCT_NAMES_PUBLIC, "instance"),
                        "linode");
    assert_string_equal(acct_names_value(ACCT_NAMES_CONTRACT, "instance"),
                        "instance");
    assert_string_equal(acct_names_value(ACCT_NAMES_PUBLIC, "domain"),
                        "domain");
}

static const acct_sql q_add_domain = ACCT_SQL("t_add_domain",
    "INSERT INTO domains (account_id, domain, domain_key, type, created, updated)"
    " VALUES (CAST(%s AS BIGINT), %s, lower(%s), 'master', 0, 0) RETURNING id");
static const acct_sql q_add_grant = ACCT_SQL("t_add_grant",
    "INSERT INTO entity_grants (user_id, entity_type, entity_id, permissions)"
    " VALUES (CAST(%s AS BIGINT), 'domain', CAST(%s AS BIGINT), %s)");

static const acct_sql q_add_entity = ACCT_SQL("t_add_entity",
    "INSERT INTO entities (entity_type, entity_id, account_id, label, created)"
    " VALUES ('instance', 77, CAST(%s AS BIGINT), 'web-1', 0)");

static const char *add_domain(unit_db *db, apr_int64_t account, const char *name)
{
    const char *args[3];
    acct_rows *rows = NULL;

    args[0] = acct_i64(db->pool, account);
    args[1] = args[2] = name;
    assert_int_equal(acct_store_select(db->store, db->pool, &q_add_domain, &rows,
                                       3, args), ACCT_STORE_OK);
    return acct_rows_get(rows, 0, "id");
}

/* Every domain of the account is listed, with the user's permissions. */
static void test_grants_list_domains(void **state)
{
    unit_db *db = *state;
    acct_principal limited, other;
    const char *granted, *args[3];
    json_t *doc, *domains;
    int status;

    unit_identity(db, "limited", 1, "*", &limited);
    unit_identity(db, "outsider", 0, "*", &other);
    granted = add_domain(db, limited.account_id, "Granted.example");
    add_domain(db, limited.account_id, "plain.example");
    add_domain(db, other.account_id, "elsewhere.example");
    args[0] = acct_i64(db->pool, limited.user_id);
    args[1] = granted;
    args[2] = "read_write";
    assert_int_equal(acct_store_exec(db->store, db->pool, &q_add_grant, NULL, 3,
                                     args), ACCT_STORE_OK);
    args[0] = acct_i64(db->pool, limited.account_id);
    assert_int_equal(acct_store_exec(db->store, db->pool, &q_add_entity, NULL, 1,
                                     args), ACCT_STORE_OK);
    doc = call(unit_req(db, &limited), api_profile_grants, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_array_size(json_object_get(doc, "instance")), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(
        json_object_get(doc, "instance"), 0), "label")), "web-1");
    assert_int_equal(json_array_size(json_object_get(doc, "volume")), 0);
    domains = json_object_get(doc, "domain");
    assert_int_equal(json_array_size(domains), 2);
    assert_string_equal(json_string_value(json_object_get(
        json_array_get(domains, 0), "label")), "Granted.example");
    assert_string_equal(json_string_value(json_object_get(
        json_array_get(domains, 0), "permissions")), "read_write");
    assert_true(json_is_null(json_object_get(json_array_get(domains, 1),
                                             "permissions")));
    json_decref(doc);
}

static json_t *body(unit_db *db, const char *text)
{
    json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, NULL);

    assert_non_null(j);
    return acct_json_own(db->pool, j);
}

static void test_tokens(void **state)
{
    unit_db *db = *state;
    acct_principal who, limited;
    acct_req *req;
    json_t *doc;
    const char *full;
    int status;

    unit_identity(db, "erin", 0, "account:read_write domains:read_only", &who);
    req = unit_req(db, &who);
    req->body = body(db, "{\"label\":\"ci\",\"scopes\":\"domains:read_only\"}");
    doc = call(req, api_token_create, &status);
    assert_int_equal(status, 200);
    full = json_string_value(json_object_get(doc, "token"));
    assert_non_null(full);
    assert_int_equal(strlen(full), 64);
    assert_string_equal(json_string_value(json_object_get(doc, "scopes")),
                        "domains:read_only");
    /* no expiry: the public API's "never" */
    assert_string_equal(json_string_value(json_object_get(doc, "expiry")),
                        "2999-12-12T05:00:00");
    json_decref(doc);

    /* omitted scopes inherit the acting token's; wider ones are refused */
    req->body = body(db, "{}");
    doc = call(req, api_token_create, &status);
    assert_int_equal(status, 200);
    assert_string_equal(json_string_value(json_object_get(doc, "scopes")),
                        "account:read_write domains:read_only");
    /* no label: "", the public API's string */
    assert_string_equal(json_string_value(json_object_get(doc, "label")), "");
    json_decref(doc);
    req->body = body(db, "{\"scopes\":\"domains:read_write\"}");
    doc = call(req, api_token_create, &status);
    assert_int_equal(status, 400);
    json_decref(doc);

    /* views show only the first 16 characters */
    req->body = NULL;
    doc = call(req, api_tokens_list, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_integer_value(json_object_get(doc, "results")), 3);
    assert_int_equal(strlen(json_string_value(json_object_get(
        json_array_get(json_object_get(doc, "data"), 1), "token"))), 16);
    json_decref(doc);

    /* another user's token id is not found */
    unit_identity(db, "frank", 0, "*", &limited);
    req = unit_req(db, &limited);
    req->params[0] = apr_psprintf(db->pool, "%" APR_INT64_T_FMT, who.token_id);
    doc = call(req, api_token_get, &status);
    assert_int_equal(status, 404);
    json_decref(doc);
}

/*
 * AcctapiMaxTokensPerUser: the acting token counts; past the cap the create
 * is a field-less 400 and nothing is stored; a revoked token frees its slot.
 */
static void test_token_cap(void **state)
{
    unit_db *db = *state;
    acct_settings capped = {0, 0, "https://r.example/"};
    acct_principal who;
    acct_req *req;
    json_t *doc, *err;
    const char *id;
    int status;

    capped.max_tokens = 2;
    unit_identity(db, "gina", 0, "*", &who);
    req = unit_req(db, &who);
    req->settings = &capped;
    req->body = body(db, "{\"label\":\"second\"}");
    doc = call(req, api_token_create, &status);
    assert_int_equal(status, 200);
    id = apr_psprintf(db->pool, "%" APR_INT64_T_FMT,
                      (apr_int64_t)json_integer_value(json_object_get(doc,
                                                                      "id")));
    json_decref(doc);

    doc = call(req, api_token_create, &status);
    assert_int_equal(status, 400);
    err = json_array_get(json_object_get(doc, "errors"), 0);
    assert_string_equal(json_string_value(json_object_get(err, "reason")),
                        "You have reached the limit of 2 active personal "
                        "access tokens; revoke one to create another");
    assert_null(json_object_get(err, "field"));
    json_decref(doc);
    req->body = NULL;
    doc = call(req, api_tokens_list, &status);
    assert_int_equal(json_integer_value(json_object_get(doc, "results")), 2);
    json_decref(doc);

    req->params[0] = id;
    doc = call(req, api_token_revoke, &status);
    assert_int_equal(status, 200);
    json_decref(doc);
    req->params[0] = NULL;
    req->body = body(db, "{}");
    doc = call(req, api_token_create, &status);
    assert_int_equal(status, 200);
    json_decref(doc);
}

/* The grant names are listed once; the lookups and the grants document
 * agree with them. */
static void test_grant_names(void **state)
{
    (void)state;
    assert_int_equal(acct_grant_flag_index(ACCT_GRANT_ADD_DOMAINS), 1);
    assert_true(acct_grant_flag_creates(ACCT_GRANT_ADD_DATABASES));
    assert_true(acct_grant_flag_creates("add_vpcs"));
    /* flags that are not grants to create, and unknown words */
    assert_false(acct_grant_flag_creates("cancel_account"));
    assert_false(acct_grant_flag_creates(ACCT_GRANT_ACCOUNT_ACCESS));
    assert_false(acct_grant_flag_creates("add_nothing"));
    assert_int_equal(acct_grant_flag_index("monitoring_subscription"), 11);
    assert_null(acct_grant_flags[12]);
    assert_int_equal(acct_grant_entity_type_index(ACCT_ENTITY_DATABASE), 0);
    assert_int_equal(acct_grant_entity_type_index(ACCT_ENTITY_VPC), 8);
    assert_int_equal(acct_grant_entity_type_index("global"), -1);
    assert_null(acct_grant_entity_types[9]);
}

/* The token functions act on the user's own active tokens only. */
static void test_token_model(void **state)
{
    unit_db *db = *state;
    acct_principal alice, bob;
    acct_ident_result res;
    acct_rows *rows = NULL;
    apr_int64_t id, n = -1, now = 1700000000;
    const char *token;
    int changed = -1;

    unit_identity(db, "alice", 0, "*", &alice);
    unit_identity(db, "bob", 0, "*", &bob);
    assert_int_equal(acct_token_create(db->store, db->pool, alice.user_id,
                                       "t", "*", now + 60, now, &id, &token,
                                       &res), ACCT_IDENT_OK);
    assert_int_equal(acct_token_count_active(db->store, db->pool,
                                             alice.user_id, now, &n),
                     ACCT_STORE_OK);
    assert_int_equal(n, 2);
    /* expired tokens are not counted, nor found */
    assert_int_equal(acct_token_count_active(db->store, db->pool,
                                             alice.user_id, now + 60, &n),
                     ACCT_STORE_OK);
    assert_int_equal(n, 1);
    assert_int_equal(acct_token_get(db->store, db->pool, id, alice.user_id,
                                    now + 60, &rows), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 0);

    /* another user's token is not there for bob */
    assert_int_equal(acct_token_get(db->store, db->pool, id, bob.user_id, now,
                                    &rows), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 0);
    assert_int_equal(acct_token_update(db->store, db->pool, id, bob.user_id,
                                       now, "x", &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 0);
    assert_int_equal(acct_token_revoke(db->store, db->pool, id, bob.user_id,
                                       now, &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 0);

    assert_int_equal(acct_token_update(db->store, db->pool, id, alice.user_id,
                                       now, "renamed", &changed),
                     ACCT_STORE_OK);
    assert_int_equal(changed, 1);
    assert_int_equal(acct_token_get(db->store, db->pool, id, alice.user_id,
                                    now, &rows), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    assert_string_equal(acct_rows_get(rows, 0, "label"), "renamed");
    assert_string_equal(acct_rows_get(rows, 0, "token_prefix"),
                        apr_pstrndup(db->pool, token, ACCT_TOKEN_PREFIX_LEN));
    assert_int_equal(acct_token_revoke(db->store, db->pool, id, alice.user_id,
                                       now, &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 1);
    assert_int_equal(acct_token_count_active(db->store, db->pool,
                                             alice.user_id, now, &n),
                     ACCT_STORE_OK);
    assert_int_equal(n, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_DB_TEST(test_regions_list),
        UNIT_DB_TEST(test_pagination_errors_and_slices),
        UNIT_DB_TEST(test_types_filter_and_order),
        UNIT_DB_TEST(test_type_key_order),
        UNIT_DB_TEST(test_items_and_not_found),
        UNIT_DB_TEST(test_authentication),
        UNIT_DB_TEST(test_token_hints),
        UNIT_DB_TEST(test_route_permits),
        UNIT_DB_TEST(test_profile),
        UNIT_DB_TEST(test_grants),
        UNIT_DB_TEST(test_field_names),
        UNIT_DB_TEST(test_name_pairs),
        UNIT_DB_TEST(test_tokens),
        UNIT_DB_TEST(test_token_cap),
        UNIT_DB_TEST(test_grants_list_domains),
        UNIT_DB_TEST(test_grant_names),
        UNIT_DB_TEST(test_token_model),
    };

    return UNIT_DB_RUN(tests);
}
