/*
 * What the database handlers share (api_databases.c): the database a
 * /databases/{engine}/instances/{instanceId}... path names.
 */
#ifndef API_DATABASES_H
#define API_DATABASES_H

#include "acct_api.h"

/*
 * The database of path parameter 0, of the route's engine, in the acting
 * account, settled, on which the user holds `need` (acct_db_load): one row
 * of ACCT_DB_COLUMNS, or NULL once answered (404 for an id that names
 * nothing, 403, or the store's failure).
 */
acct_rows *api_db_of_path(acct_req *req, acct_resp *resp, acct_level need);

#endif
