/* Phone numbers: the preferences handlers and the pending-number model, on
 * a migrated SQLite database. */
#include "unit.h"

#include <apr_dbd.h>
#include <apr_file_io.h>
#include <apr_hash.h>
#include <apr_strings.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit_db.h"
#include "acct_auth.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "acct_log.h"
#include "acct_phone.h"
#include "acct_sms.h"
#include "acct_tokens.h"
#include "api_handlers.h"

#include "unit_phone.h"

/* ------------------------------------------------------------------------
 * Preferences
 * ------------------------------------------------------------------------ */

/* A second token of the same user: another OAuth client. */
static void second_token(env *e, acct_principal *who)
{
    apr_int64_t id;
    acct_ident_result res;
    acct_store_rc src;
    const char *token;

    assert_int_equal(acct_token_create(e->db->store, pool, e->who.user_id,
                                       "second", "*", 0, e->now, &id, &token,
                                       &res), ACCT_IDENT_OK);
    assert_int_equal(acct_authenticate(e->db->store, pool,
                                       apr_pstrcat(pool, "Bearer ", token, NULL),
                                       e->now, who, &src), ACCT_AUTH_OK);
    assert_string_not_equal(who->client, e->who.client);
    assert_int_equal(who->user_id, e->who.user_id);
}

/* {"p":"xxx..."}: exactly `chars` characters, with `unit` repeated. */
static const char *doc_of_length(size_t chars, const char *unit)
{
    size_t n = chars - strlen("{\"p\":\"\"}"), i;
    char *s = apr_palloc(pool, n * strlen(unit) + 16), *p = s;

    assert_non_null(s);
    if (!s) {
        return NULL; /* unreached; tells the compiler sprintf gets memory */
    }
    p += sprintf(p, "{\"p\":\"");
    for (i = 0; i < n; i++) {
        p += sprintf(p, "%s", unit);
    }
    sprintf(p, "\"}");
    return s;
}

static void test_preferences(void **state)
{
    env *e = *state;
    acct_principal second, other;
    const char *doc;
    reply r;

    r = call(e, &e->who, api_preferences_get, NULL);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.text, "{}");

    r = call(e, &e->who, api_preferences_put,
             "{\"theme\":\"dark\",\"sizes\":[1,2.5,null],\"n\":{\"a\":true}}");
    assert_int_equal(r.status, 200);
    assert_string_equal(r.text,
                        "{\"theme\":\"dark\",\"sizes\":[1,2.5,null],"
                        "\"n\":{\"a\":true}}");
    r = call(e, &e->who, api_preferences_get, NULL);
    assert_string_equal(r.text,
                        "{\"theme\":\"dark\",\"sizes\":[1,2.5,null],"
                        "\"n\":{\"a\":true}}");

    /* Another token of the same user is another client. */
    second_token(e, &second);
    r = call(e, &second, api_preferences_get, NULL);
    assert_string_equal(r.text, "{}");
    r = call(e, &second, api_preferences_put, "{\"theme\":\"light\"}");
    assert_int_equal(r.status, 200);
    r = call(e, &e->who, api_preferences_get, NULL);
    assert_non_null(strstr(r.text, "dark"));
    r = call(e, &second, api_preferences_get, NULL);
    assert_string_equal(r.text, "{\"theme\":\"light\"}");

    /* And another user sees nothing of either. */
    unit_identity(e->db, "prefs-other", 0, "*", &other);
    r = call(e, &other, api_preferences_get, NULL);
    assert_string_equal(r.text, "{}");

    /* PUT replaces the whole document. */
    r = call(e, &e->who, api_preferences_put, "{}");
    assert_int_equal(r.status, 200);
    r = call(e, &e->who, api_preferences_get, NULL);
    assert_string_equal(r.text, "{}");

    /* At most 65535 characters, serialised; characters, not bytes. */
    doc = doc_of_length(65535, "x");
    r = call(e, &e->who, api_preferences_put, doc);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.text, doc);
    doc = doc_of_length(65536, "x");
    r = call(e, &e->who, api_preferences_put, doc);
    assert_int_equal(r.status, 400);
    assert_string_equal(error_at(r, 0),
                        "Preferences may not exceed 65535 characters|");
    r = call(e, &e->who, api_preferences_get, NULL);
    assert_int_equal(strlen(r.text), 65535);
    doc = doc_of_length(65535, "\xc3\xa9");
    r = call(e, &e->who, api_preferences_put, doc);
    assert_int_equal(r.status, 200);
    r = call(e, &e->who, api_preferences_get, NULL);
    assert_string_equal(r.text, doc);
}

static void test_preferences_not_object(void **state)
{
    env *e = *state;
    acct_req *req = unit_req(e->db, &e->who);
    const char *text;
    int status;

    req->body = acct_json_own(pool, json_array());
    text = unit_call(req, api_preferences_put, &status);
    assert_int_equal(status, 400);
    assert_non_null(strstr(text, "Preferences must be a JSON object"));
}

/* The verification's storage functions, without the handlers. */
static void test_pending_model(void **state)
{
    env *e = *state;
    acct_store *st = e->db->store;
    apr_pool_t *p = e->db->pool;
    apr_int64_t uid = e->who.user_id;
    const char *number = "x";
    acct_phone_pending pd;
    int n = -1, i;

    assert_int_equal(acct_phone_verified_get(st, p, uid, &number),
                     ACCT_STORE_OK);
    assert_null(number);
    assert_int_equal(acct_phone_pending_get(st, p, uid, &pd), ACCT_STORE_OK);
    assert_false(pd.found);

    assert_int_equal(acct_phone_pending_issue(st, p, uid, "GB",
                                              "+447700900123", "h1", e->now,
                                              0), ACCT_STORE_OK);
    /* a live code for the same number stays as it is, unless forced */
    assert_int_equal(acct_phone_pending_issue(st, p, uid, "GB",
                                              "+447700900123", "h2",
                                              e->now + 5, 0), ACCT_STORE_OK);
    assert_int_equal(acct_phone_pending_get(st, p, uid, &pd), ACCT_STORE_OK);
    assert_true(pd.found && pd.complete && pd.issued_ok);
    assert_string_equal(pd.code_hash, "h1");
    assert_int_equal(pd.issued, e->now);
    assert_int_equal(pd.expires, e->now + ACCT_PHONE_CODE_TTL);
    assert_int_equal(acct_phone_pending_issue(st, p, uid, "GB",
                                              "+447700900123", "h2",
                                              e->now + 5, 1), ACCT_STORE_OK);
    assert_int_equal(acct_phone_pending_get(st, p, uid, &pd), ACCT_STORE_OK);
    assert_string_equal(pd.code_hash, "h2");

    /* wrong attempts count up to the limit, then lock */
    for (i = 0; i < ACCT_PHONE_MAX_ATTEMPTS; i++) {
        assert_int_equal(acct_phone_pending_miss(st, p, uid, &pd, &n),
                         ACCT_STORE_OK);
        assert_int_equal(n, 1);
    }
    assert_int_equal(acct_phone_pending_miss(st, p, uid, &pd, &n),
                     ACCT_STORE_OK);
    assert_int_equal(n, 0);
    assert_int_equal(acct_phone_verify(st, p, uid, &pd, e->now + 6, &n),
                     ACCT_STORE_OK);
    assert_int_equal(n, 0);

    /* a fresh code verifies once */
    assert_int_equal(acct_phone_pending_issue(st, p, uid, "US",
                                              "+12025550123", "h3",
                                              e->now + 10, 0), ACCT_STORE_OK);
    assert_int_equal(acct_phone_pending_get(st, p, uid, &pd), ACCT_STORE_OK);
    assert_int_equal(pd.attempts, 0);
    assert_int_equal(acct_phone_verify(st, p, uid, &pd, e->now + 11, &n),
                     ACCT_STORE_OK);
    assert_int_equal(n, 1);
    assert_int_equal(acct_phone_verify(st, p, uid, &pd, e->now + 11, &n),
                     ACCT_STORE_OK);
    assert_int_equal(n, 0);
    assert_int_equal(acct_phone_verified_get(st, p, uid, &number),
                     ACCT_STORE_OK);
    assert_string_equal(number, "+12025550123");

    assert_int_equal(acct_phone_number_delete(st, p, uid), ACCT_STORE_OK);
    assert_int_equal(acct_phone_verified_get(st, p, uid, &number),
                     ACCT_STORE_OK);
    assert_null(number);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        ENV_TEST(test_preferences),
        ENV_TEST(test_preferences_not_object),
        ENV_TEST(test_pending_model),
    };

    return UNIT_RUN_GROUP(tests, group_setup, group_teardown);
}
