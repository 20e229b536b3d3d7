/*
 * Two-factor authentication of the acting user: /profile/tfa-*.
 *
 * tfa-enable issues a fresh TOTP secret, pending until tfa-enable-confirm
 * proves (with a current code) that the user's authenticator has it; then
 * users.two_factor_auth is on and a one-use scratch code is shown once.
 * The secret is stored sealed (acct_seal) bound to its user, the scratch
 * code only as an HMAC under the same key.
 *
 * Every decision that must hold across processes and nodes lives in one
 * conditional UPDATE of the user's tfa_secrets row: a time step is accepted
 * once (last_step), and wrong codes are limited per user (failed_attempts
 * within failed_window).
 */
#include "api_handlers.h"
#include "acct_body.h"
#include "acct_crypto.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "acct_log.h"
#include "acct_seal.h"
#include "acct_totp.h"

#include <apr_strings.h>
#include <string.h>

#define SECRET_BYTES 20          /* RFC 4226's recommended 160 bits: 32 base32 characters */
#define SCRATCH_BYTES 10         /* 16 base32 characters */
#define ANSWERS_REQUIRED 3       /* security questions, see api_security.c */
#define PENDING_LIFETIME 600     /* seconds to confirm a new secret */
#define MAX_FAILURES 5           /* wrong codes per user ... */
#define FAILURE_WINDOW 300       /* ... within this many seconds */

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
 * Enable, confirm and disable each take the user's row first (enable and
 * confirm with acct_user_lock, disable by updating it), and enable and
 * confirm read the state they check afterwards, in statements of their own:
 * that state is then still the state when they write, and they take their
 * rows in one order.  Otherwise an enable that saw two-factor off could
 * reset a secret a concurrent confirm had just turned on; a confirm could
 * act on a secret a concurrent disable had deleted or an enable replaced
 * (a statement that locks the user's row and reads the secret at once sees
 * the secret as it was when the statement started); and a confirm (secret
 * row, then user row) and a disable (user row, then secret row) could
 * deadlock.  SQLite writers are serial.
 */
#define ENABLE_STATE \
    "SELECT two_factor_auth," \
    " (SELECT COUNT(*) FROM security_answers a WHERE a.user_id = u.id)" \
    " AS answered" \
    " FROM users u WHERE u.id = CAST(%s AS BIGINT)"

static const acct_sql q_enable_state = ACCT_SQL("tfa_enable_state",
    ENABLE_STATE);

/* A new secret replaces a pending one; the wrong-code count stays. */
static const acct_sql q_pending_put = ACCT_SQL("tfa_pending_put",
    "INSERT INTO tfa_secrets (user_id, secret_sealed, expiry)"
    " VALUES (CAST(%s AS BIGINT), %s, CAST(%s AS BIGINT))"
    " ON CONFLICT (user_id) DO UPDATE SET"
    " secret_sealed = excluded.secret_sealed, expiry = excluded.expiry,"
    " confirmed = 0, last_step = 0, scratch_hash = NULL");

#define SECRET_STATE \
    "SELECT u.two_factor_auth, t.secret_sealed, t.expiry, t.confirmed," \
    " t.last_step, t.failed_window" \
    " FROM users u LEFT JOIN tfa_secrets t ON t.user_id = u.id" \
    " WHERE u.id = CAST(%s AS BIGINT)"

static const acct_sql q_secret = ACCT_SQL("tfa_secret", SECRET_STATE);

/*
 * Takes one attempt from the user's allowance, or none when it is used up
 * (no row changed).  A window older than FAILURE_WINDOW starts afresh.
 * Arguments: window start limit (now - FAILURE_WINDOW) twice, now, user,
 * the limit again, MAX_FAILURES.
 */
static const acct_sql q_attempt = ACCT_SQL("tfa_attempt",
    "UPDATE tfa_secrets SET"
    " failed_attempts = CASE WHEN failed_window <= CAST(%s AS BIGINT)"
    " THEN 1 ELSE failed_attempts + 1 END,"
    " failed_window = CASE WHEN failed_window <= CAST(%s AS BIGINT)"
    " THEN CAST(%s AS BIGINT) ELSE failed_window END"
    " WHERE user_id = CAST(%s AS BIGINT)"
    " AND (failed_window <= CAST(%s AS BIGINT)"
    " OR failed_attempts < CAST(%s AS INTEGER))");

/* The race-safe acceptance: of two uses of one step, one changes the row. */
static const acct_sql q_confirm = ACCT_SQL("tfa_confirm",
    "UPDATE tfa_secrets SET confirmed = 1, last_step = CAST(%s AS BIGINT),"
    " scratch_hash = %s, failed_attempts = 0, failed_window = 0"
    " WHERE user_id = CAST(%s AS BIGINT) AND confirmed = 0"
    " AND last_step < CAST(%s AS BIGINT)");

static const acct_sql q_user_tfa = ACCT_SQL("tfa_user_flag",
    "UPDATE users SET two_factor_auth = CAST(%s AS INTEGER)"
    " WHERE id = CAST(%s AS BIGINT)");

static const acct_sql q_secret_delete = ACCT_SQL("tfa_secret_delete",
    "DELETE FROM tfa_secrets WHERE user_id = CAST(%s AS BIGINT)");

/* What binds a sealed secret to its user's row. */
static const char *secret_context(acct_req *req)
{
    return apr_psprintf(req->pool, "tfa:%" APR_INT64_T_FMT, req->who->user_id);
}

/* Locks the acting user's row, then runs one SELECT about them; answers
 * the error itself. */
static acct_rows *select_self(acct_req *req, acct_resp *resp,
                              const acct_sql *sql)
{
    const char *args[1];
    acct_rows *rows = NULL;
    acct_store *st = NULL;
    acct_store_rc rc;

    rc = acct_req_store(req, &st);
    if (rc == ACCT_STORE_OK) {
        rc = acct_user_lock(st, req->pool, req->who->user_id);
    }
    if (rc == ACCT_STORE_OK) {
        args[0] = acct_i64(req->pool, req->who->user_id);
        rc = acct_store_select(st, req->pool, sql, &rows, 1, args);
    }
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return NULL;
    }
    if (rows->nrows == 0) {
        /* The token's user vanished since authentication. */
        acct_resp_error(resp, req->pool, 401, ACCT_R_INVALID_TOKEN, NULL);
        return NULL;
    }
    return rows;
}

/* Sets users.two_factor_auth; 0 on success, else the error is answered. */
static int set_user_flag(acct_req *req, acct_resp *resp, int on)
{
    const char *args[2];
    acct_store_rc rc;

    args[0] = on ? "1" : "0";
    args[1] = acct_i64(req->pool, req->who->user_id);
    rc = acct_store_exec(req->store, req->pool, &q_user_tfa, NULL, 2, args);
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return -1;
    }
    return 0;
}

static int flag_on(const char *column)
{
    return column && strcmp(column, "0") != 0 && strcmp(column, "f") != 0;
}

/* Random bytes as base32, or NULL after answering 500. */
static const char *random_base32(acct_req *req, acct_resp *resp, size_t n)
{
    unsigned char raw[SECRET_BYTES];
    const char *text;

    if (n > sizeof(raw) || acct_random_bytes(raw, n) != 0) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00050) "the random generator failed");
        acct_resp_error(resp, req->pool, 500, ACCT_R_INTERNAL, NULL);
        return NULL;
    }
    text = acct_base32_encode(req->pool, raw, n);
    memset(raw, 0, sizeof(raw));
    return text;
}

void api_tfa_enable(acct_req *req, acct_resp *resp)
{
    const unsigned char *key = acct_seal_key(req, resp);
    const char *secret, *sealed, *args[3];
    apr_int64_t answered = 0;
    acct_rows *rows;
    acct_store_rc rc;
    json_t *o;

    if (!key || !(rows = select_self(req, resp, &q_enable_state))) {
        return;
    }
    if (flag_on(acct_rows_get(rows, 0, "two_factor_auth"))) {
        acct_resp_error(resp, req->pool, 400, R_ENABLED, NULL);
    }
    if (acct_parse_i64(acct_rows_get(rows, 0, "answered"), &answered) != 0
        || answered < ANSWERS_REQUIRED) {
        acct_resp_error(resp, req->pool, 400, R_QUESTIONS, NULL);
    }
    if (acct_resp_failed(resp) || !(secret = random_base32(req, resp,
                                                           SECRET_BYTES))) {
        return;
    }
    sealed = acct_seal(req->pool, key, secret_context(req), secret);
    if (!sealed) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00051) "cannot seal a two-factor secret");
        acct_resp_error(resp, req->pool, 500, ACCT_R_INTERNAL, NULL);
        return;
    }
    args[0] = acct_i64(req->pool, req->who->user_id);
    args[1] = sealed;
    args[2] = acct_i64(req->pool, req->now + PENDING_LIFETIME);
    rc = acct_store_exec(req->store, req->pool, &q_pending_put, NULL, 3, args);
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return;
    }
    o = json_object();
    json_object_set_new(o, "secret", acct_json_str(secret));
    json_object_set_new(o, "expiry", acct_json_time(req->pool, args[2]));
    acct_resp_ok(resp, req->pool, o);
}

/* tfa_code: ACCT_TOTP_DIGITS digits, or NULL after adding the error item. */
static const char *read_code(acct_req *req, acct_resp *resp)
{
    static const char *const allowed[] = {"tfa_code", NULL};
    const char *code = NULL;
    acct_field_rc frc;

    acct_body_only(req, resp, allowed);
    frc = acct_body_string(req, resp, "tfa_code", 1, 64, 0, &code);
    acct_body_require(req, resp, "tfa_code", frc);
    if (frc != ACCT_FIELD_SET) {
        return NULL;
    }
    if (strlen(code) != ACCT_TOTP_DIGITS
        || strspn(code, "0123456789") != ACCT_TOTP_DIGITS) {
        acct_resp_invalid(resp, req->pool, "tfa_code",
                          "tfa_code must be the 6-digit code of your "
                          "authenticator");
        return NULL;
    }
    return acct_resp_failed(resp) ? NULL : code;
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
    acct_resp_error(resp, req->pool, 400, reason, "tfa_code");
}

/* Takes one attempt; 0 when allowed, else 429 (or a store error) answered. */
static int take_attempt(acct_req *req, acct_resp *resp, const acct_rows *row)
{
    const char *args[6];
    apr_int64_t window = 0, wait;
    acct_store_rc rc;
    int changed = 0;

    args[0] = args[1] = args[4] = acct_i64(req->pool,
                                           req->now - FAILURE_WINDOW);
    args[2] = acct_i64(req->pool, req->now);
    args[3] = acct_i64(req->pool, req->who->user_id);
    args[5] = acct_i64(req->pool, MAX_FAILURES);
    rc = acct_store_exec(req->store, req->pool, &q_attempt, &changed, 6, args);
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return -1;
    }
    if (changed) {
        return 0;
    }
    acct_parse_i64(acct_rows_get(row, 0, "failed_window"), &window);
    wait = window + FAILURE_WINDOW - req->now;
    apr_table_setn(resp->headers, "Retry-After",
                   acct_i64(req->pool, wait > 0 ? wait : 1));
    acct_resp_error(resp, req->pool, 429, ACCT_R_RATE, NULL);
    return -1;
}

/*
 * The user's pending secret, decoded, or NULL after answering why there is
 * none to confirm.
 */
static const acct_rows *load_pending(acct_req *req, acct_resp *resp)
{
    const acct_rows *row = select_self(req, resp, &q_secret);
    apr_int64_t expiry = 0;

    if (!row) {
        return NULL;
    }
    if (flag_on(acct_rows_get(row, 0, "two_factor_auth"))) {
        acct_resp_error(resp, req->pool, 400, R_ENABLED, NULL);
        return NULL;
    }
    if (!acct_rows_get(row, 0, "secret_sealed")
        || flag_on(acct_rows_get(row, 0, "confirmed"))) {
        acct_resp_error(resp, req->pool, 400, R_NOT_PENDING, NULL);
        return NULL;
    }
    if (acct_parse_i64(acct_rows_get(row, 0, "expiry"), &expiry) != 0
        || expiry <= req->now) {
        acct_resp_error(resp, req->pool, 400, R_EXPIRED, NULL);
        return NULL;
    }
    return row;
}

/* Opens and decodes the row's secret; 0, or -1 after answering 500. */
static int open_secret(acct_req *req, acct_resp *resp, const unsigned char *key,
                       const acct_rows *row, unsigned char **secret,
                       size_t *len)
{
    const char *text = acct_unseal(req->pool, key, secret_context(req),
                                   acct_rows_get(row, 0, "secret_sealed"));

    if (!text || acct_base32_decode(req->pool, text, secret, len) != 0) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00052) "the two-factor secret of user %" APR_INT64_T_FMT
                 " does not open with the configured AcctapiSecretKeyFile",
                 req->who->user_id);
        acct_resp_error(resp, req->pool, 500, ACCT_R_INTERNAL, NULL);
        return -1;
    }
    return 0;
}

/* Marks the step used and two-factor on; answers the scratch code. */
static void accept_code(acct_req *req, acct_resp *resp,
                        const unsigned char *key, apr_int64_t step)
{
    const char *scratch = random_base32(req, resp, SCRATCH_BYTES), *args[4];
    acct_store_rc rc;
    int changed = 0;
    json_t *o;

    if (!scratch) {
        return;
    }
    args[0] = args[3] = acct_i64(req->pool, step);
    args[1] = acct_hmac_sha256_hex(req->pool, key, ACCT_SEAL_KEY_LEN, scratch);
    args[2] = acct_i64(req->pool, req->who->user_id);
    rc = acct_store_exec(req->store, req->pool, &q_confirm, &changed, 4, args);
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return;
    }
    if (!changed) {
        /* A concurrent request accepted this step first. */
        refuse_code(req, resp, R_REPLAY);
        return;
    }
    if (set_user_flag(req, resp, 1) != 0) {
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
    const acct_rows *row;
    unsigned char *secret = NULL;
    apr_int64_t last_step = 0, step = 0;
    size_t len = 0;
    acct_totp_rc verdict;

    if (!code || !(key = acct_seal_key(req, resp))
        || !(row = load_pending(req, resp))
        || take_attempt(req, resp, row) != 0
        || open_secret(req, resp, key, row, &secret, &len) != 0) {
        return;
    }
    acct_parse_i64(acct_rows_get(row, 0, "last_step"), &last_step);
    verdict = acct_totp_verify(secret, len, code, req->now, last_step, &step);
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
    const char *args[1];
    acct_store *st = NULL;
    acct_store_rc rc;

    rc = acct_req_store(req, &st);
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return;
    }
    if (set_user_flag(req, resp, 0) != 0) {
        return;
    }
    args[0] = acct_i64(req->pool, req->who->user_id);
    rc = acct_store_exec(st, req->pool, &q_secret_delete, NULL, 1, args);
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return;
    }
    acct_resp_ok(resp, req->pool, NULL);
}
