/* Domain records: the validator, driven by the case files of
 * tests/unit/records (see its README), and the rules a JSON file cannot
 * carry (text that is not UTF-8, NUL bytes, the longest values). */
#include "unit.h"

#include <apr_dbd.h>
#include <apr_file_info.h>
#include <apr_strings.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "unit_db.h"
#include "acct_body.h"
#include "acct_json.h"
#include "acct_domain.h"
#include "acct_record.h"
#include "acct_record_body.h"
#include "acct_record_json.h"
#include "acct_record_store.h"
#include "api_handlers.h"

#include "unit_records.h"

/* ------------------------------------------------------------------------
 * The case files
 * ------------------------------------------------------------------------ */

static const char *const record_keys[] = {
    "type", "name", "target", "priority", "weight", "port", "service",
    "protocol", "ttl_sec", "tag", NULL
};

static const char *cases_dir(void)
{
    const char *top = getenv("top_srcdir");

    return apr_pstrcat(pool, top && *top ? top : ".", "/tests/unit/records",
                       NULL);
}

/* A case's stored record, through a row as the handlers read one. */
static void current_record(json_t *c, acct_record *out)
{
    static const char *names[11];
    const char **values = apr_pcalloc(pool, sizeof(char *) * 11), ***rowv;
    acct_rows rows;
    int i;

    for (i = 0; record_keys[i]; i++) {
        json_t *v = json_object_get(c, record_keys[i]);

        names[i] = record_keys[i];
        if (json_is_integer(v)) {
            values[i] = acct_i64(pool, json_integer_value(v));
        }
        else if (json_is_string(v)) {
            values[i] = json_string_value(v);
        }
    }
    rowv = apr_pcalloc(pool, sizeof(*rowv));
    rowv[0] = values;
    rows.nrows = 1;
    rows.ncols = i;
    rows.names = names;
    rows.values = rowv;
    acct_record_from_row(&rows, 0, out);
}

/* acct_record_read after the body's other keys and nulls are judged, with
 * its problems answered into `resp`, as the handlers do, so the cases read
 * the envelope the client gets.  No stored Record: the handler tests judge
 * read-only keys against one. */
static int record_read(acct_req *req, acct_resp *resp,
                       const acct_record *current,
                       const acct_record_zone *zone, acct_record *out)
{
    acct_problems *pb = acct_problems_make(pool);
    int rc;

    acct_fields_settable(req, pb, acct_record_fields, NULL);
    rc = acct_record_read(req, pb, current, zone, out);

    acct_resp_problems(resp, pool, pb);
    return rc;
}

static void check_case(const char *name, json_t *c)
{
    json_t *current = json_object_get(c, "current");
    json_t *want_out = json_object_get(c, "output");
    json_t *want_err = json_object_get(c, "errors");
    json_t *got;
    acct_record cur, rec;
    acct_record_zone zone;
    acct_req req;
    acct_resp resp;
    int rc;

    UNIT_CHECKF((want_out != NULL) != (want_err != NULL),
                "%s: needs output or errors", name);
    memset(&req, 0, sizeof(req));
    req.pool = pool;
    req.body = json_object_get(c, "input");
    UNIT_CHECKF(json_is_object(req.body), "%s: input", name);
    zone.domain = json_string_value(json_object_get(c, "domain"));
    zone.domain = zone.domain ? zone.domain : "example.com";
    zone.remote_addr = json_string_value(json_object_get(c, "remote_addr"));
    if (current) {
        current_record(current, &cur);
    }
    acct_resp_init(&resp, pool);
    rc = record_read(&req, &resp, current ? &cur : NULL, &zone, &rec);
    if (want_out) {
        UNIT_CHECKF(rc == 0, "%s: refused with %s", name, dump(resp.errors));
        got = record_object(&rec);
        UNIT_CHECKF(json_equal(got, want_out), "%s: got %s", name, dump(got));
        json_decref(got);
        return;
    }
    UNIT_CHECKF(rc == -1, "%s: accepted", name);
    UNIT_CHECKF(json_equal(resp.errors, want_err), "%s: got %s", name,
                dump(resp.errors));
}

/* Calls check_case on every *.json file; returns how many ran. */
static int each_case(const char *prefix)
{
    const char *dir = cases_dir();
    apr_dir_t *d = NULL;
    apr_finfo_t fi;
    json_error_t err;
    int n = 0;

    if (apr_dir_open(&d, dir, pool) != APR_SUCCESS) {
        fail_msg("cannot open %s (set top_srcdir)", dir);
    }
    while (apr_dir_read(&fi, APR_FINFO_NAME | APR_FINFO_TYPE, d)
           == APR_SUCCESS) {
        size_t len = strlen(fi.name);
        json_t *c;

        if (fi.filetype != APR_REG || len < 5
            || strcmp(fi.name + len - 5, ".json") != 0
            || strncmp(fi.name, prefix, strlen(prefix)) != 0) {
            continue;
        }
        c = json_load_file(apr_pstrcat(pool, dir, "/", fi.name, NULL),
                           JSON_REJECT_DUPLICATES, &err);
        if (!c) {
            fail_msg("%s/%s: %s", dir, fi.name, err.text);
        }
        check_case(fi.name, c);
        json_decref(c);
        n++;
    }
    apr_dir_close(d);
    return n;
}

/* Every rule has a passing and a failing case: at least this many. */
static void test_cases_common(void **state)
{
    assert_true(each_case("any-") >= 30);
}

static void test_cases_a(void **state)
{
    assert_true(each_case("a-") >= 8);
    assert_true(each_case("aaaa-") >= 5);
}

static void test_cases_ns(void **state)
{
    assert_true(each_case("ns-") >= 5);
}

static void test_cases_mx(void **state)
{
    assert_true(each_case("mx-") >= 12);
}

static void test_cases_cname(void **state)
{
    assert_true(each_case("cname-") >= 6);
}

static void test_cases_txt(void **state)
{
    assert_true(each_case("txt-") >= 7);
}

static void test_cases_srv(void **state)
{
    assert_true(each_case("srv-") >= 9);
}

static void test_cases_ptr(void **state)
{
    assert_true(each_case("ptr-") >= 5);
}

static void test_cases_caa(void **state)
{
    assert_true(each_case("caa-") >= 14);
}

static void test_cases_update(void **state)
{
    assert_true(each_case("put-") >= 8);
}

/* ------------------------------------------------------------------------
 * Rules a JSON file cannot carry: text that is not UTF-8 never reaches
 * the validator (the body decoder refuses it), NUL bytes do not either;
 * the longest values are built here rather than stored.
 * ------------------------------------------------------------------------ */

static int read_body(json_t *body, const acct_record *current,
                     acct_record *out, acct_resp *resp)
{
    acct_record_zone zone = {"example.com", "192.0.2.50"};
    acct_req req;

    memset(&req, 0, sizeof(req));
    req.pool = pool;
    req.body = body;
    acct_resp_init(resp, pool);
    return record_read(&req, resp, current, &zone, out);
}

static void test_target_lengths(void **state)
{
    char *text = apr_palloc(pool, 65537);
    acct_record rec;
    acct_resp resp;
    json_t *body;

    memset(text, 'x', 65536);
    text[65536] = '\0';
    body = json_pack("{s:s, s:s}", "type", "TXT", "target", text);
    assert_int_equal(read_body(body, NULL, &rec, &resp), -1);
    assert_string_equal(json_string_value(json_object_get(
        json_array_get(resp.errors, 0), "field")), "target");
    json_decref(body);
    /* Within the contract's 65535 characters, but no DNS record could hold
     * it once split into 255-byte strings. */
    text[ACCT_RECORD_TXT_BYTES_MAX + 1] = '\0';
    body = json_pack("{s:s, s:s}", "type", "TXT", "target", text);
    assert_int_equal(read_body(body, NULL, &rec, &resp), -1);
    assert_non_null(strstr(json_string_value(json_object_get(
        json_array_get(resp.errors, 0), "reason")), "too long for DNS"));
    json_decref(body);
    text[ACCT_RECORD_TXT_BYTES_MAX] = '\0';
    body = json_pack("{s:s, s:s}", "type", "TXT", "target", text);
    assert_int_equal(read_body(body, NULL, &rec, &resp), 0);
    assert_int_equal(strlen(rec.target), ACCT_RECORD_TXT_BYTES_MAX);
    json_decref(body);
}

/* The validator's own result: its problems, in the order a client reads
 * them, and nothing answered (it knows no response). */
static void test_read_problems(void **state)
{
    static const char *const want[][2] = {
        {"ttl_sec", "ttl_sec must be a whole number of seconds"},
        {"weight", "weight is only valid for SRV records"},
        {"name", "@ is not a valid name: use an empty string for the "
                 "domain itself"},
        {"target", "target must be an IPv4 address, such as 192.0.2.10, or "
                   "[remote_addr]"},
    };
    acct_record_zone zone = {"example.com", NULL};
    acct_problems *pb = acct_problems_make(pool);
    acct_record rec;
    acct_req req;
    size_t i;

    memset(&req, 0, sizeof(req));
    req.pool = pool;
    req.body = json_pack("{s:s, s:s, s:s, s:i, s:f, s:s}", "type", "A",
                         "name", "@", "target", "192.0.2.300", "weight", 5,
                         "ttl_sec", 1.5, "color", "blue");
    /* "color", not a field of a record, is ignored (docs/conventions.md,
     * "Today's
     * clients") */
    acct_fields_settable(&req, pb, acct_record_fields, NULL);
    assert_int_equal(acct_record_read(&req, pb, NULL, &zone, &rec), -1);
    assert_int_equal(acct_problems_count(pb), sizeof(want) / sizeof(want[0]));
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        assert_string_equal(acct_problem_field(pb, (int)i), want[i][0]);
        assert_string_equal(acct_problem_reason(pb, (int)i), want[i][1]);
    }
    json_decref(req.body);

    /* A valid record adds none; an SRV's missing parts are named each (its
     * protocol defaults to tcp). */
    pb = acct_problems_make(pool);
    req.body = json_pack("{s:s, s:s}", "type", "A", "target", "192.0.2.3");
    assert_int_equal(acct_record_read(&req, pb, NULL, &zone, &rec), 0);
    assert_false(acct_problems_any(pb));
    json_decref(req.body);
    req.body = json_pack("{s:s, s:s}", "type", "SRV", "target", "sip");
    assert_int_equal(acct_record_read(&req, pb, NULL, &zone, &rec), -1);
    assert_int_equal(acct_problems_count(pb), 4);
    assert_string_equal(acct_problem_field(pb, 0), "service");
    assert_string_equal(acct_problem_field(pb, 1), "priority");
    assert_string_equal(acct_problem_field(pb, 2), "weight");
    assert_string_equal(acct_problem_field(pb, 3), "port");
    json_decref(req.body);
}

static void test_embedded_nul(void **state)
{
    acct_record rec;
    acct_resp resp;
    json_t *body = json_pack("{s:s, s:s#}", "type", "TXT", "target",
                             "a\0b", (size_t)3);

    assert_int_equal(read_body(body, NULL, &rec, &resp), -1);
    json_decref(body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_cases_common),
        UNIT_TEST(test_read_problems),
        UNIT_TEST(test_cases_a),
        UNIT_TEST(test_cases_ns),
        UNIT_TEST(test_cases_mx),
        UNIT_TEST(test_cases_cname),
        UNIT_TEST(test_cases_txt),
        UNIT_TEST(test_cases_srv),
        UNIT_TEST(test_cases_ptr),
        UNIT_TEST(test_cases_caa),
        UNIT_TEST(test_cases_update),
        UNIT_TEST(test_target_lengths),
        UNIT_TEST(test_embedded_nul),
    };

    return UNIT_DB_RUN(tests);
}
