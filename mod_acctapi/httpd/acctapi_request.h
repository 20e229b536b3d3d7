/*
 * The module's state of one API request, kept in r->request_config from the
 * access checker on: the matched route, who acts, the effective settings and
 * the database lease.  Shared by the glue's files (the handler, the lease,
 * the status counters), so none of them reaches into another's statics.
 */
#ifndef ACCTAPI_REQUEST_H
#define ACCTAPI_REQUEST_H

#include "httpd.h"
#include "mod_dbd.h"

#include "acct_api.h"
#include "acct_router.h"
#include "acct_store.h"

typedef struct acctapi_ctx {
    acct_match match;
    acct_principal who;
    int authenticated;
    acct_settings settings;
    apr_off_t max_body;
    apr_pool_t *lease;          /* owns the database connection, if any */
    ap_dbd_t *dbd;
    acct_store *store;
    apr_int64_t now;
    int pool_refused;           /* mod_dbd gave no connection: do not retry */
    int db_down;                /* the database failed this request: 503 */
    int db_probe;               /* this request tries a database found down */
    int db_gave_up;             /* a wait ran out: trying again waits again */
    int lease_count;            /* connections taken (a retry takes two) */
    unsigned exchanges;         /* with the database, by leases given back */
    unsigned setup_exchanges;   /* of them, setting a connection up */
    apr_table_t *query;         /* decoded query parameters, once decoded */
    acct_rows *auth_read;       /* the route's read_with_auth rows, or NULL */
    int rate_in_database;       /* AcctapiRateLimitScope database */
    apr_interval_time_t db_timeout; /* AcctapiDatabaseTimeout */
} acctapi_ctx;


/* The request's state, or NULL when the API has not taken the request. */
acctapi_ctx *acctapi_ctx_get(request_rec *r);

/* Makes the request's state (settings from its location) and keeps it. */
acctapi_ctx *acctapi_ctx_attach(request_rec *r);

/*
 * For the status counters: is `r` a request of the API?  Sets *route to its
 * route, or NULL when no route matched.
 */
int acctapi_request_route(request_rec *r, const acct_route **route);

#endif
