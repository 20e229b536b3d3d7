/*
 * Login history of the acting user: /profile/logins.  Logins are recorded
 * by the system that authenticates users (acctapi-admin login record); the
 * API shows the successful ones of the last 90 days by the clock (the
 * contract's wording; failed ones are kept but not shown), and older ones
 * are gone from every view.  docs/conventions.md lists no filterable field for
 * logins: any X-Filter key is refused.
 */
#include "api_handlers.h"
#include "acct_json.h"
#include "acct_list.h"
#include "acct_logins.h"
#include "api_own.h"

static json_t *render_login(acct_req *req, const acct_rows *rows, int i)
{
    json_t *o = json_object();

    json_object_set_new(o, "id", acct_json_int(acct_rows_get(rows, i, "id")));
    json_object_set_new(o, "datetime",
                        acct_json_time(req->pool,
                                       acct_rows_get(rows, i, "datetime")));
    json_object_set_new(o, "ip", acct_json_str(acct_rows_get(rows, i, "ip")));
    json_object_set_new(o, "restricted",
                        acct_json_bool(acct_rows_get(rows, i, "restricted")));
    json_object_set_new(o, "status",
                        acct_json_str(acct_rows_get(rows, i, "status")));
    json_object_set_new(o, "username",
                        acct_json_str(acct_rows_get(rows, i, "username")));
    return o;
}

void api_logins_list(acct_req *req, acct_resp *resp)
{
    acct_list_query q;

    acct_login_list_query(req->pool, req->who->user_id, req->now, &q);
    q.render = render_login;
    acct_list_respond(req, resp, &q);
}

void api_login_get(acct_req *req, acct_resp *resp)
{
    api_own_show(req, resp, acct_login_get, render_login);
}
