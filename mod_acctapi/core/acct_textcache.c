/*
 * acct_textcache: see acct_textcache.h.  The caches hold a handful of large
 * texts (zone files of up to 12,000 records), so entries are a small array
 * searched linearly and ordered by last use with a counter.
 */
#include "acct_textcache.h"

#include <apr_strings.h>
#include <apr_thread_mutex.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    char *key;                 /* malloc'ed; NULL: a free slot */
    char *version;
    char *text;                /* NUL-terminated */
    apr_size_t len;
    apr_uint64_t used;         /* the cache's clock at the last use */
} entry;

struct acct_textcache {
    apr_thread_mutex_t *lock;
    entry *entries;
    int max_entries;
    apr_size_t max_bytes;
    apr_size_t bytes;          /* sum of the texts' lengths */
    apr_uint64_t clock;
};

static void entry_free(acct_textcache *c, entry *e)
{
    if (e->key) {
        c->bytes -= e->len;
    }
    free(e->key);
    free(e->version);
    free(e->text);
    memset(e, 0, sizeof(*e));
}

static apr_status_t cache_free(void *data)
{
    acct_textcache *c = data;
    int i;

    for (i = 0; i < c->max_entries; i++) {
        entry_free(c, &c->entries[i]);
    }
    return APR_SUCCESS;
}

acct_textcache *acct_textcache_create(apr_pool_t *pool, int max_entries,
                                      apr_size_t max_bytes)
{
    acct_textcache *c = apr_pcalloc(pool, sizeof(*c));

    if (max_entries < 1
        || apr_thread_mutex_create(&c->lock, APR_THREAD_MUTEX_DEFAULT, pool)
           != APR_SUCCESS) {
        return NULL;
    }
    c->entries = apr_pcalloc(pool, sizeof(entry) * (apr_size_t)max_entries);
    c->max_entries = max_entries;
    c->max_bytes = max_bytes;
    /* Registered after the mutex: runs first, while the mutex exists. */
    apr_pool_cleanup_register(pool, c, cache_free, apr_pool_cleanup_null);
    return c;
}

static entry *find_locked(acct_textcache *c, const char *key)
{
    int i;

    for (i = 0; i < c->max_entries; i++) {
        if (c->entries[i].key && strcmp(c->entries[i].key, key) == 0) {
            return &c->entries[i];
        }
    }
    return NULL;
}

const char *acct_textcache_get(acct_textcache *c, apr_pool_t *pool,
                               const char *key, const char *version,
                               apr_size_t *len)
{
    char *copy = NULL;
    entry *e;

    if (!c) {
        return NULL;
    }
    apr_thread_mutex_lock(c->lock);
    e = find_locked(c, key);
    if (e && strcmp(e->version, version) == 0) {
        e->used = ++c->clock;
        /* Copied while held: a store may free the text the moment the
         * lock is let go. */
        copy = apr_pstrmemdup(pool, e->text, e->len);
        *len = e->len;
    }
    apr_thread_mutex_unlock(c->lock);
    return copy;
}

/* The least recently used entry holding a text, or NULL. */
static entry *oldest_locked(acct_textcache *c)
{
    entry *oldest = NULL;
    int i;

    for (i = 0; i < c->max_entries; i++) {
        entry *e = &c->entries[i];

        if (e->key && (!oldest || e->used < oldest->used)) {
            oldest = e;
        }
    }
    return oldest;
}

static entry *free_slot_locked(acct_textcache *c)
{
    int i;

    for (i = 0; i < c->max_entries; i++) {
        if (!c->entries[i].key) {
            return &c->entries[i];
        }
    }
    return NULL;
}

void acct_textcache_put(acct_textcache *c, const char *key,
                        const char *version, const char *text,
                        apr_size_t len)
{
    entry fresh, *slot = NULL, *e;

    if (!c || len > c->max_bytes) {
        return;
    }
    /* Copies made before taking the lock: it is held for bookkeeping only. */
    memset(&fresh, 0, sizeof(fresh));
    fresh.key = strdup(key);
    fresh.version = strdup(version);
    fresh.text = malloc(len + 1);
    if (!fresh.key || !fresh.version || !fresh.text) {
        free(fresh.key);
        free(fresh.version);
        free(fresh.text);
        return;
    }
    memcpy(fresh.text, text, len);
    fresh.text[len] = '\0';
    fresh.len = len;

    apr_thread_mutex_lock(c->lock);
    if ((e = find_locked(c, key)) != NULL) {
        entry_free(c, e);
    }
    while (c->bytes + len > c->max_bytes
           || !(slot = free_slot_locked(c))) {
        entry_free(c, oldest_locked(c));
    }
    *slot = fresh;
    slot->used = ++c->clock;
    c->bytes += len;
    apr_thread_mutex_unlock(c->lock);
}

void acct_textcache_usage(acct_textcache *c, int *entries, apr_size_t *bytes)
{
    int i, n = 0;

    apr_thread_mutex_lock(c->lock);
    for (i = 0; i < c->max_entries; i++) {
        n += c->entries[i].key != NULL;
    }
    *entries = n;
    *bytes = c->bytes;
    apr_thread_mutex_unlock(c->lock);
}
