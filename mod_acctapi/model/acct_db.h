/*
 * Managed databases: the model shared by every /databases route.
 *
 * A database's status is stored with the transition pending on it
 * (status_next at status_due).  Nothing runs in the background: every request
 * that touches an account's databases first applies the transitions that are
 * due (acct_db_settle, one idempotent UPDATE), so any number of processes and
 * nodes agree, and a restart loses nothing.  With AcctapiDatabaseBackend
 * external no transition is ever scheduled: acctapi-admin sets the status.
 *
 * This module owns the SQL of the databases table (and the database's
 * grants when it goes); backups are acct_dbbackup.h, the CA certificate
 * acct_dbcert.h.
 */
#ifndef ACCT_DB_H
#define ACCT_DB_H

#include "acct_list.h"
#include "acct_outcome.h"
#include "acct_req.h"
#include "acct_scope.h"
#include "acct_settings.h"

/* ------------------------------------------------------------------------
 * Words of the entity, listed once
 */

/* Engines, as the route and the catalogue's database_engines name them. */
#define ACCT_DB_MYSQL "mysql"
#define ACCT_DB_POSTGRESQL "postgresql"

/* The statuses of the contract's managed database. */
#define ACCT_DB_PROVISIONING "provisioning"
#define ACCT_DB_ACTIVE "active"
#define ACCT_DB_SUSPENDING "suspending"
#define ACCT_DB_SUSPENDED "suspended"
#define ACCT_DB_RESUMING "resuming"
#define ACCT_DB_RESTORING "restoring"
#define ACCT_DB_FAILED "failed"
#define ACCT_DB_DEGRADED "degraded"
#define ACCT_DB_UPDATING "updating"
#define ACCT_DB_BACKING_UP "backing_up"

/* Every status, provisioning first (NULL-terminated). */
extern const char *const acct_db_statuses[];

/* Is `status` one of acct_db_statuses? */
int acct_db_status_known(const char *status);

/*
 * The statuses each operation requires (the contract's table, extended to
 * PostgreSQL), NULL-terminated:
 *  - active: PUT, snapshot, credentials view and reset, patch, SSL;
 *  - at rest (active, degraded, failed): delete and restore;
 *  - provisioned (every status but provisioning): backups list, view and
 *    delete.
 */
extern const char *const acct_db_when_active[];
extern const char *const acct_db_when_at_rest[];
extern const char *const *const acct_db_when_provisioned;

/*
 * What today's public API adds to the table, each list with its
 * evidence in acct_db.c: suspend from active (and from provisioning, which
 * then completes at once); resume from suspended or suspending; delete
 * from the statuses at rest and from suspended.
 */
extern const char *const acct_db_when_suspendable[];
extern const char *const acct_db_when_resumable[];
extern const char *const acct_db_when_deletable[];

/* Cluster sizes: a single node, or a replicated cluster of up to 3 nodes
 * (2: the public console's two-node clusters). */
#define ACCT_DB_CLUSTER_SINGLE 1
#define ACCT_DB_CLUSTER_HA 3

/* replication_type of a single node (the only one it takes). */
#define ACCT_DB_REPLICATION_NONE "none"

/* replication_commit_type of a PostgreSQL cluster when none is given. */
#define ACCT_DB_COMMIT_DEFAULT "local"

/* Maintenance window frequencies (updates.frequency). */
#define ACCT_DB_WEEKLY "weekly"
#define ACCT_DB_MONTHLY "monthly"
extern const char *const acct_db_frequencies[];

/* The maintenance window of a new database: 4 hours, as today's service
 * gives a database created without one (linodego's recorded fixtures). */
#define ACCT_DB_UPDATES_DEFAULT \
    "{\"frequency\":\"weekly\",\"duration\":4,\"hour_of_day\":0," \
    "\"day_of_week\":1,\"week_of_month\":null}"

/* What differs between the engines. */
typedef struct acct_db_engine {
    const char *name;                 /* ACCT_DB_MYSQL ... */
    const char *port;
    const char *root_username;
    const char *const *replication;   /* replication_type choices */
    const char *ha_replication;       /* default of a replicated cluster */
    const char *ha_reason;            /* why "none" is refused there */
    const char *const *commit_types;  /* replication_commit_type choices;
                                       * NULL: the engine takes none */
} acct_db_engine;

/* The engine named `name`, or NULL. */
const acct_db_engine *acct_db_engine_named(const char *name);

/* ------------------------------------------------------------------------
 * Rows
 */

/* Every column of a databases row, aliased by its own name (table alias db). */
#define ACCT_DB_COLUMNS \
    "db.id, db.account_id, db.engine, db.version, db.label, db.region," \
    " db.type, db.cluster_size, db.encrypted, db.ssl_connection," \
    " db.replication_type, db.replication_commit_type, db.allow_list," \
    " db.port, db.host_primary, db.host_secondary, db.status," \
    " db.status_next, db.status_due, db.total_disk_size_gb," \
    " db.used_disk_size_gb, db.updates, db.root_username," \
    " db.root_password_sealed, db.credentials_reset, db.ca_certificate," \
    " db.created, db.updated, db.engine_config, db.platform," \
    " db.private_network, db.fork_source, db.fork_restore_time"

/* The id of the first row of `rows` (ACCT_DB_COLUMNS or any with an id). */
apr_int64_t acct_db_id(const acct_rows *rows);

/* Applies every transition of the acting account that is due by req->now. */
acct_store_rc acct_db_settle(acct_req *req);

/*
 * Database `id`, of `engine` (NULL: any), in the acting account, settled,
 * on which the user holds `need`.  One row of ACCT_DB_COLUMNS with *out
 * done; otherwise NULL with *out the store's failure, not found (no such
 * database in the account) or forbidden (no such grant).
 */
acct_rows *acct_db_load(acct_req *req, apr_int64_t id, const char *engine,
                        acct_level need, acct_outcome *out);

/* Database `id` as it is now (ACCT_DB_COLUMNS): no row when there is none. */
acct_store_rc acct_db_get(acct_store *st, apr_pool_t *pool, apr_int64_t id,
                          acct_rows **rows);

/*
 * The list of the account's databases that the acting user may see, of
 * `engine` (NULL: every engine), rendered by `render`: the spec for
 * acct_list_respond (X-Filter: label, type, engine, version, region,
 * status).  Settle first.
 */
void acct_db_list_query(acct_req *req, const char *engine,
                        acct_render_row *render, acct_list_query *q);

/* ------------------------------------------------------------------------
 * What the public API's answers add, derived from the row
 */

/* How far back a database can be restored to (a fork's restore_time). */
#define ACCT_DB_RESTORE_WINDOW (7 * 86400)

/*
 * The oldest moment database row `i` can be restored to at `now`: its
 * creation, or ACCT_DB_RESTORE_WINDOW ago when older.  0, or -1 when the
 * row cannot be read.
 */
int acct_db_oldest_restore(const acct_rows *rows, int i, apr_int64_t now,
                           apr_int64_t *out);

/*
 * Planned maintenance (updates.pending).  The emulation plans one update
 * per cycle: ACCT_DB_MAINTENANCE_EVERY after a cycle starts (the database's
 * creation, then each update applied) an update is planned, and it is
 * applied at the start of the first maintenance window of the database's
 * `updates` after that; the next cycle starts then.  So at any moment at
 * most one update is pending, and it follows from the row and the clock
 * alone (a changed window moves the updates not yet applied).
 */
#define ACCT_DB_MAINTENANCE_EVERY (28 * 86400)
#define ACCT_DB_MAINTENANCE_DESCRIPTION \
    "Scheduled maintenance: operating system and engine minor updates"

/*
 * The first start of maintenance window `updates` (the stored JSON text)
 * strictly after `after`; -1 when the window cannot be read.
 */
apr_int64_t acct_db_window_next(const char *updates, apr_int64_t after);

/* updates.pending of database row `i` at `now`: [] or one
 * {deadline, description, planned_for}: planned for the window's start,
 * done by its end. */
json_t *acct_db_pending_render(apr_pool_t *pool, const acct_rows *rows, int i,
                               apr_int64_t now);

/*
 * Host names.  Provisioning completing names a database's hosts the
 * contract's way, under AcctapiDatabaseHostSuffix (acct_db_settle):
 * lin-<account>-<id>-<engine>-primary.<suffix> and ...-primary-private.
 * <suffix>; acctapi-admin database set-status may set others.  With
 * AcctapiDatabaseHostNames public, the names the emulation made are
 * answered as today's service names hosts (linodego's recorded traffic,
 * linode_api4's integration tests):
 *   primary  a<id>-akamai-prod-<account>-default.<suffix>
 *   standby  replica-<primary>, only while the cluster has replicas (the
 *            Terraform provider's single-node tests expect none)
 *   both with "private-" in front while the database is in a VPC (Cloud
 *   Manager's reading of the service's answers);
 * secondary, which today's service no longer sends, is the standby.  Named
 * from creation on, as today's service answers a create (the emulator's
 * provisioning databases too; an external orchestrator names its own).  Names
 * an operator set are answered as they are, in both namings.  Derived when
 * answered, so a resize or a private_network change shows at once and the
 * directive applies to every database.
 */
typedef struct acct_db_hosts {
    const char *primary, *secondary, *standby;   /* NULL: none (yet) */
} acct_db_hosts;

/* The hosts database row `i` (ACCT_DB_COLUMNS) answers under `s`. */
void acct_db_hosts_of(apr_pool_t *pool, const acct_settings *s,
                      const acct_rows *rows, int i, acct_db_hosts *out);

/* ------------------------------------------------------------------------
 * Status
 */

/*
 * Done when the database's status is one of `allowed` (NULL-terminated);
 * otherwise invalid with no field and the reason docs/conventions.md
 * gives (its 400, "Database"), e.g.
 * "Your database is provisioning; please wait until provisioning is
 * complete to perform this operation.", made in `pool`.
 */
acct_outcome acct_db_require_status(apr_pool_t *pool, const acct_rows *db,
                                    const char *const *allowed);

/*
 * Puts database `id` in `status` now and, unless the backend is external or
 * `next` is NULL, schedules `next` after `seconds`.  Unconditional: for a row
 * this request has just made or holds in a transient status.  Writes event
 * `action` of the operation that starts (acct_event_database); NULL
 * reschedules the operation that runs, whose event follows.
 */
acct_store_rc acct_db_transition(acct_req *req, apr_int64_t id,
                                 const char *status, const char *next,
                                 apr_int64_t seconds, const char *action);

/*
 * Status-bound changes are one compare-and-set: the allowed statuses are in
 * the WHERE of the statement that changes the row, so of concurrent requests
 * that all saw an allowed status exactly one changes it; on PostgreSQL's READ
 * COMMITTED the others wait for its row lock, evaluate the WHERE again on the
 * committed row and change nothing.
 *
 * acct_db_begin puts database *db in `status` (with `next` due as
 * acct_db_transition does) if its status is one of `allowed`, so two
 * requests that both saw "active" cannot both start an operation.  Done
 * when it changed the row (which stays locked until the transaction ends);
 * otherwise the status refusal of acct_db_require_status for the status *db
 * shows, or now has after a concurrent change (then *db is the row read
 * again), not found once the database is gone, or the store's failure
 * (ACCT_STORE_UNAVAILABLE when the row kept coming back in an allowed
 * status: the client may retry).  Writes event `action` of the operation it
 * starts; NULL when the caller's own write does (acct_db_update).
 */
acct_outcome acct_db_begin(acct_req *req, acct_rows **db,
                           const char *const *allowed, const char *status,
                           const char *next, apr_int64_t seconds,
                           const char *action);

/*
 * What `acctapi-admin database set-status` does: database `id` in `status`
 * at `now`, any scheduled transition dropped, the hosts set where given
 * (NULL keeps them), and the events that reports
 * (acct_event_database_status).  *changed is 0 when there is no such
 * database.
 */
acct_store_rc acct_db_set_status(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t id, const char *status,
                                 const char *primary, const char *secondary,
                                 apr_int64_t now, int *changed);

/* ------------------------------------------------------------------------
 * Create, update, delete
 */

/*
 * PostgreSQL only (SQLite writers are serial): takes a lock on (account,
 * label) until the transaction ends, so a rename, which cannot use ON
 * CONFLICT, sees a concurrent create's row instead of failing on the unique
 * index.  Take it before acct_db_create or an acct_db_update of the label.
 */
acct_store_rc acct_db_label_lock(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t account_id, const char *label);

/* A new database, as POST /databases/{engine}/instances checked it. */
typedef struct acct_db_new {
    apr_int64_t account_id;
    const acct_db_engine *engine;
    const char *version;           /* of the catalogue's engine */
    const char *label, *region, *type;
    apr_int64_t cluster_size;
    int encrypted, ssl_connection;
    const char *replication_type;
    const char *commit_type;       /* NULL unless the engine takes one */
    const char *allow_list;        /* canonical JSON array text */
    apr_int64_t disk_gb;           /* the type's disk */
    const char *root_username;     /* NULL: the engine's own */
    const char *engine_config;     /* JSON object text; NULL: "{}" (the
                                    * engine's defaults when answered) */
    const char *private_network;   /* JSON object text, or NULL */
    apr_int64_t fork_source;       /* the database forked, or 0 */
    apr_int64_t fork_restore_time; /* the moment forked (with a source) */
    apr_int64_t now;
} acct_db_new;

/*
 * Inserts database `d` in provisioning with the engine's port and root
 * username and the default maintenance window, its root password not yet
 * set.  *id is the new id, or 0 when the account has a database labelled so.
 */
acct_store_rc acct_db_create(acct_store *st, apr_pool_t *pool,
                             const acct_db_new *d, apr_int64_t *id);

/* Stores the sealed root password of a database just created (the sealing
 * context names the row, so the id comes first). */
acct_store_rc acct_db_password_set(acct_store *st, apr_pool_t *pool,
                                   apr_int64_t id, const char *sealed);

/* A credentials reset: the new sealed root password, reset at `now`.
 * *changed is 0 when there is no such database. */
acct_store_rc acct_db_password_reset(acct_store *st, apr_pool_t *pool,
                                     apr_int64_t id, const char *sealed,
                                     apr_int64_t now, int *changed);

/* What a PUT changes; NULL (disk_gb, cluster_size -1) leaves a column as it
 * is. */
typedef struct acct_db_changes {
    const char *label;
    const char *allow_list;        /* canonical JSON array text */
    const char *type;
    apr_int64_t disk_gb;           /* the new type's disk, or -1 */
    const char *updates;           /* the merged window as JSON text */
    const char *engine_config;     /* the merged settings as JSON text */
    const char *version;           /* a new full version (an upgrade) */
    apr_int64_t cluster_size;      /* a new node count, or -1 */
    const char *replication_type;  /* with a new node count */
    int private_network_set;       /* 1: private_network replaces it */
    const char *private_network;   /* JSON object text, NULL: none */
    const char *username;          /* who, and when, for its events */
    apr_int64_t now;
} acct_db_changes;

/*
 * Changes database `id` of `account_id`, which acct_db_begin has put in
 * updating, with its events: database_resize for a new type or node count,
 * database_update for anything else (or nothing else: every PUT runs an
 * update).  *changed is 0 when another database of the account has the
 * new label (nothing changes then).
 */
acct_store_rc acct_db_update(acct_store *st, apr_pool_t *pool,
                             apr_int64_t account_id, apr_int64_t id,
                             const acct_db_changes *c, int *changed);

/*
 * Deletes database *db with its backups and grants if its status allows it
 * (acct_db_when_deletable), as one compare-and-set: a delete racing a PUT or
 * an operation either wins or is refused for the status that won; its
 * database_delete event is written first (the row names the entity).  Done,
 * or what acct_db_begin comes to when it refuses.
 */
acct_outcome acct_db_delete(acct_req *req, acct_rows **db);

/* ------------------------------------------------------------------------
 * Suspend and resume (today's public API)
 */

/*
 * Suspends database *db: suspending now, suspended after
 * AcctapiDatabaseOperationTime, with its database_suspend event; a
 * compare-and-set as acct_db_begin (acct_db_when_suspendable).  A database
 * still provisioning first completes its provisioning at once (hosts
 * assigned as the settling does, its database_create event finished), so
 * the suspended cluster has what a provisioned one has.  Done, or what
 * acct_db_begin comes to when it refuses.
 */
acct_outcome acct_db_suspend(acct_req *req, acct_rows **db);

/*
 * Resumes database *db: resuming now, active after
 * AcctapiDatabaseOperationTime, with its database_resume event; a
 * compare-and-set as acct_db_begin (acct_db_when_resumable).  A suspend
 * still running ends (finished) as the resume starts.  Done, or what
 * acct_db_begin comes to when it refuses.
 */
acct_outcome acct_db_resume(acct_req *req, acct_rows **db);

/* ------------------------------------------------------------------------
 * Catalogue facts a database depends on
 */

/* Region `id`: its status ("ok" ...) and capabilities (JSON text), both
 * NULL when there is no such region. */
acct_store_rc acct_db_region(acct_store *st, apr_pool_t *pool, const char *id,
                             const char **status, const char **capabilities);

/* Does a region's capabilities text offer Managed Databases? */
int acct_db_region_offers(const char *capabilities);

/* The disk of database node type `id` in MB, or -1 when there is no such
 * type: a database type of today's API (GET /databases/types), else a
 * compute type, which is what the contract names a database's type. */
acct_store_rc acct_db_type_disk(acct_store *st, apr_pool_t *pool,
                                const char *id, apr_int64_t *disk_mb);

/* ------------------------------------------------------------------------
 * Root password
 */

#define ACCT_DB_PASSWORD_LEN 24

/* A root password: ACCT_DB_PASSWORD_LEN letters and digits, uniformly from
 * the CSPRNG; NULL if the generator fails. */
const char *acct_db_password_new(apr_pool_t *pool);

/* The sealing context that binds a root password to its database's row. */
const char *acct_db_password_context(apr_pool_t *pool, const char *id);

#endif
