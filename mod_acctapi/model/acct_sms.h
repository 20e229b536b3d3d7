/*
 * Text messages, sent by the operator's program (AcctapiSmsCommand).  The
 * command is split into words like a shell would, without running one; the
 * phone number and the message are appended as two more arguments.  The
 * program has stdin and stdout on /dev/null; the start of its stderr goes to
 * the log when it fails.  Only exit status 0 within the timeout is success;
 * at the timeout the program and whatever it started in its process group
 * are killed.  acct_proc.h runs it.
 */
#ifndef ACCT_SMS_H
#define ACCT_SMS_H

#include <apr_pools.h>
#include <apr_time.h>

/* How long the program may take before it is killed. */
#define ACCT_SMS_TIMEOUT apr_time_from_sec(10)

typedef enum {
    ACCT_SMS_OK = 0,
    ACCT_SMS_UNCONFIGURED,  /* no command set */
    ACCT_SMS_FAILED,        /* could not start, or exited other than 0 */
    ACCT_SMS_TIMED_OUT      /* killed after `timeout` */
} acct_sms_rc;

/*
 * Runs `command` with `number` and `text` appended and waits for it, at most
 * `timeout`.  Every failure is logged (without the message, which may hold a
 * code).  Memory and descriptors come from a subpool of `pool`, released
 * before returning.
 */
acct_sms_rc acct_sms_send(apr_pool_t *pool, const char *command,
                          const char *number, const char *text,
                          apr_interval_time_t timeout);

#endif
