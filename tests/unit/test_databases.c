/* Managed databases through their handlers (api_databases.c,
 * api_db_create.c) on a migrated SQLite database: the create and update
 * rules table by table, the lifecycle with req->now moved by hand, the
 * external backend that never moves, and what restricted users may see and
 * do. */
#include "unit.h"

#include <apr_dbd.h>
#include <apr_strings.h>
#include <ctype.h>
#include <jansson.h>
#include <string.h>

#include "unit_db.h"
#include "acct_auth.h"
#include "acct_catalog.h"
#include "acct_db.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "acct_router.h"
#include "acct_seal.h"
#include "acct_time.h"
#include "api_handlers.h"

#define PROVISION 1200
#define OPERATION 180
#define SUFFIX "db.unit.test"

static const unsigned char seal_key[ACCT_SEAL_KEY_LEN] = "0123456789abcdef0123456789abcdef";

/* Provisioning takes exactly PROVISION seconds, so the tests can aim. */
static const acct_settings emulated = {
    0, 0, "https://r.example/", seal_key, NULL, NULL,
    0, PROVISION, PROVISION, OPERATION, SUFFIX
};
static const acct_settings external = {
    0, 0, "https://r.example/", seal_key, NULL, NULL,
    1, PROVISION, PROVISION, OPERATION, SUFFIX
};
static const acct_settings keyless = {
    0, 0, "https://r.example/", NULL, NULL, NULL,
    0, PROVISION, PROVISION, OPERATION, SUFFIX
};

static const acct_route mysql_route = {ACCT_METHOD_POST,
    "/databases/mysql/instances", NULL, ACCT_ROUTE_BODY, ACCT_FAM_DATABASES,
    ACCT_LEVEL_READ_WRITE, ACCT_DB_MYSQL};
static const acct_route pg_route = {ACCT_METHOD_POST,
    "/databases/postgresql/instances", NULL, ACCT_ROUTE_BODY,
    ACCT_FAM_DATABASES, ACCT_LEVEL_READ_WRITE, ACCT_DB_POSTGRESQL};
static const acct_route all_route = {ACCT_METHOD_GET, "/databases/instances",
    NULL, ACCT_ROUTE_LIST, ACCT_FAM_DATABASES, ACCT_LEVEL_READ_ONLY, NULL};

/* ------------------------------------------------------------------------
 * Helpers
 */

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
                         const char *body)
{
    acct_req *req = unit_req(c->db, &c->who);

    req->settings = c->settings;
    req->now = c->now;
    req->route = route;
    req->params[0] = id;
    if (body) {
        json_error_t err;

        req->body = json_loads(body, JSON_REJECT_DUPLICATES, &err);
        if (!req->body) {
            fail_msg("bad test body %s: %s", body, err.text);
        }
        acct_json_own(c->db->pool, req->body);
    }
    return req;
}

static json_t *call(acct_req *req, acct_handler *h, int *status)
{
    const char *text = unit_call(req, h, status);
    json_t *doc = json_loads(text, 0, NULL);

    assert_non_null(doc);
    return acct_json_own(req->pool, doc);
}

/* The fields named by a 400's error items, sorted, comma-separated. */
static const char *error_fields(apr_pool_t *p, json_t *doc)
{
    json_t *errors = json_object_get(doc, "errors"), *e;
    const char *names[32], *out = "";
    size_t i, j, n = 0;

    json_array_foreach(errors, i, e) {
        const char *f = json_string_value(json_object_get(e, "field"));

        if (n < 32) {
            names[n++] = f ? f : "-";
        }
    }
    for (i = 1; i < n; i++) {
        for (j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            const char *t = names[j];

            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    }
    for (i = 0; i < n; i++) {
        out = apr_pstrcat(p, out, i ? "," : "", names[i], NULL);
    }
    return out;
}

static const char *first_reason(json_t *doc)
{
    return json_string_value(json_object_get(
        json_array_get(json_object_get(doc, "errors"), 0), "reason"));
}

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static json_int_t num(json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

static const char *sid(ctx *c, json_t *doc)
{
    return acct_i64(c->db->pool, (apr_int64_t)num(doc, "id"));
}

/* Creates a database of `route`'s engine; answers the document. */
static json_t *create(ctx *c, const acct_route *route, const char *body,
                      int want)
{
    int status;
    json_t *doc = call(request(c, route, NULL, body), api_database_create,
                       &status);

    if (status != want) {
        fail_msg("create %s: %d %s", body, status, json_dumps(doc, 0));
    }
    return doc;
}

static json_t *pg_create(ctx *c, const char *label)
{
    return create(c, &pg_route, apr_psprintf(c->db->pool,
        "{\"label\":\"%s\",\"region\":\"us-east\",\"type\":\"g6-standard-2\","
        "\"engine\":\"postgresql/16.4\"}", label), 200);
}

static json_t *get(ctx *c, const acct_route *route, const char *id, int *status)
{
    return call(request(c, route, id, NULL), api_database_get, status);
}

static const char *status_of(ctx *c, const acct_route *route, const char *id)
{
    int status;
    json_t *doc = get(c, route, id, &status);

    assert_int_equal(status, 200);
    return apr_pstrdup(c->db->pool, str(doc, "status"));
}

static void sql(unit_db *db, const char *text)
{
    assert_int_equal(acct_store_exec_script(db->store, db->pool, text),
                     ACCT_STORE_OK);
}

static const char *scalar(unit_db *db, const char *query)
{
    acct_rows *rows = NULL;

    assert_int_equal(acct_store_select_dynamic(db->store, db->pool, query,
                                               &rows, 0, NULL), ACCT_STORE_OK);
    return rows->nrows ? rows->values[0][0] : NULL;
}

/* ------------------------------------------------------------------------
 * Create
 */

static void test_create_shape(void **state)
{
    static const char *const keys[] = {
        "id", "label", "engine", "version", "region", "type", "cluster_size",
        "encrypted", "ssl_connection", "allow_list", "port", "hosts",
        "status", "created", "updated", "total_disk_size_gb",
        "used_disk_size_gb", "updates", "replication_type",
        "replication_commit_type", "members", "platform",
        "oldest_restore_time", "engine_config", "private_network", "fork"
    };
    ctx c;
    json_t *doc, *hosts;
    const char *key, *password;
    size_t i;

    ctx_init(&c, *state, "shape");
    doc = pg_create(&c, "pg-shape");
    assert_int_equal(json_object_size(doc), sizeof(keys) / sizeof(keys[0]));
    i = 0;
    json_object_foreach(doc, key, hosts) {
        assert_string_equal(key, keys[i++]);
    }
    assert_string_equal(str(doc, "label"), "pg-shape");
    assert_string_equal(str(doc, "engine"), "postgresql");
    assert_string_equal(str(doc, "version"), "16.4");
    assert_string_equal(str(doc, "status"), "provisioning");
    assert_int_equal(num(doc, "port"), 5432);
    assert_int_equal(num(doc, "cluster_size"), 1);
    /* the disk of the database node type (GET /databases/types) */
    assert_int_equal(num(doc, "total_disk_size_gb"), 58);
    assert_int_equal(num(doc, "used_disk_size_gb"), 0);
    assert_true(json_is_false(json_object_get(doc, "encrypted")));
    assert_true(json_is_true(json_object_get(doc, "ssl_connection")));
    assert_string_equal(str(doc, "replication_type"), "none");
    assert_string_equal(str(doc, "replication_commit_type"), "local");
    assert_int_equal(json_array_size(json_object_get(doc, "allow_list")), 0);
    hosts = json_object_get(doc, "hosts");
    assert_true(json_is_null(json_object_get(hosts, "primary")));
    assert_true(json_is_null(json_object_get(hosts, "secondary")));
    assert_true(json_is_null(json_object_get(hosts, "standby")));
    assert_string_equal(acct_json_dump(c.db->pool,
                                       json_object_get(doc, "updates"), NULL),
                        "{\"frequency\":\"weekly\",\"duration\":4,"
                        "\"hour_of_day\":0,\"day_of_week\":1,"
                        "\"week_of_month\":null,\"pending\":[]}");
    /* What the public API adds: a new database's. */
    assert_string_equal(str(doc, "platform"), "rdbms-default");
    assert_int_equal(json_object_size(json_object_get(doc, "members")), 0);
    /* From the start, as the public API answers while it provisions. */
    assert_string_equal(str(doc, "oldest_restore_time"), str(doc, "created"));
    assert_true(json_is_null(json_object_get(doc, "private_network")));
    assert_true(json_is_null(json_object_get(doc, "fork")));
    assert_true(json_is_object(json_object_get(json_object_get(doc,
                                                               "engine_config"),
                                               "pg")));

    /* The root password: sealed to this row, 24 letters and digits. */
    password = acct_unseal(c.db->pool, seal_key,
                           apr_pstrcat(c.db->pool, "dbpass:", sid(&c, doc),
                                       NULL),
                           scalar(c.db, apr_pstrcat(c.db->pool,
                               "SELECT root_password_sealed FROM databases"
                               " WHERE id = ", sid(&c, doc), NULL)));
    assert_non_null(password);
    assert_int_equal(strlen(password), 24);
    for (i = 0; password[i]; i++) {
        assert_true(isalnum((unsigned char)password[i]));
    }
    assert_string_equal(scalar(c.db, apr_pstrcat(c.db->pool,
        "SELECT root_username FROM databases WHERE id = ", sid(&c, doc),
        NULL)), "linpostgres");

    /* MySQL: its port and user, no replication_commit_type at all. */
    doc = create(&c, &mysql_route,
                 "{\"label\":\"my.shape_1\",\"region\":\"eu-west\","
                 "\"type\":\"g6-nanode-1\",\"engine\":\"mysql/8.0.30\","
                 "\"cluster_size\":3,\"encrypted\":true,"
                 "\"ssl_connection\":false,"
                 "\"allow_list\":[\"192.0.2.1\",\"2001:DB8::0:1/128\","
                 "\"10.0.0.0/8\",\"0.0.0.0/0\"]}", 200);
    assert_int_equal(json_object_size(doc), sizeof(keys) / sizeof(keys[0]) - 1);
    assert_null(json_object_get(doc, "replication_commit_type"));
    assert_int_equal(num(doc, "port"), 3306);
    assert_int_equal(num(doc, "total_disk_size_gb"), 9);
    assert_string_equal(str(doc, "replication_type"), "semi_synch");
    assert_true(json_is_true(json_object_get(doc, "encrypted")));
    assert_true(json_is_false(json_object_get(doc, "ssl_connection")));
    assert_string_equal(acct_json_dump(c.db->pool,
                                       json_object_get(doc, "allow_list"), NULL),
                        "[\"192.0.2.1\",\"2001:db8::1/128\",\"10.0.0.0/8\","
                        "\"0.0.0.0/0\"]");
    assert_string_equal(scalar(c.db, apr_pstrcat(c.db->pool,
        "SELECT root_username FROM databases WHERE id = ", sid(&c, doc),
        NULL)), "linroot");
}

/* A body and the fields its 400 names ("" when it is accepted). */
typedef struct create_case {
    const acct_route *route;
    const char *body;     /* fields after the valid base ones, or a whole body */
    const char *fields;
} create_case;

#define BASE_MY "\"region\":\"us-east\",\"type\":\"g6-nanode-1\"," \
    "\"engine\":\"mysql/8.0.30\""
#define BASE_PG "\"region\":\"us-east\",\"type\":\"g6-nanode-1\"," \
    "\"engine\":\"postgresql/15.4\""

static void test_create_rules(void **state)
{
    static const create_case cases[] = {
        /* label */
        {&mysql_route, "{" BASE_MY "}", "label"},
        {&mysql_route, "{\"label\":\"ab\"," BASE_MY "}", "label"},
        {&mysql_route, "{\"label\":\"a23456789012345678901234567890123\","
                       BASE_MY "}", "label"},
        {&mysql_route, "{\"label\":\"a2345678901234567890123456789012\","
                       BASE_MY "}", ""},
        /* 3..32 characters, as the public API's spec and console take
         * them (docs/conventions.md, "Today's clients": never stricter) */
        {&mysql_route, "{\"label\":\"-abc\"," BASE_MY "}", ""},
        {&mysql_route, "{\"label\":\"ab c\"," BASE_MY "}", ""},
        {&mysql_route, "{\"label\":\"caf\\u00e9\"," BASE_MY "}", ""},
        {&mysql_route, "{\"label\":\"a\\u00e9\"," BASE_MY "}", "label"},  /* 2 */
        {&mysql_route, "{\"label\":\"t\\tb\"," BASE_MY "}", "label"},
        {&mysql_route, "{\"label\":7," BASE_MY "}", "label"},
        {&mysql_route, "{\"label\":\"Ok_1.x-y\"," BASE_MY "}", ""},
        /* region, type, engine */
        {&mysql_route, "{\"label\":\"r1\"}", "engine,label,region,type"},
        {&mysql_route, "{\"label\":\"reg1\",\"region\":\"mars-1\","
                       "\"type\":\"g6-nanode-1\",\"engine\":\"mysql/8.0.30\"}",
         "region"},
        {&mysql_route, "{\"label\":\"reg2\",\"region\":\"us-southeast\","
                       "\"type\":\"g6-nanode-1\",\"engine\":\"mysql/8.0.30\"}",
         "region"},
        {&mysql_route, "{\"label\":\"reg3\",\"region\":\"id-cgk\","
                       "\"type\":\"g6-nanode-1\",\"engine\":\"mysql/8.0.30\"}",
         "region"},
        {&mysql_route, "{\"label\":\"typ1\",\"region\":\"us-east\","
                       "\"type\":\"g6-huge\",\"engine\":\"mysql/8.0.30\"}",
         "type"},
        {&mysql_route, "{\"label\":\"eng1\",\"region\":\"us-east\","
                       "\"type\":\"g6-nanode-1\",\"engine\":\"mysql/9.9\"}",
         "engine"},
        {&mysql_route, "{\"label\":\"eng2\",\"region\":\"us-east\","
                       "\"type\":\"g6-nanode-1\","
                       "\"engine\":\"postgresql/16.4\"}", "engine"},
        {&pg_route, "{\"label\":\"eng3\",\"region\":\"us-east\","
                    "\"type\":\"g6-nanode-1\",\"engine\":\"mysql/8.0.30\"}",
         "engine"},
        {&mysql_route, "{\"label\":\"eng4\",\"region\":\"us-east\","
                       "\"type\":\"g6-nanode-1\",\"engine\":\"mysql\"}",
         "engine"},
        /* cluster_size and replication */
        {&mysql_route, "{\"label\":\"cs1\",\"cluster_size\":4," BASE_MY "}",
         "cluster_size"},
        {&mysql_route, "{\"label\":\"cs0\",\"cluster_size\":0," BASE_MY "}",
         "cluster_size"},
        /* two nodes, as the public API sells dedicated types:
         * replicated; a type not sold in two-node clusters is refused
         * (GET /databases/types) */
        {&mysql_route, "{\"label\":\"cs4\",\"cluster_size\":2,"
                       "\"region\":\"us-east\",\"type\":\"g6-dedicated-2\","
                       "\"engine\":\"mysql/8\"}", ""},
        {&mysql_route, "{\"label\":\"cs6\",\"cluster_size\":2," BASE_MY "}",
         "cluster_size"},
        {&pg_route, "{\"label\":\"cs5\",\"cluster_size\":2,"
                    "\"replication_type\":\"none\",\"region\":\"us-east\","
                    "\"type\":\"g6-dedicated-2\",\"engine\":\"postgresql/16\"}",
         "replication_type"},
        {&mysql_route, "{\"label\":\"cs2\",\"cluster_size\":\"3\"," BASE_MY "}",
         "cluster_size"},
        {&mysql_route, "{\"label\":\"cs3\",\"cluster_size\":3.0," BASE_MY "}",
         "cluster_size"},
        {&mysql_route, "{\"label\":\"rt1\",\"replication_type\":\"asynch\","
                       BASE_MY "}", "replication_type"},
        {&mysql_route, "{\"label\":\"rt2\",\"cluster_size\":3,"
                       "\"replication_type\":\"none\"," BASE_MY "}",
         "replication_type"},
        {&mysql_route, "{\"label\":\"rt3\",\"cluster_size\":3,"
                       "\"replication_type\":\"asynch\"," BASE_MY "}", ""},
        {&mysql_route, "{\"label\":\"rt4\",\"replication_type\":\"none\","
                       BASE_MY "}", ""},
        {&mysql_route, "{\"label\":\"rt5\",\"replication_type\":\"sync\","
                       BASE_MY "}", "replication_type"},
        {&pg_route, "{\"label\":\"rt6\",\"cluster_size\":3,"
                    "\"replication_type\":\"semi_synch\"," BASE_PG "}",
         "replication_type"},
        {&pg_route, "{\"label\":\"rt7\",\"cluster_size\":3,"
                    "\"replication_commit_type\":\"remote_apply\","
                    BASE_PG "}", ""},
        {&pg_route, "{\"label\":\"rt8\",\"replication_commit_type\":\"sync\","
                    BASE_PG "}", "replication_commit_type"},
        /* not a MySQL field: ignored (docs/conventions.md, "Today's
         * clients") */
        {&mysql_route, "{\"label\":\"rt9\",\"replication_commit_type\":\"on\","
                       BASE_MY "}", ""},
        /* booleans */
        {&mysql_route, "{\"label\":\"bo1\",\"encrypted\":1," BASE_MY "}",
         "encrypted"},
        {&mysql_route, "{\"label\":\"bo2\",\"ssl_connection\":\"true\","
                       BASE_MY "}", "ssl_connection"},
        /* null is the default */
        {&mysql_route, "{\"label\":\"bo3\",\"ssl_connection\":null," BASE_MY "}",
         ""},
        /* allow_list */
        {&mysql_route, "{\"label\":\"al1\",\"allow_list\":\"10.0.0.1\","
                       BASE_MY "}", "allow_list"},
        {&mysql_route, "{\"label\":\"al2\",\"allow_list\":[\"10.0.0.1\",5,"
                       "\"x\",\"10.0.0.1/32\",\"10.0.0.0/33\",\"10.0.0.1/24\","
                       "\"::1/129\",\"10.0.0.0/08\",\"\",\"10.0.0.0/\"]," BASE_MY "}",
         "allow_list[1],allow_list[2],allow_list[4],allow_list[6],"
         "allow_list[7],allow_list[8],allow_list[9]"},
        /* a repeat and host bits set are kept, as the public API's pattern
         * and recorded traffic take them */
        {&mysql_route, "{\"label\":\"al3\",\"allow_list\":[\"2001:db8::/32\","
                       "\"2001:DB8:0::/32\",\"10.0.0.1/24\"]," BASE_MY "}", ""},
        {&mysql_route, "{\"label\":\"al4\",\"allow_list\":[]," BASE_MY "}", ""},
        /* unknown and read-only fields: ignored on create (docs/conventions.md,
         * "Today's clients"); everything wrong at once */
        {&mysql_route, "{\"label\":\"unk1\",\"status\":\"active\","
                       "\"updates\":{}," BASE_MY "}", ""},
        {&pg_route, "{\"label\":\"x\",\"region\":\"mars\",\"type\":\"t\","
                    "\"engine\":\"e\",\"cluster_size\":5,\"encrypted\":0,"
                    "\"allow_list\":[\"x\"],\"port\":1}",
         "allow_list[0],cluster_size,encrypted,engine,label,region,type"},
    };
    ctx c;
    size_t i;

    ctx_init(&c, *state, "rules");
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int status;
        json_t *doc = call(request(&c, cases[i].route, NULL, cases[i].body),
                           api_database_create, &status);

        if (!*cases[i].fields) {
            UNIT_CHECKF(status == 200, "case %lu %s: %s", (unsigned long)i,
                        cases[i].body, json_dumps(doc, 0));
            continue;
        }
        UNIT_CHECKF(status == 400, "case %lu %s", (unsigned long)i,
                    cases[i].body);
        UNIT_CHECKF(strcmp(error_fields(c.db->pool, doc), cases[i].fields) == 0,
                    "case %lu: fields %s, want %s", (unsigned long)i,
                    error_fields(c.db->pool, doc), cases[i].fields);
    }
}

/* The reasons users read for allow-list items. */
static void test_allow_list_reasons(void **state)
{
    static const struct {
        const char *item, *reason;
    } cases[] = {
        {"10.0.0.0/33", "The prefix length must be a whole number from 0 "
                        "to 32"},
        {"::/-1", "The prefix length must be a whole number from 0 to 128"},
        {"10.0.0.256", "Must be an IPv4 or IPv6 address or a CIDR range"},
        {"010.0.0.1", "Must be an IPv4 or IPv6 address or a CIDR range"},
        {"10.0.0.0/8/8", "The prefix length must be a whole number from 0 "
                         "to 32"},
    };
    ctx c;
    size_t i;

    ctx_init(&c, *state, "allow");
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int status;
        json_t *doc = call(request(&c, &mysql_route, NULL, apr_psprintf(
            c.db->pool, "{\"label\":\"allow%lu\"," BASE_MY ",\"allow_list\":"
            "[\"%s\"]}", (unsigned long)i, cases[i].item)),
            api_database_create, &status);

        UNIT_CHECK(cases[i].item, status == 400);
        UNIT_CHECKF(strcmp(first_reason(doc), cases[i].reason) == 0,
                    "%s: %s", cases[i].item, first_reason(doc));
    }
}

/*
 * What the public API takes and the module once refused (docs/conventions.md,
 * "Today's clients": never stricter): any 3..32-character label, a
 * two-node cluster, allow-list items with host bits set or repeated (kept
 * as given), a 4-hour maintenance window.
 */
static void test_public_values(void **state)
{
    ctx c;
    json_t *doc;
    int status;

    ctx_init(&c, *state, "public");
    doc = create(&c, &mysql_route,
                 "{\"label\":\"my db (test)\",\"region\":\"us-east\","
                 "\"type\":\"g6-dedicated-2\",\"engine\":\"mysql/8.0.30\","
                 "\"cluster_size\":2,"
                 "\"allow_list\":[\"10.0.0.7/24\",\"192.0.2.1\",\"192.0.2.1\"]}",
                 200);
    assert_string_equal(str(doc, "label"), "my db (test)");
    assert_int_equal(num(doc, "cluster_size"), 2);
    assert_string_equal(str(doc, "replication_type"), "semi_synch");
    assert_string_equal(acct_json_dump(c.db->pool,
                                       json_object_get(doc, "allow_list"), NULL),
                        "[\"10.0.0.7/24\",\"192.0.2.1\",\"192.0.2.1\"]");
    sql(c.db, apr_psprintf(c.db->pool, "UPDATE databases SET status ="
                           " 'active', status_next = NULL, status_due = NULL"
                           " WHERE id = %s", sid(&c, doc)));
    doc = call(request(&c, &mysql_route, sid(&c, doc),
                       "{\"updates\":{\"duration\":4}}"),
               api_database_update, &status);
    assert_int_equal(status, 200);
    assert_int_equal(num(json_object_get(doc, "updates"), "duration"), 4);
}

static void test_create_label_unique_and_key(void **state)
{
    ctx c, other;
    json_t *doc;
    int status;

    ctx_init(&c, *state, "uniq");
    pg_create(&c, "twice");
    doc = create(&c, &mysql_route, "{\"label\":\"twice\"," BASE_MY "}", 400);
    assert_string_equal(error_fields(c.db->pool, doc), "label");
    assert_string_equal(first_reason(doc),
                        "A database with this label already exists");
    /* Another account may use it. */
    ctx_init(&other, *state, "uniq-other");
    pg_create(&other, "twice");

    /* Without AcctapiSecretKeyFile nothing can be created. */
    c.settings = &keyless;
    doc = call(request(&c, &pg_route, NULL, "{\"label\":\"nokey\"," BASE_PG
                       "}"), api_database_create, &status);
    assert_int_equal(status, 503);
}

/* ------------------------------------------------------------------------
 * Lifecycle
 */

static void test_lifecycle(void **state)
{
    ctx c;
    json_t *doc, *hosts;
    const char *id;
    int status;

    ctx_init(&c, *state, "life");
    doc = pg_create(&c, "life");
    id = sid(&c, doc);
    assert_string_equal(str(doc, "created"), str(doc, "updated"));

    /* Everything but delete is refused while provisioning. */
    doc = call(request(&c, &pg_route, id, "{\"label\":\"life2\"}"),
               api_database_update, &status);
    assert_int_equal(status, 400);
    assert_string_equal(first_reason(doc), "Your database is provisioning; "
                        "please wait until provisioning is complete to "
                        "perform this operation.");
    doc = call(request(&c, &pg_route, id, NULL), api_database_delete, &status);
    assert_int_equal(status, 400);

    c.now += PROVISION - 1;
    assert_string_equal(status_of(&c, &pg_route, id), "provisioning");
    c.now += 1;
    doc = get(&c, &pg_route, id, &status);
    assert_string_equal(str(doc, "status"), "active");
    hosts = json_object_get(doc, "hosts");
    assert_string_equal(str(hosts, "primary"), apr_psprintf(c.db->pool,
        "lin-%" APR_INT64_T_FMT "-%s-postgresql-primary." SUFFIX,
        c.who.account_id, id));
    assert_non_null(str(hosts, "secondary"));
    assert_int_equal(num(doc, "used_disk_size_gb"), 0);

    /* An update: updating now, active again after the operation time. */
    c.now += 100;
    doc = call(request(&c, &pg_route, id,
                       "{\"label\":\"life-renamed\",\"type\":\"g6-standard-4\","
                       "\"allow_list\":[\"198.51.100.0/24\"],"
                       "\"updates\":{\"frequency\":\"monthly\","
                       "\"week_of_month\":2,\"hour_of_day\":23}}"),
               api_database_update, &status);
    assert_int_equal(status, 200);
    assert_string_equal(str(doc, "status"), "updating");
    assert_string_equal(str(doc, "label"), "life-renamed");
    assert_string_equal(str(doc, "type"), "g6-standard-4");
    assert_int_equal(num(doc, "total_disk_size_gb"), 130);
    assert_string_equal(acct_json_dump(c.db->pool,
                                       json_object_get(doc, "updates"), NULL),
                        "{\"frequency\":\"monthly\",\"duration\":4,"
                        "\"hour_of_day\":23,\"day_of_week\":1,"
                        "\"week_of_month\":2,\"pending\":[]}");
    assert_string_equal(str(json_object_get(doc, "hosts"), "primary"),
                        str(hosts, "primary"));
    doc = call(request(&c, &pg_route, id, "{}"), api_database_update, &status);
    assert_int_equal(status, 400);
    assert_string_equal(first_reason(doc), "Your database is updating; please "
                        "wait until the update is complete to perform this "
                        "operation.");
    c.now += OPERATION;
    assert_string_equal(status_of(&c, &pg_route, id), "active");

    /* The engine is part of the path: the MySQL routes do not know it. */
    get(&c, &mysql_route, id, &status);
    assert_int_equal(status, 404);

    doc = call(request(&c, &pg_route, id, NULL), api_database_delete, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_object_size(doc), 0);
    get(&c, &pg_route, id, &status);
    assert_int_equal(status, 404);
}

/* failed, degraded and suspended allow delete; the others do not.
 * Suspended: docs/conventions.md "Today's clients" (never stricter than the
 * public
 * API): the Terraform provider's suspension acceptance test destroys a
 * suspended cluster. */
static void test_delete_statuses(void **state)
{
    static const struct {
        const char *status;
        int update, del;
    } cases[] = {
        {"active", 200, 200}, {"failed", 400, 200}, {"degraded", 400, 200},
        {"suspended", 400, 200}, {"suspending", 400, 400},
        {"resuming", 400, 400}, {"restoring", 400, 400},
        {"backing_up", 400, 400}, {"updating", 400, 400},
        {"provisioning", 400, 400},
    };
    ctx c;
    size_t i;

    ctx_init(&c, *state, "statuses");
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *doc = pg_create(&c, apr_psprintf(c.db->pool, "st%lu",
                                                 (unsigned long)i));
        const char *id = sid(&c, doc);
        int status;

        sql(c.db, apr_psprintf(c.db->pool, "UPDATE databases SET status = '%s',"
                               " status_next = NULL, status_due = NULL"
                               " WHERE id = %s", cases[i].status, id));
        call(request(&c, &pg_route, id, "{\"allow_list\":[]}"),
             api_database_update, &status);
        UNIT_CHECKF(status == cases[i].update, "update in %s: %d",
                    cases[i].status, status);
        if (status == 200) {
            sql(c.db, apr_psprintf(c.db->pool, "UPDATE databases SET status"
                                   " = 'active', status_next = NULL,"
                                   " status_due = NULL WHERE id = %s", id));
        }
        call(request(&c, &pg_route, id, NULL), api_database_delete, &status);
        UNIT_CHECKF(status == cases[i].del, "delete in %s: %d",
                    cases[i].status, status);
    }
}

/* With an external backend nothing is scheduled: only set-status moves it. */
static void test_external_never_moves(void **state)
{
    ctx c;
    json_t *doc;
    const char *id;
    int status;

    ctx_init(&c, *state, "external");
    c.settings = &external;
    doc = pg_create(&c, "ext");
    id = sid(&c, doc);
    assert_null(scalar(c.db, apr_pstrcat(c.db->pool, "SELECT status_due FROM"
                                         " databases WHERE id = ", id, NULL)));
    c.now += 10 * 365 * 86400;
    doc = get(&c, &pg_route, id, &status);
    assert_string_equal(str(doc, "status"), "provisioning");
    assert_true(json_is_null(json_object_get(json_object_get(doc, "hosts"),
                                             "primary")));

    /* What acctapi-admin database set-status writes. */
    sql(c.db, apr_psprintf(c.db->pool, "UPDATE databases SET status = 'active',"
                           " host_primary = 'p.ext.test' WHERE id = %s", id));
    call(request(&c, &pg_route, id, "{\"label\":\"ext2\"}"),
         api_database_update, &status);
    assert_int_equal(status, 200);
    c.now += 10 * 365 * 86400;
    assert_string_equal(status_of(&c, &pg_route, id), "updating");
}

/* ------------------------------------------------------------------------
 * Update rules
 */

static void test_update_rules(void **state)
{
    static const struct {
        const char *body, *fields;
    } cases[] = {
        {"{\"label\":\"no\"}", "label"},
        {"{\"label\":\"taken-one\"}", "label"},
        /* Less or the same disk is a resize today's platform takes
         * (tests/e2e/databases/test_db_put_changes.py); a type or node
         * count /databases/types does not sell together is not. */
        {"{\"type\":\"g6-nanode-1\",\"cluster_size\":2}", "type"},
        {"{\"type\":\"g6-standard-2\"}", ""},   /* the type it has */
        {"{\"cluster_size\":2}", "cluster_size"},
        {"{\"type\":\"nope\"}", "type"},
        {"{\"type\":\"g6-standard-6\"}", ""},
        /* kept as given, repeats included (docs/conventions.md, "Today's
         * clients") */
        {"{\"allow_list\":[\"1.2.3.4\",\"1.2.3.4/32\",\"1.2.3.4\"]}", ""},
        {"{\"allow_list\":[\"1.2.3.4\",\"1.2.3.4/33\"]}", "allow_list[1]"},
        {"{\"allow_list\":null}", ""},        /* null: unchanged */
        /* what the route cannot change: refused when it differs from the
         * stored value, ignored when equal (docs/conventions.md, "Today's
         * clients"); cluster_size can change (a resize) */
        {"{\"status\":\"provisioning\",\"engine\":\"postgresql/13.2\","
         "\"region\":\"us-west\",\"cluster_size\":3,\"id\":0}",
         "engine,id,region,status"},
        {"{\"status\":\"active\",\"engine\":\"postgresql\","
         "\"cluster_size\":1,\"private_network\":null,\"fork\":null}", ""},
        /* fork is shown now (null for a database created empty): another
         * value is refused (docs/conventions.md, "Today's clients": managed
         * databases as the public API serves them) */
        {"{\"fork\":{}}", "fork"},
        {"{\"updates\":[]}", "updates"},
        {"{\"updates\":{\"frequency\":\"daily\",\"duration\":0,"
         "\"hour_of_day\":24,\"day_of_week\":0,\"pending\":[]}}",
         "updates.day_of_week,updates.duration,updates.frequency,"
         "updates.hour_of_day"},
        {"{\"updates\":{\"frequency\":\"monthly\"}}", "updates.week_of_month"},
        {"{\"updates\":{\"frequency\":\"monthly\",\"week_of_month\":5}}",
         "updates.week_of_month"},
        {"{\"updates\":{\"week_of_month\":1}}", "updates.week_of_month"},
        {"{\"updates\":{\"duration\":true,\"day_of_week\":7}}",
         "updates.duration"},
        {"{\"updates\":{\"frequency\":\"monthly\",\"week_of_month\":4,"
         "\"day_of_week\":7,\"duration\":1}}", ""},
        /* a weekly window has no week_of_month */
        {"{\"updates\":{\"frequency\":\"weekly\"}}", ""},
        {"{\"updates\":{\"frequency\":\"monthly\",\"week_of_month\":2}}",
         ""},
        {"{\"updates\":{\"frequency\":\"weekly\",\"week_of_month\":null}}", ""},
    };
    ctx c;
    const char *id;
    size_t i;

    ctx_init(&c, *state, "upd");
    pg_create(&c, "taken-one");
    id = sid(&c, pg_create(&c, "upd-target"));
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int status;
        json_t *doc;

        sql(c.db, apr_psprintf(c.db->pool, "UPDATE databases SET status ="
                               " 'active', status_next = NULL, status_due ="
                               " NULL WHERE id = %s", id));
        doc = call(request(&c, &pg_route, id, cases[i].body),
                   api_database_update, &status);
        if (!*cases[i].fields) {
            UNIT_CHECKF(status == 200, "case %lu %s: %s", (unsigned long)i,
                        cases[i].body, json_dumps(doc, 0));
            continue;
        }
        UNIT_CHECKF(status == 400, "case %lu %s", (unsigned long)i,
                    cases[i].body);
        UNIT_CHECKF(strcmp(error_fields(c.db->pool, doc), cases[i].fields) == 0,
                    "case %lu: fields %s, want %s", (unsigned long)i,
                    error_fields(c.db->pool, doc), cases[i].fields);
    }
    /* A refused update changes nothing. */
    assert_string_equal(scalar(c.db, apr_pstrcat(c.db->pool, "SELECT label"
                                                 " FROM databases WHERE id = ",
                                                 id, NULL)), "upd-target");
}

/* ------------------------------------------------------------------------
 * Lists and restricted users
 */

static json_t *list(ctx *c, const acct_route *route, const char *filter,
                    int *status)
{
    acct_req *req = request(c, route, NULL, NULL);

    req->filter = filter;
    return call(req, route == &all_route ? api_databases_all
                                         : api_databases_list, status);
}

static void test_lists(void **state)
{
    ctx c;
    json_t *doc, *item;
    const char *my_id, *pg_id;
    int status;

    ctx_init(&c, *state, "lists");
    pg_id = sid(&c, pg_create(&c, "list-pg"));
    my_id = sid(&c, create(&c, &mysql_route, "{\"label\":\"list-my\","
                           BASE_MY "}", 200));

    doc = list(&c, &pg_route, NULL, &status);
    assert_int_equal(status, 200);
    assert_int_equal(num(doc, "results"), 1);
    assert_string_equal(str(json_array_get(json_object_get(doc, "data"), 0),
                            "label"), "list-pg");

    doc = list(&c, &all_route, NULL, &status);
    assert_int_equal(num(doc, "results"), 2);
    item = json_array_get(json_object_get(doc, "data"), 1);
    assert_string_equal(str(item, "instance_uri"), apr_pstrcat(c.db->pool,
        "/v4/databases/mysql/instances/", my_id, NULL));
    assert_true(json_is_boolean(json_object_get(item, "ssl_connection")));
    assert_null(json_object_get(item, "replication_type"));
    assert_null(json_object_get(item, "replication_commit_type"));
    assert_non_null(json_object_get(item, "hosts"));
    item = json_array_get(json_object_get(doc, "data"), 0);
    assert_string_equal(str(item, "instance_uri"), apr_pstrcat(c.db->pool,
        "/v4/databases/postgresql/instances/", pg_id, NULL));

    doc = list(&c, &all_route, "{\"engine\":\"mysql\"}", &status);
    assert_int_equal(num(doc, "results"), 1);
    doc = list(&c, &all_route, "{\"+or\":[{\"version\":\"16.4\"},"
               "{\"region\":\"nowhere\"}],\"status\":\"provisioning\","
               "\"type\":\"g6-standard-2\",\"label\":{\"+contains\":\"pg\"}}",
               &status);
    assert_int_equal(num(doc, "results"), 1);
    doc = list(&c, &pg_route, "{\"port\":5432}", &status);
    assert_int_equal(status, 200);
    assert_int_equal(num(doc, "results"), 1);
    doc = list(&c, &pg_route, "{\"hosts\":\"x\"}", &status);
    assert_int_equal(status, 400);
    assert_string_equal(first_reason(doc), "Cannot filter on hosts");

    /* Lists settle too. */
    c.now += PROVISION;
    doc = list(&c, &all_route, "{\"status\":\"active\"}", &status);
    assert_int_equal(num(doc, "results"), 2);
}

static void test_restricted(void **state)
{
    ctx owner, limited, creator;
    json_t *doc;
    const char *id, *mine;
    int status;

    ctx_init(&owner, *state, "r-owner");
    member(&owner, &limited, "r-limited", 1);
    member(&owner, &creator, "r-creator", 1);
    id = sid(&owner, pg_create(&owner, "r-owned"));

    /* No add_databases: 403; with it the creator gets read_write. */
    call(request(&creator, &pg_route, NULL, "{\"label\":\"r-new\"," BASE_PG
                 "}"), api_database_create, &status);
    assert_int_equal(status, 403);
    sql(owner.db, apr_psprintf(owner.db->pool, "INSERT INTO user_global_grants"
                               " (user_id, add_databases) VALUES (%"
                               APR_INT64_T_FMT ", 1)", creator.who.user_id));
    mine = sid(&creator, create(&creator, &pg_route, "{\"label\":\"r-new\","
                                BASE_PG "}", 200));
    assert_string_equal(scalar(owner.db, apr_psprintf(owner.db->pool,
        "SELECT permissions FROM entity_grants WHERE entity_type = 'database'"
        " AND entity_id = %s AND user_id = %" APR_INT64_T_FMT, mine,
        creator.who.user_id)), "read_write");
    doc = list(&creator, &all_route, NULL, &status);
    assert_int_equal(num(doc, "results"), 1);

    /* Without a grant: invisible in lists, 403 when named. */
    doc = list(&limited, &pg_route, NULL, &status);
    assert_int_equal(status, 200);
    assert_int_equal(num(doc, "results"), 0);
    get(&limited, &pg_route, id, &status);
    assert_int_equal(status, 403);

    /* read_only: sees it, may not change it. */
    sql(owner.db, apr_psprintf(owner.db->pool, "INSERT INTO entity_grants"
                               " (user_id, entity_type, entity_id, permissions)"
                               " VALUES (%" APR_INT64_T_FMT ", 'database', %s,"
                               " 'read_only')", limited.who.user_id, id));
    doc = list(&limited, &all_route, NULL, &status);
    assert_int_equal(num(doc, "results"), 1);
    get(&limited, &pg_route, id, &status);
    assert_int_equal(status, 200);
    owner.now += PROVISION;
    limited.now = owner.now;
    call(request(&limited, &pg_route, id, "{\"label\":\"r-x\"}"),
         api_database_update, &status);
    assert_int_equal(status, 403);

    /* Deleting takes the grants along. */
    call(request(&owner, &pg_route, id, NULL), api_database_delete, &status);
    assert_int_equal(status, 200);
    assert_string_equal(scalar(owner.db, apr_pstrcat(owner.db->pool,
        "SELECT count(*) FROM entity_grants WHERE entity_type = 'database'"
        " AND entity_id = ", id, NULL)), "0");

    /* Another user's creation needs a grant of its own; other accounts: 404. */
    get(&limited, &pg_route, mine, &status);
    assert_int_equal(status, 403);
    {
        ctx stranger;

        ctx_init(&stranger, *state, "r-stranger");
        get(&stranger, &pg_route, mine, &status);
        assert_int_equal(status, 404);
        call(request(&stranger, &pg_route, mine, NULL), api_database_delete,
             &status);
        assert_int_equal(status, 404);
    }
}

/* ------------------------------------------------------------------------
 * The model (acct_db.h) called directly
 */

static int listed(const char *const *list, const char *word)
{
    for (; *list; list++) {
        if (strcmp(*list, word) == 0) {
            return 1;
        }
    }
    return 0;
}

static void test_model_words(void **state)
{
    const char *const *s;
    int n = 0;

    (void)state;
    for (s = acct_db_statuses; *s; s++, n++) {
        assert_true(acct_db_status_known(*s));
    }
    assert_int_equal(n, 10);
    assert_false(acct_db_status_known("bogus"));
    assert_false(acct_db_status_known(NULL));
    /* Provisioned: every status but provisioning. */
    for (s = acct_db_when_provisioned, n = 0; *s; s++, n++) {
        assert_string_not_equal(*s, ACCT_DB_PROVISIONING);
    }
    assert_int_equal(n, 9);
    assert_true(listed(acct_db_when_at_rest, ACCT_DB_FAILED));
    assert_false(listed(acct_db_when_at_rest, ACCT_DB_UPDATING));
    assert_false(listed(acct_db_when_at_rest, ACCT_DB_SUSPENDED));
    /* Delete: the statuses at rest and suspended. */
    for (s = acct_db_when_at_rest; *s; s++) {
        assert_true(listed(acct_db_when_deletable, *s));
    }
    assert_true(listed(acct_db_when_deletable, ACCT_DB_SUSPENDED));
    assert_false(listed(acct_db_when_deletable, ACCT_DB_SUSPENDING));
    /* Suspend from active or provisioning, resume from suspended or
     * suspending. */
    assert_true(listed(acct_db_when_suspendable, ACCT_DB_ACTIVE));
    assert_true(listed(acct_db_when_suspendable, ACCT_DB_PROVISIONING));
    assert_null(acct_db_when_suspendable[2]);
    assert_true(listed(acct_db_when_resumable, ACCT_DB_SUSPENDED));
    assert_true(listed(acct_db_when_resumable, ACCT_DB_SUSPENDING));
    assert_null(acct_db_when_resumable[2]);
    assert_true(listed(acct_db_when_active, ACCT_DB_ACTIVE));
    assert_null(acct_db_when_active[1]);
    /* Only PostgreSQL takes a commit type; MySQL replicates semi-synch. */
    assert_null(acct_db_engine_named(ACCT_DB_MYSQL)->commit_types);
    assert_true(listed(acct_db_engine_named(ACCT_DB_MYSQL)->replication,
                       "semi_synch"));
    assert_true(listed(acct_db_engine_named(ACCT_DB_POSTGRESQL)->commit_types,
                       ACCT_DB_COMMIT_DEFAULT));
    assert_false(listed(acct_db_engine_named(ACCT_DB_POSTGRESQL)->replication,
                        "semi_synch"));
    assert_null(acct_db_engine_named("oracle"));
    assert_null(acct_db_engine_named(NULL));
}

static void test_model_catalogue(void **state)
{
    unit_db *db = *state;
    const char *status, *caps;
    acct_engine_ref ref;
    apr_int64_t disk;
    int found = -1;

    assert_int_equal(acct_db_region(db->store, db->pool, "us-east", &status,
                                    &caps), ACCT_STORE_OK);
    assert_string_equal(status, "ok");
    assert_true(acct_db_region_offers(caps));
    assert_false(acct_db_region_offers("[\"Linodes\"]"));
    assert_false(acct_db_region_offers(NULL));
    assert_int_equal(acct_db_region(db->store, db->pool, "nowhere", &status,
                                    &caps), ACCT_STORE_OK);
    assert_null(status);
    assert_null(caps);
    assert_int_equal(acct_db_type_disk(db->store, db->pool, "g6-standard-2",
                                       &disk), ACCT_STORE_OK);
    assert_int_equal(disk, 59392);      /* database_types, not compute */
    assert_int_equal(acct_db_type_disk(db->store, db->pool, "g0-none", &disk),
                     ACCT_STORE_OK);
    assert_int_equal(disk, -1);
    /* The create route's engine: a major id runs its current release. */
    assert_int_equal(acct_catalog_engine_find(db->store, db->pool, "mysql/8",
                                              &ref, &found), ACCT_STORE_OK);
    assert_int_equal(found, 1);
    assert_string_equal(ref.engine, ACCT_DB_MYSQL);
    assert_string_equal(ref.full_version, "8.0.35");
    assert_int_equal(acct_catalog_engine_find(db->store, db->pool,
                                              "postgresql/16.4", &ref,
                                              &found), ACCT_STORE_OK);
    assert_int_equal(found, 1);
    assert_string_equal(ref.full_version, "16.4");
    assert_int_equal(acct_catalog_engine_find(db->store, db->pool, "mysql/0",
                                              &ref, &found), ACCT_STORE_OK);
    assert_int_equal(found, 0);
}

/* A row through acct_db_create, as the create route checked it. */
static apr_int64_t model_create(ctx *c, const char *label)
{
    acct_db_new d;
    apr_int64_t id = -1;

    memset(&d, 0, sizeof(d));
    d.account_id = c->who.account_id;
    d.engine = acct_db_engine_named(ACCT_DB_POSTGRESQL);
    d.version = "16.4";
    d.label = label;
    d.region = "us-east";
    d.type = "g6-standard-2";
    d.cluster_size = ACCT_DB_CLUSTER_HA;
    d.ssl_connection = 1;
    d.replication_type = "asynch";
    d.commit_type = ACCT_DB_COMMIT_DEFAULT;
    d.allow_list = "[\"192.0.2.1\"]";
    d.disk_gb = 80;
    d.now = c->now;
    assert_int_equal(acct_db_label_lock(c->db->store, c->db->pool,
                                        c->who.account_id, label),
                     ACCT_STORE_OK);
    assert_int_equal(acct_db_create(c->db->store, c->db->pool, &d, &id),
                     ACCT_STORE_OK);
    return id;
}

static const char *column(ctx *c, apr_int64_t id, const char *name)
{
    acct_rows *rows = NULL;

    assert_int_equal(acct_db_get(c->db->store, c->db->pool, id, &rows),
                     ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    assert_int_equal(acct_db_id(rows), id);
    return acct_rows_get(rows, 0, name);
}

static void test_model_rows(void **state)
{
    acct_db_changes ch = {NULL, NULL, NULL, -1, NULL, NULL, NULL, -1, NULL,
                          0, NULL, NULL, 0};
    acct_rows *rows = NULL;
    apr_int64_t id, other;
    int changed = -1;
    ctx c;

    ctx_init(&c, *state, "model");
    id = model_create(&c, "first");
    assert_true(id > 0);
    assert_int_equal(model_create(&c, "first"), 0);  /* the label is taken */
    assert_string_equal(column(&c, id, "status"), ACCT_DB_PROVISIONING);
    assert_string_equal(column(&c, id, "port"), "5432");
    assert_string_equal(column(&c, id, "root_username"), "linpostgres");
    assert_string_equal(column(&c, id, "updates"), ACCT_DB_UPDATES_DEFAULT);
    assert_string_equal(column(&c, id, "total_disk_size_gb"), "80");
    assert_string_equal(column(&c, id, "replication_commit_type"), "local");
    assert_string_equal(column(&c, id, "engine_config"), "{}");
    assert_string_equal(column(&c, id, "platform"), "rdbms-default");
    assert_null(column(&c, id, "private_network"));
    assert_null(column(&c, id, "fork_source"));
    assert_int_equal(acct_db_get(c.db->store, c.db->pool, id + 100, &rows),
                     ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 0);

    /* Passwords: the created row's, then a reset that dates itself. */
    assert_int_equal(acct_db_password_set(c.db->store, c.db->pool, id, "s1"),
                     ACCT_STORE_OK);
    assert_string_equal(column(&c, id, "root_password_sealed"), "s1");
    assert_null(column(&c, id, "credentials_reset"));
    assert_int_equal(acct_db_password_reset(c.db->store, c.db->pool, id, "s2",
                                            c.now + 5, &changed),
                     ACCT_STORE_OK);
    assert_int_equal(changed, 1);
    assert_string_equal(column(&c, id, "root_password_sealed"), "s2");
    assert_string_equal(column(&c, id, "credentials_reset"),
                        acct_i64(c.db->pool, c.now + 5));
    assert_int_equal(acct_db_password_reset(c.db->store, c.db->pool, id + 100,
                                            "s3", c.now, &changed),
                     ACCT_STORE_OK);
    assert_int_equal(changed, 0);

    /* Update: NULL keeps a column; another's label changes nothing. */
    other = model_create(&c, "second");
    ch.label = "second";
    ch.type = "g6-standard-4";
    assert_int_equal(acct_db_update(c.db->store, c.db->pool, c.who.account_id,
                                    id, &ch, &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 0);
    assert_string_equal(column(&c, id, "type"), "g6-standard-2");
    ch.label = "renamed";
    ch.disk_gb = 160;
    assert_int_equal(acct_db_update(c.db->store, c.db->pool, c.who.account_id,
                                    id, &ch, &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 1);
    assert_string_equal(column(&c, id, "label"), "renamed");
    assert_string_equal(column(&c, id, "type"), "g6-standard-4");
    assert_string_equal(column(&c, id, "total_disk_size_gb"), "160");
    assert_string_equal(column(&c, id, "allow_list"), "[\"192.0.2.1\"]");
    assert_string_equal(column(&c, other, "label"), "second");
}

static void test_model_set_status(void **state)
{
    apr_int64_t id;
    int changed = -1;
    ctx c;

    ctx_init(&c, *state, "admin");
    /* A database through the route: provisioning, active due later. */
    id = (apr_int64_t)num(pg_create(&c, "operated"), "id");
    assert_non_null(column(&c, id, "status_next"));
    assert_int_equal(acct_db_set_status(c.db->store, c.db->pool, id,
                                        ACCT_DB_DEGRADED, "p.example.net", NULL,
                                        c.now + 60, &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 1);
    assert_string_equal(column(&c, id, "status"), ACCT_DB_DEGRADED);
    assert_null(column(&c, id, "status_next"));
    assert_null(column(&c, id, "status_due"));
    assert_string_equal(column(&c, id, "host_primary"), "p.example.net");
    assert_string_equal(column(&c, id, "updated"),
                        acct_i64(c.db->pool, c.now + 60));
    assert_int_equal(acct_db_set_status(c.db->store, c.db->pool, id + 100,
                                        ACCT_DB_ACTIVE, NULL, NULL, c.now,
                                        &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 0);
}

/* What the model's status-bound functions come to, before any handler
 * turns it into HTTP: the status refusal's reason, a row gone, a grant
 * missing, and a compare-and-set that lost reading the row again. */
static void test_model_outcomes(void **state)
{
    const char *wait_update = "Your database is updating; please wait until "
                              "the update is complete to perform this "
                              "operation.";
    acct_rows *db, *stale;
    acct_outcome out;
    apr_int64_t id;
    acct_req *req;
    int changed = 0;
    ctx c, m;

    ctx_init(&c, *state, "outcomes");
    id = model_create(&c, "checked");
    req = request(&c, NULL, NULL, NULL);

    assert_null(acct_db_load(req, id + 100, NULL, ACCT_LEVEL_READ_WRITE,
                             &out));
    assert_int_equal(out.kind, ACCT_OUT_NOT_FOUND);
    assert_null(acct_db_load(req, id, ACCT_DB_MYSQL, ACCT_LEVEL_READ_ONLY,
                             &out));
    assert_int_equal(out.kind, ACCT_OUT_NOT_FOUND);
    db = acct_db_load(req, id, ACCT_DB_POSTGRESQL, ACCT_LEVEL_READ_WRITE,
                      &out);
    assert_non_null(db);
    assert_true(acct_out_ok(out));
    assert_int_equal(acct_db_id(db), id);

    /* Still provisioning: refused with DECISIONS' reason, no field. */
    out = acct_db_require_status(req->pool, db, acct_db_when_active);
    assert_int_equal(out.kind, ACCT_OUT_INVALID);
    assert_null(out.problems);
    assert_null(out.field);
    assert_string_equal(out.reason, "Your database is provisioning; please "
                        "wait until provisioning is complete to perform "
                        "this operation.");
    out = acct_db_begin(req, &db, acct_db_when_active, ACCT_DB_UPDATING,
                        ACCT_DB_ACTIVE, 60, NULL);
    assert_int_equal(out.kind, ACCT_OUT_INVALID);
    assert_true(acct_out_ok(acct_db_require_status(req->pool, db,
                                                   acct_db_when_suspendable)));

    /* Active: one begin wins; one holding the row as it was loses to the
     * status the winner left, read again into its row. */
    assert_int_equal(acct_db_set_status(c.db->store, c.db->pool, id,
                                        ACCT_DB_ACTIVE, NULL, NULL, c.now,
                                        &changed), ACCT_STORE_OK);
    db = acct_db_load(req, id, NULL, ACCT_LEVEL_READ_WRITE, &out);
    assert_non_null(db);
    stale = db;
    out = acct_db_begin(req, &db, acct_db_when_active, ACCT_DB_UPDATING,
                        ACCT_DB_ACTIVE, 60, NULL);
    assert_true(acct_out_ok(out));
    assert_string_equal(column(&c, id, "status"), ACCT_DB_UPDATING);
    out = acct_db_begin(req, &stale, acct_db_when_active, ACCT_DB_UPDATING,
                        ACCT_DB_ACTIVE, 60, NULL);
    assert_int_equal(out.kind, ACCT_OUT_INVALID);
    assert_string_equal(out.reason, wait_update);
    assert_string_equal(acct_rows_get(stale, 0, "status"), ACCT_DB_UPDATING);
    out = acct_db_delete(req, &stale);
    assert_int_equal(out.kind, ACCT_OUT_INVALID);
    assert_string_equal(out.reason, wait_update);

    /* A restricted member without a grant on it. */
    member(&c, &m, "outcomes-member", 1);
    assert_null(acct_db_load(request(&m, NULL, NULL, NULL), id, NULL,
                             ACCT_LEVEL_READ_ONLY, &out));
    assert_int_equal(out.kind, ACCT_OUT_FORBIDDEN);

    /* Deleted once at rest; then there is no such database. */
    assert_int_equal(acct_db_set_status(c.db->store, c.db->pool, id,
                                        ACCT_DB_ACTIVE, NULL, NULL, c.now,
                                        &changed), ACCT_STORE_OK);
    db = acct_db_load(req, id, NULL, ACCT_LEVEL_READ_WRITE, &out);
    assert_non_null(db);
    assert_true(acct_out_ok(acct_db_delete(req, &db)));
    assert_null(acct_db_load(req, id, NULL, ACCT_LEVEL_READ_WRITE, &out));
    assert_int_equal(out.kind, ACCT_OUT_NOT_FOUND);
}

/* ------------------------------------------------------------------------
 * Suspend, resume, fork
 */

/* Suspend and resume through their handlers: a database still provisioning
 * completes at the suspend (hosts, from then on), each step takes the
 * operation time, and with the external backend nothing is scheduled. */
static void test_suspend_resume(void **state)
{
    ctx c;
    json_t *doc;
    const char *id;
    apr_int64_t nid;
    int status;

    ctx_init(&c, *state, "pause");
    id = sid(&c, pg_create(&c, "pause"));
    nid = (apr_int64_t)num(pg_create(&c, "pause-other"), "id");
    assert_null(column(&c, (apr_int64_t)atoll(id), "host_primary"));
    c.now += 10;
    doc = call(request(&c, &pg_route, id, NULL), api_db_suspend, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_object_size(doc), 0);
    doc = get(&c, &pg_route, id, &status);
    assert_string_equal(str(doc, "status"), "suspending");
    assert_string_equal(str(json_object_get(doc, "hosts"), "primary"),
                        apr_psprintf(c.db->pool, "lin-%" APR_INT64_T_FMT
                                     "-%s-postgresql-primary." SUFFIX,
                                     c.who.account_id, id));
    /* Provisioning completed at the suspend, not before. */
    assert_string_equal(column(&c, (apr_int64_t)atoll(id), "status_due"),
                        acct_i64(c.db->pool, c.now + OPERATION));
    /* The other database of the account provisions on. */
    assert_string_equal(column(&c, nid, "status"), ACCT_DB_PROVISIONING);
    doc = call(request(&c, &pg_route, id, NULL), api_db_suspend, &status);
    assert_int_equal(status, 400);
    assert_string_equal(first_reason(doc), "Your database is suspending; "
                        "please wait until suspending is complete to perform "
                        "this operation.");
    c.now += OPERATION;
    assert_string_equal(status_of(&c, &pg_route, id), "suspended");
    doc = call(request(&c, &pg_route, id, NULL), api_db_suspend, &status);
    assert_int_equal(status, 400);
    assert_string_equal(first_reason(doc), "Your database is suspended; this "
                        "operation is not available in that status.");
    doc = call(request(&c, &pg_route, id, NULL), api_db_resume, &status);
    assert_int_equal(status, 200);
    assert_string_equal(status_of(&c, &pg_route, id), "resuming");
    c.now += OPERATION - 1;
    assert_string_equal(status_of(&c, &pg_route, id), "resuming");
    c.now += 1;
    assert_string_equal(status_of(&c, &pg_route, id), "active");
    doc = call(request(&c, &pg_route, id, NULL), api_db_resume, &status);
    assert_int_equal(status, 400);
    assert_string_equal(first_reason(doc), "Your database is active; this "
                        "operation is not available in that status.");
    /* The MySQL route does not know a PostgreSQL database. */
    call(request(&c, &mysql_route, id, NULL), api_db_suspend, &status);
    assert_int_equal(status, 404);

    /* External: suspending until the operator says otherwise. */
    c.settings = &external;
    doc = call(request(&c, &pg_route, id, NULL), api_db_suspend, &status);
    assert_int_equal(status, 200);
    c.now += 86400;
    assert_string_equal(status_of(&c, &pg_route, id), "suspending");
    assert_null(column(&c, (apr_int64_t)atoll(id), "status_next"));
}

/* A fork's row and answer: its source and moment, the source's settings,
 * a label made from the source's, cut at whole characters. */
static void test_fork(void **state)
{
    /* 32 characters of two bytes each. */
    static const char long_label[] =
        "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
        "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
        "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
        "\u00e9\u00e9";
    ctx c;
    json_t *doc, *fork;
    const char *id, *body, *label;
    apr_int64_t at, fid;

    ctx_init(&c, *state, "forker");
    id = sid(&c, create(&c, &pg_route, apr_psprintf(c.db->pool,
        "{\"label\":\"%s\",\"region\":\"us-east\","
        "\"type\":\"g6-standard-2\",\"engine\":\"postgresql/16.4\","
        "\"allow_list\":[\"192.0.2.7\"],\"cluster_size\":3}", long_label),
        200));
    body = apr_psprintf(c.db->pool, "{\"fork\":{\"source\":%s}}", id);
    /* Provisioning: not yet a source. */
    doc = create(&c, &pg_route, body, 400);
    assert_string_equal(first_reason(doc), "Your database is provisioning; "
                        "please wait until provisioning is complete to "
                        "perform this operation.");
    c.now += PROVISION + 600;
    at = c.now - 300;
    doc = create(&c, &pg_route, apr_psprintf(c.db->pool,
        "{\"fork\":{\"source\":%s,\"restore_time\":\"%s\"}}", id,
        acct_format_timestamp(c.db->pool, at)), 200);
    fid = (apr_int64_t)num(doc, "id");
    fork = json_object_get(doc, "fork");
    assert_int_equal(num(fork, "source"), atoll(id));
    assert_string_equal(column(&c, fid, "fork_source"), id);
    assert_string_equal(column(&c, fid, "fork_restore_time"),
                        acct_i64(c.db->pool, at));
    assert_string_equal(str(doc, "status"), "provisioning");
    assert_string_equal(str(doc, "version"), "16.4");
    assert_int_equal(num(doc, "cluster_size"), 3);
    assert_string_equal(str(doc, "replication_type"), "asynch");
    assert_string_equal(acct_json_dump(c.db->pool,
                                       json_object_get(doc, "allow_list"),
                                       NULL), "[\"192.0.2.7\"]");
    /* 27 of the 32 characters, and "-fork"; then "-fork-2", 25 of them. */
    label = str(doc, "label");
    assert_int_equal(strlen(label), 27 * 2 + 5);
    assert_string_equal(label + 27 * 2, "-fork");
    doc = create(&c, &pg_route, body, 200);
    label = str(doc, "label");
    assert_int_equal(strlen(label), 25 * 2 + 7);
    assert_string_equal(label + 25 * 2, "-fork-2");
    /* Now when no time is given; the source itself is unchanged. */
    assert_string_equal(column(&c, (apr_int64_t)num(doc, "id"),
                               "fork_restore_time"),
                        acct_i64(c.db->pool, c.now));
    assert_null(column(&c, (apr_int64_t)atoll(id), "fork_source"));
    /* The MySQL route forks MySQL databases only. */
    doc = create(&c, &mysql_route, body, 400);
    assert_string_equal(error_fields(c.db->pool, doc), "fork.source");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_DB_TEST(test_create_shape),
        UNIT_DB_TEST(test_create_rules),
        UNIT_DB_TEST(test_allow_list_reasons),
        UNIT_DB_TEST(test_public_values),
        UNIT_DB_TEST(test_create_label_unique_and_key),
        UNIT_DB_TEST(test_lifecycle),
        UNIT_DB_TEST(test_delete_statuses),
        UNIT_DB_TEST(test_external_never_moves),
        UNIT_DB_TEST(test_update_rules),
        UNIT_DB_TEST(test_lists),
        UNIT_DB_TEST(test_restricted),
        cmocka_unit_test(test_model_words),
        UNIT_DB_TEST(test_model_catalogue),
        UNIT_DB_TEST(test_model_rows),
        UNIT_DB_TEST(test_model_set_status),
        UNIT_DB_TEST(test_model_outcomes),
        UNIT_DB_TEST(test_suspend_resume),
        UNIT_DB_TEST(test_fork),
    };

    return UNIT_DB_RUN(tests);
}
