/*
 * acctapi-admin's database set-status: how an orchestrator (or a test)
 * moves a managed database through its statuses.
 */
#include "config.h"

#include <apr_strings.h>

#include "acct_dns.h"
#include "acct_store.h"

#include "admin.h"

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

int check_database_set_status(admin_ctx *c)
{
    const char *id = c->positionals[0], *status = c->positionals[1];
    int rc;

    if (acct_parse_i64(id, &c->id) < 0 || c->id <= 0) {
        return usage_error(c->topic, "ID expects a database id, not '%s'",
                           id);
    }
    if (word_index(database_statuses, status) < 0) {
        return usage_error(c->topic, "invalid status '%s' (one of %s)", status,
                           word_list(c->pool, database_statuses));
    }
    rc = check_host_opt(c, "--primary");
    return rc == ADMIN_OK ? check_host_opt(c, "--secondary") : rc;
}

int cmd_database_set_status(admin_ctx *c)
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
