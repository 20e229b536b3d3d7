/* X-Filter compilation over a list's whitelist, on both dialects. */
#include "fuzz_common.h"
#include "acct_store_filter.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const acct_filter_field fields[] = {
        {"label", "label", ACCT_FIELD_TEXT},
        {"memory", "memory", ACCT_FIELD_INT},
        {"price", "price", ACCT_FIELD_NUMBER},
        {"available", "available", ACCT_FIELD_BOOL},
        {"created", "created", ACCT_FIELD_TIME},
        {"tags", "EXISTS (SELECT 1 FROM t WHERE t.label = %s)", ACCT_FIELD_TAG},
        {NULL, NULL, 0}
    };
    apr_pool_t *pool = fuzz_pool();
    const char *header = fuzz_text(pool, data, size), *reason = NULL;
    acct_filter f;

    acct_filter_compile(pool, header, fields, "id", ACCT_DIALECT_SQLITE, &f,
                        &reason);
    acct_filter_compile(pool, header, fields, "id", ACCT_DIALECT_PGSQL, &f,
                        &reason);
    apr_pool_destroy(pool);
    return 0;
}
