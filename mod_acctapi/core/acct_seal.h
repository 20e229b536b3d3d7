/*
 * Sealing secrets that must be read back (TOTP secrets, security answers):
 * AES-256-GCM under the 32-byte key of AcctapiSecretKeyFile.
 *
 * Sealed text: "v1:" + base64(12-byte random nonce | ciphertext | 16-byte tag).
 * The associated data names the row the value belongs to ("tfa:<user id>",
 * "answer:<user id>:<question id>"), so a sealed value copied into another
 * row, or another user's row, fails to open just like a tampered one.
 */
#ifndef ACCT_SEAL_H
#define ACCT_SEAL_H

#include <apr_pools.h>

#include "acct_req.h"
#include "acct_resp.h"

#define ACCT_SEAL_PREFIX "v1:"
#define ACCT_SEAL_NONCE_LEN 12
#define ACCT_SEAL_TAG_LEN 16

/*
 * Seals the string `plain` under `key` (ACCT_SEAL_KEY_LEN bytes) bound to
 * `context`.  Returns the sealed text in `pool`, or NULL if the random
 * generator or the cipher fails.
 */
const char *acct_seal(apr_pool_t *pool, const unsigned char *key,
                      const char *context, const char *plain);

/*
 * Opens what acct_seal produced with the same key and context.  Returns the
 * plain string, or NULL for anything else: another prefix, bad base64, a
 * short value, a changed byte, another key or another context.
 */
const char *acct_unseal(apr_pool_t *pool, const unsigned char *key,
                        const char *context, const char *sealed);

/*
 * The sealing key of the request's configuration.  Without one (no
 * AcctapiSecretKeyFile), answers 503, logs why, and returns NULL: a route
 * that must seal cannot work at all, and storing in clear is not an option.
 */
const unsigned char *acct_seal_key(acct_req *req, acct_resp *resp);

#endif
