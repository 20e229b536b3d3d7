/*
 * Trusted devices, a record another system owns (docs/operations.md,
 * "The operator CLI"): adding one validates its input before touching the
 * store and fails with ACCT_IDENT_NOT_FOUND when the user does not exist;
 * /profile/devices reads and revokes them.
 * Each get returns the one row of `id` when `uid` may see it, else none.
 */
#ifndef ACCT_DEVICES_H
#define ACCT_DEVICES_H

#include "acct_ident.h"
#include "acct_list.h"
#include "acct_store.h"

#define ACCT_USER_AGENT_MAX 512
#define ACCT_DEVICE_LIFETIME (30 * 86400)

/*
 * Adds a trusted device, last authenticated from `ip` now; `expiry` 0 means
 * ACCT_DEVICE_LIFETIME from `now`.
 */
acct_ident_rc acct_device_add(acct_store *st, apr_pool_t *pool,
                              apr_int64_t uid, const char *ip,
                              const char *user_agent, apr_int64_t expiry,
                              apr_int64_t now, apr_int64_t *id,
                              acct_ident_result *res);

/* Visible devices: `uid`'s own, neither revoked nor expired.  Rows: id,
 * created, expiry, last_authenticated, last_remote_addr, user_agent. */
void acct_device_list_query(apr_pool_t *pool, apr_int64_t uid,
                            apr_int64_t now, acct_list_query *q);
acct_store_rc acct_device_get(acct_store *st, apr_pool_t *pool,
                              apr_int64_t id, apr_int64_t uid,
                              apr_int64_t now, acct_rows **rows);
acct_store_rc acct_device_revoke(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t id, apr_int64_t uid,
                                 apr_int64_t now, int *changed);

#endif
