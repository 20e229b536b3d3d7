#include "acct_catalog.h"

#include <apr_strings.h>
#include <jansson.h>
#include <string.h>

#define REGION_COLUMNS \
    "id, label, country, capabilities, status, resolvers_ipv4," \
    " resolvers_ipv6, site_type"
#define AVAILABILITY_COLUMNS "region, plan, available"
#define TYPE_COLUMNS \
    "id, label, price, region_prices, addons, memory, disk, transfer," \
    " vcpus, gpus, network_out, class, successor"
#define ENGINE_COLUMNS "id, engine, version, listed, current_version"
/* Alphabetical: the order of the public API's answers. */
#define DB_TYPE_COLUMNS \
    "class, deprecated, disk, engines, id, label, memory, vcpus"
/*
 * A region's VPC availability is its "VPCs" capability, as the public API
 * answers it (its recorded regions and their VPC availability agree region
 * by region).  One expression for the rows and for X-Filter, so that both
 * paths agree; replace() is byte-exact on both dialects (LIKE is not case
 * sensitive on SQLite), and the quotes match the whole JSON string.
 */
#define VPC_AVAILABLE \
    "CASE WHEN replace(capabilities, '\"VPCs\"', '') <> capabilities" \
    " THEN 1 ELSE 0 END"
#define VPC_AVAILABILITY_COLUMNS "id AS region, " VPC_AVAILABLE " AS available"

static const acct_sql q_regions = ACCT_SQL("catalog_regions",
    "SELECT " REGION_COLUMNS " FROM regions ORDER BY id");
static const acct_sql q_availability = ACCT_SQL("catalog_availability",
    "SELECT " AVAILABILITY_COLUMNS " FROM region_availability"
    " ORDER BY region, plan");
static const acct_sql q_types = ACCT_SQL("catalog_types",
    "SELECT " TYPE_COLUMNS " FROM compute_types ORDER BY id");
/* Every engine id; the list's rows are those listed (engines_listed). */
static const acct_sql q_engines = ACCT_SQL("catalog_engines",
    "SELECT " ENGINE_COLUMNS " FROM database_engines ORDER BY id");
static const acct_sql q_db_types = ACCT_SQL("catalog_db_types",
    "SELECT " DB_TYPE_COLUMNS " FROM database_types ORDER BY list_order");
static const acct_sql q_vpc_availability = ACCT_SQL("catalog_vpc_availability",
    "SELECT " VPC_AVAILABILITY_COLUMNS " FROM regions ORDER BY id");
static const acct_sql q_engine = ACCT_SQL("catalog_engine",
    "SELECT " ENGINE_COLUMNS " FROM database_engines WHERE id = %s");
static const acct_sql q_db_type = ACCT_SQL("catalog_db_type",
    "SELECT " DB_TYPE_COLUMNS " FROM database_types WHERE id = %s");

/*
 * The fields today's clients filter on: the public API's marks, the
 * Terraform provider's (linode_regions: site_type), and every scalar and
 * list property of linode_api4's models, each of which its filters may
 * name (its FilterableMetaclass), here as in every catalogue below.
 */
static const acct_filter_field region_fields[] = {
    {"id", "id", ACCT_FIELD_TEXT},
    {"label", "label", ACCT_FIELD_TEXT},
    {"country", "country", ACCT_FIELD_TEXT},
    {"capabilities", ACCT_FILTER_HOLDS("capabilities"), ACCT_FIELD_TAG},
    {"status", "status", ACCT_FIELD_TEXT},
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
    {"id", "id", ACCT_FIELD_TEXT},
    {"label", "label", ACCT_FIELD_TEXT},
    {"class", "class", ACCT_FIELD_TEXT},
    {"disk", "disk", ACCT_FIELD_INT},
    {"memory", "memory", ACCT_FIELD_INT},
    {"transfer", "transfer", ACCT_FIELD_INT},
    {"network_out", "network_out", ACCT_FIELD_INT},
    {"vcpus", "vcpus", ACCT_FIELD_INT},
    {"gpus", "gpus", ACCT_FIELD_INT},
    {"successor", "successor", ACCT_FIELD_TEXT},
    {NULL, NULL, 0}
};

static const acct_filter_field engine_fields[] = {
    {"id", "id", ACCT_FIELD_TEXT},
    {"engine", "engine", ACCT_FIELD_TEXT},
    {"version", "version", ACCT_FIELD_TEXT},
    {NULL, NULL, 0}
};

/* The public API marks deprecated; linode_api4's DatabaseType has the
 * others (client.database.types(DatabaseType.disk == n)). */
static const acct_filter_field db_type_fields[] = {
    {"deprecated", "deprecated", ACCT_FIELD_BOOL},
    {"disk", "disk", ACCT_FIELD_INT},
    {"id", "id", ACCT_FIELD_TEXT},
    {"label", "label", ACCT_FIELD_TEXT},
    {"memory", "memory", ACCT_FIELD_INT},
    {"vcpus", "vcpus", ACCT_FIELD_INT},
    {NULL, NULL, 0}
};

static const acct_filter_field vpc_availability_fields[] = {
    {"region", "id", ACCT_FIELD_TEXT},
    {"available", VPC_AVAILABLE, ACCT_FIELD_BOOL},
    {NULL, NULL, 0}
};

/* A list of each catalogue, by acct_catalog_kind. */
typedef struct catalog_desc {
    const char *columns;
    const char *table;
    const char *where;             /* what the list shows, or NULL: all */
    const acct_filter_field *fields;
    const char *stable_order;
} catalog_desc;

static const catalog_desc catalogs[] = {
    {REGION_COLUMNS, "regions", NULL, region_fields, "id"},
    {AVAILABILITY_COLUMNS, "region_availability", NULL, availability_fields,
     "region, plan"},
    {TYPE_COLUMNS, "compute_types", NULL, type_fields, "id"},
    /* The major versions; the full-version ids are names, not entries. */
    {ENGINE_COLUMNS, "database_engines", "listed = 1", engine_fields, "id"},
    {DB_TYPE_COLUMNS, "database_types", NULL, db_type_fields, "list_order"},
    {VPC_AVAILABILITY_COLUMNS, "regions", NULL, vpc_availability_fields, "id"},
};

static int engine_listed(const acct_rows *rows, int i)
{
    const char *v = acct_rows_get(rows, i, "listed");

    return v && strcmp(v, "1") == 0;
}

/*
 * The listed rows of `all`, in its order, as rows of their own (sharing
 * the values): the list answered from the snapshot must be the rows the
 * SQL path's "listed = 1" selects.
 */
static acct_rows *engines_listed(apr_pool_t *pool, const acct_rows *all)
{
    acct_rows *out = apr_pcalloc(pool, sizeof(*out));
    int i;

    out->ncols = all->ncols;
    out->names = all->names;
    out->values = apr_pcalloc(pool, sizeof(*out->values)
                                    * (all->nrows ? all->nrows : 1));
    for (i = 0; i < all->nrows; i++) {
        if (engine_listed(all, i)) {
            out->values[out->nrows++] = all->values[i];
        }
    }
    return out;
}

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
        rc = acct_store_select(st, pool, &q_engines, &out->engine_ids, 0,
                               NULL);
    }
    if (rc == ACCT_STORE_OK) {
        out->engines = engines_listed(pool, out->engine_ids);
        rc = acct_store_select(st, pool, &q_db_types, &out->db_types, 0, NULL);
    }
    if (rc == ACCT_STORE_OK) {
        rc = acct_store_select(st, pool, &q_vpc_availability,
                               &out->vpc_availability, 0, NULL);
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
    case ACCT_CATALOG_DB_TYPES: return rows->db_types;
    case ACCT_CATALOG_VPC_AVAILABILITY: return rows->vpc_availability;
    }
    return NULL;
}

const acct_rows *acct_catalog_ids_of(const acct_catalog_rows *rows,
                                     acct_catalog_kind kind)
{
    return kind == ACCT_CATALOG_ENGINES ? rows->engine_ids
                                        : acct_catalog_rows_of(rows, kind);
}

void acct_catalog_list_query(acct_catalog_kind kind, acct_render_row *render,
                             acct_list_query *q)
{
    const catalog_desc *d = &catalogs[kind];

    memset(q, 0, sizeof(*q));
    q->columns = d->columns;
    q->from = d->table;
    q->where = d->where;
    q->fields = d->fields;
    q->stable_order = d->stable_order;
    q->render = render;
}

/* ---- engines by id -------------------------------------------------------- */

const char *acct_engine_major(apr_pool_t *pool, const char *version)
{
    const char *dot = version ? strchr(version, '.') : NULL;

    if (!version) {
        return NULL;
    }
    return dot ? apr_pstrmemdup(pool, version, (apr_size_t)(dot - version))
               : version;
}

/* The row of `sql` (one %s: the id) for `id`: *found 1, or 0. */
static acct_store_rc row_of(acct_store *st, apr_pool_t *pool,
                            const acct_sql *sql, const char *id,
                            acct_rows **rows, int *found)
{
    acct_store_rc rc = acct_store_select(st, pool, sql, rows, 1, &id);

    *found = rc == ACCT_STORE_OK && (*rows)->nrows == 1;
    return rc;
}

acct_store_rc acct_catalog_engine_find(acct_store *st, apr_pool_t *pool,
                                       const char *id, acct_engine_ref *out,
                                       int *found)
{
    acct_rows *rows = NULL;
    acct_store_rc rc = row_of(st, pool, &q_engine, id, &rows, found);
    const char *current;

    memset(out, 0, sizeof(*out));
    if (!*found) {
        return rc;
    }
    out->id = acct_rows_get(rows, 0, "id");
    out->engine = acct_rows_get(rows, 0, "engine");
    out->version = acct_rows_get(rows, 0, "version");
    out->major = acct_engine_major(pool, out->version);
    out->canonical = apr_pstrcat(pool, out->engine, "/", out->major, NULL);
    out->listed = engine_listed(rows, 0);
    current = acct_rows_get(rows, 0, "current_version");
    out->full_version = current ? current : out->version;
    return rc;
}

acct_store_rc acct_catalog_engine_of(acct_store *st, apr_pool_t *pool,
                                     const char *engine, const char *version,
                                     acct_engine_ref *out, int *found)
{
    return acct_catalog_engine_find(st, pool,
                                    apr_pstrcat(pool, engine, "/", version,
                                                NULL),
                                    out, found);
}

acct_store_rc acct_catalog_engine_current(acct_store *st, apr_pool_t *pool,
                                          const char *engine,
                                          const char *major,
                                          const char **full_version)
{
    acct_engine_ref e;
    int found = 0;
    acct_store_rc rc = acct_catalog_engine_of(st, pool, engine, major, &e,
                                              &found);

    *full_version = found && e.listed ? e.full_version : NULL;
    return rc;
}

/* ---- database node types ---------------------------------------------------- */

acct_store_rc acct_catalog_db_type_find(acct_store *st, apr_pool_t *pool,
                                        const char *id, acct_db_type *out,
                                        int *found)
{
    acct_rows *rows = NULL;
    acct_store_rc rc = row_of(st, pool, &q_db_type, id, &rows, found);
    const char *deprecated;

    memset(out, 0, sizeof(*out));
    if (!*found) {
        return rc;
    }
    out->id = acct_rows_get(rows, 0, "id");
    out->label = acct_rows_get(rows, 0, "label");
    out->type_class = acct_rows_get(rows, 0, "class");
    acct_parse_i64(acct_rows_get(rows, 0, "memory"), &out->memory);
    acct_parse_i64(acct_rows_get(rows, 0, "vcpus"), &out->vcpus);
    acct_parse_i64(acct_rows_get(rows, 0, "disk"), &out->disk);
    deprecated = acct_rows_get(rows, 0, "deprecated");
    out->deprecated = deprecated && strcmp(deprecated, "0") != 0;
    out->engines = acct_rows_get(rows, 0, "engines");
    return rc;
}

int acct_db_type_offers(const acct_db_type *t, const char *engine,
                        int nodes, double *hourly, double *monthly)
{
    json_t *doc = t->engines ? json_loads(t->engines, 0, NULL) : NULL;
    json_t *tier, *price;
    size_t i;
    int offered = 0;

    json_array_foreach(json_object_get(doc, engine), i, tier) {
        if (json_integer_value(json_object_get(tier, "quantity")) != nodes) {
            continue;
        }
        price = json_object_get(tier, "price");
        if (hourly) {
            *hourly = json_number_value(json_object_get(price, "hourly"));
        }
        if (monthly) {
            *monthly = json_number_value(json_object_get(price, "monthly"));
        }
        offered = 1;
        break;
    }
    json_decref(doc);
    return offered;
}
