/*
 * What a handler answers: a status, a body (or the body's text), error items
 * and extra headers; the fixed reason texts; the helpers that turn a store
 * failure, a missing row or a model outcome into the answer.  Only api/,
 * httpd/ and the CLI see it: the model returns acct_outcome and never
 * writes a response.
 */
#ifndef ACCT_RESP_H
#define ACCT_RESP_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <jansson.h>

#include "acct_http_status.h"
#include "acct_outcome.h"
#include "acct_problems.h"
#include "acct_req.h"
#include "acct_store.h"

typedef struct acct_resp {
    int status;
    json_t *body;          /* owned by the request pool; NULL: empty body */
    const char *raw;       /* or the body as JSON text, sent as it is (see
                            * acct_resp_ok_raw); NULL: none */
    apr_size_t raw_len;
    json_t *errors;        /* error items collected so far, or NULL */
    apr_table_t *headers;  /* extra response headers (Allow, Cache-Control) */
} acct_resp;

typedef void acct_handler(acct_req *req, acct_resp *resp);

/* Initialises `resp` pessimistically: 500 until a handler says otherwise. */
void acct_resp_init(acct_resp *resp, apr_pool_t *pool);

/* Success: 200 with `body` (ownership taken).  NULL body answers {}. */
void acct_resp_ok(acct_resp *resp, apr_pool_t *pool, json_t *body);

/*
 * Success: 200 with a body already serialised: `len` bytes of JSON `text`,
 * the exact bytes acct_json_dump would give for the document (callers
 * render it that way once and keep it), with a NUL after them like every
 * string.  The text is not copied: it must outlive the request (request
 * pool, or a cache the request holds).
 */
void acct_resp_ok_raw(acct_resp *resp, const char *text, apr_size_t len);

/* Adds an error item; `field` may be NULL.  Sets the status (last one wins). */
void acct_resp_error(acct_resp *resp, apr_pool_t *pool, int status,
                     const char *reason, const char *field);

/* Adds a 400 validation item naming `field`. */
void acct_resp_invalid(acct_resp *resp, apr_pool_t *pool, const char *field,
                       const char *reason);

/*
 * Answers the problems of `p` (none: nothing is added): one 400 item per
 * problem, in order, exactly as acct_resp_invalid adds them.  A handler
 * calls it once, after every check of the request has run.
 */
void acct_resp_problems(acct_resp *resp, apr_pool_t *pool,
                        const acct_problems *p);

/* Maps a store failure to 503 or 500 with the fixed reasons of docs/conventions.md. */
void acct_resp_store_error(acct_resp *resp, apr_pool_t *pool, acct_store_rc rc);

/* The one way a handler checks a store call: 0 when rc is ACCT_STORE_OK;
 * otherwise answers rc as acct_resp_store_error does and returns -1. */
int acct_resp_store_failed(acct_req *req, acct_resp *resp, acct_store_rc rc);

/*
 * The integer id of path parameter `index`; a value that is not a positive
 * decimal number names nothing, so it answers 404 (returns -1).
 */
int acct_path_id(acct_req *req, acct_resp *resp, int index, apr_int64_t *id);

/*
 * What a model read or write found of the object the path names, as one
 * answer: acct_resp_found gives `rows` when the read returned a row, else
 * NULL after answering the store's failure (rc) or 404; acct_resp_changed
 * gives 0 when the write changed a row, else -1 after answering likewise.
 */
acct_rows *acct_resp_found(acct_req *req, acct_resp *resp, acct_store_rc rc,
                           acct_rows *rows);
int acct_resp_changed(acct_req *req, acct_resp *resp, acct_store_rc rc,
                      int changed);

/*
 * The one row that `sql` selects: the object the path names, as the caller
 * may see it.  NULL after answering 404 (no such row) or the store's error.
 */
acct_rows *acct_req_row(acct_req *req, acct_resp *resp, const acct_sql *sql,
                        int nargs, const char *const *args);

/*
 * Runs `sql`, a statement that changes the object the path names; 0 when it
 * changed a row, else -1 after answering 404 (nothing the caller may change)
 * or the store's error.
 */
int acct_req_change(acct_req *req, acct_resp *resp, const acct_sql *sql,
                    int nargs, const char *const *args);

/* Has an error item been recorded?  (Validators call this before acting.) */
int acct_resp_failed(const acct_resp *resp);

/* Should the request's transaction commit?  Only on success. */
int acct_resp_commits(const acct_resp *resp);

/*
 * Answers what a model operation came to: 0 for ACCT_OUT_DONE (nothing
 * added), else -1 after adding its error: 400 with the problems (or the one
 * field and reason) for ACCT_OUT_INVALID, 403 Unauthorized, 404 Not found,
 * or the store's 500/503.  The one place an outcome becomes HTTP.
 */
int acct_resp_outcome(acct_resp *resp, apr_pool_t *pool, acct_outcome out);

/*
 * The body to send: the errors envelope when there are errors, else body
 * (a raw body parsed, for callers that inspect the document; the glue
 * sends acct_resp_text instead).
 */
json_t *acct_resp_document(acct_resp *resp, apr_pool_t *pool);

/*
 * The raw body when it is what the response sends (set, and neither an
 * error item nor an error status replaced it), else NULL.
 */
const char *acct_resp_raw(const acct_resp *resp, apr_size_t *len);

/*
 * The body to send as text (`*len` bytes): the raw body as it is, else
 * acct_resp_document serialised into pool memory.  NULL: no body (204), or
 * the document could not be serialised.
 */
const char *acct_resp_text(acct_resp *resp, apr_pool_t *pool, apr_size_t *len);

/* Fixed reasons of docs/conventions.md. */
#define ACCT_R_INVALID_JSON "Invalid JSON"
#define ACCT_R_INVALID_TOKEN "Invalid Token"
#define ACCT_R_SCOPE "Your OAuth token is not authorized to use this endpoint."
#define ACCT_R_UNAUTHORIZED "Unauthorized"
#define ACCT_R_NOT_FOUND "Not found"
#define ACCT_R_METHOD "Method Not Allowed"
#define ACCT_R_TOO_LARGE "Request body too large"
#define ACCT_R_MEDIA_TYPE "Content-Type must be application/json"
#define ACCT_R_RATE "Too many requests"
#define ACCT_R_UNAVAILABLE "Service Unavailable"
#define ACCT_R_INTERNAL "Internal server error"

/* The reason for an HTTP status produced outside a handler (httpd's own errors). */
const char *acct_reason_for_status(int status);

#endif
