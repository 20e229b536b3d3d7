/*
 * Lists: the one place where pagination and X-Filter meet SQL.  Every list
 * route of the API answers through acct_list_respond (or, for catalogues
 * already in memory and no filter, acct_list_respond_rows).
 */
#ifndef ACCT_LIST_H
#define ACCT_LIST_H

#include "acct_api.h"
#include "acct_filter.h"
#include "acct_page.h"

/* Renders row `row` of `rows` as the list item. */
typedef json_t *acct_render_row(acct_req *req, const acct_rows *rows, int row);

typedef struct acct_list_query {
    const char *columns;        /* select list, aliased to the names `render` reads */
    const char *from;           /* FROM clause (joins allowed) */
    const char *where;          /* base condition with %s placeholders, or NULL */
    int nargs;                  /* arguments of `where` */
    const char *const *args;
    const acct_filter_field *fields; /* what X-Filter may name */
    const char *stable_order;   /* unique ordering key, e.g. "d.id" */
    acct_render_row *render;
} acct_list_query;

void acct_list_respond(acct_req *req, acct_resp *resp,
                       const acct_list_query *q);

/* Pagination over rows already in memory; the filter must be absent. */
void acct_list_respond_rows(acct_req *req, acct_resp *resp,
                            const acct_rows *rows, acct_render_row *render);

/* Reads page/page_size, answering the 400 itself; 0 when valid. */
int acct_list_page(acct_req *req, acct_resp *resp, acct_page *pg);

#endif
