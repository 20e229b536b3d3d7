/*
 * Reading request bodies field by field.  Each reader adds a problem naming
 * the field to a list (acct_problems.h) and keeps going, so the handler's
 * one answer lists every invalid field (docs/conventions.md, "Errors").
 */
#ifndef ACCT_BODY_H
#define ACCT_BODY_H

#include "acct_problems.h"
#include "acct_req.h"

/* Outcome of reading one optional field. */
typedef enum {
    ACCT_FIELD_ABSENT = 0,  /* not in the body */
    ACCT_FIELD_SET = 1,     /* present and valid: *out is set */
    ACCT_FIELD_NULL = 2,    /* present as JSON null (where null is allowed) */
    ACCT_FIELD_BAD = -1     /* present and invalid: a problem was added */
} acct_field_rc;

/*
 * The keys of a body that a route does not set, judged as the public API
 * judges them (docs/conventions.md, "Today's clients"): clients copy path ids into
 * bodies ({"domainId": 5, ...}) and SDKs PUT back what they GET.  Every
 * handler calls it on its body before reading a field:
 *
 *  - a key whose value is null is dropped from the body: null means "leave
 *    unchanged" in a PUT and "use the default" in a POST, which is what
 *    leaving the key out means, so no field reader sees a null;
 *  - a key outside `settable` (NULL-terminated) that `stored` does not show
 *    is ignored;
 *  - one that `stored` shows is ignored when its value equals the shown one
 *    (acct_json_same), and is the problem "<key> cannot be changed" when it
 *    differs.
 *
 * `stored` is the object as a GET of it shows it, or NULL when there is
 * none (a create, an action): every key outside `settable` is ignored then.
 */
void acct_fields_settable(acct_req *req, acct_problems *pb,
                          const char *const *settable, const json_t *stored);

/*
 * The same for an object nested in the body (`object`, which may be NULL or
 * not an object: nothing is done then), whose keys are named
 * "<prefix><key>" in problems ("updates.").
 */
void acct_object_settable(apr_pool_t *pool, acct_problems *pb, json_t *object,
                          const char *prefix, const char *const *settable,
                          const json_t *stored);

/*
 * Does the body hold a key, not null, outside `settable`?  Only then does
 * acct_fields_settable need the stored object: a handler that has to render
 * it for the comparison renders it only then.
 */
int acct_fields_beyond(const acct_req *req, const char *const *settable);

/*
 * Are two JSON values the same value?  As json_equal, except that numbers
 * compare by value (1 and 1.0 are the same: JavaScript clients send 0.0 back
 * as 0).  Strings compare exactly: a timestamp equals the text a GET shows.
 */
int acct_json_same(const json_t *a, const json_t *b);

/* A string of `min`..`max` characters (UTF-8 code points). */
acct_field_rc acct_field_string(acct_req *req, acct_problems *pb,
                                const char *field, size_t min, size_t max,
                                int nullable, const char **out);

/* A "YYYY-MM-DDTHH:MM:SS" timestamp (UTC), as epoch seconds; as in the
 * public API's date-time, a fraction of a second (dropped) and "Z" or an
 * offset from UTC ("+02:00") may follow. */
acct_field_rc acct_field_timestamp(acct_req *req, acct_problems *pb,
                                   const char *field, int nullable,
                                   apr_int64_t *out);

/* The date-time text acct_field_timestamp takes, as epoch seconds: 0, or -1
 * when `s` is not one (for a timestamp nested in an object). */
int acct_parse_date_time(const char *s, apr_int64_t *epoch);

/* Adds "<field> is required" when `rc` is ACCT_FIELD_ABSENT. */
void acct_field_require(acct_req *req, acct_problems *pb, const char *field,
                        acct_field_rc rc);

/* A JSON boolean field. */
acct_field_rc acct_field_bool(acct_req *req, acct_problems *pb,
                              const char *field, int *out);

/* One of `choices` (NULL-terminated). */
acct_field_rc acct_field_enum(acct_req *req, acct_problems *pb,
                              const char *field, const char *const *choices,
                              const char **out);

/* Number of UTF-8 code points of a valid UTF-8 string. */
size_t acct_utf8_length(const char *s);

#endif
