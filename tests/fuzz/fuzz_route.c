/*
 * The route matcher on the service's own table: the first line of the input
 * is the method, the rest the raw path (still percent-encoded), exactly as
 * the glue passes them.  A match must name a route of the table with at most
 * ACCT_MAX_PATH_PARAMS decoded parameters; a refused method must list Allow.
 */
#include "fuzz_common.h"
#include "acct_router.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *pool = fuzz_pool();
    char *text = (char *)fuzz_text(pool, data, size);
    char *nl = strchr(text, '\n');
    const char *method = "GET", *path = text;
    acct_match match;
    acct_match_rc rc;
    int i;

    if (nl) {
        *nl = '\0';
        method = text;
        path = nl + 1;
    }
    memset(&match, 0, sizeof(match));
    rc = acct_route_match(acct_routes, pool, method, path, &match);
    if (rc == ACCT_MATCH_FOUND) {
        if (!match.route || !match.route->path) {
            abort();
        }
        for (i = 0; i < ACCT_MAX_PATH_PARAMS; i++) {
            if (match.params[i]) {
                (void)strlen(match.params[i]);
            }
        }
    }
    else if (rc == ACCT_MATCH_BAD_METHOD && (!match.allow || !*match.allow)) {
        abort();
    }
    apr_pool_destroy(pool);
    return 0;
}
