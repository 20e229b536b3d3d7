#include "acct_users.h"
#include "acct_json.h"
#include "acct_tags.h"

#include <apr_strings.h>
#include <string.h>

/*
 * The labels of the user's SSH keys as JSON array text (an unlabelled key
 * counts as "": the public shape lists every key by its label), and the
 * user's latest login attempt (time and outcome, or NULL for none).
 * `keys_agg` aggregates the labels in the store's dialect.
 */
#define KEYS_SQLITE "json_group_array(COALESCE(k.label, ''))"
#define KEYS_PGSQL \
    "COALESCE(CAST(json_agg(COALESCE(k.label, '')) AS TEXT), '[]')"
#define LAST_LOGIN(column) \
    "(SELECT l." column " FROM logins l WHERE l.user_id = u.id" \
    " ORDER BY l.datetime DESC, l.id DESC LIMIT 1)"
#define USER_COLUMNS(keys_agg) \
    "u.id AS id, u.username AS username, u.email AS email," \
    " u.restricted AS restricted, u.two_factor_auth AS two_factor_auth," \
    " u.verified_phone_number AS verified_phone_number," \
    " (SELECT " keys_agg " FROM ssh_keys k WHERE k.user_id = u.id)" \
    " AS ssh_keys, " LAST_LOGIN("datetime") " AS last_login, " \
    LAST_LOGIN("status") " AS last_login_status"

#define USER_BY_NAME \
    " FROM users u WHERE u.account_id = CAST(%s AS BIGINT)" \
    " AND lower(u.username) = lower(%s)"

static const acct_sql q_user_get = ACCT_SQL2("account_user_get",
    "SELECT " USER_COLUMNS(KEYS_SQLITE) USER_BY_NAME,
    "SELECT " USER_COLUMNS(KEYS_PGSQL) USER_BY_NAME);

/* The public API marks username filterable; linode_api4's User has the
 * others, which its filters may name (user_type: every user's). */
static const acct_filter_field user_fields[] = {
    {"username", "u.username", ACCT_FIELD_TEXT},
    {"email", "u.email", ACCT_FIELD_TEXT},
    {"restricted", "u.restricted", ACCT_FIELD_BOOL},
    {"tfa_enabled", "u.two_factor_auth", ACCT_FIELD_BOOL},
    {"user_type", "CAST('" ACCT_USER_TYPE_DEFAULT "' AS TEXT)", ACCT_FIELD_TEXT},
    {NULL, NULL, 0}
};

void acct_users_list_query(apr_pool_t *pool, acct_dialect dialect,
                           apr_int64_t account_id, acct_list_query *q)
{
    acct_list_query_of(q, pool,
                       dialect == ACCT_DIALECT_PGSQL ? USER_COLUMNS(KEYS_PGSQL)
                                                     : USER_COLUMNS(KEYS_SQLITE),
                       "users u", "u.account_id = CAST(%s AS BIGINT)",
                       account_id, user_fields, "u.id");
    q->render = acct_users_render;
}

acct_store_rc acct_users_get(acct_store *st, apr_pool_t *pool,
                             apr_int64_t account_id, const char *username,
                             acct_rows **rows)
{
    const char *args[2];

    args[0] = acct_i64(pool, account_id);
    args[1] = username;
    *rows = NULL;
    return acct_store_select(st, pool, &q_user_get, rows, 2, args);
}

/* {login_datetime, status} of the latest attempt, or null for none. */
static json_t *last_login(acct_req *req, const acct_rows *rows, int i)
{
    const char *when = acct_rows_get(rows, i, "last_login");
    json_t *o;

    if (!when) {
        return json_null();
    }
    o = json_object();
    json_object_set_new(o, "login_datetime", acct_json_time(req->pool, when));
    json_object_set_new(o, "status", acct_json_str(acct_rows_get(
                                         rows, i, "last_login_status")));
    return o;
}

json_t *acct_users_render(acct_req *req, const acct_rows *rows, int i)
{
    json_t *o = json_object();

    json_object_set_new(o, "username",
                        acct_json_str(acct_rows_get(rows, i, "username")));
    json_object_set_new(o, "email",
                        acct_json_str(acct_rows_get(rows, i, "email")));
    json_object_set_new(o, "restricted",
                        acct_json_bool(acct_rows_get(rows, i, "restricted")));
    /* Labels are labels: sorted byte-wise as tags are, the same on both
     * dialects. */
    json_object_set_new(o, "ssh_keys",
                        acct_tags_from_column(req->pool, acct_rows_get(
                                                  rows, i, "ssh_keys")));
    json_object_set_new(o, "tfa_enabled", acct_json_bool(acct_rows_get(
                                              rows, i, "two_factor_auth")));
    json_object_set_new(o, "verified_phone_number",
                        acct_json_str(acct_rows_get(rows, i,
                                                    "verified_phone_number")));
    json_object_set_new(o, "user_type", json_string(ACCT_USER_TYPE_DEFAULT));
    /* Users sign in elsewhere: the module keeps no password. */
    json_object_set_new(o, "password_created", json_null());
    json_object_set_new(o, "last_login", last_login(req, rows, i));
    return o;
}
