/*
 * DNS primitives shared by domains, records, the zone renderer and import:
 * the valid TTL/timer values and the zone serial (name syntax: acct_valid.h).
 */
#ifndef ACCT_DNS_H
#define ACCT_DNS_H

#include <apr_pools.h>

#include "acct_outcome.h"
#include "acct_req.h"
#include "acct_scope.h"
#include "acct_store.h"
#include "acct_valid.h"

#define ACCT_DNS_SECONDS_MAX 2419200

/*
 * The nameservers zones name (NS records, SOA MNAME) when AcctapiNameservers
 * is not set; acctapi-admin zones publish defaults to the same.
 */
#define ACCT_DNS_DEFAULT_NAMESERVERS \
    {"ns1.example.com", "ns2.example.com", "ns3.example.com", NULL}


/* Domain timers (expire, refresh, retry, ttl): 0 for 0 or less (the
 * default), else the next valid value. */
apr_int64_t acct_dns_round_domain_seconds(apr_int64_t seconds);

/* Record TTLs: 0 for 0 or less (the domain's default), else the next valid
 * value from 300. */
apr_int64_t acct_dns_round_record_ttl(apr_int64_t seconds);

/*
 * The SET items of a change of domain `d`: the SOA serial, which only ever
 * grows (max(serial + 1, now)), and the updated time.  Three arguments, all
 * the request's time.
 */
#define ACCT_DNS_TOUCH_SET \
    " serial = CASE WHEN serial + 1 > CAST(%s AS BIGINT) THEN serial + 1" \
    "          ELSE CAST(%s AS BIGINT) END," \
    " updated = CAST(%s AS BIGINT)"

/*
 * After any change of a domain or its records: bumps the SOA serial and the
 * domain's updated time (ACCT_DNS_TOUCH_SET).
 */
acct_store_rc acct_dns_touch(acct_store *st, apr_pool_t *pool,
                             apr_int64_t domain_id, apr_int64_t now);

/*
 * Every column of a domain row, each qualified by `t` ("d." for the table
 * alias d; "" where no alias may appear, as in SQLite's RETURNING).
 */
#define ACCT_DOMAIN_COLUMNS_OF(t) \
    t "id, " t "account_id, " t "domain, " t "type, " t "status, " \
    t "description, " t "group_name, " t "soa_email, " t "master_ips, " \
    t "axfr_ips, " t "expire_sec, " t "refresh_sec, " t "retry_sec, " \
    t "ttl_sec, " t "serial, " t "record_count, " t "created, " t "updated"
#define ACCT_DOMAIN_COLUMNS ACCT_DOMAIN_COLUMNS_OF("d.")

/*
 * Domain `id`, if it is in the acting user's account (else not found) and
 * the user holds `need` on it (else forbidden).  One row of
 * ACCT_DOMAIN_COLUMNS, or NULL with *out saying why not.
 */
acct_rows *acct_dns_domain(acct_req *req, apr_int64_t id, acct_level need,
                           acct_outcome *out);

/* The same, with a "tags" column: what acct_domain_render needs, in one
 * query. */
acct_rows *acct_dns_domain_with_tags(acct_req *req, apr_int64_t id,
                                     acct_level need, acct_outcome *out);

#endif
