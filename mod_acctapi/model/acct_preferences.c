#include "acct_preferences.h"

static const acct_sql q_prefs_get = ACCT_SQL("prefs_get",
    "SELECT doc FROM preferences"
    " WHERE user_id = CAST(%s AS BIGINT) AND client = %s");

static const acct_sql q_prefs_put = ACCT_SQL("prefs_put",
    "INSERT INTO preferences (user_id, client, doc)"
    " VALUES (CAST(%s AS BIGINT), %s, %s)"
    " ON CONFLICT (user_id, client) DO UPDATE SET doc = excluded.doc");

acct_store_rc acct_preferences_get(acct_store *st, apr_pool_t *pool,
                                   apr_int64_t uid, const char *client,
                                   const char **doc)
{
    const char *args[2];
    acct_rows *rows = NULL;
    acct_store_rc rc;

    args[0] = acct_i64(pool, uid);
    args[1] = client;
    *doc = NULL;
    rc = acct_store_select(st, pool, &q_prefs_get, &rows, 2, args);
    if (rc == ACCT_STORE_OK && rows->nrows > 0) {
        /* doc is NOT NULL: a row always has one. */
        *doc = acct_rows_get(rows, 0, "doc");
    }
    return rc;
}

acct_store_rc acct_preferences_put(acct_store *st, apr_pool_t *pool,
                                   apr_int64_t uid, const char *client,
                                   const char *doc)
{
    const char *args[3];

    args[0] = acct_i64(pool, uid);
    args[1] = client;
    args[2] = doc;
    return acct_store_exec(st, pool, &q_prefs_put, NULL, 3, args);
}
