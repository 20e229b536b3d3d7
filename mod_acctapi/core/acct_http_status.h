/*
 * The HTTP statuses the API answers, by name.  The core and the handlers
 * build responses without httpd's headers (and so without its HTTP_*
 * constants); httpd/ maps a response onto httpd's request as it is.
 */
#ifndef ACCT_HTTP_STATUS_H
#define ACCT_HTTP_STATUS_H

enum {
    ACCT_HTTP_OK = 200,
    ACCT_HTTP_NO_CONTENT = 204,
    ACCT_HTTP_BAD_REQUEST = 400,
    ACCT_HTTP_UNAUTHORIZED = 401,
    ACCT_HTTP_FORBIDDEN = 403,
    ACCT_HTTP_NOT_FOUND = 404,
    ACCT_HTTP_METHOD_NOT_ALLOWED = 405,
    ACCT_HTTP_REQUEST_TIMEOUT = 408,       /* httpd's own refusals, */
    ACCT_HTTP_LENGTH_REQUIRED = 411,       /* answered in the API's */
    ACCT_HTTP_PAYLOAD_TOO_LARGE = 413,     /* error format */
    ACCT_HTTP_URI_TOO_LONG = 414,
    ACCT_HTTP_UNSUPPORTED_MEDIA_TYPE = 415,
    ACCT_HTTP_TOO_MANY_REQUESTS = 429,
    ACCT_HTTP_INTERNAL_SERVER_ERROR = 500,
    ACCT_HTTP_NOT_IMPLEMENTED = 501,
    ACCT_HTTP_SERVICE_UNAVAILABLE = 503
};

#endif
