/*
 * acctapi-admin's zones publish: the zone files and zones.conf of
 * AcctapiZoneDir, written from the database.
 */
#include "config.h"

#include <string.h>

#include <apr_file_info.h>
#include <apr_strings.h>
#include <apr_tables.h>

#include "acct_dns.h"
#include "acct_publish.h"
#include "acct_publish_reload.h"

#include "admin.h"
#include "acct_valid.h"

/* --nameservers into c->nameservers, validated as AcctapiNameservers is. */
static int parse_nameservers_opt(admin_ctx *c)
{
    static const char *const defaults[] = ACCT_DNS_DEFAULT_NAMESERVERS;
    const char *given = admin_opt_value(c, "--nameservers");
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
        if (!acct_valid_dns_name(name, 0)) {
            return admin_usage_error(c->topic, "'%s' is not a host name", name);
        }
        APR_ARRAY_PUSH(list, const char *) = name;
    }
    if (list->nelts == 0) {
        return admin_usage_error(c->topic, "--nameservers names no nameserver");
    }
    APR_ARRAY_PUSH(list, const char *) = NULL;
    c->nameservers = (const char *const *)list->elts;
    return ADMIN_OK;
}

/* zones.conf names the files by DIR as given: it must be absolute. */
int check_zones_publish(admin_ctx *c)
{
    if (c->positional[0] != '/') {
        return admin_usage_error(c->topic, "DIR must be an absolute path (zones.conf "
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
int cmd_zones_publish(admin_ctx *c)
{
    const char *dir = c->positional;
    const char *reload = admin_opt_value(c, "--reload-command");
    acct_publish_summary sum;
    apr_finfo_t info;
    int status;

    if (apr_stat(&info, dir, APR_FINFO_TYPE, c->pool) != APR_SUCCESS
        || info.filetype != APR_DIR) {
        return admin_failure("cannot publish the zones: '%s' is not a directory",
                             dir);
    }
    if ((status = admin_check_schema(c)) != ADMIN_OK) {
        return status;
    }
    if (acct_publish_all(c->st, c->pool, dir, c->nameservers, &sum) != 0) {
        return admin_failure("cannot publish the zones to %s", dir);
    }
    c->out = apr_psprintf(c->pool, "%d master zones (%d written), %d slave "
                          "zones, %d files removed, " ACCT_PUBLISH_INCLUDE
                          " %s\n", sum.masters, sum.written, sum.slaves,
                          sum.removed,
                          sum.include_written ? "written" : "unchanged");
    if (sum.failed > 0) {
        admin_emit(c->out);
        return admin_failure("%d files in %s could not be written or removed",
                             sum.failed, dir);
    }
    if (reload && acct_publish_reload(c->pool, dir, reload, NULL) != 0) {
        admin_emit(c->out);
        return admin_failure("the reload command failed");
    }
    return ADMIN_OK;
}
