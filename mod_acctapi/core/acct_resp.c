#include "acct_resp.h"
#include "acct_json.h"

void acct_resp_init(acct_resp *resp, apr_pool_t *pool)
{
    resp->status = ACCT_HTTP_INTERNAL_SERVER_ERROR;
    resp->body = NULL;
    resp->raw = NULL;
    resp->raw_len = 0;
    resp->errors = NULL;
    resp->headers = apr_table_make(pool, 4);
}

void acct_resp_ok(acct_resp *resp, apr_pool_t *pool, json_t *body)
{
    resp->status = ACCT_HTTP_OK;
    resp->body = acct_json_own(pool, body ? body : json_object());
    resp->raw = NULL;
}

void acct_resp_ok_raw(acct_resp *resp, const char *text, apr_size_t len)
{
    resp->status = ACCT_HTTP_OK;
    resp->body = NULL;
    resp->raw = text;
    resp->raw_len = len;
}

void acct_resp_error(acct_resp *resp, apr_pool_t *pool, int status,
                     const char *reason, const char *field)
{
    json_t *item = json_object();

    if (!resp->errors) {
        resp->errors = acct_json_own(pool, json_array());
    }
    json_object_set_new(item, "reason",
                        acct_json_str(reason ? reason
                                             : acct_reason_for_status(status)));
    if (field) {
        json_object_set_new(item, "field", acct_json_str(field));
    }
    json_array_append_new(resp->errors, item);
    resp->status = status;
}

void acct_resp_invalid(acct_resp *resp, apr_pool_t *pool, const char *field,
                       const char *reason)
{
    acct_resp_error(resp, pool, ACCT_HTTP_BAD_REQUEST, reason, field);
}

void acct_resp_problems(acct_resp *resp, apr_pool_t *pool,
                        const acct_problems *p)
{
    int i, n = acct_problems_count(p);

    for (i = 0; i < n; i++) {
        acct_resp_invalid(resp, pool, acct_problem_field(p, i),
                          acct_problem_reason(p, i));
    }
}

void acct_resp_store_error(acct_resp *resp, apr_pool_t *pool,
                           acct_store_rc rc)
{
    if (rc == ACCT_STORE_UNAVAILABLE) {
        acct_resp_error(resp, pool, ACCT_HTTP_SERVICE_UNAVAILABLE, ACCT_R_UNAVAILABLE, NULL);
    }
    else {
        acct_resp_error(resp, pool, ACCT_HTTP_INTERNAL_SERVER_ERROR, ACCT_R_INTERNAL, NULL);
    }
}

int acct_resp_failed(const acct_resp *resp)
{
    return resp->errors != NULL;
}

int acct_resp_commits(const acct_resp *resp)
{
    /* A handler that never answered is still at its pessimistic 500. */
    return !resp->errors && resp->status < ACCT_HTTP_BAD_REQUEST;
}

json_t *acct_resp_document(acct_resp *resp, apr_pool_t *pool)
{
    json_t *doc;

    if (resp->errors) {
        doc = acct_json_own(pool, json_object());
        json_object_set(doc, "errors", resp->errors);
        return doc;
    }
    if (resp->status >= ACCT_HTTP_BAD_REQUEST) {
        /* A failure without an item: never answer an error without a reason. */
        acct_resp_error(resp, pool, resp->status,
                        acct_reason_for_status(resp->status), NULL);
        return acct_resp_document(resp, pool);
    }
    if (resp->raw && !resp->body) {
        /* Our own serialisation: it parses unless memory ran out. */
        resp->body = acct_json_own(pool, json_loadb(resp->raw, resp->raw_len,
                                                    JSON_DECODE_ANY, NULL));
        if (!resp->body) {
            resp->raw = NULL;
            acct_resp_error(resp, pool, ACCT_HTTP_INTERNAL_SERVER_ERROR, ACCT_R_INTERNAL, NULL);
            return acct_resp_document(resp, pool);
        }
    }
    return resp->body;
}

const char *acct_resp_raw(const acct_resp *resp, apr_size_t *len)
{
    if (!resp->raw || resp->errors || resp->status >= ACCT_HTTP_BAD_REQUEST) {
        return NULL;
    }
    *len = resp->raw_len;
    return resp->raw;
}

const char *acct_resp_text(acct_resp *resp, apr_pool_t *pool, apr_size_t *len)
{
    const char *raw = acct_resp_raw(resp, len);
    json_t *doc;
    size_t n = 0;
    char *text;

    if (raw) {
        return raw;
    }
    doc = acct_resp_document(resp, pool);
    text = doc ? acct_json_dump(pool, doc, &n) : NULL;
    *len = text ? n : 0;
    return text;
}

const char *acct_reason_for_status(int status)
{
    switch (status) {
    case ACCT_HTTP_BAD_REQUEST: return "Bad Request";
    case ACCT_HTTP_UNAUTHORIZED: return ACCT_R_INVALID_TOKEN;
    case ACCT_HTTP_FORBIDDEN: return ACCT_R_UNAUTHORIZED;
    case ACCT_HTTP_NOT_FOUND: return ACCT_R_NOT_FOUND;
    case ACCT_HTTP_METHOD_NOT_ALLOWED: return ACCT_R_METHOD;
    case ACCT_HTTP_REQUEST_TIMEOUT: return "Request Timeout";
    case ACCT_HTTP_LENGTH_REQUIRED: return "Length Required";
    case ACCT_HTTP_PAYLOAD_TOO_LARGE: return ACCT_R_TOO_LARGE;
    case ACCT_HTTP_URI_TOO_LONG: return "Request-URI Too Long";
    case ACCT_HTTP_UNSUPPORTED_MEDIA_TYPE: return ACCT_R_MEDIA_TYPE;
    case ACCT_HTTP_TOO_MANY_REQUESTS: return ACCT_R_RATE;
    case ACCT_HTTP_NOT_IMPLEMENTED: return "Not Implemented";
    case ACCT_HTTP_SERVICE_UNAVAILABLE: return ACCT_R_UNAVAILABLE;
    default:
        return status >= ACCT_HTTP_INTERNAL_SERVER_ERROR ? ACCT_R_INTERNAL : "Bad Request";
    }
}

int acct_path_id(acct_req *req, acct_resp *resp, int index, apr_int64_t *id)
{
    if (index < 0 || index >= ACCT_MAX_PATH_PARAMS
        || acct_parse_i64(req->params[index], id) != 0 || *id <= 0) {
        acct_resp_error(resp, req->pool, ACCT_HTTP_NOT_FOUND, ACCT_R_NOT_FOUND, NULL);
        return -1;
    }
    return 0;
}

acct_rows *acct_resp_found(acct_req *req, acct_resp *resp, acct_store_rc rc,
                           acct_rows *rows)
{
    return acct_resp_outcome(resp, req->pool, acct_out_found(rc, rows)) == 0
           ? rows : NULL;
}

int acct_resp_changed(acct_req *req, acct_resp *resp, acct_store_rc rc,
                      int changed)
{
    return acct_resp_outcome(resp, req->pool, acct_out_changed(rc, changed));
}

acct_rows *acct_req_row(acct_req *req, acct_resp *resp, const acct_sql *sql,
                        int nargs, const char *const *args)
{
    acct_rows *rows = NULL;
    acct_store *st = NULL;
    acct_store_rc rc = acct_req_store(req, &st);

    if (rc == ACCT_STORE_OK) {
        rc = acct_store_select(st, req->pool, sql, &rows, nargs, args);
    }
    return acct_resp_found(req, resp, rc, rows);
}

int acct_req_change(acct_req *req, acct_resp *resp, const acct_sql *sql,
                    int nargs, const char *const *args)
{
    acct_store *st = NULL;
    acct_store_rc rc = acct_req_store(req, &st);
    int affected = 0;

    if (rc == ACCT_STORE_OK) {
        rc = acct_store_exec(st, req->pool, sql, &affected, nargs, args);
    }
    return acct_resp_changed(req, resp, rc, affected);
}

int acct_resp_store_failed(acct_req *req, acct_resp *resp, acct_store_rc rc)
{
    if (rc == ACCT_STORE_OK) {
        return 0;
    }
    acct_resp_store_error(resp, req->pool, rc);
    return -1;
}

int acct_resp_outcome(acct_resp *resp, apr_pool_t *pool, acct_outcome out)
{
    switch (out.kind) {
    case ACCT_OUT_DONE:
        return 0;
    case ACCT_OUT_INVALID:
        acct_resp_invalid(resp, pool, out.field, out.reason);
        return -1;
    case ACCT_OUT_NOT_FOUND:
        acct_resp_error(resp, pool, ACCT_HTTP_NOT_FOUND, ACCT_R_NOT_FOUND, NULL);
        return -1;
    case ACCT_OUT_FORBIDDEN:
        acct_resp_error(resp, pool, ACCT_HTTP_FORBIDDEN, ACCT_R_UNAUTHORIZED, NULL);
        return -1;
    case ACCT_OUT_STORE:
    default:
        acct_resp_store_error(resp, pool, out.store);
        return -1;
    }
}
