/*
 * A record from a request body (acct_record_body.c): the fields a body may
 * set, and the reader that judges them by the rules per type.
 */
#ifndef ACCT_RECORD_BODY_H
#define ACCT_RECORD_BODY_H

#include "acct_problems.h"
#include "acct_record.h"
#include "acct_req.h"

/*
 * The fields a record body sets (NULL-terminated): the handlers judge the
 * body's other keys with acct_fields_settable before acct_record_read, which
 * also drops its nulls (null leaves a field as it is, or gives its default
 * on create: docs/conventions.md, "Today's clients").
 */
extern const char *const acct_record_fields[];

/*
 * Reads the request body: a new record when `current` is NULL (type
 * required), else the changes to `current` (the stored record; every field
 * optional, the type unchangeable).  The merged record is then normalised
 * as acct_record_normalise does.  Every problem is added to `pb`, naming
 * its field, all of them at once.  0 with *out set, or -1.
 */
int acct_record_read(acct_req *req, acct_problems *pb,
                     const acct_record *current, const acct_record_zone *zone,
                     acct_record *out);

#endif
