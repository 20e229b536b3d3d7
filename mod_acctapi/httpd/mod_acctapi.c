/*
 * mod_acctapi: the httpd glue of the Account Services API.
 *
 * Request flow: the access checker matches the route, authenticates the
 * bearer token and checks the route's scope (answering errors itself, as
 * JSON, and OPTIONS - the CORS preflight - without authentication); the
 * handler reads the body, runs the core handler (inside a transaction for
 * writes) and writes the JSON answer.  httpd's own errors in the API's
 * location are rewritten to the same JSON envelope by an error filter.  Every
 * answer carries the API's headers, CORS included.  Everything below the
 * glue is in the core (acct_*, api_*).
 */
#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "ap_expr.h"

#include <apr_shm.h>
#include <apr_strings.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "acctapi_config.h"
#include "acctapi_headers.h"
#include "acctapi_io.h"
#include "acctapi_lease.h"
#include "acctapi_request.h"
#include "acctapi_status.h"
#include "acct_auth.h"
#include "acct_crypto.h"
#include "acct_publish.h"
#include "acct_publish_reload.h"
#include "acct_rate_counters.h"
#include "acct_json.h"
#include "acct_log.h"
#include "acct_router.h"
#include "api_catalog.h"
#include "api_handlers.h"

module AP_MODULE_DECLARE_DATA acctapi_module;

/* Where core log lines go; the main server of the current generation. */
static server_rec *log_server;


/* ---- logging ------------------------------------------------------------ */

static void log_sink(acct_log_level level, const char *file, int line,
                     const char *msg, void *baton)
{
    if (log_server) {
        ap_log_error_(file, line, APLOG_MODULE_INDEX, (int)level, 0,
                      log_server, "%s", msg);
    }
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
    acctapi_ctx *ctx = acctapi_ctx_attach(r);

    /* err_headers_out: these survive error responses too. */
    apr_table_setn(r->err_headers_out, "X-Spec-Version", ACCT_SPEC_VERSION);
    apr_table_setn(r->err_headers_out, "Vary", "Authorization, X-Filter");
    apr_table_setn(r->err_headers_out, "Cache-Control",
                   "private, max-age=0, no-cache, no-store");
    set_scope_headers(r, "unknown", "*");
    acctapi_set_cors(r->err_headers_out);
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

/* ---- rate limits ----------------------------------------------------------- */

/*
 * The counters of AcctapiRateLimitScope node: this server's shared memory,
 * made anew for each configuration generation in post_config (NULL before,
 * and again once the generation's pool goes), written only under a stripe
 * of rate_locks.  Groups of 16 slots, each slot one bucket's window; a
 * bucket whose group is full of current windows is counted in the database
 * instead.
 */
#define RATE_TABLE_SLOTS 16384
static acct_rate_table *rate_table;

/*
 * The locks of the counters, for the life of the server: created once in
 * the parent's process pool and found again in httpd's retained data after
 * each restart (see create_rate_locks); NULL until post_config, and in a
 * child that could not attach to them (it counts in the database).  Set in
 * the parent before the children are forked and in child_init before any
 * thread serves, read only after.
 */
static acct_rate_locks *rate_locks;

typedef struct rate_hit {
    const char *bucket;
    apr_int64_t limit;
    acct_rate_state state;
} rate_hit;

/* Counts in this server's table, unless the scope is the database. */
static int rate_count_here(acctapi_ctx *ctx, rate_hit *h)
{
    return !ctx->rate_in_database && rate_table && rate_locks
           && acct_rate_table_hit(rate_table, rate_locks, h->bucket, h->limit,
                                  ctx->now, &h->state) == 0;
}

static acct_store_rc rate_step(request_rec *r, acctapi_ctx *ctx, void *baton)
{
    rate_hit *h = baton;

    if (rate_count_here(ctx, h)) {
        return ACCT_STORE_OK;
    }
    return acct_rate_counters_hit(ctx->store, r->pool, h->bucket, h->limit,
                                  ctx->now, &h->state);
}

/*
 * Counts the request against its budget (AcctapiRateLimit) and sets the
 * X-RateLimit-* headers; OK, or DONE after answering 429 (with Retry-After)
 * or the store's error.  The budget is the user's, shared by every token of
 * theirs (minting tokens buys nothing); `user_id` 0 counts the client
 * address: public routes, and requests whose token was refused (guessing
 * tokens costs too).
 */
static int rate_limit(request_rec *r, acctapi_ctx *ctx, apr_int64_t user_id)
{
    const acct_route *route = ctx->match.route;
    int is_list = (route->flags & ACCT_ROUTE_LIST)
                  && route->method == ACCT_METHOD_GET;
    acct_store_rc rc = ACCT_STORE_OK;
    rate_hit h;

    memset(&h, 0, sizeof(h));
    h.limit = is_list ? ctx->settings.rate_lists : ctx->settings.rate_others;
    if (h.limit <= 0) {
        return OK;
    }
    h.bucket = acct_rate_bucket(r->pool, user_id, r->useragent_ip, is_list);
    /* In the table no connection is needed, except to read the test clock
     * (the lease does) before the first one of the request. */
    if ((ctx->settings.test_clock && !ctx->store) || !rate_count_here(ctx, &h)) {
        rc = acctapi_on_lease(r, ctx, rate_step, &h);
    }
    if (rc != ACCT_STORE_OK) {
        /*
         * Fail open: without its database the service still answers what
         * it can (the catalogues from a child's cache); the request that
         * needs the database reports the outage itself.
         */
        ap_log_rerror(APLOG_MARK, APLOG_INFO, 0, r, ACCTLOGNO(00055) "rate limit not applied:"
                      " the database is unavailable");
        return OK;
    }
    apr_table_setn(r->err_headers_out, "X-RateLimit-Limit",
                   apr_psprintf(r->pool, "%" APR_INT64_T_FMT, h.state.limit));
    apr_table_setn(r->err_headers_out, "X-RateLimit-Remaining",
                   apr_psprintf(r->pool, "%" APR_INT64_T_FMT, h.state.remaining));
    apr_table_setn(r->err_headers_out, "X-RateLimit-Reset",
                   apr_psprintf(r->pool, "%" APR_INT64_T_FMT, h.state.reset));
    if (h.state.exceeded) {
        apr_table_setn(r->err_headers_out, "Retry-After",
                       apr_psprintf(r->pool, "%" APR_INT64_T_FMT,
                                    h.state.retry_after));
        return answer(r, HTTP_TOO_MANY_REQUESTS, ACCT_R_RATE);
    }
    return OK;
}

/* ---- authentication ---------------------------------------------------------- */

static void fill_req(request_rec *r, acctapi_ctx *ctx, acct_req *req);

typedef struct auth_lookup {
    const char *header;
    acct_auth_rc rc;
} auth_lookup;

/* acct_auth_also's builder: the route's read_with_auth, for the request
 * (`baton`) as it stands before authentication. */
static int build_route_read(void *baton, const acct_token_ref *token,
                            acct_store_read *read)
{
    acct_req *req = baton;

    return req->route->read_with_auth(req, token, read);
}

static acct_store_rc auth_step(request_rec *r, acctapi_ctx *ctx, void *baton)
{
    auth_lookup *a = baton;
    const acct_route *route = ctx->match.route;
    unsigned flags = (route->flags & ACCT_ROUTE_PROFILE_ROW)
                     ? ACCT_AUTH_PROFILE_ROW : 0;
    acct_store_rc src = ACCT_STORE_OK;
    acct_auth_also also;
    acct_req req;

    ctx->auth_read = NULL;
    if (!route->read_with_auth) {
        a->rc = acct_authenticate_with(ctx->store, r->pool, a->header,
                                       ctx->now, &ctx->who, &src, flags,
                                       NULL);
        return src;
    }
    fill_req(r, ctx, &req);
    also.build = build_route_read;
    also.baton = &req;
    a->rc = acct_authenticate_with(ctx->store, r->pool, a->header, ctx->now,
                                   &ctx->who, &src, flags, &also);
    if (a->rc == ACCT_AUTH_OK && also.read.rc == ACCT_STORE_OK) {
        /* A failed read is logged; the handler reads again, and answers. */
        ctx->auth_read = also.read.rows;
    }
    return src;
}

/* The bearer token, then its budget.  OK, or DONE once an error is answered. */
static int authenticate(request_rec *r, acctapi_ctx *ctx)
{
    auth_lookup a;
    acct_store_rc src;

    a.header = apr_table_get(r->headers_in, "Authorization");
    a.rc = ACCT_AUTH_STORE;
    src = acctapi_on_lease(r, ctx, auth_step, &a);
    if (src != ACCT_STORE_OK) {
        return answer_store_error(r, src);
    }
    if (a.rc != ACCT_AUTH_OK) {
        return rate_limit(r, ctx, 0) == OK
               ? answer(r, HTTP_UNAUTHORIZED, ACCT_R_INVALID_TOKEN) : DONE;
    }
    ctx->authenticated = 1;
    r->user = apr_pstrdup(r->pool, ctx->who.username);
    apr_table_setn(r->err_headers_out, "X-OAuth-Scopes", ctx->who.scopes_text);
    return rate_limit(r, ctx, ctx->who.user_id);
}

/*
 * OPTIONS, answered here without authentication: browsers send the CORS
 * preflight without the Authorization header.  A preflight (it names an
 * Access-Control-Request-Method) succeeds on every path, so that the actual
 * request's answer, a 404 or 405 included, reaches the script as JSON instead
 * of an opaque network error.  A plain OPTIONS describes a path: its Allow,
 * or 404 when there is no such path.
 */
static int answer_options(request_rec *r, const acctapi_ctx *ctx,
                          acct_match_rc mrc)
{
    int preflight = apr_table_get(r->headers_in,
                                  "Access-Control-Request-Method") != NULL;

    if (mrc == ACCT_MATCH_OPTIONS) {
        apr_table_setn(r->err_headers_out, "Allow", ctx->match.allow);
    }
    else if (!preflight) {
        return answer(r, HTTP_NOT_FOUND, ACCT_R_NOT_FOUND);
    }
    acctapi_set_preflight(r->err_headers_out);
    /* docs/conventions.md: success is 200 with a JSON body; nothing to say but {}. */
    acctapi_write_json(r, HTTP_OK, acct_json_own(r->pool, json_object()));
    return DONE;
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
    if (r->method_number == M_OPTIONS) {
        return answer_options(r, ctx, mrc);
    }
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
    if ((route->flags & ACCT_ROUTE_PUBLIC)
        || ((route->flags & ACCT_ROUTE_TOKEN_OPTIONAL)
            && !apr_table_get(r->headers_in, "Authorization"))) {
        return rate_limit(r, ctx, 0);
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

/*
 * The API's URLs name no files.  Once the location says a request is ours,
 * its filename becomes "acctapi:<uri>" and map_to_storage skips the
 * directory walk (no stat() of paths under DocumentRoot and no .htaccess
 * look-ups per request), as mod_proxy does for its URLs.  So <Directory>
 * and <Files> sections never apply to the API; <Location> sections do
 * (httpd walks them again after map_to_storage).
 */
#define ACCTAPI_FILENAME_PREFIX ACCTAPI_HANDLER ":"

static int acctapi_translate_name(request_rec *r)
{
    if (r->proxyreq || !request_is_ours(r)) {
        return DECLINED;
    }
    r->filename = apr_pstrcat(r->pool, ACCTAPI_FILENAME_PREFIX, r->uri, NULL);
    return OK;
}

static int acctapi_map_to_storage(request_rec *r)
{
    if (r->filename && strncmp(r->filename, ACCTAPI_FILENAME_PREFIX,
                               sizeof(ACCTAPI_FILENAME_PREFIX) - 1) == 0) {
        return OK;
    }
    return DECLINED;
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
    acctapi_ctx *ctx = acctapi_ctx_get(r);
    acct_store_rc rc = acctapi_lease_open(r, ctx);

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
    const char *reason = NULL;
    apr_size_t len = 0;
    int status;

    if (!acctapi_body_is_json(r)) {
        return answer(r, HTTP_UNSUPPORTED_MEDIA_TYPE, ACCT_R_MEDIA_TYPE);
    }
    status = acctapi_read_body(r, ctx->max_body, &buf, &len, &reason);
    if (status == HTTP_REQUEST_ENTITY_TOO_LARGE) {
        return answer(r, status, ACCT_R_TOO_LARGE);
    }
    if (status != OK) {
        /* A JSON body limit's reason, or the status's own. */
        return answer(r, status, reason ? reason
                                        : acct_reason_for_status(status));
    }
    *body = acct_json_decode_body(r->pool, buf, len, &reason);
    if (!*body || !json_is_object(*body)) {
        /* "Invalid JSON", or the text of the body limit it went past. */
        return answer(r, HTTP_BAD_REQUEST, *body ? ACCT_R_INVALID_JSON : reason);
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

/* The core's request as the request stands: without `who`, its body or
 * the rows read with the token (the handler's to add). */
static void fill_req(request_rec *r, acctapi_ctx *ctx, acct_req *req)
{
    int i;

    if (!ctx->query) {
        ctx->query = decode_query(r);
    }
    memset(req, 0, sizeof(*req));
    req->pool = r->pool;
    req->route = ctx->match.route;
    for (i = 0; i < ACCT_MAX_PATH_PARAMS; i++) {
        req->params[i] = ctx->match.params[i];
    }
    req->query = ctx->query;
    req->filter = apr_table_get(r->headers_in, "X-Filter");
    req->remote_addr = r->useragent_ip;
    req->store = ctx->store;
    req->open_store = open_store_for_core;
    req->host = r;
    req->settings = &ctx->settings;
    req->now = ctx->now;
}

static int acctapi_handler(request_rec *r)
{
    acctapi_ctx *ctx;
    const acct_route *route;
    json_t *body = NULL;
    acct_req req;
    acct_resp resp;
    acct_store_rc rc;
    int writes;

    if (!r->handler || strcmp(r->handler, ACCTAPI_HANDLER) != 0) {
        return DECLINED;
    }
    ctx = acctapi_ctx_get(r);
    if (!ctx) {
        /* The access phase was skipped (a subrequest with equal config). */
        if (prepare_request(r) != OK) {
            return OK;
        }
        ctx = acctapi_ctx_get(r);
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

    fill_req(r, ctx, &req);
    req.body = body;
    req.who = ctx->authenticated ? &ctx->who : NULL;
    req.auth_read = ctx->authenticated ? ctx->auth_read : NULL;
    acct_resp_init(&resp, r->pool);

    /* Every write runs in one transaction; reads run in autocommit. */
    writes = route->method != ACCT_METHOD_GET;
    if (writes) {
        rc = acct_req_store(&req, &req.store);
        if (rc == ACCT_STORE_OK) {
            rc = acct_store_begin(req.store, r->pool);
        }
        if (rc != ACCT_STORE_OK) {
            acctapi_lease_note(ctx, rc);
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
        else {
            acct_publish_committed(&req);
        }
    }
    if (ctx->store) {
        acctapi_lease_note(ctx, resp.status == HTTP_SERVICE_UNAVAILABLE
                          ? ACCT_STORE_UNAVAILABLE
                          : !ap_is_HTTP_SERVER_ERROR(resp.status)
                          ? ACCT_STORE_OK : ACCT_STORE_FAILED);
    }
    if (ap_is_HTTP_SERVER_ERROR(resp.status)) {
        /* The core has logged the cause; this names the request. */
        ap_log_rerror(APLOG_MARK, resp.status == HTTP_SERVICE_UNAVAILABLE
                      ? APLOG_WARNING : APLOG_ERR, 0, r,
                      ACCTLOGNO(00056) "answering %d to %s %s", resp.status, r->method, r->uri);
    }
    apr_table_overlap(r->err_headers_out, resp.headers, APR_OVERLAP_TABLES_SET);
    acctapi_write_resp(r, &resp);
    return OK;
}


/*
 * LogLevel acctapi:debug: one line per API request once it is answered,
 * errors of the access phase included: the route, who acted, the status and
 * how long it took.  Never a token or a body.
 */
static int acctapi_log_trace(request_rec *r)
{
    acctapi_ctx *ctx;
    unsigned exchanges, setup = 0;

    if (!APLOGrdebug(r)) {
        return DECLINED;
    }
    ctx = acctapi_ctx_get(r);
    if (!ctx) {
        return DECLINED;
    }
    exchanges = acctapi_lease_exchanges(ctx, &setup);
    ap_log_rerror(APLOG_MARK, APLOG_DEBUG, 0, r, ACCTLOGNO(00059)
                  "%s %s: route %s, principal %s (user %" APR_INT64_T_FMT
                  ", token %" APR_INT64_T_FMT "), status %d, %" APR_TIME_T_FMT
                  " us, %d database connection(s), %u database exchange(s)"
                  " (%u to set a connection up)",
                  r->method, r->uri,
                  ctx->match.route ? ctx->match.route->path : "(none)",
                  ctx->authenticated ? ctx->who.username : "-",
                  ctx->authenticated ? ctx->who.user_id : 0,
                  ctx->authenticated ? ctx->who.token_id : 0, r->status,
                  apr_time_now() - r->request_time,
                  ctx->lease_count, exchanges, setup);
    return DECLINED;
}

/* ---- httpd's own errors in our location ---------------------------------- */

/*
 * Some requests fail inside httpd before its location walk (an encoded NUL
 * in the path, say): their configuration is still the server's defaults.
 * Walk the locations for them, so that errors under the API's location are
 * JSON too.
 */
/* Does a location walk for path `uri` put the request in our handler? */
static int walk_is_ours(request_rec *r, const char *uri)
{
    const char *saved = r->uri;

    if (!uri || uri[0] != '/') {
        return 0;
    }
    r->uri = (char *)uri;
    if (ap_location_walk(r) == OK && request_is_ours(r)) {
        return 1;
    }
    r->uri = (char *)saved;
    r->per_dir_config = r->server->lookup_defaults;
    return 0;
}

/*
 * The path as the client sent it: the unparsed URI without its query, or
 * for a request line httpd could not parse (a NUL byte in it, say), the
 * second word of what it kept of the line.
 */
static const char *sent_path(request_rec *r)
{
    const char *raw = r->unparsed_uri, *end;

    if (!raw && r->the_request && (raw = strchr(r->the_request, ' ')) != NULL) {
        raw++;
    }
    if (!raw) {
        return NULL;
    }
    end = raw + strcspn(raw, "? ");
    return apr_pstrmemdup(r->pool, raw, end - raw);
}

/*
 * Requests httpd refuses before its location walk (an unparsable request
 * line, a path above the root, an encoded NUL) still have the server's
 * default configuration.  Walk the locations for them, with the normalised
 * path and then the path as sent (normalising "/v4/../x" leaves "/x"), so
 * that errors of requests meant for the API are JSON too.
 */
static int failed_request_is_ours(request_rec *r)
{
    if (r->per_dir_config != r->server->lookup_defaults) {
        return 0;
    }
    return walk_is_ours(r, r->uri) || walk_is_ours(r, sent_path(r));
}

static void acctapi_insert_error_filter(request_rec *r)
{
    if (acctapi_ctx_get(r)
        || request_is_ours(r) || failed_request_is_ours(r)) {
        ap_add_output_filter(ACCTAPI_ERROR_FILTER, NULL, r, r->connection);
    }
}

/* ---- startup -------------------------------------------------------------- */

static apr_status_t forget_rate_table(void *unused)
{
    (void)unused;
    rate_table = NULL;
    return APR_SUCCESS;
}

/*
 * One set of locks for the life of the server, not one per configuration
 * generation, for the reason the SQLite writers' gate gives
 * (acctapi_lease_create_gate): a child forked just before a restart would
 * find its generation's mutexes destroyed by the parent's configuration
 * cleanup.  Old and new children guarding different tables with the same
 * locks only wait on each other a little.
 */
static int create_rate_locks(server_rec *s)
{
    static const char key[] = "acctapi-rate-limit-locks";
    acct_rate_locks **kept = ap_retained_data_get(key);
    apr_status_t rv;

    if (kept) {
        rate_locks = *kept;
        return OK;
    }
    rv = acct_rate_locks_create(&rate_locks, s->process->pool);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s, ACCTLOGNO(00064)
                     "cannot create the locks of the rate-limit counters");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    kept = ap_retained_data_create(key, sizeof(*kept));
    *kept = rate_locks;
    return OK;
}

/* Anonymous shared memory: every child inherits it, no file is left. */
static int create_rate_table(apr_pool_t *pconf, server_rec *s)
{
    apr_size_t size = acct_rate_table_size(RATE_TABLE_SLOTS);
    apr_shm_t *shm;
    apr_status_t rv;

    if (create_rate_locks(s) != OK) {
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    rv = apr_shm_create(&shm, size, NULL, pconf);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s, ACCTLOGNO(00063)
                     "cannot create the shared memory of the rate-limit "
                     "counters");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    rate_table = acct_rate_table_init(apr_shm_baseaddr_get(shm),
                                      RATE_TABLE_SLOTS);
    /* Runs before the segment goes: nothing may count in it after. */
    apr_pool_cleanup_register(pconf, NULL, forget_rate_table,
                              apr_pool_cleanup_null);
    return OK;
}

static int acctapi_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                               apr_pool_t *ptemp, server_rec *s)
{
    if (acctapi_lease_find_dbd(s) != OK) {
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    log_server = s;
    acct_log_set_sink(log_sink, NULL);
    /* jansson seeds its hash function lazily; do it before any thread runs. */
    json_object_seed(0);
    /* The first pass only checks the configuration. */
    if (ap_state_query(AP_SQ_MAIN_STATE) != AP_SQ_MS_CREATE_PRE_CONFIG) {
        int rc = create_rate_table(pconf, s);

        if (rc == OK) {
            rc = acctapi_lease_create_gate(s);
        }
        return rc != OK ? rc : acctapi_lease_create_breaker_news(s);
    }
    return OK;
}

/*
 * How much free memory at the top of one of glibc's heaps stays with the
 * heap instead of going back to the kernel, and how much more a heap grows
 * by when it must.  libpq builds each result with malloc (a 500-record page
 * is about 130 KB of it) and frees it with the request; with glibc's 128 KB
 * default, every such request handed the top of its thread's heap back
 * (madvise) and faulted it in again on the next one, and each hand-back
 * flushes the TLBs of every core: on a 2-core VM a third of httpd's CPU on
 * large pages (bench/RESULTS.md, "malloc's trimming").  Setting the
 * threshold also stops glibc from moving it (and its mmap threshold) on its
 * own.  At most this much is kept per heap (glibc makes up to 8 a core).
 */
#define MALLOC_KEEP_BYTES (1024 * 1024)
#define MALLOC_GROW_BYTES (512 * 1024)

static void keep_malloc_heaps(server_rec *s)
{
#if defined(__GLIBC__) && defined(M_TRIM_THRESHOLD) && defined(M_TOP_PAD)
    if (!mallopt(M_TRIM_THRESHOLD, MALLOC_KEEP_BYTES)
        || !mallopt(M_TOP_PAD, MALLOC_GROW_BYTES)) {
        ap_log_error(APLOG_MARK, APLOG_INFO, 0, s, ACCTLOGNO(00186)
                     "glibc refused the malloc settings: large answers "
                     "cost more CPU");
    }
#else
    (void)s;
#endif
}

static void acctapi_child_init(apr_pool_t *pchild, server_rec *s)
{
    apr_status_t rv;

    log_server = s;
    keep_malloc_heaps(s);
    acctapi_lease_child_init(pchild, s);
    if (rate_locks
        && (rv = acct_rate_locks_child_init(rate_locks, pchild))
           != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s, ACCTLOGNO(00184)
                     "cannot attach to the locks of the rate-limit counters: "
                     "this child counts in the database");
        rate_locks = NULL;
    }
    /* Zone reloads run in a thread of the child's, stopped and joined when
     * the child exits (it logs why if it cannot start). */
    acct_publish_reload_start(pchild);
    if (acct_catalog_init(pchild) != 0) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, 0, s,
                     ACCTLOGNO(00058) "cannot create the catalogue cache lock");
    }
    if (acct_crypto_init(pchild) != 0) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                     ACCTLOGNO(00183) "cannot fetch OpenSSL's SHA-256 once: "
                     "every digest looks it up");
    }
    if (acct_auth_hints_init(pchild) != 0) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                     ACCTLOGNO(00182) "cannot create the token hints' lock: "
                     "reads sent with a token lookup find its account in a "
                     "subquery");
    }
    if (api_zone_cache_init(pchild) != 0) {
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                     ACCTLOGNO(00065) "cannot create the zone file cache: zone "
                     "files are rendered for every request");
    }
}

static void acctapi_register_hooks(apr_pool_t *pool)
{
    /* Finds mod_dbd (refusing to start without it) and wires logging. */
    ap_hook_post_config(acctapi_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    /* Per-process caches and their locks. */
    ap_hook_child_init(acctapi_child_init, NULL, NULL, APR_HOOK_MIDDLE);
    /* No file system behind the API's URLs. */
    ap_hook_translate_name(acctapi_translate_name, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_map_to_storage(acctapi_map_to_storage, NULL, NULL, APR_HOOK_MIDDLE);
    /* Routing, bearer authentication and scopes, before any handler runs. */
    ap_hook_access_checker(acctapi_access_checker, NULL, NULL, APR_HOOK_MIDDLE);
    /* The API itself. */
    ap_hook_handler(acctapi_handler, NULL, NULL, APR_HOOK_MIDDLE);
    /* JSON instead of httpd's HTML for errors httpd raises in our location. */
    ap_hook_insert_error_filter(acctapi_insert_error_filter, NULL, NULL,
                                APR_HOOK_MIDDLE);
    ap_register_output_filter(ACCTAPI_ERROR_FILTER, acctapi_error_filter, NULL,
                              AP_FTYPE_RESOURCE);
    /* LogLevel acctapi:debug traces every request. */
    ap_hook_log_transaction(acctapi_log_trace, NULL, NULL, APR_HOOK_MIDDLE);
    /* Slow request headers wait in the event MPM, not in a worker. */
    acctapi_headers_register_hooks(pool);
    /* Shared counters: SetHandler acctapi-status and server-status. */
    acctapi_status_register_hooks(pool);
}

AP_DECLARE_MODULE(acctapi) = {
    STANDARD20_MODULE_STUFF,
    acctapi_create_dir_conf,
    acctapi_merge_dir_conf,
    acctapi_create_srv_conf,
    acctapi_merge_srv_conf,
    acctapi_cmds,
    acctapi_register_hooks
};
