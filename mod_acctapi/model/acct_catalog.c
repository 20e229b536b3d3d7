#include "acct_catalog.h"

#include <string.h>

#define REGION_COLUMNS \
    "id, label, country, capabilities, status, resolvers_ipv4," \
    " resolvers_ipv6, site_type"
#define AVAILABILITY_COLUMNS "region, plan, available"
#define TYPE_COLUMNS \
    "id, label, price, region_prices, addons, memory, disk, transfer," \
    " vcpus, gpus, network_out, class, successor"
#define ENGINE_COLUMNS "id, engine, version"

static const acct_sql q_regions = ACCT_SQL("catalog_regions",
    "SELECT " REGION_COLUMNS " FROM regions ORDER BY id");
static const acct_sql q_availability = ACCT_SQL("catalog_availability",
    "SELECT " AVAILABILITY_COLUMNS " FROM region_availability"
    " ORDER BY region, plan");
static const acct_sql q_types = ACCT_SQL("catalog_types",
    "SELECT " TYPE_COLUMNS " FROM compute_types ORDER BY id");
static const acct_sql q_engines = ACCT_SQL("catalog_engines",
    "SELECT " ENGINE_COLUMNS " FROM database_engines ORDER BY id");

static const acct_filter_field region_fields[] = {
    {"country", "country", ACCT_FIELD_TEXT},
    {"status", "status", ACCT_FIELD_TEXT},
    /* Today's clients filter on it (the Terraform provider's linode_regions). */
    {"site_type", "site_type", ACCT_FIELD_TEXT},
    {NULL, NULL, 0}
};

static const acct_filter_field availability_fields[] = {
    {"region", "region", ACCT_FIELD_TEXT},
    {"plan", "plan", ACCT_FIELD_TEXT},
    {"available", "available", ACCT_FIELD_BOOL},
    {NULL, NULL, 0}
};

static const acct_filter_field type_fields[] = {
    {"label", "label", ACCT_FIELD_TEXT},
    {"class", "class", ACCT_FIELD_TEXT},
    {"disk", "disk", ACCT_FIELD_INT},
    {"memory", "memory", ACCT_FIELD_INT},
    {"transfer", "transfer", ACCT_FIELD_INT},
    {"network_out", "network_out", ACCT_FIELD_INT},
    {"vcpus", "vcpus", ACCT_FIELD_INT},
    {"gpus", "gpus", ACCT_FIELD_INT},
    {NULL, NULL, 0}
};

static const acct_filter_field engine_fields[] = {
    {"engine", "engine", ACCT_FIELD_TEXT},
    {"version", "version", ACCT_FIELD_TEXT},
    {NULL, NULL, 0}
};

/* A list of each catalogue, by acct_catalog_kind. */
typedef struct catalog_desc {
    const char *columns;
    const char *table;
    const acct_filter_field *fields;
    const char *stable_order;
} catalog_desc;

static const catalog_desc catalogs[] = {
    {REGION_COLUMNS, "regions", region_fields, "id"},
    {AVAILABILITY_COLUMNS, "region_availability", availability_fields,
     "region, plan"},
    {TYPE_COLUMNS, "compute_types", type_fields, "id"},
    {ENGINE_COLUMNS, "database_engines", engine_fields, "id"},
};

acct_store_rc acct_catalog_load(acct_store *st, apr_pool_t *pool,
                                acct_catalog_rows *out)
{
    acct_store_rc rc;

    memset(out, 0, sizeof(*out));
    rc = acct_store_select(st, pool, &q_regions, &out->regions, 0, NULL);
    if (rc == ACCT_STORE_OK) {
        rc = acct_store_select(st, pool, &q_availability, &out->availability,
                               0, NULL);
    }
    if (rc == ACCT_STORE_OK) {
        rc = acct_store_select(st, pool, &q_types, &out->types, 0, NULL);
    }
    if (rc == ACCT_STORE_OK) {
        rc = acct_store_select(st, pool, &q_engines, &out->engines, 0, NULL);
    }
    return rc;
}

const acct_rows *acct_catalog_rows_of(const acct_catalog_rows *rows,
                                      acct_catalog_kind kind)
{
    switch (kind) {
    case ACCT_CATALOG_REGIONS: return rows->regions;
    case ACCT_CATALOG_AVAILABILITY: return rows->availability;
    case ACCT_CATALOG_TYPES: return rows->types;
    case ACCT_CATALOG_ENGINES: return rows->engines;
    }
    return NULL;
}

void acct_catalog_list_query(acct_catalog_kind kind, acct_render_row *render,
                             acct_list_query *q)
{
    const catalog_desc *d = &catalogs[kind];

    memset(q, 0, sizeof(*q));
    q->columns = d->columns;
    q->from = d->table;
    q->fields = d->fields;
    q->stable_order = d->stable_order;
    q->render = render;
}
