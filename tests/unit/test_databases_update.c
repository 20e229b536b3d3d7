/* Managed databases: the update rules (api_databases.c) table by table. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_DB_TEST(test_update_rules),
    };

    return UNIT_DB_RUN(tests);
}
