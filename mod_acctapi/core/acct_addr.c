#include "acct_addr.h"

#include <apr_strings.h>
#include <arpa/inet.h>
#include <string.h>
#include <strings.h>

int acct_ip_family(const char *text)
{
    unsigned char addr[sizeof(struct in6_addr)];

    if (!text) {
        return 0;
    }
    if (inet_pton(AF_INET, text, addr) == 1) {
        return AF_INET;
    }
    return inet_pton(AF_INET6, text, addr) == 1 ? AF_INET6 : 0;
}

const char *acct_ip_canonical_of(apr_pool_t *pool, int family,
                                 const char *text)
{
    unsigned char addr[sizeof(struct in6_addr)];
    char out[INET6_ADDRSTRLEN];

    if (!family) {
        family = acct_ip_family(text);
    }
    if (!family || !text || inet_pton(family, text, addr) != 1
        || !inet_ntop(family, addr, out, sizeof(out))) {
        return NULL;
    }
    return apr_pstrdup(pool, out);
}

const char *acct_ip_canonical(apr_pool_t *pool, const char *text)
{
    return acct_ip_canonical_of(pool, 0, text);
}

const char *acct_ip_v4_of(const char *text)
{
    if (!text) {
        return NULL;
    }
    if (strncasecmp(text, "::ffff:", 7) == 0
        && acct_ip_family(text + 7) == AF_INET) {
        return text + 7;
    }
    return acct_ip_family(text) == AF_INET ? text : NULL;
}

/* A prefix length: 0..bits in decimal digits, nothing else; -1 if not. */
static int parse_prefix(const char *s, int bits)
{
    int v = 0;

    if (!*s || (s[0] == '0' && s[1]) || strlen(s) > 3) {
        return -1;
    }
    for (; *s; s++) {
        if (*s < '0' || *s > '9') {
            return -1;
        }
        v = v * 10 + (*s - '0');
    }
    return v <= bits ? v : -1;
}

int acct_ip_range(const char *text, unsigned char *addr, int *prefix,
                  int *bits)
{
    const char *slash = strchr(text, '/');
    char host[INET6_ADDRSTRLEN + 1];
    apr_size_t n = slash ? (apr_size_t)(slash - text) : strlen(text);
    int family;

    if (n >= sizeof(host)) {
        return 0;
    }
    memcpy(host, text, n);
    host[n] = '\0';
    if (inet_pton(AF_INET, host, addr) == 1) {
        family = AF_INET;
        *bits = 32;
    }
    else if (inet_pton(AF_INET6, host, addr) == 1) {
        family = AF_INET6;
        *bits = 128;
    }
    else {
        return 0;
    }
    *prefix = slash ? parse_prefix(slash + 1, *bits) : *bits;
    return *prefix < 0 ? -1 : family;
}
