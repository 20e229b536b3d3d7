#include "acct_security.h"
#include "acct_ident.h"

#include <apr_strings.h>

static const acct_sql q_questions = ACCT_SQL("security_questions",
    "SELECT q.id, q.question, a.response_sealed FROM security_questions q"
    " LEFT JOIN security_answers a"
    " ON a.question_id = q.id AND a.user_id = CAST(%s AS BIGINT)"
    " ORDER BY q.id");

static const acct_sql q_forget = ACCT_SQL("security_forget",
    "DELETE FROM security_answers WHERE user_id = CAST(%s AS BIGINT)");

static const acct_sql q_answer = ACCT_SQL("security_answer",
    "INSERT INTO security_answers (user_id, question_id, response_sealed)"
    " VALUES (CAST(%s AS BIGINT), CAST(%s AS INTEGER), %s)");

const char *acct_security_answer_context(apr_pool_t *pool, apr_int64_t uid,
                                         const char *question_id)
{
    return apr_psprintf(pool, "answer:%" APR_INT64_T_FMT ":%s", uid,
                        question_id);
}

acct_store_rc acct_security_questions_list(acct_store *st, apr_pool_t *pool,
                                           apr_int64_t uid, acct_rows **rows)
{
    const char *args[1];

    args[0] = acct_i64(pool, uid);
    return acct_store_select(st, pool, &q_questions, rows, 1, args);
}

acct_store_rc acct_security_answers_replace(acct_store *st, apr_pool_t *pool,
                                            apr_int64_t uid,
                                            const acct_security_answer *answers,
                                            int n)
{
    const char *args[3];
    acct_store_rc rc;
    int i;

    args[0] = acct_i64(pool, uid);
    rc = acct_user_lock(st, pool, uid);
    if (rc == ACCT_STORE_OK) {
        rc = acct_store_exec(st, pool, &q_forget, NULL, 1, args);
    }
    for (i = 0; rc == ACCT_STORE_OK && i < n; i++) {
        args[1] = acct_i64(pool, answers[i].question_id);
        args[2] = answers[i].response_sealed;
        rc = acct_store_exec(st, pool, &q_answer, NULL, 3, args);
    }
    return rc;
}
