/*
 * SSH public keys of the acting user: /profile/sshkeys.
 * Keys are stored in the normalised form acct_sshkey_parse gives
 * ("TYPE DATA [COMMENT]").  The same key may be added more than once (under
 * different labels, say), as the public API allows.  Only the label can
 * change; a key is replaced by deleting it and adding the new one.
 */
#include "api_handlers.h"
#include "acct_body.h"
#include "acct_json.h"
#include "acct_list.h"
#include "api_own.h"
#include "acct_sshkey.h"

#include <apr_strings.h>

#define LABEL_MAX 64

static json_t *sshkey_json(acct_req *req, const char *id, const char *label,
                           const char *ssh_key, const char *created)
{
    json_t *o = json_object();

    json_object_set_new(o, "id", acct_json_int(id));
    /* A key without a label shows "": the public API types label as a
     * string, and its SDKs read it so. */
    json_object_set_new(o, "label", json_string(label ? label : ""));
    json_object_set_new(o, "ssh_key", acct_json_str(ssh_key));
    json_object_set_new(o, "created", acct_json_time(req->pool, created));
    return o;
}

static json_t *render_sshkey(acct_req *req, const acct_rows *rows, int i)
{
    return sshkey_json(req, acct_rows_get(rows, i, "id"),
                       acct_rows_get(rows, i, "label"),
                       acct_rows_get(rows, i, "ssh_key"),
                       acct_rows_get(rows, i, "created"));
}

void api_sshkeys_list(acct_req *req, acct_resp *resp)
{
    acct_list_query q;

    acct_sshkey_list_query(req->pool, req->who->user_id, &q);
    q.render = render_sshkey;
    acct_list_respond(req, resp, &q);
}

void api_sshkey_get(acct_req *req, acct_resp *resp)
{
    api_own_show(req, resp, acct_sshkey_get, render_sshkey);
}

/* The label: absent (or null) means none; "" is kept as given. */
static acct_field_rc read_label(acct_req *req, acct_problems *pb,
                                const char **label)
{
    *label = NULL;
    return acct_field_string(req, pb, "label", 0, LABEL_MAX, 0, label);
}

void api_sshkey_create(acct_req *req, acct_resp *resp)
{
    static const char *const settable[] = {"label", "ssh_key", NULL};
    const char *label;
    acct_store *st = NULL;
    apr_int64_t id = 0;
    acct_problems *pb = acct_problems_make(req->pool);
    acct_sshkey key;
    acct_store_rc rc;

    acct_fields_settable(req, pb, settable, NULL);
    read_label(req, pb, &label);
    acct_field_require(req, pb, "ssh_key",
                       acct_sshkey_body(req, pb, "ssh_key", &key));
    if (acct_problems_any(pb)) {
        acct_resp_problems(resp, req->pool, pb);
        return;
    }
    rc = acct_req_store(req, &st);
    if (rc == ACCT_STORE_OK) {
        rc = acct_sshkey_create(st, req->pool, req->who->user_id, label,
                                key.text, req->now, &id);
    }
    if (acct_resp_store_failed(req, resp, rc) != 0) {
        return;
    }
    acct_resp_ok(resp, req->pool,
                 sshkey_json(req, acct_i64(req->pool, id), label, key.text,
                             acct_i64(req->pool, req->now)));
}

/* PUT changes the label only; a body without one changes nothing. */
void api_sshkey_update(acct_req *req, acct_resp *resp)
{
    static const char *const settable[] = {"label", NULL};
    acct_problems *pb = acct_problems_make(req->pool);
    const char *label;
    acct_rows *rows;
    apr_int64_t id;
    int changed = 0;

    /* Whose key it is comes first: another user's key is a 404, whatever
     * the body says. */
    if (!(rows = api_own_of_path(req, resp, acct_sshkey_get, &id))) {
        return;
    }
    acct_fields_settable(req, pb, settable,
                         acct_fields_beyond(req, settable)
                         ? acct_json_own(req->pool,
                                         render_sshkey(req, rows, 0))
                         : NULL);
    read_label(req, pb, &label);
    if (acct_problems_any(pb)) {
        acct_resp_problems(resp, req->pool, pb);
        return;
    }
    if (!label) {
        acct_resp_ok(resp, req->pool, render_sshkey(req, rows, 0));
        return;
    }
    if (acct_resp_store_failed(req, resp,
                                  acct_sshkey_update(req->store, req->pool, id,
                                                     req->who->user_id, label,
                                                     req->now, &changed)) != 0) {
        return;
    }
    if (!changed) {
        /* Deleted by a concurrent request since it was read. */
        acct_resp_error(resp, req->pool, ACCT_HTTP_NOT_FOUND, ACCT_R_NOT_FOUND, NULL);
        return;
    }
    api_sshkey_get(req, resp);
}

void api_sshkey_delete(acct_req *req, acct_resp *resp)
{
    api_own_remove(req, resp, acct_sshkey_delete);
}
