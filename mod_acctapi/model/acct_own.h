/*
 * The user's own records (tokens, logins, devices, apps, SSH keys): reading
 * and changing one by its id for the acting user, and listing them.
 */
#ifndef ACCT_OWN_H
#define ACCT_OWN_H

#include "acct_list.h"
#include "acct_outcome.h"
#include "acct_req.h"
#include "acct_store.h"

/*
 * A record's model functions find it by its id and the acting user, at
 * `now` for those that expire; acct_own_row/acct_own_change run them for a
 * request.
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
 * Runs `sql` on one row of the user's, with the arguments `first` (when not
 * NULL), `id`, `uid`, `time` (when not NULL): a select when `rows` is not
 * NULL, else a change that counts the rows in *changed.
 */
acct_store_rc acct_own_run(acct_store *st, apr_pool_t *pool,
                           const acct_sql *sql, const char *first,
                           apr_int64_t id, apr_int64_t uid, const char *time,
                           acct_rows **rows, int *changed);

#endif
