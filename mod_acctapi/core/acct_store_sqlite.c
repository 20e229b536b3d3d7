/*
 * The sqlite3 driver of the store: apr_dbd opens the connection, sqlite3
 * runs the SQL on the driver's native handle.
 */
#include "acct_store_driver.h"
#include "acct_log.h"

#include <apr_global_mutex.h>
#include <apr_strings.h>
#include <apr_tables.h>
#include <apr_time.h>
#include <ctype.h>
#include <sqlite3.h>
#include <string.h>

/* How long a native sqlite3 statement waits on a busy database, in total. */
#define SQLITE_BUSY_WAIT_US (2 * APR_USEC_PER_SEC)
#define SQLITE_BUSY_STEP_US (20 * 1000)

/* Beyond this many distinct dynamic texts a connection stops keeping them
 * (filters combine into many). */
#define SQLITE_DYNAMIC_KEPT_MAX 200


/*
 * Settings every sqlite3 connection needs.  No busy_timeout: apr_dbd holds a
 * process-wide mutex around each statement and retries busy databases itself
 * with the mutex released; a busy_timeout would wait inside that mutex and
 * stall every other thread of the process.
 */
static const char sqlite_connection_setup[] =
    "PRAGMA foreign_keys = ON; PRAGMA journal_mode = WAL;";

static void sqlite_finalize_each(apr_hash_t *statements)
{
    apr_hash_index_t *hi;

    for (hi = apr_hash_first(NULL, statements); hi; hi = apr_hash_next(hi)) {
        void *stmt = NULL;

        apr_hash_this(hi, NULL, NULL, &stmt);
        sqlite3_finalize(stmt);
    }
    apr_hash_clear(statements);
}

static apr_status_t sqlite_finalize_all(void *data)
{
    conn_state *cs = data;

    sqlite_finalize_each(cs->prepared);
    sqlite_finalize_each(cs->dynamic);
    return APR_SUCCESS;
}

/*
 * The apr_dbd sqlite3 driver prepares with the legacy sqlite3_prepare (a
 * cached statement fails for good once any process changes the schema),
 * keeps every statement until the connection closes, and serialises all
 * statements of the process behind one mutex.  So statements go through
 * sqlite3_prepare_v2 on the driver's native handle instead.
 */

static sqlite3 *sqlite_db(const acct_store *st)
{
    return apr_dbd_native_handle(st->driver, st->handle);
}

/*
 * The writers' turn (acct_store_set_limits): taken before a write, held to
 * the end of its transaction.  Within the gate SQLite's own lock is free
 * unless a process outside the server (acctapi-admin) writes, which the
 * patient stepping below waits out.
 */
static acct_store_rc sqlite_gate_take(acct_store *st)
{
    apr_status_t rv;

    if (!st->writer_gate || st->gate_held) {
        return ACCT_STORE_OK;
    }
    rv = st->wait_limit
         ? apr_global_mutex_timedlock(st->writer_gate, st->wait_limit)
         : apr_global_mutex_lock(st->writer_gate);
    if (rv == APR_SUCCESS) {
        st->gate_held = 1;
        return ACCT_STORE_OK;
    }
    if (APR_STATUS_IS_TIMEUP(rv)) {
        st->gave_up = 1;
        acct_log(ACCT_LOG_WARN, ACCTLOGNO(00101) "database unavailable: no "
                 "turn to write within %" APR_INT64_T_FMT " ms",
                 (apr_int64_t)apr_time_as_msec(st->wait_limit));
        return ACCT_STORE_UNAVAILABLE;
    }
    acct_log(ACCT_LOG_ERR, ACCTLOGNO(00102) "database error: the writers' "
             "lock failed (%d)", rv);
    return ACCT_STORE_FAILED;
}

static void sqlite_gate_give(acct_store *st)
{
    if (st->gate_held) {
        st->gate_held = 0;
        apr_global_mutex_unlock(st->writer_gate);
    }
}

static acct_store_rc sqlite_error(acct_store *st, int rc, const char *what)
{
    int primary = rc & 0xff;
    acct_store_rc out = (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
                        ? ACCT_STORE_UNAVAILABLE : ACCT_STORE_FAILED;

    acct_log(out == ACCT_STORE_UNAVAILABLE ? ACCT_LOG_WARN : ACCT_LOG_ERR,
             ACCTLOGNO(00029) "database %s: %s failed (%d): %s",
             out == ACCT_STORE_UNAVAILABLE ? "unavailable" : "error", what, rc,
             sqlite3_errmsg(sqlite_db(st)));
    return out;
}

/* apr_dbd parameter markers (%s, %d ... and %% for %) to sqlite3's "?". */
static char *sqlite_markers(apr_pool_t *pool, const char *sql)
{
    char *out = apr_palloc(pool, strlen(sql) + 1), *o = out;
    const char *p;

    for (p = sql; *p; p++) {
        if (p[0] == '%' && isalpha((unsigned char)p[1])) {
            *o++ = '?';
            p++;
        }
        else if (p[0] == '%' && p[1] == '%') {
            *o++ = '%';
            p++;
        }
        else {
            *o++ = *p;
        }
    }
    *o = '\0';
    return out;
}

/* Steps, waiting out a writer of another process for a bounded time. */
static int sqlite_step_patiently(sqlite3_stmt *stmt)
{
    apr_interval_time_t waited = 0;
    int rc;

    while ((rc = sqlite3_step(stmt)) == SQLITE_BUSY
           && waited < SQLITE_BUSY_WAIT_US) {
        sqlite3_reset(stmt);
        apr_sleep(SQLITE_BUSY_STEP_US);
        waited += SQLITE_BUSY_STEP_US;
    }
    return rc;
}

static acct_store_rc sqlite_prepare(acct_store *st, apr_pool_t *pool,
                                    const char *sql, const char *what,
                                    sqlite3_stmt **out)
{
    int rc = sqlite3_prepare_v2(sqlite_db(st), sqlite_markers(pool, sql),
                                -1, out, NULL);

    if (rc != SQLITE_OK) {
        sqlite3_finalize(*out);
        *out = NULL;
        return sqlite_error(st, rc, what);
    }
    return ACCT_STORE_OK;
}

/* A catalogue statement, prepared once per connection. */
static acct_store_rc sqlite_prepared(acct_store *st, const acct_sql *sql,
                                     sqlite3_stmt **out)
{
    sqlite3_stmt *stmt = apr_hash_get(st->conn->prepared, &sql, sizeof(sql));
    acct_store_rc rc;

    if (!stmt) {
        rc = sqlite_prepare(st, st->conn_pool, acct_store_sql_text(st, sql), sql->name,
                            &stmt);
        if (rc != ACCT_STORE_OK) {
            return rc;
        }
        apr_hash_set(st->conn->prepared,
                     apr_pmemdup(st->conn_pool, &sql, sizeof(sql)),
                     sizeof(sql), stmt);
    }
    *out = stmt;
    return ACCT_STORE_OK;
}

/* Binds, steps to the end, and leaves the statement reset for reuse. */
static acct_store_rc sqlite_run(acct_store *st, apr_pool_t *pool,
                                sqlite3_stmt *stmt, const char *what,
                                int nargs, const char *const *args,
                                acct_rows **out, int *affected)
{
    apr_array_header_t *all = NULL;
    acct_rows *rows = NULL;
    acct_store_rc result = ACCT_STORE_OK;
    int rc = SQLITE_OK, i, c;
    /* A write outside a transaction takes its turn for itself. */
    int own_turn = !st->in_tx && !st->gate_held && !sqlite3_stmt_readonly(stmt);

    if (own_turn && (result = sqlite_gate_take(st)) != ACCT_STORE_OK) {
        return result;
    }
    st->exchanges++;

    for (i = 0; i < nargs && rc == SQLITE_OK; i++) {
        rc = args[i] ? sqlite3_bind_text(stmt, i + 1, args[i], -1,
                                         SQLITE_TRANSIENT)
                     : sqlite3_bind_null(stmt, i + 1);
    }
    if (rc != SQLITE_OK) {
        result = sqlite_error(st, rc, what);
        goto leave;
    }
    if (out) {
        rows = apr_pcalloc(pool, sizeof(*rows));
        rows->ncols = sqlite3_column_count(stmt);
        rows->names = apr_pcalloc(pool, sizeof(char *) * (rows->ncols + 1));
        for (c = 0; c < rows->ncols; c++) {
            rows->names[c] = apr_pstrdup(pool, sqlite3_column_name(stmt, c));
        }
        all = apr_array_make(pool, 16, sizeof(const char **));
    }
    while ((rc = sqlite_step_patiently(stmt)) == SQLITE_ROW) {
        const char **vals;

        if (!out) {
            continue;
        }
        vals = apr_pcalloc(pool, sizeof(char *) * (rows->ncols + 1));
        for (c = 0; c < rows->ncols; c++) {
            /* NULL for SQL NULL: no sqlite3_column_type first, since each
             * call takes the connection's mutex (a 500-record page made
             * 13,000 calls, a sixth of its instructions in the mutex). */
            vals[c] = apr_pstrdup(pool,
                                  (const char *)sqlite3_column_text(stmt, c));
        }
        APR_ARRAY_PUSH(all, const char **) = vals;
    }
    if (rc != SQLITE_DONE) {
        result = sqlite_error(st, rc, what);
        goto leave;
    }
    if (out) {
        rows->nrows = all->nelts;
        rows->values = (const char ***)all->elts;
        *out = rows;
    }
    if (affected) {
        *affected = sqlite3_changes(sqlite_db(st));
    }
leave:
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    if (own_turn) {
        sqlite_gate_give(st);
    }
    return result;
}

static acct_store_rc sqlite_native_script(acct_store *st, const char *sql)
{
    apr_interval_time_t waited = 0;
    int rc;

    st->exchanges++;
    while ((rc = sqlite3_exec(sqlite_db(st), sql, NULL, NULL, NULL))
           == SQLITE_BUSY && waited < SQLITE_BUSY_WAIT_US) {
        apr_sleep(SQLITE_BUSY_STEP_US);
        waited += SQLITE_BUSY_STEP_US;
    }
    if (rc != SQLITE_OK) {
        return sqlite_error(st, rc, "script");
    }
    return ACCT_STORE_OK;
}

static int sqlite_conn_init(acct_store *st, conn_state *cs)
{
    cs->prepared = apr_hash_make(st->conn_pool);
    cs->dynamic = apr_hash_make(st->conn_pool);
    /* Registered after the driver's own close: runs before it. */
    apr_pool_cleanup_register(st->conn_pool, cs, sqlite_finalize_all,
                              apr_pool_cleanup_null);
    return 0;
}

static acct_store_rc sqlite_first_use(acct_store *st)
{
    return sqlite_native_script(st, sqlite_connection_setup);
}

static acct_store_rc sqlite_catalogued(acct_store *st, apr_pool_t *pool,
                                       const acct_sql *sql, int nargs,
                                       const char *const *args,
                                       acct_rows **out, int *affected)
{
    sqlite3_stmt *stmt = NULL;
    acct_store_rc rc = sqlite_prepared(st, sql, &stmt);

    return rc != ACCT_STORE_OK ? rc : sqlite_run(st, pool, stmt, sql->name,
                                                 nargs, args, out, affected);
}

/*
 * A statement built per request (lists with filters): kept by its text for
 * the connection's next runs, as catalogue statements are (parsing one
 * costs SQLite more than running it), until the connection has met too
 * many distinct texts; then prepared for this run only.  sqlite3_prepare_v2
 * statements prepare themselves again after a schema change.
 */
static acct_store_rc sqlite_dynamic(acct_store *st, apr_pool_t *pool,
                                    const char *sql, const char *what,
                                    int nargs, const char *const *args,
                                    acct_rows **out)
{
    apr_hash_t *kept = st->conn->dynamic;
    sqlite3_stmt *stmt = apr_hash_get(kept, sql, APR_HASH_KEY_STRING);
    int keep = stmt || apr_hash_count(kept) < SQLITE_DYNAMIC_KEPT_MAX;
    acct_store_rc rc = ACCT_STORE_OK;

    if (!stmt) {
        rc = sqlite_prepare(st, pool, sql, what, &stmt);
        if (rc != ACCT_STORE_OK) {
            return rc;
        }
        if (keep) {
            apr_hash_set(kept, apr_pstrdup(st->conn_pool, sql),
                         APR_HASH_KEY_STRING, stmt);
        }
    }
    rc = sqlite_run(st, pool, stmt, what, nargs, args, out, NULL);
    if (!keep) {
        sqlite3_finalize(stmt);
    }
    return rc;
}

static acct_store_rc sqlite_script(acct_store *st, apr_pool_t *pool,
                                   const char *sql)
{
    (void)pool;
    return sqlite_native_script(st, sql);
}

/* Writers queue at the writers' gate, then at BEGIN IMMEDIATE, instead of
 * failing at their first write. */
static acct_store_rc sqlite_begin(acct_store *st)
{
    acct_store_rc rc = sqlite_gate_take(st);

    if (rc == ACCT_STORE_OK) {
        rc = sqlite_native_script(st, "BEGIN IMMEDIATE");
    }
    if (rc == ACCT_STORE_OK) {
        st->in_tx = 1;
    }
    else {
        sqlite_gate_give(st);
    }
    return rc;
}

const acct_store_driver acct_store_sqlite = {
    "sqlite3", ACCT_DIALECT_SQLITE, sqlite_conn_init, sqlite_first_use,
    sqlite_catalogued, sqlite_dynamic, sqlite_script, sqlite_begin,
    sqlite_gate_give, NULL
};
