/*
 * Zone transfers for POST /domains/import: a full transfer (AXFR, RFC 5936)
 * over TCP from a remote nameserver, and the mapping of what it sends onto
 * the service's domain and record fields.
 *
 * libldns builds the queries and decodes every message; this file frames
 * the messages on the TCP stream (RFC 1035 4.2.2: a two-byte length before
 * each), binds the configured source address, keeps the whole exchange
 * within one deadline and judges the answers.  (ldns's own AXFR calls,
 * ldns_axfr_start/next, cannot tell a timeout from a closed connection,
 * apply their timeout to each read rather than to the transfer, and do not
 * look at the AA flag.)
 */
#ifndef ACCT_AXFR_H
#define ACCT_AXFR_H

#include <apr_network_io.h>
#include <apr_pools.h>
#include <apr_time.h>
#include <ldns/ldns.h>

#include "acct_domain.h"
#include "acct_record.h"

#define ACCT_AXFR_DEFAULT_PORT 53
#define ACCT_AXFR_DEFAULT_TIMEOUT 10   /* seconds, AcctapiTransferTimeout */

/* Longest remote_nameserver text: a 253-character name, a dot, ":65535". */
#define ACCT_AXFR_SERVER_MAX 260

/* A remote nameserver as POST /domains/import names it. */
typedef struct acct_axfr_server {
    const char *host;   /* an IPv4/IPv6 address (no brackets) or a host name */
    apr_port_t port;
} acct_axfr_server;

/*
 * Reads `text`: an IPv4 address, an IPv6 address (bare or in brackets), or
 * a host name, each optionally followed by ":port" (an IPv6 address only
 * in brackets: "[2001:db8::1]:5353"); the port defaults to 53.  NULL when
 * valid, else the reason it is not (a sentence for the 400).
 */
const char *acct_axfr_parse_server(apr_pool_t *pool, const char *text,
                                   acct_axfr_server *out);

/* The server as messages show it: "192.0.2.1:53", "[2001:db8::1]:53". */
const char *acct_axfr_server_text(apr_pool_t *pool,
                                  const acct_axfr_server *server);

/* How a transfer ended. */
typedef enum {
    ACCT_AXFR_OK = 0,
    ACCT_AXFR_REFUSED,       /* the server answered REFUSED */
    ACCT_AXFR_TIMEOUT,       /* no complete transfer before the deadline */
    ACCT_AXFR_NXDOMAIN,      /* the server says the name does not exist */
    ACCT_AXFR_NOT_AUTH,      /* NOTAUTH, no AA flag, or no zone of that name */
    ACCT_AXFR_TOO_MANY,      /* more RRs than the limit (besides the SOA) */
    ACCT_AXFR_UNRESOLVED,    /* the host name has no address */
    ACCT_AXFR_NO_SOURCE,     /* no transfer source of the server's family
                              * (detail: "IPv4" or "IPv6", the server's) */
    ACCT_AXFR_UNREACHABLE,   /* the TCP connection failed (detail says how) */
    ACCT_AXFR_FAILED,        /* another error code (detail: its name) */
    ACCT_AXFR_BROKEN,        /* not a valid transfer (detail says why) */
    ACCT_AXFR_LOCAL          /* a fault on this side (binding the source...) */
} acct_axfr_rc;

typedef struct acct_axfr_options {
    const char *const *sources;   /* local addresses to transfer from,
                                   * NULL-terminated; NULL: any */
    apr_interval_time_t timeout;  /* for the whole exchange */
    int max_records;              /* RRs besides the SOA */
} acct_axfr_options;

typedef struct acct_axfr_result {
    acct_axfr_rc rc;
    const char *detail;     /* what went wrong, in words; NULL when OK */
    const char *peer;       /* the address that answered (or was tried) */
    ldns_rr *soa;           /* the zone's SOA record (owned by the pool) */
    ldns_rr_list *rrs;      /* every other RR in transfer order (same) */
} acct_axfr_result;

/*
 * Transfers zone `zone` (a valid domain name) from `server`: tries its
 * addresses in turn while connections fail, from the first configured
 * source address of each address's family.  When the server refuses to be
 * authoritative, a SOA query tells an NXDOMAIN apart.  Returns out->rc.
 */
acct_axfr_rc acct_axfr_transfer(apr_pool_t *pool, const char *zone,
                                const acct_axfr_server *server,
                                const acct_axfr_options *opts,
                                acct_axfr_result *out);

/*
 * Judges message `pkt` of the answer to query `id`: ACCT_AXFR_OK to go on
 * reading, else the failure (*detail set for FAILED and BROKEN).  `first`:
 * the first message, which must carry the AA flag and some records.
 */
acct_axfr_rc acct_axfr_judge(const ldns_pkt *pkt, uint16_t id, int first,
                             const char **detail);

/*
 * The SOA's fields as domain settings: soa_email from the RNAME (its first
 * label is the mailbox; NULL when that makes no e-mail address), refresh,
 * retry and expire from the timers and ttl_sec from the SOA record's own
 * TTL, the zone's default TTL ($TTL) in practice (MINIMUM is the
 * negative-caching time of RFC 2308), each rounded up as a domain's.
 */
void acct_axfr_soa_domain(apr_pool_t *pool, const ldns_rr *soa,
                          acct_domain *d);

/* The e-mail address of an RNAME ("john\.doe.example.com."), or NULL. */
const char *acct_axfr_soa_email(apr_pool_t *pool, const ldns_rdf *rname);

/* What acct_axfr_record made of an RR. */
typedef enum {
    ACCT_AXFR_MAPPED = 0,     /* a record, to validate as any other */
    ACCT_AXFR_UNSUPPORTED,    /* a type (or class) the contract has not */
    ACCT_AXFR_APEX_NS,        /* the zone's own NS set: this service's
                               * nameservers take its place */
    ACCT_AXFR_UNFIT           /* the record fields cannot hold it (*why) */
} acct_axfr_map_rc;

/*
 * The record fields of `rr`, an RR of zone `zone`, as a client would send
 * them: names fully qualified (acct_record_normalise makes them relative
 * and checks every rule of the type), SRV service and protocol from the
 * owner "_service._protocol", TXT strings joined, CAA's tag in lower case
 * (its flags have no field), a TTL of 0 as the shortest valid TTL rather
 * than "the domain's default".
 */
acct_axfr_map_rc acct_axfr_record(apr_pool_t *pool, const ldns_rr *rr,
                                  const char *zone, acct_record *out,
                                  const char **why);

/* The type of `rr` as text ("HINFO", "TYPE65534"). */
const char *acct_axfr_type_name(apr_pool_t *pool, const ldns_rr *rr);

#endif
