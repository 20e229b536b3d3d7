#include "api_handlers.h"
#include "acct_body.h"
#include "acct_grants.h"
#include "acct_json.h"
#include "acct_names.h"
#include "acct_profile.h"
#include "acct_sshkey.h"

#include <apr_file_info.h>
#include <ctype.h>

#include <apr_strings.h>

/* A read of the acting user's rows (acct_profile_get,
 * acct_grant_globals_get). */
typedef acct_store_rc self_read_fn(acct_store *st, apr_pool_t *pool,
                                   apr_int64_t uid, acct_rows **rows);

/* Loads the acting user's row, answering the error itself; NULL on failure. */
static const acct_rows *load_self(acct_req *req, acct_resp *resp,
                                  self_read_fn *read)
{
    acct_store *st = NULL;
    acct_rows *rows = NULL;
    acct_store_rc rc;

    rc = acct_req_store(req, &st);
    if (rc == ACCT_STORE_OK) {
        rc = read(st, req->pool, req->who->user_id, &rows);
    }
    if (acct_resp_store_failed(req, resp, rc) != 0) {
        return NULL;
    }
    return rows;
}

/* The profile from `rows` (NULL: failed, answered), whose id column is
 * `id_column`. */
static void profile_respond(acct_req *req, acct_resp *resp,
                            const acct_rows *rows, const char *id_column)
{
    json_t *o, *referrals;
    const char *code;

    if (!rows) {
        return;
    }
    if (rows->nrows == 0) {
        /* The token's user vanished between the two queries. */
        acct_resp_error(resp, req->pool, 401, ACCT_R_INVALID_TOKEN, NULL);
        return;
    }
#define COL(name) acct_rows_get(rows, 0, name)
    code = COL("referral_code");
    referrals = json_object();
    json_object_set_new(referrals, "code", acct_json_str(code));
    json_object_set_new(referrals, "completed", json_integer(0));
    json_object_set_new(referrals, "credit", json_real(0));
    json_object_set_new(referrals, "pending", json_integer(0));
    json_object_set_new(referrals, "total", json_integer(0));
    json_object_set_new(referrals, "url",
                        acct_json_str(apr_pstrcat(req->pool,
                                                  req->settings->referral_url,
                                                  code, NULL)));
    o = json_object();
    json_object_set_new(o, "authentication_type",
                        acct_json_str(COL("authentication_type")));
    json_object_set_new(o, "authorized_keys",
                        acct_json_parse_column(COL("authorized_keys")));
    json_object_set_new(o, "email", acct_json_str(COL("email")));
    json_object_set_new(o, "email_notifications",
                        acct_json_bool(COL("email_notifications")));
    json_object_set_new(o, "ip_whitelist_enabled",
                        acct_json_bool(COL("ip_whitelist_enabled")));
    acct_names_set(o, req->settings->field_names, "shell_auth_method",
                   acct_json_str(COL("shell_auth_method")));
    json_object_set_new(o, "referrals", referrals);
    json_object_set_new(o, "restricted", acct_json_bool(COL("restricted")));
    json_object_set_new(o, "timezone", acct_json_str(COL("timezone")));
    json_object_set_new(o, "two_factor_auth",
                        acct_json_bool(COL("two_factor_auth")));
    json_object_set_new(o, "uid", acct_json_int(COL(id_column)));
    json_object_set_new(o, "username", acct_json_str(COL("username")));
    json_object_set_new(o, "verified_phone_number",
                        acct_json_str(COL("verified_phone_number")));
#undef COL
    acct_resp_ok(resp, req->pool, o);
}

void api_profile_get(acct_req *req, acct_resp *resp)
{
    /* The token lookup read the row already, in this request. */
    if (req->who->user_row) {
        profile_respond(req, resp, req->who->user_row, "user_id");
    }
    else {
        profile_respond(req, resp, load_self(req, resp, acct_profile_get),
                        "id");
    }
}

/* The grants of one kind of entity, or NULL after answering a store error. */
static json_t *entity_grants(acct_req *req, acct_resp *resp, const char *key)
{
    acct_rows *rows = NULL;
    json_t *list, *item;
    int i;

    if (acct_resp_store_failed(req, resp,
                               acct_grant_entities_list(req->store, req->pool,
                                                        req->who->user_id,
                                                        req->who->account_id,
                                                        key, &rows)) != 0) {
        return NULL;
    }
    list = json_array();
    for (i = 0; i < rows->nrows; i++) {
        item = json_object();
        json_object_set_new(item, "id", acct_json_int(acct_rows_get(rows, i, "id")));
        json_object_set_new(item, "label",
                            acct_json_str(acct_rows_get(rows, i, "label")));
        json_object_set_new(item, "permissions",
                            acct_json_str(acct_rows_get(rows, i, "permissions")));
        json_array_append_new(list, item);
    }
    return list;
}

/*
 * 204 with no body for unrestricted users (DECISIONS.md).  A restricted user
 * without a grants row has every grant off.  Entity grants list each entity
 * of the account of that kind with the user's permissions on it.  Keys the
 * public API names otherwise (instance/linode ...) come under the names
 * AcctapiFieldNames asks for, the public one next to the contract's.
 */
void api_profile_grants(acct_req *req, acct_resp *resp)
{
    const char *const *type;
    const acct_rows *rows;
    json_t *doc, *global;
    int names = req->settings->field_names;
    size_t i;

    if (!req->who->restricted) {
        resp->status = 204;
        resp->body = NULL;
        return;
    }
    rows = load_self(req, resp, acct_grant_globals_get);
    if (!rows) {
        return;
    }
    global = json_object();
    json_object_set_new(global, ACCT_GRANT_ACCOUNT_ACCESS,
                        acct_json_str(acct_rows_get(
                            rows, 0, ACCT_GRANT_ACCOUNT_ACCESS)));
    for (i = 0; acct_grant_flags[i]; i++) {
        acct_names_set(global, names, acct_grant_flags[i],
                       acct_json_bool(acct_rows_get(rows, 0,
                                                    acct_grant_flags[i])));
    }
    doc = acct_json_own(req->pool, json_object());
    acct_json_own(req->pool, global);
    /* The contract's keys are in alphabetical order: "global" goes before
     * the first entity type that sorts after it. */
    for (type = acct_grant_entity_types;; type++) {
        json_t *list;

        if (global && (!*type || strcmp(*type, "global") > 0)) {
            json_object_set_new(doc, "global", json_incref(global));
            global = NULL;
        }
        if (!*type) {
            break;
        }
        if (!(list = entity_grants(req, resp, *type))) {
            return;
        }
        acct_names_set(doc, names, *type, list);
    }
    acct_resp_ok(resp, req->pool, json_incref(doc));
}

/* ---- PUT /profile -------------------------------------------------------- */

/* Fields the profile shows but no request may set. */
static const char *const profile_read_only[] = {
    "uid", "username", "referrals", "authentication_type",
    "verified_phone_number", NULL
};

/*
 * lish_auth_method is the public API's name of shell_auth_method (the
 * contract writes the shell with a neutral word): the published clients
 * send it, so it is accepted as the same field.
 */
static const char *const profile_writable[] = {
    "authorized_keys", "email", "email_notifications", "ip_whitelist_enabled",
    "shell_auth_method", "lish_auth_method", "restricted", "timezone",
    "two_factor_auth", NULL
};

static int listed(const char *const *names, const char *name)
{
    for (; *names; names++) {
        if (strcmp(*names, name) == 0) {
            return 1;
        }
    }
    return 0;
}

/*
 * An IANA time zone name ("America/New_York", "UTC", "Etc/GMT+5").  Where
 * the tz database is installed the zone must exist in it.
 */
static int timezone_valid(apr_pool_t *pool, const char *tz)
{
    static const char zoneinfo[] = "/usr/share/zoneinfo";
    apr_finfo_t fi;
    const char *p;

    if (!*tz || strlen(tz) > 64 || tz[0] == '/' || strstr(tz, "..")) {
        return 0;
    }
    for (p = tz; *p; p++) {
        if (!isalnum((unsigned char)*p) && !strchr("/_+-", *p)) {
            return 0;
        }
    }
    if (apr_stat(&fi, zoneinfo, APR_FINFO_TYPE, pool) != APR_SUCCESS) {
        return 1;
    }
    return apr_stat(&fi, apr_pstrcat(pool, zoneinfo, "/", tz, NULL),
                    APR_FINFO_TYPE, pool) == APR_SUCCESS
           && fi.filetype == APR_REG;
}

/* Refuses read-only and unknown fields, naming each. */
static void profile_fields_only(acct_req *req, acct_problems *pb)
{
    const char *key;
    json_t *value;

    json_object_foreach(req->body, key, value) {
        if (listed(profile_read_only, key)) {
            acct_problem_add(pb, apr_pstrdup(req->pool, key),
                             apr_psprintf(req->pool, "%s cannot be changed",
                                          key));
        }
        else if (!listed(profile_writable, key)) {
            acct_problem_add(pb, apr_pstrdup(req->pool, key),
                             apr_psprintf(req->pool, "%s is not a field that "
                                          "can be set here", key));
        }
    }
}

/* A boolean of the body as a change: -1 when absent. */
static int change(acct_field_rc rc, int value)
{
    return rc == ACCT_FIELD_SET ? (value ? 1 : 0) : -1;
}

/* The shell method asked for under either of its names; NULL if neither. */
static const char *shell_method(acct_req *req, acct_problems *pb)
{
    const char *shell = NULL, *lish = NULL;

    acct_field_enum(req, pb, "shell_auth_method",
                    acct_profile_shell_methods, &shell);
    acct_field_enum(req, pb, "lish_auth_method", acct_profile_shell_methods,
                    &lish);
    if (shell && lish && strcmp(shell, lish) != 0) {
        acct_problem_add(pb, "lish_auth_method",
                         "lish_auth_method and shell_auth_method name the "
                         "same setting and must agree");
    }
    return shell ? shell : lish;
}

void api_profile_update(acct_req *req, acct_resp *resp)
{
    const acct_rows *current;
    const char *email = NULL, *tz = NULL;
    acct_field_rc email_rc, notify_rc, whitelist_rc, restricted_rc, tfa_rc;
    int notify = 0, whitelist = 0, restricted = 0, tfa = 0;
    acct_problems *pb = acct_problems_make(req->pool);
    acct_profile_changes c;

    profile_fields_only(req, pb);
    current = load_self(req, resp, acct_profile_get);
    if (!current || current->nrows == 0) {
        if (current) {
            acct_resp_error(resp, req->pool, 401, ACCT_R_INVALID_TOKEN, NULL);
        }
        return;
    }
#define NOW_TRUE(col) (strcmp(acct_rows_get(current, 0, col), "1") == 0)
    email_rc = acct_field_string(req, pb, "email", 1, 254, 0, &email);
    if (email_rc == ACCT_FIELD_SET && !acct_email_valid(email)) {
        acct_problem_add(pb, "email",
                         "email must be a valid e-mail address");
    }
    notify_rc = acct_field_bool(req, pb, "email_notifications", &notify);
    whitelist_rc = acct_field_bool(req, pb, "ip_whitelist_enabled",
                                   &whitelist);
    if (whitelist_rc == ACCT_FIELD_SET && whitelist
        && !NOW_TRUE("ip_whitelist_enabled")) {
        acct_problem_add(pb, "ip_whitelist_enabled",
                         "ip_whitelist_enabled is deprecated and cannot be "
                         "enabled");
    }
    acct_profile_changes_init(&c);
    c.shell_auth_method = shell_method(req, pb);
    restricted_rc = acct_field_bool(req, pb, "restricted", &restricted);
    if (restricted_rc == ACCT_FIELD_SET && restricted != NOW_TRUE("restricted")) {
        acct_problem_add(pb, "restricted",
                         "restricted can only be changed by the account's "
                         "administrator");
    }
    if (acct_field_string(req, pb, "timezone", 1, 64, 0, &tz)
        == ACCT_FIELD_SET && !timezone_valid(req->pool, tz)) {
        acct_problem_add(pb, "timezone",
                         "timezone must be a time zone name such as "
                         "America/New_York");
    }
    tfa_rc = acct_field_bool(req, pb, "two_factor_auth", &tfa);
    if (tfa_rc == ACCT_FIELD_SET && tfa && !NOW_TRUE("two_factor_auth")) {
        acct_problem_add(pb, "two_factor_auth",
                         "Two-factor authentication is turned on with "
                         "POST /profile/tfa-enable");
    }
#undef NOW_TRUE
    c.set_authorized_keys = acct_sshkey_body_list(req, pb, "authorized_keys",
                                                  &c.authorized_keys)
                            != ACCT_FIELD_ABSENT;
    if (acct_problems_any(pb)) {
        acct_resp_problems(resp, req->pool, pb);
        return;
    }
    c.email = email;
    c.email_notifications = change(notify_rc, notify);
    c.ip_whitelist_enabled = change(whitelist_rc, whitelist);
    c.timezone = tz;
    c.two_factor_auth = change(tfa_rc, tfa);
    if (acct_resp_store_failed(req, resp,
                               acct_profile_update(req->store, req->pool,
                                                   req->who->user_id, &c,
                                                   req->now))
        != 0) {
        return;
    }
    /* Read again: the token lookup's row predates the change. */
    profile_respond(req, resp, load_self(req, resp, acct_profile_get), "id");
}
