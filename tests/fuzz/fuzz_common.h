/*
 * Shared by the libFuzzer targets: one APR initialisation per process and a
 * fresh pool per input, so every allocation of an input is released with it
 * (a leak is then a real leak, which LeakSanitizer reports).
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <apr_general.h>
#include <apr_pools.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "acct_api.h"
#include "acct_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline apr_pool_t *fuzz_pool(void)
{
    static int ready;
    apr_pool_t *pool = NULL;

    if (!ready) {
        apr_initialize();
        ready = 1;
    }
    apr_pool_create(&pool, NULL);
    return pool;
}

/* The input as a request whose body is the decoded JSON (may be NULL). */
static inline acct_req *fuzz_req(apr_pool_t *pool, const uint8_t *data, size_t size)
{
    acct_req *req = apr_pcalloc(pool, sizeof(*req));

    req->pool = pool;
    req->body = acct_json_decode_body(pool, (const char *)data, size, NULL);
    req->query = apr_table_make(pool, 1);
    return req;
}

/* The input as a NUL-terminated string in pool memory. */
static inline const char *fuzz_text(apr_pool_t *pool, const uint8_t *data,
                             size_t size)
{
    char *s = apr_palloc(pool, size + 1);

    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

#endif
