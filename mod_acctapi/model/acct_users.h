/*
 * The users of an account as the public API's /account/users shows them
 * (its User shape): read-only, from what the module keeps of a user (the
 * users row, the SSH keys, the login history).  Users enter the system
 * through acctapi-admin (acct_ident.h).
 */
#ifndef ACCT_USERS_H
#define ACCT_USERS_H

#include "acct_list.h"
#include "acct_req.h"

/*
 * Every user's `user_type`, in /account/users and the profile alike: the
 * public API's value for a user of an account that is neither a parent nor
 * a child account, restricted or not (its recorded TestUsers_List and
 * TestProfile_Get).  The module has no parent or child accounts.
 */
#define ACCT_USER_TYPE_DEFAULT "default"

/*
 * The list of account `account_id`'s users, ordered by id, X-Filter on
 * username (the field the public API marks filterable), rendered by
 * acct_users_render.  `dialect` is the store's.
 */
void acct_users_list_query(apr_pool_t *pool, acct_dialect dialect,
                           apr_int64_t account_id, acct_list_query *q);

/*
 * The user of account `account_id` called `username` (compared without
 * regard to case, as usernames are unique), a row acct_users_render takes;
 * no row when the account has no such user.
 */
acct_store_rc acct_users_get(acct_store *st, apr_pool_t *pool,
                             apr_int64_t account_id, const char *username,
                             acct_rows **rows);

/* Row `i` in the public User shape. */
json_t *acct_users_render(acct_req *req, const acct_rows *rows, int i);

#endif
