/*
 * The pgsql driver of the store: apr_dbd opens the connection (mod_dbd pools
 * it), libpq runs the SQL on the driver's native handle.
 */
#include "acct_store_driver.h"
#include "acct_log.h"

#include <apr_strings.h>
#include <ctype.h>
#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/*
 * Statements are prepared on the server once per connection, named, and run
 * with PQexecPrepared: parsing and planning them on every request (what the
 * apr_dbd driver's unlabelled statements do, through PQexecParams) cost
 * PostgreSQL several times the work of the statement itself.  A libpq
 * reconnect (the driver's PQreset) starts a new backend session without
 * them: the backend's process id tells, and they are prepared again.
 * Behind a transaction pooler no session outlives a transaction: there
 * every statement goes as the unnamed one, with its text
 * (acct_store_set_named_statements).
 */

/* Beyond this many distinct dynamic texts a connection stops naming them. */
#define PG_DYNAMIC_NAMED_MAX 200

static PGconn *pg_conn(const acct_store *st)
{
    return apr_dbd_native_handle(st->driver, st->handle);
}

/*
 * Is the SQLSTATE one of a server that cannot serve the statement now but
 * may soon: a connection exception (class 08), insufficient resources (53:
 * too many connections, out of memory or disk), operator intervention (57P:
 * shutting down, starting up, crashed), or a read-only transaction
 * (25006): the server is a hot standby, or was demoted, and a promoted
 * primary takes writes in a moment.
 */
static int pg_state_is_transient(const char *state)
{
    return state
           && (strncmp(state, "08", 2) == 0 || strncmp(state, "53", 2) == 0
               || strncmp(state, "57P", 3) == 0 || strcmp(state, "25006") == 0);
}

/*
 * An error of `res` (or of the connection when res is NULL) as our outcome:
 * a lost connection, or a server that cannot serve now
 * (pg_state_is_transient), means "try again later" (503), anything else is
 * a failure of ours (500).  The server's text names tables and
 * constraints: it goes to the log only.
 */
static acct_store_rc pg_error(acct_store *st, const PGresult *res,
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
    else if (res && pg_state_is_transient(
                        PQresultErrorField(res, PG_DIAG_SQLSTATE))) {
        /* The server is there and said so itself: not an outage. */
        out = ACCT_STORE_UNAVAILABLE;
        st->refused_by_server = 1;
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
    st->exchanges++;
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

/* apr_dbd parameter markers (%s, %d ... and %% for %) to PostgreSQL's $1, $2 ... */
static char *pg_markers(apr_pool_t *pool, const char *sql)
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
                : PQsendQueryParams(conn, pg_markers(pool, text), nargs,
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
    if (st->unnamed_only) {
        /* No session to set up: a pooler's next transaction may run in
         * another server session (and a SET here would stay behind in
         * this one, for whichever client gets it next). */
        return conn;
    }
    backend = PQbackendPID(conn);
    if (backend != cs->pg_backend) {
        apr_pool_clear(cs->pg_pool);
        cs->prepared = apr_hash_make(cs->pg_pool);
        cs->dynamic = apr_hash_make(cs->pg_pool);
        cs->pg_backend = backend;
        st->setup_exchanges++;
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
    const char *sql = pg_markers(cs->pg_pool, text);
    PGresult *res;

    st->setup_exchanges++;
    res = pg_collect(st, conn, PQsendPrepare(conn, name, sql, 0, NULL));

    if (!res || PQresultStatus(res) != PGRES_COMMAND_OK) {
        *rc = pg_error(st, res, apr_pstrcat(cs->pg_pool, what, " (prepare)",
                                            NULL));
        PQclear(res);
        return NULL;
    }
    PQclear(res);
    return name;
}

static apr_status_t pg_result_clear(void *res)
{
    PQclear(res);
    return APR_SUCCESS;
}

/*
 * The rows of a PGresult, which `pool` now owns (cleared with it): the
 * cells point into it, NULL for SQL NULL.  Nothing is copied: a
 * 500-record page has 6,500 cells, and copying them (an allocation, a
 * length and a copy each) cost a fifth of the page.  libpq keeps every
 * value NUL-terminated until PQclear.
 */
static acct_rows *rows_from_pg(apr_pool_t *pool, PGresult *res)
{
    acct_rows *rows = apr_pcalloc(pool, sizeof(*rows));
    apr_size_t ncells;
    const char **cells;
    int r, c;

    apr_pool_cleanup_register(pool, res, pg_result_clear,
                              apr_pool_cleanup_null);
    rows->ncols = PQnfields(res);
    rows->nrows = PQntuples(res);
    rows->names = apr_pcalloc(pool, sizeof(char *) * (rows->ncols + 1));
    for (c = 0; c < rows->ncols; c++) {
        rows->names[c] = PQfname(res, c);
    }
    rows->values = apr_palloc(pool, sizeof(const char **)
                                    * (apr_size_t)(rows->nrows + 1));
    /* Each row's cells and a NULL after them, as one array, every entry
     * written (no zeroing first: 6,500 cells on a 500-record page). */
    ncells = (apr_size_t)rows->nrows * (apr_size_t)(rows->ncols + 1);
    cells = apr_palloc(pool, sizeof(char *) * (ncells ? ncells : 1));
    for (r = 0; r < rows->nrows; r++) {
        const char **vals = cells + (apr_size_t)r * (apr_size_t)(rows->ncols + 1);

        for (c = 0; c < rows->ncols; c++) {
            /* libpq gives "" for NULL: only an empty value needs asking. */
            const char *v = PQgetvalue(res, r, c);

            vals[c] = *v || !PQgetisnull(res, r, c) ? v : NULL;
        }
        vals[rows->ncols] = NULL;
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
 * The name to run `text` under (pg_named), or NULL for a dynamic text new
 * to a session that has named too many already, and for every text when
 * the store names none (acct_store_set_named_statements): that one is
 * planned for this run only.  0, or -1 with *rc set when preparing failed.
 */
static int pg_name_of(acct_store *st, const acct_sql *sql, const char *text,
                      const char *what, const char **name, acct_store_rc *rc)
{
    *name = NULL;
    if (st->unnamed_only) {
        return 0;
    }
    if (sql || apr_hash_get(st->conn->dynamic, text, APR_HASH_KEY_STRING)
        || apr_hash_count(st->conn->dynamic) < PG_DYNAMIC_NAMED_MAX) {
        *name = pg_named(st, sql, text, what, rc);
        return *name ? 0 : -1;
    }
    return 0;
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

/* One query of a pipeline: a named statement, or plain text (BEGIN,
 * COMMIT) when `name` is NULL. */
typedef struct pg_query {
    const char *name;
    const char *text;
    int nargs;
    const char *const *args;
} pg_query;

/* The most queries a pipeline of the store carries: a deferred
 * statement, a transaction's last statement and COMMIT (pg_finish). */
#define PG_PIPELINE_MAX 3

/* Clears the `n` results of a pipeline (NULL ones included). */
static void pg_clear_all(PGresult **res, int n)
{
    int i;

    for (i = 0; i < n; i++) {
        PQclear(res[i]);
    }
}

/*
 * Sends the `n` queries `q` in one pipeline (one round trip) and collects
 * their results in res[0..n-1] (NULL for one that did not come).  0, or -1
 * when the pipeline could not be sent or did not finish.  The connection
 * leaves pipeline mode in every case: libpq resets it when it cannot.
 */
static int pg_pipeline(acct_store *st, apr_pool_t *pool, const pg_query *q,
                       int n, PGresult **res)
{
    PGconn *conn = pg_conn(st);
    apr_time_t deadline = pg_deadline(st);
    int query = 0, sent = 1, rounds, i;
    PGresult *r;

    for (i = 0; i < n; i++) {
        res[i] = NULL;
    }
    if (PQenterPipelineMode(conn) != 1) {
        return -1;
    }
    for (i = 0; i < n && sent; i++) {
        sent = pg_send(conn, pool, q[i].name, q[i].text, q[i].nargs,
                       q[i].args);
    }
    sent = sent && PQpipelineSync(conn);
    st->exchanges += sent;
    /* Each query's result, a NULL after each, then the sync's result; a
     * broken connection gives NULLs only (bounded by `rounds`). */
    for (rounds = 0; sent && rounds < 2 * n + 4; rounds++) {
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
        if (query < n && !res[query]) {
            res[query] = r;
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
    return sent ? 0 : -1;
}

/* pg_pipeline of two queries. */
static int pg_pipeline2(acct_store *st, apr_pool_t *pool, const pg_query *a,
                        const pg_query *b, PGresult **ra, PGresult **rb)
{
    pg_query q[2];
    PGresult *res[2];
    int rc;

    q[0] = *a;
    q[1] = *b;
    rc = pg_pipeline(st, pool, q, 2, res);
    *ra = res[0];
    *rb = res[1];
    return rc;
}

/* Did `res` run its statement? */
static int pg_ran(const PGresult *res)
{
    return res && (PQresultStatus(res) == PGRES_TUPLES_OK
                   || PQresultStatus(res) == PGRES_COMMAND_OK);
}

/*
 * The first statement of a transaction, sent together with its BEGIN in
 * one pipeline (acct_store_begin defers BEGIN): one round trip instead of
 * two for every write request.  The statement's result, or NULL with *rc
 * set (BEGIN failed, or the pipeline broke).
 */
static PGresult *pg_begin_and_run(acct_store *st, apr_pool_t *pool,
                                  const char *name, const char *text,
                                  int nargs, const char *const *args,
                                  acct_store_rc *rc)
{
    static const pg_query begin = {NULL, "BEGIN", 0, NULL};
    pg_query q = {name, text, nargs, args};
    PGresult *began = NULL, *res = NULL;
    int sent;

    st->begin_pending = 0;
    sent = pg_pipeline2(st, pool, &begin, &q, &began, &res) == 0;
    if (!sent || !began || PQresultStatus(began) != PGRES_COMMAND_OK) {
        *rc = pg_error(st, began, "BEGIN");
        PQclear(began);
        PQclear(res);
        return NULL;
    }
    PQclear(began);
    if (!res) {
        *rc = pg_error(st, NULL, "first statement of a transaction");
    }
    return res;
}

/* A statement of pg_finish's pipeline, named for the session; 0, or -1
 * with *rc set when preparing it failed. */
static int pg_finish_query(acct_store *st, const acct_deferred *d,
                           pg_query *q, acct_store_rc *rc)
{
    q->text = acct_store_sql_text(st, d->sql);
    q->nargs = d->nargs;
    q->args = d->args;
    return pg_name_of(st, d->sql, q->text, d->sql->name, &q->name, rc);
}

/*
 * The end of a transaction in one pipeline (the driver's `finish`): the
 * deferred statement `d`, the last statement `last` (its rows in *out),
 * and COMMIT: a write's event, or a whole short write, costs no round trip
 * of its own.  A transaction whose BEGIN has not been sent yet is sent
 * whole, with neither BEGIN nor COMMIT: the statements of one pipeline run
 * in one transaction, which its Sync commits (or rolls back, after an
 * error), and the server parses and runs two statements less.  A failure
 * of a statement aborts the transaction and the rest of the pipeline is
 * skipped: an explicit transaction is left for the caller to roll back.  A
 * statement the session lost (pg_stale_statement) is named again and the
 * whole pipeline sent once more when it was the whole transaction: nothing
 * of it remains.
 */
static acct_store_rc pg_finish(acct_store *st, apr_pool_t *pool,
                               const acct_deferred *d,
                               const acct_deferred *last, acct_rows **out)
{
    static const pg_query commit = {NULL, "COMMIT", 0, NULL};
    const acct_deferred *stmt[2];
    const char *what[PG_PIPELINE_MAX];
    PGresult *res[PG_PIPELINE_MAX];
    pg_query q[PG_PIPELINE_MAX];
    acct_store_rc rc = ACCT_STORE_OK;
    int attempt, whole, n, k, failed;

    stmt[0] = d;
    stmt[1] = last;
    for (attempt = 0; attempt < 2; attempt++) {
        if (!pg_session(st)) {
            return pg_error(st, NULL, "COMMIT");
        }
        whole = st->begin_pending;
        n = 0;
        for (k = 0; k < 2; k++) {
            if (!stmt[k]) {
                continue;
            }
            what[n] = stmt[k]->sql->name;
            if (pg_finish_query(st, stmt[k], &q[n++], &rc) != 0) {
                return rc;
            }
        }
        if (!whole) {
            what[n] = "COMMIT";
            q[n++] = commit;
        }
        if (pg_pipeline(st, pool, q, n, res) != 0) {
            pg_clear_all(res, n);
            return pg_error(st, NULL, what[n - 1]);
        }
        for (failed = 0; failed < n && pg_ran(res[failed]); failed++) {
        }
        if (failed == n) {
            break;
        }
        if (pg_stale_statement(res[failed])) {
            pg_forget_all(st);
            if (attempt == 0 && whole) {
                pg_clear_all(res, n);
                continue;
            }
        }
        rc = pg_error(st, res[failed], what[failed]);
        pg_clear_all(res, n);
        return rc;
    }
    if (!whole && strcmp(PQcmdStatus(res[n - 1]), "ROLLBACK") == 0) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00165) "database error: COMMIT rolled "
                 "back an aborted transaction");
        rc = ACCT_STORE_FAILED;
    }
    else if (last && out) {
        k = whole ? n - 1 : n - 2;
        *out = rows_from_pg(pool, res[k]);
        res[k] = NULL;
    }
    pg_clear_all(res, n);
    return rc;
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
        if (pg_name_of(st, sql, text, what, &name, &rc) != 0) {
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
    if (affected) {
        *affected = atoi(PQcmdTuples(res));
    }
    if (out) {
        *out = rows_from_pg(pool, res);
    }
    else {
        PQclear(res);
    }
    return ACCT_STORE_OK;
}

/* A catalogue statement: named once per session. */
static acct_store_rc pg_catalogued(acct_store *st, apr_pool_t *pool,
                                   const acct_sql *sql, int nargs,
                                   const char *const *args, acct_rows **out,
                                   int *affected)
{
    return pg_run(st, pool, sql, acct_store_sql_text(st, sql), sql->name, nargs, args,
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

/*
 * acct_store_select_with: the lookup and the read it goes with in one
 * pipeline.  A statement the session lost (pg_stale_statement) is named
 * again and run on its own, as pg_run does.
 */
static acct_store_rc pg_run_with(acct_store *st, apr_pool_t *pool,
                                 const acct_sql *sql, int nargs,
                                 const char *const *args, acct_rows **out,
                                 acct_store_read *also)
{
    acct_store_rc rc = ACCT_STORE_OK;
    PGresult *ra = NULL, *rb = NULL;
    pg_query a, b;

    if (!pg_session(st)) {
        return pg_error(st, NULL, sql->name);
    }
    a.text = acct_store_sql_text(st, sql);
    a.nargs = nargs;
    a.args = args;
    b.text = also->sql;
    b.nargs = also->nargs;
    b.args = also->args;
    if (pg_name_of(st, sql, a.text, sql->name, &a.name, &rc) != 0) {
        return rc;
    }
    if (pg_name_of(st, NULL, b.text, ACCT_STORE_READ_WITH, &b.name,
                   &also->rc) != 0) {
        /* Logged; the lookup still answers. */
        return pg_run(st, pool, sql, a.text, sql->name, nargs, args, out,
                      NULL);
    }
    if (pg_pipeline2(st, pool, &a, &b, &ra, &rb) != 0 || !pg_ran(ra)) {
        PQclear(rb);
        if (pg_stale_statement(ra)) {
            PQclear(ra);
            pg_forget_all(st);
            return acct_store_run_then(st, pool, sql, nargs, args, out, also);
        }
        rc = pg_error(st, ra, sql->name);
        PQclear(ra);
        return rc;
    }
    *out = rows_from_pg(pool, ra);
    if ((*out)->nrows > 0) {
        if (pg_ran(rb)) {
            also->rows = rows_from_pg(pool, rb);
            rb = NULL;
        }
        else if (pg_stale_statement(rb)) {
            pg_forget_all(st);
            also->rc = pg_dynamic(st, pool, also->sql, ACCT_STORE_READ_WITH,
                                  also->nargs, also->args, &also->rows);
        }
        else {
            also->rc = pg_error(st, rb, ACCT_STORE_READ_WITH);
        }
    }
    PQclear(rb);
    return ACCT_STORE_OK;
}

static int pg_conn_init(acct_store *st, conn_state *cs)
{
    if (apr_pool_create(&cs->pg_pool, st->conn_pool) != APR_SUCCESS) {
        return -1;
    }
    cs->prepared = apr_hash_make(cs->pg_pool);
    cs->dynamic = apr_hash_make(cs->pg_pool);
    return 0;
}

static acct_store_rc pg_script(acct_store *st, apr_pool_t *pool,
                               const char *sql)
{
    acct_store_rc rc = ACCT_STORE_OK;
    PGresult *res;
    PGconn *conn;

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
 * BEGIN waits for the transaction's first statement and goes with it
 * (pg_begin_and_run): a transaction that runs no statement sends nothing at
 * all.  The connection is checked now all the same, so that a dead
 * database still fails here.
 */
static acct_store_rc pg_begin(acct_store *st)
{
    if (!pg_session(st)) {
        return pg_error(st, NULL, "BEGIN");
    }
    st->begin_pending = 1;
    st->in_tx = 1;
    return ACCT_STORE_OK;
}

/*
 * An idle connection of a live session has nothing to read.  A server that
 * restarted or ended the session has sent its farewell and closed the
 * stream, which waits on the socket: read it now (one poll that does not
 * wait), so that libpq marks the connection bad before a statement is sent
 * on it.
 */
static int pg_lost(acct_store *st)
{
    PGconn *conn = pg_conn(st);
    struct pollfd pfd;
    int reads;

    if (!conn || PQstatus(conn) != CONNECTION_OK || PQsocket(conn) < 0) {
        return 1;
    }
    pfd.fd = PQsocket(conn);
    pfd.events = POLLIN;
    /* Readable while idle: a notice, or the server's last message (libpq
     * keeps it as a notice too) and then the end of the stream, which only
     * a further read sees. */
    for (reads = 0; reads < 4; reads++) {
        pfd.revents = 0;
        if (poll(&pfd, 1, 0) <= 0) {
            return 0;
        }
        if (!PQconsumeInput(conn) || PQstatus(conn) != CONNECTION_OK) {
            return 1;
        }
    }
    return 0;
}

const acct_store_driver acct_store_pgsql = {
    "pgsql", ACCT_DIALECT_PGSQL, pg_conn_init, NULL, pg_catalogued,
    pg_dynamic, pg_script, pg_begin, NULL, pg_finish, pg_run_with,
    pg_lost
};
