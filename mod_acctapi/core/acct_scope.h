/*
 * OAuth scopes: "family:read_only|read_write" items separated by spaces or
 * commas, or "*".  read_write implies read_only.  Families outside this API
 * are accepted and preserved so tokens minted for other services keep their
 * meaning (docs/conventions.md, "Auth, scopes, grants").
 */
#ifndef ACCT_SCOPE_H
#define ACCT_SCOPE_H

#include <apr_pools.h>

typedef enum {
    ACCT_LEVEL_NONE = 0,
    ACCT_LEVEL_READ_ONLY = 1,
    ACCT_LEVEL_READ_WRITE = 2
} acct_level;

/* Families in canonical output order. */
typedef enum {
    ACCT_FAM_ACCOUNT = 0,
    ACCT_FAM_DATABASES,
    ACCT_FAM_DOMAINS,
    ACCT_FAM_EVENTS,
    ACCT_FAM_FIREWALL,
    ACCT_FAM_IMAGES,
    ACCT_FAM_IPS,
    ACCT_FAM_LINODES,
    ACCT_FAM_LKE,
    ACCT_FAM_LONGVIEW,
    ACCT_FAM_NODEBALANCERS,
    ACCT_FAM_OBJECT_STORAGE,
    ACCT_FAM_STACKSCRIPTS,
    ACCT_FAM_VOLUMES,
    ACCT_FAM_VPC,
    ACCT_FAM_COUNT
} acct_family;

typedef struct {
    unsigned char level[ACCT_FAM_COUNT]; /* acct_level per family */
} acct_scopes;

/* Name of a family ("databases"), or NULL for an out-of-range value. */
const char *acct_family_name(acct_family fam);

/*
 * Parses a scope string.  "*" sets every family to read_write.  Duplicates
 * keep the higher level.  On failure returns -1 and points *bad (when not
 * NULL) at a pool copy of the offending item.  An empty string is invalid.
 */
int acct_scopes_parse(apr_pool_t *pool, const char *text, acct_scopes *out,
                      const char **bad);

/* "*" when every family is read_write, else "fam:level" items joined by a space. */
const char *acct_scopes_format(apr_pool_t *pool, const acct_scopes *s);

/* Does `have` grant `need` on `fam`? */
int acct_scopes_allow(const acct_scopes *have, acct_family fam, acct_level need);

/* Is every level of `want` at most the level of `have`? */
int acct_scopes_within(const acct_scopes *want, const acct_scopes *have);

/* "databases:read_only" for a route's requirement. */
const char *acct_scope_requirement(apr_pool_t *pool, acct_family fam,
                                   acct_level need);

#endif
