/*
 * Time-based one-time codes (RFC 6238 with HMAC-SHA-1, 6 digits, 30 s
 * steps, what every authenticator app computes) and the base32 (RFC 4648)
 * in which their secrets are shown to users.
 */
#ifndef ACCT_TOTP_H
#define ACCT_TOTP_H

#include <apr_pools.h>

#define ACCT_TOTP_STEP 30      /* seconds per time step */
#define ACCT_TOTP_DIGITS 6
#define ACCT_TOTP_WINDOW 1     /* steps accepted either side of the current one */

/*
 * base32 of `len` bytes, upper case, without "=" padding (secrets are shown
 * and typed without it).
 */
const char *acct_base32_encode(apr_pool_t *pool, const unsigned char *data,
                               size_t len);

/*
 * Decodes what acct_base32_encode writes: upper-case alphabet, no padding,
 * unused trailing bits zero.  Returns 0 and sets *out (pool memory) and
 * *len, or -1 for anything else.
 */
int acct_base32_decode(apr_pool_t *pool, const char *text,
                       unsigned char **out, size_t *len);

/* The time step of an epoch time. */
apr_int64_t acct_totp_step(apr_int64_t epoch_seconds);

/*
 * The code of `step` under `key`: ACCT_TOTP_DIGITS digits with leading
 * zeros, into `out` (ACCT_TOTP_DIGITS + 1 bytes).  Returns 0, or -1 if
 * HMAC fails.
 */
int acct_totp_code(const unsigned char *key, size_t keylen, apr_int64_t step,
                   char *out);

typedef enum {
    ACCT_TOTP_WRONG = 0,   /* no step of the window gives this code */
    ACCT_TOTP_OK = 1,      /* a step after last_step gives it: *step set */
    ACCT_TOTP_REPLAY = 2   /* only steps already used (<= last_step) give it */
} acct_totp_rc;

/*
 * Checks `code` against the steps of `now` +/- ACCT_TOTP_WINDOW.  Each step
 * may be used once: steps up to `last_step` count as used.  On success
 * *step is the latest matching unused step, to become the new last_step.
 */
acct_totp_rc acct_totp_verify(const unsigned char *key, size_t keylen,
                              const char *code, apr_int64_t now,
                              apr_int64_t last_step, apr_int64_t *step);

#endif
