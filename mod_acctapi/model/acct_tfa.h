/*
 * Two-factor authentication's state (table tfa_secrets, and the flag
 * users.two_factor_auth).  A fresh TOTP secret (acct_totp.h) is pending
 * until a current code confirms it; then the flag is on and a one-use
 * scratch code exists, stored only as its HMAC.  The secret is stored
 * sealed (acct_seal) bound to its user (acct_tfa_secret_context).
 *
 * Every decision that must hold across processes and nodes lives in one
 * conditional UPDATE of the user's tfa_secrets row: a time step is accepted
 * once (last_step), and wrong codes are limited per user (failed_attempts
 * within failed_window).
 *
 * Enable and confirm take the user's row first (acct_user_lock) and read
 * the state they check afterwards, in statements of their own; disable
 * takes it by updating it.  That state is then still the state when they
 * write, and they take their rows in one order.  Otherwise an enable that
 * saw two-factor off could reset a secret a concurrent confirm had just
 * turned on; a confirm could act on a secret a concurrent disable had
 * deleted or an enable replaced (a statement that locks the user's row and
 * reads the secret at once sees the secret as it was when the statement
 * started); and a confirm (secret row, then user row) and a disable (user
 * row, then secret row) could deadlock.  SQLite writers are serial.
 */
#ifndef ACCT_TFA_H
#define ACCT_TFA_H

#include "acct_store.h"

#define ACCT_TFA_PENDING_LIFETIME 600  /* seconds to confirm a new secret */
#define ACCT_TFA_MAX_FAILURES 5        /* wrong codes per user ... */
#define ACCT_TFA_FAILURE_WINDOW 300    /* ... within this many seconds */

/* What a request decides on; fields not read by the call are left 0. */
typedef struct acct_tfa_state {
    int found;                  /* the user's row exists */
    int enabled;                /* users.two_factor_auth */
    apr_int64_t answered;       /* security answers (enable) */
    const char *secret_sealed;  /* NULL: no secret (confirm) */
    int confirmed;
    apr_int64_t expiry;         /* 0 when unreadable: expired */
    apr_int64_t last_step;
    apr_int64_t failed_window;  /* start of the wrong-code window */
} acct_tfa_state;

/* What binds a sealed secret to its user's row (acct_seal's context). */
const char *acct_tfa_secret_context(apr_pool_t *pool, apr_int64_t uid);

/* Locks `uid`'s row, then reads whether two-factor is on and how many
 * security questions are answered. */
acct_store_rc acct_tfa_enable_state(acct_store *st, apr_pool_t *pool,
                                    apr_int64_t uid, acct_tfa_state *out);

/* Locks `uid`'s row, then reads the flag and the secret's row. */
acct_store_rc acct_tfa_secret_state(acct_store *st, apr_pool_t *pool,
                                    apr_int64_t uid, acct_tfa_state *out);

/* Stores a new pending secret (sealed) until `expiry`; it replaces a
 * pending one, and the wrong-code count stays. */
acct_store_rc acct_tfa_secret_issue(acct_store *st, apr_pool_t *pool,
                                    apr_int64_t uid, const char *sealed,
                                    apr_int64_t expiry);

/* Takes one attempt from `uid`'s allowance at `now`; *taken 0 when it is
 * used up (ACCT_TFA_MAX_FAILURES within ACCT_TFA_FAILURE_WINDOW). */
acct_store_rc acct_tfa_attempt_take(acct_store *st, apr_pool_t *pool,
                                    apr_int64_t uid, apr_int64_t now,
                                    int *taken);

/*
 * Accepts time step `step` for the pending secret and keeps the scratch
 * code's HMAC: of two uses of one step only one confirms (*confirmed 1),
 * and that one then turns users.two_factor_auth on, at `now` (event
 * tfa_enabled).
 */
acct_store_rc acct_tfa_confirm(acct_store *st, apr_pool_t *pool,
                               apr_int64_t uid, apr_int64_t step,
                               const char *scratch_hash, apr_int64_t now,
                               int *confirmed);

/* Turns two-factor off and forgets the secret, pending or confirmed, at
 * `now` (acct_tfa_secret_forget). */
acct_store_rc acct_tfa_disable(acct_store *st, apr_pool_t *pool,
                               apr_int64_t uid, apr_int64_t now);

/* Forgets the secret only (the profile turned the flag off itself); when
 * it was confirmed, two-factor was on: event tfa_disabled at `now`.  Call
 * it after the statement that turned the flag off (that locked the row). */
acct_store_rc acct_tfa_secret_forget(acct_store *st, apr_pool_t *pool,
                                     apr_int64_t uid, apr_int64_t now);

#endif
