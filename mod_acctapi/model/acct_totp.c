#include "acct_totp.h"
#include "acct_crypto.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <string.h>

static const char b32_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

const char *acct_base32_encode(apr_pool_t *pool, const unsigned char *data,
                               size_t len)
{
    char *out = apr_palloc(pool, (len * 8 + 4) / 5 + 1), *o = out;
    unsigned int acc = 0;
    int bits = 0;
    size_t i;

    for (i = 0; i < len; i++) {
        acc = (acc << 8) | data[i];
        bits += 8;
        while (bits >= 5) {
            bits -= 5;
            *o++ = b32_alphabet[(acc >> bits) & 0x1f];
        }
    }
    if (bits > 0) {
        *o++ = b32_alphabet[(acc << (5 - bits)) & 0x1f];
    }
    *o = '\0';
    return out;
}

static int b32_value(char c)
{
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= '2' && c <= '7') {
        return c - '2' + 26;
    }
    return -1;
}

int acct_base32_decode(apr_pool_t *pool, const char *text,
                       unsigned char **out, size_t *len)
{
    size_t n = strlen(text), i;
    unsigned int acc = 0;
    unsigned char *buf, *o;
    int bits = 0;

    /* 1, 3 or 6 characters past a group of 8 cannot end a whole byte. */
    if (n % 8 == 1 || n % 8 == 3 || n % 8 == 6) {
        return -1;
    }
    buf = o = apr_palloc(pool, n * 5 / 8 + 1);
    for (i = 0; i < n; i++) {
        int v = b32_value(text[i]);

        if (v < 0) {
            return -1;
        }
        acc = ((acc << 5) | (unsigned int)v) & 0xfff;
        bits += 5;
        if (bits >= 8) {
            bits -= 8;
            *o++ = (unsigned char)(acc >> bits);
        }
    }
    /* Non-zero leftover bits: not what an encoder writes. */
    if (acc & ((1u << bits) - 1)) {
        return -1;
    }
    *out = buf;
    *len = (size_t)(o - buf);
    return 0;
}

apr_int64_t acct_totp_step(apr_int64_t epoch_seconds)
{
    return epoch_seconds / ACCT_TOTP_STEP;
}

int acct_totp_code(const unsigned char *key, size_t keylen, apr_int64_t step,
                   char *out)
{
    unsigned char msg[8], md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0, offset;
    apr_uint64_t counter = (apr_uint64_t)step;
    apr_uint32_t bin;
    int i;

    for (i = 7; i >= 0; i--) {
        msg[i] = (unsigned char)(counter & 0xff);
        counter >>= 8;
    }
    if (!HMAC(EVP_sha1(), key, (int)keylen, msg, sizeof(msg), md, &mdlen)
        || mdlen < 20) {
        return -1;
    }
    /* RFC 4226 section 5.3: dynamic truncation. */
    offset = md[mdlen - 1] & 0x0f;
    bin = ((apr_uint32_t)(md[offset] & 0x7f) << 24)
          | ((apr_uint32_t)md[offset + 1] << 16)
          | ((apr_uint32_t)md[offset + 2] << 8)
          | (apr_uint32_t)md[offset + 3];
    for (i = ACCT_TOTP_DIGITS - 1; i >= 0; i--) {
        out[i] = (char)('0' + bin % 10);
        bin /= 10;
    }
    out[ACCT_TOTP_DIGITS] = '\0';
    return 0;
}

acct_totp_rc acct_totp_verify(const unsigned char *key, size_t keylen,
                              const char *code, apr_int64_t now,
                              apr_int64_t last_step, apr_int64_t *step)
{
    apr_int64_t current = acct_totp_step(now), s;
    acct_totp_rc rc = ACCT_TOTP_WRONG;
    char expect[ACCT_TOTP_DIGITS + 1];

    if (strlen(code) != ACCT_TOTP_DIGITS) {
        return ACCT_TOTP_WRONG;
    }
    /* Every step of the window is computed, so timing says nothing. */
    for (s = current - ACCT_TOTP_WINDOW; s <= current + ACCT_TOTP_WINDOW; s++) {
        if (acct_totp_code(key, keylen, s, expect) != 0
            || !acct_secure_equal(expect, code)) {
            continue;
        }
        if (s > last_step) {
            rc = ACCT_TOTP_OK;
            *step = s;
        }
        else if (rc == ACCT_TOTP_WRONG) {
            rc = ACCT_TOTP_REPLAY;
        }
    }
    return rc;
}
