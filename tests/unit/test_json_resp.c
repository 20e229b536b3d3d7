/* acct_resp_*: the response, its errors, problem lists and the one answer
 * made of them, the field readers, statuses and their reasons. */
#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include <apr_strings.h>
#include <apr_time.h>
#include <jansson.h>

#include "acct_api.h"
#include "acct_body.h"
#include "acct_json.h"

#include "unit_json.h"

/* ------------------------------------------------------------------------
 * acct_resp_*
 * ------------------------------------------------------------------------ */

static void test_resp_init(void **state)
{
    acct_resp r;

    memset(&r, 0x5a, sizeof(r));
    acct_resp_init(&r, pool);
    assert_int_equal(r.status, 500);
    assert_null(r.body);
    assert_null(r.errors);
    assert_non_null(r.headers);
}

static void test_resp_ok(void **state)
{
    acct_resp r;
    json_t *body;

    acct_resp_init(&r, pool);
    acct_resp_ok(&r, pool, NULL);
    assert_int_equal(r.status, 200);
    assert_false(acct_resp_failed(&r));
    expect_dump("ok NULL", acct_resp_document(&r, pool), "{}");

    acct_resp_init(&r, pool);
    body = json_pack("{s:i,s:s}", "id", 7, "label", "x");
    acct_resp_ok(&r, pool, body);
    assert_int_equal(r.status, 200);
    assert_ptr_equal(acct_resp_document(&r, pool), body);
    expect_dump("ok body", acct_resp_document(&r, pool),
                "{\"id\":7,\"label\":\"x\"}");
}

static void test_resp_error_field(void **state)
{
    acct_resp r;
    json_t *doc, *item;

    acct_resp_init(&r, pool);
    acct_resp_error(&r, pool, 400, "Label is required", "label");
    assert_int_equal(r.status, 400);
    assert_true(acct_resp_failed(&r));
    doc = acct_resp_document(&r, pool);
    expect_dump("with field", doc,
                "{\"errors\":[{\"reason\":\"Label is required\","
                "\"field\":\"label\"}]}");

    acct_resp_init(&r, pool);
    acct_resp_error(&r, pool, 404, ACCT_R_NOT_FOUND, NULL);
    doc = acct_resp_document(&r, pool);
    expect_dump("without field", doc, "{\"errors\":[{\"reason\":\"Not found\"}]}");
    item = json_array_get(json_object_get(doc, "errors"), 0);
    assert_non_null(item);
    /* The key is absent, not null. */
    assert_null(json_object_get(item, "field"));
    assert_int_equal(json_object_size(item), 1);
    assert_int_equal(json_object_size(doc), 1);
}

static void test_resp_errors_accumulate(void **state)
{
    acct_resp r;
    json_t *doc;

    acct_resp_init(&r, pool);
    acct_resp_ok(&r, pool, NULL);
    acct_resp_invalid(&r, pool, "label", "Label must be 3..32 characters");
    acct_resp_invalid(&r, pool, "security_questions[1].response",
                      "Response must be 3..17 characters");
    acct_resp_error(&r, pool, 400, "Something else", NULL);
    assert_int_equal(r.status, 400);
    assert_int_equal(json_array_size(r.errors), 3);
    doc = acct_resp_document(&r, pool);
    expect_dump("three", doc,
                "{\"errors\":["
                "{\"reason\":\"Label must be 3..32 characters\","
                "\"field\":\"label\"},"
                "{\"reason\":\"Response must be 3..17 characters\","
                "\"field\":\"security_questions[1].response\"},"
                "{\"reason\":\"Something else\"}]}");

    /* The last status wins. */
    acct_resp_error(&r, pool, 404, ACCT_R_NOT_FOUND, NULL);
    assert_int_equal(r.status, 404);
    assert_int_equal(json_array_size(json_object_get(
                         acct_resp_document(&r, pool), "errors")), 4);
}

/* ------------------------------------------------------------------------
 * Problem lists and the one answer made of them
 * ------------------------------------------------------------------------ */

static void test_problems_list(void **state)
{
    acct_problems *p = acct_problems_make(pool);
    int i;

    assert_false(acct_problems_any(p));
    assert_int_equal(acct_problems_count(p), 0);
    acct_problem_add(p, "label", "Label must be 3..32 characters");
    acct_problem_add(p, NULL, "A reason of the whole body");
    assert_true(acct_problems_any(p));
    assert_int_equal(acct_problems_count(p), 2);
    assert_string_equal(acct_problem_field(p, 0), "label");
    assert_string_equal(acct_problem_reason(p, 0),
                        "Label must be 3..32 characters");
    assert_null(acct_problem_field(p, 1));
    assert_string_equal(acct_problem_reason(p, 1), "A reason of the whole body");
    /* Many: the order they were added in, whatever the growth. */
    for (i = 0; i < 100; i++) {
        acct_problem_add(p, apr_psprintf(pool, "f%d", i), "r");
    }
    assert_int_equal(acct_problems_count(p), 102);
    for (i = 0; i < 100; i++) {
        assert_string_equal(acct_problem_field(p, i + 2),
                            apr_psprintf(pool, "f%d", i));
    }
}

/* The envelope of a list is exactly what adding its items one by one with
 * acct_resp_invalid made: the wire output did not change. */
static void test_resp_problems(void **state)
{
    acct_problems *p = acct_problems_make(pool);
    acct_resp got, want;
    apr_size_t got_len = 0, want_len = 0;
    const char *got_text, *want_text;

    acct_problem_add(p, "b", "second field, first problem");
    acct_problem_add(p, "a", "first field");
    acct_problem_add(p, NULL, "no field");
    acct_resp_init(&got, pool);
    acct_resp_problems(&got, pool, p);
    acct_resp_init(&want, pool);
    acct_resp_invalid(&want, pool, "b", "second field, first problem");
    acct_resp_invalid(&want, pool, "a", "first field");
    acct_resp_invalid(&want, pool, NULL, "no field");
    assert_int_equal(got.status, 400);
    got_text = acct_resp_text(&got, pool, &got_len);
    want_text = acct_resp_text(&want, pool, &want_len);
    assert_int_equal(got_len, want_len);
    assert_memory_equal(got_text, want_text, want_len);
    expect_dump("problems", acct_resp_document(&got, pool),
                "{\"errors\":["
                "{\"reason\":\"second field, first problem\",\"field\":\"b\"},"
                "{\"reason\":\"first field\",\"field\":\"a\"},"
                "{\"reason\":\"no field\"}]}");

    /* No problem adds nothing: the response stays as it was. */
    acct_resp_init(&got, pool);
    acct_resp_problems(&got, pool, acct_problems_make(pool));
    assert_null(got.errors);
    assert_int_equal(got.status, 500);
}

/* Values read by read_each. */
typedef struct {
    const char *s, *e;
    apr_int64_t t;
    int b;
} read_values;

/* Every reader over `body`, each expected to give `want`. */
static void read_each(acct_req *req, acct_problems *p, const char *body,
                      acct_field_rc want, read_values *v)
{
    static const char *const settable[] = {"s", "t", "b", "e", NULL};
    static const char *const choices[] = {"one", "two", NULL};

    req->body = decode(body);
    acct_fields_settable(req, p, settable, NULL);
    assert_int_equal(acct_field_string(req, p, "s", 1, 5, 0, &v->s), want);
    assert_int_equal(acct_field_timestamp(req, p, "t", 0, &v->t), want);
    assert_int_equal(acct_field_bool(req, p, "b", &v->b), want);
    assert_int_equal(acct_field_enum(req, p, "e", choices, &v->e), want);
}

/* The body readers report into a list, in the order they ran, and never
 * into a response. */
static void test_field_readers(void **state)
{
    acct_problems *p = acct_problems_make(pool);
    read_values v = {NULL, NULL, 0, 0};
    const char *s = NULL;
    acct_req req;

    memset(&req, 0, sizeof(req));
    req.pool = pool;
    read_each(&req, p, "{\"s\":\"ok\",\"t\":\"2024-01-02T03:04:05\","
                       "\"b\":true,\"e\":\"two\"}", ACCT_FIELD_SET, &v);
    acct_field_require(&req, p, "s", ACCT_FIELD_SET);
    assert_false(acct_problems_any(p));
    assert_string_equal(v.s, "ok");
    assert_string_equal(v.e, "two");
    assert_true(v.b);

    read_each(&req, p, "{\"x\":1,\"s\":\"too long\",\"t\":\"soon\","
                       "\"b\":1,\"e\":\"three\"}", ACCT_FIELD_BAD, &v);
    acct_field_require(&req, p, "absent",
                       acct_field_string(&req, p, "absent", 1, 5, 0, &s));
    /* "x" is not a field of the route: ignored (docs/conventions.md, "Today's
     * clients"). */
    assert_int_equal(acct_problems_count(p), 5);
    assert_string_equal(problem_text(p, 0),
                        "s: Length must be 1-5 characters");
    assert_string_equal(problem_text(p, 1), "t: Must be a date-time in the "
                        "form YYYY-MM-DDTHH:MM:SS (UTC)");
    assert_string_equal(problem_text(p, 2), "b: b must be true or false");
    assert_string_equal(problem_text(p, 3), "e: e must be one of: one, two");
    assert_string_equal(problem_text(p, 4), "absent: absent is required");

    /* null is an absent field to every reader */
    read_each(&req, p, "{\"s\":null,\"t\":null,\"b\":null,\"e\":null}",
              ACCT_FIELD_ABSENT, &v);
    assert_int_equal(acct_problems_count(p), 5);
}

/* The forms of a date-time the public API's clients write (RFC 3339),
 * all read as UTC epoch seconds. */
static void test_field_timestamp_forms(void **state)
{
    static const struct {
        const char *text;
        apr_int64_t epoch;    /* -1: refused */
    } cases[] = {
        {"2024-01-02T03:04:05", 1704164645},
        {"2024-01-02T03:04:05Z", 1704164645},
        {"2024-01-02T03:04:05z", 1704164645},
        {"2024-01-02T03:04:05.999Z", 1704164645},
        {"2024-01-02T03:04:05.5", 1704164645},
        {"2024-01-02T05:04:05+02:00", 1704164645},
        {"2024-01-01T22:34:05-04:30", 1704164645},
        {"2024-01-02T03:04:05+00:00", 1704164645},
        {"2024-01-02T03:04:05.", -1},
        {"2024-01-02T03:04:05+0200", -1},
        {"2024-01-02T03:04:05+24:00", -1},
        {"2024-01-02T03:04:05 ", -1},
        {"2024-01-02T03:04:05ZZ", -1},
        {"2024-01-02 03:04:05", -1},
        {"2024-01-02", -1},
        {"2024-02-30T00:00:00Z", -1},
    };
    acct_req req;
    size_t i;

    memset(&req, 0, sizeof(req));
    req.pool = pool;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        acct_problems *p = acct_problems_make(pool);
        apr_int64_t t = 0;
        acct_field_rc rc;

        req.body = json_pack("{s:s}", "t", cases[i].text);
        rc = acct_field_timestamp(&req, p, "t", 0, &t);
        UNIT_CHECKF(cases[i].epoch < 0 ? rc == ACCT_FIELD_BAD
                                       : rc == ACCT_FIELD_SET
                                         && t == cases[i].epoch,
                    "%s: rc %d, %" APR_INT64_T_FMT, cases[i].text, (int)rc,
                    t);
        json_decref(req.body);
    }
}

static void test_resp_status_without_item(void **state)
{
    acct_resp r;

    /* init says 500: a handler that never answered gets a reason anyway. */
    acct_resp_init(&r, pool);
    expect_dump("bare 500", acct_resp_document(&r, pool),
                "{\"errors\":[{\"reason\":\"Internal server error\"}]}");

    acct_resp_init(&r, pool);
    r.status = 404;
    expect_dump("bare 404", acct_resp_document(&r, pool),
                "{\"errors\":[{\"reason\":\"Not found\"}]}");
    assert_int_equal(r.status, 404);
}

static void test_resp_store_error(void **state)
{
    acct_resp r;

    acct_resp_init(&r, pool);
    acct_resp_store_error(&r, pool, ACCT_STORE_UNAVAILABLE);
    assert_int_equal(r.status, 503);
    expect_dump("503", acct_resp_document(&r, pool),
                "{\"errors\":[{\"reason\":\"Service Unavailable\"}]}");

    acct_resp_init(&r, pool);
    acct_resp_store_error(&r, pool, ACCT_STORE_FAILED);
    assert_int_equal(r.status, 500);
    expect_dump("500", acct_resp_document(&r, pool),
                "{\"errors\":[{\"reason\":\"Internal server error\"}]}");
}

typedef struct {
    int status;
    const char *reason;
} reason_case;

static const reason_case reason_cases[] = {
    {401, "Invalid Token"},
    {403, "Unauthorized"},
    {404, "Not found"},
    {405, "Method Not Allowed"},
    {413, "Request body too large"},
    {415, "Content-Type must be application/json"},
    {429, "Too many requests"},
    {500, "Internal server error"},
    {502, "Internal server error"},
    {503, "Service Unavailable"},
    {504, "Internal server error"},
};

static void test_reason_for_status(void **state)
{
    size_t i;

    for (i = 0; i < sizeof(reason_cases) / sizeof(reason_cases[0]); i++) {
        const reason_case *c = &reason_cases[i];
        const char *got = acct_reason_for_status(c->status);

        if (!got || strcmp(got, c->reason) != 0) {
            print_error("status %d: got \"%s\", want \"%s\"\n", c->status,
                        got ? got : "(null)", c->reason);
            fail();
        }
    }
    /* Every 4xx and 5xx has some reason. */
    for (i = 400; i < 600; i++) {
        const char *got = acct_reason_for_status((int)i);

        UNIT_CHECK(apr_psprintf(pool, "status %u", (unsigned)i),
                   got != NULL && *got != '\0');
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_resp_init),
        UNIT_TEST(test_resp_ok),
        UNIT_TEST(test_resp_error_field),
        UNIT_TEST(test_resp_errors_accumulate),
        UNIT_TEST(test_problems_list),
        UNIT_TEST(test_resp_problems),
        UNIT_TEST(test_field_readers),
        UNIT_TEST(test_field_timestamp_forms),
        UNIT_TEST(test_resp_status_without_item),
        UNIT_TEST(test_resp_store_error),
        UNIT_TEST(test_reason_for_status),
    };

    return UNIT_RUN(tests);
}
