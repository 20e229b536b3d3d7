#include "httpd.h"
#include "http_config.h"

#include "acctapi_config.h"
#include "acctapi_request.h"

acctapi_ctx *acctapi_ctx_get(request_rec *r)
{
    return ap_get_module_config(r->request_config, &acctapi_module);
}

acctapi_ctx *acctapi_ctx_attach(request_rec *r)
{
    acctapi_ctx *ctx = apr_pcalloc(r->pool, sizeof(*ctx));
    acctapi_dir_conf *conf = ap_get_module_config(r->per_dir_config,
                                                  &acctapi_module);

    acctapi_conf_settings(conf, &ctx->settings);
    ctx->max_body = acctapi_conf_max_body(conf);
    ctx->rate_in_database = acctapi_conf_rate_in_database(conf);
    ctx->db_timeout = acctapi_conf_db_timeout(conf);
    ctx->now = (apr_int64_t)apr_time_sec(r->request_time);
    ap_set_module_config(r->request_config, &acctapi_module, ctx);
    return ctx;
}

int acctapi_request_route(request_rec *r, const acct_route **route)
{
    acctapi_ctx *ctx = acctapi_ctx_get(r);

    *route = ctx ? ctx->match.route : NULL;
    return ctx || (r->handler && strcmp(r->handler, ACCTAPI_HANDLER) == 0);
}
