/*
 * Read-only views of the objects other services own that the operator
 * registered (acctapi-admin entity add): GET /linode/instances, /volumes,
 * /nodebalancers and /images, each with its /{id}.  The route's `param` is
 * the entity type.  Clients call these before anything else (linode-cli
 * configure lists /images; SDKs and the Terraform provider resolve tags and
 * labels through them); nothing here changes an object, so every other
 * method is the router's 405.
 *
 * GET /images also answers without a token (the route is token-optional),
 * as the public API does for its public images: linode-cli configure asks
 * without one.  The module keeps no public images, so the public sees an
 * empty list; with a token, the account's private images are listed.
 */
#include "api_handlers.h"
#include "acct_entities.h"
#include "acct_list.h"
#include "acct_router.h"

void api_entities_list(acct_req *req, acct_resp *resp)
{
    acct_store *st = NULL;
    acct_list_query q;

    if (acct_resp_store_failed(req, resp, acct_req_store(req, &st)) != 0) {
        return;
    }
    acct_entities_list_query(req, st, req->route->param, &q);
    acct_list_respond(req, resp, &q);
}

void api_entity_get(acct_req *req, acct_resp *resp)
{
    const char *type = req->route->param;
    acct_outcome out;
    acct_rows *rows = acct_entities_load(req, type,
                                         acct_entities_id(type, req->params[0]),
                                         &out);

    if (acct_resp_outcome(resp, req->pool, out) == 0) {
        acct_resp_ok(resp, req->pool, acct_entities_render(req, rows, 0));
    }
}
