/*
 * Domain records: the rules per record type of the contract ("Rules per
 * record type") with docs/conventions.md's "Record": names are stored
 * relative to the zone (apex ""), targets without a trailing dot, SRV
 * service and protocol without underscores (the name is derived as
 * "_service._protocol"), TTLs rounded up to a valid value.
 *
 * The rules are pure functions of their input (no store).  The rules that
 * need the domain's other records (CNAME uniqueness, the Null MX
 * conflicts, the 12,000 limit) are decided by the handlers in
 * api_records.c on what the storage functions at the end of this header
 * read; those own every statement on domain_records.  A request body is
 * read by acct_record_body.h, a record written as JSON by
 * acct_record_json.h, the syntax of names and values judged by
 * acct_record_syntax.h.
 */
#ifndef ACCT_RECORD_H
#define ACCT_RECORD_H

#include <jansson.h>

#include "acct_list.h"
#include "acct_problems.h"
#include "acct_store.h"

#define ACCT_RECORD_NAME_MAX 100       /* characters of the name as given */
#define ACCT_RECORD_TARGET_MAX 65535   /* characters of the target */
/* Bytes of a TXT value whose 255-byte strings still fit one DNS record. */
#define ACCT_RECORD_TXT_BYTES_MAX 65254
#define ACCT_RECORD_LIMIT 12000        /* records per domain */
/* The protocol of an SRV record that names none. */
#define ACCT_RECORD_SRV_PROTOCOL "tcp"

/* The record types of the contract, listed once (acct_record_types). */
#define ACCT_RECORD_TYPE_A     "A"
#define ACCT_RECORD_TYPE_AAAA  "AAAA"
#define ACCT_RECORD_TYPE_NS    "NS"
#define ACCT_RECORD_TYPE_MX    "MX"
#define ACCT_RECORD_TYPE_CNAME "CNAME"
#define ACCT_RECORD_TYPE_TXT   "TXT"
#define ACCT_RECORD_TYPE_SRV   "SRV"
#define ACCT_RECORD_TYPE_PTR   "PTR"
#define ACCT_RECORD_TYPE_CAA   "CAA"
extern const char *const acct_record_types[];   /* NULL-terminated */

/* Is `type` one of acct_record_types?  (NULL is not.) */
int acct_record_type_known(const char *type);

/* The fields of a record, as bits (acct_record.set and problem masks). */
#define ACCT_RECORD_TYPE     0x001
#define ACCT_RECORD_NAME     0x002
#define ACCT_RECORD_TARGET   0x004
#define ACCT_RECORD_PRIORITY 0x008
#define ACCT_RECORD_WEIGHT   0x010
#define ACCT_RECORD_PORT     0x020
#define ACCT_RECORD_SERVICE  0x040
#define ACCT_RECORD_PROTOCOL 0x080
#define ACCT_RECORD_TTL      0x100
#define ACCT_RECORD_TAG      0x200

typedef struct acct_record {
    const char *type;       /* one of acct_record_types; NULL when unknown */
    const char *name;       /* NULL: not given; "" the apex */
    const char *target;     /* NULL: not given */
    apr_int64_t priority;
    apr_int64_t weight;
    apr_int64_t port;
    apr_int64_t ttl_sec;
    const char *service;    /* SRV only; NULL when unset */
    const char *protocol;   /* SRV only; NULL when unset */
    const char *tag;        /* CAA only; NULL when unset */
    unsigned set;           /* ACCT_RECORD_* bits of the numbers that hold
                             * a value (given or stored): SRV needs its own */
} acct_record;

/* Is `r` of type `type` (one of acct_record_types)? */
int acct_record_is_type(const acct_record *r, const char *type);

/* Where a record lives. */
typedef struct acct_record_zone {
    const char *domain;       /* the domain's name, as stored */
    const char *remote_addr;  /* the caller's address, for "[remote_addr]";
                               * may be NULL */
} acct_record_zone;

/*
 * Validates a whole record against the rules of its type and gives its
 * stored form (for acct_record_read, and for records from elsewhere:
 * a clone, an import).  `skip` holds ACCT_RECORD_* bits of fields already
 * reported invalid, whose further checks would only repeat the complaint.
 */
int acct_record_normalise(apr_pool_t *pool, acct_problems *pb,
                          const acct_record *in, unsigned skip,
                          const acct_record_zone *zone, acct_record *out);

/* Is `r` (normalised) a Null MX record (RFC 7505: "no mail here")? */
int acct_record_is_null_mx(const acct_record *r);

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
