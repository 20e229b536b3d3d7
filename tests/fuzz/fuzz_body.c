/* Request bodies: the depth pre-scan and jansson's decoder. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *pool = fuzz_pool();

    acct_json_decode_body(pool, (const char *)data, size, NULL);
    apr_pool_destroy(pool);
    return 0;
}
