#include "acctapi_config.h"

#include "http_core.h"

#include <apr_strings.h>

void *acctapi_create_dir_conf(apr_pool_t *pool, char *dir)
{
    acctapi_dir_conf *c = apr_pcalloc(pool, sizeof(*c));

    c->max_body = -1;
    c->test_clock = -1;
    c->catalog_ttl = -1;
    c->referral_url = NULL;
    return c;
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
    return c;
}

void acctapi_conf_settings(const acctapi_dir_conf *conf, acct_settings *out,
                           apr_off_t *max_body)
{
    out->test_clock = conf->test_clock > 0;
    out->catalog_ttl = conf->catalog_ttl >= 0
                       ? conf->catalog_ttl
                       : apr_time_from_sec(ACCTAPI_DEFAULT_CATALOG_TTL_SEC);
    out->referral_url = conf->referral_url ? conf->referral_url
                                           : ACCTAPI_DEFAULT_REFERRAL_URL;
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

const command_rec acctapi_cmds[] = {
    AP_INIT_TAKE1("AcctapiMaxBodySize", set_max_body, NULL, OR_ALL,
                  "Largest request body accepted, in bytes (default 1048576); "
                  "larger bodies are answered 413"),
    AP_INIT_FLAG("AcctapiTestClock", set_test_clock, NULL, OR_ALL,
                 "On: honour the fleet-wide test clock offset stored in the "
                 "database (acctapi-admin clock); never in production "
                 "(default Off)"),
    AP_INIT_TAKE1("AcctapiCatalogCacheTTL", set_catalog_ttl, NULL, OR_ALL,
                  "Seconds a child keeps its copy of the regions, compute "
                  "types and engines catalogues (default 60; 0 disables)"),
    AP_INIT_TAKE1("AcctapiReferralURL", set_referral_url, NULL, OR_ALL,
                  "Prefix of the referral URL shown in profiles"),
    {NULL}
};
