/*
 * Personal access tokens of the acting user: /profile/tokens.
 * The full token appears once, in the create response; every other view
 * shows its first 16 characters.  Revoked and expired tokens are gone from
 * every view and fail authentication at once.  A user holds at most
 * AcctapiMaxTokensPerUser active tokens: the rate limits are the user's,
 * and the cap keeps the number of live credentials bounded.
 */
#include "api_handlers.h"
#include "acct_body.h"
#include "acct_crypto.h"
#include "acct_json.h"
#include "acct_list.h"
#include "api_own.h"
#include "acct_tokens.h"

#include <apr_strings.h>

#define LABEL_MAX 100
static json_t *render_token(acct_req *req, const acct_rows *rows, int i)
{
    const char *expiry = acct_rows_get(rows, i, "expiry");
    const char *label = acct_rows_get(rows, i, "label");
    json_t *o = json_object();

    json_object_set_new(o, "id", acct_json_int(acct_rows_get(rows, i, "id")));
    /* A token without a label shows "": the public API types label as a
     * string (and takes tokens without one). */
    json_object_set_new(o, "label",
                        json_string(label ? label : ""));
    json_object_set_new(o, "scopes",
                        acct_json_str(acct_rows_get(rows, i, "scopes")));
    json_object_set_new(o, "created",
                        acct_json_time(req->pool, acct_rows_get(rows, i, "created")));
    json_object_set_new(o, "expiry", expiry ? acct_json_time(req->pool, expiry)
                                            : json_string(ACCT_TOKEN_NEVER_EXPIRES));
    json_object_set_new(o, "token",
                        acct_json_str(acct_rows_get(rows, i, "token_prefix")));
    return o;
}

void api_tokens_list(acct_req *req, acct_resp *resp)
{
    acct_list_query q;

    acct_token_list_query(req->pool, req->who->user_id, req->now, &q);
    q.render = render_token;
    acct_list_respond(req, resp, &q);
}

void api_token_get(acct_req *req, acct_resp *resp)
{
    api_own_show(req, resp, acct_token_get, render_token);
}

/*
 * Is there room for one more active token of the acting user under
 * AcctapiMaxTokensPerUser?  Locks the user's row for the rest of the
 * transaction first.  0 when yes; -1 after answering the error.
 */
static int token_room(acct_req *req, acct_resp *resp, acct_store *st)
{
    apr_int64_t cap = req->settings->max_tokens, active = 0;

    if (cap <= 0) {
        return 0;
    }
    if (acct_resp_store_failed(req, resp,
                               acct_token_count_active(st, req->pool,
                                                       req->who->user_id,
                                                       req->now, &active))
        != 0) {
        return -1;
    }
    if (active >= cap) {
        /* No one field is at fault: the item has no field. */
        acct_resp_error(resp, req->pool, ACCT_HTTP_BAD_REQUEST,
                        apr_psprintf(req->pool, "You have reached the limit "
                                     "of %" APR_INT64_T_FMT " active personal "
                                     "access tokens; revoke one to create "
                                     "another", cap), NULL);
        return -1;
    }
    return 0;
}

/*
 * The scopes of a new token: "*" or omitted inherit the acting token's;
 * explicit scopes may not exceed them.  Returns the canonical text or NULL
 * after adding the problem.
 */
static const char *new_token_scopes(acct_req *req, acct_problems *pb)
{
    const char *text = NULL, *bad = NULL;
    acct_scopes want;
    acct_field_rc frc;

    frc = acct_field_string(req, pb, "scopes", 1, 1000, 0, &text);
    if (frc == ACCT_FIELD_BAD) {
        return NULL;
    }
    if (frc != ACCT_FIELD_SET || strcmp(text, "*") == 0) {
        return req->who->scopes_text;
    }
    if (acct_scopes_parse(req->pool, text, &want, &bad) != 0) {
        acct_problem_add(pb, "scopes",
                         apr_psprintf(req->pool, "Invalid scope: %s", bad));
        return NULL;
    }
    if (!acct_scopes_within(&want, &req->who->scopes)) {
        acct_problem_add(pb, "scopes",
                         "Scopes may not exceed those of the acting token");
        return NULL;
    }
    return acct_scopes_format(req->pool, &want);
}

void api_token_create(acct_req *req, acct_resp *resp)
{
    static const char *const settable[] = {"label", "scopes", "expiry",
                                           NULL};
    const char *label = NULL, *scopes, *token = NULL;
    apr_int64_t expiry = 0, id = 0;
    acct_ident_result res;
    acct_store *st = NULL;
    acct_rows rows;
    const char *names[6] = {"id", "label", "scopes", "created", "expiry",
                            "token_prefix"};
    const char *vals[6], **row = vals;
    acct_problems *pb = acct_problems_make(req->pool);
    acct_store_rc rc;
    json_t *o;

    acct_fields_settable(req, pb, settable, NULL);
    acct_field_string(req, pb, "label", 1, LABEL_MAX, 0, &label);
    scopes = new_token_scopes(req, pb);
    if (acct_field_timestamp(req, pb, "expiry", 0, &expiry) == ACCT_FIELD_SET
        && expiry <= req->now) {
        acct_problem_add(pb, "expiry",
                         "Expiry must be in the future");
    }
    if (acct_problems_any(pb)) {
        acct_resp_problems(resp, req->pool, pb);
        return;
    }
    rc = acct_req_store(req, &st);
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return;
    }
    if (token_room(req, resp, st) != 0) {
        return;
    }
    if (acct_token_create(st, req->pool, req->who->user_id, label, scopes,
                          expiry, req->now, &id, &token, &res)
        != ACCT_IDENT_OK) {
        acct_resp_store_error(resp, req->pool, res.store_rc);
        return;
    }
    vals[0] = acct_i64(req->pool, id);
    vals[1] = label;
    vals[2] = scopes;
    vals[3] = acct_i64(req->pool, req->now);
    vals[4] = expiry ? acct_i64(req->pool, expiry) : NULL;
    vals[5] = token;  /* the one time the whole token is shown */
    rows.nrows = 1;
    rows.ncols = 6;
    rows.names = names;
    rows.values = &row;
    o = render_token(req, &rows, 0);
    acct_resp_ok(resp, req->pool, o);
}

/* Only the label changes; a body without one changes nothing. */
void api_token_update(acct_req *req, acct_resp *resp)
{
    static const char *const settable[] = {"label", NULL};
    acct_problems *pb = acct_problems_make(req->pool);
    const char *label = NULL;
    acct_rows *rows;
    apr_int64_t id;

    /* Another user's token is a 404, whatever the body says. */
    if (!(rows = api_own_of_path(req, resp, acct_token_get, &id))) {
        return;
    }
    acct_fields_settable(req, pb, settable,
                         acct_fields_beyond(req, settable)
                         ? acct_json_own(req->pool, render_token(req, rows, 0))
                         : NULL);
    acct_field_string(req, pb, "label", 1, LABEL_MAX, 0, &label);
    if (acct_problems_any(pb)) {
        acct_resp_problems(resp, req->pool, pb);
        return;
    }
    if (!label) {
        acct_resp_ok(resp, req->pool, render_token(req, rows, 0));
        return;
    }
    if (acct_resp_store_failed(req, resp,
                               acct_token_update(req->store, req->pool, id,
                                                 req->who->user_id, req->now,
                                                 label, NULL)) != 0) {
        return;
    }
    api_token_get(req, resp);
}

/* A token may revoke itself; the next request with it is a 401. */
void api_token_revoke(acct_req *req, acct_resp *resp)
{
    apr_int64_t id;

    if (!api_own_of_path(req, resp, acct_token_get, &id)
        || acct_resp_store_failed(req, resp,
                                  acct_token_revoke(req->store, req->pool, id,
                                                    req->who->user_id,
                                                    req->now, NULL)) != 0) {
        return;
    }
    acct_resp_ok(resp, req->pool, NULL);
}
