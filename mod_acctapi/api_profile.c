#include "api_handlers.h"
#include "acct_json.h"

#include <apr_strings.h>

static const acct_sql q_profile = ACCT_SQL("profile_get",
    "SELECT id, username, email, restricted, authentication_type,"
    " authorized_keys, email_notifications, ip_whitelist_enabled,"
    " shell_auth_method, timezone, two_factor_auth, verified_phone_number,"
    " referral_code"
    " FROM users WHERE id = CAST(%s AS BIGINT)");

static const acct_sql q_global_grants = ACCT_SQL("grants_global",
    "SELECT account_access, add_databases, add_domains, add_firewalls,"
    " add_images, add_instances, add_monitoring, add_nodebalancers,"
    " add_stackscripts, add_volumes, add_vpcs, cancel_account,"
    " monitoring_subscription"
    " FROM user_global_grants WHERE user_id = CAST(%s AS BIGINT)");

/* Loads the acting user's row, answering the error itself; NULL on failure. */
static const acct_rows *load_self(acct_req *req, acct_resp *resp,
                                  const acct_sql *sql)
{
    acct_store *st = NULL;
    acct_rows *rows = NULL;
    const char *args[1];
    acct_store_rc rc;

    rc = acct_req_store(req, &st);
    if (rc == ACCT_STORE_OK) {
        args[0] = acct_i64(req->pool, req->who->user_id);
        rc = acct_store_select(st, req->pool, sql, &rows, 1, args);
    }
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return NULL;
    }
    return rows;
}

void api_profile_get(acct_req *req, acct_resp *resp)
{
    const acct_rows *rows = load_self(req, resp, &q_profile);
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
    json_object_set_new(o, "shell_auth_method",
                        acct_json_str(COL("shell_auth_method")));
    json_object_set_new(o, "referrals", referrals);
    json_object_set_new(o, "restricted", acct_json_bool(COL("restricted")));
    json_object_set_new(o, "timezone", acct_json_str(COL("timezone")));
    json_object_set_new(o, "two_factor_auth",
                        acct_json_bool(COL("two_factor_auth")));
    json_object_set_new(o, "uid", acct_json_int(COL("id")));
    json_object_set_new(o, "username", acct_json_str(COL("username")));
    json_object_set_new(o, "verified_phone_number",
                        acct_json_str(COL("verified_phone_number")));
#undef COL
    acct_resp_ok(resp, req->pool, o);
}

/* Entity kinds of the grants document, in the contract's key order. */
static const char *const grant_entity_keys[] = {
    "database", "domain", NULL /* global */, "image", "instance",
    "monitoring", "nodebalancer", "stackscript", "volume", "vpc"
};

static const char *const global_flags[] = {
    "add_databases", "add_domains", "add_firewalls", "add_images",
    "add_instances", "add_monitoring", "add_nodebalancers",
    "add_stackscripts", "add_volumes", "add_vpcs", "cancel_account",
    "monitoring_subscription"
};

/*
 * 204 with no body for unrestricted users (DECISIONS.md).  A restricted user
 * without a grants row has every grant off.  Entity grants list the account's
 * entities of each kind; no kind of entity exists in this release yet, so
 * every list is empty.
 */
void api_profile_grants(acct_req *req, acct_resp *resp)
{
    const acct_rows *rows;
    json_t *doc, *global;
    size_t i;

    if (!req->who->restricted) {
        resp->status = 204;
        resp->body = NULL;
        return;
    }
    rows = load_self(req, resp, &q_global_grants);
    if (!rows) {
        return;
    }
    global = json_object();
    json_object_set_new(global, "account_access",
                        acct_json_str(acct_rows_get(rows, 0, "account_access")));
    for (i = 0; i < sizeof(global_flags) / sizeof(global_flags[0]); i++) {
        json_object_set_new(global, global_flags[i],
                            acct_json_bool(acct_rows_get(rows, 0,
                                                         global_flags[i])));
    }
    doc = json_object();
    for (i = 0; i < sizeof(grant_entity_keys) / sizeof(grant_entity_keys[0]);
         i++) {
        if (grant_entity_keys[i]) {
            json_object_set_new(doc, grant_entity_keys[i], json_array());
        }
        else {
            json_object_set_new(doc, "global", global);
        }
    }
    acct_resp_ok(resp, req->pool, doc);
}
