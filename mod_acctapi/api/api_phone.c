/*
 * Phone verification of the acting user: /profile/phone-number (send a
 * code, delete the verified number) and /profile/phone-number/verify.
 *
 * One verification is pending per user (acct_phone.h).  Its code is
 * never stored: it is derived from (user, number, issue time) under the
 * secret key (acct_phone.h), so a send before expiry recomputes and resends
 * the same code, and only the code's HMAC is kept to check attempts.  Wrong
 * attempts are counted on the pending row; past ACCT_PHONE_MAX_ATTEMPTS the
 * code is locked until it expires (a resend before then is the same code),
 * answered 429 with Retry-After.
 */
#include "api_handlers.h"
#include "acct_body.h"
#include "acct_crypto.h"
#include "acct_log.h"
#include "acct_phone.h"
#include "acct_sms.h"

#include <apr_strings.h>

/* Longest phone_number accepted as typed, separators included. */
#define PHONE_TEXT_MAX 40

#define R_NO_PENDING "No verification code is pending; request one first"
#define R_EXPIRED "The verification code has expired; request a new one"
#define R_WRONG "Invalid verification code"
#define R_HAS_NUMBER "A verified phone number is already set; delete it " \
                     "before adding another"

/* ---- helpers ------------------------------------------------------------ */

/* The request's store, or NULL after answering its error. */
static acct_store *phone_store(acct_req *req, acct_resp *resp)
{
    acct_store *st = NULL;

    if (acct_resp_store_failed(req, resp, acct_req_store(req, &st)) != 0) {
        return NULL;
    }
    return st;
}

/* The secret key the codes derive from; without it 503, as for two-factor. */
static const unsigned char *phone_key(acct_req *req, acct_resp *resp)
{
    const unsigned char *key = req->settings ? req->settings->seal_key : NULL;

    if (!key) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00042) "phone verification needs a secret key: "
                 "AcctapiSecretKeyFile is not set");
        acct_resp_error(resp, req->pool, ACCT_HTTP_SERVICE_UNAVAILABLE, ACCT_R_UNAVAILABLE, NULL);
    }
    return key;
}

/* An HMAC failed (OpenSSL out of memory): nothing the client can fix. */
static void phone_crypto_failed(acct_req *req, acct_resp *resp)
{
    acct_log(ACCT_LOG_ERR, ACCTLOGNO(00043) "phone verification: HMAC-SHA-256 failed");
    acct_resp_error(resp, req->pool, ACCT_HTTP_INTERNAL_SERVER_ERROR, ACCT_R_INTERNAL, NULL);
}

/* ---- POST /profile/phone-number ------------------------------------------ */

/*
 * Validates iso_code and phone_number (every bad field reported) and
 * returns the number in E.164 form, or NULL.
 */
static const char *send_number(acct_req *req, acct_problems *pb,
                               const acct_country **country)
{
    const char *iso = NULL, *text = NULL, *digits = NULL, *e164 = NULL;
    acct_phone_rc prc = ACCT_PHONE_OK;
    acct_field_rc rc;
    int international = 0;

    *country = NULL;
    rc = acct_field_string(req, pb, "iso_code", 1, PHONE_TEXT_MAX, 0, &iso);
    acct_field_require(req, pb, "iso_code", rc);
    if (rc == ACCT_FIELD_SET && !(*country = acct_phone_country(iso))) {
        acct_problem_add(pb, "iso_code",
                         "iso_code must be an assigned two-letter ISO 3166 "
                         "country code");
    }
    rc = acct_field_string(req, pb, "phone_number", 1, PHONE_TEXT_MAX, 0,
                           &text);
    acct_field_require(req, pb, "phone_number", rc);
    if (rc != ACCT_FIELD_SET) {
        return NULL;
    }
    prc = acct_phone_parse(req->pool, text, &digits, &international);
    if (prc == ACCT_PHONE_OK && *country) {
        prc = acct_phone_e164(req->pool, *country, digits, international,
                              &e164);
    }
    if (prc != ACCT_PHONE_OK) {
        acct_problem_add(pb, "phone_number",
                         acct_phone_reason(prc));
        return NULL;
    }
    return e164;
}

/* Changing a verified number takes a delete first (the contract). */
static int has_verified_number(acct_req *req, acct_resp *resp,
                               acct_store *st)
{
    const char *number = NULL;

    if (acct_resp_store_failed(req, resp,
                               acct_phone_verified_get(st, req->pool,
                                                       req->who->user_id,
                                                       &number)) != 0) {
        return -1;
    }
    if (number) {
        acct_resp_invalid(resp, req->pool, "phone_number", R_HAS_NUMBER);
        return 1;
    }
    return 0;
}

static int pending_issue(acct_req *req, acct_resp *resp, acct_store *st,
                         const acct_country *country, const char *e164,
                         const char *code_hash, int force)
{
    return acct_resp_store_failed(req, resp,
                                  acct_phone_pending_issue(st, req->pool,
                                                           req->who->user_id,
                                                           country->iso, e164,
                                                           code_hash, req->now,
                                                           force));
}

/*
 * Issues the code for `e164`, or finds the live one, and returns it.  The
 * stored hash not matching the code derived from the stored issue time
 * means the key has changed since: that code could never be verified, so a
 * new one replaces it.
 */
static const char *issue_code(acct_req *req, acct_resp *resp,
                              acct_store *st, const unsigned char *key,
                              const acct_country *country, const char *e164)
{
    apr_int64_t uid = req->who->user_id;
    const char *fresh, *fresh_hash, *code, *hash;
    acct_phone_pending p;

    fresh = acct_phone_code(req->pool, key, ACCT_SEAL_KEY_LEN, uid, e164,
                            req->now);
    fresh_hash = fresh ? acct_phone_code_hash(req->pool, key, ACCT_SEAL_KEY_LEN,
                                              uid, e164, fresh) : NULL;
    if (!fresh_hash) {
        phone_crypto_failed(req, resp);
        return NULL;
    }
    if (pending_issue(req, resp, st, country, e164, fresh_hash, 0) != 0
        || acct_resp_store_failed(req, resp,
                                  acct_phone_pending_get(st, req->pool, uid,
                                                         &p)) != 0) {
        return NULL;
    }
    if (!p.found || !p.issued_ok) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00044) "phone verification of user %" APR_INT64_T_FMT
                 ": the pending row is missing after its upsert", uid);
        acct_resp_error(resp, req->pool, ACCT_HTTP_INTERNAL_SERVER_ERROR, ACCT_R_INTERNAL, NULL);
        return NULL;
    }
    code = acct_phone_code(req->pool, key, ACCT_SEAL_KEY_LEN, uid, e164,
                           p.issued);
    hash = code ? acct_phone_code_hash(req->pool, key, ACCT_SEAL_KEY_LEN, uid,
                                       e164, code) : NULL;
    if (!hash) {
        phone_crypto_failed(req, resp);
        return NULL;
    }
    if (p.code_hash && acct_secure_equal(hash, p.code_hash)) {
        return code;
    }
    if (pending_issue(req, resp, st, country, e164, fresh_hash, 1) != 0) {
        return NULL;
    }
    return fresh;
}

void api_phone_send(acct_req *req, acct_resp *resp)
{
    static const char *const settable[] = {"iso_code", "phone_number", NULL};
    const acct_country *country;
    const unsigned char *key;
    const char *e164, *code;
    acct_problems *pb = acct_problems_make(req->pool);
    acct_store *st;
    acct_sms_rc src;

    acct_fields_settable(req, pb, settable, NULL);
    e164 = send_number(req, pb, &country);
    if (acct_problems_any(pb)) {
        acct_resp_problems(resp, req->pool, pb);
        return;
    }
    if (!(key = phone_key(req, resp))
        || !(st = phone_store(req, resp))
        || has_verified_number(req, resp, st) != 0
        || !(code = issue_code(req, resp, st, key, country, e164))
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
        acct_resp_error(resp, req->pool, ACCT_HTTP_SERVICE_UNAVAILABLE, ACCT_R_UNAVAILABLE, NULL);
        return;
    }
    acct_resp_ok(resp, req->pool, NULL);
}

/* ---- POST /profile/phone-number/verify ----------------------------------- */

/* Loads the pending verification; answers 400 itself when there is none. */
static int pending_load(acct_req *req, acct_resp *resp, acct_store *st,
                        acct_phone_pending *p)
{
    if (acct_resp_store_failed(req, resp,
                               acct_phone_pending_get(st, req->pool,
                                                      req->who->user_id, p))
        != 0) {
        return -1;
    }
    if (!p->found) {
        acct_resp_error(resp, req->pool, ACCT_HTTP_BAD_REQUEST, R_NO_PENDING, NULL);
        return -1;
    }
    if (!p->complete) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00045) "phone verification of user %" APR_INT64_T_FMT
                 ": malformed pending row", req->who->user_id);
        acct_resp_error(resp, req->pool, ACCT_HTTP_INTERNAL_SERVER_ERROR, ACCT_R_INTERNAL, NULL);
        return -1;
    }
    return 0;
}

/* 429 until the locked code expires; a send after that issues a new one. */
static void pending_locked(acct_req *req, acct_resp *resp,
                           const acct_phone_pending *p)
{
    apr_int64_t wait = p->expires - req->now;

    acct_resp_error(resp, req->pool, ACCT_HTTP_TOO_MANY_REQUESTS, ACCT_R_RATE, NULL);
    apr_table_setn(resp->headers, "Retry-After",
                   acct_i64(req->pool, wait > 0 ? wait : 1));
}

/* Counts a wrong code, durably, and answers it. */
static void pending_miss(acct_req *req, acct_resp *resp, acct_store *st,
                         const acct_phone_pending *p)
{
    int counted = 0;

    if (acct_resp_store_failed(req, resp,
                               acct_phone_pending_miss(st, req->pool,
                                                       req->who->user_id, p,
                                                       &counted)) != 0) {
        return;
    }
    if (!counted) {
        /* Parallel wrong attempts used the last ones up. */
        pending_locked(req, resp, p);
        return;
    }
    if (acct_resp_store_failed(req, resp, acct_req_checkpoint(req)) == 0) {
        acct_resp_invalid(resp, req->pool, "otp_code", R_WRONG);
    }
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
    static const char *const settable[] = {"otp_code", NULL};
    const char *otp = NULL, *hash;
    const unsigned char *key;
    acct_phone_pending p;
    acct_store *st;
    acct_problems *pb = acct_problems_make(req->pool);
    acct_field_rc rc;
    int verified = 0;

    acct_fields_settable(req, pb, settable, NULL);
    rc = acct_field_string(req, pb, "otp_code", 1, PHONE_TEXT_MAX, 0, &otp);
    acct_field_require(req, pb, "otp_code", rc);
    if (rc == ACCT_FIELD_SET && !six_digits(otp)) {
        acct_problem_add(pb, "otp_code", "otp_code must be 6 digits");
    }
    if (acct_problems_any(pb)) {
        acct_resp_problems(resp, req->pool, pb);
        return;
    }
    if (!(key = phone_key(req, resp))
        || !(st = phone_store(req, resp))
        || pending_load(req, resp, st, &p) != 0) {
        return;
    }
    if (p.expires <= req->now) {
        acct_resp_error(resp, req->pool, ACCT_HTTP_BAD_REQUEST, R_EXPIRED, NULL);
        return;
    }
    if (p.attempts >= ACCT_PHONE_MAX_ATTEMPTS) {
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
        pending_miss(req, resp, st, &p);
        return;
    }
    if (acct_resp_store_failed(req, resp,
                               acct_phone_verify(st, req->pool,
                                                 req->who->user_id, &p,
                                                 req->now, &verified)) != 0) {
        return;
    }
    if (!verified) {
        /* A parallel verification used the code first. */
        acct_resp_error(resp, req->pool, ACCT_HTTP_BAD_REQUEST, R_NO_PENDING, NULL);
        return;
    }
    acct_resp_ok(resp, req->pool, NULL);
}

/* ---- DELETE /profile/phone-number ---------------------------------------- */

/* Opts out: no verified number and no pending code; {} even if none was set. */
void api_phone_delete(acct_req *req, acct_resp *resp)
{
    acct_store *st = phone_store(req, resp);

    if (st && acct_resp_store_failed(req, resp,
                                     acct_phone_number_delete(
                                         st, req->pool, req->who->user_id))
              == 0) {
        acct_resp_ok(resp, req->pool, NULL);
    }
}
