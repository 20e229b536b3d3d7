/* Fixtures and helpers shared by the security tests (test_security_*.c):
 * the sealing key, keyed requests, handler calls and their errors, SQL
 * reads, and the steps of the security questions and two-factor flows.
 * Header-only, as unit.h is; include it after unit.h and unit_db.h. */
#ifndef UNIT_SECURITY_H
#define UNIT_SECURITY_H

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

static const unsigned char test_key[ACCT_SEAL_KEY_LEN] = {
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a,
    0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15,
    0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f
};

static const acct_settings keyed = {0, 0, "https://r.example/", test_key, NULL};



/* A request of `who` whose configuration holds the test key. */
static inline acct_req *keyed_req(unit_db *db, const acct_principal *who)
{
    acct_req *req = unit_req(db, who);

    req->settings = &keyed;
    return req;
}

static inline json_t *body(unit_db *db, const char *text)
{
    /* NUL allowed here, so that the handlers' own refusal of it shows. */
    json_t *j = json_loads(text, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, NULL);

    assert_non_null(j);
    return acct_json_own(db->pool, j);
}

/* Runs a handler; the document is the caller's (json_decref). */
static inline json_t *call(acct_req *req, acct_handler *h, int *status)
{
    const char *text = unit_call(req, h, status);
    json_t *doc = json_loads(text, 0, NULL);

    assert_non_null(doc);
    return doc;
}

/* Runs a handler expecting `status`; drops the document. */
static inline void expect_status(acct_req *req, acct_handler *h, int status)
{
    int got;
    json_t *doc = call(req, h, &got);

    if (got != status) {
        fail_msg("expected %d, got %d: %s", status, got,
                 acct_json_dump(req->pool, doc, NULL));
    }
    json_decref(doc);
}

static inline const char *error_field(json_t *doc, size_t i)
{
    return json_string_value(json_object_get(
        json_array_get(json_object_get(doc, "errors"), i), "field"));
}

static inline const char *error_reason(json_t *doc, size_t i)
{
    return json_string_value(json_object_get(
        json_array_get(json_object_get(doc, "errors"), i), "reason"));
}

/* Runs a handler expecting one 400 (or `status`) item with this field. */
static inline void expect_error(acct_req *req, acct_handler *h, int status,
                                const char *field, const char *reason_part)
{
    int got;
    json_t *doc = call(req, h, &got);

    assert_int_equal(got, status);
    assert_int_equal(json_array_size(json_object_get(doc, "errors")), 1);
    if (field) {
        assert_non_null(error_field(doc, 0));
        assert_string_equal(error_field(doc, 0), field);
    }
    else {
        assert_null(error_field(doc, 0));
    }
    if (reason_part && !strstr(error_reason(doc, 0), reason_part)) {
        fail_msg("reason '%s' lacks '%s'", error_reason(doc, 0), reason_part);
    }
    json_decref(doc);
}

/* One column of the first row of `sql` (run-time SQL, one %s argument). */
static inline const char *sql_value(unit_db *db, const char *sql,
                                    apr_int64_t arg, const char *column)
{
    const char *args[1];
    acct_rows *rows = NULL;

    args[0] = acct_i64(db->pool, arg);
    assert_int_equal(acct_store_select_dynamic(db->store, db->pool, sql, &rows,
                                               1, args), ACCT_STORE_OK);
    if (rows->nrows == 0) {
        return NULL;
    }
    return acct_rows_get(rows, 0, column);
}

static inline void sql_run(unit_db *db, const char *sql)
{
    assert_int_equal(acct_store_exec_script(db->store, db->pool, sql),
                     ACCT_STORE_OK);
}

static inline apr_int64_t sql_int(unit_db *db, const char *sql, apr_int64_t arg,
                                  const char *column)
{
    const char *v = sql_value(db, sql, arg, column);
    apr_int64_t n = -1;

    assert_non_null(v);
    assert_int_equal(acct_parse_i64(v, &n), 0);
    return n;
}

#define THREE_ANSWERS \
    "{\"security_questions\":[{\"question_id\":1,\"response\":\"Paris\"}," \
    "{\"question_id\":2,\"response\":\"Fluffy\"}," \
    "{\"question_id\":3,\"response\":\"Elm Street\"}]}"

static inline void answer_questions(unit_db *db, const acct_principal *who)
{
    acct_req *req = keyed_req(db, who);

    req->body = body(db, THREE_ANSWERS);
    expect_status(req, api_security_questions_answer, 200);
}

/* POST /profile/tfa-enable at `now`; returns the secret (pool copy). */
static inline const char *enable(unit_db *db, const acct_principal *who,
                                 apr_int64_t now)
{
    acct_req *req = keyed_req(db, who);
    const char *secret;
    json_t *doc;
    int status;

    req->now = now;
    doc = call(req, api_tfa_enable, &status);
    assert_int_equal(status, 200);
    secret = apr_pstrdup(db->pool,
                         json_string_value(json_object_get(doc, "secret")));
    json_decref(doc);
    return secret;
}

/* The code of `secret` (base32) at time `now` + `steps` steps. */
static inline const char *code_at(unit_db *db, const char *secret,
                                  apr_int64_t now, int steps)
{
    unsigned char *raw = NULL;
    size_t len = 0;
    char *code = apr_palloc(db->pool, ACCT_TOTP_DIGITS + 1);

    assert_int_equal(acct_base32_decode(db->pool, secret, &raw, &len), 0);
    assert_int_equal(acct_totp_code(raw, len, acct_totp_step(now) + steps,
                                    code), 0);
    return code;
}

/* A well-formed code that no step of the window accepts. */
static inline const char *wrong_code(unit_db *db, const char *secret,
                                     apr_int64_t now)
{
    static const char *const candidates[] = {"000000", "111111", "222222",
                                             "333333"};
    size_t i;
    int s;

    for (i = 0; i < 4; i++) {
        for (s = -1; s <= 1; s++) {
            if (strcmp(code_at(db, secret, now, s), candidates[i]) == 0) {
                break;
            }
        }
        if (s > 1) {
            return candidates[i];
        }
    }
    fail_msg("no wrong code found");
    return NULL;
}

/* POST /profile/tfa-enable-confirm with `code` at `now`. */
static inline acct_req *confirm_req(unit_db *db, const acct_principal *who,
                                    const char *code, apr_int64_t now)
{
    acct_req *req = keyed_req(db, who);

    req->now = now;
    req->body = body(db, apr_psprintf(db->pool, "{\"tfa_code\":\"%s\"}", code));
    return req;
}

#define TFA_ROW "SELECT * FROM tfa_secrets WHERE user_id = CAST(%s AS BIGINT)"
#define USER_ROW "SELECT * FROM users WHERE id = CAST(%s AS BIGINT)"

#endif
