/*
 * The reload command of zone publishing (AcctapiZoneReloadCommand): run
 * and waited for (acctapi-admin), or in this process's background worker
 * (after a request published its changes, acct_publish.h).  The command
 * runs through acct_proc.h: its words split like a shell would, no shell,
 * stdin and stdout on /dev/null, the start of stderr in the log line of a
 * failure, its own process group, no deadline.
 */
#ifndef ACCT_PUBLISH_RELOAD_H
#define ACCT_PUBLISH_RELOAD_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <apr_errno.h>
#include <apr_time.h>

/*
 * Runs `command` (words as AcctapiZoneReloadCommand has them) with `zone`
 * appended unless NULL, and waits for it; stdin and stdout are /dev/null,
 * stderr is kept for the log.  Unless `dir` is NULL, it runs holding the
 * reload lock of zone directory `dir`, so that the reload commands of a
 * directory run one at a time, in the order their changes were published
 * (as near as the lock's queue goes).  0 when it exited 0, else -1 (logged
 * with its exit status).
 */
int acct_publish_reload(apr_pool_t *pool, const char *dir,
                        const char *command, const char *zone);

/*
 * Starts this process's background worker, a thread owned by `pool` (an
 * httpd child's pool).  The pool's cleanup stops it: the worker runs what
 * is still pending and the confirming run at once, then exits and is
 * joined, so the pool's owner waits for the commands under way.  0, or an
 * APR error (logged).
 */
apr_status_t acct_publish_reload_start(apr_pool_t *pool);

/*
 * The same as acct_publish_reload in the background worker, once per
 * entry of `zones` (const char *; a NULL entry appends nothing): returns
 * at once.  Requests still waiting are merged (a run without a zone
 * replaces the runs of single zones of its directory and command; a zone
 * whose file is gone from `dir` is skipped), and everything run is run
 * once more when no request has come for the confirmation delay (2 s),
 * because a nameserver may drop a reload that finds the zone still
 * loading.  Without a worker, the same runs, merged, in the caller.
 */
void acct_publish_reload_background(const char *dir, const char *command,
                                    const apr_array_header_t *zones);

/* Sets the confirmation delay of the workers started after it (tests make
 * it short, or very long). */
void acct_publish_set_confirm_delay(apr_interval_time_t delay);

#endif
