/*
 * Logging from the core.  The core never includes httpd headers, so it logs
 * through a sink that the host installs: the module routes it to ap_log_error,
 * acctapi-admin to stderr, the unit tests to a buffer they can inspect.
 */
#ifndef ACCT_LOG_H
#define ACCT_LOG_H

#include <apr_pools.h>

typedef enum {
    ACCT_LOG_ERR = 3,
    ACCT_LOG_WARN = 4,
    ACCT_LOG_INFO = 6,
    ACCT_LOG_DEBUG = 7
} acct_log_level;

typedef void acct_log_sink(acct_log_level level, const char *file, int line,
                           const char *msg, void *baton);

/* Installed once at startup, before any thread exists. */
void acct_log_set_sink(acct_log_sink *sink, void *baton);

void acct_log_write(acct_log_level level, const char *file, int line,
                    const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define acct_log(level, ...) \
    acct_log_write((level), __FILE__, __LINE__, __VA_ARGS__)

/*
 * Every log line of the module starts with its own number, as httpd's own
 * lines start with AHnnnnn: an operator can search for it, and a message
 * keeps its number when its words change.  Numbers are never reused;
 * tests/check-log-numbers fails the build's checks on a call without one or
 * on a number used twice.  Next free number: see that script's output.
 */
#define ACCTLOGNO(n) "ACCT" #n ": "

#endif
