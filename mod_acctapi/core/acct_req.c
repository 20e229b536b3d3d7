#include "acct_req.h"

acct_store_rc acct_req_store(acct_req *req, acct_store **out)
{
    acct_store_rc rc;

    if (!req->store) {
        if (!req->open_store) {
            return ACCT_STORE_UNAVAILABLE;
        }
        rc = req->open_store(req, &req->store);
        if (rc != ACCT_STORE_OK) {
            return rc;
        }
    }
    *out = req->store;
    return ACCT_STORE_OK;
}

acct_store_rc acct_req_commit_now(acct_req *req)
{
    acct_store_rc rc;

    if (!req->store || !acct_store_in_tx(req->store)) {
        return ACCT_STORE_OK;
    }
    rc = acct_store_commit(req->store, req->pool);
    req->tx_suspended = rc == ACCT_STORE_OK;
    return rc;
}

void acct_req_note_ended(acct_req *req)
{
    if (req->store && !acct_store_in_tx(req->store)) {
        req->tx_suspended = 1;
    }
}

acct_store_rc acct_req_reopen(acct_req *req)
{
    if (!req->tx_suspended) {
        return ACCT_STORE_OK;
    }
    req->tx_suspended = 0;
    return acct_store_begin(req->store, req->pool);
}

acct_store_rc acct_req_checkpoint(acct_req *req)
{
    acct_store_rc rc = acct_req_commit_now(req);

    return rc == ACCT_STORE_OK ? acct_req_reopen(req) : rc;
}
