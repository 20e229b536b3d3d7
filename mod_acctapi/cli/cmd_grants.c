/*
 * acctapi-admin's registered entities (objects other services own) and the
 * grants of restricted users: entity add/remove, grant global/entity.
 */
#include "config.h"

#include <string.h>

#include <apr_strings.h>

#include "acct_grants.h"
#include "acct_names.h"
#include "acct_store.h"
#include "acct_tags.h"

#include "admin.h"

/* A grant's permissions as the command takes them: none removes it. */
static const char *const permissions[] = {
    ACCT_GRANT_READ_ONLY, ACCT_GRANT_READ_WRITE, "none", NULL
};

/* --type, one of `types` or the public API's name of one (linode for
 * instance ...), into c->type by the contract's name. */
static int check_type_opt(admin_ctx *c, const char *const *types)
{
    const char *type = admin_opt_value(c, "--type");

    c->type = acct_name_contract(type);
    if (admin_word_index(types, c->type) < 0) {
        return admin_usage_error(c->topic, "invalid type '%s' (one of %s)", type,
                                 admin_word_list(c->pool, types));
    }
    return ADMIN_OK;
}

/* --type among `types` and --id into c->id. */
static int check_entity_opts(admin_ctx *c, const char *const *types)
{
    const char *id = admin_opt_value(c, "--id");
    int status = check_type_opt(c, types);

    if (status != ADMIN_OK) {
        return status;
    }
    if (acct_parse_i64(id, &c->id) < 0 || c->id <= 0) {
        return admin_usage_error(c->topic, "--id expects a positive integer, not "
                                 "'%s'", id);
    }
    return ADMIN_OK;
}

int check_entity_add(admin_ctx *c)
{
    const char *label = admin_opt_value(c, "--label");
    int status = admin_parse_account_opt(c);

    if (status == ADMIN_OK) {
        status = check_entity_opts(c, acct_registered_entity_types);
    }
    if (status == ADMIN_OK && (!*label || strlen(label) > 255)) {
        return admin_usage_error(c->topic, "--label expects 1 to 255 bytes");
    }
    return status;
}

int check_entity_remove(admin_ctx *c)
{
    return check_entity_opts(c, acct_registered_entity_types);
}

int cmd_entity_add(admin_ctx *c)
{
    const char *type = c->type;
    acct_entity_outcome outcome;
    acct_store_rc rc;
    apr_int64_t now;
    int status;

    if ((status = admin_read_now(c, &now)) != ADMIN_OK) {
        return status;
    }
    rc = acct_entity_register(c->st, c->pool, type, c->id, c->account_id,
                              admin_opt_value(c, "--label"), now, &outcome);
    if (rc != ACCT_STORE_OK) {
        return admin_store_failure("register the entity", rc);
    }
    if (outcome == ACCT_ENTITY_NO_ACCOUNT) {
        return admin_failure("cannot register the entity: no account with id %"
                             APR_INT64_T_FMT, c->account_id);
    }
    if (outcome == ACCT_ENTITY_TAKEN) {
        return admin_failure("cannot register the entity: %s %" APR_INT64_T_FMT
                             " is registered already", type, c->id);
    }
    c->out = apr_psprintf(c->pool, "%" APR_INT64_T_FMT "\n", c->id);
    return ADMIN_OK;
}

/* Its tag links and grants go with it: nothing refers to a gone object. */
int cmd_entity_remove(admin_ctx *c)
{
    const char *type = c->type;
    acct_store_rc rc;
    int removed = 0;

    rc = acct_entity_unregister(c->st, c->pool, type, c->id, &removed);
    if (rc != ACCT_STORE_OK) {
        return admin_store_failure("remove the entity", rc);
    }
    if (!removed) {
        return admin_failure("cannot remove the entity: no %s with id %"
                             APR_INT64_T_FMT, type, c->id);
    }
    c->out = "";
    return ADMIN_OK;
}

/* The stored value of global grant `key` written as `value`, or NULL. */
static const char *global_grant_value(const char *key, const char *value,
                                      int *null)
{
    *null = 0;
    if (strcmp(key, "account_access") == 0) {
        if (strcmp(value, "none") == 0) {
            *null = 1;
            return "";
        }
        return strcmp(value, "read_only") == 0
               || strcmp(value, "read_write") == 0 ? value : NULL;
    }
    if (strcmp(value, "true") == 0) {
        return "1";
    }
    return strcmp(value, "false") == 0 ? "0" : NULL;
}

/* Index of global grant `key`: 0 for account_access, then the flags; -1. */
static int global_grant_index(const char *key)
{
    int flag = acct_grant_flag_index(key);

    return strcmp(key, ACCT_GRANT_ACCOUNT_ACCESS) == 0 ? 0
           : flag < 0 ? -1 : flag + 1;
}

/*
 * KEY=VALUE arguments into the grants to store.  KEY may be the public API's
 * name of a grant (add_linodes for add_instances ...); a grant named twice
 * is one grant when the values agree (both names, as a client copying a
 * grants document may give them), an error naming the public name when
 * they differ.
 */
int check_grant_global(admin_ctx *c)
{
    /* Per grant index: where in grant_keys it went, plus one (0: not yet). */
    int slot[ADMIN_MAX_POSITIONAL + 64] = {0};
    const char *given[ADMIN_MAX_POSITIONAL + 64] = {NULL};
    int i;

    c->ngrants = 0;
    for (i = 0; i < c->npositional; i++) {
        const char *arg = c->positionals[i], *eq = strchr(arg, '=');
        const char *named = eq ? apr_pstrndup(c->pool, arg,
                                              (apr_size_t)(eq - arg)) : arg;
        const char *key = acct_name_contract(named);
        const char *value;
        int k = global_grant_index(key), null;

        if (!eq || k < 0) {
            return admin_usage_error(c->topic, "'%s' is not KEY=VALUE with KEY one "
                                     "of %s, %s", arg, ACCT_GRANT_ACCOUNT_ACCESS,
                                     admin_word_list(c->pool, acct_grant_flags));
        }
        value = global_grant_value(key, eq + 1, &null);
        if (!value) {
            return admin_usage_error(c->topic, "invalid value '%s' for %s (%s)",
                                     eq + 1, named, k == 0
                                     ? "read_only, read_write or none"
                                     : "true or false");
        }
        value = null ? NULL : value;
        if (slot[k]) {
            const char *before = c->grant_values[slot[k] - 1];

            if (strcmp(given[k], named) == 0) {
                return admin_usage_error(c->topic, "%s given twice", named);
            }
            if (!before != !value || (value && strcmp(before, value) != 0)) {
                return admin_usage_error(c->topic, "%s and %s name the same grant "
                                         "and must agree", acct_name_public(key),
                                         key);
            }
            continue;
        }
        given[k] = named;
        c->grant_keys[c->ngrants] = key;
        c->grant_values[c->ngrants] = value;
        slot[k] = ++c->ngrants;
    }
    return ADMIN_OK;
}

int cmd_grant_global(admin_ctx *c)
{
    acct_store_rc rc;
    apr_int64_t uid;
    int status = admin_find_user(c, "grant", &uid);

    if (status != ADMIN_OK) {
        return status;
    }
    rc = acct_grant_globals_put(c->st, c->pool, uid, c->ngrants,
                                c->grant_keys, c->grant_values);
    if (rc != ACCT_STORE_OK) {
        return admin_store_failure("store the global grants", rc);
    }
    c->out = "";
    return ADMIN_OK;
}

int check_grant_entity(admin_ctx *c)
{
    const char *perm = admin_opt_value(c, "--permissions");
    int status = check_entity_opts(c, acct_grant_entity_types);

    if (status == ADMIN_OK && admin_word_index(permissions, perm) < 0) {
        return admin_usage_error(c->topic, "invalid permissions '%s' (one of %s)",
                                 perm, admin_word_list(c->pool, permissions));
    }
    return status;
}

/* none deletes the grant: a missing row is what "no access" means. */
int cmd_grant_entity(admin_ctx *c)
{
    const char *type = c->type;
    const char *perm = admin_opt_value(c, "--permissions");
    acct_store_rc rc;
    apr_int64_t uid;
    int status = admin_find_user(c, "grant", &uid), found = 0;

    if (status != ADMIN_OK) {
        return status;
    }
    rc = acct_grant_entity_in_account(c->st, c->pool, uid, type, c->id,
                                      &found);
    if (rc != ACCT_STORE_OK) {
        return admin_store_failure("look up the entity", rc);
    }
    if (!found) {
        return admin_failure("cannot grant: no %s with id %" APR_INT64_T_FMT
                             " in the account of user '%s'", type, c->id,
                             admin_opt_value(c, "--user"));
    }
    rc = acct_grant_entity_put(c->st, c->pool, uid, type, c->id,
                               strcmp(perm, "none") == 0 ? NULL : perm);
    if (rc != ACCT_STORE_OK) {
        return admin_store_failure("store the grant", rc);
    }
    c->out = "";
    return ADMIN_OK;
}
