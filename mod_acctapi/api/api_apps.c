/*
 * OAuth apps the acting user authorized: /profile/apps.  Apps enter through
 * acctapi-admin (acct_app_authorize); here they are listed, viewed and
 * revoked.  A revoked app is gone from every view, and its token fails
 * authentication from the next request on (acct_auth.c reads the app).
 * An expired app stays listed, with its expiry, until the user revokes it.
 */
#include "api_handlers.h"
#include "acct_apps.h"
#include "acct_json.h"
#include "acct_list.h"
#include "api_own.h"

static json_t *render_app(acct_req *req, const acct_rows *rows, int i)
{
    const char *website = acct_rows_get(rows, i, "website");
    json_t *o = json_object();

    json_object_set_new(o, "id", acct_json_int(acct_rows_get(rows, i, "id")));
    json_object_set_new(o, "label",
                        acct_json_str(acct_rows_get(rows, i, "label")));
    json_object_set_new(o, "created",
                        acct_json_time(req->pool,
                                       acct_rows_get(rows, i, "created")));
    json_object_set_new(o, "expiry",
                        acct_json_time(req->pool,
                                       acct_rows_get(rows, i, "expiry")));
    json_object_set_new(o, "scopes",
                        acct_json_str(acct_rows_get(rows, i, "scopes")));
    json_object_set_new(o, "thumbnail_url",
                        acct_json_str(acct_rows_get(rows, i, "thumbnail_url")));
    /* A website the app did not give is "": the public API types it as a
     * string.  (Its thumbnail_url is null then, as the public API's.) */
    json_object_set_new(o, "website",
                        json_string(website ? website : ""));
    return o;
}

void api_apps_list(acct_req *req, acct_resp *resp)
{
    acct_list_query q;

    acct_app_list_query(req->pool, req->who->user_id, &q);
    q.render = render_app;
    acct_list_respond(req, resp, &q);
}

void api_app_get(acct_req *req, acct_resp *resp)
{
    api_own_show(req, resp, acct_app_get, render_app);
}

/* An app may revoke itself; the next request with its token is a 401. */
void api_app_revoke(acct_req *req, acct_resp *resp)
{
    api_own_remove(req, resp, acct_app_revoke);
}
