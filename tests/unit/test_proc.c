/* The program runner (acct_proc.h): splitting the command line, exit
 * statuses, signals, the deadline (which kills the program's children
 * too), a program that cannot start, the kept stderr, and what the child
 * starts with: its own process group, no blocked or ignored signals,
 * stdin and stdout on /dev/null. */
#include "unit.h"

#include <apr_strings.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acct_proc.h"

/* Runs `command` (with nothing appended) and returns how it ended. */
static acct_proc_how run(const char *command, apr_interval_time_t timeout,
                         acct_proc_outcome *out)
{
    const char *const *argv = acct_proc_argv(pool, command, NULL);

    assert_non_null(argv);
    return acct_proc_run(argv, timeout, out);
}

static void test_argv(void **state)
{
    const char *append[] = { "+15550100", "a text with spaces", NULL };
    const char *none[] = { NULL };
    const char *const *argv;

    (void)state;
    argv = acct_proc_argv(pool, "  prog 'two words' \"dq x\" back\\ slash ",
                          append);
    assert_non_null(argv);
    assert_string_equal(argv[0], "prog");
    assert_string_equal(argv[1], "two words");
    assert_string_equal(argv[2], "dq x");
    assert_string_equal(argv[3], "back slash");
    assert_string_equal(argv[4], "+15550100");
    assert_string_equal(argv[5], "a text with spaces");
    assert_null(argv[6]);

    /* An empty list appends nothing, as does none. */
    argv = acct_proc_argv(pool, "rndc reload", none);
    assert_string_equal(argv[1], "reload");
    assert_null(argv[2]);
    argv = acct_proc_argv(pool, "rndc", NULL);
    assert_string_equal(argv[0], "rndc");
    assert_null(argv[1]);

    /* No words: nothing to run. */
    assert_null(acct_proc_argv(pool, NULL, append));
    assert_null(acct_proc_argv(pool, "", append));
    assert_null(acct_proc_argv(pool, "   ", append));
}

static void test_exit_status(void **state)
{
    acct_proc_outcome out;
    const char *append[] = { "sh", "7", NULL };

    (void)state;
    /* Found through PATH. */
    assert_int_equal(run("true", 0, &out), ACCT_PROC_EXITED);
    assert_int_equal(out.code, 0);
    assert_string_equal(out.err, "");

    assert_int_equal(run("/bin/sh -c 'exit 3'", 0, &out), ACCT_PROC_EXITED);
    assert_int_equal(out.code, 3);

    /* The appended arguments reach the program as they are. */
    assert_int_equal(acct_proc_run(acct_proc_argv(pool, "/bin/sh -c "
                                                  "'exit $1'", append),
                                   0, &out), ACCT_PROC_EXITED);
    assert_int_equal(out.code, 7);

    /* The same within a deadline. */
    assert_int_equal(run("/bin/sh -c 'exit 3'", apr_time_from_sec(10), &out),
                     ACCT_PROC_EXITED);
    assert_int_equal(out.code, 3);

    /* A program that closed its stderr is still waited for. */
    assert_int_equal(run("/bin/sh -c 'exec 2>&-; sleep 0.2; exit 5'", 0, &out),
                     ACCT_PROC_EXITED);
    assert_int_equal(out.code, 5);
    assert_int_equal(run("/bin/sh -c 'exec 2>&-; sleep 0.2; exit 5'",
                         apr_time_from_sec(10), &out), ACCT_PROC_EXITED);
    assert_int_equal(out.code, 5);
}

static void test_stderr(void **state)
{
    acct_proc_outcome out;

    (void)state;
    /* On one line, control characters as spaces, trailing ones dropped.
     * (The tab and newlines are in the command itself: the tokenizer
     * takes backslashes as escapes even within quotes.) */
    assert_int_equal(run("/bin/sh -c 'echo no zone here >&2; "
                         "printf \"tab\there\n\n\" >&2; exit 1'", 0, &out),
                     ACCT_PROC_EXITED);
    assert_int_equal(out.code, 1);
    assert_string_equal(out.err, "no zone here tab here");

    /* Much more than is kept: read to the end (the program never blocks
     * on a full pipe), the start kept. */
    assert_int_equal(run("/bin/sh -c 'i=0; while [ $i -lt 3000 ]; do "
                         "echo 0123456789abcdef0123456789abcdef >&2; "
                         "i=$((i+1)); done'", apr_time_from_sec(20), &out),
                     ACCT_PROC_EXITED);
    assert_int_equal(out.code, 0);
    assert_int_equal(strlen(out.err), ACCT_PROC_STDERR_KEEP);
    assert_memory_equal(out.err, "0123456789abcdef0123456789abcdef "
                        "0123456789abcdef", 49);
}

static void test_killed(void **state)
{
    acct_proc_outcome out;

    (void)state;
    assert_int_equal(run("/bin/sh -c 'echo going >&2; kill -TERM $$'", 0,
                         &out), ACCT_PROC_KILLED);
    assert_int_equal(out.code, SIGTERM);
    assert_string_equal(out.err, "going");
}

/* Has process `pid` ended (gone, or a zombie waiting for its reaper)? */
static int ended(pid_t pid)
{
    char path[64], buf[512], *state_char;
    FILE *f;
    size_t n;

    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    if (!(f = fopen(path, "r"))) {
        return errno == ENOENT;
    }
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    state_char = strrchr(buf, ')');
    return state_char && (state_char[2] == 'Z' || state_char[2] == 'X');
}

static void test_deadline(void **state)
{
    const char *dir, *pidfile, *command;
    acct_proc_outcome out;
    apr_time_t start;
    pid_t child = 0;
    int i;

    (void)state;
    dir = apr_pstrdup(pool, "/tmp/acct-proc-XXXXXX");
    assert_non_null(mkdtemp((char *)dir));
    pidfile = apr_pstrcat(pool, dir, "/pid", NULL);

    /* The program and what it started in the background both go. */
    command = apr_psprintf(pool, "/bin/sh -c 'sleep 30 & echo $! > %s; "
                           "sleep 30'", pidfile);
    start = apr_time_now();
    assert_int_equal(run(command, apr_time_from_msec(300), &out),
                     ACCT_PROC_TIMED_OUT);
    assert_true(apr_time_now() - start < apr_time_from_sec(3));
    assert_int_equal(out.code, SIGKILL);
    {
        FILE *f = fopen(pidfile, "r");
        long pid = 0;

        assert_non_null(f);
        assert_int_equal(fscanf(f, "%ld", &pid), 1);
        fclose(f);
        child = (pid_t)pid;
    }
    assert_true(child > 0);
    for (i = 0; i < 200 && !ended(child); i++) {
        struct timespec pause = { 0, 10000000L };

        nanosleep(&pause, NULL);
    }
    assert_true(ended(child));

    /* Also when it closed stderr and went on running. */
    start = apr_time_now();
    assert_int_equal(run("/bin/sh -c 'exec 2>&-; exec sleep 30'",
                         apr_time_from_msec(300), &out), ACCT_PROC_TIMED_OUT);
    assert_true(apr_time_now() - start < apr_time_from_sec(3));

    /* What it wrote before the deadline is kept. */
    assert_int_equal(run("/bin/sh -c 'echo started >&2; exec sleep 30'",
                         apr_time_from_msec(300), &out), ACCT_PROC_TIMED_OUT);
    assert_string_equal(out.err, "started");

    unlink(pidfile);
    rmdir(dir);
}

static void test_cannot_start(void **state)
{
    acct_proc_outcome out;

    (void)state;
    /* posix_spawn reports a failed exec, or (where it cannot, as under
     * valgrind) the child exits 127. */
    if (run("/nonexistent/program arg", 0, &out) == ACCT_PROC_NOT_STARTED) {
        assert_int_equal(out.step, ACCT_PROC_STEP_SPAWN);
        assert_int_equal(out.code, ENOENT);
    }
    else {
        assert_int_equal(out.how, ACCT_PROC_EXITED);
        assert_int_equal(out.code, 127);
    }
    if (run("acct-no-such-program-in-path", apr_time_from_sec(5), &out)
        == ACCT_PROC_NOT_STARTED) {
        assert_int_equal(out.step, ACCT_PROC_STEP_SPAWN);
        assert_int_equal(out.code, ENOENT);
    }
    else {
        assert_int_equal(out.how, ACCT_PROC_EXITED);
        assert_int_equal(out.code, 127);
    }
}

/*
 * What the program starts with, whatever the calling thread has: httpd's
 * threads block some signals and the process ignores some (SIGPIPE).
 */
static void test_child_environment(void **state)
{
    struct sigaction ignore, old_usr1;
    sigset_t block, old_mask;
    acct_proc_outcome out;
    long pgrp = 0, pid = -1;

    (void)state;
    memset(&ignore, 0, sizeof(ignore));
    ignore.sa_handler = SIG_IGN;
    assert_int_equal(sigaction(SIGUSR1, &ignore, &old_usr1), 0);
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    assert_int_equal(pthread_sigmask(SIG_BLOCK, &block, &old_mask), 0);

    /* No signal blocked: read by the spawned process itself (exec, no
     * fork: a shell waiting for a child may block signals meanwhile). */
    assert_int_equal(run("/bin/sh -c 'exec grep SigBlk /proc/self/status >&2'",
                         0, &out), ACCT_PROC_EXITED);
    assert_string_equal(out.err, "SigBlk: 0000000000000000");
    /* An ignored signal is back at its default: it kills. */
    assert_int_equal(run("/bin/sh -c 'kill -USR1 $$; exit 0'", 0, &out),
                     ACCT_PROC_KILLED);
    assert_int_equal(out.code, SIGUSR1);

    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    sigaction(SIGUSR1, &old_usr1, NULL);

    /* Its own process group, which it leads. */
    assert_int_equal(run("/bin/sh -c 'echo $(cut -d\" \" -f5 /proc/$$/stat) "
                         "$$ >&2'", 0, &out), ACCT_PROC_EXITED);
    assert_int_equal(sscanf(out.err, "%ld %ld", &pgrp, &pid), 2);
    assert_int_equal(pgrp, pid);
    assert_true(pgrp != (long)getpgrp());

    /* stdin and stdout on /dev/null (read by a command substitution: the
     * shell applies a command's redirections to itself first). */
    assert_int_equal(run("/bin/sh -c 'x=$(readlink /proc/$$/fd/0 "
                         "/proc/$$/fd/1); echo $x >&2'", 0, &out),
                     ACCT_PROC_EXITED);
    assert_string_equal(out.err, "/dev/null /dev/null");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_argv),
        UNIT_TEST(test_exit_status),
        UNIT_TEST(test_stderr),
        UNIT_TEST(test_killed),
        UNIT_TEST(test_deadline),
        UNIT_TEST(test_cannot_start),
        UNIT_TEST(test_child_environment),
    };

    return UNIT_RUN(tests);
}
