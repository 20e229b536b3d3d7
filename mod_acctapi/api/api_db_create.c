/*
 * POST /databases/{engine}/instances: a new managed database, or a fork of
 * one (a new database restored from another).  The body is read as
 * api_db_fields.h reads it, the row inserted in provisioning with its
 * sealed root password and its provisioning transition, and answered as
 * api_db_render.h shapes it.  api_databases.c says the choices.
 */
#include "api_handlers.h"
#include "api_db_fields.h"
#include "api_db_render.h"
#include "acct_body.h"
#include "acct_catalog.h"
#include "acct_crypto.h"
#include "acct_db.h"
#include "acct_event.h"
#include "acct_grants.h"
#include "acct_json.h"
#include "acct_log.h"
#include "acct_router.h"
#include "acct_seal.h"
#include "acct_time.h"

#include <apr_strings.h>
#include <string.h>

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

/* ------------------------------------------------------------------------
 * Small helpers
 */

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
    frc = api_db_read_label(req, pb, &row->label);
    acct_field_require(req, pb, "label", frc);
    row->region = api_db_read_catalog_id(req, pb, "region");
    row->type = api_db_read_catalog_id(req, pb, "type");
    d->engine_id = api_db_read_catalog_id(req, pb, "engine");
    read_replication(req, pb, e, row);
    row->ssl_connection = 1;
    acct_field_bool(req, pb, "encrypted", &row->encrypted);
    acct_field_bool(req, pb, "ssl_connection", &row->ssl_connection);
    row->allow_list = api_db_read_allow_list(req, pb);
    if (!row->allow_list) {
        row->allow_list = "[]";
    }
    row->engine_config = api_db_read_engine_config(req, pb, e);
    if (api_db_read_private_network(req, resp, pb, NULL, &row->private_network)
        != 0) {
        return -1;
    }
    d->disk_mb = -1;
    if ((row->region && api_db_check_region(req, resp, pb, row->region) != 0)
        || (row->type
            && api_db_check_type(req, resp, pb, e, row->type, row->cluster_size,
                                 &d->disk_mb) != 0)
        || (d->engine_id && api_db_check_engine(req, resp, pb, e, d->engine_id,
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
    if (acct_resp_store_failed(req, resp, api_db_lock_label(req, d->label)) != 0
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
 * the fork).  Its spec (v4.215.0, post-databases-*-instances, the
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
                 api_db_json_column(src, 0, "allow_list", json_array()));
    fork_default(body, "engine_config",
                 api_db_render_engine_config(src, 0, engine));
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
        if (acct_resp_store_failed(req, resp,
                                   api_db_lock_label(req, d->row.label)) != 0
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
    api_db_respond(req, resp, id);
}
