/*
 * The syntax of a record's names and values, each judged alone
 * (acct_record_syntax.c), for the rules per type in acct_record.c.
 */
#ifndef ACCT_RECORD_SYNTAX_H
#define ACCT_RECORD_SYNTAX_H

#include <apr_pools.h>

#include "acct_record.h"

/* A fully qualified host name of two labels or more, whose last label is
 * not all digits; `flags` as acct_valid_dns_name takes them. */
int acct_record_fqdn_valid(const char *name, unsigned flags);

/* Rule 3's MX host names, of `min_labels` labels at least: the left-most
 * label may be "*". */
int acct_record_mx_host_valid(const char *name, int min_labels);

/* Is `rel`, a non-empty relative name, valid for a record of r's type?
 * Else acct_record_name_syntax_reason says why, as the 400 does. */
int acct_record_name_syntax_valid(apr_pool_t *pool, const acct_record *r,
                                  const char *rel);
const char *acct_record_name_syntax_reason(const acct_record *r);

/* What is wrong with a CAA issue/issuewild value (`wild`: issuewild), or
 * NULL when nothing is. */
const char *acct_record_caa_issuer_problem(apr_pool_t *pool,
                                           const char *value, int wild);

/* Is a CAA iodef value a mailto: address or an http(s) URL? */
int acct_record_caa_iodef_valid(apr_pool_t *pool, const char *value);

/* The caller's IPv4 address (also when it reached us IPv4-mapped), or NULL;
 * its IPv6 address (not an IPv4-mapped one), or NULL. */
const char *acct_record_caller_ipv4(const char *remote);
const char *acct_record_caller_ipv6(const char *remote);

/* `s` without one trailing dot. */
const char *acct_record_strip_trailing_dot(apr_pool_t *pool, const char *s);

#endif
