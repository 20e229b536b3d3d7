/*
 * Trusted devices (table devices): adding one (acctapi-admin device add),
 * and the devices /profile/devices shows and revokes.
 */
#include "acct_devices.h"
#include "acct_addr.h"
#include "acct_own.h"

#include <apr_strings.h>
#include <string.h>

static const acct_sql q_device_add = ACCT_SQL("device_add",
    "INSERT INTO devices (user_id, created, expiry, last_authenticated,"
    " last_remote_addr, user_agent)"
    " SELECT id, CAST(%s AS BIGINT), CAST(%s AS BIGINT), CAST(%s AS BIGINT),"
    " %s, %s FROM users WHERE id = CAST(%s AS BIGINT) RETURNING id");

acct_ident_rc acct_device_add(acct_store *st, apr_pool_t *pool,
                              apr_int64_t uid, const char *ip,
                              const char *user_agent, apr_int64_t expiry,
                              apr_int64_t now, apr_int64_t *id,
                              acct_ident_result *res)
{
    const char *args[6];
    acct_rows *rows = NULL;
    acct_store_rc src;

    memset(res, 0, sizeof(*res));
    args[3] = acct_ip_canonical(pool, ip);
    if (!args[3]) {
        return acct_ident_invalid(res, "the IP address must be IPv4 or IPv6");
    }
    if (!acct_ident_text_valid(user_agent, ACCT_USER_AGENT_MAX)) {
        return acct_ident_invalid(
            res, apr_psprintf(pool, "the user agent must be 1..%d printable "
                              "UTF-8 characters", ACCT_USER_AGENT_MAX));
    }
    if (!expiry) {
        expiry = now + ACCT_DEVICE_LIFETIME;
    }
    else if (expiry <= now) {
        return acct_ident_invalid(res, "the expiry must be in the future");
    }
    args[0] = acct_i64(pool, now);
    args[1] = acct_i64(pool, expiry);
    args[2] = args[0];  /* authenticated as it was trusted */
    args[4] = user_agent;
    args[5] = acct_i64(pool, uid);
    src = acct_store_select(st, pool, &q_device_add, &rows, 6, args);
    return acct_ident_inserted_for_user(src, rows, id, res);
}

#define DEVICE_COLUMNS \
    "id, created, expiry, last_authenticated, last_remote_addr, user_agent"

/* Visible: the user's own device, not revoked, not expired. */
#define DEVICE_VISIBLE \
    "user_id = CAST(%s AS BIGINT) AND revoked = 0" \
    " AND expiry > CAST(%s AS BIGINT)"

static const acct_sql q_device_get = ACCT_SQL("device_get",
    "SELECT " DEVICE_COLUMNS " FROM devices"
    " WHERE id = CAST(%s AS BIGINT) AND " DEVICE_VISIBLE);

static const acct_sql q_device_revoke = ACCT_SQL("device_revoke",
    "UPDATE devices SET revoked = 1"
    " WHERE id = CAST(%s AS BIGINT) AND " DEVICE_VISIBLE);

/* docs/conventions.md lists no filterable field for devices either. */
static const acct_filter_field device_fields[] = {
    {"id", "id", ACCT_FIELD_INT},
    {"created", "created", ACCT_FIELD_TIME},
    {"expiry", "expiry", ACCT_FIELD_TIME},
    {"last_authenticated", "last_authenticated", ACCT_FIELD_TIME},
    {"last_remote_addr", "last_remote_addr", ACCT_FIELD_TEXT},
    {"user_agent", "user_agent", ACCT_FIELD_TEXT},
    {NULL, NULL, 0}
};

void acct_device_list_query(apr_pool_t *pool, apr_int64_t uid,
                            apr_int64_t now, acct_list_query *q)
{
    acct_own_list_query(pool, q, DEVICE_COLUMNS, "devices", DEVICE_VISIBLE,
                        device_fields, uid, acct_i64(pool, now));
}

acct_store_rc acct_device_get(acct_store *st, apr_pool_t *pool,
                              apr_int64_t id, apr_int64_t uid,
                              apr_int64_t now, acct_rows **rows)
{
    return acct_own_run(st, pool, &q_device_get, NULL, id, uid,
                        acct_i64(pool, now), rows, NULL);
}

acct_store_rc acct_device_revoke(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t id, apr_int64_t uid,
                                 apr_int64_t now, int *changed)
{
    return acct_own_run(st, pool, &q_device_revoke, NULL, id, uid,
                        acct_i64(pool, now), NULL, changed);
}
