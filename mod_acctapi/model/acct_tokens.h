/*
 * Access tokens: minting one (acctapi-admin token create, an app's token)
 * and the personal access tokens of /profile/tokens.
 */
#ifndef ACCT_TOKENS_H
#define ACCT_TOKENS_H

#include "acct_ident.h"
#include "acct_list.h"
#include "acct_store.h"

/*
 * Mints a personal access token: 64 hex characters from the CSPRNG, stored
 * as its SHA-256 and 16-character prefix.  `label` may be NULL; callers
 * validate its length in characters.  `scopes` is canonical text (see
 * acct_scopes_format); `expiry` 0 means never.  The full token is returned
 * once, in *token.
 */
acct_ident_rc acct_token_create(acct_store *st, apr_pool_t *pool,
                                apr_int64_t uid, const char *label,
                                const char *scopes, apr_int64_t expiry,
                                apr_int64_t now, apr_int64_t *id,
                                const char **token, acct_ident_result *res);

/*
 * Mints a token of `kind` ("pat", or "app" with `app_id`): 64 hex characters
 * from the CSPRNG, stored as its SHA-256 and its prefix.  The caller has
 * validated the rest.
 */
acct_ident_rc acct_token_mint(acct_store *st, apr_pool_t *pool,
                              apr_int64_t uid, const char *kind,
                              apr_int64_t app_id, const char *label,
                              const char *scopes, apr_int64_t expiry,
                              apr_int64_t now, apr_int64_t *id,
                              const char **token, acct_ident_result *res);

/*
 * What a token that never expires shows as its expiry: the public API's
 * "never" (its answers carry this timestamp, and linodego's tests take the
 * year 2999 to mean no expiry); its document and SDKs type expiry as a
 * timestamp, which null is not.  _AT: the same moment in epoch seconds,
 * what X-Filter compares a stored expiry with.
 */
#define ACCT_TOKEN_NEVER_EXPIRES "2999-12-12T05:00:00"
#define ACCT_TOKEN_NEVER_EXPIRES_AT "32501970000"

/*
 * The personal access tokens of /profile/tokens.  Active: the user's own
 * token of kind 'pat', not revoked, not expired at `now`.  Rows carry id,
 * label, scopes, created, expiry, token_prefix.
 */

/* The list of `uid`'s active tokens, for acct_list_respond; `render` is the
 * caller's to set. */
void acct_token_list_query(apr_pool_t *pool, apr_int64_t uid, apr_int64_t now,
                           acct_list_query *q);

/* Token `id` if it is one of `uid`'s active ones (else no row). */
acct_store_rc acct_token_get(acct_store *st, apr_pool_t *pool, apr_int64_t id,
                             apr_int64_t uid, apr_int64_t now,
                             acct_rows **rows);

/*
 * How many active tokens `uid` holds, for a cap on them.  Locks the user's
 * row first (acct_user_lock), then counts in a statement of its own: creates
 * of one user queue on the lock and each counts what the ones before it
 * committed.
 */
acct_store_rc acct_token_count_active(acct_store *st, apr_pool_t *pool,
                                      apr_int64_t uid, apr_int64_t now,
                                      apr_int64_t *count);

/* Sets the label of active token `id` of `uid`; *changed: rows changed. */
acct_store_rc acct_token_update(acct_store *st, apr_pool_t *pool,
                                apr_int64_t id, apr_int64_t uid,
                                apr_int64_t now, const char *label,
                                int *changed);

/* Revokes active token `id` of `uid`; *changed: rows changed. */
acct_store_rc acct_token_revoke(acct_store *st, apr_pool_t *pool,
                                apr_int64_t id, apr_int64_t uid,
                                apr_int64_t now, int *changed);

#endif
