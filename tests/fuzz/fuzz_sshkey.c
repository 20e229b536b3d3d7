/* SSH public key parsing. */
#include "fuzz_common.h"
#include "acct_sshkey.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    apr_pool_t *pool = fuzz_pool();
    const char *reason = NULL;
    acct_sshkey key;

    acct_sshkey_parse(pool, fuzz_text(pool, data, size), &key, &reason);
    apr_pool_destroy(pool);
    return 0;
}
