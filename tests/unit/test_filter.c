#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include <apr_strings.h>
#include <jansson.h>
#include <sqlite3.h>

#include "acct_store_filter.h"

#define BAD "Could not apply filter"
#define SQLITE ACCT_DIALECT_SQLITE
#define PG ACCT_DIALECT_PGSQL
#define STABLE "d.id"
#define TAG_COND                                                             \
    "EXISTS (SELECT 1 FROM tags t WHERE t.item_id = d.id AND t.label = %s)"

static const acct_filter_field fields[] = {
    {"label", "d.label", ACCT_FIELD_TEXT},
    {"size", "d.size", ACCT_FIELD_INT},
    {"price", "d.price", ACCT_FIELD_NUMBER},
    {"active", "d.active", ACCT_FIELD_BOOL},
    {"created", "d.created", ACCT_FIELD_TIME},
    {"tags", TAG_COND, ACCT_FIELD_TAG},
    {"id", "d.id", ACCT_FIELD_INT},
    {NULL, NULL, ACCT_FIELD_TEXT}
};

static void expect_str(const char *label, const char *what, const char *got,
                       const char *want)
{
    if (!got || strcmp(got, want) != 0) {
        print_error("%s: %s: got \"%s\", want \"%s\"\n", label, what,
                    got ? got : "(null)", want);
        fail();
    }
}

/* Every %s of `where` has its argument, and no other % escape appears. */
static void expect_markers(const char *label, const char *where,
                                int nargs)
{
    const char *p;
    int n = 0;

    for (p = where; *p; p++) {
        if (*p != '%') {
            continue;
        }
        if (p[1] != 's') {
            print_error("%s: stray %% in \"%s\"\n", label, where);
            fail();
        }
        n++;
    }
    if (n != nargs) {
        print_error("%s: %d parameter markers, %d args in \"%s\"\n", label, n,
                    nargs, where);
        fail();
    }
}

static int compile(const char *header, acct_dialect dialect, acct_filter *f,
                   const char **reason)
{
    return acct_filter_compile(pool, header, fields, STABLE, dialect, f,
                               reason);
}

typedef struct {
    const char *header;
    acct_dialect dialect;
    const char *where;      /* NULL: the compile must fail with `reason` */
    const char *order_by;
    const char *reason;
    const char *args[8];    /* NULL-terminated */
} compile_case;

static const compile_case compile_cases[] = {
    /* no filter */
    {NULL, SQLITE, "1=1", "d.id", NULL, {NULL}},
    {"", SQLITE, "1=1", "d.id", NULL, {NULL}},
    {" \t\r\n ", SQLITE, "1=1", "d.id", NULL, {NULL}},
    {"{}", SQLITE, "1=1", "d.id", NULL, {NULL}},
    {" { } ", SQLITE, "1=1", "d.id", NULL, {NULL}},
    /* empty +and / +or: no condition (today's clients send them) */
    {"{\"+and\":[]}", SQLITE, "1=1", "d.id", NULL, {NULL}},
    {"{\"+or\":[]}", SQLITE, "1=1", "d.id", NULL, {NULL}},
    {"{\"+and\":[],\"+order_by\":\"size\",\"+order\":\"desc\"}", SQLITE,
     "1=1", "d.size DESC, d.id", NULL, {NULL}},
    {"{\"+and\":[{\"label\":\"a\"},{\"+or\":[]}]}", SQLITE,
     "(d.label = %s)", "d.id", NULL, {"a"}},

    /* equality per type */
    {"{\"label\":\"a\"}", SQLITE, "(d.label = %s)", "d.id", NULL, {"a"}},
    {"{\"size\":5}", SQLITE, "(d.size = CAST(%s AS BIGINT))", "d.id", NULL,
     {"5"}},
    {"{\"size\":-9223372036854775808}", SQLITE,
     "(d.size = CAST(%s AS BIGINT))", "d.id", NULL,
     {"-9223372036854775808"}},
    {"{\"price\":5}", SQLITE, "(d.price = CAST(%s AS NUMERIC))", "d.id", NULL,
     {"5"}},
    {"{\"price\":1.5}", SQLITE, "(d.price = CAST(%s AS NUMERIC))", "d.id",
     NULL, {"1.5"}},
    {"{\"price\":0.1}", SQLITE, "(d.price = CAST(%s AS NUMERIC))", "d.id",
     NULL, {"0.1"}},
    {"{\"price\":-2.5e-3}", SQLITE, "(d.price = CAST(%s AS NUMERIC))", "d.id",
     NULL, {"-0.0025"}},
    {"{\"price\":1e20}", SQLITE, "(d.price = CAST(%s AS NUMERIC))", "d.id",
     NULL, {"1e+20"}},
    {"{\"active\":true}", SQLITE, "(d.active = CAST(%s AS INTEGER))", "d.id",
     NULL, {"1"}},
    {"{\"active\":false}", SQLITE, "(d.active = CAST(%s AS INTEGER))", "d.id",
     NULL, {"0"}},
    {"{\"created\":\"2024-01-02T03:04:05\"}", SQLITE,
     "(d.created = CAST(%s AS BIGINT))", "d.id", NULL, {"1704164645"}},
    {"{\"tags\":\"x\"}", SQLITE, "(" TAG_COND ")", "d.id", NULL, {"x"}},

    /* operators */
    {"{\"size\":{\"+gt\":1}}", SQLITE, "(d.size > CAST(%s AS BIGINT))",
     "d.id", NULL, {"1"}},
    {"{\"size\":{\"+gte\":1}}", SQLITE, "(d.size >= CAST(%s AS BIGINT))",
     "d.id", NULL, {"1"}},
    {"{\"size\":{\"+lt\":1}}", SQLITE, "(d.size < CAST(%s AS BIGINT))",
     "d.id", NULL, {"1"}},
    {"{\"size\":{\"+lte\":1}}", SQLITE, "(d.size <= CAST(%s AS BIGINT))",
     "d.id", NULL, {"1"}},
    {"{\"price\":{\"+lt\":2.25}}", SQLITE,
     "(d.price < CAST(%s AS NUMERIC))", "d.id", NULL, {"2.25"}},
    {"{\"created\":{\"+gte\":\"2024-02-01T00:00:00\"}}", SQLITE,
     "(d.created >= CAST(%s AS BIGINT))", "d.id", NULL, {"1706745600"}},
    {"{\"size\":{\"+neq\":3}}", SQLITE,
     "(d.size IS NOT CAST(%s AS BIGINT))", "d.id", NULL, {"3"}},
    {"{\"size\":{\"+neq\":3}}", PG,
     "(d.size IS DISTINCT FROM CAST(%s AS BIGINT))", "d.id", NULL, {"3"}},
    {"{\"label\":{\"+neq\":\"a\"}}", SQLITE, "(d.label IS NOT %s)", "d.id",
     NULL, {"a"}},
    {"{\"label\":{\"+neq\":\"a\"}}", PG, "(d.label IS DISTINCT FROM %s)",
     "d.id", NULL, {"a"}},
    {"{\"active\":{\"+neq\":true}}", SQLITE,
     "(d.active IS NOT CAST(%s AS INTEGER))", "d.id", NULL, {"1"}},
    {"{\"tags\":{\"+neq\":\"x\"}}", SQLITE, "(NOT (" TAG_COND "))", "d.id",
     NULL, {"x"}},
    {"{\"label\":{\"+contains\":\"ab\"}}", SQLITE,
     "(instr(d.label, %s) > 0)", "d.id", NULL, {"ab"}},
    {"{\"label\":{\"+contains\":\"ab\"}}", PG, "(strpos(d.label, %s) > 0)",
     "d.id", NULL, {"ab"}},
    {"{\"size\":{\"+gt\":1,\"+lt\":9}}", SQLITE,
     "((d.size > CAST(%s AS BIGINT)) AND (d.size < CAST(%s AS BIGINT)))",
     "d.id", NULL, {"1", "9"}},

    /* composition and parameter order */
    {"{\"label\":\"a\",\"size\":2}", SQLITE,
     "((d.label = %s) AND (d.size = CAST(%s AS BIGINT)))", "d.id", NULL,
     {"a", "2"}},
    {"{\"size\":2,\"label\":\"a\"}", SQLITE,
     "((d.size = CAST(%s AS BIGINT)) AND (d.label = %s))", "d.id", NULL,
     {"2", "a"}},
    {"{\"+or\":[{\"label\":\"a\"},{\"label\":\"b\"}]}", SQLITE,
     "((d.label = %s) OR (d.label = %s))", "d.id", NULL, {"a", "b"}},
    {"{\"+and\":[{\"label\":\"a\"}]}", SQLITE, "(d.label = %s)", "d.id", NULL,
     {"a"}},
    {"{\"+or\":[{\"label\":\"a\",\"size\":1},{\"label\":\"b\"}]}", SQLITE,
     "(((d.label = %s) AND (d.size = CAST(%s AS BIGINT))) OR "
     "(d.label = %s))", "d.id", NULL, {"a", "1", "b"}},
    {"{\"+and\":[{\"+or\":[{\"+and\":[{\"label\":\"a\"},{\"size\":1}]},"
     "{\"label\":\"b\"}]},{\"active\":true}],\"price\":{\"+gt\":0}}", SQLITE,
     "(((((d.label = %s) AND (d.size = CAST(%s AS BIGINT))) OR "
     "(d.label = %s)) AND (d.active = CAST(%s AS INTEGER))) AND "
     "(d.price > CAST(%s AS NUMERIC)))", "d.id", NULL,
     {"a", "1", "b", "1", "0"}},
    {"{\"size\":{\"+gt\":1,\"+lt\":9},\"label\":\"x\","
     "\"+or\":[{\"price\":2.5},{\"tags\":\"t\"}]}", SQLITE,
     "(((d.size > CAST(%s AS BIGINT)) AND (d.size < CAST(%s AS BIGINT))) "
     "AND (d.label = %s) AND ((d.price = CAST(%s AS NUMERIC)) OR "
     "(" TAG_COND ")))", "d.id", NULL, {"1", "9", "x", "2.5", "t"}},

    /* ordering */
    {"{\"+order_by\":\"label\"}", SQLITE, "1=1", "d.label ASC, d.id", NULL,
     {NULL}},
    {"{\"+order_by\":\"created\",\"+order\":\"desc\"}", SQLITE, "1=1",
     "d.created DESC, d.id", NULL, {NULL}},
    {"{\"+order\":\"desc\",\"+order_by\":\"size\"}", SQLITE, "1=1",
     "d.size DESC, d.id", NULL, {NULL}},
    {"{\"+order\":\"asc\",\"+order_by\":\"active\"}", SQLITE, "1=1",
     "d.active ASC, d.id", NULL, {NULL}},
    {"{\"+order\":\"desc\"}", SQLITE, "1=1", "d.id DESC", NULL, {NULL}},
    {"{\"+order\":\"asc\"}", SQLITE, "1=1", "d.id", NULL, {NULL}},
    {"{\"+order_by\":\"id\",\"+order\":\"desc\"}", SQLITE, "1=1", "d.id DESC",
     NULL, {NULL}},
    {"{\"+order_by\":\"price\",\"label\":\"x\"}", SQLITE, "(d.label = %s)",
     "d.price ASC, d.id", NULL, {"x"}},

    /* not a filter object */
    {"[]", SQLITE, NULL, NULL, BAD, {NULL}},
    {"5", SQLITE, NULL, NULL, BAD, {NULL}},
    {"\"label\"", SQLITE, NULL, NULL, BAD, {NULL}},
    {"null", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"label\":\"a\"} x", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"label\":\"a\"}{}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{'label':'a'}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"label\":\"a\",\"label\":\"b\"}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"+or\":[{\"size\":1,\"size\":2}]}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"label\":\"a\\u0000b\"}", SQLITE, NULL, NULL, BAD, {NULL}},

    /* unknown fields */
    {"{\"foo\":1}", SQLITE, NULL, NULL, "Cannot filter on foo", {NULL}},
    {"{\"Label\":\"a\"}", SQLITE, NULL, NULL, "Cannot filter on Label",
     {NULL}},
    {"{\"d.label\":\"a\"}", SQLITE, NULL, NULL, "Cannot filter on d.label",
     {NULL}},
    {"{\"+order_by\":\"foo\"}", SQLITE, NULL, NULL, "Cannot filter on foo",
     {NULL}},
    {"{\"+or\":[{\"label\":\"a\"},{\"bar\":1}]}", SQLITE, NULL, NULL,
     "Cannot filter on bar", {NULL}},
    {"{\"foo\":1,\"label\":5}", SQLITE, NULL, NULL, "Cannot filter on foo",
     {NULL}},
    {"{\"label\":5,\"foo\":1}", SQLITE, NULL, NULL, BAD, {NULL}},

    /* bad operators and keys */
    {"{\"+foo\":1}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"+gt\":1}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"+order_by\":\"tags\"}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"+order_by\":5}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"+order_by\":null}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"+order\":\"DESC\"}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"+order\":\"descending\"}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"+order\":1}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"+and\":{}}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"+and\":{\"label\":\"a\"}}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"+or\":\"x\"}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"+and\":[1]}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"+and\":[{\"label\":\"a\"},[]]}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"+and\":[{}]}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"+or\":[{\"+order_by\":\"label\"}]}", SQLITE, NULL, NULL, BAD,
     {NULL}},
    {"{\"+and\":[{\"+order\":\"desc\"}]}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"label\":{\"+order\":\"asc\"}}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"label\":{\"+and\":[{\"label\":\"a\"}]}}", SQLITE, NULL, NULL, BAD,
     {NULL}},

    /* values that do not fit the field */
    {"{\"label\":5}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"label\":true}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"label\":null}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"label\":[\"a\"]}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"label\":{}}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"label\":{\"x\":1}}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"label\":{\"+gt\":\"a\"}}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"label\":{\"+contains\":1}}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"size\":\"5\"}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"size\":1.5}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"size\":5.0}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"size\":99999999999999999999}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"size\":{\"+contains\":1}}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"size\":{\"+gt\":{\"+gt\":1}}}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"size\":{\"+gt\":null}}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"size\":{\"+gt\":1,\"+lt\":\"9\"}}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"price\":\"1\"}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"price\":{\"+contains\":\"1\"}}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"active\":1}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"active\":\"true\"}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"active\":{\"+gt\":false}}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"created\":\"2024-01-02\"}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"created\":\"2024-01-02T03:04:05Z\"}", SQLITE, NULL, NULL, BAD,
     {NULL}},
    {"{\"created\":\"2024-02-30T00:00:00\"}", SQLITE, NULL, NULL, BAD,
     {NULL}},
    {"{\"created\":1704164645}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"created\":{\"+contains\":\"2024\"}}", SQLITE, NULL, NULL, BAD,
     {NULL}},
    {"{\"tags\":5}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"tags\":[\"x\"]}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"tags\":{\"+contains\":\"x\"}}", SQLITE, NULL, NULL, BAD, {NULL}},
    {"{\"tags\":{\"+gt\":\"x\"}}", SQLITE, NULL, NULL, BAD, {NULL}},
};

static void check_args(const char *label, const apr_array_header_t *args,
                       const char *const *want)
{
    int n = 0;

    while (want[n]) {
        n++;
    }
    if (args->nelts != n) {
        print_error("%s: %d args, want %d\n", label, args->nelts, n);
        fail();
    }
    for (n = 0; n < args->nelts; n++) {
        expect_str(label, "arg", APR_ARRAY_IDX(args, n, const char *),
                   want[n]);
    }
}

static void test_compile_table(void **state)
{
    size_t i;

    for (i = 0; i < sizeof(compile_cases) / sizeof(compile_cases[0]); i++) {
        const compile_case *c = &compile_cases[i];
        acct_filter f = {"untouched", "untouched", NULL};
        const char *reason = NULL;
        char label[64];
        int rc;

        snprintf(label, sizeof(label), "case %u", (unsigned)i);
        rc = compile(c->header, c->dialect, &f, &reason);
        if (c->where) {
            if (rc != 0) {
                print_error("%s: %s refused: %s\n", label,
                            c->header ? c->header : "(null)",
                            reason ? reason : "(null)");
                fail();
            }
            expect_str(label, "where", f.where, c->where);
            expect_str(label, "order_by", f.order_by, c->order_by);
            check_args(label, f.args, c->args);
            expect_markers(label, f.where, f.args->nelts);
        }
        else {
            if (rc != -1) {
                print_error("%s: %s accepted as %s\n", label, c->header,
                            f.where);
                fail();
            }
            expect_str(label, "reason", reason, c->reason);
            /* A refused filter must not leave half a result behind. */
            expect_str(label, "where", f.where, "untouched");
            assert_null(f.args);
        }
    }
}

/* Filter objects nested `levels` deep, alternating "+and" and "+or". */
static const char *nested(int levels)
{
    const char *s = "{\"label\":\"x\"}";
    int i;

    for (i = 1; i < levels; i++) {
        s = apr_pstrcat(pool, "{\"", i % 2 ? "+and" : "+or", "\":[", s, "]}",
                        NULL);
    }
    return s;
}

static void test_limit_depth(void **state)
{
    acct_filter f;
    const char *reason = NULL;

    assert_int_equal(compile(nested(ACCT_FILTER_MAX_DEPTH), SQLITE, &f,
                             &reason), 0);
    assert_string_equal(f.where, "(d.label = %s)");
    assert_int_equal(f.args->nelts, 1);
    assert_int_equal(compile(nested(ACCT_FILTER_MAX_DEPTH + 1), SQLITE, &f,
                             &reason), -1);
    assert_string_equal(reason, BAD);
    assert_int_equal(compile(nested(300), SQLITE, &f, &reason), -1);
    assert_string_equal(reason, BAD);
}

/* {"+or":[{"size":0},{"size":1},...]} with `n` parameters. */
static const char *many_params(int n)
{
    const char *s = "{\"+or\":[";
    int i;

    for (i = 0; i < n; i++) {
        s = apr_psprintf(pool, "%s%s{\"size\":%d}", s, i ? "," : "", i);
    }
    return apr_pstrcat(pool, s, "]}", NULL);
}

static void test_limit_params(void **state)
{
    acct_filter f;
    const char *reason = NULL;
    int i;

    assert_int_equal(compile(many_params(ACCT_FILTER_MAX_PARAMS), SQLITE, &f,
                             &reason), 0);
    assert_int_equal(f.args->nelts, ACCT_FILTER_MAX_PARAMS);
    for (i = 0; i < ACCT_FILTER_MAX_PARAMS; i++) {
        assert_string_equal(APR_ARRAY_IDX(f.args, i, const char *),
                            apr_itoa(pool, i));
    }
    expect_markers("max params", f.where, f.args->nelts);
    assert_int_equal(compile(many_params(ACCT_FILTER_MAX_PARAMS + 1), SQLITE,
                             &f, &reason), -1);
    assert_string_equal(reason, BAD);
}

static void test_limit_bytes(void **state)
{
    acct_filter f;
    const char *reason = NULL;
    const char *head = "{\"label\":\"", *tail = "\"}";
    size_t fill = ACCT_FILTER_MAX_BYTES - strlen(head) - strlen(tail);
    char *value = apr_palloc(pool, fill + 2);
    const char *header;

    memset(value, 'a', fill + 1);
    value[fill] = '\0';
    header = apr_pstrcat(pool, head, value, tail, NULL);
    assert_int_equal(strlen(header), ACCT_FILTER_MAX_BYTES);
    assert_int_equal(compile(header, SQLITE, &f, &reason), 0);
    assert_string_equal(APR_ARRAY_IDX(f.args, 0, const char *), value);

    value[fill] = 'a';
    value[fill + 1] = '\0';
    header = apr_pstrcat(pool, head, value, tail, NULL);
    assert_int_equal(compile(header, SQLITE, &f, &reason), -1);
    assert_string_equal(reason, BAD);

    /* The limit is on the raw header, blanks included. */
    value = apr_palloc(pool, ACCT_FILTER_MAX_BYTES + 2);
    memset(value, ' ', ACCT_FILTER_MAX_BYTES + 1);
    value[ACCT_FILTER_MAX_BYTES + 1] = '\0';
    assert_int_equal(compile(value, SQLITE, &f, &reason), -1);
    assert_string_equal(reason, BAD);
}

static const char *const hostile[] = {
    "'",
    "O'Brien",
    "'; DROP TABLE d; --",
    "\" OR 1=1 --",
    "100%",
    "%s",
    "%%",
    "%d%s%x%",
    "back\\slash\\",
    "?",
    "$1",
    ") OR (1=1",
    "line\nbreak\ttab",
    "\xc3\xbc" "n" "\xc3\xaf" "c" "\xc3\xb6" "d" "\xc3\xa9 \xe2\x98\x83 "
    "\xf0\x9f\x99\x82",
};

/* Hostile text reaches args untouched and never the SQL. */
static void test_hostile_values(void **state)
{
    static const char *const templates[][2] = {
        {"{s:s}", "(d.label = %s)"},
        {"{s:{s:s}}", "(instr(d.label, %s) > 0)"},
        {"{s:{s:s}}", "(d.label IS NOT %s)"},
        {"{s:s}", "(" TAG_COND ")"},
    };
    size_t i, t;

    for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
        for (t = 0; t < sizeof(templates) / sizeof(templates[0]); t++) {
            acct_filter f;
            const char *reason = NULL;
            json_t *j;
            char *text, label[64];
            int rc;

            if (t == 0) {
                j = json_pack(templates[t][0], "label", hostile[i]);
            }
            else if (t == 1) {
                j = json_pack(templates[t][0], "label", "+contains",
                              hostile[i]);
            }
            else if (t == 2) {
                j = json_pack(templates[t][0], "label", "+neq", hostile[i]);
            }
            else {
                j = json_pack(templates[t][0], "tags", hostile[i]);
            }
            assert_non_null(j);
            text = json_dumps(j, JSON_COMPACT);
            json_decref(j);
            snprintf(label, sizeof(label), "hostile %u/%u", (unsigned)i,
                     (unsigned)t);
            rc = compile(text, SQLITE, &f, &reason);
            free(text);
            assert_int_equal(rc, 0);
            expect_str(label, "where", f.where, templates[t][1]);
            assert_int_equal(f.args->nelts, 1);
            expect_str(label, "arg", APR_ARRAY_IDX(f.args, 0, const char *),
                       hostile[i]);
        }
    }
}

/* Hostile keys and sort fields only ever reach the error text. */
static void test_hostile_keys(void **state)
{
    size_t i;

    for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
        acct_filter f;
        const char *reason = NULL;
        const char *want = apr_pstrcat(pool, "Cannot filter on ", hostile[i],
                                       NULL);
        json_t *j;
        char *text, label[64];

        snprintf(label, sizeof(label), "hostile key %u", (unsigned)i);
        j = json_pack("{s:i}", hostile[i], 1);
        text = json_dumps(j, JSON_COMPACT);
        json_decref(j);
        assert_int_equal(compile(text, SQLITE, &f, &reason), -1);
        free(text);
        expect_str(label, "reason", reason, want);

        j = json_pack("{s:s}", "+order_by", hostile[i]);
        text = json_dumps(j, JSON_COMPACT);
        json_decref(j);
        assert_int_equal(compile(text, SQLITE, &f, &reason), -1);
        free(text);
        expect_str(label, "order_by reason", reason, want);
    }
}

/* The result owns its strings: they outlive the JSON tree. */
static void test_args_survive(void **state)
{
    acct_filter f;
    const char *reason = NULL;
    char *header = strdup("{\"label\":\"kept\",\"tags\":\"t\"}");

    assert_non_null(header);
    assert_int_equal(compile(header, SQLITE, &f, &reason), 0);
    memset(header, 'z', strlen(header));
    free(header);
    assert_string_equal(APR_ARRAY_IDX(f.args, 0, const char *), "kept");
    assert_string_equal(APR_ARRAY_IDX(f.args, 1, const char *), "t");
}

/* Fresh, empty args on the no-filter path: callers may append to them. */
static void test_no_filter_args(void **state)
{
    acct_filter f;
    const char *reason = NULL;

    assert_int_equal(compile(NULL, PG, &f, &reason), 0);
    assert_non_null(f.args);
    assert_int_equal(f.args->nelts, 0);
    assert_int_equal(f.args->elt_size, sizeof(const char *));
}

/* ---- the generated SQL against a real database ---- */

static sqlite3 *db;

static const char *const schema[] = {
    "CREATE TABLE d (id INTEGER PRIMARY KEY, label TEXT, size INTEGER,"
    " price NUMERIC, active INTEGER, created INTEGER)",
    "CREATE TABLE tags (item_id INTEGER, label TEXT)",
    "INSERT INTO d VALUES (1, 'alpha', 10, 1.5, 1, 1704067200)",
    "INSERT INTO d VALUES (2, 'beta', 20, 0.1, 0, 1706745600)",
    "INSERT INTO d VALUES (3, 'O''Brien 100%', 30, 2, 1, 1709251200)",
    "INSERT INTO d VALUES (4, 'gamma', 40, 10, 0, 1711929600)",
    "INSERT INTO d VALUES (5, NULL, 50, 3.25, 1, 1714521600)",
    "INSERT INTO tags VALUES (1, 'x'), (1, 'y'), (2, 'y'), (4, 'x')",
};

static int db_setup(void **state)
{
    size_t i;

    if (unit_pool_setup(state) != 0
        || sqlite3_open(":memory:", &db) != SQLITE_OK) {
        return -1;
    }
    for (i = 0; i < sizeof(schema) / sizeof(schema[0]); i++) {
        if (sqlite3_exec(db, schema[i], NULL, NULL, NULL) != SQLITE_OK) {
            return -1;
        }
    }
    return 0;
}

static int db_teardown(void **state)
{
    sqlite3_close(db);
    return unit_pool_teardown(state);
}

/* apr_dbd's parameter markers in sqlite3's own syntax. */
static const char *to_sqlite(const char *sql)
{
    char *out = apr_palloc(pool, strlen(sql) + 1), *o = out;
    const char *p;

    for (p = sql; *p; p++) {
        if (*p != '%') {
            *o++ = *p;
            continue;
        }
        p++;
        if (*p == 's') {
            *o++ = '?';
        }
        else if (*p == '%') {
            *o++ = '%';
        }
        else {
            print_error("unexpected escape in \"%s\"\n", sql);
            fail();
        }
    }
    *o = '\0';
    return out;
}

/* Ids of the matching rows in order, comma-separated. */
static const char *run(const char *header)
{
    acct_filter f;
    const char *reason = NULL, *sql, *ids = "";
    sqlite3_stmt *stmt = NULL;
    int i, rc;

    if (compile(header, SQLITE, &f, &reason) != 0) {
        print_error("%s refused: %s\n", header, reason);
        fail();
    }
    sql = apr_pstrcat(pool, "SELECT d.id FROM d WHERE ", to_sqlite(f.where),
                      " ORDER BY ", to_sqlite(f.order_by), NULL);
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, NULL) != SQLITE_OK) {
        print_error("%s: %s\n", sql, sqlite3_errmsg(db));
        fail();
    }
    assert_int_equal(sqlite3_bind_parameter_count(stmt), f.args->nelts);
    for (i = 0; i < f.args->nelts; i++) {
        sqlite3_bind_text(stmt, i + 1, APR_ARRAY_IDX(f.args, i, const char *),
                          -1, SQLITE_TRANSIENT);
    }
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        ids = apr_psprintf(pool, "%s%s%d", ids, *ids ? "," : "",
                           sqlite3_column_int(stmt, 0));
    }
    sqlite3_finalize(stmt);
    assert_int_equal(rc, SQLITE_DONE);
    return ids;
}

typedef struct {
    const char *header;
    const char *ids;
} sql_case;

static const sql_case sql_cases[] = {
    {NULL, "1,2,3,4,5"},
    {"{}", "1,2,3,4,5"},
    {"{\"label\":\"alpha\"}", "1"},
    {"{\"label\":\"O'Brien 100%\"}", "3"},
    {"{\"label\":\"%\"}", ""},
    {"{\"label\":{\"+neq\":\"alpha\"}}", "2,3,4,5"},
    {"{\"label\":{\"+contains\":\"a\"}}", "1,2,4"},
    {"{\"label\":{\"+contains\":\"%\"}}", "3"},
    {"{\"label\":{\"+contains\":\"_\"}}", ""},
    {"{\"label\":{\"+contains\":\"'\"}}", "3"},
    {"{\"size\":30}", "3"},
    {"{\"size\":{\"+gte\":20,\"+lt\":40}}", "2,3"},
    {"{\"size\":{\"+gt\":20}}", "3,4,5"},
    {"{\"size\":{\"+lte\":20}}", "1,2"},
    {"{\"size\":{\"+neq\":20}}", "1,3,4,5"},
    {"{\"price\":0.1}", "2"},
    {"{\"price\":2}", "3"},
    {"{\"price\":2.0}", "3"},
    {"{\"price\":{\"+gt\":1.5}}", "3,4,5"},
    {"{\"price\":{\"+lt\":3}}", "1,2,3"},
    {"{\"active\":true}", "1,3,5"},
    {"{\"active\":{\"+neq\":true}}", "2,4"},
    {"{\"created\":\"2024-03-01T00:00:00\"}", "3"},
    {"{\"created\":{\"+gte\":\"2024-02-01T00:00:00\"}}", "2,3,4,5"},
    {"{\"created\":{\"+lt\":\"2024-02-01T00:00:00\"}}", "1"},
    {"{\"tags\":\"x\"}", "1,4"},
    {"{\"tags\":\"y\"}", "1,2"},
    {"{\"tags\":{\"+neq\":\"x\"}}", "2,3,5"},
    {"{\"tags\":\"x\",\"active\":false}", "4"},
    {"{\"+or\":[{\"label\":\"alpha\"},{\"+and\":[{\"size\":{\"+gt\":25}},"
     "{\"active\":false}]}]}", "1,4"},
    {"{\"+and\":[{\"+or\":[{\"tags\":\"y\"},{\"size\":50}]},"
     "{\"+or\":[{\"active\":true},{\"price\":0.1}]}]}", "1,2,5"},
    {"{\"+order_by\":\"size\",\"+order\":\"desc\"}", "5,4,3,2,1"},
    {"{\"+order\":\"desc\"}", "5,4,3,2,1"},
    {"{\"+order_by\":\"active\"}", "2,4,1,3,5"},
    {"{\"+order_by\":\"active\",\"+order\":\"desc\"}", "1,3,5,2,4"},
    {"{\"+order_by\":\"label\",\"+order\":\"desc\"}", "4,2,1,3,5"},
    {"{\"+order_by\":\"price\",\"tags\":{\"+neq\":\"y\"}}", "3,5,4"},
};

static void test_sqlite_rows(void **state)
{
    size_t i;

    for (i = 0; i < sizeof(sql_cases) / sizeof(sql_cases[0]); i++) {
        char label[64];

        snprintf(label, sizeof(label), "sql case %u", (unsigned)i);
        expect_str(label, "ids", run(sql_cases[i].header), sql_cases[i].ids);
    }
}

/* Every hostile value runs as plain data: it matches only itself. */
static void test_sqlite_hostile(void **state)
{
    size_t i;

    for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
        json_t *j = json_pack("{s:s}", "label", hostile[i]);
        char *text = json_dumps(j, JSON_COMPACT);
        const char *ids;

        json_decref(j);
        ids = run(text);
        free(text);
        expect_str(hostile[i], "ids", ids, "");
    }
    /* Nothing was dropped or rewritten along the way. */
    assert_string_equal(run(NULL), "1,2,3,4,5");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_compile_table),
        UNIT_TEST(test_limit_depth),
        UNIT_TEST(test_limit_params),
        UNIT_TEST(test_limit_bytes),
        UNIT_TEST(test_hostile_values),
        UNIT_TEST(test_hostile_keys),
        UNIT_TEST(test_args_survive),
        UNIT_TEST(test_no_filter_args),
        cmocka_unit_test_setup_teardown(test_sqlite_rows, db_setup,
                                        db_teardown),
        cmocka_unit_test_setup_teardown(test_sqlite_hostile, db_setup,
                                        db_teardown),
    };

    return UNIT_RUN(tests);
}
