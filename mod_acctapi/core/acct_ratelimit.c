#include "acct_ratelimit.h"

#include <apr_strings.h>

#include <string.h>

const char *acct_rate_bucket(apr_pool_t *pool, apr_int64_t user_id,
                             const char *client_addr, int is_list)
{
    const char *budget = is_list ? "list" : "other";

    if (user_id > 0) {
        return apr_psprintf(pool, "user:%" APR_INT64_T_FMT ":%s", user_id,
                            budget);
    }
    return apr_psprintf(pool, "addr:%s:%s", client_addr ? client_addr : "-",
                        budget);
}

apr_int64_t acct_rate_window(apr_int64_t now)
{
    return now - now % ACCT_RATE_WINDOW;
}

void acct_rate_state_fill(acct_rate_state *state, apr_int64_t hits,
                          apr_int64_t limit, apr_int64_t window,
                          apr_int64_t now)
{
    state->limit = limit;
    state->remaining = hits >= limit ? 0 : limit - hits;
    state->reset = window + ACCT_RATE_WINDOW;
    state->retry_after = state->reset - now > 0 ? state->reset - now : 1;
    state->exceeded = hits > limit;
}

/* ---- the table in shared memory ------------------------------------------- */

/*
 * The slots come in groups: a bucket lives in the group its hash names, in
 * any slot of it, and one stripe of the locks guards a whole group, so
 * looking for the bucket and claiming a slot for it are one step.
 */
#define GROUP_SLOTS 16

typedef struct rate_slot {
    apr_uint64_t hash;       /* the bucket's; 0: never used */
    apr_int64_t window;      /* start of the window counted */
    apr_int64_t hits;
} rate_slot;

typedef struct rate_group {
    rate_slot slot[GROUP_SLOTS];
} rate_group;

struct acct_rate_table {
    apr_size_t groups;
    rate_group group[1];     /* `groups` of them */
};

apr_status_t acct_rate_locks_create(acct_rate_locks **locks, apr_pool_t *pool)
{
    acct_rate_locks *made = apr_pcalloc(pool, sizeof(*made));
    apr_status_t rv;
    int i;

    for (i = 0; i < ACCT_RATE_LOCKS; i++) {
        rv = apr_global_mutex_create(&made->stripe[i], NULL, APR_LOCK_DEFAULT,
                                     pool);
        if (rv != APR_SUCCESS) {
            while (i-- > 0) {
                apr_global_mutex_destroy(made->stripe[i]);
            }
            *locks = NULL;
            return rv;
        }
    }
    *locks = made;
    return APR_SUCCESS;
}

apr_status_t acct_rate_locks_child_init(acct_rate_locks *locks,
                                        apr_pool_t *pchild)
{
    apr_status_t rv;
    int i;

    for (i = 0; i < ACCT_RATE_LOCKS; i++) {
        rv = apr_global_mutex_child_init(&locks->stripe[i], NULL, pchild);
        if (rv != APR_SUCCESS) {
            return rv;
        }
    }
    return APR_SUCCESS;
}

static apr_size_t groups_for(apr_size_t slots)
{
    return slots < GROUP_SLOTS ? 1 : slots / GROUP_SLOTS;
}

apr_size_t acct_rate_table_size(apr_size_t slots)
{
    return APR_OFFSETOF(acct_rate_table, group)
           + groups_for(slots) * sizeof(rate_group);
}

acct_rate_table *acct_rate_table_init(void *mem, apr_size_t slots)
{
    acct_rate_table *t = mem;

    memset(mem, 0, acct_rate_table_size(slots));
    t->groups = groups_for(slots);
    return t;
}

/* FNV-1a, 64 bits; never 0 (that marks a free slot). */
static apr_uint64_t bucket_hash(const char *bucket)
{
    apr_uint64_t h = APR_UINT64_C(14695981039346656037);
    const unsigned char *p;

    for (p = (const unsigned char *)bucket; *p; p++) {
        h = (h ^ *p) * APR_UINT64_C(1099511628211);
    }
    return h ? h : 1;
}

/* The bucket's slot in `g`, else a free one or one of an ended window. */
static rate_slot *find_slot(rate_group *g, apr_uint64_t hash,
                            apr_int64_t window)
{
    rate_slot *spare = NULL;
    int i;

    for (i = 0; i < GROUP_SLOTS; i++) {
        rate_slot *s = &g->slot[i];

        if (s->hash == hash) {
            return s;
        }
        if (!spare && (s->hash == 0 || s->window < window)) {
            spare = s;
        }
    }
    return spare;
}

/*
 * A holder of the stripe that died (a child killed mid-request) does not
 * keep it: the next locker carries on (see acct_rate_locks).  At worst the
 * slot the dead process was writing restarts its count.
 */
int acct_rate_table_hit(acct_rate_table *t, acct_rate_locks *locks,
                        const char *bucket, apr_int64_t limit,
                        apr_int64_t now, acct_rate_state *state)
{
    apr_uint64_t hash = bucket_hash(bucket);
    apr_int64_t window = acct_rate_window(now), hits;
    apr_size_t group = hash % t->groups;
    apr_global_mutex_t *lock = locks->stripe[group % ACCT_RATE_LOCKS];
    rate_group *g = &t->group[group];
    rate_slot *s;

    if (apr_global_mutex_lock(lock) != APR_SUCCESS) {
        return -1;
    }
    if (!(s = find_slot(g, hash, window))) {
        apr_global_mutex_unlock(lock);
        return -1;
    }
    if (s->hash != hash || s->window != window) {
        /* A new window, or a slot taken over: counting starts again. */
        s->hits = 0;
        s->window = window;
        s->hash = hash;
    }
    hits = ++s->hits;
    apr_global_mutex_unlock(lock);
    acct_rate_state_fill(state, hits, limit, window, now);
    return 0;
}
