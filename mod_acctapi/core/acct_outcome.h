/*
 * What a model operation came to.  The model says what happened in these
 * terms and knows nothing of HTTP: api/ turns an outcome into a status and
 * the fixed reason texts in one place (acct_resp_outcome), so a reason text
 * lives in one layer and a model function serves a handler, acctapi-admin
 * and a unit test alike.
 */
#ifndef ACCT_OUTCOME_H
#define ACCT_OUTCOME_H

#include "acct_store.h"

typedef enum {
    ACCT_OUT_DONE = 0,   /* it happened (or the check passed) */
    ACCT_OUT_INVALID,    /* the input breaks a rule: see field and reason
                          * (a body's several problems go to the caller's
                          * acct_problems instead) */
    ACCT_OUT_NOT_FOUND,  /* no such object the principal may see */
    ACCT_OUT_FORBIDDEN,  /* the principal may see it but not do this */
    ACCT_OUT_STORE       /* the store failed: see store */
} acct_outcome_kind;

typedef struct acct_outcome {
    acct_outcome_kind kind;
    acct_store_rc store;             /* ACCT_OUT_STORE: how it failed */
    const char *field;               /* ACCT_OUT_INVALID: the field at
                                      * fault (NULL: the whole body) */
    const char *reason;              /* ACCT_OUT_INVALID: why (static or
                                      * pool text) */
} acct_outcome;

static inline acct_outcome acct_out(acct_outcome_kind kind)
{
    acct_outcome o = { kind, ACCT_STORE_OK, NULL, NULL };
    return o;
}

#define acct_out_done() acct_out(ACCT_OUT_DONE)
#define acct_out_not_found() acct_out(ACCT_OUT_NOT_FOUND)
#define acct_out_forbidden() acct_out(ACCT_OUT_FORBIDDEN)

/* A store call's result as an outcome: done when rc is ACCT_STORE_OK. */
static inline acct_outcome acct_out_store(acct_store_rc rc)
{
    acct_outcome o = acct_out(rc == ACCT_STORE_OK ? ACCT_OUT_DONE
                                                  : ACCT_OUT_STORE);
    o.store = rc;
    return o;
}

/* One invalid field (`field` NULL: the body as a whole). */
static inline acct_outcome acct_out_invalid(const char *field,
                                            const char *reason)
{
    acct_outcome o = acct_out(ACCT_OUT_INVALID);
    o.field = field;
    o.reason = reason;
    return o;
}

/* What a read of the object a request names found: the store's failure,
 * else not found when it read no row, else done. */
static inline acct_outcome acct_out_found(acct_store_rc rc,
                                          const acct_rows *rows)
{
    if (rc != ACCT_STORE_OK) {
        return acct_out_store(rc);
    }
    return rows && rows->nrows > 0 ? acct_out_done() : acct_out_not_found();
}

/* What a write of that object did: likewise, by the rows it changed. */
static inline acct_outcome acct_out_changed(acct_store_rc rc, int changed)
{
    if (rc != ACCT_STORE_OK) {
        return acct_out_store(rc);
    }
    return changed > 0 ? acct_out_done() : acct_out_not_found();
}

static inline int acct_out_ok(acct_outcome o)
{
    return o.kind == ACCT_OUT_DONE;
}

#endif
