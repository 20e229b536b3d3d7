#include "acct_sms.h"
#include "acct_log.h"
#include "acct_proc.h"

#include <apr_errno.h>
#include <apr_strings.h>

static acct_sms_rc sms_run(const char *const *argv, const char *number,
                           apr_interval_time_t timeout)
{
    acct_proc_outcome out;
    char msg[120];

    switch (acct_proc_run(argv, timeout, &out)) {
    case ACCT_PROC_NOT_STARTED:
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00021) "text message to %s: cannot run %s: %s",
                 number, argv[0],
                 apr_strerror(APR_FROM_OS_ERROR(out.code), msg, sizeof(msg)));
        return ACCT_SMS_FAILED;
    case ACCT_PROC_TIMED_OUT:
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00022) "text message to %s: %s did not finish within "
                 "%" APR_TIME_T_FMT " ms and was killed", number, argv[0],
                 (apr_time_t)apr_time_as_msec(timeout));
        return ACCT_SMS_TIMED_OUT;
    case ACCT_PROC_LOST:
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00023) "text message to %s: waiting for %s: %s",
                 number, argv[0],
                 apr_strerror(APR_FROM_OS_ERROR(out.code), msg, sizeof(msg)));
        return ACCT_SMS_FAILED;
    case ACCT_PROC_EXITED:
        if (out.code == 0) {
            return ACCT_SMS_OK;
        }
        break;
    case ACCT_PROC_KILLED:
        break;
    }
    acct_log(ACCT_LOG_ERR, ACCTLOGNO(00024) "text message to %s: %s %s %d%s%s", number,
             argv[0], out.how == ACCT_PROC_EXITED ? "exited with status"
                                                  : "was killed by signal",
             out.code, out.err[0] ? ": " : "", out.err);
    return ACCT_SMS_FAILED;
}

acct_sms_rc acct_sms_send(apr_pool_t *pool, const char *command,
                          const char *number, const char *text,
                          apr_interval_time_t timeout)
{
    const char *append[3];
    const char *const *argv;
    apr_pool_t *sub = NULL;
    acct_sms_rc rc;

    if (apr_pool_create(&sub, pool) != APR_SUCCESS) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00025) "text message to %s: out of memory", number);
        return ACCT_SMS_FAILED;
    }
    append[0] = number;
    append[1] = text;
    append[2] = NULL;
    argv = acct_proc_argv(sub, command, append);
    if (!argv) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00026) "cannot send a text message to %s: "
                 "AcctapiSmsCommand is not set", number);
        rc = ACCT_SMS_UNCONFIGURED;
    }
    else {
        rc = sms_run(argv, number, timeout);
    }
    /* The words of the command go now, not with the request. */
    apr_pool_destroy(sub);
    return rc;
}
