#include "unit.h"

#include <arpa/inet.h>
#include <string.h>

#include "acct_addr.h"

static void test_family_and_canonical(void **state)
{
    (void)state;
    assert_int_equal(acct_ip_family("192.0.2.1"), AF_INET);
    assert_int_equal(acct_ip_family("2001:DB8::1"), AF_INET6);
    assert_int_equal(acct_ip_family("::ffff:192.0.2.1"), AF_INET6);
    assert_int_equal(acct_ip_family("192.0.2"), 0);
    assert_int_equal(acct_ip_family("192.0.2.1 "), 0);
    assert_int_equal(acct_ip_family("example.net"), 0);
    assert_int_equal(acct_ip_family(""), 0);
    assert_int_equal(acct_ip_family(NULL), 0);
    assert_string_equal(acct_ip_canonical(pool, "2001:DB8:0:0::1"), "2001:db8::1");
    assert_string_equal(acct_ip_canonical(pool, "192.0.2.1"), "192.0.2.1");
    assert_null(acct_ip_canonical(pool, "192.0.2.256"));
    assert_null(acct_ip_canonical(pool, NULL));
    /* A family given: an address of the other one is none. */
    assert_null(acct_ip_canonical_of(pool, AF_INET, "2001:db8::1"));
    assert_string_equal(acct_ip_canonical_of(pool, AF_INET6, "2001:0db8::0001"),
                        "2001:db8::1");
}

static void test_v4_of(void **state)
{
    (void)state;
    assert_string_equal(acct_ip_v4_of("192.0.2.7"), "192.0.2.7");
    assert_string_equal(acct_ip_v4_of("::ffff:192.0.2.7"), "192.0.2.7");
    assert_string_equal(acct_ip_v4_of("::FFFF:192.0.2.7"), "192.0.2.7");
    assert_null(acct_ip_v4_of("2001:db8::1"));
    assert_null(acct_ip_v4_of("::ffff:2001:db8::1"));
    assert_null(acct_ip_v4_of(NULL));
}

static void test_ranges(void **state)
{
    unsigned char addr[16];
    int prefix = -2, bits = -2;

    (void)state;
    assert_int_equal(acct_ip_range("192.0.2.0/24", addr, &prefix, &bits), AF_INET);
    assert_int_equal(prefix, 24);
    assert_int_equal(bits, 32);
    assert_int_equal(addr[0], 192);
    assert_int_equal(acct_ip_range("2001:db8::/32", addr, &prefix, &bits), AF_INET6);
    assert_int_equal(prefix, 32);
    assert_int_equal(bits, 128);
    /* A lone address is its own full-length range. */
    assert_int_equal(acct_ip_range("2001:db8::1", addr, &prefix, &bits), AF_INET6);
    assert_int_equal(prefix, 128);
    /* Prefixes: whole numbers within the family, no sign or leading zero. */
    assert_int_equal(acct_ip_range("192.0.2.0/33", addr, &prefix, &bits), -1);
    assert_int_equal(bits, 32);
    assert_int_equal(acct_ip_range("192.0.2.0/024", addr, &prefix, &bits), -1);
    assert_int_equal(acct_ip_range("192.0.2.0/", addr, &prefix, &bits), -1);
    assert_int_equal(acct_ip_range("192.0.2.0/+8", addr, &prefix, &bits), -1);
    assert_int_equal(acct_ip_range("192.0.2.0/0", addr, &prefix, &bits), AF_INET);
    assert_int_equal(prefix, 0);
    /* No address: 0, whatever the prefix. */
    assert_int_equal(acct_ip_range("example.net/8", addr, &prefix, &bits), 0);
    assert_int_equal(acct_ip_range("", addr, &prefix, &bits), 0);
    {
        char longer[200];

        memset(longer, '1', sizeof(longer) - 1);
        longer[sizeof(longer) - 1] = '\0';
        assert_int_equal(acct_ip_range(longer, addr, &prefix, &bits), 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_family_and_canonical),
        UNIT_TEST(test_v4_of),
        UNIT_TEST(test_ranges),
    };

    return UNIT_RUN(tests);
}
