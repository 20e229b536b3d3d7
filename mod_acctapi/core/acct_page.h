/*
 * Pagination of every list (docs/conventions.md, "Pagination"): page >= 1 (default
 * 1), page_size 25..500 (default 100); bad values are a 400 naming the
 * parameter; `pages` is never 0; a page past the end is an empty page.
 */
#ifndef ACCT_PAGE_H
#define ACCT_PAGE_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <jansson.h>

#define ACCT_PAGE_SIZE_MIN 25
#define ACCT_PAGE_SIZE_MAX 500
#define ACCT_PAGE_SIZE_DEFAULT 100

typedef struct acct_page {
    apr_int64_t page;
    apr_int64_t page_size;
} acct_page;

/*
 * Reads "page" and "page_size" from the decoded query table.  Values must be
 * plain decimal integers ("+1", " 1", "1.0", "0x10" are refused).  On error
 * returns -1 and sets *field ("page" or "page_size") and *reason (a complete
 * sentence for the error item); `query` may be NULL.
 */
int acct_page_parse(apr_table_t *query, acct_page *out, const char **field,
                    const char **reason);

/* Rows to skip for this page (saturates instead of overflowing). */
apr_int64_t acct_page_offset(const acct_page *pg);

/* max(1, ceil(results / page_size)). */
apr_int64_t acct_page_count(const acct_page *pg, apr_int64_t results);

/* {"data": data, "page": .., "pages": .., "results": ..}; steals `data`. */
json_t *acct_page_envelope(json_t *data, const acct_page *pg,
                           apr_int64_t results);

#endif
