/* Security: two-factor authentication, its handlers and model, on a migrated
 * SQLite database. */
#include "unit.h"

#include <apr_dbd.h>
#include <apr_strings.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <string.h>

#include "unit_db.h"
#include "acct_crypto.h"
#include "acct_json.h"
#include "acct_log.h"
#include "acct_seal.h"
#include "acct_security.h"
#include "acct_tfa.h"
#include "acct_totp.h"
#include "api_handlers.h"

#include "unit_security.h"

/* ------------------------------------------------------------------------
 * Two-factor authentication
 * ------------------------------------------------------------------------ */

static void test_tfa_needs_questions(void **state)
{
    unit_db *db = *state;
    acct_principal who;
    acct_req *req;

    unit_identity(db, "carl", 0, "*", &who);
    expect_error(keyed_req(db, &who), api_tfa_enable, 400, NULL,
                 "You must answer your security questions");
    /* Two answers are not enough either (rows an operator could leave). */
    answer_questions(db, &who);
    sql_run(db, apr_psprintf(db->pool, "DELETE FROM security_answers WHERE"
                             " user_id = %" APR_INT64_T_FMT " AND question_id"
                             " = 3", who.user_id));
    expect_error(keyed_req(db, &who), api_tfa_enable, 400, NULL,
                 "security questions");
    assert_null(sql_value(db, TFA_ROW, who.user_id, "user_id"));

    /* Nothing pending: nothing to confirm. */
    req = confirm_req(db, &who, "123456", apr_time_sec(apr_time_now()));
    expect_error(req, api_tfa_confirm, 400, NULL, "tfa-enable");
}

static void test_tfa_flow(void **state)
{
    unit_db *db = *state;
    apr_int64_t now = apr_time_sec(apr_time_now());
    acct_principal who;
    const char *secret, *sealed, *scratch, *first;
    acct_req *req;
    json_t *doc;
    char expiry[32];
    int status, i;

    unit_identity(db, "dora", 0, "*", &who);
    answer_questions(db, &who);

    req = keyed_req(db, &who);
    req->now = now;
    doc = call(req, api_tfa_enable, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_object_size(doc), 2);
    secret = apr_pstrdup(db->pool,
                         json_string_value(json_object_get(doc, "secret")));
    assert_int_equal(strlen(secret), 32);
    assert_int_equal(strspn(secret, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"), 32);
    apr_snprintf(expiry, sizeof(expiry), "%s", json_string_value(
                     json_object_get(doc, "expiry")));
    json_decref(doc);
    doc = acct_json_time(db->pool, acct_i64(db->pool, now + 600));
    assert_string_equal(expiry, json_string_value(doc));
    json_decref(doc);

    /* The pending secret is sealed and bound to this user. */
    sealed = sql_value(db, TFA_ROW, who.user_id, "secret_sealed");
    assert_non_null(sealed);
    assert_null(strstr(sealed, secret));
    assert_string_equal(acct_unseal(db->pool, test_key,
                                    apr_psprintf(db->pool, "tfa:%" APR_INT64_T_FMT,
                                                 who.user_id), sealed), secret);
    assert_int_equal(sql_int(db, TFA_ROW, who.user_id, "confirmed"), 0);

    /* Asking again replaces the pending secret. */
    first = secret;
    secret = enable(db, &who, now);
    assert_string_not_equal(first, secret);
    assert_int_equal(sql_int(db, "SELECT COUNT(*) AS n FROM tfa_secrets"
                                 " WHERE user_id = CAST(%s AS BIGINT)",
                             who.user_id, "n"), 1);

    /* Wrong codes, then the right one: the count starts over. */
    for (i = 0; i < 4; i++) {
        expect_error(confirm_req(db, &who, wrong_code(db, secret, now), now),
                     api_tfa_confirm, 400, "tfa_code", "Invalid");
    }
    assert_int_equal(sql_int(db, TFA_ROW, who.user_id, "failed_attempts"), 4);
    doc = call(confirm_req(db, &who, code_at(db, secret, now, 0), now),
               api_tfa_confirm, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_object_size(doc), 1);
    scratch = apr_pstrdup(db->pool,
                          json_string_value(json_object_get(doc, "scratch")));
    json_decref(doc);
    assert_int_equal(strlen(scratch), 16);

    assert_int_equal(sql_int(db, USER_ROW, who.user_id, "two_factor_auth"), 1);
    assert_int_equal(sql_int(db, TFA_ROW, who.user_id, "confirmed"), 1);
    assert_int_equal(sql_int(db, TFA_ROW, who.user_id, "failed_attempts"), 0);
    assert_int_equal(sql_int(db, TFA_ROW, who.user_id, "last_step"),
                     acct_totp_step(now));
    /* The scratch code is kept only as its HMAC. */
    assert_string_equal(sql_value(db, TFA_ROW, who.user_id, "scratch_hash"),
                        acct_hmac_sha256_hex(db->pool, test_key,
                                             ACCT_SEAL_KEY_LEN, scratch));

    /* On: the same code again, another code, or a new secret are refused. */
    expect_error(confirm_req(db, &who, code_at(db, secret, now, 0), now),
                 api_tfa_confirm, 400, NULL, "already enabled");
    expect_error(confirm_req(db, &who, code_at(db, secret, now, 1), now),
                 api_tfa_confirm, 400, NULL, "already enabled");
    expect_error(keyed_req(db, &who), api_tfa_enable, 400, NULL,
                 "already enabled");

    /* Off: the secret is gone; disabling again is harmless. */
    doc = call(keyed_req(db, &who), api_tfa_disable, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_object_size(doc), 0);
    json_decref(doc);
    assert_int_equal(sql_int(db, USER_ROW, who.user_id, "two_factor_auth"), 0);
    assert_null(sql_value(db, TFA_ROW, who.user_id, "user_id"));
    expect_status(keyed_req(db, &who), api_tfa_disable, 200);
    expect_error(confirm_req(db, &who, code_at(db, secret, now, 0), now),
                 api_tfa_confirm, 400, NULL, "tfa-enable");
    /* And it can be turned on again. */
    secret = enable(db, &who, now);
    expect_status(confirm_req(db, &who, code_at(db, secret, now, 0), now),
                  api_tfa_confirm, 200);
}

static void test_tfa_code_validation(void **state)
{
    static const struct {
        const char *body;
        const char *field;
    } rows[] = {
        {"{}", "tfa_code"},
        {"{\"tfa_code\":null}", "tfa_code"},
        {"{\"tfa_code\":123456}", "tfa_code"},
        {"{\"tfa_code\":\"\"}", "tfa_code"},
        {"{\"tfa_code\":\"12345\"}", "tfa_code"},
        {"{\"tfa_code\":\"1234567\"}", "tfa_code"},
        {"{\"tfa_code\":\"12345a\"}", "tfa_code"},
        {"{\"tfa_code\":\" 12345\"}", "tfa_code"},
        /* "secret" is not a field of the route: ignored */
        {"{\"tfa_code\":\"12345\",\"secret\":\"x\"}", "tfa_code"},
    };
    unit_db *db = *state;
    acct_principal who;
    acct_req *req;
    size_t i;

    unit_identity(db, "vic", 0, "*", &who);
    answer_questions(db, &who);
    enable(db, &who, apr_time_sec(apr_time_now()));
    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        req = keyed_req(db, &who);
        req->body = body(db, rows[i].body);
        expect_error(req, api_tfa_confirm, 400, rows[i].field, NULL);
    }
    /* Malformed codes are not attempts. */
    assert_int_equal(sql_int(db, TFA_ROW, who.user_id, "failed_attempts"), 0);
}

static void test_tfa_replay(void **state)
{
    unit_db *db = *state;
    apr_int64_t now = apr_time_sec(apr_time_now()), step = acct_totp_step(now);
    acct_principal who;
    const char *secret;

    unit_identity(db, "ella", 0, "*", &who);
    answer_questions(db, &who);
    secret = enable(db, &who, now);
    /* What a concurrent confirmation of this step leaves behind. */
    sql_run(db, apr_psprintf(db->pool, "UPDATE tfa_secrets SET last_step = %"
                             APR_INT64_T_FMT " WHERE user_id = %" APR_INT64_T_FMT,
                             step, who.user_id));
    expect_error(confirm_req(db, &who, code_at(db, secret, now, 0), now),
                 api_tfa_confirm, 400, "tfa_code", "already been used");
    expect_error(confirm_req(db, &who, code_at(db, secret, now, -1), now),
                 api_tfa_confirm, 400, "tfa_code", "already been used");
    assert_int_equal(sql_int(db, USER_ROW, who.user_id, "two_factor_auth"), 0);
    /* The next step is still fresh. */
    expect_status(confirm_req(db, &who, code_at(db, secret, now, 1), now),
                  api_tfa_confirm, 200);
    assert_int_equal(sql_int(db, TFA_ROW, who.user_id, "last_step"), step + 1);
    assert_int_equal(sql_int(db, USER_ROW, who.user_id, "two_factor_auth"), 1);
}

/* Runs confirm expecting 429; returns Retry-After. */
static apr_int64_t expect_throttled(acct_req *req)
{
    apr_int64_t wait = -1;
    acct_resp resp;

    acct_resp_init(&resp, req->pool);
    api_tfa_confirm(req, &resp);
    assert_int_equal(resp.status, 429);
    assert_string_equal(error_reason(acct_resp_document(&resp, req->pool), 0),
                        ACCT_R_RATE);
    assert_non_null(apr_table_get(resp.headers, "Retry-After"));
    assert_int_equal(acct_parse_i64(apr_table_get(resp.headers, "Retry-After"),
                                    &wait), 0);
    return wait;
}

static void test_tfa_throttle(void **state)
{
    unit_db *db = *state;
    apr_int64_t now = apr_time_sec(apr_time_now());
    acct_principal who, tx_user;
    acct_resp tx_resp;
    const char *secret, *bad;
    int i;

    unit_identity(db, "fritz", 0, "*", &who);
    answer_questions(db, &who);
    secret = enable(db, &who, now);
    bad = wrong_code(db, secret, now);
    for (i = 0; i < 5; i++) {
        expect_error(confirm_req(db, &who, bad, now + i), api_tfa_confirm, 400,
                     "tfa_code", "Invalid");
    }
    /* The allowance is used up: even the right code waits. */
    assert_int_equal(expect_throttled(confirm_req(db, &who,
                                                  code_at(db, secret, now, 0),
                                                  now + 10)), 290);
    assert_int_equal(expect_throttled(confirm_req(db, &who, bad, now + 299)), 1);
    assert_int_equal(sql_int(db, TFA_ROW, who.user_id, "failed_attempts"), 5);
    assert_int_equal(sql_int(db, USER_ROW, who.user_id, "two_factor_auth"), 0);
    /* A new window. */
    expect_status(confirm_req(db, &who, code_at(db, secret, now + 300, 0),
                              now + 300), api_tfa_confirm, 200);

    /* A wrong code counts although the request's transaction rolls back,
     * as the glue does on any error answer (acct_resp_commits). */
    unit_identity(db, "gina", 0, "*", &tx_user);
    answer_questions(db, &tx_user);
    secret = enable(db, &tx_user, now);
    assert_int_equal(acct_store_begin(db->store, db->pool), ACCT_STORE_OK);
    acct_resp_init(&tx_resp, db->pool);
    api_tfa_confirm(confirm_req(db, &tx_user, wrong_code(db, secret, now), now),
                    &tx_resp);
    assert_int_equal(tx_resp.status, 400);
    assert_false(acct_resp_commits(&tx_resp));
    assert_int_equal(acct_store_rollback(db->store, db->pool), ACCT_STORE_OK);
    assert_int_equal(sql_int(db, TFA_ROW, tx_user.user_id, "failed_attempts"), 1);
}

static void test_tfa_expiry(void **state)
{
    unit_db *db = *state;
    apr_int64_t now = apr_time_sec(apr_time_now());
    acct_principal who;
    const char *secret;

    unit_identity(db, "hugo", 0, "*", &who);
    answer_questions(db, &who);
    secret = enable(db, &who, now);
    /* Valid until the tenth minute; the code is right, the secret is not. */
    expect_error(confirm_req(db, &who, code_at(db, secret, now + 600, 0),
                             now + 600), api_tfa_confirm, 400, NULL,
                 "start again");
    assert_int_equal(sql_int(db, TFA_ROW, who.user_id, "failed_attempts"), 0);
    /* Starting again works. */
    secret = enable(db, &who, now + 600);
    expect_status(confirm_req(db, &who, code_at(db, secret, now + 1199, 0),
                              now + 1199), api_tfa_confirm, 200);
}

/* The model's two-factor state machine, without the handlers. */
static void test_tfa_model(void **state)
{
    unit_db *db = *state;
    acct_security_answer answers[ACCT_SECURITY_ANSWERS_REQUIRED];
    acct_principal who;
    acct_tfa_state st;
    acct_rows *rows = NULL;
    apr_int64_t now = 1700000000;
    int i, taken = -1, confirmed = -1;

    unit_identity(db, "tess", 0, "*", &who);
    assert_int_equal(acct_tfa_enable_state(db->store, db->pool, who.user_id,
                                           &st), ACCT_STORE_OK);
    assert_true(st.found);
    assert_false(st.enabled);
    assert_int_equal(st.answered, 0);
    for (i = 0; i < ACCT_SECURITY_ANSWERS_REQUIRED; i++) {
        answers[i].question_id = i + 1;
        answers[i].response_sealed = "sealed";
    }
    assert_int_equal(acct_security_answers_replace(
                         db->store, db->pool, who.user_id, answers,
                         ACCT_SECURITY_ANSWERS_REQUIRED), ACCT_STORE_OK);
    /* replacing keeps three, not six */
    assert_int_equal(acct_security_answers_replace(
                         db->store, db->pool, who.user_id, answers,
                         ACCT_SECURITY_ANSWERS_REQUIRED), ACCT_STORE_OK);
    assert_int_equal(acct_security_questions_list(db->store, db->pool,
                                                  who.user_id, &rows),
                     ACCT_STORE_OK);
    assert_string_equal(acct_rows_get(rows, 0, "response_sealed"), "sealed");
    assert_int_equal(acct_tfa_enable_state(db->store, db->pool, who.user_id,
                                           &st), ACCT_STORE_OK);
    assert_int_equal(st.answered, ACCT_SECURITY_ANSWERS_REQUIRED);

    /* no secret yet */
    assert_int_equal(acct_tfa_secret_state(db->store, db->pool, who.user_id,
                                           &st), ACCT_STORE_OK);
    assert_true(st.found);
    assert_null(st.secret_sealed);
    assert_int_equal(acct_tfa_secret_issue(db->store, db->pool, who.user_id,
                                           "s1", now + 600), ACCT_STORE_OK);
    assert_int_equal(acct_tfa_secret_state(db->store, db->pool, who.user_id,
                                           &st), ACCT_STORE_OK);
    assert_string_equal(st.secret_sealed, "s1");
    assert_int_equal(st.expiry, now + 600);
    assert_false(st.confirmed);

    /* the allowance: ACCT_TFA_MAX_FAILURES per window, then none */
    for (i = 0; i < ACCT_TFA_MAX_FAILURES; i++) {
        assert_int_equal(acct_tfa_attempt_take(db->store, db->pool,
                                               who.user_id, now, &taken),
                         ACCT_STORE_OK);
        assert_int_equal(taken, 1);
    }
    assert_int_equal(acct_tfa_attempt_take(db->store, db->pool, who.user_id,
                                           now + 1, &taken), ACCT_STORE_OK);
    assert_int_equal(taken, 0);
    assert_int_equal(acct_tfa_attempt_take(db->store, db->pool, who.user_id,
                                           now + ACCT_TFA_FAILURE_WINDOW,
                                           &taken), ACCT_STORE_OK);
    assert_int_equal(taken, 1);

    /* a step is accepted once, and then the flag is on */
    assert_int_equal(acct_tfa_confirm(db->store, db->pool, who.user_id, 42,
                                      "hash", now, &confirmed), ACCT_STORE_OK);
    assert_int_equal(confirmed, 1);
    assert_int_equal(acct_tfa_confirm(db->store, db->pool, who.user_id, 42,
                                      "hash", now, &confirmed), ACCT_STORE_OK);
    assert_int_equal(confirmed, 0);
    assert_int_equal(acct_tfa_secret_state(db->store, db->pool, who.user_id,
                                           &st), ACCT_STORE_OK);
    assert_true(st.enabled);
    assert_true(st.confirmed);
    assert_int_equal(st.last_step, 42);

    assert_int_equal(acct_tfa_disable(db->store, db->pool, who.user_id, now),
                     ACCT_STORE_OK);
    assert_int_equal(acct_tfa_secret_state(db->store, db->pool, who.user_id,
                                           &st), ACCT_STORE_OK);
    assert_false(st.enabled);
    assert_null(st.secret_sealed);

    /* a user that does not exist */
    assert_int_equal(acct_tfa_enable_state(db->store, db->pool, 999999, &st),
                     ACCT_STORE_OK);
    assert_false(st.found);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_DB_TEST(test_tfa_needs_questions),
        UNIT_DB_TEST(test_tfa_flow),
        UNIT_DB_TEST(test_tfa_code_validation),
        UNIT_DB_TEST(test_tfa_replay),
        UNIT_DB_TEST(test_tfa_throttle),
        UNIT_DB_TEST(test_tfa_expiry),
        UNIT_DB_TEST(test_tfa_model),
    };

    return UNIT_DB_RUN(tests);
}
