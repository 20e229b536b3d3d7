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
 * May `who` call `route` at all?  0 when yes; otherwise the status (401 for a
 * missing scope, 403 for an unrestricted-only route) with the reason of
 * DECISIONS.md in *reason.
 */
int acct_route_permits(const acct_route *route, const acct_principal *who,
                       const char **reason);

#endif
