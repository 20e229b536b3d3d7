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

#include "acct_text.h"

/*
 * Limits of a request body, checked on its raw text before jansson builds a
 * tree (acct_json_scan), each far above what a valid request can hold:
 *
 * - nesting: 64 levels of objects and arrays (jansson accepts 2048 and
 *   recurses for each); no document of the contract nests more than a few.
 * - values: 65,536 JSON values (every scalar, object and array, keys not
 *   counted: each key has its value).  The largest count a valid request can
 *   hold is a preferences document (65,535 characters compact): at most
 *   32,767 values, as in {"":[0,0,...]}; the other lists (tags, allow_list,
 *   security questions, IP lists) hold tens.  A 1 MiB body can carry half a
 *   million values, which jansson would store in some 25 MB of small blocks.
 * - string length: 262,144 characters (code points; an escape counts as one,
 *   a surrogate pair as two), object keys included: four times the longest
 *   string the contract admits, a 65,535-character record target or
 *   preferences document (an SSH key line is at most 16,384).
 */
#define ACCT_JSON_MAX_DEPTH 64
#define ACCT_JSON_MAX_VALUES 65536
#define ACCT_JSON_MAX_STRING 262144

/* What acct_json_scan found first in a body's text. */
typedef enum {
    ACCT_JSON_SCAN_OK = 0,
    ACCT_JSON_SCAN_MALFORMED,       /* not JSON text (jansson has the last word) */
    ACCT_JSON_SCAN_TOO_DEEP,        /* nesting past max_depth */
    ACCT_JSON_SCAN_TOO_MANY_VALUES, /* more than max_values values */
    ACCT_JSON_SCAN_STRING_TOO_LONG  /* a string longer than max_string */
} acct_json_scan_rc;

typedef struct acct_json_limits {
    int max_depth;              /* at most ACCT_JSON_MAX_DEPTH */
    size_t max_values;
    size_t max_string;          /* characters */
} acct_json_limits;

/* The limits above, those of every request body. */
extern const acct_json_limits acct_json_body_limits;

/* Registers a pool cleanup that drops the reference to `j`; returns `j`. */
json_t *acct_json_own(apr_pool_t *pool, json_t *j);

/* A JSON string, or JSON null for NULL or for text that is not UTF-8. */
json_t *acct_json_str(const char *s);

/* Parses a decimal integer column; NULL (SQL NULL) gives JSON null. */
json_t *acct_json_int_or_null(const char *s);

/* Parses a decimal integer column; NULL gives 0 (docs/conventions.md: unused numbers are 0). */
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
 * One linear pass over `len` bytes of JSON text, allocating nothing: checks
 * the grammar (structure, string escapes, numbers, literals; not UTF-8,
 * which jansson checks) and counts nesting, values and string lengths
 * against `lim`, stopping at the first defect in reading order, as a
 * streaming parser would.  So a body that would cost memory or stack out of
 * proportion to its size is refused before jansson allocates anything.
 */
acct_json_scan_rc acct_json_scan(const char *buf, size_t len,
                                 const acct_json_limits *lim);

/*
 * The answer's reason for what acct_json_scan found: NULL for OK,
 * ACCT_R_INVALID_JSON for malformed text and too deep a nesting (as it always
 * answered), else the text naming the limit the body went past, such as
 * "Request body has too many JSON values (at most 65536)".
 */
const char *acct_json_scan_reason(apr_pool_t *pool, acct_json_scan_rc rc);

/*
 * Decodes a request body: acct_json_scan with acct_json_body_limits, then
 * jansson (UTF-8 checked, duplicate keys rejected).  The root is owned by
 * `pool`.  Returns NULL on any defect, with *reason (when `reason` is not
 * NULL) the answer's text: acct_json_scan_reason, ACCT_R_INVALID_JSON for
 * what jansson refuses.
 */
json_t *acct_json_decode_body(apr_pool_t *pool, const char *buf, size_t len,
                              const char **reason);

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

/*
 * Appends to `t` what jansson's compact dump writes for acct_json_str(s):
 * the string, escaped as acct_json_escape_byte says, or null for NULL or
 * text that is not strict UTF-8.
 */
void acct_json_text_str(acct_text *t, const char *s);

#endif
