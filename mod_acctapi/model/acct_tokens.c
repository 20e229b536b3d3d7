/*
 * Access tokens (table tokens): minting one, for a user or an app, and the
 * personal access tokens of /profile/tokens.
 */
#include "acct_tokens.h"
#include "acct_event.h"
#include "acct_crypto.h"
#include "acct_own.h"

#include <apr_strings.h>
#include <string.h>

/* Where a personal access token is, for its events. */
#define TOKEN_URL "/v4/profile/tokens/"

static const acct_sql q_token_create = ACCT_SQL("token_create",
    "INSERT INTO tokens (user_id, kind, app_id, label, token_hash,"
    " token_prefix, scopes, created, expiry)"
    " VALUES (CAST(%s AS BIGINT), %s, CAST(%s AS BIGINT), %s, %s, %s, %s,"
    " CAST(%s AS BIGINT), CAST(%s AS BIGINT)) RETURNING id");

/*
 * Mints a token of `kind` ("pat", or "app" with `app_id`): 64 hex characters
 * from the CSPRNG, stored as its SHA-256 and its prefix.  The caller has
 * validated the rest.
 */
acct_ident_rc acct_token_mint(acct_store *st, apr_pool_t *pool,
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
        return acct_ident_store_failed(res, ACCT_STORE_FAILED);
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
        return acct_ident_store_failed(res, rc);
    }
    if (!acct_ident_returned_id(rows, id)) {
        return acct_ident_store_failed(res, ACCT_STORE_FAILED);
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
        return acct_ident_invalid(res, "the label must be 1..100 characters");
    }
    if (expiry && expiry <= now) {
        return acct_ident_invalid(res, "the expiry must be in the future");
    }
    irc = acct_token_mint(st, pool, uid, "pat", 0, label, scopes, expiry, now,
                          id, token, res);
    if (irc != ACCT_IDENT_OK) {
        return irc;
    }
    rc = acct_event_own(st, pool, ACCT_STORE_OK, 1, uid,
                        ACCT_EVENT_TOKEN_CREATE, ACCT_EVENT_ENTITY_TOKEN, *id,
                        label, TOKEN_URL, now);
    return rc == ACCT_STORE_OK ? ACCT_IDENT_OK
                               : acct_ident_store_failed(res, rc);
}

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
    return acct_own_run(st, pool, &q_token_get, NULL, id, uid,
                        acct_i64(pool, now), rows, NULL);
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

/* Runs token statement `sql` (acct_own_run's, with `label`) and writes event
 * `action` when it changed the token. */
static acct_store_rc token_change(acct_store *st, apr_pool_t *pool,
                                  const acct_sql *sql, const char *action,
                                  apr_int64_t id, apr_int64_t uid,
                                  apr_int64_t now, const char *label,
                                  int *changed)
{
    int n = 0;   /* callers may not want the count; the event does */
    acct_store_rc rc = acct_own_run(st, pool, sql, label, id, uid,
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
    acct_store_rc rc = acct_own_run(st, pool, &q_token_revoke, NULL, id,
                                    uid, acct_i64(pool, now), &rows, NULL);
    int n = rc == ACCT_STORE_OK ? rows->nrows : 0;

    if (changed) {
        *changed = n;
    }
    return acct_event_own(st, pool, rc, n, uid, ACCT_EVENT_TOKEN_DELETE,
                          ACCT_EVENT_ENTITY_TOKEN, id,
                          n ? acct_rows_get(rows, 0, "label") : NULL,
                          TOKEN_URL, now);
}
