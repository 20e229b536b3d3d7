#include "api_handlers.h"
#include "acct_body.h"
#include "acct_grants.h"
#include "acct_json.h"
#include "acct_names.h"
#include "acct_profile.h"
#include "acct_sshkey.h"
#include "acct_users.h"
#include "acct_valid.h"

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

/* The profile of row 0 of `rows`, whose id column is `id_column`. */
static json_t *profile_render(acct_req *req, const acct_rows *rows,
                              const char *id_column)
{
    json_t *o, *referrals;
    const char *code;

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
    /* The public API's key: the contract's profile has no user types. */
    acct_names_set_public_only(o, req->settings->field_names, "user_type",
                               json_string(ACCT_USER_TYPE_DEFAULT));
    json_object_set_new(o, "username", acct_json_str(COL("username")));
    json_object_set_new(o, "verified_phone_number",
                        acct_json_str(COL("verified_phone_number")));
#undef COL
    return o;
}

/* The profile from `rows` (NULL: failed, answered), whose id column is
 * `id_column`. */
static void profile_respond(acct_req *req, acct_resp *resp,
                            const acct_rows *rows, const char *id_column)
{
    if (!rows) {
        return;
    }
    if (rows->nrows == 0) {
        /* The token's user vanished between the two queries. */
        acct_resp_error(resp, req->pool, ACCT_HTTP_UNAUTHORIZED, ACCT_R_INVALID_TOKEN, NULL);
        return;
    }
    acct_resp_ok(resp, req->pool, profile_render(req, rows, id_column));
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
static json_t *entity_grants(acct_req *req, acct_resp *resp,
                             apr_int64_t user_id, const char *key)
{
    acct_rows *rows = NULL;
    json_t *list, *item;
    int i;

    if (acct_resp_store_failed(req, resp,
                               acct_grant_entities_list(req->store, req->pool,
                                                        user_id,
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
 * A restricted user's grants (GET /profile/grants answers 204 with no body
 * for unrestricted users, docs/conventions.md).  A restricted user
 * without a grants row has every grant off.  Entity grants list each entity
 * of the account of that kind with the user's permissions on it.  Keys the
 * public API names otherwise (instance/linode ...) come under the names
 * AcctapiFieldNames asks for, the public one next to the contract's.
 *
 * The public API's grants have keys the contract's do not: the lists of
 * firewalls and placement groups, add_placement_groups and
 * child_account_access.  The module has neither kind of object, so the
 * lists are empty and no one may add one; child_account_access is null,
 * as the public API answers for an account that is not a parent account
 * (recorded traffic: linodego's TestUserGrants_Update).  Only the public
 * names carry them: AcctapiFieldNames contract leaves them out.
 */
void api_grants_respond(acct_req *req, acct_resp *resp, apr_int64_t user_id)
{
    /* The keys that are no entity type of the module, in the contract's
     * (alphabetical) order: each goes before the first type that sorts
     * after it. */
    struct {
        const char *key;
        json_t *value;
        int public_only;
    } other[4];
    const char *const *type;
    const acct_rows *rows;
    json_t *doc, *global;
    int names = req->settings->field_names;
    size_t i, next = 0;

    acct_rows *found = NULL;

    if (acct_resp_store_failed(req, resp,
                               acct_grant_globals_get(req->store, req->pool,
                                                      user_id, &found)) != 0) {
        return;
    }
    rows = found;
    global = acct_json_own(req->pool, json_object());
    json_object_set_new(global, ACCT_GRANT_ACCOUNT_ACCESS,
                        acct_json_str(acct_rows_get(
                            rows, 0, ACCT_GRANT_ACCOUNT_ACCESS)));
    for (i = 0; acct_grant_flags[i]; i++) {
        acct_names_set(global, names, acct_grant_flags[i],
                       acct_json_bool(acct_rows_get(rows, 0,
                                                    acct_grant_flags[i])));
    }
    acct_names_set_public_only(global, names, "add_placement_groups",
                               json_false());
    acct_names_set_public_only(global, names, "child_account_access",
                               json_null());
    other[0].key = "firewall";
    other[1].key = "global";
    other[2].key = "placement_group";
    other[3].key = NULL;
    other[0].value = acct_json_own(req->pool, json_array());
    other[1].value = global;
    other[2].value = acct_json_own(req->pool, json_array());
    other[0].public_only = other[2].public_only = 1;
    other[1].public_only = 0;
    doc = acct_json_own(req->pool, json_object());
    for (type = acct_grant_entity_types;; type++) {
        json_t *list;

        for (; other[next].key
               && (!*type || strcmp(other[next].key, *type) < 0); next++) {
            json_t *v = json_incref(other[next].value);

            if (other[next].public_only) {
                acct_names_set_public_only(doc, names, other[next].key, v);
            }
            else {
                json_object_set_new(doc, other[next].key, v);
            }
        }
        if (!*type) {
            break;
        }
        if (!(list = entity_grants(req, resp, user_id, *type))) {
            return;
        }
        acct_names_set(doc, names, *type, list);
    }
    acct_resp_ok(resp, req->pool, json_incref(doc));
}

void api_profile_grants(acct_req *req, acct_resp *resp)
{
    if (!req->who->restricted) {
        resp->status = ACCT_HTTP_NO_CONTENT;
        resp->body = NULL;
        return;
    }
    if (acct_resp_store_failed(req, resp, acct_req_store(req, &req->store))
        != 0) {
        return;
    }
    api_grants_respond(req, resp, req->who->user_id);
}

/* ---- PUT /profile -------------------------------------------------------- */

/*
 * The fields a PUT sets.  lish_auth_method is the public API's name of
 * shell_auth_method (the contract writes the shell with a neutral word):
 * the published clients send it, so it is accepted as the same field.
 * The profile's other fields (uid, username, referrals ...) are judged
 * against the stored profile (acct_fields_settable).
 */
static const char *const profile_writable[] = {
    "authorized_keys", "email", "email_notifications", "ip_whitelist_enabled",
    "shell_auth_method", "lish_auth_method", "restricted", "timezone",
    "two_factor_auth", NULL
};

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

    current = load_self(req, resp, acct_profile_get);
    if (!current || current->nrows == 0) {
        if (current) {
            acct_resp_error(resp, req->pool, ACCT_HTTP_UNAUTHORIZED, ACCT_R_INVALID_TOKEN, NULL);
        }
        return;
    }
    acct_fields_settable(req, pb, profile_writable,
                         acct_fields_beyond(req, profile_writable)
                         ? acct_json_own(req->pool,
                                         profile_render(req, current, "id"))
                         : NULL);
#define NOW_TRUE(col) (strcmp(acct_rows_get(current, 0, col), "1") == 0)
    email_rc = acct_field_string(req, pb, "email", 1, 254, 0, &email);
    if (email_rc == ACCT_FIELD_SET && !acct_valid_email(email)) {
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
    /* "" clears it: the public API takes a profile without a time zone. */
    if (acct_field_string(req, pb, "timezone", 0, 64, 0, &tz)
        == ACCT_FIELD_SET && *tz && !timezone_valid(req->pool, tz)) {
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
    if (tfa_rc == ACCT_FIELD_SET && !tfa && !NOW_TRUE("two_factor_auth")) {
        /* Off already: a profile sent back as read must not forget the
         * secret of a tfa-enable still waiting for its confirmation. */
        tfa_rc = ACCT_FIELD_ABSENT;
    }
#undef NOW_TRUE
    c.set_authorized_keys = acct_sshkey_body_list(req, pb, "authorized_keys",
                                                  &c.authorized_keys)
                            == ACCT_FIELD_SET;
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
