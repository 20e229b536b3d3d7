#include "acct_db.h"
#include "acct_crypto.h"
#include "acct_grants.h"

#include <apr_strings.h>
#include <string.h>

/*
 * Provisioning completing is when hosts are assigned (DECISIONS: null until
 * then).  SET expressions read the row as it was, so `status` below is the
 * status being left.
 */
static const acct_sql q_settle = ACCT_SQL("db_settle",
    "UPDATE databases SET"
    " host_primary = CASE WHEN status = 'provisioning' AND host_primary IS NULL"
    "   THEN 'lin-' || account_id || '-' || id || '-' || engine || '-primary.'"
    "        || %s ELSE host_primary END,"
    " host_secondary = CASE WHEN status = 'provisioning' AND host_secondary IS NULL"
    "   THEN 'lin-' || account_id || '-' || id || '-' || engine"
    "        || '-primary-private.' || %s ELSE host_secondary END,"
    " status = status_next, status_next = NULL, status_due = NULL,"
    " updated = status_due"
    " WHERE account_id = CAST(%s AS BIGINT) AND status_due IS NOT NULL"
    " AND status_due <= CAST(%s AS BIGINT)");

static const acct_sql q_load = ACCT_SQL("db_load",
    "SELECT " ACCT_DB_COLUMNS " FROM databases db"
    " WHERE db.id = CAST(%s AS BIGINT) AND db.account_id = CAST(%s AS BIGINT)"
    " AND (CAST(%s AS TEXT) IS NULL OR db.engine = %s)");

#define TRANSITION_SET \
    "UPDATE databases SET status = %s, status_next = %s," \
    " status_due = CAST(%s AS BIGINT), updated = CAST(%s AS BIGINT)" \
    " WHERE id = CAST(%s AS BIGINT)"

static const acct_sql q_transition = ACCT_SQL("db_transition",
    TRANSITION_SET);

static const acct_sql q_transition_if = ACCT_SQL("db_transition_if",
    TRANSITION_SET " AND " ACCT_DB_STATUS_IN);

/* A status-bound statement that changed nothing is retried this often when
 * the database is found back in an allowed status (see acct_db_change). */
#define CHANGE_ATTEMPTS 3

acct_store_rc acct_db_settle(acct_req *req)
{
    const char *args[4];
    acct_store *st = NULL;
    acct_store_rc rc = acct_req_store(req, &st);

    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    args[0] = args[1] = req->settings->db_host_suffix;
    args[2] = acct_i64(req->pool, req->who->account_id);
    args[3] = acct_i64(req->pool, req->now);
    return acct_store_exec(st, req->pool, &q_settle, NULL, 4, args);
}

acct_rows *acct_db_load(acct_req *req, acct_resp *resp, int index,
                        const char *engine, acct_level need)
{
    const char *args[4];
    acct_store_rc rc;
    acct_rows *rows;
    apr_int64_t id;

    if (acct_path_id(req, resp, index, &id) != 0) {
        return NULL;
    }
    rc = acct_db_settle(req);
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return NULL;
    }
    args[0] = acct_i64(req->pool, id);
    args[1] = acct_i64(req->pool, req->who->account_id);
    args[2] = args[3] = engine;
    rows = acct_req_row(req, resp, &q_load, 4, args);
    if (!rows
        || acct_grant_require(req, resp, ACCT_ENTITY_DATABASE, id, need) != 0) {
        return NULL;
    }
    return rows;
}

/* What a user is waiting for in each transient status. */
static const char *awaited(const char *status)
{
    static const char *const words[][2] = {
        {"provisioning", "provisioning"}, {"updating", "the update"},
        {"backing_up", "the backup"}, {"restoring", "the restore"},
        {"resuming", "resuming"}, {"suspending", "suspending"},
    };
    size_t i;

    for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (strcmp(words[i][0], status) == 0) {
            return words[i][1];
        }
    }
    return NULL;
}

int acct_db_require_status(acct_req *req, acct_resp *resp,
                           const acct_rows *db, const char *const *allowed)
{
    const char *status = acct_rows_get(db, 0, "status"), *wait;
    const char *const *a;

    for (a = allowed; *a; a++) {
        if (status && strcmp(*a, status) == 0) {
            return 0;
        }
    }
    wait = status ? awaited(status) : NULL;
    acct_resp_error(resp, req->pool, 400,
                    wait ? apr_psprintf(req->pool, "Your database is %s; please "
                                        "wait until %s is complete to perform "
                                        "this operation.", status, wait)
                         : apr_psprintf(req->pool, "Your database is %s; this "
                                        "operation is not available in that "
                                        "status.", status ? status : "unknown"),
                    NULL);
    return -1;
}

/* The five arguments of TRANSITION_SET. */
static void transition_args(acct_req *req, apr_int64_t id, const char *status,
                            const char *next, apr_int64_t seconds,
                            const char **args)
{
    int scheduled = next && !req->settings->db_external;

    args[0] = status;
    args[1] = scheduled ? next : NULL;
    args[2] = scheduled ? acct_i64(req->pool, req->now + seconds) : NULL;
    args[3] = acct_i64(req->pool, req->now);
    args[4] = acct_i64(req->pool, id);
}

acct_store_rc acct_db_transition(acct_req *req, apr_int64_t id,
                                 const char *status, const char *next,
                                 apr_int64_t seconds)
{
    const char *args[5];
    acct_store *st = NULL;
    acct_store_rc rc = acct_req_store(req, &st);

    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    transition_args(req, id, status, next, seconds, args);
    return acct_store_exec(st, req->pool, &q_transition, NULL, 5, args);
}

int acct_db_change(acct_req *req, acct_resp *resp, acct_rows **db,
                   const char *const *allowed, const acct_sql *sql,
                   int nargs, const char *const *args)
{
    const char **all = apr_palloc(req->pool, (apr_size_t)(nargs
                                  + ACCT_DB_STATUS_SLOTS) * sizeof(*all));
    const char *load[4];
    acct_store *st = NULL;
    acct_store_rc rc;
    int i, n, attempt, changed;

    memcpy(all, args, (apr_size_t)nargs * sizeof(*all));
    /* Unused slots are NULL, which no status equals. */
    for (i = n = 0; i < ACCT_DB_STATUS_SLOTS; i++) {
        all[nargs + i] = allowed[n] ? allowed[n++] : NULL;
    }
    load[0] = acct_rows_get(*db, 0, "id");
    load[1] = acct_i64(req->pool, req->who->account_id);
    load[2] = load[3] = NULL;
    for (attempt = 0; attempt < CHANGE_ATTEMPTS; attempt++) {
        if (acct_db_require_status(req, resp, *db, allowed) != 0) {
            return -1;
        }
        changed = 0;
        rc = acct_req_store(req, &st);
        if (rc == ACCT_STORE_OK) {
            rc = acct_store_exec(st, req->pool, sql, &changed,
                                 nargs + ACCT_DB_STATUS_SLOTS, all);
        }
        if (rc != ACCT_STORE_OK) {
            acct_resp_store_error(resp, req->pool, rc);
            return -1;
        }
        if (changed > 0) {
            return 0;
        }
        /* Another request changed the status first and has committed: the
         * row as it is now says why this one lost (404 once deleted). */
        if (!(*db = acct_req_row(req, resp, &q_load, 4, load))) {
            return -1;
        }
    }
    /* Found back in an allowed status each time: the client may retry. */
    acct_resp_store_error(resp, req->pool, ACCT_STORE_UNAVAILABLE);
    return -1;
}

int acct_db_begin(acct_req *req, acct_resp *resp, acct_rows **db,
                  const char *const *allowed, const char *status,
                  const char *next, apr_int64_t seconds)
{
    const char *args[5];
    apr_int64_t id = 0;

    acct_parse_i64(acct_rows_get(*db, 0, "id"), &id);
    transition_args(req, id, status, next, seconds, args);
    return acct_db_change(req, resp, db, allowed, &q_transition_if, 5, args);
}

const char *acct_db_password_new(apr_pool_t *pool)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    const size_t n = sizeof(alphabet) - 1;
    /* Bytes at or above the last multiple of n would favour some letters. */
    const unsigned limit = 256 - 256 % n;
    char *out = apr_palloc(pool, ACCT_DB_PASSWORD_LEN + 1);
    unsigned char buf[64];
    size_t len = 0, i;

    while (len < ACCT_DB_PASSWORD_LEN) {
        if (acct_random_bytes(buf, sizeof(buf)) != 0) {
            return NULL;
        }
        for (i = 0; i < sizeof(buf) && len < ACCT_DB_PASSWORD_LEN; i++) {
            if (buf[i] < limit) {
                out[len++] = alphabet[buf[i] % n];
            }
        }
    }
    memset(buf, 0, sizeof(buf));
    out[len] = '\0';
    return out;
}

const char *acct_db_password_context(apr_pool_t *pool, const char *id)
{
    return apr_pstrcat(pool, "dbpass:", id, NULL);
}
