/*
 * The program runner (acct_proc.h).  One thread starts the program, reads
 * its stderr and reaps it; nothing here touches process-wide state (signal
 * handlers, SIGCHLD), so any number of threads may run programs at once.
 */
#include "acct_proc.h"

#include <apr_strings.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* How often a program that closed its stderr is checked for its exit
 * before the deadline. */
#define WAIT_STEP_USEC 10000

const char *const *acct_proc_argv(apr_pool_t *pool, const char *command,
                                  const char *const *append)
{
    char **words = NULL;
    const char **argv;
    int n = 0, m = 0;

    if (!command || apr_tokenize_to_argv(command, &words, pool) != APR_SUCCESS
        || !words || !words[0]) {
        return NULL;
    }
    while (words[n]) {
        n++;
    }
    while (append && append[m]) {
        m++;
    }
    argv = apr_palloc(pool, (size_t)(n + m + 1) * sizeof(*argv));
    memcpy(argv, words, (size_t)n * sizeof(*argv));
    if (m > 0) {
        memcpy(argv + n, append, (size_t)m * sizeof(*argv));
    }
    argv[n + m] = NULL;
    return argv;
}

/* A clock that the operator setting the time does not move. */
static apr_time_t monotonic_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (apr_time_t)ts.tv_sec * APR_USEC_PER_SEC + ts.tv_nsec / 1000;
}

/*
 * Starts argv with stdin and stdout on /dev/null and stderr on `err_fd`,
 * in a process group of its own, with every signal unblocked and at its
 * default.  0, or an errno value.
 */
static int spawn(const char *const *argv, int err_fd, pid_t *pid)
{
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    sigset_t none, defaults;
    int rc, sig;

    sigemptyset(&none);
    sigemptyset(&defaults);
    for (sig = 1; sig < 32; sig++) {
        if (sig != SIGKILL && sig != SIGSTOP) {
            sigaddset(&defaults, sig);
        }
    }
    if ((rc = posix_spawn_file_actions_init(&actions)) != 0) {
        return rc;
    }
    if ((rc = posix_spawnattr_init(&attr)) != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return rc;
    }
    if ((rc = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null",
                                               O_RDONLY, 0)) == 0
        && (rc = posix_spawn_file_actions_addopen(&actions, 1, "/dev/null",
                                                  O_WRONLY, 0)) == 0
        && (rc = posix_spawn_file_actions_adddup2(&actions, err_fd, 2)) == 0
        && (rc = posix_spawnattr_setflags(
                &attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
                       | POSIX_SPAWN_SETPGROUP)) == 0
        && (rc = posix_spawnattr_setsigmask(&attr, &none)) == 0
        && (rc = posix_spawnattr_setsigdefault(&attr, &defaults)) == 0
        && (rc = posix_spawnattr_setpgroup(&attr, 0)) == 0) {
        rc = posix_spawnp(pid, argv[0], &actions, &attr,
                          (char *const *)argv, environ);
    }
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    return rc;
}

/* Keeps the start of `chunk` in out->err, on one printable line. */
static void keep(acct_proc_outcome *out, size_t *kept, const char *chunk,
                 ssize_t n)
{
    ssize_t i;

    for (i = 0; i < n && *kept < ACCT_PROC_STDERR_KEEP; i++) {
        char c = chunk[i];

        out->err[(*kept)++] = (c < ' ' || c == 0x7f) ? ' ' : c;
    }
}

/*
 * Reads `fd` to its end (every writer closed it: normally, the program
 * exited), or until `deadline` (0: none).  0 at the end, 1 at the
 * deadline.  A read error ends the reading like the end does.
 */
static int drain(int fd, apr_time_t deadline, acct_proc_outcome *out,
                 size_t *kept)
{
    char chunk[512];
    ssize_t n;

    for (;;) {
        if (deadline) {
            struct pollfd p;
            apr_time_t left = deadline - monotonic_now();
            int ready;

            if (left <= 0) {
                return 1;
            }
            p.fd = fd;
            p.events = POLLIN;
            p.revents = 0;
            ready = poll(&p, 1, (int)((left + 999) / 1000));
            if (ready < 0 && errno == EINTR) {
                continue;
            }
            if (ready == 0) {
                continue; /* the deadline is checked again */
            }
            if (ready < 0) {
                return 0;
            }
        }
        n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return 0;
        }
        keep(out, kept, chunk, n);
    }
}

/*
 * Reaps `pid`, waiting until `deadline` (0: as long as it takes).  0
 * reaped, 1 the deadline passed first, -1 waiting failed (errno).
 */
static int reap(pid_t pid, apr_time_t deadline, int *status)
{
    pid_t r;

    for (;;) {
        r = waitpid(pid, status, deadline ? WNOHANG : 0);
        if (r == pid) {
            return 0;
        }
        if (r < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -1;
        }
        /* WNOHANG: still running (it closed its stderr, or handed it on). */
        {
            apr_time_t left = deadline - monotonic_now();
            struct timespec pause;

            if (left <= 0) {
                return 1;
            }
            if (left > WAIT_STEP_USEC) {
                left = WAIT_STEP_USEC;
            }
            pause.tv_sec = 0;
            pause.tv_nsec = (long)left * 1000L;
            nanosleep(&pause, NULL);
        }
    }
}

acct_proc_how acct_proc_run(const char *const *argv,
                            apr_interval_time_t timeout,
                            acct_proc_outcome *out)
{
    apr_time_t deadline = timeout > 0 ? monotonic_now() + timeout : 0;
    size_t kept = 0;
    int fds[2], rc, status = 0, late;
    pid_t pid = 0;

    memset(out, 0, sizeof(*out));
    out->how = ACCT_PROC_NOT_STARTED;
    if (pipe2(fds, O_CLOEXEC) != 0) {
        out->step = ACCT_PROC_STEP_PIPE;
        out->code = errno;
        return out->how;
    }
    rc = spawn(argv, fds[1], &pid);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        out->step = ACCT_PROC_STEP_SPAWN;
        out->code = rc;
        return out->how;
    }
    late = drain(fds[0], deadline, out, &kept);
    close(fds[0]);
    while (kept > 0 && out->err[kept - 1] == ' ') {
        kept--;
    }
    out->err[kept] = '\0';
    if (!late) {
        rc = reap(pid, deadline, &status);
        if (rc < 0) {
            out->how = ACCT_PROC_LOST;
            out->code = errno;
            return out->how;
        }
        late = rc > 0;
    }
    if (late) {
        /* The program leads its group (we have not reaped it, so the id
         * is still its); whatever it started in the group goes too. */
        kill(-pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        out->how = ACCT_PROC_TIMED_OUT;
        out->code = SIGKILL;
        return out->how;
    }
    if (WIFEXITED(status)) {
        out->how = ACCT_PROC_EXITED;
        out->code = WEXITSTATUS(status);
    }
    else {
        out->how = ACCT_PROC_KILLED;
        out->code = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    }
    return out->how;
}
