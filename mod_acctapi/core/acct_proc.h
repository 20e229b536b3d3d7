/*
 * Running an operator's program (AcctapiSmsCommand, AcctapiZoneReloadCommand)
 * from a threaded process and waiting for it.
 *
 * The command line is split into words like a shell would split it (quotes,
 * backslashes), without running one; the caller's arguments are appended;
 * the program is looked up in PATH unless its name has a '/'.  The program
 * starts with posix_spawn (no code of ours runs between fork and exec, which
 * matters with threads), in a process group of its own (httpd signalling its
 * children's group must not kill it half done, and a deadline kills its
 * children too), with every signal unblocked and at its default (httpd's
 * threads block and ignore some, and a child would inherit that), stdin and
 * stdout on /dev/null, stderr kept: its start, on one printable line, for
 * the log.
 *
 * Nothing is logged here: the outcome says what happened, and each caller
 * writes its own lines.
 */
#ifndef ACCT_PROC_H
#define ACCT_PROC_H

#include <apr_pools.h>
#include <apr_time.h>

/* How much of the program's stderr is kept. */
#define ACCT_PROC_STDERR_KEEP 400

typedef enum {
    ACCT_PROC_NOT_STARTED,  /* nothing ran: `step` failed with `code` (errno) */
    ACCT_PROC_EXITED,       /* it exited with status `code` */
    ACCT_PROC_KILLED,       /* a signal (`code`) ended it */
    ACCT_PROC_TIMED_OUT,    /* the deadline passed: its group was killed */
    ACCT_PROC_LOST          /* it started, but waiting for it failed (`code`:
                               errno); it may still run */
} acct_proc_how;

/* The step that failed (ACCT_PROC_NOT_STARTED). */
typedef enum {
    ACCT_PROC_STEP_NONE = 0,
    ACCT_PROC_STEP_PIPE,    /* the pipe for stderr */
    ACCT_PROC_STEP_SPAWN    /* starting the program (not found, not
                               executable, out of processes) */
} acct_proc_step;

typedef struct acct_proc_outcome {
    acct_proc_how how;
    acct_proc_step step;
    int code;
    /* The start of stderr, control characters as spaces, trailing spaces
     * dropped; "" when it wrote nothing. */
    char err[ACCT_PROC_STDERR_KEEP + 1];
} acct_proc_outcome;

/*
 * argv for `command` with the NULL-terminated `append` (may be NULL) after
 * its words, or NULL when the command is NULL, has no words, or cannot be
 * split.
 */
const char *const *acct_proc_argv(apr_pool_t *pool, const char *command,
                                  const char *const *append);

/*
 * Runs argv (argv[0] searched in PATH) and waits for it.  With a `timeout`
 * above 0, the program's whole process group is killed (SIGKILL) once that
 * much time has passed since the start, and the outcome is
 * ACCT_PROC_TIMED_OUT; with 0 it may run as long as it likes.  Returns
 * out->how; the program is always reaped unless ACCT_PROC_LOST.
 */
acct_proc_how acct_proc_run(const char *const *argv,
                            apr_interval_time_t timeout,
                            acct_proc_outcome *out);

#endif
