/*
 * Identities: accounts, users and access tokens.  Shared by acctapi-admin
 * (how identities enter the system), the profile token routes and the tests.
 * Every function runs inside the caller's transaction, if any.
 */
#ifndef ACCT_IDENT_H
#define ACCT_IDENT_H

#include "acct_api.h"
#include "acct_store.h"

typedef enum {
    ACCT_IDENT_OK = 0,
    ACCT_IDENT_INVALID,   /* bad input: *error says why */
    ACCT_IDENT_NOT_FOUND, /* the account or user does not exist */
    ACCT_IDENT_CONFLICT,  /* the username is taken */
    ACCT_IDENT_STORE      /* the store failed: *store_rc says how */
} acct_ident_rc;

typedef struct acct_ident_result {
    acct_store_rc store_rc;
    const char *error;
} acct_ident_result;

acct_ident_rc acct_account_create(acct_store *st, apr_pool_t *pool,
                                  const char *name, apr_int64_t now,
                                  apr_int64_t *id, acct_ident_result *res);

acct_ident_rc acct_user_create(acct_store *st, apr_pool_t *pool,
                               apr_int64_t account_id, const char *username,
                               const char *email, int restricted,
                               apr_int64_t now, apr_int64_t *uid,
                               acct_ident_result *res);

/* Resolves a uid ("12") or a username to a uid. */
acct_ident_rc acct_user_find(acct_store *st, apr_pool_t *pool,
                             const char *user, apr_int64_t *uid,
                             acct_ident_result *res);

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

#endif
