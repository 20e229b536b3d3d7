/*
 * The login history, a record another system owns (docs/operations.md,
 * "The operator CLI"): recording a login validates its input before touching
 * the store and fails with ACCT_IDENT_NOT_FOUND when the user does not
 * exist; /profile/logins reads them.
 * Each get returns the one row of `id` when `uid` may see it, else none.
 */
#ifndef ACCT_LOGINS_H
#define ACCT_LOGINS_H

#include "acct_ident.h"
#include "acct_list.h"
#include "acct_store.h"

/*
 * Records a login of `uid` from `ip` at `at`; `status` is "successful" or
 * "failed".  The user's username and restriction are copied, as they were
 * at the time of the login.
 */
acct_ident_rc acct_login_record(acct_store *st, apr_pool_t *pool,
                                apr_int64_t uid, const char *ip,
                                const char *status, apr_int64_t at,
                                apr_int64_t *id, acct_ident_result *res);

/* Logins are shown for this long, by the clock. */
#define ACCT_LOGIN_HISTORY (90 * 86400)

/* Visible logins: `uid`'s own successful ones of the last
 * ACCT_LOGIN_HISTORY.  Rows: id, datetime, ip, restricted, status, username. */
void acct_login_list_query(apr_pool_t *pool, apr_int64_t uid, apr_int64_t now,
                           acct_list_query *q);
acct_store_rc acct_login_get(acct_store *st, apr_pool_t *pool, apr_int64_t id,
                             apr_int64_t uid, apr_int64_t now,
                             acct_rows **rows);

#endif
