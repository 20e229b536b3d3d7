/*
 * Two-factor authentication of the acting user: /profile/tfa-*.
 *
 * tfa-enable issues a fresh TOTP secret, pending until tfa-enable-confirm
 * proves (with a current code) that the user's authenticator has it; then
 * users.two_factor_auth is on and a one-use scratch code is shown once.
 * The secret is stored sealed (acct_seal) bound to its user, the scratch
 * code only as an HMAC under the same key.
 *
 * The state, its statements and their locking order: acct_tfa.h.
 */
#include "api_handlers.h"
#include "acct_body.h"
#include "acct_crypto.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "acct_log.h"
#include "acct_seal.h"
#include "acct_security.h"
#include "acct_tfa.h"
#include "acct_totp.h"

#include <apr_strings.h>
#include <string.h>

#define SECRET_BYTES 20          /* RFC 4226's recommended 160 bits: 32 base32 characters */
#define SCRATCH_BYTES 10         /* 16 base32 characters */

#define R_QUESTIONS "You must answer your security questions before enabling " \
                    "two-factor authentication."
#define R_ENABLED "Two-factor authentication is already enabled."
#define R_NOT_PENDING "No two-factor secret is waiting for confirmation; " \
                      "request one with POST /profile/tfa-enable first."
#define R_EXPIRED "Your two-factor secret has expired; start again with " \
                  "POST /profile/tfa-enable."
#define R_WRONG "Invalid two-factor code."
#define R_REPLAY "This two-factor code has already been used; wait for the " \
                 "next one."

/*
 * The acting user's state, read by `read` after it locks their row;
 * answers the error itself (0, or -1).
 */
static int state_self(acct_req *req, acct_resp *resp,
                      acct_store_rc (*read)(acct_store *, apr_pool_t *,
                                            apr_int64_t, acct_tfa_state *),
                      acct_tfa_state *state)
{
    acct_store *st = NULL;
    acct_store_rc rc;

    rc = acct_req_store(req, &st);
    if (rc == ACCT_STORE_OK) {
        rc = read(st, req->pool, req->who->user_id, state);
    }
    if (acct_resp_store_failed(req, resp, rc) != 0) {
        return -1;
    }
    if (!state->found) {
        /* The token's user vanished since authentication. */
        acct_resp_error(resp, req->pool, ACCT_HTTP_UNAUTHORIZED, ACCT_R_INVALID_TOKEN, NULL);
        return -1;
    }
    return 0;
}

/* Random bytes as base32, or NULL after answering 500. */
static const char *random_base32(acct_req *req, acct_resp *resp, size_t n)
{
    unsigned char raw[SECRET_BYTES];
    const char *text;

    if (n > sizeof(raw) || acct_random_bytes(raw, n) != 0) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00050) "the random generator failed");
        acct_resp_error(resp, req->pool, ACCT_HTTP_INTERNAL_SERVER_ERROR, ACCT_R_INTERNAL, NULL);
        return NULL;
    }
    text = acct_base32_encode(req->pool, raw, n);
    memset(raw, 0, sizeof(raw));
    return text;
}

void api_tfa_enable(acct_req *req, acct_resp *resp)
{
    const unsigned char *key = acct_seal_key(req, resp);
    const char *secret, *sealed;
    apr_int64_t expiry = req->now + ACCT_TFA_PENDING_LIFETIME;
    acct_problems *pb = acct_problems_make(req->pool);
    acct_tfa_state state;
    json_t *o;

    if (!key || state_self(req, resp, acct_tfa_enable_state, &state) != 0) {
        return;
    }
    if (state.enabled) {
        acct_problem_add(pb, NULL, R_ENABLED);
    }
    if (state.answered < ACCT_SECURITY_ANSWERS_REQUIRED) {
        acct_problem_add(pb, NULL, R_QUESTIONS);
    }
    if (acct_problems_any(pb)) {
        acct_resp_problems(resp, req->pool, pb);
        return;
    }
    if (!(secret = random_base32(req, resp, SECRET_BYTES))) {
        return;
    }
    sealed = acct_seal(req->pool, key,
                       acct_tfa_secret_context(req->pool, req->who->user_id),
                       secret);
    if (!sealed) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00051) "cannot seal a two-factor secret");
        acct_resp_error(resp, req->pool, ACCT_HTTP_INTERNAL_SERVER_ERROR, ACCT_R_INTERNAL, NULL);
        return;
    }
    if (acct_resp_store_failed(req, resp,
                               acct_tfa_secret_issue(req->store, req->pool,
                                                     req->who->user_id, sealed,
                                                     expiry)) != 0) {
        return;
    }
    o = json_object();
    json_object_set_new(o, "secret", acct_json_str(secret));
    json_object_set_new(o, "expiry",
                        acct_json_time(req->pool, acct_i64(req->pool, expiry)));
    acct_resp_ok(resp, req->pool, o);
}

/* tfa_code: ACCT_TOTP_DIGITS digits, or NULL after adding a problem. */
static const char *code_of(acct_req *req, acct_problems *pb)
{
    static const char *const settable[] = {"tfa_code", NULL};
    const char *code = NULL;
    acct_field_rc frc;

    acct_fields_settable(req, pb, settable, NULL);
    frc = acct_field_string(req, pb, "tfa_code", 1, 64, 0, &code);
    acct_field_require(req, pb, "tfa_code", frc);
    if (frc != ACCT_FIELD_SET) {
        return NULL;
    }
    if (strlen(code) != ACCT_TOTP_DIGITS
        || strspn(code, "0123456789") != ACCT_TOTP_DIGITS) {
        acct_problem_add(pb, "tfa_code",
                         "tfa_code must be the 6-digit code of your "
                         "authenticator");
        return NULL;
    }
    return code;
}

/* The body's tfa_code, or NULL once its problems are answered. */
static const char *read_code(acct_req *req, acct_resp *resp)
{
    acct_problems *pb = acct_problems_make(req->pool);
    const char *code = code_of(req, pb);

    if (acct_problems_any(pb)) {
        acct_resp_problems(resp, req->pool, pb);
        return NULL;
    }
    return code;
}

/*
 * A wrong code must count although the answer is an error, on which the
 * glue rolls the request's transaction back: commit the attempt now.
 * Outside a transaction every statement is durable already.
 */
static void refuse_code(acct_req *req, acct_resp *resp, const char *reason)
{
    /* The failed attempt must be counted even though the answer is a 400. */
    acct_store_rc rc = acct_req_checkpoint(req);

    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return;
    }
    acct_resp_error(resp, req->pool, ACCT_HTTP_BAD_REQUEST, reason, "tfa_code");
}

/* Takes one attempt; 0 when allowed, else 429 (or a store error) answered. */
static int take_attempt(acct_req *req, acct_resp *resp,
                        const acct_tfa_state *state)
{
    apr_int64_t wait;
    int taken = 0;

    if (acct_resp_store_failed(req, resp,
                               acct_tfa_attempt_take(req->store, req->pool,
                                                     req->who->user_id,
                                                     req->now, &taken)) != 0) {
        return -1;
    }
    if (taken) {
        return 0;
    }
    wait = state->failed_window + ACCT_TFA_FAILURE_WINDOW - req->now;
    apr_table_setn(resp->headers, "Retry-After",
                   acct_i64(req->pool, wait > 0 ? wait : 1));
    acct_resp_error(resp, req->pool, ACCT_HTTP_TOO_MANY_REQUESTS, ACCT_R_RATE, NULL);
    return -1;
}

/* Reads the user's pending secret: 0, or -1 after answering why there is
 * none to confirm. */
static int load_pending(acct_req *req, acct_resp *resp, acct_tfa_state *state)
{
    const char *why = NULL;

    if (state_self(req, resp, acct_tfa_secret_state, state) != 0) {
        return -1;
    }
    if (state->enabled) {
        why = R_ENABLED;
    }
    else if (!state->secret_sealed || state->confirmed) {
        why = R_NOT_PENDING;
    }
    else if (state->expiry <= req->now) {
        why = R_EXPIRED;
    }
    if (why) {
        acct_resp_error(resp, req->pool, ACCT_HTTP_BAD_REQUEST, why, NULL);
        return -1;
    }
    return 0;
}

/* Opens and decodes the row's secret; 0, or -1 after answering 500. */
static int open_secret(acct_req *req, acct_resp *resp, const unsigned char *key,
                       const acct_tfa_state *state, unsigned char **secret,
                       size_t *len)
{
    const char *text = acct_unseal(req->pool, key,
                                   acct_tfa_secret_context(req->pool,
                                                           req->who->user_id),
                                   state->secret_sealed);

    if (!text || acct_base32_decode(req->pool, text, secret, len) != 0) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00052) "the two-factor secret of user %" APR_INT64_T_FMT
                 " does not open with the configured AcctapiSecretKeyFile",
                 req->who->user_id);
        acct_resp_error(resp, req->pool, ACCT_HTTP_INTERNAL_SERVER_ERROR, ACCT_R_INTERNAL, NULL);
        return -1;
    }
    return 0;
}

/* Marks the step used and two-factor on; answers the scratch code. */
static void accept_code(acct_req *req, acct_resp *resp,
                        const unsigned char *key, apr_int64_t step)
{
    const char *scratch = random_base32(req, resp, SCRATCH_BYTES);
    int confirmed = 0;
    json_t *o;

    if (!scratch
        || acct_resp_store_failed(req, resp,
                                  acct_tfa_confirm(req->store, req->pool,
                                                   req->who->user_id, step,
                                                   acct_hmac_sha256_hex(
                                                       req->pool, key,
                                                       ACCT_SEAL_KEY_LEN,
                                                       scratch),
                                                   req->now, &confirmed)) != 0) {
        return;
    }
    if (!confirmed) {
        /* A concurrent request accepted this step first. */
        refuse_code(req, resp, R_REPLAY);
        return;
    }
    o = json_object();
    json_object_set_new(o, "scratch", acct_json_str(scratch));
    acct_resp_ok(resp, req->pool, o);
}

void api_tfa_confirm(acct_req *req, acct_resp *resp)
{
    const char *code = read_code(req, resp);
    const unsigned char *key;
    acct_tfa_state state;
    unsigned char *secret = NULL;
    apr_int64_t step = 0;
    size_t len = 0;
    acct_totp_rc verdict;

    if (!code || !(key = acct_seal_key(req, resp))
        || load_pending(req, resp, &state) != 0
        || take_attempt(req, resp, &state) != 0
        || open_secret(req, resp, key, &state, &secret, &len) != 0) {
        return;
    }
    verdict = acct_totp_verify(secret, len, code, req->now, state.last_step,
                               &step);
    memset(secret, 0, len);
    if (verdict == ACCT_TOTP_OK) {
        accept_code(req, resp, key, step);
    }
    else {
        refuse_code(req, resp, verdict == ACCT_TOTP_REPLAY ? R_REPLAY : R_WRONG);
    }
}

/* Idempotent: also drops a secret still waiting for confirmation. */
void api_tfa_disable(acct_req *req, acct_resp *resp)
{
    acct_store *st = NULL;
    acct_store_rc rc;

    rc = acct_req_store(req, &st);
    if (rc == ACCT_STORE_OK) {
        rc = acct_tfa_disable(st, req->pool, req->who->user_id, req->now);
    }
    if (acct_resp_store_failed(req, resp, rc) == 0) {
        acct_resp_ok(resp, req->pool, NULL);
    }
}
