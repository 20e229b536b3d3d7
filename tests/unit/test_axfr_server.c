/* Zone transfers: remote_nameserver's forms and its text. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_parse_server),
        UNIT_TEST(test_server_text),
    };

    return UNIT_RUN(tests);
}
