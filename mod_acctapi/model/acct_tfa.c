#include "acct_tfa.h"
#include "acct_event.h"
#include "acct_ident.h"

#include <apr_strings.h>
#include <string.h>

static const acct_sql q_enable_state = ACCT_SQL("tfa_enable_state",
    "SELECT two_factor_auth,"
    " (SELECT COUNT(*) FROM security_answers a WHERE a.user_id = u.id)"
    " AS answered"
    " FROM users u WHERE u.id = CAST(%s AS BIGINT)");

/* A new secret replaces a pending one; the wrong-code count stays. */
static const acct_sql q_pending_put = ACCT_SQL("tfa_pending_put",
    "INSERT INTO tfa_secrets (user_id, secret_sealed, expiry)"
    " VALUES (CAST(%s AS BIGINT), %s, CAST(%s AS BIGINT))"
    " ON CONFLICT (user_id) DO UPDATE SET"
    " secret_sealed = excluded.secret_sealed, expiry = excluded.expiry,"
    " confirmed = 0, last_step = 0, scratch_hash = NULL");

static const acct_sql q_secret = ACCT_SQL("tfa_secret",
    "SELECT u.two_factor_auth, t.secret_sealed, t.expiry, t.confirmed,"
    " t.last_step, t.failed_window"
    " FROM users u LEFT JOIN tfa_secrets t ON t.user_id = u.id"
    " WHERE u.id = CAST(%s AS BIGINT)");

/*
 * Takes one attempt from the user's allowance, or none when it is used up
 * (no row changed).  A window older than ACCT_TFA_FAILURE_WINDOW starts
 * afresh.  Arguments: window start limit (now - ACCT_TFA_FAILURE_WINDOW)
 * twice, now, user, the limit again, ACCT_TFA_MAX_FAILURES.
 */
static const acct_sql q_attempt = ACCT_SQL("tfa_attempt",
    "UPDATE tfa_secrets SET"
    " failed_attempts = CASE WHEN failed_window <= CAST(%s AS BIGINT)"
    " THEN 1 ELSE failed_attempts + 1 END,"
    " failed_window = CASE WHEN failed_window <= CAST(%s AS BIGINT)"
    " THEN CAST(%s AS BIGINT) ELSE failed_window END"
    " WHERE user_id = CAST(%s AS BIGINT)"
    " AND (failed_window <= CAST(%s AS BIGINT)"
    " OR failed_attempts < CAST(%s AS INTEGER))");

/* The race-safe acceptance: of two uses of one step, one changes the row. */
static const acct_sql q_confirm = ACCT_SQL("tfa_confirm",
    "UPDATE tfa_secrets SET confirmed = 1, last_step = CAST(%s AS BIGINT),"
    " scratch_hash = %s, failed_attempts = 0, failed_window = 0"
    " WHERE user_id = CAST(%s AS BIGINT) AND confirmed = 0"
    " AND last_step < CAST(%s AS BIGINT)");

static const acct_sql q_user_tfa = ACCT_SQL("tfa_user_flag",
    "UPDATE users SET two_factor_auth = CAST(%s AS INTEGER)"
    " WHERE id = CAST(%s AS BIGINT)");

static const acct_sql q_secret_delete = ACCT_SQL("tfa_secret_delete",
    "DELETE FROM tfa_secrets WHERE user_id = CAST(%s AS BIGINT)");

const char *acct_tfa_secret_context(apr_pool_t *pool, apr_int64_t uid)
{
    return apr_psprintf(pool, "tfa:%" APR_INT64_T_FMT, uid);
}

/* A boolean column as both backends return it ("1"/"0", "t"/"f"). */
static int flag_on(const char *column)
{
    return column && strcmp(column, "0") != 0 && strcmp(column, "f") != 0;
}

/* A number column, 0 when NULL or unreadable. */
static apr_int64_t number(const acct_rows *rows, const char *column)
{
    apr_int64_t v = 0;

    if (acct_parse_i64(acct_rows_get(rows, 0, column), &v) != 0) {
        v = 0;
    }
    return v;
}

/* Locks the user's row, then runs `sql` about them. */
static acct_store_rc select_locked(acct_store *st, apr_pool_t *pool,
                                   apr_int64_t uid, const acct_sql *sql,
                                   acct_tfa_state *out, acct_rows **rows)
{
    const char *args[1];
    acct_store_rc rc;

    memset(out, 0, sizeof(*out));
    rc = acct_user_lock(st, pool, uid);
    if (rc == ACCT_STORE_OK) {
        args[0] = acct_i64(pool, uid);
        rc = acct_store_select(st, pool, sql, rows, 1, args);
    }
    if (rc == ACCT_STORE_OK && (*rows)->nrows > 0) {
        out->found = 1;
        out->enabled = flag_on(acct_rows_get(*rows, 0, "two_factor_auth"));
    }
    return rc;
}

acct_store_rc acct_tfa_enable_state(acct_store *st, apr_pool_t *pool,
                                    apr_int64_t uid, acct_tfa_state *out)
{
    acct_rows *rows = NULL;
    acct_store_rc rc = select_locked(st, pool, uid, &q_enable_state, out,
                                     &rows);

    if (out->found) {
        out->answered = number(rows, "answered");
    }
    return rc;
}

acct_store_rc acct_tfa_secret_state(acct_store *st, apr_pool_t *pool,
                                    apr_int64_t uid, acct_tfa_state *out)
{
    acct_rows *rows = NULL;
    acct_store_rc rc = select_locked(st, pool, uid, &q_secret, out, &rows);

    if (out->found) {
        out->secret_sealed = acct_rows_get(rows, 0, "secret_sealed");
        out->confirmed = flag_on(acct_rows_get(rows, 0, "confirmed"));
        out->expiry = number(rows, "expiry");
        out->last_step = number(rows, "last_step");
        out->failed_window = number(rows, "failed_window");
    }
    return rc;
}

acct_store_rc acct_tfa_secret_issue(acct_store *st, apr_pool_t *pool,
                                    apr_int64_t uid, const char *sealed,
                                    apr_int64_t expiry)
{
    const char *args[3];

    args[0] = acct_i64(pool, uid);
    args[1] = sealed;
    args[2] = acct_i64(pool, expiry);
    return acct_store_exec(st, pool, &q_pending_put, NULL, 3, args);
}

acct_store_rc acct_tfa_attempt_take(acct_store *st, apr_pool_t *pool,
                                    apr_int64_t uid, apr_int64_t now,
                                    int *taken)
{
    const char *args[6];

    *taken = 0;
    args[0] = args[1] = args[4] = acct_i64(pool,
                                           now - ACCT_TFA_FAILURE_WINDOW);
    args[2] = acct_i64(pool, now);
    args[3] = acct_i64(pool, uid);
    args[5] = acct_i64(pool, ACCT_TFA_MAX_FAILURES);
    return acct_store_exec(st, pool, &q_attempt, taken, 6, args);
}

/* Sets users.two_factor_auth. */
static acct_store_rc set_user_flag(acct_store *st, apr_pool_t *pool,
                                   apr_int64_t uid, int on)
{
    const char *args[2];

    args[0] = on ? "1" : "0";
    args[1] = acct_i64(pool, uid);
    return acct_store_exec(st, pool, &q_user_tfa, NULL, 2, args);
}

acct_store_rc acct_tfa_confirm(acct_store *st, apr_pool_t *pool,
                               apr_int64_t uid, apr_int64_t step,
                               const char *scratch_hash, apr_int64_t now,
                               int *confirmed)
{
    const char *args[4];
    acct_store_rc rc;

    *confirmed = 0;
    args[0] = args[3] = acct_i64(pool, step);
    args[1] = scratch_hash;
    args[2] = acct_i64(pool, uid);
    rc = acct_store_exec(st, pool, &q_confirm, confirmed, 4, args);
    if (rc == ACCT_STORE_OK && *confirmed) {
        rc = set_user_flag(st, pool, uid, 1);
        if (rc == ACCT_STORE_OK) {
            rc = acct_event_profile(st, pool, uid, ACCT_EVENT_TFA_ENABLED,
                                    now);
        }
    }
    return rc;
}

acct_store_rc acct_tfa_disable(acct_store *st, apr_pool_t *pool,
                               apr_int64_t uid, apr_int64_t now)
{
    acct_store_rc rc = set_user_flag(st, pool, uid, 0);

    if (rc == ACCT_STORE_OK) {
        rc = acct_tfa_secret_forget(st, pool, uid, now);
    }
    return rc;
}

acct_store_rc acct_tfa_secret_forget(acct_store *st, apr_pool_t *pool,
                                     apr_int64_t uid, apr_int64_t now)
{
    const char *args[1];
    acct_store_rc rc = acct_event_tfa_disabled(st, pool, uid, now);

    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    args[0] = acct_i64(pool, uid);
    return acct_store_exec(st, pool, &q_secret_delete, NULL, 1, args);
}
