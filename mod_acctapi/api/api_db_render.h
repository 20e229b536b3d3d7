/*
 * A managed database's row in the public API's shapes (api_db_render.c).
 */
#ifndef API_DB_RENDER_H
#define API_DB_RENDER_H

#include "acct_api.h"

/* Stored JSON document `column` of row `i`, or `fallback` (stolen) if the
 * column cannot be read. */
json_t *api_db_json_column(const acct_rows *rows, int i, const char *column,
                           json_t *fallback);

/* Row `i`'s engine settings: the stored ones, or engine `engine`'s
 * defaults for a database made before settings were kept. */
json_t *api_db_render_engine_config(const acct_rows *rows, int i,
                                    const char *engine);

/* Row `i` (ACCT_DB_COLUMNS) as an engine's list and view show it. */
json_t *api_db_render_engine(acct_req *req, const acct_rows *rows, int i);

/* Row `i` as the all-engines list shows it (instance_uri, no replication
 * settings). */
json_t *api_db_render_any(acct_req *req, const acct_rows *rows, int i);

/* Answers database `id` as it is now in the store (200, else 404 or the
 * store's failure). */
void api_db_respond(acct_req *req, acct_resp *resp, apr_int64_t id);

#endif
