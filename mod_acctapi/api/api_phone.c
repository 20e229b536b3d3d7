/*
 * Phone verification of the acting user: /profile/phone-number (send a
 * code, delete the verified number) and /profile/phone-number/verify.
 *
 * One verification is pending per user (phone_verifications).  Its code is
 * never stored: it is derived from (user, number, issue time) under the
 * secret key (acct_phone.h), so a send before expiry recomputes and resends
 * the same code, and only the code's HMAC is kept to check attempts.  Wrong
 * attempts are counted on the pending row; past MAX_ATTEMPTS the code is
 * locked until it expires (a resend before then is the same code), answered
 * 429 with Retry-After.
 */
#include "api_handlers.h"
#include "acct_body.h"
#include "acct_crypto.h"
#include "acct_log.h"
#include "acct_phone.h"
#include "acct_sms.h"

#include <apr_strings.h>

/* The contract's 10 minutes. */
#define CODE_TTL 600

/* Wrong codes accepted per pending code before it locks. */
#define MAX_ATTEMPTS 5

/* Longest phone_number accepted as typed, separators included. */
#define PHONE_TEXT_MAX 40

#define PENDING_WHERE "user_id = CAST(%s AS BIGINT)"

static const acct_sql q_verified_get = ACCT_SQL("phone_verified_get",
    "SELECT verified_phone_number FROM users WHERE id = CAST(%s AS BIGINT)");

static const acct_sql q_verified_set = ACCT_SQL("phone_verified_set",
    "UPDATE users SET verified_phone_number = %s"
    " WHERE id = CAST(%s AS BIGINT)");

/*
 * Creates the pending verification, or replaces one for another number or
 * one that has expired; a live one for the same number stays as it is
 * (same issue time, same code, same count of wrong attempts).  The last
 * argument forces the replacement.
 */
static const acct_sql q_pending_issue = ACCT_SQL("phone_pending_issue",
    "INSERT INTO phone_verifications"
    " (user_id, iso_code, phone_number, code_hash, issued, expires,"
    " failed_attempts)"
    " VALUES (CAST(%s AS BIGINT), %s, %s, %s, CAST(%s AS BIGINT),"
    " CAST(%s AS BIGINT), 0)"
    " ON CONFLICT (user_id) DO UPDATE SET iso_code = excluded.iso_code,"
    " phone_number = excluded.phone_number, code_hash = excluded.code_hash,"
    " issued = excluded.issued, expires = excluded.expires,"
    " failed_attempts = 0"
    " WHERE phone_verifications.phone_number <> excluded.phone_number"
    " OR phone_verifications.expires <= excluded.issued"
    " OR CAST(%s AS INTEGER) = 1");

static const acct_sql q_pending_get = ACCT_SQL("phone_pending_get",
    "SELECT phone_number, code_hash, issued, expires, failed_attempts"
    " FROM phone_verifications WHERE " PENDING_WHERE);

/* Counts a wrong attempt; no row changed: the code is locked already. */
static const acct_sql q_pending_miss = ACCT_SQL("phone_pending_miss",
    "UPDATE phone_verifications SET failed_attempts = failed_attempts + 1"
    " WHERE " PENDING_WHERE " AND issued = CAST(%s AS BIGINT)"
    " AND failed_attempts < CAST(%s AS INTEGER)");

/*
 * Uses the code up.  Every condition is checked again here, so of parallel
 * verifications of one code exactly one deletes the row and succeeds.
 */
static const acct_sql q_pending_use = ACCT_SQL("phone_pending_use",
    "DELETE FROM phone_verifications"
    " WHERE " PENDING_WHERE " AND issued = CAST(%s AS BIGINT)"
    " AND code_hash = %s AND failed_attempts < CAST(%s AS INTEGER)"
    " AND expires > CAST(%s AS BIGINT)");

static const acct_sql q_pending_drop = ACCT_SQL("phone_pending_drop",
    "DELETE FROM phone_verifications WHERE " PENDING_WHERE);

#define R_NO_PENDING "No verification code is pending; request one first"
#define R_EXPIRED "The verification code has expired; request a new one"
#define R_WRONG "Invalid verification code"
#define R_HAS_NUMBER "A verified phone number is already set; delete it " \
                     "before adding another"

/* ---- helpers ------------------------------------------------------------ */

/* Runs a statement; answers the store error itself and returns -1. */
static int phone_exec(acct_req *req, acct_resp *resp, const acct_sql *sql,
                      int *affected, int nargs, const char *const *args)
{
    acct_store *st = NULL;
    acct_store_rc rc = acct_req_store(req, &st);

    if (rc == ACCT_STORE_OK) {
        rc = acct_store_exec(st, req->pool, sql, affected, nargs, args);
    }
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return -1;
    }
    return 0;
}

/* Runs a select; answers the store error itself and returns NULL. */
static acct_rows *phone_select(acct_req *req, acct_resp *resp,
                               const acct_sql *sql, int nargs,
                               const char *const *args)
{
    acct_store *st = NULL;
    acct_rows *rows = NULL;
    acct_store_rc rc = acct_req_store(req, &st);

    if (rc == ACCT_STORE_OK) {
        rc = acct_store_select(st, req->pool, sql, &rows, nargs, args);
    }
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return NULL;
    }
    return rows;
}

/* The secret key the codes derive from; without it 503, as for two-factor. */
static const unsigned char *phone_key(acct_req *req, acct_resp *resp)
{
    const unsigned char *key = req->settings ? req->settings->seal_key : NULL;

    if (!key) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00042) "phone verification needs a secret key: "
                 "AcctapiSecretKeyFile is not set");
        acct_resp_error(resp, req->pool, 503, ACCT_R_UNAVAILABLE, NULL);
    }
    return key;
}

/* An HMAC failed (OpenSSL out of memory): nothing the client can fix. */
static void phone_crypto_failed(acct_req *req, acct_resp *resp)
{
    acct_log(ACCT_LOG_ERR, ACCTLOGNO(00043) "phone verification: HMAC-SHA-256 failed");
    acct_resp_error(resp, req->pool, 500, ACCT_R_INTERNAL, NULL);
}

static const char *uid_arg(acct_req *req)
{
    return acct_i64(req->pool, req->who->user_id);
}

/* ---- POST /profile/phone-number ------------------------------------------ */

/*
 * Validates iso_code and phone_number (every bad field reported) and
 * returns the number in E.164 form, or NULL.
 */
static const char *send_number(acct_req *req, acct_resp *resp,
                               const acct_country **country)
{
    const char *iso = NULL, *text = NULL, *digits = NULL, *e164 = NULL;
    acct_phone_rc prc = ACCT_PHONE_OK;
    acct_field_rc rc;
    int international = 0;

    *country = NULL;
    rc = acct_body_string(req, resp, "iso_code", 1, PHONE_TEXT_MAX, 0, &iso);
    acct_body_require(req, resp, "iso_code", rc);
    if (rc == ACCT_FIELD_SET && !(*country = acct_phone_country(iso))) {
        acct_resp_invalid(resp, req->pool, "iso_code",
                          "iso_code must be an assigned two-letter ISO 3166 "
                          "country code");
    }
    rc = acct_body_string(req, resp, "phone_number", 1, PHONE_TEXT_MAX, 0,
                          &text);
    acct_body_require(req, resp, "phone_number", rc);
    if (rc != ACCT_FIELD_SET) {
        return NULL;
    }
    prc = acct_phone_parse(req->pool, text, &digits, &international);
    if (prc == ACCT_PHONE_OK && *country) {
        prc = acct_phone_e164(req->pool, *country, digits, international,
                              &e164);
    }
    if (prc != ACCT_PHONE_OK) {
        acct_resp_invalid(resp, req->pool, "phone_number",
                          acct_phone_reason(prc));
        return NULL;
    }
    return e164;
}

/* Changing a verified number takes a delete first (the contract). */
static int has_verified_number(acct_req *req, acct_resp *resp)
{
    const char *args[1];
    acct_rows *rows;

    args[0] = uid_arg(req);
    rows = phone_select(req, resp, &q_verified_get, 1, args);
    if (!rows) {
        return -1;
    }
    if (rows->nrows > 0 && acct_rows_get(rows, 0, "verified_phone_number")) {
        acct_resp_invalid(resp, req->pool, "phone_number", R_HAS_NUMBER);
        return 1;
    }
    return 0;
}

static int pending_issue(acct_req *req, acct_resp *resp,
                         const acct_country *country, const char *e164,
                         const char *code_hash, int force)
{
    const char *args[7];

    args[0] = uid_arg(req);
    args[1] = country->iso;
    args[2] = e164;
    args[3] = code_hash;
    args[4] = acct_i64(req->pool, req->now);
    args[5] = acct_i64(req->pool, req->now + CODE_TTL);
    args[6] = force ? "1" : "0";
    return phone_exec(req, resp, &q_pending_issue, NULL, 7, args);
}

/*
 * Issues the code for `e164`, or finds the live one, and returns it.  The
 * stored hash not matching the code derived from the stored issue time
 * means the key has changed since: that code could never be verified, so a
 * new one replaces it.
 */
static const char *issue_code(acct_req *req, acct_resp *resp,
                              const unsigned char *key,
                              const acct_country *country, const char *e164)
{
    apr_int64_t uid = req->who->user_id, issued;
    const char *fresh, *fresh_hash, *code, *hash, *stored, *args[1];
    acct_rows *rows;

    fresh = acct_phone_code(req->pool, key, ACCT_SEAL_KEY_LEN, uid, e164,
                            req->now);
    fresh_hash = fresh ? acct_phone_code_hash(req->pool, key, ACCT_SEAL_KEY_LEN,
                                              uid, e164, fresh) : NULL;
    if (!fresh_hash) {
        phone_crypto_failed(req, resp);
        return NULL;
    }
    if (pending_issue(req, resp, country, e164, fresh_hash, 0) != 0) {
        return NULL;
    }
    args[0] = uid_arg(req);
    rows = phone_select(req, resp, &q_pending_get, 1, args);
    if (!rows) {
        return NULL;
    }
    if (rows->nrows != 1
        || acct_parse_i64(acct_rows_get(rows, 0, "issued"), &issued) != 0) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00044) "phone verification of user %" APR_INT64_T_FMT
                 ": the pending row is missing after its upsert", uid);
        acct_resp_error(resp, req->pool, 500, ACCT_R_INTERNAL, NULL);
        return NULL;
    }
    code = acct_phone_code(req->pool, key, ACCT_SEAL_KEY_LEN, uid, e164,
                           issued);
    hash = code ? acct_phone_code_hash(req->pool, key, ACCT_SEAL_KEY_LEN, uid,
                                       e164, code) : NULL;
    stored = acct_rows_get(rows, 0, "code_hash");
    if (!hash) {
        phone_crypto_failed(req, resp);
        return NULL;
    }
    if (stored && acct_secure_equal(hash, stored)) {
        return code;
    }
    if (pending_issue(req, resp, country, e164, fresh_hash, 1) != 0) {
        return NULL;
    }
    return fresh;
}

void api_phone_send(acct_req *req, acct_resp *resp)
{
    static const char *const allowed[] = {"iso_code", "phone_number", NULL};
    const acct_country *country;
    const unsigned char *key;
    const char *e164, *code;
    acct_sms_rc src;

    acct_body_only(req, resp, allowed);
    e164 = send_number(req, resp, &country);
    if (acct_resp_failed(resp) || !(key = phone_key(req, resp))
        || has_verified_number(req, resp) != 0
        || !(code = issue_code(req, resp, key, country, e164))
        || acct_resp_store_failed(req, resp, acct_req_commit_now(req)) != 0) {
        return;
    }
    src = acct_sms_send(req->pool, req->settings->sms_command, e164,
                        apr_psprintf(req->pool, "Your verification code is %s. "
                                     "It expires in 10 minutes.", code),
                        ACCT_SMS_TIMEOUT);
    if (acct_resp_store_failed(req, resp, acct_req_reopen(req)) != 0) {
        return;
    }
    if (src != ACCT_SMS_OK) {
        /* Logged by acct_sms; the code stays, a retry resends it. */
        acct_resp_error(resp, req->pool, 503, ACCT_R_UNAVAILABLE, NULL);
        return;
    }
    acct_resp_ok(resp, req->pool, NULL);
}

/* ---- POST /profile/phone-number/verify ----------------------------------- */

/* The pending verification, as numbers and text. */
typedef struct pending {
    const char *number;
    const char *code_hash;
    const char *issued_text;
    apr_int64_t expires;
    apr_int64_t attempts;
} pending;

/* Loads the pending verification; answers 400 itself when there is none. */
static int pending_load(acct_req *req, acct_resp *resp, pending *p)
{
    const char *args[1];
    acct_rows *rows;

    args[0] = uid_arg(req);
    rows = phone_select(req, resp, &q_pending_get, 1, args);
    if (!rows) {
        return -1;
    }
    if (rows->nrows == 0) {
        acct_resp_error(resp, req->pool, 400, R_NO_PENDING, NULL);
        return -1;
    }
    p->number = acct_rows_get(rows, 0, "phone_number");
    p->code_hash = acct_rows_get(rows, 0, "code_hash");
    p->issued_text = acct_rows_get(rows, 0, "issued");
    if (!p->number || !p->code_hash || !p->issued_text
        || acct_parse_i64(acct_rows_get(rows, 0, "expires"), &p->expires) != 0
        || acct_parse_i64(acct_rows_get(rows, 0, "failed_attempts"),
                          &p->attempts) != 0) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00045) "phone verification of user %" APR_INT64_T_FMT
                 ": malformed pending row", req->who->user_id);
        acct_resp_error(resp, req->pool, 500, ACCT_R_INTERNAL, NULL);
        return -1;
    }
    return 0;
}

/* 429 until the locked code expires; a send after that issues a new one. */
static void pending_locked(acct_req *req, acct_resp *resp, const pending *p)
{
    apr_int64_t wait = p->expires - req->now;

    acct_resp_error(resp, req->pool, 429, ACCT_R_RATE, NULL);
    apr_table_setn(resp->headers, "Retry-After",
                   acct_i64(req->pool, wait > 0 ? wait : 1));
}

/* Counts a wrong code, durably, and answers it. */
static void pending_miss(acct_req *req, acct_resp *resp, const pending *p)
{
    const char *args[3];
    int affected = 0;

    args[0] = uid_arg(req);
    args[1] = p->issued_text;
    args[2] = acct_i64(req->pool, MAX_ATTEMPTS);
    if (phone_exec(req, resp, &q_pending_miss, &affected, 3, args) != 0) {
        return;
    }
    if (affected == 0) {
        /* Parallel wrong attempts used the last ones up. */
        pending_locked(req, resp, p);
        return;
    }
    if (acct_resp_store_failed(req, resp, acct_req_checkpoint(req)) == 0) {
        acct_resp_invalid(resp, req->pool, "otp_code", R_WRONG);
    }
}

/* Deletes the pending row if it still matches; 1 when this request did. */
static int pending_use(acct_req *req, acct_resp *resp, const pending *p)
{
    const char *args[5];
    int affected = 0;

    args[0] = uid_arg(req);
    args[1] = p->issued_text;
    args[2] = p->code_hash;
    args[3] = acct_i64(req->pool, MAX_ATTEMPTS);
    args[4] = acct_i64(req->pool, req->now);
    if (phone_exec(req, resp, &q_pending_use, &affected, 5, args) != 0) {
        return -1;
    }
    if (affected == 0) {
        acct_resp_error(resp, req->pool, 400, R_NO_PENDING, NULL);
        return 0;
    }
    return 1;
}

static int six_digits(const char *s)
{
    int i;

    for (i = 0; i < ACCT_PHONE_CODE_DIGITS; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return 0;
        }
    }
    return s[ACCT_PHONE_CODE_DIGITS] == '\0';
}

void api_phone_verify(acct_req *req, acct_resp *resp)
{
    static const char *const allowed[] = {"otp_code", NULL};
    const char *otp = NULL, *hash, *args[2];
    const unsigned char *key;
    acct_field_rc rc;
    pending p;

    acct_body_only(req, resp, allowed);
    rc = acct_body_string(req, resp, "otp_code", 1, PHONE_TEXT_MAX, 0, &otp);
    acct_body_require(req, resp, "otp_code", rc);
    if (rc == ACCT_FIELD_SET && !six_digits(otp)) {
        acct_resp_invalid(resp, req->pool, "otp_code",
                          "otp_code must be 6 digits");
    }
    if (acct_resp_failed(resp) || !(key = phone_key(req, resp))
        || pending_load(req, resp, &p) != 0) {
        return;
    }
    if (p.expires <= req->now) {
        acct_resp_error(resp, req->pool, 400, R_EXPIRED, NULL);
        return;
    }
    if (p.attempts >= MAX_ATTEMPTS) {
        pending_locked(req, resp, &p);
        return;
    }
    hash = acct_phone_code_hash(req->pool, key, ACCT_SEAL_KEY_LEN,
                                req->who->user_id, p.number, otp);
    if (!hash) {
        phone_crypto_failed(req, resp);
        return;
    }
    if (!acct_secure_equal(hash, p.code_hash)) {
        pending_miss(req, resp, &p);
        return;
    }
    if (pending_use(req, resp, &p) != 1) {
        return;
    }
    args[0] = p.number;
    args[1] = uid_arg(req);
    if (phone_exec(req, resp, &q_verified_set, NULL, 2, args) == 0) {
        acct_resp_ok(resp, req->pool, NULL);
    }
}

/* ---- DELETE /profile/phone-number ---------------------------------------- */

/* Opts out: no verified number and no pending code; {} even if none was set. */
void api_phone_delete(acct_req *req, acct_resp *resp)
{
    const char *args[2];

    args[0] = NULL;
    args[1] = uid_arg(req);
    if (phone_exec(req, resp, &q_verified_set, NULL, 2, args) == 0
        && phone_exec(req, resp, &q_pending_drop, NULL, 1, args + 1) == 0) {
        acct_resp_ok(resp, req->pool, NULL);
    }
}
