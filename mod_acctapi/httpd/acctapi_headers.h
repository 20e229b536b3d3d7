/* Slow request headers wait in the event MPM's poll set, not in a worker
 * thread (AcctapiHeaderWait). */
#ifndef ACCTAPI_HEADERS_H
#define ACCTAPI_HEADERS_H

#include "httpd.h"

/* Registers the process_connection hook; call from register_hooks. */
void acctapi_headers_register_hooks(apr_pool_t *pool);

#endif
