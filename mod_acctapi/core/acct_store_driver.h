/*
 * The store's drivers: what acct_store.c (the interface every caller uses)
 * asks of acct_store_pgsql.c and acct_store_sqlite.c.  Internal to the
 * store: nothing outside core/acct_store*.c includes this header.
 */
#ifndef ACCT_STORE_DRIVER_H
#define ACCT_STORE_DRIVER_H

#include "acct_store.h"

#include <apr_hash.h>

/*
 * Per-connection state, kept as userdata of the connection's pool: the
 * statements prepared on it.  sqlite3: catalogue statements, sqlite3_stmt,
 * finalized before the connection closes.  pgsql: the names of the
 * server-side statements of the connection's current backend session, in
 * pg_pool, which is emptied when libpq has reconnected (HACKING.md, trap 7).
 */
typedef struct conn_state {
    apr_hash_t *prepared; /* const acct_sql * -> statement (sqlite3) or name */
    apr_hash_t *dynamic;  /* SQL text -> statement (sqlite3) or name (pgsql) */
    apr_pool_t *pg_pool;  /* pgsql: the two hashes and names */
    int pg_backend;       /* pgsql: PQbackendPID they were prepared on */
    unsigned pg_named;    /* pgsql: statements named on this connection */
} conn_state;

typedef struct acct_store_driver acct_store_driver;

/* A statement acct_store_exec_deferred holds until the transaction's next
 * statement or its COMMIT (also the last statement handed to `finish`). */
typedef struct acct_deferred {
    const acct_sql *sql;
    apr_pool_t *pool;
    int nargs;
    const char *const *args;
} acct_deferred;

struct acct_store {
    const acct_store_driver *ops;
    const apr_dbd_driver_t *driver;
    apr_dbd_t *handle;
    apr_pool_t *conn_pool;
    acct_dialect dialect;
    conn_state *conn;
    int in_tx;
    int begin_pending;  /* pgsql: BEGIN not sent yet (see acct_store_begin) */
    acct_deferred *deferred; /* acct_store_exec_deferred's, not sent yet */
    apr_pool_t *tx_pool;     /* acct_store_begin's: lives as long as the
                              * transaction, so a deferred statement is
                              * copied there (see acct_store_exec_deferred) */
    apr_interval_time_t wait_limit;  /* see acct_store_set_limits; 0: none */
    apr_global_mutex_t *writer_gate; /* sqlite3: the writers' turn, or NULL */
    int gate_held;                   /* this store holds writer_gate */
    int gave_up;                     /* a wait ran out of wait_limit */
    int unnamed_only;   /* pgsql: see acct_store_set_named_statements */
    int refused_by_server; /* see acct_store_refused_by_server */
    unsigned exchanges;              /* see acct_store_exchanges */
    unsigned setup_exchanges;
};

struct acct_store_driver {
    const char *name;          /* the apr_dbd driver's name */
    acct_dialect dialect;
    /* Fills a connection's new state (its statement caches); 0 or -1. */
    int (*conn_init)(acct_store *st, conn_state *cs);
    /* Settings a connection needs before its first statement (NULL: none). */
    acct_store_rc (*first_use)(acct_store *st);
    /* A catalogue statement: rows when `out` is set, else the count. */
    acct_store_rc (*run)(acct_store *st, apr_pool_t *pool, const acct_sql *sql,
                         int nargs, const char *const *args, acct_rows **out,
                         int *affected);
    /* A statement built per request (lists with filters). */
    acct_store_rc (*run_dynamic)(acct_store *st, apr_pool_t *pool,
                                 const char *sql, const char *what, int nargs,
                                 const char *const *args, acct_rows **out);
    /* Statements without arguments in one text; also BEGIN, COMMIT, ROLLBACK. */
    acct_store_rc (*script)(acct_store *st, apr_pool_t *pool, const char *sql);
    /* Starts a transaction (acct_store_begin). */
    acct_store_rc (*begin)(acct_store *st);
    /* After a transaction's end: releases what begin took (NULL: nothing). */
    void (*end)(acct_store *st);
    /* Ends the transaction in one exchange: the deferred statement `d`
     * and the last statement `last` (either may be NULL; last's rows in
     * *out), then COMMIT, or, when BEGIN is still pending, the two as a
     * transaction of their own, over on return whatever the outcome.
     * NULL: the driver saves nothing so, acct_store_exec_deferred runs
     * statements at once, and acct_store_select_commit runs the statement,
     * then COMMIT. */
    acct_store_rc (*finish)(acct_store *st, apr_pool_t *pool,
                            const acct_deferred *d, const acct_deferred *last,
                            acct_rows **out);
    /* acct_store_select_with outside a transaction (NULL: the driver saves
     * nothing so, and acct_store_run_then runs them). */
    acct_store_rc (*run_with)(acct_store *st, apr_pool_t *pool,
                              const acct_sql *sql, int nargs,
                              const char *const *args, acct_rows **out,
                              acct_store_read *also);
    /* Has the server ended this pooled connection since its last use
     * (acct_store_lost; NULL: a driver whose connections cannot be). */
    int (*lost)(acct_store *st);
};

extern const acct_store_driver acct_store_pgsql;
extern const acct_store_driver acct_store_sqlite;

/* What acct_store_select_with's second read is called in the log. */
#define ACCT_STORE_READ_WITH "read sent with a lookup"

/* acct_store_select_with one statement after the other: `also` runs only
 * when the first found a row. */
acct_store_rc acct_store_run_then(acct_store *st, apr_pool_t *pool,
                                  const acct_sql *sql, int nargs,
                                  const char *const *args, acct_rows **out,
                                  acct_store_read *also);

/* The text of `sql` in the store's dialect. */
const char *acct_store_sql_text(const acct_store *st, const acct_sql *sql);

#endif
