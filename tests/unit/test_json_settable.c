/* acct_fields_settable and acct_fields_beyond: the keys a route does not
 * set; acct_json_same: JSON equality as a GET's body sent back is judged. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_fields_settable),
        UNIT_TEST(test_fields_settable_without_body),
        UNIT_TEST(test_object_settable),
        UNIT_TEST(test_fields_beyond),
        UNIT_TEST(test_json_same),
    };

    return UNIT_RUN(tests);
}
