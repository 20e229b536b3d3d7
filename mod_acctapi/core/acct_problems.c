#include "acct_problems.h"

typedef struct {
    const char *field;
    const char *reason;
} problem;

struct acct_problems {
    apr_array_header_t *items;   /* of problem */
};

acct_problems *acct_problems_make(apr_pool_t *pool)
{
    acct_problems *p = apr_palloc(pool, sizeof(*p));

    p->items = apr_array_make(pool, 4, sizeof(problem));
    return p;
}

void acct_problem_add(acct_problems *p, const char *field, const char *reason)
{
    problem *item = apr_array_push(p->items);

    item->field = field;
    item->reason = reason;
}

int acct_problems_any(const acct_problems *p)
{
    return p->items->nelts > 0;
}

int acct_problems_count(const acct_problems *p)
{
    return p->items->nelts;
}

const char *acct_problem_field(const acct_problems *p, int i)
{
    return APR_ARRAY_IDX(p->items, i, problem).field;
}

const char *acct_problem_reason(const acct_problems *p, int i)
{
    return APR_ARRAY_IDX(p->items, i, problem).reason;
}
