#include "acct_auth.h"
#include "acct_crypto.h"
#include "acct_log.h"

#include <apr_strings.h>
#include <apr_thread_mutex.h>
#include <string.h>
#include <strings.h>

/*
 * One indexed query for every request.  An app's token brings its app
 * along (LEFT JOIN: personal tokens have none), whose revocation, expiry
 * and scopes decide; an app of another user never matches.  GET /profile's
 * lookup also brings the profile's columns (acct_principal's user_row), ten
 * more that every other request would have PostgreSQL describe, convert and
 * send for nothing.
 */
#define TOKEN_LOOKUP(more_user_columns) \
    "SELECT t.id AS token_id, t.kind, t.scopes, t.expiry," \
    " u.id AS user_id, u.account_id, u.restricted, u.username," \
    more_user_columns \
    " a.id AS app_id, a.scopes AS app_scopes, a.expiry AS app_expiry," \
    " a.revoked AS app_revoked" \
    " FROM tokens t JOIN users u ON u.id = t.user_id" \
    " LEFT JOIN apps a ON a.id = t.app_id AND a.user_id = t.user_id" \
    " WHERE t.token_hash = %s AND t.revoked = 0"

static const acct_sql q_token_lookup = ACCT_SQL("token_lookup",
    TOKEN_LOOKUP(""));

static const acct_sql q_token_lookup_profile = ACCT_SQL(
    "token_lookup_profile",
    TOKEN_LOOKUP(" u.email, u.authentication_type, u.authorized_keys,"
                 " u.email_notifications, u.ip_whitelist_enabled,"
                 " u.shell_auth_method, u.timezone, u.two_factor_auth,"
                 " u.verified_phone_number, u.referral_code,"));

/* "Bearer <64 hex>", scheme case-insensitive, one or more spaces. */
static const char *bearer_token(const char *header)
{
    const char *p;

    if (!header || strncasecmp(header, "Bearer ", 7) != 0) {
        return NULL;
    }
    p = header + 7;
    while (*p == ' ') {
        p++;
    }
    return acct_token_well_formed(p) ? p : NULL;
}

/* An expiry column: NULL never expires; anything unreadable has expired. */
static int expired(const char *expiry, apr_int64_t now)
{
    apr_int64_t at;

    return expiry && (acct_parse_i64(expiry, &at) != 0 || at <= now);
}

/*
 * What the token row grants: its own scopes and client for a personal
 * token, the app's for an app token that is still authorized.  Returns the
 * scope text, or NULL when the token is not valid now.
 */
static const char *token_grant(apr_pool_t *pool, const acct_rows *rows,
                               apr_int64_t now, acct_principal *who)
{
    const char *kind = acct_rows_get(rows, 0, "kind");
    const char *app = acct_rows_get(rows, 0, "app_id");
    const char *revoked = acct_rows_get(rows, 0, "app_revoked");

    if (expired(acct_rows_get(rows, 0, "expiry"), now) || !kind) {
        return NULL;
    }
    if (strcmp(kind, "pat") == 0) {
        who->client = apr_psprintf(pool, "pat:%" APR_INT64_T_FMT,
                                   who->token_id);
        return acct_rows_get(rows, 0, "scopes");
    }
    if (strcmp(kind, "app") != 0 || !app || !revoked
        || strcmp(revoked, "0") != 0
        || expired(acct_rows_get(rows, 0, "app_expiry"), now)) {
        return NULL;
    }
    who->client = apr_pstrcat(pool, "app:", app, NULL);
    return acct_rows_get(rows, 0, "app_scopes");
}

/*
 * The hints of acct_token_ref: slot i holds the last token seen whose hash
 * starts with i's bits, and its account.  A hint only decides which
 * account a read goes to before the lookup answers, so a lost or stale one
 * costs a round trip, never a wrong answer; what is kept is a hash the
 * database stores anyway and an account id, no credential.
 */
#define HINT_SLOTS 1024         /* a power of 2; about 75 kB a process */

typedef struct hint_slot {
    char hash[ACCT_TOKEN_HEX_LEN + 1];
    apr_int64_t account;
} hint_slot;

/* The hints of this process, for its life; every read and write of a slot
 * holds hint_lock, which acct_auth_hints_init creates in the child's pool
 * (NULL before, and in programs that never call it: no hints are kept). */
static hint_slot hint_slots[HINT_SLOTS];
static apr_thread_mutex_t *hint_lock;

static apr_status_t hints_drop(void *unused)
{
    (void)unused;
    hint_lock = NULL;
    memset(hint_slots, 0, sizeof(hint_slots));
    return APR_SUCCESS;
}

int acct_auth_hints_init(apr_pool_t *pool)
{
    if (apr_thread_mutex_create(&hint_lock, APR_THREAD_MUTEX_DEFAULT, pool)
        != APR_SUCCESS) {
        hint_lock = NULL;
        return -1;
    }
    apr_pool_cleanup_register(pool, NULL, hints_drop, apr_pool_cleanup_null);
    return 0;
}

/* The slot of a well-formed hash (64 hex digits, uniformly spread). */
static hint_slot *hint_slot_of(const char *token_hash)
{
    unsigned bits = 0;
    int i;

    for (i = 0; i < 4; i++) {
        char c = token_hash[i];
        unsigned digit = (unsigned)(c <= '9' ? c - '0' : c - 'a' + 10);

        bits = bits << 4 | digit;
    }
    return &hint_slots[bits & (HINT_SLOTS - 1)];
}

static int hash_usable(const char *token_hash)
{
    return hint_lock && token_hash && acct_token_well_formed(token_hash);
}

apr_int64_t acct_auth_hint(const char *token_hash)
{
    apr_int64_t account = 0;
    hint_slot *slot;

    if (!hash_usable(token_hash)) {
        return 0;
    }
    slot = hint_slot_of(token_hash);
    apr_thread_mutex_lock(hint_lock);
    if (memcmp(slot->hash, token_hash, ACCT_TOKEN_HEX_LEN) == 0) {
        account = slot->account;
    }
    apr_thread_mutex_unlock(hint_lock);
    return account;
}

void acct_auth_hint_note(const char *token_hash, apr_int64_t account_id)
{
    hint_slot *slot;

    if (!hash_usable(token_hash) || account_id <= 0) {
        return;
    }
    slot = hint_slot_of(token_hash);
    apr_thread_mutex_lock(hint_lock);
    memcpy(slot->hash, token_hash, ACCT_TOKEN_HEX_LEN);
    slot->account = account_id;
    apr_thread_mutex_unlock(hint_lock);
}

acct_auth_rc acct_authenticate(acct_store *st, apr_pool_t *pool,
                               const char *authorization, apr_int64_t now,
                               acct_principal *who, acct_store_rc *store_rc)
{
    return acct_authenticate_with(st, pool, authorization, now, who,
                                  store_rc, ACCT_AUTH_PROFILE_ROW, NULL);
}

acct_auth_rc acct_authenticate_with(acct_store *st, apr_pool_t *pool,
                                    const char *authorization,
                                    apr_int64_t now, acct_principal *who,
                                    acct_store_rc *store_rc, unsigned flags,
                                    acct_auth_also *also)
{
    const acct_sql *lookup = (flags & ACCT_AUTH_PROFILE_ROW)
                             ? &q_token_lookup_profile : &q_token_lookup;
    const char *token = bearer_token(authorization), *args[1], *v, *scopes;
    acct_token_ref ref = {NULL, 0};
    acct_rows *rows = NULL;
    acct_store_rc rc;

    memset(who, 0, sizeof(*who));
    if (also) {
        memset(&also->read, 0, sizeof(also->read));
    }
    if (!token) {
        return ACCT_AUTH_INVALID;
    }
    args[0] = acct_sha256_hex(pool, token);
    if (!args[0]) {
        *store_rc = ACCT_STORE_FAILED;
        return ACCT_AUTH_STORE;
    }
    ref.hash = args[0];
    if (also) {
        ref.account = acct_auth_hint(ref.hash);
    }
    if (also && also->build(also->baton, &ref, &also->read) == 0) {
        rc = acct_store_select_with(st, pool, lookup, &rows, 1, args,
                                    &also->read);
    }
    else {
        rc = acct_store_select(st, pool, lookup, &rows, 1, args);
    }
    if (rc != ACCT_STORE_OK) {
        *store_rc = rc;
        return ACCT_AUTH_STORE;
    }
    if (rows->nrows != 1) {
        return ACCT_AUTH_INVALID;
    }
    if (acct_parse_i64(acct_rows_get(rows, 0, "token_id"), &who->token_id)
        || acct_parse_i64(acct_rows_get(rows, 0, "user_id"), &who->user_id)
        || acct_parse_i64(acct_rows_get(rows, 0, "account_id"),
                          &who->account_id)) {
        *store_rc = ACCT_STORE_FAILED;
        return ACCT_AUTH_STORE;
    }
    scopes = token_grant(pool, rows, now, who);
    if (!scopes) {
        memset(who, 0, sizeof(*who));
        return ACCT_AUTH_INVALID;
    }
    if (acct_scopes_parse(pool, scopes, &who->scopes, NULL) != 0) {
        acct_log(ACCT_LOG_WARN, ACCTLOGNO(00001) "token %" APR_INT64_T_FMT " has unparsable "
                 "scopes; refusing it", who->token_id);
        return ACCT_AUTH_INVALID;
    }
    v = acct_rows_get(rows, 0, "restricted");
    who->restricted = v && strcmp(v, "0") != 0;
    who->username = acct_rows_get(rows, 0, "username");
    who->user_row = (flags & ACCT_AUTH_PROFILE_ROW) ? rows : NULL;
    who->scopes_text = acct_scopes_format(pool, &who->scopes);
    if (also && ref.account != who->account_id) {
        /* Read in the account the hint named, which is not the token's:
         * not this request's rows.  The next read goes to the right one. */
        if (ref.account != 0) {
            also->read.rows = NULL;
        }
        acct_auth_hint_note(ref.hash, who->account_id);
    }
    return ACCT_AUTH_OK;
}

int acct_route_permits(const acct_route *route, const acct_principal *who,
                       const char **reason)
{
    if (route->flags & ACCT_ROUTE_PUBLIC) {
        return 0;
    }
    if (!(route->flags & ACCT_ROUTE_ANY_TOKEN)
        && !acct_scopes_allow(&who->scopes, route->family, route->level)) {
        *reason = ACCT_R_SCOPE;
        return ACCT_HTTP_UNAUTHORIZED;
    }
    if ((route->flags & ACCT_ROUTE_UNRESTRICTED_ONLY) && who->restricted) {
        *reason = ACCT_R_UNAUTHORIZED;
        return ACCT_HTTP_FORBIDDEN;
    }
    return 0;
}
