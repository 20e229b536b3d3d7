/*
 * mod_acctapi_ref: the ceilings of bench/run.  Four handlers that do the
 * least an API request can do, served by the same httpd instance, MPM,
 * worker counts and mod_dbd pool as mod_acctapi, so that every figure of
 * the benchmark can be read as a ratio to what this machine allows:
 *
 *   acctapi-ref-fixed   GET: writes a fixed JSON body (REF_FIXED_BODY,
 *                       78 bytes); no database.
 *   acctapi-ref-select  GET: hashes the bearer token (SHA-256, as
 *                       authentication does), takes a pooled connection
 *                       (ap_dbd_acquire) and runs one prepared SELECT of
 *                       the token by hash; writes a small JSON object.
 *   acctapi-ref-insert  POST: reads the request body, takes a pooled
 *                       connection and runs one prepared INSERT of a record
 *                       (autocommit); the domain id is the query string
 *                       (?domain=ID).
 *   acctapi-ref-write   POST, PostgreSQL only: the least an authenticated
 *                       record write can cost.  The token lookup of
 *                       acctapi-ref-select, then one prepared statement,
 *                       autocommitted, that makes the three changes every
 *                       record POST owes (the domain's count and serial,
 *                       the record, the event of the account's feed); two
 *                       round trips in all.  It checks no rule beyond the
 *                       record limit: a floor for any design, not a way to
 *                       write records (a statement's snapshot predates the
 *                       row lock it waits for, so checks of the domain's
 *                       other records cannot share it).  SQLite has no
 *                       data-modifying WITH, and its writes are serial: no
 *                       such ceiling there (501).
 *
 * Statements are prepared once per pooled connection and kept with it:
 * on PostgreSQL a named server-side statement (apr_dbd_prepare with a
 * label: parsed once per connection and planned from PostgreSQL's plan
 * cache, the best a pooled connection can do; the loss of such statements
 * when the server restarts, HACKING.md, trap 7, does not arise in a benchmark); on
 * SQLite sqlite3_prepare_v2 on the driver's native handle, as mod_acctapi
 * does (the apr_dbd sqlite3 driver prepares with the legacy
 * sqlite3_prepare, whose statements die for good at the first PRAGMA
 * foreign_keys of the connection, and serialises every statement of the
 * process behind one mutex).  SQLite connections get foreign keys
 * on and the module's answer to a busy database (retry every 20 ms for up
 * to 2 s), so both sides pay the same for the same work.
 *
 * Built by bench/run with apxs -c; not part of the project's build and
 * never installed.
 */
#include "httpd.h"
#include "http_config.h"
#include "http_log.h"
#include "http_protocol.h"

#include <apr_dbd.h>
#include <apr_optional.h>
#include <apr_strings.h>
#include "mod_dbd.h"

#include <openssl/sha.h>
#include <sqlite3.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

module AP_MODULE_DECLARE_DATA acctapi_ref_module;

#define REF_FIXED_BODY \
    "{\"data\": [{\"id\": \"ref\", \"status\": \"ok\"}], " \
    "\"page\": 1, \"pages\": 1, \"results\": 1}"

/* The largest body the insert handler reads (the API's records are small). */
#define REF_MAX_BODY 65536

/* mod_acctapi's patience with a busy SQLite database (acct_store.c). */
#define REF_BUSY_WAIT_US (2 * APR_USEC_PER_SEC)
#define REF_BUSY_STEP_US (20 * 1000)

#define REF_ERROR(reason) "{\"errors\": [{\"reason\": \"" reason "\"}]}"

/* One statement in both dialects; the label names it on the connection. */
typedef struct ref_sql {
    const char *label;
    const char *pgsql;   /* apr_dbd placeholders */
    const char *sqlite;  /* sqlite3 placeholders */
    int nargs;
} ref_sql;

static const ref_sql q_token = {
    "acctapi_ref_token",
    "SELECT id, user_id FROM tokens WHERE token_hash = %s AND revoked = 0",
    "SELECT id, user_id FROM tokens WHERE token_hash = ? AND revoked = 0",
    1
};

static const ref_sql q_insert = {
    "acctapi_ref_insert",
    "INSERT INTO domain_records (domain_id, type, name, target, created,"
    " updated) VALUES (CAST(%s AS BIGINT), 'A', %s, '192.0.2.1',"
    " CAST(%s AS BIGINT), CAST(%s AS BIGINT))",
    "INSERT INTO domain_records (domain_id, type, name, target, created,"
    " updated) VALUES (CAST(? AS BIGINT), 'A', ?, '192.0.2.1',"
    " CAST(? AS BIGINT), CAST(? AS BIGINT))",
    4
};

/* acctapi-ref-write's statement: arguments now, domain id, record name,
 * now, now, now. */
static const ref_sql q_write = {
    "acctapi_ref_write",
    "WITH d AS (UPDATE domains SET record_count = record_count + 1,"
    " serial = serial + 1, updated = CAST(%s AS BIGINT)"
    " WHERE id = CAST(%s AS BIGINT) AND record_count < 12000"
    " RETURNING id, account_id, domain),"
    " r AS (INSERT INTO domain_records (domain_id, type, name, target,"
    " created, updated) SELECT d.id, 'A', %s, '192.0.2.1',"
    " CAST(%s AS BIGINT), CAST(%s AS BIGINT) FROM d RETURNING id)"
    " INSERT INTO events (account_id, action, created, username,"
    " entity_type, entity_id, entity_label, entity_url, status)"
    " SELECT d.account_id, 'domain_record_create', CAST(%s AS BIGINT),"
    " 'ref', 'domain', d.id, d.domain, '/v4/domains/' || d.id,"
    " 'notification' FROM d, r",
    NULL,
    6
};

static APR_OPTIONAL_FN_TYPE(ap_dbd_acquire) *dbd_acquire;

/* ---- answers --------------------------------------------------------------- */

static int write_json(request_rec *r, int status, const char *body)
{
    r->status = status;
    ap_set_content_type(r, "application/json");
    apr_table_setn(r->headers_out, "Cache-Control",
                   "private, max-age=0, no-cache, no-store");
    ap_set_content_length(r, (apr_off_t)strlen(body));
    if (!r->header_only) {
        ap_rputs(body, r);
    }
    return OK;
}

static int fail(request_rec *r, int status, int rc, const char *what)
{
    ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, "acctapi_ref: %s (%d)",
                  what ? what : "?", rc);
    return write_json(r, status, REF_ERROR("ref failed"));
}

/* ---- statements kept with the pooled connection --------------------------- */

static int is_sqlite(const ap_dbd_t *dbd)
{
    return strcmp(apr_dbd_name(dbd->driver), "sqlite3") == 0;
}

static apr_status_t finalize_stmt(void *stmt)
{
    sqlite3_finalize(stmt);
    return APR_SUCCESS;
}

/*
 * The statement of `sql` on this connection (apr_dbd_prepared_t on pgsql,
 * sqlite3_stmt on sqlite3), prepared at its first use; NULL on failure.
 */
static void *prepared(request_rec *r, ap_dbd_t *dbd, const ref_sql *sql)
{
    void *stmt = NULL;
    int rc;

    apr_pool_userdata_get(&stmt, sql->label, dbd->pool);
    if (stmt) {
        return stmt;
    }
    if (is_sqlite(dbd)) {
        sqlite3 *db = apr_dbd_native_handle(dbd->driver, dbd->handle);
        sqlite3_stmt *st = NULL;

        rc = sqlite3_exec(db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL);
        if (rc == SQLITE_OK) {
            rc = sqlite3_prepare_v2(db, sql->sqlite, -1, &st, NULL);
        }
        if (rc != SQLITE_OK) {
            sqlite3_finalize(st);
            fail(r, HTTP_INTERNAL_SERVER_ERROR, rc, sqlite3_errmsg(db));
            return NULL;
        }
        /* Registered after the driver's close: runs before it. */
        apr_pool_cleanup_register(dbd->pool, st, finalize_stmt,
                                  apr_pool_cleanup_null);
        stmt = st;
    }
    else {
        apr_dbd_prepared_t *ps = NULL;

        rc = apr_dbd_prepare(dbd->driver, dbd->pool, dbd->handle, sql->pgsql,
                             sql->label, &ps);
        if (rc != 0 || !ps) {
            fail(r, HTTP_INTERNAL_SERVER_ERROR, rc,
                 apr_dbd_error(dbd->driver, dbd->handle, rc));
            return NULL;
        }
        stmt = ps;
    }
    apr_pool_userdata_setn(stmt, sql->label, NULL, dbd->pool);
    return stmt;
}

/*
 * Runs `sql` with `args`; the first two columns of its last row go to
 * col0/col1 when given.  0, or -1 once the failure is answered.
 */
static int run_sql(request_rec *r, const ref_sql *sql, const char **args,
                   const char **col0, const char **col1)
{
    ap_dbd_t *dbd = dbd_acquire(r);
    void *stmt = dbd ? prepared(r, dbd, sql) : NULL;
    int rc, i;

    if (!dbd) {
        fail(r, HTTP_SERVICE_UNAVAILABLE, 0, "no database connection");
        return -1;
    }
    if (!stmt) {
        return -1;
    }
    if (is_sqlite(dbd)) {
        sqlite3_stmt *st = stmt;
        apr_interval_time_t waited = 0;

        for (i = 0; i < sql->nargs; i++) {
            sqlite3_bind_text(st, i + 1, args[i], -1, SQLITE_TRANSIENT);
        }
        for (;;) {
            rc = sqlite3_step(st);
            if (rc == SQLITE_ROW) {
                if (col0 && col1) {
                    *col0 = apr_pstrdup(r->pool,
                                        (const char *)sqlite3_column_text(st, 0));
                    *col1 = apr_pstrdup(r->pool,
                                        (const char *)sqlite3_column_text(st, 1));
                }
                continue;
            }
            if (rc != SQLITE_BUSY || waited >= REF_BUSY_WAIT_US) {
                break;
            }
            sqlite3_reset(st);
            apr_sleep(REF_BUSY_STEP_US);
            waited += REF_BUSY_STEP_US;
        }
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        if (rc != SQLITE_DONE) {
            fail(r, HTTP_INTERNAL_SERVER_ERROR, rc,
                 sqlite3_errmsg(apr_dbd_native_handle(dbd->driver,
                                                      dbd->handle)));
            return -1;
        }
        return 0;
    }
    if (col0 && col1) {
        apr_dbd_results_t *res = NULL;
        apr_dbd_row_t *row = NULL;

        /* random = 1: every row at once (pgsql's async mode is slow). */
        rc = apr_dbd_pselect(dbd->driver, r->pool, dbd->handle, &res, stmt, 1,
                             sql->nargs, args);
        if (rc != 0 || !res) {
            fail(r, HTTP_INTERNAL_SERVER_ERROR, rc,
                 apr_dbd_error(dbd->driver, dbd->handle, rc));
            return -1;
        }
        while (apr_dbd_get_row(dbd->driver, r->pool, res, &row, -1) == 0) {
            *col0 = apr_pstrdup(r->pool, apr_dbd_get_entry(dbd->driver, row, 0));
            *col1 = apr_pstrdup(r->pool, apr_dbd_get_entry(dbd->driver, row, 1));
        }
        return 0;
    }
    i = 0;
    rc = apr_dbd_pquery(dbd->driver, r->pool, dbd->handle, &i, stmt,
                        sql->nargs, args);
    if (rc != 0 || i != 1) {
        fail(r, HTTP_INTERNAL_SERVER_ERROR, rc,
             apr_dbd_error(dbd->driver, dbd->handle, rc));
        return -1;
    }
    return 0;
}

/* ---- handlers -------------------------------------------------------------- */

/* Lowercase hex SHA-256 of the token of "Bearer <token>", or NULL. */
static const char *token_hash(request_rec *r)
{
    const char *h = apr_table_get(r->headers_in, "Authorization");
    unsigned char md[SHA256_DIGEST_LENGTH];
    char *hex;
    int i;

    if (!h || strncasecmp(h, "Bearer ", 7) != 0) {
        return NULL;
    }
    h += 7;
    SHA256((const unsigned char *)h, strlen(h), md);
    hex = apr_palloc(r->pool, 2 * SHA256_DIGEST_LENGTH + 1);
    for (i = 0; i < SHA256_DIGEST_LENGTH; i++) {
        hex[2 * i] = "0123456789abcdef"[md[i] >> 4];
        hex[2 * i + 1] = "0123456789abcdef"[md[i] & 15];
    }
    hex[2 * SHA256_DIGEST_LENGTH] = '\0';
    return hex;
}

static int ref_fixed(request_rec *r)
{
    if (ap_discard_request_body(r) != OK) {
        return OK;
    }
    return write_json(r, HTTP_OK, REF_FIXED_BODY);
}

/*
 * The bearer token looked up by its hash: its id and user's id in *token
 * and *user; 0, or -1 once the request is answered (401, or the failure).
 */
static int authenticate(request_rec *r, const char **token, const char **user)
{
    const char *args[1];

    *token = *user = NULL;
    args[0] = token_hash(r);
    if (!args[0]) {
        write_json(r, HTTP_UNAUTHORIZED, REF_ERROR("Invalid Token"));
        return -1;
    }
    if (run_sql(r, &q_token, args, token, user) != 0) {
        return -1;
    }
    if (!*token || !*user) {
        write_json(r, HTTP_UNAUTHORIZED, REF_ERROR("Invalid Token"));
        return -1;
    }
    return 0;
}

static int ref_select(request_rec *r)
{
    const char *token, *user;

    if (ap_discard_request_body(r) != OK || authenticate(r, &token, &user) != 0) {
        return OK;
    }
    return write_json(r, HTTP_OK, apr_psprintf(r->pool, "{\"token_id\": %s, "
                                               "\"user_id\": %s}", token,
                                               user));
}

/* Reads and drops the body (the API reads its JSON body too). */
static int read_body(request_rec *r)
{
    char buf[8192];
    apr_off_t total = 0;
    long n;

    if (ap_setup_client_block(r, REQUEST_CHUNKED_DECHUNK) != OK) {
        return -1;
    }
    if (!ap_should_client_block(r)) {
        return 0;
    }
    while ((n = ap_get_client_block(r, buf, sizeof(buf))) > 0) {
        total += n;
        if (total > REF_MAX_BODY) {
            return -1;
        }
    }
    return n < 0 ? -1 : 0;
}

/*
 * The domain id of a POST's "?domain=ID", its body read; NULL once the
 * request is answered.
 */
static const char *write_domain(request_rec *r)
{
    const char *domain;

    if (r->method_number != M_POST) {
        write_json(r, HTTP_METHOD_NOT_ALLOWED, REF_ERROR("POST only"));
        return NULL;
    }
    domain = r->args && strncmp(r->args, "domain=", 7) == 0 ? r->args + 7
                                                            : NULL;
    if (!domain || !*domain || strspn(domain, "0123456789") != strlen(domain)) {
        write_json(r, HTTP_BAD_REQUEST, REF_ERROR("?domain=ID"));
        return NULL;
    }
    if (read_body(r) != 0) {
        write_json(r, HTTP_BAD_REQUEST, REF_ERROR("unreadable body"));
        return NULL;
    }
    return domain;
}

/* A new name for every record, as the benchmark's API writes have. */
static const char *new_name(request_rec *r)
{
    return apr_psprintf(r->pool, "ref-%ld-%ld-%" APR_TIME_T_FMT,
                        (long)getpid(), (long)r->connection->id,
                        apr_time_now());
}

static int ref_insert(request_rec *r)
{
    const char *args[4], *domain = write_domain(r);

    if (!domain) {
        return OK;
    }
    args[0] = domain;
    args[1] = new_name(r);
    args[2] = args[3] = apr_psprintf(r->pool, "%" APR_TIME_T_FMT,
                                     apr_time_sec(r->request_time));
    if (run_sql(r, &q_insert, args, NULL, NULL) != 0) {
        return OK;
    }
    return write_json(r, HTTP_OK, "{\"inserted\": 1}");
}

static int ref_write(request_rec *r)
{
    const char *args[6], *domain = write_domain(r), *token, *user;
    ap_dbd_t *dbd;

    if (!domain) {
        return OK;
    }
    dbd = dbd_acquire(r);
    if (dbd && is_sqlite(dbd)) {
        return write_json(r, HTTP_NOT_IMPLEMENTED, REF_ERROR("PostgreSQL only"));
    }
    if (authenticate(r, &token, &user) != 0) {
        return OK;
    }
    args[0] = args[3] = args[4] = args[5] =
        apr_psprintf(r->pool, "%" APR_TIME_T_FMT, apr_time_sec(r->request_time));
    args[1] = domain;
    args[2] = new_name(r);
    if (run_sql(r, &q_write, args, NULL, NULL) != 0) {
        return OK;
    }
    return write_json(r, HTTP_OK, "{\"inserted\": 1}");
}

static int ref_handler(request_rec *r)
{
    if (!r->handler || strncmp(r->handler, "acctapi-ref-", 12) != 0) {
        return DECLINED;
    }
    if (strcmp(r->handler + 12, "fixed") == 0) {
        return ref_fixed(r);
    }
    if (strcmp(r->handler + 12, "select") == 0) {
        return ref_select(r);
    }
    if (strcmp(r->handler + 12, "insert") == 0) {
        return ref_insert(r);
    }
    if (strcmp(r->handler + 12, "write") == 0) {
        return ref_write(r);
    }
    return DECLINED;
}

static int ref_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                           apr_pool_t *ptemp, server_rec *s)
{
    dbd_acquire = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_acquire);
    if (!dbd_acquire) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s,
                     "mod_acctapi_ref needs mod_dbd");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    return OK;
}

static void ref_register_hooks(apr_pool_t *pool)
{
    ap_hook_post_config(ref_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_handler(ref_handler, NULL, NULL, APR_HOOK_MIDDLE);
}

AP_DECLARE_MODULE(acctapi_ref) = {
    STANDARD20_MODULE_STUFF,
    NULL, NULL, NULL, NULL, NULL,
    ref_register_hooks
};
