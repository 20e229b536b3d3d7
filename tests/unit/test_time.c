#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <apr_strings.h>

#include "acct_time.h"

/* ------------------------------------------------------------------------
 * acct_format_timestamp
 * ------------------------------------------------------------------------ */

typedef struct {
    apr_int64_t epoch;
    const char *text;
} stamp_case;

static const stamp_case stamp_cases[] = {
    {0, "1970-01-01T00:00:00"},
    {1, "1970-01-01T00:00:01"},
    {59, "1970-01-01T00:00:59"},
    {3599, "1970-01-01T00:59:59"},
    {86399, "1970-01-01T23:59:59"},
    {86400, "1970-01-02T00:00:00"},
    {31535999, "1970-12-31T23:59:59"},
    {31536000, "1971-01-01T00:00:00"},
    {68169600, "1972-02-29T00:00:00"},
    {951782400, "2000-02-29T00:00:00"},
    {951868799, "2000-02-29T23:59:59"},
    {951868800, "2000-03-01T00:00:00"},
    {1000000000, "2001-09-09T01:46:40"},
    {1704067199, "2023-12-31T23:59:59"},
    {1704067200, "2024-01-01T00:00:00"},
    {1709164800, "2024-02-29T00:00:00"},
    {2147483647, "2038-01-19T03:14:07"},
    {2147483648LL, "2038-01-19T03:14:08"},
    {4102444799LL, "2099-12-31T23:59:59"},
    {4107542400LL, "2100-03-01T00:00:00"},
    {4107456000LL, "2100-02-28T00:00:00"},
    {13574563200LL, "2400-02-29T00:00:00"},
    {253402300799LL, "9999-12-31T23:59:59"},
};

static void test_format_table(void **state)
{
    size_t i;

    for (i = 0; i < sizeof(stamp_cases) / sizeof(stamp_cases[0]); i++) {
        const stamp_case *c = &stamp_cases[i];
        const char *got = acct_format_timestamp(pool, c->epoch);
        apr_int64_t back = -12345;

        if (!got || strcmp(got, c->text) != 0) {
            print_error("format %s: got \"%s\"\n", c->text,
                        got ? got : "(null)");
            fail();
        }
        UNIT_CHECK(c->text, strlen(got) == ACCT_TIMESTAMP_LEN);
        UNIT_CHECK(c->text, acct_parse_timestamp(c->text, &back) == 0);
        UNIT_CHECK(c->text, back == c->epoch);
    }
}

/* ------------------------------------------------------------------------
 * acct_parse_timestamp
 * ------------------------------------------------------------------------ */

/* Independent oracle: libc's gmtime_r. */
static void libc_stamp(apr_int64_t epoch, char *buf, size_t n)
{
    time_t t = (time_t)epoch;
    struct tm tm;

    assert_non_null(gmtime_r(&t, &tm));
    assert_int_equal(strftime(buf, n, "%Y-%m-%dT%H:%M:%S", &tm),
                     ACCT_TIMESTAMP_LEN);
}

static void test_round_trip_every_day(void **state)
{
    /* Every day from 1970 to 2500 at a moving time of day. */
    apr_int64_t day, end = APR_INT64_C(16725225600) / 86400;
    char want[32];

    for (day = 0; day < end; day++) {
        apr_int64_t epoch = day * 86400 + (day * 3727) % 86400, back = -1;
        const char *got = acct_format_timestamp(pool, epoch);

        libc_stamp(epoch, want, sizeof(want));
        if (strcmp(got, want) != 0) {
            print_error("epoch %" APR_INT64_T_FMT ": got \"%s\", want \"%s\"\n",
                        epoch, got, want);
            fail();
        }
        if (acct_parse_timestamp(got, &back) != 0 || back != epoch) {
            print_error("epoch %" APR_INT64_T_FMT ": \"%s\" parsed back to %"
                        APR_INT64_T_FMT "\n", epoch, got, back);
            fail();
        }
    }
}

static void test_round_trip_boundaries(void **state)
{
    /* Each second around midnight of some month boundaries. */
    static const apr_int64_t bases[] = {
        0, 68169600, 68256000, 951782400, 951868800, 4107542400LL,
        13574563200LL, 13574649600LL, 2147483648LL,
    };
    size_t i;
    apr_int64_t s;
    char want[32];

    for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
        for (s = bases[i] > 0 ? -2 : 0; s <= 2; s++) {
            apr_int64_t epoch = bases[i] + s, back = -1;
            const char *got = acct_format_timestamp(pool, epoch);

            libc_stamp(epoch, want, sizeof(want));
            UNIT_CHECK(want, strcmp(got, want) == 0);
            UNIT_CHECK(want, acct_parse_timestamp(got, &back) == 0);
            UNIT_CHECK(want, back == epoch);
        }
    }
}

typedef struct {
    const char *text;
    int rc;
    apr_int64_t epoch;
} parse_case;

static const parse_case parse_cases[] = {
    {"1970-01-01T00:00:00", 0, 0},
    {"1970-01-01T00:00:01", 0, 1},
    {"2000-02-29T00:00:00", 0, 951782400},
    {"2000-02-29T23:59:59", 0, 951868799},
    {"1972-02-29T12:00:00", 0, 68212800},
    {"2024-02-29T00:00:00", 0, 1709164800},
    {"2400-02-29T00:00:00", 0, 13574563200LL},
    {"2023-12-31T23:59:59", 0, 1704067199},
    {"2038-01-19T03:14:08", 0, 2147483648LL},
    {"2100-02-28T00:00:00", 0, 4107456000LL},
    {"9999-12-31T23:59:59", 0, 253402300799LL},
    {"2023-04-30T00:00:00", 0, 1682812800},
    {"2023-01-31T00:00:00", 0, 1675123200},

    /* Decorations the wire format forbids. */
    {"1970-01-01T00:00:00Z", -1, 0},
    {"2020-01-01T00:00:00+00:00", -1, 0},
    {"2020-01-01T00:00:00-05:00", -1, 0},
    {"2020-01-01T00:00:00+0000", -1, 0},
    {"2020-01-01T00:00:00.000", -1, 0},
    {"2020-01-01T00:00:00.5", -1, 0},
    {"2020-01-01t00:00:00", -1, 0},
    {"2020-01-01 00:00:00", -1, 0},
    {"2020-01-01_00:00:00", -1, 0},
    {"2020/01/01T00:00:00", -1, 0},
    {"2020-01-01T00-00-00", -1, 0},
    {"2020-01-01T00:00", -1, 0},
    {"2020-01-01", -1, 0},
    {"20200101T000000", -1, 0},
    {" 2020-01-01T00:00:0", -1, 0},
    {"2020-01-01T00:00:00 ", -1, 0},
    {" 2020-01-01T00:00:00", -1, 0},

    /* Calendar. */
    {"2023-02-29T00:00:00", -1, 0},
    {"2100-02-29T00:00:00", -1, 0},
    {"1900-02-29T00:00:00", -1, 0},
    {"2200-02-29T00:00:00", -1, 0},
    {"2019-02-29T00:00:00", -1, 0},
    {"2024-02-30T00:00:00", -1, 0},
    {"2023-04-31T00:00:00", -1, 0},
    {"2023-06-31T00:00:00", -1, 0},
    {"2023-09-31T00:00:00", -1, 0},
    {"2023-11-31T00:00:00", -1, 0},
    {"2023-13-01T00:00:00", -1, 0},
    {"2023-00-01T00:00:00", -1, 0},
    {"2023-01-00T00:00:00", -1, 0},
    {"2023-01-32T00:00:00", -1, 0},
    {"2023-12-32T00:00:00", -1, 0},
    {"2023-99-99T00:00:00", -1, 0},
    {"2023-01-01T24:00:00", -1, 0},
    {"2023-01-01T99:00:00", -1, 0},
    {"2023-01-01T00:60:00", -1, 0},
    {"2023-01-01T00:00:60", -1, 0},
    {"2016-12-31T23:59:60", -1, 0},

    /* Before the epoch. */
    {"1969-12-31T23:59:59", -1, 0},
    {"1900-01-01T00:00:00", -1, 0},
    {"0000-01-01T00:00:00", -1, 0},

    /* Length and characters. */
    {"", -1, 0},
    {"T", -1, 0},
    {"2020-1-01T00:00:00", -1, 0},
    {"2020-01-1T00:00:00", -1, 0},
    {"02020-01-01T00:00:00", -1, 0},
    {"2020-01-01T00:00:000", -1, 0},
    {"2020-01-01T0:00:00", -1, 0},
    {"abcd-ef-ghTij:kl:mn", -1, 0},
    {"2O20-01-01T00:00:00", -1, 0},
    {"2020-0a-01T00:00:00", -1, 0},
    {"2020-01-01T00:00:0x", -1, 0},
    {"+020-01-01T00:00:00", -1, 0},
    {"-020-01-01T00:00:00", -1, 0},
    {"2020-+1-01T00:00:00", -1, 0},
    {"2020-01-01T 1:00:00", -1, 0},
    {"2020-01-01T-1:00:00", -1, 0},
    {"202\xd9-01-01T00:00:00", -1, 0},
    {"2020-01-01T00:00:0\xd9", -1, 0},
};

static void test_parse_table(void **state)
{
    size_t i;

    for (i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
        const parse_case *c = &parse_cases[i];
        apr_int64_t got = -777;
        int rc = acct_parse_timestamp(c->text, &got);

        if (rc != c->rc) {
            print_error("parse \"%s\": rc %d, want %d\n", c->text, rc, c->rc);
            fail();
        }
        if (c->rc == 0) {
            if (got != c->epoch) {
                print_error("parse \"%s\": %" APR_INT64_T_FMT ", want %"
                            APR_INT64_T_FMT "\n", c->text, got, c->epoch);
                fail();
            }
            UNIT_CHECK(c->text,
                       strcmp(acct_format_timestamp(pool, got), c->text) == 0);
        }
        else {
            /* A refused text leaves the output alone. */
            UNIT_CHECK(c->text, got == -777);
        }
    }
}

static void test_parse_null(void **state)
{
    apr_int64_t got = -777;

    assert_int_equal(acct_parse_timestamp(NULL, &got), -1);
    assert_true(got == -777);
}

/* Every month's last day is accepted and the day after it refused. */
static void test_parse_month_ends(void **state)
{
    static const int mdays[] = {31, 28, 31, 30, 31, 30,
                                31, 31, 30, 31, 30, 31};
    int y, m;

    for (y = 1970; y <= 2404; y++) {
        int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

        for (m = 1; m <= 12; m++) {
            int last = mdays[m - 1] + (m == 2 && leap);
            char ok[32], bad[32];
            apr_int64_t e = -1;

            apr_snprintf(ok, sizeof(ok), "%04d-%02d-%02dT23:59:59", y, m,
                         last);
            apr_snprintf(bad, sizeof(bad), "%04d-%02d-%02dT00:00:00", y, m,
                         last + 1);
            UNIT_CHECK(ok, acct_parse_timestamp(ok, &e) == 0);
            UNIT_CHECK(ok, strcmp(acct_format_timestamp(pool, e), ok) == 0);
            UNIT_CHECK(bad, acct_parse_timestamp(bad, &e) == -1);
        }
    }
}

/* ------------------------------------------------------------------------
 * acct_parse_duration
 * ------------------------------------------------------------------------ */

typedef struct {
    const char *text;
    int rc;
    apr_int64_t seconds;
} dur_case;

static const dur_case dur_cases[] = {
    {"90s", 0, 90},
    {"30m", 0, 1800},
    {"2h", 0, 7200},
    {"3d", 0, 259200},
    {"1w", 0, 604800},
    {"0", 0, 0},
    {"0s", 0, 0},
    {"45", 0, 45},
    {"86400", 0, 86400},
    {"007m", 0, 420},
    {"-90s", 0, -90},
    {"-5", 0, -5},
    {"-2h", 0, -7200},
    {"-1w", 0, -604800},
    {"-0", 0, 0},
    {"100000000000w", 0, APR_INT64_C(100000000000) * 604800},
    {"1000000000000", 0, APR_INT64_C(1000000000000)},

    {"", -1, 0},
    {"m", -1, 0},
    {"s", -1, 0},
    {"-", -1, 0},
    {"-m", -1, 0},
    {"10x", -1, 0},
    {"10S", -1, 0},
    {"10M", -1, 0},
    {"1.5h", -1, 0},
    {".5h", -1, 0},
    {"--1", -1, 0},
    {"-+1", -1, 0},
    {"+1", -1, 0},
    {" 1", -1, 0},
    {"1 ", -1, 0},
    {"1 h", -1, 0},
    {"1hh", -1, 0},
    {"1h30m", -1, 0},
    {"1ms", -1, 0},
    {"1e3", -1, 0},
    {"0x10", -1, 0},
    {"h1", -1, 0},
    {"99999999999999999999", -1, 0},
    {"9223372036854775807", -1, 0},
    {"9223372036854775808", -1, 0},
    {"-9223372036854775808", -1, 0},
    {"99999999999999w", -1, 0},
    {"18446744073709551616s", -1, 0},
    {"100000000000000000000000000000000000000", -1, 0},
};

static void test_duration_table(void **state)
{
    size_t i;

    for (i = 0; i < sizeof(dur_cases) / sizeof(dur_cases[0]); i++) {
        const dur_case *c = &dur_cases[i];
        apr_int64_t got = -777;
        int rc = acct_parse_duration(c->text, &got);

        if (rc != c->rc) {
            print_error("duration \"%s\": rc %d, want %d\n", c->text, rc,
                        c->rc);
            fail();
        }
        if (c->rc == 0 && got != c->seconds) {
            print_error("duration \"%s\": %" APR_INT64_T_FMT ", want %"
                        APR_INT64_T_FMT "\n", c->text, got, c->seconds);
            fail();
        }
        if (c->rc != 0) {
            UNIT_CHECK(c->text, got == -777);
        }
    }
}

static void test_duration_null(void **state)
{
    apr_int64_t got = -777;

    assert_int_equal(acct_parse_duration(NULL, &got), -1);
    assert_true(got == -777);
}

/* No accepted duration overflows: the largest accepted count in weeks. */
static void test_duration_no_overflow(void **state)
{
    static const char *const units = "smhdw";
    char buf[64];
    const char *u;
    int len;

    for (u = units; *u; u++) {
        for (len = 1; len <= 25; len++) {
            apr_int64_t got = 0;
            int k;

            for (k = 0; k < len; k++) {
                buf[k] = '9';
            }
            buf[len] = *u;
            buf[len + 1] = '\0';
            if (acct_parse_duration(buf, &got) == 0) {
                /* Accepted: exactly count * unit, so nothing wrapped. */
                apr_int64_t unit = *u == 's' ? 1 : *u == 'm' ? 60
                                   : *u == 'h' ? 3600 : *u == 'd' ? 86400
                                   : 604800;
                apr_int64_t count;

                buf[len] = '\0';
                count = apr_atoi64(buf);
                UNIT_CHECK(buf, got > 0);
                UNIT_CHECK(buf, got % unit == 0 && got / unit == count);
            }
            else {
                UNIT_CHECK(buf, len > 12);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_format_table),
        UNIT_TEST(test_round_trip_every_day),
        UNIT_TEST(test_round_trip_boundaries),
        UNIT_TEST(test_parse_table),
        UNIT_TEST(test_parse_null),
        UNIT_TEST(test_parse_month_ends),
        UNIT_TEST(test_duration_table),
        UNIT_TEST(test_duration_null),
        UNIT_TEST(test_duration_no_overflow),
    };

    return UNIT_RUN(tests);
}
