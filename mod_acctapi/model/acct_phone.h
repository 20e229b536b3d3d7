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

#endif
