/*
 * The public catalogues as the database keeps them: regions, their
 * availability by plan and for VPCs, compute types, database engines,
 * database node types.  Read whole (the handlers keep a per-process snapshot) or as
 * filtered lists; the managed-database routes look single engines and
 * node types up.
 */
#ifndef ACCT_CATALOG_H
#define ACCT_CATALOG_H

#include "acct_list.h"
#include "acct_store.h"

typedef enum {
    ACCT_CATALOG_REGIONS,
    ACCT_CATALOG_AVAILABILITY,
    ACCT_CATALOG_TYPES,
    ACCT_CATALOG_ENGINES,
    ACCT_CATALOG_DB_TYPES,
    ACCT_CATALOG_VPC_AVAILABILITY
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
    acct_rows *engines;        /* the listed engines (one per major
                                  version): id, engine, version, listed,
                                  current_version */
    acct_rows *engine_ids;     /* every engine id, the full-version ids
                                  kept for the contract's clients too: the
                                  rows an engine id names (same columns) */
    acct_rows *db_types;       /* class, deprecated, disk, engines (JSON),
                                  id, label, memory, vcpus */
    acct_rows *vpc_availability; /* region, available (1 or 0): one row per
                                    region, from the regions table: VPCs are
                                    available where its capabilities list
                                    them */
} acct_catalog_rows;

/* Reads the six catalogues, one statement each. */
acct_store_rc acct_catalog_load(acct_store *st, apr_pool_t *pool,
                                acct_catalog_rows *out);

/* The rows of catalogue `kind` in `rows`: what its list shows. */
const acct_rows *acct_catalog_rows_of(const acct_catalog_rows *rows,
                                      acct_catalog_kind kind);

/* The rows an id of catalogue `kind` may name: the list's rows, except for
 * engines, whose full-version ids name unlisted rows as well. */
const acct_rows *acct_catalog_ids_of(const acct_catalog_rows *rows,
                                     acct_catalog_kind kind);

/*
 * The list of catalogue `kind` for X-Filter (the same columns as
 * acct_catalog_load reads), each row rendered by `render`.
 */
void acct_catalog_list_query(acct_catalog_kind kind, acct_render_row *render,
                             acct_list_query *q);

/* ------------------------------------------------------------------------
 * Database engines by id, for the managed-database routes.
 *
 * Today's public API names engines by major version ("mysql/8"); the
 * contract by full version ("mysql/8.0.30").  Both are rows of
 * database_engines: the major ids listed, the full-version ids unlisted.
 * A database created from a major id runs that major's current release;
 * one created from a full-version id runs that version.
 * ------------------------------------------------------------------------ */

typedef struct acct_engine_ref {
    const char *id;           /* as named: "mysql/8" or "mysql/8.0.30" */
    const char *engine;       /* "mysql", "postgresql" */
    const char *version;      /* the row's version: "8" or "8.0.30" */
    const char *major;        /* "8" */
    const char *canonical;    /* engine/major, "mysql/8": the id today's
                                 clients use (Terraform's engine_id), which
                                 need not be listed ("mysql/5") */
    const char *full_version; /* what a new database of this id runs: the
                                 current release of a major id ("8.0.35"),
                                 the version itself of a full-version id */
    int listed;               /* shown by GET /databases/engines */
} acct_engine_ref;

/*
 * The engine `id` names, listed or not: *found 1 and `out` filled, or
 * *found 0.  One statement.
 */
acct_store_rc acct_catalog_engine_find(acct_store *st, apr_pool_t *pool,
                                       const char *id, acct_engine_ref *out,
                                       int *found);

/*
 * The engine of `engine` and `version` as a database names them or a
 * client sends a version ("8", "16", "8.0.30"): acct_catalog_engine_find
 * of "engine/version".
 */
acct_store_rc acct_catalog_engine_of(acct_store *st, apr_pool_t *pool,
                                     const char *engine, const char *version,
                                     acct_engine_ref *out, int *found);

/*
 * Major -> current full version: the release a new database of
 * engine/major runs ("mysql", "8" -> "8.0.35"); *full_version NULL when no
 * listed engine has that major.
 */
acct_store_rc acct_catalog_engine_current(acct_store *st, apr_pool_t *pool,
                                          const char *engine,
                                          const char *major,
                                          const char **full_version);

/* The major of a version: up to the first dot ("8.0.35" -> "8"). */
const char *acct_engine_major(apr_pool_t *pool, const char *version);

/* ------------------------------------------------------------------------
 * Database node types (GET /databases/types), for the managed-database
 * routes: what a type offers per engine and cluster size.
 * ------------------------------------------------------------------------ */

typedef struct acct_db_type {
    const char *id;
    const char *label;
    const char *type_class;   /* "nanode", "standard", "dedicated" */
    apr_int64_t memory;       /* MB */
    apr_int64_t vcpus;
    apr_int64_t disk;         /* MB */
    int deprecated;
    const char *engines;      /* the JSON text the list answers */
} acct_db_type;

/* The node type `id`: *found 1 and `out` filled, or *found 0. */
acct_store_rc acct_catalog_db_type_find(acct_store *st, apr_pool_t *pool,
                                        const char *id, acct_db_type *out,
                                        int *found);

/*
 * Is type `t` sold for `engine` ("mysql", "postgresql") in clusters of
 * `nodes`?  1 with its prices in *hourly and *monthly (either may be NULL),
 * else 0.
 */
int acct_db_type_offers(const acct_db_type *t, const char *engine,
                        int nodes, double *hourly, double *monthly);

#endif
