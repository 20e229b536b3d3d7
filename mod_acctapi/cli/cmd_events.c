/*
 * acctapi-admin's events prune: deletes the events the API no longer shows
 * (older than the retention by the clock, test clock included).
 */
#include "config.h"

#include <apr_strings.h>

#include "acct_event.h"
#include "acct_store.h"

#include "admin.h"

int cmd_events_prune(admin_ctx *c)
{
    acct_store_rc rc;
    apr_int64_t now;
    int status, deleted = 0;

    if ((status = admin_read_now(c, &now)) != ADMIN_OK) {
        return status;
    }
    rc = acct_event_prune(c->st, c->pool, now, &deleted);
    if (rc != ACCT_STORE_OK) {
        return admin_store_failure("delete old events", rc);
    }
    c->out = apr_psprintf(c->pool, "%d events deleted\n", deleted);
    return ADMIN_OK;
}
