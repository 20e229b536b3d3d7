/*
 * The API's Record object as JSON text (acct_record_json.c).
 */
#ifndef ACCT_RECORD_JSON_H
#define ACCT_RECORD_JSON_H

#include <apr_pools.h>

#include "acct_store.h"

/*
 * The API's Record object, written once: the one writer of the shape, for
 * single answers and pages alike.  acct_record_object_text: row `i` of
 * ACCT_RECORD_COLUMNS as the JSON text of a Record; acct_record_json_text:
 * every row as the text of an array of them.  `*len` bytes in pool memory,
 * NUL-terminated; byte for byte what jansson's compact dump gives for the
 * same document (tests/unit/test_dns_records_writer.c checks it).
 */
const char *acct_record_object_text(apr_pool_t *pool, const acct_rows *rows,
                                    int i, apr_size_t *len);
const char *acct_record_json_text(apr_pool_t *pool, const acct_rows *rows,
                                  apr_size_t *len);

#endif
