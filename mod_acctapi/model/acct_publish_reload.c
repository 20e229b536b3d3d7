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

#include <pthread.h>
#include <string.h>
#include <time.h>
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
 * Requests wait in one queue per process, drained by one detached worker
 * thread: a burst of changes costs one run per zone (or one run without a
 * zone), not one per change, and the request never waits for the command.
 *
 * The confirming run.  A nameserver may accept a reload and drop it: BIND
 * answers "zone reload queued" to a zone already loading and loads nothing
 * more when that load ends, so a file renamed in just after that load
 * opened it would not be served until the next change.  So everything run
 * since the queue was last quiet is run once more when no request has come
 * for the confirmation delay (by then those loads have ended); a zone
 * whose file is current costs the nameserver a stat.
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

static pthread_mutex_t reload_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t reload_wakeup = PTHREAD_COND_INITIALIZER;
static reload_set *reload_pending;     /* not run yet */
static reload_set *reload_confirm;     /* run since the queue was quiet */
static apr_time_t reload_confirm_at;
static apr_interval_time_t reload_confirm_delay = RELOAD_CONFIRM_DELAY;
/* The process whose worker drains the queue (a forked child starts its own). */
static pid_t reload_worker_pid;

void acct_publish_set_confirm_delay(apr_interval_time_t delay)
{
    pthread_mutex_lock(&reload_mutex);
    reload_confirm_delay = delay;
    pthread_mutex_unlock(&reload_mutex);
}

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

/* Moves set's entries into reload_confirm (under reload_mutex). */
static void keep_for_confirming(const reload_set *set)
{
    int i;

    for (i = 0; i < set->entries->nelts; i++) {
        const reload_entry *e = &APR_ARRAY_IDX(set->entries, i, reload_entry);

        if (set_add(&reload_confirm, e->dir, e->command, e->zone) != 0) {
            acct_log(ACCT_LOG_ERR, ACCTLOGNO(00060) "zone reload: out of memory; "
                     "no confirming run for %s", e->zone ? e->zone : "all zones");
        }
    }
    reload_confirm_at = apr_time_now() + reload_confirm_delay;
}

static void *reload_worker(void *unused)
{
    reload_set *batch;

    (void)unused;
    pthread_mutex_lock(&reload_mutex);
    for (;;) {
        if (reload_pending) {
            batch = reload_pending;
            reload_pending = NULL;
            keep_for_confirming(batch);
        }
        else if (reload_confirm && apr_time_now() >= reload_confirm_at) {
            batch = reload_confirm;
            reload_confirm = NULL;
        }
        else if (reload_confirm) {
            struct timespec until;

            until.tv_sec = (time_t)apr_time_sec(reload_confirm_at);
            until.tv_nsec = (long)apr_time_usec(reload_confirm_at) * 1000L;
            pthread_cond_timedwait(&reload_wakeup, &reload_mutex, &until);
            continue;
        }
        else {
            pthread_cond_wait(&reload_wakeup, &reload_mutex);
            continue;
        }
        pthread_mutex_unlock(&reload_mutex);
        run_set(batch);
        set_destroy(batch);
        pthread_mutex_lock(&reload_mutex);
    }
    return NULL;
}

/* Starts this process's worker unless it runs (under reload_mutex). */
static int start_worker(void)
{
    pthread_attr_t attr;
    pthread_t thread;
    int rc;

    if (reload_worker_pid == getpid()) {
        return 0;
    }
    rc = pthread_attr_init(&attr);
    if (rc == 0) {
        rc = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (rc == 0) {
            rc = pthread_create(&thread, &attr, reload_worker, NULL);
        }
        pthread_attr_destroy(&attr);
    }
    if (rc == 0) {
        reload_worker_pid = getpid();
    }
    return rc;
}

/*
 * The worker waits for every command it starts (acct_proc_run), so no
 * zombie is left in the httpd child.  If the child process
 * exits first, the command goes on under init, which reaps it.
 */
void acct_publish_reload_background(const char *dir, const char *command,
                                    const apr_array_header_t *zones)
{
    int i, rc = 0;

    pthread_mutex_lock(&reload_mutex);
    for (i = 0; i < zones->nelts && rc == 0; i++) {
        rc = set_add(&reload_pending, dir, command,
                     APR_ARRAY_IDX(zones, i, const char *));
    }
    if (rc != 0) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00061) "zone reload: out of memory");
    }
    else if ((rc = start_worker()) != 0) {
        char buf[120];

        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00019) "zone reload: cannot start a thread: %s",
                 apr_strerror(APR_FROM_OS_ERROR(rc), buf, sizeof(buf)));
    }
    else {
        pthread_cond_signal(&reload_wakeup);
    }
    pthread_mutex_unlock(&reload_mutex);
}
