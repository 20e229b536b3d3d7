/* Security: the digests, base32 (RFC 4648) and TOTP (RFC 6238), its window
 * and replay. */
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
 * base32 and TOTP
 * ------------------------------------------------------------------------ */

/* FIPS 180-2's "abc", and an RFC 4231 HMAC, before and after the process
 * fetched SHA-256 once (acct_crypto_init): the same digests. */
static void test_digests_fetched_once(void **state)
{
    static const char abc[] =
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    static const char hmac[] =
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
    apr_pool_t *own = NULL;
    int round;

    (void)state;
    assert_int_equal(apr_pool_create(&own, NULL), APR_SUCCESS);
    for (round = 0; round < 3; round++) {
        assert_string_equal(acct_sha256_hex(own, "abc"), abc);
        assert_string_equal(acct_hmac_sha256_hex(own,
                                                 (const unsigned char *)"Jefe",
                                                 4, "what do ya want for "
                                                 "nothing?"), hmac);
        /* Fetched on the first call, kept on the second. */
        assert_int_equal(acct_crypto_init(own), 0);
    }
    apr_pool_destroy(own);
    /* Released with its pool: looked up again, the same digest. */
    assert_int_equal(apr_pool_create(&own, NULL), APR_SUCCESS);
    assert_string_equal(acct_sha256_hex(own, "abc"), abc);
    apr_pool_destroy(own);
}

static void test_base32_rfc4648(void **state)
{
    /* RFC 4648 section 10, padding removed (secrets are shown without it). */
    static const struct {
        const char *data, *b32;
    } rows[] = {
        {"", ""},
        {"f", "MY"},
        {"fo", "MZXQ"},
        {"foo", "MZXW6"},
        {"foob", "MZXW6YQ"},
        {"fooba", "MZXW6YTB"},
        {"foobar", "MZXW6YTBOI"},
        {"12345678901234567890", "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"},
    };
    static const char *const invalid[] = {
        "MY======", "my", "MZXW6YTBO1", "MZXW8", "M", "MZX", "MZXW6Y",
        "MZ", "MR", "MZXW6YR", "MZXW6 ", "MZ-Q",
    };
    unsigned char *out = NULL;
    size_t i, len = 0;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        UNIT_CHECKF(strcmp(acct_base32_encode(pool,
                                              (const unsigned char *)rows[i].data,
                                              strlen(rows[i].data)),
                           rows[i].b32) == 0, "encode %s", rows[i].data);
        UNIT_CHECKF(acct_base32_decode(pool, rows[i].b32, &out, &len) == 0,
                    "decode %s", rows[i].b32);
        UNIT_CHECKF(len == strlen(rows[i].data)
                    && memcmp(out, rows[i].data, len) == 0,
                    "decode %s", rows[i].b32);
    }
    for (i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
        UNIT_CHECKF(acct_base32_decode(pool, invalid[i], &out, &len) == -1,
                    "invalid '%s'", invalid[i]);
    }
}

static const unsigned char rfc_secret[] = "12345678901234567890";

static void test_totp_rfc6238(void **state)
{
    /* RFC 6238 Appendix B, SHA-1 rows, truncated to 6 digits. */
    static const struct {
        apr_int64_t time;
        const char *code;
    } rows[] = {
        {59, "287082"},
        {1111111109, "081804"},
        {1111111111, "050471"},
        {1234567890, "005924"},
        {2000000000, "279037"},
        {APR_INT64_C(20000000000), "353130"},
    };
    /* RFC 4226 Appendix D: HOTP counters 0..9 are TOTP steps 0..9. */
    static const char *const hotp[] = {"755224", "287082", "359152", "969429",
                                       "338314", "254676", "287922", "162583",
                                       "399871", "520489"};
    char code[ACCT_TOTP_DIGITS + 1];
    apr_int64_t step = 0;
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        assert_int_equal(acct_totp_code(rfc_secret, 20,
                                        acct_totp_step(rows[i].time), code), 0);
        UNIT_CHECKF(strcmp(code, rows[i].code) == 0, "time %" APR_INT64_T_FMT
                    ": %s", rows[i].time, code);
        UNIT_CHECK_CASE(i, acct_totp_verify(rfc_secret, 20, rows[i].code,
                                            rows[i].time, 0, &step)
                           == ACCT_TOTP_OK);
        UNIT_CHECK_CASE(i, step == rows[i].time / 30);
    }
    for (i = 0; i < 10; i++) {
        assert_int_equal(acct_totp_code(rfc_secret, 20, (apr_int64_t)i, code), 0);
        UNIT_CHECK_CASE(i, strcmp(code, hotp[i]) == 0);
    }
}

static void test_totp_window_and_replay(void **state)
{
    apr_int64_t now = 1111111111, cur = now / 30, step = 0;
    char code[ACCT_TOTP_DIGITS + 1];
    int d;

    for (d = -3; d <= 3; d++) {
        acct_totp_code(rfc_secret, 20, cur + d, code);
        step = 0;
        UNIT_CHECKF(acct_totp_verify(rfc_secret, 20, code, now, 0, &step)
                    == (d >= -1 && d <= 1 ? ACCT_TOTP_OK : ACCT_TOTP_WRONG),
                    "step %+d", d);
        UNIT_CHECKF(step == (d >= -1 && d <= 1 ? cur + d : 0), "step %+d", d);
    }
    /* Steps up to last_step are used: their codes are replays. */
    acct_totp_code(rfc_secret, 20, cur, code);
    assert_int_equal(acct_totp_verify(rfc_secret, 20, code, now, cur, &step),
                     ACCT_TOTP_REPLAY);
    assert_int_equal(acct_totp_verify(rfc_secret, 20, code, now, cur - 1, &step),
                     ACCT_TOTP_OK);
    acct_totp_code(rfc_secret, 20, cur - 1, code);
    assert_int_equal(acct_totp_verify(rfc_secret, 20, code, now, cur, &step),
                     ACCT_TOTP_REPLAY);
    acct_totp_code(rfc_secret, 20, cur + 1, code);
    assert_int_equal(acct_totp_verify(rfc_secret, 20, code, now, cur, &step),
                     ACCT_TOTP_OK);
    assert_true(step == cur + 1);
    /* Only exact 6-digit strings. */
    assert_int_equal(acct_totp_verify(rfc_secret, 20, "05047", now, 0, &step),
                     ACCT_TOTP_WRONG);
    assert_int_equal(acct_totp_verify(rfc_secret, 20, "0504710", now, 0, &step),
                     ACCT_TOTP_WRONG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_digests_fetched_once),
        UNIT_TEST(test_base32_rfc4648),
        UNIT_TEST(test_totp_rfc6238),
        UNIT_TEST(test_totp_window_and_replay),
    };

    return UNIT_DB_RUN(tests);
}
