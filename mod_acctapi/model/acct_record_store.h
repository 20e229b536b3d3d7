/*
 * Domain records in the store: the columns of a record's row and the row
 * as a record, and every statement on domain_records (the storage
 * functions below).  The rules of a record are acct_record.h's.
 */
#ifndef ACCT_RECORD_STORE_H
#define ACCT_RECORD_STORE_H

#include "acct_list.h"
#include "acct_record.h"
#include "acct_store.h"

/* Every column of a domain_records row that a record's view needs. */
#define ACCT_RECORD_COLUMNS \
    "id, type, name, target, priority, weight, port, service, protocol," \
    " ttl_sec, tag, created, updated"

/* Row `i` of ACCT_RECORD_COLUMNS as a record (for updates). */
void acct_record_from_row(const acct_rows *rows, int i, acct_record *out);

/* ------------------------------------------------------------------------
 * Storage: every statement on domain_records.  Records are validated and
 * in stored form (acct_record_read, acct_record_normalise) when they get
 * here; `now` is the request's time (created, updated).  A domain's
 * record_count is kept with its records by every write of them.
 * ------------------------------------------------------------------------ */

/*
 * Stores `rec` under domain `domain_id` unconditionally (no neighbour
 * rule, no record count): for records checked already.  *new_id may be
 * NULL.
 */
acct_store_rc acct_record_insert(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t domain_id, const acct_record *rec,
                                 apr_int64_t now, apr_int64_t *new_id);

/*
 * Every record of `records` (acct_record) under domain `domain_id`, which
 * holds no records yet (an import), and the domain's record count set to
 * their number.
 */
acct_store_rc acct_record_insert_all(acct_store *st, apr_pool_t *pool,
                                     apr_int64_t domain_id,
                                     const apr_array_header_t *records,
                                     apr_int64_t now);

/*
 * Every record of domain `from` again under the new domain `to`, in one
 * statement (a clone holds exactly the records of one moment), and the
 * record count of `to`.
 */
acct_store_rc acct_record_copy_all(acct_store *st, apr_pool_t *pool,
                                   apr_int64_t from, apr_int64_t to,
                                   apr_int64_t now);

/*
 * POST records' write: `rec` stored under domain `domain_id` only when no
 * neighbour rule forbids it (a CNAME is alone at its name; a Null MX
 * excludes every other MX), and *rows (ACCT_RECORD_COLUMNS) the record as
 * stored.  No row: a rule forbids it (acct_record_name_users and
 * acct_record_mx_others tell which).  Run under the domain's lock
 * (acct_domain_claim_slot), like the checks it stands for.
 */
acct_store_rc acct_record_create(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t domain_id, const acct_record *rec,
                                 const char *username, apr_int64_t now,
                                 acct_rows **rows);

/* The domain a new record goes to, as the record was read against it. */
typedef struct acct_record_slot {
    apr_int64_t domain_id;
    apr_int64_t account_id;     /* the acting user's */
    const char *zone;           /* the domain's name (acct_record_zone) */
} acct_record_slot;

/*
 * POST records' write as one round trip where the store pipelines
 * (acct_store_pipelines), ending the open transaction: BEGIN, the
 * domain's row lock (acct_domain_lock), then one statement that claims a
 * slot as acct_domain_claim_slot does on the domain still named
 * `slot->zone`, stores `rec` as acct_record_create does and writes the
 * domain's event, then COMMIT.  *rows: the record as stored; no row when
 * anything refused it, and then nothing was written (the transaction
 * committed only its lock): acct_domain_claim_slot and acct_record_create,
 * in a new transaction, tell what.  *rows NULL, with nothing sent, where
 * the store does not pipeline or no transaction is open.  On any failure
 * the transaction is rolled back.
 */
acct_store_rc acct_record_create_at_once(acct_store *st, apr_pool_t *pool,
                                         const acct_record_slot *slot,
                                         const acct_record *rec,
                                         const char *username,
                                         apr_int64_t now, acct_rows **rows);

/* Record `id` of domain `domain_id` (ACCT_RECORD_COLUMNS); no row: none. */
acct_store_rc acct_record_get(acct_store *st, apr_pool_t *pool,
                              apr_int64_t domain_id, apr_int64_t id,
                              acct_rows **rows);

/*
 * The other records of domain `domain_id` at `name` (compared as DNS
 * does, ignoring case) than record `self` (0 for a new one): how many,
 * and how many of them are CNAME records.
 */
acct_store_rc acct_record_name_users(acct_store *st, apr_pool_t *pool,
                                     apr_int64_t domain_id, const char *name,
                                     apr_int64_t self, apr_int64_t *records,
                                     apr_int64_t *cnames);

/* The other MX records of domain `domain_id` than `self`, and how many of
 * them are Null MX. */
acct_store_rc acct_record_mx_others(acct_store *st, apr_pool_t *pool,
                                    apr_int64_t domain_id, apr_int64_t self,
                                    apr_int64_t *mx, apr_int64_t *null_mx);

/* Stores `rec` as record `id` of domain `domain_id` (the type stays);
 * *changed 0 when there is no such record. */
acct_store_rc acct_record_update(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t domain_id, apr_int64_t id,
                                 const acct_record *rec, const char *username,
                                 apr_int64_t now, int *changed);

/* Deletes record `id` of domain `domain_id` and frees its slot in the
 * record count; *deleted 0 when there is no such record. */
acct_store_rc acct_record_delete(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t domain_id, apr_int64_t id,
                                 const char *username, apr_int64_t now,
                                 int *deleted);

/*
 * The records of domain `domain_id` (GET .../records) as a query for
 * acct_list_respond: ACCT_RECORD_COLUMNS by id, and the filter fields of
 * X-Filter.  The caller sets how rows render (and the known total).
 */
void acct_record_list_query(apr_pool_t *pool, apr_int64_t domain_id,
                            acct_list_query *q);

#endif
