#include "acct_auth.h"
#include "acct_crypto.h"
#include "acct_log.h"

#include <apr_strings.h>
#include <string.h>
#include <strings.h>

static const acct_sql q_token_lookup = ACCT_SQL("token_lookup",
    "SELECT t.id AS token_id, t.kind, t.scopes, t.expiry,"
    " u.id AS user_id, u.account_id, u.restricted, u.username"
    " FROM tokens t JOIN users u ON u.id = t.user_id"
    " WHERE t.token_hash = %s AND t.revoked = 0");

/* "Bearer <64 hex>", scheme case-insensitive, one or more spaces. */
static const char *bearer_token(const char *header)
{
    const char *p;

    if (!header || strncasecmp(header, "Bearer ", 7) != 0) {
        return NULL;
    }
    p = header + 7;
    while (*p == ' ') {
        p++;
    }
    return acct_token_well_formed(p) ? p : NULL;
}

acct_auth_rc acct_authenticate(acct_store *st, apr_pool_t *pool,
                               const char *authorization, apr_int64_t now,
                               acct_principal *who, acct_store_rc *store_rc)
{
    const char *token = bearer_token(authorization), *args[1], *v;
    acct_rows *rows = NULL;
    apr_int64_t expiry;
    acct_store_rc rc;

    memset(who, 0, sizeof(*who));
    if (!token) {
        return ACCT_AUTH_INVALID;
    }
    args[0] = acct_sha256_hex(pool, token);
    if (!args[0]) {
        *store_rc = ACCT_STORE_FAILED;
        return ACCT_AUTH_STORE;
    }
    rc = acct_store_select(st, pool, &q_token_lookup, &rows, 1, args);
    if (rc != ACCT_STORE_OK) {
        *store_rc = rc;
        return ACCT_AUTH_STORE;
    }
    if (rows->nrows != 1) {
        return ACCT_AUTH_INVALID;
    }
    v = acct_rows_get(rows, 0, "expiry");
    if (v && (acct_parse_i64(v, &expiry) != 0 || expiry <= now)) {
        return ACCT_AUTH_INVALID;
    }
    if (acct_parse_i64(acct_rows_get(rows, 0, "token_id"), &who->token_id)
        || acct_parse_i64(acct_rows_get(rows, 0, "user_id"), &who->user_id)
        || acct_parse_i64(acct_rows_get(rows, 0, "account_id"),
                          &who->account_id)) {
        *store_rc = ACCT_STORE_FAILED;
        return ACCT_AUTH_STORE;
    }
    if (acct_scopes_parse(pool, acct_rows_get(rows, 0, "scopes"), &who->scopes,
                          NULL) != 0) {
        acct_log(ACCT_LOG_WARN, "token %" APR_INT64_T_FMT " has unparsable "
                 "scopes; refusing it", who->token_id);
        return ACCT_AUTH_INVALID;
    }
    v = acct_rows_get(rows, 0, "restricted");
    who->restricted = v && strcmp(v, "0") != 0;
    who->username = acct_rows_get(rows, 0, "username");
    who->scopes_text = acct_scopes_format(pool, &who->scopes);
    who->client = apr_psprintf(pool, "pat:%" APR_INT64_T_FMT, who->token_id);
    return ACCT_AUTH_OK;
}

int acct_route_permits(const acct_route *route, const acct_principal *who,
                       const char **reason)
{
    if (route->flags & ACCT_ROUTE_PUBLIC) {
        return 0;
    }
    if (!(route->flags & ACCT_ROUTE_ANY_TOKEN)
        && !acct_scopes_allow(&who->scopes, route->family, route->level)) {
        *reason = ACCT_R_SCOPE;
        return 401;
    }
    if ((route->flags & ACCT_ROUTE_UNRESTRICTED_ONLY) && who->restricted) {
        *reason = ACCT_R_UNAUTHORIZED;
        return 403;
    }
    return 0;
}
