/*
 * The module's counters and the pages that show them.
 *
 * The counters live in one anonymous shared memory segment, created by the
 * parent in post_config and inherited by every child it forks, and are only
 * ever changed with atomic operations: no lock, and the numbers are exact
 * however the requests spread over the children.  They count from the
 * server's last (re)start (a graceful restart included: the segment belongs
 * to the configuration's generation).  64-bit counters do not wrap in
 * practice.
 *
 * A request of the API is counted once it is logged (log_transaction runs
 * for every request, errors included), in its route family: the first
 * segment of the matched route's path, the public catalogues (regions and
 * types) as one "catalog", and "other" when no route matched (404, 405,
 * OPTIONS).  Latency is the time from the request line to the logging, in a
 * fixed histogram per family; percentiles are read from it, so they are the
 * upper bound of the bucket they fall in (or the largest latency seen, for
 * the last bucket).
 */
#include "httpd.h"
#include "http_config.h"
#include "http_core.h"
#include "http_log.h"
#include "http_protocol.h"
#include "http_request.h"
#include "mod_status.h"

#include <apr_atomic.h>
#include <apr_shm.h>
#include <apr_strings.h>

#include "acctapi_config.h"
#include "acctapi_request.h"
#include "acctapi_status.h"
#include "acct_log.h"
#include "acct_migrate.h"

APLOG_USE_MODULE(acctapi);

/* ---- the counters ----------------------------------------------------------- */

enum {
    FAM_CATALOG, FAM_PROFILE, FAM_DOMAINS, FAM_DATABASES, FAM_TAGS,
    FAM_OPENAPI, FAM_OTHER, FAMILIES
};

static const char *const family_names[FAMILIES] = {
    "catalog", "profile", "domains", "databases", "tags", "openapi", "other"
};

/* Upper bounds of the latency buckets, in milliseconds; one more bucket
 * holds everything slower. */
static const apr_uint64_t bucket_ms[] = {
    1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000
};
#define BUCKETS (sizeof(bucket_ms) / sizeof(bucket_ms[0]) + 1)

/* Status classes 2xx to 5xx. */
#define CLASSES 4

typedef struct family_counters {
    apr_uint64_t requests;
    apr_uint64_t classes[CLASSES];
    apr_uint64_t latency[BUCKETS];
    apr_uint64_t max_usec;
    apr_uint64_t total_usec;        /* Prometheus' histogram _sum */
} family_counters;

typedef struct status_counters {
    family_counters family[FAMILIES];
    apr_uint64_t rate_limited;      /* 429 answers */
    apr_uint64_t unavailable;       /* 503 answers */
    apr_uint64_t lease_failures;    /* mod_dbd gave no connection */
    apr_uint32_t leases_in_use;
    apr_uint32_t schema_found;      /* the database's version, 0: unknown */
    apr_time_t started;             /* written once, before any child */
} status_counters;

/* NULL until post_config, and in programs without httpd. */
static status_counters *counters;

void acctapi_status_lease(int delta)
{
    if (!counters) {
        return;
    }
    if (delta > 0) {
        apr_atomic_inc32(&counters->leases_in_use);
    }
    else {
        apr_atomic_dec32(&counters->leases_in_use);
    }
}

void acctapi_status_lease_failed(void)
{
    if (counters) {
        apr_atomic_inc64(&counters->lease_failures);
    }
}

void acctapi_status_schema(int version)
{
    if (counters && version > 0) {
        apr_atomic_set32(&counters->schema_found, (apr_uint32_t)version);
    }
}

/* The family of a route: its path's first segment, catalogues merged. */
static apr_size_t family_of(const acct_route *route)
{
    static const struct {
        const char *segment;
        apr_size_t family;
    } map[] = {
        {"regions", FAM_CATALOG}, {"compute", FAM_CATALOG},
        {"linode", FAM_CATALOG}, {"profile", FAM_PROFILE},
        {"domains", FAM_DOMAINS}, {"databases", FAM_DATABASES},
        {"tags", FAM_TAGS}, {"openapi.json", FAM_OPENAPI}
    };
    const char *seg;
    apr_size_t len, i;

    if (!route || route->path[0] != '/') {
        return FAM_OTHER;
    }
    seg = route->path + 1;
    len = strcspn(seg, "/");
    for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        if (strlen(map[i].segment) == len
            && strncmp(seg, map[i].segment, len) == 0) {
            return map[i].family;
        }
    }
    return FAM_OTHER;
}

static void raise_max(volatile apr_uint64_t *max, apr_uint64_t value)
{
    apr_uint64_t seen = apr_atomic_read64(max);

    while (value > seen) {
        apr_uint64_t was = apr_atomic_cas64(max, value, seen);

        if (was == seen) {
            break;
        }
        seen = was;
    }
}

static void count_request(apr_size_t family, int status, apr_time_t elapsed)
{
    family_counters *f = &counters->family[family];
    apr_uint64_t usec = elapsed > 0 ? (apr_uint64_t)elapsed : 0;
    apr_size_t b = 0;

    apr_atomic_inc64(&f->requests);
    if (status >= 200 && status < 600) {
        apr_atomic_inc64(&f->classes[status / 100 - 2]);
    }
    while (b < BUCKETS - 1 && usec > bucket_ms[b] * 1000) {
        b++;
    }
    apr_atomic_inc64(&f->latency[b]);
    apr_atomic_add64(&f->total_usec, usec);
    raise_max(&f->max_usec, usec);
    if (status == HTTP_TOO_MANY_REQUESTS) {
        apr_atomic_inc64(&counters->rate_limited);
    }
    else if (status == HTTP_SERVICE_UNAVAILABLE) {
        apr_atomic_inc64(&counters->unavailable);
    }
}

static int status_log_transaction(request_rec *r)
{
    const acct_route *route = NULL;
    const request_rec *last = r;

    if (!counters || !acctapi_request_route(r, &route)) {
        return DECLINED;
    }
    /* An internal redirect's final answer is what the client got. */
    while (last->next) {
        last = last->next;
    }
    count_request(family_of(route), last->status,
                  apr_time_now() - r->request_time);
    return OK;
}

static apr_status_t forget_counters(void *unused)
{
    counters = NULL;
    return APR_SUCCESS;
}

static int status_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                              apr_pool_t *ptemp, server_rec *s)
{
    apr_shm_t *shm;
    apr_status_t rv;

    /* The first pass only checks the configuration. */
    if (ap_state_query(AP_SQ_MAIN_STATE) == AP_SQ_MS_CREATE_PRE_CONFIG) {
        return OK;
    }
    /* Anonymous: no file to clean up, and every child inherits it. */
    rv = apr_shm_create(&shm, sizeof(status_counters), NULL, pconf);
    if (rv != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_CRIT, rv, s,
                     ACCTLOGNO(00031) "cannot create the shared memory of the status counters");
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    counters = apr_shm_baseaddr_get(shm);
    memset(counters, 0, sizeof(*counters));
    counters->started = apr_time_now();
    /* Runs before the segment goes: nothing may write to it after. */
    apr_pool_cleanup_register(pconf, NULL, forget_counters,
                              apr_pool_cleanup_null);
    return OK;
}

/* ---- reading them ------------------------------------------------------------ */

typedef struct family_view {
    apr_uint64_t requests;
    apr_uint64_t classes[CLASSES];
    apr_uint64_t p50, p90, p99, max;   /* milliseconds */
    apr_uint64_t hist[BUCKETS], hist_total, total_usec;
} family_view;

typedef struct status_view {
    family_view family[FAMILIES];
    apr_uint64_t rate_limited, unavailable, lease_failures;
    apr_uint32_t leases_in_use;
    int schema_found;
    apr_int64_t uptime;
} status_view;

/* The latency under which `pct` percent of the `n` requests were answered. */
static apr_uint64_t percentile(const apr_uint64_t *hist, apr_uint64_t n,
                               apr_uint64_t max_ms, unsigned pct)
{
    apr_uint64_t rank = (n * pct + 99) / 100, seen = 0;
    apr_size_t b;

    for (b = 0; b < BUCKETS - 1; b++) {
        seen += hist[b];
        if (seen >= rank) {
            /* A bucket's bound may exceed the slowest request in it. */
            return bucket_ms[b] < max_ms ? bucket_ms[b] : max_ms;
        }
    }
    return max_ms;
}

static void read_family(family_counters *f, family_view *v)
{
    apr_uint64_t *hist = v->hist, n = 0;
    apr_size_t i;

    for (i = 0; i < CLASSES; i++) {
        v->classes[i] = apr_atomic_read64(&f->classes[i]);
    }
    /* The histogram's own total: consistent with its buckets even while
     * other children keep counting. */
    for (i = 0; i < BUCKETS; i++) {
        hist[i] = apr_atomic_read64(&f->latency[i]);
        n += hist[i];
    }
    v->hist_total = n;
    v->total_usec = apr_atomic_read64(&f->total_usec);
    v->requests = apr_atomic_read64(&f->requests);
    /* Rounded up: a request of 0.2 ms took "at most 1 ms". */
    v->max = (apr_atomic_read64(&f->max_usec) + 999) / 1000;
    if (n == 0) {
        v->p50 = v->p90 = v->p99 = 0;
        return;
    }
    v->p50 = percentile(hist, n, v->max, 50);
    v->p90 = percentile(hist, n, v->max, 90);
    v->p99 = percentile(hist, n, v->max, 99);
}

static void read_counters(status_view *v)
{
    apr_size_t i;

    for (i = 0; i < FAMILIES; i++) {
        read_family(&counters->family[i], &v->family[i]);
    }
    v->rate_limited = apr_atomic_read64(&counters->rate_limited);
    v->unavailable = apr_atomic_read64(&counters->unavailable);
    v->lease_failures = apr_atomic_read64(&counters->lease_failures);
    v->leases_in_use = apr_atomic_read32(&counters->leases_in_use);
    v->schema_found = (int)apr_atomic_read32(&counters->schema_found);
    v->uptime = apr_time_sec(apr_time_now() - counters->started);
}

#define U64 "%" APR_UINT64_T_FMT

/* A latency as JSON: null for a family without requests. */
static const char *json_ms(request_rec *r, const family_view *f,
                           apr_uint64_t ms)
{
    return f->requests ? apr_psprintf(r->pool, U64, ms) : "null";
}

static void write_json(request_rec *r, const status_view *v)
{
    apr_size_t i;

    ap_set_content_type(r, "application/json");
    ap_rprintf(r, "{\"schema_version\":%d,\"database_schema_version\":%s,"
               "\"schema_ok\":%s,\"uptime_seconds\":%" APR_INT64_T_FMT
               ",\"families\":{", acct_schema_latest(),
               v->schema_found ? apr_itoa(r->pool, v->schema_found) : "null",
               v->schema_found == acct_schema_latest() ? "true" : "false",
               v->uptime);
    for (i = 0; i < FAMILIES; i++) {
        const family_view *f = &v->family[i];

        ap_rprintf(r, "%s\"%s\":{\"requests\":" U64 ",\"2xx\":" U64
                   ",\"3xx\":" U64 ",\"4xx\":" U64 ",\"5xx\":" U64
                   ",\"latency_ms\":{\"p50\":%s,\"p90\":%s,\"p99\":%s,"
                   "\"max\":%s}}", i ? "," : "", family_names[i], f->requests,
                   f->classes[0], f->classes[1], f->classes[2], f->classes[3],
                   json_ms(r, f, f->p50), json_ms(r, f, f->p90),
                   json_ms(r, f, f->p99), json_ms(r, f, f->max));
    }
    ap_rprintf(r, "},\"rate_limited\":" U64 ",\"database\":{\"unavailable\":"
               U64 ",\"lease_failures\":" U64 ",\"leases_in_use\":%u}}\n",
               v->rate_limited, v->unavailable, v->lease_failures,
               v->leases_in_use);
}

/* The HTML table, on the module's own page and in server-status. */
static void write_html_tables(request_rec *r, const status_view *v)
{
    apr_size_t i;

    ap_rputs("<table border=\"1\"><tr><th>Family</th><th>Requests</th>"
             "<th>2xx</th><th>3xx</th><th>4xx</th><th>5xx</th>"
             "<th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>max ms</th>"
             "</tr>\n", r);
    for (i = 0; i < FAMILIES; i++) {
        const family_view *f = &v->family[i];

        ap_rprintf(r, "<tr><td>%s</td><td>" U64 "</td><td>" U64 "</td><td>"
                   U64 "</td><td>" U64 "</td><td>" U64 "</td><td>" U64
                   "</td><td>" U64 "</td><td>" U64 "</td><td>" U64
                   "</td></tr>\n", family_names[i], f->requests,
                   f->classes[0], f->classes[1], f->classes[2], f->classes[3],
                   f->p50, f->p90, f->p99, f->max);
    }
    ap_rprintf(r, "</table>\n<p>Rate-limited requests: " U64 "<br>\n"
               "Answered 503 (storage unavailable): " U64 "<br>\n"
               "No database connection available: " U64 "<br>\n"
               "Database connections in use: %u<br>\n"
               "Schema version: %d (database: %d, %s)<br>\n"
               "Counting for %" APR_INT64_T_FMT " seconds</p>\n",
               v->rate_limited, v->unavailable, v->lease_failures,
               v->leases_in_use, acct_schema_latest(), v->schema_found,
               v->schema_found == acct_schema_latest() ? "ok"
               : v->schema_found ? "MISMATCH" : "not checked yet",
               v->uptime);
}

static void write_html(request_rec *r, const status_view *v)
{
    ap_set_content_type(r, "text/html; charset=utf-8");
    ap_rputs(DOCTYPE_HTML_4_01 "<html><head><title>mod_acctapi status"
             "</title></head><body>\n<h1>mod_acctapi status</h1>\n", r);
    write_html_tables(r, v);
    ap_rputs("</body></html>\n", r);
}

/* "Key: value" lines, as mod_status's ?auto and its scrapers have them. */
static void write_auto(request_rec *r, const status_view *v)
{
    apr_size_t i;

    for (i = 0; i < FAMILIES; i++) {
        const family_view *f = &v->family[i];
        const char *n = family_names[i];

        ap_rprintf(r, "AcctapiRequests_%s: " U64 "\n"
                   "AcctapiResponses2xx_%s: " U64 "\n"
                   "AcctapiResponses3xx_%s: " U64 "\n"
                   "AcctapiErrors4xx_%s: " U64 "\n"
                   "AcctapiErrors5xx_%s: " U64 "\n"
                   "AcctapiLatencyP50ms_%s: " U64 "\n"
                   "AcctapiLatencyP90ms_%s: " U64 "\n"
                   "AcctapiLatencyP99ms_%s: " U64 "\n",
                   n, f->requests, n, f->classes[0], n, f->classes[1],
                   n, f->classes[2], n, f->classes[3], n, f->p50, n, f->p90,
                   n, f->p99);
    }
    ap_rprintf(r, "AcctapiRateLimited: " U64 "\nAcctapiDbUnavailable: " U64
               "\nAcctapiDbLeaseFailures: " U64 "\nAcctapiDbLeasesInUse: %u\n"
               "AcctapiSchemaVersion: %d\nAcctapiSchemaOk: %d\n",
               v->rate_limited, v->unavailable, v->lease_failures,
               v->leases_in_use, acct_schema_latest(),
               v->schema_found == acct_schema_latest());
}

/*
 * Prometheus' text format (version 0.0.4): counters, gauges and a latency
 * histogram per family, for a scrape without an exporter in between.
 */
static void write_prometheus(request_rec *r, const status_view *v)
{
    static const char *const class_names[CLASSES] = {"2xx", "3xx", "4xx",
                                                     "5xx"};
    apr_size_t i, c, b;

    ap_set_content_type(r, "text/plain; version=0.0.4; charset=utf-8");
    ap_rputs("# HELP acctapi_requests_total Requests answered, per route family.\n"
             "# TYPE acctapi_requests_total counter\n", r);
    for (i = 0; i < FAMILIES; i++) {
        ap_rprintf(r, "acctapi_requests_total{family=\"%s\"} " U64 "\n",
                   family_names[i], v->family[i].requests);
    }
    ap_rputs("# HELP acctapi_responses_total Responses per route family and "
             "status class.\n# TYPE acctapi_responses_total counter\n", r);
    for (i = 0; i < FAMILIES; i++) {
        for (c = 0; c < CLASSES; c++) {
            ap_rprintf(r, "acctapi_responses_total{family=\"%s\",class=\"%s\"} "
                       U64 "\n", family_names[i], class_names[c],
                       v->family[i].classes[c]);
        }
    }
    ap_rputs("# HELP acctapi_request_duration_seconds Time to answer, per "
             "route family.\n# TYPE acctapi_request_duration_seconds "
             "histogram\n", r);
    for (i = 0; i < FAMILIES; i++) {
        const family_view *f = &v->family[i];
        apr_uint64_t seen = 0;

        for (b = 0; b < BUCKETS - 1; b++) {
            seen += f->hist[b];
            ap_rprintf(r, "acctapi_request_duration_seconds_bucket{family=\"%s\","
                       "le=\"%g\"} " U64 "\n", family_names[i],
                       (double)bucket_ms[b] / 1000.0, seen);
        }
        ap_rprintf(r, "acctapi_request_duration_seconds_bucket{family=\"%s\","
                   "le=\"+Inf\"} " U64 "\n"
                   "acctapi_request_duration_seconds_sum{family=\"%s\"} %.6f\n"
                   "acctapi_request_duration_seconds_count{family=\"%s\"} "
                   U64 "\n", family_names[i], f->hist_total, family_names[i],
                   (double)f->total_usec / 1e6, family_names[i], f->hist_total);
    }
    ap_rprintf(r, "# HELP acctapi_rate_limited_total Requests refused with 429.\n"
               "# TYPE acctapi_rate_limited_total counter\n"
               "acctapi_rate_limited_total " U64 "\n"
               "# HELP acctapi_db_unavailable_total Requests answered 503.\n"
               "# TYPE acctapi_db_unavailable_total counter\n"
               "acctapi_db_unavailable_total " U64 "\n"
               "# HELP acctapi_db_lease_failures_total Times mod_dbd gave no "
               "connection.\n"
               "# TYPE acctapi_db_lease_failures_total counter\n"
               "acctapi_db_lease_failures_total " U64 "\n"
               "# HELP acctapi_db_leases_in_use Database connections held by "
               "requests now.\n"
               "# TYPE acctapi_db_leases_in_use gauge\n"
               "acctapi_db_leases_in_use %u\n"
               "# HELP acctapi_schema_version Schema version this module "
               "expects.\n# TYPE acctapi_schema_version gauge\n"
               "acctapi_schema_version %d\n"
               "# HELP acctapi_database_schema_version Schema version found in "
               "the database (0: not read yet).\n"
               "# TYPE acctapi_database_schema_version gauge\n"
               "acctapi_database_schema_version %d\n"
               "# HELP acctapi_uptime_seconds Seconds since the counters "
               "started.\n# TYPE acctapi_uptime_seconds gauge\n"
               "acctapi_uptime_seconds %" APR_INT64_T_FMT "\n",
               v->rate_limited, v->unavailable, v->lease_failures,
               v->leases_in_use, acct_schema_latest(), v->schema_found,
               v->uptime);
}

/* ---- the handler and mod_status's section -------------------------------------- */

/* Does the query string hold the parameter `name`? */
static int has_param(request_rec *r, const char *name)
{
    char *args, *pair, *state = NULL;

    if (!r->args) {
        return 0;
    }
    args = apr_pstrdup(r->pool, r->args);
    for (pair = apr_strtok(args, "&", &state); pair;
         pair = apr_strtok(NULL, "&", &state)) {
        if (strcmp(pair, name) == 0 || (strncmp(pair, name, strlen(name)) == 0
                                        && pair[strlen(name)] == '=')) {
            return 1;
        }
    }
    return 0;
}

static int status_handler(request_rec *r)
{
    status_view v;
    int status;

    if (!r->handler || strcmp(r->handler, ACCTAPI_STATUS_HANDLER) != 0) {
        return DECLINED;
    }
    /* The Allow header of a 405 lists r->allowed_methods. */
    ap_allow_standard_methods(r, REPLACE_ALLOW, M_GET, -1);
    if (r->method_number != M_GET) {
        return HTTP_METHOD_NOT_ALLOWED;
    }
    if ((status = ap_discard_request_body(r)) != OK) {
        return status;
    }
    if (!counters) {
        return HTTP_SERVICE_UNAVAILABLE;
    }
    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    read_counters(&v);
    if (has_param(r, "html")) {
        write_html(r, &v);
    }
    else if (has_param(r, "prometheus")) {
        write_prometheus(r, &v);
    }
    else {
        write_json(r, &v);
    }
    return OK;
}

static int status_section(request_rec *r, int flags)
{
    status_view v;

    if (!counters) {
        return DECLINED;
    }
    read_counters(&v);
    if (flags & AP_STATUS_SHORT) {
        write_auto(r, &v);
    }
    else {
        ap_rputs("<hr>\n<h2>mod_acctapi</h2>\n", r);
        write_html_tables(r, &v);
    }
    return OK;
}

void acctapi_status_register_hooks(apr_pool_t *pool)
{
    /* The shared counters, before any child is forked. */
    ap_hook_post_config(status_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    /* Every request of the API, once answered. */
    ap_hook_log_transaction(status_log_transaction, NULL, NULL,
                            APR_HOOK_MIDDLE);
    /* SetHandler acctapi-status. */
    ap_hook_handler(status_handler, NULL, NULL, APR_HOOK_MIDDLE);
    /* The module's section of server-status, if mod_status is loaded. */
    APR_OPTIONAL_HOOK(ap, status_hook, status_section, NULL, NULL,
                      APR_HOOK_MIDDLE);
}
