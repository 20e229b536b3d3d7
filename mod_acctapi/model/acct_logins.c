/*
 * The login history (table logins): recording a login, which the system
 * that authenticates users reports (acctapi-admin login record), and the
 * logins /profile/logins shows.
 */
#include "acct_logins.h"
#include "acct_addr.h"
#include "acct_own.h"

#include <string.h>

static const acct_sql q_login_record = ACCT_SQL("login_record",
    "INSERT INTO logins (user_id, datetime, ip, restricted, status, username)"
    " SELECT id, CAST(%s AS BIGINT), %s, restricted, %s, username"
    " FROM users WHERE id = CAST(%s AS BIGINT) RETURNING id");

acct_ident_rc acct_login_record(acct_store *st, apr_pool_t *pool,
                                apr_int64_t uid, const char *ip,
                                const char *status, apr_int64_t at,
                                apr_int64_t *id, acct_ident_result *res)
{
    const char *args[4];
    acct_rows *rows = NULL;
    acct_store_rc src;

    memset(res, 0, sizeof(*res));
    args[1] = acct_ip_canonical(pool, ip);
    if (!args[1]) {
        return acct_ident_invalid(res, "the IP address must be IPv4 or IPv6");
    }
    if (!status || (strcmp(status, "successful") != 0
                    && strcmp(status, "failed") != 0)) {
        return acct_ident_invalid(res,
                                  "the status must be successful or failed");
    }
    if (at < 0) {
        return acct_ident_invalid(res, "the login time must not precede 1970");
    }
    args[0] = acct_i64(pool, at);
    args[2] = status;
    args[3] = acct_i64(pool, uid);
    src = acct_store_select(st, pool, &q_login_record, &rows, 4, args);
    return acct_ident_inserted_for_user(src, rows, id, res);
}

#define LOGIN_COLUMNS "id, datetime, ip, restricted, status, username"

/* Visible: the user's own login, no older than ACCT_LOGIN_HISTORY (the
 * contract: "successful logins of the last 90 days"). */
#define LOGIN_VISIBLE \
    "user_id = CAST(%s AS BIGINT) AND datetime >= CAST(%s AS BIGINT)" \
    " AND status = 'successful'"

static const acct_sql q_login_get = ACCT_SQL("login_get",
    "SELECT " LOGIN_COLUMNS " FROM logins"
    " WHERE id = CAST(%s AS BIGINT) AND " LOGIN_VISIBLE);

/* The contract lists no filterable field for logins or devices; today's
 * linode_api4 may name every property of its ProfileLogin and
 * TrustedDevice in a filter. */
static const acct_filter_field login_fields[] = {
    {"id", "id", ACCT_FIELD_INT},
    {"datetime", "datetime", ACCT_FIELD_TIME},
    {"ip", "ip", ACCT_FIELD_TEXT},
    {"restricted", "restricted", ACCT_FIELD_BOOL},
    {"status", "status", ACCT_FIELD_TEXT},
    {"username", "username", ACCT_FIELD_TEXT},
    {NULL, NULL, 0}
};

void acct_login_list_query(apr_pool_t *pool, apr_int64_t uid, apr_int64_t now,
                           acct_list_query *q)
{
    acct_own_list_query(pool, q, LOGIN_COLUMNS, "logins", LOGIN_VISIBLE,
                        login_fields, uid,
                        acct_i64(pool, now - ACCT_LOGIN_HISTORY));
}

acct_store_rc acct_login_get(acct_store *st, apr_pool_t *pool, apr_int64_t id,
                             apr_int64_t uid, apr_int64_t now,
                             acct_rows **rows)
{
    return acct_own_run(st, pool, &q_login_get, NULL, id, uid,
                        acct_i64(pool, now - ACCT_LOGIN_HISTORY), rows, NULL);
}
