/*
 * A managed database's row in the public API's shapes: the object every
 * /databases route answers (api_databases.c says the choices behind it),
 * in an engine's list and view or in the all-engines list.
 */
#include "api_db_render.h"
#include "acct_db.h"
#include "acct_dbconfig.h"
#include "acct_json.h"

#include <apr_strings.h>
#include <string.h>

/* ------------------------------------------------------------------------
 * Rendering
 */

static void set_str(json_t *o, const char *key, const acct_rows *rows, int i,
                    const char *column)
{
    json_object_set_new(o, key, acct_json_str(acct_rows_get(rows, i, column)));
}

static void set_int(json_t *o, const char *key, const acct_rows *rows, int i,
                    const char *column)
{
    json_object_set_new(o, key, acct_json_int(acct_rows_get(rows, i, column)));
}

/* A stored JSON document, or `fallback` if the column cannot be read. */
json_t *api_db_json_column(const acct_rows *rows, int i, const char *column,
                           json_t *fallback)
{
    json_t *v = acct_json_parse_column(acct_rows_get(rows, i, column));

    if (json_is_null(v)) {
        json_decref(v);
        return fallback;
    }
    json_decref(fallback);
    return v;
}

/*
 * The cluster's nodes as the public API lists them (`members`: address ->
 * "primary" or "failover"), once provisioned: one address per node, from
 * the benchmarking range 198.18.0.0/15 (RFC 2544, never routed), node n of
 * database `id` at offset 3 * id + n, so no two nodes of one module share
 * one until 43690 databases exist.
 */
static json_t *render_members(const acct_rows *rows, int i)
{
    json_t *o = json_object();
    apr_int64_t id = 0, nodes = 0, n, k;
    char addr[32];

    if (!acct_rows_get(rows, i, "host_primary")) {
        return o;
    }
    acct_parse_i64(acct_rows_get(rows, i, "id"), &id);
    acct_parse_i64(acct_rows_get(rows, i, "cluster_size"), &nodes);
    for (n = 0; n < nodes; n++) {
        k = (ACCT_DB_CLUSTER_HA * id + n) % (2 * 65536);
        apr_snprintf(addr, sizeof(addr), "198.%d.%d.%d", (int)(18 + k / 65536),
                     (int)(k / 256 % 256), (int)(k % 256));
        json_object_set_new(o, addr, json_string(n == 0 ? "primary"
                                                        : "failover"));
    }
    return o;
}

/*
 * The oldest moment a fork may restore (acct_db_oldest_restore).  A time
 * from the start, as the public API answers even while a database
 * provisions (linodego's recorded create answers; @linode/api-v4 types it
 * a string).
 */
static json_t *render_oldest_restore(acct_req *req, const acct_rows *rows,
                                     int i)
{
    apr_int64_t t;

    if (acct_db_oldest_restore(rows, i, req->now, &t) != 0) {
        return json_null();
    }
    return acct_json_time(req->pool, acct_i64(req->pool, t));
}

/* The engine's settings: the stored ones, or the engine's defaults for a
 * database made before settings were kept ("{}"). */
json_t *api_db_render_engine_config(const acct_rows *rows, int i,
                                    const char *engine)
{
    json_t *v = api_db_json_column(rows, i, "engine_config", json_object());

    if (json_object_size(v) == 0) {
        json_decref(v);
        v = acct_dbconfig_initial(engine, NULL);
    }
    return v ? v : json_object();
}

/* fork: null, or the source database and the moment restored. */
static json_t *render_fork(acct_req *req, const acct_rows *rows, int i)
{
    const char *source = acct_rows_get(rows, i, "fork_source");

    if (!source) {
        return json_null();
    }
    return json_pack("{s:o, s:o}", "source", acct_json_int(source),
                     "restore_time",
                     acct_json_time(req->pool,
                                    acct_rows_get(rows, i,
                                                  "fork_restore_time")));
}

/*
 * docs/conventions.md's shape, then what today's public API adds (members,
 * platform,
 * oldest_restore_time, engine_config, private_network, fork; hosts.standby
 * and updates.pending).  `all`: the all-engines list, which adds
 * instance_uri and leaves out the replication settings; it shows
 * ssl_connection as the engines' lists do (today's public API: linodego's
 * recorded TestDatabase_List).
 */
static json_t *render(acct_req *req, const acct_rows *rows, int i, int all)
{
    const char *engine = acct_rows_get(rows, i, "engine");
    const acct_db_engine *e = acct_db_engine_named(engine);
    json_t *o = json_object(), *hosts = json_object(), *updates;
    acct_db_hosts names;

    set_int(o, "id", rows, i, "id");
    set_str(o, "label", rows, i, "label");
    set_str(o, "engine", rows, i, "engine");
    set_str(o, "version", rows, i, "version");
    set_str(o, "region", rows, i, "region");
    set_str(o, "type", rows, i, "type");
    set_int(o, "cluster_size", rows, i, "cluster_size");
    json_object_set_new(o, "encrypted",
                        acct_json_bool(acct_rows_get(rows, i, "encrypted")));
    json_object_set_new(o, "ssl_connection",
                        acct_json_bool(acct_rows_get(rows, i, "ssl_connection")));
    json_object_set_new(o, "allow_list",
                        api_db_json_column(rows, i, "allow_list",
                                           json_array()));
    set_int(o, "port", rows, i, "port");
    acct_db_hosts_of(req->pool, req->settings, rows, i, &names);
    json_object_set_new(hosts, "primary", acct_json_str(names.primary));
    json_object_set_new(hosts, "secondary", acct_json_str(names.secondary));
    json_object_set_new(hosts, "standby", acct_json_str(names.standby));
    json_object_set_new(o, "hosts", hosts);
    set_str(o, "status", rows, i, "status");
    json_object_set_new(o, "created",
                        acct_json_time(req->pool,
                                       acct_rows_get(rows, i, "created")));
    json_object_set_new(o, "updated",
                        acct_json_time(req->pool,
                                       acct_rows_get(rows, i, "updated")));
    set_int(o, "total_disk_size_gb", rows, i, "total_disk_size_gb");
    set_int(o, "used_disk_size_gb", rows, i, "used_disk_size_gb");
    updates = api_db_json_column(rows, i, "updates", json_object());
    json_object_set_new(updates, "pending",
                        acct_db_pending_render(req->pool, rows, i, req->now));
    json_object_set_new(o, "updates", updates);
    if (all) {
        json_object_set_new(o, "instance_uri", acct_json_str(apr_psprintf(
            req->pool, "/v4/databases/%s/instances/%s", engine,
            acct_rows_get(rows, i, "id"))));
    }
    else {
        set_str(o, "replication_type", rows, i, "replication_type");
        if (e && e->commit_types) {
            set_str(o, "replication_commit_type", rows, i,
                    "replication_commit_type");
        }
    }
    json_object_set_new(o, "members", render_members(rows, i));
    set_str(o, "platform", rows, i, "platform");
    json_object_set_new(o, "oldest_restore_time",
                        render_oldest_restore(req, rows, i));
    json_object_set_new(o, "engine_config",
                        api_db_render_engine_config(rows, i, engine));
    json_object_set_new(o, "private_network",
                        api_db_json_column(rows, i, "private_network",
                                           json_null()));
    json_object_set_new(o, "fork", render_fork(req, rows, i));
    return o;
}

json_t *api_db_render_engine(acct_req *req, const acct_rows *rows, int i)
{
    return render(req, rows, i, 0);
}

json_t *api_db_render_any(acct_req *req, const acct_rows *rows, int i)
{
    return render(req, rows, i, 1);
}

/* Answers database `id` as it is now in the store. */
void api_db_respond(acct_req *req, acct_resp *resp, apr_int64_t id)
{
    acct_rows *rows = NULL;
    acct_store_rc rc = acct_db_get(req->store, req->pool, id, &rows);

    rows = acct_resp_found(req, resp, rc, rows);

    if (rows) {
        acct_resp_ok(resp, req->pool, api_db_render_engine(req, rows, 0));
    }
}
