/* Zone transfers: the mapping of RRs and of the SOA onto the service's
 * fields, and the type names. */
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

#include "unit_axfr.h"

/* ------------------------------------------------------------------------
 * Mapping
 * ------------------------------------------------------------------------ */

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_record_mapping),
        UNIT_TEST(test_type_names),
        UNIT_TEST(test_soa_mapping),
    };

    return UNIT_RUN(tests);
}
