#include "acct_db.h"
#include "acct_crypto.h"
#include "acct_event.h"
#include "acct_grants.h"
#include "acct_json.h"

#include <apr_strings.h>
#include <string.h>
#include <time.h>

const char *const acct_db_statuses[] = {
    ACCT_DB_PROVISIONING, ACCT_DB_ACTIVE, ACCT_DB_SUSPENDING,
    ACCT_DB_SUSPENDED, ACCT_DB_RESUMING, ACCT_DB_RESTORING, ACCT_DB_FAILED,
    ACCT_DB_DEGRADED, ACCT_DB_UPDATING, ACCT_DB_BACKING_UP, NULL
};

const char *const acct_db_when_active[] = {ACCT_DB_ACTIVE, NULL};
const char *const acct_db_when_at_rest[] = {
    ACCT_DB_ACTIVE, ACCT_DB_DEGRADED, ACCT_DB_FAILED, NULL
};
/* provisioning is first in acct_db_statuses: the rest is every other one. */
const char *const *const acct_db_when_provisioned = acct_db_statuses + 1;

/*
 * Suspend: the public API's reference says active (its spec v4.215.0,
 * suspend-databases-*-instance) and its console offers Suspend on an active
 * cluster only; linode-cli's integration tests (test_database.py,
 * test_*_suspend_resume) suspend a cluster they have just created, still
 * provisioning, and must not get a 400: never stricter than the public API.
 */
const char *const acct_db_when_suspendable[] = {ACCT_DB_ACTIVE,
                                                ACCT_DB_PROVISIONING, NULL};
/* Resume: the reference says suspended; the console offers Resume while
 * suspending too (DatabaseActionMenu), and linode-cli resumes right after
 * its suspend. */
const char *const acct_db_when_resumable[] = {ACCT_DB_SUSPENDED,
                                              ACCT_DB_SUSPENDING, NULL};
/* Delete: the contract's active, failed or degraded, and suspended: the
 * Terraform provider's acceptance test of suspension
 * (TestAccResourceDatabaseMysqlV2_suspension) ends on a suspended cluster
 * and destroys it, checking it is gone. */
const char *const acct_db_when_deletable[] = {
    ACCT_DB_ACTIVE, ACCT_DB_DEGRADED, ACCT_DB_FAILED, ACCT_DB_SUSPENDED, NULL
};

const char *const acct_db_frequencies[] = {ACCT_DB_WEEKLY, ACCT_DB_MONTHLY,
                                           NULL};

static const char *const mysql_replication[] = {
    ACCT_DB_REPLICATION_NONE, "asynch", "semi_synch", NULL
};
static const char *const pg_replication[] = {ACCT_DB_REPLICATION_NONE,
                                             "asynch", NULL};
static const char *const pg_commit_types[] = {
    "on", ACCT_DB_COMMIT_DEFAULT, "remote_write", "remote_apply", "off", NULL
};

static const acct_db_engine engines[] = {
    {ACCT_DB_MYSQL, "3306", "linroot", mysql_replication, "semi_synch",
     "Must be asynch or semi_synch for a cluster of 2 or 3 nodes", NULL},
    {ACCT_DB_POSTGRESQL, "5432", "linpostgres", pg_replication, "asynch",
     "Must be asynch for a cluster of 2 or 3 nodes", pg_commit_types},
};

/*
 * Provisioning completing is when hosts are assigned (docs/conventions.md:
 * null until
 * then).  SET expressions read the row as it was, so `status` below is the
 * status being left.
 */
static const acct_sql q_settle = ACCT_SQL("db_settle",
    "UPDATE databases SET"
    " host_primary = CASE WHEN status = '" ACCT_DB_PROVISIONING "'"
    " AND host_primary IS NULL"
    "   THEN 'lin-' || account_id || '-' || id || '-' || engine || '-primary.'"
    "        || %s ELSE host_primary END,"
    " host_secondary = CASE WHEN status = '" ACCT_DB_PROVISIONING "'"
    " AND host_secondary IS NULL"
    "   THEN 'lin-' || account_id || '-' || id || '-' || engine"
    "        || '-primary-private.' || %s ELSE host_secondary END,"
    " status = status_next, status_next = NULL, status_due = NULL,"
    " updated = status_due"
    " WHERE account_id = CAST(%s AS BIGINT) AND status_due IS NOT NULL"
    " AND status_due <= CAST(%s AS BIGINT)");

/*
 * Status-bound statements end their WHERE with STATUS_IN; its arguments are
 * the statement's last STATUS_SLOTS (as many as there are statuses), filled
 * by change_if.
 */
#define STATUS_SLOTS 10
#define STATUS_IN "status IN (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"

static const acct_sql q_load = ACCT_SQL("db_load",
    "SELECT " ACCT_DB_COLUMNS " FROM databases db"
    " WHERE db.id = CAST(%s AS BIGINT) AND db.account_id = CAST(%s AS BIGINT)"
    " AND (CAST(%s AS TEXT) IS NULL OR db.engine = %s)");

#define TRANSITION_SET \
    "UPDATE databases SET status = %s, status_next = %s," \
    " status_due = CAST(%s AS BIGINT), updated = CAST(%s AS BIGINT)" \
    " WHERE id = CAST(%s AS BIGINT)"

static const acct_sql q_transition = ACCT_SQL("db_transition",
    TRANSITION_SET);

static const acct_sql q_transition_if = ACCT_SQL("db_transition_if",
    TRANSITION_SET " AND " STATUS_IN);

/* A status replaces whatever transition the emulation had scheduled. */
static const acct_sql q_set_status = ACCT_SQL("db_set_status",
    "UPDATE databases SET status = %s, status_next = NULL, status_due = NULL,"
    " host_primary = COALESCE(%s, host_primary),"
    " host_secondary = COALESCE(%s, host_secondary),"
    " updated = CAST(%s AS BIGINT) WHERE id = CAST(%s AS BIGINT)");

static const acct_sql q_by_id = ACCT_SQL("db_by_id",
    "SELECT " ACCT_DB_COLUMNS " FROM databases db"
    " WHERE db.id = CAST(%s AS BIGINT)");

/* The first key is this lock's own class ("dbl"). */
static const acct_sql q_label_lock = ACCT_SQL("db_label_lock",
    "SELECT pg_advisory_xact_lock(6578796, hashtext(%s))");

static const acct_sql q_insert = ACCT_SQL("db_insert",
    "INSERT INTO databases (account_id, engine, version, label, region, type,"
    " cluster_size, encrypted, ssl_connection, replication_type,"
    " replication_commit_type, allow_list, port, status, total_disk_size_gb,"
    " used_disk_size_gb, updates, root_username, root_password_sealed,"
    " created, updated, engine_config, private_network, fork_source,"
    " fork_restore_time)"
    " VALUES (CAST(%s AS BIGINT), %s, %s, %s, %s, %s, CAST(%s AS INTEGER),"
    " CAST(%s AS INTEGER), CAST(%s AS INTEGER), %s, %s, %s,"
    " CAST(%s AS INTEGER), '" ACCT_DB_PROVISIONING "', CAST(%s AS INTEGER),"
    " 0, %s, %s, '', CAST(%s AS BIGINT), CAST(%s AS BIGINT), %s, %s,"
    " CAST(%s AS BIGINT), CAST(%s AS BIGINT))"
    " ON CONFLICT (account_id, label) DO NOTHING RETURNING id");

static const acct_sql q_password = ACCT_SQL("db_password",
    "UPDATE databases SET root_password_sealed = %s"
    " WHERE id = CAST(%s AS BIGINT)");

static const acct_sql q_password_reset = ACCT_SQL("db_password_set",
    "UPDATE databases SET root_password_sealed = %s,"
    " credentials_reset = CAST(%s AS BIGINT) WHERE id = CAST(%s AS BIGINT)");

/* NULL leaves a column as it is; a label taken by another changes nothing. */
static const acct_sql q_update = ACCT_SQL("db_update",
    "UPDATE databases SET label = COALESCE(%s, label),"
    " allow_list = COALESCE(%s, allow_list), type = COALESCE(%s, type),"
    " total_disk_size_gb = COALESCE(CAST(%s AS INTEGER), total_disk_size_gb),"
    " updates = COALESCE(%s, updates),"
    " engine_config = COALESCE(%s, engine_config),"
    " version = COALESCE(%s, version),"
    " cluster_size = COALESCE(CAST(%s AS INTEGER), cluster_size),"
    " replication_type = COALESCE(%s, replication_type),"
    " private_network = CASE WHEN CAST(%s AS INTEGER) = 1 THEN %s"
    "   ELSE private_network END"
    " WHERE id = CAST(%s AS BIGINT) AND NOT EXISTS (SELECT 1 FROM databases o"
    " WHERE o.account_id = CAST(%s AS BIGINT) AND o.label = %s"
    " AND o.id <> CAST(%s AS BIGINT))");

/* Backups go with the database (ON DELETE CASCADE); change_if fills the
 * statuses it may be deleted in (acct_db_when_deletable). */
static const acct_sql q_delete = ACCT_SQL("db_delete",
    "DELETE FROM databases"
    " WHERE id = CAST(%s AS BIGINT) AND account_id = CAST(%s AS BIGINT)"
    " AND " STATUS_IN);

/* Provisioning that is to end later ends now (a suspend of a database still
 * provisioning); the settling then applies it as it applies any other. */
static const acct_sql q_provisioned_now = ACCT_SQL("db_provisioned_now",
    "UPDATE databases SET status_due = CAST(%s AS BIGINT)"
    " WHERE id = CAST(%s AS BIGINT)"
    " AND status = '" ACCT_DB_PROVISIONING "' AND status_next IS NOT NULL"
    " AND status_due > CAST(%s AS BIGINT)");

static const acct_sql q_region = ACCT_SQL("db_region",
    "SELECT status, capabilities FROM regions WHERE id = %s");

static const acct_sql q_type = ACCT_SQL("db_type",
    "SELECT disk FROM database_types WHERE id = %s");

/* The contract's node types: any compute type (GET /compute/types). */
static const acct_sql q_compute_type = ACCT_SQL("db_compute_type",
    "SELECT disk FROM compute_types WHERE id = %s");

/* The public API's marks, and the other scalar and list properties of
 * linode_api4's MySQLDatabase, PostgreSQLDatabase and Database, which its
 * filters may name: the keys every list shows. */
static const acct_filter_field list_fields[] = {
    {"label", "db.label", ACCT_FIELD_TEXT},
    {"type", "db.type", ACCT_FIELD_TEXT},
    {"engine", "db.engine", ACCT_FIELD_TEXT},
    {"version", "db.version", ACCT_FIELD_TEXT},
    {"region", "db.region", ACCT_FIELD_TEXT},
    {"status", "db.status", ACCT_FIELD_TEXT},
    {"id", "db.id", ACCT_FIELD_INT},
    {"cluster_size", "db.cluster_size", ACCT_FIELD_INT},
    {"encrypted", "db.encrypted", ACCT_FIELD_BOOL},
    {"ssl_connection", "db.ssl_connection", ACCT_FIELD_BOOL},
    {"allow_list", ACCT_FILTER_HOLDS("db.allow_list"), ACCT_FIELD_TAG},
    {"port", "db.port", ACCT_FIELD_INT},
    {"created", "db.created", ACCT_FIELD_TIME},
    {"updated", "db.updated", ACCT_FIELD_TIME},
    {NULL, NULL, 0}
};

/* A status-bound statement that changed nothing is retried this often when
 * the database is found back in an allowed status (see change_if). */
#define CHANGE_ATTEMPTS 3

/* Index of `word` in `list` (NULL-terminated), or -1. */
static int word_index(const char *const *list, const char *word)
{
    int i;

    for (i = 0; word && list[i]; i++) {
        if (strcmp(list[i], word) == 0) {
            return i;
        }
    }
    return -1;
}

int acct_db_status_known(const char *status)
{
    return word_index(acct_db_statuses, status) >= 0;
}

const acct_db_engine *acct_db_engine_named(const char *name)
{
    size_t i;

    for (i = 0; name && i < sizeof(engines) / sizeof(engines[0]); i++) {
        if (strcmp(engines[i].name, name) == 0) {
            return &engines[i];
        }
    }
    return NULL;
}

apr_int64_t acct_db_id(const acct_rows *rows)
{
    apr_int64_t id = 0;

    acct_parse_i64(acct_rows_get(rows, 0, "id"), &id);
    return id;
}

acct_store_rc acct_db_settle(acct_req *req)
{
    const char *args[4];
    acct_store *st = NULL;
    acct_store_rc rc = acct_req_store(req, &st);

    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    args[0] = args[1] = req->settings->db_host_suffix;
    args[2] = acct_i64(req->pool, req->who->account_id);
    args[3] = acct_i64(req->pool, req->now);
    return acct_store_exec(st, req->pool, &q_settle, NULL, 4, args);
}

/* The row of q_load for its four arguments, as acct_out_found finds it. */
static acct_rows *load_row(acct_req *req, const char *const *args,
                           acct_outcome *out)
{
    acct_rows *rows = NULL;
    acct_store *st = NULL;
    acct_store_rc rc = acct_req_store(req, &st);

    if (rc == ACCT_STORE_OK) {
        rc = acct_store_select(st, req->pool, &q_load, &rows, 4, args);
    }
    *out = acct_out_found(rc, rows);
    return acct_out_ok(*out) ? rows : NULL;
}

acct_rows *acct_db_load(acct_req *req, apr_int64_t id, const char *engine,
                        acct_level need, acct_outcome *out)
{
    const char *args[4];
    acct_rows *rows;

    *out = acct_out_store(acct_db_settle(req));
    if (!acct_out_ok(*out)) {
        return NULL;
    }
    args[0] = acct_i64(req->pool, id);
    args[1] = acct_i64(req->pool, req->who->account_id);
    args[2] = args[3] = engine;
    rows = load_row(req, args, out);
    if (!rows) {
        return NULL;
    }
    *out = acct_grant_require(req, ACCT_ENTITY_DATABASE, id, need);
    return acct_out_ok(*out) ? rows : NULL;
}

acct_store_rc acct_db_get(acct_store *st, apr_pool_t *pool, apr_int64_t id,
                          acct_rows **rows)
{
    const char *arg = acct_i64(pool, id);

    *rows = NULL;
    return acct_store_select(st, pool, &q_by_id, rows, 1, &arg);
}

void acct_db_list_query(acct_req *req, const char *engine,
                        acct_render_row *render, acct_list_query *q)
{
    const char **args = apr_palloc(req->pool, 5 * sizeof(*args));

    memset(q, 0, sizeof(*q));
    q->columns = ACCT_DB_COLUMNS;
    q->from = "databases db";
    q->where = apr_pstrcat(req->pool, "db.account_id = CAST(%s AS BIGINT)"
                           " AND (CAST(%s AS TEXT) IS NULL OR db.engine = %s)"
                           " AND ", acct_grant_visible_sql(req->pool,
                                                           ACCT_ENTITY_DATABASE,
                                                           "db.id"), NULL);
    q->nargs = 5;
    q->args = args;
    q->fields = list_fields;
    q->stable_order = "db.id";
    q->render = render;
    args[0] = acct_i64(req->pool, req->who->account_id);
    args[1] = args[2] = engine;
    acct_grant_visible_args(req, args + 3);
}

int acct_db_oldest_restore(const acct_rows *rows, int i, apr_int64_t now,
                           apr_int64_t *out)
{
    apr_int64_t created;

    if (acct_parse_i64(acct_rows_get(rows, i, "created"), &created) != 0) {
        return -1;
    }
    *out = created > now - ACCT_DB_RESTORE_WINDOW
           ? created : now - ACCT_DB_RESTORE_WINDOW;
    return 0;
}

/* An integer member of a window, or -1. */
static int window_int(const json_t *w, const char *key)
{
    const json_t *v = json_object_get(w, key);

    return json_is_integer(v) ? (int)json_integer_value(v) : -1;
}

/* The length of window `updates` in hours (its duration; 1 if unreadable). */
static int window_hours(const char *updates)
{
    json_t *w = json_loads(updates ? updates : "", 0, NULL);
    int hours = window_int(w, "duration");

    json_decref(w);
    return hours > 0 ? hours : 1;
}

apr_int64_t acct_db_window_next(const char *updates, apr_int64_t after)
{
    json_t *w = json_loads(updates ? updates : "", 0, NULL);
    const char *frequency = json_string_value(json_object_get(w, "frequency"));
    int monthly = frequency && strcmp(frequency, ACCT_DB_MONTHLY) == 0;
    int dow = window_int(w, "day_of_week"), hour = window_int(w, "hour_of_day");
    int week = window_int(w, "week_of_month");
    apr_int64_t day, start = -1;
    int d;

    json_decref(w);
    if (dow < 1 || dow > 7 || hour < 0 || hour > 23
        || (monthly && (week < 1 || week > 4))) {
        return -1;
    }
    /* Day by day from the day of `after` (at most a month and a half). */
    for (d = 0, day = after - after % 86400; d < 62 && start < 0; d++,
         day += 86400) {
        time_t t = (time_t)day;
        struct tm tm;

        gmtime_r(&t, &tm);
        /* tm_wday: 0 Sunday; day_of_week: 1 Monday .. 7 Sunday. */
        if ((tm.tm_wday == 0 ? 7 : tm.tm_wday) != dow
            || (monthly && (tm.tm_mday - 1) / 7 + 1 != week)
            || day + hour * 3600 <= after) {
            continue;
        }
        start = day + hour * 3600;
    }
    return start;
}

json_t *acct_db_pending_render(apr_pool_t *pool, const acct_rows *rows, int i,
                               apr_int64_t now)
{
    const char *updates = acct_rows_get(rows, i, "updates");
    json_t *out = json_array();
    apr_int64_t base, planned, window;

    if (acct_parse_i64(acct_rows_get(rows, i, "created"), &base) != 0) {
        return out;
    }
    for (;;) {
        planned = base + ACCT_DB_MAINTENANCE_EVERY;
        window = acct_db_window_next(updates, planned);
        if (now < planned || window < 0) {
            return out;
        }
        if (now < window) {
            /* Applied in that window: planned for its start, done by its
             * end at the latest. */
            json_array_append_new(out, json_pack(
                "{s:o, s:s, s:o}",
                "deadline", acct_json_time(pool, acct_i64(pool, window
                                           + window_hours(updates) * 3600)),
                "description", ACCT_DB_MAINTENANCE_DESCRIPTION,
                "planned_for", acct_json_time(pool, acct_i64(pool, window))));
            return out;
        }
        base = window;
    }
}

void acct_db_hosts_of(apr_pool_t *pool, const acct_settings *s,
                      const acct_rows *rows, int i, acct_db_hosts *out)
{
    const char *id = acct_rows_get(rows, i, "id");
    const char *account = acct_rows_get(rows, i, "account_id");
    const char *engine = acct_rows_get(rows, i, "engine");
    const char *prefix, *suffix, *base, *net;
    apr_int64_t nodes = 0;

    out->primary = acct_rows_get(rows, i, "host_primary");
    out->secondary = out->standby = acct_rows_get(rows, i, "host_secondary");
    if (!s || !s->db_host_public || !id || !account || !engine) {
        return;
    }
    if (!out->primary) {
        /* Today's service names a cluster's hosts when it is created, not
         * when provisioning ends (its clients' recorded creates answer
         * them with status provisioning); an external orchestrator names
         * its own. */
        const char *status = acct_rows_get(rows, i, "status");

        if (s->db_external || !status
            || strcmp(status, ACCT_DB_PROVISIONING) != 0) {
            return;
        }
        suffix = s->db_host_suffix;
    }
    else {
        /* Only the names acct_db_settle made (the suffix they were made
         * under kept): an operator's names stay as they were set. */
        prefix = apr_psprintf(pool, "lin-%s-%s-%s-primary.", account, id,
                              engine);
        if (strncmp(out->primary, prefix, strlen(prefix)) != 0) {
            return;
        }
        suffix = out->primary + strlen(prefix);
        if (out->secondary
            && strcmp(out->secondary,
                      apr_psprintf(pool, "lin-%s-%s-%s-primary-private.%s",
                                   account, id, engine, suffix)) != 0) {
            return;
        }
    }
    base = apr_psprintf(pool, "a%s-akamai-prod-%s-default.%s", id, account,
                        suffix);
    net = acct_rows_get(rows, i, "private_network") ? "private-" : "";
    acct_parse_i64(acct_rows_get(rows, i, "cluster_size"), &nodes);
    out->primary = apr_pstrcat(pool, net, base, NULL);
    out->standby = nodes > ACCT_DB_CLUSTER_SINGLE
                   ? apr_pstrcat(pool, net, "replica-", base, NULL) : NULL;
    out->secondary = out->standby;
}

/* What a user is waiting for in each transient status. */
static const char *awaited(const char *status)
{
    static const char *const words[][2] = {
        {ACCT_DB_PROVISIONING, "provisioning"},
        {ACCT_DB_UPDATING, "the update"}, {ACCT_DB_BACKING_UP, "the backup"},
        {ACCT_DB_RESTORING, "the restore"}, {ACCT_DB_RESUMING, "resuming"},
        {ACCT_DB_SUSPENDING, "suspending"},
    };
    size_t i;

    for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (strcmp(words[i][0], status) == 0) {
            return words[i][1];
        }
    }
    return NULL;
}

acct_outcome acct_db_require_status(apr_pool_t *pool, const acct_rows *db,
                                    const char *const *allowed)
{
    const char *status = acct_rows_get(db, 0, "status"), *wait;
    const char *const *a;

    for (a = allowed; *a; a++) {
        if (status && strcmp(*a, status) == 0) {
            return acct_out_done();
        }
    }
    wait = status ? awaited(status) : NULL;
    return acct_out_invalid(NULL,
               wait ? apr_psprintf(pool, "Your database is %s; please wait "
                                   "until %s is complete to perform this "
                                   "operation.", status, wait)
                    : apr_psprintf(pool, "Your database is %s; this operation "
                                   "is not available in that status.",
                                   status ? status : "unknown"));
}

/* The five arguments of TRANSITION_SET. */
static void transition_args(acct_req *req, apr_int64_t id, const char *status,
                            const char *next, apr_int64_t seconds,
                            const char **args)
{
    int scheduled = next && !req->settings->db_external;

    args[0] = status;
    args[1] = scheduled ? next : NULL;
    args[2] = scheduled ? acct_i64(req->pool, req->now + seconds) : NULL;
    args[3] = acct_i64(req->pool, req->now);
    args[4] = acct_i64(req->pool, id);
}

acct_store_rc acct_db_transition(acct_req *req, apr_int64_t id,
                                 const char *status, const char *next,
                                 apr_int64_t seconds, const char *action)
{
    const char *args[5];
    acct_store *st = NULL;
    acct_store_rc rc = acct_req_store(req, &st);

    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    transition_args(req, id, status, next, seconds, args);
    rc = acct_store_exec(st, req->pool, &q_transition, NULL, 5, args);
    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    return action ? acct_event_database(st, req->pool, id, action,
                                        req->who->username, req->now)
                  : acct_event_database_follow(st, req->pool, id);
}

/*
 * Runs `sql` (its `nargs` own arguments, then the status slots) on database
 * *db of the acting account if its status is one of `allowed`: see
 * acct_db_begin for what it comes to.
 */
static acct_outcome change_if(acct_req *req, acct_rows **db,
                              const char *const *allowed, const acct_sql *sql,
                              int nargs, const char *const *args)
{
    const char **all = apr_palloc(req->pool, (apr_size_t)(nargs
                                  + STATUS_SLOTS) * sizeof(*all));
    const char *load[4];
    acct_store *st = NULL;
    acct_outcome out;
    acct_rows *now;
    acct_store_rc rc;
    int i, n, attempt, changed;

    memcpy(all, args, (apr_size_t)nargs * sizeof(*all));
    /* Unused slots are NULL, which no status equals. */
    for (i = n = 0; i < STATUS_SLOTS; i++) {
        all[nargs + i] = allowed[n] ? allowed[n++] : NULL;
    }
    load[0] = acct_rows_get(*db, 0, "id");
    load[1] = acct_i64(req->pool, req->who->account_id);
    load[2] = load[3] = NULL;
    for (attempt = 0; attempt < CHANGE_ATTEMPTS; attempt++) {
        out = acct_db_require_status(req->pool, *db, allowed);
        if (!acct_out_ok(out)) {
            return out;
        }
        changed = 0;
        rc = acct_req_store(req, &st);
        if (rc == ACCT_STORE_OK) {
            rc = acct_store_exec(st, req->pool, sql, &changed,
                                 nargs + STATUS_SLOTS, all);
        }
        if (rc != ACCT_STORE_OK || changed > 0) {
            return acct_out_store(rc);
        }
        /* Another request changed the status first and has committed: the
         * row as it is now says why this one lost (not found once
         * deleted). */
        if (!(now = load_row(req, load, &out))) {
            return out;
        }
        *db = now;
    }
    /* Found back in an allowed status each time: the client may retry. */
    return acct_out_store(ACCT_STORE_UNAVAILABLE);
}

acct_outcome acct_db_begin(acct_req *req, acct_rows **db,
                           const char *const *allowed, const char *status,
                           const char *next, apr_int64_t seconds,
                           const char *action)
{
    const char *args[5];
    acct_outcome out;

    transition_args(req, acct_db_id(*db), status, next, seconds, args);
    out = change_if(req, db, allowed, &q_transition_if, 5, args);
    if (!acct_out_ok(out) || !action) {
        return out;
    }
    return acct_out_store(acct_event_database(req->store, req->pool,
                                              acct_db_id(*db), action,
                                              req->who->username, req->now));
}

acct_store_rc acct_db_set_status(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t id, const char *status,
                                 const char *primary, const char *secondary,
                                 apr_int64_t now, int *changed)
{
    const char *args[5];

    acct_store_rc rc;

    args[0] = status;
    args[1] = primary;
    args[2] = secondary;
    args[3] = acct_i64(pool, now);
    args[4] = acct_i64(pool, id);
    rc = acct_store_exec(st, pool, &q_set_status, changed, 5, args);
    if (rc != ACCT_STORE_OK || *changed == 0) {
        return rc;
    }
    return acct_event_database_status(st, pool, id, status, now);
}

acct_store_rc acct_db_label_lock(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t account_id, const char *label)
{
    acct_rows *rows = NULL;
    const char *key;

    if (acct_store_dialect(st) != ACCT_DIALECT_PGSQL) {
        return ACCT_STORE_OK;
    }
    key = apr_psprintf(pool, "%" APR_INT64_T_FMT "/%s", account_id, label);
    return acct_store_select(st, pool, &q_label_lock, &rows, 1, &key);
}

acct_store_rc acct_db_create(acct_store *st, apr_pool_t *pool,
                             const acct_db_new *d, apr_int64_t *id)
{
    const char *args[22];
    acct_rows *rows = NULL;
    acct_store_rc rc;

    args[0] = acct_i64(pool, d->account_id);
    args[1] = d->engine->name;
    args[2] = d->version;
    args[3] = d->label;
    args[4] = d->region;
    args[5] = d->type;
    args[6] = acct_i64(pool, d->cluster_size);
    args[7] = d->encrypted ? "1" : "0";
    args[8] = d->ssl_connection ? "1" : "0";
    args[9] = d->replication_type;
    args[10] = d->commit_type;
    args[11] = d->allow_list;
    args[12] = d->engine->port;
    args[13] = acct_i64(pool, d->disk_gb);
    args[14] = ACCT_DB_UPDATES_DEFAULT;
    args[15] = d->root_username ? d->root_username : d->engine->root_username;
    args[16] = args[17] = acct_i64(pool, d->now);
    args[18] = d->engine_config ? d->engine_config : "{}";
    args[19] = d->private_network;
    args[20] = d->fork_source > 0 ? acct_i64(pool, d->fork_source) : NULL;
    args[21] = d->fork_source > 0 ? acct_i64(pool, d->fork_restore_time)
                                  : NULL;
    *id = 0;
    rc = acct_store_select(st, pool, &q_insert, &rows, 22, args);
    if (rc == ACCT_STORE_OK
        && acct_parse_i64(acct_rows_get(rows, 0, "id"), id) != 0) {
        *id = 0;  /* no row: the label is taken */
    }
    return rc;
}

acct_store_rc acct_db_password_set(acct_store *st, apr_pool_t *pool,
                                   apr_int64_t id, const char *sealed)
{
    const char *args[2];

    args[0] = sealed;
    args[1] = acct_i64(pool, id);
    return acct_store_exec(st, pool, &q_password, NULL, 2, args);
}

acct_store_rc acct_db_password_reset(acct_store *st, apr_pool_t *pool,
                                     apr_int64_t id, const char *sealed,
                                     apr_int64_t now, int *changed)
{
    const char *args[3];

    args[0] = sealed;
    args[1] = acct_i64(pool, now);
    args[2] = acct_i64(pool, id);
    return acct_store_exec(st, pool, &q_password_reset, changed, 3, args);
}

acct_store_rc acct_db_update(acct_store *st, apr_pool_t *pool,
                             apr_int64_t account_id, apr_int64_t id,
                             const acct_db_changes *c, int *changed)
{
    const char *args[15];
    int resize = c->type || c->cluster_size >= 0;
    acct_store_rc rc;

    args[0] = c->label;
    args[1] = c->allow_list;
    args[2] = c->type;
    args[3] = c->disk_gb >= 0 ? acct_i64(pool, c->disk_gb) : NULL;
    args[4] = c->updates;
    args[5] = c->engine_config;
    args[6] = c->version;
    args[7] = c->cluster_size >= 0 ? acct_i64(pool, c->cluster_size) : NULL;
    args[8] = c->replication_type;
    args[9] = c->private_network_set ? "1" : "0";
    args[10] = c->private_network;
    args[11] = args[14] = acct_i64(pool, id);
    args[12] = acct_i64(pool, account_id);
    args[13] = c->label;
    rc = acct_store_exec(st, pool, &q_update, changed, 15, args);
    if (rc != ACCT_STORE_OK || *changed == 0) {
        return rc;
    }
    /* The Terraform provider waits on database_update for a changed label,
     * allow list, window, settings, version or network and on
     * database_resize for a new type or node count. */
    if (resize) {
        rc = acct_event_database(st, pool, id, ACCT_EVENT_DATABASE_RESIZE,
                                 c->username, c->now);
    }
    if (rc == ACCT_STORE_OK && (!resize || c->label || c->allow_list
                                || c->updates || c->engine_config
                                || c->version || c->private_network_set)) {
        rc = acct_event_database(st, pool, id, ACCT_EVENT_DATABASE_UPDATE,
                                 c->username, c->now);
    }
    return rc;
}

acct_outcome acct_db_delete(acct_req *req, acct_rows **db)
{
    const char *args[2];
    apr_int64_t id = acct_db_id(*db);
    acct_outcome out;

    args[0] = acct_rows_get(*db, 0, "id");
    args[1] = acct_i64(req->pool, req->who->account_id);
    /* Rolled back with the request when the delete is refused. */
    out = acct_out_store(acct_event_database(req->store, req->pool, id,
                                             ACCT_EVENT_DATABASE_DELETE,
                                             req->who->username, req->now));
    if (acct_out_ok(out)) {
        out = change_if(req, db, acct_db_when_deletable, &q_delete, 2, args);
    }
    if (!acct_out_ok(out)) {
        return out;
    }
    /* Grants name the database by id only: they go explicitly, once it has. */
    return acct_out_store(acct_grants_remove_entity(req->store, req->pool,
                                                    ACCT_ENTITY_DATABASE, id));
}

/*
 * A database still provisioning completes now, as if its provisioning time
 * had run out: its pending transition is made due (PostgreSQL locks the
 * row: a concurrent suspend waits, then finds it no longer provisioning),
 * its database_create event follows it, and the settling applies it with
 * the hosts.  Nothing happens to a database in any other status, nor with
 * AcctapiDatabaseBackend external (no transition is pending then).
 */
static acct_store_rc provisioned_now(acct_req *req, apr_int64_t id)
{
    const char *args[3];
    acct_store *st = NULL;
    acct_store_rc rc = acct_req_store(req, &st);
    int changed = 0;

    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    args[0] = args[2] = acct_i64(req->pool, req->now);
    args[1] = acct_i64(req->pool, id);
    rc = acct_store_exec(st, req->pool, &q_provisioned_now, &changed, 3, args);
    if (rc != ACCT_STORE_OK || changed == 0) {
        return rc;
    }
    rc = acct_event_database_follow(st, req->pool, id);
    return rc != ACCT_STORE_OK ? rc : acct_db_settle(req);
}

acct_outcome acct_db_suspend(acct_req *req, acct_rows **db)
{
    const char *status = acct_rows_get(*db, 0, "status");
    acct_store_rc rc;

    if (status && strcmp(status, ACCT_DB_PROVISIONING) == 0) {
        rc = provisioned_now(req, acct_db_id(*db));
        if (rc != ACCT_STORE_OK) {
            return acct_out_store(rc);
        }
    }
    /* *db may still say provisioning: acct_db_when_suspendable holds both,
     * and the statement reads the row as it is now. */
    return acct_db_begin(req, db, acct_db_when_suspendable,
                         ACCT_DB_SUSPENDING, ACCT_DB_SUSPENDED,
                         req->settings->db_operation,
                         ACCT_EVENT_DATABASE_SUSPEND);
}

acct_outcome acct_db_resume(acct_req *req, acct_rows **db)
{
    apr_int64_t id = acct_db_id(*db);
    acct_outcome out = acct_db_begin(req, db, acct_db_when_resumable,
                                     ACCT_DB_RESUMING, ACCT_DB_ACTIVE,
                                     req->settings->db_operation, NULL);
    acct_store_rc rc;

    if (!acct_out_ok(out)) {
        return out;
    }
    /* A suspend still running (resumed while suspending) is over; ended
     * before the resume's own event is written, which it would end too. */
    rc = acct_event_database_status(req->store, req->pool, id,
                                    ACCT_DB_SUSPENDED, req->now);
    if (rc == ACCT_STORE_OK) {
        rc = acct_event_database(req->store, req->pool, id,
                                 ACCT_EVENT_DATABASE_RESUME,
                                 req->who->username, req->now);
    }
    return acct_out_store(rc);
}

/* The one row `sql` selects by `id` (no row when there is none). */
static acct_store_rc catalog_row(acct_store *st, apr_pool_t *pool,
                                 const acct_sql *sql, const char *id,
                                 acct_rows **rows)
{
    *rows = NULL;
    return acct_store_select(st, pool, sql, rows, 1, &id);
}

acct_store_rc acct_db_region(acct_store *st, apr_pool_t *pool, const char *id,
                             const char **status, const char **capabilities)
{
    acct_rows *rows;
    acct_store_rc rc = catalog_row(st, pool, &q_region, id, &rows);

    *status = rc == ACCT_STORE_OK ? acct_rows_get(rows, 0, "status") : NULL;
    *capabilities = rc == ACCT_STORE_OK
                    ? acct_rows_get(rows, 0, "capabilities") : NULL;
    return rc;
}

int acct_db_region_offers(const char *capabilities)
{
    return capabilities && strstr(capabilities, "\"Managed Databases\"");
}

acct_store_rc acct_db_type_disk(acct_store *st, apr_pool_t *pool,
                                const char *id, apr_int64_t *disk_mb)
{
    acct_rows *rows;
    acct_store_rc rc = catalog_row(st, pool, &q_type, id, &rows);

    if (rc == ACCT_STORE_OK && (!rows || rows->nrows == 0)) {
        /* Not a database type of today's API: a compute type, as the
         * contract names a database's type, still is one. */
        rc = catalog_row(st, pool, &q_compute_type, id, &rows);
    }
    if (rc != ACCT_STORE_OK
        || acct_parse_i64(acct_rows_get(rows, 0, "disk"), disk_mb) != 0) {
        *disk_mb = -1;
    }
    return rc;
}

const char *acct_db_password_new(apr_pool_t *pool)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    const size_t n = sizeof(alphabet) - 1;
    /* Bytes at or above the last multiple of n would favour some letters. */
    const unsigned limit = 256 - 256 % n;
    char *out = apr_palloc(pool, ACCT_DB_PASSWORD_LEN + 1);
    unsigned char buf[64];
    size_t len = 0, i;

    while (len < ACCT_DB_PASSWORD_LEN) {
        if (acct_random_bytes(buf, sizeof(buf)) != 0) {
            return NULL;
        }
        for (i = 0; i < sizeof(buf) && len < ACCT_DB_PASSWORD_LEN; i++) {
            if (buf[i] < limit) {
                out[len++] = alphabet[buf[i] % n];
            }
        }
    }
    memset(buf, 0, sizeof(buf));
    out[len] = '\0';
    return out;
}

const char *acct_db_password_context(apr_pool_t *pool, const char *id)
{
    return apr_pstrcat(pool, "dbpass:", id, NULL);
}
