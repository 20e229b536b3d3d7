/* Managed databases: the lifecycle with req->now moved by hand, deletion by
 * status, the external backend that never moves, and suspend, resume and
 * fork. */
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
 * Suspended: docs/conventions.md, "Today's clients" (never stricter than the
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
        UNIT_DB_TEST(test_lifecycle),
        UNIT_DB_TEST(test_delete_statuses),
        UNIT_DB_TEST(test_external_never_moves),
        UNIT_DB_TEST(test_suspend_resume),
        UNIT_DB_TEST(test_fork),
    };

    return UNIT_DB_RUN(tests);
}
