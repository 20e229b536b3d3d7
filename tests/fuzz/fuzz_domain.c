/* Domain validation: a request body, and the input as a domain name. */
#include "fuzz_common.h"
#include "acct_domain.h"
#include "acct_tags.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *pool = fuzz_pool();
    acct_req *req = fuzz_req(pool, data, size);
    const char *reason = NULL;
    acct_domain d;

    if (req->body && json_is_object(req->body)) {
        acct_problems *pb = acct_problems_make(pool);

        acct_domain_init(&d);
        acct_domain_read_body(req, pb, &d);
        acct_tags_read_body(req, pb, "tags", &d.tags);
        acct_domain_check(req, pb, &d);
    }
    acct_domain_name(pool, fuzz_text(pool, data, size), &reason);
    apr_pool_destroy(pool);
    return 0;
}
