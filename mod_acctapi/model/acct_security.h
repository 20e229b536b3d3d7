/*
 * Security questions: the catalogue (table security_questions) and each
 * user's answers (security_answers), stored sealed (acct_seal) bound to
 * their user and question.  Two-factor authentication needs them answered.
 */
#ifndef ACCT_SECURITY_H
#define ACCT_SECURITY_H

#include "acct_store.h"

/* A user answers exactly this many questions (and two-factor needs them). */
#define ACCT_SECURITY_ANSWERS_REQUIRED 3

/* What binds a sealed response to its row (acct_seal's context). */
const char *acct_security_answer_context(apr_pool_t *pool, apr_int64_t uid,
                                         const char *question_id);

/* The whole catalogue with `uid`'s sealed responses: rows of id, question,
 * response_sealed (NULL: not answered), by id. */
acct_store_rc acct_security_questions_list(acct_store *st, apr_pool_t *pool,
                                           apr_int64_t uid, acct_rows **rows);

typedef struct acct_security_answer {
    apr_int64_t question_id;
    const char *response_sealed;
} acct_security_answer;

/*
 * Replaces `uid`'s answers by the `n` of `answers` (already sealed): the
 * user's row is locked first, so that requests of one user replace the
 * answers one at a time.
 */
acct_store_rc acct_security_answers_replace(acct_store *st, apr_pool_t *pool,
                                            apr_int64_t uid,
                                            const acct_security_answer *answers,
                                            int n);

#endif
