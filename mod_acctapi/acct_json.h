/*
 * jansson helpers shared by every layer.
 *
 * Ownership rule: a document's root is owned by a pool (acct_json_own); its
 * children are owned by the root through the *_new calls.  Nothing else in
 * the code base calls json_decref on a tree it built.
 */
#ifndef ACCT_JSON_H
#define ACCT_JSON_H

#include <apr_pools.h>
#include <jansson.h>

/* Maximum nesting accepted in a request body (objects and arrays). */
#define ACCT_JSON_MAX_DEPTH 64

/* Registers a pool cleanup that drops the reference to `j`; returns `j`. */
json_t *acct_json_own(apr_pool_t *pool, json_t *j);

/* A JSON string, or JSON null for NULL or for text that is not UTF-8. */
json_t *acct_json_str(const char *s);

/* Parses a decimal integer column; NULL (SQL NULL) gives JSON null. */
json_t *acct_json_int_or_null(const char *s);

/* Parses a decimal integer column; NULL gives 0 (DECISIONS: unused numbers are 0). */
json_t *acct_json_int(const char *s);

/* "1"/"0" (or "t"/"f") column to JSON boolean; NULL gives false. */
json_t *acct_json_bool(const char *s);

/* A decimal number column (prices) to a JSON real or integer. */
json_t *acct_json_number(const char *s);

/* Epoch-seconds column to "YYYY-MM-DDTHH:MM:SS"; NULL gives JSON null. */
json_t *acct_json_time(apr_pool_t *pool, const char *epoch_seconds);

/*
 * A column holding a JSON document (arrays and objects of the catalogues);
 * NULL or unparsable text gives JSON null.  Never fails the caller.
 */
json_t *acct_json_parse_column(const char *text);

/*
 * Decodes a request body: UTF-8, duplicate keys rejected, nesting capped at
 * ACCT_JSON_MAX_DEPTH.  The depth check runs on the raw text before jansson
 * sees it, so a hostile 10,000-deep body costs nothing.  The root is owned by
 * `pool`.  Returns NULL on any defect.
 */
json_t *acct_json_decode_body(apr_pool_t *pool, const char *buf, size_t len);

/* Serialises compactly into pool memory (keys in insertion order). */
char *acct_json_dump(apr_pool_t *pool, const json_t *j, size_t *len);

/*
 * For answers written as text without jansson (big lists, zone files): the
 * escape jansson's compact dump writes for a byte of a string that needs
 * one (", \, \b \f \n \r \t, other bytes below 0x20 as \u00XX), at
 * `out` (6 bytes at most); returns its length, 0 for a byte written as it
 * is.
 */
apr_size_t acct_json_escape_byte(unsigned char c, char *out);

/*
 * Writes `len` bytes of `text` at `out` as a JSON string, quotes included,
 * escaped as acct_json_escape_byte says (the caller vouches for UTF-8);
 * returns the end.  `out` needs 6 * len + 2 bytes.  Not NUL-terminated.
 */
char *acct_json_quote(char *out, const char *text, apr_size_t len);

#endif
