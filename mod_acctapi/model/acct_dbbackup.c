#include "acct_dbbackup.h"
#include "acct_event.h"
#include "acct_db.h"
#include "acct_time.h"

#include <apr_strings.h>
#include <string.h>

#define DAY 86400

const char *const acct_dbbackup_targets[] = {ACCT_DBBACKUP_PRIMARY,
                                             ACCT_DBBACKUP_SECONDARY, NULL};

#define BACKUP_COLUMNS "id, type, label, created"

/* The backups users see: finished (dated by now) and not deleted. */
#define BACKUP_VISIBLE \
    "database_id = CAST(%s AS BIGINT) AND created <= CAST(%s AS BIGINT)" \
    " AND deleted = 0"

static const acct_sql q_get = ACCT_SQL("dbbackup_get",
    "SELECT " BACKUP_COLUMNS " FROM database_backups"
    " WHERE id = CAST(%s AS BIGINT) AND " BACKUP_VISIBLE);

static const acct_sql q_auto_dates = ACCT_SQL("dbbackup_auto_dates",
    "SELECT created FROM database_backups"
    " WHERE database_id = CAST(%s AS BIGINT) AND type = '"
    ACCT_DBBACKUP_AUTO "'");

static const acct_sql q_auto_insert = ACCT_SQL("dbbackup_auto_insert",
    "INSERT INTO database_backups (database_id, type, label, target, created)"
    " VALUES (CAST(%s AS BIGINT), '" ACCT_DBBACKUP_AUTO "', %s,"
    " '" ACCT_DBBACKUP_PRIMARY "', CAST(%s AS BIGINT))"
    " ON CONFLICT (database_id, type, created) DO NOTHING");

static const acct_sql q_auto_expire = ACCT_SQL("dbbackup_auto_expire",
    "DELETE FROM database_backups WHERE database_id = CAST(%s AS BIGINT)"
    " AND type = '" ACCT_DBBACKUP_AUTO "' AND created <= CAST(%s AS BIGINT)");

static const acct_sql q_snapshot_delete = ACCT_SQL("dbbackup_snapshot_delete",
    "DELETE FROM database_backups WHERE id = CAST(%s AS BIGINT)"
    " AND type = '" ACCT_DBBACKUP_SNAPSHOT "' AND " BACKUP_VISIBLE);

static const acct_sql q_auto_bury = ACCT_SQL("dbbackup_auto_bury",
    "UPDATE database_backups SET deleted = 1"
    " WHERE id = CAST(%s AS BIGINT) AND type = '" ACCT_DBBACKUP_AUTO "'"
    " AND " BACKUP_VISIBLE);

/* Snapshots finished or running, and backups of any type still running. */
static const acct_sql q_counts = ACCT_SQL("dbbackup_snapshot_counts",
    "SELECT"
    " (SELECT count(*) FROM database_backups WHERE database_id = CAST(%s AS BIGINT)"
    "  AND type = '" ACCT_DBBACKUP_SNAPSHOT "') AS snapshots,"
    " (SELECT count(*) FROM database_backups WHERE database_id = CAST(%s AS BIGINT)"
    "  AND created > CAST(%s AS BIGINT)) AS running");

static const acct_sql q_snapshot_insert = ACCT_SQL("dbbackup_snapshot_insert",
    "INSERT INTO database_backups (database_id, type, label, target, created)"
    " VALUES (CAST(%s AS BIGINT), '" ACCT_DBBACKUP_SNAPSHOT "', %s, %s,"
    " CAST(%s AS BIGINT))"
    " ON CONFLICT (database_id, type, created) DO NOTHING RETURNING id");

static const acct_filter_field list_fields[] = {
    {"type", "type", ACCT_FIELD_TEXT},
    {"created", "created", ACCT_FIELD_TIME},
    {NULL, NULL, 0}
};

/* The first 00:00 UTC strictly after `t`. */
static apr_int64_t next_midnight(apr_int64_t t)
{
    return t - ((t % DAY) + DAY) % DAY + DAY;
}

const char *acct_dbbackup_auto_label(apr_pool_t *pool, apr_int64_t midnight)
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

acct_store_rc acct_dbbackup_materialise(acct_store *st, apr_pool_t *pool,
                                        apr_int64_t db_id,
                                        apr_int64_t db_created,
                                        apr_int64_t now)
{
    apr_int64_t oldest = now - ACCT_DBBACKUP_AUTO_KEEP, m, v;
    const char *args[3];
    acct_rows *have = NULL;
    acct_store_rc rc;
    int i, expired = 0;

    args[0] = acct_i64(pool, db_id);
    rc = acct_store_select(st, pool, &q_auto_dates, &have, 1, args);
    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    for (i = 0; i < have->nrows; i++) {
        expired |= acct_parse_i64(acct_rows_get(have, i, "created"), &v) == 0
                   && v <= oldest;
    }
    if (expired) {
        args[1] = acct_i64(pool, oldest);
        rc = acct_store_exec(st, pool, &q_auto_expire, NULL, 2, args);
        if (rc != ACCT_STORE_OK) {
            return rc;
        }
    }
    m = next_midnight(db_created);
    if (m <= oldest) {
        m = next_midnight(oldest);
    }
    for (; m <= now; m += DAY) {
        if (has_date(have, m)) {
            continue;
        }
        args[1] = acct_dbbackup_auto_label(pool, m);
        args[2] = acct_i64(pool, m);
        rc = acct_store_exec(st, pool, &q_auto_insert, NULL, 3, args);
        if (rc != ACCT_STORE_OK) {
            return rc;
        }
    }
    return ACCT_STORE_OK;
}

acct_store_rc acct_dbbackup_get(acct_store *st, apr_pool_t *pool,
                                apr_int64_t db_id, apr_int64_t id,
                                apr_int64_t now, acct_rows **rows)
{
    const char *args[3];

    args[0] = acct_i64(pool, id);
    args[1] = acct_i64(pool, db_id);
    args[2] = acct_i64(pool, now);
    *rows = NULL;
    return acct_store_select(st, pool, &q_get, rows, 3, args);
}

void acct_dbbackup_list_query(apr_pool_t *pool, apr_int64_t db_id,
                              apr_int64_t now, acct_render_row *render,
                              acct_list_query *q)
{
    const char **args = apr_palloc(pool, 2 * sizeof(*args));

    memset(q, 0, sizeof(*q));
    q->columns = BACKUP_COLUMNS;
    q->from = "database_backups";
    q->where = BACKUP_VISIBLE;
    q->nargs = 2;
    q->args = args;
    q->fields = list_fields;
    q->stable_order = "id";
    q->render = render;
    args[0] = acct_i64(pool, db_id);
    args[1] = acct_i64(pool, now);
}

acct_store_rc acct_dbbackup_delete(acct_store *st, apr_pool_t *pool,
                                   apr_int64_t db_id, apr_int64_t id,
                                   const char *type, const char *username,
                                   apr_int64_t now, int *changed)
{
    const char *args[3];
    acct_store_rc rc;

    args[0] = acct_i64(pool, id);
    args[1] = acct_i64(pool, db_id);
    args[2] = acct_i64(pool, now);
    rc = acct_store_exec(st, pool,
                         strcmp(type, ACCT_DBBACKUP_AUTO) == 0
                             ? &q_auto_bury : &q_snapshot_delete,
                         changed, 3, args);
    if (rc != ACCT_STORE_OK || *changed == 0) {
        return rc;
    }
    return acct_event_database(st, pool, db_id,
                               ACCT_EVENT_DATABASE_BACKUP_DELETE, username,
                               now);
}

acct_store_rc acct_dbbackup_counts(acct_store *st, apr_pool_t *pool,
                                   apr_int64_t db_id, apr_int64_t now,
                                   apr_int64_t *snapshots,
                                   apr_int64_t *running)
{
    const char *args[3];
    acct_rows *counts = NULL;
    acct_store_rc rc;

    args[0] = args[1] = acct_i64(pool, db_id);
    args[2] = acct_i64(pool, now);
    *snapshots = *running = 0;
    rc = acct_store_select(st, pool, &q_counts, &counts, 3, args);
    if (rc == ACCT_STORE_OK) {
        acct_parse_i64(acct_rows_get(counts, 0, "snapshots"), snapshots);
        acct_parse_i64(acct_rows_get(counts, 0, "running"), running);
    }
    return rc;
}

acct_store_rc acct_dbbackup_snapshot_create(acct_store *st, apr_pool_t *pool,
                                            apr_int64_t db_id,
                                            const char *label,
                                            const char *target,
                                            apr_int64_t finished, int *made)
{
    const char *args[4];
    acct_rows *rows = NULL;
    acct_store_rc rc;

    args[0] = acct_i64(pool, db_id);
    args[1] = label;
    args[2] = target;
    args[3] = acct_i64(pool, finished);
    rc = acct_store_select(st, pool, &q_snapshot_insert, &rows, 4, args);
    *made = rc == ACCT_STORE_OK && rows->nrows > 0;
    return rc;
}

const char *acct_dbbackup_restore_outcome(apr_int64_t credentials_reset,
                                          apr_int64_t backup_created)
{
    return credentials_reset && credentials_reset > backup_created
           ? ACCT_DB_FAILED : ACCT_DB_ACTIVE;
}
