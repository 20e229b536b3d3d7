#include "acct_record.h"
#include "acct_record_syntax.h"
#include "acct_addr.h"
#include "acct_dns.h"
#include "acct_text.h"

#include <apr_strings.h>
#include <arpa/inet.h>
#include <string.h>
#include <strings.h>

/* The A/AAAA target that stands for the caller's own address (rule 1). */
#define REMOTE_ADDR "[remote_addr]"

const char *const acct_record_types[] = {
    ACCT_RECORD_TYPE_A, ACCT_RECORD_TYPE_AAAA, ACCT_RECORD_TYPE_NS,
    ACCT_RECORD_TYPE_MX, ACCT_RECORD_TYPE_CNAME, ACCT_RECORD_TYPE_TXT,
    ACCT_RECORD_TYPE_SRV, ACCT_RECORD_TYPE_PTR, ACCT_RECORD_TYPE_CAA, NULL
};

static const char *const caa_tags[] = {"issue", "issuewild", "iodef", NULL};

/* The optional fields that belong to some types only, and to which. */
static const struct {
    unsigned bit;
    const char *field;
    const char *owners;
} typed_fields[] = {
    {ACCT_RECORD_PRIORITY, "priority", "MX and SRV records"},
    {ACCT_RECORD_WEIGHT, "weight", "SRV records"},
    {ACCT_RECORD_PORT, "port", "SRV records"},
    {ACCT_RECORD_SERVICE, "service", "SRV records"},
    {ACCT_RECORD_PROTOCOL, "protocol", "SRV records"},
    {ACCT_RECORD_TAG, "tag", "CAA records"},
};

#define NTYPED (sizeof(typed_fields) / sizeof(typed_fields[0]))

int acct_record_is_type(const acct_record *r, const char *type)
{
    return strcmp(r->type, type) == 0;
}

int acct_record_type_known(const char *type)
{
    const char *const *t;

    for (t = acct_record_types; type && *t; t++) {
        if (strcmp(*t, type) == 0) {
            return 1;
        }
    }
    return 0;
}

static unsigned fields_of_type(const acct_record *r)
{
    if (acct_record_is_type(r, ACCT_RECORD_TYPE_MX)) {
        return ACCT_RECORD_PRIORITY;
    }
    if (acct_record_is_type(r, ACCT_RECORD_TYPE_SRV)) {
        return ACCT_RECORD_PRIORITY | ACCT_RECORD_WEIGHT | ACCT_RECORD_PORT
               | ACCT_RECORD_SERVICE | ACCT_RECORD_PROTOCOL;
    }
    if (acct_record_is_type(r, ACCT_RECORD_TYPE_CAA)) {
        return ACCT_RECORD_TAG;
    }
    return 0;
}

/* Does the field hold what a record shows when the field is unused? */
static int field_unused(const acct_record *r, unsigned bit)
{
    switch (bit) {
    case ACCT_RECORD_PRIORITY:
        return r->priority == 0;
    case ACCT_RECORD_WEIGHT:
        return r->weight == 0;
    case ACCT_RECORD_PORT:
        return r->port == 0;
    case ACCT_RECORD_SERVICE:
        return r->service == NULL;
    case ACCT_RECORD_PROTOCOL:
        return r->protocol == NULL;
    default:
        return r->tag == NULL;
    }
}

/* ------------------------------------------------------------------------
 * The rules, field by field
 * ------------------------------------------------------------------------ */

/*
 * The name relative to the zone (docs/conventions.md "Record"): the domain
 * itself or
 * a name under it loses that suffix (apex ""); a trailing dot makes the
 * name fully qualified, so it must lie in the zone.  NULL after the error.
 */
static const char *relative_name(apr_pool_t *pool, acct_problems *pb,
                                 const char *name, const char *domain)
{
    size_t n, d = strlen(domain);
    int fq;
    char *s;

    if (!name || !*name) {
        return "";
    }
    if (strcmp(name, "@") == 0) {
        acct_problem_add(pb, "name",
                         "@ is not a valid name: use an empty string for "
                         "the domain itself");
        return NULL;
    }
    n = strlen(name);
    fq = name[n - 1] == '.';
    n -= fq;
    s = apr_pstrmemdup(pool, name, n);
    if (n == d && strcasecmp(s, domain) == 0) {
        return "";
    }
    if (n > d + 1 && s[n - d - 1] == '.'
        && strcasecmp(s + n - d, domain) == 0) {
        s[n - d - 1] = '\0';
        return s;
    }
    if (fq) {
        acct_problem_add(pb, "name",
                apr_psprintf(pool, "name %s is outside the domain %s", name,
                             domain));
        return NULL;
    }
    return s;
}

/* Fields given a value that their type does not use. */
static void check_typed_fields(apr_pool_t *pool, acct_problems *pb,
                               const acct_record *r, unsigned skip)
{
    unsigned own = fields_of_type(r);
    size_t i;

    for (i = 0; i < NTYPED; i++) {
        unsigned bit = typed_fields[i].bit;

        /* The unused value (0 or null) is what every view shows, so a
         * client sending a record back as it read it is not refused. */
        if (!(own & bit) && !(skip & bit) && !field_unused(r, bit)) {
            acct_problem_add(pb, typed_fields[i].field,
                             apr_psprintf(pool, "%s is only valid for %s",
                                          typed_fields[i].field,
                                          typed_fields[i].owners));
        }
    }
}

/* The stored name of every type but SRV (whose name is derived). */
static const char *record_name(apr_pool_t *pool, acct_problems *pb,
                               const acct_record *r, const char *domain)
{
    const char *rel = relative_name(pool, pb, r->name, domain);

    if (!rel) {
        return NULL;
    }
    if (!*rel) {
        if (acct_record_is_type(r, ACCT_RECORD_TYPE_CNAME)) {
            acct_problem_add(pb, "name",
                             "name is required for CNAME records: a CNAME "
                             "cannot be at the domain itself");
            return NULL;
        }
        return rel;
    }
    if (!acct_record_name_syntax_valid(pool, r, rel)) {
        acct_problem_add(pb, "name", acct_record_name_syntax_reason(r));
        return NULL;
    }
    if (strlen(rel) + 1 + strlen(domain) > ACCT_DNS_NAME_MAX) {
        acct_problem_add(pb, "name",
                         "name is too long: with the domain it exceeds 253 "
                         "characters");
        return NULL;
    }
    return rel;
}

/*
 * A label of an SRV service or protocol, stored without its leading
 * underscore.  Underscores inside are the label's own (service_test: the
 * public API takes them).
 */
static const char *srv_label(apr_pool_t *pool, acct_problems *pb,
                             const char *field, const char *value)
{
    const char *v = value;

    if (!v) {
        acct_problem_add(pb, field,
                apr_psprintf(pool, "%s is required for SRV records", field));
        return NULL;
    }
    if (*v == '_') {
        v++;
    }
    if (strchr(v, '.')
        || !acct_valid_dns_name(v, ACCT_DNS_UNDERSCORE | ACCT_DNS_RELATIVE)) {
        acct_problem_add(pb, field,
                apr_psprintf(pool, "%s must be one label of letters, digits, "
                             "hyphens and underscores, with or without a "
                             "leading underscore (such as %s)", field,
                             strcmp(field, "service") == 0 ? "sip or _sip"
                                                           : "tcp or _tcp"));
        return NULL;
    }
    /* The label is stored without its underscore and named with it. */
    if (strlen(v) + 1 > ACCT_DNS_LABEL_MAX) {
        acct_problem_add(pb, field,
                apr_psprintf(pool, "%s is too long: with its underscore it is "
                             "one DNS label, of at most 63 characters",
                             field));
        return NULL;
    }
    return apr_pstrdup(pool, v);
}

/*
 * SRV: service and the numbers are required, protocol defaults to tcp (as
 * the public API's does: linode_api4's fixture sends none); the name
 * derives.
 */
static void srv_fields(apr_pool_t *pool, acct_problems *pb, acct_record *out,
                       unsigned skip, const char *domain)
{
    static const struct {
        unsigned bit;
        const char *field;
    } numbers[] = {
        {ACCT_RECORD_PRIORITY, "priority"},
        {ACCT_RECORD_WEIGHT, "weight"},
        {ACCT_RECORD_PORT, "port"},
    };
    const char *service = NULL, *protocol = NULL;
    size_t i;

    if (!(skip & ACCT_RECORD_SERVICE)) {
        service = srv_label(pool, pb, "service", out->service);
    }
    if (!(skip & ACCT_RECORD_PROTOCOL)) {
        protocol = srv_label(pool, pb, "protocol",
                             out->protocol ? out->protocol
                                           : ACCT_RECORD_SRV_PROTOCOL);
    }
    for (i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
        if (!(skip & numbers[i].bit) && !(out->set & numbers[i].bit)) {
            acct_problem_add(pb, numbers[i].field,
                    apr_psprintf(pool, "%s is required for SRV records",
                                 numbers[i].field));
        }
    }
    if (!service || !protocol) {
        return;
    }
    /* The contract leaves an SRV name unused: whatever was given, the name
     * is the one the service and protocol make. */
    out->service = service;
    out->protocol = protocol;
    out->name = apr_pstrcat(pool, "_", service, "._", protocol, NULL);
    if (strlen(out->name) + 1 + strlen(domain) > ACCT_DNS_NAME_MAX) {
        acct_problem_add(pb, "service",
                         "service and protocol are too long: with the "
                         "domain the name exceeds 253 characters");
    }
}

static const char *target_a(apr_pool_t *pool, acct_problems *pb, const char *t,
                            const acct_record_zone *zone)
{
    const char *ip = t, *text;

    if (strcmp(t, REMOTE_ADDR) == 0) {
        ip = acct_record_caller_ipv4(zone->remote_addr);
        if (!ip) {
            acct_problem_add(pb, "target",
                             REMOTE_ADDR " stands for the IPv4 address of "
                             "your request, and this request did not come "
                             "from one");
            return NULL;
        }
    }
    text = acct_ip_canonical_of(pool, AF_INET, ip);
    if (!text) {
        acct_problem_add(pb, "target",
                         "target must be an IPv4 address, such as "
                         "192.0.2.10, or " REMOTE_ADDR);
    }
    return text;
}

static const char *target_aaaa(apr_pool_t *pool, acct_problems *pb,
                               const char *t, const acct_record_zone *zone)
{
    const char *ip = t, *text;

    if (strcmp(t, REMOTE_ADDR) == 0) {
        ip = acct_record_caller_ipv6(zone->remote_addr);
        if (!ip) {
            acct_problem_add(pb, "target",
                             REMOTE_ADDR " stands for the address of your "
                             "request, and an AAAA record needs an IPv6 "
                             "one");
            return NULL;
        }
    }
    text = acct_ip_canonical_of(pool, AF_INET6, ip);
    if (!text) {
        acct_problem_add(pb, "target",
                         "target must be an IPv6 address, such as "
                         "2001:db8::10");
    }
    return text;
}

/*
 * NS, CNAME, PTR: a fully qualified host name ("a valid domain", whose
 * labels may hold underscores as the public API's domains may); a
 * trailing dot is accepted.
 */
static const char *target_host(apr_pool_t *pool, acct_problems *pb,
                               const acct_record *r, const char *t)
{
    const char *host = acct_record_strip_trailing_dot(pool, t);

    if (!acct_record_fqdn_valid(host, ACCT_DNS_UNDERSCORE)) {
        acct_problem_add(pb, "target",
                         acct_record_is_type(r, ACCT_RECORD_TYPE_NS)
                         ? "target must be a name server's fully qualified "
                           "host name, such as ns1.example.net"
                         : acct_record_is_type(r, ACCT_RECORD_TYPE_CNAME)
                         ? "target must be a fully qualified domain name, "
                           "such as www.example.net"
                         : "target must be a fully qualified host name, "
                           "such as host.example.net");
        return NULL;
    }
    return host;
}

static const char *target_mx(apr_pool_t *pool, acct_problems *pb,
                             const char *t)
{
    const char *host = acct_record_strip_trailing_dot(pool, t);

    if (strlen(host) >= 254) {
        acct_problem_add(pb, "target",
                         "target must be fewer than 254 characters");
        return NULL;
    }
    if (!acct_record_mx_host_valid(host, 2)) {
        acct_problem_add(pb, "target",
                         "target must be a mail server's domain name, such "
                         "as mail.example.net: labels of letters, digits "
                         "and hyphens that start with a letter and end with "
                         "a letter or digit; the left-most label may be *");
        return NULL;
    }
    return host;
}

/*
 * A bare SRV target is a host of the domain; a dotted one stands as it is.
 * Either may hold underscores (linode_api4's own fixture targets rc_test).
 */
static const char *target_srv(apr_pool_t *pool, acct_problems *pb,
                              const char *t, const char *domain)
{
    const char *host = acct_record_strip_trailing_dot(pool, t);

    if (host == t && !strchr(host, '.')
        && acct_valid_dns_name(host, ACCT_DNS_UNDERSCORE
                                     | ACCT_DNS_RELATIVE)) {
        host = apr_pstrcat(pool, host, ".", domain, NULL);
    }
    if (!acct_record_fqdn_valid(host, ACCT_DNS_UNDERSCORE)) {
        acct_problem_add(pb, "target",
                         "target must be a host name: a bare name within "
                         "the domain, such as sip, or a fully qualified "
                         "one, such as sip.example.net");
        return NULL;
    }
    return host;
}

static const char *target_caa(apr_pool_t *pool, acct_problems *pb,
                              const char *t, const char *tag)
{
    const char *problem = NULL;

    if (strcmp(tag, "iodef") == 0) {
        if (!acct_record_caa_iodef_valid(pool, t)) {
            problem = "target of an iodef record must be a domain, an http:// "
                      "or https:// URL, or a mailto: e-mail address";
        }
    }
    else {
        problem = acct_record_caa_issuer_problem(pool, t,
                                                 strcmp(tag, "issuewild")
                                                 == 0);
    }
    if (problem) {
        acct_problem_add(pb, "target", problem);
        return NULL;
    }
    return t;
}

/* CAA: the tag is required and decides the target's form. */
static const char *caa_tag(apr_pool_t *pool, acct_problems *pb,
                           const acct_record *r, unsigned skip)
{
    const char *const *t;

    if (skip & ACCT_RECORD_TAG) {
        return NULL;
    }
    if (!r->tag) {
        acct_problem_add(pb, "tag",
                         "tag is required for CAA records");
        return NULL;
    }
    for (t = caa_tags; *t; t++) {
        if (strcmp(*t, r->tag) == 0) {
            return *t;
        }
    }
    acct_problem_add(pb, "tag",
                     "tag must be one of: issue, issuewild, iodef");
    return NULL;
}

/*
 * Null MX (rule 4): an empty target, only at the domain itself and only
 * with priority 0.  1 when `out` is one (its target set), 0 when it is an
 * ordinary MX, -1 after an error.
 */
static int null_mx(apr_pool_t *pool, acct_problems *pb, acct_record *out,
                   unsigned skip)
{
    if (!out->target || *out->target) {
        return 0;
    }
    if (!(skip & ACCT_RECORD_NAME) && out->name && *out->name) {
        acct_problem_add(pb, "target",
                         "target is required: only a Null MX record, at the "
                         "domain itself (name \"\"), has an empty target");
        return -1;
    }
    if (!(skip & ACCT_RECORD_PRIORITY) && out->priority != 0) {
        acct_problem_add(pb, "priority",
                         "priority must be 0 for a Null MX record");
        return -1;
    }
    return 1;
}

static const char *record_target(apr_pool_t *pool, acct_problems *pb,
                                 const acct_record *r, const char *tag,
                                 const acct_record_zone *zone)
{
    const char *t = r->target;

    if (!t || !*t) {
        acct_problem_add(pb, "target", "target is required");
        return NULL;
    }
    if (acct_record_is_type(r, ACCT_RECORD_TYPE_A)) {
        return target_a(pool, pb, t, zone);
    }
    if (acct_record_is_type(r, ACCT_RECORD_TYPE_AAAA)) {
        return target_aaaa(pool, pb, t, zone);
    }
    if (acct_record_is_type(r, ACCT_RECORD_TYPE_MX)) {
        return target_mx(pool, pb, t);
    }
    if (acct_record_is_type(r, ACCT_RECORD_TYPE_SRV)) {
        return target_srv(pool, pb, t, zone->domain);
    }
    if (acct_record_is_type(r, ACCT_RECORD_TYPE_CAA)) {
        return tag ? target_caa(pool, pb, t, tag) : NULL;
    }
    if (acct_record_is_type(r, ACCT_RECORD_TYPE_TXT)) {
        if (acct_has_control_character(t)) {
            acct_problem_add(pb, "target",
                             "target must be printable text: control "
                             "characters are not allowed");
            return NULL;
        }
        /* Each 255-byte string adds a length byte to the 65535-byte RDATA:
         * a longer value could be stored but no nameserver could load the
         * zone (named-checkzone: "ran out of space"). */
        if (strlen(t) > ACCT_RECORD_TXT_BYTES_MAX) {
            acct_problem_add(pb, "target",
                             apr_psprintf(pool, "target is too long for DNS: "
                                          "at most %d bytes",
                                          ACCT_RECORD_TXT_BYTES_MAX));
            return NULL;
        }
        return t;
    }
    return target_host(pool, pb, r, t);
}

int acct_record_normalise(apr_pool_t *pool, acct_problems *pb,
                          const acct_record *in, unsigned skip,
                          const acct_record_zone *zone, acct_record *out)
{
    int before = acct_problems_count(pb);
    const char *tag = NULL;
    int is_null_mx = 0;

    *out = *in;
    if (!acct_record_type_known(in->type)) {
        if (!(skip & ACCT_RECORD_TYPE)) {
            acct_problem_add(pb, "type", in->type
                    ? "type must be one of: A, AAAA, NS, MX, CNAME, TXT, SRV, "
                      "PTR, CAA"
                    : "type is required");
        }
        return -1;
    }
    check_typed_fields(pool, pb, in, skip);
    if (acct_record_is_type(in, ACCT_RECORD_TYPE_SRV)) {
        srv_fields(pool, pb, out, skip, zone->domain);
    }
    else if (!(skip & ACCT_RECORD_NAME)) {
        out->name = record_name(pool, pb, in, zone->domain);
    }
    if (acct_record_is_type(in, ACCT_RECORD_TYPE_CAA)) {
        tag = caa_tag(pool, pb, in, skip);
    }
    if (acct_record_is_type(in, ACCT_RECORD_TYPE_MX)) {
        is_null_mx = null_mx(pool, pb, out, skip);
    }
    if (!(skip & ACCT_RECORD_TARGET) && is_null_mx == 0) {
        out->target = record_target(pool, pb, in, tag, zone);
    }
    out->ttl_sec = acct_dns_round_record_ttl(in->ttl_sec);
    return acct_problems_count(pb) > before ? -1 : 0;
}

int acct_record_is_null_mx(const acct_record *r)
{
    return strcmp(r->type, ACCT_RECORD_TYPE_MX) == 0 && r->name && !*r->name
           && r->target && !*r->target;
}
