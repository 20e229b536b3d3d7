#include "api_catalog.h"
#include "api_handlers.h"
#include "acct_catalog.h"
#include "acct_dbconfig.h"
#include "acct_json.h"
#include "acct_list.h"
#include "acct_log.h"
#include "acct_router.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <apr_thread_mutex.h>
#include <ctype.h>
#include <string.h>

/* ---- the catalogues: rendering ------------------------------------------ */

#define COL(name) acct_rows_get(rows, i, name)

/*
 * A region's placement-group limits, which the public API's regions carry
 * and its SDKs read.  This service has no placement groups, so no limit of
 * its own: it shows the public API's values for its core regions (its
 * recorded answers: no limit per customer, 5 instances per group, strict
 * or flexible).
 */
#define PG_LINODES_PER_GROUP 5

static json_t *placement_group_limits(void)
{
    json_t *o = json_object();

    json_object_set_new(o, "maximum_pgs_per_customer", json_null());
    json_object_set_new(o, "maximum_linodes_per_pg",
                        json_integer(PG_LINODES_PER_GROUP));
    json_object_set_new(o, "maximum_linodes_per_flexible_pg",
                        json_integer(PG_LINODES_PER_GROUP));
    return o;
}

/* Does the JSON array `list` hold the string `name`? */
static int lists_string(const json_t *list, const char *name)
{
    const json_t *v;
    size_t k;

    json_array_foreach((json_t *)list, k, v) {
        if (json_is_string(v) && strcmp(json_string_value(v), name) == 0) {
            return 1;
        }
    }
    return 0;
}

/*
 * The services of a region whose metrics and alerts the public API offers
 * (its `monitors`).  Of this module's services, managed databases: the
 * public API lists them, for alerts and metrics alike, in every region
 * that has them and in no other (its recorded regions; the services it
 * adds there, such as NodeBalancers, are not served here).
 */
#define MONITORED_SERVICE "Managed Databases"

static json_t *monitors(const json_t *capabilities)
{
    json_t *alerts = json_array(), *metrics = json_array();

    if (lists_string(capabilities, MONITORED_SERVICE)) {
        json_array_append_new(alerts, json_string(MONITORED_SERVICE));
        json_array_append_new(metrics, json_string(MONITORED_SERVICE));
    }
    return json_pack("{s:o, s:o}", "alerts", alerts, "metrics", metrics);
}

static json_t *render_region(acct_req *req, const acct_rows *rows, int i)
{
    json_t *o = json_object(), *resolvers = json_object();
    json_t *capabilities = acct_json_parse_column(COL("capabilities"));

    json_object_set_new(o, "id", acct_json_str(COL("id")));
    json_object_set_new(o, "label", acct_json_str(COL("label")));
    json_object_set_new(o, "country", acct_json_str(COL("country")));
    json_object_set_new(o, "capabilities", capabilities);
    json_object_set_new(o, "monitors", monitors(capabilities));
    json_object_set_new(o, "status", acct_json_str(COL("status")));
    json_object_set_new(resolvers, "ipv4", acct_json_str(COL("resolvers_ipv4")));
    json_object_set_new(resolvers, "ipv6", acct_json_str(COL("resolvers_ipv6")));
    json_object_set_new(o, "resolvers", resolvers);
    json_object_set_new(o, "site_type", acct_json_str(COL("site_type")));
    json_object_set_new(o, "placement_group_limits", placement_group_limits());
    return o;
}

static json_t *render_availability(acct_req *req, const acct_rows *rows, int i)
{
    json_t *o = json_object();

    json_object_set_new(o, "region", acct_json_str(COL("region")));
    json_object_set_new(o, "plan", acct_json_str(COL("plan")));
    json_object_set_new(o, "available", acct_json_bool(COL("available")));
    return o;
}

/*
 * A region's VPC availability, keys in the order of the public API's
 * answers.  No IPv6 VPC here: no prefix length, as the public API answers
 * for every region in its recorded traffic (linodego's
 * TestRegionsVPCAvailability_List).
 */
static json_t *render_vpc_availability(acct_req *req, const acct_rows *rows,
                                       int i)
{
    json_t *o = json_object();

    json_object_set_new(o, "region", acct_json_str(COL("region")));
    json_object_set_new(o, "available", acct_json_bool(COL("available")));
    json_object_set_new(o, "available_ipv6_prefix_lengths", json_array());
    return o;
}

/* Key order is part of the contract (docs/conventions.md, "Compute type"). */
static json_t *render_type(acct_req *req, const acct_rows *rows, int i)
{
    static const char *const ints[] = {"memory", "disk", "transfer", "vcpus",
                                       "gpus", "network_out"};
    json_t *o = json_object();
    size_t k;

    json_object_set_new(o, "id", acct_json_str(COL("id")));
    json_object_set_new(o, "label", acct_json_str(COL("label")));
    json_object_set_new(o, "price", acct_json_parse_column(COL("price")));
    json_object_set_new(o, "region_prices",
                        acct_json_parse_column(COL("region_prices")));
    json_object_set_new(o, "addons", acct_json_parse_column(COL("addons")));
    for (k = 0; k < sizeof(ints) / sizeof(ints[0]); k++) {
        json_object_set_new(o, ints[k], acct_json_int(COL(ints[k])));
    }
    json_object_set_new(o, "class", acct_json_str(COL("class")));
    json_object_set_new(o, "successor", acct_json_str(COL("successor")));
    return o;
}

static json_t *render_engine(acct_req *req, const acct_rows *rows, int i)
{
    json_t *o = json_object();

    json_object_set_new(o, "id", acct_json_str(COL("id")));
    json_object_set_new(o, "engine", acct_json_str(COL("engine")));
    json_object_set_new(o, "version", acct_json_str(COL("version")));
    return o;
}

/* The public API's database node type, keys in the order of its answers. */
static json_t *render_db_type(acct_req *req, const acct_rows *rows, int i)
{
    json_t *o = json_object();

    json_object_set_new(o, "class", acct_json_str(COL("class")));
    json_object_set_new(o, "deprecated", acct_json_bool(COL("deprecated")));
    json_object_set_new(o, "disk", acct_json_int(COL("disk")));
    json_object_set_new(o, "engines", acct_json_parse_column(COL("engines")));
    json_object_set_new(o, "id", acct_json_str(COL("id")));
    json_object_set_new(o, "label", acct_json_str(COL("label")));
    json_object_set_new(o, "memory", acct_json_int(COL("memory")));
    json_object_set_new(o, "vcpus", acct_json_int(COL("vcpus")));
    return o;
}

#undef COL

/* ---- the per-process snapshot ------------------------------------------- */

/*
 * Besides the rows, a snapshot keeps the serialised answers it has given
 * (list pages, items): they depend on nothing else, so each is rendered
 * once per snapshot and then sent as it is.  `texts` and every allocation
 * from `pool` after loading happen under snapshot_lock; a text, once kept,
 * never changes and lives as long as the snapshot, which each request
 * using it holds.
 */
typedef struct snapshot {
    apr_pool_t *pool;          /* unmanaged: created and destroyed by any thread */
    unsigned refs;             /* holders: the cache itself and each request */
    apr_time_t loaded;
    acct_catalog_rows rows;
    apr_hash_t *texts;         /* answer key -> kept_text */
    apr_size_t text_bytes;     /* held in `texts`, at most TEXTS_MAX */
} snapshot;

typedef struct kept_text {
    const char *text;
    apr_size_t len;
} kept_text;

/*
 * What a snapshot may keep of answers: every page of every catalogue at
 * the default page size is far less, and a client walking through every
 * page size cannot grow the process past it (answers beyond are rendered
 * per request, as without the cache).
 */
#define TEXTS_MAX (4 * 1024 * 1024)

/* This process's current snapshot, swapped and released under
 * snapshot_lock; the lock is made by acct_catalog_init in the child's pool
 * before any thread serves, and both go with that pool (cache_drop). */
static apr_thread_mutex_t *snapshot_lock;
static snapshot *current;

static void snapshot_release_locked(snapshot *s)
{
    if (s && --s->refs == 0) {
        apr_pool_destroy(s->pool);
    }
}

/*
 * When the process's pool dies (child exit, graceful restart), the cache
 * lets go of its snapshot; requests are over by then, so this frees it.
 * Cleanups run in reverse order of registration: this one, registered after
 * the mutex, runs while the mutex still exists.
 */
static apr_status_t cache_drop(void *data)
{
    apr_thread_mutex_lock(snapshot_lock);
    snapshot_release_locked(current);
    current = NULL;
    apr_thread_mutex_unlock(snapshot_lock);
    return APR_SUCCESS;
}

int acct_catalog_init(apr_pool_t *pool)
{
    if (apr_thread_mutex_create(&snapshot_lock, APR_THREAD_MUTEX_DEFAULT,
                                pool) != APR_SUCCESS) {
        return -1;
    }
    apr_pool_cleanup_register(pool, NULL, cache_drop, apr_pool_cleanup_null);
    return 0;
}

static apr_status_t snapshot_release(void *data)
{
    apr_thread_mutex_lock(snapshot_lock);
    snapshot_release_locked(data);
    apr_thread_mutex_unlock(snapshot_lock);
    return APR_SUCCESS;
}

static acct_store_rc snapshot_load(acct_req *req, snapshot **out)
{
    acct_store *st = NULL;
    apr_pool_t *pool = NULL;
    snapshot *s;
    acct_store_rc rc;

    rc = acct_req_store(req, &st);
    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    if (apr_pool_create_unmanaged_ex(&pool, NULL, NULL) != APR_SUCCESS) {
        return ACCT_STORE_FAILED;
    }
    s = apr_pcalloc(pool, sizeof(*s));
    s->pool = pool;
    s->loaded = apr_time_now();
    s->texts = apr_hash_make(pool);
    rc = acct_catalog_load(st, pool, &s->rows);
    if (rc != ACCT_STORE_OK) {
        apr_pool_destroy(pool);
        return rc;
    }
    *out = s;
    return ACCT_STORE_OK;
}

/*
 * The snapshot for this request, held until the request pool dies.  A fresh
 * load replaces the cached one; when loading fails, a stale snapshot is
 * better than an error for data that changes this rarely.
 */
static snapshot *snapshot_get(acct_req *req, acct_resp *resp)
{
    apr_interval_time_t ttl = req->settings ? req->settings->catalog_ttl : 0;
    snapshot *s = NULL, *fresh = NULL, *old = NULL;
    acct_store_rc rc;

    apr_thread_mutex_lock(snapshot_lock);
    if (current && apr_time_now() - current->loaded < ttl) {
        s = current;
        s->refs++;
    }
    apr_thread_mutex_unlock(snapshot_lock);
    if (!s) {
        rc = snapshot_load(req, &fresh);
        apr_thread_mutex_lock(snapshot_lock);
        if (rc == ACCT_STORE_OK) {
            old = current;
            current = fresh;
            fresh->refs = 2; /* the cache and this request */
            s = fresh;
        }
        else if (current) {
            acct_log(ACCT_LOG_WARN, ACCTLOGNO(00032) "serving the cached catalogue: reloading "
                     "it failed");
            s = current;
            s->refs++;
        }
        snapshot_release_locked(old);
        apr_thread_mutex_unlock(snapshot_lock);
        if (!s) {
            acct_resp_store_error(resp, req->pool, rc);
            return NULL;
        }
    }
    apr_pool_cleanup_register(req->pool, s, snapshot_release,
                              apr_pool_cleanup_null);
    return s;
}

/* Answers the text kept under `key`, if any: 1 when it did. */
static int answer_kept(snapshot *s, const char *key, acct_resp *resp)
{
    const kept_text *kept;

    apr_thread_mutex_lock(snapshot_lock);
    kept = apr_hash_get(s->texts, key, APR_HASH_KEY_STRING);
    apr_thread_mutex_unlock(snapshot_lock);
    if (!kept) {
        return 0;
    }
    acct_resp_ok_raw(resp, kept->text, kept->len);
    return 1;
}

/*
 * A handler has answered `resp` from snapshot `s`: a success is serialised
 * (exactly as the glue would) and kept under `key` when the budget allows,
 * and either way answered as that text.  Another request may have kept the
 * same answer meanwhile; the first one stays.
 */
static void keep_answer(acct_req *req, acct_resp *resp, snapshot *s,
                        const char *key)
{
    const kept_text *kept;
    kept_text *mine;
    apr_size_t len = 0;
    const char *text;

    if (acct_resp_failed(resp) || resp->status != ACCT_HTTP_OK || !resp->body) {
        return;
    }
    text = acct_resp_text(resp, req->pool, &len);
    if (!text) {
        return;
    }
    apr_thread_mutex_lock(snapshot_lock);
    kept = apr_hash_get(s->texts, key, APR_HASH_KEY_STRING);
    if (!kept && s->text_bytes + len <= TEXTS_MAX) {
        mine = apr_palloc(s->pool, sizeof(*mine));
        mine->text = apr_pstrmemdup(s->pool, text, len);
        mine->len = len;
        apr_hash_set(s->texts, apr_pstrdup(s->pool, key), APR_HASH_KEY_STRING,
                     mine);
        s->text_bytes += len;
        kept = mine;
    }
    apr_thread_mutex_unlock(snapshot_lock);
    if (kept) {
        acct_resp_ok_raw(resp, kept->text, kept->len);
    }
    else {
        acct_resp_ok_raw(resp, text, len);
    }
}

static int has_filter(const acct_req *req)
{
    const char *p = req->filter;

    while (p && isspace((unsigned char)*p)) {
        p++;
    }
    return p && *p;
}

/* How each catalogue's rows are rendered, by acct_catalog_kind. */
static acct_render_row *const renderers[] = {
    render_region, render_availability, render_type, render_engine,
    render_db_type, render_vpc_availability
};

/*
 * A list: from the snapshot, or through SQL when the caller filters.  A
 * page of the snapshot is kept by kind, page and page size (as parsed, so
 * "page=01" is page 1); a page past the end is not kept, so that made-up
 * page numbers cannot fill the budget.
 */
static void catalog_list(acct_req *req, acct_resp *resp,
                         acct_catalog_kind kind)
{
    const acct_rows *rows;
    const char *key = NULL;
    snapshot *s;
    acct_page pg;

    if (has_filter(req)) {
        acct_list_query q;

        acct_catalog_list_query(kind, renderers[kind], &q);
        acct_list_respond(req, resp, &q);
        return;
    }
    s = snapshot_get(req, resp);
    if (!s || acct_list_page(req, resp, &pg) != 0) {
        return;
    }
    rows = acct_catalog_rows_of(&s->rows, kind);
    if (pg.page == 1 || acct_page_offset(&pg) < rows->nrows) {
        key = apr_psprintf(req->pool, "list %d %" APR_INT64_T_FMT
                           " %" APR_INT64_T_FMT, (int)kind, pg.page,
                           pg.page_size);
        if (answer_kept(s, key, resp)) {
            return;
        }
    }
    acct_list_respond_rows(req, resp, rows, renderers[kind]);
    if (key) {
        keep_answer(req, resp, s, key);
    }
}

/* Index of the row whose `column` equals `value`, or -1. */
static int find_row(const acct_rows *rows, const char *column,
                    const char *value)
{
    int c = acct_rows_col(rows, column), i;

    for (i = 0; c >= 0 && i < rows->nrows; i++) {
        if (rows->values[i][c] && strcmp(rows->values[i][c], value) == 0) {
            return i;
        }
    }
    return -1;
}

/*
 * An item, kept by kind and row (ids that name nothing are not kept): the
 * row whose `column` is `id`.  The rows searched are those an id may name:
 * an engine's full-version id answers its own row although the list shows
 * the major versions.
 */
static void catalog_item(acct_req *req, acct_resp *resp,
                         acct_catalog_kind kind, const char *column,
                         const char *id)
{
    snapshot *s = snapshot_get(req, resp);
    const acct_rows *rows;
    const char *key;
    int i;

    if (!s) {
        return;
    }
    rows = acct_catalog_ids_of(&s->rows, kind);
    i = find_row(rows, column, id);
    if (i < 0) {
        acct_resp_error(resp, req->pool, ACCT_HTTP_NOT_FOUND, ACCT_R_NOT_FOUND, NULL);
        return;
    }
    key = apr_psprintf(req->pool, "item %d %d", (int)kind, i);
    if (!answer_kept(s, key, resp)) {
        acct_resp_ok(resp, req->pool, renderers[kind](req, rows, i));
        keep_answer(req, resp, s, key);
    }
}

void api_regions_list(acct_req *req, acct_resp *resp)
{
    catalog_list(req, resp, ACCT_CATALOG_REGIONS);
}

void api_region_get(acct_req *req, acct_resp *resp)
{
    catalog_item(req, resp, ACCT_CATALOG_REGIONS, "id", req->params[0]);
}

void api_regions_availability(acct_req *req, acct_resp *resp)
{
    catalog_list(req, resp, ACCT_CATALOG_AVAILABILITY);
}

/* A bare array, not an envelope (docs/conventions.md, "Region"). */
void api_region_availability(acct_req *req, acct_resp *resp)
{
    snapshot *s = snapshot_get(req, resp);
    const acct_rows *rows;
    const char *key;
    json_t *data;
    int i, c, region;

    if (!s) {
        return;
    }
    region = find_row(s->rows.regions, "id", req->params[0]);
    if (region < 0) {
        acct_resp_error(resp, req->pool, ACCT_HTTP_NOT_FOUND, ACCT_R_NOT_FOUND, NULL);
        return;
    }
    key = apr_psprintf(req->pool, "availability %d", region);
    if (answer_kept(s, key, resp)) {
        return;
    }
    rows = s->rows.availability;
    c = acct_rows_col(rows, "region");
    data = json_array();
    for (i = 0; c >= 0 && i < rows->nrows; i++) {
        if (rows->values[i][c] && strcmp(rows->values[i][c], req->params[0]) == 0) {
            json_array_append_new(data, render_availability(req, rows, i));
        }
    }
    acct_resp_ok(resp, req->pool, data);
    keep_answer(req, resp, s, key);
}

void api_regions_vpc_availability(acct_req *req, acct_resp *resp)
{
    catalog_list(req, resp, ACCT_CATALOG_VPC_AVAILABILITY);
}

/* An object, not an array: each region has one VPC availability.  A region
 * the catalogue does not have is 404, as for its plans' availability. */
void api_region_vpc_availability(acct_req *req, acct_resp *resp)
{
    catalog_item(req, resp, ACCT_CATALOG_VPC_AVAILABILITY, "region",
                 req->params[0]);
}

void api_types_list(acct_req *req, acct_resp *resp)
{
    catalog_list(req, resp, ACCT_CATALOG_TYPES);
}

void api_type_get(acct_req *req, acct_resp *resp)
{
    catalog_item(req, resp, ACCT_CATALOG_TYPES, "id", req->params[0]);
}

void api_engines_list(acct_req *req, acct_resp *resp)
{
    catalog_list(req, resp, ACCT_CATALOG_ENGINES);
}

/* The id arrives as one segment ("mysql%2F8", decoded) or as two; a
 * contract client's full-version id ("mysql/8.0.30") answers its own row. */
void api_engine_get(acct_req *req, acct_resp *resp)
{
    catalog_item(req, resp, ACCT_CATALOG_ENGINES, "id", req->params[0]);
}

void api_db_types_list(acct_req *req, acct_resp *resp)
{
    catalog_list(req, resp, ACCT_CATALOG_DB_TYPES);
}

void api_db_type_get(acct_req *req, acct_resp *resp)
{
    catalog_item(req, resp, ACCT_CATALOG_DB_TYPES, "id", req->params[0]);
}

/* The description of the engine's settings: compiled in, sent as it is. */
void api_db_config_get(acct_req *req, acct_resp *resp)
{
    size_t len = 0;
    const char *doc = acct_dbconfig_document(req->route->param, &len);

    if (!doc) {
        acct_resp_error(resp, req->pool, ACCT_HTTP_NOT_FOUND, ACCT_R_NOT_FOUND, NULL);
        return;
    }
    acct_resp_ok_raw(resp, doc, len);
}
