/*
 * One statement per request: an upsert that adds one to the bucket's row of
 * the current window and returns the new count.  Both PostgreSQL (row lock
 * on conflict) and SQLite (one writer at a time) apply concurrent upserts
 * one after the other, so the counts a window hands out are 1, 2, 3, ...
 * without gaps or repeats, whichever child or node asks.
 */
#include "acct_rate_counters.h"

static const acct_sql q_rate_hit = ACCT_SQL("rate_hit",
    "INSERT INTO rate_counters (bucket, window_start, hits)"
    " VALUES (%s, CAST(%s AS BIGINT), 1)"
    " ON CONFLICT (bucket, window_start)"
    " DO UPDATE SET hits = rate_counters.hits + 1"
    " RETURNING hits");

/* Windows that have ended: nobody counts in them again. */
static const acct_sql q_rate_expire = ACCT_SQL("rate_expire",
    "DELETE FROM rate_counters WHERE window_start < CAST(%s AS BIGINT)");

acct_store_rc acct_rate_counters_hit(acct_store *st, apr_pool_t *pool,
                                     const char *bucket, apr_int64_t limit,
                                     apr_int64_t now, acct_rate_state *state)
{
    apr_int64_t window = acct_rate_window(now), hits = 0;
    const char *args[2];
    acct_rows *rows = NULL;
    acct_store_rc rc;

    args[0] = bucket;
    args[1] = acct_i64(pool, window);
    rc = acct_store_select(st, pool, &q_rate_hit, &rows, 2, args);
    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    if (rows->nrows != 1
        || acct_parse_i64(acct_rows_get(rows, 0, "hits"), &hits) != 0) {
        return ACCT_STORE_FAILED;
    }
    if (hits == 1) {
        /* Housekeeping, once per bucket and window; failure is harmless. */
        args[0] = acct_i64(pool, window);
        (void)acct_store_exec(st, pool, &q_rate_expire, NULL, 1, args);
    }
    acct_rate_state_fill(state, hits, limit, window, now);
    return ACCT_STORE_OK;
}
