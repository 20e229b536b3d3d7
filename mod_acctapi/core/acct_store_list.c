#include "acct_store_list.h"

#include <apr_strings.h>
#include <string.h>

/* Base arguments followed by the filter's, in parameter order. */
static const char **join_args(apr_pool_t *pool, const acct_list_query *q,
                              const acct_filter *f, int extra, int *n)
{
    const char **args;
    int i, k = 0;

    *n = q->nargs + f->args->nelts + extra;
    args = apr_pcalloc(pool, sizeof(char *) * (*n + 1));
    for (i = 0; i < q->nargs; i++) {
        args[k++] = q->args[i];
    }
    for (i = 0; i < f->args->nelts; i++) {
        args[k++] = APR_ARRAY_IDX(f->args, i, const char *);
    }
    return args;
}

/*
 * Does the filter leave the base condition as it is?  acct_filter_compile
 * answers "1=1" for a filter without conditions (absent, or ordering only).
 */
static int adds_no_condition(const acct_filter *f)
{
    return f->args->nelts == 0 && strcmp(f->where, "1=1") == 0;
}

/* The number of rows `where` matches: the caller's, or a count(*). */
static acct_store_rc count_rows(acct_store *st, apr_pool_t *pool,
                                const acct_list_query *q, const acct_filter *f,
                                const char *where, int nargs,
                                const char *const *args, apr_int64_t *results)
{
    acct_rows *count = NULL;
    acct_store_rc rc;

    if (q->total && adds_no_condition(f)) {
        *results = *q->total;
        return ACCT_STORE_OK;
    }
    rc = acct_store_select_dynamic(st, pool,
                                   apr_pstrcat(pool, "SELECT count(*) AS n"
                                               " FROM ", q->from, " WHERE ",
                                               where, NULL),
                                   &count, nargs, args);
    if (rc == ACCT_STORE_OK) {
        acct_parse_i64(acct_rows_get(count, 0, "n"), results);
    }
    return rc;
}

/* The page statement of `q`, `f` and `pg`: its condition (without the
 * page's LIMIT), text and arguments, the last two of them the page's. */
typedef struct page_statement {
    const char *where;
    const char *sql;
    const char **args;
    int nargs;
} page_statement;

static void page_statement_of(apr_pool_t *pool, const acct_list_query *q,
                              const acct_filter *f, const acct_page *pg,
                              page_statement *ps)
{
    ps->where = q->where ? apr_pstrcat(pool, "(", q->where, ") AND (",
                                       f->where, ")", NULL)
                         : f->where;
    ps->args = join_args(pool, q, f, 2, &ps->nargs);
    ps->sql = apr_pstrcat(pool, "SELECT ", q->columns, " FROM ", q->from,
                          " WHERE ", ps->where, " ORDER BY ", f->order_by,
                          " LIMIT CAST(%s AS INTEGER) OFFSET CAST(%s AS BIGINT)",
                          NULL);
    ps->args[ps->nargs - 2] = acct_i64(pool, pg->page_size);
    ps->args[ps->nargs - 1] = acct_i64(pool, acct_page_offset(pg));
}

void acct_store_list_statement(apr_pool_t *pool, const acct_list_query *q,
                               const acct_filter *f, const acct_page *pg,
                               acct_store_read *out)
{
    page_statement ps;

    page_statement_of(pool, q, f, pg, &ps);
    memset(out, 0, sizeof(*out));
    out->sql = ps.sql;
    out->nargs = ps.nargs;
    out->args = ps.args;
}

int acct_store_list_is_last(const acct_rows *rows, const acct_page *pg,
                            apr_int64_t *results)
{
    apr_int64_t offset = acct_page_offset(pg);

    /* A filtered poll's page of a few rows is one statement. */
    if (rows->nrows < pg->page_size && (rows->nrows > 0 || offset == 0)) {
        *results = offset + rows->nrows;
        return 1;
    }
    return 0;
}

acct_store_rc acct_store_list_page(acct_store *st, apr_pool_t *pool,
                                   const acct_list_query *q,
                                   const acct_filter *f, const acct_page *pg,
                                   acct_rows **rows, apr_int64_t *results)
{
    page_statement ps;

    page_statement_of(pool, q, f, pg, &ps);
    if (q->page_rows) {
        *rows = q->page_rows;
    }
    else {
        acct_store_rc rc = acct_store_select_dynamic(st, pool, ps.sql, rows,
                                                     ps.nargs, ps.args);

        if (rc != ACCT_STORE_OK) {
            return rc;
        }
    }
    if (acct_store_list_is_last(*rows, pg, results)) {
        return ACCT_STORE_OK;
    }
    return count_rows(st, pool, q, f, ps.where, ps.nargs - 2, ps.args,
                      results);
}
