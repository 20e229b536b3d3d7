/*
 * The module's counters, shared by every child of the server: requests,
 * status classes and latency per route family, rate-limit refusals, database
 * pool health and the schema version.  Read with `SetHandler acctapi-status`
 * (JSON, or an HTML page with ?html) and in mod_status's server-status page
 * (?auto included).
 */
#ifndef ACCTAPI_STATUS_H
#define ACCTAPI_STATUS_H

#include "httpd.h"

#define ACCTAPI_STATUS_HANDLER "acctapi-status"

/* Registers the status hooks and the handler; called by the module's own
 * register_hooks. */
void acctapi_status_register_hooks(apr_pool_t *pool);

/* A database connection was leased (+1) or handed back (-1). */
void acctapi_status_lease(int delta);

/* mod_dbd gave no connection. */
void acctapi_status_lease_failed(void);

/* The schema version a child found in the database. */
void acctapi_status_schema(int version);

#endif
