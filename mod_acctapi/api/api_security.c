/*
 * Security questions of the acting user: /profile/security-questions.
 * GET lists the whole catalogue with the user's own responses; POST answers
 * exactly three questions, forgets every earlier answer and shows the
 * three it stored.  Responses are
 * stored sealed (acct_seal), bound to their user and question.
 */
#include "api_handlers.h"
#include "acct_body.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "acct_log.h"
#include "acct_seal.h"
#include "acct_security.h"

#include <apr_strings.h>
#include <string.h>

#define RESPONSE_MIN 3
#define RESPONSE_MAX 17
#define FIELD "security_questions"

/* The catalogue joined with the user's answers; answers the error itself. */
static acct_rows *load_questions(acct_req *req, acct_resp *resp)
{
    acct_rows *rows = NULL;
    acct_store *st = NULL;
    acct_store_rc rc;

    rc = acct_req_store(req, &st);
    if (rc == ACCT_STORE_OK) {
        rc = acct_security_questions_list(st, req->pool, req->who->user_id,
                                          &rows);
    }
    if (acct_resp_store_failed(req, resp, rc) != 0) {
        return NULL;
    }
    return rows;
}

/*
 * The catalogue with the user's responses, as GET shows it ({id, question,
 * response}, response null when unanswered); with `answered_only`, the
 * answers alone as the public API's POST answers them, in both names
 * (docs/conventions.md "Names"): question_id and security_question beside GET's
 * id and question.
 */
static void respond_questions(acct_req *req, acct_resp *resp, int answered_only)
{
    const unsigned char *key = acct_seal_key(req, resp);
    acct_rows *rows;
    json_t *list, *doc;
    int i;

    if (!key || !(rows = load_questions(req, resp))) {
        return;
    }
    list = json_array();
    doc = json_object();
    json_object_set_new(doc, FIELD, list);
    for (i = 0; i < rows->nrows; i++) {
        const char *id = acct_rows_get(rows, i, "id");
        const char *question = acct_rows_get(rows, i, "question");
        const char *sealed = acct_rows_get(rows, i, "response_sealed");
        const char *response = NULL;
        json_t *o;

        if (answered_only && !sealed) {
            continue;
        }
        if (sealed) {
            response = acct_unseal(req->pool, key,
                                   acct_security_answer_context(
                                       req->pool, req->who->user_id, id),
                                   sealed);
            if (!response) {
                acct_log(ACCT_LOG_ERR, ACCTLOGNO(00048) "security answer of user %"
                         APR_INT64_T_FMT " to question %s does not open "
                         "with the configured AcctapiSecretKeyFile",
                         req->who->user_id, id);
                acct_resp_error(resp, req->pool, ACCT_HTTP_INTERNAL_SERVER_ERROR, ACCT_R_INTERNAL, NULL);
                json_decref(doc);
                return;
            }
        }
        o = json_object();
        if (answered_only) {
            json_object_set_new(o, "question_id", acct_json_int(id));
            json_object_set_new(o, "security_question", acct_json_str(question));
            json_object_set_new(o, "response", acct_json_str(response));
        }
        json_object_set_new(o, "id", acct_json_int(id));
        json_object_set_new(o, "question", acct_json_str(question));
        if (!answered_only) {
            json_object_set_new(o, "response", acct_json_str(response));
        }
        json_array_append_new(list, o);
    }
    acct_resp_ok(resp, req->pool, doc);
}

void api_security_questions_get(acct_req *req, acct_resp *resp)
{
    respond_questions(req, resp, 0);
}

/* One answer of the request, once validated. */
typedef struct answer {
    int valid_id;
    json_int_t question_id;
    const char *response;
} answer;

/* Is `id` a question of the catalogue (acct_security_questions_list)? */
static int known_question(const acct_rows *catalogue, json_int_t id)
{
    apr_int64_t known;
    int i;

    for (i = 0; i < catalogue->nrows; i++) {
        if (acct_parse_i64(acct_rows_get(catalogue, i, "id"), &known) == 0
            && known == (apr_int64_t)id) {
            return 1;
        }
    }
    return 0;
}

/* Leading and trailing blanks are not part of a response. */
static const char *trimmed(apr_pool_t *pool, const char *s)
{
    const char *end = s + strlen(s);

    while (*s && strchr(" \t\r\n", *s)) {
        s++;
    }
    while (end > s && strchr(" \t\r\n", end[-1])) {
        end--;
    }
    return apr_pstrmemdup(pool, s, (apr_size_t)(end - s));
}

static void item_invalid(acct_req *req, acct_problems *pb, size_t i,
                         const char *key, const char *reason)
{
    acct_problem_add(pb, key ? apr_psprintf(req->pool, FIELD "[%lu].%s",
                                            (unsigned long)i, key)
                             : apr_psprintf(req->pool, FIELD "[%lu]",
                                            (unsigned long)i),
                     reason);
}

/* question_id of item `i`: an integer naming a question not yet answered. */
static void read_question_id(acct_req *req, acct_problems *pb, size_t i,
                             json_t *v, const acct_rows *catalogue,
                             answer *out, size_t seen)
{
    size_t j;

    if (!v) {
        item_invalid(req, pb, i, "question_id", "question_id is required");
    }
    else if (!json_is_integer(v)) {
        item_invalid(req, pb, i, "question_id",
                     "question_id must be an integer");
    }
    else if (!known_question(catalogue, json_integer_value(v))) {
        item_invalid(req, pb, i, "question_id", "Unknown security question");
    }
    else {
        out[i].question_id = json_integer_value(v);
        out[i].valid_id = 1;
        for (j = 0; j < seen; j++) {
            if (out[j].valid_id && out[j].question_id == out[i].question_id) {
                item_invalid(req, pb, i, "question_id",
                             "Each question may be answered only once");
                break;
            }
        }
    }
}

/* response of item `i`: RESPONSE_MIN..RESPONSE_MAX characters once trimmed. */
static void read_response(acct_req *req, acct_problems *pb, size_t i,
                          json_t *v, answer *out)
{
    const char *text;
    size_t len;

    if (!v) {
        item_invalid(req, pb, i, "response", "response is required");
        return;
    }
    if (!json_is_string(v)) {
        item_invalid(req, pb, i, "response", "response must be a string");
        return;
    }
    text = trimmed(req->pool, json_string_value(v));
    len = acct_utf8_length(text);
    if (len < RESPONSE_MIN || len > RESPONSE_MAX
        || strlen(json_string_value(v)) != json_string_length(v)) {
        item_invalid(req, pb, i, "response",
                     apr_psprintf(req->pool, "Length must be %d-%d characters",
                                  RESPONSE_MIN, RESPONSE_MAX));
        return;
    }
    out[i].response = text;
}

/*
 * Validates the body, adding a problem for every fault, and returns its
 * answers (ACCT_SECURITY_ANSWERS_REQUIRED of them when no problem was
 * added).  Items are checked even when their number is wrong, so one answer
 * lists everything to fix.
 */
static answer *read_answers(acct_req *req, acct_problems *pb,
                            const acct_rows *catalogue)
{
    static const char *const settable[] = {FIELD, NULL};
    static const char *const item_settable[] = {"question_id", "response",
                                                NULL};
    json_t *list, *item;
    answer *out;
    size_t i;

    acct_fields_settable(req, pb, settable, NULL);
    list = json_object_get(req->body, FIELD);
    if (!list) {
        acct_field_require(req, pb, FIELD, ACCT_FIELD_ABSENT);
        return NULL;
    }
    if (!json_is_array(list)
        || json_array_size(list) != ACCT_SECURITY_ANSWERS_REQUIRED) {
        acct_problem_add(pb, FIELD,
                         "Exactly 3 security questions must be answered");
        if (!json_is_array(list)) {
            return NULL;
        }
    }
    out = apr_pcalloc(req->pool, (json_array_size(list) + 1) * sizeof(*out));
    json_array_foreach(list, i, item) {
        if (!json_is_object(item)) {
            item_invalid(req, pb, i, NULL,
                         "Must be an object with question_id and response");
            continue;
        }
        /* An answer's other keys (the question's text, as a GET shows it)
         * are ignored like a body's. */
        acct_object_settable(req->pool, pb, item,
                             apr_psprintf(req->pool, FIELD "[%lu].",
                                          (unsigned long)i),
                             item_settable, NULL);
        read_question_id(req, pb, i, json_object_get(item, "question_id"),
                         catalogue, out, i);
        read_response(req, pb, i, json_object_get(item, "response"), out);
    }
    return out;
}

/* Replaces the user's answers by `answers`, sealed. */
static void store_answers(acct_req *req, acct_resp *resp,
                          const unsigned char *key, const answer *answers)
{
    acct_security_answer sealed[ACCT_SECURITY_ANSWERS_REQUIRED];
    int i;

    for (i = 0; i < ACCT_SECURITY_ANSWERS_REQUIRED; i++) {
        sealed[i].question_id = (apr_int64_t)answers[i].question_id;
        sealed[i].response_sealed =
            acct_seal(req->pool, key,
                      acct_security_answer_context(
                          req->pool, req->who->user_id,
                          acct_i64(req->pool, sealed[i].question_id)),
                      answers[i].response);
        if (!sealed[i].response_sealed) {
            acct_log(ACCT_LOG_ERR, ACCTLOGNO(00049) "cannot seal a security answer");
            acct_resp_error(resp, req->pool, ACCT_HTTP_INTERNAL_SERVER_ERROR, ACCT_R_INTERNAL, NULL);
            return;
        }
    }
    acct_resp_store_failed(req, resp,
                           acct_security_answers_replace(
                               req->store, req->pool, req->who->user_id,
                               sealed, ACCT_SECURITY_ANSWERS_REQUIRED));
}

void api_security_questions_answer(acct_req *req, acct_resp *resp)
{
    const unsigned char *key = acct_seal_key(req, resp);
    acct_problems *pb = acct_problems_make(req->pool);
    acct_rows *catalogue;
    answer *answers;

    if (!key || !(catalogue = load_questions(req, resp))) {
        return;
    }
    answers = read_answers(req, pb, catalogue);
    if (acct_problems_any(pb)) {
        acct_resp_problems(resp, req->pool, pb);
        return;
    }
    store_answers(req, resp, key, answers);
    if (!acct_resp_failed(resp)) {
        respond_questions(req, resp, 1);
    }
}
