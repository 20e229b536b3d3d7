#include "acctapi_config.h"
#include "acct_dns.h"
#include "acct_time.h"

#include "http_core.h"

#include <apr_file_io.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <string.h>
#include <strings.h>

#include <apr_strings.h>

void *acctapi_create_dir_conf(apr_pool_t *pool, char *dir)
{
    acctapi_dir_conf *c = apr_pcalloc(pool, sizeof(*c));

    c->max_body = -1;
    c->test_clock = -1;
    c->catalog_ttl = -1;
    c->referral_url = NULL;
    c->db_external = -1;
    c->db_provision_min = c->db_provision_max = -1;
    c->db_operation = -1;
    c->transfer_timeout = -1;
    c->rate_lists = c->rate_others = -1;
    c->rate_in_database = -1;
    c->db_timeout = -1;
    c->max_tokens = -1;
    return c;
}

void *acctapi_create_srv_conf(apr_pool_t *pool, server_rec *s)
{
    acctapi_srv_conf *c = apr_pcalloc(pool, sizeof(*c));

    (void)s;
    c->header_wait = -1;
    return c;
}

void *acctapi_merge_srv_conf(apr_pool_t *pool, void *basev, void *addv)
{
    const acctapi_srv_conf *base = basev, *add = addv;
    acctapi_srv_conf *c = apr_pcalloc(pool, sizeof(*c));

    c->header_wait = add->header_wait >= 0 ? add->header_wait
                                           : base->header_wait;
    return c;
}

apr_interval_time_t acctapi_conf_header_wait(const acctapi_srv_conf *conf)
{
    return conf->header_wait >= 0
           ? conf->header_wait
           : apr_time_from_sec(ACCTAPI_DEFAULT_HEADER_WAIT_SEC);
}

void *acctapi_merge_dir_conf(apr_pool_t *pool, void *basev, void *addv)
{
    const acctapi_dir_conf *base = basev, *add = addv;
    acctapi_dir_conf *c = apr_pcalloc(pool, sizeof(*c));

    c->max_body = add->max_body >= 0 ? add->max_body : base->max_body;
    c->test_clock = add->test_clock >= 0 ? add->test_clock : base->test_clock;
    c->catalog_ttl = add->catalog_ttl >= 0 ? add->catalog_ttl
                                           : base->catalog_ttl;
    c->referral_url = add->referral_url ? add->referral_url
                                        : base->referral_url;
    c->seal_key = add->seal_key ? add->seal_key : base->seal_key;
    c->sms_command = add->sms_command ? add->sms_command : base->sms_command;
    c->nameservers = add->nameservers ? add->nameservers : base->nameservers;
    c->db_external = add->db_external >= 0 ? add->db_external
                                           : base->db_external;
    if (add->db_provision_min >= 0) {
        c->db_provision_min = add->db_provision_min;
        c->db_provision_max = add->db_provision_max;
    }
    else {
        c->db_provision_min = base->db_provision_min;
        c->db_provision_max = base->db_provision_max;
    }
    c->db_operation = add->db_operation >= 0 ? add->db_operation
                                             : base->db_operation;
    c->db_host_suffix = add->db_host_suffix ? add->db_host_suffix
                                            : base->db_host_suffix;
    c->transfer_sources = add->transfer_sources ? add->transfer_sources
                                                : base->transfer_sources;
    c->transfer_timeout = add->transfer_timeout >= 0 ? add->transfer_timeout
                                                     : base->transfer_timeout;
    c->zone_dir = add->zone_dir ? add->zone_dir : base->zone_dir;
    c->rate_in_database = add->rate_in_database >= 0 ? add->rate_in_database
                                                     : base->rate_in_database;
    if (add->rate_lists >= 0) {
        c->rate_lists = add->rate_lists;
        c->rate_others = add->rate_others;
    }
    else {
        c->rate_lists = base->rate_lists;
        c->rate_others = base->rate_others;
    }
    c->zone_reload_command = add->zone_reload_command
                             ? add->zone_reload_command
                             : base->zone_reload_command;
    c->db_timeout = add->db_timeout >= 0 ? add->db_timeout : base->db_timeout;
    c->max_tokens = add->max_tokens >= 0 ? add->max_tokens : base->max_tokens;
    return c;
}

static const char *const default_nameservers[] = ACCTAPI_DEFAULT_NAMESERVERS;

void acctapi_conf_settings(const acctapi_dir_conf *conf, acct_settings *out,
                           apr_off_t *max_body)
{
    out->test_clock = conf->test_clock > 0;
    out->catalog_ttl = conf->catalog_ttl >= 0
                       ? conf->catalog_ttl
                       : apr_time_from_sec(ACCTAPI_DEFAULT_CATALOG_TTL_SEC);
    out->referral_url = conf->referral_url ? conf->referral_url
                                           : ACCTAPI_DEFAULT_REFERRAL_URL;
    out->seal_key = conf->seal_key;
    out->sms_command = conf->sms_command;
    out->nameservers = conf->nameservers
                       ? (const char *const *)conf->nameservers->elts
                       : default_nameservers;
    out->db_external = conf->db_external > 0;
    out->db_provision_min = conf->db_provision_min >= 0
                            ? conf->db_provision_min
                            : ACCTAPI_DEFAULT_DB_PROVISION_MIN;
    out->db_provision_max = conf->db_provision_min >= 0
                            ? conf->db_provision_max
                            : ACCTAPI_DEFAULT_DB_PROVISION_MAX;
    out->db_operation = conf->db_operation >= 0 ? conf->db_operation
                                                : ACCTAPI_DEFAULT_DB_OPERATION;
    out->db_host_suffix = conf->db_host_suffix ? conf->db_host_suffix
                                               : ACCTAPI_DEFAULT_DB_HOST_SUFFIX;
    out->transfer_sources = conf->transfer_sources
                            ? (const char *const *)conf->transfer_sources->elts
                            : NULL;
    out->transfer_timeout = conf->transfer_timeout >= 0
                            ? conf->transfer_timeout
                            : ACCTAPI_DEFAULT_TRANSFER_TIMEOUT;
    out->zone_dir = conf->zone_dir;
    out->rate_lists = conf->rate_lists >= 0 ? conf->rate_lists
                                            : ACCTAPI_DEFAULT_RATE_LISTS;
    out->rate_others = conf->rate_lists >= 0 ? conf->rate_others
                                             : ACCTAPI_DEFAULT_RATE_OTHERS;
    out->zone_reload_command = conf->zone_reload_command;
    out->max_tokens = conf->max_tokens >= 0 ? conf->max_tokens
                                            : ACCTAPI_DEFAULT_MAX_TOKENS;
    *max_body = conf->max_body >= 0 ? conf->max_body : ACCTAPI_DEFAULT_MAX_BODY;
}

/* A whole non-negative decimal number within [min, max]. */
static const char *parse_bounded(cmd_parms *cmd, const char *arg,
                                 apr_int64_t min, apr_int64_t max,
                                 apr_int64_t *out)
{
    char *end = NULL;
    apr_int64_t v = apr_strtoi64(arg, &end, 10);

    if (!*arg || *end || v < min || v > max) {
        return apr_psprintf(cmd->pool, "%s: '%s' is not a whole number from %"
                            APR_INT64_T_FMT " to %" APR_INT64_T_FMT,
                            cmd->cmd->name, arg, min, max);
    }
    *out = v;
    return NULL;
}

static const char *set_max_body(cmd_parms *cmd, void *dconf, const char *arg)
{
    acctapi_dir_conf *c = dconf;
    apr_int64_t v = 0;
    const char *err = parse_bounded(cmd, arg, 1024, APR_INT64_C(1073741824), &v);

    if (!err) {
        c->max_body = (apr_off_t)v;
    }
    return err;
}

static const char *set_test_clock(cmd_parms *cmd, void *dconf, int on)
{
    ((acctapi_dir_conf *)dconf)->test_clock = on;
    return NULL;
}

static const char *set_catalog_ttl(cmd_parms *cmd, void *dconf,
                                   const char *arg)
{
    acctapi_dir_conf *c = dconf;
    apr_int64_t v = 0;
    const char *err = parse_bounded(cmd, arg, 0, 86400, &v);

    if (!err) {
        c->catalog_ttl = apr_time_from_sec(v);
    }
    return err;
}

static const char *set_referral_url(cmd_parms *cmd, void *dconf,
                                    const char *arg)
{
    if (!*arg) {
        return "AcctapiReferralURL: the URL prefix may not be empty";
    }
    ((acctapi_dir_conf *)dconf)->referral_url = arg;
    return NULL;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * The key that seals secrets at rest: a file holding 64 hexadecimal digits
 * (openssl rand -hex 32), read once at startup by the parent, so it can be
 * readable by root only.
 */
static const char *set_secret_key_file(cmd_parms *cmd, void *dconf,
                                       const char *arg)
{
    const char *path = ap_server_root_relative(cmd->pool, arg);
    unsigned char *key = apr_pcalloc(cmd->pool, ACCT_SEAL_KEY_LEN);
    char buf[ACCT_SEAL_KEY_LEN * 2 + 3];
    apr_file_t *f = NULL;
    apr_size_t n = sizeof(buf) - 1;
    apr_status_t rv;
    size_t i, len;

    if (!path) {
        return apr_psprintf(cmd->pool, "AcctapiSecretKeyFile: bad path '%s'", arg);
    }
    rv = apr_file_open(&f, path, APR_FOPEN_READ, 0, cmd->temp_pool);
    if (rv == APR_SUCCESS) {
        rv = apr_file_read(f, buf, &n);
        apr_file_close(f);
    }
    if (rv != APR_SUCCESS && rv != APR_EOF) {
        return apr_psprintf(cmd->pool, "AcctapiSecretKeyFile: cannot read %s: "
                            "%pm", path, &rv);
    }
    buf[n] = '\0';
    for (len = n; len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r');
         len--) {
    }
    if (len != ACCT_SEAL_KEY_LEN * 2) {
        return apr_psprintf(cmd->pool, "AcctapiSecretKeyFile: %s must hold "
                            "exactly %d hexadecimal digits (openssl rand -hex "
                            "32)", path, ACCT_SEAL_KEY_LEN * 2);
    }
    for (i = 0; i < ACCT_SEAL_KEY_LEN; i++) {
        int hi = hexval(buf[2 * i]), lo = hexval(buf[2 * i + 1]);

        if (hi < 0 || lo < 0) {
            return apr_psprintf(cmd->pool, "AcctapiSecretKeyFile: %s holds a "
                                "character that is not hexadecimal", path);
        }
        key[i] = (unsigned char)(hi * 16 + lo);
    }
    memset(buf, 0, sizeof(buf));
    ((acctapi_dir_conf *)dconf)->seal_key = key;
    return NULL;
}

static const char *set_sms_command(cmd_parms *cmd, void *dconf,
                                   const char *arg)
{
    if (!*arg) {
        return "AcctapiSmsCommand: the command may not be empty";
    }
    ((acctapi_dir_conf *)dconf)->sms_command = arg;
    return NULL;
}

/*
 * Each argument is one nameserver's host name; the list is kept
 * NULL-terminated so the core can walk it without a count.
 */
static const char *add_nameserver(cmd_parms *cmd, void *dconf, const char *arg)
{
    acctapi_dir_conf *c = dconf;
    size_t n = strlen(arg);
    const char *name = n && arg[n - 1] == '.' ? apr_pstrndup(cmd->pool, arg, n - 1)
                                              : arg;

    if (!acct_dns_name_valid(name, 0)) {
        return apr_psprintf(cmd->pool, "AcctapiNameservers: '%s' is not a host "
                            "name", arg);
    }
    if (!c->nameservers) {
        c->nameservers = apr_array_make(cmd->pool, 4, sizeof(const char *));
    }
    else {
        apr_array_pop(c->nameservers); /* the NULL terminator */
    }
    APR_ARRAY_PUSH(c->nameservers, const char *) = name;
    APR_ARRAY_PUSH(c->nameservers, const char *) = NULL;
    return NULL;
}

/*
 * Each argument is a local IPv4 or IPv6 address that zone transfers
 * (POST /domains/import) bind to; a transfer to a server of one family uses
 * the address of that family.  NULL-terminated like the nameservers.
 */
static const char *add_transfer_source(cmd_parms *cmd, void *dconf,
                                       const char *arg)
{
    acctapi_dir_conf *c = dconf;
    unsigned char addr[16];

    if (inet_pton(AF_INET, arg, addr) != 1
        && inet_pton(AF_INET6, arg, addr) != 1) {
        return apr_psprintf(cmd->pool, "AcctapiTransferSource: '%s' is not an "
                            "IPv4 or IPv6 address", arg);
    }
    if (!c->transfer_sources) {
        c->transfer_sources = apr_array_make(cmd->pool, 2, sizeof(const char *));
    }
    else {
        apr_array_pop(c->transfer_sources); /* the NULL terminator */
    }
    APR_ARRAY_PUSH(c->transfer_sources, const char *) = arg;
    APR_ARRAY_PUSH(c->transfer_sources, const char *) = NULL;
    return NULL;
}

static const char *set_transfer_timeout(cmd_parms *cmd, void *dconf,
                                        const char *arg)
{
    return parse_bounded(cmd, arg, 1, 300,
                         &((acctapi_dir_conf *)dconf)->transfer_timeout);
}

int acctapi_conf_rate_in_database(const acctapi_dir_conf *conf)
{
    return conf->rate_in_database > 0;
}

apr_interval_time_t acctapi_conf_db_timeout(const acctapi_dir_conf *conf)
{
    return conf->db_timeout >= 0
           ? conf->db_timeout
           : apr_time_from_sec(ACCTAPI_DEFAULT_DB_TIMEOUT_SEC);
}

/* Seconds, or milliseconds with "ms": from 100 ms to 5 minutes. */
static const char *set_db_timeout(cmd_parms *cmd, void *dconf, const char *arg)
{
    apr_size_t len = strlen(arg);
    int millis = len > 2 && strcmp(arg + len - 2, "ms") == 0;
    char *end = NULL;
    apr_int64_t v = apr_strtoi64(arg, &end, 10);
    apr_int64_t ms = millis ? v : v * 1000;

    if (!*arg || !end || end != arg + len - (millis ? 2 : 0) || v < 0
        || ms < 100 || ms > 300 * 1000) {
        return apr_psprintf(cmd->pool, "AcctapiDatabaseTimeout: '%s' is not "
                            "a duration from 100ms to 300 (seconds)", arg);
    }
    ((acctapi_dir_conf *)dconf)->db_timeout = apr_time_from_msec(ms);
    return NULL;
}

/* Where the rate-limit counters live: node (shared memory) or database. */
static const char *set_rate_scope(cmd_parms *cmd, void *dconf,
                                  const char *arg)
{
    acctapi_dir_conf *c = dconf;

    (void)cmd;
    if (strcasecmp(arg, "node") == 0) {
        c->rate_in_database = 0;
    }
    else if (strcasecmp(arg, "database") == 0) {
        c->rate_in_database = 1;
    }
    else {
        return "AcctapiRateLimitScope: node (this server's children count "
               "together) or database (every node sharing the database does)";
    }
    return NULL;
}

/* "off", or the two budgets per minute: paginated list GETs, then others. */
static const char *set_rate_limit(cmd_parms *cmd, void *dconf,
                                  const char *lists, const char *others)
{
    acctapi_dir_conf *c = dconf;
    apr_int64_t l, o;
    const char *err;

    if (strcasecmp(lists, "off") == 0 && !others) {
        c->rate_lists = c->rate_others = 0;
        return NULL;
    }
    if (!others) {
        return "AcctapiRateLimit: 'off', or two numbers: list requests and "
               "other requests per minute";
    }
    err = parse_bounded(cmd, lists, 1, APR_INT64_C(100000000), &l);
    if (!err) {
        err = parse_bounded(cmd, others, 1, APR_INT64_C(100000000), &o);
    }
    if (!err) {
        c->rate_lists = l;
        c->rate_others = o;
    }
    return err;
}

/* The cap on a user's active personal access tokens; the operator's
 * acctapi-admin token create is not bound by it. */
static const char *set_max_tokens(cmd_parms *cmd, void *dconf, const char *arg)
{
    return parse_bounded(cmd, arg, 1, APR_INT64_C(1000000),
                         &((acctapi_dir_conf *)dconf)->max_tokens);
}

/* An absolute directory that exists when the configuration is read. */
static const char *set_zone_dir(cmd_parms *cmd, void *dconf, const char *arg)
{
    const char *dir = ap_server_root_relative(cmd->pool, arg);
    apr_finfo_t info;

    if (!dir || apr_stat(&info, dir, APR_FINFO_TYPE, cmd->pool) != APR_SUCCESS
        || info.filetype != APR_DIR) {
        return apr_psprintf(cmd->pool, "AcctapiZoneDir: '%s' is not a "
                            "directory", arg);
    }
    ((acctapi_dir_conf *)dconf)->zone_dir = dir;
    return NULL;
}

static const char *set_zone_reload_command(cmd_parms *cmd, void *dconf,
                                           const char *arg)
{
    if (!*arg) {
        return "AcctapiZoneReloadCommand: the command is empty";
    }
    ((acctapi_dir_conf *)dconf)->zone_reload_command = arg;
    return NULL;
}

static const char *set_db_backend(cmd_parms *cmd, void *dconf, const char *arg)
{
    acctapi_dir_conf *c = dconf;

    if (strcasecmp(arg, "emulate") == 0) {
        c->db_external = 0;
    }
    else if (strcasecmp(arg, "external") == 0) {
        c->db_external = 1;
    }
    else {
        return "AcctapiDatabaseBackend: must be 'emulate' or 'external'";
    }
    return NULL;
}

/* A duration as acctapi-admin reads it: 90s, 30m, 2h, 1d, or seconds. */
static const char *parse_seconds(cmd_parms *cmd, const char *arg,
                                 apr_int64_t *out)
{
    if (acct_parse_duration(arg, out) != 0 || *out < 0 || *out > 7 * 86400) {
        return apr_psprintf(cmd->pool, "%s: '%s' is not a duration from 0s to "
                            "7d (e.g. 90s, 30m, 2h)", cmd->cmd->name, arg);
    }
    return NULL;
}

static const char *set_db_provision(cmd_parms *cmd, void *dconf,
                                    const char *min, const char *max)
{
    acctapi_dir_conf *c = dconf;
    apr_int64_t lo, hi;
    const char *err = parse_seconds(cmd, min, &lo);

    if (!err) {
        err = max ? parse_seconds(cmd, max, &hi) : NULL;
        hi = max ? hi : lo;
    }
    if (!err && hi < lo) {
        err = "AcctapiDatabaseProvisionTime: the maximum is below the minimum";
    }
    if (!err) {
        c->db_provision_min = lo;
        c->db_provision_max = hi;
    }
    return err;
}

static const char *set_db_operation(cmd_parms *cmd, void *dconf,
                                    const char *arg)
{
    return parse_seconds(cmd, arg, &((acctapi_dir_conf *)dconf)->db_operation);
}

static const char *set_db_host_suffix(cmd_parms *cmd, void *dconf,
                                      const char *arg)
{
    if (!acct_dns_name_valid(arg, 0)) {
        return "AcctapiDatabaseHostSuffix: must be a domain name";
    }
    ((acctapi_dir_conf *)dconf)->db_host_suffix = arg;
    return NULL;
}

/* Seconds (1 to 300), or off. */
static const char *set_header_wait(cmd_parms *cmd, void *dconf,
                                   const char *arg)
{
    acctapi_srv_conf *c = ap_get_module_config(cmd->server->module_config,
                                               &acctapi_module);
    apr_int64_t secs;
    const char *err;

    (void)dconf;
    if (strcasecmp(arg, "off") == 0) {
        c->header_wait = 0;
        return NULL;
    }
    if ((err = parse_bounded(cmd, arg, 1, 300, &secs)) != NULL) {
        return err;
    }
    c->header_wait = apr_time_from_sec(secs);
    return NULL;
}

/* Never .htaccess: these choose keys, programs and limits of the server. */
#define ACCTAPI_CONTEXT (RSRC_CONF | ACCESS_CONF)

const command_rec acctapi_cmds[] = {
    AP_INIT_TAKE1("AcctapiMaxBodySize", set_max_body, NULL, ACCTAPI_CONTEXT,
                  "Largest request body accepted, in bytes (default 1048576); "
                  "larger bodies are answered 413"),
    AP_INIT_FLAG("AcctapiTestClock", set_test_clock, NULL, ACCTAPI_CONTEXT,
                 "On: honour the fleet-wide test clock offset stored in the "
                 "database (acctapi-admin clock); never in production "
                 "(default Off)"),
    AP_INIT_TAKE1("AcctapiDatabaseTimeout", set_db_timeout, NULL,
                  ACCTAPI_CONTEXT,
                  "Longest wait for the database at each step: PostgreSQL's "
                  "answer to a statement, an SQLite writer's turn; then 503 "
                  "(seconds, or milliseconds with ms; default 5)"),
    AP_INIT_TAKE1("AcctapiCatalogCacheTTL", set_catalog_ttl, NULL, ACCTAPI_CONTEXT,
                  "Seconds a child keeps its copy of the regions, compute "
                  "types and engines catalogues (default 60; 0 disables)"),
    AP_INIT_TAKE1("AcctapiReferralURL", set_referral_url, NULL, ACCTAPI_CONTEXT,
                  "Prefix of the referral URL shown in profiles"),
    AP_INIT_TAKE1("AcctapiSecretKeyFile", set_secret_key_file, NULL,
                  ACCTAPI_CONTEXT,
                  "File of 64 hex digits: the AES-256 key that seals "
                  "two-factor secrets and security answers at rest"),
    AP_INIT_TAKE1("AcctapiDatabaseBackend", set_db_backend, NULL,
                  ACCTAPI_CONTEXT,
                  "emulate (default): database lifecycles advance by "
                  "themselves after the configured durations; external: an "
                  "orchestrator drives them through acctapi-admin"),
    AP_INIT_TAKE12("AcctapiDatabaseProvisionTime", set_db_provision, NULL,
                   ACCTAPI_CONTEXT,
                   "How long provisioning takes: MIN [MAX] (default 15m 30m)"),
    AP_INIT_TAKE1("AcctapiDatabaseOperationTime", set_db_operation, NULL,
                  ACCTAPI_CONTEXT,
                  "How long updates, backups, restores, patches and "
                  "credential resets take (default 3m)"),
    AP_INIT_TAKE1("AcctapiDatabaseHostSuffix", set_db_host_suffix, NULL,
                  ACCTAPI_CONTEXT,
                  "Domain under which database hosts are named (default "
                  "db.example.com)"),
    AP_INIT_ITERATE("AcctapiNameservers", add_nameserver, NULL, ACCTAPI_CONTEXT,
                    "Host names of the nameservers that serve the hosted "
                    "zones: the NS records of every zone file"),
    AP_INIT_ITERATE("AcctapiTransferSource", add_transfer_source, NULL,
                    ACCTAPI_CONTEXT,
                    "Local IPv4 and/or IPv6 addresses that zone transfers "
                    "(domain import) are made from (default: any)"),
    AP_INIT_TAKE1("AcctapiRateLimitScope", set_rate_scope, NULL, ACCTAPI_CONTEXT,
                  "Where rate-limit counters live: node (this server's shared "
                  "memory, the default) or database (shared by every node)"),
    AP_INIT_TAKE12("AcctapiRateLimit", set_rate_limit, NULL, ACCTAPI_CONTEXT,
                   "Requests per minute per user, whichever of their tokens "
                   "is used (per client address without one): LISTS OTHERS "
                   "for paginated list GETs and for every other request "
                   "(default 200 1600), or off"),
    AP_INIT_TAKE1("AcctapiMaxTokensPerUser", set_max_tokens, NULL,
                  ACCTAPI_CONTEXT,
                  "Active (unexpired, unrevoked) personal access tokens a "
                  "user may hold before POST /profile/tokens is refused "
                  "(1 to 1000000, default 100)"),
    AP_INIT_TAKE1("AcctapiHeaderWait", set_header_wait, NULL, RSRC_CONF,
                  "Seconds a request header may take to arrive while its "
                  "connection waits in the event MPM's poll set instead of "
                  "holding a worker thread (1 to 300, default 20), or off: "
                  "httpd reads every header with a blocking worker"),
    AP_INIT_TAKE1("AcctapiTransferTimeout", set_transfer_timeout, NULL,
                  ACCTAPI_CONTEXT,
                  "Seconds a whole zone transfer may take, from connecting to "
                  "the last message (1 to 300, default 10)"),
    AP_INIT_TAKE1("AcctapiZoneDir", set_zone_dir, NULL, ACCTAPI_CONTEXT,
                  "Directory where every active master zone is published as "
                  "<zone>.zone, with zones.conf, a BIND include declaring "
                  "every active zone (default: no publishing)"),
    AP_INIT_TAKE1("AcctapiZoneReloadCommand", set_zone_reload_command, NULL,
                  ACCTAPI_CONTEXT,
                  "Program (with arguments) run in the background after the "
                  "published zones change: with the zone's name appended when "
                  "only its file changed, with nothing appended when "
                  "zones.conf changed, e.g. rndc reload (default: none)"),
    AP_INIT_TAKE1("AcctapiSmsCommand", set_sms_command, NULL, ACCTAPI_CONTEXT,
                  "Program (with arguments) run to send a text message; the "
                  "phone number and the message are appended as two more "
                  "arguments"),
    {NULL}
};
