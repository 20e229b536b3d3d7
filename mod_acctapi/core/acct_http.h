/* HTTP/1.1 message framing the glue needs before httpd parses a request. */
#ifndef ACCT_HTTP_H
#define ACCT_HTTP_H

#include <apr.h>

/* Does buf (len bytes, as received so far) hold a whole request header:
 * a request line and header fields up to the empty line that ends them?
 * Blank lines before the request line are allowed (RFC 9112 2.2), lines
 * may end in LF alone, and a request line without " HTTP/" (HTTP/0.9) has
 * no header fields to wait for. */
int acct_http_header_complete(const char *buf, apr_size_t len);

#endif
