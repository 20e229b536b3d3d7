/*
 * Problems found while validating a request: an ordered list of
 * (field, reason) pairs.  Validators add to a list and know nothing of the
 * response; the handler turns a non-empty list into the 400 error envelope
 * once (acct_resp_problems), so every invalid field is answered at once
 * (docs/conventions.md, "Errors") and the items keep the order they were found in.
 */
#ifndef ACCT_PROBLEMS_H
#define ACCT_PROBLEMS_H

#include <apr_pools.h>
#include <apr_tables.h>

typedef struct acct_problems acct_problems;

/* An empty list in `pool`. */
acct_problems *acct_problems_make(apr_pool_t *pool);

/*
 * Adds a problem.  `field` may be NULL (a problem of the whole body);
 * `reason` NULL stands for the status's generic reason.  Both strings are
 * kept, not copied: they must live as long as the list's pool.
 */
void acct_problem_add(acct_problems *p, const char *field, const char *reason);

/* Does the list hold a problem? */
int acct_problems_any(const acct_problems *p);

/* How many problems: compare before and after a check to tell whether that
 * check added one. */
int acct_problems_count(const acct_problems *p);

/* Problem `i` (0 <= i < count), in the order added. */
const char *acct_problem_field(const acct_problems *p, int i);
const char *acct_problem_reason(const acct_problems *p, int i);

#endif
