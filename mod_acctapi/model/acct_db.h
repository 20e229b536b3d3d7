/*
 * Managed databases: the model shared by every /databases route.
 *
 * A database's status is stored with the transition pending on it
 * (status_next at status_due).  Nothing runs in the background: every request
 * that touches an account's databases first applies the transitions that are
 * due (acct_db_settle, one idempotent UPDATE), so any number of processes and
 * nodes agree, and a restart loses nothing.  With AcctapiDatabaseBackend
 * external no transition is ever scheduled: acctapi-admin sets the status.
 */
#ifndef ACCT_DB_H
#define ACCT_DB_H

#include "acct_api.h"

#define ACCT_DB_MYSQL "mysql"
#define ACCT_DB_POSTGRESQL "postgresql"

/* Every column of a databases row, aliased by its own name (table alias db). */
#define ACCT_DB_COLUMNS \
    "db.id, db.account_id, db.engine, db.version, db.label, db.region," \
    " db.type, db.cluster_size, db.encrypted, db.ssl_connection," \
    " db.replication_type, db.replication_commit_type, db.allow_list," \
    " db.port, db.host_primary, db.host_secondary, db.status," \
    " db.status_next, db.status_due, db.total_disk_size_gb," \
    " db.used_disk_size_gb, db.updates, db.root_username," \
    " db.root_password_sealed, db.credentials_reset, db.ca_certificate," \
    " db.created, db.updated"

/* Applies every transition of the acting account that is due by req->now. */
acct_store_rc acct_db_settle(acct_req *req);

/*
 * The database whose id is path parameter `index`, of `engine` (NULL: any),
 * in the acting account (else 404), settled, on which the user holds `need`
 * (else 403).  One row of ACCT_DB_COLUMNS, or NULL once answered.
 */
acct_rows *acct_db_load(acct_req *req, acct_resp *resp, int index,
                        const char *engine, acct_level need);

/*
 * 0 when the database's status is one of `allowed` (NULL-terminated);
 * otherwise -1 after answering DECISIONS' 400, e.g. "Your database is
 * provisioning; please wait until provisioning is complete to perform this
 * operation."
 */
int acct_db_require_status(acct_req *req, acct_resp *resp,
                           const acct_rows *db, const char *const *allowed);

/*
 * Puts database `id` in `status` now and, unless the backend is external or
 * `next` is NULL, schedules `next` after `seconds`.  Unconditional: for a row
 * this request has just made.
 */
acct_store_rc acct_db_transition(acct_req *req, apr_int64_t id,
                                 const char *status, const char *next,
                                 apr_int64_t seconds);

/*
 * Status-bound changes are one compare-and-set: the allowed statuses are in
 * the WHERE of the statement that changes the row, so of concurrent requests
 * that all saw an allowed status exactly one changes it; on PostgreSQL's READ
 * COMMITTED the others wait for its row lock, evaluate the WHERE again on the
 * committed row and change nothing.  ACCT_DB_STATUS_IN ends such a WHERE; its
 * arguments are the statement's last ACCT_DB_STATUS_SLOTS (as many as there
 * are statuses), filled by acct_db_change.
 */
#define ACCT_DB_STATUS_SLOTS 10
#define ACCT_DB_STATUS_IN \
    "status IN (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"

/*
 * Runs `sql` (its `nargs` own arguments, then the status slots) on database
 * *db of the acting account if its status is one of `allowed`.  0 when it
 * changed the row (which stays locked until the transaction ends); otherwise
 * -1 once answered: the status error of acct_db_require_status for the status
 * *db shows, or now has after a concurrent change (then *db is the row read
 * again), or 404 once the database is gone.
 */
int acct_db_change(acct_req *req, acct_resp *resp, acct_rows **db,
                   const char *const *allowed, const acct_sql *sql,
                   int nargs, const char *const *args);

/*
 * acct_db_change of a transition: puts the database in `status` (with `next`
 * due as acct_db_transition does) if its status is one of `allowed`, so two
 * requests that both saw "active" cannot both start an operation.
 */
int acct_db_begin(acct_req *req, acct_resp *resp, acct_rows **db,
                  const char *const *allowed, const char *status,
                  const char *next, apr_int64_t seconds);

#define ACCT_DB_PASSWORD_LEN 24

/* A root password: ACCT_DB_PASSWORD_LEN letters and digits, uniformly from
 * the CSPRNG; NULL if the generator fails. */
const char *acct_db_password_new(apr_pool_t *pool);

/* The sealing context that binds a root password to its database's row. */
const char *acct_db_password_context(apr_pool_t *pool, const char *id);

#endif
