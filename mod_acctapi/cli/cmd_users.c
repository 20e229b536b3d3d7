/*
 * acctapi-admin's commands on users and what they hold: user create, token
 * create, and the records other systems own (login record, device add, app
 * authorize).
 */
#include "config.h"
#include "acct_addr.h"
#include "acct_apps.h"

#include <string.h>

#include <apr_strings.h>

#include "acct_devices.h"
#include "acct_ident.h"
#include "acct_logins.h"
#include "acct_scope.h"
#include "acct_store.h"
#include "acct_time.h"
#include "acct_tokens.h"

#include "admin.h"

/* Scopes option `name` (--scopes, --token-scopes), `fallback` when absent,
 * in the canonical form the store keeps. */
static int parse_scopes_named(admin_ctx *c, const char *name,
                              const char *fallback)
{
    const char *scopes = admin_opt_value(c, name);
    const char *bad = NULL;
    acct_scopes parsed;

    if (!scopes) {
        scopes = fallback;
    }
    if (acct_scopes_parse(c->pool, scopes, &parsed, &bad) < 0) {
        return admin_usage_error(c->topic, "invalid scope '%s'",
                                 bad ? bad : scopes);
    }
    c->scopes = acct_scopes_format(c->pool, &parsed);
    return ADMIN_OK;
}

/* Option `name` (--expiry, --token-expiry) into c->expiry (0 when absent);
 * run checks it against the clock. */
static int parse_expiry_named(admin_ctx *c, const char *name)
{
    const char *expiry = admin_opt_value(c, name);

    c->expiry = 0;
    if (expiry && acct_parse_timestamp(expiry, &c->expiry) < 0) {
        return admin_usage_error(c->topic, "invalid %s '%s' (expected "
                                 TIMESTAMP_HELP ")", name + 2, expiry);
    }
    return ADMIN_OK;
}

static int expiry_named_in_future(admin_ctx *c, const char *name,
                                  apr_int64_t now)
{
    if (admin_opt_value(c, name) && c->expiry <= now) {
        return admin_usage_error(c->topic, "%s %s is not in the future (the "
                                 "clock is at %s)", name + 2, admin_opt_value(c, name),
                                 acct_format_timestamp(c->pool, now));
    }
    return ADMIN_OK;
}

/*
 * The --token-* options of user create and account create: with
 * --token-scopes, its scopes and --token-expiry into c->scopes and
 * c->expiry.  --token-label and --token-expiry describe a token: without
 * --token-scopes there is none, so they are refused rather than ignored.
 */
int check_token_opts(admin_ctx *c)
{
    int status;

    if (!admin_opt_value(c, "--token-scopes")) {
        if (admin_opt_value(c, "--token-label") || admin_opt_value(c, "--token-expiry")) {
            return admin_usage_error(c->topic, "--token-label and --token-expiry "
                                     "need --token-scopes");
        }
        return ADMIN_OK;
    }
    status = parse_scopes_named(c, "--token-scopes", NULL);
    return status == ADMIN_OK ? parse_expiry_named(c, "--token-expiry")
                              : status;
}

int check_token_expiry(admin_ctx *c, apr_int64_t now)
{
    return expiry_named_in_future(c, "--token-expiry", now);
}

int create_user_with_token(admin_ctx *c, apr_int64_t account_id,
                           const char *username, const char *email,
                           int restricted, apr_int64_t now)
{
    acct_ident_result res = { ACCT_STORE_OK, NULL };
    const char *label = admin_opt_value(c, "--token-label");
    const char *token = NULL;
    apr_int64_t uid, id;
    acct_ident_rc rc;

    rc = acct_user_create(c->st, c->pool, account_id, username, email,
                          restricted, now, &uid, &res);
    if (rc != ACCT_IDENT_OK) {
        return admin_ident_failure(c, rc, &res, "create the user",
                                   apr_psprintf(c->pool, "no account with id %"
                                          APR_INT64_T_FMT, account_id),
                                   apr_psprintf(c->pool, "username '%s' is taken",
                                          username));
    }
    c->out = apr_psprintf(c->pool, "%s%" APR_INT64_T_FMT "\n",
                          c->out ? c->out : "", uid);
    if (!admin_opt_value(c, "--token-scopes")) {
        return ADMIN_OK;
    }
    /* The same token as 'token create --user UID' would mint, in the same
     * transaction: a failure leaves neither the user nor the token. */
    rc = acct_token_create(c->st, c->pool, uid, label ? label : DEFAULT_LABEL,
                           c->scopes, c->expiry, now, &id, &token, &res);
    if (rc != ACCT_IDENT_OK) {
        return admin_ident_failure(c, rc, &res, "create the token", NULL, NULL);
    }
    c->out = apr_pstrcat(c->pool, c->out, token, "\n", NULL);
    return ADMIN_OK;
}

int check_user_create(admin_ctx *c)
{
    int status = admin_parse_account_opt(c);

    return status == ADMIN_OK ? check_token_opts(c) : status;
}

int cmd_user_create(admin_ctx *c)
{
    apr_int64_t now;
    int status;

    if ((status = admin_read_now(c, &now)) != ADMIN_OK
        || (status = check_token_expiry(c, now)) != ADMIN_OK) {
        return status;
    }
    return create_user_with_token(c, c->account_id,
                                  admin_opt_value(c, "--username"),
                                  admin_opt_value(c, "--email"),
                                  admin_opt_value(c, "--restricted") != NULL, now);
}

/* --ip into c->ip, canonical: what the API will show. */
static int parse_ip_opt(admin_ctx *c)
{
    const char *ip = admin_opt_value(c, "--ip");

    c->ip = acct_ip_canonical(c->pool, ip);
    if (!c->ip) {
        return admin_usage_error(c->topic, "invalid IP address '%s' (expected "
                                 "IPv4 or IPv6)", ip);
    }
    return ADMIN_OK;
}

/* The clock now, and the --expiry checked against it. */
static int read_now_for_expiry(admin_ctx *c, apr_int64_t *now)
{
    int status = admin_read_now(c, now);

    return status == ADMIN_OK ? expiry_named_in_future(c, "--expiry", *now) : status;
}

int check_token_create(admin_ctx *c)
{
    int status = parse_scopes_named(c, "--scopes", "*");

    return status == ADMIN_OK ? parse_expiry_named(c, "--expiry") : status;
}

int cmd_token_create(admin_ctx *c)
{
    acct_ident_result res = { ACCT_STORE_OK, NULL };
    const char *label = admin_opt_value(c, "--label");
    const char *token = NULL;
    apr_int64_t now, uid, id;
    acct_ident_rc rc;
    int status;

    if ((status = read_now_for_expiry(c, &now)) != ADMIN_OK
        || (status = admin_find_user(c, "create the token", &uid)) != ADMIN_OK) {
        return status;
    }
    /* No AcctapiMaxTokensPerUser here: the operator decides (see --help). */
    rc = acct_token_create(c->st, c->pool, uid, label ? label : DEFAULT_LABEL,
                           c->scopes, c->expiry, now, &id, &token, &res);
    if (rc != ACCT_IDENT_OK) {
        return admin_ident_failure(c, rc, &res, "create the token", NULL, NULL);
    }
    c->out = apr_pstrcat(c->pool, token, "\n", NULL);
    return ADMIN_OK;
}

int check_login_record(admin_ctx *c)
{
    const char *status = admin_opt_value(c, "--status");
    const char *at = admin_opt_value(c, "--at");

    if (status && strcmp(status, "successful") != 0
        && strcmp(status, "failed") != 0) {
        return admin_usage_error(c->topic, "invalid status '%s' (successful or "
                                 "failed)", status);
    }
    if (at && (acct_parse_timestamp(at, &c->timestamp) < 0
               || c->timestamp < 0)) {
        return admin_usage_error(c->topic, "invalid time '%s' (expected "
                                 TIMESTAMP_HELP ")", at);
    }
    return parse_ip_opt(c);
}

int cmd_login_record(admin_ctx *c)
{
    acct_ident_result res = { ACCT_STORE_OK, NULL };
    const char *status_text = admin_opt_value(c, "--status");
    const char *at = admin_opt_value(c, "--at");
    apr_int64_t now, uid, id;
    acct_ident_rc rc;
    int status;

    if ((status = admin_read_now(c, &now)) != ADMIN_OK) {
        return status;
    }
    if (at && c->timestamp > now) {
        return admin_usage_error(c->topic, "login time %s is in the future (the "
                                 "clock is at %s)", at,
                                 acct_format_timestamp(c->pool, now));
    }
    if ((status = admin_find_user(c, "record the login", &uid)) != ADMIN_OK) {
        return status;
    }
    rc = acct_login_record(c->st, c->pool, uid, c->ip,
                           status_text ? status_text : "successful",
                           at ? c->timestamp : now, &id, &res);
    if (rc != ACCT_IDENT_OK) {
        return admin_ident_failure(c, rc, &res, "record the login", NULL, NULL);
    }
    c->out = apr_psprintf(c->pool, "%" APR_INT64_T_FMT "\n", id);
    return ADMIN_OK;
}

int check_device_add(admin_ctx *c)
{
    int status = parse_ip_opt(c);

    return status == ADMIN_OK ? parse_expiry_named(c, "--expiry") : status;
}

int cmd_device_add(admin_ctx *c)
{
    acct_ident_result res = { ACCT_STORE_OK, NULL };
    apr_int64_t now, uid, id;
    acct_ident_rc rc;
    int status;

    if ((status = read_now_for_expiry(c, &now)) != ADMIN_OK
        || (status = admin_find_user(c, "add the device", &uid)) != ADMIN_OK) {
        return status;
    }
    rc = acct_device_add(c->st, c->pool, uid, c->ip,
                         admin_opt_value(c, "--user-agent"), c->expiry, now, &id,
                         &res);
    if (rc != ACCT_IDENT_OK) {
        return admin_ident_failure(c, rc, &res, "add the device", NULL, NULL);
    }
    c->out = apr_psprintf(c->pool, "%" APR_INT64_T_FMT "\n", id);
    return ADMIN_OK;
}

int check_app_authorize(admin_ctx *c)
{
    int status = parse_scopes_named(c, "--scopes", NULL);

    return status == ADMIN_OK ? parse_expiry_named(c, "--expiry") : status;
}

int cmd_app_authorize(admin_ctx *c)
{
    acct_ident_result res = { ACCT_STORE_OK, NULL };
    const char *token = NULL;
    apr_int64_t now, uid, id;
    acct_ident_rc rc;
    int status;

    if ((status = read_now_for_expiry(c, &now)) != ADMIN_OK
        || (status = admin_find_user(c, "authorize the app", &uid)) != ADMIN_OK) {
        return status;
    }
    rc = acct_app_authorize(c->st, c->pool, uid, admin_opt_value(c, "--label"),
                            c->scopes, admin_opt_value(c, "--website"),
                            admin_opt_value(c, "--thumbnail-url"), c->expiry, now,
                            &id, &token, &res);
    if (rc != ACCT_IDENT_OK) {
        return admin_ident_failure(c, rc, &res, "authorize the app", NULL, NULL);
    }
    c->out = apr_psprintf(c->pool, "%" APR_INT64_T_FMT "\n%s\n", id, token);
    return ADMIN_OK;
}
