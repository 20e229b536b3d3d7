/* Managed databases: the create rules (api_db_create.c) table by table, the
 * values the public API takes, labels and the sealed root password. */
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

#include "unit_databases.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_DB_TEST(test_create_shape),
        UNIT_DB_TEST(test_create_rules),
        UNIT_DB_TEST(test_allow_list_reasons),
        UNIT_DB_TEST(test_public_values),
        UNIT_DB_TEST(test_create_label_unique_and_key),
    };

    return UNIT_DB_RUN(tests);
}
