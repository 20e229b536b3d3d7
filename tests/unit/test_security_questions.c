/* Security: the security questions handlers on a migrated SQLite database. */
#include "unit.h"

#include <apr_dbd.h>
#include <apr_strings.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <string.h>

#include "unit_db.h"
#include "acct_crypto.h"
#include "acct_json.h"
#include "acct_log.h"
#include "acct_seal.h"
#include "acct_security.h"
#include "acct_tfa.h"
#include "acct_totp.h"
#include "api_handlers.h"

#include "unit_security.h"

/* ------------------------------------------------------------------------
 * Security questions
 * ------------------------------------------------------------------------ */

static void test_questions_get(void **state)
{
    unit_db *db = *state;
    acct_principal who;
    json_t *doc, *list, *item;
    size_t i;
    int status;

    unit_identity(db, "quentin", 0, "*", &who);
    doc = call(keyed_req(db, &who), api_security_questions_get, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_object_size(doc), 1);
    list = json_object_get(doc, "security_questions");
    assert_int_equal(json_array_size(list), 18);
    json_array_foreach(list, i, item) {
        UNIT_CHECK_CASE(i, json_object_size(item) == 3);
        UNIT_CHECK_CASE(i, json_integer_value(json_object_get(item, "id"))
                           == (json_int_t)i + 1);
        UNIT_CHECK_CASE(i, json_string_length(json_object_get(item, "question"))
                           > 10);
        UNIT_CHECK_CASE(i, json_is_null(json_object_get(item, "response")));
    }
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(list, 0), "question")),
                        "In what city were you born?");
    json_decref(doc);
}

/* One invalid body and the fields its 400 names, in order. */
static const struct {
    const char *body;
    const char *fields[5];
} invalid_answers[] = {
    {"{}", {"security_questions"}},
    {"{\"security_questions\":null}", {"security_questions"}},
    {"{\"security_questions\":\"1,2,3\"}", {"security_questions"}},
    {"{\"security_questions\":{\"question_id\":1}}", {"security_questions"}},
    /* keys that are not fields of the route are ignored (docs/conventions.md,
     * "Today's clients") */
    {"{\"security_questions\":[],\"two_factor_auth\":true}",
     {"security_questions"}},
    {"{\"security_questions\":[{\"question_id\":1,\"response\":\"abc\"},"
     "{\"question_id\":2,\"response\":\"abc\"}]}", {"security_questions"}},
    {"{\"security_questions\":[{\"question_id\":1,\"response\":\"abc\"},"
     "{\"question_id\":2,\"response\":\"abc\"},{\"question_id\":3,\"response\":"
     "\"abc\"},{\"question_id\":4,\"response\":\"abc\"}]}",
     {"security_questions"}},
    {"{\"security_questions\":[1,{\"question_id\":2,\"response\":\"abc\"},"
     "{\"question_id\":3,\"response\":\"abc\"}]}", {"security_questions[0]"}},
    {"{\"security_questions\":[{\"question_id\":1,\"response\":\"abc\"},"
     "{\"question_id\":2,\"response\":\"ab\",\"answer\":\"x\"},"
     "{\"question_id\":3,\"response\":\"abc\"}]}",
     {"security_questions[1].response"}},
    {"{\"security_questions\":[{\"response\":\"abc\"},"
     "{\"question_id\":2,\"response\":\"abc\"},{\"question_id\":3,\"response\":"
     "\"abc\"}]}", {"security_questions[0].question_id"}},
    {"{\"security_questions\":[{\"question_id\":\"1\",\"response\":\"abc\"},"
     "{\"question_id\":2,\"response\":\"abc\"},{\"question_id\":3,\"response\":"
     "\"abc\"}]}", {"security_questions[0].question_id"}},
    {"{\"security_questions\":[{\"question_id\":1.0,\"response\":\"abc\"},"
     "{\"question_id\":2,\"response\":\"abc\"},{\"question_id\":3,\"response\":"
     "\"abc\"}]}", {"security_questions[0].question_id"}},
    {"{\"security_questions\":[{\"question_id\":1,\"response\":\"abc\"},"
     "{\"question_id\":999,\"response\":\"abc\"},{\"question_id\":0,"
     "\"response\":\"abc\"}]}",
     {"security_questions[1].question_id", "security_questions[2].question_id"}},
    {"{\"security_questions\":[{\"question_id\":2,\"response\":\"abc\"},"
     "{\"question_id\":5,\"response\":\"abc\"},{\"question_id\":2,\"response\":"
     "\"abd\"}]}", {"security_questions[2].question_id"}},
    {"{\"security_questions\":[{\"question_id\":1,\"response\":\"abc\"},"
     "{\"question_id\":2},{\"question_id\":3,\"response\":null}]}",
     {"security_questions[1].response", "security_questions[2].response"}},
    {"{\"security_questions\":[{\"question_id\":1,\"response\":123},"
     "{\"question_id\":2,\"response\":\"ab\"},{\"question_id\":3,\"response\":"
     "\"  ab \\t\"}]}",
     {"security_questions[0].response", "security_questions[1].response",
      "security_questions[2].response"}},
    {"{\"security_questions\":[{\"question_id\":1,\"response\":"
     "\"abcdefghijklmnopqr\"},{\"question_id\":2,\"response\":\"\"},"
     "{\"question_id\":3,\"response\":\"a\\u0000b\"}]}",
     {"security_questions[0].response", "security_questions[1].response",
      "security_questions[2].response"}},
    {"{\"security_questions\":[{\"question_id\":\"x\",\"response\":\"ab\"},"
     "{\"question_id\":1}]}",
     {"security_questions", "security_questions[0].question_id",
      "security_questions[0].response", "security_questions[1].response"}},
};

static void test_questions_validation(void **state)
{
    unit_db *db = *state;
    acct_principal who;
    acct_req *req;
    json_t *doc;
    size_t i, j, n;
    int status;

    unit_identity(db, "valerie", 0, "*", &who);
    answer_questions(db, &who);
    for (i = 0; i < sizeof(invalid_answers) / sizeof(invalid_answers[0]); i++) {
        req = keyed_req(db, &who);
        req->body = body(db, invalid_answers[i].body);
        doc = call(req, api_security_questions_answer, &status);
        UNIT_CHECK_CASE(i, status == 400);
        for (n = 0; n < 5 && invalid_answers[i].fields[n]; n++) {
        }
        UNIT_CHECKF(json_array_size(json_object_get(doc, "errors")) == n,
                    "case %lu: %s", (unsigned long)i,
                    acct_json_dump(db->pool, doc, NULL));
        for (j = 0; j < n; j++) {
            UNIT_CHECKF(error_field(doc, j)
                        && strcmp(error_field(doc, j),
                                  invalid_answers[i].fields[j]) == 0,
                        "case %lu item %lu: %s", (unsigned long)i,
                        (unsigned long)j, acct_json_dump(db->pool, doc, NULL));
        }
        json_decref(doc);
    }
    /* Refusals wrote nothing: the earlier answers stand. */
    assert_int_equal(sql_int(db, "SELECT COUNT(*) AS n FROM security_answers"
                                 " WHERE user_id = CAST(%s AS BIGINT)",
                             who.user_id, "n"), 3);
}

/* The response of question `id` in a security_questions document. */
static json_t *response_of(json_t *doc, json_int_t id)
{
    return json_object_get(json_array_get(json_object_get(doc,
                                                          "security_questions"),
                                          (size_t)id - 1),
                           "response");
}

/*
 * A POST answer: the `n` answers stored, by question id, each under both
 * names (question_id/security_question as the public API, id/question as
 * GET).
 */
static void assert_answers(json_t *doc, const json_int_t *ids,
                           const char *const *responses, size_t n)
{
    json_t *list = json_object_get(doc, "security_questions");
    size_t i;

    assert_int_equal(json_array_size(list), n);
    for (i = 0; i < n; i++) {
        json_t *item = json_array_get(list, i);
        const char *question =
            json_string_value(json_object_get(item, "security_question"));

        assert_int_equal(json_object_size(item), 5);
        assert_int_equal(json_integer_value(json_object_get(item, "question_id")),
                         ids[i]);
        assert_int_equal(json_integer_value(json_object_get(item, "id")), ids[i]);
        assert_non_null(question);
        assert_string_equal(json_string_value(json_object_get(item, "question")),
                            question);
        assert_string_equal(json_string_value(json_object_get(item, "response")),
                            responses[i]);
    }
}

static void test_questions_answer(void **state)
{
    static const char seventeen[] = "ééééééééééééééééé";   /* 17 characters */
    unit_db *db = *state;
    acct_principal who, other;
    acct_req *req;
    acct_rows *rows = NULL;
    const char *args[1];
    json_t *doc;
    int status, i;

    unit_identity(db, "anna", 0, "*", &who);
    unit_identity(db, "bert", 0, "*", &other);
    req = keyed_req(db, &who);
    req->body = body(db, apr_psprintf(db->pool,
        "{\"security_questions\":[{\"question_id\":7,\"response\":\"%s\"},"
        "{\"question_id\":2,\"response\":\"  Fluffy\\t\"},"
        "{\"question_id\":1,\"response\":\"Paris\"}]}", seventeen));
    doc = call(req, api_security_questions_answer, &status);
    assert_int_equal(status, 200);
    assert_answers(doc, (const json_int_t[]){1, 2, 7},
                   (const char *const[]){"Paris", "Fluffy", seventeen}, 3);
    json_decref(doc);
    /* GET: the catalogue with the user's responses. */
    doc = call(keyed_req(db, &who), api_security_questions_get, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_array_size(json_object_get(doc, "security_questions")),
                     18);
    assert_string_equal(json_string_value(response_of(doc, 1)), "Paris");
    assert_string_equal(json_string_value(response_of(doc, 2)), "Fluffy");
    assert_string_equal(json_string_value(response_of(doc, 7)), seventeen);
    assert_true(json_is_null(response_of(doc, 3)));
    json_decref(doc);

    /* An answer's other keys (the question's text, its id as a GET shows
     * them) and the body's are ignored (docs/conventions.md, "Today's
     * clients"). */
    req = keyed_req(db, &who);
    req->body = body(db, apr_psprintf(db->pool,
        "{\"security_questions\":[{\"question_id\":7,\"response\":\"%s\","
        "\"security_question\":\"x\",\"id\":7,\"question\":null},"
        "{\"question_id\":2,\"response\":\"Fluffy\",\"id\":9},"
        "{\"question_id\":1,\"response\":\"Paris\"}],\"userId\":5}",
        seventeen));
    doc = call(req, api_security_questions_answer, &status);
    assert_int_equal(status, 200);
    assert_string_equal(json_string_value(response_of(doc, 2)), "Fluffy");
    json_decref(doc);

    /* Stored sealed, never in clear. */
    args[0] = acct_i64(db->pool, who.user_id);
    assert_int_equal(acct_store_select_dynamic(db->store, db->pool,
        "SELECT question_id, response_sealed FROM security_answers"
        " WHERE user_id = CAST(%s AS BIGINT) ORDER BY question_id",
        &rows, 1, args), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 3);
    for (i = 0; i < rows->nrows; i++) {
        const char *sealed = acct_rows_get(rows, i, "response_sealed");

        UNIT_CHECK_CASE(i, strncmp(sealed, "v1:", 3) == 0);
        UNIT_CHECK_CASE(i, !strstr(sealed, "Paris") && !strstr(sealed, "Fluffy")
                           && !strstr(sealed, "é"));
    }

    /* Another user sees only the catalogue. */
    doc = call(keyed_req(db, &other), api_security_questions_get, &status);
    assert_int_equal(status, 200);
    assert_true(json_is_null(response_of(doc, 1)));
    json_decref(doc);

    /* Answering again forgets the earlier answers. */
    req = keyed_req(db, &who);
    req->body = body(db,
        "{\"security_questions\":[{\"question_id\":3,\"response\":\"Elm\"},"
        "{\"question_id\":18,\"response\":\"Lisbon\"},"
        "{\"question_id\":1,\"response\":\"Lyon\"}]}");
    doc = call(req, api_security_questions_answer, &status);
    assert_int_equal(status, 200);
    assert_answers(doc, (const json_int_t[]){1, 3, 18},
                   (const char *const[]){"Lyon", "Elm", "Lisbon"}, 3);
    json_decref(doc);
    doc = call(keyed_req(db, &who), api_security_questions_get, &status);
    assert_int_equal(status, 200);
    assert_string_equal(json_string_value(response_of(doc, 1)), "Lyon");
    assert_string_equal(json_string_value(response_of(doc, 18)), "Lisbon");
    assert_true(json_is_null(response_of(doc, 2)));
    assert_true(json_is_null(response_of(doc, 7)));
    json_decref(doc);
    assert_int_equal(sql_int(db, "SELECT COUNT(*) AS n FROM security_answers"
                                 " WHERE user_id = CAST(%s AS BIGINT)",
                             who.user_id, "n"), 3);

    /* A sealed response moved to another row no longer opens. */
    sql_run(db, apr_psprintf(db->pool,
        "UPDATE security_answers SET response_sealed = (SELECT response_sealed"
        " FROM security_answers WHERE user_id = %" APR_INT64_T_FMT
        " AND question_id = 1) WHERE user_id = %" APR_INT64_T_FMT
        " AND question_id = 3", who.user_id, who.user_id));
    expect_status(keyed_req(db, &who), api_security_questions_get, 500);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_DB_TEST(test_questions_get),
        UNIT_DB_TEST(test_questions_validation),
        UNIT_DB_TEST(test_questions_answer),
    };

    return UNIT_DB_RUN(tests);
}
