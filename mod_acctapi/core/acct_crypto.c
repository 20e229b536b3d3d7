#include "acct_crypto.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <string.h>

static const char hexdigits[] = "0123456789abcdef";

static void to_hex(char *out, const unsigned char *in, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        out[2 * i] = hexdigits[in[i] >> 4];
        out[2 * i + 1] = hexdigits[in[i] & 0x0f];
    }
    out[2 * n] = '\0';
}

int acct_random_bytes(unsigned char *buf, size_t n)
{
    return RAND_bytes(buf, (int)n) == 1 ? 0 : -1;
}

const char *acct_random_hex(apr_pool_t *pool, size_t n)
{
    unsigned char *raw = apr_palloc(pool, n);
    char *hex = apr_palloc(pool, 2 * n + 1);

    if (acct_random_bytes(raw, n) != 0) {
        return NULL;
    }
    to_hex(hex, raw, n);
    memset(raw, 0, n);
    return hex;
}

/*
 * SHA-256 as the process fetched it once (acct_crypto_init): OpenSSL 3
 * looks EVP_sha256() up in its locked algorithm store on every digest,
 * about 1.5% of a request that hashes its token.  NULL: not fetched.
 */
static EVP_MD *sha256_fetched;

#if OPENSSL_VERSION_NUMBER >= 0x30000000L
static apr_status_t sha256_release(void *unused)
{
    (void)unused;
    EVP_MD_free(sha256_fetched);
    sha256_fetched = NULL;
    return APR_SUCCESS;
}
#endif

int acct_crypto_init(apr_pool_t *pool)
{
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
    if (!sha256_fetched) {
        sha256_fetched = EVP_MD_fetch(NULL, "SHA256", NULL);
        if (!sha256_fetched) {
            return -1;
        }
        apr_pool_cleanup_register(pool, NULL, sha256_release,
                                  apr_pool_cleanup_null);
    }
#else
    (void)pool;
#endif
    return 0;
}

static const EVP_MD *sha256(void)
{
    return sha256_fetched ? sha256_fetched : EVP_sha256();
}

const char *acct_sha256_hex(apr_pool_t *pool, const char *text)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    char *hex;

    if (EVP_Digest(text, strlen(text), md, &mdlen, sha256(), NULL) != 1) {
        return NULL;
    }
    hex = apr_palloc(pool, 2 * mdlen + 1);
    to_hex(hex, md, mdlen);
    return hex;
}

const char *acct_hmac_sha256_hex(apr_pool_t *pool, const unsigned char *key,
                                 size_t keylen, const char *text)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    char *hex;

    if (!HMAC(sha256(), key, (int)keylen, (const unsigned char *)text,
              strlen(text), md, &mdlen)) {
        return NULL;
    }
    hex = apr_palloc(pool, 2 * mdlen + 1);
    to_hex(hex, md, mdlen);
    return hex;
}

int acct_secure_equal(const char *a, const char *b)
{
    size_t n = strlen(a);

    return n == strlen(b) && CRYPTO_memcmp(a, b, n) == 0;
}

int acct_token_well_formed(const char *token)
{
    size_t i;

    for (i = 0; i < ACCT_TOKEN_HEX_LEN; i++) {
        char c = token[i];

        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            return 0;
        }
    }
    return token[ACCT_TOKEN_HEX_LEN] == '\0';
}
