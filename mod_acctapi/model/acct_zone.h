/*
 * The zone file of a domain: BIND master-file lines that named-checkzone
 * accepts, rendered from the stored domain and records.  Used by
 * GET /domains/{id}/zone-file and by zone publishing.
 */
#ifndef ACCT_ZONE_H
#define ACCT_ZONE_H

#include <apr_pools.h>
#include <apr_tables.h>

#include "acct_store.h"

/* The contract's values of a domain timer stored as 0. */
#define ACCT_ZONE_DEFAULT_EXPIRE 1209600
#define ACCT_ZONE_DEFAULT_REFRESH 14400
#define ACCT_ZONE_DEFAULT_RETRY 14400
#define ACCT_ZONE_DEFAULT_TTL 86400

/* TXT character-strings hold at most this many bytes each (RFC 1035). */
#define ACCT_ZONE_TXT_CHUNK 255

/*
 * The columns of a record row the renderer reads (table alias r); not the
 * id, which only orders them: a large zone is mostly the cost of fetching.
 */
#define ACCT_ZONE_RECORD_COLUMNS \
    "r.type, r.name, r.target, r.priority, r.weight, r.port, r.ttl_sec," \
    " r.tag"

/*
 * Every record of domain `domain_id` in rendering order (by id), with
 * ACCT_ZONE_RECORD_COLUMNS, in one query.
 */
acct_store_rc acct_zone_records(acct_store *st, apr_pool_t *pool,
                                apr_int64_t domain_id, acct_rows **records);

/*
 * The zone of row `row` of `domain` (ACCT_DOMAIN_COLUMNS) with `records`
 * (ACCT_ZONE_RECORD_COLUMNS, may be NULL) and the service's `nameservers`
 * (NULL-terminated, may be NULL), as an array of const char * lines without
 * line ends:
 *   a comment naming the domain, $TTL, the SOA (serial = domains.serial
 *   modulo 2^32, mname = the first nameserver, rname from soa_email, the
 *   timers with 0 read as the ACCT_ZONE_DEFAULT_* values, minimum = the
 *   TTL), one NS line per nameserver (none, and mname = the apex, without
 *   nameservers), then one line per record in the given order (a row of an
 *   unknown type is left out).
 * Every name is absolute (ends with a dot), so the lines mean the same
 * under any $ORIGIN.  A record's TTL appears only when it is not 0 (0 lets
 * $TTL apply).
 */
apr_array_header_t *acct_zone_render(apr_pool_t *pool, const acct_rows *domain,
                                     int row, const acct_rows *records,
                                     const char *const *nameservers);

/*
 * The same lines, one call of `emit(baton, line, len)` each, in order:
 * `line` (NUL-terminated, `len` bytes) is valid only during the call, and
 * the memory taken from `pool` does not grow with the number of records.
 */
typedef void acct_zone_line_fn(void *baton, const char *line, apr_size_t len);
void acct_zone_each_line(apr_pool_t *pool, const acct_rows *domain, int row,
                         const acct_rows *records,
                         const char *const *nameservers,
                         acct_zone_line_fn *emit, void *baton);

/*
 * The body of GET /domains/{id}/zone-file, {"zone_file":[lines...]}, as
 * JSON text of `*len` bytes in pool memory: the bytes acct_json_dump gives
 * for that document, written directly (no JSON value per line).
 */
const char *acct_zone_json(apr_pool_t *pool, const acct_rows *domain, int row,
                           const acct_rows *records,
                           const char *const *nameservers, apr_size_t *len);

/*
 * The SOA RNAME of an e-mail address: "first.last@example.com" becomes
 * "first\.last.example.com." (the first dot separates the mailbox).  NULL
 * or an address without '@' gives "hostmaster.<domain>.".
 */
const char *acct_zone_rname(apr_pool_t *pool, const char *email,
                            const char *domain);

/* One quoted, escaped master-file string of `len` bytes of `text`. */
const char *acct_zone_quote(apr_pool_t *pool, const char *text, size_t len);

#endif
