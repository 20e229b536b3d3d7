/* Domain validation: a request body, and the input as a domain name. */
#include "fuzz_common.h"
#include "acct_domain.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *pool = fuzz_pool();
    acct_req *req = fuzz_req(pool, data, size);
    const char *reason = NULL;
    acct_domain d;
    acct_resp resp;

    if (req->body && json_is_object(req->body)) {
        acct_resp_init(&resp, pool);
        acct_domain_init(&d);
        acct_domain_read_body(req, &resp, &d);
        acct_domain_check(req, &resp, &d);
    }
    acct_domain_name(pool, fuzz_text(pool, data, size), &reason);
    apr_pool_destroy(pool);
    return 0;
}
