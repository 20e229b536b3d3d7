/* Managed databases: lists and their filters, and what restricted users may
 * see and do. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_DB_TEST(test_lists),
        UNIT_DB_TEST(test_restricted),
    };

    return UNIT_DB_RUN(tests);
}
