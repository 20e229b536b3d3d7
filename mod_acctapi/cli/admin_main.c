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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <apr_dbd.h>
#include <apr_general.h>
#include <apr_pools.h>
#include <apr_strings.h>
#include <apr_time.h>

#include "acct_log.h"
#include "acct_migrate.h"
#include "acct_store.h"
#include "acct_time.h"

#include "admin.h"

/* ------------------------------------------------------------------------
 * Logging: the core's messages go to stderr, one line each
 */

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

/* Set while the batch checks a kept connection: a failure there is not the
 * command's.  Lifetime: the process; one thread. */
static int log_muted;

void admin_log_mute(int mute)
{
    log_muted = mute;
}

static void log_to_stderr(acct_log_level level, const char *file, int line,
                          const char *msg, void *baton)
{
    char buf[1024];

    if (level <= ACCT_LOG_WARN && !log_muted) {
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
 * The command table: every command, its options and its help
 */

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
      "cacheable, token-optional), separated by tabs.  Needs no\n"
      "database.\n",
      NULL, ADMIN_NO_DB, NULL, cmd_routes,
      { { NULL } } },
    { "batch", NULL, NULL,
      "run many commands in one process",
      "Reads one command a line from standard input, each a JSON array of\n"
      "the words that would follow '" NAME "' (global options included;\n"
      "without them a command reads ACCTAPI_DB_DRIVER and ACCTAPI_DB_PARAMS\n"
      "as usual), e.g. [\"user\", \"create\", \"--account\", \"1\", ...].\n"
      "Runs each exactly as that command line would, in order, each in its\n"
      "own transaction (a PostgreSQL connection is kept for the next command\n"
      "with the same parameters), and answers each with one line of\n"
      "standard output: {\"status\": N, \"stdout\": \"...\", \"stderr\": \"...\"},\n"
      "the exit status and the output that command would have given (text\n"
      "that is not UTF-8 shown with U+FFFD).  Ends at the end of the input.\n"
      "For scripts that run many commands: starting a process costs more\n"
      "than most commands.\n",
      NULL, ADMIN_NO_DB, NULL, cmd_batch,
      { { NULL } } },
    { "account", "create", NULL,
      "create an account and print its id",
      "Creates an account and prints its id.\n"
      "\n"
      "With --owner and --owner-email it also creates the account's first\n"
      "user, unrestricted, in the same transaction (a taken username leaves\n"
      "no account behind), and prints its uid on a second line.  With\n"
      "--token-scopes too, it mints a personal access token for that user\n"
      "and prints it on a third line, as 'user create --token-scopes' does.\n",
      NULL, 0, check_account_create, cmd_account_create,
      { { "--name", "NAME", 1, "the account's name" },
        { "--owner", "USERNAME", 0, "login name of its first user" },
        { "--owner-email", "EMAIL", 0, "that user's email address" },
        { "--token-scopes", "SCOPES", 0, "also mint a token of that user" },
        { "--token-label", "LABEL", 0,
          "its label (default \"" DEFAULT_LABEL "\")" },
        { "--token-expiry", "TIMESTAMP", 0,
          "when it expires, " TIMESTAMP_HELP },
        { NULL } } },
    { "user", "create", NULL,
      "create a user and print its uid",
      "Creates a user in an existing account and prints its uid.  Fails when\n"
      "the username is taken.\n"
      "\n"
      "With --token-scopes it also mints a personal access token for the\n"
      "new user, in the same transaction (a failure leaves neither), and\n"
      "prints it on a second line: shown only this once, as by 'token\n"
      "create'.  SCOPES, --token-label and --token-expiry are those of\n"
      "'token create' (--scopes, --label, --expiry); \"*\" gives every scope.\n",
      NULL, 0, check_user_create, cmd_user_create,
      { { "--account", "ID", 1, "id of the account the user belongs to" },
        { "--username", "USERNAME", 1, "the login name" },
        { "--email", "EMAIL", 1, "the user's email address" },
        { "--restricted", NULL, 0, "see only what grants allow" },
        { "--token-scopes", "SCOPES", 0, "also mint a token with these scopes" },
        { "--token-label", "LABEL", 0,
          "its label (default \"" DEFAULT_LABEL "\")" },
        { "--token-expiry", "TIMESTAMP", 0,
          "when it expires, " TIMESTAMP_HELP },
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
    { "events", "prune", NULL,
      "delete the events older than 90 days",
      "Deletes every event older than 90 days by the clock (see\n"
      "'" NAME " clock --help') and prints \"N events deleted\".  The API\n"
      "never shows such events; pruning keeps the table small.  Run it\n"
      "daily, e.g. from cron, on one host of a fleet.\n",
      NULL, 0, NULL, cmd_events_prune,
      { { NULL } } },
    { "entity", "add", NULL,
      "register an object another service owns",
      "Registers object N of type TYPE (instance, volume, nodebalancer,\n"
      "image, stackscript, vpc, monitoring; or linode and longview, the\n"
      "public API's names), owned by another service, as an entity of\n"
      "account ID, and prints N.  Registered objects can be tagged\n"
      "(instances, volumes, node balancers) and granted to restricted\n"
      "users.  A type and id name one object: registering it twice fails.\n",
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
      "monitoring_subscription (true or false).  The public API's names\n"
      "add_linodes, add_longview and longview_subscription are taken too.\n",
      GRANT_NOTE, 0, check_grant_global, cmd_grant_global,
      { { "--user", "USER", 1, "uid or username of the grantee" },
        { NULL } } },
    { "grant", "entity", NULL,
      "set a restricted user's permissions on an entity",
      "Sets what a user may do with entity N of type TYPE (domain,\n"
      "database, or a registered type: instance, volume, nodebalancer,\n"
      "image, stackscript, vpc, monitoring; or linode and longview, the\n"
      "public API's names), which must belong to the user's account.\n"
      "PERMISSIONS none takes the grant away.\n",
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
            const char *w = o->arg ? apr_pstrcat(pool, o->name, " ", o->arg,
                                                 NULL)
                                   : o->name;

            /* A wider option gets its help on the next line, in the
             * column, rather than pushing it out of line. */
            if (strlen(w) > 22) {
                fprintf(out, "  %s\n%25s%s\n", w, "", o->help);
            }
            else {
                fprintf(out, "  %-22s %s\n", w, o->help);
            }
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
        return admin_usage_error(NULL, "unknown command '%s'", argv[0]);
    }
    if (argc == 1) {
        print_group_help(stdout, pool, argv[0]);
        return ADMIN_OK;
    }
    if (!cmd->name || argc > 2) {
        return admin_usage_error(NULL, "unexpected argument '%s' to help",
                                 argv[cmd->name ? 2 : 1]);
    }
    if (!(cmd = find_command(argv[0], argv[1]))) {
        return admin_usage_error(argv[0], "unknown %s command '%s'", argv[0],
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
        return admin_usage_error(topic, "unknown option '%.*s'", (int)len, arg);
    }
    if (values[k]) {
        return admin_usage_error(topic, "option %s given twice", opts[k].name);
    }
    if (!opts[k].arg) {
        if (eq) {
            return admin_usage_error(topic, "option %s takes no value",
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
        return admin_usage_error(topic, "option %s needs a value (%s)",
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
            return admin_usage_error(c->topic, "unexpected argument '%s'", arg);
        }
    }
    c->positional = c->positionals[0];
    for (k = 0; cmd->opts[k].name; k++) {
        if (cmd->opts[k].required && !c->values[k]) {
            return admin_usage_error(c->topic, "missing %s %s", cmd->opts[k].name,
                                     cmd->opts[k].arg);
        }
    }
    if (c->npositional < positional_count(cmd)) {
        return admin_usage_error(c->topic, "missing %s",
                                 positional_word(c->pool, cmd, c->npositional));
    }
    return ADMIN_OK;
}

/* ------------------------------------------------------------------------
 * Running a command
 */

/* Neither migrate nor anything else may touch a schema it does not know. */
int admin_schema_too_new(int have, int latest)
{
    return admin_failure("database schema is at version %d, newer than this build "
                         "(%d): use a newer " NAME, have, latest);
}

int admin_check_schema(admin_ctx *c)
{
    int have = 0, latest = acct_schema_latest();
    acct_store_rc rc = acct_schema_version(c->st, c->pool, &have);

    if (rc != ACCT_STORE_OK) {
        return admin_store_failure("read the schema version", rc);
    }
    if (have > latest) {
        return admin_schema_too_new(have, latest);
    }
    if (have != latest) {
        return admin_failure("database schema is at version %d, this build needs "
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
        return admin_store_failure("begin a transaction", rc);
    }
    status = admin_check_schema(c);
    if (status == ADMIN_OK) {
        status = c->cmd->run(c);
    }
    if (status == ADMIN_OK) {
        status = admin_emit(c->out);
    }
    if (status == ADMIN_OK) {
        rc = acct_store_commit(c->st, c->pool);
        if (rc != ACCT_STORE_OK) {
            status = admin_store_failure("commit the transaction", rc);
        }
    }
    if (status != ADMIN_OK && acct_store_in_tx(c->st)) {
        acct_store_rollback(c->st, c->pool);
    }
    return status;
}

int admin_run_words(apr_pool_t *pool, int argc, const char *const *argv)
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
        return admin_usage_error(NULL, "no command given");
    }
    if (strcmp(argv[i], "help") == 0) {
        return help_command(pool, argc - i - 1, argv + i + 1);
    }
    if (!(cmd = find_group(argv[i]))) {
        return admin_usage_error(NULL, "unknown command '%s'", argv[i]);
    }
    if (cmd->name) {
        if (i + 1 == argc) {
            return admin_usage_error(argv[i], "'%s' needs a command: %s", argv[i],
                                     subcommand_list(pool, argv[i]));
        }
        if (is_help(argv[i + 1])) {
            print_group_help(stdout, pool, argv[i]);
            return ADMIN_OK;
        }
        if (!(cmd = find_command(argv[i], argv[i + 1]))) {
            return admin_usage_error(argv[i], "unknown %s command '%s'", argv[i],
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
        return status == ADMIN_OK ? admin_emit(c.out) : status;
    }

    driver = globals[0] ? globals[0] : getenv("ACCTAPI_DB_DRIVER");
    params = globals[1] ? globals[1] : getenv("ACCTAPI_DB_PARAMS");
    if (!driver || !*driver) {
        return admin_usage_error(NULL, "no database driver: use --db-driver or set "
                                 "ACCTAPI_DB_DRIVER");
    }
    if (strcmp(driver, "sqlite3") != 0 && strcmp(driver, "pgsql") != 0) {
        return admin_usage_error(NULL, "unknown database driver '%s' (sqlite3 or "
                                 "pgsql)", driver);
    }
    if (!params || !*params) {
        return admin_usage_error(NULL, "no database parameters: use --db-params or "
                                 "set ACCTAPI_DB_PARAMS");
    }

    rc = admin_store_open(&c.st, pool, driver, params, &error);
    if (rc != ACCT_STORE_OK) {
        return admin_failure("cannot open the database: %s",
                             error ? squash_whitespace(apr_pstrdup(pool, error))
                             : "unknown error");
    }
    c.real_now = acct_epoch(apr_time_now());

    if (cmd->own_transactions) {
        status = cmd->run(&c);
        return status == ADMIN_OK ? admin_emit(c.out) : status;
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

    status = admin_run_words(pool, argc, argv);
    if ((fflush(stdout) != 0 || ferror(stdout)) && status == ADMIN_OK) {
        status = admin_failure("cannot write to standard output");
    }
    /* Closes the database before apr_terminate tears APR down. */
    apr_pool_destroy(pool);
    return status;
}
