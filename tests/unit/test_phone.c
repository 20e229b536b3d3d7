/* Phone numbers, verification codes, the SMS runner, and the phone and
 * preferences handlers on a migrated SQLite database, each handler call
 * wrapped in a transaction the way the module's glue does it. */
#include "unit.h"

#include <apr_dbd.h>
#include <apr_file_io.h>
#include <apr_hash.h>
#include <apr_strings.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit_db.h"
#include "acct_auth.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "acct_log.h"
#include "acct_phone.h"
#include "acct_sms.h"
#include "acct_tokens.h"
#include "api_handlers.h"

/* ------------------------------------------------------------------------
 * Log capture and scratch files
 * ------------------------------------------------------------------------ */

static char logged[8192];

static void capture_sink(acct_log_level level, const char *file, int line,
                         const char *msg, void *baton)
{
    size_t n = strlen(logged);

    snprintf(logged + n, sizeof(logged) - n, "[%d] %s\n", (int)level, msg);
}

static void log_capture(void)
{
    logged[0] = '\0';
    acct_log_set_sink(capture_sink, NULL);
}

/* A private directory under /tmp for the test's scripts and outputs. */
static const char *scratch_dir(apr_pool_t *p)
{
    char *dir = apr_pstrdup(p, "/tmp/acct-phone-XXXXXX");

    assert_non_null(mkdtemp(dir));
    return dir;
}

static void scratch_remove(apr_pool_t *p, const char *dir)
{
    apr_dir_t *d;
    apr_finfo_t fi;

    assert_int_equal(apr_dir_open(&d, dir, p), APR_SUCCESS);
    while (apr_dir_read(&fi, APR_FINFO_NAME, d) == APR_SUCCESS) {
        if (strcmp(fi.name, ".") && strcmp(fi.name, "..")) {
            unlink(apr_pstrcat(p, dir, "/", fi.name, NULL));
        }
    }
    apr_dir_close(d);
    rmdir(dir);
}

static const char *write_script(apr_pool_t *p, const char *dir,
                                const char *name, const char *body)
{
    const char *path = apr_pstrcat(p, dir, "/", name, NULL);
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fprintf(f, "#!/bin/sh\n%s", body);
    fclose(f);
    assert_int_equal(chmod(path, 0755), 0);
    return path;
}

static const char *read_text(apr_pool_t *p, const char *path)
{
    char *text = NULL;
    apr_file_t *f;
    apr_finfo_t fi;
    apr_size_t n;

    if (apr_file_open(&f, path, APR_FOPEN_READ, 0, p) != APR_SUCCESS) {
        return "";
    }
    assert_int_equal(apr_file_info_get(&fi, APR_FINFO_SIZE, f), APR_SUCCESS);
    n = (apr_size_t)fi.size;
    text = apr_pcalloc(p, n + 1);
    if (n) {
        assert_int_equal(apr_file_read_full(f, text, n, NULL), APR_SUCCESS);
    }
    apr_file_close(f);
    return text;
}

/* Writes one line per message: "<number> <message>". */
#define RECORDER "printf '%s %s\\n' \"$2\" \"$3\" >> \"$1\"\n"

/* ------------------------------------------------------------------------
 * Countries and numbers
 * ------------------------------------------------------------------------ */

static void test_country_table(void **state)
{
    static const struct {
        const char *iso, *calling;
    } known[] = {
        {"US", "1"}, {"GB", "44"}, {"DE", "49"}, {"IN", "91"}, {"JP", "81"},
        {"CA", "1"}, {"RU", "7"}, {"KZ", "7"}, {"FR", "33"}, {"BR", "55"},
        {"AX", "358"}, {"VA", "39"}, {"SS", "211"}, {"ZW", "263"},
    };
    static const char *const unassigned[] = {
        "XK", "ZZ", "UK", "EU", "AA", "", "G", "GBR", "1A", "G1", "é"
    };
    const acct_country *t, *c;
    size_t n, i, j;

    t = acct_phone_countries(&n);
    assert_int_equal(n, 249);
    for (i = 0; i < n; i++) {
        UNIT_CHECKF(strlen(t[i].iso) == 2 && t[i].iso[0] >= 'A'
                    && t[i].iso[0] <= 'Z' && t[i].iso[1] >= 'A'
                    && t[i].iso[1] <= 'Z', "%s", t[i].iso);
        UNIT_CHECKF(i == 0 || strcmp(t[i - 1].iso, t[i].iso) < 0,
                    "%s sorted and unique", t[i].iso);
        UNIT_CHECKF(strlen(t[i].calling) >= 1 && strlen(t[i].calling) <= 3
                    && strspn(t[i].calling, "0123456789")
                       == strlen(t[i].calling)
                    && t[i].calling[0] != '0', "%s +%s", t[i].iso,
                    t[i].calling);
        UNIT_CHECK(t[i].iso, acct_phone_country(t[i].iso) == &t[i]);
        /* No calling code is a prefix of another (E.164 is a prefix code). */
        for (j = 0; j < n; j++) {
            size_t a = strlen(t[i].calling), b = strlen(t[j].calling);

            UNIT_CHECKF(a >= b || strncmp(t[i].calling, t[j].calling, a) != 0,
                        "+%s (%s) prefixes +%s (%s)", t[i].calling, t[i].iso,
                        t[j].calling, t[j].iso);
        }
    }
    for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        c = acct_phone_country(known[i].iso);
        UNIT_CHECK(known[i].iso,
                   c && strcmp(c->calling, known[i].calling) == 0);
    }
    c = acct_phone_country("gb");
    assert_true(c && strcmp(c->iso, "GB") == 0);
    c = acct_phone_country("jP");
    assert_true(c && strcmp(c->iso, "JP") == 0);
    for (i = 0; i < sizeof(unassigned) / sizeof(unassigned[0]); i++) {
        UNIT_CHECK(unassigned[i], acct_phone_country(unassigned[i]) == NULL);
    }
}

static void test_normalise(void **state)
{
    static const struct {
        const char *iso, *text, *e164;
        acct_phone_rc rc;
    } cases[] = {
        {"US", "(212) 555-0123", "+12125550123", ACCT_PHONE_OK},
        {"US", "1 212 555 0123", "+12125550123", ACCT_PHONE_OK},
        {"US", "+1 212.555.0123", "+12125550123", ACCT_PHONE_OK},
        {"CA", "416-555-0199", "+14165550199", ACCT_PHONE_OK},
        {"GB", "020 7946 0018", "+442079460018", ACCT_PHONE_OK},
        {"GB", "+44 20 7946 0018", "+442079460018", ACCT_PHONE_OK},
        {"GB", "0044 20 7946 0018", "+442079460018", ACCT_PHONE_OK},
        {"GB", "+44 (0)20 7946 0018", "+442079460018", ACCT_PHONE_OK},
        {"IT", "+39 06 1234 5678", "+390612345678", ACCT_PHONE_OK},
        {"DE", "030 123456", "+4930123456", ACCT_PHONE_OK},
        {"DE", "0151-23456789", "+4915123456789", ACCT_PHONE_OK},
        {"IT", "06 1234 5678", "+390612345678", ACCT_PHONE_OK},
        {"JP", "090-1234-5678", "+819012345678", ACCT_PHONE_OK},
        {"IN", "+91 98765 43210", "+919876543210", ACCT_PHONE_OK},
        {"IN", "098765 43210", "+919876543210", ACCT_PHONE_OK},
        {"RU", "8 912 345 67 89", "+79123456789", ACCT_PHONE_OK},
        {"KZ", "+7 701 234 5678", "+77012345678", ACCT_PHONE_OK},
        {"FR", "06.12.34.56.78", "+33612345678", ACCT_PHONE_OK},
        {"NU", "4002", "+6834002", ACCT_PHONE_OK},
        {"GB", "+49 30 123456", NULL, ACCT_PHONE_MISMATCH},
        {"CA", "+44 20 7946 0018", NULL, ACCT_PHONE_MISMATCH},
        {"US", "00 44 20 7946 0018", NULL, ACCT_PHONE_MISMATCH},
        {"US", "555-01x3", NULL, ACCT_PHONE_SYNTAX},
        {"US", "", NULL, ACCT_PHONE_SYNTAX},
        {"US", "+", NULL, ACCT_PHONE_SYNTAX},
        {"US", " - ", NULL, ACCT_PHONE_SYNTAX},
        {"US", "12+3", NULL, ACCT_PHONE_SYNTAX},
        {"US", "++1 212 555 0123", NULL, ACCT_PHONE_SYNTAX},
        {"US", "212/555/0123", NULL, ACCT_PHONE_SYNTAX},
        {"US", "12", NULL, ACCT_PHONE_LENGTH},
        {"DE", "0", NULL, ACCT_PHONE_LENGTH},
        {"GB", "+44", NULL, ACCT_PHONE_LENGTH},
        {"US", "1234567890123456", NULL, ACCT_PHONE_LENGTH},
        {"DE", "+49 1234 5678 901234", NULL, ACCT_PHONE_LENGTH},
        {"DE", "+49 1234 5678 9012", "+49123456789012", ACCT_PHONE_OK},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const acct_country *c = acct_phone_country(cases[i].iso);
        const char *digits = NULL, *e164 = NULL;
        int intl = -1;
        acct_phone_rc rc;

        assert_non_null(c);
        rc = acct_phone_parse(pool, cases[i].text, &digits, &intl);
        if (rc == ACCT_PHONE_OK) {
            rc = acct_phone_e164(pool, c, digits, intl, &e164);
        }
        UNIT_CHECKF(rc == cases[i].rc, "%s %s: rc %d", cases[i].iso,
                    cases[i].text, (int)rc);
        if (cases[i].e164) {
            UNIT_CHECKF(e164 && strcmp(e164, cases[i].e164) == 0,
                        "%s %s: %s", cases[i].iso, cases[i].text,
                        e164 ? e164 : "(null)");
        }
        UNIT_CHECKF(rc == ACCT_PHONE_OK || acct_phone_reason(rc)[0] != '\0',
                    "%s %s: a reason", cases[i].iso, cases[i].text);
    }
}

/* ------------------------------------------------------------------------
 * Codes
 * ------------------------------------------------------------------------ */

static const unsigned char key_a[ACCT_SEAL_KEY_LEN] =
    "0123456789abcdef0123456789abcdef";
static const unsigned char key_b[ACCT_SEAL_KEY_LEN] =
    "fedcba9876543210fedcba9876543210";

static int is_code(const char *s)
{
    return s && strlen(s) == ACCT_PHONE_CODE_DIGITS
           && strspn(s, "0123456789") == ACCT_PHONE_CODE_DIGITS;
}

static void test_code_derivation(void **state)
{
    const char *c1, *c2, *h1, *h2;
    apr_hash_t *seen = apr_hash_make(pool);
    unsigned long first_digit[10] = {0};
    int i;

    c1 = acct_phone_code(pool, key_a, sizeof(key_a), 7, "+442079460018",
                         1700000000);
    c2 = acct_phone_code(pool, key_a, sizeof(key_a), 7, "+442079460018",
                         1700000000);
    assert_true(is_code(c1));
    assert_string_equal(c1, c2);
    h1 = acct_phone_code_hash(pool, key_a, sizeof(key_a), 7, "+442079460018",
                              c1);
    h2 = acct_phone_code_hash(pool, key_a, sizeof(key_a), 7, "+442079460018",
                              c1);
    assert_non_null(h1);
    assert_int_equal(strlen(h1), 64);
    assert_string_equal(h1, h2);
    /* Every input changes the hash. */
    assert_string_not_equal(h1, acct_phone_code_hash(pool, key_b, sizeof(key_b),
                                                     7, "+442079460018", c1));
    assert_string_not_equal(h1, acct_phone_code_hash(pool, key_a, sizeof(key_a),
                                                     8, "+442079460018", c1));
    assert_string_not_equal(h1, acct_phone_code_hash(pool, key_a, sizeof(key_a),
                                                     7, "+442079460019", c1));

    /* Range and spread over consecutive issue times. */
    for (i = 0; i < 5000; i++) {
        const char *c = acct_phone_code(pool, key_a, sizeof(key_a), 7,
                                        "+442079460018", 1700000000 + i);

        UNIT_CHECKF(is_code(c), "issued +%d: %s", i, c ? c : "(null)");
        apr_hash_set(seen, c, APR_HASH_KEY_STRING, c);
        first_digit[c[0] - '0']++;
    }
    /* 5000 draws from 10^6: about 12 collisions expected. */
    assert_true(apr_hash_count(seen) > 4950);
    for (i = 0; i < 10; i++) {
        UNIT_CHECKF(first_digit[i] > 380 && first_digit[i] < 620,
                    "leading digit %d: %lu of 5000", i, first_digit[i]);
    }
    /* Other users, numbers and keys get other codes (almost surely). */
    assert_string_not_equal(c1, acct_phone_code(pool, key_b, sizeof(key_b), 7,
                                                "+442079460018", 1700000000));
}

/* ------------------------------------------------------------------------
 * The SMS runner
 * ------------------------------------------------------------------------ */

static void test_sms_runner(void **state)
{
    const char *dir = scratch_dir(pool), *out, *rec, *cmd;
    apr_time_t start;

    log_capture();
    out = apr_pstrcat(pool, dir, "/args", NULL);
    rec = write_script(pool, dir, "args.sh",
                       "for a in \"$@\"; do printf '<%s>' \"$a\"; done"
                       " >> \"$1\"\n"
                       "echo >> \"$1\"\n");
    /* Quoted words of the command stay one argument each. */
    cmd = apr_psprintf(pool, "%s %s 'two words'", rec, out);
    assert_int_equal(acct_sms_send(pool, cmd, "+15550100", "Your code is 1 2",
                                   ACCT_SMS_TIMEOUT), ACCT_SMS_OK);
    assert_string_equal(read_text(pool, out),
                        apr_psprintf(pool, "<%s><two words><+15550100>"
                                     "<Your code is 1 2>\n", out));
    assert_string_equal(logged, "");

    /* A program found through PATH, as the shell would. */
    assert_int_equal(acct_sms_send(pool, "true", "+15550100", "x",
                                   ACCT_SMS_TIMEOUT), ACCT_SMS_OK);

    /* Exit status 1: a failure, logged with the start of stderr. */
    cmd = write_script(pool, dir, "fail.sh",
                       "echo 'gateway said no' >&2\nexit 1\n");
    assert_int_equal(acct_sms_send(pool, cmd, "+15550100",
                                   "Your code is 123456",
                                   ACCT_SMS_TIMEOUT), ACCT_SMS_FAILED);
    assert_non_null(strstr(logged, "exited with status 1: gateway said no"));
    assert_non_null(strstr(logged, "+15550100"));
    assert_null(strstr(logged, "123456"));

    /* Killed by a signal. */
    log_capture();
    cmd = write_script(pool, dir, "signal.sh", "kill -TERM $$\n");
    assert_int_equal(acct_sms_send(pool, cmd, "+15550100", "x",
                                   ACCT_SMS_TIMEOUT), ACCT_SMS_FAILED);
    assert_non_null(strstr(logged, "killed by signal"));

    /* A program that does not finish: killed at the deadline. */
    log_capture();
    cmd = write_script(pool, dir, "slow.sh", "exec sleep 30\n");
    start = apr_time_now();
    assert_int_equal(acct_sms_send(pool, cmd, "+15550100", "x",
                                   apr_time_from_msec(300)),
                     ACCT_SMS_TIMED_OUT);
    assert_true(apr_time_now() - start < apr_time_from_sec(3));
    assert_non_null(strstr(logged, "did not finish within 300 ms"));

    /* Also when it closed stderr and went on running. */
    log_capture();
    cmd = write_script(pool, dir, "quiet.sh", "exec 2>&-\nexec sleep 30\n");
    assert_int_equal(acct_sms_send(pool, cmd, "+15550100", "x",
                                   apr_time_from_msec(300)),
                     ACCT_SMS_TIMED_OUT);

    /* A program that cannot run. */
    log_capture();
    assert_int_equal(acct_sms_send(pool, "/nonexistent/sms-send", "+15550100",
                                   "x", ACCT_SMS_TIMEOUT), ACCT_SMS_FAILED);
    assert_non_null(strstr(logged, "cannot run /nonexistent/sms-send"));

    /* No command. */
    log_capture();
    assert_int_equal(acct_sms_send(pool, NULL, "+15550100", "x",
                                   ACCT_SMS_TIMEOUT), ACCT_SMS_UNCONFIGURED);
    assert_int_equal(acct_sms_send(pool, "   ", "+15550100", "x",
                                   ACCT_SMS_TIMEOUT), ACCT_SMS_UNCONFIGURED);
    assert_non_null(strstr(logged, "[3] "));
    assert_non_null(strstr(logged, "AcctapiSmsCommand is not set"));
    scratch_remove(pool, dir);
}

/* ------------------------------------------------------------------------
 * Handlers
 * ------------------------------------------------------------------------ */

typedef struct env {
    unit_db *db;
    acct_settings settings;
    const char *dir;
    const char *sms_out;      /* the recorder's file */
    const char *sms_ok;       /* the recorder command */
    acct_principal who;
    apr_int64_t now;
} env;

static int env_setup(void **state)
{
    env *e;

    unit_pool_setup(state);
    e = apr_pcalloc(pool, sizeof(*e));
    e->db = unit_db_open();
    e->dir = scratch_dir(pool);
    e->sms_out = apr_pstrcat(pool, e->dir, "/sms.out", NULL);
    e->sms_ok = apr_pstrcat(pool,
                            write_script(pool, e->dir, "rec.sh", RECORDER),
                            " ", e->sms_out, NULL);
    e->settings.seal_key = key_a;
    e->settings.sms_command = e->sms_ok;
    unit_identity(e->db, "phone-owner", 0, "*", &e->who);
    e->now = 1700000000;
    *state = e;
    return 0;
}

static int env_teardown(void **state)
{
    env *e = *state;

    unit_db_close(e->db);
    scratch_remove(pool, e->dir);
    return unit_pool_teardown(state);
}

#define ENV_TEST(f) cmocka_unit_test_setup_teardown(f, env_setup, env_teardown)

typedef struct reply {
    int status;
    json_t *doc;
    const char *text;
    const char *retry_after;
} reply;

/* Calls a handler inside a transaction, ended as the module's glue does. */
static reply call(env *e, const acct_principal *who, acct_handler *h,
                  const char *body)
{
    acct_req *req = unit_req(e->db, who);
    acct_resp resp;
    reply r;

    req->settings = &e->settings;
    req->now = e->now;
    if (body) {
        req->body = acct_json_decode_body(req->pool, body, strlen(body), NULL);
        assert_non_null(req->body);
    }
    acct_resp_init(&resp, req->pool);
    assert_int_equal(acct_req_store(req, &req->store), ACCT_STORE_OK);
    assert_int_equal(acct_store_begin(req->store, req->pool), ACCT_STORE_OK);
    h(req, &resp);
    if (acct_resp_failed(&resp) || resp.status >= 400) {
        assert_int_equal(acct_store_rollback(req->store, req->pool),
                         ACCT_STORE_OK);
    }
    else {
        assert_int_equal(acct_store_commit(req->store, req->pool),
                         ACCT_STORE_OK);
    }
    r.status = resp.status;
    r.retry_after = apr_table_get(resp.headers, "Retry-After");
    r.doc = acct_resp_document(&resp, req->pool);
    r.text = r.doc ? acct_json_dump(req->pool, r.doc, NULL) : "";
    return r;
}

/* The reason and field of error item `i`, as "reason|field". */
static const char *error_at(reply r, size_t i)
{
    json_t *item = json_array_get(json_object_get(r.doc, "errors"), i);
    const char *field = json_string_value(json_object_get(item, "field"));

    return apr_pstrcat(pool,
                       json_string_value(json_object_get(item, "reason")), "|",
                       field ? field : "", NULL);
}

static size_t error_count(reply r)
{
    return json_array_size(json_object_get(r.doc, "errors"));
}

static const char *query_one(env *e, const char *sql, apr_int64_t uid)
{
    const char *args[1];
    acct_rows *rows = NULL;

    args[0] = acct_i64(pool, uid);
    assert_int_equal(acct_store_select_dynamic(e->db->store, pool, sql, &rows,
                                               1, args), ACCT_STORE_OK);
    return rows->nrows ? rows->values[0][0] : NULL;
}

static const char *verified_number(env *e, apr_int64_t uid)
{
    return query_one(e, "SELECT verified_phone_number FROM users"
                        " WHERE id = CAST(%s AS BIGINT)", uid);
}

static const char *pending_column(env *e, apr_int64_t uid, const char *col)
{
    return query_one(e, apr_pstrcat(pool, "SELECT ", col, " FROM "
                                    "phone_verifications WHERE user_id = "
                                    "CAST(%s AS BIGINT)", NULL), uid);
}

/* The code of the last message sent, from the recorder's file. */
static const char *last_code(env *e, const char **number)
{
    const char *text = read_text(pool, e->sms_out), *line, *at;
    const char *marker = "Your verification code is ";

    line = strrchr(text, '\n');
    assert_non_null(line);
    while (line > text && line[-1] != '\n') {
        line--;
    }
    at = strstr(line, marker);
    assert_non_null(at);
    if (number) {
        *number = apr_pstrmemdup(pool, line, strchr(line, ' ') - line);
    }
    return apr_pstrmemdup(pool, at + strlen(marker), ACCT_PHONE_CODE_DIGITS);
}

static int messages_sent(env *e)
{
    const char *t = read_text(pool, e->sms_out);
    int n = 0;

    for (; *t; t++) {
        n += *t == '\n';
    }
    return n;
}

static const char *verify_body(const char *code)
{
    return apr_psprintf(pool, "{\"otp_code\":\"%s\"}", code);
}

/* A code that is not `code`. */
static const char *other_code(const char *code)
{
    return apr_psprintf(pool, "%06d", (atoi(code) + 1) % 1000000);
}

#define UK_BODY "{\"iso_code\":\"gb\",\"phone_number\":\"020 7946 0018\"}"
#define UK_E164 "+442079460018"
#define US_BODY "{\"iso_code\":\"US\",\"phone_number\":\"+1 (212) 555-0123\"}"

static void test_send_validation(void **state)
{
    env *e = *state;
    reply r;

    r = call(e, &e->who, api_phone_send, "{}");
    assert_int_equal(r.status, 400);
    assert_int_equal(error_count(r), 2);
    assert_string_equal(error_at(r, 0), "iso_code is required|iso_code");
    assert_string_equal(error_at(r, 1),
                        "phone_number is required|phone_number");

    /* "x" is not a field of the route: ignored (docs/conventions.md, "Today's
     * clients") */
    r = call(e, &e->who, api_phone_send,
             "{\"iso_code\":\"XX\",\"phone_number\":\"12ab\",\"x\":1}");
    assert_int_equal(r.status, 400);
    assert_int_equal(error_count(r), 2);
    assert_null(strstr(r.text, "\"field\":\"x\""));
    assert_non_null(strstr(r.text, "iso_code must be an assigned two-letter "
                                   "ISO 3166 country code"));
    assert_non_null(strstr(r.text, acct_phone_reason(ACCT_PHONE_SYNTAX)));

    r = call(e, &e->who, api_phone_send,
             "{\"iso_code\":\"GB\",\"phone_number\":\"+49 30 123456\"}");
    assert_int_equal(r.status, 400);
    assert_string_equal(error_at(r, 0),
                        apr_pstrcat(pool, acct_phone_reason(ACCT_PHONE_MISMATCH),
                                    "|phone_number", NULL));

    r = call(e, &e->who, api_phone_send,
             "{\"iso_code\":null,\"phone_number\":5550123}");
    assert_int_equal(r.status, 400);
    assert_string_equal(error_at(r, 0), "iso_code is required|iso_code");
    assert_string_equal(error_at(r, 1),
                        "phone_number must be a string|phone_number");

    r = call(e, &e->who, api_phone_verify, "{\"otp_code\":\"12345\"}");
    assert_int_equal(r.status, 400);
    assert_string_equal(error_at(r, 0), "otp_code must be 6 digits|otp_code");
    r = call(e, &e->who, api_phone_verify, "{}");
    assert_string_equal(error_at(r, 0), "otp_code is required|otp_code");
    assert_int_equal(messages_sent(e), 0);
}

static void test_send_and_verify(void **state)
{
    env *e = *state;
    const char *code, *number, *hash;
    reply r;

    r = call(e, &e->who, api_phone_verify, verify_body("123456"));
    assert_int_equal(r.status, 400);
    assert_string_equal(error_at(r, 0),
                        "No verification code is pending; request one first|");

    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.text, "{}");
    code = last_code(e, &number);
    assert_string_equal(number, UK_E164);
    assert_string_equal(code, acct_phone_code(pool, key_a, sizeof(key_a),
                                              e->who.user_id, UK_E164, e->now));
    /* Stored: the number, the country, the issue time, the hash only. */
    assert_string_equal(pending_column(e, e->who.user_id, "phone_number"),
                        UK_E164);
    assert_string_equal(pending_column(e, e->who.user_id, "iso_code"), "GB");
    hash = pending_column(e, e->who.user_id, "code_hash");
    assert_string_equal(hash, acct_phone_code_hash(pool, key_a, sizeof(key_a),
                                                   e->who.user_id, UK_E164,
                                                   code));
    assert_string_equal(pending_column(e, e->who.user_id, "expires"),
                        acct_i64(pool, e->now + 600));

    /* A resend before expiry: the same code, the same row. */
    e->now += 300;
    r = call(e, &e->who, api_phone_send,
             "{\"iso_code\":\"GB\",\"phone_number\":\"+44 20 7946 0018\"}");
    assert_int_equal(r.status, 200);
    assert_int_equal(messages_sent(e), 2);
    assert_string_equal(last_code(e, NULL), code);
    assert_string_equal(pending_column(e, e->who.user_id, "issued"),
                        acct_i64(pool, e->now - 300));

    /* Verified within the 10 minutes. */
    e->now += 299;
    r = call(e, &e->who, api_phone_verify, verify_body(code));
    assert_int_equal(r.status, 200);
    assert_string_equal(r.text, "{}");
    assert_string_equal(verified_number(e, e->who.user_id), UK_E164);
    assert_null(pending_column(e, e->who.user_id, "user_id"));

    /* Once only. */
    r = call(e, &e->who, api_phone_verify, verify_body(code));
    assert_int_equal(r.status, 400);

    /* Changing the number takes a delete first. */
    r = call(e, &e->who, api_phone_send, US_BODY);
    assert_int_equal(r.status, 400);
    assert_string_equal(error_at(r, 0),
                        "A verified phone number is already set; delete it "
                        "before adding another|phone_number");
    assert_int_equal(messages_sent(e), 2);

    r = call(e, &e->who, api_phone_delete, NULL);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.text, "{}");
    assert_null(verified_number(e, e->who.user_id));
    r = call(e, &e->who, api_phone_delete, NULL);
    assert_int_equal(r.status, 200);

    r = call(e, &e->who, api_phone_send, US_BODY);
    assert_int_equal(r.status, 200);
    assert_string_equal(last_code(e, &number), acct_phone_code(
        pool, key_a, sizeof(key_a), e->who.user_id, "+12125550123", e->now));
    assert_string_equal(number, "+12125550123");
    /* Delete also drops the pending code. */
    r = call(e, &e->who, api_phone_delete, NULL);
    assert_null(pending_column(e, e->who.user_id, "user_id"));
}

static void test_expiry_and_replacement(void **state)
{
    env *e = *state;
    const char *first, *second;
    reply r;

    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 200);
    first = last_code(e, NULL);

    /* At 10 minutes the code is gone. */
    e->now += 600;
    r = call(e, &e->who, api_phone_verify, verify_body(first));
    assert_int_equal(r.status, 400);
    assert_string_equal(error_at(r, 0),
                        "The verification code has expired; request a new one|");

    /* A send after expiry issues a new code. */
    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 200);
    second = last_code(e, NULL);
    assert_string_equal(pending_column(e, e->who.user_id, "issued"),
                        acct_i64(pool, e->now));
    assert_string_not_equal(first, second);

    /* Another number replaces the pending one at once. */
    e->now += 10;
    r = call(e, &e->who, api_phone_send, US_BODY);
    assert_int_equal(r.status, 200);
    assert_string_equal(pending_column(e, e->who.user_id, "phone_number"),
                        "+12125550123");
    r = call(e, &e->who, api_phone_verify, verify_body(second));
    assert_int_equal(r.status, 400);
    r = call(e, &e->who, api_phone_verify, verify_body(last_code(e, NULL)));
    assert_int_equal(r.status, 200);
    assert_string_equal(verified_number(e, e->who.user_id), "+12125550123");
}

static void test_wrong_codes_limited(void **state)
{
    env *e = *state;
    const char *code, *wrong;
    reply r;
    int i;

    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 200);
    code = last_code(e, NULL);
    wrong = other_code(code);
    for (i = 1; i <= 5; i++) {
        r = call(e, &e->who, api_phone_verify, verify_body(wrong));
        UNIT_CHECKF(r.status == 400, "attempt %d: %d", i, r.status);
        assert_string_equal(error_at(r, 0),
                            "Invalid verification code|otp_code");
        /* Counted although the answer rolled the transaction back. */
        assert_string_equal(pending_column(e, e->who.user_id,
                                           "failed_attempts"),
                            acct_i64(pool, i));
    }
    /* Locked: even the right code, until the code expires. */
    e->now += 100;
    r = call(e, &e->who, api_phone_verify, verify_body(code));
    assert_int_equal(r.status, 429);
    assert_string_equal(error_at(r, 0), "Too many requests|");
    assert_string_equal(r.retry_after, "500");

    /* A resend before expiry is the same code and stays locked. */
    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 200);
    assert_string_equal(last_code(e, NULL), code);
    r = call(e, &e->who, api_phone_verify, verify_body(code));
    assert_int_equal(r.status, 429);

    /* After expiry a send starts over with a new code. */
    e->now += 500;
    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 200);
    assert_string_equal(pending_column(e, e->who.user_id, "failed_attempts"),
                        "0");
    r = call(e, &e->who, api_phone_verify, verify_body(last_code(e, NULL)));
    assert_int_equal(r.status, 200);
}

static void test_other_user_and_replay(void **state)
{
    env *e = *state;
    acct_principal other;
    const char *code;
    reply r;

    unit_identity(e->db, "phone-other", 0, "*", &other);
    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 200);
    code = last_code(e, NULL);

    /* Another user's verify never sees this user's code. */
    r = call(e, &other, api_phone_verify, verify_body(code));
    assert_int_equal(r.status, 400);
    assert_null(verified_number(e, other.user_id));
    /* ... nor do their wrong attempts count against it. */
    assert_string_equal(pending_column(e, e->who.user_id, "failed_attempts"),
                        "0");

    /* The same number for the other user: a code of its own. */
    r = call(e, &other, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 200);
    assert_string_not_equal(last_code(e, NULL), code);

    r = call(e, &e->who, api_phone_verify, verify_body(code));
    assert_int_equal(r.status, 200);
    r = call(e, &e->who, api_phone_verify, verify_body(code));
    assert_int_equal(r.status, 400);
    assert_null(verified_number(e, other.user_id));
}

static void test_send_failures(void **state)
{
    env *e = *state;
    const char *code;
    reply r;

    /* Without the secret key: 503, logged, nothing stored. */
    log_capture();
    e->settings.seal_key = NULL;
    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 503);
    assert_string_equal(error_at(r, 0), "Service Unavailable|");
    r = call(e, &e->who, api_phone_verify, verify_body("123456"));
    assert_int_equal(r.status, 503);
    assert_non_null(strstr(logged, "AcctapiSecretKeyFile is not set"));
    assert_null(pending_column(e, e->who.user_id, "user_id"));
    e->settings.seal_key = key_a;

    /* No SMS command: 503, logged; the code is kept. */
    log_capture();
    e->settings.sms_command = NULL;
    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 503);
    assert_non_null(strstr(logged, "AcctapiSmsCommand is not set"));
    assert_non_null(pending_column(e, e->who.user_id, "user_id"));

    /* A failing gateway: 503; the retry sends the code issued first. */
    e->settings.sms_command = write_script(pool, e->dir, "down.sh", "exit 3\n");
    e->now += 5;
    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 503);
    assert_non_null(strstr(logged, "exited with status 3"));
    assert_int_equal(messages_sent(e), 0);
    e->settings.sms_command = e->sms_ok;
    e->now += 5;
    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 200);
    code = last_code(e, NULL);
    assert_string_equal(code, acct_phone_code(pool, key_a, sizeof(key_a),
                                              e->who.user_id, UK_E164,
                                              e->now - 10));

    /* A new key: the old code could never verify, so a new one is issued. */
    e->settings.seal_key = key_b;
    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 200);
    assert_string_not_equal(last_code(e, NULL), code);
    r = call(e, &e->who, api_phone_verify, verify_body(code));
    assert_int_equal(r.status, 400);
    r = call(e, &e->who, api_phone_verify, verify_body(last_code(e, NULL)));
    assert_int_equal(r.status, 200);
}

/* ------------------------------------------------------------------------
 * Preferences
 * ------------------------------------------------------------------------ */

/* A second token of the same user: another OAuth client. */
static void second_token(env *e, acct_principal *who)
{
    apr_int64_t id;
    acct_ident_result res;
    acct_store_rc src;
    const char *token;

    assert_int_equal(acct_token_create(e->db->store, pool, e->who.user_id,
                                       "second", "*", 0, e->now, &id, &token,
                                       &res), ACCT_IDENT_OK);
    assert_int_equal(acct_authenticate(e->db->store, pool,
                                       apr_pstrcat(pool, "Bearer ", token, NULL),
                                       e->now, who, &src), ACCT_AUTH_OK);
    assert_string_not_equal(who->client, e->who.client);
    assert_int_equal(who->user_id, e->who.user_id);
}

/* {"p":"xxx..."}: exactly `chars` characters, with `unit` repeated. */
static const char *doc_of_length(size_t chars, const char *unit)
{
    size_t n = chars - strlen("{\"p\":\"\"}"), i;
    char *s = apr_palloc(pool, n * strlen(unit) + 16), *p = s;

    assert_non_null(s);
    if (!s) {
        return NULL; /* unreached; tells the compiler sprintf gets memory */
    }
    p += sprintf(p, "{\"p\":\"");
    for (i = 0; i < n; i++) {
        p += sprintf(p, "%s", unit);
    }
    sprintf(p, "\"}");
    return s;
}

static void test_preferences(void **state)
{
    env *e = *state;
    acct_principal second, other;
    const char *doc;
    reply r;

    r = call(e, &e->who, api_preferences_get, NULL);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.text, "{}");

    r = call(e, &e->who, api_preferences_put,
             "{\"theme\":\"dark\",\"sizes\":[1,2.5,null],\"n\":{\"a\":true}}");
    assert_int_equal(r.status, 200);
    assert_string_equal(r.text,
                        "{\"theme\":\"dark\",\"sizes\":[1,2.5,null],"
                        "\"n\":{\"a\":true}}");
    r = call(e, &e->who, api_preferences_get, NULL);
    assert_string_equal(r.text,
                        "{\"theme\":\"dark\",\"sizes\":[1,2.5,null],"
                        "\"n\":{\"a\":true}}");

    /* Another token of the same user is another client. */
    second_token(e, &second);
    r = call(e, &second, api_preferences_get, NULL);
    assert_string_equal(r.text, "{}");
    r = call(e, &second, api_preferences_put, "{\"theme\":\"light\"}");
    assert_int_equal(r.status, 200);
    r = call(e, &e->who, api_preferences_get, NULL);
    assert_non_null(strstr(r.text, "dark"));
    r = call(e, &second, api_preferences_get, NULL);
    assert_string_equal(r.text, "{\"theme\":\"light\"}");

    /* And another user sees nothing of either. */
    unit_identity(e->db, "prefs-other", 0, "*", &other);
    r = call(e, &other, api_preferences_get, NULL);
    assert_string_equal(r.text, "{}");

    /* PUT replaces the whole document. */
    r = call(e, &e->who, api_preferences_put, "{}");
    assert_int_equal(r.status, 200);
    r = call(e, &e->who, api_preferences_get, NULL);
    assert_string_equal(r.text, "{}");

    /* At most 65535 characters, serialised; characters, not bytes. */
    doc = doc_of_length(65535, "x");
    r = call(e, &e->who, api_preferences_put, doc);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.text, doc);
    doc = doc_of_length(65536, "x");
    r = call(e, &e->who, api_preferences_put, doc);
    assert_int_equal(r.status, 400);
    assert_string_equal(error_at(r, 0),
                        "Preferences may not exceed 65535 characters|");
    r = call(e, &e->who, api_preferences_get, NULL);
    assert_int_equal(strlen(r.text), 65535);
    doc = doc_of_length(65535, "\xc3\xa9");
    r = call(e, &e->who, api_preferences_put, doc);
    assert_int_equal(r.status, 200);
    r = call(e, &e->who, api_preferences_get, NULL);
    assert_string_equal(r.text, doc);
}

static void test_preferences_not_object(void **state)
{
    env *e = *state;
    acct_req *req = unit_req(e->db, &e->who);
    const char *text;
    int status;

    req->body = acct_json_own(pool, json_array());
    text = unit_call(req, api_preferences_put, &status);
    assert_int_equal(status, 400);
    assert_non_null(strstr(text, "Preferences must be a JSON object"));
}

/* The verification's storage functions, without the handlers. */
static void test_pending_model(void **state)
{
    env *e = *state;
    acct_store *st = e->db->store;
    apr_pool_t *p = e->db->pool;
    apr_int64_t uid = e->who.user_id;
    const char *number = "x";
    acct_phone_pending pd;
    int n = -1, i;

    assert_int_equal(acct_phone_verified_get(st, p, uid, &number),
                     ACCT_STORE_OK);
    assert_null(number);
    assert_int_equal(acct_phone_pending_get(st, p, uid, &pd), ACCT_STORE_OK);
    assert_false(pd.found);

    assert_int_equal(acct_phone_pending_issue(st, p, uid, "GB",
                                              "+447700900123", "h1", e->now,
                                              0), ACCT_STORE_OK);
    /* a live code for the same number stays as it is, unless forced */
    assert_int_equal(acct_phone_pending_issue(st, p, uid, "GB",
                                              "+447700900123", "h2",
                                              e->now + 5, 0), ACCT_STORE_OK);
    assert_int_equal(acct_phone_pending_get(st, p, uid, &pd), ACCT_STORE_OK);
    assert_true(pd.found && pd.complete && pd.issued_ok);
    assert_string_equal(pd.code_hash, "h1");
    assert_int_equal(pd.issued, e->now);
    assert_int_equal(pd.expires, e->now + ACCT_PHONE_CODE_TTL);
    assert_int_equal(acct_phone_pending_issue(st, p, uid, "GB",
                                              "+447700900123", "h2",
                                              e->now + 5, 1), ACCT_STORE_OK);
    assert_int_equal(acct_phone_pending_get(st, p, uid, &pd), ACCT_STORE_OK);
    assert_string_equal(pd.code_hash, "h2");

    /* wrong attempts count up to the limit, then lock */
    for (i = 0; i < ACCT_PHONE_MAX_ATTEMPTS; i++) {
        assert_int_equal(acct_phone_pending_miss(st, p, uid, &pd, &n),
                         ACCT_STORE_OK);
        assert_int_equal(n, 1);
    }
    assert_int_equal(acct_phone_pending_miss(st, p, uid, &pd, &n),
                     ACCT_STORE_OK);
    assert_int_equal(n, 0);
    assert_int_equal(acct_phone_verify(st, p, uid, &pd, e->now + 6, &n),
                     ACCT_STORE_OK);
    assert_int_equal(n, 0);

    /* a fresh code verifies once */
    assert_int_equal(acct_phone_pending_issue(st, p, uid, "US",
                                              "+12025550123", "h3",
                                              e->now + 10, 0), ACCT_STORE_OK);
    assert_int_equal(acct_phone_pending_get(st, p, uid, &pd), ACCT_STORE_OK);
    assert_int_equal(pd.attempts, 0);
    assert_int_equal(acct_phone_verify(st, p, uid, &pd, e->now + 11, &n),
                     ACCT_STORE_OK);
    assert_int_equal(n, 1);
    assert_int_equal(acct_phone_verify(st, p, uid, &pd, e->now + 11, &n),
                     ACCT_STORE_OK);
    assert_int_equal(n, 0);
    assert_int_equal(acct_phone_verified_get(st, p, uid, &number),
                     ACCT_STORE_OK);
    assert_string_equal(number, "+12025550123");

    assert_int_equal(acct_phone_number_delete(st, p, uid), ACCT_STORE_OK);
    assert_int_equal(acct_phone_verified_get(st, p, uid, &number),
                     ACCT_STORE_OK);
    assert_null(number);
}

/* apr_dbd's drivers are loaded into a pool that outlives every test. */
static apr_pool_t *dbd_pool;

static int group_setup(void **state)
{
    if (apr_pool_create(&dbd_pool, NULL) != APR_SUCCESS) {
        return -1;
    }
    return apr_dbd_init(dbd_pool) == APR_SUCCESS ? 0 : -1;
}

static int group_teardown(void **state)
{
    apr_pool_destroy(dbd_pool);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_country_table),
        UNIT_TEST(test_normalise),
        UNIT_TEST(test_code_derivation),
        UNIT_TEST(test_sms_runner),
        ENV_TEST(test_send_validation),
        ENV_TEST(test_send_and_verify),
        ENV_TEST(test_expiry_and_replacement),
        ENV_TEST(test_wrong_codes_limited),
        ENV_TEST(test_other_user_and_replay),
        ENV_TEST(test_send_failures),
        ENV_TEST(test_preferences),
        ENV_TEST(test_preferences_not_object),
        ENV_TEST(test_pending_model),
    };

    return UNIT_RUN_GROUP(tests, group_setup, group_teardown);
}
