/* acct_json_decode_body and acct_json_scan: bodies decoded, and the limits
 * checked on their raw text. */
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
    };

    return UNIT_RUN(tests);
}
