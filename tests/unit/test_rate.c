/* Rate-limit counters on a migrated SQLite database: exact counts, the
 * headers' values, separate buckets, window turnover and housekeeping. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <apr_dbd.h>
#include <apr_general.h>
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

static acct_rate_table *shared_table(apr_size_t slots, void **mem,
                                     apr_size_t *size)
{
    acct_rate_table *t;
    int err = 0;

    *size = acct_rate_table_size(slots);
    *mem = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                -1, 0);
    assert_true(*mem != MAP_FAILED);
    t = acct_rate_table_init(*mem, slots, &err);
    assert_non_null(t);
    return t;
}

static apr_int64_t table_hits(acct_rate_table *t, const char *bucket,
                              apr_int64_t limit, apr_int64_t now,
                              acct_rate_state *st)
{
    assert_int_equal(acct_rate_table_hit(t, bucket, limit, now, st), 0);
    return st->limit - st->remaining;
}

/* The same counts and headers as the database's. */
static void test_table_count_and_headers(void **state)
{
    acct_rate_state st;
    apr_size_t size;
    void *mem;
    acct_rate_table *t = shared_table(1024, &mem, &size);
    int i;

    (void)state;
    for (i = 1; i <= 3; i++) {
        assert_int_equal(table_hits(t, "user:1:other", 3, NOW, &st), i);
        assert_false(st.exceeded);
        assert_int_equal(st.reset, WINDOW + 60);
        assert_int_equal(st.retry_after, 50);
    }
    assert_int_equal(acct_rate_table_hit(t, "user:1:other", 3, NOW, &st), 0);
    assert_true(st.exceeded);
    assert_int_equal(st.remaining, 0);
    /* Other buckets count alone; the next window starts afresh. */
    assert_int_equal(table_hits(t, "user:1:list", 3, NOW, &st), 1);
    assert_int_equal(table_hits(t, "user:2:other", 3, NOW, &st), 1);
    assert_int_equal(table_hits(t, "user:1:other", 3, NOW + 60, &st), 1);
    assert_int_equal(st.reset, WINDOW + 120);
    munmap(mem, size);
}

/*
 * A group full of current windows refuses (the caller counts in the
 * database); once those windows end, their slots are reused.
 */
static void test_table_full_group(void **state)
{
    acct_rate_state st;
    apr_size_t size;
    void *mem;
    /* One group of 16 slots. */
    acct_rate_table *t = shared_table(16, &mem, &size);
    char name[32];
    int i;

    (void)state;
    for (i = 0; i < 16; i++) {
        snprintf(name, sizeof(name), "addr:192.0.2.%d:other", i);
        assert_int_equal(table_hits(t, name, 10, NOW, &st), 1);
    }
    assert_int_equal(acct_rate_table_hit(t, "addr:198.51.100.1:other", 10,
                                         NOW, &st), -1);
    /* The buckets already there still count. */
    assert_int_equal(table_hits(t, "addr:192.0.2.3:other", 10, NOW, &st), 2);
    assert_int_equal(table_hits(t, "addr:198.51.100.1:other", 10, NOW + 60,
                                &st), 1);
    munmap(mem, size);
}

/*
 * Processes counting at once lose no hit and repeat none; one killed at
 * any moment (holding a lock, possibly) does not stop the others.
 */
static void test_table_shared_by_processes(void **state)
{
    enum { PROCS = 4, HITS = 5000 };
    acct_rate_state st;
    apr_size_t size;
    void *mem;
    acct_rate_table *t = shared_table(64, &mem, &size);
    pid_t pids[PROCS], victim;
    int i, status, round;

    (void)state;
    for (i = 0; i < PROCS; i++) {
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0) {
            int n;

            for (n = 0; n < HITS; n++) {
                if (acct_rate_table_hit(t, "user:7:other", 1000000, NOW,
                                        &st) != 0) {
                    _exit(2);
                }
            }
            _exit(0);
        }
    }
    for (i = 0; i < PROCS; i++) {
        assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    assert_int_equal(table_hits(t, "user:7:other", 1000000, NOW, &st),
                     PROCS * HITS + 1);

    /* Processes killed while counting, again and again. */
    alarm(60);
    for (round = 0; round < 20; round++) {
        victim = fork();
        assert_true(victim >= 0);
        if (victim == 0) {
            for (;;) {
                acct_rate_table_hit(t, "user:8:other", 1000000, NOW, &st);
            }
        }
        usleep(2000 + (useconds_t)(round * 500));
        kill(victim, SIGKILL);
        assert_int_equal(waitpid(victim, &status, 0), victim);
        assert_int_equal(acct_rate_table_hit(t, "user:8:other", 1000000, NOW,
                                             &st), 0);
    }
    alarm(0);
    munmap(mem, size);
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
    };

    return UNIT_DB_RUN(tests);
}
