/* Fixtures and helpers shared by the phone tests (test_phone_*.c): log
 * capture and scratch files, the sealing keys, the handler environment (a
 * migrated SQLite database, each handler call wrapped in a transaction the
 * way the module's glue does it) and its reads, and the group fixture that
 * loads apr_dbd's drivers.  Header-only, as unit.h is; include it after
 * unit.h and unit_db.h. */
#ifndef UNIT_PHONE_H
#define UNIT_PHONE_H

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

static inline void capture_sink(acct_log_level level, const char *file,
                                int line, const char *msg, void *baton)
{
    size_t n = strlen(logged);

    snprintf(logged + n, sizeof(logged) - n, "[%d] %s\n", (int)level, msg);
}

static inline void log_capture(void)
{
    logged[0] = '\0';
    acct_log_set_sink(capture_sink, NULL);
}

/* A private directory under /tmp for the test's scripts and outputs. */
static inline const char *scratch_dir(apr_pool_t *p)
{
    char *dir = apr_pstrdup(p, "/tmp/acct-phone-XXXXXX");

    assert_non_null(mkdtemp(dir));
    return dir;
}

static inline void scratch_remove(apr_pool_t *p, const char *dir)
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

static inline const char *write_script(apr_pool_t *p, const char *dir,
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

static inline const char *read_text(apr_pool_t *p, const char *path)
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

static const unsigned char key_a[ACCT_SEAL_KEY_LEN] =
    "0123456789abcdef0123456789abcdef";
static const unsigned char key_b[ACCT_SEAL_KEY_LEN] =
    "fedcba9876543210fedcba9876543210";

typedef struct env {
    unit_db *db;
    acct_settings settings;
    const char *dir;
    const char *sms_out;      /* the recorder's file */
    const char *sms_ok;       /* the recorder command */
    acct_principal who;
    apr_int64_t now;
} env;

static inline int env_setup(void **state)
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

static inline int env_teardown(void **state)
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
static inline reply call(env *e, const acct_principal *who, acct_handler *h,
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
static inline const char *error_at(reply r, size_t i)
{
    json_t *item = json_array_get(json_object_get(r.doc, "errors"), i);
    const char *field = json_string_value(json_object_get(item, "field"));

    return apr_pstrcat(pool,
                       json_string_value(json_object_get(item, "reason")), "|",
                       field ? field : "", NULL);
}

static inline size_t error_count(reply r)
{
    return json_array_size(json_object_get(r.doc, "errors"));
}

static inline const char *query_one(env *e, const char *sql, apr_int64_t uid)
{
    const char *args[1];
    acct_rows *rows = NULL;

    args[0] = acct_i64(pool, uid);
    assert_int_equal(acct_store_select_dynamic(e->db->store, pool, sql, &rows,
                                               1, args), ACCT_STORE_OK);
    return rows->nrows ? rows->values[0][0] : NULL;
}

static inline const char *verified_number(env *e, apr_int64_t uid)
{
    return query_one(e, "SELECT verified_phone_number FROM users"
                        " WHERE id = CAST(%s AS BIGINT)", uid);
}

static inline const char *pending_column(env *e, apr_int64_t uid,
                                         const char *col)
{
    return query_one(e, apr_pstrcat(pool, "SELECT ", col, " FROM "
                                    "phone_verifications WHERE user_id = "
                                    "CAST(%s AS BIGINT)", NULL), uid);
}

/* The code of the last message sent, from the recorder's file. */
static inline const char *last_code(env *e, const char **number)
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

static inline int messages_sent(env *e)
{
    const char *t = read_text(pool, e->sms_out);
    int n = 0;

    for (; *t; t++) {
        n += *t == '\n';
    }
    return n;
}

static inline const char *verify_body(const char *code)
{
    return apr_psprintf(pool, "{\"otp_code\":\"%s\"}", code);
}

/* A code that is not `code`. */
static inline const char *other_code(const char *code)
{
    return apr_psprintf(pool, "%06d", (atoi(code) + 1) % 1000000);
}

/* apr_dbd's drivers are loaded into a pool that outlives every test. */
static apr_pool_t *dbd_pool;

static inline int group_setup(void **state)
{
    if (apr_pool_create(&dbd_pool, NULL) != APR_SUCCESS) {
        return -1;
    }
    return apr_dbd_init(dbd_pool) == APR_SUCCESS ? 0 : -1;
}

static inline int group_teardown(void **state)
{
    apr_pool_destroy(dbd_pool);
    return 0;
}

#endif
