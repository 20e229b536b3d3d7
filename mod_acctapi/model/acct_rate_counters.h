/*
 * Rate-limit counters kept in the database (rate_counters): every child of
 * every node that shares the database counts together.  Buckets, windows
 * and the count in shared memory are the core's (acct_ratelimit.h).
 */
#ifndef ACCT_RATE_COUNTERS_H
#define ACCT_RATE_COUNTERS_H

#include "acct_ratelimit.h"
#include "acct_store.h"

/*
 * Counts one request of `bucket` at `now` against `limit` (> 0) with one
 * atomic upsert, and fills `state`.  The first request of a window also
 * deletes the counters of windows that have ended.
 */
acct_store_rc acct_rate_counters_hit(acct_store *st, apr_pool_t *pool,
                                     const char *bucket, apr_int64_t limit,
                                     apr_int64_t now, acct_rate_state *state);

#endif
