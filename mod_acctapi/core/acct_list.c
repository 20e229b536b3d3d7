#include "acct_list.h"
#include "acct_json.h"

#include <apr_strings.h>
#include <string.h>

int acct_list_page(acct_req *req, acct_resp *resp, acct_page *pg)
{
    const char *field = NULL, *reason = NULL;

    if (acct_page_parse(req->query, pg, &field, &reason) != 0) {
        acct_resp_invalid(resp, req->pool, field, reason);
        return -1;
    }
    return 0;
}

/* Rows [first, first + count) of `rows`, rendered one by one. */
static json_t *render_each(acct_req *req, const acct_rows *rows, int first,
                           int count, acct_render_row *render)
{
    json_t *data = json_array();
    int i;

    for (i = first; data && i < first + count && i < rows->nrows; i++) {
        json_array_append_new(data, render(req, rows, i));
    }
    return data;
}

/* The envelope around `data` (stolen); a NULL page is out of memory. */
static void respond_page(acct_req *req, acct_resp *resp, const acct_page *pg,
                         json_t *data, apr_int64_t results)
{
    if (!data) {
        acct_resp_error(resp, req->pool, 500, ACCT_R_INTERNAL, NULL);
        return;
    }
    acct_resp_ok(resp, req->pool, acct_page_envelope(data, pg, results));
}

/*
 * The envelope around `data`, the JSON text of the items (`len` bytes),
 * as acct_page_envelope's document serialises; sent as it is.
 */
static void respond_text(acct_req *req, acct_resp *resp, const acct_page *pg,
                         const char *data, apr_size_t len,
                         apr_int64_t results)
{
    static const char head[] = "{\"data\":";
    const char *tail;
    apr_size_t tail_len;
    char *text;

    if (!data) {
        acct_resp_error(resp, req->pool, 500, ACCT_R_INTERNAL, NULL);
        return;
    }
    tail = apr_psprintf(req->pool, ",\"page\":%" APR_INT64_T_FMT
                        ",\"pages\":%" APR_INT64_T_FMT
                        ",\"results\":%" APR_INT64_T_FMT "}",
                        pg->page, acct_page_count(pg, results), results);
    tail_len = strlen(tail);
    /* NUL-terminated, as acct_resp_ok_raw wants it. */
    text = apr_palloc(req->pool, sizeof(head) + len + tail_len);
    memcpy(text, head, sizeof(head) - 1);
    memcpy(text + sizeof(head) - 1, data, len);
    memcpy(text + sizeof(head) - 1 + len, tail, tail_len);
    text[sizeof(head) - 1 + len + tail_len] = '\0';
    acct_resp_ok_raw(resp, text, sizeof(head) - 1 + len + tail_len);
}

void acct_list_respond_rows(acct_req *req, acct_resp *resp,
                            const acct_rows *rows, acct_render_row *render)
{
    apr_int64_t offset;
    acct_page pg;

    if (acct_list_page(req, resp, &pg) != 0) {
        return;
    }
    offset = acct_page_offset(&pg);
    respond_page(req, resp, &pg,
                 offset >= rows->nrows
                 ? json_array()
                 : render_each(req, rows, (int)offset, (int)pg.page_size,
                               render),
                 rows->nrows);
}

/* Base arguments followed by the filter's, in placeholder order. */
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
static acct_store_rc count_rows(acct_req *req, acct_store *st,
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
    rc = acct_store_select_dynamic(st, req->pool,
                                   apr_pstrcat(req->pool, "SELECT count(*) AS n"
                                               " FROM ", q->from, " WHERE ",
                                               where, NULL),
                                   &count, nargs, args);
    if (rc == ACCT_STORE_OK) {
        acct_parse_i64(acct_rows_get(count, 0, "n"), results);
    }
    return rc;
}

void acct_list_respond(acct_req *req, acct_resp *resp,
                       const acct_list_query *q)
{
    const char *reason = NULL, *where, **args, *page_sql;
    acct_rows *rows = NULL;
    apr_int64_t results = 0;
    acct_store *st = NULL;
    acct_filter f;
    acct_page pg;
    acct_store_rc rc;
    int n;

    if (acct_list_page(req, resp, &pg) != 0) {
        return;
    }
    rc = acct_req_store(req, &st);
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return;
    }
    if (acct_filter_compile(req->pool, req->filter, q->fields, q->stable_order,
                            acct_store_dialect(st), &f, &reason) != 0) {
        acct_resp_invalid(resp, req->pool, "X-Filter", reason);
        return;
    }
    where = q->where ? apr_pstrcat(req->pool, "(", q->where, ") AND (",
                                   f.where, ")", NULL)
                     : f.where;
    args = join_args(req->pool, q, &f, 2, &n);
    rc = count_rows(req, st, q, &f, where, n - 2, args, &results);
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return;
    }
    page_sql = apr_pstrcat(req->pool, "SELECT ", q->columns, " FROM ", q->from,
                           " WHERE ", where, " ORDER BY ", f.order_by,
                           " LIMIT CAST(%s AS INTEGER) OFFSET CAST(%s AS BIGINT)",
                           NULL);
    args[n - 2] = acct_i64(req->pool, pg.page_size);
    args[n - 1] = acct_i64(req->pool, acct_page_offset(&pg));
    rc = acct_store_select_dynamic(st, req->pool, page_sql, &rows, n, args);
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return;
    }
    if (q->render_text) {
        apr_size_t len = 0;
        const char *data = q->render_text(req, rows, &len);

        respond_text(req, resp, &pg, data, len, results);
        return;
    }
    respond_page(req, resp, &pg,
                 render_each(req, rows, 0, rows->nrows, q->render), results);
}
