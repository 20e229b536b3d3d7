/*
 * Authentication (Authorization: Bearer) and the route-level authorisation
 * that follows it: scopes, and unrestricted-only operations.
 */
#ifndef ACCT_AUTH_H
#define ACCT_AUTH_H

#include "acct_api.h"
#include "acct_route.h"

typedef enum {
    ACCT_AUTH_OK = 0,
    ACCT_AUTH_INVALID,  /* missing, malformed, unknown, revoked or expired token */
    ACCT_AUTH_STORE     /* the lookup failed: *store_rc says how */
} acct_auth_rc;

/*
 * Resolves the Authorization header (may be NULL) with one indexed query on
 * the token's SHA-256.  Malformed headers are refused before any query.
 */
acct_auth_rc acct_authenticate(acct_store *st, apr_pool_t *pool,
                               const char *authorization, apr_int64_t now,
                               acct_principal *who, acct_store_rc *store_rc);

/*
 * A read to send with the token lookup (acct_store_select_with: one round
 * trip for both on PostgreSQL): `build` makes it from the hash the token is
 * stored under (0, or -1 for none); `read` holds it, and once the lookup
 * has run, its outcome (rows only when the token was found).
 */
typedef struct acct_auth_also {
    int (*build)(void *baton, const char *token_hash, acct_store_read *read);
    void *baton;
    acct_store_read read;
} acct_auth_also;

/* acct_authenticate, with `also` (may be NULL) sent with the lookup. */
acct_auth_rc acct_authenticate_with(acct_store *st, apr_pool_t *pool,
                                    const char *authorization,
                                    apr_int64_t now, acct_principal *who,
                                    acct_store_rc *store_rc,
                                    acct_auth_also *also);

/*
 * May `who` call `route` at all?  0 when yes; otherwise the status (401 for a
 * missing scope, 403 for an unrestricted-only route) with the reason of
 * DECISIONS.md in *reason.
 */
int acct_route_permits(const acct_route *route, const acct_principal *who,
                       const char **reason);

#endif
