#include "acct_page.h"

#include <apr_general.h>

#define PAGE_REASON "page must be an integer greater than or equal to 1"
#define PAGE_SIZE_REASON                                                     \
    "page_size must be an integer between "                                  \
    APR_STRINGIFY(ACCT_PAGE_SIZE_MIN) " and "                                \
    APR_STRINGIFY(ACCT_PAGE_SIZE_MAX)

/*
 * Only ASCII digits: strtol and friends would let a sign, leading blanks
 * and hexadecimal through, and clients must learn they sent something else.
 */
static int parse_decimal(const char *s, apr_int64_t *out)
{
    apr_int64_t v = 0;

    if (!*s) {
        return -1;
    }
    for (; *s; s++) {
        int d;

        if (*s < '0' || *s > '9') {
            return -1;
        }
        d = *s - '0';
        if (v > (APR_INT64_MAX - d) / 10) {
            return -1;
        }
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* An absent parameter keeps its default; a present one must be in range. */
static int read_param(apr_table_t *query, const char *name, apr_int64_t min,
                      apr_int64_t max, apr_int64_t *value)
{
    const char *text = query ? apr_table_get(query, name) : NULL;
    apr_int64_t v;

    if (!text) {
        return 0;
    }
    if (parse_decimal(text, &v) != 0 || v < min || v > max) {
        return -1;
    }
    *value = v;
    return 0;
}

int acct_page_parse(apr_table_t *query, acct_page *out, const char **field,
                    const char **reason)
{
    acct_page pg;

    pg.page = 1;
    pg.page_size = ACCT_PAGE_SIZE_DEFAULT;
    if (read_param(query, "page", 1, APR_INT64_MAX, &pg.page) != 0) {
        *field = "page";
        *reason = PAGE_REASON;
        return -1;
    }
    if (read_param(query, "page_size", ACCT_PAGE_SIZE_MIN, ACCT_PAGE_SIZE_MAX,
                   &pg.page_size) != 0) {
        *field = "page_size";
        *reason = PAGE_SIZE_REASON;
        return -1;
    }
    *out = pg;
    return 0;
}

apr_int64_t acct_page_offset(const acct_page *pg)
{
    if (pg->page <= 1 || pg->page_size <= 0) {
        return 0;
    }
    /* A huge page number is valid input; it must read as "past the end". */
    if (pg->page - 1 > APR_INT64_MAX / pg->page_size) {
        return APR_INT64_MAX;
    }
    return (pg->page - 1) * pg->page_size;
}

apr_int64_t acct_page_count(const acct_page *pg, apr_int64_t results)
{
    if (results <= 0 || pg->page_size <= 0) {
        return 1;
    }
    /* Division first: results + page_size - 1 could overflow. */
    return results / pg->page_size + (results % pg->page_size != 0);
}

json_t *acct_page_envelope(json_t *data, const acct_page *pg,
                           apr_int64_t results)
{
    json_t *env = json_object();

    if (!env) {
        json_decref(data);
        return NULL;
    }
    /* set_new steals even on failure, so a NULL or lost value leaks nothing. */
    if (json_object_set_new(env, "data", data) != 0
        || json_object_set_new(env, "page", json_integer(pg->page)) != 0
        || json_object_set_new(env, "pages",
                               json_integer(acct_page_count(pg, results))) != 0
        || json_object_set_new(env, "results", json_integer(results)) != 0) {
        json_decref(env);
        return NULL;
    }
    return env;
}
