/* Phone numbers: the derivation of verification codes. */
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
 * Codes
 * ------------------------------------------------------------------------ */

static int is_code(const char *s)
{
    return s && strlen(s) == ACCT_PHONE_CODE_DIGITS
           && strspn(s, "0123456789") == ACCT_PHONE_CODE_DIGITS;
}

static void test_code_derivation(void **state)
{
    const char *c1, *c2, *h1, *h2;
    apr_hash_t *seen = apr_hash_make(pool);
    unsigned long first_digit[10] = {0};
    int i;

    c1 = acct_phone_code(pool, key_a, sizeof(key_a), 7, "+442079460018",
                         1700000000);
    c2 = acct_phone_code(pool, key_a, sizeof(key_a), 7, "+442079460018",
                         1700000000);
    assert_true(is_code(c1));
    assert_string_equal(c1, c2);
    h1 = acct_phone_code_hash(pool, key_a, sizeof(key_a), 7, "+442079460018",
                              c1);
    h2 = acct_phone_code_hash(pool, key_a, sizeof(key_a), 7, "+442079460018",
                              c1);
    assert_non_null(h1);
    assert_int_equal(strlen(h1), 64);
    assert_string_equal(h1, h2);
    /* Every input changes the hash. */
    assert_string_not_equal(h1, acct_phone_code_hash(pool, key_b, sizeof(key_b),
                                                     7, "+442079460018", c1));
    assert_string_not_equal(h1, acct_phone_code_hash(pool, key_a, sizeof(key_a),
                                                     8, "+442079460018", c1));
    assert_string_not_equal(h1, acct_phone_code_hash(pool, key_a, sizeof(key_a),
                                                     7, "+442079460019", c1));

    /* Range and spread over consecutive issue times. */
    for (i = 0; i < 5000; i++) {
        const char *c = acct_phone_code(pool, key_a, sizeof(key_a), 7,
                                        "+442079460018", 1700000000 + i);

        UNIT_CHECKF(is_code(c), "issued +%d: %s", i, c ? c : "(null)");
        apr_hash_set(seen, c, APR_HASH_KEY_STRING, c);
        first_digit[c[0] - '0']++;
    }
    /* 5000 draws from 10^6: about 12 collisions expected. */
    assert_true(apr_hash_count(seen) > 4950);
    for (i = 0; i < 10; i++) {
        UNIT_CHECKF(first_digit[i] > 380 && first_digit[i] < 620,
                    "leading digit %d: %lu of 5000", i, first_digit[i]);
    }
    /* Other users, numbers and keys get other codes (almost surely). */
    assert_string_not_equal(c1, acct_phone_code(pool, key_b, sizeof(key_b), 7,
                                                "+442079460018", 1700000000));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_code_derivation),
    };

    return UNIT_RUN_GROUP(tests, group_setup, group_teardown);
}
