/* Rate-limit counters on a migrated SQLite database: exact counts, the
 * headers' values, separate buckets, window turnover and housekeeping; and
 * the same in the shared-memory table, under processes and threads counting
 * at once and processes killed holding its locks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <apr_dbd.h>
#include <apr_general.h>
#include <apr_atomic.h>
#include <apr_thread_proc.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit_db.h"
#include "acct_rate_counters.h"

/* 2026-11-22T00:00:00Z, the start of a window, and 10 s into it. */
#define WINDOW ((apr_int64_t)1795305600)
#define NOW (WINDOW + 10)

static apr_int64_t count_rows(unit_db *db)
{
    acct_rows *rows = NULL;
    apr_int64_t n = -1;

    assert_int_equal(acct_store_select_dynamic(db->store, db->pool,
                                               "SELECT COUNT(*) AS n FROM "
                                               "rate_counters", &rows, 0, NULL),
                     ACCT_STORE_OK);
    assert_int_equal(acct_parse_i64(acct_rows_get(rows, 0, "n"), &n), 0);
    return n;
}

static void test_exact_count_and_headers(void **state)
{
    unit_db *db = *state;
    acct_rate_state s;
    int i;

    for (i = 1; i <= 5; i++) {
        assert_int_equal(acct_rate_counters_hit(db->store, db->pool, "user:1:other",
                                                3, NOW, &s), ACCT_STORE_OK);
        assert_int_equal(s.limit, 3);
        assert_int_equal(s.reset, WINDOW + ACCT_RATE_WINDOW);
        assert_int_equal(s.retry_after, 50);
        assert_int_equal(s.remaining, i >= 3 ? 0 : 3 - i);
        assert_int_equal(s.exceeded, i > 3);
    }
}

static void test_buckets_are_separate(void **state)
{
    unit_db *db = *state;
    acct_rate_state s;

    assert_int_equal(acct_rate_counters_hit(db->store, db->pool, "user:1:list",
                                            1, NOW, &s), ACCT_STORE_OK);
    assert_false(s.exceeded);
    assert_int_equal(acct_rate_counters_hit(db->store, db->pool, "user:1:other",
                                            1, NOW, &s), ACCT_STORE_OK);
    assert_false(s.exceeded);
    assert_int_equal(acct_rate_counters_hit(db->store, db->pool, "user:2:list",
                                            1, NOW, &s), ACCT_STORE_OK);
    assert_false(s.exceeded);
    assert_int_equal(acct_rate_counters_hit(db->store, db->pool, "user:1:list",
                                            1, NOW, &s), ACCT_STORE_OK);
    assert_true(s.exceeded);
}

static void test_new_window_starts_afresh_and_expires_old(void **state)
{
    unit_db *db = *state;
    acct_rate_state s;

    assert_int_equal(acct_rate_counters_hit(db->store, db->pool, "addr:192.0.2.1:other",
                                            1, NOW, &s), ACCT_STORE_OK);
    assert_int_equal(acct_rate_counters_hit(db->store, db->pool, "addr:192.0.2.1:other",
                                            1, NOW + 1, &s), ACCT_STORE_OK);
    assert_true(s.exceeded);
    assert_int_equal(acct_rate_counters_hit(db->store, db->pool, "user:9:list",
                                            1, NOW, &s), ACCT_STORE_OK);
    assert_int_equal(count_rows(db), 2);
    /* The next window: counting starts again, the ended window's rows go. */
    assert_int_equal(acct_rate_counters_hit(db->store, db->pool, "addr:192.0.2.1:other",
                                            1, WINDOW + ACCT_RATE_WINDOW, &s),
                     ACCT_STORE_OK);
    assert_false(s.exceeded);
    assert_int_equal(s.remaining, 0);
    assert_int_equal(s.retry_after, ACCT_RATE_WINDOW);
    assert_int_equal(count_rows(db), 1);
}

/*
 * A caller with a token counts as its user: the bucket names the user and
 * nothing of the token or the address, so every token of one user, from
 * anywhere, spends one budget, and minting tokens gains nothing.
 */
static void test_bucket_names(void **state)
{
    unit_db *db = *state;

    assert_string_equal(acct_rate_bucket(db->pool, 42, "192.0.2.1", 1),
                        "user:42:list");
    assert_string_equal(acct_rate_bucket(db->pool, 42, "198.51.100.7", 1),
                        "user:42:list");
    assert_string_equal(acct_rate_bucket(db->pool, 42, NULL, 0),
                        "user:42:other");
    assert_string_equal(acct_rate_bucket(db->pool, 43, "192.0.2.1", 0),
                        "user:43:other");
    assert_string_equal(acct_rate_bucket(db->pool, 0, "2001:db8::1", 0),
                        "addr:2001:db8::1:other");
    assert_string_equal(acct_rate_bucket(db->pool, 0, NULL, 0), "addr:-:other");
}

/* ---- the table in shared memory ------------------------------------------ */

/* A table in anonymous shared memory and its locks, as the module makes. */
typedef struct shared {
    void *mem;
    apr_size_t size;
    acct_rate_table *table;
    acct_rate_locks *locks;
} shared;

static void shared_open(shared *sh, apr_pool_t *pool, apr_size_t slots)
{
    sh->size = acct_rate_table_size(slots);
    sh->mem = mmap(NULL, sh->size, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(sh->mem != MAP_FAILED);
    sh->table = acct_rate_table_init(sh->mem, slots);
    assert_non_null(sh->table);
    assert_int_equal(acct_rate_locks_create(&sh->locks, pool), APR_SUCCESS);
}

static void shared_close(shared *sh)
{
    munmap(sh->mem, sh->size);
}

static int shared_hit(shared *sh, const char *bucket, apr_int64_t limit,
                      apr_int64_t now, acct_rate_state *st)
{
    return acct_rate_table_hit(sh->table, sh->locks, bucket, limit, now, st);
}

static apr_int64_t table_hits(shared *sh, const char *bucket,
                              apr_int64_t limit, apr_int64_t now,
                              acct_rate_state *st)
{
    assert_int_equal(shared_hit(sh, bucket, limit, now, st), 0);
    return st->limit - st->remaining;
}

/* The same counts and headers as the database's. */
static void test_table_count_and_headers(void **state)
{
    unit_db *db = *state;
    acct_rate_state st;
    shared sh;
    int i;

    shared_open(&sh, db->pool, 1024);
    for (i = 1; i <= 3; i++) {
        assert_int_equal(table_hits(&sh, "user:1:other", 3, NOW, &st), i);
        assert_false(st.exceeded);
        assert_int_equal(st.reset, WINDOW + 60);
        assert_int_equal(st.retry_after, 50);
    }
    assert_int_equal(shared_hit(&sh, "user:1:other", 3, NOW, &st), 0);
    assert_true(st.exceeded);
    assert_int_equal(st.remaining, 0);
    /* Other buckets count alone; the next window starts afresh. */
    assert_int_equal(table_hits(&sh, "user:1:list", 3, NOW, &st), 1);
    assert_int_equal(table_hits(&sh, "user:2:other", 3, NOW, &st), 1);
    assert_int_equal(table_hits(&sh, "user:1:other", 3, NOW + 60, &st), 1);
    assert_int_equal(st.reset, WINDOW + 120);
    shared_close(&sh);
}

/*
 * A group full of current windows refuses (the caller counts in the
 * database); once those windows end, their slots are reused.
 */
static void test_table_full_group(void **state)
{
    unit_db *db = *state;
    acct_rate_state st;
    shared sh;
    char name[32];
    int i;

    /* One group of 16 slots. */
    shared_open(&sh, db->pool, 16);
    for (i = 0; i < 16; i++) {
        snprintf(name, sizeof(name), "addr:192.0.2.%d:other", i);
        assert_int_equal(table_hits(&sh, name, 10, NOW, &st), 1);
    }
    assert_int_equal(shared_hit(&sh, "addr:198.51.100.1:other", 10, NOW, &st),
                     -1);
    /* The buckets already there still count. */
    assert_int_equal(table_hits(&sh, "addr:192.0.2.3:other", 10, NOW, &st), 2);
    assert_int_equal(table_hits(&sh, "addr:198.51.100.1:other", 10, NOW + 60,
                                &st), 1);
    shared_close(&sh);
}

/*
 * Processes counting at once lose no hit and repeat none; one killed at
 * any moment (holding a lock, possibly) does not stop the others.
 */
static void test_table_shared_by_processes(void **state)
{
    enum { PROCS = 4, HITS = 50000 };
    unit_db *db = *state;
    acct_rate_state st;
    shared sh;
    pid_t pids[PROCS], victim;
    int i, status, round, start[2];

    shared_open(&sh, db->pool, 64);
    /* The children start together, when the parent closes the pipe. */
    assert_int_equal(pipe(start), 0);
    for (i = 0; i < PROCS; i++) {
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0) {
            char none;
            int n;

            close(start[1]);
            if (acct_rate_locks_child_init(sh.locks, db->pool)
                != APR_SUCCESS || read(start[0], &none, 1) != 0) {
                _exit(3);
            }
            for (n = 0; n < HITS; n++) {
                if (shared_hit(&sh, "user:7:other", 1000000, NOW, &st) != 0) {
                    _exit(2);
                }
            }
            _exit(0);
        }
    }
    close(start[0]);
    close(start[1]);
    for (i = 0; i < PROCS; i++) {
        assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    assert_int_equal(table_hits(&sh, "user:7:other", 1000000, NOW, &st),
                     PROCS * HITS + 1);

    /* Processes killed while counting, again and again. */
    alarm(60);
    for (round = 0; round < 20; round++) {
        victim = fork();
        assert_true(victim >= 0);
        if (victim == 0) {
            for (;;) {
                shared_hit(&sh, "user:8:other", 1000000, NOW, &st);
            }
        }
        usleep(2000 + (useconds_t)(round * 500));
        kill(victim, SIGKILL);
        assert_int_equal(waitpid(victim, &status, 0), victim);
        assert_int_equal(shared_hit(&sh, "user:8:other", 1000000, NOW, &st),
                         0);
    }
    alarm(0);
    shared_close(&sh);
}

/*
 * A process killed while it certainly holds the locks, every stripe of
 * them: the next process to count is not stopped (alarm() fails the test
 * if it waits).
 */
static void test_table_lock_holder_killed(void **state)
{
    unit_db *db = *state;
    acct_rate_state st;
    shared sh;
    int fds[2], i, status;
    pid_t holder;
    char ready;

    shared_open(&sh, db->pool, 1024);
    assert_int_equal(table_hits(&sh, "user:9:other", 10, NOW, &st), 1);
    assert_int_equal(pipe(fds), 0);
    holder = fork();
    assert_true(holder >= 0);
    if (holder == 0) {
        for (i = 0; i < ACCT_RATE_LOCKS; i++) {
            if (apr_global_mutex_lock(sh.locks->stripe[i]) != APR_SUCCESS) {
                _exit(2);
            }
        }
        if (write(fds[1], "x", 1) != 1) {
            _exit(2);
        }
        for (;;) {
            pause();
        }
    }
    assert_int_equal(read(fds[0], &ready, 1), 1);
    kill(holder, SIGKILL);
    assert_int_equal(waitpid(holder, &status, 0), holder);
    assert_true(WIFSIGNALED(status));
    close(fds[0]);
    close(fds[1]);
    alarm(10);
    assert_int_equal(table_hits(&sh, "user:9:other", 10, NOW, &st), 2);
    for (i = 0; i < 64; i++) {
        char name[32];

        snprintf(name, sizeof(name), "user:%d:list", 100 + i);
        assert_int_equal(table_hits(&sh, name, 10, NOW, &st), 1);
    }
    alarm(0);
    shared_close(&sh);
}

/*
 * Threads of one process spending one budget at once (as an event MPM
 * child's do) never overspend it: of THREADS * THREAD_HITS requests
 * against LIMIT, exactly LIMIT succeed, and each of them was given its own
 * number within the budget.  The threads start together, so they do race.
 */
enum { THREADS = 8, THREAD_HITS = 100000, LIMIT = 400000 };

typedef struct spender {
    shared *sh;
    volatile apr_uint32_t *go;
    apr_int64_t *numbers;     /* the numbers of its requests that passed */
    int passed;
    int failed;
} spender;

static void *APR_THREAD_FUNC spend(apr_thread_t *thread, void *data)
{
    spender *sp = data;
    acct_rate_state st;
    int n;

    while (!apr_atomic_read32(sp->go)) {
        apr_thread_yield();
    }
    for (n = 0; n < THREAD_HITS; n++) {
        if (shared_hit(sp->sh, "user:11:other", LIMIT, NOW, &st) != 0) {
            sp->failed++;
        }
        else if (!st.exceeded) {
            sp->numbers[sp->passed++] = st.limit - st.remaining;
        }
    }
    apr_thread_exit(thread, APR_SUCCESS);
    return NULL;
}

static void test_table_threads_never_overspend(void **state)
{
    unit_db *db = *state;
    apr_thread_t *threads[THREADS];
    spender spenders[THREADS];
    volatile apr_uint32_t go = 0;
    unsigned char *seen = apr_pcalloc(db->pool, LIMIT + 1);
    acct_rate_state st;
    apr_status_t rv;
    shared sh;
    int i, n, passed = 0;

    shared_open(&sh, db->pool, 1024);
    for (i = 0; i < THREADS; i++) {
        spenders[i].sh = &sh;
        spenders[i].go = &go;
        spenders[i].numbers = apr_palloc(db->pool, THREAD_HITS
                                         * sizeof(apr_int64_t));
        spenders[i].passed = spenders[i].failed = 0;
        assert_int_equal(apr_thread_create(&threads[i], NULL, spend,
                                           &spenders[i], db->pool),
                         APR_SUCCESS);
    }
    apr_atomic_set32(&go, 1);
    for (i = 0; i < THREADS; i++) {
        assert_int_equal(apr_thread_join(&rv, threads[i]), APR_SUCCESS);
        assert_int_equal(spenders[i].failed, 0);
        for (n = 0; n < spenders[i].passed; n++) {
            apr_int64_t number = spenders[i].numbers[n];

            assert_true(number >= 1 && number <= LIMIT);
            assert_false(seen[number]);
            seen[number] = 1;
        }
        passed += spenders[i].passed;
    }
    assert_int_equal(passed, LIMIT);
    assert_int_equal(shared_hit(&sh, "user:11:other", LIMIT, NOW, &st), 0);
    assert_true(st.exceeded);
    assert_int_equal(st.remaining, 0);
    shared_close(&sh);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_DB_TEST(test_exact_count_and_headers),
        UNIT_DB_TEST(test_buckets_are_separate),
        UNIT_DB_TEST(test_new_window_starts_afresh_and_expires_old),
        UNIT_DB_TEST(test_bucket_names),
        UNIT_DB_TEST(test_table_count_and_headers),
        UNIT_DB_TEST(test_table_full_group),
        UNIT_DB_TEST(test_table_shared_by_processes),
        UNIT_DB_TEST(test_table_lock_holder_killed),
        UNIT_DB_TEST(test_table_threads_never_overspend),
    };

    return UNIT_DB_RUN(tests);
}
