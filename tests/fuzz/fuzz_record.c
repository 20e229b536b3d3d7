/* Record validation: a request body as POST and as PUT of an MX record. */
#include "fuzz_common.h"
#include "acct_record_body.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const acct_record_zone zone = {"example.com", "192.0.2.1"};
    apr_pool_t *pool = fuzz_pool();
    acct_req *req = fuzz_req(pool, data, size);
    acct_record current, out;

    if (req->body && json_is_object(req->body)) {
        acct_record_read(req, acct_problems_make(pool), NULL, &zone, &out);
        memset(&current, 0, sizeof(current));
        current.type = "MX";
        current.name = "mail";
        current.target = "mx.example.net";
        current.priority = 10;
        acct_record_read(req, acct_problems_make(pool), &current, &zone,
                         &out);
    }
    apr_pool_destroy(pool);
    return 0;
}
