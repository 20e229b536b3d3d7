/*
 * Authorized OAuth apps, a record another system owns (docs/operations.md,
 * "The operator CLI"): authorizing one validates its input before touching the
 * store and fails with ACCT_IDENT_NOT_FOUND when the user does not exist;
 * /profile/apps reads and revokes them.
 * Each get returns the one row of `id` when `uid` may see it, else none.
 */
#ifndef ACCT_APPS_H
#define ACCT_APPS_H

#include "acct_ident.h"
#include "acct_list.h"
#include "acct_store.h"

#define ACCT_APP_LABEL_MAX 100
#define ACCT_URL_MAX 2048

/*
 * Authorizes an OAuth app for `uid` and mints its access token: a token of
 * kind 'app' bound to the app, with the app's scopes (stored canonical) and
 * expiry (0: never).  `website` and `thumbnail_url` are http(s) URLs or
 * NULL.  The full token is returned once, in *token.
 */
acct_ident_rc acct_app_authorize(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t uid, const char *label,
                                 const char *scopes, const char *website,
                                 const char *thumbnail_url, apr_int64_t expiry,
                                 apr_int64_t now, apr_int64_t *app_id,
                                 const char **token, acct_ident_result *res);

/* Visible apps: `uid`'s own, not revoked (an expired one stays listed).
 * Rows: id, label, created, expiry, scopes, thumbnail_url, website. */
void acct_app_list_query(apr_pool_t *pool, apr_int64_t uid,
                         acct_list_query *q);
/* `now` is not used: an expired app stays visible. */
acct_store_rc acct_app_get(acct_store *st, apr_pool_t *pool, apr_int64_t id,
                           apr_int64_t uid, apr_int64_t now,
                           acct_rows **rows);

/*
 * Revokes app `id` of `uid` and, when that changed it, the app's token row
 * (authentication already refuses a revoked app's token: this keeps the
 * tokens table truthful on its own).  *changed: 0 when no such app.
 */
acct_store_rc acct_app_revoke(acct_store *st, apr_pool_t *pool,
                              apr_int64_t id, apr_int64_t uid, apr_int64_t now,
                              int *changed);

#endif
