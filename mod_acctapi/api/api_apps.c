/*
 * OAuth apps the acting user authorized: /profile/apps.  Apps enter through
 * acctapi-admin (acct_app_authorize); here they are listed, viewed and
 * revoked.  A revoked app is gone from every view, and its token fails
 * authentication from the next request on (acct_auth.c reads the app).
 * An expired app stays listed, with its expiry, until the user revokes it.
 */
#include "api_handlers.h"
#include "acct_json.h"
#include "acct_list.h"

#define APP_COLUMNS \
    "id, label, created, expiry, scopes, thumbnail_url, website"

/* Visible: the user's own app, not revoked. */
#define APP_VISIBLE "user_id = CAST(%s AS BIGINT) AND revoked = 0"

static const acct_sql q_app_get = ACCT_SQL("app_get",
    "SELECT " APP_COLUMNS " FROM apps"
    " WHERE id = CAST(%s AS BIGINT) AND " APP_VISIBLE);

static const acct_sql q_app_revoke = ACCT_SQL("app_revoke",
    "UPDATE apps SET revoked = 1"
    " WHERE id = CAST(%s AS BIGINT) AND " APP_VISIBLE);

/* Authentication already refuses a revoked app's token; revoking the token
 * row too keeps the tokens table truthful on its own. */
static const acct_sql q_app_token_revoke = ACCT_SQL("app_token_revoke",
    "UPDATE tokens SET revoked = 1"
    " WHERE app_id = CAST(%s AS BIGINT) AND kind = 'app'");

static const acct_filter_field app_fields[] = {
    {"label", "label", ACCT_FIELD_TEXT},
    {"created", "created", ACCT_FIELD_TIME},
    {"expiry", "expiry", ACCT_FIELD_TIME},
    {NULL, NULL, 0}
};

static json_t *render_app(acct_req *req, const acct_rows *rows, int i)
{
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
    json_object_set_new(o, "website",
                        acct_json_str(acct_rows_get(rows, i, "website")));
    return o;
}

/*
 * The app id of the path as a bound argument, or NULL after answering 404
 * (ids are positive integers; anything else names no app).
 */
static const char *app_id_arg(acct_req *req, acct_resp *resp)
{
    apr_int64_t id;

    if (acct_path_id(req, resp, 0, &id) != 0) {
        return NULL;
    }
    return acct_i64(req->pool, id);
}

void api_apps_list(acct_req *req, acct_resp *resp)
{
    const char *args[1];
    acct_list_query q = {APP_COLUMNS, "apps", APP_VISIBLE, 1, args,
                         app_fields, "id", render_app};

    args[0] = acct_i64(req->pool, req->who->user_id);
    acct_list_respond(req, resp, &q);
}

void api_app_get(acct_req *req, acct_resp *resp)
{
    const char *args[2];
    acct_rows *rows;

    if (!(args[0] = app_id_arg(req, resp))) {
        return;
    }
    args[1] = acct_i64(req->pool, req->who->user_id);
    rows = acct_req_row(req, resp, &q_app_get, 2, args);
    if (rows) {
        acct_resp_ok(resp, req->pool, render_app(req, rows, 0));
    }
}

/* An app may revoke itself; the next request with its token is a 401. */
void api_app_revoke(acct_req *req, acct_resp *resp)
{
    const char *args[2];
    acct_store_rc rc;

    if (!(args[0] = app_id_arg(req, resp))) {
        return;
    }
    args[1] = acct_i64(req->pool, req->who->user_id);
    if (acct_req_change(req, resp, &q_app_revoke, 2, args) != 0) {
        return;
    }
    rc = acct_store_exec(req->store, req->pool, &q_app_token_revoke, NULL, 1,
                         args);
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return;
    }
    acct_resp_ok(resp, req->pool, NULL);
}
