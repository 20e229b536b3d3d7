/* Sealing, base32 and TOTP against their RFCs, and the security-question
 * and two-factor handlers on a migrated SQLite database. */
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

/* ------------------------------------------------------------------------
 * Fixtures and helpers
 * ------------------------------------------------------------------------ */

static const unsigned char test_key[ACCT_SEAL_KEY_LEN] = {
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a,
    0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15,
    0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f
};

static const acct_settings keyed = {0, 0, "https://r.example/", test_key, NULL};



/* A request of `who` whose configuration holds the test key. */
static acct_req *keyed_req(unit_db *db, const acct_principal *who)
{
    acct_req *req = unit_req(db, who);

    req->settings = &keyed;
    return req;
}

static json_t *body(unit_db *db, const char *text)
{
    /* NUL allowed here, so that the handlers' own refusal of it shows. */
    json_t *j = json_loads(text, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, NULL);

    assert_non_null(j);
    return acct_json_own(db->pool, j);
}

/* Runs a handler; the document is the caller's (json_decref). */
static json_t *call(acct_req *req, acct_handler *h, int *status)
{
    const char *text = unit_call(req, h, status);
    json_t *doc = json_loads(text, 0, NULL);

    assert_non_null(doc);
    return doc;
}

/* Runs a handler expecting `status`; drops the document. */
static void expect_status(acct_req *req, acct_handler *h, int status)
{
    int got;
    json_t *doc = call(req, h, &got);

    if (got != status) {
        fail_msg("expected %d, got %d: %s", status, got,
                 acct_json_dump(req->pool, doc, NULL));
    }
    json_decref(doc);
}

static const char *error_field(json_t *doc, size_t i)
{
    return json_string_value(json_object_get(
        json_array_get(json_object_get(doc, "errors"), i), "field"));
}

static const char *error_reason(json_t *doc, size_t i)
{
    return json_string_value(json_object_get(
        json_array_get(json_object_get(doc, "errors"), i), "reason"));
}

/* Runs a handler expecting one 400 (or `status`) item with this field. */
static void expect_error(acct_req *req, acct_handler *h, int status,
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
static const char *sql_value(unit_db *db, const char *sql, apr_int64_t arg,
                             const char *column)
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

static void sql_run(unit_db *db, const char *sql)
{
    assert_int_equal(acct_store_exec_script(db->store, db->pool, sql),
                     ACCT_STORE_OK);
}

static apr_int64_t sql_int(unit_db *db, const char *sql, apr_int64_t arg,
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

static void answer_questions(unit_db *db, const acct_principal *who)
{
    acct_req *req = keyed_req(db, who);

    req->body = body(db, THREE_ANSWERS);
    expect_status(req, api_security_questions_answer, 200);
}

/* POST /profile/tfa-enable at `now`; returns the secret (pool copy). */
static const char *enable(unit_db *db, const acct_principal *who,
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
static const char *code_at(unit_db *db, const char *secret, apr_int64_t now,
                           int steps)
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
static const char *wrong_code(unit_db *db, const char *secret, apr_int64_t now)
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
static acct_req *confirm_req(unit_db *db, const acct_principal *who,
                             const char *code, apr_int64_t now)
{
    acct_req *req = keyed_req(db, who);

    req->now = now;
    req->body = body(db, apr_psprintf(db->pool, "{\"tfa_code\":\"%s\"}", code));
    return req;
}

#define TFA_ROW "SELECT * FROM tfa_secrets WHERE user_id = CAST(%s AS BIGINT)"
#define USER_ROW "SELECT * FROM users WHERE id = CAST(%s AS BIGINT)"

/* ------------------------------------------------------------------------
 * Sealing
 * ------------------------------------------------------------------------ */

static void test_seal_round_trip(void **state)
{
    static const char *const texts[] = {"", "a", "Paris", "ééé \"quoted\"",
                                        "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"};
    const char *a, *b;
    size_t i;

    for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        a = acct_seal(pool, test_key, "tfa:1", texts[i]);
        UNIT_CHECK_CASE(i, a != NULL);
        UNIT_CHECK_CASE(i, strncmp(a, "v1:", 3) == 0);
        UNIT_CHECK_CASE(i, strlen(texts[i]) < 3 || !strstr(a, texts[i]));
        b = acct_unseal(pool, test_key, "tfa:1", a);
        UNIT_CHECK_CASE(i, b && strcmp(b, texts[i]) == 0);
    }
    /* A fresh nonce each time: equal texts do not seal alike. */
    a = acct_seal(pool, test_key, "tfa:1", "Paris");
    b = acct_seal(pool, test_key, "tfa:1", "Paris");
    assert_string_not_equal(a, b);
    /* base64 of 12 + 5 + 16 bytes */
    assert_int_equal(strlen(a), 3 + 44);
}

/* Re-encodes `blob` as a sealed value. */
static const char *sealed_of(const unsigned char *blob, int n)
{
    char *text = apr_palloc(pool, 3 + (n + 2) / 3 * 4 + 1);

    memcpy(text, "v1:", 3);
    EVP_EncodeBlock((unsigned char *)text + 3, blob, n);
    return text;
}

static void test_seal_tamper(void **state)
{
    static const unsigned char other_key[ACCT_SEAL_KEY_LEN] = {1};
    const char *sealed = acct_seal(pool, test_key, "answer:7:2", "Fluffy");
    size_t len = strlen(sealed);
    unsigned char blob[64];
    int n, i, pad = (sealed[len - 1] == '=') + (sealed[len - 2] == '=');

    assert_non_null(acct_unseal(pool, test_key, "answer:7:2", sealed));

    /* Every byte of nonce, ciphertext and tag matters. */
    n = EVP_DecodeBlock(blob, (const unsigned char *)sealed + 3,
                        (int)len - 3) - pad;
    assert_int_equal(n, 12 + 6 + 16);
    for (i = 0; i < n; i++) {
        blob[i] ^= 0x01;
        UNIT_CHECK_CASE(i, acct_unseal(pool, test_key, "answer:7:2",
                                       sealed_of(blob, n)) == NULL);
        blob[i] ^= 0x01;
    }
    assert_non_null(acct_unseal(pool, test_key, "answer:7:2",
                                sealed_of(blob, n)));
    /* Truncated: the tag no longer matches, or too short for one. */
    assert_null(acct_unseal(pool, test_key, "answer:7:2", sealed_of(blob, n - 1)));
    assert_null(acct_unseal(pool, test_key, "answer:7:2", sealed_of(blob, 27)));
    assert_null(acct_unseal(pool, test_key, "answer:7:2", sealed_of(blob, 0)));

    /* Another row, another user, another key. */
    assert_null(acct_unseal(pool, test_key, "answer:7:3", sealed));
    assert_null(acct_unseal(pool, test_key, "answer:8:2", sealed));
    assert_null(acct_unseal(pool, test_key, "", sealed));
    assert_null(acct_unseal(pool, other_key, "answer:7:2", sealed));

    /* Not our format. */
    assert_null(acct_unseal(pool, test_key, "answer:7:2", sealed + 3));
    assert_null(acct_unseal(pool, test_key, "answer:7:2",
                            apr_pstrcat(pool, "v2:", sealed + 3, NULL)));
    assert_null(acct_unseal(pool, test_key, "answer:7:2",
                            apr_pstrcat(pool, "V1:", sealed + 3, NULL)));
    assert_null(acct_unseal(pool, test_key, "answer:7:2",
                            apr_pstrcat(pool, sealed, "AAAA", NULL)));
    assert_null(acct_unseal(pool, test_key, "answer:7:2",
                            apr_pstrcat(pool, " ", sealed, NULL)));
    assert_null(acct_unseal(pool, test_key, "answer:7:2",
                            apr_pstrcat(pool, sealed, "\n", NULL)));
    assert_null(acct_unseal(pool, test_key, "answer:7:2",
                            apr_pstrndup(pool, sealed, len - 1)));
    assert_null(acct_unseal(pool, test_key, "answer:7:2", "v1:"));
    assert_null(acct_unseal(pool, test_key, "answer:7:2", "v1:@@@@"));
    assert_null(acct_unseal(pool, test_key, "answer:7:2", "v1:===="));
    assert_null(acct_unseal(pool, test_key, "answer:7:2", ""));
    assert_null(acct_unseal(pool, test_key, "answer:7:2", NULL));
}

/* ------------------------------------------------------------------------
 * base32 and TOTP
 * ------------------------------------------------------------------------ */

/* FIPS 180-2's "abc", and an RFC 4231 HMAC, before and after the process
 * fetched SHA-256 once (acct_crypto_init): the same digests. */
static void test_digests_fetched_once(void **state)
{
    static const char abc[] =
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    static const char hmac[] =
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
    apr_pool_t *own = NULL;
    int round;

    (void)state;
    assert_int_equal(apr_pool_create(&own, NULL), APR_SUCCESS);
    for (round = 0; round < 3; round++) {
        assert_string_equal(acct_sha256_hex(own, "abc"), abc);
        assert_string_equal(acct_hmac_sha256_hex(own,
                                                 (const unsigned char *)"Jefe",
                                                 4, "what do ya want for "
                                                 "nothing?"), hmac);
        /* Fetched on the first call, kept on the second. */
        assert_int_equal(acct_crypto_init(own), 0);
    }
    apr_pool_destroy(own);
    /* Released with its pool: looked up again, the same digest. */
    assert_int_equal(apr_pool_create(&own, NULL), APR_SUCCESS);
    assert_string_equal(acct_sha256_hex(own, "abc"), abc);
    apr_pool_destroy(own);
}

static void test_base32_rfc4648(void **state)
{
    /* RFC 4648 section 10, padding removed (secrets are shown without it). */
    static const struct {
        const char *data, *b32;
    } rows[] = {
        {"", ""},
        {"f", "MY"},
        {"fo", "MZXQ"},
        {"foo", "MZXW6"},
        {"foob", "MZXW6YQ"},
        {"fooba", "MZXW6YTB"},
        {"foobar", "MZXW6YTBOI"},
        {"12345678901234567890", "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"},
    };
    static const char *const invalid[] = {
        "MY======", "my", "MZXW6YTBO1", "MZXW8", "M", "MZX", "MZXW6Y",
        "MZ", "MR", "MZXW6YR", "MZXW6 ", "MZ-Q",
    };
    unsigned char *out = NULL;
    size_t i, len = 0;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        UNIT_CHECKF(strcmp(acct_base32_encode(pool,
                                              (const unsigned char *)rows[i].data,
                                              strlen(rows[i].data)),
                           rows[i].b32) == 0, "encode %s", rows[i].data);
        UNIT_CHECKF(acct_base32_decode(pool, rows[i].b32, &out, &len) == 0,
                    "decode %s", rows[i].b32);
        UNIT_CHECKF(len == strlen(rows[i].data)
                    && memcmp(out, rows[i].data, len) == 0,
                    "decode %s", rows[i].b32);
    }
    for (i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
        UNIT_CHECKF(acct_base32_decode(pool, invalid[i], &out, &len) == -1,
                    "invalid '%s'", invalid[i]);
    }
}

static const unsigned char rfc_secret[] = "12345678901234567890";

static void test_totp_rfc6238(void **state)
{
    /* RFC 6238 Appendix B, SHA-1 rows, truncated to 6 digits. */
    static const struct {
        apr_int64_t time;
        const char *code;
    } rows[] = {
        {59, "287082"},
        {1111111109, "081804"},
        {1111111111, "050471"},
        {1234567890, "005924"},
        {2000000000, "279037"},
        {APR_INT64_C(20000000000), "353130"},
    };
    /* RFC 4226 Appendix D: HOTP counters 0..9 are TOTP steps 0..9. */
    static const char *const hotp[] = {"755224", "287082", "359152", "969429",
                                       "338314", "254676", "287922", "162583",
                                       "399871", "520489"};
    char code[ACCT_TOTP_DIGITS + 1];
    apr_int64_t step = 0;
    size_t i;

    for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        assert_int_equal(acct_totp_code(rfc_secret, 20,
                                        acct_totp_step(rows[i].time), code), 0);
        UNIT_CHECKF(strcmp(code, rows[i].code) == 0, "time %" APR_INT64_T_FMT
                    ": %s", rows[i].time, code);
        UNIT_CHECK_CASE(i, acct_totp_verify(rfc_secret, 20, rows[i].code,
                                            rows[i].time, 0, &step)
                           == ACCT_TOTP_OK);
        UNIT_CHECK_CASE(i, step == rows[i].time / 30);
    }
    for (i = 0; i < 10; i++) {
        assert_int_equal(acct_totp_code(rfc_secret, 20, (apr_int64_t)i, code), 0);
        UNIT_CHECK_CASE(i, strcmp(code, hotp[i]) == 0);
    }
}

static void test_totp_window_and_replay(void **state)
{
    apr_int64_t now = 1111111111, cur = now / 30, step = 0;
    char code[ACCT_TOTP_DIGITS + 1];
    int d;

    for (d = -3; d <= 3; d++) {
        acct_totp_code(rfc_secret, 20, cur + d, code);
        step = 0;
        UNIT_CHECKF(acct_totp_verify(rfc_secret, 20, code, now, 0, &step)
                    == (d >= -1 && d <= 1 ? ACCT_TOTP_OK : ACCT_TOTP_WRONG),
                    "step %+d", d);
        UNIT_CHECKF(step == (d >= -1 && d <= 1 ? cur + d : 0), "step %+d", d);
    }
    /* Steps up to last_step are used: their codes are replays. */
    acct_totp_code(rfc_secret, 20, cur, code);
    assert_int_equal(acct_totp_verify(rfc_secret, 20, code, now, cur, &step),
                     ACCT_TOTP_REPLAY);
    assert_int_equal(acct_totp_verify(rfc_secret, 20, code, now, cur - 1, &step),
                     ACCT_TOTP_OK);
    acct_totp_code(rfc_secret, 20, cur - 1, code);
    assert_int_equal(acct_totp_verify(rfc_secret, 20, code, now, cur, &step),
                     ACCT_TOTP_REPLAY);
    acct_totp_code(rfc_secret, 20, cur + 1, code);
    assert_int_equal(acct_totp_verify(rfc_secret, 20, code, now, cur, &step),
                     ACCT_TOTP_OK);
    assert_true(step == cur + 1);
    /* Only exact 6-digit strings. */
    assert_int_equal(acct_totp_verify(rfc_secret, 20, "05047", now, 0, &step),
                     ACCT_TOTP_WRONG);
    assert_int_equal(acct_totp_verify(rfc_secret, 20, "0504710", now, 0, &step),
                     ACCT_TOTP_WRONG);
}

/* ------------------------------------------------------------------------
 * Without AcctapiSecretKeyFile
 * ------------------------------------------------------------------------ */

static char logged[4096];

static void capture_sink(acct_log_level level, const char *file, int line,
                         const char *msg, void *baton)
{
    if (level <= ACCT_LOG_ERR) {
        strncat(logged, msg, sizeof(logged) - strlen(logged) - 2);
        strcat(logged, "\n");
    }
}

static void test_no_key(void **state)
{
    static acct_handler *const sealing[] = {
        api_security_questions_get, api_security_questions_answer,
        api_tfa_enable, api_tfa_confirm
    };
    unit_db *db = *state;
    acct_principal who;
    acct_req *req;
    size_t i;

    unit_identity(db, "nokey", 0, "*", &who);
    acct_log_set_sink(capture_sink, NULL);
    for (i = 0; i < sizeof(sealing) / sizeof(sealing[0]); i++) {
        logged[0] = '\0';
        req = unit_req(db, &who);   /* seal_key NULL */
        req->body = body(db, i == 3 ? "{\"tfa_code\":\"123456\"}"
                                    : THREE_ANSWERS);
        expect_error(req, sealing[i], 503, NULL, ACCT_R_UNAVAILABLE);
        UNIT_CHECK_CASE(i, strstr(logged, "AcctapiSecretKeyFile is not "
                                          "configured") != NULL);
    }
    /* Turning two-factor off needs no key. */
    expect_status(unit_req(db, &who), api_tfa_disable, 200);
    assert_int_equal(sql_int(db, "SELECT COUNT(*) AS n FROM security_answers"
                                 " WHERE user_id = CAST(%s AS BIGINT)",
                             who.user_id, "n"), 0);
}

/* ------------------------------------------------------------------------
 * Security questions
 * ------------------------------------------------------------------------ */

static void test_questions_get(void **state)
{
    unit_db *db = *state;
    acct_principal who;
    json_t *doc, *list, *item;
    size_t i;
    int status;

    unit_identity(db, "quentin", 0, "*", &who);
    doc = call(keyed_req(db, &who), api_security_questions_get, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_object_size(doc), 1);
    list = json_object_get(doc, "security_questions");
    assert_int_equal(json_array_size(list), 18);
    json_array_foreach(list, i, item) {
        UNIT_CHECK_CASE(i, json_object_size(item) == 3);
        UNIT_CHECK_CASE(i, json_integer_value(json_object_get(item, "id"))
                           == (json_int_t)i + 1);
        UNIT_CHECK_CASE(i, json_string_length(json_object_get(item, "question"))
                           > 10);
        UNIT_CHECK_CASE(i, json_is_null(json_object_get(item, "response")));
    }
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(list, 0), "question")),
                        "In what city were you born?");
    json_decref(doc);
}

/* One invalid body and the fields its 400 names, in order. */
static const struct {
    const char *body;
    const char *fields[5];
} invalid_answers[] = {
    {"{}", {"security_questions"}},
    {"{\"security_questions\":null}", {"security_questions"}},
    {"{\"security_questions\":\"1,2,3\"}", {"security_questions"}},
    {"{\"security_questions\":{\"question_id\":1}}", {"security_questions"}},
    /* keys that are not fields of the route are ignored (docs/conventions.md,
     * "Today's clients") */
    {"{\"security_questions\":[],\"two_factor_auth\":true}",
     {"security_questions"}},
    {"{\"security_questions\":[{\"question_id\":1,\"response\":\"abc\"},"
     "{\"question_id\":2,\"response\":\"abc\"}]}", {"security_questions"}},
    {"{\"security_questions\":[{\"question_id\":1,\"response\":\"abc\"},"
     "{\"question_id\":2,\"response\":\"abc\"},{\"question_id\":3,\"response\":"
     "\"abc\"},{\"question_id\":4,\"response\":\"abc\"}]}",
     {"security_questions"}},
    {"{\"security_questions\":[1,{\"question_id\":2,\"response\":\"abc\"},"
     "{\"question_id\":3,\"response\":\"abc\"}]}", {"security_questions[0]"}},
    {"{\"security_questions\":[{\"question_id\":1,\"response\":\"abc\"},"
     "{\"question_id\":2,\"response\":\"ab\",\"answer\":\"x\"},"
     "{\"question_id\":3,\"response\":\"abc\"}]}",
     {"security_questions[1].response"}},
    {"{\"security_questions\":[{\"response\":\"abc\"},"
     "{\"question_id\":2,\"response\":\"abc\"},{\"question_id\":3,\"response\":"
     "\"abc\"}]}", {"security_questions[0].question_id"}},
    {"{\"security_questions\":[{\"question_id\":\"1\",\"response\":\"abc\"},"
     "{\"question_id\":2,\"response\":\"abc\"},{\"question_id\":3,\"response\":"
     "\"abc\"}]}", {"security_questions[0].question_id"}},
    {"{\"security_questions\":[{\"question_id\":1.0,\"response\":\"abc\"},"
     "{\"question_id\":2,\"response\":\"abc\"},{\"question_id\":3,\"response\":"
     "\"abc\"}]}", {"security_questions[0].question_id"}},
    {"{\"security_questions\":[{\"question_id\":1,\"response\":\"abc\"},"
     "{\"question_id\":999,\"response\":\"abc\"},{\"question_id\":0,"
     "\"response\":\"abc\"}]}",
     {"security_questions[1].question_id", "security_questions[2].question_id"}},
    {"{\"security_questions\":[{\"question_id\":2,\"response\":\"abc\"},"
     "{\"question_id\":5,\"response\":\"abc\"},{\"question_id\":2,\"response\":"
     "\"abd\"}]}", {"security_questions[2].question_id"}},
    {"{\"security_questions\":[{\"question_id\":1,\"response\":\"abc\"},"
     "{\"question_id\":2},{\"question_id\":3,\"response\":null}]}",
     {"security_questions[1].response", "security_questions[2].response"}},
    {"{\"security_questions\":[{\"question_id\":1,\"response\":123},"
     "{\"question_id\":2,\"response\":\"ab\"},{\"question_id\":3,\"response\":"
     "\"  ab \\t\"}]}",
     {"security_questions[0].response", "security_questions[1].response",
      "security_questions[2].response"}},
    {"{\"security_questions\":[{\"question_id\":1,\"response\":"
     "\"abcdefghijklmnopqr\"},{\"question_id\":2,\"response\":\"\"},"
     "{\"question_id\":3,\"response\":\"a\\u0000b\"}]}",
     {"security_questions[0].response", "security_questions[1].response",
      "security_questions[2].response"}},
    {"{\"security_questions\":[{\"question_id\":\"x\",\"response\":\"ab\"},"
     "{\"question_id\":1}]}",
     {"security_questions", "security_questions[0].question_id",
      "security_questions[0].response", "security_questions[1].response"}},
};

static void test_questions_validation(void **state)
{
    unit_db *db = *state;
    acct_principal who;
    acct_req *req;
    json_t *doc;
    size_t i, j, n;
    int status;

    unit_identity(db, "valerie", 0, "*", &who);
    answer_questions(db, &who);
    for (i = 0; i < sizeof(invalid_answers) / sizeof(invalid_answers[0]); i++) {
        req = keyed_req(db, &who);
        req->body = body(db, invalid_answers[i].body);
        doc = call(req, api_security_questions_answer, &status);
        UNIT_CHECK_CASE(i, status == 400);
        for (n = 0; n < 5 && invalid_answers[i].fields[n]; n++) {
        }
        UNIT_CHECKF(json_array_size(json_object_get(doc, "errors")) == n,
                    "case %lu: %s", (unsigned long)i,
                    acct_json_dump(db->pool, doc, NULL));
        for (j = 0; j < n; j++) {
            UNIT_CHECKF(error_field(doc, j)
                        && strcmp(error_field(doc, j),
                                  invalid_answers[i].fields[j]) == 0,
                        "case %lu item %lu: %s", (unsigned long)i,
                        (unsigned long)j, acct_json_dump(db->pool, doc, NULL));
        }
        json_decref(doc);
    }
    /* Refusals wrote nothing: the earlier answers stand. */
    assert_int_equal(sql_int(db, "SELECT COUNT(*) AS n FROM security_answers"
                                 " WHERE user_id = CAST(%s AS BIGINT)",
                             who.user_id, "n"), 3);
}

/* The response of question `id` in a security_questions document. */
static json_t *response_of(json_t *doc, json_int_t id)
{
    return json_object_get(json_array_get(json_object_get(doc,
                                                          "security_questions"),
                                          (size_t)id - 1),
                           "response");
}

/*
 * A POST answer: the `n` answers stored, by question id, each under both
 * names (question_id/security_question as the public API, id/question as
 * GET).
 */
static void assert_answers(json_t *doc, const json_int_t *ids,
                           const char *const *responses, size_t n)
{
    json_t *list = json_object_get(doc, "security_questions");
    size_t i;

    assert_int_equal(json_array_size(list), n);
    for (i = 0; i < n; i++) {
        json_t *item = json_array_get(list, i);
        const char *question =
            json_string_value(json_object_get(item, "security_question"));

        assert_int_equal(json_object_size(item), 5);
        assert_int_equal(json_integer_value(json_object_get(item, "question_id")),
                         ids[i]);
        assert_int_equal(json_integer_value(json_object_get(item, "id")), ids[i]);
        assert_non_null(question);
        assert_string_equal(json_string_value(json_object_get(item, "question")),
                            question);
        assert_string_equal(json_string_value(json_object_get(item, "response")),
                            responses[i]);
    }
}

static void test_questions_answer(void **state)
{
    static const char seventeen[] = "ééééééééééééééééé";   /* 17 characters */
    unit_db *db = *state;
    acct_principal who, other;
    acct_req *req;
    acct_rows *rows = NULL;
    const char *args[1];
    json_t *doc;
    int status, i;

    unit_identity(db, "anna", 0, "*", &who);
    unit_identity(db, "bert", 0, "*", &other);
    req = keyed_req(db, &who);
    req->body = body(db, apr_psprintf(db->pool,
        "{\"security_questions\":[{\"question_id\":7,\"response\":\"%s\"},"
        "{\"question_id\":2,\"response\":\"  Fluffy\\t\"},"
        "{\"question_id\":1,\"response\":\"Paris\"}]}", seventeen));
    doc = call(req, api_security_questions_answer, &status);
    assert_int_equal(status, 200);
    assert_answers(doc, (const json_int_t[]){1, 2, 7},
                   (const char *const[]){"Paris", "Fluffy", seventeen}, 3);
    json_decref(doc);
    /* GET: the catalogue with the user's responses. */
    doc = call(keyed_req(db, &who), api_security_questions_get, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_array_size(json_object_get(doc, "security_questions")),
                     18);
    assert_string_equal(json_string_value(response_of(doc, 1)), "Paris");
    assert_string_equal(json_string_value(response_of(doc, 2)), "Fluffy");
    assert_string_equal(json_string_value(response_of(doc, 7)), seventeen);
    assert_true(json_is_null(response_of(doc, 3)));
    json_decref(doc);

    /* An answer's other keys (the question's text, its id as a GET shows
     * them) and the body's are ignored (docs/conventions.md, "Today's
     * clients"). */
    req = keyed_req(db, &who);
    req->body = body(db, apr_psprintf(db->pool,
        "{\"security_questions\":[{\"question_id\":7,\"response\":\"%s\","
        "\"security_question\":\"x\",\"id\":7,\"question\":null},"
        "{\"question_id\":2,\"response\":\"Fluffy\",\"id\":9},"
        "{\"question_id\":1,\"response\":\"Paris\"}],\"userId\":5}",
        seventeen));
    doc = call(req, api_security_questions_answer, &status);
    assert_int_equal(status, 200);
    assert_string_equal(json_string_value(response_of(doc, 2)), "Fluffy");
    json_decref(doc);

    /* Stored sealed, never in clear. */
    args[0] = acct_i64(db->pool, who.user_id);
    assert_int_equal(acct_store_select_dynamic(db->store, db->pool,
        "SELECT question_id, response_sealed FROM security_answers"
        " WHERE user_id = CAST(%s AS BIGINT) ORDER BY question_id",
        &rows, 1, args), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 3);
    for (i = 0; i < rows->nrows; i++) {
        const char *sealed = acct_rows_get(rows, i, "response_sealed");

        UNIT_CHECK_CASE(i, strncmp(sealed, "v1:", 3) == 0);
        UNIT_CHECK_CASE(i, !strstr(sealed, "Paris") && !strstr(sealed, "Fluffy")
                           && !strstr(sealed, "é"));
    }

    /* Another user sees only the catalogue. */
    doc = call(keyed_req(db, &other), api_security_questions_get, &status);
    assert_int_equal(status, 200);
    assert_true(json_is_null(response_of(doc, 1)));
    json_decref(doc);

    /* Answering again forgets the earlier answers. */
    req = keyed_req(db, &who);
    req->body = body(db,
        "{\"security_questions\":[{\"question_id\":3,\"response\":\"Elm\"},"
        "{\"question_id\":18,\"response\":\"Lisbon\"},"
        "{\"question_id\":1,\"response\":\"Lyon\"}]}");
    doc = call(req, api_security_questions_answer, &status);
    assert_int_equal(status, 200);
    assert_answers(doc, (const json_int_t[]){1, 3, 18},
                   (const char *const[]){"Lyon", "Elm", "Lisbon"}, 3);
    json_decref(doc);
    doc = call(keyed_req(db, &who), api_security_questions_get, &status);
    assert_int_equal(status, 200);
    assert_string_equal(json_string_value(response_of(doc, 1)), "Lyon");
    assert_string_equal(json_string_value(response_of(doc, 18)), "Lisbon");
    assert_true(json_is_null(response_of(doc, 2)));
    assert_true(json_is_null(response_of(doc, 7)));
    json_decref(doc);
    assert_int_equal(sql_int(db, "SELECT COUNT(*) AS n FROM security_answers"
                                 " WHERE user_id = CAST(%s AS BIGINT)",
                             who.user_id, "n"), 3);

    /* A sealed response moved to another row no longer opens. */
    sql_run(db, apr_psprintf(db->pool,
        "UPDATE security_answers SET response_sealed = (SELECT response_sealed"
        " FROM security_answers WHERE user_id = %" APR_INT64_T_FMT
        " AND question_id = 1) WHERE user_id = %" APR_INT64_T_FMT
        " AND question_id = 3", who.user_id, who.user_id));
    expect_status(keyed_req(db, &who), api_security_questions_get, 500);
}

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
        UNIT_TEST(test_seal_round_trip),
        UNIT_TEST(test_seal_tamper),
        UNIT_TEST(test_digests_fetched_once),
        UNIT_TEST(test_base32_rfc4648),
        UNIT_TEST(test_totp_rfc6238),
        UNIT_TEST(test_totp_window_and_replay),
        UNIT_DB_TEST(test_no_key),
        UNIT_DB_TEST(test_questions_get),
        UNIT_DB_TEST(test_questions_validation),
        UNIT_DB_TEST(test_questions_answer),
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
