#include "api_own.h"

acct_rows *api_own_of_path(acct_req *req, acct_resp *resp,
                           acct_own_get_fn *get, apr_int64_t *id)
{
    acct_outcome out;
    acct_rows *rows;

    if (acct_path_id(req, resp, 0, id) != 0) {
        return NULL;
    }
    rows = acct_own_row(req, get, *id, &out);
    return acct_resp_outcome(resp, req->pool, out) == 0 ? rows : NULL;
}

void api_own_show(acct_req *req, acct_resp *resp, acct_own_get_fn *get,
                  acct_render_row *render)
{
    apr_int64_t id;
    acct_rows *rows = api_own_of_path(req, resp, get, &id);

    if (rows) {
        acct_resp_ok(resp, req->pool, render(req, rows, 0));
    }
}

void api_own_remove(acct_req *req, acct_resp *resp,
                    acct_own_change_fn *change)
{
    apr_int64_t id;

    if (acct_path_id(req, resp, 0, &id) == 0
        && acct_resp_outcome(resp, req->pool,
                             acct_own_change(req, change, id)) == 0) {
        acct_resp_ok(resp, req->pool, NULL);
    }
}
