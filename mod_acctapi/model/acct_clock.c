#include "acct_clock.h"

#include <stdlib.h>

static const acct_sql q_clock_get = ACCT_SQL("clock_get",
    "SELECT offset_seconds FROM clock WHERE id = 1");

static const acct_sql q_clock_set = ACCT_SQL("clock_set",
    "UPDATE clock SET offset_seconds = CAST(%s AS BIGINT) WHERE id = 1");

acct_store_rc acct_clock_offset(acct_store *st, apr_pool_t *pool,
                                apr_int64_t *offset_seconds)
{
    acct_rows *rows = NULL;
    acct_store_rc rc;
    const char *v;

    *offset_seconds = 0;
    rc = acct_store_select(st, pool, &q_clock_get, &rows, 0, NULL);
    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    v = acct_rows_get(rows, 0, "offset_seconds");
    if (v && acct_parse_i64(v, offset_seconds) != 0) {
        *offset_seconds = 0;
    }
    return ACCT_STORE_OK;
}

acct_store_rc acct_clock_set_offset(acct_store *st, apr_pool_t *pool,
                                    apr_int64_t offset_seconds)
{
    const char *args[1];

    args[0] = acct_i64(pool, offset_seconds);
    return acct_store_exec(st, pool, &q_clock_set, NULL, 1, args);
}
