#include "acct_grants.h"

#include <apr_strings.h>
#include <string.h>

static const acct_sql q_entity_grant = ACCT_SQL("grant_entity",
    "SELECT permissions FROM entity_grants"
    " WHERE user_id = CAST(%s AS BIGINT) AND entity_type = %s"
    " AND entity_id = CAST(%s AS BIGINT)");

static const acct_sql q_creator_grant = ACCT_SQL("grant_creator",
    "INSERT INTO entity_grants (user_id, entity_type, entity_id, permissions)"
    " VALUES (CAST(%s AS BIGINT), %s, CAST(%s AS BIGINT),"
    " '" ACCT_GRANT_READ_WRITE "')"
    " ON CONFLICT (user_id, entity_type, entity_id)"
    " DO UPDATE SET permissions = '" ACCT_GRANT_READ_WRITE "'");

#define FLAG_NAME(f) #f,
#define FLAG_COLUMN(f) ", " #f

const char *const acct_grant_flags[] = {
    ACCT_GRANT_FLAGS(FLAG_NAME) NULL
};

const char *const acct_grant_entity_types[] = {
    ACCT_ENTITY_DATABASE, ACCT_ENTITY_DOMAIN, ACCT_ENTITY_IMAGE,
    ACCT_ENTITY_INSTANCE, ACCT_ENTITY_MONITORING, ACCT_ENTITY_NODEBALANCER,
    ACCT_ENTITY_STACKSCRIPT, ACCT_ENTITY_VOLUME, ACCT_ENTITY_VPC, NULL
};

const char *const acct_registered_entity_types[] = {
    ACCT_ENTITY_IMAGE, ACCT_ENTITY_INSTANCE, ACCT_ENTITY_MONITORING,
    ACCT_ENTITY_NODEBALANCER, ACCT_ENTITY_STACKSCRIPT, ACCT_ENTITY_VOLUME,
    ACCT_ENTITY_VPC, NULL
};

static int word_index(const char *const *list, const char *word)
{
    int i;

    for (i = 0; word && list[i]; i++) {
        if (strcmp(list[i], word) == 0) {
            return i;
        }
    }
    return -1;
}

int acct_grant_flag_index(const char *flag)
{
    return word_index(acct_grant_flags, flag);
}

int acct_grant_entity_type_index(const char *type)
{
    return word_index(acct_grant_entity_types, type);
}

int acct_grant_flag_creates(const char *flag)
{
    return acct_grant_flag_index(flag) >= 0 && strncmp(flag, "add_", 4) == 0;
}

const char *acct_grant_visible_sql(apr_pool_t *pool, const char *entity_type,
                                   const char *id_column)
{
    /* entity_type is a constant of ours, never user text. */
    return apr_pstrcat(pool, ACCT_GRANT_VISIBLE_HEAD "'", entity_type, "'"
                       ACCT_GRANT_VISIBLE_ID, id_column, "))", NULL);
}

void acct_grant_visible_args(acct_req *req, const char **args)
{
    args[0] = req->who->restricted ? "1" : "0";
    args[1] = acct_i64(req->pool, req->who->user_id);
}

acct_outcome acct_grant_require(acct_req *req, const char *entity_type,
                                apr_int64_t id, acct_level need)
{
    const char *args[3], *have;
    acct_rows *rows = NULL;
    acct_store *st = NULL;
    acct_store_rc rc;

    if (!req->who->restricted) {
        return acct_out_done();
    }
    rc = acct_req_store(req, &st);
    if (rc == ACCT_STORE_OK) {
        args[0] = acct_i64(req->pool, req->who->user_id);
        args[1] = entity_type;
        args[2] = acct_i64(req->pool, id);
        rc = acct_store_select(st, req->pool, &q_entity_grant, &rows, 3, args);
    }
    if (rc != ACCT_STORE_OK) {
        return acct_out_store(rc);
    }
    have = acct_rows_get(rows, 0, "permissions");
    if (!have || (need == ACCT_LEVEL_READ_WRITE
                  && strcmp(have, ACCT_GRANT_READ_WRITE) != 0)) {
        return acct_out_forbidden();
    }
    return acct_out_done();
}

acct_outcome acct_grant_require_global(acct_req *req, const char *flag)
{
    const char *args[1];
    acct_rows *rows = NULL;
    acct_store *st = NULL;
    acct_store_rc rc;
    const char *v;

    if (!req->who->restricted) {
        return acct_out_done();
    }
    if (!acct_grant_flag_creates(flag)) {
        return acct_out_forbidden();
    }
    rc = acct_req_store(req, &st);
    if (rc == ACCT_STORE_OK) {
        /* The column is one of acct_grant_flags: never user text. */
        const char *sql = apr_psprintf(req->pool,
            "SELECT %s AS flag FROM user_global_grants"
            " WHERE user_id = CAST(%%s AS BIGINT)",
            acct_grant_flags[acct_grant_flag_index(flag)]);

        args[0] = acct_i64(req->pool, req->who->user_id);
        rc = acct_store_select_dynamic(st, req->pool, sql, &rows, 1, args);
    }
    if (rc != ACCT_STORE_OK) {
        return acct_out_store(rc);
    }
    v = acct_rows_get(rows, 0, "flag");
    if (!v || strcmp(v, "0") == 0 || strcmp(v, "f") == 0) {
        return acct_out_forbidden();
    }
    return acct_out_done();
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

static const acct_sql q_globals = ACCT_SQL("grants_global",
    "SELECT " ACCT_GRANT_ACCOUNT_ACCESS ACCT_GRANT_FLAGS(FLAG_COLUMN)
    " FROM user_global_grants WHERE user_id = CAST(%s AS BIGINT)");

acct_store_rc acct_grant_globals_get(acct_store *st, apr_pool_t *pool,
                                     apr_int64_t user_id, acct_rows **rows)
{
    const char *args[1];

    args[0] = acct_i64(pool, user_id);
    return acct_store_select(st, pool, &q_globals, rows, 1, args);
}

static const acct_sql q_domain_grants = ACCT_SQL("grants_domains",
    "SELECT d.id, d.domain AS label, g.permissions FROM domains d"
    " LEFT JOIN entity_grants g ON g.entity_type = '" ACCT_ENTITY_DOMAIN "'"
    " AND g.entity_id = d.id AND g.user_id = CAST(%s AS BIGINT)"
    " WHERE d.account_id = CAST(%s AS BIGINT) ORDER BY d.id");

static const acct_sql q_database_grants = ACCT_SQL("grants_databases",
    "SELECT db.id, db.label, g.permissions FROM databases db"
    " LEFT JOIN entity_grants g ON g.entity_type = '" ACCT_ENTITY_DATABASE "'"
    " AND g.entity_id = db.id AND g.user_id = CAST(%s AS BIGINT)"
    " WHERE db.account_id = CAST(%s AS BIGINT) ORDER BY db.id");

/* Objects of other services, registered by the operator (acctapi-admin). */
static const acct_sql q_entity_grants = ACCT_SQL("grants_entities",
    "SELECT e.entity_id AS id, e.label, g.permissions FROM entities e"
    " LEFT JOIN entity_grants g ON g.entity_type = e.entity_type"
    " AND g.entity_id = e.entity_id AND g.user_id = CAST(%s AS BIGINT)"
    " WHERE e.account_id = CAST(%s AS BIGINT) AND e.entity_type = %s"
    " ORDER BY e.entity_id");

acct_store_rc acct_grant_entities_list(acct_store *st, apr_pool_t *pool,
                                       apr_int64_t user_id,
                                       apr_int64_t account_id,
                                       const char *entity_type,
                                       acct_rows **rows)
{
    const acct_sql *sql = &q_entity_grants;
    const char *args[3];

    if (strcmp(entity_type, ACCT_ENTITY_DOMAIN) == 0) {
        sql = &q_domain_grants;
    }
    else if (strcmp(entity_type, ACCT_ENTITY_DATABASE) == 0) {
        sql = &q_database_grants;
    }
    args[0] = acct_i64(pool, user_id);
    args[1] = acct_i64(pool, account_id);
    args[2] = entity_type;
    return acct_store_select(st, pool, sql, rows,
                             sql == &q_entity_grants ? 3 : 2, args);
}

/* ------------------------------------------------------------------------
 * What the operator sets
 */

acct_store_rc acct_grant_globals_put(acct_store *st, apr_pool_t *pool,
                                     apr_int64_t user_id, int n,
                                     const char *const *keys,
                                     const char *const *values)
{
    /* Column names come from the model's lists only, never from a caller:
     * a key of neither kind is refused before any SQL is made. */
    const char *cols = "user_id", *vals = "CAST(%s AS BIGINT)", *sets = NULL;
    const char **args = apr_palloc(pool, sizeof(*args) * (apr_size_t)(n + 1));
    acct_rows *rows = NULL;
    int i;

    args[0] = acct_i64(pool, user_id);
    for (i = 0; i < n; i++) {
        int access = strcmp(keys[i], ACCT_GRANT_ACCOUNT_ACCESS) == 0;

        if (!access && acct_grant_flag_index(keys[i]) < 0) {
            return ACCT_STORE_FAILED;
        }
        args[i + 1] = values[i];
        cols = apr_pstrcat(pool, cols, ", ", keys[i], NULL);
        vals = apr_pstrcat(pool, vals, access ? ", %s"
                                              : ", CAST(%s AS INTEGER)", NULL);
        sets = apr_pstrcat(pool, sets ? sets : "", sets ? ", " : "", keys[i],
                           " = excluded.", keys[i], NULL);
    }
    if (n == 0) {
        return ACCT_STORE_OK;
    }
    return acct_store_select_dynamic(st, pool,
        apr_pstrcat(pool, "INSERT INTO user_global_grants (", cols,
                    ") VALUES (", vals, ") ON CONFLICT (user_id) DO UPDATE SET ",
                    sets, " RETURNING user_id", NULL),
        &rows, n + 1, args);
}

/* The entity, if it belongs to the user's account: one query per table. */
static const acct_sql q_user_domain = ACCT_SQL("grant_user_domain",
    "SELECT d.id FROM domains d JOIN users u ON u.account_id = d.account_id"
    " WHERE u.id = CAST(%s AS BIGINT) AND d.id = CAST(%s AS BIGINT)");

static const acct_sql q_user_database = ACCT_SQL("grant_user_database",
    "SELECT b.id FROM databases b JOIN users u ON u.account_id = b.account_id"
    " WHERE u.id = CAST(%s AS BIGINT) AND b.id = CAST(%s AS BIGINT)");

static const acct_sql q_user_entity = ACCT_SQL("grant_user_entity",
    "SELECT e.entity_id FROM entities e"
    " JOIN users u ON u.account_id = e.account_id"
    " WHERE u.id = CAST(%s AS BIGINT) AND e.entity_id = CAST(%s AS BIGINT)"
    " AND e.entity_type = %s");

acct_store_rc acct_grant_entity_in_account(acct_store *st, apr_pool_t *pool,
                                           apr_int64_t user_id,
                                           const char *entity_type,
                                           apr_int64_t id, int *found)
{
    const acct_sql *q = strcmp(entity_type, ACCT_ENTITY_DOMAIN) == 0
                        ? &q_user_domain
                        : strcmp(entity_type, ACCT_ENTITY_DATABASE) == 0
                        ? &q_user_database : &q_user_entity;
    const char *args[3];
    acct_rows *rows = NULL;
    acct_store_rc rc;

    args[0] = acct_i64(pool, user_id);
    args[1] = acct_i64(pool, id);
    args[2] = entity_type;
    rc = acct_store_select(st, pool, q, &rows, q == &q_user_entity ? 3 : 2,
                           args);
    *found = rc == ACCT_STORE_OK && rows->nrows > 0;
    return rc;
}

static const acct_sql q_grant_entity_set = ACCT_SQL("grant_entity_set",
    "INSERT INTO entity_grants (user_id, entity_type, entity_id, permissions)"
    " VALUES (CAST(%s AS BIGINT), %s, CAST(%s AS BIGINT), %s)"
    " ON CONFLICT (user_id, entity_type, entity_id)"
    " DO UPDATE SET permissions = excluded.permissions");

static const acct_sql q_grant_entity_drop = ACCT_SQL("grant_entity_drop",
    "DELETE FROM entity_grants WHERE user_id = CAST(%s AS BIGINT)"
    " AND entity_type = %s AND entity_id = CAST(%s AS BIGINT)");

acct_store_rc acct_grant_entity_put(acct_store *st, apr_pool_t *pool,
                                    apr_int64_t user_id,
                                    const char *entity_type, apr_int64_t id,
                                    const char *permissions)
{
    const char *args[4];

    args[0] = acct_i64(pool, user_id);
    args[1] = entity_type;
    args[2] = acct_i64(pool, id);
    args[3] = permissions;
    return permissions
           ? acct_store_exec(st, pool, &q_grant_entity_set, NULL, 4, args)
           : acct_store_exec(st, pool, &q_grant_entity_drop, NULL, 3, args);
}

static const acct_sql q_entity_grants_remove = ACCT_SQL("grants_remove_entity",
    "DELETE FROM entity_grants"
    " WHERE entity_type = %s AND entity_id = CAST(%s AS BIGINT)");

acct_store_rc acct_grants_remove_entity(acct_store *st, apr_pool_t *pool,
                                        const char *entity_type,
                                        apr_int64_t id)
{
    const char *args[2];

    args[0] = entity_type;
    args[1] = acct_i64(pool, id);
    return acct_store_exec(st, pool, &q_entity_grants_remove, NULL, 2, args);
}
