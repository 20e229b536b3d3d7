/*
 * Login history of the acting user: /profile/logins.  Logins are recorded
 * by the system that authenticates users (acctapi-admin login record); the
 * API shows those of the last 90 days by the clock, successful and failed
 * alike (the `status` field tells them apart), and older ones are gone from
 * every view.  DECISIONS.md lists no filterable field for logins: any
 * X-Filter key is refused.
 */
#include "api_handlers.h"
#include "acct_json.h"
#include "acct_list.h"

#define LOGIN_HISTORY (90 * 86400)

#define LOGIN_COLUMNS "id, datetime, ip, restricted, status, username"

/* Visible: the user's own login, no older than LOGIN_HISTORY. */
/* The contract: "successful logins of the last 90 days". */
#define LOGIN_VISIBLE \
    "user_id = CAST(%s AS BIGINT) AND datetime >= CAST(%s AS BIGINT)" \
    " AND status = 'successful'"

static const acct_sql q_login_get = ACCT_SQL("login_get",
    "SELECT " LOGIN_COLUMNS " FROM logins"
    " WHERE id = CAST(%s AS BIGINT) AND " LOGIN_VISIBLE);

static const acct_filter_field login_fields[] = {
    {NULL, NULL, 0}
};

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

/* The oldest login time still shown. */
static const char *history_start(const acct_req *req)
{
    return acct_i64(req->pool, req->now - LOGIN_HISTORY);
}

void api_logins_list(acct_req *req, acct_resp *resp)
{
    const char *args[2];
    acct_list_query q = {LOGIN_COLUMNS, "logins", LOGIN_VISIBLE, 2, args,
                         login_fields, "id", render_login};

    args[0] = acct_i64(req->pool, req->who->user_id);
    args[1] = history_start(req);
    acct_list_respond(req, resp, &q);
}

void api_login_get(acct_req *req, acct_resp *resp)
{
    const char *args[3];
    acct_rows *rows;
    apr_int64_t id;

    if (acct_path_id(req, resp, 0, &id) != 0) {
        return;
    }
    args[0] = acct_i64(req->pool, id);
    args[1] = acct_i64(req->pool, req->who->user_id);
    args[2] = history_start(req);
    rows = acct_req_row(req, resp, &q_login_get, 3, args);
    if (rows) {
        acct_resp_ok(resp, req->pool, render_login(req, rows, 0));
    }
}
