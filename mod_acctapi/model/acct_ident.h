/*
 * Identities: accounts and the users of an account, and the result
 * (acct_ident_rc) of every write that records an identity for the operator:
 * those and the tokens, logins, devices and apps of acct_tokens.h,
 * acct_logins.h, acct_devices.h and acct_apps.h.  Shared by acctapi-admin
 * (how identities enter the system), the profile routes and the tests.
 * Every function runs inside the caller's transaction, if any.
 */
#ifndef ACCT_IDENT_H
#define ACCT_IDENT_H

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
 * For the files of the identities the operator records (acct_tokens.c,
 * acct_logins.c, acct_devices.c, acct_apps.c): the store's failure `rc` as
 * the result; bad input (`why`); the id an INSERT ... RETURNING gave back,
 * in *id (returns 0 when there is none to read); that id as the result, no
 * row meaning `none` with `why`, or for an insert from the user's row, no
 * such user.
 */
acct_ident_rc acct_ident_store_failed(acct_ident_result *res,
                                      acct_store_rc rc);
acct_ident_rc acct_ident_invalid(acct_ident_result *res, const char *why);
int acct_ident_returned_id(const acct_rows *rows, apr_int64_t *id);
acct_ident_rc acct_ident_inserted(acct_store_rc rc, const acct_rows *rows,
                                  apr_int64_t *id, acct_ident_result *res,
                                  acct_ident_rc none, const char *why);
acct_ident_rc acct_ident_inserted_for_user(acct_store_rc rc,
                                           const acct_rows *rows,
                                           apr_int64_t *id,
                                           acct_ident_result *res);

/*
 * Text shown back through JSON: 1..`max` characters of valid UTF-8 (else
 * the API would render null) without control characters.
 */
int acct_ident_text_valid(const char *s, size_t max);

#endif
