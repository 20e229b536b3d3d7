/*
 * Authentication (Authorization: Bearer) and the route-level authorisation
 * that follows it: scopes, and unrestricted-only operations.
 */
#ifndef ACCT_AUTH_H
#define ACCT_AUTH_H

#include "acct_principal.h"
#include "acct_req.h"
#include "acct_router.h"

typedef enum {
    ACCT_AUTH_OK = 0,
    ACCT_AUTH_INVALID,  /* missing, malformed, unknown, revoked or expired token */
    ACCT_AUTH_STORE     /* the lookup failed: *store_rc says how */
} acct_auth_rc;

/*
 * Resolves the Authorization header (may be NULL) with one indexed query on
 * the token's SHA-256, which reads the user's profile row too
 * (who->user_row).  Malformed headers are refused before any query.
 */
acct_auth_rc acct_authenticate(acct_store *st, apr_pool_t *pool,
                               const char *authorization, apr_int64_t now,
                               acct_principal *who, acct_store_rc *store_rc);

/*
 * A read to send with the token lookup (acct_store_select_with: one round
 * trip for both on PostgreSQL): `build` makes it from the token as it is
 * known before the lookup (0, or -1 for none); `read` holds it, and once
 * the lookup has run, its outcome: rows only when the token was found, and
 * in the account `build` was told, when it was told one (acct_token_ref).
 */
typedef struct acct_auth_also {
    int (*build)(void *baton, const acct_token_ref *token,
                 acct_store_read *read);
    void *baton;
    acct_store_read read;
} acct_auth_also;

/*
 * For a read `build` makes when no account is known (acct_token_ref's
 * hash alone): the account of the token stored under the hash, as a
 * subquery of one %s (the hash).  Revocation and expiry are not looked at:
 * the read's rows are kept only when the lookup has accepted the token.
 */
#define ACCT_TOKEN_ACCOUNT \
    "(SELECT u.account_id FROM tokens t JOIN users u ON u.id = t.user_id" \
    " WHERE t.token_hash = %s)"

/* acct_authenticate_with's flags: the lookup brings the user's profile
 * columns too (who->user_row, for GET /profile; NULL without it). */
#define ACCT_AUTH_PROFILE_ROW 0x1

/*
 * acct_authenticate (which reads the profile row), reading what `flags`
 * ask for, with `also` (may be NULL) sent with the lookup.
 */
acct_auth_rc acct_authenticate_with(acct_store *st, apr_pool_t *pool,
                                    const char *authorization,
                                    apr_int64_t now, acct_principal *who,
                                    acct_store_rc *store_rc, unsigned flags,
                                    acct_auth_also *also);

/*
 * The accounts this process has seen tokens belong to (acct_token_ref's
 * hint): a fixed table of the last token seen in each of its slots, shared
 * by the process's threads.  acct_auth_hints_init creates its lock (once
 * per process, before threads serve requests); without it there are no
 * hints, only slower reads.  -1 when the lock cannot be created.
 */
int acct_auth_hints_init(apr_pool_t *pool);

/* The account `token_hash` was last seen in, or 0. */
apr_int64_t acct_auth_hint(const char *token_hash);

/* Notes that `token_hash` belongs to `account_id`. */
void acct_auth_hint_note(const char *token_hash, apr_int64_t account_id);

/*
 * May `who` call `route` at all?  0 when yes; otherwise the status (401 for a
 * missing scope, 403 for an unrestricted-only route) with the reason of
 * docs/conventions.md in *reason.
 */
int acct_route_permits(const acct_route *route, const acct_principal *who,
                       const char **reason);

#endif
