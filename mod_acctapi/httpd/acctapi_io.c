#include "acctapi_io.h"
#include "acct_api.h"
#include "acct_json.h"

#include "http_protocol.h"
#include "util_filter.h"

#include <apr_strings.h>

/* The first buffer of a body: larger than almost every valid request. */
#define BODY_FIRST_CAP ((apr_size_t)64 * 1024)

/*
 * Whether the `len` bytes read so far are already past a JSON body limit
 * (then *reason is set).  Limits only grow with the text, so a prefix that
 * is past one is refused whatever follows; the prefix's end is not the
 * body's, so what looks malformed there is decided once all is read.
 */
static int json_prefix_refused(apr_pool_t *pool, const char *buf,
                               apr_size_t len, const char **reason)
{
    acct_json_scan_rc rc = acct_json_scan(buf, len, &acct_json_body_limits);

    if (rc == ACCT_JSON_SCAN_OK || rc == ACCT_JSON_SCAN_MALFORMED) {
        return 0;
    }
    *reason = acct_json_scan_reason(pool, rc);
    return 1;
}

int acctapi_read_body(request_rec *r, apr_off_t limit, char **buf,
                      apr_size_t *len, const char **reason)
{
    const char *cl = apr_table_get(r->headers_in, "Content-Length");
    apr_bucket_brigade *bb;
    apr_size_t cap = 0, used = 0, whole = 0;
    char *out = NULL, *end;
    int seen_eos = 0;

    *reason = NULL;
    if (cl) {
        apr_off_t n;

        if (apr_strtoff(&n, cl, &end, 10) != APR_SUCCESS || *end || n < 0) {
            return HTTP_BAD_REQUEST;
        }
        if (n > limit) {
            return HTTP_REQUEST_ENTITY_TOO_LARGE;
        }
        whole = (apr_size_t)n + 1;
    }
    /*
     * Scanned at each doubling, the text is scanned about twice in all:
     * linear, and a body past a limit stops within twice the bytes needed
     * to pass it.
     */
    cap = !whole ? 4096 : whole < BODY_FIRST_CAP ? whole : BODY_FIRST_CAP;
    out = apr_palloc(r->pool, cap);
    bb = apr_brigade_create(r->pool, r->connection->bucket_alloc);
    while (!seen_eos) {
        apr_bucket *b;
        apr_status_t rv = ap_get_brigade(r->input_filters, bb,
                                         AP_MODE_READBYTES, APR_BLOCK_READ,
                                         HUGE_STRING_LEN);

        if (rv != APR_SUCCESS) {
            apr_brigade_destroy(bb);
            return ap_map_http_request_error(rv, HTTP_BAD_REQUEST);
        }
        for (b = APR_BRIGADE_FIRST(bb); b != APR_BRIGADE_SENTINEL(bb);
             b = APR_BUCKET_NEXT(b)) {
            const char *data;
            apr_size_t n;

            if (APR_BUCKET_IS_EOS(b)) {
                seen_eos = 1;
                break;
            }
            if (APR_BUCKET_IS_METADATA(b)) {
                continue;
            }
            if (apr_bucket_read(b, &data, &n, APR_BLOCK_READ) != APR_SUCCESS) {
                apr_brigade_destroy(bb);
                return HTTP_BAD_REQUEST;
            }
            /* The running count catches chunked bodies, which have no length. */
            if ((apr_off_t)(used + n) > limit) {
                apr_brigade_destroy(bb);
                return HTTP_REQUEST_ENTITY_TOO_LARGE;
            }
            if (used + n + 1 > cap) {
                char *bigger;

                if (json_prefix_refused(r->pool, out, used, reason)) {
                    apr_brigade_destroy(bb);
                    return HTTP_BAD_REQUEST;
                }
                while (used + n + 1 > cap) {
                    cap *= 2;
                }
                /* The last buffer holds the announced length exactly. */
                if (whole && cap > whole && used + n + 1 <= whole) {
                    cap = whole;
                }
                bigger = apr_palloc(r->pool, cap);
                memcpy(bigger, out, used);
                out = bigger;
            }
            memcpy(out + used, data, n);
            used += n;
        }
        apr_brigade_cleanup(bb);
    }
    apr_brigade_destroy(bb);
    out[used] = '\0';
    *buf = out;
    *len = used;
    return OK;
}

int acctapi_body_is_json(request_rec *r)
{
    const char *ct = apr_table_get(r->headers_in, "Content-Type");
    size_t n = sizeof("application/json") - 1;

    if (!ct) {
        return 0;
    }
    while (*ct == ' ') {
        ct++;
    }
    return strncasecmp(ct, "application/json", n) == 0
           && (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

/* Seconds a 503 asks clients to wait (the database's outages that the
 * module sees are restarts and failovers: seconds). */
#define ACCTAPI_RETRY_AFTER_UNAVAILABLE "5"

/* The one way a JSON answer leaves: `len` bytes of `text`, or none. */
static void write_body(request_rec *r, int status, const char *text,
                       apr_size_t len)
{
    r->status = status;
    if (ap_is_HTTP_ERROR(status)) {
        /* Only data may be cached (regions); an error never is. */
        apr_table_setn(r->err_headers_out, "Cache-Control",
                       "private, max-age=0, no-cache, no-store");
    }
    if (status == HTTP_SERVICE_UNAVAILABLE
        && !apr_table_get(r->err_headers_out, "Retry-After")
        && !apr_table_get(r->headers_out, "Retry-After")) {
        /* The database is away or busy: tell clients when to come back
         * (SDKs that retry honour it) rather than let them hammer it. */
        apr_table_setn(r->err_headers_out, "Retry-After",
                       ACCTAPI_RETRY_AFTER_UNAVAILABLE);
    }
    if (!text) {
        return;
    }
    ap_set_content_type(r, "application/json");
    ap_set_content_length(r, (apr_off_t)len);
    if (!r->header_only) {
        ap_rwrite(text, (int)len, r);
    }
}

void acctapi_write_json(request_rec *r, int status, json_t *doc)
{
    const char *text = NULL;
    size_t len = 0;

    if (doc && !(text = acct_json_dump(r->pool, doc, &len))) {
        status = HTTP_INTERNAL_SERVER_ERROR;
        text = "{\"errors\":[{\"reason\":\"" ACCT_R_INTERNAL "\"}]}";
        len = strlen(text);
    }
    write_body(r, status, text, len);
}

void acctapi_write_resp(request_rec *r, acct_resp *resp)
{
    apr_size_t len = 0;
    const char *raw = acct_resp_raw(resp, &len);

    if (raw) {
        write_body(r, resp->status, raw, len);
        return;
    }
    acctapi_write_json(r, resp->status, acct_resp_document(resp, r->pool));
}

void acctapi_write_error(request_rec *r, int status, const char *reason,
                         const char *field)
{
    acct_resp resp;

    acct_resp_init(&resp, r->pool);
    acct_resp_error(&resp, r->pool, status, reason, field);
    acctapi_write_resp(r, &resp);
}

/*
 * Response headers a script may read besides the CORS-safelisted ones:
 * the public API's scope headers, then ours (X-Spec-Version), the rate-limit
 * headers and Retry-After of a 429.
 */
#define CORS_EXPOSE "X-OAuth-Scopes, X-Accepted-OAuth-Scopes, " \
    "X-Spec-Version, X-RateLimit-Limit, X-RateLimit-Remaining, " \
    "X-RateLimit-Reset, Retry-After"

/* Every method of the API, whatever the path: a preflight for a method the
 * path lacks must succeed so that the script sees the real 405 (and an
 * unknown path its 404) rather than an opaque network error. */
#define CORS_METHODS "HEAD, GET, OPTIONS, POST, PUT, DELETE"

/* The public API's list plus User-Agent, which the official clients set. */
#define CORS_HEADERS "Authorization, Origin, X-Requested-With, " \
    "Content-Type, Accept, User-Agent, X-Filter"

/* Chromium caps a preflight cache entry at two hours; ask for no more, so
 * that every browser caches it alike. */
#define CORS_MAX_AGE "7200"

void acctapi_set_cors(apr_table_t *headers)
{
    apr_table_setn(headers, "Access-Control-Allow-Origin", "*");
    apr_table_setn(headers, "Access-Control-Expose-Headers", CORS_EXPOSE);
}

void acctapi_set_preflight(apr_table_t *headers)
{
    apr_table_setn(headers, "Access-Control-Allow-Methods", CORS_METHODS);
    apr_table_setn(headers, "Access-Control-Allow-Headers", CORS_HEADERS);
    apr_table_setn(headers, "Access-Control-Max-Age", CORS_MAX_AGE);
}

apr_status_t acctapi_error_filter(ap_filter_t *f, apr_bucket_brigade *bb)
{
    request_rec *r = f->r;
    apr_bucket *b, *next;

    if (!ap_is_HTTP_ERROR(r->status)) {
        ap_remove_output_filter(f);
        return ap_pass_brigade(f->next, bb);
    }
    /* httpd's HTML goes; the envelope takes its place, once. */
    for (b = APR_BRIGADE_FIRST(bb); b != APR_BRIGADE_SENTINEL(bb); b = next) {
        next = APR_BUCKET_NEXT(b);
        if (!APR_BUCKET_IS_METADATA(b)) {
            apr_bucket_delete(b);
        }
    }
    if (!f->ctx) {
        acct_resp resp;
        size_t len = 0;
        char *text;

        f->ctx = f;
        apr_table_setn(r->headers_out, "Cache-Control",
                       "private, max-age=0, no-cache, no-store");
        /* A request httpd failed before our hooks lacks the API's headers. */
        if (!apr_table_get(r->headers_out, "X-Spec-Version")) {
            apr_table_setn(r->headers_out, "X-Spec-Version", ACCT_SPEC_VERSION);
            apr_table_setn(r->headers_out, "Vary", "Authorization, X-Filter");
            apr_table_setn(r->headers_out, "X-OAuth-Scopes", "unknown");
            apr_table_setn(r->headers_out, "X-Accepted-OAuth-Scopes", "*");
        }
        acctapi_set_cors(r->headers_out);
        acct_resp_init(&resp, r->pool);
        acct_resp_error(&resp, r->pool, r->status,
                        acct_reason_for_status(r->status), NULL);
        text = acct_json_dump(r->pool, acct_resp_document(&resp, r->pool),
                              &len);
        ap_set_content_type(r, "application/json");
        ap_set_content_length(r, (apr_off_t)len);
        APR_BRIGADE_INSERT_HEAD(bb, apr_bucket_pool_create(text, len, r->pool,
                                                           bb->bucket_alloc));
    }
    return ap_pass_brigade(f->next, bb);
}
