/* Security: the security and two-factor handlers without
 * AcctapiSecretKeyFile, on a migrated SQLite database. */
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
 * Without AcctapiSecretKeyFile
 * ------------------------------------------------------------------------ */

static char logged[4096];

static void capture_sink(acct_log_level level, const char *file, int line,
                         const char *msg, void *baton)
{
    if (level <= ACCT_LOG_ERR) {
        strncat(logged, msg, sizeof(logged) - strlen(logged) - 2);
        strcat(logged, "\n");
    }
}

static void test_no_key(void **state)
{
    static acct_handler *const sealing[] = {
        api_security_questions_get, api_security_questions_answer,
        api_tfa_enable, api_tfa_confirm
    };
    unit_db *db = *state;
    acct_principal who;
    acct_req *req;
    size_t i;

    unit_identity(db, "nokey", 0, "*", &who);
    acct_log_set_sink(capture_sink, NULL);
    for (i = 0; i < sizeof(sealing) / sizeof(sealing[0]); i++) {
        logged[0] = '\0';
        req = unit_req(db, &who);   /* seal_key NULL */
        req->body = body(db, i == 3 ? "{\"tfa_code\":\"123456\"}"
                                    : THREE_ANSWERS);
        expect_error(req, sealing[i], 503, NULL, ACCT_R_UNAVAILABLE);
        UNIT_CHECK_CASE(i, strstr(logged, "AcctapiSecretKeyFile is not "
                                          "configured") != NULL);
    }
    /* Turning two-factor off needs no key. */
    expect_status(unit_req(db, &who), api_tfa_disable, 200);
    assert_int_equal(sql_int(db, "SELECT COUNT(*) AS n FROM security_answers"
                                 " WHERE user_id = CAST(%s AS BIGINT)",
                             who.user_id, "n"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_DB_TEST(test_no_key),
    };

    return UNIT_DB_RUN(tests);
}
