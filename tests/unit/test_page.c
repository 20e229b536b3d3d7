#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include <apr_tables.h>

#include "acct_page.h"

#define SIZE_REASON "page_size must be an integer between 25 and 500"
#define PAGE_REASON "page must be an integer greater than or equal to 1"

/* NULL value: parameter absent. */
typedef struct {
    const char *page;
    const char *page_size;
    int rc;
    apr_int64_t want_page;
    apr_int64_t want_size;
    const char *field;
    const char *reason;
} parse_case;

static const parse_case parse_cases[] = {
    {NULL, NULL, 0, 1, 100, NULL, NULL},
    {"1", NULL, 0, 1, 100, NULL, NULL},
    {"7", "25", 0, 7, 25, NULL, NULL},
    {NULL, "500", 0, 1, 500, NULL, NULL},
    {"9223372036854775807", NULL, 0, APR_INT64_MAX, 100, NULL, NULL},
    {"0", NULL, -1, 0, 0, "page", PAGE_REASON},
    {"-1", NULL, -1, 0, 0, "page", PAGE_REASON},
    {"", NULL, -1, 0, 0, "page", PAGE_REASON},
    {"+1", NULL, -1, 0, 0, "page", PAGE_REASON},
    {" 1", NULL, -1, 0, 0, "page", PAGE_REASON},
    {"1 ", NULL, -1, 0, 0, "page", PAGE_REASON},
    {"1.0", NULL, -1, 0, 0, "page", PAGE_REASON},
    {"0x10", NULL, -1, 0, 0, "page", PAGE_REASON},
    {"1e2", NULL, -1, 0, 0, "page", PAGE_REASON},
    {"abc", NULL, -1, 0, 0, "page", PAGE_REASON},
    {"9223372036854775808", NULL, -1, 0, 0, "page", PAGE_REASON},
    {"99999999999999999999999", NULL, -1, 0, 0, "page", PAGE_REASON},
    {NULL, "0", -1, 0, 0, "page_size", SIZE_REASON},
    {NULL, "1", -1, 0, 0, "page_size", SIZE_REASON},
    {NULL, "24", -1, 0, 0, "page_size", SIZE_REASON},
    {NULL, "501", -1, 0, 0, "page_size", SIZE_REASON},
    {NULL, "-25", -1, 0, 0, "page_size", SIZE_REASON},
    {NULL, "", -1, 0, 0, "page_size", SIZE_REASON},
    {NULL, "25.0", -1, 0, 0, "page_size", SIZE_REASON},
    {NULL, "+25", -1, 0, 0, "page_size", SIZE_REASON},
    {NULL, "0x19", -1, 0, 0, "page_size", SIZE_REASON},
    {NULL, "18446744073709551641", -1, 0, 0, "page_size", SIZE_REASON},
    {"0", "1", -1, 0, 0, "page", PAGE_REASON},
};

static void test_parse_table(void **state)
{
    size_t i;

    for (i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
        const parse_case *c = &parse_cases[i];
        apr_table_t *q = apr_table_make(pool, 2);
        acct_page pg = {-5, -5};
        const char *field = NULL, *reason = NULL;
        int rc;

        if (c->page) {
            apr_table_set(q, "page", c->page);
        }
        if (c->page_size) {
            apr_table_set(q, "page_size", c->page_size);
        }
        rc = acct_page_parse(q, &pg, &field, &reason);
        UNIT_CHECK_CASE(i, rc == c->rc);
        if (rc == 0) {
            UNIT_CHECK_CASE(i, pg.page == c->want_page);
            UNIT_CHECK_CASE(i, pg.page_size == c->want_size);
            UNIT_CHECK_CASE(i, field == NULL && reason == NULL);
        }
        else {
            UNIT_CHECK_CASE(i, field && strcmp(field, c->field) == 0);
            UNIT_CHECK_CASE(i, reason && strcmp(reason, c->reason) == 0);
            /* A failed parse leaves the output alone. */
            UNIT_CHECK_CASE(i, pg.page == -5 && pg.page_size == -5);
        }
    }
}

static void test_parse_null_query(void **state)
{
    acct_page pg;
    const char *field = NULL, *reason = NULL;

    assert_int_equal(acct_page_parse(NULL, &pg, &field, &reason), 0);
    assert_true(pg.page == 1);
    assert_true(pg.page_size == ACCT_PAGE_SIZE_DEFAULT);
}

static void test_parse_ignores_other_keys(void **state)
{
    apr_table_t *q = apr_table_make(pool, 2);
    acct_page pg;
    const char *field = NULL, *reason = NULL;

    apr_table_set(q, "pages", "zzz");
    apr_table_set(q, "size", "zzz");
    apr_table_set(q, "page_size", "250");
    assert_int_equal(acct_page_parse(q, &pg, &field, &reason), 0);
    assert_true(pg.page == 1);
    assert_true(pg.page_size == 250);
}

typedef struct {
    apr_int64_t page;
    apr_int64_t page_size;
    apr_int64_t results;
    apr_int64_t offset;
    apr_int64_t pages;
} math_case;

static const math_case math_cases[] = {
    {1, 25, 0, 0, 1},
    {1, 100, 0, 0, 1},
    {1, 25, 1, 0, 1},
    {1, 25, 25, 0, 1},
    {1, 25, 26, 0, 2},
    {2, 25, 101, 25, 5},
    {5, 25, 101, 100, 5},
    {6, 25, 101, 125, 5},
    {3, 500, 1000, 1000, 2},
    {1, 500, APR_INT64_MAX, 0, APR_INT64_MAX / 500 + 1},
    {APR_INT64_MAX, 500, 3, APR_INT64_MAX, 1},
    {APR_INT64_MAX / 25 + 1, 25, 3, APR_INT64_MAX / 25 * 25, 1},
    {APR_INT64_MAX / 25 + 2, 25, 3, APR_INT64_MAX, 1},
};

static void test_math_table(void **state)
{
    size_t i;

    for (i = 0; i < sizeof(math_cases) / sizeof(math_cases[0]); i++) {
        const math_case *c = &math_cases[i];
        acct_page pg;

        pg.page = c->page;
        pg.page_size = c->page_size;
        UNIT_CHECK_CASE(i, acct_page_offset(&pg) == c->offset);
        UNIT_CHECK_CASE(i, acct_page_count(&pg, c->results) == c->pages);
    }
}

static void check_envelope(json_t *env, apr_int64_t page, apr_int64_t pages,
                           apr_int64_t results, size_t items)
{
    assert_non_null(env);
    assert_int_equal(json_object_size(env), 4);
    assert_true(json_is_array(json_object_get(env, "data")));
    assert_int_equal(json_array_size(json_object_get(env, "data")), items);
    assert_true(json_integer_value(json_object_get(env, "page")) == page);
    assert_true(json_integer_value(json_object_get(env, "pages")) == pages);
    assert_true(json_integer_value(json_object_get(env, "results"))
                == results);
}

static void test_envelope_empty(void **state)
{
    acct_page pg = {1, 100};
    json_t *env = acct_page_envelope(json_array(), &pg, 0);
    char *text;

    check_envelope(env, 1, 1, 0, 0);
    text = json_dumps(env, JSON_COMPACT);
    assert_string_equal(text,
                        "{\"data\":[],\"page\":1,\"pages\":1,\"results\":0}");
    free(text);
    json_decref(env);
}

static void test_envelope_pages(void **state)
{
    acct_page pg = {2, 25};
    json_t *data = json_array();
    json_t *env;
    int i;

    for (i = 0; i < 25; i++) {
        json_array_append_new(data, json_integer(i));
    }
    env = acct_page_envelope(data, &pg, 101);
    check_envelope(env, 2, 5, 101, 25);
    json_decref(env);
}

static void test_envelope_past_end(void **state)
{
    acct_page pg = {9, 25};
    json_t *env = acct_page_envelope(json_array(), &pg, 101);

    check_envelope(env, 9, 5, 101, 0);
    json_decref(env);
}

static void test_envelope_null_data(void **state)
{
    acct_page pg = {1, 25};

    assert_null(acct_page_envelope(NULL, &pg, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_parse_table),
        UNIT_TEST(test_parse_null_query),
        UNIT_TEST(test_parse_ignores_other_keys),
        cmocka_unit_test(test_math_table),
        cmocka_unit_test(test_envelope_empty),
        cmocka_unit_test(test_envelope_pages),
        cmocka_unit_test(test_envelope_past_end),
        cmocka_unit_test(test_envelope_null_data),
    };

    return UNIT_RUN(tests);
}
