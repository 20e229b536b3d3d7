/*
 * Engine settings of managed databases (`engine_config`): what
 * GET /databases/mysql/config and /databases/postgresql/config describe,
 * and the rules a database's engine_config follows.
 *
 * The descriptions are data: mod_acctapi/model/dbconfig/ENGINE.json,
 * compiled in by scripts/build/embed-dbconfig and served as they are.  Each
 * maps a setting's name to {type, minimum, maximum, minLength, maxLength,
 * pattern, enum, default, example, description, requires_restart}, or
 * groups settings under a name ("mysql", "pg", "pglookout").  The settings,
 * their types, ranges, patterns, enums, examples and whether they restart
 * the server are those of the public API's answers (recorded in the Go
 * SDK's tests, May 2025; binlog_retention_period's maximum as linode-cli's
 * tests assert it in November 2025); the descriptions are this module's.
 * ENGINE-defaults.json holds what a new database gets for a setting it was
 * not given, as the public API answered creations with {"mysql": {}} and
 * {"pg": {}}.
 *
 * The rules, as the public API's recorded answers show them:
 * - Every key names a setting or a group of the engine's description; a
 *   key that does not is refused (a setting the module cannot apply must
 *   not look applied: the caller reads its engine_config back).
 * - A value has the setting's type ("integer" takes 1024.0 as 1024),
 *   within its range, length, pattern or enum.
 * - null is accepted everywhere: a nullable setting
 *   (innodb_ft_server_stopword_table) becomes null; for any other setting
 *   or group null means "leave unchanged" (docs/conventions.md, null in a
 * PUT) or
 *   "use the default" (a POST).
 * - A PUT's engine_config changes the settings it names and keeps the
 *   others (acct_dbconfig_merge).
 *
 * `engine` is "mysql" or "postgresql" (acct_db_engine's name) throughout.
 * The descriptions are parsed once per process and only read afterwards,
 * so every function is safe from any thread.
 */
#ifndef ACCT_DBCONFIG_H
#define ACCT_DBCONFIG_H

#include <apr_pools.h>
#include <jansson.h>

#include "acct_problems.h"

/*
 * The description of `engine`'s settings as GET /databases/ENGINE/config
 * answers it: `*len` bytes of JSON text, static.  NULL for an unknown
 * engine.
 */
const char *acct_dbconfig_document(const char *engine, size_t *len);

/*
 * Checks `engine_config` (a request's value; NULL or JSON null: nothing
 * given) against `engine`'s description, adding one problem per bad
 * setting to `pb` with the field named `prefix`.path ("engine_config",
 * giving "engine_config.mysql.connect_timeout").  Field names and reasons
 * are allocated from `pool`.  Returns the number of problems added.
 */
int acct_dbconfig_validate(apr_pool_t *pool, const char *engine,
                           const json_t *engine_config, acct_problems *pb,
                           const char *prefix);

/*
 * The settings of a new database given `given` (valid, or NULL: none):
 * the defaults, with every setting `given` names in their place.  A new
 * reference (an object), NULL for an unknown engine.
 */
json_t *acct_dbconfig_initial(const char *engine, const json_t *given);

/*
 * The settings after an update: `stored` (the database's settings, not
 * changed) with every setting `given` (valid, or NULL) names replaced,
 * groups merged member by member, null applied as the rules above say and
 * whole numbers given to integer settings stored as integers.  A new
 * reference (an object).
 */
json_t *acct_dbconfig_merge(const char *engine, const json_t *stored,
                            const json_t *given);

/*
 * Does going from settings `before` to `after` change a setting whose
 * description says requires_restart?  (A setting absent on one side and
 * present on the other changes.)  1 or 0.
 */
int acct_dbconfig_needs_restart(const char *engine, const json_t *before,
                                const json_t *after);

#endif
