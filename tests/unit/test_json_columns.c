/* The acct_json column helpers (string, integer, boolean, number, time,
 * parsed column) and acct_json_dump. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_json_str),
        UNIT_TEST(test_json_int_table),
        UNIT_TEST(test_json_bool_table),
        UNIT_TEST(test_json_number_table),
        UNIT_TEST(test_json_time),
        UNIT_TEST(test_json_parse_column),
        UNIT_TEST(test_dump),
    };

    return UNIT_RUN(tests);
}
