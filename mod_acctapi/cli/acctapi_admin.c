/*
 * acctapi-admin: the operator CLI of mod_acctapi, what htpasswd is to
 * mod_authn_file.  It links the same core library as the module and talks to
 * the same database, so the schema, identities and clock it writes are
 * exactly what httpd reads.
 *
 * Exit status: 0 success, 1 the operation failed (database unreachable, not
 * found, conflict), 2 the command line is wrong.  Every command but migrate
 * runs in one transaction, so it either succeeds or leaves no trace.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <apr_dbd.h>
#include <apr_file_info.h>
#include <apr_general.h>
#include <apr_pools.h>
#include <apr_strings.h>
#include <apr_time.h>

#include "acct_clock.h"
#include "acct_dns.h"
#include "acct_ident.h"
#include "acct_log.h"
#include "acct_migrate.h"
#include "acct_publish.h"
#include "acct_scope.h"
#include "acct_route.h"
#include "acct_store.h"
#include "acct_tags.h"
#include "acct_time.h"

#define NAME "acctapi-admin"

#define ADMIN_OK 0
#define ADMIN_FAIL 1
#define ADMIN_USAGE 2

#define ADMIN_MAX_OPTS 6
/* grant global takes one KEY=VALUE per global grant */
#define ADMIN_MAX_POSITIONAL 13

/*
 * The clock must stay printable as YYYY-MM-DDTHH:MM:SS and meaningful as
 * epoch seconds in the database: 1970-01-01T00:00:00 .. 9999-12-31T23:59:59.
 */
#define CLOCK_MAX APR_INT64_C(253402300799)

#define DEFAULT_LABEL NAME
#define TIMESTAMP_HELP "YYYY-MM-DDTHH:MM:SS, UTC"

typedef struct admin_opt {
    const char *name;     /* "--name" */
    const char *arg;      /* placeholder of its value; NULL for a flag */
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
    const char *sql;                    /* grant global: its upsert */
    const char *sql_args[ADMIN_MAX_POSITIONAL + 1];
    const char *const *nameservers;     /* zones publish: --nameservers */
    /* Written to stdout before the commit, so a failure leaves no trace. */
    const char *out;
} admin_ctx;

static int usage_error(const char *topic, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int failure(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* A one-line message with a hint to the help of `topic` (NULL: general). */
static int usage_error(const char *topic, const char *fmt, ...)
{
    va_list ap;

    fputs(NAME ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "; see '" NAME "%s%s --help'\n", topic ? " " : "",
            topic ? topic : "");
    return ADMIN_USAGE;
}

static int failure(const char *fmt, ...)
{
    va_list ap;

    fputs(NAME ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return ADMIN_FAIL;
}

/* The driver's own text has already gone to stderr through the log sink. */
static int store_failure(const char *what, acct_store_rc rc)
{
    return failure("cannot %s: %s", what,
                   rc == ACCT_STORE_UNAVAILABLE
                       ? "the database is unavailable"
                       : "the database reported an error");
}

/* Driver messages (libpq's above all) span lines; stderr gets one each. */
static char *squash_whitespace(char *text)
{
    char *in, *out = text;

    for (in = text; *in; in++) {
        if (*in == '\n' || *in == '\r' || *in == '\t' || *in == ' ') {
            if (out > text && out[-1] != ' ') {
                *out++ = ' ';
            }
        }
        else {
            *out++ = *in;
        }
    }
    while (out > text && out[-1] == ' ') {
        out--;
    }
    *out = '\0';
    return text;
}

static void log_to_stderr(acct_log_level level, const char *file, int line,
                          const char *msg, void *baton)
{
    char buf[1024];

    if (level <= ACCT_LOG_WARN) {
        apr_cpystrn(buf, msg, sizeof(buf));
        fprintf(stderr, NAME ": %s\n", squash_whitespace(buf));
    }
}

static int abort_on_oom(int retcode)
{
    fputs(NAME ": out of memory\n", stderr);
    exit(ADMIN_FAIL);
    return retcode;
}

/* ------------------------------------------------------------------------
 * Commands
 */

static const char *opt_value(const admin_ctx *c, const char *name)
{
    int k;

    for (k = 0; c->cmd->opts[k].name; k++) {
        if (strcmp(c->cmd->opts[k].name, name) == 0) {
            return c->values[k];
        }
    }
    return NULL;
}

static int clock_in_range(apr_int64_t real_now, apr_int64_t offset)
{
    return offset >= -real_now && offset <= CLOCK_MAX - real_now;
}

static const char *clock_line(admin_ctx *c, apr_int64_t offset)
{
    return apr_psprintf(c->pool, "%s (offset %s%" APR_INT64_T_FMT "s)\n",
                        acct_format_timestamp(c->pool, c->real_now + offset),
                        offset >= 0 ? "+" : "", offset);
}

/*
 * Reads the stored offset.  One that puts the clock out of range can only
 * come from outside this tool; refuse to compute with it rather than print
 * nonsense, and point at the way out.
 */
static int read_offset(admin_ctx *c, apr_int64_t *offset)
{
    acct_store_rc rc = acct_clock_offset(c->st, c->pool, offset);

    if (rc != ACCT_STORE_OK) {
        return store_failure("read the clock", rc);
    }
    if (!clock_in_range(c->real_now, *offset)) {
        return failure("the stored clock offset (%" APR_INT64_T_FMT
                       "s) puts the clock out of range: run '" NAME
                       " clock reset'", *offset);
    }
    return ADMIN_OK;
}

/*
 * The tool always works on the clock, whatever AcctapiTestClock says, so
 * that creation times and expiries agree with a test fleet that honours it.
 */
static int read_now(admin_ctx *c, apr_int64_t *now)
{
    apr_int64_t offset;
    int status = read_offset(c, &offset);

    if (status == ADMIN_OK) {
        *now = c->real_now + offset;
    }
    return status;
}

static int write_offset(admin_ctx *c, apr_int64_t offset)
{
    acct_store_rc rc = acct_clock_set_offset(c->st, c->pool, offset);

    if (rc != ACCT_STORE_OK) {
        return store_failure("store the clock offset", rc);
    }
    c->out = clock_line(c, offset);
    return ADMIN_OK;
}

static int ident_failure(const admin_ctx *c, acct_ident_rc rc,
                         const acct_ident_result *res, const char *what,
                         const char *not_found, const char *conflict)
{
    switch (rc) {
    case ACCT_IDENT_INVALID:
        return usage_error(c->topic, "cannot %s: %s", what,
                           res->error ? res->error : "invalid input");
    case ACCT_IDENT_NOT_FOUND:
        return failure("cannot %s: %s", what,
                       not_found ? not_found : "not found");
    case ACCT_IDENT_CONFLICT:
        return failure("cannot %s: %s", what,
                       conflict ? conflict : "it already exists");
    default:
        return store_failure(what, res->store_rc);
    }
}

/* Neither migrate nor anything else may touch a schema it does not know. */
static int schema_too_new(int have, int latest)
{
    return failure("database schema is at version %d, newer than this build "
                   "(%d): use a newer " NAME, have, latest);
}

/* The route table the module serves, one route a line, tab-separated. */
static int cmd_routes(admin_ctx *c)
{
    const acct_route *r;
    const char *out = "";

    for (r = acct_routes; r->path; r++) {
        out = apr_pstrcat(c->pool, out, acct_method_name(r->method), "\t/v4",
                          r->path, "\t", acct_route_scope(c->pool, r),
                          (r->flags & ACCT_ROUTE_PUBLIC) ? "\tpublic"
                          : (r->flags & ACCT_ROUTE_ANY_TOKEN) ? "\tany-token"
                          : "\tscoped",
                          (r->flags & ACCT_ROUTE_LIST) ? " list" : "",
                          (r->flags & ACCT_ROUTE_BODY) ? " body" : "",
                          (r->flags & ACCT_ROUTE_UNRESTRICTED_ONLY)
                          ? " unrestricted-only" : "",
                          (r->flags & ACCT_ROUTE_CACHEABLE) ? " cacheable" : "",
                          "\n", NULL);
    }
    c->out = out;
    return ADMIN_OK;
}

static int cmd_migrate(admin_ctx *c)
{
    int have = 0, from = 0, to = 0, latest = acct_schema_latest();
    acct_store_rc rc;

    rc = acct_schema_version(c->st, c->pool, &have);
    if (rc != ACCT_STORE_OK) {
        return store_failure("read the schema version", rc);
    }
    if (have > latest) {
        return schema_too_new(have, latest);
    }
    rc = acct_migrate(c->st, c->pool, &from, &to);
    if (rc != ACCT_STORE_OK) {
        return store_failure("migrate the schema", rc);
    }
    c->out = apr_psprintf(c->pool, "schema at version %d (was %d)\n", to,
                          from);
    return ADMIN_OK;
}

static int cmd_account_create(admin_ctx *c)
{
    acct_ident_result res = { ACCT_STORE_OK, NULL };
    apr_int64_t now, id;
    acct_ident_rc rc;
    int status;

    if ((status = read_now(c, &now)) != ADMIN_OK) {
        return status;
    }
    rc = acct_account_create(c->st, c->pool, opt_value(c, "--name"), now,
                             &id, &res);
    if (rc != ACCT_IDENT_OK) {
        return ident_failure(c, rc, &res, "create the account", NULL, NULL);
    }
    c->out = apr_psprintf(c->pool, "%" APR_INT64_T_FMT "\n", id);
    return ADMIN_OK;
}

static int check_user_create(admin_ctx *c)
{
    const char *account = opt_value(c, "--account");

    if (acct_parse_i64(account, &c->account_id) < 0 || c->account_id <= 0) {
        return usage_error(c->topic, "--account expects an account id, "
                           "not '%s'", account);
    }
    return ADMIN_OK;
}

static int cmd_user_create(admin_ctx *c)
{
    acct_ident_result res = { ACCT_STORE_OK, NULL };
    const char *username = opt_value(c, "--username");
    apr_int64_t now, uid;
    acct_ident_rc rc;
    int status;

    if ((status = read_now(c, &now)) != ADMIN_OK) {
        return status;
    }
    rc = acct_user_create(c->st, c->pool, c->account_id, username,
                          opt_value(c, "--email"),
                          opt_value(c, "--restricted") != NULL, now, &uid,
                          &res);
    if (rc != ACCT_IDENT_OK) {
        return ident_failure(c, rc, &res, "create the user",
                             apr_psprintf(c->pool, "no account with id %"
                                          APR_INT64_T_FMT, c->account_id),
                             apr_psprintf(c->pool, "username '%s' is taken",
                                          username));
    }
    c->out = apr_psprintf(c->pool, "%" APR_INT64_T_FMT "\n", uid);
    return ADMIN_OK;
}

/* --scopes (`fallback` when absent) in the canonical form the store keeps. */
static int parse_scopes_opt(admin_ctx *c, const char *fallback)
{
    const char *scopes = opt_value(c, "--scopes");
    const char *bad = NULL;
    acct_scopes parsed;

    if (!scopes) {
        scopes = fallback;
    }
    if (acct_scopes_parse(c->pool, scopes, &parsed, &bad) < 0) {
        return usage_error(c->topic, "invalid scope '%s'",
                           bad ? bad : scopes);
    }
    c->scopes = acct_scopes_format(c->pool, &parsed);
    return ADMIN_OK;
}

/* --expiry into c->expiry (0 when absent); run checks it against the clock. */
static int parse_expiry_opt(admin_ctx *c)
{
    const char *expiry = opt_value(c, "--expiry");

    c->expiry = 0;
    if (expiry && acct_parse_timestamp(expiry, &c->expiry) < 0) {
        return usage_error(c->topic, "invalid expiry '%s' (expected "
                           TIMESTAMP_HELP ")", expiry);
    }
    return ADMIN_OK;
}

static int expiry_in_future(admin_ctx *c, apr_int64_t now)
{
    if (opt_value(c, "--expiry") && c->expiry <= now) {
        return usage_error(c->topic, "expiry %s is not in the future (the "
                           "clock is at %s)", opt_value(c, "--expiry"),
                           acct_format_timestamp(c->pool, now));
    }
    return ADMIN_OK;
}

/* --ip into c->ip, canonical: what the API will show. */
static int parse_ip_opt(admin_ctx *c)
{
    const char *ip = opt_value(c, "--ip");

    c->ip = acct_ip_canonical(c->pool, ip);
    if (!c->ip) {
        return usage_error(c->topic, "invalid IP address '%s' (expected "
                           "IPv4 or IPv6)", ip);
    }
    return ADMIN_OK;
}

/* The uid of --user; `what` says what could not be done without it. */
static int find_user(admin_ctx *c, const char *what, apr_int64_t *uid)
{
    acct_ident_result res = { ACCT_STORE_OK, NULL };
    const char *user = opt_value(c, "--user");
    acct_ident_rc rc = acct_user_find(c->st, c->pool, user, uid, &res);

    if (rc != ACCT_IDENT_OK) {
        return ident_failure(c, rc, &res, what,
                             apr_psprintf(c->pool, "no user '%s'", user),
                             NULL);
    }
    return ADMIN_OK;
}

/* The clock now, and the --expiry checked against it. */
static int read_now_for_expiry(admin_ctx *c, apr_int64_t *now)
{
    int status = read_now(c, now);

    return status == ADMIN_OK ? expiry_in_future(c, *now) : status;
}

static int check_token_create(admin_ctx *c)
{
    int status = parse_scopes_opt(c, "*");

    return status == ADMIN_OK ? parse_expiry_opt(c) : status;
}

static int cmd_token_create(admin_ctx *c)
{
    acct_ident_result res = { ACCT_STORE_OK, NULL };
    const char *label = opt_value(c, "--label");
    const char *token = NULL;
    apr_int64_t now, uid, id;
    acct_ident_rc rc;
    int status;

    if ((status = read_now_for_expiry(c, &now)) != ADMIN_OK
        || (status = find_user(c, "create the token", &uid)) != ADMIN_OK) {
        return status;
    }
    /* No AcctapiMaxTokensPerUser here: the operator decides (see --help). */
    rc = acct_token_create(c->st, c->pool, uid, label ? label : DEFAULT_LABEL,
                           c->scopes, c->expiry, now, &id, &token, &res);
    if (rc != ACCT_IDENT_OK) {
        return ident_failure(c, rc, &res, "create the token", NULL, NULL);
    }
    c->out = apr_pstrcat(c->pool, token, "\n", NULL);
    return ADMIN_OK;
}

static int check_login_record(admin_ctx *c)
{
    const char *status = opt_value(c, "--status");
    const char *at = opt_value(c, "--at");

    if (status && strcmp(status, "successful") != 0
        && strcmp(status, "failed") != 0) {
        return usage_error(c->topic, "invalid status '%s' (successful or "
                           "failed)", status);
    }
    if (at && (acct_parse_timestamp(at, &c->timestamp) < 0
               || c->timestamp < 0)) {
        return usage_error(c->topic, "invalid time '%s' (expected "
                           TIMESTAMP_HELP ")", at);
    }
    return parse_ip_opt(c);
}

static int cmd_login_record(admin_ctx *c)
{
    acct_ident_result res = { ACCT_STORE_OK, NULL };
    const char *status_text = opt_value(c, "--status");
    const char *at = opt_value(c, "--at");
    apr_int64_t now, uid, id;
    acct_ident_rc rc;
    int status;

    if ((status = read_now(c, &now)) != ADMIN_OK) {
        return status;
    }
    if (at && c->timestamp > now) {
        return usage_error(c->topic, "login time %s is in the future (the "
                           "clock is at %s)", at,
                           acct_format_timestamp(c->pool, now));
    }
    if ((status = find_user(c, "record the login", &uid)) != ADMIN_OK) {
        return status;
    }
    rc = acct_login_record(c->st, c->pool, uid, c->ip,
                           status_text ? status_text : "successful",
                           at ? c->timestamp : now, &id, &res);
    if (rc != ACCT_IDENT_OK) {
        return ident_failure(c, rc, &res, "record the login", NULL, NULL);
    }
    c->out = apr_psprintf(c->pool, "%" APR_INT64_T_FMT "\n", id);
    return ADMIN_OK;
}

static int check_device_add(admin_ctx *c)
{
    int status = parse_ip_opt(c);

    return status == ADMIN_OK ? parse_expiry_opt(c) : status;
}

static int cmd_device_add(admin_ctx *c)
{
    acct_ident_result res = { ACCT_STORE_OK, NULL };
    apr_int64_t now, uid, id;
    acct_ident_rc rc;
    int status;

    if ((status = read_now_for_expiry(c, &now)) != ADMIN_OK
        || (status = find_user(c, "add the device", &uid)) != ADMIN_OK) {
        return status;
    }
    rc = acct_device_add(c->st, c->pool, uid, c->ip,
                         opt_value(c, "--user-agent"), c->expiry, now, &id,
                         &res);
    if (rc != ACCT_IDENT_OK) {
        return ident_failure(c, rc, &res, "add the device", NULL, NULL);
    }
    c->out = apr_psprintf(c->pool, "%" APR_INT64_T_FMT "\n", id);
    return ADMIN_OK;
}

static int check_app_authorize(admin_ctx *c)
{
    int status = parse_scopes_opt(c, NULL);

    return status == ADMIN_OK ? parse_expiry_opt(c) : status;
}

static int cmd_app_authorize(admin_ctx *c)
{
    acct_ident_result res = { ACCT_STORE_OK, NULL };
    const char *token = NULL;
    apr_int64_t now, uid, id;
    acct_ident_rc rc;
    int status;

    if ((status = read_now_for_expiry(c, &now)) != ADMIN_OK
        || (status = find_user(c, "authorize the app", &uid)) != ADMIN_OK) {
        return status;
    }
    rc = acct_app_authorize(c->st, c->pool, uid, opt_value(c, "--label"),
                            c->scopes, opt_value(c, "--website"),
                            opt_value(c, "--thumbnail-url"), c->expiry, now,
                            &id, &token, &res);
    if (rc != ACCT_IDENT_OK) {
        return ident_failure(c, rc, &res, "authorize the app", NULL, NULL);
    }
    c->out = apr_psprintf(c->pool, "%" APR_INT64_T_FMT "\n%s\n", id, token);
    return ADMIN_OK;
}

static int cmd_clock_show(admin_ctx *c)
{
    apr_int64_t offset;
    int status;

    if ((status = read_offset(c, &offset)) != ADMIN_OK) {
        return status;
    }
    c->out = clock_line(c, offset);
    return ADMIN_OK;
}

static int check_clock_advance(admin_ctx *c)
{
    /* Bounded so that adding it to a valid offset cannot overflow. */
    if (acct_parse_duration(c->positional, &c->duration) < 0
        || c->duration > CLOCK_MAX || c->duration < -CLOCK_MAX) {
        return usage_error(c->topic, "invalid duration '%s'", c->positional);
    }
    return ADMIN_OK;
}

static int cmd_clock_advance(admin_ctx *c)
{
    apr_int64_t offset;
    int status;

    if ((status = read_offset(c, &offset)) != ADMIN_OK) {
        return status;
    }
    offset += c->duration;
    if (!clock_in_range(c->real_now, offset)) {
        return usage_error(c->topic, "advancing by %s would move the clock "
                           "outside 1970-01-01T00:00:00..9999-12-31T23:59:59",
                           c->positional);
    }
    return write_offset(c, offset);
}

static int check_clock_set(admin_ctx *c)
{
    /* Negative epochs would put the clock out of range (see CLOCK_MAX). */
    if (acct_parse_timestamp(c->positional, &c->timestamp) < 0
        || c->timestamp < 0) {
        return usage_error(c->topic, "invalid timestamp '%s' (expected "
                           TIMESTAMP_HELP ")", c->positional);
    }
    return ADMIN_OK;
}

static int cmd_clock_set(admin_ctx *c)
{
    return write_offset(c, c->timestamp - c->real_now);
}

static int cmd_clock_reset(admin_ctx *c)
{
    return write_offset(c, 0);
}

/* The statuses of the contract's managed database. */
static const char *const database_statuses[] = {
    "provisioning", "active", "suspending", "suspended", "resuming",
    "restoring", "failed", "degraded", "updating", "backing_up", NULL
};

/* A status replaces whatever transition the emulation had scheduled. */
static const acct_sql q_database_set_status = ACCT_SQL("admin_db_set_status",
    "UPDATE databases SET status = %s, status_next = NULL, status_due = NULL,"
    " host_primary = COALESCE(%s, host_primary),"
    " host_secondary = COALESCE(%s, host_secondary),"
    " updated = CAST(%s AS BIGINT) WHERE id = CAST(%s AS BIGINT)");

static int check_host_opt(admin_ctx *c, const char *name)
{
    const char *host = opt_value(c, name);

    if (host && !acct_dns_name_valid(host, 0)) {
        return usage_error(c->topic, "invalid %s '%s' (expected a host name "
                           "such as db1.example.net)", name, host);
    }
    return ADMIN_OK;
}

static int check_database_set_status(admin_ctx *c)
{
    const char *id = c->positionals[0], *status = c->positionals[1];
    const char *const *s, *list = NULL;
    int rc;

    if (acct_parse_i64(id, &c->id) < 0 || c->id <= 0) {
        return usage_error(c->topic, "ID expects a database id, not '%s'",
                           id);
    }
    for (s = database_statuses; *s && strcmp(*s, status) != 0; s++) {
    }
    if (!*s) {
        for (s = database_statuses; *s; s++) {
            list = list ? apr_pstrcat(c->pool, list, ", ", *s, NULL) : *s;
        }
        return usage_error(c->topic, "invalid status '%s' (one of %s)", status,
                           list);
    }
    rc = check_host_opt(c, "--primary");
    return rc == ADMIN_OK ? check_host_opt(c, "--secondary") : rc;
}

static int cmd_database_set_status(admin_ctx *c)
{
    const char *args[5];
    acct_store_rc rc;
    apr_int64_t now;
    int status, changed = 0;

    if ((status = read_now(c, &now)) != ADMIN_OK) {
        return status;
    }
    args[0] = c->positionals[1];
    args[1] = opt_value(c, "--primary");
    args[2] = opt_value(c, "--secondary");
    args[3] = acct_i64(c->pool, now);
    args[4] = acct_i64(c->pool, c->id);
    rc = acct_store_exec(c->st, c->pool, &q_database_set_status, &changed, 5,
                         args);
    if (rc != ACCT_STORE_OK) {
        return store_failure("set the database's status", rc);
    }
    if (!changed) {
        return failure("cannot set the database's status: no database with "
                       "id %" APR_INT64_T_FMT, c->id);
    }
    c->out = apr_pstrcat(c->pool, c->positionals[1], "\n", NULL);
    return ADMIN_OK;
}

/* ------------------------------------------------------------------------
 * Registered entities and grants
 */

/* Objects other services own, as entities.entity_type stores them. */
static const char *const entity_types[] = {
    "instance", "volume", "nodebalancer", "image", "stackscript", "vpc",
    "monitoring", NULL
};

/* What a grant may name: this API's own entities, then registered ones. */
static const char *const grant_types[] = {
    "domain", "database", "instance", "volume", "nodebalancer", "image",
    "stackscript", "vpc", "monitoring", NULL
};

static const char *const permissions[] = {
    "read_only", "read_write", "none", NULL
};

/* The global grants: columns of user_global_grants, all but account_access
 * booleans stored as 0/1. */
static const char *const global_grants[] = {
    "account_access", "add_databases", "add_domains", "add_firewalls",
    "add_images", "add_instances", "add_monitoring", "add_nodebalancers",
    "add_stackscripts", "add_volumes", "add_vpcs", "cancel_account",
    "monitoring_subscription", NULL
};

/* ON CONFLICT: the pair names one object of one service. */
static const acct_sql q_entity_add = ACCT_SQL("admin_entity_add",
    "INSERT INTO entities (entity_type, entity_id, account_id, label, created)"
    " SELECT %s, CAST(%s AS BIGINT), id, %s, CAST(%s AS BIGINT)"
    " FROM accounts WHERE id = CAST(%s AS BIGINT)"
    " ON CONFLICT (entity_type, entity_id) DO NOTHING RETURNING entity_id");

static const acct_sql q_account_exists = ACCT_SQL("admin_account_exists",
    "SELECT id FROM accounts WHERE id = CAST(%s AS BIGINT)");

static const acct_sql q_entity_remove = ACCT_SQL("admin_entity_remove",
    "DELETE FROM entities"
    " WHERE entity_type = %s AND entity_id = CAST(%s AS BIGINT)");

static const acct_sql q_entity_grants_remove = ACCT_SQL(
    "admin_entity_grants_remove",
    "DELETE FROM entity_grants"
    " WHERE entity_type = %s AND entity_id = CAST(%s AS BIGINT)");

/* The entity, if it belongs to the user's account: one query per table. */
static const acct_sql q_user_domain = ACCT_SQL("admin_user_domain",
    "SELECT d.id FROM domains d JOIN users u ON u.account_id = d.account_id"
    " WHERE u.id = CAST(%s AS BIGINT) AND d.id = CAST(%s AS BIGINT)");

static const acct_sql q_user_database = ACCT_SQL("admin_user_database",
    "SELECT b.id FROM databases b JOIN users u ON u.account_id = b.account_id"
    " WHERE u.id = CAST(%s AS BIGINT) AND b.id = CAST(%s AS BIGINT)");

static const acct_sql q_user_entity = ACCT_SQL("admin_user_entity",
    "SELECT e.entity_id FROM entities e"
    " JOIN users u ON u.account_id = e.account_id"
    " WHERE u.id = CAST(%s AS BIGINT) AND e.entity_id = CAST(%s AS BIGINT)"
    " AND e.entity_type = %s");

static const acct_sql q_grant_entity_set = ACCT_SQL("admin_grant_entity_set",
    "INSERT INTO entity_grants (user_id, entity_type, entity_id, permissions)"
    " VALUES (CAST(%s AS BIGINT), %s, CAST(%s AS BIGINT), %s)"
    " ON CONFLICT (user_id, entity_type, entity_id)"
    " DO UPDATE SET permissions = excluded.permissions");

static const acct_sql q_grant_entity_drop = ACCT_SQL("admin_grant_entity_drop",
    "DELETE FROM entity_grants WHERE user_id = CAST(%s AS BIGINT)"
    " AND entity_type = %s AND entity_id = CAST(%s AS BIGINT)");

/* Index of `word` in `list` (NULL-terminated), or -1. */
static int word_index(const char *const *list, const char *word)
{
    int k;

    for (k = 0; list[k]; k++) {
        if (strcmp(list[k], word) == 0) {
            return k;
        }
    }
    return -1;
}

static const char *word_list(apr_pool_t *pool, const char *const *list)
{
    const char *out = NULL;
    int k;

    for (k = 0; list[k]; k++) {
        out = out ? apr_pstrcat(pool, out, ", ", list[k], NULL) : list[k];
    }
    return out;
}

/* --type, one of `types`. */
static int check_type_opt(admin_ctx *c, const char *const *types)
{
    const char *type = opt_value(c, "--type");

    if (word_index(types, type) < 0) {
        return usage_error(c->topic, "invalid type '%s' (one of %s)", type,
                           word_list(c->pool, types));
    }
    return ADMIN_OK;
}

/* --type among `types` and --id into c->id. */
static int check_entity_opts(admin_ctx *c, const char *const *types)
{
    const char *id = opt_value(c, "--id");
    int status = check_type_opt(c, types);

    if (status != ADMIN_OK) {
        return status;
    }
    if (acct_parse_i64(id, &c->id) < 0 || c->id <= 0) {
        return usage_error(c->topic, "--id expects a positive integer, not "
                           "'%s'", id);
    }
    return ADMIN_OK;
}

static int check_entity_add(admin_ctx *c)
{
    const char *label = opt_value(c, "--label");
    int status = check_user_create(c);

    if (status == ADMIN_OK) {
        status = check_entity_opts(c, entity_types);
    }
    if (status == ADMIN_OK && (!*label || strlen(label) > 255)) {
        return usage_error(c->topic, "--label expects 1 to 255 bytes");
    }
    return status;
}

static int check_entity_remove(admin_ctx *c)
{
    return check_entity_opts(c, entity_types);
}

static int cmd_entity_add(admin_ctx *c)
{
    const char *args[5];
    acct_rows *rows = NULL;
    acct_store_rc rc;
    apr_int64_t now;
    int status;

    if ((status = read_now(c, &now)) != ADMIN_OK) {
        return status;
    }
    args[0] = opt_value(c, "--type");
    args[1] = acct_i64(c->pool, c->id);
    args[2] = opt_value(c, "--label");
    args[3] = acct_i64(c->pool, now);
    args[4] = acct_i64(c->pool, c->account_id);
    rc = acct_store_select(c->st, c->pool, &q_entity_add, &rows, 5, args);
    if (rc == ACCT_STORE_OK && rows->nrows == 0) {
        /* No row: the account is missing or the pair is taken; say which. */
        rc = acct_store_select(c->st, c->pool, &q_account_exists, &rows, 1,
                               args + 4);
        if (rc == ACCT_STORE_OK) {
            return rows->nrows == 0
                ? failure("cannot register the entity: no account with id %"
                          APR_INT64_T_FMT, c->account_id)
                : failure("cannot register the entity: %s %" APR_INT64_T_FMT
                          " is registered already", args[0], c->id);
        }
    }
    if (rc != ACCT_STORE_OK) {
        return store_failure("register the entity", rc);
    }
    c->out = apr_psprintf(c->pool, "%" APR_INT64_T_FMT "\n", c->id);
    return ADMIN_OK;
}

/* Its tag links and grants go with it: nothing refers to a gone object. */
static int cmd_entity_remove(admin_ctx *c)
{
    const char *args[2];
    acct_store_rc rc;
    int changed = 0;

    args[0] = opt_value(c, "--type");
    args[1] = acct_i64(c->pool, c->id);
    rc = acct_store_exec(c->st, c->pool, &q_entity_remove, &changed, 2, args);
    if (rc == ACCT_STORE_OK && changed) {
        rc = acct_tags_remove(c->st, c->pool, args[0], c->id);
    }
    if (rc == ACCT_STORE_OK && changed) {
        rc = acct_store_exec(c->st, c->pool, &q_entity_grants_remove, NULL, 2,
                             args);
    }
    if (rc != ACCT_STORE_OK) {
        return store_failure("remove the entity", rc);
    }
    if (!changed) {
        return failure("cannot remove the entity: no %s with id %"
                       APR_INT64_T_FMT, args[0], c->id);
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

/*
 * KEY=VALUE arguments, each key once, into the upsert's SQL and arguments
 * (column names come from global_grants only, never from the command line).
 */
static int check_grant_global(admin_ctx *c)
{
    const char *cols = "user_id", *vals = "CAST(%s AS BIGINT)", *sets = NULL;
    int seen[ADMIN_MAX_POSITIONAL] = {0};
    int i;

    for (i = 0; i < c->npositional; i++) {
        const char *arg = c->positionals[i], *eq = strchr(arg, '=');
        const char *key = eq ? apr_pstrndup(c->pool, arg,
                                            (apr_size_t)(eq - arg)) : arg;
        const char *value;
        int k = word_index(global_grants, key), null;

        if (!eq || k < 0) {
            return usage_error(c->topic, "'%s' is not KEY=VALUE with KEY one "
                               "of %s", arg, word_list(c->pool,
                                                       global_grants));
        }
        if (seen[k]++) {
            return usage_error(c->topic, "%s given twice", key);
        }
        value = global_grant_value(key, eq + 1, &null);
        if (!value) {
            return usage_error(c->topic, "invalid value '%s' for %s (%s)",
                               eq + 1, key, k == 0
                               ? "read_only, read_write or none"
                               : "true or false");
        }
        c->sql_args[i + 1] = null ? NULL : value;
        cols = apr_pstrcat(c->pool, cols, ", ", key, NULL);
        vals = apr_pstrcat(c->pool, vals, k == 0 ? ", %s"
                                              : ", CAST(%s AS INTEGER)", NULL);
        sets = apr_pstrcat(c->pool, sets ? sets : "", sets ? ", " : "", key,
                           " = excluded.", key, NULL);
    }
    c->sql = apr_pstrcat(c->pool, "INSERT INTO user_global_grants (", cols,
                            ") VALUES (", vals, ") ON CONFLICT (user_id) DO "
                            "UPDATE SET ", sets, " RETURNING user_id", NULL);
    return ADMIN_OK;
}

static int cmd_grant_global(admin_ctx *c)
{
    acct_rows *rows = NULL;
    acct_store_rc rc;
    apr_int64_t uid;
    int status = find_user(c, "grant", &uid);

    if (status != ADMIN_OK) {
        return status;
    }
    c->sql_args[0] = acct_i64(c->pool, uid);
    rc = acct_store_select_dynamic(c->st, c->pool, c->sql, &rows,
                                   c->npositional + 1, c->sql_args);
    if (rc != ACCT_STORE_OK) {
        return store_failure("store the global grants", rc);
    }
    c->out = "";
    return ADMIN_OK;
}

static int check_grant_entity(admin_ctx *c)
{
    const char *perm = opt_value(c, "--permissions");
    int status = check_entity_opts(c, grant_types);

    if (status == ADMIN_OK && word_index(permissions, perm) < 0) {
        return usage_error(c->topic, "invalid permissions '%s' (one of %s)",
                           perm, word_list(c->pool, permissions));
    }
    return status;
}

/* none deletes the grant: a missing row is what "no access" means. */
static int cmd_grant_entity(admin_ctx *c)
{
    const char *type = opt_value(c, "--type");
    const char *perm = opt_value(c, "--permissions");
    const acct_sql *owned = strcmp(type, "domain") == 0 ? &q_user_domain
                            : strcmp(type, "database") == 0 ? &q_user_database
                            : &q_user_entity;
    const char *args[4];
    acct_rows *rows = NULL;
    acct_store_rc rc;
    apr_int64_t uid;
    int status = find_user(c, "grant", &uid);

    if (status != ADMIN_OK) {
        return status;
    }
    args[0] = acct_i64(c->pool, uid);
    args[1] = acct_i64(c->pool, c->id);
    args[2] = type;
    rc = acct_store_select(c->st, c->pool, owned, &rows,
                           owned == &q_user_entity ? 3 : 2, args);
    if (rc != ACCT_STORE_OK) {
        return store_failure("look up the entity", rc);
    }
    if (rows->nrows == 0) {
        return failure("cannot grant: no %s with id %" APR_INT64_T_FMT
                       " in the account of user '%s'", type, c->id,
                       opt_value(c, "--user"));
    }
    args[1] = type;
    args[2] = acct_i64(c->pool, c->id);
    args[3] = perm;
    rc = strcmp(perm, "none") == 0
         ? acct_store_exec(c->st, c->pool, &q_grant_entity_drop, NULL, 3, args)
         : acct_store_exec(c->st, c->pool, &q_grant_entity_set, NULL, 4, args);
    if (rc != ACCT_STORE_OK) {
        return store_failure("store the grant", rc);
    }
    c->out = "";
    return ADMIN_OK;
}

/* ------------------------------------------------------------------------
 * Zone publishing
 */

static int check_schema(admin_ctx *c);
static int emit(const char *out);

/* --nameservers into c->nameservers, validated as AcctapiNameservers is. */
static int parse_nameservers_opt(admin_ctx *c)
{
    static const char *const defaults[] = ACCT_DNS_DEFAULT_NAMESERVERS;
    const char *given = opt_value(c, "--nameservers");
    apr_array_header_t *list = apr_array_make(c->pool, 4, sizeof(char *));
    char *state = NULL, *name;
    size_t n;

    if (!given) {
        c->nameservers = defaults;
        return ADMIN_OK;
    }
    for (name = apr_strtok(apr_pstrdup(c->pool, given), " ,\t", &state); name;
         name = apr_strtok(NULL, " ,\t", &state)) {
        n = strlen(name);
        if (n > 1 && name[n - 1] == '.') {
            name[n - 1] = '\0';
        }
        if (!acct_dns_name_valid(name, 0)) {
            return usage_error(c->topic, "'%s' is not a host name", name);
        }
        APR_ARRAY_PUSH(list, const char *) = name;
    }
    if (list->nelts == 0) {
        return usage_error(c->topic, "--nameservers names no nameserver");
    }
    APR_ARRAY_PUSH(list, const char *) = NULL;
    c->nameservers = (const char *const *)list->elts;
    return ADMIN_OK;
}

/* zones.conf names the files by DIR as given: it must be absolute. */
static int check_zones_publish(admin_ctx *c)
{
    if (c->positional[0] != '/') {
        return usage_error(c->topic, "DIR must be an absolute path (zones.conf "
                           "names the zone files by it), not '%s'",
                           c->positional);
    }
    return parse_nameservers_opt(c);
}

/*
 * No transaction: the module's lock orders the writers, and every read
 * after taking it must see the latest commits (a transaction begun
 * earlier would read an older snapshot, see acct_publish.c).
 */
static int cmd_zones_publish(admin_ctx *c)
{
    const char *dir = c->positional;
    const char *reload = opt_value(c, "--reload-command");
    acct_publish_summary sum;
    apr_finfo_t info;
    int status;

    if (apr_stat(&info, dir, APR_FINFO_TYPE, c->pool) != APR_SUCCESS
        || info.filetype != APR_DIR) {
        return failure("cannot publish the zones: '%s' is not a directory",
                       dir);
    }
    if ((status = check_schema(c)) != ADMIN_OK) {
        return status;
    }
    if (acct_publish_all(c->st, c->pool, dir, c->nameservers, &sum) != 0) {
        return failure("cannot publish the zones to %s", dir);
    }
    c->out = apr_psprintf(c->pool, "%d master zones (%d written), %d slave "
                          "zones, %d files removed, " ACCT_PUBLISH_INCLUDE
                          " %s\n", sum.masters, sum.written, sum.slaves,
                          sum.removed,
                          sum.include_written ? "written" : "unchanged");
    if (sum.failed > 0) {
        emit(c->out);
        return failure("%d files in %s could not be written or removed",
                       sum.failed, dir);
    }
    if (reload && acct_publish_reload(c->pool, dir, reload, NULL) != 0) {
        emit(c->out);
        return failure("the reload command failed");
    }
    return ADMIN_OK;
}

#define ZONES_NOTE \
    "With AcctapiZoneDir set, the module keeps the directory current by\n" \
    "itself after every change made through the API.\n"

#define CLOCK_NOTE \
    "The clock is the servers' UTC time plus an offset stored in the\n" \
    "database, shared by every httpd that uses it.  The offset is stored\n" \
    "whatever AcctapiTestClock says, but httpd honours it only where\n" \
    "AcctapiTestClock is On; elsewhere the API runs on real time.\n" \
    NAME " itself always applies it (creation times, token expiries).\n"

#define ENTITY_NOTE \
    "Instances, volumes, node balancers, images, StackScripts, VPCs and\n" \
    "monitoring clients are owned by other services; the API knows those\n" \
    "the operator registers.\n"

#define GRANT_NOTE \
    "Grants matter for restricted users only: unrestricted users may do\n" \
    "everything in their account.\n"

#define RECORDS_NOTE \
    "Logins, trusted devices and authorized apps are owned by the systems\n" \
    "that authenticate users; the API lists, shows and revokes them.\n"

static const admin_cmd commands[] = {
    { "migrate", NULL, NULL,
      "apply pending schema migrations",
      "Applies every migration newer than the database's schema, each in its\n"
      "own transaction, and prints \"schema at version N (was M)\".  Run it\n"
      "after installing a new build: the module and every other command\n"
      "refuse a schema other than the one they were built for.\n",
      NULL, ADMIN_OWN_TX, NULL, cmd_migrate,
      { { NULL } } },
    { "routes", NULL, NULL,
      "print the routes the module serves",
      "Prints the route table compiled into this build, one route a line:\n"
      "method, path, required scope (\"*\": none), and kind (public,\n"
      "any-token, scoped) with flags (list, body, unrestricted-only,\n"
      "cacheable), separated by tabs.  Needs no database.\n",
      NULL, ADMIN_NO_DB, NULL, cmd_routes,
      { { NULL } } },
    { "account", "create", NULL,
      "create an account and print its id",
      "Creates an account and prints its id.\n",
      NULL, 0, NULL, cmd_account_create,
      { { "--name", "NAME", 1, "the account's name" },
        { NULL } } },
    { "user", "create", NULL,
      "create a user and print its uid",
      "Creates a user in an existing account and prints its uid.  Fails when\n"
      "the username is taken.\n",
      NULL, 0, check_user_create, cmd_user_create,
      { { "--account", "ID", 1, "id of the account the user belongs to" },
        { "--username", "USERNAME", 1, "the login name" },
        { "--email", "EMAIL", 1, "the user's email address" },
        { "--restricted", NULL, 0, "see only what grants allow" },
        { NULL } } },
    { "token", "create", NULL,
      "mint a personal access token and print it",
      "Mints a personal access token for a user and prints it.  It is shown\n"
      "only this once: the database keeps only its hash.\n"
      "\n"
      "SCOPES is \"*\" or items such as\n"
      "\"linodes:read_only databases:read_write\", separated by spaces or\n"
      "commas; they are stored in canonical form.\n"
      "The expiry must lie in the future of the clock (see\n"
      "'" NAME " clock --help'); without --expiry the token never\n"
      "expires.\n"
      "\n"
      "The operator is not bound by AcctapiMaxTokensPerUser: tokens made\n"
      "here are minted whatever the user holds, and count towards the cap\n"
      "the API applies to the user's own POST /profile/tokens.\n",
      NULL, 0, check_token_create, cmd_token_create,
      { { "--user", "USER", 1, "uid or username of the token's owner" },
        { "--scopes", "SCOPES", 0, "what the token may do (default \"*\")" },
        { "--label", "LABEL", 0, "its label (default \"" DEFAULT_LABEL "\")" },
        { "--expiry", "TIMESTAMP", 0, "when it expires, " TIMESTAMP_HELP },
        { NULL } } },
    { "login", "record", NULL,
      "record a login of a user and print its id",
      "Records a login of a user, as the system that authenticates users\n"
      "saw it, and prints its id.  The username and whether the user is\n"
      "restricted are copied from the user as they are now.  The API shows\n"
      "the logins of the last 90 days; the time may not lie in the future\n"
      "of the clock (default: the clock's now).\n",
      RECORDS_NOTE, 0, check_login_record, cmd_login_record,
      { { "--user", "USER", 1, "uid or username of the user who logged in" },
        { "--ip", "IP", 1, "remote address, IPv4 or IPv6" },
        { "--status", "STATUS", 0, "successful (default) or failed" },
        { "--at", "TIMESTAMP", 0, "when, " TIMESTAMP_HELP },
        { NULL } } },
    { "device", "add", NULL,
      "trust a device of a user and print its id",
      "Adds a trusted device (a remember-me session of the web interface)\n"
      "to a user and prints its id.  It is created and last authenticated\n"
      "now, from IP.  The expiry must lie in the future of the clock;\n"
      "without --expiry the device is trusted for 30 days.\n",
      RECORDS_NOTE, 0, check_device_add, cmd_device_add,
      { { "--user", "USER", 1, "uid or username of the device's owner" },
        { "--ip", "IP", 1, "address it authenticated from, IPv4 or IPv6" },
        { "--user-agent", "UA", 1, "the browser's user agent" },
        { "--expiry", "TIMESTAMP", 0, "end of the session, " TIMESTAMP_HELP },
        { NULL } } },
    { "app", "authorize", NULL,
      "authorize an OAuth app and print its id and token",
      "Records that a user authorized an OAuth app and mints the app's\n"
      "access token.  Prints two lines: the app's id, then the token (64\n"
      "hex characters), shown only this once.  The token has exactly the\n"
      "app's scopes and expiry, and stops working when the user revokes\n"
      "the app (DELETE /profile/apps/ID).\n"
      "\n"
      "SCOPES as for 'token create' (\"*\" or items such as\n"
      "\"account:read_only\").  URLs must be http or https.  The expiry must\n"
      "lie in the future of the clock; without --expiry the app's access\n"
      "never expires.\n",
      RECORDS_NOTE, 0, check_app_authorize, cmd_app_authorize,
      { { "--user", "USER", 1, "uid or username of the authorizing user" },
        { "--label", "LABEL", 1, "the app's name" },
        { "--scopes", "SCOPES", 1, "what the app may do" },
        { "--website", "URL", 0, "the app's website" },
        { "--thumbnail-url", "URL", 0, "the app's thumbnail image" },
        { "--expiry", "TIMESTAMP", 0, "when its access ends, " TIMESTAMP_HELP },
        { NULL } } },
    { "database", "set-status", "ID STATUS",
      "set a managed database's status and print it",
      "Sets the status of managed database ID to STATUS and prints it.\n"
      "STATUS is one of provisioning, active, suspending, suspended,\n"
      "resuming, restoring, failed, degraded, updating, backing_up.  Any\n"
      "transition the emulation had scheduled (provisioning or an operation\n"
      "completing) is dropped: the database stays in STATUS until the next\n"
      "operation or set-status.\n"
      "\n"
      "With AcctapiDatabaseBackend external this is how the orchestrator\n"
      "reports progress, and --primary/--secondary how it assigns the\n"
      "cluster's host names (each is kept as it is when not given).  With\n"
      "the default emulation it forces a status for tests: failed,\n"
      "degraded, suspended.\n",
      NULL, 0, check_database_set_status, cmd_database_set_status,
      { { "--primary", "HOST", 0, "host name of the primary node" },
        { "--secondary", "HOST", 0, "host name of the secondary node" },
        { NULL } } },
    { "entity", "add", NULL,
      "register an object another service owns",
      "Registers object N of type TYPE (instance, volume, nodebalancer,\n"
      "image, stackscript, vpc, monitoring), owned by another service, as an\n"
      "entity of account ID, and prints N.  Registered objects can\n"
      "be tagged (instances, volumes, node balancers) and granted to\n"
      "restricted users.  A type and id name one object: registering it\n"
      "twice fails.\n",
      ENTITY_NOTE, 0, check_entity_add, cmd_entity_add,
      { { "--account", "ID", 1, "id of the account that owns it" },
        { "--type", "TYPE", 1, "what it is" },
        { "--id", "N", 1, "its id in the service that owns it" },
        { "--label", "LABEL", 1, "its label, as the API shows it" },
        { NULL } } },
    { "entity", "remove", NULL,
      "unregister an object another service owns",
      "Unregisters object N of type TYPE, with its tags and the grants on\n"
      "it.\n",
      ENTITY_NOTE, 0, check_entity_remove, cmd_entity_remove,
      { { "--type", "TYPE", 1, "what it is" },
        { "--id", "N", 1, "its id" },
        { NULL } } },
    { "grant", "global", "KEY=VALUE...",
      "set global grants of a restricted user",
      "Sets the given global grants of a user; the others keep their values\n"
      "(none at first).  KEY is account_access (read_only, read_write or\n"
      "none), or one of add_databases, add_domains, add_firewalls,\n"
      "add_images, add_instances, add_monitoring, add_nodebalancers,\n"
      "add_stackscripts, add_volumes, add_vpcs, cancel_account,\n"
      "monitoring_subscription (true or false).\n",
      GRANT_NOTE, 0, check_grant_global, cmd_grant_global,
      { { "--user", "USER", 1, "uid or username of the grantee" },
        { NULL } } },
    { "grant", "entity", NULL,
      "set a restricted user's permissions on an entity",
      "Sets what a user may do with entity N of type TYPE (domain,\n"
      "database, or a registered type: instance, volume, nodebalancer,\n"
      "image, stackscript, vpc, monitoring), which must belong to the\n"
      "user's account.  PERMISSIONS none takes the grant away.\n",
      GRANT_NOTE, 0, check_grant_entity, cmd_grant_entity,
      { { "--user", "USER", 1, "uid or username of the grantee" },
        { "--type", "TYPE", 1, "the entity's type" },
        { "--id", "N", 1, "the entity's id" },
        { "--permissions", "PERMISSIONS", 1, "read_only, read_write or none" },
        { NULL } } },
    { "zones", "publish", "DIR",
      "write every published zone and zones.conf to DIR",
      "Writes DIR, the directory of AcctapiZoneDir, from the database: the\n"
      "master file <zone>.zone of every active master domain of every\n"
      "account and zones.conf, the BIND include that declares every active\n"
      "zone; removes the <zone>.zone files of zones no longer published.\n"
      "Files that are current are left as they are.  Run it when publishing\n"
      "is first enabled (named needs zones.conf to start), after the error\n"
      "log reported a publishing failure, or to fill the directory of\n"
      "another host.  It takes the module's lock, so httpd may run\n"
      "meanwhile; run it as httpd's user, so that httpd can still replace\n"
      "the files.\n"
      "\n"
      "NAMESERVERS must be what AcctapiNameservers says (the NS records and\n"
      "SOA of every zone), as one argument of host names separated by\n"
      "spaces or commas.  COMMAND runs once at the end, with no zone\n"
      "argument, as the module runs AcctapiZoneReloadCommand when zones.conf\n"
      "changes.  Prints \"N master zones (W written), S slave zones, R files\n"
      "removed, zones.conf written\" (or \"unchanged\").\n",
      ZONES_NOTE, ADMIN_OWN_TX, check_zones_publish, cmd_zones_publish,
      { { "--nameservers", "NAMESERVERS", 0,
          "as AcctapiNameservers (default: ns[123].example.com)" },
        { "--reload-command", "COMMAND", 0,
          "run at the end, e.g. \"rndc reload\"" },
        { NULL } } },
    { "clock", "show", NULL,
      "print the clock",
      "Prints the clock as \"YYYY-MM-DDTHH:MM:SS (offset +Ns)\".\n",
      CLOCK_NOTE, 0, NULL, cmd_clock_show,
      { { NULL } } },
    { "clock", "advance", "DURATION",
      "move the clock by DURATION",
      "Adds DURATION to the offset and prints the new clock.  DURATION is a\n"
      "number of seconds, or a number followed by s, m, h, d or w (90s, 30m,\n"
      "2h, 3d, 1w); a leading '-' moves the clock back.\n",
      CLOCK_NOTE, 0, check_clock_advance, cmd_clock_advance,
      { { NULL } } },
    { "clock", "set", "TIMESTAMP",
      "set the clock to TIMESTAMP",
      "Sets the offset so that the clock reads TIMESTAMP\n"
      "(" TIMESTAMP_HELP ") now, and prints it.  The clock keeps running\n"
      "from there.\n",
      CLOCK_NOTE, 0, check_clock_set, cmd_clock_set,
      { { NULL } } },
    { "clock", "reset", NULL,
      "set the clock back to real time",
      "Sets the offset to 0 and prints the clock.\n",
      CLOCK_NOTE, 0, NULL, cmd_clock_reset,
      { { NULL } } },
    { NULL }
};

/* ------------------------------------------------------------------------
 * Help
 */

static const char *command_words(apr_pool_t *pool, const admin_cmd *cmd)
{
    return cmd->name ? apr_pstrcat(pool, cmd->group, " ", cmd->name, NULL)
                     : cmd->group;
}

/* The usage line of a command, wrapped at 79 columns. */
static void print_synopsis(FILE *out, apr_pool_t *pool, const char *lead,
                           const admin_cmd *cmd)
{
    const char *words[ADMIN_MAX_OPTS + 2];
    const int indent = (int)strlen(lead) + 4;
    int n = 0, k, col;

    words[n++] = command_words(pool, cmd);
    for (k = 0; cmd->opts[k].name; k++) {
        const admin_opt *o = &cmd->opts[k];
        const char *w = o->arg ? apr_pstrcat(pool, o->name, " ", o->arg, NULL)
                               : o->name;

        words[n++] = o->required ? w : apr_pstrcat(pool, "[", w, "]", NULL);
    }
    if (cmd->positional) {
        words[n++] = cmd->positional;
    }
    col = fprintf(out, "%s" NAME " [GLOBAL OPTIONS]", lead);
    for (k = 0; k < n; k++) {
        int len = (int)strlen(words[k]);

        if (col + 1 + len > 79) {
            fprintf(out, "\n%*s%s", indent, "", words[k]);
            col = indent + len;
        }
        else {
            fprintf(out, " %s", words[k]);
            col += 1 + len;
        }
    }
    fputc('\n', out);
}

static void print_command_help(FILE *out, apr_pool_t *pool,
                               const admin_cmd *cmd)
{
    int k;

    print_synopsis(out, pool, "Usage: ", cmd);
    fprintf(out, "\n%s", cmd->details);
    if (cmd->opts[0].name) {
        fputs("\nOptions:\n", out);
        for (k = 0; cmd->opts[k].name; k++) {
            const admin_opt *o = &cmd->opts[k];

            fprintf(out, "  %-22s %s\n",
                    o->arg ? apr_pstrcat(pool, o->name, " ", o->arg, NULL)
                           : o->name,
                    o->help);
        }
    }
    if (cmd->note) {
        fprintf(out, "\n%s", cmd->note);
    }
    fputs("\nGlobal options (--db-driver, --db-params): see '" NAME
          " --help'.\n", out);
}

static const admin_cmd *find_group(const char *group)
{
    const admin_cmd *cmd;

    for (cmd = commands; cmd->group; cmd++) {
        if (strcmp(cmd->group, group) == 0) {
            return cmd;
        }
    }
    return NULL;
}

static const admin_cmd *find_command(const char *group, const char *name)
{
    const admin_cmd *cmd;

    for (cmd = commands; cmd->group; cmd++) {
        if (strcmp(cmd->group, group) == 0 && cmd->name
            && strcmp(cmd->name, name) == 0) {
            return cmd;
        }
    }
    return NULL;
}

static const char *subcommand_list(apr_pool_t *pool, const char *group)
{
    const admin_cmd *cmd;
    const char *list = NULL;

    for (cmd = commands; cmd->group; cmd++) {
        if (strcmp(cmd->group, group) == 0) {
            list = list ? apr_pstrcat(pool, list, ", ", cmd->name, NULL)
                        : cmd->name;
        }
    }
    return list;
}

static void print_group_help(FILE *out, apr_pool_t *pool, const char *group)
{
    const admin_cmd *first = find_group(group), *cmd;
    const char *lead = "Usage: ";
    int n = 0;

    for (cmd = first; cmd->group; cmd++) {
        n += strcmp(cmd->group, group) == 0;
    }
    if (n == 1) {
        print_command_help(out, pool, first);
        return;
    }
    for (cmd = first; cmd->group; cmd++) {
        if (strcmp(cmd->group, group) == 0) {
            print_synopsis(out, pool, lead, cmd);
            lead = "       ";
        }
    }
    fputc('\n', out);
    for (cmd = first; cmd->group; cmd++) {
        if (strcmp(cmd->group, group) == 0) {
            fprintf(out, "  %-22s %s\n", command_words(pool, cmd),
                    cmd->summary);
        }
    }
    if (first->note) {
        fprintf(out, "\n%s", first->note);
    }
    fprintf(out, "\nRun '" NAME " %s COMMAND --help' for details.\n", group);
}

static void print_usage(FILE *out, apr_pool_t *pool)
{
    const admin_cmd *cmd;

    fputs("Usage: " NAME " [--db-driver DRIVER] [--db-params PARAMS] "
          "COMMAND ...\n"
          "\n"
          "Manages the database of mod_acctapi: its schema, accounts, users,\n"
          "access tokens, the records other systems own (logins, trusted\n"
          "devices, authorized apps), the status of managed databases, the\n"
          "test clock, and the published DNS zones.\n"
          "\n"
          "Commands:\n", out);
    for (cmd = commands; cmd->group; cmd++) {
        fprintf(out, "  %-22s %s\n", command_words(pool, cmd), cmd->summary);
    }
    fprintf(out, "  %-22s %s\n", "help [COMMAND]",
            "print the help of a command");
    fputs("\n"
          "Global options:\n"
          "  --db-driver DRIVER     sqlite3 or pgsql "
          "(default: $ACCTAPI_DB_DRIVER)\n"
          "  --db-params PARAMS     sqlite3: the database file; pgsql: a\n"
          "                         libpq conninfo string "
          "(default: $ACCTAPI_DB_PARAMS)\n"
          "  -h, --help             print this help\n"
          "  --version              print the version\n"
          "\n"
          "Run '" NAME " COMMAND --help' for the options of a command.\n"
          "Exit status: 0 on success, 1 when the operation failed, 2 when\n"
          "the command line is wrong.\n", out);
}

/* "help", "help clock", "help clock advance". */
static int help_command(apr_pool_t *pool, int argc, const char *const *argv)
{
    const admin_cmd *cmd;

    if (argc == 0) {
        print_usage(stdout, pool);
        return ADMIN_OK;
    }
    if (!(cmd = find_group(argv[0]))) {
        return usage_error(NULL, "unknown command '%s'", argv[0]);
    }
    if (argc == 1) {
        print_group_help(stdout, pool, argv[0]);
        return ADMIN_OK;
    }
    if (!cmd->name || argc > 2) {
        return usage_error(NULL, "unexpected argument '%s' to help",
                           argv[cmd->name ? 2 : 1]);
    }
    if (!(cmd = find_command(argv[0], argv[1]))) {
        return usage_error(argv[0], "unknown %s command '%s'", argv[0],
                           argv[1]);
    }
    print_command_help(stdout, pool, cmd);
    return ADMIN_OK;
}

/* ------------------------------------------------------------------------
 * Command line
 */

static int is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

/*
 * Consumes the option at argv[*i] into values[] (parallel to opts):
 * "--name VALUE", "--name=VALUE" or a flag.  A separate value that looks
 * like an option is refused: it is almost always a forgotten value, and
 * "--name=--odd" still says it deliberately.
 */
static int take_option(const admin_opt *opts, const char **values,
                       const char *topic, int argc, const char *const *argv,
                       int *i)
{
    const char *arg = argv[*i];
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    int k;

    for (k = 0; opts[k].name; k++) {
        if (strlen(opts[k].name) == len
            && strncmp(opts[k].name, arg, len) == 0) {
            break;
        }
    }
    if (!opts[k].name) {
        return usage_error(topic, "unknown option '%.*s'", (int)len, arg);
    }
    if (values[k]) {
        return usage_error(topic, "option %s given twice", opts[k].name);
    }
    if (!opts[k].arg) {
        if (eq) {
            return usage_error(topic, "option %s takes no value",
                               opts[k].name);
        }
        values[k] = "";
    }
    else if (eq) {
        values[k] = eq + 1;
    }
    else if (*i + 1 < argc && strncmp(argv[*i + 1], "--", 2) != 0) {
        values[k] = argv[++*i];
    }
    else {
        return usage_error(topic, "option %s needs a value (%s)",
                           opts[k].name, opts[k].arg);
    }
    return ADMIN_OK;
}

/* How many positional arguments a command takes (words of `positional`). */
static int positional_count(const admin_cmd *cmd)
{
    const char *p;
    int n;

    if (!cmd->positional) {
        return 0;
    }
    for (n = 1, p = cmd->positional; *p; p++) {
        n += *p == ' ';
    }
    return n;
}

/* How many it accepts: a last word ending in "..." repeats. */
static int positional_max(const admin_cmd *cmd)
{
    size_t len = cmd->positional ? strlen(cmd->positional) : 0;

    if (len > 3 && strcmp(cmd->positional + len - 3, "...") == 0) {
        return ADMIN_MAX_POSITIONAL;
    }
    return positional_count(cmd);
}

/* The name of positional argument `k` ("STATUS" of "ID STATUS"). */
static const char *positional_word(apr_pool_t *pool, const admin_cmd *cmd,
                                   int k)
{
    const char *p = cmd->positional, *end;

    for (; k > 0; k--) {
        p = strchr(p, ' ') + 1;
    }
    end = strchr(p, ' ');
    return end ? apr_pstrndup(pool, p, (apr_size_t)(end - p)) : p;
}

/*
 * Parses what follows the command words; options come in any order.  An
 * argument is an option when it starts with "--" (or is -h), so that a
 * negative DURATION such as -2h stays positional; "--" ends the options.
 */
static int parse_command_args(admin_ctx *c, int argc, const char *const *argv,
                              int *help)
{
    const admin_cmd *cmd = c->cmd;
    int i, k, options = 1, status;

    for (i = 0; i < argc; i++) {
        const char *arg = argv[i];

        if (options && strcmp(arg, "--") == 0) {
            options = 0;
        }
        else if (options && is_help(arg)) {
            *help = 1;
            return ADMIN_OK;
        }
        else if (options && strncmp(arg, "--", 2) == 0) {
            status = take_option(cmd->opts, c->values, c->topic, argc, argv,
                                 &i);
            if (status != ADMIN_OK) {
                return status;
            }
        }
        else if (c->npositional < positional_max(cmd)) {
            c->positionals[c->npositional++] = arg;
        }
        else {
            return usage_error(c->topic, "unexpected argument '%s'", arg);
        }
    }
    c->positional = c->positionals[0];
    for (k = 0; cmd->opts[k].name; k++) {
        if (cmd->opts[k].required && !c->values[k]) {
            return usage_error(c->topic, "missing %s %s", cmd->opts[k].name,
                               cmd->opts[k].arg);
        }
    }
    if (c->npositional < positional_count(cmd)) {
        return usage_error(c->topic, "missing %s",
                           positional_word(c->pool, cmd, c->npositional));
    }
    return ADMIN_OK;
}

static int emit(const char *out)
{
    if (fputs(out, stdout) == EOF || fflush(stdout) != 0) {
        return failure("cannot write to standard output");
    }
    return ADMIN_OK;
}

static int check_schema(admin_ctx *c)
{
    int have = 0, latest = acct_schema_latest();
    acct_store_rc rc = acct_schema_version(c->st, c->pool, &have);

    if (rc != ACCT_STORE_OK) {
        return store_failure("read the schema version", rc);
    }
    if (have > latest) {
        return schema_too_new(have, latest);
    }
    if (have != latest) {
        return failure("database schema is at version %d, this build needs "
                       "%d: run '" NAME " migrate'", have, latest);
    }
    return ADMIN_OK;
}

/*
 * Runs a command in one transaction.  The output is written before the
 * commit: if the commit then fails the exit status says so, whereas the
 * other order could leave an account nobody knows the id of, or a user whose
 * retry fails as "username taken".
 */
static int run_in_transaction(admin_ctx *c)
{
    acct_store_rc rc;
    int status;

    rc = acct_store_begin(c->st, c->pool);
    if (rc != ACCT_STORE_OK) {
        return store_failure("begin a transaction", rc);
    }
    status = check_schema(c);
    if (status == ADMIN_OK) {
        status = c->cmd->run(c);
    }
    if (status == ADMIN_OK) {
        status = emit(c->out);
    }
    if (status == ADMIN_OK) {
        rc = acct_store_commit(c->st, c->pool);
        if (rc != ACCT_STORE_OK) {
            status = store_failure("commit the transaction", rc);
        }
    }
    if (status != ADMIN_OK && acct_store_in_tx(c->st)) {
        acct_store_rollback(c->st, c->pool);
    }
    return status;
}

static int admin_main(apr_pool_t *pool, int argc, const char *const *argv)
{
    static const admin_opt global_opts[] = {
        { "--db-driver", "DRIVER", 0, NULL },
        { "--db-params", "PARAMS", 0, NULL },
        { "--version", NULL, 0, NULL },
        { NULL }
    };
    const char *globals[3] = { NULL, NULL, NULL };
    const char *driver, *params, *error = NULL;
    const admin_cmd *cmd;
    admin_ctx c;
    acct_store_rc rc;
    int i, help = 0, status;

    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        if (is_help(argv[i])) {
            print_usage(stdout, pool);
            return ADMIN_OK;
        }
        status = take_option(global_opts, globals, NULL, argc, argv, &i);
        if (status != ADMIN_OK) {
            return status;
        }
        if (globals[2]) {
            puts(NAME " " PACKAGE_VERSION);
            return ADMIN_OK;
        }
    }
    if (i == argc) {
        return usage_error(NULL, "no command given");
    }
    if (strcmp(argv[i], "help") == 0) {
        return help_command(pool, argc - i - 1, argv + i + 1);
    }
    if (!(cmd = find_group(argv[i]))) {
        return usage_error(NULL, "unknown command '%s'", argv[i]);
    }
    if (cmd->name) {
        if (i + 1 == argc) {
            return usage_error(argv[i], "'%s' needs a command: %s", argv[i],
                               subcommand_list(pool, argv[i]));
        }
        if (is_help(argv[i + 1])) {
            print_group_help(stdout, pool, argv[i]);
            return ADMIN_OK;
        }
        if (!(cmd = find_command(argv[i], argv[i + 1]))) {
            return usage_error(argv[i], "unknown %s command '%s'", argv[i],
                               argv[i + 1]);
        }
        i++;
    }
    i++;

    memset(&c, 0, sizeof(c));
    c.pool = pool;
    c.cmd = cmd;
    c.topic = command_words(pool, cmd);
    status = parse_command_args(&c, argc - i, argv + i, &help);
    if (status != ADMIN_OK) {
        return status;
    }
    if (help) {
        print_command_help(stdout, pool, cmd);
        return ADMIN_OK;
    }
    if (cmd->check && (status = cmd->check(&c)) != ADMIN_OK) {
        return status;
    }
    if (cmd->own_transactions == ADMIN_NO_DB) {
        status = cmd->run(&c);
        return status == ADMIN_OK ? emit(c.out) : status;
    }

    driver = globals[0] ? globals[0] : getenv("ACCTAPI_DB_DRIVER");
    params = globals[1] ? globals[1] : getenv("ACCTAPI_DB_PARAMS");
    if (!driver || !*driver) {
        return usage_error(NULL, "no database driver: use --db-driver or set "
                           "ACCTAPI_DB_DRIVER");
    }
    if (strcmp(driver, "sqlite3") != 0 && strcmp(driver, "pgsql") != 0) {
        return usage_error(NULL, "unknown database driver '%s' (sqlite3 or "
                           "pgsql)", driver);
    }
    if (!params || !*params) {
        return usage_error(NULL, "no database parameters: use --db-params or "
                           "set ACCTAPI_DB_PARAMS");
    }

    rc = acct_store_open(&c.st, pool, driver, params, &error);
    if (rc != ACCT_STORE_OK) {
        return failure("cannot open the database: %s",
                       error ? squash_whitespace(apr_pstrdup(pool, error))
                             : "unknown error");
    }
    c.real_now = acct_epoch(apr_time_now());

    if (cmd->own_transactions) {
        status = cmd->run(&c);
        return status == ADMIN_OK ? emit(c.out) : status;
    }
    return run_in_transaction(&c);
}

int main(int argc, const char *const argv[])
{
    apr_pool_t *pool;
    int status;

    if (apr_app_initialize(&argc, &argv, NULL) != APR_SUCCESS) {
        fputs(NAME ": cannot initialise APR\n", stderr);
        return ADMIN_FAIL;
    }
    atexit(apr_terminate);
    if (apr_pool_create_ex(&pool, NULL, abort_on_oom, NULL) != APR_SUCCESS
        || apr_dbd_init(pool) != APR_SUCCESS) {
        fputs(NAME ": cannot initialise APR\n", stderr);
        return ADMIN_FAIL;
    }
    acct_log_set_sink(log_to_stderr, NULL);

    status = admin_main(pool, argc, argv);
    if ((fflush(stdout) != 0 || ferror(stdout)) && status == ADMIN_OK) {
        status = failure("cannot write to standard output");
    }
    /* Closes the database before apr_terminate tears APR down. */
    apr_pool_destroy(pool);
    return status;
}
