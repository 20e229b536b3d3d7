/*
 * The account's users: GET /account/users and /account/users/{username},
 * read-only, in the public API's User shape.  Unrestricted users only (the
 * route table says so): the public API documents both operations as open to
 * unrestricted users alone, and linode-cli configure asks for the list only
 * after /profile/grants has said the token's user is unrestricted.
 */
#include "api_handlers.h"
#include "acct_list.h"
#include "acct_users.h"
#include "acct_json.h"

void api_account_users_list(acct_req *req, acct_resp *resp)
{
    acct_store *st = NULL;
    acct_list_query q;

    if (acct_resp_store_failed(req, resp, acct_req_store(req, &st)) != 0) {
        return;
    }
    acct_users_list_query(req->pool, acct_store_dialect(st),
                          req->who->account_id, &q);
    acct_list_respond(req, resp, &q);
}

void api_account_user_get(acct_req *req, acct_resp *resp)
{
    acct_store *st = NULL;
    acct_rows *rows = NULL;
    acct_store_rc rc = acct_req_store(req, &st);

    if (rc == ACCT_STORE_OK) {
        rc = acct_users_get(st, req->pool, req->who->account_id,
                            req->params[0], &rows);
    }
    rows = acct_resp_found(req, resp, rc, rows);
    if (rows) {
        acct_resp_ok(resp, req->pool, acct_users_render(req, rows, 0));
    }
}

/*
 * A user's grants, as an unrestricted user of the account sees them (the
 * Terraform provider's linode_user and linode_users read them): the shape
 * of GET /profile/grants; 204 for an unrestricted user, who has no grants
 * to list, as the public API documents.
 */
void api_account_user_grants(acct_req *req, acct_resp *resp)
{
    acct_rows *rows = NULL;
    acct_store_rc rc = acct_req_store(req, &req->store);
    apr_int64_t user_id;

    if (rc == ACCT_STORE_OK) {
        rc = acct_users_get(req->store, req->pool, req->who->account_id,
                            req->params[0], &rows);
    }
    rows = acct_resp_found(req, resp, rc, rows);
    if (!rows) {
        return;
    }
    if (!json_is_true(acct_json_own(req->pool, acct_json_bool(
            acct_rows_get(rows, 0, "restricted"))))) {
        resp->status = ACCT_HTTP_NO_CONTENT;
        resp->body = NULL;
        return;
    }
    if (acct_parse_i64(acct_rows_get(rows, 0, "id"), &user_id) != 0) {
        acct_resp_store_error(resp, req->pool, ACCT_STORE_FAILED);
        return;
    }
    api_grants_respond(req, resp, user_id);
}
