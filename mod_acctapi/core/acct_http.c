#include "acct_http.h"

#include <string.h>

/* " HTTP/" within [p, p + n): memmem without relying on _GNU_SOURCE. */
static int has_version(const char *p, apr_size_t n)
{
    static const char tag[] = " HTTP/";
    apr_size_t k = sizeof(tag) - 1;

    for (apr_size_t i = 0; i + k <= n; i++) {
        if (p[i] == ' ' && memcmp(p + i, tag, k) == 0) {
            return 1;
        }
    }
    return 0;
}

int acct_http_header_complete(const char *buf, apr_size_t len)
{
    apr_size_t i = 0;
    const char *line_end;

    while (i < len && (buf[i] == '\r' || buf[i] == '\n')) {
        i++;
    }
    line_end = memchr(buf + i, '\n', len - i);
    if (!line_end) {
        return 0;
    }
    if (!has_version(buf + i, (apr_size_t)(line_end - (buf + i)))) {
        return 1;
    }
    /* The header ends at an empty line: LF LF or LF CR LF. */
    for (i = (apr_size_t)(line_end - buf); i + 1 < len; i++) {
        if (buf[i] == '\n'
            && (buf[i + 1] == '\n'
                || (buf[i + 1] == '\r' && i + 2 < len && buf[i + 2] == '\n'))) {
            return 1;
        }
    }
    return 0;
}
