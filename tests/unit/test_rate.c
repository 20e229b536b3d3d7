/* Rate-limit counters on a migrated SQLite database: exact counts, the
 * headers' values, separate buckets, window turnover and housekeeping. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <apr_dbd.h>
#include <apr_general.h>
#include <string.h>

#include "unit_db.h"
#include "acct_rate.h"

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
        assert_int_equal(acct_rate_hit(db->store, db->pool, "token:1:other", 3,
                                       NOW, &s), ACCT_STORE_OK);
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

    assert_int_equal(acct_rate_hit(db->store, db->pool, "token:1:list", 1, NOW,
                                   &s), ACCT_STORE_OK);
    assert_false(s.exceeded);
    assert_int_equal(acct_rate_hit(db->store, db->pool, "token:1:other", 1, NOW,
                                   &s), ACCT_STORE_OK);
    assert_false(s.exceeded);
    assert_int_equal(acct_rate_hit(db->store, db->pool, "token:2:list", 1, NOW,
                                   &s), ACCT_STORE_OK);
    assert_false(s.exceeded);
    assert_int_equal(acct_rate_hit(db->store, db->pool, "token:1:list", 1, NOW,
                                   &s), ACCT_STORE_OK);
    assert_true(s.exceeded);
}

static void test_new_window_starts_afresh_and_expires_old(void **state)
{
    unit_db *db = *state;
    acct_rate_state s;

    assert_int_equal(acct_rate_hit(db->store, db->pool, "addr:192.0.2.1:other",
                                   1, NOW, &s), ACCT_STORE_OK);
    assert_int_equal(acct_rate_hit(db->store, db->pool, "addr:192.0.2.1:other",
                                   1, NOW + 1, &s), ACCT_STORE_OK);
    assert_true(s.exceeded);
    assert_int_equal(acct_rate_hit(db->store, db->pool, "token:9:list", 1,
                                   NOW, &s), ACCT_STORE_OK);
    assert_int_equal(count_rows(db), 2);
    /* The next window: counting starts again, the ended window's rows go. */
    assert_int_equal(acct_rate_hit(db->store, db->pool, "addr:192.0.2.1:other",
                                   1, WINDOW + ACCT_RATE_WINDOW, &s),
                     ACCT_STORE_OK);
    assert_false(s.exceeded);
    assert_int_equal(s.remaining, 0);
    assert_int_equal(s.retry_after, ACCT_RATE_WINDOW);
    assert_int_equal(count_rows(db), 1);
}

static void test_bucket_names(void **state)
{
    unit_db *db = *state;

    assert_string_equal(acct_rate_bucket(db->pool, 42, "192.0.2.1", 1),
                        "token:42:list");
    assert_string_equal(acct_rate_bucket(db->pool, 0, "2001:db8::1", 0),
                        "addr:2001:db8::1:other");
    assert_string_equal(acct_rate_bucket(db->pool, 0, NULL, 0), "addr:-:other");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_DB_TEST(test_exact_count_and_headers),
        UNIT_DB_TEST(test_buckets_are_separate),
        UNIT_DB_TEST(test_new_window_starts_afresh_and_expires_old),
        UNIT_DB_TEST(test_bucket_names),
    };

    return UNIT_DB_RUN(tests);
}
