#include "acct_list.h"
#include "acct_json.h"
#include "acct_store_list.h"

#include <apr_strings.h>
#include <string.h>

void acct_list_query_of(acct_list_query *q, apr_pool_t *pool,
                        const char *columns, const char *from,
                        const char *where, apr_int64_t id,
                        const acct_filter_field *fields,
                        const char *stable_order)
{
    const char **args = apr_pcalloc(pool, sizeof(*args));

    args[0] = acct_i64(pool, id);
    memset(q, 0, sizeof(*q));
    q->columns = columns;
    q->from = from;
    q->where = where;
    q->nargs = 1;
    q->args = args;
    q->fields = fields;
    q->stable_order = stable_order;
}

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
        acct_resp_error(resp, req->pool, ACCT_HTTP_INTERNAL_SERVER_ERROR, ACCT_R_INTERNAL, NULL);
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
        acct_resp_error(resp, req->pool, ACCT_HTTP_INTERNAL_SERVER_ERROR, ACCT_R_INTERNAL, NULL);
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

int acct_list_statement(acct_req *req, const acct_list_query *q,
                        acct_store_read *out)
{
    const char *field = NULL, *reason = NULL;
    acct_store *st = NULL;
    acct_filter f;
    acct_page pg;

    if (acct_page_parse(req->query, &pg, &field, &reason) != 0
        || acct_req_store(req, &st) != ACCT_STORE_OK
        || acct_filter_compile_ordered(req->pool, req->filter, q->fields,
                                       q->stable_order, q->newest_first,
                                       acct_store_dialect(st), &f, &reason)
           != 0) {
        return -1;
    }
    acct_store_list_statement(req->pool, q, &f, &pg, out);
    return 0;
}

/*
 * The rows of page `pg` of `q` under the request's X-Filter, and how many
 * there are in all: 0, or -1 once the error is answered.
 */
static int read_page(acct_req *req, acct_resp *resp, const acct_list_query *q,
                     const acct_page *pg, acct_rows **rows,
                     apr_int64_t *results)
{
    const char *reason = NULL;
    acct_store *st = NULL;
    acct_filter f;
    acct_store_rc rc;

    if (q->page_rows && acct_store_list_is_last(q->page_rows, pg, results)) {
        /* The whole answer came with the token lookup, by the statement
         * acct_list_statement made of this X-Filter (valid, then): nothing
         * to compile again (a provider's filtered poll). */
        *rows = q->page_rows;
        return 0;
    }
    rc = acct_req_store(req, &st);
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return -1;
    }
    if (acct_filter_compile_ordered(req->pool, req->filter, q->fields,
                                    q->stable_order, q->newest_first,
                                    acct_store_dialect(st), &f, &reason)
        != 0) {
        acct_resp_invalid(resp, req->pool, "X-Filter", reason);
        return -1;
    }
    rc = acct_store_list_page(st, req->pool, q, &f, pg, rows, results);
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return -1;
    }
    return 0;
}

void acct_list_respond(acct_req *req, acct_resp *resp,
                       const acct_list_query *q)
{
    acct_rows *rows = NULL;
    apr_int64_t results = 0;
    acct_page pg;

    if (acct_list_page(req, resp, &pg) != 0
        || read_page(req, resp, q, &pg, &rows, &results) != 0) {
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
