#include "acct_sms.h"
#include "acct_log.h"

#include <apr_file_io.h>
#include <apr_strings.h>
#include <apr_thread_proc.h>
#include <signal.h>
#include <string.h>

/* How much of the program's stderr is kept for the log. */
#define STDERR_KEEP 400

/* How often a running program is checked for its exit. */
#define WAIT_STEP apr_time_from_msec(10)

/* The program's stderr, for the log: kept short and on one line. */
typedef struct sms_stderr {
    char text[STDERR_KEEP + 1];
    apr_size_t len;
} sms_stderr;

/* argv: the command's words, then the number and the text; NULL if empty. */
static const char *const *sms_argv(apr_pool_t *pool, const char *command,
                                   const char *number, const char *text)
{
    char **words = NULL;
    const char **argv;
    int n = 0;

    if (apr_tokenize_to_argv(command, &words, pool) != APR_SUCCESS
        || !words || !words[0]) {
        return NULL;
    }
    while (words[n]) {
        n++;
    }
    argv = apr_palloc(pool, (n + 3) * sizeof(*argv));
    memcpy(argv, words, n * sizeof(*argv));
    argv[n] = number;
    argv[n + 1] = text;
    argv[n + 2] = NULL;
    return argv;
}

/* stdin and stdout on /dev/null, stderr a pipe to us, no shell. */
static apr_status_t sms_procattr(apr_pool_t *pool, apr_procattr_t **attr)
{
    apr_file_t *devnull = NULL;
    apr_status_t st;

    st = apr_file_open(&devnull, "/dev/null", APR_FOPEN_READ | APR_FOPEN_WRITE,
                       APR_FPROT_OS_DEFAULT, pool);
    if (st == APR_SUCCESS) {
        st = apr_procattr_create(attr, pool);
    }
    if (st == APR_SUCCESS) {
        /* Our end non-blocking, so reading it honours the deadline. */
        st = apr_procattr_io_set(*attr, APR_NO_PIPE, APR_NO_PIPE,
                                 APR_CHILD_BLOCK);
    }
    if (st == APR_SUCCESS) {
        st = apr_procattr_child_in_set(*attr, devnull, NULL);
    }
    if (st == APR_SUCCESS) {
        st = apr_procattr_child_out_set(*attr, devnull, NULL);
    }
    if (st == APR_SUCCESS) {
        st = apr_procattr_cmdtype_set(*attr, APR_PROGRAM_PATH);
    }
    if (st == APR_SUCCESS) {
        /* A missing or non-executable absolute path fails here, with errno. */
        st = apr_procattr_error_check_set(*attr, 1);
    }
    return st;
}

/*
 * Reads the program's stderr until it closes (normally: the program
 * exited) or the deadline passes; keeps the start.  Returns APR_TIMEUP at
 * the deadline.
 */
static apr_status_t sms_drain(apr_file_t *err, apr_time_t deadline,
                              sms_stderr *out)
{
    char chunk[256];
    apr_size_t n, i;
    apr_status_t st;

    for (;;) {
        apr_interval_time_t left = deadline - apr_time_now();

        if (left <= 0) {
            return APR_TIMEUP;
        }
        apr_file_pipe_timeout_set(err, left);
        n = sizeof(chunk);
        st = apr_file_read(err, chunk, &n);
        for (i = 0; i < n && out->len < STDERR_KEEP; i++) {
            char c = chunk[i];

            out->text[out->len++] = (c < ' ' || c == 0x7f) ? ' ' : c;
        }
        if (APR_STATUS_IS_TIMEUP(st)) {
            return APR_TIMEUP;
        }
        if (st != APR_SUCCESS) {
            /* EOF, or a read error: either way nothing more to read. */
            return APR_SUCCESS;
        }
    }
}

/* Waits for the exit until the deadline; APR_CHILD_DONE or APR_TIMEUP. */
static apr_status_t sms_wait(apr_proc_t *proc, apr_time_t deadline,
                             int *code, apr_exit_why_e *why)
{
    apr_status_t st;

    for (;;) {
        st = apr_proc_wait(proc, code, why, APR_NOWAIT);
        if (st != APR_CHILD_NOTDONE) {
            return st;
        }
        if (apr_time_now() >= deadline) {
            return APR_TIMEUP;
        }
        apr_sleep(WAIT_STEP);
    }
}

static acct_sms_rc sms_run(apr_pool_t *pool, const char *const *argv,
                           const char *number, apr_interval_time_t timeout)
{
    apr_time_t deadline = apr_time_now() + timeout;
    apr_procattr_t *attr = NULL;
    apr_exit_why_e why = APR_PROC_EXIT;
    sms_stderr err;
    apr_proc_t proc;
    apr_status_t st;
    char msg[120];
    int code = 0;

    memset(&err, 0, sizeof(err));
    st = sms_procattr(pool, &attr);
    if (st == APR_SUCCESS) {
        st = apr_proc_create(&proc, argv[0], argv, NULL, attr, pool);
    }
    if (st != APR_SUCCESS) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00021) "text message to %s: cannot run %s: %s",
                 number, argv[0], apr_strerror(st, msg, sizeof(msg)));
        return ACCT_SMS_FAILED;
    }
    st = sms_drain(proc.err, deadline, &err);
    if (st == APR_SUCCESS) {
        st = sms_wait(&proc, deadline, &code, &why);
    }
    if (st == APR_TIMEUP) {
        apr_proc_kill(&proc, SIGKILL);
        apr_proc_wait(&proc, &code, &why, APR_WAIT);
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00022) "text message to %s: %s did not finish within "
                 "%" APR_TIME_T_FMT " ms and was killed", number, argv[0],
                 (apr_time_t)apr_time_as_msec(timeout));
        return ACCT_SMS_TIMED_OUT;
    }
    if (st != APR_CHILD_DONE) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00023) "text message to %s: waiting for %s: %s",
                 number, argv[0], apr_strerror(st, msg, sizeof(msg)));
        return ACCT_SMS_FAILED;
    }
    if (!APR_PROC_CHECK_EXIT(why) || code != 0) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00024) "text message to %s: %s %s %d%s%s", number,
                 argv[0], APR_PROC_CHECK_EXIT(why) ? "exited with status"
                                                   : "was killed by signal",
                 code, err.len ? ": " : "", err.text);
        return ACCT_SMS_FAILED;
    }
    return ACCT_SMS_OK;
}

acct_sms_rc acct_sms_send(apr_pool_t *pool, const char *command,
                          const char *number, const char *text,
                          apr_interval_time_t timeout)
{
    const char *const *argv;
    apr_pool_t *sub = NULL;
    acct_sms_rc rc;

    if (apr_pool_create(&sub, pool) != APR_SUCCESS) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00025) "text message to %s: out of memory", number);
        return ACCT_SMS_FAILED;
    }
    argv = command ? sms_argv(sub, command, number, text) : NULL;
    if (!argv) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00026) "cannot send a text message to %s: "
                 "AcctapiSmsCommand is not set", number);
        rc = ACCT_SMS_UNCONFIGURED;
    }
    else {
        rc = sms_run(sub, argv, number, timeout);
    }
    /* Closes /dev/null and the pipe now, not with the request. */
    apr_pool_destroy(sub);
    return rc;
}
