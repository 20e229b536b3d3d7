/* Request bodies in, JSON documents out. */
#ifndef ACCTAPI_IO_H
#define ACCTAPI_IO_H

#include "httpd.h"
#include "util_filter.h"

#include <jansson.h>

struct acct_resp; /* acct_api.h */

/*
 * Reads the whole JSON body (Content-Length or chunked) into pool memory.
 * The module's own limit is checked against Content-Length first and against
 * a running count after, so httpd's HTML 413 is never reached for bodies the
 * module refuses.  The buffer grows with the data, not to Content-Length at
 * once, and each time it fills, the text so far is scanned against the JSON
 * body limits (acct_json_scan): a body past one is refused before the rest
 * of it is read or stored, so hostile bodies cost a fraction of their size.
 * Returns OK, or the HTTP status to answer (413, 400) with *reason set to the
 * reason of a 400 for a JSON limit (NULL for other statuses).
 */
int acctapi_read_body(request_rec *r, apr_off_t limit, char **buf,
                      apr_size_t *len, const char **reason);

/* Is the request's Content-Type application/json (parameters allowed)? */
int acctapi_body_is_json(request_rec *r);

/* Answers `doc` with `status`; NULL doc answers an empty body (204). */
void acctapi_write_json(request_rec *r, int status, json_t *doc);

/*
 * Answers what a handler answered: its status and acct_resp_document, or
 * its raw body as it is (same headers, Content-Length, HEAD without body).
 */
void acctapi_write_resp(request_rec *r, struct acct_resp *resp);

/* Answers {"errors":[{"reason":..,"field":..}]}; field may be NULL. */
void acctapi_write_error(request_rec *r, int status, const char *reason,
                         const char *field);

/*
 * CORS, as the public API does it: any origin may read every answer (the
 * API authenticates with a bearer token, never with cookies, so "*" gives a
 * foreign page nothing a token does not), and the API's own headers are
 * readable by scripts.  Set on every answer, errors included.
 */
void acctapi_set_cors(apr_table_t *headers);

/* The preflight part: methods, request headers and how long to cache them. */
void acctapi_set_preflight(apr_table_t *headers);

/* Output filter that turns httpd's own HTML error pages into the JSON envelope. */
apr_status_t acctapi_error_filter(ap_filter_t *f, apr_bucket_brigade *bb);
#define ACCTAPI_ERROR_FILTER "ACCTAPI_JSON_ERROR"

#endif
