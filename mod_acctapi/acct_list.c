#include "acct_list.h"
#include "acct_json.h"

#include <apr_strings.h>

int acct_list_page(acct_req *req, acct_resp *resp, acct_page *pg)
{
    const char *field = NULL, *reason = NULL;

    if (acct_page_parse(req->query, pg, &field, &reason) != 0) {
        acct_resp_invalid(resp, req->pool, field, reason);
        return -1;
    }
    return 0;
}

static void respond_page(acct_req *req, acct_resp *resp, const acct_page *pg,
                         const acct_rows *rows, int first, int count,
                         apr_int64_t results, acct_render_row *render)
{
    json_t *data = json_array();
    int i;

    for (i = first; i < first + count && i < rows->nrows; i++) {
        json_array_append_new(data, render(req, rows, i));
    }
    acct_resp_ok(resp, req->pool, acct_page_envelope(data, pg, results));
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
    if (offset >= rows->nrows) {
        respond_page(req, resp, &pg, rows, 0, 0, rows->nrows, render);
        return;
    }
    respond_page(req, resp, &pg, rows, (int)offset, (int)pg.page_size,
                 rows->nrows, render);
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

void acct_list_respond(acct_req *req, acct_resp *resp,
                       const acct_list_query *q)
{
    const char *reason = NULL, *where, **args, *count_sql, *page_sql;
    acct_rows *count = NULL, *rows = NULL;
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
    count_sql = apr_pstrcat(req->pool, "SELECT count(*) AS n FROM ", q->from,
                            " WHERE ", where, NULL);
    args = join_args(req->pool, q, &f, 2, &n);
    rc = acct_store_select_dynamic(st, req->pool, count_sql, &count, n - 2,
                                   args);
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return;
    }
    acct_parse_i64(acct_rows_get(count, 0, "n"), &results);
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
    respond_page(req, resp, &pg, rows, 0, rows->nrows, results, q->render);
}
