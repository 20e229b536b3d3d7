/*
 * Authorized OAuth apps (table apps): authorizing one and minting its token
 * (acctapi-admin app authorize), and the apps /profile/apps shows and
 * revokes.
 */
#include "acct_apps.h"
#include "acct_own.h"
#include "acct_scope.h"
#include "acct_tokens.h"

#include <apr_strings.h>
#include <apr_uri.h>
#include <string.h>
#include <strings.h>

static const acct_sql q_app_create = ACCT_SQL("app_create",
    "INSERT INTO apps (user_id, label, scopes, website, thumbnail_url,"
    " created, expiry)"
    " SELECT id, %s, %s, %s, %s, CAST(%s AS BIGINT), CAST(%s AS BIGINT)"
    " FROM users WHERE id = CAST(%s AS BIGINT) RETURNING id");

/* An absolute http(s) URL with a host, printable ASCII only. */
static int url_valid(apr_pool_t *pool, const char *url)
{
    apr_uri_t uri;
    const char *p;

    if (strlen(url) > ACCT_URL_MAX) {
        return 0;
    }
    for (p = url; *p; p++) {
        if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f) {
            return 0;
        }
    }
    return apr_uri_parse(pool, url, &uri) == APR_SUCCESS && uri.scheme
           && (strcasecmp(uri.scheme, "http") == 0
               || strcasecmp(uri.scheme, "https") == 0)
           && uri.hostname && *uri.hostname;
}

acct_ident_rc acct_app_authorize(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t uid, const char *label,
                                 const char *scopes, const char *website,
                                 const char *thumbnail_url, apr_int64_t expiry,
                                 apr_int64_t now, apr_int64_t *app_id,
                                 const char **token, acct_ident_result *res)
{
    const char *args[7], *bad = NULL, *canonical;
    acct_rows *rows = NULL;
    acct_scopes parsed;
    apr_int64_t token_id;
    acct_store_rc src;
    acct_ident_rc rc;

    memset(res, 0, sizeof(*res));
    if (!acct_ident_text_valid(label, ACCT_APP_LABEL_MAX)) {
        return acct_ident_invalid(
            res, apr_psprintf(pool, "the label must be 1..%d printable UTF-8 "
                              "characters", ACCT_APP_LABEL_MAX));
    }
    if (!scopes || acct_scopes_parse(pool, scopes, &parsed, &bad) != 0) {
        return acct_ident_invalid(
            res, apr_psprintf(pool, "invalid scope '%s'",
                              bad ? bad : scopes ? scopes : ""));
    }
    canonical = acct_scopes_format(pool, &parsed);
    if (website && !url_valid(pool, website)) {
        return acct_ident_invalid(res, "the website must be an http(s) URL");
    }
    if (thumbnail_url && !url_valid(pool, thumbnail_url)) {
        return acct_ident_invalid(res,
                                  "the thumbnail URL must be an http(s) URL");
    }
    if (expiry && expiry <= now) {
        return acct_ident_invalid(res, "the expiry must be in the future");
    }
    args[0] = label;
    args[1] = canonical;
    args[2] = website;
    args[3] = thumbnail_url;
    args[4] = acct_i64(pool, now);
    args[5] = expiry ? acct_i64(pool, expiry) : NULL;
    args[6] = acct_i64(pool, uid);
    src = acct_store_select(st, pool, &q_app_create, &rows, 7, args);
    rc = acct_ident_inserted_for_user(src, rows, app_id, res);
    if (rc != ACCT_IDENT_OK) {
        return rc;
    }
    /* The token row repeats the app's scopes and expiry so that, read on
     * its own, it never claims more; authentication reads the app's. */
    return acct_token_mint(st, pool, uid, "app", *app_id, label, canonical,
                           expiry, now, &token_id, token, res);
}

#define APP_COLUMNS \
    "id, label, created, expiry, scopes, thumbnail_url, website"

/* Visible: the user's own app, not revoked. */
#define APP_VISIBLE "user_id = CAST(%s AS BIGINT) AND revoked = 0"

static const acct_sql q_app_get = ACCT_SQL("app_get",
    "SELECT " APP_COLUMNS " FROM apps"
    " WHERE id = CAST(%s AS BIGINT) AND " APP_VISIBLE);

static const acct_sql q_app_revoke = ACCT_SQL("app_revoke",
    "UPDATE apps SET revoked = 1"
    " WHERE id = CAST(%s AS BIGINT) AND " APP_VISIBLE);

static const acct_sql q_app_token_revoke = ACCT_SQL("app_token_revoke",
    "UPDATE tokens SET revoked = 1"
    " WHERE app_id = CAST(%s AS BIGINT) AND kind = 'app'");

/* The public API's marks, and the other properties of linode_api4's
 * AuthorizedApp, as the app shows them (no website: ""). */
static const acct_filter_field app_fields[] = {
    {"label", "label", ACCT_FIELD_TEXT},
    {"created", "created", ACCT_FIELD_TIME},
    {"expiry", "expiry", ACCT_FIELD_TIME},
    {"id", "id", ACCT_FIELD_INT},
    {"scopes", "scopes", ACCT_FIELD_TEXT},
    {"thumbnail_url", "thumbnail_url", ACCT_FIELD_TEXT},
    {"website", "COALESCE(website, '')", ACCT_FIELD_TEXT},
    {NULL, NULL, 0}
};

void acct_app_list_query(apr_pool_t *pool, apr_int64_t uid,
                         acct_list_query *q)
{
    acct_own_list_query(pool, q, APP_COLUMNS, "apps", APP_VISIBLE, app_fields,
                        uid, NULL);
}

acct_store_rc acct_app_get(acct_store *st, apr_pool_t *pool, apr_int64_t id,
                           apr_int64_t uid, apr_int64_t now,
                           acct_rows **rows)
{
    (void)now;
    return acct_own_run(st, pool, &q_app_get, NULL, id, uid, NULL, rows, NULL);
}

acct_store_rc acct_app_revoke(acct_store *st, apr_pool_t *pool,
                              apr_int64_t id, apr_int64_t uid, apr_int64_t now,
                              int *changed)
{
    acct_store_rc rc;

    (void)now;
    *changed = 0;
    rc = acct_own_run(st, pool, &q_app_revoke, NULL, id, uid, NULL, NULL,
                      changed);
    if (rc == ACCT_STORE_OK && *changed) {
        const char *args[1];

        args[0] = acct_i64(pool, id);
        rc = acct_store_exec(st, pool, &q_app_token_revoke, NULL, 1, args);
    }
    return rc;
}
