/*
 * Domain records: reading a request body, and the rules per record type of
 * the contract ("Rules per record type") with DECISIONS.md's "Record":
 * names are stored relative to the zone (apex ""), targets without a
 * trailing dot, SRV service and protocol without underscores (the name is
 * derived as "_service._protocol"), TTLs rounded up to a valid value.
 *
 * Everything here is a pure function of its input (no store): the rules
 * that need the domain's other records (CNAME uniqueness, the Null MX
 * conflicts, the 12,000 limit) live with the handlers in api_records.c.
 */
#ifndef ACCT_RECORD_H
#define ACCT_RECORD_H

#include <jansson.h>

#include "acct_api.h"

#define ACCT_RECORD_NAME_MAX 100       /* characters of the name as given */
#define ACCT_RECORD_TARGET_MAX 65535   /* characters of the target */
/* Bytes of a TXT value whose 255-byte strings still fit one DNS record. */
#define ACCT_RECORD_TXT_BYTES_MAX 65254
#define ACCT_RECORD_LIMIT 12000        /* records per domain */

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
    const char *type;       /* "A" ... "CAA"; NULL when unknown */
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

/* Where a record lives. */
typedef struct acct_record_zone {
    const char *domain;       /* the domain's name, as stored */
    const char *remote_addr;  /* the caller's address, for "[remote_addr]";
                               * may be NULL */
} acct_record_zone;

/*
 * Reads the request body: a new record when `current` is NULL (type
 * required), else the changes to `current` (the stored record; every field
 * optional, the type unchangeable).  The merged record is then normalised
 * as acct_record_normalise does.  Every problem is a 400 item of `resp`
 * naming its field, all of them at once.  0 with *out set, or -1.
 */
int acct_record_read(acct_req *req, acct_resp *resp,
                     const acct_record *current, const acct_record_zone *zone,
                     acct_record *out);

/*
 * Validates a whole record against the rules of its type and gives its
 * stored form (for the handlers above, and for records from elsewhere:
 * a clone, an import).  `skip` holds ACCT_RECORD_* bits of fields already
 * reported invalid, whose further checks would only repeat the complaint.
 */
int acct_record_normalise(apr_pool_t *pool, acct_resp *resp,
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

/* Row `i` of ACCT_RECORD_COLUMNS as the API's Record object (NULL when
 * out of memory). */
json_t *acct_record_json(apr_pool_t *pool, const acct_rows *rows, int i);

/*
 * Every row of ACCT_RECORD_COLUMNS as the JSON text of an array of Record
 * objects (`*len` bytes in pool memory, not NUL-terminated): exactly what
 * acct_json_dump gives for the array of acct_record_json's objects, without
 * building them (a page of 500 records).
 */
const char *acct_record_json_text(apr_pool_t *pool, const acct_rows *rows,
                                  apr_size_t *len);

/*
 * The record's stored columns as statement arguments, in the order
 * name, target, priority, weight, port, service, protocol, ttl_sec, tag
 * (nine entries of `args`).
 */
void acct_record_args(apr_pool_t *pool, const acct_record *rec,
                      const char **args);

/*
 * Stores `rec` (already validated) under domain `domain_id`; the one INSERT
 * of records, for POST records, clone and import.  *new_id may be NULL.
 */
acct_store_rc acct_record_insert(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t domain_id, const acct_record *rec,
                                 apr_int64_t now, apr_int64_t *new_id);

#endif
