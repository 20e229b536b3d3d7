/*
 * OpenSSH public keys ("TYPE BASE64 [COMMENT]", one line of a .pub file or
 * of authorized_keys without options).  Keys are parsed, not pattern-matched:
 * the base64 must decode strictly, the blob's embedded type must equal TYPE,
 * the blob must hold exactly the fields of that type with plausible values
 * (RSA modulus of 1024+ bits, ECDSA point on the named curve, ...), and
 * nothing may follow them.
 *
 * Spaces and tabs separate the fields; every other control character is
 * refused, so a stored key can never smuggle a second authorized_keys line.
 */
#ifndef ACCT_SSHKEY_H
#define ACCT_SSHKEY_H

#include <apr_pools.h>

#include "acct_body.h"
#include "acct_list.h"
#include "acct_own.h"

/* Longest accepted line in bytes (a 16384-bit RSA key needs about 2.8 KiB). */
#define ACCT_SSHKEY_MAX_LINE 16384

/* Reasons of refusal that do not depend on the key type. */
#define ACCT_SSHKEY_R_EMPTY "SSH key is empty"
#define ACCT_SSHKEY_R_TOO_LONG "SSH key is longer than 16384 bytes"
#define ACCT_SSHKEY_R_PRIVATE \
    "This is a private key; submit the public key (the .pub file) instead"
#define ACCT_SSHKEY_R_RFC4716 \
    "SSH key must be in OpenSSH format (convert it with ssh-keygen -i -f FILE)"
#define ACCT_SSHKEY_R_CONTROL \
    "SSH key must be a single line without control characters"
#define ACCT_SSHKEY_R_OPTIONS \
    "SSH key must not start with options (such as from=\"...\")"
#define ACCT_SSHKEY_R_TYPE \
    "Unsupported key type; use ssh-ed25519, ecdsa-sha2-nistp256, " \
    "ecdsa-sha2-nistp384, ecdsa-sha2-nistp521, ssh-rsa, ssh-dss, " \
    "sk-ssh-ed25519@openssh.com or sk-ecdsa-sha2-nistp256@openssh.com"
#define ACCT_SSHKEY_R_NO_DATA "Key data is missing after the key type"
#define ACCT_SSHKEY_R_BASE64 "Key data is not valid base64"
#define ACCT_SSHKEY_R_MISMATCH "Key data does not match the key type"
#define ACCT_SSHKEY_R_TRUNCATED "Key data is truncated"
#define ACCT_SSHKEY_R_TRAILING "Key data has unexpected bytes at its end"
#define ACCT_SSHKEY_R_RSA_BITS "RSA key must be 1024 to 16384 bits"
#define ACCT_SSHKEY_R_DSA_BITS "DSA key must be at least 1024 bits"
#define ACCT_SSHKEY_R_COMMENT "Key comment is not valid UTF-8"
/* Structural defects name the type: "Key data is not a valid <type> key". */

typedef struct acct_sshkey {
    const char *type;     /* "ssh-ed25519", ... (static text) */
    const char *data;     /* the base64 key data */
    const char *comment;  /* trimmed, NULL when there is none */
    const char *text;     /* normalised: "TYPE DATA" or "TYPE DATA COMMENT" */
} acct_sshkey;

/*
 * Parses one public key line.  Returns 0 and fills `out` (pool memory), or
 * -1 with *reason set to a sentence for the user (one of the reasons above
 * or "Key data is not a valid <type> key").
 */
int acct_sshkey_parse(apr_pool_t *pool, const char *line, acct_sshkey *out,
                      const char **reason);

/*
 * Reads body field `field` as one public key (POST /profile/sshkeys): it
 * must be a string that acct_sshkey_parse accepts.  A problem is added to
 * `pb` naming `field`; null is refused like any non-string.
 */
acct_field_rc acct_sshkey_body(acct_req *req, acct_problems *pb,
                               const char *field, acct_sshkey *out);

/*
 * Reads body field `field` as an array of public key lines (PUT /profile
 * authorized_keys; [] clears the keys, null leaves them as they are, as an
 * absent field: docs/conventions.md, "Today's clients").  Every bad item is
 * reported as "<field>[<index>]" (indexes from 0), all at once.  On
 * ACCT_FIELD_SET *json_text is the array of normalised lines as compact
 * JSON (pool memory), ready to store.
 */
acct_field_rc acct_sshkey_body_list(acct_req *req, acct_problems *pb,
                                    const char *field, const char **json_text);

/*
 * The stored keys of /profile/sshkeys (table ssh_keys), each in the
 * normalised form above.  Rows carry id, label, ssh_key, created.  The
 * functions of one key find it by id and owner; `now` is not used (a key
 * does not expire), it makes them acct_own_get_fn/acct_own_change_fn.
 */

/* The list of `uid`'s keys, for acct_list_respond; `render` is the
 * caller's to set. */
void acct_sshkey_list_query(apr_pool_t *pool, apr_int64_t uid,
                            acct_list_query *q);

acct_store_rc acct_sshkey_get(acct_store *st, apr_pool_t *pool,
                              apr_int64_t id, apr_int64_t uid,
                              apr_int64_t now, acct_rows **rows);

/* Stores key `text` (normalised) of `uid`; `label` NULL for none. */
acct_store_rc acct_sshkey_create(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t uid, const char *label,
                                 const char *text, apr_int64_t created,
                                 apr_int64_t *id);

/* Sets the label (NULL: none) of key `id` of `uid` at `now`; *changed:
 * rows changed. */
acct_store_rc acct_sshkey_update(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t id, apr_int64_t uid,
                                 const char *label, apr_int64_t now,
                                 int *changed);

acct_store_rc acct_sshkey_delete(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t id, apr_int64_t uid,
                                 apr_int64_t now, int *changed);

#endif
