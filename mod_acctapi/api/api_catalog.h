/*
 * Public catalogues: regions, their availability, compute types, database
 * engines.  Read from the database into a per-process snapshot that lives
 * for AcctapiCatalogCacheTTL; a snapshot in use by a request outlives its
 * replacement (reference counted), and a stale snapshot keeps answering when
 * the database is unreachable.
 */
#ifndef API_CATALOG_H
#define API_CATALOG_H

#include <apr_pools.h>

/* Once per process (child_init), before requests; `pool` outlives them. */
int acct_catalog_init(apr_pool_t *pool);

#endif
