/*
 * Grants of restricted users (the contract's "Restricted users"): an
 * unrestricted user may do everything in the account; a restricted user
 * sees an entity only with a grant on it, changes it only with read_write,
 * and creates one only with the matching global add_* grant (becoming its
 * read_write grantee).
 */
#ifndef ACCT_GRANTS_H
#define ACCT_GRANTS_H

#include "acct_api.h"

/* Entity types, as stored in entity_grants.entity_type and tag_links. */
#define ACCT_ENTITY_DOMAIN "domain"
#define ACCT_ENTITY_DATABASE "database"

/*
 * An SQL condition that keeps the rows the acting user may see, for a query
 * whose entity id column is `id_column`; it takes the two arguments that
 * acct_grant_visible_args sets (restricted flag, user id).
 */
const char *acct_grant_visible_sql(apr_pool_t *pool, const char *entity_type,
                                   const char *id_column);
void acct_grant_visible_args(acct_req *req, const char **args);

/*
 * May the acting user act on entity `id` with `need` (read_only or
 * read_write)?  0 when yes; -1 after answering 403 "Unauthorized" (the
 * caller has already made sure the entity exists in the account) or a store
 * error.
 */
int acct_grant_require(acct_req *req, acct_resp *resp, const char *entity_type,
                       apr_int64_t id, acct_level need);

/* Global grant `flag` ("add_domains" ...): 0, or -1 after answering 403. */
int acct_grant_require_global(acct_req *req, acct_resp *resp,
                              const char *flag);

/* A restricted creator gets read_write on what it created. */
acct_store_rc acct_grant_creator(acct_req *req, const char *entity_type,
                                 apr_int64_t id);

#endif
