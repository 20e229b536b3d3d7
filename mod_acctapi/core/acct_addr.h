/*
 * IP addresses as text: which family, the canonical form (what inet_ntop
 * writes), and CIDR ranges.  The one place the module parses addresses:
 * record targets, allow lists, the caller's address, transfer sources,
 * nameservers to import from and the operator's --ip all go through it.
 */
#ifndef ACCT_ADDR_H
#define ACCT_ADDR_H

#include <apr_pools.h>

/* AF_INET or AF_INET6 when `text` is an address of that family (as
 * inet_pton reads it), else 0.  NULL is none. */
int acct_ip_family(const char *text);

/* The canonical text of an address of `family` (0: either), or NULL when
 * `text` is none. */
const char *acct_ip_canonical_of(apr_pool_t *pool, int family,
                                 const char *text);

/* The canonical text of an IPv4 or IPv6 address, or NULL. */
const char *acct_ip_canonical(apr_pool_t *pool, const char *text);

/* An IPv4 address given plainly or IPv4-mapped ("::ffff:192.0.2.1"): the
 * IPv4 text within `text`, or NULL. */
const char *acct_ip_v4_of(const char *text);

/*
 * A range "ADDRESS/PREFIX" (or a lone address, its own /32 or /128):
 * AF_INET or AF_INET6 with the address bytes in `addr` (16 bytes room),
 * its prefix length in *prefix and the family's width in *bits; 0 when the
 * address is none, -1 when the prefix is not a whole number from 0 to
 * *bits (*bits is then set).
 */
int acct_ip_range(const char *text, unsigned char *addr, int *prefix,
                  int *bits);

#endif
