/*
 * Managed MySQL and PostgreSQL databases: GET /databases/instances and, per
 * engine (req->route->param), /databases/{engine}/instances[/{instanceId}].
 *
 * A database is a row whose status moves by itself (acct_db.h): create puts
 * it in provisioning with active due after a random provisioning time, an
 * update in updating with active due after the operation time; with
 * AcctapiDatabaseBackend external nothing is scheduled and acctapi-admin
 * drives the status.  Every view settles due transitions first.
 *
 * Choices where the contract is silent, never stricter than the public API
 * (DECISIONS.md, "Today's clients"):
 *  - label: 3..32 characters, unique per account.
 *  - cluster_size 1, 3, or 2 (the public console's two-node clusters).
 *  - replication_type: "none" for a single node (anything else is refused);
 *    a cluster of 2 or 3 nodes replicates: default semi_synch (MySQL) or
 *    asynch (PostgreSQL), and "none" is refused.
 *  - allow_list items are kept in canonical text: an address as inet_ntop
 *    writes it, a range as the address given and its prefix length (host
 *    bits set are kept, as the public API's pattern admits them); items are
 *    kept as given, repeats included.
 *  - updates.duration 1..4 hours: the public API's new clusters have
 *    4-hour windows, and its SDKs' tests send 4.
 *  - root usernames linroot (MySQL) and linpostgres (PostgreSQL) unless
 *    AcctapiDatabaseAdminUser names one for both; the root
 *    password is 24 letters and digits from the CSPRNG, sealed with the
 *    context "dbpass:<id>".
 *  - total_disk_size_gb is the type's disk in whole GB; used_disk_size_gb
 *    stays 0 (nothing is stored in an emulated cluster).
 *  - updates: a PUT's object is merged onto the stored window and the result
 *    must satisfy DECISIONS.md; every accepted PUT puts the database in
 *    updating (so concurrent PUTs on one database: one wins, the others
 *    find it updating), and a resize takes its new disk size at once.
 *  - a PUT's version, cluster_size, type and private_network (today's
 *    public API, issue 21): read_version_change, read_resize and
 *    read_private_network say the rules and where they come from; what
 *    changes shows in the PUT's answer, and the operation's events
 *    (database_update, database_resize) finish when it does.
 */
#include "api_handlers.h"
#include "api_databases.h"
#include "acct_body.h"
#include "acct_catalog.h"
#include "acct_dbconfig.h"
#include "acct_crypto.h"
#include "acct_addr.h"
#include "acct_db.h"
#include "acct_event.h"
#include "acct_grants.h"
#include "acct_json.h"
#include "acct_list.h"
#include "acct_log.h"
#include "acct_router.h"
#include "acct_seal.h"
#include "acct_tags.h"
#include "acct_time.h"

#include <apr_strings.h>
#include <arpa/inet.h>
#include <string.h>

#define LABEL_MIN 3
#define LABEL_MAX 32
#define CATALOG_ID_MAX 100
#define MB_PER_GB 1024

#define R_LABEL_TAKEN "A database with this label already exists"
#define R_ALLOW_ITEM "Must be an IPv4 or IPv6 address or a CIDR range"

static const char *const mysql_create_fields[] = {
    "label", "region", "type", "engine", "cluster_size", "encrypted",
    "ssl_connection", "replication_type", "allow_list", "engine_config",
    NULL
};
static const char *const pg_create_fields[] = {
    "label", "region", "type", "engine", "cluster_size", "encrypted",
    "ssl_connection", "replication_type", "replication_commit_type",
    "allow_list", "engine_config", NULL
};
static const char *const update_fields[] = {"label", "allow_list", "type",
                                            "updates", "engine_config",
                                            "version", "cluster_size",
                                            "private_network", NULL};
static const char *const updates_fields[] = {"frequency", "duration",
                                             "hour_of_day", "day_of_week",
                                             "week_of_month", NULL};

/* ------------------------------------------------------------------------
 * Small helpers
 */

/*
 * A store failure while checking a body is the whole answer: the problems
 * gathered so far would only mislead next to a 503, so the handler drops
 * them.  0, or -1 once answered.
 */
static int check_store(acct_req *req, acct_resp *resp, acct_store_rc rc)
{
    return acct_resp_store_failed(req, resp, rc);
}

static void internal_error(acct_req *req, acct_resp *resp, const char *why)
{
    acct_log(ACCT_LOG_ERR, ACCTLOGNO(00033) "%s", why);
    acct_resp_error(resp, req->pool, ACCT_HTTP_INTERNAL_SERVER_ERROR, ACCT_R_INTERNAL, NULL);
}

/* The engine of the route; the route table only names known ones. */
static const acct_db_engine *route_engine(const acct_req *req)
{
    return acct_db_engine_named(req->route ? req->route->param : NULL);
}

/* The request's store for checking the body against the catalogue; NULL
 * after answering its failure alone (check_store). */
static acct_store *body_store(acct_req *req, acct_resp *resp)
{
    acct_store *st = NULL;

    return check_store(req, resp, acct_req_store(req, &st)) == 0 ? st : NULL;
}

/* Is `v` an integer within [lo, hi]?  0, or -1 after the item on `field`. */
static int check_int(acct_req *req, acct_problems *pb, const char *field,
                     const json_t *v, apr_int64_t lo, apr_int64_t hi)
{
    if (!json_is_integer(v) || json_integer_value(v) < lo
        || json_integer_value(v) > hi) {
        acct_problem_add(pb, field,
                         apr_psprintf(req->pool, "Must be an integer from %"
                                      APR_INT64_T_FMT " to %" APR_INT64_T_FMT,
                                      lo, hi));
        return -1;
    }
    return 0;
}

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
static json_t *json_column(const acct_rows *rows, int i, const char *column,
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
static json_t *render_engine_config(const acct_rows *rows, int i,
                                    const char *engine)
{
    json_t *v = json_column(rows, i, "engine_config", json_object());

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
 * DECISIONS' shape, then what today's public API adds (members, platform,
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
                        json_column(rows, i, "allow_list", json_array()));
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
    updates = json_column(rows, i, "updates", json_object());
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
                        render_engine_config(rows, i, engine));
    json_object_set_new(o, "private_network",
                        json_column(rows, i, "private_network", json_null()));
    json_object_set_new(o, "fork", render_fork(req, rows, i));
    return o;
}

static json_t *render_engine_db(acct_req *req, const acct_rows *rows, int i)
{
    return render(req, rows, i, 0);
}

static json_t *render_any_db(acct_req *req, const acct_rows *rows, int i)
{
    return render(req, rows, i, 1);
}

/* Answers database `id` as it is now in the store. */
static void respond_db(acct_req *req, acct_resp *resp, apr_int64_t id)
{
    acct_rows *rows = NULL;
    acct_store_rc rc = acct_db_get(req->store, req->pool, id, &rows);

    rows = acct_resp_found(req, resp, rc, rows);

    if (rows) {
        acct_resp_ok(resp, req->pool, render_engine_db(req, rows, 0));
    }
}

/* ------------------------------------------------------------------------
 * Lists and view
 */

/* The account's databases the user may see, of `engine` (NULL: all). */
static void list_databases(acct_req *req, acct_resp *resp, const char *engine,
                           acct_render_row *render_row)
{
    acct_list_query q;

    if (acct_resp_store_failed(req, resp, acct_db_settle(req)) != 0) {
        return;
    }
    acct_db_list_query(req, engine, render_row, &q);
    acct_list_respond(req, resp, &q);
}

void api_databases_all(acct_req *req, acct_resp *resp)
{
    list_databases(req, resp, NULL, render_any_db);
}

void api_databases_list(acct_req *req, acct_resp *resp)
{
    list_databases(req, resp, req->route->param, render_engine_db);
}

acct_rows *api_db_of_path(acct_req *req, acct_resp *resp, acct_level need)
{
    acct_outcome out;
    acct_rows *db;
    apr_int64_t id;

    if (acct_path_id(req, resp, 0, &id) != 0) {
        return NULL;
    }
    db = acct_db_load(req, id, req->route->param, need, &out);
    return acct_resp_outcome(resp, req->pool, out) == 0 ? db : NULL;
}

void api_database_get(acct_req *req, acct_resp *resp)
{
    acct_rows *rows = api_db_of_path(req, resp, ACCT_LEVEL_READ_ONLY);

    if (rows) {
        acct_resp_ok(resp, req->pool, render_engine_db(req, rows, 0));
    }
}

/* ------------------------------------------------------------------------
 * Fields
 */

/* The body's label; ACCT_FIELD_SET with *out, or another outcome. */
static acct_field_rc read_label(acct_req *req, acct_problems *pb,
                                const char **out)
{
    return acct_field_string(req, pb, "label", LABEL_MIN, LABEL_MAX, 0, out);
}

/* Takes a PostgreSQL lock on (account, label) until the transaction ends. */
static acct_store_rc lock_label(acct_req *req, const char *label)
{
    acct_store *st = NULL;
    acct_store_rc rc = acct_req_store(req, &st);

    return rc != ACCT_STORE_OK ? rc
           : acct_db_label_lock(st, req->pool, req->who->account_id, label);
}

/*
 * One allow-list item in canonical text; NULL with *reason when the item
 * is not acceptable.
 */
static const char *allow_item(apr_pool_t *pool, const char *item,
                              const char **reason)
{
    unsigned char addr[16];
    char text[INET6_ADDRSTRLEN];
    int family, bits = 0, prefix = 0;

    *reason = R_ALLOW_ITEM;
    family = acct_ip_range(item, addr, &prefix, &bits);
    if (family < 0) {
        *reason = apr_psprintf(pool, "The prefix length must be a whole "
                               "number from 0 to %d", bits);
        return NULL;
    }
    if (family == 0 || !inet_ntop(family, addr, text, sizeof(text))) {
        return NULL;
    }
    return strchr(item, '/') ? apr_psprintf(pool, "%s/%d", text, prefix)
                             : apr_pstrdup(pool, text);
}

/* The body's allow_list as canonical JSON text; NULL when absent or bad. */
static const char *read_allow_list(acct_req *req, acct_problems *pb)
{
    json_t *v = json_object_get(req->body, "allow_list"), *item;
    json_t *out = acct_json_own(req->pool, json_array());
    int bad = 0;
    size_t i;

    if (!v) {
        return NULL;
    }
    if (!json_is_array(v)) {
        acct_problem_add(pb, "allow_list",
                         "allow_list must be an array of strings");
        return NULL;
    }
    json_array_foreach(v, i, item) {
        const char *field = apr_psprintf(req->pool, "allow_list[%lu]",
                                         (unsigned long)i);
        const char *canonical = NULL, *reason = R_ALLOW_ITEM;

        if (json_is_string(item)
            && strlen(json_string_value(item)) == json_string_length(item)) {
            canonical = allow_item(req->pool, json_string_value(item),
                                   &reason);
        }
        if (!canonical) {
            acct_problem_add(pb, field, reason);
            bad = 1;
        }
        else {
            json_array_append_new(out, json_string(canonical));
        }
    }
    return bad ? NULL : acct_json_dump(req->pool, out, NULL);
}

/*
 * private_network: {vpc_id, subnet_id, public_access}, as the public API
 * takes it on create and update.  vpc_id must name a VPC the operator
 * registered in the account (acctapi-admin entity add --type vpc) that a
 * restricted user holds a grant on (read_only: seeing it is enough; the
 * public API documents no stricter rule for a database); subnet_id is a
 * subnet of that VPC in the public API, but subnets are not registered
 * here, so any positive integer is taken (never stricter than the public
 * API).  public_access defaults to false, as the Terraform provider and
 * Cloud Manager default it.  The required-field reasons are Cloud
 * Manager's.  Keys are kept in the public API's order.
 */
static const char *const network_fields[] = {"vpc_id", "subnet_id",
                                             "public_access", NULL};

/* A positive integer member `key` of private_network; 0 after a problem. */
static json_int_t network_id(acct_req *req, acct_problems *pb, json_t *net,
                             const char *key, const char *required)
{
    json_t *v = json_object_get(net, key);
    const char *field = apr_pstrcat(req->pool, "private_network.", key, NULL);

    if (!v) {
        acct_problem_add(pb, field, required);
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) <= 0) {
        acct_problem_add(pb, field, "Must be a positive integer");
        return 0;
    }
    return json_integer_value(v);
}

/*
 * The body's private_network (absent: none) checked, as canonical JSON text
 * into *text; *text stays `stored` (the database's, NULL: none) when the
 * body gives the same network back, which is checked for shape only (a
 * client PUTs back what it read, whether or not it may still use the VPC).
 * 0, or -1 once answered (403 without a grant on the VPC, a store
 * failure).
 */
static int read_private_network(acct_req *req, acct_resp *resp,
                                acct_problems *pb, const char *stored,
                                const char **text)
{
    json_t *net = json_object_get(req->body, "private_network"), *v, *out;
    json_t *was;
    json_int_t vpc, subnet;
    int before = acct_problems_count(pb), owned = 0, open = 0;
    acct_store *st;

    *text = stored;
    if (!net) {
        return 0;
    }
    if (!json_is_object(net)) {
        acct_problem_add(pb, "private_network",
                         "Must be an object of vpc_id, subnet_id and "
                         "public_access");
        return 0;
    }
    /* Nulls are left out; other keys are ignored, as in the body. */
    acct_object_settable(req->pool, pb, net, "private_network.",
                         network_fields, NULL);
    vpc = network_id(req, pb, net, "vpc_id", "VPC is required.");
    subnet = network_id(req, pb, net, "subnet_id", "Subnet is required.");
    if ((v = json_object_get(net, "public_access"))) {
        if (json_is_boolean(v)) {
            open = json_is_true(v);
        }
        else {
            acct_problem_add(pb, "private_network.public_access",
                             "Must be a boolean");
        }
    }
    if (acct_problems_count(pb) > before) {
        return 0;
    }
    out = acct_json_own(req->pool, json_pack("{s:I, s:I, s:b}", "vpc_id",
                                             vpc, "subnet_id", subnet,
                                             "public_access", open));
    was = acct_json_own(req->pool, acct_json_parse_column(stored));
    if (acct_json_same(out, was)) {
        return 0;
    }
    if (!(st = body_store(req, resp))
        || check_store(req, resp,
                       acct_tags_entity_owned(st, req->pool, ACCT_ENTITY_VPC,
                                              vpc, req->who->account_id,
                                              &owned)) != 0) {
        return -1;
    }
    if (!owned) {
        acct_problem_add(pb, "private_network.vpc_id",
                         apr_psprintf(req->pool, "VPC %" APR_INT64_T_FMT
                                      " not found", (apr_int64_t)vpc));
        return 0;
    }
    if (acct_resp_outcome(resp, req->pool, acct_grant_require(req, ACCT_ENTITY_VPC, vpc,
                           ACCT_LEVEL_READ_ONLY)) != 0) {
        return -1;
    }
    *text = acct_json_dump(req->pool, out, NULL);
    return 0;
}

/* A catalogue id field (string); NULL unless present and well-formed. */
static const char *read_catalog_id(acct_req *req, acct_problems *pb,
                                   const char *field)
{
    const char *id = NULL;
    acct_field_rc frc = acct_field_string(req, pb, field, 1, CATALOG_ID_MAX,
                                          0, &id);

    acct_field_require(req, pb, field, frc);
    return frc == ACCT_FIELD_SET ? id : NULL;
}

/*
 * The catalogue checks below add a 400 item for a value that is not
 * acceptable and return 0; -1 means a store failure, answered alone.
 */

/* The region must exist, be up and offer Managed Databases. */
static int check_region(acct_req *req, acct_resp *resp, acct_problems *pb,
                        const char *region)
{
    acct_store *st = body_store(req, resp);
    const char *status, *caps;

    if (!st || check_store(req, resp, acct_db_region(st, req->pool, region,
                                                     &status, &caps)) != 0) {
        return -1;
    }
    if (!status) {
        acct_problem_add(pb, "region", "Region not found");
    }
    else if (strcmp(status, "ok") != 0) {
        acct_problem_add(pb, "region",
                         "Region is currently unavailable");
    }
    else if (!acct_db_region_offers(caps)) {
        acct_problem_add(pb, "region",
                         "Managed Databases are not available in this region");
    }
    return 0;
}

/* The disk of node type `type` in MB into *disk; -1 there if unknown. */
static int type_disk(acct_req *req, acct_resp *resp, acct_problems *pb,
                     const char *type, apr_int64_t *disk)
{
    acct_store *st = body_store(req, resp);

    *disk = -1;
    if (!st || check_store(req, resp, acct_db_type_disk(st, req->pool, type,
                                                        disk)) != 0) {
        return -1;
    }
    if (*disk < 0) {
        acct_problem_add(pb, "type", "Type not found");
    }
    return 0;
}

/*
 * The engine id of a create body, as the public API names engines
 * ("mysql/8") or the contract does ("mysql/8.0.30", kept as an alias): of
 * the route's engine, its full version (the current release of a major)
 * into *version.
 */
static int check_engine(acct_req *req, acct_resp *resp, acct_problems *pb,
                        const acct_db_engine *e, const char *id,
                        const char **version)
{
    acct_store *st = body_store(req, resp);
    acct_engine_ref ref;
    int found = 0;

    *version = NULL;
    if (!st || check_store(req, resp, acct_catalog_engine_find(st, req->pool,
                                                               id, &ref,
                                                               &found))
               != 0) {
        return -1;
    }
    if (!found) {
        acct_problem_add(pb, "engine", "Engine not found");
    }
    else if (strcmp(ref.engine, e->name) != 0) {
        acct_problem_add(pb, "engine",
                         apr_psprintf(req->pool, "Must be a %s engine "
                                      "(%s/<version>)", e->name, e->name));
    }
    else {
        *version = ref.full_version;
    }
    return 0;
}

/*
 * The node type of a create body: a type of GET /databases/types must be
 * sold for the engine in clusters of `nodes` (0: not known, not checked);
 * any other compute type is what the contract names a database's type, in
 * clusters of the contract's sizes.  Its disk in MB into *disk, -1 when it
 * is not acceptable.
 */
static int check_type(acct_req *req, acct_resp *resp, acct_problems *pb,
                      const acct_db_engine *e, const char *type,
                      apr_int64_t nodes, apr_int64_t *disk)
{
    acct_store *st = body_store(req, resp);
    acct_db_type t;
    int found = 0;

    *disk = -1;
    if (!st || check_store(req, resp, acct_catalog_db_type_find(st, req->pool,
                                                                type, &t,
                                                                &found))
               != 0) {
        return -1;
    }
    if (!found) {
        return type_disk(req, resp, pb, type, disk);
    }
    if (nodes > 0
        && !acct_db_type_offers(&t, e->name, (int)nodes, NULL, NULL)) {
        acct_problem_add(pb, "cluster_size",
                         apr_psprintf(req->pool, "Type %s is not offered in "
                                      "a cluster of %" APR_INT64_T_FMT
                                      " nodes", type, nodes));
    }
    else {
        *disk = t.disk;
    }
    return 0;
}

/*
 * The body's engine_config of engine `e`, checked: the settings a new
 * database gets (the defaults, with those given) as JSON text, or NULL
 * after the problems.
 */
static const char *read_engine_config(acct_req *req, acct_problems *pb,
                                      const acct_db_engine *e)
{
    json_t *given = json_object_get(req->body, "engine_config");

    if (given && !json_is_object(given)) {
        acct_problem_add(pb, "engine_config", "Must be an object");
        return NULL;
    }
    if (acct_dbconfig_validate(req->pool, e->name, given, pb,
                               "engine_config") > 0) {
        return NULL;
    }
    return acct_json_dump(req->pool,
                          acct_json_own(req->pool,
                                        acct_dbconfig_initial(e->name, given)),
                          NULL);
}

/* ------------------------------------------------------------------------
 * Create
 */

/* A create body as read: the row to insert, and what it was derived from. */
typedef struct db_new {
    acct_db_new row;
    const char *engine_id;    /* the catalogue's "engine/version" */
    apr_int64_t disk_mb;      /* the type's disk, -1 when unknown */
} db_new;

/* cluster_size and the replication settings that depend on it. */
static void read_replication(acct_req *req, acct_problems *pb,
                             const acct_db_engine *e, acct_db_new *d)
{
    json_t *size = json_object_get(req->body, "cluster_size");
    const char *rt = NULL;
    acct_field_rc frc;

    d->cluster_size = ACCT_DB_CLUSTER_SINGLE;
    if (size && (!json_is_integer(size)
                 || json_integer_value(size) < ACCT_DB_CLUSTER_SINGLE
                 || json_integer_value(size) > ACCT_DB_CLUSTER_HA)) {
        acct_problem_add(pb, "cluster_size", "Must be 1, 2 or 3");
        d->cluster_size = 0;
    }
    else if (size) {
        d->cluster_size = (apr_int64_t)json_integer_value(size);
    }
    frc = acct_field_enum(req, pb, "replication_type", e->replication, &rt);
    if (frc == ACCT_FIELD_SET && d->cluster_size == ACCT_DB_CLUSTER_SINGLE
        && strcmp(rt, ACCT_DB_REPLICATION_NONE) != 0) {
        acct_problem_add(pb, "replication_type",
                         "Must be none for a single-node cluster");
    }
    else if (frc == ACCT_FIELD_SET && d->cluster_size > ACCT_DB_CLUSTER_SINGLE
             && strcmp(rt, ACCT_DB_REPLICATION_NONE) == 0) {
        acct_problem_add(pb, "replication_type", e->ha_reason);
    }
    d->replication_type = frc == ACCT_FIELD_SET ? rt
                          : d->cluster_size > ACCT_DB_CLUSTER_SINGLE
                            ? e->ha_replication : ACCT_DB_REPLICATION_NONE;
    d->commit_type = NULL;
    if (e->commit_types) {
        d->commit_type = ACCT_DB_COMMIT_DEFAULT;
        acct_field_enum(req, pb, "replication_commit_type", e->commit_types,
                        &d->commit_type);
    }
}

/*
 * Every field of a create body, the catalogues last; 0, or -1 after a store
 * failure (answered).
 */
static int read_new(acct_req *req, acct_resp *resp, acct_problems *pb,
                    const acct_db_engine *e, db_new *d)
{
    acct_db_new *row = &d->row;
    acct_field_rc frc;

    memset(d, 0, sizeof(*d));
    row->account_id = req->who->account_id;
    row->engine = e;
    row->now = req->now;
    row->root_username = req->settings ? req->settings->db_admin_user : NULL;
    acct_fields_settable(req, pb, e->commit_types ? pg_create_fields
                                                 : mysql_create_fields,
                         NULL);
    frc = read_label(req, pb, &row->label);
    acct_field_require(req, pb, "label", frc);
    row->region = read_catalog_id(req, pb, "region");
    row->type = read_catalog_id(req, pb, "type");
    d->engine_id = read_catalog_id(req, pb, "engine");
    read_replication(req, pb, e, row);
    row->ssl_connection = 1;
    acct_field_bool(req, pb, "encrypted", &row->encrypted);
    acct_field_bool(req, pb, "ssl_connection", &row->ssl_connection);
    row->allow_list = read_allow_list(req, pb);
    if (!row->allow_list) {
        row->allow_list = "[]";
    }
    row->engine_config = read_engine_config(req, pb, e);
    if (read_private_network(req, resp, pb, NULL, &row->private_network)
        != 0) {
        return -1;
    }
    d->disk_mb = -1;
    if ((row->region && check_region(req, resp, pb, row->region) != 0)
        || (row->type
            && check_type(req, resp, pb, e, row->type, row->cluster_size,
                          &d->disk_mb) != 0)
        || (d->engine_id && check_engine(req, resp, pb, e, d->engine_id,
                                         &row->version) != 0)) {
        return -1;
    }
    row->disk_gb = d->disk_mb / MB_PER_GB;
    return 0;
}

/* Random in [min, max] (modulo bias below 2^-40); -1 if the generator fails. */
static int provision_seconds(const acct_settings *s, apr_int64_t *out)
{
    apr_uint64_t r = 0, span;
    unsigned char b[8];
    int i;

    span = (apr_uint64_t)(s->db_provision_max - s->db_provision_min) + 1;
    if (acct_random_bytes(b, sizeof(b)) != 0) {
        return -1;
    }
    for (i = 0; i < 8; i++) {
        r = (r << 8) | b[i];
    }
    *out = s->db_provision_min + (apr_int64_t)(r % span);
    return 0;
}

/* Inserts the row; 0 with *id, or -1 once answered (400 on a taken label). */
static int insert_db(acct_req *req, acct_resp *resp, const acct_db_new *d,
                     apr_int64_t *id)
{
    if (acct_resp_store_failed(req, resp, lock_label(req, d->label)) != 0
        || acct_resp_store_failed(req, resp, acct_db_create(req->store,
                                                            req->pool, d, id))
           != 0) {
        return -1;
    }
    if (*id == 0) {
        acct_resp_invalid(resp, req->pool, "label", R_LABEL_TAKEN);
        return -1;
    }
    return 0;
}

/* The sealed root password and the provisioning transition of a new row. */
static int start_db(acct_req *req, acct_resp *resp, const unsigned char *key,
                    apr_int64_t id)
{
    const char *password = acct_db_password_new(req->pool), *sealed;
    apr_int64_t seconds = 0;

    if (!password || provision_seconds(req->settings, &seconds) != 0) {
        internal_error(req, resp, "the random generator failed");
        return -1;
    }
    sealed = acct_seal(req->pool, key,
                       acct_db_password_context(req->pool,
                                                acct_i64(req->pool, id)),
                       password);
    if (!sealed) {
        internal_error(req, resp, "cannot seal a database password");
        return -1;
    }
    if (acct_resp_store_failed(req, resp, acct_db_password_set(req->store,
                                                               req->pool, id,
                                                               sealed)) != 0
        || acct_resp_store_failed(req, resp,
                        acct_db_transition(req, id, ACCT_DB_PROVISIONING,
                                           ACCT_DB_ACTIVE, seconds,
                                           ACCT_EVENT_DATABASE_CREATE)) != 0
        || acct_resp_store_failed(req, resp,
                        acct_grant_creator(req, ACCT_ENTITY_DATABASE, id))
           != 0) {
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Fork: a new database restored from another one (today's public API,
 * issue 21).  Its spec (v4.215.0, post-databases-*-instances, the
 * database-restore-fork schema): `fork: {source, restore_time}`, source
 * required; "if you include this object, all other fields are optional";
 * the user needs read_write on the source, whose status "can be active,
 * degraded, or failed".  What the clients send: the Python SDK's
 * {mysql,postgresql}_fork(source, restore_time) only the fork (its
 * integration tests test_fork_sql_db / test_fork_postgres_db, restore_time
 * the source's `updated`); the Terraform provider label, region, type,
 * engine and `fork: {source}` (linodego's DatabaseFork sends its time under
 * the key "-", which is ignored); the console `fork`, `region` and
 * `private_network`, without restore_time for "the newest full backup".
 * None sends a backup id: a restore from a backup is a fork at its time.
 * ------------------------------------------------------------------------ */

#define FORK_SUFFIX "-fork"
#define FORK_LABELS 99          /* "-fork", "-fork-2" ... "-fork-99" */

static const char *const fork_fields[] = {"source", "restore_time", NULL};

/* A fork as the body asks for it. */
typedef struct db_fork {
    int asked;                  /* the body has a fork */
    acct_rows *source;          /* the database forked; NULL: none, or a
                                 * problem with it */
    apr_int64_t restore_time;   /* the moment restored */
    int label_made;             /* the body named no label: made here */
} db_fork;

/*
 * The label of fork candidate `n` (1, 2 ...) of a database labelled
 * `source`: the source's label cut (whole characters) to leave room for
 * "-fork" or "-fork-<n>".  The public API's choice is not known; this one
 * is a valid label (3..32 characters) that says where it comes from.
 */
static const char *fork_label(apr_pool_t *pool, const char *source, int n)
{
    const char *suffix = n == 1 ? FORK_SUFFIX
                                : apr_psprintf(pool, FORK_SUFFIX "-%d", n);
    size_t room = LABEL_MAX - strlen(suffix), end = 0, chars;

    for (chars = 0; source[end] && chars < room; chars++) {
        for (end++; ((unsigned char)source[end] & 0xC0) == 0x80; end++) {
        }
    }
    return apr_pstrcat(pool, apr_pstrndup(pool, source, end), suffix, NULL);
}

/* Sets `key` of the body to `value` (stolen) unless the body gives one. */
static int fork_default(json_t *body, const char *key, json_t *value)
{
    json_t *v = json_object_get(body, key);

    if (v && !json_is_null(v)) {
        json_decref(value);
        return 0;
    }
    json_object_set_new(body, key, value);
    return 1;
}

/* The ids a fork may leave out, which linodego's create options send as
 * "" when unset: left out of a fork's body. */
static void fork_unset_ids(acct_req *req)
{
    static const char *const ids[] = {"label", "region", "type", "engine"};
    json_t *v;
    size_t i;

    for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        v = json_object_get(req->body, ids[i]);
        if (v && json_is_string(v) && json_string_length(v) == 0) {
            json_object_del(req->body, ids[i]);
        }
    }
}

/*
 * What a fork takes from its source when the body leaves it out (or sends
 * null), written into the body, so the create's readers check it as they
 * check any body: region, type, engine (its major), node count with its
 * replication, SSL, encryption, allow list and settings; the label is made
 * (fork_label).
 */
static void fork_defaults(acct_req *req, db_fork *f)
{
    const acct_rows *src = f->source;
    const char *engine = acct_rows_get(src, 0, "engine");
    const char *commit = acct_rows_get(src, 0, "replication_commit_type");
    json_t *body = req->body;
    apr_int64_t size = 0;

    f->label_made = fork_default(body, "label", json_string(fork_label(
        req->pool, acct_rows_get(src, 0, "label"), 1)));
    fork_default(body, "region", acct_json_str(acct_rows_get(src, 0,
                                                             "region")));
    fork_default(body, "type", acct_json_str(acct_rows_get(src, 0, "type")));
    fork_default(body, "engine", acct_json_str(apr_pstrcat(
        req->pool, engine, "/",
        acct_engine_major(req->pool, acct_rows_get(src, 0, "version")),
        NULL)));
    acct_parse_i64(acct_rows_get(src, 0, "cluster_size"), &size);
    /* The replication goes with the node count it was chosen for. */
    if (fork_default(body, "cluster_size", json_integer(size))) {
        fork_default(body, "replication_type",
                     acct_json_str(acct_rows_get(src, 0,
                                                 "replication_type")));
    }
    if (commit) {
        fork_default(body, "replication_commit_type", json_string(commit));
    }
    fork_default(body, "ssl_connection",
                 acct_json_bool(acct_rows_get(src, 0, "ssl_connection")));
    fork_default(body, "encrypted",
                 acct_json_bool(acct_rows_get(src, 0, "encrypted")));
    fork_default(body, "allow_list",
                 json_column(src, 0, "allow_list", json_array()));
    fork_default(body, "engine_config",
                 render_engine_config(src, 0, engine));
}

/*
 * The database forked, by id: of the acting account, settled (else "not
 * found", as another account's), of the route's engine, held read_write.
 * 0 with *src (NULL after a problem); -1 once answered (403, store).
 */
static int fork_source(acct_req *req, acct_resp *resp, acct_problems *pb,
                       const acct_db_engine *e, apr_int64_t id,
                       acct_rows **src)
{
    apr_int64_t account = 0;
    const char *engine;

    *src = NULL;
    if (acct_resp_store_failed(req, resp, acct_db_settle(req)) != 0
        || acct_resp_store_failed(req, resp, acct_db_get(req->store,
                                                         req->pool, id, src))
           != 0) {
        return -1;
    }
    if (!*src || (*src)->nrows == 0
        || acct_parse_i64(acct_rows_get(*src, 0, "account_id"), &account) != 0
        || account != req->who->account_id) {
        acct_problem_add(pb, "fork.source", "Database not found");
        *src = NULL;
        return 0;
    }
    engine = acct_rows_get(*src, 0, "engine");
    if (!engine || strcmp(engine, e->name) != 0) {
        acct_problem_add(pb, "fork.source",
                         apr_psprintf(req->pool, "Must be a %s database: a "
                                      "fork runs its source's engine",
                                      e->name));
        *src = NULL;
        return 0;
    }
    return acct_resp_outcome(resp, req->pool, acct_grant_require(req, ACCT_ENTITY_DATABASE, id,
                              ACCT_LEVEL_READ_WRITE));
}

/*
 * The body's fork: f->source NULL when it asks for none, or after a
 * problem; the restore time (given, or now: the newest) checked against
 * the source's window, oldest_restore_time to now.  0, or -1 once answered.
 */
static int read_fork(acct_req *req, acct_resp *resp, acct_problems *pb,
                     const acct_db_engine *e, db_fork *f)
{
    json_t *fork = json_object_get(req->body, "fork"), *v;
    apr_int64_t id, oldest = 0;
    int bad_time = 0, given;

    memset(f, 0, sizeof(*f));
    if (!fork || json_is_null(fork)) {
        return 0;
    }
    f->asked = 1;
    if (!json_is_object(fork)) {
        acct_problem_add(pb, "fork", "Must be an object");
        return 0;
    }
    acct_object_settable(req->pool, pb, fork, "fork.", fork_fields, NULL);
    f->restore_time = req->now;
    v = json_object_get(fork, "restore_time");
    given = v != NULL;
    if (v && (!json_is_string(v)
              || acct_parse_date_time(json_string_value(v),
                                      &f->restore_time) != 0)) {
        acct_problem_add(pb, "fork.restore_time", "Must be a date-time in "
                         "the form YYYY-MM-DDTHH:MM:SS (UTC)");
        bad_time = 1;
    }
    v = json_object_get(fork, "source");
    if (!v) {
        acct_problem_add(pb, "fork.source", "fork.source is required");
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 1) {
        acct_problem_add(pb, "fork.source", "Must be the id of a database");
        return 0;
    }
    id = (apr_int64_t)json_integer_value(v);
    if (fork_source(req, resp, pb, e, id, &f->source) != 0) {
        return -1;
    }
    if (!f->source || !given || bad_time) {
        return 0;
    }
    acct_db_oldest_restore(f->source, 0, req->now, &oldest);
    if (f->restore_time < oldest) {
        acct_problem_add(pb, "fork.restore_time",
                         apr_psprintf(req->pool, "Must not be before the "
                                      "source's oldest_restore_time (%s)",
                                      acct_format_timestamp(req->pool,
                                                            oldest)));
    }
    else if (f->restore_time > req->now) {
        acct_problem_add(pb, "fork.restore_time",
                         "Must not be in the future");
    }
    return 0;
}

/*
 * A fork runs its source's version (backups are the version's own binary
 * format): an engine the body names must be of the same major.  Then the
 * row names its source and the moment restored.
 */
static void fork_row(acct_req *req, acct_problems *pb, const db_fork *f,
                     db_new *d)
{
    const char *version = acct_rows_get(f->source, 0, "version");
    const char *major = acct_engine_major(req->pool, version);

    if (d->row.version
        && strcmp(acct_engine_major(req->pool, d->row.version), major) != 0) {
        acct_problem_add(pb, "engine",
                         apr_psprintf(req->pool, "Must be %s/%s, the engine "
                                      "of the database forked",
                                      d->row.engine->name, major));
    }
    d->row.version = version;
    acct_parse_i64(acct_rows_get(f->source, 0, "id"), &d->row.fork_source);
    d->row.fork_restore_time = f->restore_time;
}

/*
 * The status a fork needs of its source, once the body is right: the
 * statuses at rest (the spec's active, degraded or failed), answered as
 * every status refusal is.  0, or -1 once answered.
 */
static int fork_status(acct_req *req, acct_resp *resp, const db_fork *f)
{
    return acct_resp_outcome(resp, req->pool,
                             acct_db_require_status(req->pool, f->source,
                                                    acct_db_when_at_rest));
}

/*
 * The problems of a fork's body (`body`, as read_new found them) into `pb`:
 * all but "<id> is required" of the ids a fork may leave out, which a
 * source found fills and a source not found does not (its own problem is
 * in `pb` already).
 */
static void fork_problems(acct_req *req, acct_problems *pb,
                          const acct_problems *body)
{
    static const char *const ids[] = {"label", "region", "type", "engine",
                                      NULL};
    const char *field, *reason;
    int i, j, optional;

    for (i = 0; i < acct_problems_count(body); i++) {
        field = acct_problem_field(body, i);
        reason = acct_problem_reason(body, i);
        for (j = optional = 0; field && reason && ids[j] && !optional; j++) {
            optional = strcmp(field, ids[j]) == 0
                       && strcmp(reason, apr_pstrcat(req->pool, field,
                                                     " is required",
                                                     NULL)) == 0;
        }
        if (!optional) {
            acct_problem_add(pb, field, reason);
        }
    }
}

/* Inserts a fork's row: with a label made here, the next candidate while
 * the account has a database so labelled.  0 with *id, or -1 once
 * answered. */
static int insert_fork(acct_req *req, acct_resp *resp, db_new *d,
                       const db_fork *f, apr_int64_t *id)
{
    const char *source = acct_rows_get(f->source, 0, "label");
    int n;

    if (!f->label_made) {
        return insert_db(req, resp, &d->row, id);
    }
    for (n = 1; n <= FORK_LABELS; n++) {
        d->row.label = fork_label(req->pool, source, n);
        if (acct_resp_store_failed(req, resp, lock_label(req, d->row.label))
            != 0
            || acct_resp_store_failed(req, resp,
                                      acct_db_create(req->store, req->pool,
                                                     &d->row, id)) != 0) {
            return -1;
        }
        if (*id != 0) {
            return 0;
        }
    }
    acct_resp_invalid(resp, req->pool, "label", R_LABEL_TAKEN);
    return -1;
}

/*
 * A create, or a fork when the body has one: the fork's source is read
 * first (its defaults fill the body), then the body as any create's.
 */
void api_database_create(acct_req *req, acct_resp *resp)
{
    const acct_db_engine *e = route_engine(req);
    acct_problems *pb = acct_problems_make(req->pool), *body_pb;
    const unsigned char *key;
    apr_int64_t id = 0;
    db_fork f;
    db_new d;

    if (!e) {
        internal_error(req, resp, "database route without a known engine");
        return;
    }
    if (acct_resp_outcome(resp, req->pool, acct_grant_require_global(req, "add_databases")) != 0
        || !(key = acct_seal_key(req, resp))) {
        return;
    }
    if (read_fork(req, resp, pb, e, &f) != 0) {
        return;
    }
    if (f.asked) {
        fork_unset_ids(req);
    }
    if (f.source) {
        fork_defaults(req, &f);
    }
    body_pb = f.asked ? acct_problems_make(req->pool) : pb;
    if (read_new(req, resp, body_pb, e, &d) != 0) {
        return;
    }
    if (f.asked) {
        fork_problems(req, pb, body_pb);
    }
    if (f.source) {
        fork_row(req, pb, &f, &d);
    }
    if (acct_problems_any(pb)) {
        acct_resp_problems(resp, req->pool, pb);
        return;
    }
    if (f.source ? fork_status(req, resp, &f) != 0
                   || insert_fork(req, resp, &d, &f, &id) != 0
                 : insert_db(req, resp, &d.row, &id) != 0) {
        return;
    }
    if (start_db(req, resp, key, id) != 0) {
        return;
    }
    respond_db(req, resp, id);
}

/* ------------------------------------------------------------------------
 * Update
 */

/*
 * The body's updates merged onto the stored window, checked as a whole;
 * its JSON text, or NULL when absent or invalid.  Its other keys (the
 * public API's "pending") are judged as a body's are, and so are its nulls
 * (a field left as it is); week_of_month has no meaning in a weekly window,
 * so it is null there unless the body gives one.
 */
static const char *read_updates(acct_req *req, acct_problems *pb,
                                const acct_rows *db)
{
    static const struct {
        const char *name;
        apr_int64_t lo, hi;
    } ints[] = {
        {"duration", 1, 4}, {"hour_of_day", 0, 23}, {"day_of_week", 1, 7},
    };
    json_t *body = json_object_get(req->body, "updates"), *merged, *v;
    const char *frequency;
    size_t i;
    int bad, before;

    if (!body) {
        return NULL;
    }
    if (!json_is_object(body)) {
        acct_problem_add(pb, "updates",
                         "updates must be an object");
        return NULL;
    }
    merged = acct_json_own(req->pool,
                           json_column(db, 0, "updates",
                                       json_loads(ACCT_DB_UPDATES_DEFAULT, 0,
                                                  NULL)));
    before = acct_problems_count(pb);
    acct_object_settable(req->pool, pb, body, "updates.", updates_fields,
                         merged);
    bad = acct_problems_count(pb) > before;
    for (i = 0; updates_fields[i]; i++) {
        if ((v = json_object_get(body, updates_fields[i]))) {
            json_object_set(merged, updates_fields[i], v);
        }
    }
    v = json_object_get(merged, "frequency");
    frequency = NULL;
    for (i = 0; json_is_string(v) && acct_db_frequencies[i]; i++) {
        if (strcmp(acct_db_frequencies[i], json_string_value(v)) == 0) {
            frequency = acct_db_frequencies[i];
        }
    }
    if (!frequency) {
        acct_problem_add(pb, "updates.frequency",
                         "Must be one of: weekly, monthly");
        bad = 1;
    }
    for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        bad |= check_int(req, pb, apr_pstrcat(req->pool, "updates.",
                                                ints[i].name, NULL),
                         json_object_get(merged, ints[i].name), ints[i].lo,
                         ints[i].hi) != 0;
    }
    v = json_object_get(merged, "week_of_month");
    if (frequency && strcmp(frequency, ACCT_DB_WEEKLY) == 0) {
        if (json_object_get(body, "week_of_month")) {
            acct_problem_add(pb, "updates.week_of_month",
                             "Must be null for a weekly window");
            bad = 1;
        }
        json_object_set_new(merged, "week_of_month", json_null());
    }
    else if (frequency && strcmp(frequency, ACCT_DB_MONTHLY) == 0) {
        bad |= check_int(req, pb, "updates.week_of_month", v, 1, 4) != 0;
    }
    return bad ? NULL : acct_json_dump(req->pool, merged, NULL);
}

/*
 * A resize: a new node type (type) or node count (cluster_size), into
 * c->type with its disk (c->disk_gb), c->cluster_size and the replication
 * that count needs (c->replication_type); the values the database has
 * already are no change (the Python SDK's save() PUTs them back).  The
 * public API's rules for databases of today's platform (Cloud Manager's
 * resize page for rdbms-default clusters; our platform is always that):
 * any node count of 1 to 3 and any node type, smaller ones included, that
 * GET /databases/types sells for the engine in clusters of the new count
 * (2 nodes: dedicated types) and whose disk holds the data stored
 * (used_disk_size_gb); a compute type, as the contract names database
 * types, in any count.  0, or -1 after a store failure (answered).
 */
static int read_resize(acct_req *req, acct_resp *resp, acct_problems *pb,
                       const acct_rows *db, acct_db_changes *c)
{
    const char *current = acct_rows_get(db, 0, "type"), *type = NULL;
    const acct_db_engine *e = acct_db_engine_named(acct_rows_get(db, 0,
                                                                 "engine"));
    json_t *size = json_object_get(req->body, "cluster_size");
    apr_int64_t nodes, was = 0, used = 0, disk = -1;
    acct_field_rc frc;
    acct_store *st;
    acct_db_type t;
    int found = 0, bad = 0;

    c->type = c->replication_type = NULL;
    c->disk_gb = c->cluster_size = -1;
    acct_parse_i64(acct_rows_get(db, 0, "cluster_size"), &was);
    nodes = was;
    if (size && (!json_is_integer(size)
                 || json_integer_value(size) < ACCT_DB_CLUSTER_SINGLE
                 || json_integer_value(size) > ACCT_DB_CLUSTER_HA)) {
        acct_problem_add(pb, "cluster_size", "Must be 1, 2 or 3");
        bad = 1;
    }
    else if (size && json_integer_value(size) != was) {
        nodes = c->cluster_size = (apr_int64_t)json_integer_value(size);
    }
    frc = acct_field_string(req, pb, "type", 1, CATALOG_ID_MAX, 0, &type);
    bad |= frc == ACCT_FIELD_BAD;
    if (frc != ACCT_FIELD_SET || (current && strcmp(type, current) == 0)) {
        type = NULL;
    }
    if (bad || !e || (!type && c->cluster_size < 0)) {
        return 0;
    }
    if (!(st = body_store(req, resp))
        || check_store(req, resp,
                       acct_catalog_db_type_find(st, req->pool,
                                                 type ? type : current, &t,
                                                 &found)) != 0) {
        return -1;
    }
    if (found && !acct_db_type_offers(&t, e->name, (int)nodes, NULL, NULL)) {
        acct_problem_add(pb, type ? "type" : "cluster_size",
                         apr_psprintf(req->pool, "Type %s is not offered in "
                                      "a cluster of %" APR_INT64_T_FMT
                                      " nodes", type ? type : current,
                                      nodes));
        return 0;
    }
    if (type) {
        if (found) {
            disk = t.disk;
        }
        else if (type_disk(req, resp, pb, type, &disk) != 0) {
            return -1;
        }
        if (disk < 0) {
            return 0;  /* "Type not found" */
        }
        acct_parse_i64(acct_rows_get(db, 0, "used_disk_size_gb"), &used);
        if (disk / MB_PER_GB <= used) {
            acct_problem_add(pb, "type",
                             apr_psprintf(req->pool, "The data stored (%"
                                          APR_INT64_T_FMT " GB) does not fit "
                                          "on type %s", used, type));
            return 0;
        }
        c->type = type;
        c->disk_gb = disk / MB_PER_GB;
    }
    if (c->cluster_size == ACCT_DB_CLUSTER_SINGLE) {
        c->replication_type = ACCT_DB_REPLICATION_NONE;
    }
    else if (c->cluster_size > ACCT_DB_CLUSTER_SINGLE
             && was == ACCT_DB_CLUSTER_SINGLE) {
        /* What a new cluster of that size replicates with. */
        c->replication_type = e->ha_replication;
    }
    return 0;
}

/* The numeric value of major version `major` ("16"), -1 if it is none. */
static apr_int64_t major_number(const char *major)
{
    apr_int64_t n = -1;

    return major && acct_parse_i64(major, &n) == 0 ? n : -1;
}

/*
 * version: an in-place major version upgrade, as the Terraform provider
 * sends it when engine_id changes ("16": the major of engine/major) and
 * Cloud Manager's upgrade dialog does (a version GET /databases/engines
 * lists, any later one).  A version of the database's own major, or its
 * own full version, is no change; an earlier major is refused (there is no
 * way back, as that dialog warns); a later one makes *version that major's
 * current release.  0, or -1 after a store failure (answered).
 */
static int read_version_change(acct_req *req, acct_resp *resp,
                               acct_problems *pb, const acct_rows *db,
                               const char **version)
{
    const char *engine = acct_rows_get(db, 0, "engine");
    const char *running = acct_rows_get(db, 0, "version"), *given = NULL;
    apr_int64_t to, from;
    acct_engine_ref ref;
    acct_store *st;
    int found = 0;

    *version = NULL;
    if (acct_field_string(req, pb, "version", 1, CATALOG_ID_MAX, 0, &given)
        != ACCT_FIELD_SET) {
        return 0;
    }
    if (!(st = body_store(req, resp))
        || check_store(req, resp, acct_catalog_engine_of(st, req->pool, engine,
                                                         given, &ref, &found))
           != 0) {
        return -1;
    }
    if (!found || strcmp(ref.engine, engine) != 0) {
        acct_problem_add(pb, "version",
                         apr_psprintf(req->pool, "Engine %s/%s not found",
                                      engine, given));
        return 0;
    }
    to = major_number(ref.major);
    from = major_number(acct_engine_major(req->pool, running));
    if (to == from || (running && strcmp(given, running) == 0)) {
        return 0;
    }
    if (to < from) {
        acct_problem_add(pb, "version",
                         apr_psprintf(req->pool, "A database cannot be "
                                      "downgraded: it runs %s %s",
                                      engine, running));
        return 0;
    }
    if (check_store(req, resp, acct_catalog_engine_current(st, req->pool,
                                                           engine, ref.major,
                                                           version)) != 0) {
        return -1;
    }
    if (!*version) {
        acct_problem_add(pb, "version",
                         apr_psprintf(req->pool, "Engine %s/%s is not offered",
                                      engine, ref.major));
    }
    return 0;
}

/*
 * The body's engine_config merged onto the database's settings (what a GET
 * shows), checked: the merged settings as JSON text, or NULL when absent or
 * invalid.  Every accepted PUT passes through updating for the operation
 * time, so a setting that restarts the server (acct_dbconfig_needs_restart)
 * has its restart inside that operation.
 */
static const char *read_engine_config_change(acct_req *req,
                                             acct_problems *pb,
                                             const acct_rows *db)
{
    const char *engine = acct_rows_get(db, 0, "engine");
    json_t *given = json_object_get(req->body, "engine_config"), *stored;

    if (!given) {
        return NULL;
    }
    if (!json_is_object(given)) {
        acct_problem_add(pb, "engine_config", "Must be an object");
        return NULL;
    }
    if (acct_dbconfig_validate(req->pool, engine, given, pb,
                               "engine_config") > 0) {
        return NULL;
    }
    stored = acct_json_own(req->pool, render_engine_config(db, 0, engine));
    return acct_json_dump(req->pool,
                          acct_json_own(req->pool,
                                        acct_dbconfig_merge(engine, stored,
                                                            given)),
                          NULL);
}

/*
 * What a PUT changes, read against the stored row into `c`, with every
 * problem of the body so far (`pb`) answered at once: 0, or -1 once
 * answered.  `clear_network`: the body's private_network was null, which
 * takes the database out of its VPC -- the one exception to DECISIONS'
 * "null in a PUT means leave unchanged", because null is how the public
 * API is told: the Terraform provider sends it when private_network leaves
 * a linode_database_mysql_v2 (linodego's DoublePointerNull), and Cloud
 * Manager's "Unassign VPC" sends exactly {"private_network": null}.
 */
static int row_changes(acct_req *req, acct_resp *resp, acct_problems *pb,
                       const acct_rows *db, int clear_network,
                       acct_db_changes *c)
{
    const char *stored = acct_rows_get(db, 0, "private_network"), *net;

    c->updates = read_updates(req, pb, db);
    if (read_resize(req, resp, pb, db, c) != 0
        || read_version_change(req, resp, pb, db, &c->version) != 0
        || read_private_network(req, resp, pb, stored, &net) != 0) {
        return -1;
    }
    c->private_network_set = net != stored || (clear_network && stored);
    c->private_network = clear_network ? NULL : net;
    c->engine_config = read_engine_config_change(req, pb, db);
    if (acct_problems_any(pb)) {
        acct_resp_problems(resp, req->pool, pb);
        return -1;
    }
    return 0;
}

/*
 * One PUT starts one update: the database goes to updating by acct_db_begin
 * (active only, decided in its UPDATE's WHERE), and the fields change under
 * that row's lock in the same transaction, so of concurrent PUTs, patches,
 * snapshots... exactly one succeeds and what it answered is what is stored.
 */
void api_database_update(acct_req *req, acct_resp *resp)
{
    acct_rows *db = api_db_of_path(req, resp, ACCT_LEVEL_READ_WRITE), *was;
    acct_db_changes c;
    acct_problems *pb = acct_problems_make(req->pool);
    apr_int64_t id;
    int changed = 0, clear_network;

    if (!db) {
        return;
    }
    /* Before acct_fields_settable drops the body's nulls. */
    clear_network = json_is_null(json_object_get(req->body,
                                                 "private_network"));
    id = acct_db_id(db);
    memset(&c, 0, sizeof(c));
    c.disk_gb = c.cluster_size = -1;
    c.username = req->who->username;
    c.now = req->now;
    acct_fields_settable(req, pb, update_fields,
                         acct_fields_beyond(req, update_fields)
                         ? acct_json_own(req->pool,
                                         render_engine_db(req, db, 0))
                         : NULL);
    read_label(req, pb, &c.label);
    c.allow_list = read_allow_list(req, pb);
    if (row_changes(req, resp, pb, db, clear_network, &c) != 0
        || acct_resp_outcome(resp, req->pool,
                             acct_db_require_status(req->pool, db,
                                                    acct_db_when_active)) != 0
        || (c.label && acct_resp_store_failed(req, resp,
                                              lock_label(req, c.label)) != 0)) {
        return;
    }
    was = db;
    /* Its events are acct_db_update's: a PUT may be an update and a resize. */
    if (acct_resp_outcome(resp, req->pool,
                          acct_db_begin(req, &db, acct_db_when_active,
                                        ACCT_DB_UPDATING, ACCT_DB_ACTIVE,
                                        req->settings->db_operation, NULL))
        != 0) {
        return;
    }
    /* Changed and back to active meanwhile: merge onto the row as it is
     * (`pb` is empty: the first reading found no problem). */
    if (db != was && row_changes(req, resp, pb, db, clear_network, &c) != 0) {
        return;
    }
    if (acct_resp_store_failed(req, resp, acct_db_update(req->store, req->pool,
                                                         req->who->account_id,
                                                         id, &c, &changed))
        != 0) {
        return;
    }
    if (!changed) {
        /* The row is ours (updating, locked): only the label can be why. */
        acct_resp_invalid(resp, req->pool, "label", R_LABEL_TAKEN);
        return;
    }
    respond_db(req, resp, id);
}

/* ------------------------------------------------------------------------
 * Delete
 */

/* The status rule is in the DELETE's WHERE (acct_db_delete): a delete
 * racing a PUT or an operation either wins or answers the status that won. */
void api_database_delete(acct_req *req, acct_resp *resp)
{
    acct_rows *db = api_db_of_path(req, resp, ACCT_LEVEL_READ_WRITE);

    if (db && acct_resp_outcome(resp, req->pool, acct_db_delete(req, &db))
              == 0) {
        acct_resp_ok(resp, req->pool, NULL);
    }
}
