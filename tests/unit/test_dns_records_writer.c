/* Domain records: the Record writer, whose text is what jansson's compact
 * dump gives for the same document. */
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
#include "api_handlers.h"

#include "unit_records.h"

/* ------------------------------------------------------------------------
 * The Record writer: its text is what jansson's compact dump gives for the
 * same document (so a client reads the same bytes as from any other answer)
 * ------------------------------------------------------------------------ */

static const char *const record_column_names[] = {
    "id", "type", "name", "target", "priority", "weight", "port", "service",
    "protocol", "ttl_sec", "tag", "created", "updated", NULL
};

static acct_rows *record_rows(const char *const (*values)[13], int n)
{
    acct_rows *rows = apr_pcalloc(pool, sizeof(*rows));

    rows->ncols = 13;
    rows->nrows = n;
    rows->names = (const char **)record_column_names;
    rows->values = apr_pcalloc(pool, sizeof(const char **) * (apr_size_t)n);
    for (int i = 0; i < n; i++) {
        rows->values[i] = (const char **)values[i];
    }
    return rows;
}

/* `text` (len bytes) parses, and jansson dumps the parsed document to the
 * very same bytes. */
static json_t *assert_canonical(const char *text, apr_size_t len)
{
    json_error_t err;
    json_t *doc = json_loadb(text, len, JSON_DECODE_ANY, &err);
    size_t dumped_len = 0;
    char *dumped;

    if (!doc) {
        fail_msg("not JSON (%s): %.*s", err.text, (int)len, text);
    }
    dumped = acct_json_dump(pool, doc, &dumped_len);
    assert_non_null(dumped);
    if (dumped_len != len || memcmp(dumped, text, len) != 0) {
        fail_msg("writer: %.*s\njansson: %s", (int)len, text, dumped);
    }
    assert_int_equal(text[len], '\0');
    return doc;
}

static void test_record_writer_is_jansson_compact(void **state)
{
    static const char *const values[][13] = {
        {"1", "A", "www", "192.0.2.1", "0", "0", "0", NULL, NULL, "300", NULL,
         "1700000000", "1700000000"},
        {"2", "TXT", "q\"uote\\back", "tab\there\nline \x01\x1f ctl",
         "10", "5", "5060", "_sip", "_tcp", "0", "issue", "0", "2147483648"},
        {"3", "TXT", "caf\xc3\xa9-\xe2\x82\xac-\xf0\x9f\x98\x80",
         "not utf-8 \xff\xfe", "-1", "65535", "x", NULL, NULL, NULL, NULL,
         NULL, "1700000001"},
        /* Integers as a column may hold them: written again unless already
         * as jansson writes them (a leading zero, "-0", a plus, 18 digits
         * and more, the most negative). */
        {"4", "MX", "", "", "007", "-0", "+5", NULL, NULL,
         "9223372036854775807", NULL, "-9223372036854775808",
         "123456789012345678"},
    };
    acct_rows *rows = record_rows(values, 4);
    apr_size_t len = 0;
    const char *text;
    json_t *doc, *page;

    (void)state;
    for (int i = 0; i < 4; i++) {
        text = acct_record_object_text(pool, rows, i, &len);
        doc = assert_canonical(text, len);
        assert_int_equal(json_object_size(doc), 13);
        if (i == 1) {
            assert_string_equal(json_string_value(json_object_get(doc, "name")),
                                "q\"uote\\back");
            assert_int_equal(json_integer_value(json_object_get(doc, "port")),
                             5060);
        }
        if (i == 2) {
            /* Text that is not UTF-8 is null, as acct_json_str makes it;
             * a column that is not an integer is 0. */
            assert_true(json_is_null(json_object_get(doc, "target")));
            assert_int_equal(json_integer_value(json_object_get(doc, "port")),
                             0);
        }
        if (i == 3) {
            assert_int_equal(json_integer_value(json_object_get(doc, "priority")),
                             7);
            assert_int_equal(json_integer_value(json_object_get(doc, "weight")),
                             0);
            /* Not an integer to acct_parse_i64: 0, as acct_json_int. */
            assert_int_equal(json_integer_value(json_object_get(doc, "port")),
                             0);
            assert_true(json_integer_value(json_object_get(doc, "ttl_sec"))
                        == APR_INT64_MAX);
        }
        json_decref(doc);
    }
    text = acct_record_json_text(pool, rows, &len);
    page = assert_canonical(text, len);
    assert_int_equal(json_array_size(page), 4);
    for (int i = 0; i < 4; i++) {
        apr_size_t one_len = 0;
        const char *one = acct_record_object_text(pool, rows, i, &one_len);
        char *item = acct_json_dump(pool, json_array_get(page, (size_t)i), NULL);

        assert_string_equal(item, one);
    }
    json_decref(page);
    text = acct_record_json_text(pool, record_rows(values, 0), &len);
    assert_int_equal(len, 2);
    assert_string_equal(text, "[]");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_record_writer_is_jansson_compact),
    };

    return UNIT_DB_RUN(tests);
}
