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
 * api_records.c on what the storage functions of acct_record_store.h
 * read; those own every statement on domain_records.  A request body is
 * read by acct_record_body.h, a record written as JSON by
 * acct_record_json.h, the syntax of names and values judged by
 * acct_record_syntax.h.
 */
#ifndef ACCT_RECORD_H
#define ACCT_RECORD_H

#include <apr_pools.h>

#include "acct_problems.h"

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

#endif
