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
#include "acct_sshkey.h"

#include <apr_strings.h>

#define SSHKEY_COLUMNS "id, label, ssh_key, created"
#define SSHKEY_OWNED "user_id = CAST(%s AS BIGINT)"
#define SSHKEY_ONE "id = CAST(%s AS BIGINT) AND " SSHKEY_OWNED

static const acct_sql q_sshkey_get = ACCT_SQL("sshkey_get",
    "SELECT " SSHKEY_COLUMNS " FROM ssh_keys WHERE " SSHKEY_ONE);

static const acct_sql q_sshkey_insert = ACCT_SQL("sshkey_insert",
    "INSERT INTO ssh_keys (user_id, label, ssh_key, created)"
    " VALUES (CAST(%s AS BIGINT), %s, %s, CAST(%s AS BIGINT)) RETURNING id");

static const acct_sql q_sshkey_label = ACCT_SQL("sshkey_label",
    "UPDATE ssh_keys SET label = %s WHERE " SSHKEY_ONE);

static const acct_sql q_sshkey_delete = ACCT_SQL("sshkey_delete",
    "DELETE FROM ssh_keys WHERE " SSHKEY_ONE);

static const acct_filter_field sshkey_fields[] = {
    {"label", "label", ACCT_FIELD_TEXT},
    {"created", "created", ACCT_FIELD_TIME},
    {NULL, NULL, 0}
};

#define LABEL_MAX 64

static json_t *sshkey_json(acct_req *req, const char *id, const char *label,
                           const char *ssh_key, const char *created)
{
    json_t *o = json_object();

    json_object_set_new(o, "id", acct_json_int(id));
    json_object_set_new(o, "label", acct_json_str(label));
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

/*
 * Runs a statement on the key of the path owned by the acting user; its
 * arguments are `nfirst` (0 or 1) times `first` (NULL binds SQL NULL), the
 * key id, the user id.  `rows` NULL: a statement without rows.  Answers 404
 * itself when no such key is the user's, and store errors.
 */
static int on_own_key(acct_req *req, acct_resp *resp, const acct_sql *sql,
                      int nfirst, const char *first, acct_rows **rows)
{
    const char *args[3];
    apr_int64_t id;
    int n = 0;

    if (acct_path_id(req, resp, 0, &id) != 0) {
        return -1;
    }
    if (nfirst) {
        args[n++] = first;
    }
    args[n++] = acct_i64(req->pool, id);
    args[n++] = acct_i64(req->pool, req->who->user_id);
    if (rows) {
        *rows = acct_req_row(req, resp, sql, n, args);
        return *rows ? 0 : -1;
    }
    return acct_req_change(req, resp, sql, n, args);
}

void api_sshkeys_list(acct_req *req, acct_resp *resp)
{
    const char *args[1];
    acct_list_query q = {SSHKEY_COLUMNS, "ssh_keys", SSHKEY_OWNED, 1, args,
                         sshkey_fields, "id", render_sshkey};

    args[0] = acct_i64(req->pool, req->who->user_id);
    acct_list_respond(req, resp, &q);
}

void api_sshkey_get(acct_req *req, acct_resp *resp)
{
    acct_rows *rows = NULL;

    if (on_own_key(req, resp, &q_sshkey_get, 0, NULL, &rows) == 0) {
        acct_resp_ok(resp, req->pool, render_sshkey(req, rows, 0));
    }
}

/* The label: absent or null means none; "" is kept as given. */
static acct_field_rc read_label(acct_req *req, acct_resp *resp,
                                const char **label)
{
    *label = NULL;
    return acct_body_string(req, resp, "label", 0, LABEL_MAX, 1, label);
}

void api_sshkey_create(acct_req *req, acct_resp *resp)
{
    static const char *const allowed[] = {"label", "ssh_key", NULL};
    const char *label, *args[4], *created;
    acct_rows *rows = NULL;
    acct_store *st = NULL;
    acct_sshkey key;
    acct_store_rc rc;

    acct_body_only(req, resp, allowed);
    read_label(req, resp, &label);
    acct_body_require(req, resp, "ssh_key",
                      acct_sshkey_body(req, resp, "ssh_key", &key));
    if (acct_resp_failed(resp)) {
        return;
    }
    created = acct_i64(req->pool, req->now);
    args[0] = acct_i64(req->pool, req->who->user_id);
    args[1] = label;
    args[2] = key.text;
    args[3] = created;
    rc = acct_req_store(req, &st);
    if (rc == ACCT_STORE_OK) {
        rc = acct_store_select(st, req->pool, &q_sshkey_insert, &rows, 4, args);
    }
    if (rc == ACCT_STORE_OK && rows->nrows != 1) {
        rc = ACCT_STORE_FAILED;
    }
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return;
    }
    acct_resp_ok(resp, req->pool,
                 sshkey_json(req, acct_rows_get(rows, 0, "id"), label,
                             key.text, created));
}

/* PUT takes the label only: the other fields of the key are named as fixed. */
static void label_only(acct_req *req, acct_resp *resp)
{
    static const char *const known[] = {"label", "id", "ssh_key", "created",
                                        NULL};
    const char *const *f;

    acct_body_only(req, resp, known);
    for (f = known + 1; *f; f++) {
        if (req->body && json_object_get(req->body, *f)) {
            acct_resp_invalid(resp, req->pool, *f,
                              apr_psprintf(req->pool, "%s cannot be changed",
                                           *f));
        }
    }
}

void api_sshkey_update(acct_req *req, acct_resp *resp)
{
    acct_rows *rows = NULL;
    const char *label;

    /* Whose key it is comes first: another user's key is a 404, whatever
     * the body says. */
    if (on_own_key(req, resp, &q_sshkey_get, 0, NULL, &rows) != 0) {
        return;
    }
    label_only(req, resp);
    acct_body_require(req, resp, "label", read_label(req, resp, &label));
    if (acct_resp_failed(resp)
        || on_own_key(req, resp, &q_sshkey_label, 1, label, NULL) != 0) {
        return;
    }
    api_sshkey_get(req, resp);
}

void api_sshkey_delete(acct_req *req, acct_resp *resp)
{
    if (on_own_key(req, resp, &q_sshkey_delete, 0, NULL, NULL) == 0) {
        acct_resp_ok(resp, req->pool, NULL);
    }
}
