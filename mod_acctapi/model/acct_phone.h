/*
 * Phone numbers and their one-time codes: the ISO 3166-1 alpha-2 countries
 * with their E.164 calling codes, normalisation of what users type to
 * "+<calling code><national number>", and the 6-digit verification code.
 *
 * Codes are stored only hashed, yet a send before expiry must resend the
 * same code (the contract's "repeated sends resend the same code").  So the
 * code is not kept at all: it is a keyed function of (user, number, issue
 * time) under AcctapiSecretKeyFile, recomputed from the stored issue time;
 * only its HMAC is stored, to check an attempt against.
 */
#ifndef ACCT_PHONE_H
#define ACCT_PHONE_H

#include <apr_pools.h>

#include "acct_store.h"

/* An assigned ISO 3166-1 alpha-2 code and the country code of E.164. */
typedef struct acct_country {
    const char *iso;      /* upper case, e.g. "GB" */
    const char *calling;  /* digits without '+', e.g. "44" */
} acct_country;

/* The whole table (every assigned code, sorted by code); *n its size. */
const acct_country *acct_phone_countries(size_t *n);

/* The country of `iso` (two letters, any case), or NULL if unassigned. */
const acct_country *acct_phone_country(const char *iso);

/* Digits of an E.164 number, country code included. */
#define ACCT_PHONE_MIN_DIGITS 4
#define ACCT_PHONE_MAX_DIGITS 15

typedef enum {
    ACCT_PHONE_OK = 0,
    ACCT_PHONE_SYNTAX,      /* characters other than digits and separators */
    ACCT_PHONE_LENGTH,      /* fewer than 4 or more than 15 digits */
    ACCT_PHONE_MISMATCH     /* international form of another country */
} acct_phone_rc;

/*
 * Checks what the user typed: digits with optional spaces, dashes, dots and
 * parentheses, and a leading '+'.  On success *digits holds the digits and
 * *international whether the number was given with '+' or "00".
 */
acct_phone_rc acct_phone_parse(apr_pool_t *pool, const char *text,
                               const char **digits, int *international);

/*
 * The E.164 form of a parsed number of `country`.  International numbers
 * must begin with the country's calling code; national ones get it
 * prefixed, after dropping a trunk prefix.
 */
acct_phone_rc acct_phone_e164(apr_pool_t *pool, const acct_country *country,
                              const char *digits, int international,
                              const char **e164);

/* The reason for a 400 on field phone_number. */
const char *acct_phone_reason(acct_phone_rc rc);

#define ACCT_PHONE_CODE_DIGITS 6

/*
 * The code of a verification: 6 decimal digits derived from
 * HMAC-SHA-256(key, user|number|issued), uniform over 000000..999999.
 * NULL only if the HMAC fails.
 */
const char *acct_phone_code(apr_pool_t *pool, const unsigned char *key,
                            size_t keylen, apr_int64_t user_id,
                            const char *e164, apr_int64_t issued);

/* What is stored for `code`: HMAC-SHA-256(key, user|number|code), hex. */
const char *acct_phone_code_hash(apr_pool_t *pool, const unsigned char *key,
                                 size_t keylen, apr_int64_t user_id,
                                 const char *e164, const char *code);

/*
 * Verification (table phone_verifications, one pending code per user, and
 * users.verified_phone_number).  Wrong attempts are counted on the pending
 * row; past ACCT_PHONE_MAX_ATTEMPTS the code is locked until it expires.
 */

/* The contract's 10 minutes. */
#define ACCT_PHONE_CODE_TTL 600

/* Wrong codes accepted per pending code before it locks. */
#define ACCT_PHONE_MAX_ATTEMPTS 5

/* `uid`'s verified number, NULL when none (or no such user). */
acct_store_rc acct_phone_verified_get(acct_store *st, apr_pool_t *pool,
                                      apr_int64_t uid, const char **number);

/*
 * Creates the pending verification of `e164` (of country `iso`) issued at
 * `now` with `code_hash`, or replaces one for another number or one that
 * has expired; a live one for the same number stays as it is (same issue
 * time, same code, same count of wrong attempts) unless `force`.
 */
acct_store_rc acct_phone_pending_issue(acct_store *st, apr_pool_t *pool,
                                       apr_int64_t uid, const char *iso,
                                       const char *e164,
                                       const char *code_hash, apr_int64_t now,
                                       int force);

/* The pending verification, as read. */
typedef struct acct_phone_pending {
    int found;                /* there is one */
    int complete;             /* every field below present and readable */
    const char *number;       /* E.164 */
    const char *code_hash;
    const char *issued_text;  /* as stored: it identifies the code */
    int issued_ok;            /* `issued` could be read */
    apr_int64_t issued;
    apr_int64_t expires;
    apr_int64_t attempts;     /* wrong ones so far */
} acct_phone_pending;

acct_store_rc acct_phone_pending_get(acct_store *st, apr_pool_t *pool,
                                     apr_int64_t uid, acct_phone_pending *p);

/* Counts a wrong attempt at code `p`; *counted 0: it is locked already. */
acct_store_rc acct_phone_pending_miss(acct_store *st, apr_pool_t *pool,
                                      apr_int64_t uid,
                                      const acct_phone_pending *p,
                                      int *counted);

/*
 * Uses code `p` up and makes its number `uid`'s verified one.  Every
 * condition is checked again in the statement that deletes the pending
 * row, so of parallel verifications of one code exactly one succeeds
 * (*verified 1); the others change nothing.
 */
acct_store_rc acct_phone_verify(acct_store *st, apr_pool_t *pool,
                                apr_int64_t uid, const acct_phone_pending *p,
                                apr_int64_t now, int *verified);

/* Opts out: no verified number and no pending code. */
acct_store_rc acct_phone_number_delete(acct_store *st, apr_pool_t *pool,
                                       apr_int64_t uid);

#endif
