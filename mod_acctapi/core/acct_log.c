#include "acct_log.h"

#include <stdarg.h>
#include <stdio.h>

/* Where the core's log lines go: set once by the host (httpd's post_config,
 * acctapi-admin's main) before any thread logs, read only after. */
static acct_log_sink *log_sink;
static void *log_baton;

void acct_log_set_sink(acct_log_sink *sink, void *baton)
{
    log_sink = sink;
    log_baton = baton;
}

void acct_log_write(acct_log_level level, const char *file, int line,
                    const char *fmt, ...)
{
    char msg[1024];
    va_list ap;

    if (!log_sink) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    log_sink(level, file, line, msg, log_baton);
}
