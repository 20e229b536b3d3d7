/*
 * The statements of a list page: what acct_list_respond runs for a list
 * query (acct_list.h), a compiled X-Filter and a page.  The only place
 * where a list's SQL text is put together.
 */
#ifndef ACCT_STORE_LIST_H
#define ACCT_STORE_LIST_H

#include "acct_store_filter.h"
#include "acct_list.h"
#include "acct_page.h"
#include "acct_store.h"

/*
 * Are `rows`, read for page `pg`, the last page (not full, and not past the
 * end)?  Then the rows before it and its own are all there are: 1 with
 * their number in *results, and no count is needed.  0 otherwise.
 */
int acct_store_list_is_last(const acct_rows *rows, const acct_page *pg,
                            apr_int64_t *results);

/*
 * The rows of page `pg` of `q` narrowed by `f` (compiled for the store's
 * dialect) in *rows, and how many rows match in all in *results: the page,
 * then a count(*) unless the page is the last (acct_store_list_is_last)
 * or `q->total` answers it and `f` adds no condition; two round trips at
 * most.  With q->page_rows, those are the page and only the count may be
 * read.
 */
acct_store_rc acct_store_list_page(acct_store *st, apr_pool_t *pool,
                                   const acct_list_query *q,
                                   const acct_filter *f, const acct_page *pg,
                                   acct_rows **rows, apr_int64_t *results);

/* The page statement acct_store_list_page runs, in `out` (sql and
 * arguments). */
void acct_store_list_statement(apr_pool_t *pool, const acct_list_query *q,
                               const acct_filter *f, const acct_page *pg,
                               acct_store_read *out);

#endif
