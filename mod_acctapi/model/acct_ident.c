/*
 * Identities: accounts and the users of an account, as acctapi-admin
 * creates and finds them, and the acct_ident_rc helpers that every
 * identity the operator records (tokens, logins, devices, apps) shares.
 */
#include "acct_ident.h"
#include "acct_event.h"
#include "acct_body.h"
#include "acct_crypto.h"
#include "acct_valid.h"

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

acct_ident_rc acct_ident_store_failed(acct_ident_result *res, acct_store_rc rc)
{
    res->store_rc = rc;
    res->error = rc == ACCT_STORE_UNAVAILABLE ? "the database is unavailable"
                                              : "the database query failed";
    return ACCT_IDENT_STORE;
}

acct_ident_rc acct_ident_invalid(acct_ident_result *res, const char *why)
{
    res->error = why;
    return ACCT_IDENT_INVALID;
}

int acct_ident_returned_id(const acct_rows *rows, apr_int64_t *id)
{
    const char *v = acct_rows_get(rows, 0, "id");

    return v && acct_parse_i64(v, id) == 0;
}

/* The id an INSERT ... RETURNING gave back, as the outcome: no row means
 * `none` (with `why`), which each insert names for itself. */
acct_ident_rc acct_ident_inserted(acct_store_rc rc, const acct_rows *rows,
                                  apr_int64_t *id, acct_ident_result *res,
                                  acct_ident_rc none, const char *why)
{
    if (rc != ACCT_STORE_OK) {
        return acct_ident_store_failed(res, rc);
    }
    if (rows->nrows == 0) {
        res->error = why;
        return none;
    }
    if (!acct_ident_returned_id(rows, id)) {
        return acct_ident_store_failed(res, ACCT_STORE_FAILED);
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
        return acct_ident_invalid(res,
                                  "the account name must be 1..128 characters");
    }
    args[0] = name;
    args[1] = acct_i64(pool, now);
    rc = acct_store_select(st, pool, &q_account_create, &rows, 2, args);
    if (rc != ACCT_STORE_OK) {
        return acct_ident_store_failed(res, rc);
    }
    if (!acct_ident_returned_id(rows, id)) {
        return acct_ident_store_failed(res, ACCT_STORE_FAILED);
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
        return acct_ident_invalid(res, "the username must be 3..32 letters, "
                                  "digits, '_' or '-'");
    }
    if (!email || !acct_valid_email(email)) {
        return acct_ident_invalid(res, "the email address is not valid");
    }
    args[0] = acct_i64(pool, account_id);
    rc = acct_store_select(st, pool, &q_account_exists, &rows, 1, args);
    if (rc != ACCT_STORE_OK) {
        return acct_ident_store_failed(res, rc);
    }
    if (rows->nrows == 0) {
        res->error = "no such account";
        return ACCT_IDENT_NOT_FOUND;
    }
    referral = acct_random_hex(pool, 20);
    if (!referral) {
        return acct_ident_store_failed(res, ACCT_STORE_FAILED);
    }
    args[1] = username;
    args[2] = email;
    args[3] = restricted ? "1" : "0";
    args[4] = referral;
    args[5] = acct_i64(pool, now);
    rc = acct_store_select(st, pool, &q_user_create, &rows, 6, args);
    irc = acct_ident_inserted(rc, rows, uid, res, ACCT_IDENT_CONFLICT,
                   "the username is taken");
    if (irc != ACCT_IDENT_OK) {
        return irc;
    }
    /* Users are created by the operator (acctapi-admin user create). */
    rc = acct_event_account_user(st, pool, account_id, *uid, username,
                                 ACCT_EVENT_USER_CREATE, now);
    return rc == ACCT_STORE_OK ? ACCT_IDENT_OK
                               : acct_ident_store_failed(res, rc);
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
        return acct_ident_invalid(res, "no user given");
    }
    args[0] = user;
    rc = acct_store_select(st, pool,
                           acct_parse_i64(user, &numeric) == 0
                           ? &q_user_by_id : &q_user_by_name,
                           &rows, 1, args);
    if (rc != ACCT_STORE_OK) {
        return acct_ident_store_failed(res, rc);
    }
    if (rows->nrows == 0 || !acct_ident_returned_id(rows, uid)) {
        res->error = "no such user";
        return ACCT_IDENT_NOT_FOUND;
    }
    return ACCT_IDENT_OK;
}

/*
 * Text shown back through JSON: 1..`max` characters of valid UTF-8 (else
 * the API would render null) without control characters.
 */
int acct_ident_text_valid(const char *s, size_t max)
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

/*
 * The records of logins, devices and apps are inserted from the user's
 * row: no row back means no such user, and a login copies the username and
 * restriction in the same statement.
 */
acct_ident_rc acct_ident_inserted_for_user(acct_store_rc rc,
                                           const acct_rows *rows,
                                           apr_int64_t *id,
                                           acct_ident_result *res)
{
    return acct_ident_inserted(rc, rows, id, res, ACCT_IDENT_NOT_FOUND,
                               "no such user");
}
