/*
 * Storage: SQL for the pgsql and sqlite3 drivers of apr_dbd, whose
 * connections mod_dbd pools (acctapi-admin and the tests open their own).
 *
 * Every trap of HACKING.md, traps 1-12 is handled here and nowhere else:
 *  - statements are written once with %s parameter markers (%% for a literal %);
 *    each catalogue statement (acct_sql) is prepared once per connection and
 *    cached in the connection's own pool;
 *  - pgsql runs through libpq on the driver's native handle: every statement
 *    is prepared on the server once per backend session under a name of its
 *    own and run with PQexecPrepared (no parse or plan per request); the
 *    backend's process id changes when libpq silently reconnects, and the
 *    statements are prepared again; one that the server lost or whose tables
 *    changed shape (another node's migration) is prepared again once, outside
 *    transactions; results are copied out; SQL NULL is a NULL pointer, never "";
 *  - sqlite3 runs through sqlite3_prepare_v2 on the driver's native handle:
 *    the apr_dbd driver's legacy prepare breaks cached statements for good on
 *    any schema change, keeps every statement until the connection closes,
 *    and holds a process-wide mutex.  Ours are finalized with the connection;
 *    run-time SQL is finalized at once;
 *  - BEGIN/COMMIT/ROLLBACK are plain statements whose results are checked
 *    (BEGIN IMMEDIATE on sqlite3), and a pool cleanup rolls back a
 *    transaction left open;
 *  - errors are classified: "unavailable" (lost connection, busy database:
 *    503) or "failed" (500).  Uniqueness is designed with ON CONFLICT DO
 *    NOTHING + RETURNING, so no caller needs to tell a conflict from a
 *    failure.  Driver text goes only to the log.
 */
#ifndef ACCT_STORE_H
#define ACCT_STORE_H

#include <apr_pools.h>
#include <apr_dbd.h>
#include <apr_global_mutex.h>

typedef enum {
    ACCT_DIALECT_SQLITE = 0,
    ACCT_DIALECT_PGSQL = 1
} acct_dialect;

/* Outcome of a store call. */
typedef enum {
    ACCT_STORE_OK = 0,
    ACCT_STORE_FAILED = 1,      /* the statement failed: answer 500 */
    ACCT_STORE_UNAVAILABLE = 2  /* no usable connection, busy database: answer 503 */
} acct_store_rc;

/*
 * One statement of the catalogue.  `sqlite` and `pgsql` are the same text
 * unless the dialects differ (ACCT_SQL2).  Statements are static data: the
 * cache is keyed by the address of the struct.
 */
typedef struct acct_sql {
    const char *name;   /* for logs */
    const char *sqlite;
    const char *pgsql;
} acct_sql;

#define ACCT_SQL(name, text) { (name), (text), (text) }
#define ACCT_SQL2(name, sqlite_text, pgsql_text) { (name), (sqlite_text), (pgsql_text) }

/*
 * A result set that lives as long as the pool it was read into (SQLite's
 * copied into it; PostgreSQL's left in libpq's result, which the pool
 * frees); values[row][col] NULL for SQL NULL.  Read-only.
 */
typedef struct acct_rows {
    int nrows;
    int ncols;
    const char **names;      /* column names */
    const char ***values;
} acct_rows;

typedef struct acct_store acct_store;

/*
 * Wraps an open connection.  `conn_pool` lives as long as the connection (the
 * ap_dbd_t pool in the module); the statement cache is kept there.  `driver`
 * must be "pgsql" or "sqlite3", else NULL is returned.
 */
acct_store *acct_store_wrap(apr_pool_t *pool, apr_pool_t *conn_pool,
                            const apr_dbd_driver_t *driver, apr_dbd_t *handle);

/*
 * Opens a connection of its own (acctapi-admin, unit tests): loads the driver,
 * connects, and for sqlite3 applies the pragmas the module expects
 * (foreign_keys, WAL, busy_timeout).  The connection closes with `pool`.
 */
acct_store_rc acct_store_open(acct_store **out, apr_pool_t *pool,
                              const char *driver_name, const char *params,
                              const char **error);

acct_dialect acct_store_dialect(const acct_store *st);

/*
 * Bounds on waiting for the database (the module sets them on every lease;
 * a store without them waits as long as the database takes):
 *  - `wait_limit` (> 0): the longest a statement waits for PostgreSQL's
 *    answer, and a writer for its turn on sqlite3.  A PostgreSQL that does
 *    not answer in time (frozen, partitioned) has its connection shut down,
 *    so that nothing arrives late on it, and the call is "unavailable" (503);
 *    mod_dbd reconnects it at its next lease.
 *  - `writer_gate` (sqlite3): a lock shared by every process of the server
 *    that writers take before BEGIN IMMEDIATE (and around a write outside a
 *    transaction) and hold until COMMIT or ROLLBACK.  Writers then queue on
 *    it and are handed the database in turn, instead of polling SQLite's
 *    own lock; one that waits longer than `wait_limit` is "unavailable".
 */
void acct_store_set_limits(acct_store *st, apr_interval_time_t wait_limit,
                           apr_global_mutex_t *writer_gate);

/*
 * Whether statements are prepared once per PostgreSQL session and run by
 * name (1, the default: planning a statement costs PostgreSQL more than
 * running it), or sent with their text each time as the unnamed statement
 * (0), with no session setting made either.  0 is for a transaction
 * pooler (PgBouncer's pool_mode = transaction before 1.21), which hands
 * each transaction whichever server session is free: a statement prepared
 * in one is missing in the next, and a name counted per client collides
 * with another client's in the same server session.  No effect on sqlite3.
 */
void acct_store_set_named_statements(acct_store *st, int named);

/*
 * 1 when a statement of this store was "unavailable" because the database
 * server, reached and answering, refused it for now (PostgreSQL: a hot
 * standby refusing a write, a server shutting down or out of
 * connections), rather than because it could not be reached: the caller
 * answers 503 all the same, but it is no outage of the database.
 */
int acct_store_refused_by_server(const acct_store *st);

/*
 * Has the server ended this pooled connection since its last use (a
 * restart of PostgreSQL, say)?  Found without waiting and without sending
 * anything; such a connection is handed back, and the pool reconnects it
 * at its next lease.  Always 0 for SQLite.
 */
int acct_store_lost(acct_store *st);

/* Did a wait of this store run out of its limit?  Trying again at once
 * would only wait as long again. */
int acct_store_gave_up(const acct_store *st);

/* Runs a catalogue statement that returns rows. */
acct_store_rc acct_store_select(acct_store *st, apr_pool_t *pool,
                                const acct_sql *sql, acct_rows **rows,
                                int nargs, const char *const *args);

/* Runs a catalogue statement that returns no rows; *affected may be NULL. */
acct_store_rc acct_store_exec(acct_store *st, apr_pool_t *pool,
                              const acct_sql *sql, int *affected,
                              int nargs, const char *const *args);

/*
 * Runs a catalogue statement whose outcome nothing waits for (an event
 * written with a change, a row lock that the next statement relies on), in
 * the transaction that is open: where the driver can, it goes with
 * whatever the transaction sends next (and with BEGIN, when it is the
 * first), so that a transaction's last statement travels with its COMMIT
 * (PostgreSQL: in one pipeline, one round trip less).  Statements still run in the order they
 * are called: the next one, and the COMMIT, wait for it.  Its failure is
 * then the failure of that statement or of the commit (the transaction
 * rolls back).  Outside a transaction, or with a driver that saves no
 * round trip (sqlite3), it runs at once like acct_store_exec.
 */
acct_store_rc acct_store_exec_deferred(acct_store *st, apr_pool_t *pool,
                                       const acct_sql *sql, int nargs,
                                       const char *const *args);

/* Same as the two above for SQL composed at run time (never user text). */
acct_store_rc acct_store_select_dynamic(acct_store *st, apr_pool_t *pool,
                                        const char *sql, acct_rows **rows,
                                        int nargs, const char *const *args);

/* A read built at run time (acct_store_select_dynamic's text and
 * arguments), and once run, its outcome. */
typedef struct acct_store_read {
    const char *sql;
    int nargs;
    const char *const *args;
    acct_rows *rows;            /* out: NULL unless it ran and was kept */
    acct_store_rc rc;           /* out: its own outcome */
} acct_store_read;

/*
 * acct_store_select, with `also` sent in the same exchange where the driver
 * can (PostgreSQL: one pipeline, one round trip for both) instead of after
 * it.  `also` is a read that needs nothing from the first one's answer, and
 * is wanted only when the first finds a row (the page a request asks for,
 * sent with the lookup of its token): its rows are kept only then, and a
 * driver that would save nothing (sqlite3), or a transaction, runs it after
 * the first and only then.  Returns the first statement's outcome; also->rc
 * is also's own (OK, rows NULL, when it was not wanted).
 */
acct_store_rc acct_store_select_with(acct_store *st, apr_pool_t *pool,
                                     const acct_sql *sql, acct_rows **rows,
                                     int nargs, const char *const *args,
                                     acct_store_read *also);

/*
 * The exchanges with the database this store has made: PostgreSQL's round
 * trips (a pipeline is one), sqlite3's statements.  *setup (may be NULL):
 * how many of them only set the connection up (PostgreSQL: the first time
 * a connection meets a statement, preparing it).
 */
unsigned acct_store_exchanges(const acct_store *st, unsigned *setup);

/* Runs SQL text without parameters (migrations, pragmas); may hold several statements on sqlite3. */
acct_store_rc acct_store_exec_script(acct_store *st, apr_pool_t *pool,
                                     const char *sql);

/*
 * Transactions.  begin uses BEGIN IMMEDIATE on sqlite3 (writers queue at
 * the start instead of failing at their first write); begin's `pool` must
 * live as long as the transaction: acct_store_exec_deferred keeps its
 * statement there.  acct_store_tx_guard
 * registers a pre-cleanup on `pool` (it runs before the pool's subpools go,
 * where a connection's own pool may be) that rolls back a transaction still
 * open when the pool dies, so a connection never returns to the pool
 * mid-transaction.
 */
acct_store_rc acct_store_begin(acct_store *st, apr_pool_t *pool);
/* No-op when no transaction is open (ended already, or never begun). */
acct_store_rc acct_store_commit(acct_store *st, apr_pool_t *pool);
/*
 * acct_store_select as the open transaction's last statement, and COMMIT:
 * where the driver pipelines (acct_store_pipelines), the deferred
 * statement, this one and COMMIT go in one round trip (PostgreSQL: a
 * transaction that has sent nothing yet goes whole, as one pipeline
 * without BEGIN and COMMIT, which the server runs as one transaction).
 * On return the transaction is over: committed when the outcome is OK,
 * rolled back (and *rows NULL) otherwise.  Outside a transaction, a plain
 * acct_store_select.
 */
acct_store_rc acct_store_select_commit(acct_store *st, apr_pool_t *pool,
                                       const acct_sql *sql, acct_rows **rows,
                                       int nargs, const char *const *args);
/*
 * Does the driver send several statements in one round trip (PostgreSQL's
 * pipelines: acct_store_exec_deferred, acct_store_select_with,
 * acct_store_select_commit)?  Where it does not (sqlite3, in process), a
 * design that trades statements for round trips saves nothing.
 */
int acct_store_pipelines(const acct_store *st);
acct_store_rc acct_store_rollback(acct_store *st, apr_pool_t *pool);
int acct_store_in_tx(const acct_store *st);
void acct_store_tx_guard(acct_store *st, apr_pool_t *pool);

/* Convenience accessors on a result. */
const char *acct_rows_get(const acct_rows *rows, int row, const char *column);
int acct_rows_col(const acct_rows *rows, const char *column);

/* Formats an int64 as a pool string, for arguments. */
const char *acct_i64(apr_pool_t *pool, apr_int64_t v);

/* Parses a whole decimal int64; returns -1 on anything else. */
int acct_parse_i64(const char *s, apr_int64_t *out);

#endif
