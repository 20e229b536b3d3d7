/*
 * Reading request bodies field by field.  Each reader adds a problem naming
 * the field to a list (acct_problems.h) and keeps going, so the handler's
 * one answer lists every invalid field (DECISIONS.md, "Errors").
 */
#ifndef ACCT_BODY_H
#define ACCT_BODY_H

#include "acct_api.h"

/* Outcome of reading one optional field. */
typedef enum {
    ACCT_FIELD_ABSENT = 0,  /* not in the body */
    ACCT_FIELD_SET = 1,     /* present and valid: *out is set */
    ACCT_FIELD_NULL = 2,    /* present as JSON null (where null is allowed) */
    ACCT_FIELD_BAD = -1     /* present and invalid: a problem was added */
} acct_field_rc;

/* Refuses every key of the body not in `allowed` (NULL-terminated). */
void acct_fields_only(acct_req *req, acct_problems *pb,
                      const char *const *allowed);

/* A string of `min`..`max` characters (UTF-8 code points). */
acct_field_rc acct_field_string(acct_req *req, acct_problems *pb,
                                const char *field, size_t min, size_t max,
                                int nullable, const char **out);

/* A "YYYY-MM-DDTHH:MM:SS" timestamp, as epoch seconds. */
acct_field_rc acct_field_timestamp(acct_req *req, acct_problems *pb,
                                   const char *field, int nullable,
                                   apr_int64_t *out);

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

/*
 * An e-mail address as mail systems accept it: one '@', a local part of
 * 1..64 printable ASCII characters without spaces, a domain of dot-separated
 * labels (letters, digits, hyphens) with at least one dot; 254 at most.
 */
int acct_email_valid(const char *email);

/* Number of UTF-8 code points of a valid UTF-8 string. */
size_t acct_utf8_length(const char *s);

#endif
