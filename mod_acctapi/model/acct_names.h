/*
 * The contract's names and the public API's names of the same things
 * (docs/conventions.md, "Today's clients", Names).  The contract (4.174.0)
 * writes
 * the public API with neutral words: a Linode is an instance, Longview is
 * monitoring, Lish is the shell.  Today's clients send and read the public
 * words, so requests take either name and responses carry the names that
 * AcctapiFieldNames asks for (acct_names_mode, acct_settings.h).  Every such
 * pair is listed here once; the renderings and the operator CLI look names
 * up here.
 */
#ifndef ACCT_NAMES_H
#define ACCT_NAMES_H

#include <jansson.h>

#include "acct_settings.h"

typedef struct acct_name_pair {
    const char *contract;
    const char *public_name;
} acct_name_pair;

/* Every pair, ended by {NULL, NULL}. */
extern const acct_name_pair acct_name_pairs[];

/* The public API's name of contract name `name`; `name` itself when the
 * two agree (the same pointer, so callers may compare). */
const char *acct_name_public(const char *name);

/* The contract's name of public name `name`; `name` itself when it is not
 * a public name that differs (a contract name, say). */
const char *acct_name_contract(const char *name);

/*
 * Sets `value` in object `o` under contract name `name`, its public name,
 * or both, as `mode` says (one value under both keys: no copy).  Steals
 * the reference to `value`, as json_object_set_new.
 */
void acct_names_set(json_t *o, int mode, const char *name, json_t *value);

/*
 * Sets `value` under `name`, a key only the public API has (no contract
 * name stands for it: the grants of kinds the module has none of), unless
 * `mode` asks for the contract's names only; then `value` is released.
 * Steals the reference to `value`, as json_object_set_new.
 */
void acct_names_set_public_only(json_t *o, int mode, const char *name,
                                json_t *value);

/* Where a name is a value (the type of a tagged object): the contract's
 * value in ACCT_NAMES_CONTRACT, else the public one; a value cannot be
 * both. */
const char *acct_names_value(int mode, const char *name);

#endif
