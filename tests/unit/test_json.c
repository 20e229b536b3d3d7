#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include <apr_strings.h>
#include <apr_time.h>
#include <jansson.h>

#include "acct_api.h"
#include "acct_body.h"
#include "acct_json.h"

/* Compact text of `j` (pool memory), for comparisons. */
static const char *dump(const json_t *j)
{
    const char *text = acct_json_dump(pool, j, NULL);

    return text ? text : "(dump failed)";
}

static void expect_dump(const char *label, const json_t *j, const char *want)
{
    const char *got = j ? dump(j) : "(NULL json_t)";

    if (strcmp(got, want) != 0) {
        print_error("%s: got %s, want %s\n", label, got, want);
        fail();
    }
}

static json_t *decode(const char *text)
{
    return acct_json_decode_body(pool, text, strlen(text), NULL);
}

/* ------------------------------------------------------------------------
 * acct_json_decode_body
 * ------------------------------------------------------------------------ */

typedef struct {
    const char *text;
    int ok;
} decode_case;

static const decode_case decode_cases[] = {
    {"{}", 1},
    {"{\"label\":\"x\",\"ttl_sec\":300,\"tags\":[\"a\",\"b\"]}", 1},
    {" \t\r\n{\"a\":null} \n", 1},
    {"{\"a\":{\"a\":{\"a\":1}}}", 1},          /* same key, other objects */
    {"[{\"a\":1},{\"a\":2}]", 1},             /* same key, other objects */
    {"{\"caf\xc3\xa9\":\"\xe2\x82\xac\xf0\x9f\x98\x80\"}", 1},
    {"{\"a\":\"\\u00e9\\ud83d\\ude00\"}", 1},
    {"{\"a\":\"\\\\\"}", 1},
    {"{\"a\":\"\\\"\"}", 1},
    {"[1,2,3]", 1},                           /* the caller checks objects */
    {"[]", 1},
    {"[{}]", 1},

    /* Duplicate keys, at any level. */
    {"{\"a\":1,\"a\":2}", 0},
    {"{\"a\":1,\"a\":1}", 0},
    {"{\"x\":{\"a\":1,\"b\":2,\"a\":3}}", 0},
    {"[{\"a\":1,\"a\":2}]", 0},
    {"{\"x\":[{\"y\":{\"k\":1,\"k\":2}}]}", 0},
    {"{\"\\u0061\":1,\"a\":2}", 0},           /* same key once decoded */

    /* Invalid UTF-8, in values and in keys. */
    {"{\"a\":\"\xff\"}", 0},
    {"{\"a\":\"\xc3\"}", 0},                  /* truncated sequence */
    {"{\"a\":\"\xe2\x82\"}", 0},
    {"{\"a\":\"\xc0\xaf\"}", 0},              /* overlong '/' */
    {"{\"a\":\"\xed\xa0\x80\"}", 0},          /* UTF-8 encoded surrogate */
    {"{\"a\":\"\xf4\x90\x80\x80\"}", 0},      /* above U+10FFFF */
    {"{\"\xff\":1}", 0},
    {"{\"a\":\"\\ud800\"}", 0},               /* lone surrogate escape */
    {"{\"a\":\"\\udc00\"}", 0},

    /* NUL, escaped. */
    {"{\"a\":\"\\u0000\"}", 0},
    {"{\"a\":\"x\\u0000y\"}", 0},
    {"{\"\\u0000\":1}", 0},

    /* Trailing garbage. */
    {"{} x", 0},
    {"{}{}", 0},
    {"{}}", 0},
    {"{}]", 0},
    {"{},", 0},
    {"[1]]", 0},
    {"{\"a\":1}\"", 0},

    /* Empty and malformed. */
    {"", 0},
    {" ", 0},
    {"\n\t ", 0},
    {"{", 0},
    {"}", 0},
    {"]", 0},
    {"{\"a\"}", 0},
    {"{\"a\":}", 0},
    {"{\"a\":1,}", 0},
    {"[1,]", 0},
    {"{'a':1}", 0},
    {"{a:1}", 0},
    {"{\"a\":NaN}", 0},
    {"{\"a\":01}", 0},
    {"{\"a\":\"\t\"}", 0},                   /* raw control character */
    {"{\"a\":1} // comment", 0},
    {"]]]]{}", 0},
};

static void test_decode_table(void **state)
{
    size_t i;

    for (i = 0; i < sizeof(decode_cases) / sizeof(decode_cases[0]); i++) {
        const decode_case *c = &decode_cases[i];
        json_t *j = decode(c->text);

        if ((j != NULL) != c->ok) {
            print_error("decode case %u (%s): %s\n", (unsigned)i, c->text,
                        j ? "accepted" : "refused");
            fail();
        }
    }
}

static void test_decode_values(void **state)
{
    json_t *j = decode("{\"b\":\"x\",\"a\":[1,2.5,true,null],\"n\":-7}");

    assert_non_null(j);
    assert_true(json_is_object(j));
    assert_string_equal(json_string_value(json_object_get(j, "b")), "x");
    assert_int_equal(json_array_size(json_object_get(j, "a")), 4);
    assert_int_equal(json_integer_value(json_object_get(j, "n")), -7);
    /* Key order of the body is kept. */
    expect_dump("order", j, "{\"b\":\"x\",\"a\":[1,2.5,true,null],\"n\":-7}");

    j = decode("[1,2,3]");
    assert_non_null(j);
    assert_true(json_is_array(j));
    assert_int_equal(json_array_size(j), 3);
}

static void test_decode_null_and_length(void **state)
{
    static const char two[] = "{}{\"trailing\":1}";
    static const char nul[] = "{\"a\":\"x\0\"}";
    json_t *j;

    assert_null(acct_json_decode_body(pool, NULL, 0, NULL));
    assert_null(acct_json_decode_body(pool, "{}", 0, NULL));
    /* Only `len` bytes are read: the rest of the buffer does not count. */
    j = acct_json_decode_body(pool, two, 2, NULL);
    assert_non_null(j);
    assert_int_equal(json_object_size(j), 0);
    assert_null(acct_json_decode_body(pool, two, 3, NULL));
    /* A raw NUL byte inside the body. */
    assert_null(acct_json_decode_body(pool, nul, sizeof(nul) - 1, NULL));
    j = acct_json_decode_body(pool, "[1]xxxxxxxx[[[[", 3, NULL);
    assert_non_null(j);
}

/*
 * A body nested `depth` levels deep.  kind 0: arrays only; 1: objects only;
 * 2: alternating, starting with an object; 3: alternating, starting with an
 * array.
 */
static char *nested(int depth, int kind)
{
    apr_size_t cap = (apr_size_t)depth * 6 + 8, n = 0;
    char *buf = apr_palloc(pool, cap);
    int i;

    for (i = 0; i < depth; i++) {
        int obj = kind == 1 || (kind == 2 && i % 2 == 0)
                  || (kind == 3 && i % 2 == 1);

        if (obj) {
            memcpy(buf + n, "{\"k\":", 5);
            n += 5;
        }
        else {
            buf[n++] = '[';
        }
    }
    buf[n++] = '1';
    for (i = depth - 1; i >= 0; i--) {
        int obj = kind == 1 || (kind == 2 && i % 2 == 0)
                  || (kind == 3 && i % 2 == 1);

        buf[n++] = obj ? '}' : ']';
    }
    buf[n] = '\0';
    return buf;
}

static void test_decode_depth_limit(void **state)
{
    static const char *const kinds[] = {"arrays", "objects", "obj-first",
                                        "arr-first"};
    int kind, depth;

    assert_int_equal(ACCT_JSON_MAX_DEPTH, 64);
    for (kind = 0; kind < 4; kind++) {
        for (depth = 1; depth <= 70; depth++) {
            char *text = nested(depth, kind);
            json_t *j = decode(text);
            const char *label = apr_psprintf(pool, "%s, depth %d",
                                             kinds[kind], depth);

            if (depth <= ACCT_JSON_MAX_DEPTH) {
                UNIT_CHECK(label, j != NULL);
            }
            else {
                UNIT_CHECK(label, j == NULL);
            }
        }
    }
}

static void test_decode_very_deep_is_cheap(void **state)
{
    static const int depths[] = {10000, 100000, 1000000};
    size_t i;
    int kind;

    for (i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
        for (kind = 0; kind < 4; kind++) {
            char *text = nested(depths[i], kind);
            apr_time_t t0 = apr_time_now();
            json_t *j = decode(text);
            apr_time_t spent = apr_time_now() - t0;
            const char *label = apr_psprintf(pool, "depth %d kind %d",
                                              depths[i], kind);

            UNIT_CHECK(label, j == NULL);
            /* A linear scan: far below a second, even under valgrind. */
            UNIT_CHECK(label, spent < apr_time_from_sec(1));
        }
        /* Opening brackets only, never closed. */
        {
            char *open = apr_palloc(pool, (apr_size_t)depths[i] + 1);

            memset(open, '[', (size_t)depths[i]);
            open[depths[i]] = '\0';
            assert_null(decode(open));
        }
    }
}

static void test_decode_brackets_in_strings(void **state)
{
    char *opens = apr_palloc(pool, 201), *closes = apr_palloc(pool, 201);
    const char *deep63 = nested(63, 2), *deep64 = nested(64, 3);
    const char *text;

    memset(opens, '[', 200);
    opens[200] = '\0';
    memset(closes, ']', 200);
    closes[200] = '\0';

    /* Opening brackets inside strings do not count. */
    text = apr_psprintf(pool, "{\"a\":\"%s\"}", opens);
    UNIT_CHECK("[ in a value", decode(text) != NULL);
    text = apr_psprintf(pool, "{\"%s{{{\":1}", opens);
    UNIT_CHECK("[ in a key", decode(text) != NULL);
    text = apr_psprintf(pool, "{\"a\":\"\\\"%s\"}", opens);
    UNIT_CHECK("escaped quote then [", decode(text) != NULL);
    text = apr_psprintf(pool, "{\"a\":\"\\\"%s\\\"\",\"b\":\"%s\"}", opens,
                        opens);
    UNIT_CHECK("escaped quotes around [", decode(text) != NULL);
    text = apr_psprintf(pool, "{\"a\":\"\\\\\",\"b\":\"%s\"}", opens);
    UNIT_CHECK("escaped backslash, then [ in a string", decode(text) != NULL);

    /* ...with real nesting up to the limit beside them. */
    text = apr_psprintf(pool, "{\"a\":\"\\\"%s\",\"b\":%s}", opens, deep63);
    UNIT_CHECK("[ in string + 64 real", decode(text) != NULL);
    text = apr_psprintf(pool, "{\"a\":\"\\\"%s\",\"b\":%s}", opens, deep64);
    UNIT_CHECK("[ in string + 65 real", decode(text) == NULL);

    /* Closing brackets inside strings do not lower the count. */
    text = apr_psprintf(pool, "{\"a\":\"%s\",\"b\":%s}", closes, deep63);
    UNIT_CHECK("] in string + 64 real", decode(text) != NULL);
    text = apr_psprintf(pool, "{\"a\":\"%s\",\"b\":%s}", closes, deep64);
    UNIT_CHECK("] in string + 65 real", decode(text) == NULL);
    text = apr_psprintf(pool, "{\"a\":\"\\\"%s\\\\\",\"b\":%s}", closes,
                        deep64);
    UNIT_CHECK("escapes, ] in string + 65 real", decode(text) == NULL);

    /* After a string with an escaped backslash, brackets count again. */
    text = apr_psprintf(pool, "{\"a\":\"\\\\\",\"b\":%s}", deep64);
    UNIT_CHECK("\\\\ then 65 real", decode(text) == NULL);
    text = apr_psprintf(pool, "{\"a\":\"\\\\\",\"b\":%s}", deep63);
    UNIT_CHECK("\\\\ then 64 real", decode(text) != NULL);

    /* Sibling containers do not add up. */
    text = apr_psprintf(pool, "[%s,%s,%s]", nested(63, 0), nested(63, 1),
                        deep63);
    UNIT_CHECK("siblings at 64", decode(text) != NULL);
}

static void test_decode_owned_by_pool(void **state)
{
    apr_pool_t *sub;
    json_t *j;

    assert_int_equal(apr_pool_create(&sub, pool), APR_SUCCESS);
    j = acct_json_decode_body(sub, "{\"a\":[1,{\"b\":\"c\"}]}",
                              strlen("{\"a\":[1,{\"b\":\"c\"}]}"), NULL);
    assert_non_null(j);
    /* One reference, held by the pool. */
    assert_int_equal(j->refcount, 1);
    json_incref(j);
    apr_pool_destroy(sub);
    /* The pool's cleanup dropped its reference. */
    assert_int_equal(j->refcount, 1);
    json_decref(j);

    /* A refused body leaves nothing behind (valgrind checks). */
    assert_int_equal(apr_pool_create(&sub, pool), APR_SUCCESS);
    assert_null(acct_json_decode_body(sub, "{\"a\":1,\"a\":2}",
                                      strlen("{\"a\":1,\"a\":2}"), NULL));
    apr_pool_destroy(sub);

    /* Decoded roots without a manual decref: the test pool frees them. */
    assert_non_null(decode("{\"x\":{\"y\":[1,2,3,\"long string value\"]}}"));
}

/* ------------------------------------------------------------------------
 * Column helpers
 * ------------------------------------------------------------------------ */

static void test_json_str(void **state)
{
    json_t *j;

    j = acct_json_str(NULL);
    assert_true(json_is_null(j));
    json_decref(j);

    j = acct_json_str("\xff\xfe");
    assert_true(json_is_null(j));
    json_decref(j);

    j = acct_json_str("ok\xc3");
    assert_true(json_is_null(j));
    json_decref(j);

    j = acct_json_str("us-east");
    assert_true(json_is_string(j));
    assert_string_equal(json_string_value(j), "us-east");
    json_decref(j);

    j = acct_json_str("");
    assert_true(json_is_string(j));
    assert_string_equal(json_string_value(j), "");
    json_decref(j);

    j = acct_json_str("caf\xc3\xa9 \"q\"");
    assert_true(json_is_string(j));
    expect_dump("utf-8 and quote", j, "\"caf\xc3\xa9 \\\"q\\\"\"");
    json_decref(j);
}

typedef struct {
    const char *text;
    int is_null;          /* acct_json_int_or_null gives null */
    json_int_t value;     /* otherwise its value; acct_json_int gives 0 on null */
} int_case;

static const int_case int_cases[] = {
    {"12", 0, 12},
    {"-3", 0, -3},
    {"0", 0, 0},
    {"9223372036854775807", 0, INT64_MAX},
    {"-9223372036854775808", 0, INT64_MIN},
    {NULL, 1, 0},
    {"", 1, 0},
    {"12x", 1, 0},
    {"x12", 1, 0},
    {"1.5", 1, 0},
    {"12 ", 1, 0},
    {"abc", 1, 0},
};

static void test_json_int_table(void **state)
{
    size_t i;

    for (i = 0; i < sizeof(int_cases) / sizeof(int_cases[0]); i++) {
        const int_case *c = &int_cases[i];
        const char *label = c->text ? c->text : "NULL";
        json_t *a = acct_json_int_or_null(c->text);
        json_t *b = acct_json_int(c->text);

        UNIT_CHECK(label, a != NULL && b != NULL);
        if (c->is_null) {
            UNIT_CHECK(label, json_is_null(a));
        }
        else {
            UNIT_CHECK(label, json_is_integer(a));
            UNIT_CHECK(label, json_integer_value(a) == c->value);
        }
        UNIT_CHECK(label, json_is_integer(b));
        UNIT_CHECK(label,
                   json_integer_value(b) == (c->is_null ? 0 : c->value));
        json_decref(a);
        json_decref(b);
    }
}

typedef struct {
    const char *text;
    int value;
} bool_case;

static const bool_case bool_cases[] = {
    {"1", 1}, {"t", 1}, {"0", 0}, {"f", 0}, {NULL, 0}, {"", 0}, {"2", 0},
    {"false", 0}, {"F", 0},
};

static void test_json_bool_table(void **state)
{
    size_t i;

    for (i = 0; i < sizeof(bool_cases) / sizeof(bool_cases[0]); i++) {
        const bool_case *c = &bool_cases[i];
        const char *label = c->text ? c->text : "NULL";
        json_t *j = acct_json_bool(c->text);

        UNIT_CHECK(label, json_is_boolean(j));
        UNIT_CHECK(label, (json_is_true(j) ? 1 : 0) == c->value);
        json_decref(j);
    }
}

typedef struct {
    const char *text;
    int real;             /* a JSON real (else an integer) */
    const char *dumped;   /* acct_json_dump of the value */
} number_case;

static const number_case number_cases[] = {
    {"5", 0, "5"},
    {"0", 0, "0"},
    {"-12", 0, "-12"},
    {"5.0", 1, "5.0"},
    {"0.0075", 1, "0.0075"},
    {"0.015", 1, "0.015"},
    {"0.03", 1, "0.03"},
    {"0.1", 1, "0.1"},
    {"0.18", 1, "0.18"},
    {"36.0", 1, "36.0"},
    {"1234.56", 1, "1234.56"},
    {"99999.99", 1, "99999.99"},
    {"-1.25", 1, "-1.25"},
    {NULL, 0, "0"},
    {"", 0, "0"},
    {"abc", 0, "0"},
    {"1.5x", 0, "0"},
};

static void test_json_number_table(void **state)
{
    size_t i;

    for (i = 0; i < sizeof(number_cases) / sizeof(number_cases[0]); i++) {
        const number_case *c = &number_cases[i];
        const char *label = c->text ? c->text : "NULL";
        json_t *j = acct_json_number(c->text);

        UNIT_CHECK(label, j != NULL);
        UNIT_CHECK(label, c->real ? json_is_real(j) : json_is_integer(j));
        expect_dump(label, j, c->dumped);
        json_decref(j);
    }
}

static void test_json_time(void **state)
{
    json_t *j;

    j = acct_json_time(pool, "0");
    assert_true(json_is_string(j));
    assert_string_equal(json_string_value(j), "1970-01-01T00:00:00");
    json_decref(j);

    j = acct_json_time(pool, "951782400");
    assert_string_equal(json_string_value(j), "2000-02-29T00:00:00");
    json_decref(j);

    j = acct_json_time(pool, "2147483648");
    assert_string_equal(json_string_value(j), "2038-01-19T03:14:08");
    json_decref(j);

    j = acct_json_time(pool, NULL);
    assert_true(json_is_null(j));
    json_decref(j);

    j = acct_json_time(pool, "abc");
    assert_true(json_is_null(j));
    json_decref(j);

    j = acct_json_time(pool, "");
    assert_true(json_is_null(j));
    json_decref(j);

    j = acct_json_time(pool, "12x");
    assert_true(json_is_null(j));
    json_decref(j);
}

static void test_json_parse_column(void **state)
{
    json_t *j;

    j = acct_json_parse_column("[\"a\"]");
    assert_true(json_is_array(j));
    expect_dump("array", j, "[\"a\"]");
    json_decref(j);

    j = acct_json_parse_column("{\"x\":1}");
    assert_true(json_is_object(j));
    expect_dump("object", j, "{\"x\":1}");
    json_decref(j);

    j = acct_json_parse_column("{\"ipv4\":\"1.2.3.4, 5.6.7.8\",\"ipv6\":\"\"}");
    assert_true(json_is_object(j));
    expect_dump("key order", j,
                "{\"ipv4\":\"1.2.3.4, 5.6.7.8\",\"ipv6\":\"\"}");
    json_decref(j);

    j = acct_json_parse_column(NULL);
    assert_true(json_is_null(j));
    json_decref(j);

    j = acct_json_parse_column("not json");
    assert_true(json_is_null(j));
    json_decref(j);

    j = acct_json_parse_column("");
    assert_true(json_is_null(j));
    json_decref(j);

    j = acct_json_parse_column("[1,");
    assert_true(json_is_null(j));
    json_decref(j);
}

/* ------------------------------------------------------------------------
 * acct_json_dump
 * ------------------------------------------------------------------------ */

static void test_dump(void **state)
{
    json_t *o = acct_json_own(pool, json_object());
    json_t *inner = json_object();
    json_t *arr = json_array();
    size_t len = 0;
    char *text;

    json_object_set_new(o, "zeta", json_integer(1));
    json_object_set_new(o, "alpha", json_string("a b"));
    json_object_set_new(o, "mid", json_null());
    json_array_append_new(arr, json_integer(1));
    json_array_append_new(arr, json_true());
    json_array_append_new(arr, json_real(0.0075));
    json_array_append_new(arr, json_real(5.0));
    json_object_set_new(o, "list", arr);
    json_object_set_new(inner, "y", json_false());
    json_object_set_new(inner, "b", json_object());
    json_object_set_new(inner, "a", json_array());
    json_object_set_new(o, "inner", inner);

    text = acct_json_dump(pool, o, &len);
    assert_non_null(text);
    assert_string_equal(text,
                        "{\"zeta\":1,\"alpha\":\"a b\",\"mid\":null,"
                        "\"list\":[1,true,0.0075,5.0],"
                        "\"inner\":{\"y\":false,\"b\":{},\"a\":[]}}");
    assert_int_equal(len, strlen(text));

    /* Reals print as written. */
    expect_dump("0.0075", acct_json_own(pool, json_real(0.0075)), "0.0075");
    expect_dump("5.0", acct_json_own(pool, json_real(5.0)), "5.0");
    expect_dump("0.1", acct_json_own(pool, json_real(0.1)), "0.1");
    /* Scalars are serialised too. */
    expect_dump("string", acct_json_own(pool, json_string("x")), "\"x\"");
    expect_dump("null", json_null(), "null");
    expect_dump("empty object", acct_json_own(pool, json_object()), "{}");
}

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

/* Problem `i` as "field: reason" ("-" for no field). */
static const char *problem_text(const acct_problems *p, int i)
{
    const char *field = acct_problem_field(p, i);

    return apr_psprintf(pool, "%s: %s", field ? field : "-",
                        acct_problem_reason(p, i));
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

/* ------------------------------------------------------------------------
 * acct_fields_settable: the keys a route does not set
 * ------------------------------------------------------------------------ */

typedef struct {
    const char *body;
    const char *stored;   /* the object as a GET shows it; NULL: a create */
    const char *problems; /* "field: reason" joined by "; ", "" for none */
    const char *after;    /* the body as the field readers then see it */
} settable_case;

/* The route sets "label" and "tags"; the stored object shows more. */
#define STORED "{\"id\":7,\"label\":\"a\",\"tags\":[\"x\"]," \
    "\"created\":\"2026-01-02T03:04:05\",\"size\":1.5," \
    "\"hosts\":{\"primary\":\"p\",\"secondary\":null}," \
    "\"note\":null,\"flag\":false}"

static const settable_case settable_cases[] = {
    /* settable keys pass through, whatever their values */
    {"{\"label\":\"b\",\"tags\":[]}", STORED, "",
     "{\"label\":\"b\",\"tags\":[]}"},
    {"{\"label\":5}", STORED, "", "{\"label\":5}"},
    /* unknown keys: ignored, and left for no one to read */
    {"{\"domainId\":5,\"recordId\":6,\"label\":\"b\"}", STORED, "",
     "{\"domainId\":5,\"recordId\":6,\"label\":\"b\"}"},
    /* nulls are dropped: unchanged (PUT) or the default (POST) */
    {"{\"label\":null,\"tags\":null,\"id\":null,\"bogus\":null}", STORED,
     "", "{}"},
    {"{\"label\":null}", NULL, "", "{}"},
    /* shown keys equal to the stored value: ignored */
    {STORED, STORED, "",
     "{\"id\":7,\"label\":\"a\",\"tags\":[\"x\"],"
     "\"created\":\"2026-01-02T03:04:05\",\"size\":1.5,"
     "\"hosts\":{\"primary\":\"p\",\"secondary\":null},\"flag\":false}"},
    {"{\"id\":7.0,\"size\":1.5,\"flag\":false}", STORED, "",
     "{\"id\":7.0,\"size\":1.5,\"flag\":false}"},
    {"{\"hosts\":{\"secondary\":null,\"primary\":\"p\"}}", STORED, "",
     "{\"hosts\":{\"secondary\":null,\"primary\":\"p\"}}"},
    /* shown keys that differ: refused, each named, in body order */
    {"{\"id\":8,\"created\":\"2026-01-02 03:04:05\",\"label\":\"b\"}",
     STORED, "id: id cannot be changed; created: created cannot be changed",
     NULL},
    {"{\"id\":\"7\"}", STORED, "id: id cannot be changed", NULL},
    {"{\"flag\":0}", STORED, "flag: flag cannot be changed", NULL},
    {"{\"hosts\":{\"primary\":\"p\"}}", STORED,
     "hosts: hosts cannot be changed", NULL},
    {"{\"tags\":[\"x\"],\"size\":2}", STORED,
     "size: size cannot be changed", NULL},
    /* a create has no stored object: every other key is ignored */
    {"{\"id\":8,\"created\":\"soon\",\"label\":\"b\"}", NULL, "",
     "{\"id\":8,\"created\":\"soon\",\"label\":\"b\"}"},
};

/* The problems of `p` as "field: reason; ...". */
static const char *problems_text(const acct_problems *p)
{
    const char *out = "";
    int i;

    for (i = 0; i < acct_problems_count(p); i++) {
        out = apr_pstrcat(pool, out, i ? "; " : "", problem_text(p, i), NULL);
    }
    return out;
}

static void test_fields_settable(void **state)
{
    static const char *const settable[] = {"label", "tags", NULL};
    size_t i;

    for (i = 0; i < sizeof(settable_cases) / sizeof(settable_cases[0]); i++) {
        const settable_case *c = &settable_cases[i];
        acct_problems *p = acct_problems_make(pool);
        json_t *stored = c->stored ? decode(c->stored) : NULL;
        acct_req req;

        memset(&req, 0, sizeof(req));
        req.pool = pool;
        req.body = decode(c->body);
        acct_fields_settable(&req, p, settable, stored);
        UNIT_CHECKF(strcmp(problems_text(p), c->problems) == 0,
                    "case %u %s: problems [%s]", (unsigned)i, c->body,
                    problems_text(p));
        UNIT_CHECKF(!c->after || acct_json_same(req.body, decode(c->after)),
                    "case %u %s: body after %s", (unsigned)i, c->body,
                    dump(req.body));
        /* the stored object is only read */
        UNIT_CHECKF(!stored || strcmp(dump(stored), dump(decode(c->stored)))
                               == 0, "case %u: stored changed", (unsigned)i);
    }
}

/* No body (a handler called without one) is no key at all. */
static void test_fields_settable_without_body(void **state)
{
    static const char *const settable[] = {"label", NULL};
    acct_problems *p = acct_problems_make(pool);
    acct_req req;

    memset(&req, 0, sizeof(req));
    req.pool = pool;
    acct_fields_settable(&req, p, settable, decode(STORED));
    assert_false(acct_problems_any(p));
    assert_false(acct_fields_beyond(&req, settable));
}

/* A nested object's keys are named with the prefix; its nulls go too. */
static void test_object_settable(void **state)
{
    static const char *const settable[] = {"frequency", "duration", NULL};
    acct_problems *p = acct_problems_make(pool);
    json_t *o = decode("{\"frequency\":\"weekly\",\"duration\":null,"
                       "\"pending\":[],\"hour\":3,\"day\":2}");

    acct_object_settable(pool, p, o, "updates.", settable,
                         decode("{\"frequency\":\"monthly\",\"hour\":4,"
                                "\"day\":2}"));
    assert_string_equal(problems_text(p),
                        "updates.hour: updates.hour cannot be changed");
    expect_dump("nested after", o, "{\"frequency\":\"weekly\","
                "\"pending\":[],\"hour\":3,\"day\":2}");
    /* not an object: nothing to judge */
    acct_object_settable(pool, p, acct_json_own(pool, json_string("x")), "u.",
                         settable, NULL);
    acct_object_settable(pool, p, NULL, "u.", settable, NULL);
    assert_int_equal(acct_problems_count(p), 1);
}

/* Only a key that is neither settable nor null needs the stored object. */
static void test_fields_beyond(void **state)
{
    static const struct {
        const char *body;
        int beyond;
    } cases[] = {
        {"{}", 0},
        {"{\"label\":\"b\",\"tags\":[]}", 0},
        {"{\"label\":\"b\",\"private_network\":null}", 0},
        {"{\"label\":\"b\",\"id\":7}", 1},
        {"{\"domainId\":5}", 1},
    };
    static const char *const settable[] = {"label", "tags", NULL};
    acct_req req;
    size_t i;

    memset(&req, 0, sizeof(req));
    req.pool = pool;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        req.body = decode(cases[i].body);
        UNIT_CHECKF(acct_fields_beyond(&req, settable) == cases[i].beyond,
                    "case %u %s", (unsigned)i, cases[i].body);
    }
}

/* JSON equality as a GET's body sent back is judged. */
static void test_json_same(void **state)
{
    static const struct {
        const char *a, *b;
        int same;
    } cases[] = {
        {"[1]", "[1.0]", 1},
        {"[0.0]", "[0]", 1},
        {"[1.5]", "[1.5]", 1},
        {"[1]", "[2]", 0},
        {"[1]", "[\"1\"]", 0},
        {"[9007199254740993]", "[9007199254740992]", 0},
        {"[true]", "[1]", 0},
        {"[false]", "[false]", 1},
        {"[null]", "[null]", 1},
        {"[null]", "[\"\"]", 0},
        {"[\"2026-01-02T03:04:05\"]", "[\"2026-01-02T03:04:05\"]", 1},
        {"[\"2026-01-02T03:04:05\"]", "[\"2026-01-02T03:04:05Z\"]", 0},
        {"{\"a\":1,\"b\":[1,2]}", "{\"b\":[1.0,2],\"a\":1.0}", 1},
        {"{\"a\":1}", "{\"a\":1,\"b\":null}", 0},
        {"{\"a\":1,\"c\":2}", "{\"a\":1,\"b\":2}", 0},
        {"[[1,2]]", "[[2,1]]", 0},
        {"[[1,2]]", "[[1,2,3]]", 0},
        {"[{}]", "[[]]", 0},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *a = decode(cases[i].a), *b = decode(cases[i].b);

        UNIT_CHECKF(acct_json_same(a, b) == cases[i].same
                    && acct_json_same(b, a) == cases[i].same,
                    "case %u: %s %s", (unsigned)i, cases[i].a, cases[i].b);
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

/* ------------------------------------------------------------------------
 * acct_json_scan: the body limits, checked on the raw text
 * ------------------------------------------------------------------------ */

#define OK_ ACCT_JSON_SCAN_OK
#define BAD ACCT_JSON_SCAN_MALFORMED
#define DEEP ACCT_JSON_SCAN_TOO_DEEP
#define MANY ACCT_JSON_SCAN_TOO_MANY_VALUES
#define LONG ACCT_JSON_SCAN_STRING_TOO_LONG

typedef struct {
    const char *text;
    acct_json_scan_rc rc;
} scan_case;

/* Small limits: depth 2, 4 values, strings of 3 characters. */
static const acct_json_limits small = {2, 4, 3};

static const scan_case scan_cases[] = {
    /* Values: every scalar, array and object counts; keys do not. */
    {"[1,2,3]", OK_},                       /* 4: at the bound */
    {"[1,2,3,4]", MANY},                    /* 5: one past */
    {"{\"a\":1,\"b\":2,\"c\":3}", OK_},
    {"{\"a\":1,\"b\":2,\"c\":3,\"d\":4}", MANY},
    {"[[],{},null]", OK_},
    {"[[],{},null,true]", MANY},
    {"[\"a\",false,-1.5e+3]", OK_},
    {"[\"a\",false,-1.5e+3,0]", MANY},
    {"[1,2,3,4", MANY},                     /* the limit comes first */
    {"[x,1,2,3,4]", BAD},                   /* the defect comes first */
    /* Strings: characters, not bytes; an escape is one; keys count too. */
    {"[\"abc\"]", OK_},
    {"[\"abcd\"]", LONG},
    {"[\"\\n\\t\\\"\"]", OK_},
    {"[\"\\n\\t\\\"x\"]", LONG},
    {"[\"\\u00e9\\/\\\\\"]", OK_},
    {"[\"\\u00e9\\/\\\\\\b\"]", LONG},
    {"[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"]", OK_},
    {"[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80!\"]", LONG},
    {"{\"abc\":\"\"}", OK_},
    {"{\"abcd\":\"\"}", LONG},
    {"[\"[[[[{{{{\"]", LONG},              /* brackets in strings are text */
    {"[\"[[{\"]", OK_},
    /* Depth: objects and arrays alike. */
    {"[[1]]", OK_},
    {"[[[1]]]", DEEP},
    {"{\"a\":{\"b\":1}}", OK_},
    {"{\"a\":{\"b\":{}}}", DEEP},
    {"[{\"a\":[]}]", DEEP},
    {"[[],[],[]]", OK_},
    /* Malformed text. */
    {"", BAD}, {"  ", BAD}, {"[", BAD}, {"]", BAD}, {"[1,]", BAD},
    {"[,1]", BAD}, {"[1 2]", BAD}, {"{\"a\"}", BAD}, {"{\"a\":}", BAD},
    {"{\"a\":1,}", BAD}, {"{1:2}", BAD}, {"{\"a\" 1}", BAD}, {"[1}", BAD},
    {"{\"a\":1]", BAD}, {"[1]x", BAD}, {"[1][2]", BAD}, {"01", BAD},
    {"-", BAD}, {"1.", BAD}, {"1.e3", BAD}, {"1e", BAD}, {"1e+", BAD},
    {"+1", BAD}, {"tru", BAD}, {"nul", BAD}, {"True", BAD}, {"[\"a", BAD},
    {"[\"a\\", BAD}, {"[\"\\x\"]", BAD}, {"[\"\\u12g4\"]", BAD},
    {"[\"\\u12\"]", BAD}, {"[\"a\x01\"]", BAD}, {"[\"a\tb\"]", BAD},
    {"\"abc", BAD}, {"[1]\x0b", BAD},
    /* Well-formed: scalars at the top too (jansson refuses those later). */
    {" \t\r\n[ -0 , 0.5 , 1E-2 ] \n", OK_},
    {"\"abc\"", OK_}, {"-12.5e7", OK_}, {"true", OK_}, {"null", OK_},
    {"{}", OK_}, {"[]", OK_}, {"{ \"a\" : [ ] }", OK_},
};

static void test_scan_table(void **state)
{
    size_t i;

    for (i = 0; i < sizeof(scan_cases) / sizeof(scan_cases[0]); i++) {
        const scan_case *c = &scan_cases[i];
        acct_json_scan_rc rc = acct_json_scan(c->text, strlen(c->text),
                                              &small);

        if (rc != c->rc) {
            print_error("scan case %u (%s): rc %d, want %d\n", (unsigned)i,
                        c->text, (int)rc, (int)c->rc);
            fail();
        }
    }
}

/* Only `len` bytes count, and a NUL byte is no terminator. */
static void test_scan_length(void **state)
{
    static const char nul[] = "[\"a\0\"]";

    assert_int_equal(acct_json_scan("[1]]]]", 3, &small), ACCT_JSON_SCAN_OK);
    assert_int_equal(acct_json_scan("[1,2,3,4]", 6, &small),
                     ACCT_JSON_SCAN_MALFORMED);
    assert_int_equal(acct_json_scan(nul, sizeof(nul) - 1, &small),
                     ACCT_JSON_SCAN_MALFORMED);
    assert_int_equal(acct_json_scan("[1,\0]", 5, &small),
                     ACCT_JSON_SCAN_MALFORMED);
}

/* A body of `n` values: an array of n - 1 zeros. */
static char *values_body(size_t n)
{
    char *text = apr_palloc(pool, 2 * n + 2), *p = text;
    size_t i;

    *p++ = '[';
    for (i = 0; i + 1 < n; i++) {
        *p++ = '0';
        *p++ = i + 2 < n ? ',' : ']';
    }
    *p = '\0';
    return text;
}

/* {"a":"xxx..."}: a string of `n` characters. */
static char *string_body(size_t n, const char *unit, size_t unit_len)
{
    char *text = apr_palloc(pool, n * unit_len + 16), *p = text;
    size_t i;

    memcpy(p, "{\"a\":\"", 6);
    p += 6;
    for (i = 0; i < n; i++) {
        memcpy(p, unit, unit_len);
        p += unit_len;
    }
    memcpy(p, "\"}", 3);
    return text;
}

static void expect_reason(const char *text, const char *want)
{
    const char *reason = "(unset)";
    json_t *j = acct_json_decode_body(pool, text, strlen(text), &reason);

    if (want == NULL) {
        assert_non_null(j);
        return;
    }
    assert_null(j);
    if (strcmp(reason, want) != 0) {
        print_error("reason \"%s\", want \"%s\"\n", reason, want);
        fail();
    }
}

/* The body limits themselves, exactly at and one past each. */
static void test_decode_body_limits(void **state)
{
    static const char many[] =
        "Request body has too many JSON values (at most 65536)";
    static const char longer[] =
        "Request body has a JSON string that is too long "
        "(at most 262144 characters)";
    json_t *j;

    assert_int_equal(ACCT_JSON_MAX_VALUES, 65536);
    assert_int_equal(ACCT_JSON_MAX_STRING, 262144);
    assert_int_equal(acct_json_body_limits.max_depth, ACCT_JSON_MAX_DEPTH);
    assert_int_equal(acct_json_body_limits.max_values, ACCT_JSON_MAX_VALUES);
    assert_int_equal(acct_json_body_limits.max_string, ACCT_JSON_MAX_STRING);

    j = acct_json_decode_body(pool, values_body(ACCT_JSON_MAX_VALUES),
                              2 * ACCT_JSON_MAX_VALUES - 1, NULL);
    assert_non_null(j);
    assert_int_equal(json_array_size(j), ACCT_JSON_MAX_VALUES - 1);
    expect_reason(values_body(ACCT_JSON_MAX_VALUES + 1), many);
    /* Half a million values: refused by the scan, no tree built. */
    expect_reason(values_body(520000), many);

    expect_reason(string_body(ACCT_JSON_MAX_STRING, "x", 1), NULL);
    expect_reason(string_body(ACCT_JSON_MAX_STRING + 1, "x", 1), longer);
    /* Characters, not bytes: four-byte characters, and escapes. */
    expect_reason(string_body(ACCT_JSON_MAX_STRING, "\xf0\x9f\x98\x80", 4),
                  NULL);
    expect_reason(string_body(ACCT_JSON_MAX_STRING + 1, "\xf0\x9f\x98\x80", 4),
                  longer);
    expect_reason(string_body(ACCT_JSON_MAX_STRING, "\\u00e9", 6), NULL);
    expect_reason(string_body(ACCT_JSON_MAX_STRING + 1, "\\n", 2), longer);

    /* Malformed text and too deep a nesting keep "Invalid JSON". */
    expect_reason("{\"a\":", ACCT_R_INVALID_JSON);
    expect_reason("{\"a\":1,\"a\":2}", ACCT_R_INVALID_JSON);  /* jansson's */
    expect_reason("{\"a\":\"\xff\"}", ACCT_R_INVALID_JSON);   /* jansson's */
    expect_reason(nested(ACCT_JSON_MAX_DEPTH + 1, 2), ACCT_R_INVALID_JSON);
    assert_null(acct_json_scan_reason(pool, ACCT_JSON_SCAN_OK));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_decode_table),
        UNIT_TEST(test_decode_values),
        UNIT_TEST(test_decode_null_and_length),
        UNIT_TEST(test_decode_depth_limit),
        UNIT_TEST(test_decode_very_deep_is_cheap),
        UNIT_TEST(test_decode_brackets_in_strings),
        UNIT_TEST(test_decode_owned_by_pool),
        UNIT_TEST(test_scan_table),
        UNIT_TEST(test_scan_length),
        UNIT_TEST(test_decode_body_limits),
        UNIT_TEST(test_json_str),
        UNIT_TEST(test_json_int_table),
        UNIT_TEST(test_json_bool_table),
        UNIT_TEST(test_json_number_table),
        UNIT_TEST(test_json_time),
        UNIT_TEST(test_json_parse_column),
        UNIT_TEST(test_dump),
        UNIT_TEST(test_resp_init),
        UNIT_TEST(test_resp_ok),
        UNIT_TEST(test_resp_error_field),
        UNIT_TEST(test_resp_errors_accumulate),
        UNIT_TEST(test_problems_list),
        UNIT_TEST(test_resp_problems),
        UNIT_TEST(test_field_readers),
        UNIT_TEST(test_field_timestamp_forms),
        UNIT_TEST(test_fields_settable),
        UNIT_TEST(test_fields_settable_without_body),
        UNIT_TEST(test_object_settable),
        UNIT_TEST(test_fields_beyond),
        UNIT_TEST(test_json_same),
        UNIT_TEST(test_resp_status_without_item),
        UNIT_TEST(test_resp_store_error),
        UNIT_TEST(test_reason_for_status),
    };

    return UNIT_RUN(tests);
}
