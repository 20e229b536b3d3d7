/* The backup and certificate model (acct_dbbackup.h, acct_dbcert.h) called
 * directly. */
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
 * The backup and certificate model (acct_dbbackup.h, acct_dbcert.h) called
 * directly
 * ------------------------------------------------------------------------ */

static void backup_model(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "mysql", "active"), now = f->t0 + 3 * DAY;
    apr_int64_t snapshots = -1, running = -1, snap;
    acct_store *st = f->db->store;
    apr_pool_t *p = f->db->pool;
    acct_rows *rows = NULL;
    int made = -1, changed = -1;

    assert_string_equal(acct_dbbackup_auto_label(p, midnight(f, 1)),
                        "auto20300111");
    /* Three midnights since creation: three rows, written once. */
    assert_int_equal(acct_dbbackup_materialise(st, p, id, f->t0, now),
                     ACCT_STORE_OK);
    assert_int_equal(acct_dbbackup_materialise(st, p, id, f->t0, now),
                     ACCT_STORE_OK);
    assert_int_equal(sql_int(f, "SELECT count(*) FROM database_backups"), 3);
    assert_int_equal(acct_dbbackup_counts(st, p, id, now, &snapshots,
                                          &running), ACCT_STORE_OK);
    assert_int_equal(snapshots, 0);
    assert_int_equal(running, 0);

    /* A snapshot finishing in OP seconds: counted, running, hidden. */
    assert_int_equal(acct_dbbackup_snapshot_create(st, p, id, "mine",
                                                   ACCT_DBBACKUP_SECONDARY,
                                                   now + OP, &made),
                     ACCT_STORE_OK);
    assert_int_equal(made, 1);
    assert_int_equal(acct_dbbackup_snapshot_create(st, p, id, "again",
                                                   ACCT_DBBACKUP_PRIMARY,
                                                   now + OP, &made),
                     ACCT_STORE_OK);
    assert_int_equal(made, 0);  /* one per second */
    snap = sql_int(f, "SELECT id FROM database_backups WHERE type = 'snapshot'");
    assert_int_equal(acct_dbbackup_counts(st, p, id, now, &snapshots,
                                          &running), ACCT_STORE_OK);
    assert_int_equal(snapshots, 1);
    assert_int_equal(running, 1);
    assert_int_equal(acct_dbbackup_get(st, p, id, snap, now, &rows),
                     ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 0);
    assert_int_equal(acct_dbbackup_get(st, p, id, snap, now + OP, &rows),
                     ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    assert_string_equal(acct_rows_get(rows, 0, "label"), "mine");
    assert_int_equal(acct_dbbackup_get(st, p, id + 1, snap, now + OP, &rows),
                     ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 0);

    /* Deleting: a snapshot goes, an automatic backup stays marked. */
    assert_int_equal(acct_dbbackup_delete(st, p, id, snap,
                                          ACCT_DBBACKUP_SNAPSHOT, "u", now,
                                          &changed),
                     ACCT_STORE_OK);
    assert_int_equal(changed, 0);  /* not finished yet: not visible */
    assert_int_equal(acct_dbbackup_delete(st, p, id, snap,
                                          ACCT_DBBACKUP_SNAPSHOT, "u", now + OP,
                                          &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 1);
    snap = sql_int(f, "SELECT min(id) FROM database_backups");
    assert_int_equal(acct_dbbackup_delete(st, p, id, snap, ACCT_DBBACKUP_AUTO,
                                          "u", now, &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 1);
    /* One event per delete that deleted. */
    assert_int_equal(sql_int(f, "SELECT count(*) FROM events WHERE action ="
                                " 'database_backup_delete' AND status ="
                                " 'notification' AND username = 'u'"), 2);
    assert_int_equal(sql_int(f, "SELECT count(*) FROM database_backups"), 3);
    assert_int_equal(sql_int(f, "SELECT count(*) FROM database_backups"
                                " WHERE deleted = 1"), 1);

    /* Restore outcome: failed only after a later password reset. */
    assert_string_equal(acct_dbbackup_restore_outcome(0, now), "active");
    assert_string_equal(acct_dbbackup_restore_outcome(now, now), "active");
    assert_string_equal(acct_dbbackup_restore_outcome(now + 1, now), "failed");
}

static void certificate_model(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "postgresql", "active");
    const char *pem = "x";
    int changed = -1, found = -1;

    assert_int_equal(acct_dbcert_get(f->db->store, f->db->pool, id, &pem,
                                     &found), ACCT_STORE_OK);
    assert_int_equal(found, 1);
    assert_null(pem);
    /* The first writer wins. */
    assert_int_equal(acct_dbcert_store(f->db->store, f->db->pool, id, "one",
                                       &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 1);
    assert_int_equal(acct_dbcert_store(f->db->store, f->db->pool, id, "two",
                                       &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 0);
    assert_int_equal(acct_dbcert_get(f->db->store, f->db->pool, id, &pem,
                                     &found), ACCT_STORE_OK);
    assert_string_equal(pem, "one");
    assert_int_equal(acct_dbcert_get(f->db->store, f->db->pool, id + 1, &pem,
                                     &found), ACCT_STORE_OK);
    assert_int_equal(found, 0);
    assert_null(pem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        DB_TEST(backup_model),
        DB_TEST(certificate_model),
    };

    return UNIT_RUN_GROUP(tests, group_setup, NULL);
}
