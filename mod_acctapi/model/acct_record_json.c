/*
 * The API's Record object as JSON text, written straight from the rows
 * (acct_record_object_text, acct_record_json_text): the one writer of the
 * shape, for single answers and pages alike.
 */
#include "acct_record_json.h"
#include "acct_json.h"
#include "acct_text.h"

#include <apr_strings.h>
#include <string.h>

/* ------------------------------------------------------------------------
 * A page of records as JSON text
 *
 * A page of 500 records as a jansson tree is over ten thousand allocations,
 * built, serialised and freed again: most of the request's time.  Written
 * straight into one buffer it costs a fifth of that.  The text is byte for
 * byte what json_dumps (JSON_COMPACT) gives for the same document: these
 * writers follow jansson's rules (dump.c, utf.c) value by value
 * (acct_json_str, acct_json_int, acct_json_time decide each value), and
 * tests/unit/test_dns_records_writer.c compares the text with jansson's dump
 * of it.
 * ------------------------------------------------------------------------ */

/* The Record object of docs/conventions.md: its keys in order, each the
 * column of
 * ACCT_RECORD_COLUMNS of the same name. */
enum record_value { VALUE_TEXT, VALUE_NUMBER, VALUE_TIME };

static const struct {
    const char *key;
    enum record_value kind;
} record_keys[] = {
    {"id", VALUE_NUMBER}, {"type", VALUE_TEXT}, {"name", VALUE_TEXT},
    {"target", VALUE_TEXT}, {"priority", VALUE_NUMBER},
    {"weight", VALUE_NUMBER}, {"port", VALUE_NUMBER}, {"service", VALUE_TEXT},
    {"protocol", VALUE_TEXT}, {"ttl_sec", VALUE_NUMBER}, {"tag", VALUE_TEXT},
    {"created", VALUE_TIME}, {"updated", VALUE_TIME},
};

#define NKEYS ((int)(sizeof(record_keys) / sizeof(record_keys[0])))

/* Each key's column in `rows` (-1 when absent), looked up once per result. */
static void record_columns(const acct_rows *rows, int *col)
{
    int k;

    for (k = 0; k < NKEYS; k++) {
        col[k] = acct_rows_col(rows, record_keys[k].key);
    }
}

static const char *cell(const acct_rows *rows, const int *col, int i, int k)
{
    return col[k] >= 0 ? rows->values[i][col[k]] : NULL;
}

typedef struct text_out {
    acct_text text;          /* its pool is the answer's */
    const char *time_text;   /* the last timestamp column written, */
    const char *time_value;  /* and its value (created = updated, often) */
    int time_known;
    int col[NKEYS];          /* each key's column in the rows */
    const char *prefix[NKEYS];   /* {"key": or ,"key": */
    apr_size_t prefix_len[NKEYS];
} text_out;

static void out_bytes(text_out *o, const char *s, apr_size_t n)
{
    acct_text_put(&o->text, s, n);
}

#define OUT_LITERAL(o, s) out_bytes((o), (s), sizeof(s) - 1)

/* acct_json_str: the string, escaped; null for NULL or text not UTF-8. */
static void out_string(text_out *o, const char *s)
{
    acct_json_text_str(&o->text, s);
}

/*
 * Bytes of `s` when it is an integer written as jansson writes one (an
 * optional minus, no leading zero, no "-0"), short enough to be one
 * (18 digits at most): PostgreSQL's and SQLite's text of an integer
 * column.  0 for anything else, which is parsed and written again.
 */
static apr_size_t canonical_integer(const char *s)
{
    const char *d = s + (*s == '-');
    apr_size_t n = 0;

    if (*d == '0') {
        return d == s && d[1] == '\0' ? 1 : 0;
    }
    while (d[n] >= '0' && d[n] <= '9') {
        n++;
    }
    return d[n] == '\0' && n > 0 && n <= 18 ? (apr_size_t)(d - s) + n : 0;
}

/* acct_json_int: the column's integer, 0 when NULL or not one. */
static void out_integer(text_out *o, const char *s)
{
    char digits[24], *d = digits + sizeof(digits);
    apr_int64_t v = 0;
    apr_uint64_t u;
    apr_size_t n;

    if (s && (n = canonical_integer(s)) > 0) {
        out_bytes(o, s, n);
        return;
    }
    if (!s || acct_parse_i64(s, &v) != 0) {
        v = 0;
    }
    u = v < 0 ? 0 - (apr_uint64_t)v : (apr_uint64_t)v;
    do {
        *--d = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) {
        *--d = '-';
    }
    out_bytes(o, d, (apr_size_t)(digits + sizeof(digits) - d));
}

/* acct_json_time, which alone decides the wire format, once per value. */
static void out_time(text_out *o, const char *s)
{
    json_t *t;

    if (!o->time_known || !(s == o->time_text
                            || (s && o->time_text
                                && strcmp(s, o->time_text) == 0))) {
        t = acct_json_time(o->text.pool, s);
        o->time_text = s;
        o->time_value = json_is_string(t)
                        ? apr_pstrdup(o->text.pool, json_string_value(t)) : NULL;
        o->time_known = 1;
        json_decref(t);
    }
    out_string(o, o->time_value);
}

static void out_record(text_out *o, const acct_rows *rows, int i)
{
    int k;

    for (k = 0; k < NKEYS; k++) {
        const char *text = cell(rows, o->col, i, k);

        out_bytes(o, o->prefix[k], o->prefix_len[k]);
        switch (record_keys[k].kind) {
        case VALUE_NUMBER:
            out_integer(o, text);
            break;
        case VALUE_TIME:
            out_time(o, text);
            break;
        default:
            out_string(o, text);
            break;
        }
    }
    OUT_LITERAL(o, "}");
}

/* A writer for `nrec` records of `rows`: one buffer, rarely grown. */
static void text_out_init(text_out *o, apr_pool_t *pool, const acct_rows *rows,
                          int nrec)
{
    int k;

    memset(o, 0, sizeof(*o));
    /* About 200 bytes make a typical record. */
    acct_text_init(&o->text, pool, 256 * (apr_size_t)nrec + 16);
    record_columns(rows, o->col);
    for (k = 0; k < NKEYS; k++) {
        o->prefix[k] = apr_pstrcat(pool, k == 0 ? "{\"" : ",\"",
                                   record_keys[k].key, "\":", NULL);
        o->prefix_len[k] = strlen(o->prefix[k]);
    }
}

const char *acct_record_object_text(apr_pool_t *pool, const acct_rows *rows,
                                    int i, apr_size_t *len)
{
    text_out o;

    text_out_init(&o, pool, rows, 1);
    out_record(&o, rows, i);
    *len = o.text.len;
    return o.text.data;
}

const char *acct_record_json_text(apr_pool_t *pool, const acct_rows *rows,
                                  apr_size_t *len)
{
    text_out o;
    int i;

    text_out_init(&o, pool, rows, rows->nrows);
    OUT_LITERAL(&o, "[");
    for (i = 0; i < rows->nrows; i++) {
        if (i > 0) {
            OUT_LITERAL(&o, ",");
        }
        out_record(&o, rows, i);
    }
    OUT_LITERAL(&o, "]");
    *len = o.text.len;
    return o.text.data;
}
