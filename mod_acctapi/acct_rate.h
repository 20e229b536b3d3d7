/*
 * Rate limits like the public API's: per token (per client address when no
 * token identifies the caller), one budget for paginated list GETs and one
 * for every other request, counted in fixed one-minute windows in the
 * database, so every child of every node that shares it counts together and
 * the count is exact: of L + n requests in a window, exactly L succeed.
 */
#ifndef ACCT_RATE_H
#define ACCT_RATE_H

#include <apr_pools.h>

#include "acct_store.h"

#define ACCT_RATE_WINDOW 60 /* seconds */

/* The budgets of one bucket kind, requests per window; 0 means unlimited. */
typedef struct acct_rate_limits {
    apr_int64_t lists;
    apr_int64_t others;
} acct_rate_limits;

/* What the X-RateLimit-* and Retry-After headers say after one request. */
typedef struct acct_rate_state {
    apr_int64_t limit;       /* X-RateLimit-Limit */
    apr_int64_t remaining;   /* X-RateLimit-Remaining (never below 0) */
    apr_int64_t reset;       /* X-RateLimit-Reset: epoch seconds */
    apr_int64_t retry_after; /* whole seconds until the window ends (>= 1) */
    int exceeded;            /* this request is over the limit: answer 429 */
} acct_rate_state;

/*
 * The bucket of a request: "token:<id>" when a token identifies the caller,
 * else "addr:<client address>"; with ":list" or ":other" for its budget.
 */
const char *acct_rate_bucket(apr_pool_t *pool, apr_int64_t token_id,
                             const char *client_addr, int is_list);

/*
 * Counts one request of `bucket` at `now` against `limit` (> 0) with one
 * atomic upsert, and fills `state`.  The first request of a window also
 * deletes the counters of windows that have ended.
 */
acct_store_rc acct_rate_hit(acct_store *st, apr_pool_t *pool,
                            const char *bucket, apr_int64_t limit,
                            apr_int64_t now, acct_rate_state *state);

#endif
