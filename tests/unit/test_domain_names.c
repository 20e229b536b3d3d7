/* DNS domains: the name rules, their syntax and lengths. */
#include "unit.h"

#include <apr_dbd.h>
#include <apr_strings.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "unit_db.h"
#include "acct_auth.h"
#include "acct_body.h"
#include "acct_domain.h"
#include "acct_grants.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "acct_tags.h"
#include "api_handlers.h"

#include "unit_domain.h"

/* ------------------------------------------------------------------------
 * Names
 * ------------------------------------------------------------------------ */

static void test_names(void **state)
{
    static const struct {
        const char *in;
        const char *out;        /* NULL: refused */
    } cases[] = {
        {"example.com", "example.com"},
        {"Example.COM", "Example.COM"},          /* the caller's case */
        {"example.com.", "example.com"},         /* one trailing dot */
        {"a.b", "a.b"},
        {"x-1.example-2.org", "x-1.example-2.org"},
        {"123.example", "123.example"},
        {"xn--bcher-kva.example", "xn--bcher-kva.example"},
        {"", NULL},
        {".", NULL},
        {"example.com..", NULL},
        {"com", NULL},                           /* one label */
        {"com.", NULL},
        {".example.com", NULL},
        {"a..example.com", NULL},
        {"-a.example.com", NULL},
        {"a-.example.com", NULL},
        {"a.example-.com", NULL},
        /* underscores, as the public API's domain pattern has them */
        {"a_b.example.com", "a_b.example.com"},
        {"_dmarc.example.com", "_dmarc.example.com"},
        {"_.example.com", "_.example.com"},
        /* no wildcard: BIND refuses a zone's NS records at a wildcard name */
        {"*.example.com", NULL},
        {"a_-.example.com", NULL},               /* hyphen last */
        {"ex ample.com", NULL},
        {"ex\xc3\xa4mple.com", NULL},            /* not ASCII */
        {"example.com/x", NULL},
    };
    const char *reason;
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *got;

        reason = NULL;
        got = acct_domain_name(pool, cases[i].in, &reason);
        if (cases[i].out) {
            UNIT_CHECKF(got && strcmp(got, cases[i].out) == 0, "%s",
                        cases[i].in);
        }
        else {
            UNIT_CHECKF(!got && reason && *reason, "%s", cases[i].in);
        }
    }
}

static void test_name_lengths(void **state)
{
    const char *reason = NULL, *n253 = long_name(pool, 253);

    assert_non_null(acct_domain_name(pool, n253, &reason));
    assert_non_null(acct_domain_name(pool, apr_pstrcat(pool, n253, ".", NULL),
                                     &reason));
    assert_null(acct_domain_name(pool, long_name(pool, 254), &reason));
    assert_string_equal(reason, "Length must be 1-253 characters");
    /* labels of 63 pass, 64 do not */
    assert_non_null(acct_domain_name(
        pool, apr_pstrcat(pool, repeat(pool, 'a', 63), ".com", NULL), &reason));
    assert_null(acct_domain_name(
        pool, apr_pstrcat(pool, repeat(pool, 'a', 64), ".com", NULL), &reason));
    assert_string_equal(acct_domain_key(pool, "Ex-AMPLE.Com"), "ex-ample.com");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_names),
        UNIT_TEST(test_name_lengths),
    };

    return UNIT_DB_RUN(tests);
}
