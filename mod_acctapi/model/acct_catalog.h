/*
 * The public catalogues as the database keeps them: regions, their
 * availability by plan, compute types, database engines.  Read whole (the
 * handlers keep a per-process snapshot) or as filtered lists.
 */
#ifndef ACCT_CATALOG_H
#define ACCT_CATALOG_H

#include "acct_list.h"
#include "acct_store.h"

typedef enum {
    ACCT_CATALOG_REGIONS,
    ACCT_CATALOG_AVAILABILITY,
    ACCT_CATALOG_TYPES,
    ACCT_CATALOG_ENGINES
} acct_catalog_kind;

/*
 * Every row of every catalogue, in list order (the columns the list query
 * selects too).  The rows are allocated in the pool given to
 * acct_catalog_load.
 */
typedef struct acct_catalog_rows {
    acct_rows *regions;        /* id, label, country, capabilities (JSON),
                                  status, resolvers_ipv4, resolvers_ipv6,
                                  site_type */
    acct_rows *availability;   /* region, plan, available */
    acct_rows *types;          /* id, label, price, region_prices, addons
                                  (JSON), memory, disk, transfer, vcpus, gpus,
                                  network_out, class, successor */
    acct_rows *engines;        /* id, engine, version */
} acct_catalog_rows;

/* Reads the four catalogues, one statement each. */
acct_store_rc acct_catalog_load(acct_store *st, apr_pool_t *pool,
                                acct_catalog_rows *out);

/* The rows of catalogue `kind` in `rows`. */
const acct_rows *acct_catalog_rows_of(const acct_catalog_rows *rows,
                                      acct_catalog_kind kind);

/*
 * The list of catalogue `kind` for X-Filter (the same columns as
 * acct_catalog_load reads), each row rendered by `render`.
 */
void acct_catalog_list_query(acct_catalog_kind kind, acct_render_row *render,
                             acct_list_query *q);

#endif
