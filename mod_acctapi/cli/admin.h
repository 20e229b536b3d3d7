/*
 * What the files of acctapi-admin share: the command table's types, the
 * context a command runs in, and the helpers commands have in common.
 * admin_main.c holds the table and the command line; cmd_*.c the commands,
 * one file per group; admin_util.c the helpers.
 */
#ifndef ADMIN_H
#define ADMIN_H

#include <apr.h>
#include <apr_pools.h>

#include "acct_ident.h"
#include "acct_store.h"

#define NAME "acctapi-admin"

#define ADMIN_OK 0
#define ADMIN_FAIL 1
#define ADMIN_USAGE 2

#define ADMIN_MAX_OPTS 7
/* grant global takes one KEY=VALUE per global grant (13), two for the three
 * the public API names otherwise (acct_names.h) */
#define ADMIN_MAX_POSITIONAL 16

/*
 * The clock must stay printable as YYYY-MM-DDTHH:MM:SS and meaningful as
 * epoch seconds in the database: 1970-01-01T00:00:00 .. 9999-12-31T23:59:59.
 */
#define CLOCK_MAX APR_INT64_C(253402300799)

#define DEFAULT_LABEL NAME
#define TIMESTAMP_HELP "YYYY-MM-DDTHH:MM:SS, UTC"

typedef struct admin_opt {
    const char *name;     /* "--name" */
    const char *arg;      /* its value's name in usage text (LABEL); NULL: a flag */
    int required;
    const char *help;
} admin_opt;

struct admin_ctx;
typedef int admin_fn(struct admin_ctx *c);

/*
 * A command is one or two words ("migrate", "clock advance").  `check`
 * validates the arguments before the database is touched, so a usage error
 * is reported as one whether or not the database is reachable.
 */
typedef struct admin_cmd {
    const char *group;
    const char *name;           /* NULL for a one-word command */
    const char *positional;     /* its positional arguments, space-separated
                                   ("ID STATUS"), or NULL */
    const char *summary;
    const char *details;
    const char *note;           /* shared by the commands of a group */
    int own_transactions;       /* ADMIN_OWN_TX (migrate: no schema check, no
                                   transaction) or ADMIN_NO_DB (routes) */
    admin_fn *check;
    admin_fn *run;
    admin_opt opts[ADMIN_MAX_OPTS + 1];
} admin_cmd;

#define ADMIN_OWN_TX 1
#define ADMIN_NO_DB 2

typedef struct admin_ctx {
    apr_pool_t *pool;
    const admin_cmd *cmd;
    const char *topic;                  /* "token create", for hints */
    const char *values[ADMIN_MAX_OPTS]; /* as cmd->opts; "" for a flag */
    const char *positional;             /* the first positional argument */
    const char *positionals[ADMIN_MAX_POSITIONAL];
    int npositional;
    acct_store *st;
    apr_int64_t real_now;               /* read once: every step agrees */
    /* Arguments as `check` parsed them. */
    apr_int64_t account_id;
    apr_int64_t expiry;
    apr_int64_t duration;
    apr_int64_t timestamp;
    const char *scopes;
    const char *ip;                     /* canonical text of --ip */
    apr_int64_t id;                     /* a numeric ID argument */
    const char *type;                   /* --type, by the contract's name */
    /* grant global: the grants named (by the contract's names) and their
     * stored values */
    const char *grant_keys[ADMIN_MAX_POSITIONAL];
    const char *grant_values[ADMIN_MAX_POSITIONAL];
    int ngrants;
    const char *const *nameservers;     /* zones publish: --nameservers */
    /* Written to stdout before the commit, so a failure leaves no trace. */
    const char *out;
} admin_ctx;

/* ------------------------------------------------------------------------
 * Errors and exit statuses (admin_util.c): each prints one line to stderr
 * and returns the exit status.
 */

/* A usage error (ADMIN_USAGE) with a hint to the help of `topic`. */
int admin_usage_error(const char *topic, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A failed operation (ADMIN_FAIL). */
int admin_failure(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
/* "cannot `what`": the database was unavailable or reported an error. */
int admin_store_failure(const char *what, acct_store_rc rc);
/* "cannot `what`" for a failed acct_ident call, in its own words. */
int admin_ident_failure(const admin_ctx *c, acct_ident_rc rc,
                        const acct_ident_result *res, const char *what,
                        const char *not_found, const char *conflict);

/* ------------------------------------------------------------------------
 * Options and words (admin_util.c)
 */

/* The value of option `name` of the command; NULL when not given. */
const char *admin_opt_value(const admin_ctx *c, const char *name);
/* --account into c->account_id. */
int admin_parse_account_opt(admin_ctx *c);
/* Index of `word` in `list` (NULL-terminated), or -1. */
int admin_word_index(const char *const *list, const char *word);
/* `list` as "a, b, c", for messages. */
const char *admin_word_list(apr_pool_t *pool, const char *const *list);

/* ------------------------------------------------------------------------
 * The database (admin_util.c, admin_main.c)
 */

/* The uid of --user; `what` says what could not be done without it. */
int admin_find_user(admin_ctx *c, const char *what, apr_int64_t *uid);
/* Whether real_now + offset lies within 1970 .. CLOCK_MAX. */
int admin_clock_in_range(apr_int64_t real_now, apr_int64_t offset);
/* The stored clock offset, refused when it puts the clock out of range. */
int admin_read_offset(admin_ctx *c, apr_int64_t *offset);
/* The clock's now: real time plus the stored offset. */
int admin_read_now(admin_ctx *c, apr_int64_t *now);
/* The schema is the one this build needs (admin_main.c). */
int admin_check_schema(admin_ctx *c);
/* The failure for a schema newer than this build (admin_main.c). */
int admin_schema_too_new(int have, int latest);

/* Writes `out` to stdout and flushes it. */
int admin_emit(const char *out);

/* Runs one command line (argv[0] the program's name) as main would,
 * without the process: its exit status (admin_main.c). */
int admin_run_words(apr_pool_t *pool, int argc, const char *const *argv);

/* ------------------------------------------------------------------------
 * The commands, as the table in admin_main.c names them: check_* parses
 * the arguments before the database is opened, cmd_* runs the command.
 */

/* cmd_batch.c: batch, and the connection a command opens: its own, or in
 * a batch the PostgreSQL connection the previous command left */
int cmd_batch(admin_ctx *c);
acct_store_rc admin_store_open(acct_store **st, apr_pool_t *pool,
                               const char *driver, const char *params,
                               const char **error);
/* Silences the log sink (admin_main.c) while `mute` is 1. */
void admin_log_mute(int mute);

/* cmd_setup.c: routes, migrate, account create */
int cmd_routes(admin_ctx *c);
int cmd_migrate(admin_ctx *c);
int check_account_create(admin_ctx *c);
int cmd_account_create(admin_ctx *c);

/* cmd_users.c: user create, token create, login record, device add,
 * app authorize */
/* The --token-scopes, --token-label and --token-expiry options of user
 * create and account create --owner: parsed into c->scopes and c->expiry;
 * the expiry checked against the clock's `now`. */
int check_token_opts(admin_ctx *c);
int check_token_expiry(admin_ctx *c, apr_int64_t now);
/* Creates user `username` of `account_id` and, with --token-scopes, a token
 * of theirs; appends "UID\n" (and "TOKEN\n") to c->out. */
int create_user_with_token(admin_ctx *c, apr_int64_t account_id,
                           const char *username, const char *email,
                           int restricted, apr_int64_t now);
int check_user_create(admin_ctx *c);
int cmd_user_create(admin_ctx *c);
int check_token_create(admin_ctx *c);
int cmd_token_create(admin_ctx *c);
int check_login_record(admin_ctx *c);
int cmd_login_record(admin_ctx *c);
int check_device_add(admin_ctx *c);
int cmd_device_add(admin_ctx *c);
int check_app_authorize(admin_ctx *c);
int cmd_app_authorize(admin_ctx *c);

/* cmd_database.c: database set-status */
int check_database_set_status(admin_ctx *c);
int cmd_database_set_status(admin_ctx *c);

/* cmd_events.c: events prune */
int cmd_events_prune(admin_ctx *c);

/* cmd_grants.c: entity add/remove, grant global/entity */
int check_entity_add(admin_ctx *c);
int cmd_entity_add(admin_ctx *c);
int check_entity_remove(admin_ctx *c);
int cmd_entity_remove(admin_ctx *c);
int check_grant_global(admin_ctx *c);
int cmd_grant_global(admin_ctx *c);
int check_grant_entity(admin_ctx *c);
int cmd_grant_entity(admin_ctx *c);

/* cmd_zones.c: zones publish */
int check_zones_publish(admin_ctx *c);
int cmd_zones_publish(admin_ctx *c);

/* cmd_clock.c: clock show/advance/set/reset */
int cmd_clock_show(admin_ctx *c);
int check_clock_advance(admin_ctx *c);
int cmd_clock_advance(admin_ctx *c);
int check_clock_set(admin_ctx *c);
int cmd_clock_set(admin_ctx *c);
int cmd_clock_reset(admin_ctx *c);

#endif
