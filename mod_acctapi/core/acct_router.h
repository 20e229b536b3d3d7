/*
 * The route table is data: one row per (method, path template).  The router
 * tells "no such path" (404) from "path exists, other method" (405 + Allow)
 * and from "path exists, OPTIONS" (answered by the glue, never routed);
 * scope headers and the OpenAPI document derive from the same rows.
 */
#ifndef ACCT_ROUTER_H
#define ACCT_ROUTER_H

#include <apr_pools.h>

#include "acct_req.h"
#include "acct_resp.h"
#include "acct_scope.h"

/* Route flags. */
#define ACCT_ROUTE_PUBLIC      0x01 /* no authentication; Authorization ignored */
#define ACCT_ROUTE_ANY_TOKEN   0x02 /* any valid token, no scope */
#define ACCT_ROUTE_BODY        0x04 /* takes a JSON body */
#define ACCT_ROUTE_LIST        0x08 /* paginated list: page, page_size, X-Filter */
#define ACCT_ROUTE_NO_STORE    0x10 /* the handler needs no database connection */
#define ACCT_ROUTE_CACHEABLE   0x20 /* Cache-Control: private, max-age=900 */
#define ACCT_ROUTE_UNRESTRICTED_ONLY 0x40 /* 403 for restricted users */
/* Without an Authorization header the handler runs for the public (req->who
 * NULL) and answers what anyone may see; with one, the token is checked as
 * on any scoped route.  GET /images: linode-cli configure calls it without
 * a token, as the public API allows. */
#define ACCT_ROUTE_TOKEN_OPTIONAL 0x80
/* The handler answers from the user's profile row, which the token lookup
 * then brings (acct_principal's user_row; NULL on other routes). */
#define ACCT_ROUTE_PROFILE_ROW 0x100

typedef struct acct_route {
    acct_method method;
    const char *path;        /* template under /v4: "/regions/{regionId}" */
    acct_handler *handler;
    unsigned flags;
    acct_family family;      /* required scope, unless PUBLIC or ANY_TOKEN */
    acct_level level;
    const char *param;       /* fixed argument of the handler, or NULL: the
                                engine of the per-engine database routes */
    acct_auth_read *read_with_auth; /* optional, see acct_auth_read */
} acct_route;

typedef enum {
    ACCT_MATCH_FOUND = 0,
    ACCT_MATCH_NO_PATH = 1,
    ACCT_MATCH_BAD_METHOD = 2,
    ACCT_MATCH_OPTIONS = 3      /* OPTIONS, known path: no route, allow set */
} acct_match_rc;

typedef struct acct_match {
    const acct_route *route;
    const char *params[ACCT_MAX_PATH_PARAMS];
    const char *allow;       /* "GET, HEAD, OPTIONS": set unless NO_PATH */
} acct_match;

/* The service's route table, terminated by a row with a NULL path. */
extern const acct_route acct_routes[];

/*
 * Matches `raw_path` (below the mount point, still percent-encoded, no query)
 * against `table`.  Each segment is percent-decoded on its own, so "%2F"
 * inside an engine id stays inside that parameter.  A segment that decodes
 * to anything but strict UTF-8 free of control characters (an encoded NUL
 * included) names no path: no parameter ever holds such bytes.  A template parameter
 * written "{name...}" takes the rest of the path, slashes included.  A
 * trailing slash is ignored.  `method` is the HTTP method; HEAD matches GET
 * (httpd drops the body), and OPTIONS on a known path is ACCT_MATCH_OPTIONS:
 * every path of the API answers OPTIONS, so `allow` always lists it.
 */
acct_match_rc acct_route_match(const acct_route *table, apr_pool_t *pool,
                               const char *method, const char *raw_path,
                               acct_match *out);

/* "*" for public and any-token routes, else "family:level". */
const char *acct_route_scope(apr_pool_t *pool, const acct_route *route);

const char *acct_method_name(acct_method m);

/* Decodes %XX escapes; NULL on a malformed escape or an encoded NUL. */
char *acct_percent_decode(apr_pool_t *pool, const char *s, size_t len);

#endif
