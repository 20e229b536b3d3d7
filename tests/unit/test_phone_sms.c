/* Phone numbers: the SMS runner, with scripts in scratch directories. */
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
 * The SMS runner
 * ------------------------------------------------------------------------ */

static void test_sms_runner(void **state)
{
    const char *dir = scratch_dir(pool), *out, *rec, *cmd;
    apr_time_t start;

    log_capture();
    out = apr_pstrcat(pool, dir, "/args", NULL);
    rec = write_script(pool, dir, "args.sh",
                       "for a in \"$@\"; do printf '<%s>' \"$a\"; done"
                       " >> \"$1\"\n"
                       "echo >> \"$1\"\n");
    /* Quoted words of the command stay one argument each. */
    cmd = apr_psprintf(pool, "%s %s 'two words'", rec, out);
    assert_int_equal(acct_sms_send(pool, cmd, "+15550100", "Your code is 1 2",
                                   ACCT_SMS_TIMEOUT), ACCT_SMS_OK);
    assert_string_equal(read_text(pool, out),
                        apr_psprintf(pool, "<%s><two words><+15550100>"
                                     "<Your code is 1 2>\n", out));
    assert_string_equal(logged, "");

    /* A program found through PATH, as the shell would. */
    assert_int_equal(acct_sms_send(pool, "true", "+15550100", "x",
                                   ACCT_SMS_TIMEOUT), ACCT_SMS_OK);

    /* Exit status 1: a failure, logged with the start of stderr. */
    cmd = write_script(pool, dir, "fail.sh",
                       "echo 'gateway said no' >&2\nexit 1\n");
    assert_int_equal(acct_sms_send(pool, cmd, "+15550100",
                                   "Your code is 123456",
                                   ACCT_SMS_TIMEOUT), ACCT_SMS_FAILED);
    assert_non_null(strstr(logged, "exited with status 1: gateway said no"));
    assert_non_null(strstr(logged, "+15550100"));
    assert_null(strstr(logged, "123456"));

    /* Killed by a signal. */
    log_capture();
    cmd = write_script(pool, dir, "signal.sh", "kill -TERM $$\n");
    assert_int_equal(acct_sms_send(pool, cmd, "+15550100", "x",
                                   ACCT_SMS_TIMEOUT), ACCT_SMS_FAILED);
    assert_non_null(strstr(logged, "killed by signal"));

    /* A program that does not finish: killed at the deadline. */
    log_capture();
    cmd = write_script(pool, dir, "slow.sh", "exec sleep 30\n");
    start = apr_time_now();
    assert_int_equal(acct_sms_send(pool, cmd, "+15550100", "x",
                                   apr_time_from_msec(300)),
                     ACCT_SMS_TIMED_OUT);
    assert_true(apr_time_now() - start < apr_time_from_sec(3));
    assert_non_null(strstr(logged, "did not finish within 300 ms"));

    /* Also when it closed stderr and went on running. */
    log_capture();
    cmd = write_script(pool, dir, "quiet.sh", "exec 2>&-\nexec sleep 30\n");
    assert_int_equal(acct_sms_send(pool, cmd, "+15550100", "x",
                                   apr_time_from_msec(300)),
                     ACCT_SMS_TIMED_OUT);

    /* A program that cannot run. */
    log_capture();
    assert_int_equal(acct_sms_send(pool, "/nonexistent/sms-send", "+15550100",
                                   "x", ACCT_SMS_TIMEOUT), ACCT_SMS_FAILED);
    assert_non_null(strstr(logged, "cannot run /nonexistent/sms-send"));

    /* No command. */
    log_capture();
    assert_int_equal(acct_sms_send(pool, NULL, "+15550100", "x",
                                   ACCT_SMS_TIMEOUT), ACCT_SMS_UNCONFIGURED);
    assert_int_equal(acct_sms_send(pool, "   ", "+15550100", "x",
                                   ACCT_SMS_TIMEOUT), ACCT_SMS_UNCONFIGURED);
    assert_non_null(strstr(logged, "[3] "));
    assert_non_null(strstr(logged, "AcctapiSmsCommand is not set"));
    scratch_remove(pool, dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_sms_runner),
    };

    return UNIT_RUN_GROUP(tests, group_setup, group_teardown);
}
