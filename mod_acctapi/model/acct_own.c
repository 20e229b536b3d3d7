/*
 * The user's own records (tokens, logins, devices, apps, SSH keys): reading
 * and changing one by its id for the acting user, and listing them.
 */
#include "acct_own.h"

#include <apr_strings.h>

acct_rows *acct_own_row(acct_req *req, acct_own_get_fn *get, apr_int64_t id,
                        acct_outcome *out)
{
    acct_rows *rows = NULL;
    acct_store *st = NULL;
    acct_store_rc rc = acct_req_store(req, &st);

    if (rc == ACCT_STORE_OK) {
        rc = get(st, req->pool, id, req->who->user_id, req->now, &rows);
    }
    *out = acct_out_found(rc, rows);
    return acct_out_ok(*out) ? rows : NULL;
}

acct_outcome acct_own_change(acct_req *req, acct_own_change_fn *change,
                             apr_int64_t id)
{
    acct_store *st = NULL;
    acct_store_rc rc = acct_req_store(req, &st);
    int changed = 0;

    if (rc == ACCT_STORE_OK) {
        rc = change(st, req->pool, id, req->who->user_id, req->now, &changed);
    }
    return acct_out_changed(rc, changed);
}

/*
 * Runs `sql` on one row of the user's, with the arguments `first` (when not
 * NULL), `id`, `uid`, `time` (when not NULL): a select when `rows` is not
 * NULL, else a change that counts the rows in *changed.
 */
acct_store_rc acct_own_run(acct_store *st, apr_pool_t *pool,
                           const acct_sql *sql, const char *first,
                           apr_int64_t id, apr_int64_t uid, const char *time,
                           acct_rows **rows, int *changed)
{
    const char *args[4];
    int n = 0;

    if (first) {
        args[n++] = first;
    }
    args[n++] = acct_i64(pool, id);
    args[n++] = acct_i64(pool, uid);
    if (time) {
        args[n++] = time;
    }
    if (rows) {
        return acct_store_select(st, pool, sql, rows, n, args);
    }
    return acct_store_exec(st, pool, sql, changed, n, args);
}

void acct_own_list_query(apr_pool_t *pool, acct_list_query *q,
                         const char *columns, const char *table,
                         const char *where, const acct_filter_field *fields,
                         apr_int64_t uid, const char *time)
{
    acct_list_query_of(q, pool, columns, table, where, uid, fields, "id");
    if (time) {
        const char **args = apr_palloc(pool, 2 * sizeof(*args));

        args[0] = q->args[0];
        args[1] = time;
        q->args = args;
        q->nargs = 2;
    }
}
