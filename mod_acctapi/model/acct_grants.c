#include "acct_grants.h"

#include <apr_strings.h>
#include <string.h>

static const acct_sql q_entity_grant = ACCT_SQL("grant_entity",
    "SELECT permissions FROM entity_grants"
    " WHERE user_id = CAST(%s AS BIGINT) AND entity_type = %s"
    " AND entity_id = CAST(%s AS BIGINT)");

static const acct_sql q_creator_grant = ACCT_SQL("grant_creator",
    "INSERT INTO entity_grants (user_id, entity_type, entity_id, permissions)"
    " VALUES (CAST(%s AS BIGINT), %s, CAST(%s AS BIGINT), 'read_write')"
    " ON CONFLICT (user_id, entity_type, entity_id)"
    " DO UPDATE SET permissions = 'read_write'");

/* The global grant flags a request may ask about (column names). */
static const char *const global_flags[] = {
    "add_databases", "add_domains", "add_firewalls", "add_images",
    "add_instances", "add_monitoring", "add_nodebalancers",
    "add_stackscripts", "add_volumes", "add_vpcs", NULL
};

const char *acct_grant_visible_sql(apr_pool_t *pool, const char *entity_type,
                                   const char *id_column)
{
    /* entity_type is a constant of ours, never user text. */
    return apr_psprintf(pool,
        "(CAST(%%s AS INTEGER) = 0 OR EXISTS (SELECT 1 FROM entity_grants g"
        " WHERE g.user_id = CAST(%%s AS BIGINT) AND g.entity_type = '%s'"
        " AND g.entity_id = %s))", entity_type, id_column);
}

void acct_grant_visible_args(acct_req *req, const char **args)
{
    args[0] = req->who->restricted ? "1" : "0";
    args[1] = acct_i64(req->pool, req->who->user_id);
}

static void forbid(acct_req *req, acct_resp *resp)
{
    acct_resp_error(resp, req->pool, 403, ACCT_R_UNAUTHORIZED, NULL);
}

int acct_grant_require(acct_req *req, acct_resp *resp, const char *entity_type,
                       apr_int64_t id, acct_level need)
{
    const char *args[3], *have;
    acct_rows *rows = NULL;
    acct_store *st = NULL;
    acct_store_rc rc;

    if (!req->who->restricted) {
        return 0;
    }
    rc = acct_req_store(req, &st);
    if (rc == ACCT_STORE_OK) {
        args[0] = acct_i64(req->pool, req->who->user_id);
        args[1] = entity_type;
        args[2] = acct_i64(req->pool, id);
        rc = acct_store_select(st, req->pool, &q_entity_grant, &rows, 3, args);
    }
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return -1;
    }
    have = acct_rows_get(rows, 0, "permissions");
    if (!have || (need == ACCT_LEVEL_READ_WRITE
                  && strcmp(have, "read_write") != 0)) {
        forbid(req, resp);
        return -1;
    }
    return 0;
}

int acct_grant_require_global(acct_req *req, acct_resp *resp,
                              const char *flag)
{
    const char *const *f, *args[1];
    acct_rows *rows = NULL;
    acct_store *st = NULL;
    acct_store_rc rc;
    const char *v;

    if (!req->who->restricted) {
        return 0;
    }
    for (f = global_flags; *f && strcmp(*f, flag) != 0; f++) {
    }
    if (!*f) {
        forbid(req, resp);
        return -1;
    }
    rc = acct_req_store(req, &st);
    if (rc == ACCT_STORE_OK) {
        /* The column is one of global_flags: never user text. */
        const char *sql = apr_psprintf(req->pool,
            "SELECT %s AS flag FROM user_global_grants"
            " WHERE user_id = CAST(%%s AS BIGINT)", *f);

        args[0] = acct_i64(req->pool, req->who->user_id);
        rc = acct_store_select_dynamic(st, req->pool, sql, &rows, 1, args);
    }
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return -1;
    }
    v = acct_rows_get(rows, 0, "flag");
    if (!v || strcmp(v, "0") == 0 || strcmp(v, "f") == 0) {
        forbid(req, resp);
        return -1;
    }
    return 0;
}

acct_store_rc acct_grant_creator(acct_req *req, const char *entity_type,
                                 apr_int64_t id)
{
    const char *args[3];
    acct_store *st = NULL;
    acct_store_rc rc;

    if (!req->who->restricted) {
        return ACCT_STORE_OK;
    }
    rc = acct_req_store(req, &st);
    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    args[0] = acct_i64(req->pool, req->who->user_id);
    args[1] = entity_type;
    args[2] = acct_i64(req->pool, id);
    return acct_store_exec(st, req->pool, &q_creator_grant, NULL, 3, args);
}
