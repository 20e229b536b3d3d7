#include "acct_profile.h"
#include "acct_event.h"
#include "acct_tfa.h"

#include <string.h>

const char *const acct_profile_shell_methods[] = {
    "password_keys", "keys_only", "disabled", NULL
};

static const acct_sql q_profile = ACCT_SQL("profile_get",
    "SELECT id, username, email, restricted, authentication_type,"
    " authorized_keys, email_notifications, ip_whitelist_enabled,"
    " shell_auth_method, timezone, two_factor_auth, verified_phone_number,"
    " referral_code"
    " FROM users WHERE id = CAST(%s AS BIGINT)");

static const acct_sql q_profile_update = ACCT_SQL("profile_update",
    "UPDATE users SET"
    " email = COALESCE(%s, email),"
    " email_notifications = COALESCE(CAST(%s AS INTEGER), email_notifications),"
    " ip_whitelist_enabled = COALESCE(CAST(%s AS INTEGER), ip_whitelist_enabled),"
    " shell_auth_method = COALESCE(%s, shell_auth_method),"
    " timezone = COALESCE(%s, timezone),"
    " two_factor_auth = COALESCE(CAST(%s AS INTEGER), two_factor_auth),"
    " authorized_keys = CASE WHEN CAST(%s AS INTEGER) = 1 THEN %s"
    "                        ELSE authorized_keys END"
    " WHERE id = CAST(%s AS BIGINT)");

acct_store_rc acct_profile_get(acct_store *st, apr_pool_t *pool,
                               apr_int64_t uid, acct_rows **rows)
{
    const char *args[1];

    args[0] = acct_i64(pool, uid);
    return acct_store_select(st, pool, &q_profile, rows, 1, args);
}

void acct_profile_changes_init(acct_profile_changes *c)
{
    memset(c, 0, sizeof(*c));
    c->email_notifications = -1;
    c->ip_whitelist_enabled = -1;
    c->two_factor_auth = -1;
}

/* A 0/1 field as an argument; NULL (COALESCE keeps the column) for -1. */
static const char *flag_arg(int v)
{
    return v < 0 ? NULL : v ? "1" : "0";
}

acct_store_rc acct_profile_update(acct_store *st, apr_pool_t *pool,
                                  apr_int64_t uid,
                                  const acct_profile_changes *c,
                                  apr_int64_t now)
{
    const char *args[9];
    acct_store_rc rc;

    args[0] = c->email;
    args[1] = flag_arg(c->email_notifications);
    args[2] = flag_arg(c->ip_whitelist_enabled);
    args[3] = c->shell_auth_method;
    args[4] = c->timezone;
    args[5] = flag_arg(c->two_factor_auth);
    args[6] = c->set_authorized_keys ? "1" : "0";
    args[7] = c->authorized_keys;
    args[8] = acct_i64(pool, uid);
    rc = acct_store_exec(st, pool, &q_profile_update, NULL, 9, args);
    if (rc == ACCT_STORE_OK) {
        rc = acct_event_profile(st, pool, uid, ACCT_EVENT_PROFILE_UPDATE, now);
    }
    if (rc == ACCT_STORE_OK && c->two_factor_auth == 0) {
        /* Turning two-factor off through the profile forgets its secret. */
        rc = acct_tfa_secret_forget(st, pool, uid, now);
    }
    return rc;
}
