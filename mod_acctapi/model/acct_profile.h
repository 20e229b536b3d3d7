/*
 * The profile: the acting user's own settings on their users row.  Read
 * with acct_profile_get (or the token lookup's row, acct_auth.c) and
 * changed with acct_profile_update; the phone number and two-factor flag
 * change through their own flows (acct_phone.h, acct_tfa.h).
 */
#ifndef ACCT_PROFILE_H
#define ACCT_PROFILE_H

#include "acct_store.h"

/* The shell's access methods (shell_auth_method), NULL-terminated. */
extern const char *const acct_profile_shell_methods[];

/*
 * `uid`'s row (none if the user is gone): id, username, email, restricted,
 * authentication_type, authorized_keys (JSON array text or NULL),
 * email_notifications, ip_whitelist_enabled, shell_auth_method, timezone,
 * two_factor_auth, verified_phone_number, referral_code.
 */
acct_store_rc acct_profile_get(acct_store *st, apr_pool_t *pool,
                               apr_int64_t uid, acct_rows **rows);

/* What a PUT /profile changes: NULL or -1 leaves a field as it is. */
typedef struct acct_profile_changes {
    const char *email;
    int email_notifications;       /* 0/1 */
    int ip_whitelist_enabled;      /* 0/1 */
    const char *shell_auth_method; /* one of acct_profile_shell_methods */
    const char *timezone;
    int two_factor_auth;           /* 0 also forgets the two-factor secret */
    int set_authorized_keys;       /* 1: authorized_keys replaces the keys */
    const char *authorized_keys;   /* JSON array text */
} acct_profile_changes;

/* Leaves every field of `c` as it is. */
void acct_profile_changes_init(acct_profile_changes *c);

/* Changes `uid`'s profile as `c` says at `now` (event profile_update;
 * tfa_disabled too when it turns two-factor off). */
acct_store_rc acct_profile_update(acct_store *st, apr_pool_t *pool,
                                  apr_int64_t uid,
                                  const acct_profile_changes *c,
                                  apr_int64_t now);

#endif
