/* Phone numbers: the send and verify handlers on a migrated SQLite database:
 * validation, expiry and replacement, wrong codes, replay, send failures. */
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
 * Handlers
 * ------------------------------------------------------------------------ */

#define UK_BODY "{\"iso_code\":\"gb\",\"phone_number\":\"020 7946 0018\"}"
#define UK_E164 "+442079460018"
#define US_BODY "{\"iso_code\":\"US\",\"phone_number\":\"+1 (212) 555-0123\"}"

static void test_send_validation(void **state)
{
    env *e = *state;
    reply r;

    r = call(e, &e->who, api_phone_send, "{}");
    assert_int_equal(r.status, 400);
    assert_int_equal(error_count(r), 2);
    assert_string_equal(error_at(r, 0), "iso_code is required|iso_code");
    assert_string_equal(error_at(r, 1),
                        "phone_number is required|phone_number");

    /* "x" is not a field of the route: ignored (docs/conventions.md, "Today's
     * clients") */
    r = call(e, &e->who, api_phone_send,
             "{\"iso_code\":\"XX\",\"phone_number\":\"12ab\",\"x\":1}");
    assert_int_equal(r.status, 400);
    assert_int_equal(error_count(r), 2);
    assert_null(strstr(r.text, "\"field\":\"x\""));
    assert_non_null(strstr(r.text, "iso_code must be an assigned two-letter "
                                   "ISO 3166 country code"));
    assert_non_null(strstr(r.text, acct_phone_reason(ACCT_PHONE_SYNTAX)));

    r = call(e, &e->who, api_phone_send,
             "{\"iso_code\":\"GB\",\"phone_number\":\"+49 30 123456\"}");
    assert_int_equal(r.status, 400);
    assert_string_equal(error_at(r, 0),
                        apr_pstrcat(pool, acct_phone_reason(ACCT_PHONE_MISMATCH),
                                    "|phone_number", NULL));

    r = call(e, &e->who, api_phone_send,
             "{\"iso_code\":null,\"phone_number\":5550123}");
    assert_int_equal(r.status, 400);
    assert_string_equal(error_at(r, 0), "iso_code is required|iso_code");
    assert_string_equal(error_at(r, 1),
                        "phone_number must be a string|phone_number");

    r = call(e, &e->who, api_phone_verify, "{\"otp_code\":\"12345\"}");
    assert_int_equal(r.status, 400);
    assert_string_equal(error_at(r, 0), "otp_code must be 6 digits|otp_code");
    r = call(e, &e->who, api_phone_verify, "{}");
    assert_string_equal(error_at(r, 0), "otp_code is required|otp_code");
    assert_int_equal(messages_sent(e), 0);
}

static void test_send_and_verify(void **state)
{
    env *e = *state;
    const char *code, *number, *hash;
    reply r;

    r = call(e, &e->who, api_phone_verify, verify_body("123456"));
    assert_int_equal(r.status, 400);
    assert_string_equal(error_at(r, 0),
                        "No verification code is pending; request one first|");

    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.text, "{}");
    code = last_code(e, &number);
    assert_string_equal(number, UK_E164);
    assert_string_equal(code, acct_phone_code(pool, key_a, sizeof(key_a),
                                              e->who.user_id, UK_E164, e->now));
    /* Stored: the number, the country, the issue time, the hash only. */
    assert_string_equal(pending_column(e, e->who.user_id, "phone_number"),
                        UK_E164);
    assert_string_equal(pending_column(e, e->who.user_id, "iso_code"), "GB");
    hash = pending_column(e, e->who.user_id, "code_hash");
    assert_string_equal(hash, acct_phone_code_hash(pool, key_a, sizeof(key_a),
                                                   e->who.user_id, UK_E164,
                                                   code));
    assert_string_equal(pending_column(e, e->who.user_id, "expires"),
                        acct_i64(pool, e->now + 600));

    /* A resend before expiry: the same code, the same row. */
    e->now += 300;
    r = call(e, &e->who, api_phone_send,
             "{\"iso_code\":\"GB\",\"phone_number\":\"+44 20 7946 0018\"}");
    assert_int_equal(r.status, 200);
    assert_int_equal(messages_sent(e), 2);
    assert_string_equal(last_code(e, NULL), code);
    assert_string_equal(pending_column(e, e->who.user_id, "issued"),
                        acct_i64(pool, e->now - 300));

    /* Verified within the 10 minutes. */
    e->now += 299;
    r = call(e, &e->who, api_phone_verify, verify_body(code));
    assert_int_equal(r.status, 200);
    assert_string_equal(r.text, "{}");
    assert_string_equal(verified_number(e, e->who.user_id), UK_E164);
    assert_null(pending_column(e, e->who.user_id, "user_id"));

    /* Once only. */
    r = call(e, &e->who, api_phone_verify, verify_body(code));
    assert_int_equal(r.status, 400);

    /* Changing the number takes a delete first. */
    r = call(e, &e->who, api_phone_send, US_BODY);
    assert_int_equal(r.status, 400);
    assert_string_equal(error_at(r, 0),
                        "A verified phone number is already set; delete it "
                        "before adding another|phone_number");
    assert_int_equal(messages_sent(e), 2);

    r = call(e, &e->who, api_phone_delete, NULL);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.text, "{}");
    assert_null(verified_number(e, e->who.user_id));
    r = call(e, &e->who, api_phone_delete, NULL);
    assert_int_equal(r.status, 200);

    r = call(e, &e->who, api_phone_send, US_BODY);
    assert_int_equal(r.status, 200);
    assert_string_equal(last_code(e, &number), acct_phone_code(
        pool, key_a, sizeof(key_a), e->who.user_id, "+12125550123", e->now));
    assert_string_equal(number, "+12125550123");
    /* Delete also drops the pending code. */
    r = call(e, &e->who, api_phone_delete, NULL);
    assert_null(pending_column(e, e->who.user_id, "user_id"));
}

static void test_expiry_and_replacement(void **state)
{
    env *e = *state;
    const char *first, *second;
    reply r;

    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 200);
    first = last_code(e, NULL);

    /* At 10 minutes the code is gone. */
    e->now += 600;
    r = call(e, &e->who, api_phone_verify, verify_body(first));
    assert_int_equal(r.status, 400);
    assert_string_equal(error_at(r, 0),
                        "The verification code has expired; request a new one|");

    /* A send after expiry issues a new code. */
    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 200);
    second = last_code(e, NULL);
    assert_string_equal(pending_column(e, e->who.user_id, "issued"),
                        acct_i64(pool, e->now));
    assert_string_not_equal(first, second);

    /* Another number replaces the pending one at once. */
    e->now += 10;
    r = call(e, &e->who, api_phone_send, US_BODY);
    assert_int_equal(r.status, 200);
    assert_string_equal(pending_column(e, e->who.user_id, "phone_number"),
                        "+12125550123");
    r = call(e, &e->who, api_phone_verify, verify_body(second));
    assert_int_equal(r.status, 400);
    r = call(e, &e->who, api_phone_verify, verify_body(last_code(e, NULL)));
    assert_int_equal(r.status, 200);
    assert_string_equal(verified_number(e, e->who.user_id), "+12125550123");
}

static void test_wrong_codes_limited(void **state)
{
    env *e = *state;
    const char *code, *wrong;
    reply r;
    int i;

    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 200);
    code = last_code(e, NULL);
    wrong = other_code(code);
    for (i = 1; i <= 5; i++) {
        r = call(e, &e->who, api_phone_verify, verify_body(wrong));
        UNIT_CHECKF(r.status == 400, "attempt %d: %d", i, r.status);
        assert_string_equal(error_at(r, 0),
                            "Invalid verification code|otp_code");
        /* Counted although the answer rolled the transaction back. */
        assert_string_equal(pending_column(e, e->who.user_id,
                                           "failed_attempts"),
                            acct_i64(pool, i));
    }
    /* Locked: even the right code, until the code expires. */
    e->now += 100;
    r = call(e, &e->who, api_phone_verify, verify_body(code));
    assert_int_equal(r.status, 429);
    assert_string_equal(error_at(r, 0), "Too many requests|");
    assert_string_equal(r.retry_after, "500");

    /* A resend before expiry is the same code and stays locked. */
    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 200);
    assert_string_equal(last_code(e, NULL), code);
    r = call(e, &e->who, api_phone_verify, verify_body(code));
    assert_int_equal(r.status, 429);

    /* After expiry a send starts over with a new code. */
    e->now += 500;
    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 200);
    assert_string_equal(pending_column(e, e->who.user_id, "failed_attempts"),
                        "0");
    r = call(e, &e->who, api_phone_verify, verify_body(last_code(e, NULL)));
    assert_int_equal(r.status, 200);
}

static void test_other_user_and_replay(void **state)
{
    env *e = *state;
    acct_principal other;
    const char *code;
    reply r;

    unit_identity(e->db, "phone-other", 0, "*", &other);
    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 200);
    code = last_code(e, NULL);

    /* Another user's verify never sees this user's code. */
    r = call(e, &other, api_phone_verify, verify_body(code));
    assert_int_equal(r.status, 400);
    assert_null(verified_number(e, other.user_id));
    /* ... nor do their wrong attempts count against it. */
    assert_string_equal(pending_column(e, e->who.user_id, "failed_attempts"),
                        "0");

    /* The same number for the other user: a code of its own. */
    r = call(e, &other, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 200);
    assert_string_not_equal(last_code(e, NULL), code);

    r = call(e, &e->who, api_phone_verify, verify_body(code));
    assert_int_equal(r.status, 200);
    r = call(e, &e->who, api_phone_verify, verify_body(code));
    assert_int_equal(r.status, 400);
    assert_null(verified_number(e, other.user_id));
}

static void test_send_failures(void **state)
{
    env *e = *state;
    const char *code;
    reply r;

    /* Without the secret key: 503, logged, nothing stored. */
    log_capture();
    e->settings.seal_key = NULL;
    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 503);
    assert_string_equal(error_at(r, 0), "Service Unavailable|");
    r = call(e, &e->who, api_phone_verify, verify_body("123456"));
    assert_int_equal(r.status, 503);
    assert_non_null(strstr(logged, "AcctapiSecretKeyFile is not set"));
    assert_null(pending_column(e, e->who.user_id, "user_id"));
    e->settings.seal_key = key_a;

    /* No SMS command: 503, logged; the code is kept. */
    log_capture();
    e->settings.sms_command = NULL;
    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 503);
    assert_non_null(strstr(logged, "AcctapiSmsCommand is not set"));
    assert_non_null(pending_column(e, e->who.user_id, "user_id"));

    /* A failing gateway: 503; the retry sends the code issued first. */
    e->settings.sms_command = write_script(pool, e->dir, "down.sh", "exit 3\n");
    e->now += 5;
    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 503);
    assert_non_null(strstr(logged, "exited with status 3"));
    assert_int_equal(messages_sent(e), 0);
    e->settings.sms_command = e->sms_ok;
    e->now += 5;
    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 200);
    code = last_code(e, NULL);
    assert_string_equal(code, acct_phone_code(pool, key_a, sizeof(key_a),
                                              e->who.user_id, UK_E164,
                                              e->now - 10));

    /* A new key: the old code could never verify, so a new one is issued. */
    e->settings.seal_key = key_b;
    r = call(e, &e->who, api_phone_send, UK_BODY);
    assert_int_equal(r.status, 200);
    assert_string_not_equal(last_code(e, NULL), code);
    r = call(e, &e->who, api_phone_verify, verify_body(code));
    assert_int_equal(r.status, 400);
    r = call(e, &e->who, api_phone_verify, verify_body(last_code(e, NULL)));
    assert_int_equal(r.status, 200);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        ENV_TEST(test_send_validation),
        ENV_TEST(test_send_and_verify),
        ENV_TEST(test_expiry_and_replacement),
        ENV_TEST(test_wrong_codes_limited),
        ENV_TEST(test_other_user_and_replay),
        ENV_TEST(test_send_failures),
    };

    return UNIT_RUN_GROUP(tests, group_setup, group_teardown);
}
