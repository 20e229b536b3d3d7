/*
 * The store's interface (acct_store.h): what every caller uses, the same for
 * both drivers, which live in acct_store_pgsql.c and acct_store_sqlite.c
 * behind acct_store_driver (acct_store_driver.h).
 */
#include "acct_store_driver.h"
#include "acct_log.h"

#include <apr_strings.h>
#include <string.h>

#define CONN_STATE_KEY "acct_store.conn_state"

static const acct_store_driver *const drivers[] = {
    &acct_store_pgsql, &acct_store_sqlite, NULL
};

static conn_state *conn_state_get(acct_store *st)
{
    void *data = NULL;
    conn_state *cs;

    apr_pool_userdata_get(&data, CONN_STATE_KEY, st->conn_pool);
    if (data) {
        return data;
    }
    cs = apr_pcalloc(st->conn_pool, sizeof(*cs));
    if (st->ops->conn_init(st, cs) != 0) {
        return NULL;
    }
    apr_pool_userdata_setn(cs, CONN_STATE_KEY, NULL, st->conn_pool);
    return cs;
}

acct_store *acct_store_wrap(apr_pool_t *pool, apr_pool_t *conn_pool,
                            const apr_dbd_driver_t *driver, apr_dbd_t *handle)
{
    acct_store *st;
    const char *name = apr_dbd_name(driver);
    void *seen = NULL;

    st = apr_pcalloc(pool, sizeof(*st));
    st->driver = driver;
    st->handle = handle;
    st->conn_pool = conn_pool;
    for (int i = 0; drivers[i]; i++) {
        if (strcmp(name, drivers[i]->name) == 0) {
            st->ops = drivers[i];
        }
    }
    if (!st->ops) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00027) "unsupported apr_dbd driver '%s'", name);
        return NULL;
    }
    st->dialect = st->ops->dialect;
    apr_pool_userdata_get(&seen, CONN_STATE_KEY, conn_pool);
    st->conn = conn_state_get(st);
    if (!st->conn) {
        return NULL;
    }
    if (!seen && st->ops->first_use
        && st->ops->first_use(st) != ACCT_STORE_OK) {
        return NULL;
    }
    return st;
}

static apr_status_t store_close(void *data)
{
    acct_store *st = data;

    apr_dbd_close(st->driver, st->handle);
    return APR_SUCCESS;
}

acct_store_rc acct_store_open(acct_store **out, apr_pool_t *pool,
                              const char *driver_name, const char *params,
                              const char **error)
{
    const apr_dbd_driver_t *driver = NULL;
    apr_dbd_t *handle = NULL;
    const char *err = NULL;
    apr_status_t rv;
    acct_store *st, *closer;

    *out = NULL;
    rv = apr_dbd_get_driver(pool, driver_name, &driver);
    if (rv != APR_SUCCESS) {
        *error = apr_psprintf(pool, "cannot load the apr_dbd driver '%s'%s",
                              driver_name,
                              rv == APR_ENOTIMPL ? " (unknown driver)"
                              : " (install libaprutil1-dbd-sqlite3 or -pgsql)");
        return ACCT_STORE_FAILED;
    }
    rv = apr_dbd_open_ex(driver, pool, params, &handle, &err);
    if (rv != APR_SUCCESS || !handle) {
        *error = apr_psprintf(pool, "cannot connect with driver %s: %s",
                              driver_name, err ? err : "connection refused");
        return ACCT_STORE_UNAVAILABLE;
    }
    /* The close is registered first so that it runs last, after the
     * statements prepared on the connection are finalized. */
    closer = apr_pcalloc(pool, sizeof(*closer));
    closer->driver = driver;
    closer->handle = handle;
    apr_pool_cleanup_register(pool, closer, store_close,
                              apr_pool_cleanup_null);
    st = acct_store_wrap(pool, pool, driver, handle);
    if (!st) {
        *error = apr_psprintf(pool, "driver %s is not supported or its "
                              "connection could not be set up", driver_name);
        return ACCT_STORE_FAILED;
    }
    *out = st;
    return ACCT_STORE_OK;
}

acct_dialect acct_store_dialect(const acct_store *st)
{
    return st->dialect;
}

void acct_store_set_limits(acct_store *st, apr_interval_time_t wait_limit,
                           apr_global_mutex_t *writer_gate)
{
    st->wait_limit = wait_limit > 0 ? wait_limit : 0;
    st->writer_gate = writer_gate;
}

void acct_store_set_named_statements(acct_store *st, int named)
{
    st->unnamed_only = !named;
}

int acct_store_refused_by_server(const acct_store *st)
{
    return st->refused_by_server;
}

int acct_store_lost(acct_store *st)
{
    return st->ops->lost && st->ops->lost(st);
}

int acct_store_gave_up(const acct_store *st)
{
    return st->gave_up;
}

const char *acct_store_sql_text(const acct_store *st, const acct_sql *sql)
{
    return st->dialect == ACCT_DIALECT_PGSQL ? sql->pgsql : sql->sqlite;
}

/* The deferred statement goes before anything else the transaction runs. */
static acct_store_rc run_deferred(acct_store *st)
{
    acct_deferred *d = st->deferred;

    if (!d) {
        return ACCT_STORE_OK;
    }
    st->deferred = NULL;
    return st->ops->run(st, d->pool, d->sql, d->nargs, d->args, NULL, NULL);
}

acct_store_rc acct_store_select(acct_store *st, apr_pool_t *pool,
                                const acct_sql *sql, acct_rows **rows,
                                int nargs, const char *const *args)
{
    acct_store_rc rc = run_deferred(st);

    return rc != ACCT_STORE_OK
           ? rc : st->ops->run(st, pool, sql, nargs, args, rows, NULL);
}

acct_store_rc acct_store_exec(acct_store *st, apr_pool_t *pool,
                              const acct_sql *sql, int *affected,
                              int nargs, const char *const *args)
{
    acct_store_rc rc = run_deferred(st);

    return rc != ACCT_STORE_OK
           ? rc : st->ops->run(st, pool, sql, nargs, args, NULL, affected);
}

acct_store_rc acct_store_exec_deferred(acct_store *st, apr_pool_t *pool,
                                       const acct_sql *sql, int nargs,
                                       const char *const *args)
{
    acct_deferred *d;
    const char **copy;
    acct_store_rc rc;
    int i;

    if (!st->ops->finish || !st->in_tx) {
        return acct_store_exec(st, pool, sql, NULL, nargs, args);
    }
    if ((rc = run_deferred(st)) != ACCT_STORE_OK) {
        return rc;
    }
    /* Held past this call: in the transaction's pool, not the caller's,
     * which may be an iteration pool cleared before the next statement. */
    if (st->tx_pool) {
        pool = st->tx_pool;
    }
    d = apr_palloc(pool, sizeof(*d));
    d->sql = sql;
    d->pool = pool;
    d->nargs = nargs;
    copy = apr_palloc(pool, sizeof(char *) * (apr_size_t)(nargs + 1));
    for (i = 0; i < nargs; i++) {
        copy[i] = args[i] ? apr_pstrdup(pool, args[i]) : NULL;
    }
    d->args = copy;
    st->deferred = d;
    return ACCT_STORE_OK;
}

acct_store_rc acct_store_select_dynamic(acct_store *st, apr_pool_t *pool,
                                        const char *sql, acct_rows **rows,
                                        int nargs, const char *const *args)
{
    acct_store_rc rc = run_deferred(st);

    return rc != ACCT_STORE_OK
           ? rc : st->ops->run_dynamic(st, pool, sql, "dynamic select", nargs,
                                       args, rows);
}

acct_store_rc acct_store_run_then(acct_store *st, apr_pool_t *pool,
                                  const acct_sql *sql, int nargs,
                                  const char *const *args, acct_rows **out,
                                  acct_store_read *also)
{
    acct_store_rc rc = st->ops->run(st, pool, sql, nargs, args, out, NULL);

    if (rc == ACCT_STORE_OK && (*out)->nrows > 0) {
        also->rc = st->ops->run_dynamic(st, pool, also->sql, ACCT_STORE_READ_WITH,
                                        also->nargs, also->args,
                                        &also->rows);
        if (also->rc != ACCT_STORE_OK) {
            also->rows = NULL;
        }
    }
    return rc;
}

acct_store_rc acct_store_select_with(acct_store *st, apr_pool_t *pool,
                                     const acct_sql *sql, acct_rows **rows,
                                     int nargs, const char *const *args,
                                     acct_store_read *also)
{
    acct_store_rc rc = run_deferred(st);

    also->rows = NULL;
    also->rc = ACCT_STORE_OK;
    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    if (st->ops->run_with && !st->in_tx) {
        return st->ops->run_with(st, pool, sql, nargs, args, rows, also);
    }
    return acct_store_run_then(st, pool, sql, nargs, args, rows, also);
}

unsigned acct_store_exchanges(const acct_store *st, unsigned *setup)
{
    if (setup) {
        *setup = st->setup_exchanges;
    }
    return st->exchanges;
}

acct_store_rc acct_store_exec_script(acct_store *st, apr_pool_t *pool,
                                     const char *sql)
{
    acct_store_rc rc = run_deferred(st);

    return rc != ACCT_STORE_OK ? rc : st->ops->script(st, pool, sql);
}

/*
 * Transactions are plain statements whose results are checked:
 * apr_dbd_transaction_start dereferences NULL on pgsql when BEGIN fails on a
 * dead connection (HACKING.md, trap 8).
 */
static acct_store_rc plain_query(acct_store *st, const char *sql)
{
    return acct_store_exec_script(st, NULL, sql);
}

/* Each driver starts transactions its own way: see pg_begin, sqlite_begin. */
acct_store_rc acct_store_begin(acct_store *st, apr_pool_t *pool)
{
    st->tx_pool = pool;
    return st->ops->begin(st);
}

/* What begin took (the SQLite writers' turn) is given back. */
static void end_tx(acct_store *st)
{
    st->in_tx = 0;
    if (st->ops->end) {
        st->ops->end(st);
    }
}

/* A transaction whose BEGIN was never sent: nothing to end. */
static int end_unsent(acct_store *st)
{
    if (!st->begin_pending) {
        return 0;
    }
    st->begin_pending = 0;
    st->in_tx = 0;
    return 1;
}

/*
 * The driver's `finish`, and the transaction's end: one sent whole (its
 * BEGIN still pending) is over on the server whatever the outcome; an
 * explicit one that failed is rolled back.
 */
static acct_store_rc finish_tx(acct_store *st, apr_pool_t *pool,
                               const acct_deferred *d,
                               const acct_deferred *last, acct_rows **rows)
{
    int whole = st->begin_pending;
    acct_store_rc rc = st->ops->finish(st, pool, d, last, rows);

    if (rc != ACCT_STORE_OK && !whole) {
        acct_store_rollback(st, pool);
        return rc;
    }
    st->begin_pending = 0;
    end_tx(st);
    return rc;
}

acct_store_rc acct_store_commit(acct_store *st, apr_pool_t *pool)
{
    acct_deferred *d = st->deferred;
    acct_store_rc rc;

    /* Ended already (acct_store_select_commit), or never begun. */
    if (!st->in_tx) {
        return ACCT_STORE_OK;
    }
    st->deferred = NULL;
    if (d) {
        return finish_tx(st, d->pool, d, NULL, NULL);
    }
    if (end_unsent(st)) {
        return ACCT_STORE_OK;
    }
    rc = plain_query(st, "COMMIT");
    if (rc != ACCT_STORE_OK) {
        /* A failed COMMIT may leave the transaction open on sqlite3. */
        acct_store_rollback(st, pool);
    }
    end_tx(st);
    return rc;
}

acct_store_rc acct_store_select_commit(acct_store *st, apr_pool_t *pool,
                                       const acct_sql *sql, acct_rows **rows,
                                       int nargs, const char *const *args)
{
    acct_deferred last, *d = st->deferred;
    acct_store_rc rc;

    *rows = NULL;
    if (!st->in_tx || !st->ops->finish) {
        rc = acct_store_select(st, pool, sql, rows, nargs, args);
        if (rc != ACCT_STORE_OK) {
            acct_store_rollback(st, pool);
            return rc;
        }
        return acct_store_commit(st, pool);
    }
    last.sql = sql;
    last.pool = pool;
    last.nargs = nargs;
    last.args = args;
    st->deferred = NULL;
    rc = finish_tx(st, pool, d, &last, rows);
    if (rc != ACCT_STORE_OK) {
        *rows = NULL;
    }
    return rc;
}

acct_store_rc acct_store_rollback(acct_store *st, apr_pool_t *pool)
{
    acct_store_rc rc;

    /* What was deferred goes with the rest of the transaction. */
    st->deferred = NULL;
    if (!st->in_tx || end_unsent(st)) {
        return ACCT_STORE_OK;
    }
    rc = plain_query(st, "ROLLBACK");
    end_tx(st);
    return rc;
}

int acct_store_pipelines(const acct_store *st)
{
    return st->ops->finish != NULL;
}

int acct_store_in_tx(const acct_store *st)
{
    return st->in_tx;
}

static apr_status_t tx_guard_cleanup(void *data)
{
    acct_store *st = data;

    if (st->in_tx) {
        acct_log(ACCT_LOG_WARN, ACCTLOGNO(00030) "rolling back a transaction left open");
        acct_store_rollback(st, NULL);
    }
    return APR_SUCCESS;
}

void acct_store_tx_guard(acct_store *st, apr_pool_t *pool)
{
    apr_pool_pre_cleanup_register(pool, st, tx_guard_cleanup);
}

int acct_rows_col(const acct_rows *rows, const char *column)
{
    int c;

    for (c = 0; c < rows->ncols; c++) {
        if (rows->names[c] && strcmp(rows->names[c], column) == 0) {
            return c;
        }
    }
    return -1;
}

const char *acct_rows_get(const acct_rows *rows, int row, const char *column)
{
    int c = acct_rows_col(rows, column);

    if (c < 0 || row < 0 || row >= rows->nrows) {
        return NULL;
    }
    return rows->values[row][c];
}

const char *acct_i64(apr_pool_t *pool, apr_int64_t v)
{
    return apr_psprintf(pool, "%" APR_INT64_T_FMT, v);
}

int acct_parse_i64(const char *s, apr_int64_t *out)
{
    apr_uint64_t v = 0, limit = (apr_uint64_t)APR_INT64_MAX;
    const char *p = s;
    int neg = 0;

    if (!p || !*p) {
        return -1;
    }
    if (*p == '-') {
        neg = 1;
        limit += 1; /* |INT64_MIN| */
        p++;
    }
    if (!*p) {
        return -1;
    }
    for (; *p; p++) {
        unsigned d = (unsigned)(*p - '0');

        if (d > 9 || v > (limit - d) / 10) {
            return -1;
        }
        v = v * 10 + d;
    }
    *out = neg ? (apr_int64_t)(0 - v) : (apr_int64_t)v;
    return 0;
}
