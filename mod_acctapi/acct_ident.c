#include "acct_ident.h"
#include "acct_crypto.h"

#include <apr_strings.h>
#include <ctype.h>
#include <string.h>

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
    "INSERT INTO tokens (user_id, kind, label, token_hash, token_prefix,"
    " scopes, created, expiry)"
    " VALUES (CAST(%s AS BIGINT), 'pat', %s, %s, %s, %s, CAST(%s AS BIGINT),"
    " CAST(%s AS BIGINT)) RETURNING id");

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

static int email_plausible(const char *e)
{
    const char *at = strchr(e, '@');

    return at && at != e && strchr(at + 1, '.') && !strchr(at + 1, '@')
           && strlen(e) <= 254 && !strpbrk(e, " \t\r\n");
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
    const char *referral;

    memset(res, 0, sizeof(*res));
    if (!username || !username_valid(username)) {
        return invalid(res, "the username must be 3..32 letters, digits, "
                       "'_' or '-'");
    }
    if (!email || !email_plausible(email)) {
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
    if (rc != ACCT_STORE_OK) {
        return store_failed(res, rc);
    }
    if (rows->nrows == 0) {
        res->error = "the username is taken";
        return ACCT_IDENT_CONFLICT;
    }
    if (!returned_id(rows, uid)) {
        return store_failed(res, ACCT_STORE_FAILED);
    }
    return ACCT_IDENT_OK;
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

acct_ident_rc acct_token_create(acct_store *st, apr_pool_t *pool,
                                apr_int64_t uid, const char *label,
                                const char *scopes, apr_int64_t expiry,
                                apr_int64_t now, apr_int64_t *id,
                                const char **token, acct_ident_result *res)
{
    const char *args[7];
    acct_rows *rows = NULL;
    acct_store_rc rc;
    const char *secret;

    memset(res, 0, sizeof(*res));
    if (label && (!*label || strlen(label) > 400)) {
        return invalid(res, "the label must be 1..100 characters");
    }
    if (expiry && expiry <= now) {
        return invalid(res, "the expiry must be in the future");
    }
    secret = acct_random_hex(pool, ACCT_TOKEN_HEX_LEN / 2);
    if (!secret) {
        return store_failed(res, ACCT_STORE_FAILED);
    }
    args[0] = acct_i64(pool, uid);
    args[1] = label;
    args[2] = acct_sha256_hex(pool, secret);
    args[3] = apr_pstrndup(pool, secret, ACCT_TOKEN_PREFIX_LEN);
    args[4] = scopes;
    args[5] = acct_i64(pool, now);
    args[6] = expiry ? acct_i64(pool, expiry) : NULL;
    rc = acct_store_select(st, pool, &q_token_create, &rows, 7, args);
    if (rc != ACCT_STORE_OK) {
        return store_failed(res, rc);
    }
    if (!returned_id(rows, id)) {
        return store_failed(res, ACCT_STORE_FAILED);
    }
    *token = secret;
    return ACCT_IDENT_OK;
}
