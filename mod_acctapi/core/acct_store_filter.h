/*
 * X-Filter (docs/conventions.md, "Filtering"), compiled to SQL: store machinery,
 * hence the name.  A JSON object whose plain keys mean equality, AND-ed; "+and"/"+or" take arrays of filter objects (nestable);
 * a key's value may instead be an operator object: {"+gt": 5}, {"+gte": ..},
 * {"+lt": ..}, {"+lte": ..} (numbers and timestamps), {"+contains": "x"}
 * (text), {"+neq": v}; top level only: "+order_by" (a filterable field) and
 * "+order" ("asc" default, "desc").
 *
 * The filter compiles to a parameterised SQL condition over a whitelist of
 * fields: user text only ever travels as a %s parameter.
 */
#ifndef ACCT_STORE_FILTER_H
#define ACCT_STORE_FILTER_H

#include <apr_pools.h>
#include <apr_tables.h>

#include "acct_store.h"

/* Limits that keep a hostile filter cheap and within apr_dbd's argument cap. */
#define ACCT_FILTER_MAX_BYTES 4096
#define ACCT_FILTER_MAX_DEPTH 8
#define ACCT_FILTER_MAX_PARAMS 32

typedef enum {
    ACCT_FIELD_TEXT = 0,  /* JSON string; =, +neq, +contains */
    ACCT_FIELD_INT,       /* JSON integer; =, +neq, +gt, +gte, +lt, +lte */
    ACCT_FIELD_NUMBER,    /* JSON number (integer or real); same operators as INT */
    ACCT_FIELD_BOOL,      /* JSON true/false, stored as 1/0; =, +neq */
    ACCT_FIELD_TIME,      /* "YYYY-MM-DDTHH:MM:SS" string, stored as epoch seconds; all but +contains */
    ACCT_FIELD_TAG        /* JSON string; =, +neq: `column` is a condition with one %s, the
                             value a list holds (a tag label, a list's member: ACCT_FILTER_HOLDS) */
} acct_field_type;

/*
 * The ACCT_FIELD_TAG condition "the JSON array of strings in `column` holds
 * the value": clients filter a list-valued key by one member, as they do
 * tags ({"capabilities": "VPCs"}).  replace() is byte-exact on both
 * dialects, and the quotes match whole members only; the members are the
 * module's own words and addresses, which JSON writes without escapes.
 */
#define ACCT_FILTER_HOLDS(column) \
    "replace(" column ", '\"' || %s || '\"', '') <> " column

typedef struct acct_filter_field {
    const char *name;     /* key in X-Filter; NULL ends the table */
    const char *column;   /* SQL expression (for TAG: a condition with one %s) */
    acct_field_type type;
} acct_filter_field;

typedef struct acct_filter {
    const char *where;     /* SQL condition; "1=1" when the filter has none */
    const char *order_by;  /* ORDER BY list, always ending with the stable key */
    apr_array_header_t *args; /* const char *: values for the %s of `where`, in order */
} acct_filter;

/*
 * Compiles `header` (the raw X-Filter value; NULL or empty means no filter).
 * `stable_order` is the list's tie-breaker (e.g. "d.id"); it ends every
 * ORDER BY, and is the whole ORDER BY without "+order_by".
 * On error returns -1 with *reason set to the exact text of docs/conventions.md:
 * "Cannot filter on <field>" for a key that is not in `fields`, otherwise
 * "Could not apply filter" (the error item's field is "X-Filter").
 */
int acct_filter_compile(apr_pool_t *pool, const char *header,
                        const acct_filter_field *fields,
                        const char *stable_order, acct_dialect dialect,
                        acct_filter *out, const char **reason);

/*
 * acct_filter_compile for a list that is newest first (`newest_first`
 * non-zero): without "+order" the stable order descends, and under
 * "+order_by" the tie-breaker follows "+order", so rows that tie on a
 * coarse field (created, to the second) stay newest first when it says
 * "desc".  0 is acct_filter_compile.
 */
int acct_filter_compile_ordered(apr_pool_t *pool, const char *header,
                                const acct_filter_field *fields,
                                const char *stable_order, int newest_first,
                                acct_dialect dialect, acct_filter *out,
                                const char **reason);

#endif
