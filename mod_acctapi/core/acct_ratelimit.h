/*
 * Rate limits like the public API's: per user (per client address when no
 * token identifies the caller), one budget for paginated list GETs and one
 * for every other request, counted in fixed one-minute windows, exactly: of
 * L + n requests in a window, exactly L succeed.  Counted in the database
 * (every child of every node that shares it counts together: acct_rate_counters.h of
 * the model), or in the server's shared memory (its children count
 * together, nothing else: here).
 */
#ifndef ACCT_RATELIMIT_H
#define ACCT_RATELIMIT_H

#include <apr_global_mutex.h>
#include <apr_pools.h>

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
 * The bucket of a request: "user:<id>" when a token identifies the caller,
 * else "addr:<client address>"; with ":list" or ":other" for its budget.
 * Keyed on the user behind the token, not the token: tokens cost nothing to
 * mint, so a budget per token would multiply with every token minted.
 */
const char *acct_rate_bucket(apr_pool_t *pool, apr_int64_t user_id,
                             const char *client_addr, int is_list);

/* The start of the window that second `now` falls in. */
apr_int64_t acct_rate_window(apr_int64_t now);

/*
 * Fills `state` for a request counted as the `hits`th of the window that
 * starts at `window`, against `limit`, at `now`: wherever it was counted.
 */
void acct_rate_state_fill(acct_rate_state *state, apr_int64_t hits,
                          apr_int64_t limit, apr_int64_t window,
                          apr_int64_t now);

/*
 * The same count in memory shared by the processes of one server (httpd's
 * children), without the database: AcctapiRateLimitScope node.  Exact
 * across the children of the server, whatever they run; each server counts
 * alone.  The table is a fixed array of slots (a bucket's slot is found by
 * its hash, probing a few neighbours); slots of ended windows are reused.
 * The slots live in shared memory and hold no pointer; the locks that guard
 * them (acct_rate_locks) are APR global mutexes each process holds its own
 * handles to.
 */
typedef struct acct_rate_table acct_rate_table;

/*
 * Stripes of APR global mutexes: a group of slots is guarded by stripe
 * (group % ACCT_RATE_LOCKS).  APR_LOCK_DEFAULT, which on Linux is a robust
 * process-shared pthread mutex: when its holder dies (a child killed
 * mid-request), APR marks it consistent for the next locker, which carries
 * on; the other mechanisms APR may default to elsewhere (SysV semaphores
 * with SEM_UNDO, fcntl, flock) are released by the kernel when the holder
 * dies.  Created once, before the processes that count are forked, and
 * attached again in each of them (acct_rate_locks_child_init).
 */
#define ACCT_RATE_LOCKS 32

typedef struct acct_rate_locks {
    apr_global_mutex_t *stripe[ACCT_RATE_LOCKS];
} acct_rate_locks;

/* Creates the stripes in `pool`, which must outlive every process using
 * them: APR_SUCCESS, or APR's error (nothing is kept). */
apr_status_t acct_rate_locks_create(acct_rate_locks **locks, apr_pool_t *pool);

/* Attaches a process forked after acct_rate_locks_create to the stripes. */
apr_status_t acct_rate_locks_child_init(acct_rate_locks *locks,
                                        apr_pool_t *pchild);

/* The bytes a table of `slots` slots needs. */
apr_size_t acct_rate_table_size(apr_size_t slots);

/*
 * Lays out a table of `slots` slots in `mem` (zeroed or not), which must be
 * shared by every process that counts (anonymous shared memory created
 * before fork).
 */
acct_rate_table *acct_rate_table_init(void *mem, apr_size_t slots);

/*
 * Counts one request of `bucket` at `now` against `limit` (> 0) and fills
 * `state`: 0; or -1 when every slot the bucket may use holds another
 * bucket's current window, or its stripe of `locks` cannot be taken (the
 * caller then counts in the database).
 */
int acct_rate_table_hit(acct_rate_table *table, acct_rate_locks *locks,
                        const char *bucket, apr_int64_t limit,
                        apr_int64_t now, acct_rate_state *state);

#endif
