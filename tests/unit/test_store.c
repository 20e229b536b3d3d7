/* The storage layer through the real apr_dbd sqlite3 driver. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_dbd.h>
#include <apr_strings.h>
#include <string.h>

#include "unit_db.h"
#include "acct_clock.h"
#include "acct_ident.h"
#include "acct_migrate.h"
#include "acct_tokens.h"

static const acct_sql q_make = ACCT_SQL("t_make",
    "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE, note TEXT)");
static const acct_sql q_insert = ACCT_SQL("t_insert",
    "INSERT INTO t (name, note) VALUES (%s, %s)"
    " ON CONFLICT DO NOTHING RETURNING id");
static const acct_sql q_by_name = ACCT_SQL("t_by_name",
    "SELECT id, name, note FROM t WHERE name = %s");
static const acct_sql q_count = ACCT_SQL("t_count",
    "SELECT count(*) AS n FROM t");
static const acct_sql q_like = ACCT_SQL("t_like",
    "SELECT count(*) AS n FROM t WHERE name LIKE '100%%'");
static const acct_sql q_update = ACCT_SQL("t_update",
    "UPDATE t SET note = %s WHERE name = %s");
static const acct_sql q_broken = ACCT_SQL("t_broken",
    "SELECT no_such_column FROM t");

static int setup(void **state)
{
    unit_db *db = unit_db_open();

    assert_int_equal(acct_store_exec(db->store, db->pool, &q_make, NULL, 0,
                                     NULL), ACCT_STORE_OK);
    *state = db;
    return 0;
}

static int teardown(void **state)
{
    unit_db_close(*state);
    return 0;
}

static int count_rows(unit_db *db)
{
    acct_rows *rows = NULL;

    assert_int_equal(acct_store_select(db->store, db->pool, &q_count, &rows, 0,
                                       NULL), ACCT_STORE_OK);
    return atoi(acct_rows_get(rows, 0, "n"));
}

static const char *insert(unit_db *db, const char *name, const char *note)
{
    const char *args[2] = {name, note};
    acct_rows *rows = NULL;

    assert_int_equal(acct_store_select(db->store, db->pool, &q_insert, &rows, 2,
                                       args), ACCT_STORE_OK);
    return rows->nrows ? acct_rows_get(rows, 0, "id") : NULL;
}

static void test_null_round_trip(void **state)
{
    unit_db *db = *state;
    const char *args[1] = {"alpha"};
    acct_rows *rows = NULL;

    assert_non_null(insert(db, "alpha", NULL));
    assert_int_equal(acct_store_select(db->store, db->pool, &q_by_name, &rows,
                                       1, args), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    assert_int_equal(rows->ncols, 3);
    assert_string_equal(acct_rows_get(rows, 0, "name"), "alpha");
    /* SQL NULL is a NULL pointer, never "" */
    assert_null(acct_rows_get(rows, 0, "note"));
    assert_null(acct_rows_get(rows, 0, "no_such_column"));
    assert_null(acct_rows_get(rows, 5, "name"));
}

static void test_empty_string_is_not_null(void **state)
{
    unit_db *db = *state;
    const char *args[1] = {"beta"};
    acct_rows *rows = NULL;

    insert(db, "beta", "");
    assert_int_equal(acct_store_select(db->store, db->pool, &q_by_name, &rows,
                                       1, args), ACCT_STORE_OK);
    assert_non_null(acct_rows_get(rows, 0, "note"));
    assert_string_equal(acct_rows_get(rows, 0, "note"), "");
}

static void test_conflict_returns_no_row(void **state)
{
    unit_db *db = *state;

    assert_non_null(insert(db, "dup", "1"));
    assert_null(insert(db, "dup", "2"));
    assert_int_equal(count_rows(db), 1);
}

static void test_hostile_values_stay_values(void **state)
{
    unit_db *db = *state;
    static const char *const hostile[] = {
        "'; DROP TABLE t; --", "%s %d %%", "\\", "\"quoted\"", "100%",
        "ünïcødé ✓"
    };
    const char *args[1];
    acct_rows *rows = NULL;
    size_t i;

    for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
        assert_non_null(insert(db, hostile[i], hostile[i]));
        args[0] = hostile[i];
        assert_int_equal(acct_store_select(db->store, db->pool, &q_by_name,
                                           &rows, 1, args), ACCT_STORE_OK);
        assert_int_equal(rows->nrows, 1);
        assert_string_equal(acct_rows_get(rows, 0, "note"), hostile[i]);
    }
    /* '%%' in a statement is a literal percent sign */
    assert_int_equal(acct_store_select(db->store, db->pool, &q_like, &rows, 0,
                                       NULL), ACCT_STORE_OK);
    assert_string_equal(acct_rows_get(rows, 0, "n"), "1");
}

static void test_affected_rows(void **state)
{
    unit_db *db = *state;
    const char *args[2] = {"changed", "gamma"};
    int affected = -1;

    insert(db, "gamma", "x");
    assert_int_equal(acct_store_exec(db->store, db->pool, &q_update, &affected,
                                     2, args), ACCT_STORE_OK);
    assert_int_equal(affected, 1);
    args[1] = "nobody";
    assert_int_equal(acct_store_exec(db->store, db->pool, &q_update, &affected,
                                     2, args), ACCT_STORE_OK);
    assert_int_equal(affected, 0);
}

static void test_failure_is_reported(void **state)
{
    unit_db *db = *state;
    acct_rows *rows = NULL;

    assert_int_equal(acct_store_select(db->store, db->pool, &q_broken, &rows, 0,
                                       NULL), ACCT_STORE_FAILED);
    assert_int_equal(acct_store_select_dynamic(db->store, db->pool,
                                               "SELECT nope FROM t", &rows, 0,
                                               NULL), ACCT_STORE_FAILED);
}

static void test_dynamic_select(void **state)
{
    unit_db *db = *state;
    const char *args[2] = {"d%", NULL};
    acct_rows *rows = NULL;

    insert(db, "d1", "a");
    insert(db, "d2", NULL);
    insert(db, "e1", "b");
    assert_int_equal(acct_store_select_dynamic(db->store, db->pool,
        "SELECT name, note FROM t WHERE name LIKE %s ORDER BY name",
        &rows, 1, args), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 2);
    assert_string_equal(rows->values[0][0], "d1");
    assert_null(rows->values[1][1]);
    /* a NULL argument binds SQL NULL */
    assert_int_equal(acct_store_select_dynamic(db->store, db->pool,
        "SELECT count(*) AS n FROM t WHERE note IS %s", &rows, 1, args + 1),
        ACCT_STORE_OK);
    assert_string_equal(acct_rows_get(rows, 0, "n"), "1");
}

/*
 * acct_store_select_with of q_by_name for `name`: the lookup must succeed
 * with `found` rows, and `also` end with `also_rc`; its rows are returned.
 */
static acct_rows *select_with(unit_db *db, const char *name, int found,
                              acct_store_read *also, acct_store_rc also_rc)
{
    const char *args[1] = {name};
    acct_rows *rows = NULL;

    assert_int_equal(acct_store_select_with(db->store, db->pool, &q_by_name,
                                            &rows, 1, args, also),
                     ACCT_STORE_OK);
    assert_int_equal(rows->nrows, found);
    assert_int_equal(also->rc, also_rc);
    return also->rows;
}

/* A read sent with a lookup: kept only when the lookup found a row, its
 * failure its own, and each statement one exchange on sqlite3. */
static void test_select_with(void **state)
{
    unit_db *db = *state;
    const char *also_args[1] = {"w%"};
    acct_store_read also;
    acct_rows *rows = NULL, *read;
    unsigned before, setup = 7;

    insert(db, "w1", "a");
    insert(db, "w2", "b");
    memset(&also, 0, sizeof(also));
    also.sql = "SELECT name FROM t WHERE name LIKE %s ORDER BY name";
    also.nargs = 1;
    also.args = also_args;
    before = acct_store_exchanges(db->store, &setup);
    assert_int_equal(setup, 0);
    read = select_with(db, "w1", 1, &also, ACCT_STORE_OK);
    assert_non_null(read);
    assert_int_equal(read->nrows, 2);
    assert_string_equal(read->values[1][0], "w2");
    assert_int_equal(acct_store_exchanges(db->store, NULL), before + 2);

    /* Nothing found: the read is not wanted, and sqlite3 skips it. */
    assert_null(select_with(db, "nobody", 0, &also, ACCT_STORE_OK));
    assert_int_equal(acct_store_exchanges(db->store, NULL), before + 3);

    /* The read fails on its own: the lookup still answers. */
    also.sql = "SELECT nope FROM t WHERE name = %s";
    assert_null(select_with(db, "w1", 1, &also, ACCT_STORE_FAILED));

    /* The lookup fails: that is the outcome, and the read is not run. */
    also.sql = "SELECT name FROM t WHERE name LIKE %s";
    assert_int_equal(acct_store_select_with(db->store, db->pool, &q_broken,
                                            &rows, 0, NULL, &also),
                     ACCT_STORE_FAILED);
    assert_null(also.rows);
}

static void test_transactions(void **state)
{
    unit_db *db = *state;

    assert_int_equal(acct_store_begin(db->store, db->pool), ACCT_STORE_OK);
    assert_true(acct_store_in_tx(db->store));
    insert(db, "rolled", "back");
    assert_int_equal(acct_store_rollback(db->store, db->pool), ACCT_STORE_OK);
    assert_false(acct_store_in_tx(db->store));
    assert_int_equal(count_rows(db), 0);

    assert_int_equal(acct_store_begin(db->store, db->pool), ACCT_STORE_OK);
    insert(db, "kept", "yes");
    assert_int_equal(acct_store_commit(db->store, db->pool), ACCT_STORE_OK);
    assert_int_equal(count_rows(db), 1);
}

/* A request pool that dies mid-transaction must not leave it open. */
static void test_tx_guard_rolls_back(void **state)
{
    unit_db *db = *state;
    apr_pool_t *request = NULL;

    apr_pool_create(&request, db->pool);
    acct_store_tx_guard(db->store, request);
    assert_int_equal(acct_store_begin(db->store, request), ACCT_STORE_OK);
    insert(db, "orphan", "x");
    apr_pool_destroy(request);
    assert_false(acct_store_in_tx(db->store));
    assert_int_equal(count_rows(db), 0);
    /* and the connection is usable for a new transaction */
    assert_int_equal(acct_store_begin(db->store, db->pool), ACCT_STORE_OK);
    assert_int_equal(acct_store_commit(db->store, db->pool), ACCT_STORE_OK);
}

/*
 * Writers queue on the gate: a second store that cannot get its turn within
 * its wait limit is "unavailable" at once, without touching SQLite's lock,
 * and gets it as soon as the first writer commits.  A write outside a
 * transaction takes its turn too; reads never wait.
 */
static void test_writer_gate(void **state)
{
    unit_db *db = *state;
    apr_global_mutex_t *gate = NULL;
    acct_store *other = NULL;
    apr_pool_t *other_pool = NULL;
    const char *err = NULL;
    const char *args[2] = {"late", "note"};
    apr_time_t started;

    assert_int_equal(apr_global_mutex_create(&gate, NULL,
                                             APR_LOCK_DEFAULT_TIMED, db->pool),
                     APR_SUCCESS);
    /* A connection of its own lives in a pool of its own (its statements
     * are kept in its pool). */
    apr_pool_create(&other_pool, db->pool);
    assert_int_equal(acct_store_open(&other, other_pool, "sqlite3", db->path,
                                     &err), ACCT_STORE_OK);
    acct_store_set_limits(db->store, apr_time_from_msec(200), gate);
    acct_store_set_limits(other, apr_time_from_msec(200), gate);

    assert_int_equal(acct_store_begin(db->store, db->pool), ACCT_STORE_OK);
    insert(db, "first", "x");

    started = apr_time_now();
    assert_int_equal(acct_store_begin(other, db->pool),
                     ACCT_STORE_UNAVAILABLE);
    assert_false(acct_store_in_tx(other));
    assert_int_equal(acct_store_exec(other, db->pool, &q_update, NULL, 2,
                                     args), ACCT_STORE_UNAVAILABLE);
    /* Two waits of 200 ms each, not SQLite's busy retries of seconds. */
    assert_true(apr_time_now() - started < apr_time_from_msec(1500));
    /* Reading needs no turn. */
    assert_int_equal(acct_store_select(other, db->pool, &q_count, NULL, 0,
                                       NULL), ACCT_STORE_OK);

    assert_int_equal(acct_store_commit(db->store, db->pool), ACCT_STORE_OK);
    assert_int_equal(acct_store_begin(other, db->pool), ACCT_STORE_OK);
    assert_int_equal(acct_store_exec(other, db->pool, &q_update, NULL, 2,
                                     args), ACCT_STORE_OK);
    assert_int_equal(acct_store_rollback(other, db->pool), ACCT_STORE_OK);
    /* The rollback gave the turn back. */
    assert_non_null(insert(db, "second", "y"));
    assert_int_equal(count_rows(db), 2);
    apr_pool_destroy(other_pool);
}

static void test_migrations(void **state)
{
    unit_db *db = *state;
    int version = -1, from = -1, to = -1;

    assert_true(acct_schema_latest() >= 2);
    assert_int_equal(acct_schema_version(db->store, db->pool, &version),
                     ACCT_STORE_OK);
    assert_int_equal(version, acct_schema_latest());
    /* applying again is a no-op */
    assert_int_equal(acct_migrate(db->store, db->pool, &from, &to),
                     ACCT_STORE_OK);
    assert_int_equal(from, acct_schema_latest());
    assert_int_equal(to, acct_schema_latest());
}

static void test_clock_offset(void **state)
{
    unit_db *db = *state;
    apr_int64_t offset = -1;

    assert_int_equal(acct_clock_offset(db->store, db->pool, &offset),
                     ACCT_STORE_OK);
    assert_int_equal(offset, 0);
    assert_int_equal(acct_clock_set_offset(db->store, db->pool, 1800),
                     ACCT_STORE_OK);
    assert_int_equal(acct_clock_offset(db->store, db->pool, &offset),
                     ACCT_STORE_OK);
    assert_int_equal(offset, 1800);
    assert_int_equal(acct_clock_set_offset(db->store, db->pool, -60),
                     ACCT_STORE_OK);
    assert_int_equal(acct_clock_offset(db->store, db->pool, &offset),
                     ACCT_STORE_OK);
    assert_int_equal(offset, -60);
}

static void test_identities(void **state)
{
    unit_db *db = *state;
    apr_int64_t account, uid, uid2, found, tid, now = 1700000000;
    acct_ident_result res;
    const char *token;

    assert_int_equal(acct_account_create(db->store, db->pool, "Acme", now,
                                         &account, &res), ACCT_IDENT_OK);
    assert_int_equal(acct_account_create(db->store, db->pool, "", now,
                                         &account, &res), ACCT_IDENT_INVALID);
    assert_int_equal(acct_user_create(db->store, db->pool, account, "Alice",
                                      "alice@example.com", 0, now, &uid, &res),
                     ACCT_IDENT_OK);
    /* usernames are unique case-insensitively */
    assert_int_equal(acct_user_create(db->store, db->pool, account, "alice",
                                      "other@example.com", 0, now, &uid2, &res),
                     ACCT_IDENT_CONFLICT);
    assert_int_equal(acct_user_create(db->store, db->pool, account + 99, "bob",
                                      "bob@example.com", 0, now, &uid2, &res),
                     ACCT_IDENT_NOT_FOUND);
    assert_int_equal(acct_user_create(db->store, db->pool, account, "b",
                                      "bob@example.com", 0, now, &uid2, &res),
                     ACCT_IDENT_INVALID);
    assert_int_equal(acct_user_create(db->store, db->pool, account, "bob",
                                      "not-an-email", 0, now, &uid2, &res),
                     ACCT_IDENT_INVALID);
    assert_int_equal(acct_user_find(db->store, db->pool, "ALICE", &found, &res),
                     ACCT_IDENT_OK);
    assert_true(found == uid);
    assert_int_equal(acct_user_find(db->store, db->pool,
                                    apr_psprintf(db->pool, "%" APR_INT64_T_FMT,
                                                 uid), &found, &res),
                     ACCT_IDENT_OK);
    assert_int_equal(acct_user_find(db->store, db->pool, "nobody", &found,
                                    &res), ACCT_IDENT_NOT_FOUND);
    assert_int_equal(acct_token_create(db->store, db->pool, uid, "t", "*", 0,
                                       now, &tid, &token, &res), ACCT_IDENT_OK);
    assert_int_equal(strlen(token), 64);
    assert_int_equal(acct_token_create(db->store, db->pool, uid, "t", "*",
                                       now - 1, now, &tid, &token, &res),
                     ACCT_IDENT_INVALID);
    assert_int_equal(acct_token_create(db->store, db->pool, uid, "", "*", 0,
                                       now, &tid, &token, &res),
                     ACCT_IDENT_INVALID);
}

static void test_parse_i64(void **state)
{
    apr_int64_t v = 0;

    assert_int_equal(acct_parse_i64("42", &v), 0);
    assert_true(v == 42);
    assert_int_equal(acct_parse_i64("-7", &v), 0);
    assert_true(v == -7);
    assert_int_equal(acct_parse_i64("9223372036854775807", &v), 0);
    assert_int_equal(acct_parse_i64("9223372036854775808", &v), -1);
    assert_int_equal(acct_parse_i64("", &v), -1);
    assert_int_equal(acct_parse_i64("-", &v), -1);
    assert_int_equal(acct_parse_i64("1x", &v), -1);
    assert_int_equal(acct_parse_i64(" 1", &v), -1);
    assert_int_equal(acct_parse_i64(NULL, &v), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_null_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_string_is_not_null, setup, teardown),
        cmocka_unit_test_setup_teardown(test_conflict_returns_no_row, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hostile_values_stay_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_affected_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failure_is_reported, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dynamic_select, setup, teardown),
        cmocka_unit_test_setup_teardown(test_select_with, setup, teardown),
        cmocka_unit_test_setup_teardown(test_transactions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tx_guard_rolls_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_writer_gate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migrations, setup, teardown),
        cmocka_unit_test_setup_teardown(test_clock_offset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_identities, setup, teardown),
        cmocka_unit_test(test_parse_i64),
    };

    return UNIT_DB_RUN(tests);
}
