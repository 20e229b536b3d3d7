#include "acct_store.h"
#include "acct_log.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <apr_tables.h>
#include <ctype.h>
#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/*
 * Per-connection state, kept as userdata of the connection's pool: the
 * statements prepared on it.  sqlite3: catalogue statements, sqlite3_stmt,
 * finalized before the connection closes.  pgsql: the names of the
 * server-side statements of the connection's current backend session, in
 * pg_pool, which is emptied when libpq has reconnected (PITFALLS 7).
 */
typedef struct conn_state {
    apr_hash_t *prepared; /* const acct_sql * -> statement (sqlite3) or name */
    apr_hash_t *dynamic;  /* pgsql: SQL text -> statement name */
    apr_pool_t *pg_pool;  /* pgsql: the two hashes and names */
    int pg_backend;       /* pgsql: PQbackendPID they were prepared on */
    unsigned pg_named;    /* pgsql: statements named on this connection */
} conn_state;

struct acct_store {
    const apr_dbd_driver_t *driver;
    apr_dbd_t *handle;
    apr_pool_t *conn_pool;
    acct_dialect dialect;
    conn_state *conn;
    int in_tx;
    int begin_pending;  /* pgsql: BEGIN not sent yet (see acct_store_begin) */
    apr_interval_time_t wait_limit;  /* see acct_store_set_limits; 0: none */
    apr_global_mutex_t *writer_gate; /* sqlite3: the writers' turn, or NULL */
    int gate_held;                   /* this store holds writer_gate */
    int gave_up;                     /* a wait ran out of wait_limit */
};

#define CONN_STATE_KEY "acct_store.conn_state"

/* How long a native sqlite3 statement waits on a busy database, in total. */
#define SQLITE_BUSY_WAIT_US (2 * APR_USEC_PER_SEC)
#define SQLITE_BUSY_STEP_US (20 * 1000)

static acct_store_rc sqlite_native_script(acct_store *st, const char *sql);
static sqlite3 *sqlite_db(const acct_store *st);

/*
 * Settings every sqlite3 connection needs.  No busy_timeout: apr_dbd holds a
 * process-wide mutex around each statement and retries busy databases itself
 * with the mutex released; a busy_timeout would wait inside that mutex and
 * stall every other thread of the process.
 */
static const char sqlite_connection_setup[] =
    "PRAGMA foreign_keys = ON; PRAGMA journal_mode = WAL;";

static apr_status_t sqlite_finalize_all(void *data)
{
    conn_state *cs = data;
    apr_hash_index_t *hi;

    for (hi = apr_hash_first(NULL, cs->prepared); hi; hi = apr_hash_next(hi)) {
        void *stmt = NULL;

        apr_hash_this(hi, NULL, NULL, &stmt);
        sqlite3_finalize(stmt);
    }
    apr_hash_clear(cs->prepared);
    return APR_SUCCESS;
}

static conn_state *conn_state_get(acct_store *st)
{
    void *data = NULL;
    conn_state *cs;

    apr_pool_userdata_get(&data, CONN_STATE_KEY, st->conn_pool);
    if (data) {
        return data;
    }
    cs = apr_pcalloc(st->conn_pool, sizeof(*cs));
    if (st->dialect == ACCT_DIALECT_PGSQL) {
        if (apr_pool_create(&cs->pg_pool, st->conn_pool) != APR_SUCCESS) {
            return NULL;
        }
        cs->prepared = apr_hash_make(cs->pg_pool);
        cs->dynamic = apr_hash_make(cs->pg_pool);
    }
    else {
        cs->prepared = apr_hash_make(st->conn_pool);
    }
    apr_pool_userdata_setn(cs, CONN_STATE_KEY, NULL, st->conn_pool);
    if (st->dialect == ACCT_DIALECT_SQLITE) {
        /* Registered after the driver's own close: runs before it. */
        apr_pool_cleanup_register(st->conn_pool, cs, sqlite_finalize_all,
                                  apr_pool_cleanup_null);
    }
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
    if (strcmp(name, "pgsql") == 0) {
        st->dialect = ACCT_DIALECT_PGSQL;
    }
    else if (strcmp(name, "sqlite3") == 0) {
        st->dialect = ACCT_DIALECT_SQLITE;
    }
    else {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00027) "unsupported apr_dbd driver '%s'", name);
        return NULL;
    }
    apr_pool_userdata_get(&seen, CONN_STATE_KEY, conn_pool);
    st->conn = conn_state_get(st);
    if (!st->conn) {
        return NULL;
    }
    if (!seen && st->dialect == ACCT_DIALECT_SQLITE
        && sqlite_native_script(st, sqlite_connection_setup) != ACCT_STORE_OK) {
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

int acct_store_gave_up(const acct_store *st)
{
    return st->gave_up;
}

static const char *sql_text(const acct_store *st, const acct_sql *sql)
{
    return st->dialect == ACCT_DIALECT_PGSQL ? sql->pgsql : sql->sqlite;
}

/* ---- pgsql: apr_dbd opens the connection, libpq runs the SQL ------------ */
/*
 * Statements are prepared on the server once per connection, named, and run
 * with PQexecPrepared: parsing and planning them on every request (what the
 * apr_dbd driver's unlabelled statements do, through PQexecParams) cost
 * PostgreSQL several times the work of the statement itself.  A libpq
 * reconnect (the driver's PQreset) starts a new backend session without
 * them: the backend's process id tells, and they are prepared again.
 */

/* Beyond this many distinct dynamic texts a connection stops naming them. */
#define PG_DYNAMIC_NAMED_MAX 200

static PGconn *pg_conn(const acct_store *st)
{
    return apr_dbd_native_handle(st->driver, st->handle);
}

/*
 * An error of `res` (or of the connection when res is NULL) as our outcome:
 * a lost connection means "try again later" (503), anything else is a
 * failure of ours (500).  The server's text names tables and constraints:
 * it goes to the log only.
 */
static acct_store_rc pg_error(const acct_store *st, const PGresult *res,
                              const char *what)
{
    PGconn *conn = pg_conn(st);
    const char *text = res ? PQresultErrorMessage(res)
                           : conn ? PQerrorMessage(conn) : NULL;
    acct_store_rc out = ACCT_STORE_FAILED;
    char line[512];
    size_t n;

    if (!conn || PQstatus(conn) != CONNECTION_OK) {
        out = ACCT_STORE_UNAVAILABLE;
    }
    /* libpq's messages end with a newline, some span several lines. */
    apr_cpystrn(line, text && *text ? text : "no detail", sizeof(line));
    for (n = 0; line[n]; n++) {
        if (line[n] == '\n' || line[n] == '\r') {
            line[n] = ' ';
        }
    }
    while (n > 0 && line[n - 1] == ' ') {
        line[--n] = '\0';
    }
    acct_log(out == ACCT_STORE_UNAVAILABLE ? ACCT_LOG_WARN : ACCT_LOG_ERR,
             ACCTLOGNO(00028) "database %s: %s failed: %s",
             out == ACCT_STORE_UNAVAILABLE ? "unavailable" : "error", what,
             line);
    return out;
}

/*
 * Waits until libpq can hand over a result without blocking, at most until
 * `deadline` (0: no bound).  libpq's own calls (PQexec and friends) wait in
 * poll() without a limit, and no setting of the server helps when the
 * server itself is stopped or cut off: statement_timeout runs on it, and
 * TCP keepalives are answered by its kernel.  A server that does not answer
 * in time has the connection shut down under libpq: the command is
 * abandoned (PostgreSQL rolls its transaction back when it notices), the
 * connection turns CONNECTION_BAD, and mod_dbd reconnects it at its next
 * lease instead of handing out a connection whose late answer is still on
 * the way.  0 when ready, -1 when the connection broke or the time ran out.
 */
static int pg_ready(acct_store *st, PGconn *conn, apr_time_t deadline)
{
    struct pollfd pfd;
    int n, ms;

    while (PQisBusy(conn)) {
        ms = -1;
        if (deadline) {
            apr_interval_time_t left = deadline - apr_time_now();

            if (left <= 0) {
                goto timed_out;
            }
            ms = (int)((left + 999) / 1000);
        }
        pfd.fd = PQsocket(conn);
        pfd.events = POLLIN;
        pfd.revents = 0;
        if (pfd.fd < 0) {
            return -1;
        }
        n = poll(&pfd, 1, ms);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n == 0) {
            goto timed_out;
        }
        if (n < 0 || !PQconsumeInput(conn)) {
            return -1;
        }
    }
    return 0;

timed_out:
    acct_log(ACCT_LOG_WARN, ACCTLOGNO(00100) "database unavailable: no "
             "answer within %" APR_INT64_T_FMT " ms; connection abandoned",
             (apr_int64_t)apr_time_as_msec(st->wait_limit));
    st->gave_up = 1;
    shutdown(PQsocket(conn), SHUT_RDWR);
    /* Reads the end of the stream: libpq marks the connection bad. */
    PQconsumeInput(conn);
    return -1;
}

static apr_time_t pg_deadline(const acct_store *st)
{
    return st->wait_limit ? apr_time_now() + st->wait_limit : 0;
}

/* The next result of the command in progress (NULL at its end, or when the
 * wait ran out: PQstatus tells). */
static PGresult *pg_next_result(acct_store *st, PGconn *conn,
                                apr_time_t deadline)
{
    return pg_ready(st, conn, deadline) == 0 ? PQgetResult(conn) : NULL;
}

/*
 * What PQexec and its siblings return, for the command just sent (`sent`:
 * the PQsend* call's outcome), within the store's wait limit: the first
 * error result, else the last result; NULL when nothing came (the
 * connection's error message says why).
 */
static PGresult *pg_collect(acct_store *st, PGconn *conn, int sent)
{
    apr_time_t deadline = pg_deadline(st);
    PGresult *keep = NULL, *r;

    if (!sent) {
        return NULL;
    }
    while ((r = pg_next_result(st, conn, deadline)) != NULL) {
        if (keep && PQresultStatus(keep) == PGRES_FATAL_ERROR) {
            PQclear(r);
            continue;
        }
        PQclear(keep);
        keep = r;
    }
    if (PQstatus(conn) != CONNECTION_OK) {
        /* Cut off mid-command: whatever came is not the whole answer. */
        PQclear(keep);
        return NULL;
    }
    return keep;
}

static PGresult *pg_exec(acct_store *st, PGconn *conn, const char *sql)
{
    return pg_collect(st, conn, PQsendQuery(conn, sql));
}

/* apr_dbd placeholders (%s, %d ... and %% for %) to PostgreSQL's $1, $2 ... */
static char *pg_placeholders(apr_pool_t *pool, const char *sql)
{
    apr_size_t len = strlen(sql);
    /* "%s" (2 bytes) becomes at most "$" and 10 digits. */
    char *out = apr_palloc(pool, len * 6 + 1), *o = out;
    const char *p;
    int n = 0;

    for (p = sql; *p; p++) {
        if (p[0] == '%' && isalpha((unsigned char)p[1])) {
            o += sprintf(o, "$%d", ++n);
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

/*
 * Sends a statement: the session's prepared `name`, or `text` planned for
 * this run only when name is NULL.  The outcome of the PQsend* call.
 */
static int pg_send(PGconn *conn, apr_pool_t *pool, const char *name,
                   const char *text, int nargs, const char *const *args)
{
    return name ? PQsendQueryPrepared(conn, name, nargs, args, NULL, NULL, 0)
                : PQsendQueryParams(conn, pg_placeholders(pool, text), nargs,
                                    NULL, args, NULL, NULL, 0);
}

/*
 * A new backend session's settings.  Generic plans: every statement of the
 * module is a keyed lookup or write whose best plan does not depend on its
 * arguments, yet PostgreSQL's default (auto) keeps planning some of them
 * afresh on every run (those whose conditions fold away for particular
 * arguments, as the record rules' do), which cost about a fifth of the
 * server's CPU on record writes.
 */
static const char pg_session_setup[] =
    "SET plan_cache_mode = force_generic_plan";

/*
 * Forgets the statements of an earlier backend session (the server dropped
 * them when libpq reconnected) and sets a new one up.  NULL when the
 * connection is unusable.
 */
static PGconn *pg_session(acct_store *st)
{
    conn_state *cs = st->conn;
    PGconn *conn = pg_conn(st);
    PGresult *res;
    int backend;

    if (!conn || PQstatus(conn) != CONNECTION_OK) {
        return NULL;
    }
    backend = PQbackendPID(conn);
    if (backend != cs->pg_backend) {
        apr_pool_clear(cs->pg_pool);
        cs->prepared = apr_hash_make(cs->pg_pool);
        cs->dynamic = apr_hash_make(cs->pg_pool);
        cs->pg_backend = backend;
        res = pg_exec(st, conn, pg_session_setup);
        if (!res || PQresultStatus(res) != PGRES_COMMAND_OK) {
            /* Only slower without it; a dead connection shows next. */
            acct_log(ACCT_LOG_WARN, ACCTLOGNO(00068) "database session "
                     "setup failed: %s", res ? PQresultErrorMessage(res)
                                             : PQerrorMessage(conn));
        }
        PQclear(res);
    }
    return conn;
}

/* Prepares `text` under a new name: the name, or NULL (*rc set, logged). */
static const char *pg_prepare(acct_store *st, const char *text,
                              const char *what, acct_store_rc *rc)
{
    conn_state *cs = st->conn;
    const char *name = apr_psprintf(cs->pg_pool, "acct_%u", ++cs->pg_named);
    PGconn *conn = pg_conn(st);
    const char *sql = pg_placeholders(cs->pg_pool, text);
    PGresult *res = pg_collect(st, conn,
                               PQsendPrepare(conn, name, sql, 0, NULL));

    if (!res || PQresultStatus(res) != PGRES_COMMAND_OK) {
        *rc = pg_error(st, res, apr_pstrcat(cs->pg_pool, what, " (prepare)",
                                            NULL));
        PQclear(res);
        return NULL;
    }
    PQclear(res);
    return name;
}

/* The rows of a PGresult, copied into `pool`; NULL for SQL NULL. */
static acct_rows *rows_from_pg(apr_pool_t *pool, const PGresult *res)
{
    acct_rows *rows = apr_pcalloc(pool, sizeof(*rows));
    int r, c;

    rows->ncols = PQnfields(res);
    rows->nrows = PQntuples(res);
    rows->names = apr_pcalloc(pool, sizeof(char *) * (rows->ncols + 1));
    for (c = 0; c < rows->ncols; c++) {
        rows->names[c] = apr_pstrdup(pool, PQfname(res, c));
    }
    rows->values = apr_palloc(pool, sizeof(const char **)
                                    * (apr_size_t)(rows->nrows + 1));
    for (r = 0; r < rows->nrows; r++) {
        const char **vals = apr_pcalloc(pool, sizeof(char *)
                                              * (rows->ncols + 1));

        for (c = 0; c < rows->ncols; c++) {
            if (!PQgetisnull(res, r, c)) {
                vals[c] = apr_pstrmemdup(pool, PQgetvalue(res, r, c),
                                         (apr_size_t)PQgetlength(res, r, c));
            }
        }
        rows->values[r] = vals;
    }
    return rows;
}

/*
 * Would preparing again help?  The statement is gone from the session
 * (26000), or the tables under it changed shape since it was prepared
 * ("cached plan must not change result type", 0A000: another node ran a
 * migration).
 */
static int pg_stale_statement(const PGresult *res)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

    return state
           && (strcmp(state, "26000") == 0 || strcmp(state, "0A000") == 0);
}

/*
 * The name of `text` in this session, prepared now if need be: catalogue
 * statements are known by their acct_sql (static), dynamic ones by their
 * text.  NULL with *rc set when preparing failed.
 */
static const char *pg_named(acct_store *st, const acct_sql *sql,
                            const char *text, const char *what,
                            acct_store_rc *rc)
{
    conn_state *cs = st->conn;
    apr_hash_t *cache = sql ? cs->prepared : cs->dynamic;
    const void *key = sql ? (const void *)sql : (const void *)text;
    apr_ssize_t klen = sql ? (apr_ssize_t)sizeof(*sql) : APR_HASH_KEY_STRING;
    const char *name = apr_hash_get(cache, key, klen);

    if (!name && (name = pg_prepare(st, text, what, rc)) != NULL) {
        apr_hash_set(cache, sql ? key : apr_pstrdup(cs->pg_pool, text), klen,
                     name);
    }
    return name;
}

/*
 * Forgets every statement named in this session (see pg_named): a schema
 * change that made one stale has most likely made others stale too, and
 * each would otherwise fail once more, some in the middle of a transaction
 * where it cannot be retried.  They are prepared again, under new names,
 * as they are next run; the old ones stay on the server until the session
 * ends (their names are never reused).
 */
static void pg_forget_all(acct_store *st)
{
    apr_hash_clear(st->conn->prepared);
    apr_hash_clear(st->conn->dynamic);
}

/*
 * The first statement of a transaction, sent together with its BEGIN in
 * one pipeline (acct_store_begin defers BEGIN): one round trip instead of
 * two for every write request.  The statement's result, or NULL with *rc
 * set (BEGIN failed, or the pipeline broke).  The connection leaves
 * pipeline mode in every case: libpq resets it when it cannot.
 */
static PGresult *pg_begin_and_run(acct_store *st, apr_pool_t *pool,
                                  const char *name, const char *text,
                                  int nargs, const char *const *args,
                                  acct_store_rc *rc)
{
    PGconn *conn = pg_conn(st);
    PGresult *begin = NULL, *res = NULL, *r;
    apr_time_t deadline = pg_deadline(st);
    int query = 0, sent, rounds;

    st->begin_pending = 0;
    if (PQenterPipelineMode(conn) != 1) {
        *rc = pg_error(st, NULL, "BEGIN (pipeline)");
        return NULL;
    }
    sent = PQsendQueryParams(conn, "BEGIN", 0, NULL, NULL, NULL, NULL, 0)
           && pg_send(conn, pool, name, text, nargs, args)
           && PQpipelineSync(conn);
    /* Each query's result, a NULL after each, then the sync's result; a
     * broken connection gives NULLs only (bounded by `rounds`). */
    for (rounds = 0; sent && rounds < 8; rounds++) {
        r = pg_next_result(st, conn, deadline);
        if (!r) {
            if (PQstatus(conn) != CONNECTION_OK) {
                break;
            }
            query++;
            continue;
        }
        if (PQresultStatus(r) == PGRES_PIPELINE_SYNC) {
            PQclear(r);
            break;
        }
        if (query == 0 && !begin) {
            begin = r;
        }
        else if (query == 1 && !res) {
            res = r;
        }
        else {
            PQclear(r);
        }
    }
    if (PQexitPipelineMode(conn) != 1) {
        /* Results still pending: the session is unusable as it is. */
        acct_log(ACCT_LOG_WARN, ACCTLOGNO(00067) "database connection reset: "
                 "its pipeline did not finish (%s)", PQerrorMessage(conn));
        PQreset(conn);
        sent = 0;
    }
    if (!sent || !begin || PQresultStatus(begin) != PGRES_COMMAND_OK) {
        *rc = pg_error(st, begin, "BEGIN");
        PQclear(begin);
        PQclear(res);
        return NULL;
    }
    PQclear(begin);
    if (!res) {
        *rc = pg_error(st, NULL, "first statement of a transaction");
    }
    return res;
}

/*
 * Runs `text` (the SQL of `sql`, or a dynamic statement when sql is NULL)
 * as a named statement of the session (see pg_dynamic for the exception);
 * rows wanted when `out` is set, else only the count.
 */
static acct_store_rc pg_run(acct_store *st, apr_pool_t *pool,
                            const acct_sql *sql, const char *text,
                            const char *what, int nargs,
                            const char *const *args, acct_rows **out,
                            int *affected)
{
    acct_store_rc rc = ACCT_STORE_OK;
    const char *name = NULL;
    PGresult *res = NULL;
    PGconn *conn;
    int attempt;

    for (attempt = 0; attempt < 2; attempt++) {
        int began = st->begin_pending, stale;

        if (!(conn = pg_session(st))) {
            return pg_error(st, NULL, what);
        }
        /* A dynamic text new to a session that has named too many already
         * is planned for this run only. */
        name = NULL;
        if ((sql || apr_hash_get(st->conn->dynamic, text, APR_HASH_KEY_STRING)
             || apr_hash_count(st->conn->dynamic) < PG_DYNAMIC_NAMED_MAX)
            && !(name = pg_named(st, sql, text, what, &rc))) {
            return rc;
        }
        if (began) {
            res = pg_begin_and_run(st, pool, name, text, nargs, args, &rc);
            if (!res) {
                return rc;
            }
        }
        else {
            res = pg_collect(st, conn,
                             pg_send(conn, pool, name, text, nargs, args));
        }
        if (res && (PQresultStatus(res) == PGRES_TUPLES_OK
                    || PQresultStatus(res) == PGRES_COMMAND_OK)) {
            break;
        }
        stale = name && pg_stale_statement(res);
        if (stale) {
            pg_forget_all(st);
        }
        /* Retried once: outside a transaction (which the error has
         * aborted), or as a transaction's first statement, whose
         * transaction starts again. */
        if (attempt == 0 && stale && (!st->in_tx || began)) {
            PQclear(res);
            res = NULL;
            if (began) {
                /* The error aborted the transaction it began: start over. */
                res = pg_exec(st, conn, "ROLLBACK");
                PQclear(res);
                res = NULL;
                st->begin_pending = 1;
            }
            continue;
        }
        rc = pg_error(st, res, what);
        PQclear(res);
        return rc;
    }
    if (out) {
        *out = rows_from_pg(pool, res);
    }
    if (affected) {
        *affected = atoi(PQcmdTuples(res));
    }
    PQclear(res);
    return ACCT_STORE_OK;
}

/* A catalogue statement: named once per session. */
static acct_store_rc pg_catalogued(acct_store *st, apr_pool_t *pool,
                                   const acct_sql *sql, int nargs,
                                   const char *const *args, acct_rows **out,
                                   int *affected)
{
    return pg_run(st, pool, sql, sql_text(st, sql), sql->name, nargs, args,
                  out, affected);
}

/*
 * A statement built per request (lists with filters): named once per
 * session too, until the connection has met too many distinct texts
 * (filters combine into many).
 */
static acct_store_rc pg_dynamic(acct_store *st, apr_pool_t *pool,
                                const char *sql, const char *what, int nargs,
                                const char *const *args, acct_rows **out)
{
    return pg_run(st, pool, NULL, sql, what, nargs, args, out, NULL);
}

/* ---- sqlite3: apr_dbd opens the connection, sqlite3 runs the SQL --------- */
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

/* apr_dbd placeholders (%s, %d ... and %% for %) to sqlite3's "?". */
static char *sqlite_placeholders(apr_pool_t *pool, const char *sql)
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
    int rc = sqlite3_prepare_v2(sqlite_db(st), sqlite_placeholders(pool, sql),
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
        rc = sqlite_prepare(st, st->conn_pool, sql_text(st, sql), sql->name,
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
            if (sqlite3_column_type(stmt, c) != SQLITE_NULL) {
                vals[c] = apr_pstrdup(pool,
                                      (const char *)sqlite3_column_text(stmt, c));
            }
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

/* ---- the two dialects behind one interface ------------------------------ */

static acct_store_rc run_catalogued(acct_store *st, apr_pool_t *pool,
                                    const acct_sql *sql, int nargs,
                                    const char *const *args, acct_rows **out,
                                    int *affected)
{
    acct_store_rc rc;

    if (st->dialect == ACCT_DIALECT_SQLITE) {
        sqlite3_stmt *stmt = NULL;

        rc = sqlite_prepared(st, sql, &stmt);
        return rc != ACCT_STORE_OK ? rc : sqlite_run(st, pool, stmt, sql->name,
                                                     nargs, args, out, affected);
    }
    return pg_catalogued(st, pool, sql, nargs, args, out, affected);
}

acct_store_rc acct_store_select(acct_store *st, apr_pool_t *pool,
                                const acct_sql *sql, acct_rows **rows,
                                int nargs, const char *const *args)
{
    return run_catalogued(st, pool, sql, nargs, args, rows, NULL);
}

acct_store_rc acct_store_exec(acct_store *st, apr_pool_t *pool,
                              const acct_sql *sql, int *affected,
                              int nargs, const char *const *args)
{
    return run_catalogued(st, pool, sql, nargs, args, NULL, affected);
}

acct_store_rc acct_store_select_dynamic(acct_store *st, apr_pool_t *pool,
                                        const char *sql, acct_rows **rows,
                                        int nargs, const char *const *args)
{
    acct_store_rc rc;

    if (st->dialect == ACCT_DIALECT_SQLITE) {
        sqlite3_stmt *stmt = NULL;

        rc = sqlite_prepare(st, pool, sql, "dynamic select", &stmt);
        if (rc == ACCT_STORE_OK) {
            rc = sqlite_run(st, pool, stmt, "dynamic select", nargs, args, rows,
                            NULL);
            sqlite3_finalize(stmt);
        }
        return rc;
    }
    return pg_dynamic(st, pool, sql, "dynamic select", nargs, args, rows);
}

acct_store_rc acct_store_exec_script(acct_store *st, apr_pool_t *pool,
                                     const char *sql)
{
    acct_store_rc rc = ACCT_STORE_OK;
    PGresult *res;
    PGconn *conn;

    (void)pool;
    if (st->dialect == ACCT_DIALECT_SQLITE) {
        return sqlite_native_script(st, sql);
    }
    if (!(conn = pg_session(st))) {
        return pg_error(st, NULL, "script");
    }
    if (st->begin_pending) {
        /* A transaction's first statement is a script: BEGIN goes first. */
        st->begin_pending = 0;
        sql = apr_pstrcat(pool ? pool : st->conn_pool, "BEGIN;", sql, NULL);
    }
    /* Several statements in one text: PQexec runs them all, stops at the
     * first error and reports it. */
    res = pg_exec(st, conn, sql);
    if (!res || (PQresultStatus(res) != PGRES_COMMAND_OK
                 && PQresultStatus(res) != PGRES_TUPLES_OK)) {
        rc = pg_error(st, res, "script");
    }
    else if (strcmp(sql, "COMMIT") == 0
             && strcmp(PQcmdStatus(res), "ROLLBACK") == 0) {
        /* A transaction an error aborted "commits" by rolling back. */
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00062) "database error: COMMIT rolled "
                 "back an aborted transaction");
        rc = ACCT_STORE_FAILED;
    }
    PQclear(res);
    return rc;
}

/*
 * Transactions are plain statements whose results are checked:
 * apr_dbd_transaction_start dereferences NULL on pgsql when BEGIN fails on a
 * dead connection (PITFALLS 8).  sqlite3 writers queue at BEGIN IMMEDIATE
 * instead of failing at their first write.
 */
static acct_store_rc plain_query(acct_store *st, const char *sql)
{
    return acct_store_exec_script(st, NULL, sql);
}

/*
 * On pgsql, BEGIN waits for the transaction's first statement and goes with
 * it (pg_begin_and_run): a transaction that runs no statement sends
 * nothing at all.  The connection is checked now all the same, so that a
 * dead database still fails here.
 */
acct_store_rc acct_store_begin(acct_store *st, apr_pool_t *pool)
{
    acct_store_rc rc;

    (void)pool;
    if (st->dialect == ACCT_DIALECT_PGSQL) {
        if (!pg_session(st)) {
            return pg_error(st, NULL, "BEGIN");
        }
        st->begin_pending = 1;
        st->in_tx = 1;
        return ACCT_STORE_OK;
    }
    rc = sqlite_gate_take(st);
    if (rc == ACCT_STORE_OK) {
        rc = plain_query(st, "BEGIN IMMEDIATE");
    }
    if (rc == ACCT_STORE_OK) {
        st->in_tx = 1;
    }
    else {
        sqlite_gate_give(st);
    }
    return rc;
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

acct_store_rc acct_store_commit(acct_store *st, apr_pool_t *pool)
{
    acct_store_rc rc;

    if (end_unsent(st)) {
        return ACCT_STORE_OK;
    }
    rc = plain_query(st, "COMMIT");

    if (rc != ACCT_STORE_OK) {
        /* A failed COMMIT may leave the transaction open on sqlite3. */
        acct_store_rollback(st, pool);
    }
    st->in_tx = 0;
    sqlite_gate_give(st);
    return rc;
}

acct_store_rc acct_store_rollback(acct_store *st, apr_pool_t *pool)
{
    acct_store_rc rc;

    if (!st->in_tx || end_unsent(st)) {
        return ACCT_STORE_OK;
    }
    rc = plain_query(st, "ROLLBACK");
    st->in_tx = 0;
    sqlite_gate_give(st);
    return rc;
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
    apr_pool_cleanup_register(pool, st, tx_guard_cleanup,
                              apr_pool_cleanup_null);
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
