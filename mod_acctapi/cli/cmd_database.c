/*
 * acctapi-admin's database set-status: how an orchestrator (or a test)
 * moves a managed database through its statuses.
 */
#include "config.h"

#include <apr_strings.h>

#include "acct_db.h"
#include "acct_dns.h"
#include "acct_store.h"

#include "admin.h"
#include "acct_valid.h"

static int check_host_opt(admin_ctx *c, const char *name)
{
    const char *host = admin_opt_value(c, name);

    if (host && !acct_valid_dns_name(host, 0)) {
        return admin_usage_error(c->topic, "invalid %s '%s' (expected a host name "
                                 "such as db1.example.net)", name, host);
    }
    return ADMIN_OK;
}

int check_database_set_status(admin_ctx *c)
{
    const char *id = c->positionals[0], *status = c->positionals[1];
    int rc;

    if (acct_parse_i64(id, &c->id) < 0 || c->id <= 0) {
        return admin_usage_error(c->topic, "ID expects a database id, not '%s'",
                                 id);
    }
    if (!acct_db_status_known(status)) {
        return admin_usage_error(c->topic, "invalid status '%s' (one of %s)", status,
                                 admin_word_list(c->pool, acct_db_statuses));
    }
    rc = check_host_opt(c, "--primary");
    return rc == ADMIN_OK ? check_host_opt(c, "--secondary") : rc;
}

int cmd_database_set_status(admin_ctx *c)
{
    acct_store_rc rc;
    apr_int64_t now;
    int status, changed = 0;

    if ((status = admin_read_now(c, &now)) != ADMIN_OK) {
        return status;
    }
    rc = acct_db_set_status(c->st, c->pool, c->id, c->positionals[1],
                            admin_opt_value(c, "--primary"),
                            admin_opt_value(c, "--secondary"), now, &changed);
    if (rc != ACCT_STORE_OK) {
        return admin_store_failure("set the database's status", rc);
    }
    if (!changed) {
        return admin_failure("cannot set the database's status: no database with "
                             "id %" APR_INT64_T_FMT, c->id);
    }
    c->out = apr_pstrcat(c->pool, c->positionals[1], "\n", NULL);
    return ADMIN_OK;
}
