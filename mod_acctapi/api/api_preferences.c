/*
 * Preferences of the acting user: /profile/preferences.  One JSON object per
 * user and OAuth client (DECISIONS.md), so each app, and each personal access
 * token ("pat:<id>"), keeps a document of its own.  PUT replaces the whole
 * document and echoes it back.
 */
#include "api_handlers.h"
#include "acct_body.h"
#include "acct_json.h"
#include "acct_log.h"

/* The contract's limit, on the compact serialisation, in characters. */
#define PREFERENCES_MAX 65535

static const acct_sql q_prefs_get = ACCT_SQL("prefs_get",
    "SELECT doc FROM preferences"
    " WHERE user_id = CAST(%s AS BIGINT) AND client = %s");

static const acct_sql q_prefs_put = ACCT_SQL("prefs_put",
    "INSERT INTO preferences (user_id, client, doc)"
    " VALUES (CAST(%s AS BIGINT), %s, %s)"
    " ON CONFLICT (user_id, client) DO UPDATE SET doc = excluded.doc");

void api_preferences_get(acct_req *req, acct_resp *resp)
{
    const char *args[2];
    acct_rows *rows = NULL;
    acct_store *st = NULL;
    acct_store_rc rc;
    json_t *doc;

    rc = acct_req_store(req, &st);
    if (rc == ACCT_STORE_OK) {
        args[0] = acct_i64(req->pool, req->who->user_id);
        args[1] = req->who->client;
        rc = acct_store_select(st, req->pool, &q_prefs_get, &rows, 2, args);
    }
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return;
    }
    if (rows->nrows == 0) {
        acct_resp_ok(resp, req->pool, NULL);  /* never set: {} */
        return;
    }
    doc = acct_json_parse_column(acct_rows_get(rows, 0, "doc"));
    if (!json_is_object(doc)) {
        json_decref(doc);
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00046) "preferences of user %" APR_INT64_T_FMT
                 " for %s: the stored document is not a JSON object",
                 req->who->user_id, req->who->client);
        acct_resp_error(resp, req->pool, 500, ACCT_R_INTERNAL, NULL);
        return;
    }
    acct_resp_ok(resp, req->pool, doc);
}

void api_preferences_put(acct_req *req, acct_resp *resp)
{
    const char *args[3], *text;
    acct_store *st = NULL;
    acct_store_rc rc;

    if (!json_is_object(req->body)) {
        acct_resp_error(resp, req->pool, 400,
                        "Preferences must be a JSON object", NULL);
        return;
    }
    text = acct_json_dump(req->pool, req->body, NULL);
    if (!text) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00047) "preferences: cannot serialise the document");
        acct_resp_error(resp, req->pool, 500, ACCT_R_INTERNAL, NULL);
        return;
    }
    if (acct_utf8_length(text) > PREFERENCES_MAX) {
        acct_resp_error(resp, req->pool, 400,
                        "Preferences may not exceed 65535 characters", NULL);
        return;
    }
    rc = acct_req_store(req, &st);
    if (rc == ACCT_STORE_OK) {
        args[0] = acct_i64(req->pool, req->who->user_id);
        args[1] = req->who->client;
        args[2] = text;
        rc = acct_store_exec(st, req->pool, &q_prefs_put, NULL, 3, args);
    }
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return;
    }
    acct_resp_ok(resp, req->pool, json_incref(req->body));
}
