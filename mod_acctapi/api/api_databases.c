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
 * This file serves the lists, the view, PUT and DELETE; create and fork are
 * api_db_create.c, the body fields both read api_db_fields.c, the answer's
 * shape api_db_render.c, and the operations on one database api_dbops.c.
 *
 * Choices where the contract is silent, never stricter than the public API
 * (docs/conventions.md, "Today's clients"):
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
 *    must satisfy docs/conventions.md; every accepted PUT puts the database in
 *    updating (so concurrent PUTs on one database: one wins, the others
 *    find it updating), and a resize takes its new disk size at once.
 *  - a PUT's version, cluster_size, type and private_network (today's
 *    public API): read_version_change, read_resize and
 *    api_db_read_private_network say the rules and where they come from;
 *    what changes shows in the PUT's answer, and the operation's events
 *    (database_update, database_resize) finish when it does.
 */
#include "api_handlers.h"
#include "api_databases.h"
#include "api_db_fields.h"
#include "api_db_render.h"
#include "acct_body.h"
#include "acct_catalog.h"
#include "acct_db.h"
#include "acct_dbconfig.h"
#include "acct_json.h"
#include "acct_list.h"
#include "acct_router.h"

#include <apr_strings.h>
#include <string.h>

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
    list_databases(req, resp, NULL, api_db_render_any);
}

void api_databases_list(acct_req *req, acct_resp *resp)
{
    list_databases(req, resp, req->route->param, api_db_render_engine);
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
        acct_resp_ok(resp, req->pool, api_db_render_engine(req, rows, 0));
    }
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
                           api_db_json_column(
                               db, 0, "updates",
                               json_loads(ACCT_DB_UPDATES_DEFAULT, 0, NULL)));
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
    if (!(st = api_db_body_store(req, resp))
        || api_db_check_store(req, resp,
                              acct_catalog_db_type_find(st, req->pool,
                                                        type ? type : current,
                                                        &t, &found)) != 0) {
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
        else if (api_db_type_disk(req, resp, pb, type, &disk) != 0) {
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
    if (!(st = api_db_body_store(req, resp))
        || api_db_check_store(req, resp,
                              acct_catalog_engine_of(st, req->pool, engine,
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
    if (api_db_check_store(req, resp,
                           acct_catalog_engine_current(st, req->pool, engine,
                                                       ref.major, version))
        != 0) {
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
    stored = acct_json_own(req->pool,
                           api_db_render_engine_config(db, 0, engine));
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
 * takes the database out of its VPC -- the one exception to
 * docs/conventions.md's
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
        || api_db_read_private_network(req, resp, pb, stored, &net) != 0) {
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
                                         api_db_render_engine(req, db, 0))
                         : NULL);
    api_db_read_label(req, pb, &c.label);
    c.allow_list = api_db_read_allow_list(req, pb);
    if (row_changes(req, resp, pb, db, clear_network, &c) != 0
        || acct_resp_outcome(resp, req->pool,
                             acct_db_require_status(req->pool, db,
                                                    acct_db_when_active)) != 0
        || (c.label
            && acct_resp_store_failed(req, resp,
                                      api_db_lock_label(req, c.label)) != 0)) {
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
    api_db_respond(req, resp, id);
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
