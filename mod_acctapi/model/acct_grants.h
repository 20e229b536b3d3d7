/*
 * Grants of restricted users (the contract's "Restricted users"): an
 * unrestricted user may do everything in the account; a restricted user
 * sees an entity only with a grant on it, changes it only with read_write,
 * and creates one only with the matching global add_* grant (becoming its
 * read_write grantee).
 */
#ifndef ACCT_GRANTS_H
#define ACCT_GRANTS_H

#include "acct_outcome.h"
#include "acct_req.h"
#include "acct_scope.h"

/*
 * The grant names, listed here once: every other list (the grants document,
 * acct_grant_require_global, the SQL of this module) is made from these.
 */

/* Entity types, as stored in entity_grants.entity_type and tag_links. */
#define ACCT_ENTITY_DOMAIN "domain"
#define ACCT_ENTITY_DATABASE "database"
/* Objects of other services, registered by the operator (entities table). */
#define ACCT_ENTITY_IMAGE "image"
#define ACCT_ENTITY_INSTANCE "instance"
#define ACCT_ENTITY_MONITORING "monitoring"
#define ACCT_ENTITY_NODEBALANCER "nodebalancer"
#define ACCT_ENTITY_STACKSCRIPT "stackscript"
#define ACCT_ENTITY_VOLUME "volume"
#define ACCT_ENTITY_VPC "vpc"

/* Every entity type a grant may name, in the contract's (alphabetical)
 * order of the grants document; NULL-terminated. */
extern const char *const acct_grant_entity_types[];

/* Index of `type` in acct_grant_entity_types, or -1. */
int acct_grant_entity_type_index(const char *type);

/* The types of other services' objects, which the operator registers
 * (acctapi-admin entity add), NULL-terminated. */
extern const char *const acct_registered_entity_types[];

/* Permissions of an entity grant (entity_grants.permissions). */
#define ACCT_GRANT_READ_ONLY "read_only"
#define ACCT_GRANT_READ_WRITE "read_write"

/* The global grant that is not a flag: its value is a permission or NULL. */
#define ACCT_GRANT_ACCOUNT_ACCESS "account_access"

/*
 * The boolean global grants, columns of user_global_grants (0/1), in the
 * contract's order.  X(name) for each, so that one list yields the array and
 * the column list of the statements; the add_* ones let a restricted user
 * create an entity of that kind.
 */
#define ACCT_GRANT_FLAGS(X) \
    X(add_databases) X(add_domains) X(add_firewalls) X(add_images) \
    X(add_instances) X(add_monitoring) X(add_nodebalancers) \
    X(add_stackscripts) X(add_volumes) X(add_vpcs) X(cancel_account) \
    X(monitoring_subscription)

#define ACCT_GRANT_ADD_DATABASES "add_databases"
#define ACCT_GRANT_ADD_DOMAINS "add_domains"

/* The boolean global grants (ACCT_GRANT_FLAGS), NULL-terminated. */
extern const char *const acct_grant_flags[];

/* Index of `flag` in acct_grant_flags, or -1. */
int acct_grant_flag_index(const char *flag);

/* Is `flag` one of the add_* flags (a grant to create)? */
int acct_grant_flag_creates(const char *flag);

/*
 * An SQL condition that keeps the rows the acting user may see, for a query
 * whose entity id column is `id_column`; it takes the two arguments that
 * acct_grant_visible_args sets (restricted flag, user id).
 */
const char *acct_grant_visible_sql(apr_pool_t *pool, const char *entity_type,
                                   const char *id_column);
void acct_grant_visible_args(acct_req *req, const char **args);

/*
 * The same condition as a literal, for statements of the catalogue: the
 * entity's type is SQL `type_sql` (a column, for rows of mixed types: a
 * type no grant names stays hidden from a restricted user) and its id
 * `id_sql`; the same two arguments.
 */
#define ACCT_GRANT_VISIBLE_HEAD \
    "(CAST(%s AS INTEGER) = 0 OR EXISTS (SELECT 1 FROM entity_grants g" \
    " WHERE g.user_id = CAST(%s AS BIGINT) AND g.entity_type = "
#define ACCT_GRANT_VISIBLE_ID " AND g.entity_id = "
#define ACCT_GRANT_VISIBLE(type_sql, id_sql) \
    ACCT_GRANT_VISIBLE_HEAD type_sql ACCT_GRANT_VISIBLE_ID id_sql "))"

/*
 * May the acting user act on entity `id` with `need` (read_only or
 * read_write)?  Done when yes; forbidden when the user is restricted and
 * holds no such grant (the caller has already made sure the entity exists
 * in the account), or the store's failure.
 */
acct_outcome acct_grant_require(acct_req *req, const char *entity_type,
                                apr_int64_t id, acct_level need);

/* Does the acting user hold global grant `flag` ("add_domains" ...)?  Done,
 * forbidden, or the store's failure. */
acct_outcome acct_grant_require_global(acct_req *req, const char *flag);

/* A restricted creator gets read_write on what it created. */
acct_store_rc acct_grant_creator(acct_req *req, const char *entity_type,
                                 apr_int64_t id);

/*
 * The global grants of `user_id`: one row with ACCT_GRANT_ACCOUNT_ACCESS and
 * every ACCT_GRANT_FLAGS column, or none when the user has no grants row.
 */
acct_store_rc acct_grant_globals_get(acct_store *st, apr_pool_t *pool,
                                     apr_int64_t user_id, acct_rows **rows);

/*
 * Every entity of `entity_type` in account `account_id`, with the
 * permissions `user_id` has on it: rows of id, label, permissions (NULL:
 * none), by id.  Domains and databases come from their tables, the other
 * types from the objects the operator registered.
 */
acct_store_rc acct_grant_entities_list(acct_store *st, apr_pool_t *pool,
                                       apr_int64_t user_id,
                                       apr_int64_t account_id,
                                       const char *entity_type,
                                       acct_rows **rows);

/* ------------------------------------------------------------------------
 * What the operator sets (acctapi-admin grant ...)
 */

/*
 * Stores `n` global grants of `user_id` at once, creating its row if need
 * be: keys[i] is ACCT_GRANT_ACCOUNT_ACCESS (values[i] a permission, or NULL
 * for none) or one of acct_grant_flags (values[i] "1" or "0"); the grants
 * not named keep their values.  ACCT_STORE_FAILED for a key of neither kind.
 */
acct_store_rc acct_grant_globals_put(acct_store *st, apr_pool_t *pool,
                                     apr_int64_t user_id, int n,
                                     const char *const *keys,
                                     const char *const *values);

/* Does entity `entity_type` `id` belong to the account of `user_id`? */
acct_store_rc acct_grant_entity_in_account(acct_store *st, apr_pool_t *pool,
                                           apr_int64_t user_id,
                                           const char *entity_type,
                                           apr_int64_t id, int *found);

/* Sets the permissions of `user_id` on an entity; NULL removes its grant
 * (no row is what "no access" means). */
acct_store_rc acct_grant_entity_put(acct_store *st, apr_pool_t *pool,
                                    apr_int64_t user_id,
                                    const char *entity_type, apr_int64_t id,
                                    const char *permissions);

/* Removes every user's grant on an entity that is gone. */
acct_store_rc acct_grants_remove_entity(acct_store *st, apr_pool_t *pool,
                                        const char *entity_type,
                                        apr_int64_t id);

#endif
