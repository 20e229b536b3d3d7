/*
 * Operations on one managed database, the same for both engines
 * (docs/conventions.md:
 * PostgreSQL mirrors every MySQL sub-route with the same status rules):
 * backups, restore, root credentials, patch, the CA certificate, suspend
 * and resume.
 *
 * Automatic backups are facts of the calendar (acct_dbbackup.h): a request
 * that reads or uses the backups first writes the rows the calendar says
 * exist and drops the expired ones.  A snapshot's row is written when it is
 * asked for, dated when it finishes, and hidden until then.
 *
 * An operation that moves the database to a transient status does so with
 * acct_db_begin, one UPDATE whose WHERE holds the allowed statuses, so two
 * concurrent requests can never both start one (two snapshots, a snapshot
 * and a restore, a PUT and a patch...); what the operation then checks or
 * writes it does under that row's lock.
 *
 * Choices where the contract is silent:
 *  - Lists show finished backups only, by id; automatic ones are labelled
 *    "autoYYYYMMDD" (backup labels are ASCII letters and digits).
 *  - Deleting an automatic backup leaves a marker row until the backup would
 *    have expired, so the calendar does not bring it back.
 *  - The snapshot limit counts running snapshots too.
 *  - Credentials reset requires active, like every other change of a
 *    running cluster; the database is updating for the operation time
 *    capped at RESET_SECONDS_MAX ("takes several seconds").
 *  - A restore decides when it starts whether it will end failed: the root
 *    password was reset after the backup was taken.
 *  - The CA certificate is made on its first view, which requires active,
 *    so a view never finds it missing.
 */
#include "api_handlers.h"
#include "api_databases.h"
#include "acct_body.h"
#include "acct_crypto.h"
#include "acct_db.h"
#include "acct_dbbackup.h"
#include "acct_dbcert.h"
#include "acct_event.h"
#include "acct_json.h"
#include "acct_list.h"
#include "acct_log.h"
#include "acct_router.h"
#include "acct_seal.h"

#include <apr_base64.h>
#include <apr_strings.h>
#include <string.h>

#define SNAPSHOT_LABEL_MAX 30
#define RESET_SECONDS_MAX 10     /* "takes several seconds" */

/* ------------------------------------------------------------------------
 * Shared steps
 * ------------------------------------------------------------------------ */

static apr_int64_t column_i64(const acct_rows *rows, const char *column)
{
    apr_int64_t v = 0;

    acct_parse_i64(acct_rows_get(rows, 0, column), &v);
    return v;
}

/*
 * The database of the path, settled, on which the user holds `need`, in one
 * of the `allowed` statuses; NULL once answered.
 */
static acct_rows *load_db(acct_req *req, acct_resp *resp, acct_level need,
                          const char *const *allowed)
{
    acct_rows *db = api_db_of_path(req, resp, need);

    if (!db
        || acct_resp_outcome(resp, req->pool,
                             acct_db_require_status(req->pool, db, allowed))
           != 0) {
        return NULL;
    }
    return db;
}

/* A database whose backups may be read or used: loaded, checked, its
 * automatic backups brought up to date.  NULL once answered. */
static acct_rows *load_db_backups(acct_req *req, acct_resp *resp,
                                  const char *const *allowed)
{
    acct_rows *db = load_db(req, resp, ACCT_LEVEL_READ_WRITE, allowed);

    return db && acct_resp_store_failed(req, resp,
                     acct_dbbackup_materialise(req->store, req->pool,
                                               acct_db_id(db),
                                               column_i64(db, "created"),
                                               req->now)) == 0 ? db : NULL;
}

/* The backup of the path (parameter 1) as users see it, else 404. */
static acct_rows *load_backup(acct_req *req, acct_resp *resp,
                              const acct_rows *db)
{
    acct_rows *rows = NULL;
    acct_store_rc rc;
    apr_int64_t id;

    if (acct_path_id(req, resp, 1, &id) != 0) {
        return NULL;
    }
    rc = acct_dbbackup_get(req->store, req->pool, acct_db_id(db), id, req->now,
                           &rows);
    return acct_resp_found(req, resp, rc, rows);
}

static json_t *render_backup(acct_req *req, const acct_rows *rows, int i)
{
    json_t *o = json_object();

    json_object_set_new(o, "id", acct_json_int(acct_rows_get(rows, i, "id")));
    json_object_set_new(o, "type", acct_json_str(acct_rows_get(rows, i, "type")));
    json_object_set_new(o, "label",
                        acct_json_str(acct_rows_get(rows, i, "label")));
    json_object_set_new(o, "created",
                        acct_json_time(req->pool,
                                       acct_rows_get(rows, i, "created")));
    return o;
}

/* ------------------------------------------------------------------------
 * Backups
 * ------------------------------------------------------------------------ */

void api_db_backups_list(acct_req *req, acct_resp *resp)
{
    acct_rows *db = load_db_backups(req, resp, acct_db_when_provisioned);
    acct_list_query q;

    if (!db) {
        return;
    }
    acct_dbbackup_list_query(req->pool, acct_db_id(db), req->now,
                             render_backup, &q);
    acct_list_respond(req, resp, &q);
}

void api_db_backup_get(acct_req *req, acct_resp *resp)
{
    acct_rows *db = load_db_backups(req, resp, acct_db_when_provisioned);
    acct_rows *backup;

    if (db && (backup = load_backup(req, resp, db))) {
        acct_resp_ok(resp, req->pool, render_backup(req, backup, 0));
    }
}

void api_db_backup_delete(acct_req *req, acct_resp *resp)
{
    acct_rows *db = load_db_backups(req, resp, acct_db_when_provisioned);
    acct_rows *backup;
    acct_store_rc rc;
    int changed = 0;

    if (!db || !(backup = load_backup(req, resp, db))) {
        return;
    }
    rc = acct_dbbackup_delete(req->store, req->pool, acct_db_id(db),
                              acct_db_id(backup),
                              acct_rows_get(backup, 0, "type"),
                              req->who->username, req->now, &changed);
    if (acct_resp_changed(req, resp, rc, changed) == 0) {
        acct_resp_ok(resp, req->pool, NULL);
    }
}

/* The public API's snapshot labels: ASCII letters, digits and '_'. */
static int snapshot_label_ok(const char *s)
{
    for (; *s; s++) {
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')
              || (*s >= '0' && *s <= '9') || *s == '_')) {
            return 0;
        }
    }
    return 1;
}

/* The snapshot rules: at most ACCT_DBBACKUP_SNAPSHOT_MAX, none while a
 * backup runs. */
static int snapshot_allowed(acct_req *req, acct_resp *resp, const acct_rows *db)
{
    apr_int64_t snapshots = 0, running = 0;

    if (acct_resp_store_failed(req, resp,
                               acct_dbbackup_counts(req->store, req->pool,
                                                    acct_db_id(db), req->now,
                                                    &snapshots, &running))
        != 0) {
        return -1;
    }
    if (running > 0) {
        acct_resp_error(resp, req->pool, ACCT_HTTP_BAD_REQUEST, "Another backup is in progress; "
                        "please wait until it is complete to perform this "
                        "operation.", NULL);
        return -1;
    }
    if (snapshots >= ACCT_DBBACKUP_SNAPSHOT_MAX) {
        acct_resp_error(resp, req->pool, ACCT_HTTP_BAD_REQUEST, apr_psprintf(req->pool,
                        "A database may have at most %d snapshots; delete one "
                        "before creating another.",
                        ACCT_DBBACKUP_SNAPSHOT_MAX), NULL);
        return -1;
    }
    return 0;
}

void api_db_snapshot_create(acct_req *req, acct_resp *resp)
{
    static const char *const settable[] = {"label", "target", NULL};
    const char *label = NULL, *target = ACCT_DBBACKUP_PRIMARY;
    apr_int64_t op = req->settings->db_operation;
    acct_problems *pb;
    acct_field_rc frc;
    acct_rows *db;
    int made = 0;

    /* The database and the caller's grant first (404, 403), then the body
     * (400 per field), then its status. */
    db = api_db_of_path(req, resp, ACCT_LEVEL_READ_WRITE);
    if (!db) {
        return;
    }
    pb = acct_problems_make(req->pool);
    acct_fields_settable(req, pb, settable, NULL);
    frc = acct_field_string(req, pb, "label", 1, SNAPSHOT_LABEL_MAX, 0,
                            &label);
    acct_field_require(req, pb, "label", frc);
    if (frc == ACCT_FIELD_SET && !snapshot_label_ok(label)) {
        acct_problem_add(pb, "label", "Label must contain only ASCII letters, "
                         "digits and underscores");
    }
    acct_field_enum(req, pb, "target", acct_dbbackup_targets, &target);
    if (acct_problems_any(pb)) {
        acct_resp_problems(resp, req->pool, pb);
        return;
    }
    /* Counted before the database is taken: a concurrent snapshot that
     * could add to the counts holds it in backing_up, so acct_db_begin
     * refuses this one. */
    if (acct_resp_outcome(resp, req->pool,
                          acct_db_require_status(req->pool, db,
                                                 acct_db_when_active)) != 0
        || snapshot_allowed(req, resp, db) != 0
        || acct_resp_outcome(resp, req->pool,
                             acct_db_begin(req, &db, acct_db_when_active,
                                           ACCT_DB_BACKING_UP, ACCT_DB_ACTIVE,
                                           op,
                                           ACCT_EVENT_DATABASE_BACKUP_CREATE))
           != 0) {
        return;
    }
    /* Dated when it finishes, so hidden until then (docs/conventions.md). */
    if (acct_resp_store_failed(req, resp,
                               acct_dbbackup_snapshot_create(req->store,
                                                             req->pool,
                                                             acct_db_id(db),
                                                             label, target,
                                                             req->now + op,
                                                             &made)) != 0) {
        return;
    }
    if (!made) {
        /* Only with a zero operation time: one snapshot per second. */
        acct_resp_error(resp, req->pool, ACCT_HTTP_BAD_REQUEST, "Another backup is in progress; "
                        "please wait until it is complete to perform this "
                        "operation.", NULL);
        return;
    }
    acct_resp_ok(resp, req->pool, NULL);
}

/*
 * The data is "erased and replaced", which the emulation has none of; what
 * it keeps is the contract's warning: a backup taken before the root
 * password was reset restores into a failed cluster.  Where a restore of
 * `backup` ends, by the row `db` as it is.
 */
static const char *restore_outcome(const acct_rows *db, const acct_rows *backup)
{
    return acct_dbbackup_restore_outcome(column_i64(db, "credentials_reset"),
                                         column_i64(backup, "created"));
}

void api_db_backup_restore(acct_req *req, acct_resp *resp)
{
    acct_rows *db = load_db_backups(req, resp, acct_db_when_at_rest);
    acct_rows *backup, *was;
    apr_int64_t op = req->settings->db_operation;
    const char *next;

    if (!db || !(backup = load_backup(req, resp, db))) {
        return;
    }
    was = db;
    next = restore_outcome(db, backup);
    if (acct_resp_outcome(resp, req->pool,
                          acct_db_begin(req, &db, acct_db_when_at_rest,
                                        ACCT_DB_RESTORING, next, op,
                                        ACCT_EVENT_DATABASE_BACKUP_RESTORE))
        != 0) {
        return;
    }
    /* The status changed and came back meanwhile (db was read again), maybe
     * through a credentials reset: the outcome follows the row as it is. */
    if (db != was && strcmp(restore_outcome(db, backup), next) != 0
        && acct_resp_store_failed(req, resp,
                  acct_db_transition(req, acct_db_id(db), ACCT_DB_RESTORING,
                                     restore_outcome(db, backup), op, NULL))
           != 0) {
        return;
    }
    acct_resp_ok(resp, req->pool, NULL);
}

/* ------------------------------------------------------------------------
 * Credentials, patch, SSL
 * ------------------------------------------------------------------------ */

void api_db_credentials_get(acct_req *req, acct_resp *resp)
{
    acct_rows *db = load_db(req, resp, ACCT_LEVEL_READ_ONLY,
                            acct_db_when_active);
    const unsigned char *key;
    const char *password;
    json_t *o;

    if (!db || !(key = acct_seal_key(req, resp))) {
        return;
    }
    password = acct_unseal(req->pool, key,
                           acct_db_password_context(req->pool,
                                                    acct_rows_get(db, 0, "id")),
                           acct_rows_get(db, 0, "root_password_sealed"));
    if (!password) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00034) "cannot unseal the root password of database %s:"
                 " was AcctapiSecretKeyFile changed?",
                 acct_rows_get(db, 0, "id"));
        acct_resp_error(resp, req->pool, ACCT_HTTP_INTERNAL_SERVER_ERROR, ACCT_R_INTERNAL, NULL);
        return;
    }
    o = json_object();
    json_object_set_new(o, "username",
                        acct_json_str(acct_rows_get(db, 0, "root_username")));
    json_object_set_new(o, "password", json_string(password));
    acct_resp_ok(resp, req->pool, o);
}

/*
 * Required status: active, as for every other change of a running cluster
 * (the contract leaves it open).  The database is updating for a few
 * seconds; the new password is readable once it is active again.
 */
void api_db_credentials_reset(acct_req *req, acct_resp *resp)
{
    acct_rows *db = load_db(req, resp, ACCT_LEVEL_READ_WRITE,
                            acct_db_when_active);
    apr_int64_t seconds = req->settings->db_operation;
    const char *password, *sealed = NULL;
    const unsigned char *key;
    acct_store_rc rc;
    int changed = 0;

    if (!db || !(key = acct_seal_key(req, resp))) {
        return;
    }
    password = acct_db_password_new(req->pool);
    if (password) {
        sealed = acct_seal(req->pool, key,
                           acct_db_password_context(req->pool,
                                                    acct_rows_get(db, 0, "id")),
                           password);
    }
    if (!sealed) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00035) "cannot make a root password for database %s",
                 acct_rows_get(db, 0, "id"));
        acct_resp_error(resp, req->pool, ACCT_HTTP_INTERNAL_SERVER_ERROR, ACCT_R_INTERNAL, NULL);
        return;
    }
    if (seconds > RESET_SECONDS_MAX) {
        seconds = RESET_SECONDS_MAX;
    }
    if (acct_resp_outcome(resp, req->pool,
                          acct_db_begin(req, &db, acct_db_when_active,
                                        ACCT_DB_UPDATING, ACCT_DB_ACTIVE,
                                        seconds,
                                        ACCT_EVENT_DATABASE_CREDENTIALS_RESET))
        != 0) {
        return;
    }
    rc = acct_db_password_reset(req->store, req->pool, acct_db_id(db), sealed,
                                req->now, &changed);
    if (acct_resp_changed(req, resp, rc, changed) == 0) {
        acct_resp_ok(resp, req->pool, NULL);
    }
}

void api_db_patch(acct_req *req, acct_resp *resp)
{
    acct_rows *db = load_db(req, resp, ACCT_LEVEL_READ_WRITE,
                            acct_db_when_active);

    /* Pending updates applied: the public API has no action of its own
     * for it. */
    if (db && acct_resp_outcome(resp, req->pool,
                                acct_db_begin(req, &db, acct_db_when_active,
                                              ACCT_DB_UPDATING, ACCT_DB_ACTIVE,
                                              req->settings->db_operation,
                                              ACCT_EVENT_DATABASE_UPDATE))
              == 0) {
        acct_resp_ok(resp, req->pool, NULL);
    }
}

/* ------------------------------------------------------------------------
 * Suspend and resume (today's public API)
 * ------------------------------------------------------------------------ */

/*
 * The public API answers both with {} (linodego's recorded
 * TestDatabase_MySQL_Suite and TestDatabase_Postgres_Suite) and the
 * database moves by itself: suspending -> suspended, resuming -> active,
 * each for the operation time (acct_db_suspend, acct_db_resume).  A read_write
 * grant on the database, as for every other change.
 */
void api_db_suspend(acct_req *req, acct_resp *resp)
{
    acct_rows *db = api_db_of_path(req, resp, ACCT_LEVEL_READ_WRITE);

    if (db && acct_resp_outcome(resp, req->pool, acct_db_suspend(req, &db))
              == 0) {
        acct_resp_ok(resp, req->pool, NULL);
    }
}

void api_db_resume(acct_req *req, acct_resp *resp)
{
    acct_rows *db = api_db_of_path(req, resp, ACCT_LEVEL_READ_WRITE);

    if (db && acct_resp_outcome(resp, req->pool, acct_db_resume(req, &db))
              == 0) {
        acct_resp_ok(resp, req->pool, NULL);
    }
}

/*
 * The database's CA certificate, made on its first view (the required status
 * is active, so provisioning is over) and stored, so every later view shows
 * the same one.
 */
static const char *ca_certificate(acct_req *req, acct_resp *resp,
                                  const acct_rows *db)
{
    const char *pem = acct_rows_get(db, 0, "ca_certificate");
    apr_int64_t id = acct_db_id(db);
    acct_store_rc rc;
    int changed = 0, found = 0;

    if (pem) {
        return pem;
    }
    pem = acct_dbcert_create(req->pool, id, acct_rows_get(db, 0, "engine"),
                             acct_rows_get(db, 0, "label"), req->now);
    if (!pem) {
        acct_resp_error(resp, req->pool, ACCT_HTTP_INTERNAL_SERVER_ERROR, ACCT_R_INTERNAL, NULL);
        return NULL;
    }
    if (acct_resp_store_failed(req, resp, acct_dbcert_store(req->store,
                                                            req->pool, id, pem,
                                                            &changed)) != 0) {
        return NULL;
    }
    if (changed > 0) {
        return pem;
    }
    /* Another request stored one first: show that one. */
    rc = acct_dbcert_get(req->store, req->pool, id, &pem, &found);
    if (acct_resp_changed(req, resp, rc, found) != 0) {
        return NULL;
    }
    if (!pem) {
        acct_resp_error(resp, req->pool, ACCT_HTTP_INTERNAL_SERVER_ERROR, ACCT_R_INTERNAL, NULL);
    }
    return pem;
}

void api_db_ssl_get(acct_req *req, acct_resp *resp)
{
    acct_rows *db = load_db(req, resp, ACCT_LEVEL_READ_ONLY,
                            acct_db_when_active);
    const char *pem;
    char *b64;
    json_t *o;
    int len;

    if (!db || !(pem = ca_certificate(req, resp, db))) {
        return;
    }
    len = (int)strlen(pem);
    b64 = apr_palloc(req->pool, apr_base64_encode_len(len));
    apr_base64_encode(b64, pem, len);
    o = json_object();
    json_object_set_new(o, "ca_certificate", json_string(b64));
    acct_resp_ok(resp, req->pool, o);
}
