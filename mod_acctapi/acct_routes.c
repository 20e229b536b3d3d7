/*
 * The service's routes.  One row per (method, path): the handler, the flags,
 * and the scope a token needs (DECISIONS.md, "Auth, scopes, grants").
 */
#include "acct_route.h"
#include "api_handlers.h"

#define PUBLIC_GET(path, fn, extra) \
    {ACCT_METHOD_GET, path, fn, ACCT_ROUTE_PUBLIC | (extra), ACCT_FAM_ACCOUNT, \
     ACCT_LEVEL_NONE}
#define ACCOUNT_READ(method, path, fn, flags) \
    {method, path, fn, flags, ACCT_FAM_ACCOUNT, ACCT_LEVEL_READ_ONLY}
#define ACCOUNT_WRITE(method, path, fn, flags) \
    {method, path, fn, flags, ACCT_FAM_ACCOUNT, ACCT_LEVEL_READ_WRITE}

const acct_route acct_routes[] = {
    /* Catalogues: public, the Authorization header is ignored. */
    PUBLIC_GET("/regions", api_regions_list,
               ACCT_ROUTE_LIST | ACCT_ROUTE_CACHEABLE),
    PUBLIC_GET("/regions/availability", api_regions_availability,
               ACCT_ROUTE_LIST),
    PUBLIC_GET("/regions/{regionId}", api_region_get, ACCT_ROUTE_CACHEABLE),
    PUBLIC_GET("/regions/{regionId}/availability", api_region_availability, 0),
    PUBLIC_GET("/compute/types", api_types_list, ACCT_ROUTE_LIST),
    PUBLIC_GET("/compute/types/{typeId}", api_type_get, 0),
    PUBLIC_GET("/databases/engines", api_engines_list, ACCT_ROUTE_LIST),
    PUBLIC_GET("/databases/engines/{engineId...}", api_engine_get, 0),

    /* Profile: any valid token. */
    {ACCT_METHOD_GET, "/profile", api_profile_get, ACCT_ROUTE_ANY_TOKEN,
     ACCT_FAM_ACCOUNT, ACCT_LEVEL_NONE},
    {ACCT_METHOD_GET, "/profile/grants", api_profile_grants,
     ACCT_ROUTE_ANY_TOKEN, ACCT_FAM_ACCOUNT, ACCT_LEVEL_NONE},

    /* Personal access tokens. */
    ACCOUNT_READ(ACCT_METHOD_GET, "/profile/tokens", api_tokens_list,
                 ACCT_ROUTE_LIST),
    ACCOUNT_WRITE(ACCT_METHOD_POST, "/profile/tokens", api_token_create,
                  ACCT_ROUTE_BODY),
    ACCOUNT_READ(ACCT_METHOD_GET, "/profile/tokens/{tokenId}", api_token_get, 0),
    ACCOUNT_WRITE(ACCT_METHOD_PUT, "/profile/tokens/{tokenId}", api_token_update,
                  ACCT_ROUTE_BODY),
    ACCOUNT_WRITE(ACCT_METHOD_DELETE, "/profile/tokens/{tokenId}",
                  api_token_revoke, 0),

    {0, NULL, NULL, 0, 0, 0}
};
