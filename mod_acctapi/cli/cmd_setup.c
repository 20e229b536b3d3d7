/*
 * acctapi-admin's setup commands: routes (the table this build serves),
 * migrate (the schema) and account create.
 */
#include "config.h"

#include <apr_strings.h>

#include "acct_ident.h"
#include "acct_migrate.h"
#include "acct_router.h"
#include "acct_store.h"

#include "admin.h"

/* The route table the module serves, one route a line, tab-separated. */
int cmd_routes(admin_ctx *c)
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
                          (r->flags & ACCT_ROUTE_TOKEN_OPTIONAL)
                          ? " token-optional" : "",
                          "\n", NULL);
    }
    c->out = out;
    return ADMIN_OK;
}

int cmd_migrate(admin_ctx *c)
{
    int have = 0, from = 0, to = 0, latest = acct_schema_latest();
    acct_store_rc rc;

    rc = acct_schema_version(c->st, c->pool, &have);
    if (rc != ACCT_STORE_OK) {
        return admin_store_failure("read the schema version", rc);
    }
    if (have > latest) {
        return admin_schema_too_new(have, latest);
    }
    rc = acct_migrate(c->st, c->pool, &from, &to);
    if (rc != ACCT_STORE_OK) {
        return admin_store_failure("migrate the schema", rc);
    }
    c->out = apr_psprintf(c->pool, "schema at version %d (was %d)\n", to,
                          from);
    return ADMIN_OK;
}

/* --owner and --owner-email name one user; the --token-* options need
 * that user (check_token_opts). */
int check_account_create(admin_ctx *c)
{
    int owner = admin_opt_value(c, "--owner") != NULL;

    if (owner != (admin_opt_value(c, "--owner-email") != NULL)) {
        return admin_usage_error(c->topic, "--owner and --owner-email go together");
    }
    if (!owner && admin_opt_value(c, "--token-scopes")) {
        return admin_usage_error(c->topic, "--token-scopes needs --owner");
    }
    return check_token_opts(c);
}

int cmd_account_create(admin_ctx *c)
{
    acct_ident_result res = { ACCT_STORE_OK, NULL };
    apr_int64_t now, id;
    acct_ident_rc rc;
    int status;

    if ((status = admin_read_now(c, &now)) != ADMIN_OK
        || (status = check_token_expiry(c, now)) != ADMIN_OK) {
        return status;
    }
    rc = acct_account_create(c->st, c->pool, admin_opt_value(c, "--name"), now,
                             &id, &res);
    if (rc != ACCT_IDENT_OK) {
        return admin_ident_failure(c, rc, &res, "create the account", NULL, NULL);
    }
    c->out = apr_psprintf(c->pool, "%" APR_INT64_T_FMT "\n", id);
    if (!admin_opt_value(c, "--owner")) {
        return ADMIN_OK;
    }
    /* The account's first user, unrestricted, in the same transaction: a
     * taken username leaves no account behind. */
    return create_user_with_token(c, id, admin_opt_value(c, "--owner"),
                                  admin_opt_value(c, "--owner-email"), 0, now);
}
