/* Phone numbers: the country table and the normalising of numbers. */
#include "unit.h"

#include <apr_dbd.h>
#include <apr_file_io.h>
#include <apr_hash.h>
#include <apr_strings.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit_db.h"
#include "acct_auth.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "acct_log.h"
#include "acct_phone.h"
#include "acct_sms.h"
#include "acct_tokens.h"
#include "api_handlers.h"

#include "unit_phone.h"

/* ------------------------------------------------------------------------
 * Countries and numbers
 * ------------------------------------------------------------------------ */

static void test_country_table(void **state)
{
    static const struct {
        const char *iso, *calling;
    } known[] = {
        {"US", "1"}, {"GB", "44"}, {"DE", "49"}, {"IN", "91"}, {"JP", "81"},
        {"CA", "1"}, {"RU", "7"}, {"KZ", "7"}, {"FR", "33"}, {"BR", "55"},
        {"AX", "358"}, {"VA", "39"}, {"SS", "211"}, {"ZW", "263"},
    };
    static const char *const unassigned[] = {
        "XK", "ZZ", "UK", "EU", "AA", "", "G", "GBR", "1A", "G1", "é"
    };
    const acct_country *t, *c;
    size_t n, i, j;

    t = acct_phone_countries(&n);
    assert_int_equal(n, 249);
    for (i = 0; i < n; i++) {
        UNIT_CHECKF(strlen(t[i].iso) == 2 && t[i].iso[0] >= 'A'
                    && t[i].iso[0] <= 'Z' && t[i].iso[1] >= 'A'
                    && t[i].iso[1] <= 'Z', "%s", t[i].iso);
        UNIT_CHECKF(i == 0 || strcmp(t[i - 1].iso, t[i].iso) < 0,
                    "%s sorted and unique", t[i].iso);
        UNIT_CHECKF(strlen(t[i].calling) >= 1 && strlen(t[i].calling) <= 3
                    && strspn(t[i].calling, "0123456789")
                       == strlen(t[i].calling)
                    && t[i].calling[0] != '0', "%s +%s", t[i].iso,
                    t[i].calling);
        UNIT_CHECK(t[i].iso, acct_phone_country(t[i].iso) == &t[i]);
        /* No calling code is a prefix of another (E.164 is a prefix code). */
        for (j = 0; j < n; j++) {
            size_t a = strlen(t[i].calling), b = strlen(t[j].calling);

            UNIT_CHECKF(a >= b || strncmp(t[i].calling, t[j].calling, a) != 0,
                        "+%s (%s) prefixes +%s (%s)", t[i].calling, t[i].iso,
                        t[j].calling, t[j].iso);
        }
    }
    for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        c = acct_phone_country(known[i].iso);
        UNIT_CHECK(known[i].iso,
                   c && strcmp(c->calling, known[i].calling) == 0);
    }
    c = acct_phone_country("gb");
    assert_true(c && strcmp(c->iso, "GB") == 0);
    c = acct_phone_country("jP");
    assert_true(c && strcmp(c->iso, "JP") == 0);
    for (i = 0; i < sizeof(unassigned) / sizeof(unassigned[0]); i++) {
        UNIT_CHECK(unassigned[i], acct_phone_country(unassigned[i]) == NULL);
    }
}

static void test_normalise(void **state)
{
    static const struct {
        const char *iso, *text, *e164;
        acct_phone_rc rc;
    } cases[] = {
        {"US", "(212) 555-0123", "+12125550123", ACCT_PHONE_OK},
        {"US", "1 212 555 0123", "+12125550123", ACCT_PHONE_OK},
        {"US", "+1 212.555.0123", "+12125550123", ACCT_PHONE_OK},
        {"CA", "416-555-0199", "+14165550199", ACCT_PHONE_OK},
        {"GB", "020 7946 0018", "+442079460018", ACCT_PHONE_OK},
        {"GB", "+44 20 7946 0018", "+442079460018", ACCT_PHONE_OK},
        {"GB", "0044 20 7946 0018", "+442079460018", ACCT_PHONE_OK},
        {"GB", "+44 (0)20 7946 0018", "+442079460018", ACCT_PHONE_OK},
        {"IT", "+39 06 1234 5678", "+390612345678", ACCT_PHONE_OK},
        {"DE", "030 123456", "+4930123456", ACCT_PHONE_OK},
        {"DE", "0151-23456789", "+4915123456789", ACCT_PHONE_OK},
        {"IT", "06 1234 5678", "+390612345678", ACCT_PHONE_OK},
        {"JP", "090-1234-5678", "+819012345678", ACCT_PHONE_OK},
        {"IN", "+91 98765 43210", "+919876543210", ACCT_PHONE_OK},
        {"IN", "098765 43210", "+919876543210", ACCT_PHONE_OK},
        {"RU", "8 912 345 67 89", "+79123456789", ACCT_PHONE_OK},
        {"KZ", "+7 701 234 5678", "+77012345678", ACCT_PHONE_OK},
        {"FR", "06.12.34.56.78", "+33612345678", ACCT_PHONE_OK},
        {"NU", "4002", "+6834002", ACCT_PHONE_OK},
        {"GB", "+49 30 123456", NULL, ACCT_PHONE_MISMATCH},
        {"CA", "+44 20 7946 0018", NULL, ACCT_PHONE_MISMATCH},
        {"US", "00 44 20 7946 0018", NULL, ACCT_PHONE_MISMATCH},
        {"US", "555-01x3", NULL, ACCT_PHONE_SYNTAX},
        {"US", "", NULL, ACCT_PHONE_SYNTAX},
        {"US", "+", NULL, ACCT_PHONE_SYNTAX},
        {"US", " - ", NULL, ACCT_PHONE_SYNTAX},
        {"US", "12+3", NULL, ACCT_PHONE_SYNTAX},
        {"US", "++1 212 555 0123", NULL, ACCT_PHONE_SYNTAX},
        {"US", "212/555/0123", NULL, ACCT_PHONE_SYNTAX},
        {"US", "12", NULL, ACCT_PHONE_LENGTH},
        {"DE", "0", NULL, ACCT_PHONE_LENGTH},
        {"GB", "+44", NULL, ACCT_PHONE_LENGTH},
        {"US", "1234567890123456", NULL, ACCT_PHONE_LENGTH},
        {"DE", "+49 1234 5678 901234", NULL, ACCT_PHONE_LENGTH},
        {"DE", "+49 1234 5678 9012", "+49123456789012", ACCT_PHONE_OK},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const acct_country *c = acct_phone_country(cases[i].iso);
        const char *digits = NULL, *e164 = NULL;
        int intl = -1;
        acct_phone_rc rc;

        assert_non_null(c);
        rc = acct_phone_parse(pool, cases[i].text, &digits, &intl);
        if (rc == ACCT_PHONE_OK) {
            rc = acct_phone_e164(pool, c, digits, intl, &e164);
        }
        UNIT_CHECKF(rc == cases[i].rc, "%s %s: rc %d", cases[i].iso,
                    cases[i].text, (int)rc);
        if (cases[i].e164) {
            UNIT_CHECKF(e164 && strcmp(e164, cases[i].e164) == 0,
                        "%s %s: %s", cases[i].iso, cases[i].text,
                        e164 ? e164 : "(null)");
        }
        UNIT_CHECKF(rc == ACCT_PHONE_OK || acct_phone_reason(rc)[0] != '\0',
                    "%s %s: a reason", cases[i].iso, cases[i].text);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_country_table),
        UNIT_TEST(test_normalise),
    };

    return UNIT_RUN_GROUP(tests, group_setup, group_teardown);
}
