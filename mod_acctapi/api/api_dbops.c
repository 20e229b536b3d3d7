/*
 * Operations on one managed database, the same for both engines (DECISIONS:
 * PostgreSQL mirrors every MySQL sub-route with the same status rules):
 * backups, restore, root credentials, patch and the CA certificate.
 *
 * Automatic backups are facts of the calendar: one at every 00:00 UTC after
 * the day the database was created, each kept seven days.  Nothing runs in
 * the background, so a request that reads or uses the backups first writes
 * the rows the calendar says exist and drops the expired ones; every node
 * that does so at once writes the same rows (the UNIQUE key absorbs the
 * duplicates).  A snapshot's row is written when it is asked for, dated when
 * it finishes, and hidden until then.
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
#include "acct_body.h"
#include "acct_crypto.h"
#include "acct_db.h"
#include "acct_dbcert.h"
#include "acct_json.h"
#include "acct_list.h"
#include "acct_log.h"
#include "acct_route.h"
#include "acct_seal.h"
#include "acct_time.h"

#include <apr_base64.h>
#include <apr_strings.h>
#include <string.h>

#define DAY 86400
#define AUTO_KEEP (7 * DAY)      /* each automatic backup is kept 7 days */
#define SNAPSHOT_MAX 3
#define SNAPSHOT_LABEL_MAX 30
#define RESET_SECONDS_MAX 10     /* "takes several seconds" */

/*
 * A deleted automatic backup stays as a row marked deleted until it
 * expires: the calendar would otherwise write it again on the next read.
 * Snapshots are deleted outright.
 */

#define BACKUP_COLUMNS "id, type, label, created"

/* The backups users see: finished (dated by now) and not deleted. */
#define BACKUP_VISIBLE \
    "database_id = CAST(%s AS BIGINT) AND created <= CAST(%s AS BIGINT)" \
    " AND deleted = 0"

static const acct_sql q_backup_get = ACCT_SQL("dbbackup_get",
    "SELECT " BACKUP_COLUMNS " FROM database_backups"
    " WHERE id = CAST(%s AS BIGINT) AND " BACKUP_VISIBLE);

static const acct_sql q_auto_dates = ACCT_SQL("dbbackup_auto_dates",
    "SELECT created FROM database_backups"
    " WHERE database_id = CAST(%s AS BIGINT) AND type = 'auto'");

static const acct_sql q_auto_insert = ACCT_SQL("dbbackup_auto_insert",
    "INSERT INTO database_backups (database_id, type, label, target, created)"
    " VALUES (CAST(%s AS BIGINT), 'auto', %s, 'primary', CAST(%s AS BIGINT))"
    " ON CONFLICT (database_id, type, created) DO NOTHING");

static const acct_sql q_auto_expire = ACCT_SQL("dbbackup_auto_expire",
    "DELETE FROM database_backups WHERE database_id = CAST(%s AS BIGINT)"
    " AND type = 'auto' AND created <= CAST(%s AS BIGINT)");

static const acct_sql q_snapshot_delete = ACCT_SQL("dbbackup_snapshot_delete",
    "DELETE FROM database_backups WHERE id = CAST(%s AS BIGINT)"
    " AND type = 'snapshot' AND " BACKUP_VISIBLE);

static const acct_sql q_auto_bury = ACCT_SQL("dbbackup_auto_bury",
    "UPDATE database_backups SET deleted = 1"
    " WHERE id = CAST(%s AS BIGINT) AND type = 'auto' AND " BACKUP_VISIBLE);

/* Snapshots finished or running, and backups of any type still running. */
static const acct_sql q_snapshot_counts = ACCT_SQL("dbbackup_snapshot_counts",
    "SELECT"
    " (SELECT count(*) FROM database_backups WHERE database_id = CAST(%s AS BIGINT)"
    "  AND type = 'snapshot') AS snapshots,"
    " (SELECT count(*) FROM database_backups WHERE database_id = CAST(%s AS BIGINT)"
    "  AND created > CAST(%s AS BIGINT)) AS running");

static const acct_sql q_snapshot_insert = ACCT_SQL("dbbackup_snapshot_insert",
    "INSERT INTO database_backups (database_id, type, label, target, created)"
    " VALUES (CAST(%s AS BIGINT), 'snapshot', %s, %s, CAST(%s AS BIGINT))"
    " ON CONFLICT (database_id, type, created) DO NOTHING RETURNING id");

static const acct_sql q_password_set = ACCT_SQL("db_password_set",
    "UPDATE databases SET root_password_sealed = %s,"
    " credentials_reset = CAST(%s AS BIGINT) WHERE id = CAST(%s AS BIGINT)");

/* First writer wins: concurrent first views then agree on one certificate. */
static const acct_sql q_cert_set = ACCT_SQL("db_cert_set",
    "UPDATE databases SET ca_certificate = %s"
    " WHERE id = CAST(%s AS BIGINT) AND ca_certificate IS NULL");

static const acct_sql q_cert_get = ACCT_SQL("db_cert_get",
    "SELECT ca_certificate FROM databases WHERE id = CAST(%s AS BIGINT)");

static const acct_filter_field backup_fields[] = {
    {"type", "type", ACCT_FIELD_TEXT},
    {"created", "created", ACCT_FIELD_TIME},
    {NULL, NULL, 0}
};

/* The required-status table (the contract's, extended to PostgreSQL). */
static const char *const st_active[] = {"active", NULL};
static const char *const st_restorable[] = {"active", "degraded", "failed",
                                            NULL};
static const char *const st_provisioned[] = {
    "active", "suspending", "suspended", "resuming", "restoring", "failed",
    "degraded", "updating", "backing_up", NULL
};

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
    acct_rows *db = acct_db_load(req, resp, 0, req->route->param, need);

    if (!db || acct_db_require_status(req, resp, db, allowed) != 0) {
        return NULL;
    }
    return db;
}

/* The first 00:00 UTC strictly after `t`. */
static apr_int64_t next_midnight(apr_int64_t t)
{
    return t - ((t % DAY) + DAY) % DAY + DAY;
}

/* "auto20240105": the contract's labels are ASCII letters and digits. */
static const char *auto_label(apr_pool_t *pool, apr_int64_t midnight)
{
    const char *ts = acct_format_timestamp(pool, midnight);

    return apr_pstrcat(pool, "auto", apr_pstrmemdup(pool, ts, 4),
                       apr_pstrmemdup(pool, ts + 5, 2),
                       apr_pstrmemdup(pool, ts + 8, 2), NULL);
}

static int has_date(const acct_rows *rows, apr_int64_t when)
{
    apr_int64_t v;
    int i;

    for (i = 0; i < rows->nrows; i++) {
        if (acct_parse_i64(acct_rows_get(rows, i, "created"), &v) == 0
            && v == when) {
            return 1;
        }
    }
    return 0;
}

/*
 * Brings the automatic backups of `db` up to req->now: one per midnight
 * after its creation day within the last seven days (so at most seven),
 * none older.  One read when nothing is due.  0, or -1 once answered.
 */
static int materialise(acct_req *req, acct_resp *resp, const acct_rows *db)
{
    apr_int64_t oldest = req->now - AUTO_KEEP, m, expired = 0, v;
    const char *args[3];
    acct_rows *have = NULL;
    int i;

    args[0] = acct_rows_get(db, 0, "id");
    if (acct_resp_store_failed(req, resp, acct_store_select(req->store, req->pool,
                                            &q_auto_dates, &have, 1, args))
        != 0) {
        return -1;
    }
    for (i = 0; i < have->nrows; i++) {
        expired |= acct_parse_i64(acct_rows_get(have, i, "created"), &v) == 0
                   && v <= oldest;
    }
    if (expired) {
        args[1] = acct_i64(req->pool, oldest);
        if (acct_resp_store_failed(req, resp, acct_store_exec(req->store, req->pool,
                                              &q_auto_expire, NULL, 2, args))
            != 0) {
            return -1;
        }
    }
    m = next_midnight(column_i64(db, "created"));
    if (m <= oldest) {
        m = next_midnight(oldest);
    }
    for (; m <= req->now; m += DAY) {
        if (has_date(have, m)) {
            continue;
        }
        args[1] = auto_label(req->pool, m);
        args[2] = acct_i64(req->pool, m);
        if (acct_resp_store_failed(req, resp, acct_store_exec(req->store, req->pool,
                                              &q_auto_insert, NULL, 3, args))
            != 0) {
            return -1;
        }
    }
    return 0;
}

/* A database whose backups may be read or used: loaded, checked, its
 * automatic backups brought up to date.  NULL once answered. */
static acct_rows *load_db_backups(acct_req *req, acct_resp *resp,
                                  const char *const *allowed)
{
    acct_rows *db = load_db(req, resp, ACCT_LEVEL_READ_WRITE, allowed);

    return db && materialise(req, resp, db) == 0 ? db : NULL;
}

/* The backup of the path (parameter 1) as users see it, else 404. */
static acct_rows *load_backup(acct_req *req, acct_resp *resp,
                              const acct_rows *db)
{
    const char *args[3];
    apr_int64_t id;

    if (acct_path_id(req, resp, 1, &id) != 0) {
        return NULL;
    }
    args[0] = acct_i64(req->pool, id);
    args[1] = acct_rows_get(db, 0, "id");
    args[2] = acct_i64(req->pool, req->now);
    return acct_req_row(req, resp, &q_backup_get, 3, args);
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
    const char *args[2];
    acct_list_query q = {BACKUP_COLUMNS, "database_backups", BACKUP_VISIBLE,
                         2, args, backup_fields, "id", render_backup};
    acct_rows *db = load_db_backups(req, resp, st_provisioned);

    if (!db) {
        return;
    }
    args[0] = acct_rows_get(db, 0, "id");
    args[1] = acct_i64(req->pool, req->now);
    acct_list_respond(req, resp, &q);
}

void api_db_backup_get(acct_req *req, acct_resp *resp)
{
    acct_rows *db = load_db_backups(req, resp, st_provisioned), *backup;

    if (db && (backup = load_backup(req, resp, db))) {
        acct_resp_ok(resp, req->pool, render_backup(req, backup, 0));
    }
}

void api_db_backup_delete(acct_req *req, acct_resp *resp)
{
    acct_rows *db = load_db_backups(req, resp, st_provisioned), *backup;
    const char *args[3];

    if (!db || !(backup = load_backup(req, resp, db))) {
        return;
    }
    args[0] = acct_rows_get(backup, 0, "id");
    args[1] = acct_rows_get(db, 0, "id");
    args[2] = acct_i64(req->pool, req->now);
    if (acct_req_change(req, resp,
                        strcmp(acct_rows_get(backup, 0, "type"), "auto") == 0
                            ? &q_auto_bury : &q_snapshot_delete,
                        3, args) == 0) {
        acct_resp_ok(resp, req->pool, NULL);
    }
}

static int ascii_alnum(const char *s)
{
    for (; *s; s++) {
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')
              || (*s >= '0' && *s <= '9'))) {
            return 0;
        }
    }
    return 1;
}

/* The snapshot rules: at most SNAPSHOT_MAX, none while a backup runs. */
static int snapshot_allowed(acct_req *req, acct_resp *resp, const acct_rows *db)
{
    const char *args[3];
    acct_rows *counts = NULL;

    args[0] = args[1] = acct_rows_get(db, 0, "id");
    args[2] = acct_i64(req->pool, req->now);
    if (acct_resp_store_failed(req, resp, acct_store_select(req->store, req->pool,
                                            &q_snapshot_counts, &counts, 3,
                                            args)) != 0) {
        return -1;
    }
    if (column_i64(counts, "running") > 0) {
        acct_resp_error(resp, req->pool, 400, "Another backup is in progress; "
                        "please wait until it is complete to perform this "
                        "operation.", NULL);
        return -1;
    }
    if (column_i64(counts, "snapshots") >= SNAPSHOT_MAX) {
        acct_resp_error(resp, req->pool, 400, apr_psprintf(req->pool,
                        "A database may have at most %d snapshots; delete one "
                        "before creating another.", SNAPSHOT_MAX), NULL);
        return -1;
    }
    return 0;
}

void api_db_snapshot_create(acct_req *req, acct_resp *resp)
{
    static const char *const fields[] = {"label", "target", NULL};
    static const char *const targets[] = {"primary", "secondary", NULL};
    const char *label = NULL, *target = "primary", *args[4];
    apr_int64_t op = req->settings->db_operation;
    acct_field_rc frc;
    acct_rows *db, *made = NULL;

    /* The database and the caller's grant first (404, 403), then the body
     * (400 per field), then its status. */
    db = acct_db_load(req, resp, 0, req->route->param, ACCT_LEVEL_READ_WRITE);
    if (!db) {
        return;
    }
    acct_body_only(req, resp, fields);
    frc = acct_body_string(req, resp, "label", 1, SNAPSHOT_LABEL_MAX, 0, &label);
    acct_body_require(req, resp, "label", frc);
    if (frc == ACCT_FIELD_SET && !ascii_alnum(label)) {
        acct_resp_invalid(resp, req->pool, "label",
                          "Label must contain only ASCII letters and digits");
    }
    acct_body_enum(req, resp, "target", targets, &target);
    /* Counted before the database is taken: a concurrent snapshot that
     * could add to the counts holds it in backing_up, so acct_db_begin
     * refuses this one. */
    if (acct_resp_failed(resp)
        || acct_db_require_status(req, resp, db, st_active) != 0
        || snapshot_allowed(req, resp, db) != 0
        || acct_db_begin(req, resp, &db, st_active, "backing_up", "active",
                         op) != 0) {
        return;
    }
    /* Dated when it finishes, so hidden until then (DECISIONS). */
    args[0] = acct_rows_get(db, 0, "id");
    args[1] = label;
    args[2] = target;
    args[3] = acct_i64(req->pool, req->now + op);
    if (acct_resp_store_failed(req, resp, acct_store_select(req->store, req->pool,
                                            &q_snapshot_insert, &made, 4,
                                            args)) != 0) {
        return;
    }
    if (made->nrows == 0) {
        /* Only with a zero operation time: one snapshot per second. */
        acct_resp_error(resp, req->pool, 400, "Another backup is in progress; "
                        "please wait until it is complete to perform this "
                        "operation.", NULL);
        return;
    }
    acct_resp_ok(resp, req->pool, NULL);
}

/*
 * The data is "erased and replaced", which the emulation has none of; what
 * it keeps is the contract's warning: a backup taken before the root
 * password was reset restores into a failed cluster.
 */
/* Where a restore of `backup` ends: failed if the root password was reset
 * after the backup was taken. */
static const char *restore_outcome(const acct_rows *db, const acct_rows *backup)
{
    apr_int64_t reset = column_i64(db, "credentials_reset");

    return reset && reset > column_i64(backup, "created") ? "failed" : "active";
}

void api_db_backup_restore(acct_req *req, acct_resp *resp)
{
    acct_rows *db = load_db_backups(req, resp, st_restorable), *backup, *was;
    apr_int64_t op = req->settings->db_operation;
    const char *next;

    if (!db || !(backup = load_backup(req, resp, db))) {
        return;
    }
    was = db;
    next = restore_outcome(db, backup);
    if (acct_db_begin(req, resp, &db, st_restorable, "restoring", next, op)
        != 0) {
        return;
    }
    /* The status changed and came back meanwhile (db was read again), maybe
     * through a credentials reset: the outcome follows the row as it is. */
    if (db != was && strcmp(restore_outcome(db, backup), next) != 0
        && acct_resp_store_failed(req, resp,
                  acct_db_transition(req, column_i64(db, "id"), "restoring",
                                     restore_outcome(db, backup), op)) != 0) {
        return;
    }
    acct_resp_ok(resp, req->pool, NULL);
}

/* ------------------------------------------------------------------------
 * Credentials, patch, SSL
 * ------------------------------------------------------------------------ */

void api_db_credentials_get(acct_req *req, acct_resp *resp)
{
    acct_rows *db = load_db(req, resp, ACCT_LEVEL_READ_ONLY, st_active);
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
        acct_resp_error(resp, req->pool, 500, ACCT_R_INTERNAL, NULL);
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
    acct_rows *db = load_db(req, resp, ACCT_LEVEL_READ_WRITE, st_active);
    apr_int64_t seconds = req->settings->db_operation;
    const char *password, *sealed = NULL, *args[3];
    const unsigned char *key;

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
        acct_resp_error(resp, req->pool, 500, ACCT_R_INTERNAL, NULL);
        return;
    }
    if (seconds > RESET_SECONDS_MAX) {
        seconds = RESET_SECONDS_MAX;
    }
    if (acct_db_begin(req, resp, &db, st_active, "updating", "active",
                      seconds) != 0) {
        return;
    }
    args[0] = sealed;
    args[1] = acct_i64(req->pool, req->now);
    args[2] = acct_rows_get(db, 0, "id");
    if (acct_req_change(req, resp, &q_password_set, 3, args) == 0) {
        acct_resp_ok(resp, req->pool, NULL);
    }
}

void api_db_patch(acct_req *req, acct_resp *resp)
{
    acct_rows *db = load_db(req, resp, ACCT_LEVEL_READ_WRITE, st_active);

    if (db && acct_db_begin(req, resp, &db, st_active, "updating", "active",
                            req->settings->db_operation) == 0) {
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
    const char *pem = acct_rows_get(db, 0, "ca_certificate"), *args[2];
    acct_rows *rows;
    int changed = 0;

    if (pem) {
        return pem;
    }
    pem = acct_dbcert_create(req->pool, column_i64(db, "id"),
                             acct_rows_get(db, 0, "engine"),
                             acct_rows_get(db, 0, "label"), req->now);
    if (!pem) {
        acct_resp_error(resp, req->pool, 500, ACCT_R_INTERNAL, NULL);
        return NULL;
    }
    args[0] = pem;
    args[1] = acct_rows_get(db, 0, "id");
    if (acct_resp_store_failed(req, resp, acct_store_exec(req->store, req->pool, &q_cert_set,
                                          &changed, 2, args)) != 0) {
        return NULL;
    }
    if (changed > 0) {
        return pem;
    }
    /* Another request stored one first: show that one. */
    rows = acct_req_row(req, resp, &q_cert_get, 1, args + 1);
    if (rows && !(pem = acct_rows_get(rows, 0, "ca_certificate"))) {
        acct_resp_error(resp, req->pool, 500, ACCT_R_INTERNAL, NULL);
    }
    return rows ? pem : NULL;
}

void api_db_ssl_get(acct_req *req, acct_resp *resp)
{
    acct_rows *db = load_db(req, resp, ACCT_LEVEL_READ_ONLY, st_active);
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
