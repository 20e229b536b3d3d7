/*
 * Files that readers in other processes must never see half written
 * (zone files, zones.conf), and lock files that order the writers of one
 * directory across processes and threads.
 *
 * Nothing is logged here: a failure says which step failed on which path
 * with which errno, and the caller writes its own line.
 */
#ifndef ACCT_FILE_H
#define ACCT_FILE_H

#include <apr_pools.h>

/* Marks the temporary files of acct_file_replace: ".<name>" TMP "<pid>-<n>". */
#define ACCT_FILE_TMP_MARK ".tmp-"

/* The longest file name written (NAME_MAX of common file systems). */
#define ACCT_FILE_NAME_LIMIT 255

/* What failed, for the caller's log line. */
typedef struct acct_file_error {
    const char *step;   /* "create", "write", "rename", "open", "lock" ... */
    const char *path;   /* the file the step failed on */
    int err;            /* errno */
} acct_file_error;

/* dir/name, without doubling the separator. */
const char *acct_file_in_dir(apr_pool_t *pool, const char *dir,
                             const char *name);

/* Is `path` a regular file (following symbolic links)? */
int acct_file_exists(const char *path);

/*
 * Makes dir/name hold exactly `len` bytes of `text` with permissions
 * `mode`: unchanged when it does already, else written to a temporary file
 * in `dir`, synced, renamed over it and the directory synced, so a reader
 * sees the old or the new content, never a mix, and a crash leaves one of
 * the two.  The new version's modification time is later than the old
 * one's even within one tick of the file system's clock.  1 written, 0
 * unchanged, -1 failed (*e set; the temporary file is removed).  A failed
 * sync of the directory after the rename still returns 1 (the new content
 * is what readers see) with *e set, step "sync the directory of".
 */
int acct_file_replace(apr_pool_t *pool, const char *dir, const char *name,
                      const char *text, apr_size_t len, int mode,
                      acct_file_error *e);

/* Removes dir/name: 1 removed, 0 there was none, -1 failed (*e set). */
int acct_file_remove(apr_pool_t *pool, const char *dir, const char *name,
                     acct_file_error *e);

/*
 * Takes an exclusive flock(2) on dir/name, created (with `mode`) if need
 * be, waiting for it.  The descriptor, whose closing unlocks, or -1 (*e
 * set).  Each call is a lock of its own: threads of one process exclude
 * each other too.
 */
int acct_file_lock(apr_pool_t *pool, const char *dir, const char *name,
                   int mode, acct_file_error *e);

/* The text of errno value `err`. */
const char *acct_os_error(apr_pool_t *pool, int err);

#endif
