/*
 * The directives' parsers, and everything else made from their list
 * (acctapi_directives.h): create, merge, getters, the core's settings, the
 * command table.
 */
#include "acctapi_config.h"
#include "acct_addr.h"
#include "acct_dns.h"
#include "acct_time.h"
#include "acct_valid.h"

#include "http_core.h"

#include <apr_file_io.h>
#include <arpa/inet.h>
#include <stddef.h>
#include <sys/socket.h>
#include <string.h>
#include <strings.h>

#include <apr_strings.h>

/* AcctapiNameservers unset: the list acctapi-admin zones publish uses too. */
static const char *const default_nameservers[] = ACCT_DNS_DEFAULT_NAMESERVERS;

/* ---- made from the list ------------------------------------------------- */

void *acctapi_create_dir_conf(apr_pool_t *pool, char *dir)
{
    acctapi_dir_conf *c = apr_pcalloc(pool, sizeof(*c));

    (void)dir;
#define ACCTAPI_DIR(name, field, kind, ...) c->field = ACCTAPI_UNSET_##kind;
#define ACCTAPI_SRV(...)
#include "acctapi_directives.h"
    return c;
}

void *acctapi_merge_dir_conf(apr_pool_t *pool, void *basev, void *addv)
{
    const acctapi_dir_conf *base = basev, *add = addv;
    acctapi_dir_conf *c = apr_pcalloc(pool, sizeof(*c));

#define ACCTAPI_DIR(name, field, kind, ...) \
    c->field = ACCTAPI_ISSET_##kind(add->field) ? add->field : base->field;
#define ACCTAPI_SRV(...)
#include "acctapi_directives.h"
    return c;
}

void *acctapi_create_srv_conf(apr_pool_t *pool, server_rec *s)
{
    acctapi_srv_conf *c = apr_pcalloc(pool, sizeof(*c));

    (void)s;
#define ACCTAPI_DIR(...)
#define ACCTAPI_SRV(name, field, kind, ...) c->field = ACCTAPI_UNSET_##kind;
#include "acctapi_directives.h"
    return c;
}

void *acctapi_merge_srv_conf(apr_pool_t *pool, void *basev, void *addv)
{
    const acctapi_srv_conf *base = basev, *add = addv;
    acctapi_srv_conf *c = apr_pcalloc(pool, sizeof(*c));

#define ACCTAPI_DIR(...)
#define ACCTAPI_SRV(name, field, kind, ...) \
    c->field = ACCTAPI_ISSET_##kind(add->field) ? add->field : base->field;
#include "acctapi_directives.h"
    return c;
}

#define ACCTAPI_GETTER(conf_type, field, kind, dflt)                         \
    ACCTAPI_VALUETYPE_##kind acctapi_conf_##field(const conf_type *conf)    \
    {                                                                        \
        return ACCTAPI_ISSET_##kind(conf->field)                             \
               ? ACCTAPI_VALUE_##kind(conf->field) : (dflt);                 \
    }
#define ACCTAPI_DIR(name, field, kind, dflt, ...) \
    ACCTAPI_GETTER(acctapi_dir_conf, field, kind, dflt)
#define ACCTAPI_SRV(name, field, kind, dflt, ...) \
    ACCTAPI_GETTER(acctapi_srv_conf, field, kind, dflt)
#include "acctapi_directives.h"
#undef ACCTAPI_GETTER

void acctapi_conf_settings(const acctapi_dir_conf *conf, acct_settings *out)
{
    /* The "to" column: where the effective value v goes. */
#define ACCTAPI_TO_CORE(member) out->member = v;
#define ACCTAPI_TO_CORE2(lo_member, hi_member) \
    out->lo_member = v.lo;                     \
    out->hi_member = v.hi;
#define ACCTAPI_TO_GLUE (void)v;
#define ACCTAPI_DIR(name, field, kind, dflt, to, ...)                   \
    {                                                                   \
        ACCTAPI_VALUETYPE_##kind v = acctapi_conf_##field(conf);        \
        ACCTAPI_TO_##to                                                 \
    }
#define ACCTAPI_SRV(...)
#include "acctapi_directives.h"
#undef ACCTAPI_TO_CORE
#undef ACCTAPI_TO_CORE2
#undef ACCTAPI_TO_GLUE
}

/* ---- generic parsers ---------------------------------------------------- */

typedef enum {
    ACCTAPI_KIND_NUM, ACCTAPI_KIND_BOOL, ACCTAPI_KIND_ENUM, ACCTAPI_KIND_TEXT,
    ACCTAPI_KIND_KEY, ACCTAPI_KIND_LIST, ACCTAPI_KIND_PAIR
} acctapi_kind;

/* A directive's row as its parser sees it (cmd->info): where its field is,
 * and the args column (acctapi_directives.h). */
typedef struct acctapi_directive {
    int server;              /* a field of acctapi_srv_conf */
    size_t offset;           /* of the field in its configuration */
    acctapi_kind kind;       /* of the field */
    apr_int64_t min, max;    /* set_number */
    apr_int64_t unit;        /* set_number: stored times this; 0 is 1 */
    const char *words[3];    /* set_choice: the words for 0, 1 (and 2) */
    const char *error;       /* set_choice, set_text: a bad value's error */
} acctapi_directive;

/*
 * The field a generic parser stores into.  Offsets carry no type, so the
 * parser names the kind it stores and a row that pairs it with a field of
 * another kind fails the configuration instead of writing past the field.
 */
static void *field_of(cmd_parms *cmd, void *dconf, acctapi_kind kind)
{
    const acctapi_directive *d = cmd->info;
    char *conf = d->server ? ap_get_module_config(cmd->server->module_config,
                                                  &acctapi_module)
                           : dconf;

    return d->kind == kind ? conf + d->offset : NULL;
}

static const char *wrong_kind(cmd_parms *cmd)
{
    return apr_psprintf(cmd->pool, "%s: acctapi_directives.h gives its "
                        "parser a field of another kind", cmd->cmd->name);
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

static const char *set_number(cmd_parms *cmd, void *dconf, const char *arg)
{
    const acctapi_directive *d = cmd->info;
    apr_int64_t *field = field_of(cmd, dconf, ACCTAPI_KIND_NUM), v = 0;
    const char *err;

    if (!field) {
        return wrong_kind(cmd);
    }
    if ((err = parse_bounded(cmd, arg, d->min, d->max, &v)) != NULL) {
        return err;
    }
    *field = d->unit ? v * d->unit : v;
    return NULL;
}

static const char *set_duration(cmd_parms *cmd, void *dconf, const char *arg)
{
    apr_int64_t *field = field_of(cmd, dconf, ACCTAPI_KIND_NUM);

    return field ? parse_seconds(cmd, arg, field) : wrong_kind(cmd);
}

static const char *set_text(cmd_parms *cmd, void *dconf, const char *arg)
{
    const acctapi_directive *d = cmd->info;
    const char **field = field_of(cmd, dconf, ACCTAPI_KIND_TEXT);

    if (!field) {
        return wrong_kind(cmd);
    }
    if (!*arg) {
        return d->error;
    }
    *field = arg;
    return NULL;
}

/* Two words choose a BOOL field's 0 or 1; three an ENUM field's 0, 1 or 2. */
static const char *set_choice(cmd_parms *cmd, void *dconf, const char *arg)
{
    const acctapi_directive *d = cmd->info;
    int n = d->words[2] ? 3 : 2, i;
    int *field = field_of(cmd, dconf,
                          n == 3 ? ACCTAPI_KIND_ENUM : ACCTAPI_KIND_BOOL);

    if (!field) {
        return wrong_kind(cmd);
    }
    for (i = 0; i < n; i++) {
        if (strcasecmp(arg, d->words[i]) == 0) {
            *field = i;
            return NULL;
        }
    }
    return d->error;
}

static const char *set_onoff(cmd_parms *cmd, void *dconf, int on)
{
    int *field = field_of(cmd, dconf, ACCTAPI_KIND_BOOL);

    if (!field) {
        return wrong_kind(cmd);
    }
    *field = on;
    return NULL;
}

/* ---- parsers of one directive ------------------------------------------- */

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

/* Appends to a NULL-terminated list of strings (a LIST field). */
static void list_append(apr_pool_t *pool, apr_array_header_t **list,
                        const char *item)
{
    if (!*list) {
        *list = apr_array_make(pool, 4, sizeof(const char *));
    }
    else {
        apr_array_pop(*list); /* the NULL terminator */
    }
    APR_ARRAY_PUSH(*list, const char *) = item;
    APR_ARRAY_PUSH(*list, const char *) = NULL;
}

/* Each argument is one nameserver's host name. */
static const char *add_nameserver(cmd_parms *cmd, void *dconf, const char *arg)
{
    size_t n = strlen(arg);
    const char *name = n && arg[n - 1] == '.' ? apr_pstrndup(cmd->pool, arg, n - 1)
                                              : arg;

    if (!acct_valid_dns_name(name, 0)) {
        return apr_psprintf(cmd->pool, "AcctapiNameservers: '%s' is not a host "
                            "name", arg);
    }
    list_append(cmd->pool, &((acctapi_dir_conf *)dconf)->nameservers, name);
    return NULL;
}

/*
 * Each argument is a local IPv4 or IPv6 address that zone transfers
 * (POST /domains/import) bind to; a transfer to a server of one family uses
 * the address of that family.
 */
static const char *add_transfer_source(cmd_parms *cmd, void *dconf,
                                       const char *arg)
{
    if (!acct_ip_family(arg)) {
        return apr_psprintf(cmd->pool, "AcctapiTransferSource: '%s' is not an "
                            "IPv4 or IPv6 address", arg);
    }
    list_append(cmd->pool, &((acctapi_dir_conf *)dconf)->transfer_sources, arg);
    return NULL;
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

/* "off", or the two budgets per minute: paginated list GETs, then others. */
static const char *set_rate_limit(cmd_parms *cmd, void *dconf,
                                  const char *lists, const char *others)
{
    acctapi_dir_conf *c = dconf;
    apr_int64_t l, o;
    const char *err;

    if (strcasecmp(lists, "off") == 0 && !others) {
        c->rate = ACCTAPI_PAIR(0, 0);
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
        c->rate = ACCTAPI_PAIR(l, o);
    }
    return err;
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

/* MIN [MAX]: without MAX, always MIN. */
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
        c->db_provision = ACCTAPI_PAIR(lo, hi);
    }
    return err;
}

static const char *set_db_host_suffix(cmd_parms *cmd, void *dconf,
                                      const char *arg)
{
    if (!acct_valid_dns_name(arg, 0)) {
        return "AcctapiDatabaseHostSuffix: must be a domain name";
    }
    ((acctapi_dir_conf *)dconf)->db_host_suffix = arg;
    return NULL;
}

/* A user name both engines take unquoted: a letter or underscore, then
 * letters, digits and underscores, at most 32 (MySQL's limit). */
static const char *set_db_admin_user(cmd_parms *cmd, void *dconf,
                                     const char *arg)
{
    apr_size_t n = strlen(arg);

    (void)cmd;
    if (n == 0 || n > 32 || (arg[0] >= '0' && arg[0] <= '9')
        || strspn(arg, "abcdefghijklmnopqrstuvwxyz0123456789_") != n) {
        return "AcctapiDatabaseAdminUser: 1 to 32 lowercase letters, digits "
               "and underscores, not starting with a digit";
    }
    ((acctapi_dir_conf *)dconf)->db_admin_user = arg;
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

/* ---- the command table -------------------------------------------------- */

#define ACCTAPI_UNPAREN(...) __VA_ARGS__

/* One descriptor per row: acctapi_d_<field>, the parser's cmd->info. */
#define ACCTAPI_DESCRIPTOR(srv, conf_type, field, k, args)                  \
    static const acctapi_directive acctapi_d_##field = {                    \
        .server = srv, .offset = offsetof(conf_type, field),                \
        .kind = ACCTAPI_KIND_##k, ACCTAPI_UNPAREN args};
#define ACCTAPI_DIR(name, field, kind, dflt, to, how, parser, args, help) \
    ACCTAPI_DESCRIPTOR(0, acctapi_dir_conf, field, kind, args)
#define ACCTAPI_SRV(name, field, kind, dflt, to, how, parser, args, help) \
    ACCTAPI_DESCRIPTOR(1, acctapi_srv_conf, field, kind, args)
#include "acctapi_directives.h"
#undef ACCTAPI_DESCRIPTOR

/* Never .htaccess: these choose keys, programs and limits of the server. */
#define ACCTAPI_CONTEXT (RSRC_CONF | ACCESS_CONF)

/* command_rec's cmd_data is a plain void *; httpd only hands it to the
 * parser (cmd->info), which reads it. */
const command_rec acctapi_cmds[] = {
#define ACCTAPI_DIR(name, field, kind, dflt, to, how, parser, args, help) \
    AP_INIT_##how(name, parser, (void *)&acctapi_d_##field,              \
                  ACCTAPI_CONTEXT, help),
#define ACCTAPI_SRV(name, field, kind, dflt, to, how, parser, args, help) \
    AP_INIT_##how(name, parser, (void *)&acctapi_d_##field, RSRC_CONF,   \
                  help),
#include "acctapi_directives.h"
    {NULL}
};
