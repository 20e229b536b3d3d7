/* Operations on one managed database (api_dbops.c): restore. */
#include "unit.h"

#include <apr_base64.h>
#include <apr_dbd.h>
#include <apr_strings.h>
#include <jansson.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <string.h>

#include "unit_db.h"
#include "acct_dbbackup.h"
#include "acct_dbcert.h"
#include "acct_json.h"
#include "acct_router.h"
#include "acct_seal.h"
#include "acct_time.h"
#include "api_handlers.h"

#include "unit_dbops.h"

/* ------------------------------------------------------------------------
 * Restore
 * ------------------------------------------------------------------------ */

static void restore_then_active(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "postgresql", "active"), now = f->t0 + 2 * DAY;
    json_t *l = list_backups(f, "postgresql", id, now);
    const char *restore = dbpath(f, "postgresql", id, apr_psprintf(
        f->db->pool, "/backups/%" APR_INT64_T_FMT "/restore",
        (apr_int64_t)json_integer_value(json_object_get(item(l, 0), "id"))));

    assert_int_equal(results(l), 2);
    assert_int_equal(json_object_size(ok(f, now, "POST", restore, NULL)), 0);
    assert_string_equal(stored_status(f, id), "restoring");
    refused(f, now + 1, "POST", restore, NULL, 400,
            "Your database is restoring; please wait until the restore is "
            "complete to perform this operation.");
    list_backups(f, "postgresql", id, now + OP);   /* settles */
    assert_string_equal(stored_status(f, id), "active");
    /* From failed and degraded too. */
    set_status(f, id, "failed");
    ok(f, now + OP, "POST", restore, NULL);
    list_backups(f, "postgresql", id, now + 2 * OP);
    assert_string_equal(stored_status(f, id), "active");
    set_status(f, id, "degraded");
    ok(f, now + 2 * OP, "POST", restore, NULL);
    /* Unknown and running backups cannot be restored. */
    set_status(f, id, "active");
    refused(f, now + 3 * OP, "POST", dbpath(f, "postgresql", id,
                                            "/backups/999999/restore"),
            NULL, 404, "Not found");
    ok(f, now + 3 * OP, "POST", dbpath(f, "postgresql", id, "/backups"),
       "{\"label\":\"running\"}");
    set_status(f, id, "active");
    refused(f, now + 3 * OP, "POST", dbpath(f, "postgresql", id, apr_psprintf(
                f->db->pool, "/backups/%" APR_INT64_T_FMT "/restore",
                sql_int(f, "SELECT max(id) FROM database_backups"))),
            NULL, 404, "Not found");
}

/* "Restoring a backup after credentials were reset currently yields a
 * failed cluster"; a backup taken after the reset restores fine. */
static void restore_after_reset_fails(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "mysql", "active"), now = f->t0 + 2 * DAY;
    const char *backups = dbpath(f, "mysql", id, "/backups");
    json_t *l = list_backups(f, "mysql", id, now);
    apr_int64_t before = json_integer_value(json_object_get(item(l, 1), "id"));

    ok(f, now, "POST", dbpath(f, "mysql", id, "/credentials/reset"), NULL);
    now += 10;
    ok(f, now, "POST", backups, "{\"label\":\"after\"}");
    now += OP;
    l = list_backups(f, "mysql", id, now);
    assert_int_equal(results(l), 3);
    ok(f, now, "POST", apr_psprintf(f->db->pool, "%s/%" APR_INT64_T_FMT
                                    "/restore", backups, before), NULL);
    assert_string_equal(stored_status(f, id), "restoring");
    now += OP;
    list_backups(f, "mysql", id, now);
    assert_string_equal(stored_status(f, id), "failed");
    /* The snapshot taken after the reset brings it back. */
    ok(f, now, "POST", apr_psprintf(f->db->pool, "%s/%" APR_INT64_T_FMT
                                    "/restore", backups, (apr_int64_t)json_integer_value(
                                        json_object_get(item(l, 2), "id"))),
       NULL);
    now += OP;
    list_backups(f, "mysql", id, now);
    assert_string_equal(stored_status(f, id), "active");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        DB_TEST(restore_then_active),
        DB_TEST(restore_after_reset_fails),
    };

    return UNIT_RUN_GROUP(tests, group_setup, NULL);
}
