/*
 * Trusted devices of the acting user: /profile/devices.  Devices enter
 * through acctapi-admin (acct_device_add); here they are listed, viewed and
 * revoked.  Revoked and expired devices are gone from every view.
 * docs/conventions.md lists no filterable field for devices: any X-Filter
 * key is
 * refused, while +order/pagination keep working.
 */
#include "api_handlers.h"
#include "acct_devices.h"
#include "acct_json.h"
#include "acct_list.h"
#include "api_own.h"

static json_t *render_device(acct_req *req, const acct_rows *rows, int i)
{
    json_t *o = json_object();

    json_object_set_new(o, "id", acct_json_int(acct_rows_get(rows, i, "id")));
    json_object_set_new(o, "created",
                        acct_json_time(req->pool,
                                       acct_rows_get(rows, i, "created")));
    json_object_set_new(o, "expiry",
                        acct_json_time(req->pool,
                                       acct_rows_get(rows, i, "expiry")));
    json_object_set_new(
        o, "last_authenticated",
        acct_json_time(req->pool,
                       acct_rows_get(rows, i, "last_authenticated")));
    json_object_set_new(
        o, "last_remote_addr",
        acct_json_str(acct_rows_get(rows, i, "last_remote_addr")));
    json_object_set_new(o, "user_agent",
                        acct_json_str(acct_rows_get(rows, i, "user_agent")));
    return o;
}

void api_devices_list(acct_req *req, acct_resp *resp)
{
    acct_list_query q;

    acct_device_list_query(req->pool, req->who->user_id, req->now, &q);
    q.render = render_device;
    acct_list_respond(req, resp, &q);
}

void api_device_get(acct_req *req, acct_resp *resp)
{
    api_own_show(req, resp, acct_device_get, render_device);
}

void api_device_revoke(acct_req *req, acct_resp *resp)
{
    api_own_remove(req, resp, acct_device_revoke);
}
