/*
 * The handlers of the user's own records (tokens, logins, devices, apps,
 * SSH keys) for the record that path parameter 0 names: read it, show it,
 * revoke it.  The model finds the record for the acting user
 * (model/acct_own.h); these answer what it came to.
 */
#ifndef API_OWN_H
#define API_OWN_H

#include "acct_api.h"
#include "acct_list.h"
#include "acct_own.h"

/*
 * The row `get` finds of the record the path names, with its id in *id;
 * NULL after answering 404 (not an id, no such record, or not the user's)
 * or the store's failure.
 */
acct_rows *api_own_of_path(acct_req *req, acct_resp *resp,
                           acct_own_get_fn *get, apr_int64_t *id);

/* GET of the record the path names: 200 with `render`'s object. */
void api_own_show(acct_req *req, acct_resp *resp, acct_own_get_fn *get,
                  acct_render_row *render);

/* DELETE of the record the path names by `change`: 200 {} once it changed
 * a row. */
void api_own_remove(acct_req *req, acct_resp *resp,
                    acct_own_change_fn *change);

#endif
