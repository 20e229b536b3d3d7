/*
 * Lists: the one place where pagination and X-Filter meet SQL.  Every list
 * route of the API answers through acct_list_respond (or, for catalogues
 * already in memory and no filter, acct_list_respond_rows).
 */
#ifndef ACCT_LIST_H
#define ACCT_LIST_H

#include "acct_req.h"
#include "acct_resp.h"
#include "acct_store.h"
#include "acct_store_filter.h"
#include "acct_page.h"

/* Renders row `row` of `rows` as the list item. */
typedef json_t *acct_render_row(acct_req *req, const acct_rows *rows, int row);

/*
 * Renders every row of `rows` (one page) as the JSON text of the array of
 * list items (`*len` bytes in pool memory): exactly what acct_json_dump
 * gives for the array of `render`'s items, written without building them,
 * for lists of hundreds of rows.  NULL when the page cannot be rendered.
 */
typedef const char *acct_render_text(acct_req *req, const acct_rows *rows,
                                     apr_size_t *len);

typedef struct acct_list_query {
    const char *columns;        /* select list, aliased to the names `render` reads */
    const char *from;           /* FROM clause (joins allowed) */
    const char *where;          /* base condition with %s parameter markers, or NULL */
    int nargs;                  /* arguments of `where` */
    const char *const *args;
    const acct_filter_field *fields; /* what X-Filter may name */
    const char *stable_order;   /* unique ordering key, e.g. "d.id" */
    int newest_first;           /* stable_order descends unless X-Filter's
                                 * +order says asc (acct_filter_compile_ordered) */
    acct_render_row *render;
    acct_render_text *render_text; /* optional: used instead of `render` */
    /*
     * Optional: how many rows `where` matches, when the caller knows it
     * already (a count kept with the rows, read with the row that the
     * access check loaded).  Used instead of a count(*) whenever X-Filter
     * adds no condition (absent, or ordering only); NULL counts.
     */
    const apr_int64_t *total;
    /*
     * Optional: the page, read already by the statement acct_list_statement
     * gave for a query of the same rows (a route's read_with_auth, sent with
     * the token lookup); NULL reads it.  X-Filter, valid when that
     * statement was made, is compiled again only for a count.
     */
    acct_rows *page_rows;
} acct_list_query;

/*
 * Fills `q` for the rows of `from` (select list `columns`) that `where`
 * matches, its one parameter being `id` (the account, user, domain ... the
 * list belongs to), X-Filter on `fields`, in `stable_order`; everything
 * else zeroed (render, newest_first: the caller's).
 */
void acct_list_query_of(acct_list_query *q, apr_pool_t *pool,
                        const char *columns, const char *from,
                        const char *where, apr_int64_t id,
                        const acct_filter_field *fields,
                        const char *stable_order);

void acct_list_respond(acct_req *req, acct_resp *resp,
                       const acct_list_query *q);

/*
 * The page statement acct_list_respond runs for `q` and the request's page
 * and X-Filter, in `out`: 0, or -1 when they are invalid (acct_list_respond
 * answers that).
 */
int acct_list_statement(acct_req *req, const acct_list_query *q,
                        acct_store_read *out);

/* Pagination over rows already in memory; the filter must be absent. */
void acct_list_respond_rows(acct_req *req, acct_resp *resp,
                            const acct_rows *rows, acct_render_row *render);

/* Reads page/page_size, answering the 400 itself; 0 when valid. */
int acct_list_page(acct_req *req, acct_resp *resp, acct_page *pg);

#endif
