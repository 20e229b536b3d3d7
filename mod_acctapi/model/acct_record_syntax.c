/*
 * The syntax of a record's names and values, each judged alone: host and
 * MX names, PTR names, a name for a record's type, CAA values, the caller's
 * address for "[remote_addr]".  The rules per type (acct_record.c) decide
 * which of these a field must pass and what its problem says.
 */
#include "acct_record_syntax.h"
#include "acct_addr.h"
#include "acct_dns.h"

#include <apr_strings.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>

static void skip_blanks(const char **p)
{
    while (**p == ' ' || **p == '\t') {
        (*p)++;
    }
}

/* [from, to) is one or more decimal digits. */
static int all_digits(const char *from, const char *to)
{
    if (from >= to) {
        return 0;
    }
    for (; from < to; from++) {
        if (!isdigit((unsigned char)*from)) {
            return 0;
        }
    }
    return 1;
}

/*
 * A fully qualified host name: host-name syntax, two labels at least, and
 * a top-level label that is not all digits (192.0.2.1 is no host name).
 */
int acct_record_fqdn_valid(const char *name, unsigned flags)
{
    const char *last;

    if (!acct_valid_dns_name(name, flags & ~(unsigned)ACCT_DNS_RELATIVE)) {
        return 0;
    }
    last = strrchr(name, '.') + 1;
    return !all_digits(last, last + strlen(last));
}

/*
 * Rule 3's MX host names: the left-most label may be "*"; every other one
 * is letters, digits and hyphens, starts with a letter, ends with a letter
 * or digit and is under 64 characters.  At least `min_labels` labels.
 */
int acct_record_mx_host_valid(const char *name, int min_labels)
{
    const char *p = name, *start;
    int labels = 0;

    if (p[0] == '*' && (p[1] == '.' || p[1] == '\0')) {
        labels++;
        if (p[1] == '\0') {
            return labels >= min_labels;
        }
        p += 2;
    }
    for (;;) {
        start = p;
        if (!isalpha((unsigned char)*p)) {
            return 0;
        }
        while (isalnum((unsigned char)*p) || *p == '-') {
            p++;
        }
        if (p - start > ACCT_DNS_LABEL_MAX || p[-1] == '-') {
            return 0;
        }
        labels++;
        if (*p == '\0') {
            return labels >= min_labels;
        }
        if (*p != '.') {
            return 0;
        }
        p++;
    }
}

/*
 * PTR names follow reverse-DNS conventions: host-name labels (digits in
 * in-addr.arpa zones, hex nibbles in ip6.arpa ones) plus RFC 2317's
 * classless delegation labels such as "0/26".
 */
static int ptr_name_valid(apr_pool_t *pool, const char *name)
{
    char *s = apr_pstrdup(pool, name), *label = s, *p, *slash;

    for (p = s;; p++) {
        if (*p != '.' && *p != '\0') {
            continue;
        }
        slash = memchr(label, '/', (size_t)(p - label));
        if (slash) {
            if (!all_digits(label, slash) || !all_digits(slash + 1, p)) {
                return 0;
            }
            *slash = '-';  /* digits-digits: a host-name label */
        }
        if (*p == '\0') {
            break;
        }
        label = p + 1;
    }
    return acct_valid_dns_name(s, ACCT_DNS_WILDCARD | ACCT_DNS_UNDERSCORE
                                  | ACCT_DNS_RELATIVE);
}

/*
 * Is `rel`, a non-empty relative name, valid for a record of r's type?
 * Labels may hold underscores (_dmarc, caa_test: the public API's names
 * do), except in MX names, whose characters the contract's rule 3 lists.
 */
int acct_record_name_syntax_valid(apr_pool_t *pool, const acct_record *r,
                                  const char *rel)
{
    if (acct_record_is_type(r, ACCT_RECORD_TYPE_NS)) {
        return acct_valid_dns_name(rel, ACCT_DNS_UNDERSCORE
                                        | ACCT_DNS_RELATIVE);
    }
    if (acct_record_is_type(r, ACCT_RECORD_TYPE_MX)) {
        return acct_record_mx_host_valid(rel, 1);
    }
    if (acct_record_is_type(r, ACCT_RECORD_TYPE_PTR)) {
        return ptr_name_valid(pool, rel);
    }
    return acct_valid_dns_name(rel, ACCT_DNS_WILDCARD | ACCT_DNS_UNDERSCORE
                                    | ACCT_DNS_RELATIVE);
}

const char *acct_record_name_syntax_reason(const acct_record *r)
{
    if (acct_record_is_type(r, ACCT_RECORD_TYPE_NS)) {
        return "name must be a host name: labels of letters, digits, hyphens "
               "and underscores (wildcard names are not supported for NS "
               "records)";
    }
    if (acct_record_is_type(r, ACCT_RECORD_TYPE_MX)) {
        return "name must be a mail subdomain: labels of letters, digits and "
               "hyphens that start with a letter and end with a letter or "
               "digit; the left-most label may be *";
    }
    if (acct_record_is_type(r, ACCT_RECORD_TYPE_PTR)) {
        return "name must follow reverse-DNS conventions: labels of letters, "
               "digits, hyphens and underscores (or classless labels such as "
               "0/26)";
    }
    return "name must be a host name: labels of letters, digits, hyphens "
           "and underscores; the left-most label may be *";
}

/* A CAA property's parameters (RFC 8659): tag=value, separated by ';'. */
static int caa_parameters_valid(const char *p)
{
    const char *start;

    skip_blanks(&p);
    if (*p == '\0') {
        return 1;
    }
    for (;;) {
        start = p;
        while (isalnum((unsigned char)*p) || *p == '-') {
            p++;
        }
        if (p == start || !isalnum((unsigned char)*start) || p[-1] == '-') {
            return 0;
        }
        skip_blanks(&p);
        if (*p++ != '=') {
            return 0;
        }
        skip_blanks(&p);
        while (*p >= 0x21 && *p <= 0x7e && *p != ';') {
            p++;
        }
        skip_blanks(&p);
        if (*p == '\0') {
            return 1;
        }
        if (*p++ != ';') {
            return 0;
        }
        skip_blanks(&p);
    }
}

/*
 * issue / issuewild: a CA's domain, optionally followed by ';' and
 * parameters.  NULL when valid, else the reason.
 */
const char *acct_record_caa_issuer_problem(apr_pool_t *pool,
                                           const char *value, int wild)
{
    const char *semi = strchr(value, ';'), *from = value, *to, *domain;

    to = semi ? semi : value + strlen(value);
    skip_blanks(&from);
    while (to > from && (to[-1] == ' ' || to[-1] == '\t')) {
        to--;
    }
    domain = apr_pstrmemdup(pool, from, (size_t)(to - from));
    if (wild && domain[0] == '*') {
        return "target of an issuewild record must be a domain that does not "
               "start with *";
    }
    if (!acct_record_fqdn_valid(domain, 0)
        || (semi && !caa_parameters_valid(semi + 1))) {
        return "target must be a certificate authority's domain, such as "
               "letsencrypt.org, optionally followed by ';' and key=value "
               "parameters";
    }
    return NULL;
}

/* The part of an http(s) URL after "scheme://": host[:port][path]. */
static int url_rest_valid(apr_pool_t *pool, const char *p)
{
    size_t n = strcspn(p, ":/?#");
    apr_int64_t port = 0;
    const char *digits;

    if (!acct_record_fqdn_valid(apr_pstrmemdup(pool, p, n), 0)) {
        return 0;
    }
    p += n;
    if (*p == ':') {
        digits = ++p;
        while (isdigit((unsigned char)*p)) {
            p++;
        }
        if (p == digits || p - digits > 5
            || acct_parse_i64(apr_pstrmemdup(pool, digits,
                                             (size_t)(p - digits)), &port) != 0
            || port < 1 || port > 65535) {
            return 0;
        }
    }
    for (; *p; p++) {
        if (*p < 0x21 || *p > 0x7e) {
            return 0;
        }
    }
    return 1;
}

/* iodef: a domain, an http(s) URL on a domain, or mailto: an address. */
int acct_record_caa_iodef_valid(apr_pool_t *pool, const char *value)
{
    if (strncasecmp(value, "mailto:", 7) == 0) {
        return acct_valid_email(value + 7);
    }
    if (strncasecmp(value, "https://", 8) == 0) {
        return url_rest_valid(pool, value + 8);
    }
    if (strncasecmp(value, "http://", 7) == 0) {
        return url_rest_valid(pool, value + 7);
    }
    return acct_record_fqdn_valid(value, 0);
}

/* The caller's IPv4 address (also when it reached us IPv4-mapped), or NULL. */
const char *acct_record_caller_ipv4(const char *remote)
{
    return acct_ip_v4_of(remote);
}

/* The caller's IPv6 address (not an IPv4-mapped one), or NULL. */
const char *acct_record_caller_ipv6(const char *remote)
{
    return !acct_ip_v4_of(remote) && acct_ip_family(remote) == AF_INET6
           ? remote : NULL;
}

const char *acct_record_strip_trailing_dot(apr_pool_t *pool, const char *s)
{
    size_t n = strlen(s);

    return n > 0 && s[n - 1] == '.' ? apr_pstrmemdup(pool, s, n - 1) : s;
}
