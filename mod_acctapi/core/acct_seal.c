#include "acct_seal.h"
#include "acct_crypto.h"
#include "acct_log.h"
#include "acct_router.h"

#include <apr_strings.h>
#include <openssl/evp.h>
#include <limits.h>
#include <string.h>

#define SEAL_OVERHEAD (ACCT_SEAL_NONCE_LEN + ACCT_SEAL_TAG_LEN)

/* Standard base64 with padding, as EVP_EncodeBlock writes it. */
static int b64_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
           || (c >= '0' && c <= '9') || c == '+' || c == '/';
}

/*
 * Strict decoding: EVP_DecodeBlock skips surrounding blanks and ignores what
 * padding means, so the text is checked first and the padding length is
 * taken off its result.  Returns the decoded length, or -1.
 */
static int b64_decode(apr_pool_t *pool, const char *text, unsigned char **out)
{
    size_t len = strlen(text), i, pad = 0;
    int n;

    if (len == 0 || len % 4 != 0 || len > 4 * (size_t)(INT_MAX / 4)) {
        return -1;
    }
    while (pad < 2 && text[len - 1 - pad] == '=') {
        pad++;
    }
    for (i = 0; i < len - pad; i++) {
        if (!b64_char(text[i])) {
            return -1;
        }
    }
    *out = apr_palloc(pool, len / 4 * 3);
    n = EVP_DecodeBlock(*out, (const unsigned char *)text, (int)len);
    return n < 0 ? -1 : n - (int)pad;
}

/* Runs AES-256-GCM one way or the other; returns 0 on success. */
static int gcm(int encrypt, const unsigned char *key, const unsigned char *nonce,
               const char *context, const unsigned char *in, int inlen,
               unsigned char *out, unsigned char *tag)
{
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int len = 0, ok;

    if (!ctx) {
        return -1;
    }
    ok = EVP_CipherInit_ex(ctx, EVP_aes_256_gcm(), NULL, key, nonce, encrypt) == 1
         && EVP_CipherUpdate(ctx, NULL, &len, (const unsigned char *)context,
                             (int)strlen(context)) == 1
         && EVP_CipherUpdate(ctx, out, &len, in, inlen) == 1;
    if (ok && !encrypt) {
        ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, ACCT_SEAL_TAG_LEN,
                                 tag) == 1;
    }
    /* Decryption: this is where a wrong tag, key or context shows. */
    ok = ok && EVP_CipherFinal_ex(ctx, out + len, &len) == 1;
    if (ok && encrypt) {
        ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, ACCT_SEAL_TAG_LEN,
                                 tag) == 1;
    }
    EVP_CIPHER_CTX_free(ctx);
    return ok ? 0 : -1;
}

const char *acct_seal(apr_pool_t *pool, const unsigned char *key,
                      const char *context, const char *plain)
{
    size_t plen = strlen(plain), prefix = strlen(ACCT_SEAL_PREFIX);
    size_t blen = plen + SEAL_OVERHEAD;
    unsigned char *blob;
    char *text;

    if (plen > INT_MAX / 2) {
        return NULL;
    }
    blob = apr_palloc(pool, blen);
    if (acct_random_bytes(blob, ACCT_SEAL_NONCE_LEN) != 0
        || gcm(1, key, blob, context, (const unsigned char *)plain, (int)plen,
               blob + ACCT_SEAL_NONCE_LEN,
               blob + ACCT_SEAL_NONCE_LEN + plen) != 0) {
        return NULL;
    }
    text = apr_palloc(pool, prefix + (blen + 2) / 3 * 4 + 1);
    memcpy(text, ACCT_SEAL_PREFIX, prefix);
    EVP_EncodeBlock((unsigned char *)text + prefix, blob, (int)blen);
    return text;
}

const char *acct_unseal(apr_pool_t *pool, const unsigned char *key,
                        const char *context, const char *sealed)
{
    size_t prefix = strlen(ACCT_SEAL_PREFIX);
    unsigned char *blob = NULL;
    char *plain;
    int n, clen;

    if (!sealed || strncmp(sealed, ACCT_SEAL_PREFIX, prefix) != 0) {
        return NULL;
    }
    n = b64_decode(pool, sealed + prefix, &blob);
    if (n < SEAL_OVERHEAD) {
        return NULL;
    }
    clen = n - SEAL_OVERHEAD;
    plain = apr_palloc(pool, (apr_size_t)clen + 1);
    if (gcm(0, key, blob, context, blob + ACCT_SEAL_NONCE_LEN, clen,
            (unsigned char *)plain, blob + ACCT_SEAL_NONCE_LEN + clen) != 0) {
        /* Leave no unauthenticated plaintext behind in the pool. */
        memset(plain, 0, (size_t)clen + 1);
        return NULL;
    }
    plain[clen] = '\0';
    /* Sealed values are strings: an embedded NUL is not something we sealed. */
    return strlen(plain) == (size_t)clen ? plain : NULL;
}

const unsigned char *acct_seal_key(acct_req *req, acct_resp *resp)
{
    if (req->settings && req->settings->seal_key) {
        return req->settings->seal_key;
    }
    acct_log(ACCT_LOG_ERR, ACCTLOGNO(00020) "AcctapiSecretKeyFile is not configured: %s needs "
             "it to seal secrets, answering 503",
             req->route ? apr_pstrcat(req->pool,
                                      acct_method_name(req->route->method), " ",
                                      req->route->path, NULL)
                        : "this route");
    acct_resp_error(resp, req->pool, ACCT_HTTP_SERVICE_UNAVAILABLE, ACCT_R_UNAVAILABLE, NULL);
    return NULL;
}
