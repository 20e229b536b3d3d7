/* Randomness and hashing (OpenSSL). */
#ifndef ACCT_CRYPTO_H
#define ACCT_CRYPTO_H

#include <apr_pools.h>

#define ACCT_TOKEN_HEX_LEN 64
#define ACCT_TOKEN_PREFIX_LEN 16

/* n bytes from the CSPRNG; returns -1 if the generator fails. */
int acct_random_bytes(unsigned char *buf, size_t n);

/* 2n lowercase hex characters from n random bytes, or NULL on failure. */
const char *acct_random_hex(apr_pool_t *pool, size_t n);

/*
 * Fetches the process's digests once, before its threads hash anything
 * (released with `pool`); without it every digest looks its algorithm up.
 * -1 when OpenSSL has no SHA-256.
 */
int acct_crypto_init(apr_pool_t *pool);

/* Lowercase hex SHA-256 of a string. */
const char *acct_sha256_hex(apr_pool_t *pool, const char *text);

/*
 * Lowercase hex HMAC-SHA-256 of `text` under `key`: how short codes (phone,
 * scratch) are stored, so a database dump does not reveal them even to a
 * brute force over their small space.
 */
const char *acct_hmac_sha256_hex(apr_pool_t *pool, const unsigned char *key,
                                 size_t keylen, const char *text);

/* Constant-time comparison of two strings of equal length. */
int acct_secure_equal(const char *a, const char *b);

/* 64 lowercase hex characters? */
int acct_token_well_formed(const char *token);

#endif
