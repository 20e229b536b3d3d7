/* Zone transfers against a scripted server on a loopback port (unit_axfr.h):
 * every way one can end. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_transfer_ok),
        UNIT_TEST(test_transfer_limit),
        UNIT_TEST(test_transfer_refusals),
        UNIT_TEST(test_transfer_broken),
        UNIT_TEST(test_transfer_network),
    };
    /* The scripted servers may write to a connection the client has just
     * closed: that must be an error return, as in httpd, not a SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);

    return UNIT_RUN(tests);
}
