/*
 * mod_acctapi: the httpd glue of the Account Services API.
 *
 * Request flow: the access checker matches the route, authenticates the
 * bearer token and checks the route's scope (answering errors itself, as
 * JSON); the handler reads the body, runs the core handler (inside a
 * transaction for writes) and writes the JSON answer.  httpd's own errors in
 * the API's location are rewritten to the same JSON envelope by an error
 * filter.  Everything below the glue is in the core (acct_*, api_*).
 */
#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "ap_expr.h"

#include <apr_dbd.h>
#include "mod_dbd.h"

#include <apr_optional.h>
#include <apr_strings.h>

#include "acctapi_config.h"
#include "acctapi_io.h"
#include "acct_auth.h"
#include "acct_clock.h"
#include "acct_json.h"
#include "acct_log.h"
#include "acct_migrate.h"
#include "acct_route.h"
#include "api_catalog.h"

module AP_MODULE_DECLARE_DATA acctapi_module;

static APR_OPTIONAL_FN_TYPE(ap_dbd_open) *dbd_open;
static APR_OPTIONAL_FN_TYPE(ap_dbd_close) *dbd_close;

/* Where core log lines go; the main server of the current generation. */
static server_rec *log_server;

/* The schema was found at this build's version (per process; 0 until then). */
static volatile apr_uint32_t schema_ok;

typedef struct acctapi_ctx {
    acct_match match;
    acct_principal who;
    int authenticated;
    acct_settings settings;
    apr_off_t max_body;
    apr_pool_t *lease;          /* owns the database connection, if any */
    ap_dbd_t *dbd;
    acct_store *store;
    apr_int64_t now;
} acctapi_ctx;

/* ---- logging ------------------------------------------------------------ */

static void log_sink(acct_log_level level, const char *file, int line,
                     const char *msg, void *baton)
{
    if (log_server) {
        ap_log_error_(file, line, APLOG_MODULE_INDEX, (int)level, 0,
                      log_server, "%s", msg);
    }
}

/* ---- the database connection ------------------------------------------- */

typedef struct lease_rec {
    server_rec *s;
    ap_dbd_t *dbd;
} lease_rec;

static apr_status_t lease_release(void *data)
{
    lease_rec *l = data;

    dbd_close(l->s, l->dbd);
    return APR_SUCCESS;
}

static void lease_drop(acctapi_ctx *ctx)
{
    if (ctx->lease) {
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
    if (version != acct_schema_latest()) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r,
                      "database schema is at version %d, this module needs %d:"
                      " run 'acctapi-admin migrate'", version,
                      acct_schema_latest());
        return ACCT_STORE_UNAVAILABLE;
    }
    schema_ok = 1;
    return ACCT_STORE_OK;
}

static acct_store_rc lease_open(request_rec *r, acctapi_ctx *ctx)
{
    lease_rec *l;
    acct_store_rc rc;
    apr_int64_t offset = 0;

    if (ctx->store) {
        return ACCT_STORE_OK;
    }
    apr_pool_create(&ctx->lease, r->pool);
    ctx->dbd = dbd_open(ctx->lease, r->server);
    if (!ctx->dbd) {
        ap_log_rerror(APLOG_MARK, APLOG_ERR, 0, r, "no database connection "
                      "available (check DBDriver, DBDParams and DBDMax)");
        lease_drop(ctx);
        return ACCT_STORE_UNAVAILABLE;
    }
    l = apr_palloc(ctx->lease, sizeof(*l));
    l->s = r->server;
    l->dbd = ctx->dbd;
    apr_pool_cleanup_register(ctx->lease, l, lease_release,
                              apr_pool_cleanup_null);
    ctx->store = acct_store_wrap(ctx->lease, ctx->dbd->pool, ctx->dbd->driver,
                                 ctx->dbd->handle);
    if (!ctx->store) {
        lease_drop(ctx);
        return ACCT_STORE_FAILED;
    }
    /* Registered after the release, so it runs first: no connection goes
     * back to the pool with a transaction open. */
    acct_store_tx_guard(ctx->store, ctx->lease);
    rc = check_schema(r, ctx->store);
    if (rc == ACCT_STORE_OK && ctx->settings.test_clock) {
        rc = acct_clock_offset(ctx->store, r->pool, &offset);
    }
    /* Derived afresh on every lease: a retried lease must not add twice. */
    ctx->now = (apr_int64_t)apr_time_sec(r->request_time) + offset;
    if (rc != ACCT_STORE_OK) {
        lease_drop(ctx);
    }
    return rc;
}

/* ---- request context and common headers --------------------------------- */

/* Is this request for our handler?  r->handler is not set yet in the access
 * phase, so evaluate the location's SetHandler the way core does. */
static int request_is_ours(request_rec *r)
{
    core_dir_config *core = ap_get_core_module_config(r->per_dir_config);
    const char *err = NULL, *handler;

    if (!core || !core->expr_handler) {
        return 0;
    }
    handler = ap_expr_str_exec(r, core->expr_handler, &err);
    return !err && handler && strcmp(handler, ACCTAPI_HANDLER) == 0;
}

static void set_scope_headers(request_rec *r, const char *token_scopes,
                              const char *route_scope)
{
    apr_table_setn(r->err_headers_out, "X-OAuth-Scopes", token_scopes);
    apr_table_setn(r->err_headers_out, "X-Accepted-OAuth-Scopes", route_scope);
}

static acctapi_ctx *ctx_create(request_rec *r)
{
    acctapi_ctx *ctx = apr_pcalloc(r->pool, sizeof(*ctx));
    acctapi_dir_conf *conf = ap_get_module_config(r->per_dir_config,
                                                  &acctapi_module);

    acctapi_conf_settings(conf, &ctx->settings, &ctx->max_body);
    ctx->now = (apr_int64_t)apr_time_sec(r->request_time);
    ap_set_module_config(r->request_config, &acctapi_module, ctx);
    /* err_headers_out: these survive error responses too. */
    apr_table_setn(r->err_headers_out, "X-Spec-Version", ACCT_SPEC_VERSION);
    apr_table_setn(r->err_headers_out, "Vary", "Authorization, X-Filter");
    apr_table_setn(r->err_headers_out, "Cache-Control",
                   "private, max-age=0, no-cache, no-store");
    set_scope_headers(r, "unknown", "*");
    return ctx;
}

/*
 * The route path: what follows the version segment ("v4", or "v4beta" for
 * clients of the beta base URL), still percent-encoded, without the query.
 */
static const char *api_path(request_rec *r)
{
    const char *raw = r->parsed_uri.path ? r->parsed_uri.path : r->uri;
    const char *p = raw;

    while ((p = strstr(p, "/v4")) != NULL) {
        const char *after = p + 3;

        if (strncmp(after, "beta", 4) == 0) {
            after += 4;
        }
        if (*after == '/' || *after == '\0') {
            return after;
        }
        p = after;
    }
    return NULL;
}

/* ---- access phase -------------------------------------------------------- */

static int answer(request_rec *r, int status, const char *reason)
{
    if (status == HTTP_REQUEST_ENTITY_TOO_LARGE) {
        /* The unread body would otherwise be drained for keep-alive. */
        r->connection->keepalive = AP_CONN_CLOSE;
    }
    acctapi_write_error(r, status, reason, NULL);
    return DONE;
}

static int answer_store_error(request_rec *r, acct_store_rc rc)
{
    return rc == ACCT_STORE_UNAVAILABLE
           ? answer(r, HTTP_SERVICE_UNAVAILABLE, ACCT_R_UNAVAILABLE)
           : answer(r, HTTP_INTERNAL_SERVER_ERROR, ACCT_R_INTERNAL);
}

static int authenticate(request_rec *r, acctapi_ctx *ctx)
{
    const char *header = apr_table_get(r->headers_in, "Authorization");
    acct_store_rc src = ACCT_STORE_OK;
    acct_auth_rc arc = ACCT_AUTH_STORE;
    int attempt;

    /*
     * A pooled pgsql connection whose server restarted fails its first
     * statement and only then reconnects: give the lookup, our first
     * statement, one more try on a fresh lease before answering 503.
     */
    for (attempt = 0; attempt < 2; attempt++) {
        src = lease_open(r, ctx);
        if (src == ACCT_STORE_OK) {
            arc = acct_authenticate(ctx->store, r->pool, header, ctx->now,
                                    &ctx->who, &src);
        }
        if (src != ACCT_STORE_UNAVAILABLE) {
            break;
        }
        lease_drop(ctx);
    }
    if (src != ACCT_STORE_OK) {
        return answer_store_error(r, src);
    }
    if (arc != ACCT_AUTH_OK) {
        return answer(r, HTTP_UNAUTHORIZED, ACCT_R_INVALID_TOKEN);
    }
    ctx->authenticated = 1;
    r->user = apr_pstrdup(r->pool, ctx->who.username);
    apr_table_setn(r->err_headers_out, "X-OAuth-Scopes", ctx->who.scopes_text);
    return OK;
}

/* Route, authenticate, authorise.  OK, or DONE once an error is answered. */
static int prepare_request(request_rec *r)
{
    acctapi_ctx *ctx = ctx_create(r);
    const char *path = api_path(r), *reason = NULL;
    const acct_route *route;
    acct_match_rc mrc;
    int status;

    mrc = path ? acct_route_match(acct_routes, r->pool, r->method, path,
                                  &ctx->match)
               : ACCT_MATCH_NO_PATH;
    if (mrc == ACCT_MATCH_NO_PATH) {
        return answer(r, HTTP_NOT_FOUND, ACCT_R_NOT_FOUND);
    }
    if (mrc == ACCT_MATCH_BAD_METHOD) {
        apr_table_setn(r->err_headers_out, "Allow", ctx->match.allow);
        return answer(r, HTTP_METHOD_NOT_ALLOWED, ACCT_R_METHOD);
    }
    route = ctx->match.route;
    set_scope_headers(r, "unknown", acct_route_scope(r->pool, route));
    if (route->flags & ACCT_ROUTE_CACHEABLE) {
        apr_table_setn(r->err_headers_out, "Cache-Control",
                       "private, max-age=900");
    }
    if (route->flags & ACCT_ROUTE_PUBLIC) {
        return OK;
    }
    status = authenticate(r, ctx);
    if (status != OK) {
        return status;
    }
    status = acct_route_permits(route, &ctx->who, &reason);
    if (status) {
        return answer(r, status, reason);
    }
    return OK;
}

static int acctapi_access_checker(request_rec *r)
{
    if (!request_is_ours(r)) {
        return DECLINED;
    }
    return prepare_request(r);
}

/* ---- handler -------------------------------------------------------------- */

static acct_store_rc open_store_for_core(acct_req *req, acct_store **out)
{
    request_rec *r = req->host;
    acctapi_ctx *ctx = ap_get_module_config(r->request_config,
                                            &acctapi_module);
    acct_store_rc rc = lease_open(r, ctx);

    if (rc == ACCT_STORE_OK) {
        *out = ctx->store;
        req->now = ctx->now;
    }
    return rc;
}

/* Reads and decodes the JSON body; OK or DONE once an error is answered. */
static int read_json_body(request_rec *r, acctapi_ctx *ctx, json_t **body)
{
    char *buf = NULL;
    apr_size_t len = 0;
    int status;

    if (!acctapi_body_is_json(r)) {
        return answer(r, HTTP_UNSUPPORTED_MEDIA_TYPE, ACCT_R_MEDIA_TYPE);
    }
    status = acctapi_read_body(r, ctx->max_body, &buf, &len);
    if (status == HTTP_REQUEST_ENTITY_TOO_LARGE) {
        return answer(r, status, ACCT_R_TOO_LARGE);
    }
    if (status != OK) {
        return answer(r, status, acct_reason_for_status(status));
    }
    *body = acct_json_decode_body(r->pool, buf, len);
    if (!*body || !json_is_object(*body)) {
        return answer(r, HTTP_BAD_REQUEST, ACCT_R_INVALID_JSON);
    }
    return OK;
}

static apr_table_t *decode_query(request_rec *r)
{
    apr_table_t *t = apr_table_make(r->pool, 4);
    char *args, *pair, *state = NULL;

    if (!r->args) {
        return t;
    }
    args = apr_pstrdup(r->pool, r->args);
    for (pair = apr_strtok(args, "&", &state); pair;
         pair = apr_strtok(NULL, "&", &state)) {
        char *eq = strchr(pair, '='), *key, *val;

        if (eq) {
            *eq = '\0';
        }
        /* '+' means space in query strings. */
        for (key = pair; *key; key++) {
            if (*key == '+') {
                *key = ' ';
            }
        }
        for (val = eq ? eq + 1 : NULL; val && *val; val++) {
            if (*val == '+') {
                *val = ' ';
            }
        }
        key = acct_percent_decode(r->pool, pair, strlen(pair));
        val = eq ? acct_percent_decode(r->pool, eq + 1, strlen(eq + 1))
                 : apr_pstrdup(r->pool, "");
        if (key && val && !apr_table_get(t, key)) {
            apr_table_setn(t, key, val);
        }
    }
    return t;
}

static int acctapi_handler(request_rec *r)
{
    acctapi_ctx *ctx;
    const acct_route *route;
    json_t *body = NULL;
    acct_req req;
    acct_resp resp;
    acct_store_rc rc;
    int i, writes;

    if (!r->handler || strcmp(r->handler, ACCTAPI_HANDLER) != 0) {
        return DECLINED;
    }
    ctx = ap_get_module_config(r->request_config, &acctapi_module);
    if (!ctx) {
        /* The access phase was skipped (a subrequest with equal config). */
        if (prepare_request(r) != OK) {
            return OK;
        }
        ctx = ap_get_module_config(r->request_config, &acctapi_module);
    }
    route = ctx->match.route;
    if (route->flags & ACCT_ROUTE_BODY) {
        if (read_json_body(r, ctx, &body) != OK) {
            return OK;
        }
    }
    else if (ap_discard_request_body(r) != OK) {
        return OK;
    }

    memset(&req, 0, sizeof(req));
    req.pool = r->pool;
    req.route = route;
    for (i = 0; i < ACCT_MAX_PATH_PARAMS; i++) {
        req.params[i] = ctx->match.params[i];
    }
    req.query = decode_query(r);
    req.filter = apr_table_get(r->headers_in, "X-Filter");
    req.body = body;
    req.remote_addr = r->useragent_ip;
    req.who = ctx->authenticated ? &ctx->who : NULL;
    req.store = ctx->store;
    req.open_store = open_store_for_core;
    req.host = r;
    req.settings = &ctx->settings;
    req.now = ctx->now;
    acct_resp_init(&resp, r->pool);

    /* Every write runs in one transaction; reads run in autocommit. */
    writes = route->method != ACCT_METHOD_GET;
    if (writes) {
        rc = acct_req_store(&req, &req.store);
        if (rc == ACCT_STORE_OK) {
            rc = acct_store_begin(req.store, r->pool);
        }
        if (rc != ACCT_STORE_OK) {
            answer_store_error(r, rc);
            return OK;
        }
    }
    route->handler(&req, &resp);
    if (writes) {
        if (!acct_resp_commits(&resp)) {
            acct_store_rollback(req.store, r->pool);
        }
        else if ((rc = acct_store_commit(req.store, r->pool)) != ACCT_STORE_OK) {
            acct_resp_init(&resp, r->pool);
            acct_resp_store_error(&resp, r->pool, rc);
        }
    }
    if (resp.status >= 500) {
        /* The core has logged the cause; this names the request. */
        ap_log_rerror(APLOG_MARK, resp.status == HTTP_SERVICE_UNAVAILABLE
                      ? APLOG_WARNING : APLOG_ERR, 0, r,
                      "answering %d to %s %s", resp.status, r->method, r->uri);
    }
    apr_table_overlap(r->err_headers_out, resp.headers, APR_OVERLAP_TABLES_SET);
    acctapi_write_json(r, resp.status, acct_resp_document(&resp, r->pool));
    return OK;
}

/* ---- httpd's own errors in our location ---------------------------------- */

/*
 * Some requests fail inside httpd before its location walk (an encoded NUL
 * in the path, say): their configuration is still the server's defaults.
 * Walk the locations for them, so that errors under the API's location are
 * JSON too.
 */
static int failed_request_is_ours(request_rec *r)
{
    if (r->per_dir_config != r->server->lookup_defaults || !r->uri
        || r->uri[0] != '/') {
        return 0;
    }
    return ap_location_walk(r) == OK && request_is_ours(r);
}

static void acctapi_insert_error_filter(request_rec *r)
{
    if (ap_get_module_config(r->request_config, &acctapi_module)
        || request_is_ours(r) || failed_request_is_ours(r)) {
        ap_add_output_filter(ACCTAPI_ERROR_FILTER, NULL, r, r->connection);
    }
}

/* ---- startup -------------------------------------------------------------- */

static int acctapi_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                               apr_pool_t *ptemp, server_rec *s)
{
    /* mod_dbd registers these while loading; all modules are loaded now. */
    dbd_open = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_open);
    dbd_close = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_close);
    if (!dbd_open || !dbd_close) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s, "mod_acctapi needs mod_dbd:"
                     " add 'LoadModule dbd_module modules/mod_dbd.so' before "
                     "mod_acctapi and configure DBDriver and DBDParams");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    log_server = s;
    acct_log_set_sink(log_sink, NULL);
    /* jansson seeds its hash function lazily; do it before any thread runs. */
    json_object_seed(0);
    return OK;
}

static void acctapi_child_init(apr_pool_t *pchild, server_rec *s)
{
    log_server = s;
    if (acct_catalog_init(pchild) != 0) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s,
                     "cannot create the catalogue cache lock");
    }
}

static void acctapi_register_hooks(apr_pool_t *pool)
{
    /* Finds mod_dbd (refusing to start without it) and wires logging. */
    ap_hook_post_config(acctapi_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    /* Per-process caches and their locks. */
    ap_hook_child_init(acctapi_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    /* Routing, bearer authentication and scopes, before any handler runs. */
    ap_hook_access_checker(acctapi_access_checker, NULL, NULL, APR_HOOK_MIDDLE);
    /* The API itself. */
    ap_hook_handler(acctapi_handler, NULL, NULL, APR_HOOK_MIDDLE);
    /* JSON instead of httpd's HTML for errors httpd raises in our location. */
    ap_hook_insert_error_filter(acctapi_insert_error_filter, NULL, NULL,
                                APR_HOOK_MIDDLE);
    ap_register_output_filter(ACCTAPI_ERROR_FILTER, acctapi_error_filter, NULL,
                              AP_FTYPE_RESOURCE);
}

AP_DECLARE_MODULE(acctapi) = {
    STANDARD20_MODULE_STUFF,
    acctapi_create_dir_conf,
    acctapi_merge_dir_conf,
    NULL,
    NULL,
    acctapi_cmds,
    acctapi_register_hooks
};
