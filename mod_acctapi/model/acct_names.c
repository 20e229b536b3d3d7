#include "acct_names.h"
#include "acct_grants.h"

#include <string.h>

/*
 * The public API's names are those of its OpenAPI document (v4.191.2):
 * GrantsResponse's entity lists and global grants, Profile, POST /tags and
 * the tagged objects' type.  The entity types come from acct_grants.h;
 * tests/unit/test_api.c checks that every other contract name here is one
 * the module uses, so that a rename cannot leave a pair behind.
 */
const acct_name_pair acct_name_pairs[] = {
    /* Grants entity lists; tagged objects' type; acctapi-admin --type. */
    {ACCT_ENTITY_INSTANCE, "linode"},
    {ACCT_ENTITY_MONITORING, "longview"},
    /* Global grants. */
    {"add_instances", "add_linodes"},
    {"add_monitoring", "add_longview"},
    {"monitoring_subscription", "longview_subscription"},
    /* POST /tags. */
    {"instances", "linodes"},
    /* The profile. */
    {"shell_auth_method", "lish_auth_method"},
    {NULL, NULL}
};

/* The other name of `name`, looked up among the contract's names or the
 * public ones; `name` itself when it has none.  A handful of pairs: a scan
 * costs less than any index would. */
static const char *other_name(const char *name, int from_public)
{
    const acct_name_pair *p;

    for (p = acct_name_pairs; p->contract; p++) {
        if (strcmp(from_public ? p->public_name : p->contract, name) == 0) {
            return from_public ? p->contract : p->public_name;
        }
    }
    return name;
}

const char *acct_name_public(const char *name)
{
    return other_name(name, 0);
}

const char *acct_name_contract(const char *name)
{
    return other_name(name, 1);
}

void acct_names_set(json_t *o, int mode, const char *name, json_t *value)
{
    const char *pub = mode == ACCT_NAMES_CONTRACT ? name
                                                  : acct_name_public(name);

    if (pub == name) {
        json_object_set_new(o, name, value);
        return;
    }
    if (mode == ACCT_NAMES_BOTH) {
        json_object_set(o, name, value);
    }
    json_object_set_new(o, pub, value);
}

void acct_names_set_public_only(json_t *o, int mode, const char *name,
                                json_t *value)
{
    if (mode == ACCT_NAMES_CONTRACT) {
        json_decref(value);
        return;
    }
    json_object_set_new(o, name, value);
}

const char *acct_names_value(int mode, const char *name)
{
    return mode == ACCT_NAMES_CONTRACT ? name : acct_name_public(name);
}
