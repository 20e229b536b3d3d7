/*
 * The reload command (acct_publish_reload.h): run and waited for, or queued
 * for this process's background worker, which coalesces requests and
 * confirms them.  acct_proc.h runs the command; zone publishing
 * (acct_publish.c) queues the runs its changes need.
 */
#include "acct_publish_reload.h"
#include "acct_file.h"
#include "acct_log.h"
#include "acct_proc.h"
#include "acct_publish.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>
#include <apr_thread_proc.h>

#include <string.h>
#include <unistd.h>

#define RELOAD_LOCK_FILE ".acctapi-reload.lock"

/* How long the queue of reloads is quiet before its confirming run. */
#define RELOAD_CONFIRM_DELAY apr_time_from_sec(2)

/* ---- the reload command --------------------------------------------------- */

/* Runs argv and waits for it (acct_publish_reload without the lock). */
static int run_reload(apr_pool_t *pool, const char *const *argv,
                      const char *what)
{
    acct_proc_outcome out;

    switch (acct_proc_run(argv, 0, &out)) {
    case ACCT_PROC_NOT_STARTED:
        if (out.step == ACCT_PROC_STEP_PIPE) {
            acct_log(ACCT_LOG_ERR, ACCTLOGNO(00012) "zone reload (%s): cannot make a pipe: %s",
                     what, acct_os_error(pool, out.code));
        }
        else {
            acct_log(ACCT_LOG_ERR, ACCTLOGNO(00013) "zone reload (%s): cannot run %s: %s", what,
                     argv[0], acct_os_error(pool, out.code));
        }
        return -1;
    case ACCT_PROC_LOST:
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00014) "zone reload (%s): waiting for %s: %s",
                 what, argv[0], acct_os_error(pool, out.code));
        return -1;
    case ACCT_PROC_EXITED:
        if (out.code == 0) {
            acct_log(ACCT_LOG_DEBUG, ACCTLOGNO(00015) "zone reload (%s): %s succeeded", what,
                     argv[0]);
            return 0;
        }
        break;
    case ACCT_PROC_KILLED:
    case ACCT_PROC_TIMED_OUT: /* no deadline is set: never */
        break;
    }
    acct_log(ACCT_LOG_ERR, ACCTLOGNO(00016) "zone reload (%s): %s %s %d%s%s", what, argv[0],
             out.how == ACCT_PROC_EXITED ? "exited with status"
                                         : "was killed by signal",
             out.code, out.err[0] ? ": " : "", out.err);
    return -1;
}

int acct_publish_reload(apr_pool_t *pool, const char *dir,
                        const char *command, const char *zone)
{
    const char *append[2];
    const char *const *argv;
    const char *what = zone ? zone : "all zones";
    int lock = -1, rc;

    append[0] = zone;
    append[1] = NULL;
    argv = acct_proc_argv(pool, command, append);
    if (!argv) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00017) "zone reload (%s): the command is empty", what);
        return -1;
    }
    /* Without the lock the command still runs: a reload is better late
     * and out of order than never. */
    if (dir) {
        lock = acct_publish_lock(pool, dir, RELOAD_LOCK_FILE);
    }
    rc = run_reload(pool, argv, what);
    if (lock >= 0) {
        close(lock);
    }
    return rc;
}

/* ---- background reloads ------------------------------------------------- */

/*
 * Requests wait in one queue per process, drained by one worker thread: a
 * burst of changes costs one run per zone (or one run without a zone), not
 * one per change, and the request never waits for the command.
 *
 * The confirming run.  A nameserver may accept a reload and drop it: BIND
 * answers "zone reload queued" to a zone already loading and loads nothing
 * more when that load ends, so a file renamed in just after that load
 * opened it would not be served until the next change.  So everything run
 * since the queue was last quiet is run once more when no request has come
 * for the confirmation delay (by then those loads have ended); a zone
 * whose file is current costs the nameserver a stat.
 *
 * The worker belongs to the pool acct_publish_reload_start was given (an
 * httpd child's): that pool's cleanup tells it to stop, and it runs what
 * is still pending and then the confirming run, at once, before it exits
 * and is joined.  So a change published just before the child exits is
 * still reloaded, and no thread outlives the pool it allocates from.
 */
typedef struct reload_entry {
    const char *dir;       /* NULL: no lock */
    const char *command;
    const char *zone;      /* NULL: the run without a zone */
} reload_entry;

/* Entries without repeats, in their own pool. */
typedef struct reload_set {
    apr_pool_t *pool;
    apr_hash_t *keys;
    apr_array_header_t *entries;
} reload_set;

/* Creates *set if need be and adds an entry; 0, or -1 out of memory. */
static int set_add(reload_set **set, const char *dir, const char *command,
                   const char *zone)
{
    reload_set *s = *set;
    const char *parts[3];
    apr_size_t sizes[3], len = 0;
    reload_entry *e;
    apr_pool_t *pool;
    char *key;
    int i;

    if (!s) {
        if (apr_pool_create_unmanaged_ex(&pool, NULL, NULL) != APR_SUCCESS) {
            return -1;
        }
        s = apr_palloc(pool, sizeof(*s));
        s->pool = pool;
        s->keys = apr_hash_make(pool);
        s->entries = apr_array_make(pool, 4, sizeof(reload_entry));
        *set = s;
    }
    /* The key: each part marked present ('+') or NULL ('-') and ended by
     * a NUL, so that no two entries share one; its parts are the entry's
     * own copies of the strings. */
    parts[0] = dir;
    parts[1] = command;
    parts[2] = zone;
    for (i = 0; i < 3; i++) {
        sizes[i] = parts[i] ? strlen(parts[i]) : 0;
        len += sizes[i] + 2;
    }
    key = apr_palloc(s->pool, len);
    for (len = 0, i = 0; i < 3; i++) {
        key[len++] = parts[i] ? '+' : '-';
        memcpy(key + len, parts[i] ? parts[i] : "", sizes[i]);
        len += sizes[i];
        key[len++] = '\0';
    }
    if (apr_hash_get(s->keys, key, (apr_ssize_t)len)) {
        return 0;
    }
    apr_hash_set(s->keys, key, (apr_ssize_t)len, key);
    e = apr_array_push(s->entries);
    e->dir = dir ? key + 1 : NULL;
    e->command = key + sizes[0] + 3;
    e->zone = zone ? e->command + sizes[1] + 2 : NULL;
    return 0;
}

static void set_destroy(reload_set *set)
{
    if (set) {
        apr_pool_destroy(set->pool);
    }
}

/* Is there a run without a zone for e's directory and command? */
static int covered(const reload_set *set, const reload_entry *e)
{
    int i;

    for (i = 0; i < set->entries->nelts; i++) {
        const reload_entry *all = &APR_ARRAY_IDX(set->entries, i, reload_entry);

        if (!all->zone && strcmp(all->command, e->command) == 0
            && (all->dir == e->dir
                || (all->dir && e->dir && strcmp(all->dir, e->dir) == 0))) {
            return 1;
        }
    }
    return 0;
}

/*
 * Runs a set: a run without a zone rereads every zone, so it replaces the
 * runs of single zones of its directory and command.  A zone whose file
 * is gone was unpublished since; the run without a zone that its removal
 * asked for drops it, and naming it would only fail.
 */
static void run_set(const reload_set *set)
{
    apr_pool_t *pool = NULL;
    int i;

    if (apr_pool_create_unmanaged_ex(&pool, NULL, NULL) != APR_SUCCESS) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00018) "zone reload: out of memory");
        return;
    }
    for (i = 0; i < set->entries->nelts; i++) {
        const reload_entry *e = &APR_ARRAY_IDX(set->entries, i, reload_entry);

        if (e->zone && (covered(set, e)
                        || (e->dir && !acct_file_exists(acct_file_in_dir(
                                       pool, e->dir,
                                       acct_publish_zone_file(pool,
                                                              e->zone)))))) {
            continue;
        }
        acct_publish_reload(pool, e->dir, e->command, e->zone);
        apr_pool_clear(pool);
    }
    apr_pool_destroy(pool);
}

/*
 * The worker of this process.  `lock` guards every field but `thread`;
 * `worker` itself is set by acct_publish_reload_start and cleared by its
 * pool's cleanup, both while no request runs (an httpd child's init and
 * exit), so requests read it without the lock.
 */
typedef struct reload_worker {
    apr_thread_mutex_t *lock;
    apr_thread_cond_t *wakeup;
    apr_thread_t *thread;
    apr_pool_t *thread_pool;    /* the thread's, destroyed after the join */
    reload_set *pending;        /* not run yet */
    reload_set *confirm;        /* run since the queue was last quiet */
    apr_time_t confirm_at;
    int stopping;               /* the pool goes: drain and exit */
} reload_worker;

/* This process's worker: set by acct_publish_reload_start in child_init,
 * before any thread serves, and cleared by the child pool's pre-cleanup
 * after the join; NULL in programs without one (reloads run in the
 * caller).  Its queues are guarded by its own mutex. */
static reload_worker *worker;

/* Set before the worker starts (tests make it short, or very long); read
 * by the worker only. */
static apr_interval_time_t confirm_delay = RELOAD_CONFIRM_DELAY;

void acct_publish_set_confirm_delay(apr_interval_time_t delay)
{
    confirm_delay = delay;
}

/* Moves set's entries into w->confirm (under w->lock). */
static void keep_for_confirming(reload_worker *w, const reload_set *set)
{
    int i;

    for (i = 0; i < set->entries->nelts; i++) {
        const reload_entry *e = &APR_ARRAY_IDX(set->entries, i, reload_entry);

        if (set_add(&w->confirm, e->dir, e->command, e->zone) != 0) {
            acct_log(ACCT_LOG_ERR, ACCTLOGNO(00060) "zone reload: out of memory; "
                     "no confirming run for %s", e->zone ? e->zone : "all zones");
        }
    }
    w->confirm_at = apr_time_now() + confirm_delay;
}

static void *APR_THREAD_FUNC reload_work(apr_thread_t *thread, void *data)
{
    reload_worker *w = data;
    reload_set *batch;

    apr_thread_mutex_lock(w->lock);
    for (;;) {
        apr_time_t now = apr_time_now();

        if (w->pending) {
            batch = w->pending;
            w->pending = NULL;
            keep_for_confirming(w, batch);
        }
        else if (w->confirm && (w->stopping || now >= w->confirm_at)) {
            batch = w->confirm;
            w->confirm = NULL;
        }
        else if (w->stopping) {
            break;
        }
        else if (w->confirm) {
            apr_thread_cond_timedwait(w->wakeup, w->lock, w->confirm_at - now);
            continue;
        }
        else {
            apr_thread_cond_wait(w->wakeup, w->lock);
            continue;
        }
        apr_thread_mutex_unlock(w->lock);
        run_set(batch);
        set_destroy(batch);
        apr_thread_mutex_lock(w->lock);
    }
    apr_thread_mutex_unlock(w->lock);
    apr_thread_exit(thread, APR_SUCCESS);
    return NULL;
}

/* A pre-cleanup of the owner's pool: it runs before anything of that pool
 * goes.  The thread lives in a pool of its own, not a subpool of the
 * owner's: on its way out (apr_thread_exit) the thread destroys its pool,
 * which with APR's pool debugging locks the parent pool, held by the
 * owner's destruction that waits here for the thread. */
static apr_status_t stop_worker(void *data)
{
    reload_worker *w = data;
    apr_status_t rv;

    apr_thread_mutex_lock(w->lock);
    w->stopping = 1;
    apr_thread_cond_signal(w->wakeup);
    apr_thread_mutex_unlock(w->lock);
    apr_thread_join(&rv, w->thread);
    apr_pool_destroy(w->thread_pool);
    if (worker == w) {
        worker = NULL;
    }
    return APR_SUCCESS;
}

apr_status_t acct_publish_reload_start(apr_pool_t *pool)
{
    reload_worker *w = apr_pcalloc(pool, sizeof(*w));
    apr_status_t rv;
    char buf[120];

    rv = apr_thread_mutex_create(&w->lock, APR_THREAD_MUTEX_DEFAULT, pool);
    if (rv == APR_SUCCESS) {
        rv = apr_thread_cond_create(&w->wakeup, pool);
    }
    if (rv == APR_SUCCESS) {
        rv = apr_pool_create_unmanaged_ex(&w->thread_pool, NULL, NULL);
    }
    if (rv == APR_SUCCESS) {
        rv = apr_thread_create(&w->thread, NULL, reload_work, w, w->thread_pool);
        if (rv != APR_SUCCESS) {
            apr_pool_destroy(w->thread_pool);
        }
    }
    if (rv != APR_SUCCESS) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00019) "zone reload: cannot start a thread: %s "
                 "(reloads run in the requests that ask for them)",
                 apr_strerror(rv, buf, sizeof(buf)));
        return rv;
    }
    apr_pool_pre_cleanup_register(pool, w, stop_worker);
    worker = w;
    return APR_SUCCESS;
}

/*
 * The worker waits for every command it starts (acct_proc_run), so no
 * zombie is left in the httpd child.  Without a worker (none started, or
 * it could not start) the caller runs the commands and waits.
 */
void acct_publish_reload_background(const char *dir, const char *command,
                                    const apr_array_header_t *zones)
{
    reload_worker *w = worker;
    reload_set *now = NULL;
    reload_set **into = &now;
    int i, rc = 0;

    if (w) {
        apr_thread_mutex_lock(w->lock);
        into = &w->pending;
    }
    for (i = 0; i < zones->nelts && rc == 0; i++) {
        rc = set_add(into, dir, command, APR_ARRAY_IDX(zones, i, const char *));
    }
    if (rc != 0) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00061) "zone reload: out of memory");
    }
    if (w) {
        apr_thread_cond_signal(w->wakeup);
        apr_thread_mutex_unlock(w->lock);
    }
    else if (now) {
        run_set(now);
        set_destroy(now);
    }
}
