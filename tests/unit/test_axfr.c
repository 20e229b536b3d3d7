/* Zone transfers: remote_nameserver's forms, the mapping of RRs and of the
 * SOA onto the service's fields, the judging of answers, transfers against
 * a scripted server on a loopback port (every way one can end), and
 * POST /domains/import on a migrated SQLite database through that server:
 * the body rules, grants, and what an import stores and skips. */
#include "unit.h"

#include <apr_network_io.h>
#include <apr_poll.h>
#include <apr_strings.h>
#include <apr_thread_proc.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "unit_db.h"
#include "acct_auth.h"
#include "acct_axfr.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "api_handlers.h"

#define R_SERVER "remote_nameserver must be an IPv4 or IPv6 address or a " \
    "host name, optionally followed by a port: 192.0.2.1, 192.0.2.1:5353, " \
    "2001:db8::1, [2001:db8::1]:5353, ns1.example.net or " \
    "ns1.example.net:5353"
#define R_PORT "The port of remote_nameserver must be a number from 1 to " \
    "65535"

/* ------------------------------------------------------------------------
 * remote_nameserver
 * ------------------------------------------------------------------------ */

static void test_parse_server(void **state)
{
    static const struct {
        const char *text, *host;
        unsigned port;
    } good[] = {
        {"192.0.2.1", "192.0.2.1", 53},
        {"192.0.2.1:5353", "192.0.2.1", 5353},
        {"127.0.0.1:65535", "127.0.0.1", 65535},
        {"2001:db8::1", "2001:db8::1", 53},
        {"::1", "::1", 53},
        {"[2001:db8::1]", "2001:db8::1", 53},
        {"[2001:db8::1]:5353", "2001:db8::1", 5353},
        {"[::ffff:192.0.2.1]:1", "::ffff:192.0.2.1", 1},
        {"ns1.example.net", "ns1.example.net", 53},
        {"ns1.example.net.", "ns1.example.net", 53},
        {"NS1.Example.NET:5353", "NS1.Example.NET", 5353},
        {"localhost:8053", "localhost", 8053},
        {"a-1.b2.example", "a-1.b2.example", 53},
    };
    static const struct {
        const char *text, *reason;
    } bad[] = {
        {"192.0.2.1:", R_PORT},
        {"192.0.2.1:0", R_PORT},
        {"192.0.2.1:65536", R_PORT},
        {"192.0.2.1:53a", R_PORT},
        {"192.0.2.1:-1", R_PORT},
        {"192.0.2.1:+53", R_PORT},
        {"192.0.2.1:000053", R_PORT},
        {"[2001:db8::1]:", R_PORT},
        {"[2001:db8::1]:99999", R_PORT},
        {"ns1.example.net:x", R_PORT},
        {"192.0.2.300", R_SERVER},
        {"192.0.2", R_SERVER},
        {"1.2.3.4.5", R_SERVER},
        {"2001:db8::1:5353x", R_SERVER},
        {"2001:db8:::1", R_SERVER},
        {"[2001:db8::1", R_SERVER},
        {"[2001:db8::1]5353", R_SERVER},
        {"[192.0.2.1]:53", R_SERVER},
        {"[ns1.example.net]:53", R_SERVER},
        {"[]:53", R_SERVER},
        {"", R_SERVER},
        {":53", R_SERVER},
        {"-ns.example.net", R_SERVER},
        {"ns-.example.net", R_SERVER},
        {"ns..example.net", R_SERVER},
        {"ns_1.example.net", R_SERVER},
        {"ns1 .example.net", R_SERVER},
        {"http://ns1.example.net", R_PORT},
        {"ns1.example.net..", R_SERVER},
        {"fe80::1%eth0", R_SERVER},
    };
    acct_axfr_server s;
    const char *reason;
    size_t i;

    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        memset(&s, 0, sizeof(s));
        reason = acct_axfr_parse_server(pool, good[i].text, &s);
        UNIT_CHECK(good[i].text, reason == NULL);
        UNIT_CHECK(good[i].text, strcmp(s.host, good[i].host) == 0);
        UNIT_CHECK(good[i].text, s.port == good[i].port);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        reason = acct_axfr_parse_server(pool, bad[i].text, &s);
        UNIT_CHECK(bad[i].text, reason && strcmp(reason, bad[i].reason) == 0);
    }
}

static void test_server_text(void **state)
{
    acct_axfr_server s;

    assert_null(acct_axfr_parse_server(pool, "192.0.2.1", &s));
    assert_string_equal(acct_axfr_server_text(pool, &s), "192.0.2.1:53");
    assert_null(acct_axfr_parse_server(pool, "2001:db8::1", &s));
    assert_string_equal(acct_axfr_server_text(pool, &s), "[2001:db8::1]:53");
    assert_null(acct_axfr_parse_server(pool, "ns.example.net.:99", &s));
    assert_string_equal(acct_axfr_server_text(pool, &s), "ns.example.net:99");
}

/* ------------------------------------------------------------------------
 * Mapping
 * ------------------------------------------------------------------------ */

static ldns_rr *rr_of(const char *text)
{
    ldns_rr *rr = NULL;

    if (ldns_rr_new_frm_str(&rr, text, 3600, NULL, NULL) != LDNS_STATUS_OK) {
        fail_msg("ldns cannot read %s", text);
    }
    return rr;
}

static const char *or_null(const char *s)
{
    return s ? s : "(null)";
}

/* The record as a client would read it back: "TYPE name target p w port
 * service protocol ttl tag", after the validation every record passes. */
static const char *stored(const acct_record *raw, const char *zone)
{
    acct_record_zone where = {zone, NULL};
    acct_problems *pb = acct_problems_make(pool);
    acct_record rec;

    if (acct_record_normalise(pool, pb, raw, 0, &where, &rec) != 0) {
        return apr_psprintf(pool, "invalid: %s", acct_problem_reason(pb, 0));
    }
    return apr_psprintf(pool, "%s [%s] [%s] %d %d %d %s %s %d %s", rec.type,
                        rec.name, rec.target, (int)rec.priority,
                        (int)rec.weight, (int)rec.port, or_null(rec.service),
                        or_null(rec.protocol), (int)rec.ttl_sec,
                        or_null(rec.tag));
}

static void test_record_mapping(void **state)
{
    static const struct {
        const char *rr;
        acct_axfr_map_rc rc;
        const char *want;    /* stored(), or the reason of UNFIT */
    } cases[] = {
        {"www.example.com. 3600 IN A 192.0.2.10", ACCT_AXFR_MAPPED,
         "A [www] [192.0.2.10] 0 0 0 (null) (null) 3600 (null)"},
        {"example.com. 3600 IN A 192.0.2.10", ACCT_AXFR_MAPPED,
         "A [] [192.0.2.10] 0 0 0 (null) (null) 3600 (null)"},
        {"*.Example.COM. 300 IN A 192.0.2.10", ACCT_AXFR_MAPPED,
         "A [*] [192.0.2.10] 0 0 0 (null) (null) 300 (null)"},
        {"v6.example.com. 7200 IN AAAA 2001:DB8:0:0::1", ACCT_AXFR_MAPPED,
         "AAAA [v6] [2001:db8::1] 0 0 0 (null) (null) 7200 (null)"},
        /* TTLs round up like a record's; 0 is the shortest, not the default */
        {"t.example.com. 0 IN A 192.0.2.1", ACCT_AXFR_MAPPED,
         "A [t] [192.0.2.1] 0 0 0 (null) (null) 300 (null)"},
        {"t.example.com. 3601 IN A 192.0.2.1", ACCT_AXFR_MAPPED,
         "A [t] [192.0.2.1] 0 0 0 (null) (null) 7200 (null)"},
        {"t.example.com. 99999999 IN A 192.0.2.1", ACCT_AXFR_MAPPED,
         "A [t] [192.0.2.1] 0 0 0 (null) (null) 2419200 (null)"},
        {"sub.example.com. 3600 IN NS ns1.elsewhere.net.", ACCT_AXFR_MAPPED,
         "NS [sub] [ns1.elsewhere.net] 0 0 0 (null) (null) 3600 (null)"},
        {"example.com. 3600 IN NS ns1.elsewhere.net.", ACCT_AXFR_APEX_NS, NULL},
        {"EXAMPLE.com. 3600 IN NS ns1.elsewhere.net.", ACCT_AXFR_APEX_NS, NULL},
        {"example.com. 3600 IN MX 10 mail.example.com.", ACCT_AXFR_MAPPED,
         "MX [] [mail.example.com] 10 0 0 (null) (null) 3600 (null)"},
        {"example.com. 3600 IN MX 0 .", ACCT_AXFR_MAPPED,
         "MX [] [] 0 0 0 (null) (null) 3600 (null)"},
        {"lists.example.com. 3600 IN MX 0 .", ACCT_AXFR_MAPPED,
         "invalid: target is required: only a Null MX record, at the domain "
         "itself (name \"\"), has an empty target"},
        {"www.example.com. 3600 IN CNAME web.example.net.", ACCT_AXFR_MAPPED,
         "CNAME [www] [web.example.net] 0 0 0 (null) (null) 3600 (null)"},
        {"example.com. 3600 IN CNAME web.example.net.", ACCT_AXFR_MAPPED,
         "invalid: name is required for CNAME records: a CNAME cannot be at "
         "the domain itself"},
        {"10.example.com. 3600 IN PTR host.example.net.", ACCT_AXFR_MAPPED,
         "PTR [10] [host.example.net] 0 0 0 (null) (null) 3600 (null)"},
        {"example.com. 3600 IN TXT \"v=spf1 \" \"-all\"", ACCT_AXFR_MAPPED,
         "TXT [] [v=spf1 -all] 0 0 0 (null) (null) 3600 (null)"},
        {"_dmarc.example.com. 3600 IN TXT \"v=DMARC1; p=none\"",
         ACCT_AXFR_MAPPED,
         "TXT [_dmarc] [v=DMARC1; p=none] 0 0 0 (null) (null) 3600 (null)"},
        {"q.example.com. 3600 IN TXT \"say \\\"hi\\\"\"", ACCT_AXFR_MAPPED,
         "TXT [q] [say \"hi\"] 0 0 0 (null) (null) 3600 (null)"},
        {"u.example.com. 3600 IN TXT \"caf\\195\\169\"", ACCT_AXFR_MAPPED,
         "TXT [u] [caf\xc3\xa9] 0 0 0 (null) (null) 3600 (null)"},
        {"c.example.com. 3600 IN TXT \"a\\010b\"", ACCT_AXFR_MAPPED,
         "invalid: target must be printable text: control characters are "
         "not allowed"},
        {"n.example.com. 3600 IN TXT \"a\\000b\"", ACCT_AXFR_UNFIT,
         "its text holds a NUL byte"},
        {"l.example.com. 3600 IN TXT \"\\255\\254\"", ACCT_AXFR_UNFIT,
         "its text is not UTF-8"},
        {"_sip._tcp.example.com. 3600 IN SRV 10 20 5060 sip.example.com.",
         ACCT_AXFR_MAPPED,
         "SRV [_sip._tcp] [sip.example.com] 10 20 5060 sip tcp 3600 (null)"},
        {"_sip._tcp.sub.example.com. 3600 IN SRV 10 20 5060 sip.example.com.",
         ACCT_AXFR_UNFIT, "an SRV record is kept only at _service._protocol "
                          "directly under the domain"},
        {"sip.tcp.example.com. 3600 IN SRV 10 20 5060 sip.example.com.",
         ACCT_AXFR_UNFIT, "an SRV record is kept only at _service._protocol "
                          "directly under the domain"},
        {"_sip._tcp.example.com. 3600 IN SRV 0 0 0 .", ACCT_AXFR_MAPPED,
         "invalid: target must be a host name: a bare name within the domain, "
         "such as sip, or a fully qualified one, such as sip.example.net"},
        {"example.com. 3600 IN CAA 0 issue \"letsencrypt.org\"",
         ACCT_AXFR_MAPPED,
         "CAA [] [letsencrypt.org] 0 0 0 (null) (null) 3600 issue"},
        {"example.com. 3600 IN CAA 128 IssueWild \"ca.example.net; a=b\"",
         ACCT_AXFR_MAPPED,
         "CAA [] [ca.example.net; a=b] 0 0 0 (null) (null) 3600 issuewild"},
        {"www.example.com. 3600 IN CAA 0 iodef \"mailto:sec@example.com\"",
         ACCT_AXFR_MAPPED,
         "CAA [www] [mailto:sec@example.com] 0 0 0 (null) (null) 3600 iodef"},
        {"example.com. 3600 IN CAA 0 contactemail \"a@example.com\"",
         ACCT_AXFR_MAPPED, "invalid: tag must be one of: issue, issuewild, "
                           "iodef"},
        {"other.example.net. 3600 IN A 192.0.2.1", ACCT_AXFR_UNFIT,
         "its name lies outside the zone"},
        {"xexample.com. 3600 IN A 192.0.2.1", ACCT_AXFR_UNFIT,
         "its name lies outside the zone"},
        {"bad_name.example.com. 3600 IN A 192.0.2.1", ACCT_AXFR_MAPPED,
         "A [bad_name] [192.0.2.1] 0 0 0 (null) (null) 3600 (null)"},
        {"bad\\032name.example.com. 3600 IN A 192.0.2.1", ACCT_AXFR_MAPPED,
         "invalid: name must be a host name: labels of letters, digits, "
         "hyphens and underscores; the left-most label may be *"},
        {"_a_b._tcp.example.com. 3600 IN SRV 1 2 3 rc_test.example.com.",
         ACCT_AXFR_MAPPED,
         "SRV [_a_b._tcp] [rc_test.example.com] 1 2 3 a_b tcp 3600 (null)"},
        {"example.com. 3600 IN HINFO \"PC\" \"Linux\"", ACCT_AXFR_UNSUPPORTED,
         NULL},
        {"example.com. 3600 IN LOC 52 22 23.000 N 4 53 32.000 E -2.00m 0.00m "
         "10000m 10m", ACCT_AXFR_UNSUPPORTED, NULL},
        {"example.com. 3600 IN SSHFP 1 1 "
         "dd465c09cfa51fb45020cc83316fff21b9ec74ac", ACCT_AXFR_UNSUPPORTED,
         NULL},
        {"example.com. 3600 IN TYPE65534 \\# 1 01", ACCT_AXFR_UNSUPPORTED,
         NULL},
        {"example.com. 3600 CH A 192.0.2.1", ACCT_AXFR_UNSUPPORTED, NULL},
    };
    acct_record raw;
    const char *why;
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ldns_rr *rr = rr_of(cases[i].rr);
        acct_axfr_map_rc rc = acct_axfr_record(pool, rr, "example.com", &raw,
                                               &why);

        UNIT_CHECKF(rc == cases[i].rc, "%s: rc %d", cases[i].rr, (int)rc);
        if (rc == ACCT_AXFR_MAPPED) {
            const char *got = stored(&raw, "example.com");

            UNIT_CHECKF(strcmp(got, cases[i].want) == 0, "%s: got %s",
                        cases[i].rr, got);
        }
        else if (rc == ACCT_AXFR_UNFIT) {
            UNIT_CHECKF(strcmp(why, cases[i].want) == 0, "%s: why %s",
                        cases[i].rr, why);
        }
        ldns_rr_free(rr);
    }
}

static void test_type_names(void **state)
{
    ldns_rr *rr = rr_of("example.com. 3600 IN HINFO \"PC\" \"Linux\"");

    assert_string_equal(acct_axfr_type_name(pool, rr), "HINFO");
    ldns_rr_free(rr);
    rr = rr_of("example.com. 3600 IN TYPE65534 \\# 1 01");
    assert_string_equal(acct_axfr_type_name(pool, rr), "TYPE65534");
    ldns_rr_free(rr);
}

static void test_soa_mapping(void **state)
{
    static const struct {
        const char *soa, *email;
        apr_int64_t refresh, retry, expire, ttl;
    } cases[] = {
        /* timers round up as a domain's; ttl_sec is the SOA's own TTL */
        {"example.com. 3600 IN SOA ns1.example.com. hostmaster.example.com. "
         "1 7200 900 1209600 300", "hostmaster@example.com",
         7200, 3600, 1209600, 3600},
        {"example.com. 86400 IN SOA ns1.example.com. john\\.doe.example.com. "
         "1 10000 100 2000000 60", "john.doe@example.com",
         14400, 120, 2419200, 86400},
        {"example.com. 900 IN SOA ns.awsdns.com. awsdns-hostmaster.amazon.com. "
         "1 7200 900 1209600 86400", "awsdns-hostmaster@amazon.com",
         7200, 3600, 1209600, 3600},
        /* 0: the contract's default */
        {"example.com. 0 IN SOA ns1.example.com. h.example.com. 1 0 0 0 0",
         "h@example.com", 0, 0, 0, 0},
        {"example.com. 3600 IN SOA ns1.example.com. root. 1 1 1 1 1", NULL,
         30, 30, 30, 3600},
        {"example.com. 3600 IN SOA ns1.example.com. . 1 1 1 1 1", NULL,
         30, 30, 30, 3600},
        {"example.com. 3600 IN SOA ns1.example.com. a\\@b.example.com. "
         "1 1 1 1 1", NULL, 30, 30, 30, 3600},
        {"example.com. 3600 IN SOA ns1.example.com. a\\000b.example.com. "
         "1 1 1 1 1", NULL, 30, 30, 30, 3600},
    };
    acct_domain d;
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ldns_rr *rr = rr_of(cases[i].soa);

        acct_domain_init(&d);
        acct_axfr_soa_domain(pool, rr, &d);
        UNIT_CHECK_CASE(i, cases[i].email ? d.soa_email
                        && strcmp(d.soa_email, cases[i].email) == 0
                        : d.soa_email == NULL);
        UNIT_CHECK_CASE(i, d.refresh_sec == cases[i].refresh);
        UNIT_CHECK_CASE(i, d.retry_sec == cases[i].retry);
        UNIT_CHECK_CASE(i, d.expire_sec == cases[i].expire);
        UNIT_CHECK_CASE(i, d.ttl_sec == cases[i].ttl);
        ldns_rr_free(rr);
    }
}

/* ------------------------------------------------------------------------
 * Judging answers
 * ------------------------------------------------------------------------ */

static ldns_pkt *answer(uint16_t id, int qr, int aa, ldns_pkt_rcode rcode,
                        int records)
{
    ldns_pkt *p = ldns_pkt_new();

    ldns_pkt_set_id(p, id);
    ldns_pkt_set_qr(p, qr);
    ldns_pkt_set_aa(p, aa);
    ldns_pkt_set_rcode(p, (uint8_t)rcode);
    if (records) {
        ldns_pkt_push_rr(p, LDNS_SECTION_ANSWER,
                         rr_of("example.com. 3600 IN SOA ns.example.com. "
                               "h.example.com. 1 2 3 4 5"));
    }
    return p;
}

static void test_judge(void **state)
{
    static const struct {
        uint16_t id;
        int qr, aa;
        ldns_pkt_rcode rcode;
        int records, first;
        acct_axfr_rc want;
        const char *detail;
    } cases[] = {
        {7, 1, 1, LDNS_RCODE_NOERROR, 1, 1, ACCT_AXFR_OK, NULL},
        {7, 1, 0, LDNS_RCODE_NOERROR, 1, 0, ACCT_AXFR_OK, NULL},
        {7, 1, 0, LDNS_RCODE_NOERROR, 1, 1, ACCT_AXFR_NOT_AUTH, NULL},
        {7, 1, 1, LDNS_RCODE_NOERROR, 0, 1, ACCT_AXFR_NOT_AUTH, NULL},
        {7, 1, 0, LDNS_RCODE_REFUSED, 0, 1, ACCT_AXFR_REFUSED, NULL},
        {7, 1, 1, LDNS_RCODE_NXDOMAIN, 0, 1, ACCT_AXFR_NXDOMAIN, NULL},
        {7, 1, 0, LDNS_RCODE_NOTAUTH, 0, 1, ACCT_AXFR_NOT_AUTH, NULL},
        {7, 1, 0, LDNS_RCODE_SERVFAIL, 0, 1, ACCT_AXFR_FAILED, "SERVFAIL"},
        {7, 1, 0, LDNS_RCODE_NOTIMPL, 0, 1, ACCT_AXFR_FAILED, "NOTIMPL"},
        {7, 1, 1, LDNS_RCODE_REFUSED, 0, 0, ACCT_AXFR_REFUSED, NULL},
        {8, 1, 1, LDNS_RCODE_NOERROR, 1, 1, ACCT_AXFR_BROKEN,
         "a message that does not answer the query"},
        {7, 0, 1, LDNS_RCODE_NOERROR, 1, 1, ACCT_AXFR_BROKEN,
         "a message that does not answer the query"},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        ldns_pkt *p = answer(cases[i].id, cases[i].qr, cases[i].aa,
                             cases[i].rcode, cases[i].records);
        const char *detail = NULL;

        UNIT_CHECK_CASE(i, acct_axfr_judge(p, 7, cases[i].first, &detail)
                           == cases[i].want);
        UNIT_CHECK_CASE(i, cases[i].detail ? detail
                           && strcmp(detail, cases[i].detail) == 0 : 1);
        ldns_pkt_free(p);
    }
}

/* ------------------------------------------------------------------------
 * A scripted server on a loopback port
 * ------------------------------------------------------------------------ */

typedef struct script {
    const char *const *rrs;  /* the answer to AXFR, NULL-terminated */
    int per_message;         /* RRs per message (0: all in one) */
    int aa;
    ldns_pkt_rcode rcode;    /* of the AXFR answer */
    ldns_pkt_rcode probe;    /* of the answer to a SOA query */
    int close_after;         /* messages sent before hanging up (0: all) */
    int silent;              /* accept, read, never answer */
    int connections;         /* served, then the thread ends */
} script;

typedef struct fake {
    apr_pool_t *pool;
    apr_socket_t *listener;
    apr_port_t port;
    apr_thread_t *thread;
    const script *script;
    char address[32];
} fake;

static int send_framed(apr_socket_t *s, const ldns_pkt *p)
{
    uint8_t *wire = NULL;
    size_t size = 0;
    unsigned char head[2];
    apr_size_t n;
    int rc = -1;

    if (ldns_pkt2wire(&wire, p, &size) == LDNS_STATUS_OK) {
        head[0] = (unsigned char)(size >> 8);
        head[1] = (unsigned char)size;
        n = 2;
        if (apr_socket_send(s, (char *)head, &n) == APR_SUCCESS) {
            n = size;
            rc = apr_socket_send(s, (char *)wire, &n) == APR_SUCCESS ? 0 : -1;
        }
    }
    free(wire);
    return rc;
}

static int read_full(apr_socket_t *s, unsigned char *buf, apr_size_t len)
{
    apr_size_t got = 0, n;

    while (got < len) {
        n = len - got;
        if (apr_socket_recv(s, (char *)buf + got, &n) != APR_SUCCESS
            && n == 0) {
            return -1;
        }
        got += n;
    }
    return 0;
}

/* The query of a connection; NULL when none arrived. */
static ldns_pkt *read_query(apr_socket_t *s)
{
    unsigned char head[2], buf[512];
    apr_size_t len;
    ldns_pkt *q = NULL;

    if (read_full(s, head, 2) != 0) {
        return NULL;
    }
    len = (apr_size_t)head[0] << 8 | head[1];
    if (len > sizeof(buf) || read_full(s, buf, len) != 0
        || ldns_wire2pkt(&q, buf, len) != LDNS_STATUS_OK) {
        return NULL;
    }
    return q;
}

static ldns_pkt *reply_to(const ldns_pkt *q, int aa, ldns_pkt_rcode rcode)
{
    ldns_pkt *p = ldns_pkt_new();

    ldns_pkt_set_id(p, ldns_pkt_id(q));
    ldns_pkt_set_qr(p, 1);
    ldns_pkt_set_aa(p, aa);
    ldns_pkt_set_rcode(p, (uint8_t)rcode);
    ldns_pkt_push_rr(p, LDNS_SECTION_QUESTION,
                     ldns_rr_clone(ldns_rr_list_rr(ldns_pkt_question(q), 0)));
    return p;
}

static void serve_axfr(apr_socket_t *s, const ldns_pkt *q, const script *sc)
{
    int i = 0, sent = 0, in_message = 0;
    ldns_pkt *p = reply_to(q, sc->aa, sc->rcode);

    for (; sc->rcode == LDNS_RCODE_NOERROR && sc->rrs[i]; i++) {
        ldns_rr *rr = NULL;

        if (ldns_rr_new_frm_str(&rr, sc->rrs[i], 3600, NULL, NULL)
            == LDNS_STATUS_OK) {
            ldns_pkt_push_rr(p, LDNS_SECTION_ANSWER, rr);
        }
        if (sc->per_message && ++in_message == sc->per_message
            && sc->rrs[i + 1]) {
            if (send_framed(s, p) != 0
                || (sc->close_after && ++sent == sc->close_after)) {
                ldns_pkt_free(p);
                return;
            }
            ldns_pkt_free(p);
            p = reply_to(q, sc->aa, sc->rcode);
            in_message = 0;
        }
    }
    send_framed(s, p);
    ldns_pkt_free(p);
}

/* A test that fails before connecting must not leave the thread hanging. */
static int wait_for_client(fake *f)
{
    apr_pollfd_t pfd;
    apr_int32_t n = 0;

    memset(&pfd, 0, sizeof(pfd));
    pfd.p = f->pool;
    pfd.desc_type = APR_POLL_SOCKET;
    pfd.reqevents = APR_POLLIN;
    pfd.desc.s = f->listener;
    return apr_poll(&pfd, 1, &n, apr_time_from_sec(5)) == APR_SUCCESS && n == 1
           ? 0 : -1;
}

static void *APR_THREAD_FUNC fake_main(apr_thread_t *thread, void *data)
{
    fake *f = data;
    int i;

    for (i = 0; i < f->script->connections; i++) {
        apr_socket_t *s = NULL;
        apr_pool_t *p = NULL;
        ldns_pkt *q;

        apr_pool_create(&p, NULL);
        if (wait_for_client(f) != 0
            || apr_socket_accept(&s, f->listener, p) != APR_SUCCESS) {
            apr_pool_destroy(p);
            break;
        }
        q = read_query(s);
        if (q && f->script->silent) {
            apr_sleep(apr_time_from_sec(1));
        }
        else if (q && ldns_rr_get_type(ldns_rr_list_rr(ldns_pkt_question(q),
                                                       0))
                      == LDNS_RR_TYPE_SOA) {
            ldns_pkt *r = reply_to(q, 1, f->script->probe);

            send_framed(s, r);
            ldns_pkt_free(r);
        }
        else if (q) {
            serve_axfr(s, q, f->script);
        }
        ldns_pkt_free(q);
        apr_socket_close(s);
        apr_pool_destroy(p);
    }
    apr_thread_exit(thread, APR_SUCCESS);
    return NULL;
}

/* Listens on 127.0.0.1 (a free port) and serves `sc` in a thread. */
static fake *fake_start(const script *sc)
{
    fake *f = apr_pcalloc(pool, sizeof(*f));
    apr_sockaddr_t *sa = NULL, *local = NULL;

    f->pool = pool;
    f->script = sc;
    assert_int_equal(apr_sockaddr_info_get(&sa, "127.0.0.1", APR_INET, 0, 0,
                                           pool), APR_SUCCESS);
    assert_int_equal(apr_socket_create(&f->listener, APR_INET, SOCK_STREAM,
                                       APR_PROTO_TCP, pool), APR_SUCCESS);
    apr_socket_opt_set(f->listener, APR_SO_REUSEADDR, 1);
    assert_int_equal(apr_socket_bind(f->listener, sa), APR_SUCCESS);
    assert_int_equal(apr_socket_listen(f->listener, 8), APR_SUCCESS);
    assert_int_equal(apr_socket_addr_get(&local, APR_LOCAL, f->listener),
                     APR_SUCCESS);
    f->port = local->port;
    snprintf(f->address, sizeof(f->address), "127.0.0.1:%u",
             (unsigned)f->port);
    if (sc->connections > 0) {
        assert_int_equal(apr_thread_create(&f->thread, NULL, fake_main, f,
                                           pool), APR_SUCCESS);
    }
    return f;
}

static void fake_stop(fake *f)
{
    apr_status_t rv;

    if (f->thread) {
        apr_thread_join(&rv, f->thread);
    }
    apr_socket_close(f->listener);
}

static const char *const zone_rrs[] = {
    "example.com. 3600 IN SOA ns1.example.com. hostmaster.example.com. "
    "5 7200 900 1209600 300",
    "example.com. 3600 IN NS ns1.example.com.",
    "ns1.example.com. 3600 IN A 192.0.2.1",
    "www.example.com. 300 IN A 192.0.2.2",
    "example.com. 3600 IN HINFO \"PC\" \"Linux\"",
    "example.com. 3600 IN SOA ns1.example.com. hostmaster.example.com. "
    "5 7200 900 1209600 300",
    NULL
};

static acct_axfr_rc run_transfer(const char *server_text,
                                 const char *const *sources,
                                 apr_interval_time_t timeout, int max,
                                 acct_axfr_result *out)
{
    acct_axfr_options opts = {sources, timeout, max};
    acct_axfr_server server;

    assert_null(acct_axfr_parse_server(pool, server_text, &server));
    return acct_axfr_transfer(pool, "example.com", &server, &opts, out);
}

static void test_transfer_ok(void **state)
{
    script sc = {zone_rrs, 2, 1, LDNS_RCODE_NOERROR, LDNS_RCODE_NOERROR, 0, 0,
                 1};
    fake *f = fake_start(&sc);
    acct_axfr_result x;

    assert_int_equal(run_transfer(f->address, NULL, apr_time_from_sec(5), 100,
                                  &x), ACCT_AXFR_OK);
    fake_stop(f);
    assert_non_null(x.soa);
    assert_int_equal(ldns_rr_list_rr_count(x.rrs), 4);
    assert_int_equal(ldns_rr_get_type(ldns_rr_list_rr(x.rrs, 3)),
                     LDNS_RR_TYPE_HINFO);
    assert_string_equal(x.peer, f->address);
}

static void test_transfer_limit(void **state)
{
    script sc = {zone_rrs, 1, 1, LDNS_RCODE_NOERROR, LDNS_RCODE_NOERROR, 0, 0,
                 1};
    fake *f;
    acct_axfr_result x;

    /* exactly at the limit: fine */
    f = fake_start(&sc);
    assert_int_equal(run_transfer(f->address, NULL, apr_time_from_sec(5), 4,
                                  &x), ACCT_AXFR_OK);
    fake_stop(f);
    /* one more: refused without reading the rest */
    f = fake_start(&sc);
    assert_int_equal(run_transfer(f->address, NULL, apr_time_from_sec(5), 3,
                                  &x), ACCT_AXFR_TOO_MANY);
    fake_stop(f);
}

static void test_transfer_refusals(void **state)
{
    static const struct {
        int aa;
        ldns_pkt_rcode rcode, probe;
        int connections;
        acct_axfr_rc want;
        const char *detail;
    } cases[] = {
        {1, LDNS_RCODE_REFUSED, LDNS_RCODE_NOERROR, 1, ACCT_AXFR_REFUSED, NULL},
        {0, LDNS_RCODE_NOTAUTH, LDNS_RCODE_NOERROR, 2, ACCT_AXFR_NOT_AUTH,
         NULL},
        /* NOTAUTH, and the name does not exist there at all */
        {0, LDNS_RCODE_NOTAUTH, LDNS_RCODE_NXDOMAIN, 2, ACCT_AXFR_NXDOMAIN,
         NULL},
        /* a transfer without the AA flag comes from no authority */
        {0, LDNS_RCODE_NOERROR, LDNS_RCODE_NOERROR, 2, ACCT_AXFR_NOT_AUTH,
         NULL},
        {1, LDNS_RCODE_NXDOMAIN, LDNS_RCODE_NOERROR, 1, ACCT_AXFR_NXDOMAIN,
         NULL},
        {0, LDNS_RCODE_SERVFAIL, LDNS_RCODE_NOERROR, 1, ACCT_AXFR_FAILED,
         "SERVFAIL"},
    };
    acct_axfr_result x;
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        script sc = {zone_rrs, 0, cases[i].aa, cases[i].rcode, cases[i].probe,
                     0, 0, cases[i].connections};
        fake *f = fake_start(&sc);

        acct_axfr_rc rc = run_transfer(f->address, NULL,
                                       apr_time_from_sec(5), 100, &x);

        UNIT_CHECKF(rc == cases[i].want, "case %u: rc %d (%s)", (unsigned)i,
                    (int)rc, x.detail ? x.detail : "");
        UNIT_CHECK_CASE(i, cases[i].detail ? x.detail
                           && strcmp(x.detail, cases[i].detail) == 0 : 1);
        fake_stop(f);
    }
}

static void test_transfer_broken(void **state)
{
    static const char *const no_soa[] = {
        "www.example.com. 300 IN A 192.0.2.2", NULL
    };
    static const char *const other_soa[] = {
        "example.net. 3600 IN SOA ns1.example.net. h.example.net. "
        "5 7200 900 1209600 300", NULL
    };
    script cut = {zone_rrs, 1, 1, LDNS_RCODE_NOERROR, LDNS_RCODE_NOERROR, 2, 0,
                  1};
    script first = {no_soa, 0, 1, LDNS_RCODE_NOERROR, LDNS_RCODE_NOERROR, 0, 0,
                    1};
    script wrong = {other_soa, 0, 1, LDNS_RCODE_NOERROR, LDNS_RCODE_NOERROR, 0,
                    0, 1};
    acct_axfr_result x;
    fake *f;

    f = fake_start(&cut);
    assert_int_equal(run_transfer(f->address, NULL, apr_time_from_sec(5), 100,
                                  &x), ACCT_AXFR_BROKEN);
    assert_string_equal(x.detail, "the server closed the connection before "
                                  "the transfer was complete");
    fake_stop(f);
    f = fake_start(&first);
    assert_int_equal(run_transfer(f->address, NULL, apr_time_from_sec(5), 100,
                                  &x), ACCT_AXFR_BROKEN);
    assert_string_equal(x.detail, "the transfer does not start with the "
                                  "zone's SOA record");
    fake_stop(f);
    f = fake_start(&wrong);
    assert_int_equal(run_transfer(f->address, NULL, apr_time_from_sec(5), 100,
                                  &x), ACCT_AXFR_BROKEN);
    fake_stop(f);
}

static void test_transfer_network(void **state)
{
    static const char *const v4[] = {"127.0.0.1", NULL};
    static const char *const v6[] = {"::1", NULL};
    static const char *const foreign[] = {"192.0.2.55", NULL};
    script silent = {zone_rrs, 0, 1, LDNS_RCODE_NOERROR, LDNS_RCODE_NOERROR, 0,
                     1, 1};
    script never = {zone_rrs, 0, 1, LDNS_RCODE_NOERROR, LDNS_RCODE_NOERROR, 0,
                    0, 0};
    script ok = {zone_rrs, 0, 1, LDNS_RCODE_NOERROR, LDNS_RCODE_NOERROR, 0, 0,
                 1};
    acct_axfr_result x;
    apr_time_t t0;
    fake *f;
    char closed[32];

    /* a server that answers nothing: the deadline, not the server, ends it */
    f = fake_start(&silent);
    t0 = apr_time_now();
    assert_int_equal(run_transfer(f->address, NULL, apr_time_from_msec(300),
                                  100, &x), ACCT_AXFR_TIMEOUT);
    assert_true(apr_time_now() - t0 < apr_time_from_sec(2));
    fake_stop(f);
    /* nobody accepts: the connection completes in the backlog, no answer */
    f = fake_start(&never);
    assert_int_equal(run_transfer(f->address, NULL, apr_time_from_msec(300),
                                  100, &x), ACCT_AXFR_TIMEOUT);
    snprintf(closed, sizeof(closed), "%s", f->address);
    fake_stop(f);
    /* nobody listens */
    assert_int_equal(run_transfer(closed, NULL, apr_time_from_sec(2), 100, &x),
                     ACCT_AXFR_UNREACHABLE);
    assert_non_null(strstr(x.detail, "refused"));
    /* from a configured source address of the server's family */
    f = fake_start(&ok);
    assert_int_equal(run_transfer(f->address, v4, apr_time_from_sec(5), 100,
                                  &x), ACCT_AXFR_OK);
    fake_stop(f);
    assert_int_equal(run_transfer(closed, v6, apr_time_from_sec(2), 100, &x),
                     ACCT_AXFR_NO_SOURCE);
    assert_string_equal(x.detail, "IPv4");
    assert_int_equal(run_transfer(closed, foreign, apr_time_from_sec(2), 100,
                                  &x), ACCT_AXFR_LOCAL);
    assert_non_null(strstr(x.detail, "192.0.2.55"));
    assert_int_equal(run_transfer("no-such-host.invalid", NULL,
                                  apr_time_from_sec(2), 100, &x),
                     ACCT_AXFR_UNRESOLVED);
}

/* ------------------------------------------------------------------------
 * POST /domains/import
 * ------------------------------------------------------------------------ */

static json_t *import(unit_db *db, const acct_principal *who,
                      const char *body, int *status)
{
    acct_req *req = unit_req(db, who);
    const char *text;

    req->body = acct_json_own(db->pool, json_loads(body, 0, NULL));
    assert_non_null(req->body);
    text = unit_call(req, api_domain_import, status);
    return acct_json_own(db->pool, json_loads(text, 0, NULL));
}

static const char *error_list(json_t *doc)
{
    const char *out = "";
    json_t *e;
    size_t i;

    json_array_foreach(json_object_get(doc, "errors"), i, e) {
        const char *f = json_string_value(json_object_get(e, "field"));

        out = apr_psprintf(pool, "%s%s%s: %s", out, i ? " | " : "",
                           f ? f : "-",
                           json_string_value(json_object_get(e, "reason")));
    }
    return out;
}

static const char *one_value(unit_db *db, const char *sql)
{
    acct_rows *rows = NULL;

    assert_int_equal(acct_store_select_dynamic(db->store, db->pool, sql, &rows,
                                               0, NULL), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    return rows->values[0][0] ? rows->values[0][0] : "(null)";
}

static void test_import_body(void **state)
{
    static const struct {
        const char *body, *errors;
    } cases[] = {
        {"{}", "domain: domain is required | remote_nameserver: "
               "remote_nameserver is required"},
        {"{\"domain\":\"example.com\"}",
         "remote_nameserver: remote_nameserver is required"},
        {"{\"remote_nameserver\":\"192.0.2.1\"}", "domain: domain is required"},
        {"{\"domain\":5,\"remote_nameserver\":[\"192.0.2.1\"]}",
         "domain: domain must be a string | remote_nameserver: "
         "remote_nameserver must be a string"},
        /* null is an absent field (docs/conventions.md, "Today's clients") */
        {"{\"domain\":null,\"remote_nameserver\":null}",
         "domain: domain is required | remote_nameserver: "
         "remote_nameserver is required"},
        {"{\"domain\":\"nodot\",\"remote_nameserver\":\"\"}",
         "domain: Must be a domain name of two labels or more: letters, "
         "digits, underscores and hyphens (not first or last), at most 63 "
         "characters per label | remote_nameserver: Length must be 1-260 "
         "characters"},
        {"{\"domain\":\"example.com\",\"remote_nameserver\":\"192.0.2.1:0\"}",
         "remote_nameserver: " R_PORT},
        {"{\"domain\":\"example.com\",\"remote_nameserver\":\"[::1\"}",
         "remote_nameserver: " R_SERVER},
        /* keys that are not fields of the route are ignored */
        {"{\"domain\":\"example.com\",\"remote_nameserver\":\"192.0.2.1:0\","
         "\"type\":\"master\",\"domainId\":5}",
         "remote_nameserver: " R_PORT},
    };
    unit_db *db = *state;
    acct_principal who;
    json_t *doc;
    size_t i;
    int status;

    unit_identity(db, "ivy", 0, "*", &who);
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        doc = import(db, &who, cases[i].body, &status);
        UNIT_CHECK(cases[i].body, status == 400);
        UNIT_CHECKF(strcmp(error_list(doc), cases[i].errors) == 0, "%s: %s",
                    cases[i].body, error_list(doc));
    }
    assert_string_equal(one_value(db, "SELECT count(*) FROM domains"), "0");
}

static void test_import_refusals(void **state)
{
    unit_db *db = *state;
    acct_principal owner, other, restricted;
    json_t *doc;
    int status;

    unit_identity(db, "olga", 0, "*", &owner);
    unit_identity(db, "otto", 0, "*", &other);
    unit_member(db, owner.account_id, "rita", 1, apr_time_sec(apr_time_now()),
                &restricted);
    /* restricted without add_domains: 403 before anything else */
    doc = import(db, &restricted, "{}", &status);
    assert_int_equal(status, 403);
    assert_string_equal(error_list(doc), "-: Unauthorized");
    /* a name hosted by another account, in another case: refused before
     * any transfer (nothing listens at the server named) */
    assert_int_equal(acct_store_exec_script(db->store, db->pool, apr_psprintf(
        pool, "INSERT INTO domains (account_id, domain, domain_key, type,"
        " soa_email, created, updated) VALUES (%" APR_INT64_T_FMT ","
        " 'Taken.Example', 'taken.example', 'master', 'a@b.example', 0, 0)",
        other.account_id)), ACCT_STORE_OK);
    doc = import(db, &owner, "{\"domain\":\"TAKEN.example.\","
                             "\"remote_nameserver\":\"127.0.0.1:9\"}",
                 &status);
    assert_int_equal(status, 400);
    assert_string_equal(error_list(doc),
                        "domain: This domain is already hosted");
}

static const char *const import_rrs[] = {
    "shop.example. 7200 IN SOA ns1.old.example. john\\.doe.shop.example. "
    "9 3600 600 604800 60",
    "shop.example. 7200 IN NS ns1.old.example.",
    "shop.example. 7200 IN NS ns2.old.example.",
    "shop.example. 300 IN A 192.0.2.1",
    "shop.example. 300 IN MX 10 mail.shop.example.",
    "www.shop.example. 300 IN CNAME shop.example.",
    /* a second record at a CNAME's name: skipped */
    "www.shop.example. 300 IN TXT \"hello\"",
    "mail.shop.example. 300 IN A 192.0.2.2",
    /* a Null MX beside another MX: skipped */
    "shop.example. 300 IN MX 0 .",
    "_xmpp._tcp.shop.example. 300 IN SRV 5 10 5222 xmpp.shop.example.",
    "shop.example. 300 IN CAA 0 issue \"letsencrypt.org\"",
    "shop.example. 300 IN TXT \"v=spf1\" \" -all\"",
    "shop.example. 300 IN HINFO \"PC\" \"Linux\"",
    "sub.shop.example. 300 IN NS ns.sub.shop.example.",
    "ns.sub.shop.example. 300 IN A 192.0.2.3",
    "shop.example. 7200 IN SOA ns1.old.example. john\\.doe.shop.example. "
    "9 3600 600 604800 60",
    NULL
};

static void test_import_stores(void **state)
{
    unit_db *db = *state;
    script sc = {import_rrs, 3, 1, LDNS_RCODE_NOERROR, LDNS_RCODE_NOERROR, 0, 0,
                 1};
    acct_principal who;
    const char *body, *id;
    json_t *doc;
    fake *f;
    int status;

    unit_identity(db, "sam", 0, "*", &who);
    f = fake_start(&sc);
    body = apr_psprintf(pool, "{\"domain\":\"Shop.Example\","
                        "\"remote_nameserver\":\"%s\"}", f->address);
    doc = import(db, &who, body, &status);
    fake_stop(f);
    assert_int_equal(status, 200);
    assert_string_equal(json_string_value(json_object_get(doc, "domain")),
                        "Shop.Example");
    assert_string_equal(json_string_value(json_object_get(doc, "type")),
                        "master");
    assert_string_equal(json_string_value(json_object_get(doc, "soa_email")),
                        "john.doe@shop.example");
    assert_int_equal(json_integer_value(json_object_get(doc, "refresh_sec")),
                     3600);
    assert_int_equal(json_integer_value(json_object_get(doc, "retry_sec")),
                     3600);
    assert_int_equal(json_integer_value(json_object_get(doc, "expire_sec")),
                     604800);
    assert_int_equal(json_integer_value(json_object_get(doc, "ttl_sec")),
                     7200);
    id = apr_psprintf(pool, "%" APR_INT64_T_FMT,
                      (apr_int64_t)json_integer_value(json_object_get(doc,
                                                                      "id")));
    /* apex NS, HINFO, the TXT at the CNAME's name and the MX beside the
     * Null MX are not stored; the rest is, in transfer order */
    assert_string_equal(one_value(db, apr_psprintf(pool,
        "SELECT group_concat(type || ' ' || name || ' ' || target || ' ' ||"
        " priority || ' ' || weight || ' ' || port || ' ' ||"
        " COALESCE(service, '-') || ' ' || COALESCE(protocol, '-') || ' ' ||"
        " ttl_sec || ' ' || COALESCE(tag, '-'), ' | ') FROM"
        " (SELECT * FROM domain_records WHERE domain_id = %s ORDER BY id)",
        id)),
        "A  192.0.2.1 0 0 0 - - 300 - | "
        "MX  mail.shop.example 10 0 0 - - 300 - | "
        "CNAME www shop.example 0 0 0 - - 300 - | "
        "A mail 192.0.2.2 0 0 0 - - 300 - | "
        "SRV _xmpp._tcp xmpp.shop.example 5 10 5222 xmpp tcp 300 - | "
        "CAA  letsencrypt.org 0 0 0 - - 300 issue | "
        "TXT  v=spf1 -all 0 0 0 - - 300 - | "
        "NS sub ns.sub.shop.example 0 0 0 - - 300 - | "
        "A ns.sub 192.0.2.3 0 0 0 - - 300 -");
    assert_string_equal(one_value(db, apr_psprintf(pool,
        "SELECT record_count FROM domains WHERE id = %s", id)), "9");
    /* the same name again: hosted now, refused before any transfer */
    doc = import(db, &who, body, &status);
    assert_int_equal(status, 400);
    assert_string_equal(error_list(doc),
                        "domain: This domain is already hosted");
}

static void test_import_failures_store_nothing(void **state)
{
    unit_db *db = *state;
    script refused = {import_rrs, 0, 1, LDNS_RCODE_REFUSED, LDNS_RCODE_NOERROR,
                      0, 0, 1};
    script notauth = {import_rrs, 0, 0, LDNS_RCODE_NOERROR, LDNS_RCODE_NOERROR,
                      0, 0, 2};
    acct_principal who;
    json_t *doc;
    fake *f;
    int status;

    unit_identity(db, "tom", 0, "*", &who);
    f = fake_start(&refused);
    doc = import(db, &who, apr_psprintf(pool, "{\"domain\":\"shop.example\","
                                        "\"remote_nameserver\":\"%s\"}",
                                        f->address), &status);
    fake_stop(f);
    assert_int_equal(status, 400);
    assert_string_equal(error_list(doc), apr_psprintf(pool,
        "remote_nameserver: The remote nameserver %s refused the zone "
        "transfer (AXFR) of shop.example: it must allow transfers to this "
        "service", f->address));
    f = fake_start(&notauth);
    doc = import(db, &who, apr_psprintf(pool, "{\"domain\":\"shop.example\","
                                        "\"remote_nameserver\":\"%s\"}",
                                        f->address), &status);
    fake_stop(f);
    assert_int_equal(status, 400);
    assert_string_equal(error_list(doc), apr_psprintf(pool,
        "remote_nameserver: The remote nameserver %s is not authoritative "
        "for shop.example: it does not serve that zone", f->address));
    assert_string_equal(one_value(db, "SELECT count(*) FROM domains"), "0");
    assert_string_equal(one_value(db, "SELECT count(*) FROM domain_records"),
                        "0");
}

/* A database and the test pool. */
static int db_setup(void **state)
{
    return unit_pool_setup(state) == 0 ? unit_db_setup(state) : -1;
}

static int db_teardown(void **state)
{
    unit_db_teardown(state);
    return unit_pool_teardown(state);
}

#define IMPORT_TEST(f) cmocka_unit_test_setup_teardown(f, db_setup, db_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_parse_server),
        UNIT_TEST(test_server_text),
        UNIT_TEST(test_record_mapping),
        UNIT_TEST(test_type_names),
        UNIT_TEST(test_soa_mapping),
        UNIT_TEST(test_judge),
        UNIT_TEST(test_transfer_ok),
        UNIT_TEST(test_transfer_limit),
        UNIT_TEST(test_transfer_refusals),
        UNIT_TEST(test_transfer_broken),
        UNIT_TEST(test_transfer_network),
        IMPORT_TEST(test_import_body),
        IMPORT_TEST(test_import_refusals),
        IMPORT_TEST(test_import_stores),
        IMPORT_TEST(test_import_failures_store_nothing),
    };
    /* The scripted servers may write to a connection the client has just
     * closed: that must be an error return, as in httpd, not a SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);

    return UNIT_RUN(tests);
}
