/*
 * Trusted devices of the acting user: /profile/devices.  Devices enter
 * through acctapi-admin (acct_device_add); here they are listed, viewed and
 * revoked.  Revoked and expired devices are gone from every view.
 * DECISIONS.md lists no filterable field for devices: any X-Filter key is
 * refused, while +order/pagination keep working.
 */
#include "api_handlers.h"
#include "acct_json.h"
#include "acct_list.h"

#define DEVICE_COLUMNS \
    "id, created, expiry, last_authenticated, last_remote_addr, user_agent"

/* Visible: the user's own device, not revoked, not expired. */
#define DEVICE_VISIBLE \
    "user_id = CAST(%s AS BIGINT) AND revoked = 0" \
    " AND expiry > CAST(%s AS BIGINT)"

static const acct_sql q_device_get = ACCT_SQL("device_get",
    "SELECT " DEVICE_COLUMNS " FROM devices"
    " WHERE id = CAST(%s AS BIGINT) AND " DEVICE_VISIBLE);

static const acct_sql q_device_revoke = ACCT_SQL("device_revoke",
    "UPDATE devices SET revoked = 1"
    " WHERE id = CAST(%s AS BIGINT) AND " DEVICE_VISIBLE);

static const acct_filter_field device_fields[] = {
    {NULL, NULL, 0}
};

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

/*
 * The arguments of a statement on the device of the path (id, user, now),
 * or 0 after answering 404 (ids are positive integers).
 */
static int device_args(acct_req *req, acct_resp *resp, const char *args[3])
{
    apr_int64_t id;

    if (acct_path_id(req, resp, 0, &id) != 0) {
        return 0;
    }
    args[0] = acct_i64(req->pool, id);
    args[1] = acct_i64(req->pool, req->who->user_id);
    args[2] = acct_i64(req->pool, req->now);
    return 1;
}

void api_devices_list(acct_req *req, acct_resp *resp)
{
    const char *args[2];
    acct_list_query q = {DEVICE_COLUMNS, "devices", DEVICE_VISIBLE, 2, args,
                         device_fields, "id", render_device};

    args[0] = acct_i64(req->pool, req->who->user_id);
    args[1] = acct_i64(req->pool, req->now);
    acct_list_respond(req, resp, &q);
}

void api_device_get(acct_req *req, acct_resp *resp)
{
    const char *args[3];
    acct_rows *rows;

    if (!device_args(req, resp, args)) {
        return;
    }
    rows = acct_req_row(req, resp, &q_device_get, 3, args);
    if (rows) {
        acct_resp_ok(resp, req->pool, render_device(req, rows, 0));
    }
}

void api_device_revoke(acct_req *req, acct_resp *resp)
{
    const char *args[3];

    if (device_args(req, resp, args)
        && acct_req_change(req, resp, &q_device_revoke, 3, args) == 0) {
        acct_resp_ok(resp, req->pool, NULL);
    }
}
