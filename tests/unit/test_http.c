#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include "acct_http.h"

typedef struct {
    const char *text;
    int complete;
} header_case;

static const header_case header_cases[] = {
    {"", 0},
    {"GET", 0},
    {"GET /v4/regions HTTP/1.1", 0},
    {"GET /v4/regions HTTP/1.1\r\n", 0},
    {"GET /v4/regions HTTP/1.1\r\nHost: a\r\n", 0},
    {"GET /v4/regions HTTP/1.1\r\nHost: a\r\n\r", 0},
    {"GET /v4/regions HTTP/1.1\r\nHost: a\r\nX-Slow: ", 0},
    {"GET /v4/regions HTTP/1.1\r\nHost: a\r\n\r\n", 1},
    {"GET /v4/regions HTTP/1.1\r\n\r\n", 1},
    /* Bare LF line ends, and a mix. */
    {"GET /v4/regions HTTP/1.1\nHost: a\n\n", 1},
    {"GET /v4/regions HTTP/1.1\nHost: a\r\n\n", 1},
    {"GET /v4/regions HTTP/1.1\r\nHost: a\n\r\n", 1},
    /* Blank lines before the request line are not its end. */
    {"\r\n\r\n", 0},
    {"\r\n\r\nGET / HTTP/1.1\r\n", 0},
    {"\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", 1},
    /* A body (or the next request) after the header. */
    {"POST /v4/tags HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}", 1},
    /* HTTP/0.9: a request line alone. */
    {"GET /\r\n", 1},
    {"GET /", 0},
    /* "HTTP/" in the target is not the version. */
    {"GET /HTTP/1.1\r\n", 1},
};

static void test_header_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(header_cases) / sizeof(header_cases[0]); i++) {
        const header_case *c = &header_cases[i];

        if (acct_http_header_complete(c->text, strlen(c->text)) != c->complete) {
            fail_msg("case %zu: \"%s\": expected %d", i, c->text, c->complete);
        }
    }
}

/* Every prefix of a complete header short of its last byte is incomplete:
 * the scan never reads past len (the buffer has no terminator). */
static void test_prefixes(void **state)
{
    static const char whole[] =
        "GET /v4/regions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer x\r\n\r\n";
    apr_size_t n = sizeof(whole) - 1;

    (void)state;
    for (apr_size_t len = 0; len < n; len++) {
        char *copy = malloc(len ? len : 1);

        memcpy(copy, whole, len);
        assert_int_equal(acct_http_header_complete(copy, len), 0);
        free(copy);
    }
    assert_int_equal(acct_http_header_complete(whole, n), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_header_table),
        UNIT_TEST(test_prefixes),
    };

    return UNIT_RUN(tests);
}
