/*
 * A per-process cache of rendered answers: a few texts, each under a key
 * and a version, least recently used first out.  A text is valid for the
 * exact version it was stored with; a lookup with any other version misses
 * (and a store replaces the key's older text).  Thread-safe: one mutex per
 * cache, held only while an entry is found, copied, stored or evicted.
 */
#ifndef ACCT_TEXTCACHE_H
#define ACCT_TEXTCACHE_H

#include <apr_pools.h>

typedef struct acct_textcache acct_textcache;

/*
 * A cache of at most `max_entries` texts of `max_bytes` in all, freed when
 * `pool` is (the texts are malloc'ed: they outlive no request that copied
 * them).  NULL when the mutex cannot be created.
 */
acct_textcache *acct_textcache_create(apr_pool_t *pool, int max_entries,
                                      apr_size_t max_bytes);

/*
 * The text under `key` at `version`, copied into `pool` (NUL-terminated,
 * `*len` bytes), or NULL.  A NULL cache always misses.
 */
const char *acct_textcache_get(acct_textcache *cache, apr_pool_t *pool,
                               const char *key, const char *version,
                               apr_size_t *len);

/*
 * Keeps a copy of `text` under `key` at `version`, replacing what the key
 * held; texts larger than the cache's budget are not kept.  Room is made by
 * dropping the least recently used texts.  A NULL cache keeps nothing.
 */
void acct_textcache_put(acct_textcache *cache, const char *key,
                        const char *version, const char *text,
                        apr_size_t len);

/* How many texts and bytes the cache holds now (for tests). */
void acct_textcache_usage(acct_textcache *cache, int *entries,
                          apr_size_t *bytes);

#endif
