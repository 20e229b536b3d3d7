#include "acct_ident.h"
#include "acct_event.h"
#include "acct_addr.h"
#include "acct_body.h"
#include "acct_crypto.h"
#include "acct_scope.h"
#include "acct_valid.h"

#include <apr_strings.h>
#include <apr_uri.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <string.h>
#include <strings.h>

/* Where a personal access token is, for its events. */
#define TOKEN_URL "/v4/profile/tokens/"

static const acct_sql q_account_create = ACCT_SQL("account_create",
    "INSERT INTO accounts (name, created) VALUES (%s, CAST(%s AS BIGINT))"
    " RETURNING id");

static const acct_sql q_account_exists = ACCT_SQL("account_exists",
    "SELECT id FROM accounts WHERE id = CAST(%s AS BIGINT)");

/* ON CONFLICT DO NOTHING: no row back means the username is taken. */
static const acct_sql q_user_create = ACCT_SQL("user_create",
    "INSERT INTO users (account_id, username, email, restricted,"
    " referral_code, created)"
    " VALUES (CAST(%s AS BIGINT), %s, %s, CAST(%s AS INTEGER), %s,"
    " CAST(%s AS BIGINT))"
    " ON CONFLICT DO NOTHING RETURNING id");

static const acct_sql q_user_by_id = ACCT_SQL("user_by_id",
    "SELECT id FROM users WHERE id = CAST(%s AS BIGINT)");

static const acct_sql q_user_by_name = ACCT_SQL("user_by_name",
    "SELECT id FROM users WHERE lower(username) = lower(%s)");

static const acct_sql q_token_create = ACCT_SQL("token_create",
    "INSERT INTO tokens (user_id, kind, app_id, label, token_hash,"
    " token_prefix, scopes, created, expiry)"
    " VALUES (CAST(%s AS BIGINT), %s, CAST(%s AS BIGINT), %s, %s, %s, %s,"
    " CAST(%s AS BIGINT), CAST(%s AS BIGINT)) RETURNING id");

/*
 * The records below are inserted from the user's row: no row back means
 * no such user, and a login copies the username and restriction in the
 * same statement.
 */
static const acct_sql q_login_record = ACCT_SQL("login_record",
    "INSERT INTO logins (user_id, datetime, ip, restricted, status, username)"
    " SELECT id, CAST(%s AS BIGINT), %s, restricted, %s, username"
    " FROM users WHERE id = CAST(%s AS BIGINT) RETURNING id");

static const acct_sql q_device_add = ACCT_SQL("device_add",
    "INSERT INTO devices (user_id, created, expiry, last_authenticated,"
    " last_remote_addr, user_agent)"
    " SELECT id, CAST(%s AS BIGINT), CAST(%s AS BIGINT), CAST(%s AS BIGINT),"
    " %s, %s FROM users WHERE id = CAST(%s AS BIGINT) RETURNING id");

static const acct_sql q_app_create = ACCT_SQL("app_create",
    "INSERT INTO apps (user_id, label, scopes, website, thumbnail_url,"
    " created, expiry)"
    " SELECT id, %s, %s, %s, %s, CAST(%s AS BIGINT), CAST(%s AS BIGINT)"
    " FROM users WHERE id = CAST(%s AS BIGINT) RETURNING id");

static acct_ident_rc store_failed(acct_ident_result *res, acct_store_rc rc)
{
    res->store_rc = rc;
    res->error = rc == ACCT_STORE_UNAVAILABLE ? "the database is unavailable"
                                              : "the database query failed";
    return ACCT_IDENT_STORE;
}

static acct_ident_rc invalid(acct_ident_result *res, const char *why)
{
    res->error = why;
    return ACCT_IDENT_INVALID;
}

static int returned_id(const acct_rows *rows, apr_int64_t *id)
{
    const char *v = acct_rows_get(rows, 0, "id");

    return v && acct_parse_i64(v, id) == 0;
}

/* The id an INSERT ... RETURNING gave back, as the outcome: no row means
 * `none` (with `why`), which each insert names for itself. */
static acct_ident_rc inserted(acct_store_rc rc, const acct_rows *rows,
                              apr_int64_t *id, acct_ident_result *res,
                              acct_ident_rc none, const char *why)
{
    if (rc != ACCT_STORE_OK) {
        return store_failed(res, rc);
    }
    if (rows->nrows == 0) {
        res->error = why;
        return none;
    }
    if (!returned_id(rows, id)) {
        return store_failed(res, ACCT_STORE_FAILED);
    }
    return ACCT_IDENT_OK;
}

acct_ident_rc acct_account_create(acct_store *st, apr_pool_t *pool,
                                  const char *name, apr_int64_t now,
                                  apr_int64_t *id, acct_ident_result *res)
{
    const char *args[2];
    acct_rows *rows = NULL;
    acct_store_rc rc;

    memset(res, 0, sizeof(*res));
    if (!name || !*name || strlen(name) > 128) {
        return invalid(res, "the account name must be 1..128 characters");
    }
    args[0] = name;
    args[1] = acct_i64(pool, now);
    rc = acct_store_select(st, pool, &q_account_create, &rows, 2, args);
    if (rc != ACCT_STORE_OK) {
        return store_failed(res, rc);
    }
    if (!returned_id(rows, id)) {
        return store_failed(res, ACCT_STORE_FAILED);
    }
    return ACCT_IDENT_OK;
}

/* Login names as the public API allows them: 3..32 of [A-Za-z0-9_-]. */
static int username_valid(const char *u)
{
    size_t n = strlen(u), i;

    if (n < 3 || n > 32) {
        return 0;
    }
    for (i = 0; i < n; i++) {
        if (!isalnum((unsigned char)u[i]) && u[i] != '_' && u[i] != '-') {
            return 0;
        }
    }
    return 1;
}

acct_ident_rc acct_user_create(acct_store *st, apr_pool_t *pool,
                               apr_int64_t account_id, const char *username,
                               const char *email, int restricted,
                               apr_int64_t now, apr_int64_t *uid,
                               acct_ident_result *res)
{
    const char *args[6];
    acct_rows *rows = NULL;
    acct_store_rc rc;
    acct_ident_rc irc;
    const char *referral;

    memset(res, 0, sizeof(*res));
    if (!username || !username_valid(username)) {
        return invalid(res, "the username must be 3..32 letters, digits, "
                       "'_' or '-'");
    }
    if (!email || !acct_valid_email(email)) {
        return invalid(res, "the email address is not valid");
    }
    args[0] = acct_i64(pool, account_id);
    rc = acct_store_select(st, pool, &q_account_exists, &rows, 1, args);
    if (rc != ACCT_STORE_OK) {
        return store_failed(res, rc);
    }
    if (rows->nrows == 0) {
        res->error = "no such account";
        return ACCT_IDENT_NOT_FOUND;
    }
    referral = acct_random_hex(pool, 20);
    if (!referral) {
        return store_failed(res, ACCT_STORE_FAILED);
    }
    args[1] = username;
    args[2] = email;
    args[3] = restricted ? "1" : "0";
    args[4] = referral;
    args[5] = acct_i64(pool, now);
    rc = acct_store_select(st, pool, &q_user_create, &rows, 6, args);
    irc = inserted(rc, rows, uid, res, ACCT_IDENT_CONFLICT,
                   "the username is taken");
    if (irc != ACCT_IDENT_OK) {
        return irc;
    }
    /* Users are created by the operator (acctapi-admin user create). */
    rc = acct_event_account_user(st, pool, account_id, *uid, username,
                                 ACCT_EVENT_USER_CREATE, now);
    return rc == ACCT_STORE_OK ? ACCT_IDENT_OK : store_failed(res, rc);
}

static const acct_sql q_user_lock = ACCT_SQL2("user_lock",
    "SELECT id FROM users WHERE id = CAST(%s AS BIGINT)",
    "SELECT id FROM users WHERE id = CAST(%s AS BIGINT) FOR UPDATE");

acct_store_rc acct_user_lock(acct_store *st, apr_pool_t *pool,
                             apr_int64_t user_id)
{
    const char *args[1];
    acct_rows *rows = NULL;

    args[0] = acct_i64(pool, user_id);
    return acct_store_select(st, pool, &q_user_lock, &rows, 1, args);
}

acct_ident_rc acct_user_find(acct_store *st, apr_pool_t *pool,
                             const char *user, apr_int64_t *uid,
                             acct_ident_result *res)
{
    const char *args[1];
    acct_rows *rows = NULL;
    acct_store_rc rc;
    apr_int64_t numeric;

    memset(res, 0, sizeof(*res));
    if (!user || !*user) {
        return invalid(res, "no user given");
    }
    args[0] = user;
    rc = acct_store_select(st, pool,
                           acct_parse_i64(user, &numeric) == 0
                           ? &q_user_by_id : &q_user_by_name,
                           &rows, 1, args);
    if (rc != ACCT_STORE_OK) {
        return store_failed(res, rc);
    }
    if (rows->nrows == 0 || !returned_id(rows, uid)) {
        res->error = "no such user";
        return ACCT_IDENT_NOT_FOUND;
    }
    return ACCT_IDENT_OK;
}

/*
 * Mints a token of `kind` ("pat", or "app" with `app_id`): 64 hex characters
 * from the CSPRNG, stored as its SHA-256 and its prefix.  The caller has
 * validated the rest.
 */
static acct_ident_rc mint_token(acct_store *st, apr_pool_t *pool,
                                apr_int64_t uid, const char *kind,
                                apr_int64_t app_id, const char *label,
                                const char *scopes, apr_int64_t expiry,
                                apr_int64_t now, apr_int64_t *id,
                                const char **token, acct_ident_result *res)
{
    const char *args[9];
    acct_rows *rows = NULL;
    acct_store_rc rc;
    const char *secret;

    secret = acct_random_hex(pool, ACCT_TOKEN_HEX_LEN / 2);
    if (!secret) {
        return store_failed(res, ACCT_STORE_FAILED);
    }
    args[0] = acct_i64(pool, uid);
    args[1] = kind;
    args[2] = app_id ? acct_i64(pool, app_id) : NULL;
    args[3] = label;
    args[4] = acct_sha256_hex(pool, secret);
    args[5] = apr_pstrndup(pool, secret, ACCT_TOKEN_PREFIX_LEN);
    args[6] = scopes;
    args[7] = acct_i64(pool, now);
    args[8] = expiry ? acct_i64(pool, expiry) : NULL;
    rc = acct_store_select(st, pool, &q_token_create, &rows, 9, args);
    if (rc != ACCT_STORE_OK) {
        return store_failed(res, rc);
    }
    if (!returned_id(rows, id)) {
        return store_failed(res, ACCT_STORE_FAILED);
    }
    *token = secret;
    return ACCT_IDENT_OK;
}

acct_ident_rc acct_token_create(acct_store *st, apr_pool_t *pool,
                                apr_int64_t uid, const char *label,
                                const char *scopes, apr_int64_t expiry,
                                apr_int64_t now, apr_int64_t *id,
                                const char **token, acct_ident_result *res)
{
    acct_ident_rc irc;
    acct_store_rc rc;

    memset(res, 0, sizeof(*res));
    if (label && (!*label || strlen(label) > 400)) {
        return invalid(res, "the label must be 1..100 characters");
    }
    if (expiry && expiry <= now) {
        return invalid(res, "the expiry must be in the future");
    }
    irc = mint_token(st, pool, uid, "pat", 0, label, scopes, expiry, now, id,
                     token, res);
    if (irc != ACCT_IDENT_OK) {
        return irc;
    }
    rc = acct_event_own(st, pool, ACCT_STORE_OK, 1, uid,
                        ACCT_EVENT_TOKEN_CREATE, ACCT_EVENT_ENTITY_TOKEN, *id,
                        label, TOKEN_URL, now);
    return rc == ACCT_STORE_OK ? ACCT_IDENT_OK : store_failed(res, rc);
}

/*
 * Text shown back through JSON: 1..`max` characters of valid UTF-8 (else
 * the API would render null) without control characters.
 */
static int text_valid(const char *s, size_t max)
{
    const unsigned char *p;
    json_t *probe;

    if (!s || !*s) {
        return 0;
    }
    for (p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x20 || *p == 0x7f) {
            return 0;
        }
    }
    probe = json_string(s);  /* jansson refuses invalid UTF-8 */
    if (!probe) {
        return 0;
    }
    json_decref(probe);
    return acct_utf8_length(s) <= max;
}

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

/* No row back from an INSERT ... SELECT FROM users: the user is missing. */
static acct_ident_rc inserted_for_user(acct_store_rc rc, const acct_rows *rows,
                                       apr_int64_t *id, acct_ident_result *res)
{
    return inserted(rc, rows, id, res, ACCT_IDENT_NOT_FOUND, "no such user");
}

acct_ident_rc acct_login_record(acct_store *st, apr_pool_t *pool,
                                apr_int64_t uid, const char *ip,
                                const char *status, apr_int64_t at,
                                apr_int64_t *id, acct_ident_result *res)
{
    const char *args[4];
    acct_rows *rows = NULL;
    acct_store_rc src;

    memset(res, 0, sizeof(*res));
    args[1] = acct_ip_canonical(pool, ip);
    if (!args[1]) {
        return invalid(res, "the IP address must be IPv4 or IPv6");
    }
    if (!status || (strcmp(status, "successful") != 0
                    && strcmp(status, "failed") != 0)) {
        return invalid(res, "the status must be successful or failed");
    }
    if (at < 0) {
        return invalid(res, "the login time must not precede 1970");
    }
    args[0] = acct_i64(pool, at);
    args[2] = status;
    args[3] = acct_i64(pool, uid);
    src = acct_store_select(st, pool, &q_login_record, &rows, 4, args);
    return inserted_for_user(src, rows, id, res);
}

acct_ident_rc acct_device_add(acct_store *st, apr_pool_t *pool,
                              apr_int64_t uid, const char *ip,
                              const char *user_agent, apr_int64_t expiry,
                              apr_int64_t now, apr_int64_t *id,
                              acct_ident_result *res)
{
    const char *args[6];
    acct_rows *rows = NULL;
    acct_store_rc src;

    memset(res, 0, sizeof(*res));
    args[3] = acct_ip_canonical(pool, ip);
    if (!args[3]) {
        return invalid(res, "the IP address must be IPv4 or IPv6");
    }
    if (!text_valid(user_agent, ACCT_USER_AGENT_MAX)) {
        return invalid(res, apr_psprintf(pool, "the user agent must be 1..%d "
                                         "printable UTF-8 characters",
                                         ACCT_USER_AGENT_MAX));
    }
    if (!expiry) {
        expiry = now + ACCT_DEVICE_LIFETIME;
    }
    else if (expiry <= now) {
        return invalid(res, "the expiry must be in the future");
    }
    args[0] = acct_i64(pool, now);
    args[1] = acct_i64(pool, expiry);
    args[2] = args[0];  /* authenticated as it was trusted */
    args[4] = user_agent;
    args[5] = acct_i64(pool, uid);
    src = acct_store_select(st, pool, &q_device_add, &rows, 6, args);
    return inserted_for_user(src, rows, id, res);
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
    if (!text_valid(label, ACCT_APP_LABEL_MAX)) {
        return invalid(res, apr_psprintf(pool, "the label must be 1..%d "
                                         "printable UTF-8 characters",
                                         ACCT_APP_LABEL_MAX));
    }
    if (!scopes || acct_scopes_parse(pool, scopes, &parsed, &bad) != 0) {
        return invalid(res, apr_psprintf(pool, "invalid scope '%s'",
                                         bad ? bad : scopes ? scopes : ""));
    }
    canonical = acct_scopes_format(pool, &parsed);
    if (website && !url_valid(pool, website)) {
        return invalid(res, "the website must be an http(s) URL");
    }
    if (thumbnail_url && !url_valid(pool, thumbnail_url)) {
        return invalid(res, "the thumbnail URL must be an http(s) URL");
    }
    if (expiry && expiry <= now) {
        return invalid(res, "the expiry must be in the future");
    }
    args[0] = label;
    args[1] = canonical;
    args[2] = website;
    args[3] = thumbnail_url;
    args[4] = acct_i64(pool, now);
    args[5] = expiry ? acct_i64(pool, expiry) : NULL;
    args[6] = acct_i64(pool, uid);
    src = acct_store_select(st, pool, &q_app_create, &rows, 7, args);
    rc = inserted_for_user(src, rows, app_id, res);
    if (rc != ACCT_IDENT_OK) {
        return rc;
    }
    /* The token row repeats the app's scopes and expiry so that, read on
     * its own, it never claims more; authentication reads the app's. */
    return mint_token(st, pool, uid, "app", *app_id, label, canonical, expiry,
                      now, &token_id, token, res);
}

/* ---- the user's own records, for handlers ------------------------------- */

acct_rows *acct_own_row(acct_req *req, acct_own_get_fn *get, apr_int64_t id,
                        acct_outcome *out)
{
    acct_rows *rows = NULL;
    acct_store *st = NULL;
    acct_store_rc rc = acct_req_store(req, &st);

    if (rc == ACCT_STORE_OK) {
        rc = get(st, req->pool, id, req->who->user_id, req->now, &rows);
    }
    *out = acct_out_found(rc, rows);
    return acct_out_ok(*out) ? rows : NULL;
}

acct_outcome acct_own_change(acct_req *req, acct_own_change_fn *change,
                             apr_int64_t id)
{
    acct_store *st = NULL;
    acct_store_rc rc = acct_req_store(req, &st);
    int changed = 0;

    if (rc == ACCT_STORE_OK) {
        rc = change(st, req->pool, id, req->who->user_id, req->now, &changed);
    }
    return acct_out_changed(rc, changed);
}

/* ---- access tokens of /profile/tokens ----------------------------------- */

#define TOKEN_COLUMNS "id, label, scopes, created, expiry, token_prefix"

/* Active: the user's own personal access token, not revoked, not expired. */
#define TOKEN_ACTIVE \
    "user_id = CAST(%s AS BIGINT) AND kind = 'pat' AND revoked = 0" \
    " AND (expiry IS NULL OR expiry > CAST(%s AS BIGINT))"

static const acct_sql q_token_get = ACCT_SQL("pat_get",
    "SELECT " TOKEN_COLUMNS " FROM tokens"
    " WHERE id = CAST(%s AS BIGINT) AND " TOKEN_ACTIVE);

static const acct_sql q_token_label = ACCT_SQL("pat_label",
    "UPDATE tokens SET label = %s"
    " WHERE id = CAST(%s AS BIGINT) AND " TOKEN_ACTIVE);

/* RETURNING: the revoked token's label, for its event. */
static const acct_sql q_token_revoke = ACCT_SQL("pat_revoke",
    "UPDATE tokens SET revoked = 1"
    " WHERE id = CAST(%s AS BIGINT) AND " TOKEN_ACTIVE " RETURNING label");

static const acct_sql q_token_count = ACCT_SQL("pat_count",
    "SELECT count(*) AS n FROM tokens WHERE " TOKEN_ACTIVE);

/* The public API's marks, and the other properties of linode_api4's
 * PersonalAccessToken, which its filters may name, as the token shows
 * them (no expiry: the public API's "never"). */
static const acct_filter_field token_fields[] = {
    {"label", "label", ACCT_FIELD_TEXT},
    {"created", "created", ACCT_FIELD_TIME},
    {"id", "id", ACCT_FIELD_INT},
    {"scopes", "scopes", ACCT_FIELD_TEXT},
    {"expiry", "COALESCE(expiry, " ACCT_TOKEN_NEVER_EXPIRES_AT ")",
     ACCT_FIELD_TIME},
    {NULL, NULL, 0}
};

/*
 * Runs `sql` on one row of the user's, with the arguments `first` (when not
 * NULL), `id`, `uid`, `time` (when not NULL): a select when `rows` is not
 * NULL, else a change that counts the rows in *changed.
 */
static acct_store_rc own_run(acct_store *st, apr_pool_t *pool,
                             const acct_sql *sql, const char *first,
                             apr_int64_t id, apr_int64_t uid, const char *time,
                             acct_rows **rows, int *changed)
{
    const char *args[4];
    int n = 0;

    if (first) {
        args[n++] = first;
    }
    args[n++] = acct_i64(pool, id);
    args[n++] = acct_i64(pool, uid);
    if (time) {
        args[n++] = time;
    }
    if (rows) {
        return acct_store_select(st, pool, sql, rows, n, args);
    }
    return acct_store_exec(st, pool, sql, changed, n, args);
}

void acct_own_list_query(apr_pool_t *pool, acct_list_query *q,
                         const char *columns, const char *table,
                         const char *where, const acct_filter_field *fields,
                         apr_int64_t uid, const char *time)
{
    acct_list_query_of(q, pool, columns, table, where, uid, fields, "id");
    if (time) {
        const char **args = apr_palloc(pool, 2 * sizeof(*args));

        args[0] = q->args[0];
        args[1] = time;
        q->args = args;
        q->nargs = 2;
    }
}

void acct_token_list_query(apr_pool_t *pool, apr_int64_t uid, apr_int64_t now,
                           acct_list_query *q)
{
    acct_own_list_query(pool, q, TOKEN_COLUMNS, "tokens", TOKEN_ACTIVE,
                        token_fields, uid, acct_i64(pool, now));
}

acct_store_rc acct_token_get(acct_store *st, apr_pool_t *pool, apr_int64_t id,
                             apr_int64_t uid, apr_int64_t now,
                             acct_rows **rows)
{
    return own_run(st, pool, &q_token_get, NULL, id, uid, acct_i64(pool, now),
                   rows, NULL);
}

acct_store_rc acct_token_count_active(acct_store *st, apr_pool_t *pool,
                                      apr_int64_t uid, apr_int64_t now,
                                      apr_int64_t *count)
{
    const char *args[2];
    acct_rows *rows = NULL;
    acct_store_rc rc;

    args[0] = acct_i64(pool, uid);
    args[1] = acct_i64(pool, now);
    rc = acct_user_lock(st, pool, uid);
    if (rc == ACCT_STORE_OK) {
        /* A statement of its own: on PostgreSQL it sees what the creates
         * that held the lock before committed. */
        rc = acct_store_select(st, pool, &q_token_count, &rows, 2, args);
    }
    if (rc == ACCT_STORE_OK && (rows->nrows != 1
        || acct_parse_i64(acct_rows_get(rows, 0, "n"), count) != 0)) {
        rc = ACCT_STORE_FAILED;
    }
    return rc;
}

/* Runs token statement `sql` (own_run's, with `label`) and writes event
 * `action` when it changed the token. */
static acct_store_rc token_change(acct_store *st, apr_pool_t *pool,
                                  const acct_sql *sql, const char *action,
                                  apr_int64_t id, apr_int64_t uid,
                                  apr_int64_t now, const char *label,
                                  int *changed)
{
    int n = 0;   /* callers may not want the count; the event does */
    acct_store_rc rc = own_run(st, pool, sql, label, id, uid,
                               acct_i64(pool, now), NULL, &n);

    if (changed) {
        *changed = n;
    }
    return acct_event_own(st, pool, rc, n, uid, action,
                          ACCT_EVENT_ENTITY_TOKEN, id, label, TOKEN_URL, now);
}

acct_store_rc acct_token_update(acct_store *st, apr_pool_t *pool,
                                apr_int64_t id, apr_int64_t uid,
                                apr_int64_t now, const char *label,
                                int *changed)
{
    return token_change(st, pool, &q_token_label, ACCT_EVENT_TOKEN_UPDATE, id,
                        uid, now, label, changed);
}

acct_store_rc acct_token_revoke(acct_store *st, apr_pool_t *pool,
                                apr_int64_t id, apr_int64_t uid,
                                apr_int64_t now, int *changed)
{
    acct_rows *rows = NULL;
    acct_store_rc rc = own_run(st, pool, &q_token_revoke, NULL, id, uid,
                               acct_i64(pool, now), &rows, NULL);
    int n = rc == ACCT_STORE_OK ? rows->nrows : 0;

    if (changed) {
        *changed = n;
    }
    return acct_event_own(st, pool, rc, n, uid, ACCT_EVENT_TOKEN_DELETE,
                          ACCT_EVENT_ENTITY_TOKEN, id,
                          n ? acct_rows_get(rows, 0, "label") : NULL,
                          TOKEN_URL, now);
}

/* ---- logins ------------------------------------------------------------- */

#define LOGIN_COLUMNS "id, datetime, ip, restricted, status, username"

/* Visible: the user's own login, no older than ACCT_LOGIN_HISTORY (the
 * contract: "successful logins of the last 90 days"). */
#define LOGIN_VISIBLE \
    "user_id = CAST(%s AS BIGINT) AND datetime >= CAST(%s AS BIGINT)" \
    " AND status = 'successful'"

static const acct_sql q_login_get = ACCT_SQL("login_get",
    "SELECT " LOGIN_COLUMNS " FROM logins"
    " WHERE id = CAST(%s AS BIGINT) AND " LOGIN_VISIBLE);

/* The contract lists no filterable field for logins or devices; today's
 * linode_api4 may name every property of its ProfileLogin and
 * TrustedDevice in a filter. */
static const acct_filter_field login_fields[] = {
    {"id", "id", ACCT_FIELD_INT},
    {"datetime", "datetime", ACCT_FIELD_TIME},
    {"ip", "ip", ACCT_FIELD_TEXT},
    {"restricted", "restricted", ACCT_FIELD_BOOL},
    {"status", "status", ACCT_FIELD_TEXT},
    {"username", "username", ACCT_FIELD_TEXT},
    {NULL, NULL, 0}
};

void acct_login_list_query(apr_pool_t *pool, apr_int64_t uid, apr_int64_t now,
                           acct_list_query *q)
{
    acct_own_list_query(pool, q, LOGIN_COLUMNS, "logins", LOGIN_VISIBLE,
                        login_fields, uid,
                        acct_i64(pool, now - ACCT_LOGIN_HISTORY));
}

acct_store_rc acct_login_get(acct_store *st, apr_pool_t *pool, apr_int64_t id,
                             apr_int64_t uid, apr_int64_t now,
                             acct_rows **rows)
{
    return own_run(st, pool, &q_login_get, NULL, id, uid,
                   acct_i64(pool, now - ACCT_LOGIN_HISTORY), rows, NULL);
}

/* ---- trusted devices ---------------------------------------------------- */

#define DEVICE_COLUMNS \
    "id, created, expiry, last_authenticated, last_remote_addr, user_agent"

/* Visible: the user's own device, not revoked, not expired. */
#define DEVICE_VISIBLE \
    "user_id = CAST(%s AS BIGINT) AND revoked = 0" \
    " AND expiry > CAST(%s AS BIGINT)"

static const acct_sql q_device_get = ACCT_SQL("device_get",
    "SELECT " DEVICE_COLUMNS " FROM devices"
    " WHERE id = CAST(%s AS BIGINT) AND " DEVICE_VISIBLE);

static const acct_sql q_device_revoke = ACCT_SQL("device_revoke",
    "UPDATE devices SET revoked = 1"
    " WHERE id = CAST(%s AS BIGINT) AND " DEVICE_VISIBLE);

/* DECISIONS.md lists no filterable field for devices either. */
static const acct_filter_field device_fields[] = {
    {"id", "id", ACCT_FIELD_INT},
    {"created", "created", ACCT_FIELD_TIME},
    {"expiry", "expiry", ACCT_FIELD_TIME},
    {"last_authenticated", "last_authenticated", ACCT_FIELD_TIME},
    {"last_remote_addr", "last_remote_addr", ACCT_FIELD_TEXT},
    {"user_agent", "user_agent", ACCT_FIELD_TEXT},
    {NULL, NULL, 0}
};

void acct_device_list_query(apr_pool_t *pool, apr_int64_t uid,
                            apr_int64_t now, acct_list_query *q)
{
    acct_own_list_query(pool, q, DEVICE_COLUMNS, "devices", DEVICE_VISIBLE,
                        device_fields, uid, acct_i64(pool, now));
}

acct_store_rc acct_device_get(acct_store *st, apr_pool_t *pool,
                              apr_int64_t id, apr_int64_t uid,
                              apr_int64_t now, acct_rows **rows)
{
    return own_run(st, pool, &q_device_get, NULL, id, uid,
                   acct_i64(pool, now), rows, NULL);
}

acct_store_rc acct_device_revoke(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t id, apr_int64_t uid,
                                 apr_int64_t now, int *changed)
{
    return own_run(st, pool, &q_device_revoke, NULL, id, uid,
                   acct_i64(pool, now), NULL, changed);
}

/* ---- authorized apps ---------------------------------------------------- */

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
    return own_run(st, pool, &q_app_get, NULL, id, uid, NULL, rows, NULL);
}

acct_store_rc acct_app_revoke(acct_store *st, apr_pool_t *pool,
                              apr_int64_t id, apr_int64_t uid, apr_int64_t now,
                              int *changed)
{
    acct_store_rc rc;

    (void)now;
    *changed = 0;
    rc = own_run(st, pool, &q_app_revoke, NULL, id, uid, NULL, NULL, changed);
    if (rc == ACCT_STORE_OK && *changed) {
        const char *args[1];

        args[0] = acct_i64(pool, id);
        rc = acct_store_exec(st, pool, &q_app_token_revoke, NULL, 1, args);
    }
    return rc;
}
