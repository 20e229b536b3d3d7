/* Security: sealing secrets under the key (acct_seal): round trip and
 * tampering. */
#include "unit.h"

#include <apr_dbd.h>
#include <apr_strings.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <string.h>

#include "unit_db.h"
#include "acct_crypto.h"
#include "acct_json.h"
#include "acct_log.h"
#include "acct_seal.h"
#include "acct_security.h"
#include "acct_tfa.h"
#include "acct_totp.h"
#include "api_handlers.h"

#include "unit_security.h"

/* ------------------------------------------------------------------------
 * Sealing
 * ------------------------------------------------------------------------ */

static void test_seal_round_trip(void **state)
{
    static const char *const texts[] = {"", "a", "Paris", "ééé \"quoted\"",
                                        "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"};
    const char *a, *b;
    size_t i;

    for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        a = acct_seal(pool, test_key, "tfa:1", texts[i]);
        UNIT_CHECK_CASE(i, a != NULL);
        UNIT_CHECK_CASE(i, strncmp(a, "v1:", 3) == 0);
        UNIT_CHECK_CASE(i, strlen(texts[i]) < 3 || !strstr(a, texts[i]));
        b = acct_unseal(pool, test_key, "tfa:1", a);
        UNIT_CHECK_CASE(i, b && strcmp(b, texts[i]) == 0);
    }
    /* A fresh nonce each time: equal texts do not seal alike. */
    a = acct_seal(pool, test_key, "tfa:1", "Paris");
    b = acct_seal(pool, test_key, "tfa:1", "Paris");
    assert_string_not_equal(a, b);
    /* base64 of 12 + 5 + 16 bytes */
    assert_int_equal(strlen(a), 3 + 44);
}

/* Re-encodes `blob` as a sealed value. */
static const char *sealed_of(const unsigned char *blob, int n)
{
    char *text = apr_palloc(pool, 3 + (n + 2) / 3 * 4 + 1);

    memcpy(text, "v1:", 3);
    EVP_EncodeBlock((unsigned char *)text + 3, blob, n);
    return text;
}

static void test_seal_tamper(void **state)
{
    static const unsigned char other_key[ACCT_SEAL_KEY_LEN] = {1};
    const char *sealed = acct_seal(pool, test_key, "answer:7:2", "Fluffy");
    size_t len = strlen(sealed);
    unsigned char blob[64];
    int n, i, pad = (sealed[len - 1] == '=') + (sealed[len - 2] == '=');

    assert_non_null(acct_unseal(pool, test_key, "answer:7:2", sealed));

    /* Every byte of nonce, ciphertext and tag matters. */
    n = EVP_DecodeBlock(blob, (const unsigned char *)sealed + 3,
                        (int)len - 3) - pad;
    assert_int_equal(n, 12 + 6 + 16);
    for (i = 0; i < n; i++) {
        blob[i] ^= 0x01;
        UNIT_CHECK_CASE(i, acct_unseal(pool, test_key, "answer:7:2",
                                       sealed_of(blob, n)) == NULL);
        blob[i] ^= 0x01;
    }
    assert_non_null(acct_unseal(pool, test_key, "answer:7:2",
                                sealed_of(blob, n)));
    /* Truncated: the tag no longer matches, or too short for one. */
    assert_null(acct_unseal(pool, test_key, "answer:7:2", sealed_of(blob, n - 1)));
    assert_null(acct_unseal(pool, test_key, "answer:7:2", sealed_of(blob, 27)));
    assert_null(acct_unseal(pool, test_key, "answer:7:2", sealed_of(blob, 0)));

    /* Another row, another user, another key. */
    assert_null(acct_unseal(pool, test_key, "answer:7:3", sealed));
    assert_null(acct_unseal(pool, test_key, "answer:8:2", sealed));
    assert_null(acct_unseal(pool, test_key, "", sealed));
    assert_null(acct_unseal(pool, other_key, "answer:7:2", sealed));

    /* Not our format. */
    assert_null(acct_unseal(pool, test_key, "answer:7:2", sealed + 3));
    assert_null(acct_unseal(pool, test_key, "answer:7:2",
                            apr_pstrcat(pool, "v2:", sealed + 3, NULL)));
    assert_null(acct_unseal(pool, test_key, "answer:7:2",
                            apr_pstrcat(pool, "V1:", sealed + 3, NULL)));
    assert_null(acct_unseal(pool, test_key, "answer:7:2",
                            apr_pstrcat(pool, sealed, "AAAA", NULL)));
    assert_null(acct_unseal(pool, test_key, "answer:7:2",
                            apr_pstrcat(pool, " ", sealed, NULL)));
    assert_null(acct_unseal(pool, test_key, "answer:7:2",
                            apr_pstrcat(pool, sealed, "\n", NULL)));
    assert_null(acct_unseal(pool, test_key, "answer:7:2",
                            apr_pstrndup(pool, sealed, len - 1)));
    assert_null(acct_unseal(pool, test_key, "answer:7:2", "v1:"));
    assert_null(acct_unseal(pool, test_key, "answer:7:2", "v1:@@@@"));
    assert_null(acct_unseal(pool, test_key, "answer:7:2", "v1:===="));
    assert_null(acct_unseal(pool, test_key, "answer:7:2", ""));
    assert_null(acct_unseal(pool, test_key, "answer:7:2", NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_seal_round_trip),
        UNIT_TEST(test_seal_tamper),
    };

    return UNIT_DB_RUN(tests);
}
