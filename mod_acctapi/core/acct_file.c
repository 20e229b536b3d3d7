/*
 * Atomic replacement and lock files (acct_file.h).
 */
#include "acct_file.h"

#include <apr_atomic.h>
#include <apr_errno.h>
#include <apr_strings.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

const char *acct_os_error(apr_pool_t *pool, int err)
{
    char buf[120];

    return apr_pstrdup(pool, apr_strerror(APR_FROM_OS_ERROR(err), buf,
                                          sizeof(buf)));
}

const char *acct_file_in_dir(apr_pool_t *pool, const char *dir,
                             const char *name)
{
    size_t len = strlen(dir);

    while (len > 1 && dir[len - 1] == '/') {
        len--;
    }
    return apr_pstrcat(pool, apr_pstrmemdup(pool, dir, len), "/", name, NULL);
}

int acct_file_exists(const char *path)
{
    struct stat sb;

    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

static void failed(acct_file_error *e, const char *step, const char *path)
{
    e->step = step;
    e->path = path;
    e->err = errno;
}

/* Does `path` hold exactly these bytes? */
static int same_content(const char *path, const char *text, apr_size_t len)
{
    char buf[65536];
    struct stat sb;
    apr_size_t done = 0;
    ssize_t n;
    int fd = open(path, O_RDONLY | O_CLOEXEC), same = 0;

    if (fd < 0) {
        return 0;
    }
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)
        && (apr_size_t)sb.st_size == len) {
        same = 1;
        while (same && done < len) {
            n = read(fd, buf, sizeof(buf));
            if (n < 0 && errno == EINTR) {
                continue;
            }
            same = n > 0 && (apr_size_t)n <= len - done
                   && memcmp(buf, text + done, (size_t)n) == 0;
            done += n > 0 ? (apr_size_t)n : 0;
        }
    }
    close(fd);
    return same;
}

static int write_all(int fd, const char *text, apr_size_t len)
{
    ssize_t n;

    while (len > 0) {
        n = write(fd, text, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            if (n == 0) {
                errno = EIO;
            }
            return -1;
        }
        text += n;
        len -= (apr_size_t)n;
    }
    return 0;
}

/* Temporary names never repeat within a process, whatever the thread: the
 * process's count of them, for its life, changed only atomically. */
static volatile apr_uint32_t tmp_counter;

/*
 * The modification time a new version of `path` gets: now, or just after
 * the version it replaces, whichever is later.  A nameserver asked to
 * reload a zone skips the load when the file is not newer than the one it
 * last loaded (BIND compares the two times, "skipping load: master file
 * older than last load"); two versions written within one tick of the
 * kernel's coarse file clock would have equal times, and the second would
 * never be served.
 */
static struct timespec next_mtime(const char *path)
{
    struct timespec now;
    struct stat sb;

    clock_gettime(CLOCK_REALTIME, &now);
    if (stat(path, &sb) == 0
        && (sb.st_mtim.tv_sec > now.tv_sec
            || (sb.st_mtim.tv_sec == now.tv_sec
                && sb.st_mtim.tv_nsec >= now.tv_nsec))) {
        now = sb.st_mtim;
        if (++now.tv_nsec == 1000000000L) {
            now.tv_sec++;
            now.tv_nsec = 0;
        }
    }
    return now;
}

/*
 * Fills and closes the new file `fd`, which replaces `path`; NULL, or the
 * step that failed (errno set).
 */
static const char *fill(int fd, const char *path, const char *text,
                        apr_size_t len, int mode)
{
    struct timespec times[2];
    const char *step = NULL;

    times[0].tv_sec = 0;
    times[0].tv_nsec = UTIME_OMIT;
    /* The mode asked for, whatever the process's umask (the nameserver's
     * user reads zone files). */
    if (fchmod(fd, (mode_t)mode) != 0) {
        step = "chmod";
    }
    else if (write_all(fd, text, len) != 0) {
        step = "write";
    }
    else if ((times[1] = next_mtime(path), futimens(fd, times)) != 0) {
        step = "set the time of";
    }
    else if (fsync(fd) != 0) {
        step = "sync";
    }
    if (step) {
        int err = errno;

        close(fd);
        errno = err;
        return step;
    }
    return close(fd) == 0 ? NULL : "close";
}

/* Makes a rename in `dir` durable; 0, or -1 (errno set). */
static int sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc, err;

    if (fd < 0) {
        return -1;
    }
    rc = fsync(fd);
    err = errno;
    close(fd);
    errno = err;
    return rc;
}

int acct_file_replace(apr_pool_t *pool, const char *dir, const char *name,
                      const char *text, apr_size_t len, int mode,
                      acct_file_error *e)
{
    const char *path = acct_file_in_dir(pool, dir, name), *tmp, *step, *suffix;
    unsigned n = apr_atomic_inc32(&tmp_counter) + 1;
    int fd;

    memset(e, 0, sizeof(*e));
    if (same_content(path, text, len)) {
        return 0;
    }
    suffix = apr_psprintf(pool, ACCT_FILE_TMP_MARK "%ld-%u", (long)getpid(), n);
    tmp = acct_file_in_dir(pool, dir, apr_psprintf(
        pool, ".%.*s%s", (int)(ACCT_FILE_NAME_LIMIT - 1 - strlen(suffix)),
        name, suffix));
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
              (mode_t)mode);
    if (fd < 0) {
        step = "create";
    }
    else if (!(step = fill(fd, path, text, len, mode))) {
        if (rename(tmp, path) == 0) {
            if (sync_dir(dir) != 0) {
                failed(e, "sync the directory of", path);
            }
            return 1;
        }
        step = "rename";
    }
    failed(e, step, tmp);
    if (fd >= 0) {
        unlink(tmp);
    }
    return -1;
}

int acct_file_remove(apr_pool_t *pool, const char *dir, const char *name,
                     acct_file_error *e)
{
    const char *path = acct_file_in_dir(pool, dir, name);

    memset(e, 0, sizeof(*e));
    if (unlink(path) == 0) {
        return 1;
    }
    if (errno == ENOENT) {
        return 0;
    }
    failed(e, "remove", path);
    return -1;
}

int acct_file_lock(apr_pool_t *pool, const char *dir, const char *name,
                   int mode, acct_file_error *e)
{
    const char *path = acct_file_in_dir(pool, dir, name);
    /* Read-only is enough for flock, and opens a lock file that another
     * user (acctapi-admin run as root) created. */
    int fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, (mode_t)mode);

    memset(e, 0, sizeof(*e));
    if (fd < 0) {
        failed(e, "open", path);
        return -1;
    }
    while (flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            failed(e, "lock", path);
            close(fd);
            return -1;
        }
    }
    return fd;
}
