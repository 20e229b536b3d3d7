/* Helpers shared by the acct_json unit tests (test_json_*.c).  Header-only,
 * as unit.h is: they use the program's `pool` from unit.h, which each test
 * program has its own of.  Include it after unit.h. */
#ifndef UNIT_JSON_H
#define UNIT_JSON_H

#include <string.h>

#include <apr_strings.h>
#include <jansson.h>

#include "acct_json.h"

/* Compact text of `j` (pool memory), for comparisons. */
static inline const char *dump(const json_t *j)
{
    const char *text = acct_json_dump(pool, j, NULL);

    return text ? text : "(dump failed)";
}

static inline void expect_dump(const char *label, const json_t *j,
                               const char *want)
{
    const char *got = j ? dump(j) : "(NULL json_t)";

    if (strcmp(got, want) != 0) {
        print_error("%s: got %s, want %s\n", label, got, want);
        fail();
    }
}

static inline json_t *decode(const char *text)
{
    return acct_json_decode_body(pool, text, strlen(text), NULL);
}

/* Problem `i` as "field: reason" ("-" for no field). */
static inline const char *problem_text(const acct_problems *p, int i)
{
    const char *field = acct_problem_field(p, i);

    return apr_psprintf(pool, "%s: %s", field ? field : "-",
                        acct_problem_reason(p, i));
}

#endif
