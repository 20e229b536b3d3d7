/* Operations on one managed database (api_dbops.c): who may do what. */
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
 * Who may do what
 * ------------------------------------------------------------------------ */

static void engines_and_grants(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "mysql", "active"), now = f->t0 + 3600;
    acct_principal stranger, reader;
    const char *ro;
    int status;

    /* The other engine's path, another account: 404. */
    refused(f, now, "GET", dbpath(f, "postgresql", id, "/backups"), NULL, 404,
            "Not found");
    unit_identity(f->db, "stranger", 0, "*", &stranger);
    call_as(f, &stranger, now, "GET", dbpath(f, "mysql", id, "/ssl"), NULL,
            NULL, &status);
    assert_int_equal(status, 404);

    /* A restricted user of the account with read_only on it: views, no
     * backups (they all need read_write). */
    unit_identity(f->db, "reader", 1, "*", &reader);
    sql(f, apr_psprintf(f->db->pool, "UPDATE users SET account_id = %"
                        APR_INT64_T_FMT " WHERE id = %" APR_INT64_T_FMT,
                        f->who.account_id, reader.user_id));
    reader.account_id = f->who.account_id;
    ro = apr_psprintf(f->db->pool, "INSERT INTO entity_grants VALUES (%"
                      APR_INT64_T_FMT ", 'database', %" APR_INT64_T_FMT
                      ", 'read_only')", reader.user_id, id);
    sql(f, ro);
    call_as(f, &reader, now, "GET", dbpath(f, "mysql", id, "/credentials"),
            NULL, NULL, &status);
    assert_int_equal(status, 200);
    call_as(f, &reader, now, "GET", dbpath(f, "mysql", id, "/ssl"), NULL, NULL,
            &status);
    assert_int_equal(status, 200);
    call_as(f, &reader, now, "GET", dbpath(f, "mysql", id, "/backups"), NULL,
            NULL, &status);
    assert_int_equal(status, 403);
    call_as(f, &reader, now, "POST", dbpath(f, "mysql", id, "/patch"), NULL,
            NULL, &status);
    assert_int_equal(status, 403);
    assert_string_equal(stored_status(f, id), "active");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        DB_TEST(engines_and_grants),
    };

    return UNIT_RUN_GROUP(tests, group_setup, NULL);
}
