/*
 * Identities: accounts, users and access tokens.  Shared by acctapi-admin
 * (how identities enter the system), the profile token routes and the tests.
 * Every function runs inside the caller's transaction, if any.
 */
#ifndef ACCT_IDENT_H
#define ACCT_IDENT_H

#include "acct_list.h"
#include "acct_outcome.h"
#include "acct_req.h"
#include "acct_store.h"

typedef enum {
    ACCT_IDENT_OK = 0,
    ACCT_IDENT_INVALID,   /* bad input: *error says why */
    ACCT_IDENT_NOT_FOUND, /* the account or user does not exist */
    ACCT_IDENT_CONFLICT,  /* the username is taken */
    ACCT_IDENT_STORE      /* the store failed: *store_rc says how */
} acct_ident_rc;

typedef struct acct_ident_result {
    acct_store_rc store_rc;
    const char *error;
} acct_ident_result;

acct_ident_rc acct_account_create(acct_store *st, apr_pool_t *pool,
                                  const char *name, apr_int64_t now,
                                  apr_int64_t *id, acct_ident_result *res);

/* Creates user `username` of account `account_id`: its id in *uid; event
 * user_create, the operator's. */
acct_ident_rc acct_user_create(acct_store *st, apr_pool_t *pool,
                               apr_int64_t account_id, const char *username,
                               const char *email, int restricted,
                               apr_int64_t now, apr_int64_t *uid,
                               acct_ident_result *res);

/*
 * Serialises the writes of one user that check a rule first (a count, a
 * state): locks the user's row until the transaction ends (FOR UPDATE on
 * PostgreSQL; SQLite writers are serial).  Read what the rule depends on in
 * statements after this one: under READ COMMITTED they see what the
 * transactions that held the lock before committed, whereas a statement that
 * locks and reads at once may see the other tables as they were when it
 * started.
 */
acct_store_rc acct_user_lock(acct_store *st, apr_pool_t *pool,
                             apr_int64_t user_id);

/* Resolves a uid ("12") or a username to a uid. */
acct_ident_rc acct_user_find(acct_store *st, apr_pool_t *pool,
                             const char *user, apr_int64_t *uid,
                             acct_ident_result *res);

/*
 * Mints a personal access token: 64 hex characters from the CSPRNG, stored
 * as its SHA-256 and 16-character prefix.  `label` may be NULL; callers
 * validate its length in characters.  `scopes` is canonical text (see
 * acct_scopes_format); `expiry` 0 means never.  The full token is returned
 * once, in *token.
 */
acct_ident_rc acct_token_create(acct_store *st, apr_pool_t *pool,
                                apr_int64_t uid, const char *label,
                                const char *scopes, apr_int64_t expiry,
                                apr_int64_t now, apr_int64_t *id,
                                const char **token, acct_ident_result *res);

/*
 * The user's own records (tokens, logins, devices, apps, SSH keys) are read
 * and changed by their id and the acting user, at `now` for those that
 * expire.  These are the model's forms of such calls, and
 * acct_own_row/acct_own_change run them for a request.
 */
typedef acct_store_rc acct_own_get_fn(acct_store *st, apr_pool_t *pool,
                                      apr_int64_t id, apr_int64_t uid,
                                      apr_int64_t now, acct_rows **rows);
typedef acct_store_rc acct_own_change_fn(acct_store *st, apr_pool_t *pool,
                                         apr_int64_t id, apr_int64_t uid,
                                         apr_int64_t now, int *changed);

/*
 * The row `get` finds of record `id` for the acting user, or NULL; *out
 * says which: done, not found (no such id, or not one the user may see)
 * or the store's failure.
 */
acct_rows *acct_own_row(acct_req *req, acct_own_get_fn *get, apr_int64_t id,
                        acct_outcome *out);

/* Runs `change` on record `id` of the acting user: done when it changed a
 * row, else not found or the store's failure. */
acct_outcome acct_own_change(acct_req *req, acct_own_change_fn *change,
                             apr_int64_t id);

/*
 * Fills `q` (render left NULL, for the caller) with the list of `uid`'s
 * rows of `table` that `where` keeps; its arguments are the user id, then
 * `time` when not NULL.  Ordered by "id".
 */
void acct_own_list_query(apr_pool_t *pool, acct_list_query *q,
                         const char *columns, const char *table,
                         const char *where, const acct_filter_field *fields,
                         apr_int64_t uid, const char *time);

/*
 * What a token that never expires shows as its expiry: the public API's
 * "never" (its answers carry this timestamp, and linodego's tests take the
 * year 2999 to mean no expiry); its document and SDKs type expiry as a
 * timestamp, which null is not.  _AT: the same moment in epoch seconds,
 * what X-Filter compares a stored expiry with.
 */
#define ACCT_TOKEN_NEVER_EXPIRES "2999-12-12T05:00:00"
#define ACCT_TOKEN_NEVER_EXPIRES_AT "32501970000"

/*
 * The personal access tokens of /profile/tokens.  Active: the user's own
 * token of kind 'pat', not revoked, not expired at `now`.  Rows carry id,
 * label, scopes, created, expiry, token_prefix.
 */

/* The list of `uid`'s active tokens, for acct_list_respond; `render` is the
 * caller's to set. */
void acct_token_list_query(apr_pool_t *pool, apr_int64_t uid, apr_int64_t now,
                           acct_list_query *q);

/* Token `id` if it is one of `uid`'s active ones (else no row). */
acct_store_rc acct_token_get(acct_store *st, apr_pool_t *pool, apr_int64_t id,
                             apr_int64_t uid, apr_int64_t now,
                             acct_rows **rows);

/*
 * How many active tokens `uid` holds, for a cap on them.  Locks the user's
 * row first (acct_user_lock), then counts in a statement of its own: creates
 * of one user queue on the lock and each counts what the ones before it
 * committed.
 */
acct_store_rc acct_token_count_active(acct_store *st, apr_pool_t *pool,
                                      apr_int64_t uid, apr_int64_t now,
                                      apr_int64_t *count);

/* Sets the label of active token `id` of `uid`; *changed: rows changed. */
acct_store_rc acct_token_update(acct_store *st, apr_pool_t *pool,
                                apr_int64_t id, apr_int64_t uid,
                                apr_int64_t now, const char *label,
                                int *changed);

/* Revokes active token `id` of `uid`; *changed: rows changed. */
acct_store_rc acct_token_revoke(acct_store *st, apr_pool_t *pool,
                                apr_int64_t id, apr_int64_t uid,
                                apr_int64_t now, int *changed);

/*
 * The records other systems own (ARCHITECTURE.md, "Operator CLI"): logins,
 * trusted devices and authorized OAuth apps.  Each validates its input
 * before touching the store and fails with ACCT_IDENT_NOT_FOUND when the
 * user does not exist.
 */

#define ACCT_APP_LABEL_MAX 100
#define ACCT_USER_AGENT_MAX 512
#define ACCT_URL_MAX 2048
#define ACCT_DEVICE_LIFETIME (30 * 86400)


/*
 * Records a login of `uid` from `ip` at `at`; `status` is "successful" or
 * "failed".  The user's username and restriction are copied, as they were
 * at the time of the login.
 */
acct_ident_rc acct_login_record(acct_store *st, apr_pool_t *pool,
                                apr_int64_t uid, const char *ip,
                                const char *status, apr_int64_t at,
                                apr_int64_t *id, acct_ident_result *res);

/*
 * Adds a trusted device, last authenticated from `ip` now; `expiry` 0 means
 * ACCT_DEVICE_LIFETIME from `now`.
 */
acct_ident_rc acct_device_add(acct_store *st, apr_pool_t *pool,
                              apr_int64_t uid, const char *ip,
                              const char *user_agent, apr_int64_t expiry,
                              apr_int64_t now, apr_int64_t *id,
                              acct_ident_result *res);

/*
 * Authorizes an OAuth app for `uid` and mints its access token: a token of
 * kind 'app' bound to the app, with the app's scopes (stored canonical) and
 * expiry (0: never).  `website` and `thumbnail_url` are http(s) URLs or
 * NULL.  The full token is returned once, in *token.
 */
acct_ident_rc acct_app_authorize(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t uid, const char *label,
                                 const char *scopes, const char *website,
                                 const char *thumbnail_url, apr_int64_t expiry,
                                 apr_int64_t now, apr_int64_t *app_id,
                                 const char **token, acct_ident_result *res);

/*
 * Reading and revoking them (/profile/logins, devices, apps).  Each get
 * returns the one row of `id` when `uid` may see it, else none.
 */

/* Logins are shown for this long, by the clock. */
#define ACCT_LOGIN_HISTORY (90 * 86400)

/* Visible logins: `uid`'s own successful ones of the last
 * ACCT_LOGIN_HISTORY.  Rows: id, datetime, ip, restricted, status, username. */
void acct_login_list_query(apr_pool_t *pool, apr_int64_t uid, apr_int64_t now,
                           acct_list_query *q);
acct_store_rc acct_login_get(acct_store *st, apr_pool_t *pool, apr_int64_t id,
                             apr_int64_t uid, apr_int64_t now,
                             acct_rows **rows);

/* Visible devices: `uid`'s own, neither revoked nor expired.  Rows: id,
 * created, expiry, last_authenticated, last_remote_addr, user_agent. */
void acct_device_list_query(apr_pool_t *pool, apr_int64_t uid,
                            apr_int64_t now, acct_list_query *q);
acct_store_rc acct_device_get(acct_store *st, apr_pool_t *pool,
                              apr_int64_t id, apr_int64_t uid,
                              apr_int64_t now, acct_rows **rows);
acct_store_rc acct_device_revoke(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t id, apr_int64_t uid,
                                 apr_int64_t now, int *changed);

/* Visible apps: `uid`'s own, not revoked (an expired one stays listed).
 * Rows: id, label, created, expiry, scopes, thumbnail_url, website. */
void acct_app_list_query(apr_pool_t *pool, apr_int64_t uid,
                         acct_list_query *q);
/* `now` is not used: an expired app stays visible. */
acct_store_rc acct_app_get(acct_store *st, apr_pool_t *pool, apr_int64_t id,
                           apr_int64_t uid, apr_int64_t now,
                           acct_rows **rows);

/*
 * Revokes app `id` of `uid` and, when that changed it, the app's token row
 * (authentication already refuses a revoked app's token: this keeps the
 * tokens table truthful on its own).  *changed: 0 when no such app.
 */
acct_store_rc acct_app_revoke(acct_store *st, apr_pool_t *pool,
                              apr_int64_t id, apr_int64_t uid, apr_int64_t now,
                              int *changed);

#endif
