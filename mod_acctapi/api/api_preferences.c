/*
 * Preferences of the acting user: /profile/preferences.  One JSON object per
 * user and OAuth client (docs/conventions.md), so each app, and each
 * personal access
 * token ("pat:<id>"), keeps a document of its own.  PUT replaces the whole
 * document and echoes it back.
 */
#include "api_handlers.h"
#include "acct_body.h"
#include "acct_json.h"
#include "acct_log.h"
#include "acct_preferences.h"

void api_preferences_get(acct_req *req, acct_resp *resp)
{
    const char *text = NULL;
    acct_store *st = NULL;
    acct_store_rc rc;
    json_t *doc;

    rc = acct_req_store(req, &st);
    if (rc == ACCT_STORE_OK) {
        rc = acct_preferences_get(st, req->pool, req->who->user_id,
                                  req->who->client, &text);
    }
    if (acct_resp_store_failed(req, resp, rc) != 0) {
        return;
    }
    if (!text) {
        acct_resp_ok(resp, req->pool, NULL);  /* never set: {} */
        return;
    }
    doc = acct_json_parse_column(text);
    if (!json_is_object(doc)) {
        json_decref(doc);
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00046) "preferences of user %" APR_INT64_T_FMT
                 " for %s: the stored document is not a JSON object",
                 req->who->user_id, req->who->client);
        acct_resp_error(resp, req->pool, ACCT_HTTP_INTERNAL_SERVER_ERROR, ACCT_R_INTERNAL, NULL);
        return;
    }
    acct_resp_ok(resp, req->pool, doc);
}

void api_preferences_put(acct_req *req, acct_resp *resp)
{
    const char *text;
    acct_store *st = NULL;
    acct_store_rc rc;

    if (!json_is_object(req->body)) {
        acct_resp_error(resp, req->pool, ACCT_HTTP_BAD_REQUEST,
                        "Preferences must be a JSON object", NULL);
        return;
    }
    text = acct_json_dump(req->pool, req->body, NULL);
    if (!text) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00047) "preferences: cannot serialise the document");
        acct_resp_error(resp, req->pool, ACCT_HTTP_INTERNAL_SERVER_ERROR, ACCT_R_INTERNAL, NULL);
        return;
    }
    if (acct_utf8_length(text) > ACCT_PREFERENCES_MAX) {
        acct_resp_error(resp, req->pool, ACCT_HTTP_BAD_REQUEST,
                        "Preferences may not exceed 65535 characters", NULL);
        return;
    }
    rc = acct_req_store(req, &st);
    if (rc == ACCT_STORE_OK) {
        rc = acct_preferences_put(st, req->pool, req->who->user_id,
                                  req->who->client, text);
    }
    if (acct_resp_store_failed(req, resp, rc) != 0) {
        return;
    }
    acct_resp_ok(resp, req->pool, json_incref(req->body));
}
