/*
 * The database connection of a request: a lease from mod_dbd's pool, opened
 * on first use and handed back with the request; the schema check; SQLite's
 * cross-process writer lock; and the per-child breaker that answers 503 at
 * once while PostgreSQL is found down.
 */
#include "httpd.h"
#include "http_config.h"
#include "http_log.h"

#include <apr_atomic.h>
#include <apr_global_mutex.h>
#include <apr_optional.h>
#include <apr_shm.h>

#include "acctapi_config.h"
#include "acctapi_lease.h"
#include "acctapi_status.h"
#include "acct_clock.h"
#include "acct_log.h"
#include "acct_migrate.h"

APLOG_USE_MODULE(acctapi);

static APR_OPTIONAL_FN_TYPE(ap_dbd_open) *dbd_open;
static APR_OPTIONAL_FN_TYPE(ap_dbd_close) *dbd_close;

/* The schema was found at this build's version (per process; 0 until then). */
static volatile apr_uint32_t schema_ok;

/*
 * SQLite writers of every child queue on this lock (acct_store_set_limits),
 * created once by the parent and kept across restarts (see
 * acctapi_lease_create_gate); NULL until post_config.
 */
static apr_global_mutex_t *writer_gate;

typedef struct lease_rec {
    server_rec *s;
    ap_dbd_t *dbd;
} lease_rec;

/*
 * The database as this child last found it.  Once PostgreSQL did not answer
 * within AcctapiDatabaseTimeout, or no connection could be made, requests
 * answer 503 at once instead of each waiting as long again (mod_dbd makes
 * connections one at a time, so waits would add up); every
 * BREAKER_RETRY_MS one request (the probe) tries the database, and its
 * success serves everyone again.  Per child, in atomics: no lock on the
 * path of a healthy database.
 *
 * A child need not wait for its own probe once another child has been
 * answered: every answer is stamped in memory all children share
 * (breaker_news), and a child whose breaker tripped before the newest stamp
 * lets its requests through at once.  Once per outage only: if they fail
 * again, the stamps of others may come from a database this child cannot
 * reach, and only its own probes (or any answer of its own) count until one
 * succeeds.  So once the database answers one request, no child answers 503
 * for longer than it takes its next request to arrive.
 */
#define BREAKER_RETRY_MS 1000
static volatile apr_uint32_t db_found_down; /* 1: down */
static volatile apr_uint32_t db_retry_at;   /* ms clock, wraps (see below) */
static volatile apr_uint32_t db_probing;    /* 1: a probe is under way */
static volatile apr_uint32_t db_tripped_at; /* ms clock of the last trip */
static volatile apr_uint32_t db_heeds_news = 1; /* 0: own probes only */

/*
 * The newest answer of the database to any child of this server (ms clock).
 * In shared memory created once in the parent's process pool and found
 * again in httpd's retained data after each restart (as the writers' gate
 * below), so old and new generations read the same stamp; set in
 * post_config, before any child; NULL in programs without httpd.
 */
typedef struct breaker_news {
    volatile apr_uint32_t answered_at;
} breaker_news;
static breaker_news *news;

static apr_uint32_t breaker_now_ms(void)
{
    /* Compared by signed difference: wrapping every 49 days is harmless. */
    return (apr_uint32_t)apr_time_as_msec(apr_time_now());
}

static apr_status_t breaker_probe_done(void *data)
{
    acctapi_ctx *ctx = data;

    if (ctx->db_probe) {
        /* Neither proven nor failed: the next request probes again. */
        ctx->db_probe = 0;
        apr_atomic_set32(&db_probing, 0);
    }
    return APR_SUCCESS;
}

/* Has another child been answered since this one's breaker tripped? */
static int breaker_heard_of_an_answer(void)
{
    return news && apr_atomic_read32(&db_heeds_news)
           && (apr_int32_t)(apr_atomic_read32(&news->answered_at)
                            - apr_atomic_read32(&db_tripped_at)) > 0;
}

/* May this request use the database? */
static int breaker_admits(request_rec *r, acctapi_ctx *ctx)
{
    if (!apr_atomic_read32(&db_found_down) || ctx->db_probe) {
        return 1;
    }
    if (breaker_heard_of_an_answer()) {
        /* Cleared before the news is spent: a thread that finds it spent
         * finds the breaker cleared below. */
        apr_atomic_set32(&db_found_down, 0);
        apr_atomic_set32(&db_heeds_news, 0);
        return 1;
    }
    if (!apr_atomic_read32(&db_found_down)) {
        return 1;
    }
    if ((apr_int32_t)(breaker_now_ms() - apr_atomic_read32(&db_retry_at)) < 0
        || apr_atomic_cas32(&db_probing, 1, 0) != 0) {
        return 0;
    }
    ctx->db_probe = 1;
    apr_pool_cleanup_register(r->pool, ctx, breaker_probe_done,
                              apr_pool_cleanup_null);
    return 1;
}

static void breaker_trip(acctapi_ctx *ctx)
{
    apr_uint32_t now = breaker_now_ms();

    apr_atomic_set32(&db_tripped_at, now);
    apr_atomic_set32(&db_retry_at, now + BREAKER_RETRY_MS);
    apr_atomic_set32(&db_found_down, 1);
    if (ctx->db_probe) {
        ctx->db_probe = 0;
        apr_atomic_set32(&db_probing, 0);
    }
}

/* The database answered this request: clear a probe's breaker, heed
 * other children's news again, and stamp this answer for them. */
static void breaker_clear(acctapi_ctx *ctx)
{
    apr_uint32_t now;

    if (ctx->db_probe) {
        ctx->db_probe = 0;
        apr_atomic_set32(&db_found_down, 0);
        apr_atomic_set32(&db_probing, 0);
    }
    if (!apr_atomic_read32(&db_heeds_news)) {
        apr_atomic_set32(&db_heeds_news, 1);
    }
    /* Written only when the clock has moved on: at most one store a
     * millisecond per child on the shared line, however busy. */
    now = breaker_now_ms();
    if (news && (apr_int32_t)(now - apr_atomic_read32(&news->answered_at)) > 0) {
        apr_atomic_set32(&news->answered_at, now);
    }
}

/* Is an unavailable answer the database's absence (rather than SQLite's
 * writers queueing, which is load, or PostgreSQL answering that it cannot
 * take this statement now, a hot standby refusing a write: the server is
 * there, and the requests it can serve should reach it)? */
static int outage(const acctapi_ctx *ctx)
{
    return ctx->pool_refused
           || (ctx->store && acct_store_dialect(ctx->store) == ACCT_DIALECT_PGSQL
               && !acct_store_refused_by_server(ctx->store));
}

/*
 * What the database did for this request: unavailable ends the request's
 * use of it (each try costs up to a timeout) and, when it is an outage,
 * trips the child's breaker; an answer clears a probe's breaker.
 */
void acctapi_lease_note(acctapi_ctx *ctx, acct_store_rc rc)
{
    if (rc == ACCT_STORE_UNAVAILABLE) {
        if (outage(ctx)) {
            breaker_trip(ctx);
        }
        ctx->db_down = 1;
    }
    else if (rc == ACCT_STORE_OK) {
        breaker_clear(ctx);
    }
}

static apr_status_t lease_release(void *data)
{
    lease_rec *l = data;

    dbd_close(l->s, l->dbd);
    acctapi_status_lease(-1);
    return APR_SUCCESS;
}

unsigned acctapi_lease_exchanges(const acctapi_ctx *ctx, unsigned *setup)
{
    unsigned now_setup = 0,
             now = ctx->store ? acct_store_exchanges(ctx->store, &now_setup)
                              : 0;

    *setup = ctx->setup_exchanges + now_setup;
    return ctx->exchanges + now;
}

void acctapi_lease_drop(acctapi_ctx *ctx)
{
    if (ctx->lease) {
        if (ctx->store) {
            unsigned setup = 0;

            ctx->exchanges += acct_store_exchanges(ctx->store, &setup);
            ctx->setup_exchanges += setup;
        }
        /* Runs the transaction guard, then hands the connection back. */
        apr_pool_destroy(ctx->lease);
        ctx->lease = NULL;
        ctx->dbd = NULL;
        ctx->store = NULL;
    }
}

/*
 * The schema must be the one this build was made for.  Checked once per
 * process; a mismatch answers 503 and says why in the log.
 */
static acct_store_rc check_schema(request_rec *r, acct_store *st)
{
    int version = 0;
    acct_store_rc rc;

    if (schema_ok) {
        return ACCT_STORE_OK;
    }
    rc = acct_schema_version(st, r->pool, &version);
    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    acctapi_status_schema(version);
    if (version != acct_schema_latest()) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      ACCTLOGNO(00053) "database schema is at version %d, this module needs %d:"
                      " run 'acctapi-admin migrate'", version,
                      acct_schema_latest());
        return ACCT_STORE_UNAVAILABLE;
    }
    schema_ok = 1;
    return ACCT_STORE_OK;
}

/*
 * Pooled connections a lease hands back as lost before it gives up on
 * finding a live one.  The pool is LIFO: a connection handed back comes
 * next, reconnected, so one is the rule (several only when other threads
 * take it first); each costs a poll that does not wait.
 */
#define LEASE_LOST_TRIES 64

acct_store_rc acctapi_lease_open(request_rec *r, acctapi_ctx *ctx)
{
    lease_rec *l;
    acct_store_rc rc;
    apr_int64_t offset = 0;
    int lost = 0;

    if (ctx->store) {
        return ACCT_STORE_OK;
    }
    if (ctx->db_down) {
        /* Each try costs up to a timeout: one unavailable answer per
         * request is enough (the rate limit fails open to the next step). */
        return ACCT_STORE_UNAVAILABLE;
    }
    if (!breaker_admits(r, ctx)) {
        ctx->db_down = 1;
        return ACCT_STORE_UNAVAILABLE;
    }
lease:
    apr_pool_create(&ctx->lease, r->pool);
    ctx->dbd = dbd_open(ctx->lease, r->server);
    if (!ctx->dbd) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, ACCTLOGNO(00054) "no database connection "
                      "available (check DBDriver, DBDParams and DBDMax)");
        ctx->pool_refused = 1;
        acctapi_lease_note(ctx, ACCT_STORE_UNAVAILABLE);
        acctapi_status_lease_failed();
        acctapi_lease_drop(ctx);
        return ACCT_STORE_UNAVAILABLE;
    }
    l = apr_palloc(ctx->lease, sizeof(*l));
    l->s = r->server;
    l->dbd = ctx->dbd;
    acctapi_status_lease(1);
    ctx->lease_count++;
    /* A pre-cleanup: it must run before the lease pool destroys its
     * subpools.  With DBDPersist Off, mod_dbd makes the once-only
     * connection's pool inside the pool it is given, the lease's, and
     * ap_dbd_close destroys that pool: as a plain cleanup, the release came
     * after the subpool was gone and destroyed it a second time (answers
     * sent from freed memory, crashed children). */
    apr_pool_pre_cleanup_register(ctx->lease, l, lease_release);
    /* mod_dbd keeps a request waiting while every pooled connection is
     * leased: behind requests stuck on an unanswering database, until one
     * of them gives up.  Ask the breaker again, or each request queued
     * behind a timeout would wait a timeout of its own in turn. */
    if (!breaker_admits(r, ctx)) {
        acctapi_lease_drop(ctx);
        ctx->db_down = 1;
        return ACCT_STORE_UNAVAILABLE;
    }
    ctx->store = acct_store_wrap(ctx->lease, ctx->dbd->pool, ctx->dbd->driver,
                                 ctx->dbd->handle);
    if (!ctx->store) {
        acctapi_lease_drop(ctx);
        return ACCT_STORE_FAILED;
    }
    if (acct_store_lost(ctx->store) && lost++ < LEASE_LOST_TRIES) {
        /* The server ended it (a restart): its first statement would only
         * fail.  Handed back, it is reconnected at its next lease. */
        acctapi_lease_drop(ctx);
        goto lease;
    }
    acct_store_set_limits(ctx->store, ctx->db_timeout, writer_gate);
    acct_store_set_named_statements(ctx->store, acctapi_conf_named_statements(
        ap_get_module_config(r->server->module_config, &acctapi_module)));
    /* A pre-cleanup too, registered after the release, so it runs first:
     * no connection goes back to the pool with a transaction open. */
    acct_store_tx_guard(ctx->store, ctx->lease);
    rc = check_schema(r, ctx->store);
    if (rc == ACCT_STORE_OK && ctx->settings.test_clock) {
        rc = acct_clock_offset(ctx->store, r->pool, &offset);
    }
    /* Derived afresh on every lease: a retried lease must not add twice. */
    ctx->now = (apr_int64_t)apr_time_sec(r->request_time) + offset;
    if (rc != ACCT_STORE_OK) {
        ctx->db_gave_up |= acct_store_gave_up(ctx->store);
        if (ctx->db_gave_up && outage(ctx)) {
            /* PostgreSQL did not answer the lease's setup in time: trip
             * now, while the store still says which database failed (the
             * note after the drop could not tell). */
            breaker_trip(ctx);
        }
        acctapi_lease_drop(ctx);
    }
    return rc;
}

/*
 * A pooled pgsql connection whose server restarted fails its first statement
 * and only then reconnects: the request's first statement gets one more try
 * on a fresh lease before the request is answered 503.  `step` runs the
 * statement on ctx->store.
 */
acct_store_rc acctapi_on_lease(request_rec *r, acctapi_ctx *ctx,
                               acctapi_lease_step *step, void *baton)
{
    acct_store_rc rc = ACCT_STORE_OK;
    int attempt;

    for (attempt = 0; attempt < 2; attempt++) {
        rc = acctapi_lease_open(r, ctx);
        if (rc == ACCT_STORE_OK) {
            rc = step(r, ctx, baton);
            ctx->db_gave_up |= acct_store_gave_up(ctx->store);
        }
        if (rc != ACCT_STORE_UNAVAILABLE || ctx->pool_refused
            || ctx->db_gave_up) {
            /* A refusal of mod_dbd's pool is no dead connection: it has
             * just tried to connect, and would only say it again.  A
             * database that did not answer in time would only be waited
             * for again. */
            break;
        }
        acctapi_lease_drop(ctx);
    }
    acctapi_lease_note(ctx, rc);
    if (rc == ACCT_STORE_UNAVAILABLE) {
        acctapi_lease_drop(ctx);
    }
    return rc;
}

/*
 * One writers' gate for the life of the server, not one per configuration
 * generation: created once in the parent's process pool and found again in
 * httpd's retained data after each restart (the module's own statics go
 * with its DSO).  A gate per generation failed twice over: during a
 * graceful restart the old children and the new ones wrote behind
 * different gates, and APR's process-shared mutex counts a child as a user
 * only from its child_init, so a child forked just before a restart found
 * its generation's mutex already destroyed by the parent's configuration
 * cleanup, and every write it took answered 500 (the lock failing with
 * EINVAL).  A timed lock (APR picks a mechanism that can wait with a
 * bound), which no Mutex directive may turn into one that cannot.
 */
int acctapi_lease_create_gate(server_rec *s)
{
    static const char key[] = "acctapi-sqlite-writers-gate";
    apr_global_mutex_t **kept = ap_retained_data_get(key);
    apr_status_t rv;

    if (kept) {
        writer_gate = *kept;
        return OK;
    }
    rv = apr_global_mutex_create(&writer_gate, NULL, APR_LOCK_DEFAULT_TIMED,
                                 s->process->pool);
    if (rv != APR_SUCCESS) {
        writer_gate = NULL;
        ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s, ACCTLOGNO(00103)
                     "cannot create the lock SQLite writers queue on");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    kept = ap_retained_data_create(key, sizeof(*kept));
    *kept = writer_gate;
    return OK;
}

/* The shared stamp of the breakers (breaker_news), kept as the gate is. */
int acctapi_lease_create_breaker_news(server_rec *s)
{
    static const char key[] = "acctapi-breaker-news";
    breaker_news **kept = ap_retained_data_get(key);
    apr_shm_t *shm;
    apr_status_t rv;

    if (kept) {
        news = *kept;
        return OK;
    }
    /* Anonymous: no file to clean up, and every child inherits it. */
    rv = apr_shm_create(&shm, sizeof(*news), NULL, s->process->pool);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s, ACCTLOGNO(00185)
                     "cannot create the shared memory of the database breakers");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    news = apr_shm_baseaddr_get(shm);
    /* Now, not 0: a stamp is compared by signed difference with trips. */
    news->answered_at = breaker_now_ms();
    kept = ap_retained_data_create(key, sizeof(*kept));
    *kept = news;
    return OK;
}

int acctapi_lease_find_dbd(server_rec *s)
{
    /* mod_dbd registers these while loading; all modules are loaded now. */
    dbd_open = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_open);
    dbd_close = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_close);
    if (!dbd_open || !dbd_close) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, ACCTLOGNO(00057) "mod_acctapi needs mod_dbd:"
                     " add 'LoadModule dbd_module modules/mod_dbd.so' before "
                     "mod_acctapi and configure DBDriver and DBDParams");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    return OK;
}

void acctapi_lease_child_init(apr_pool_t *pchild, server_rec *s)
{
    apr_status_t rv;

    if (writer_gate
        && (rv = apr_global_mutex_child_init(&writer_gate, NULL, pchild))
           != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s, ACCTLOGNO(00104)
                     "cannot attach to the lock SQLite writers queue on: "
                     "they poll SQLite's own lock instead");
        writer_gate = NULL;
    }
}
