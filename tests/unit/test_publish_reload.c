/* Zone publishing: the reload command, waited for and in the background. */
#include "unit.h"

#include <apr_strings.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unit_db.h"
#include "acct_json.h"
#include "acct_log.h"
#include "acct_publish.h"
#include "acct_publish_reload.h"
#include "acct_zone.h"
#include "api_handlers.h"

#include "unit_publish.h"

/* --------------------------------------------------------------------
 * The reload command
 * -------------------------------------------------------------------- */

static void test_reload_waited(void **state)
{
    const char *dir = scratch_dir(pool);
    const char *out = apr_pstrcat(pool, dir, "/args", NULL);

    log_capture();
    assert_int_equal(acct_publish_reload(pool, NULL, apr_psprintf(pool,
        "/bin/sh -c 'echo \"$#:$1\" > %s' sh", out), "example.com"), 0);
    assert_string_equal(slurp(pool, out), "1:example.com\n");
    assert_int_equal(acct_publish_reload(pool, NULL, apr_psprintf(pool,
        "/bin/sh -c 'echo \"$#:$1\" > %s' sh", out), NULL), 0);
    assert_string_equal(slurp(pool, out), "0:\n");
    assert_true(log_quiet());

    /* Failures: the exit status and the start of stderr, on one line. */
    assert_int_equal(acct_publish_reload(pool, NULL, "/bin/sh -c 'echo no zone "
                                         "here >&2; echo more >&2; exit 3' sh",
                                         "x.example"), -1);
    assert_true(log_has("zone reload (x.example): /bin/sh exited with status "
                        "3: no zone here more\n"));
    assert_int_equal(acct_publish_reload(pool, NULL, "/bin/sh -c 'kill -TERM $$' sh",
                                         NULL), -1);
    assert_true(log_has("zone reload (all zones): /bin/sh was killed by "
                        "signal 15"));
    assert_int_equal(acct_publish_reload(pool, NULL, "/nonexistent/rndc reload",
                                         "x.example"), -1);
    /* posix_spawn reports a failed exec, or (where it cannot, as under
     * valgrind) the child exits 127. */
    assert_true(log_has("zone reload (x.example): cannot run "
                        "/nonexistent/rndc")
                || log_has("zone reload (x.example): /nonexistent/rndc exited "
                           "with status 127"));
    assert_int_equal(acct_publish_reload(pool, NULL, "  ", NULL), -1);
    assert_true(log_has("the command is empty"));
    scratch_remove(pool, dir);
}

/* Waits up to `seconds` for `path` to hold `want`. */
static int wait_for_content(apr_pool_t *p, const char *path, const char *want,
                            int seconds)
{
    int i;

    for (i = 0; i < seconds * 20; i++) {
        const char *got = slurp(p, path);

        if (got && strcmp(got, want) == 0) {
            return 1;
        }
        usleep(50000);
    }
    return 0;
}

static void test_reload_background(void **state)
{
    const char *dir = scratch_dir(pool);
    const char *out = apr_pstrcat(pool, dir, "/args", NULL);
    const char *cmd = apr_psprintf(pool,
        "/bin/sh -c 'echo \"$#:$1\" >> %s; sleep 0.5' sh", out);
    apr_array_header_t *both = apr_array_make(pool, 2, sizeof(const char *));
    apr_array_header_t *one = apr_array_make(pool, 1, sizeof(const char *));
    apr_pool_t *owner = NULL;
    apr_time_t start;
    int status;

    log_capture();
    acct_publish_set_confirm_delay(apr_time_from_msec(300));
    assert_int_equal(apr_pool_create(&owner, pool), APR_SUCCESS);
    assert_int_equal(acct_publish_reload_start(owner), APR_SUCCESS);
    APR_ARRAY_PUSH(one, const char *) = "a.example";
    APR_ARRAY_PUSH(both, const char *) = "a.example";
    APR_ARRAY_PUSH(both, const char *) = NULL;
    start = apr_time_now();
    acct_publish_reload_background(NULL, cmd, one);
    /* It returns at once. */
    assert_true(apr_time_now() - start < apr_time_from_msec(400));
    assert_true(wait_for_content(pool, out, "1:a.example\n", 10));
    /* Asked for again and again while the first run goes: merged into one
     * run, a run without a zone covering the zone's. */
    acct_publish_reload_background(NULL, cmd, one);
    acct_publish_reload_background(NULL, cmd, both);
    acct_publish_reload_background(NULL, cmd, one);
    /* Then, the queue quiet, everything run is run once more. */
    assert_true(wait_for_content(pool, out, "1:a.example\n0:\n0:\n", 10));
    usleep(900000);
    assert_string_equal(slurp(pool, out), "1:a.example\n0:\n0:\n");
    /* The worker reaped its children: none is left to this process. */
    assert_int_equal(waitpid(-1, &status, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);

    /* A failure in the background is logged all the same. */
    acct_publish_reload_background(NULL, "/bin/sh -c 'exit 4' sh", one);
    for (status = 0; status < 100 && !log_has("exited with status 4");
         status++) {
        usleep(50000);
    }
    assert_true(log_has("zone reload (a.example): /bin/sh exited with status "
                        "4"));
    usleep(900000);
    apr_pool_destroy(owner);
    scratch_remove(pool, dir);
}

/*
 * The worker belongs to its pool: the pool's cleanup waits for the run
 * under way, runs what is pending and then the confirming run at once
 * (however long its delay), and joins the thread.  Without a worker the
 * caller runs the commands.
 */
static void test_reload_stops_with_its_pool(void **state)
{
    const char *dir = scratch_dir(pool);
    const char *out = apr_pstrcat(pool, dir, "/runs", NULL);
    const char *cmd = apr_psprintf(pool, "/bin/sh -c 'echo start >> %s; "
                                   "sleep 0.5; echo \"$#:$1\" >> %s' sh", out, out);
    apr_array_header_t *a = apr_array_make(pool, 1, sizeof(const char *));
    apr_array_header_t *b = apr_array_make(pool, 1, sizeof(const char *));
    apr_pool_t *owner = NULL;
    int status;

    log_capture();
    acct_publish_set_confirm_delay(apr_time_from_sec(3600));
    assert_int_equal(apr_pool_create(&owner, pool), APR_SUCCESS);
    assert_int_equal(acct_publish_reload_start(owner), APR_SUCCESS);
    APR_ARRAY_PUSH(a, const char *) = "a.example";
    APR_ARRAY_PUSH(b, const char *) = "b.example";
    acct_publish_reload_background(NULL, cmd, a);
    assert_true(wait_for_content(pool, out, "start\n", 10));
    /* Pending while a's run goes on; then the owner goes. */
    acct_publish_reload_background(NULL, cmd, b);
    apr_pool_destroy(owner);
    assert_string_equal(slurp(pool, out),
                        "start\n1:a.example\n" "start\n1:b.example\n"
                        "start\n1:a.example\n" "start\n1:b.example\n");
    assert_int_equal(waitpid(-1, &status, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
    /* No worker now: the caller runs it, and has waited when it returns. */
    acct_publish_reload_background(NULL, cmd, a);
    assert_string_equal(slurp(pool, out),
                        "start\n1:a.example\n" "start\n1:b.example\n"
                        "start\n1:a.example\n" "start\n1:b.example\n"
                        "start\n1:a.example\n");
    assert_true(log_quiet());
    unlink(out);
    scratch_remove(pool, dir);
}

/*
 * The reload commands of one directory never overlap, whichever process
 * runs them; a zone whose file is gone is not named.
 */
static void test_reload_serialised(void **state)
{
    const char *dir = scratch_dir(pool);
    const char *out = apr_pstrcat(pool, dir, ".order", NULL);
    const char *cmd = apr_psprintf(pool, "/bin/sh -c 'echo start$1 >> %s; "
                                   "sleep 0.3; echo end >> %s' sh", out, out);
    apr_array_header_t *zones = apr_array_make(pool, 2, sizeof(const char *));
    pid_t child;
    int status;

    log_capture();
    acct_publish_set_confirm_delay(apr_time_from_sec(3600));
    assert_int_equal(acct_publish_write(pool, dir, "b.example.zone", "b", 1),
                     1);
    APR_ARRAY_PUSH(zones, const char *) = "b.example";
    APR_ARRAY_PUSH(zones, const char *) = "gone.example";
    child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        apr_pool_t *own = NULL;

        apr_pool_create_unmanaged_ex(&own, NULL, NULL);
        _exit(acct_publish_reload(own, dir, cmd, NULL) == 0
              && acct_publish_reload(own, dir, cmd, NULL) == 0 ? 0 : 1);
    }
    acct_publish_reload_background(dir, cmd, zones);
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    for (status = 0; status < 100; status++) {
        const char *got = slurp(pool, out);

        if (got && strlen(got) == strlen("start\nend\n") * 2
                                   + strlen("startb.example\nend\n")) {
            break;
        }
        usleep(50000);
    }
    {
        const char *got = slurp(pool, out);

        assert_non_null(got);
        assert_true(strcmp(got, "start\nend\nstart\nend\nstartb.example\nend\n") == 0
                    || strcmp(got, "start\nend\nstartb.example\nend\nstart\nend\n") == 0
                    || strcmp(got, "startb.example\nend\nstart\nend\nstart\nend\n") == 0);
    }
    assert_true(log_quiet());
    unlink(out);
    acct_publish_remove(pool, dir, "b.example.zone");
    scratch_remove(pool, dir);
}

/*
 * A zone whose name is too long for "<zone>.zone" has its file under the
 * shortened name (acct_publish_zone_file); its reload is not skipped as if
 * the file were gone.
 */
static void test_reload_long_name(void **state)
{
    const char *dir = scratch_dir(pool);
    const char *out = apr_pstrcat(pool, dir, ".args", NULL);
    const char *cmd = apr_psprintf(pool, "/bin/sh -c 'echo \"$#:$1\" >> %s' "
                                   "sh", out);
    const char *label = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"
                        "abcdefgh";
    apr_array_header_t *zones = apr_array_make(pool, 1, sizeof(const char *));
    const char *zone, *file;

    log_capture();
    acct_publish_set_confirm_delay(apr_time_from_sec(3600));
    zone = apr_pstrcat(pool, label, ".", label, ".", label, ".", label,
                       ".example", NULL);
    assert_true(strlen(zone) + strlen(".zone") > 255);
    file = acct_publish_zone_file(pool, zone);
    assert_string_not_equal(file, apr_pstrcat(pool, zone, ".zone", NULL));
    assert_int_equal(acct_publish_write(pool, dir, file, "z", 1), 1);
    APR_ARRAY_PUSH(zones, const char *) = zone;
    acct_publish_reload_background(dir, cmd, zones);
    assert_true(wait_for_content(pool, out,
                                 apr_pstrcat(pool, "1:", zone, "\n", NULL),
                                 10));
    assert_true(log_quiet());
    unlink(out);
    acct_publish_remove(pool, dir, file);
    scratch_remove(pool, dir);
}

/* After a commit: zones.conf changed -> one run without a zone; only a
 * zone's file changed -> one run with the zone. */
static void test_reload_contract(void **state)
{
    fixture *fx = *state;
    apr_pool_t *p = fx->db->pool;
    /* Outside the zone directory: its listing is the module's. */
    const char *out = apr_pstrcat(p, fx->dir, ".args", NULL);
    const char *id;

    /* Runs that confirm are the subject of test_reload_background. */
    acct_publish_set_confirm_delay(apr_time_from_sec(3600));
    fx->settings.zone_reload_command = apr_psprintf(p,
        "/bin/sh -c 'echo \"[$1]\" >> %s' sh", out);
    id = id_of(fx, call(fx, api_domain_create, NULL, NULL,
                        MASTER("Reload.Example"), 200));
    assert_true(wait_for_content(p, out, "[]\n", 10));
    call(fx, api_record_create, id, NULL,
         "{\"type\":\"TXT\",\"name\":\"t\",\"target\":\"v\"}", 200);
    assert_true(wait_for_content(p, out, "[]\n[reload.example]\n", 10));
    /* A change of a disabled domain changes no file: no run. */
    call(fx, api_domain_update, id, NULL, "{\"status\":\"disabled\"}", 200);
    assert_true(wait_for_content(p, out, "[]\n[reload.example]\n[]\n", 10));
    call(fx, api_domain_update, id, NULL, "{\"description\":\"d\"}", 200);
    usleep(300000);
    assert_string_equal(slurp(p, out), "[]\n[reload.example]\n[]\n");
    unlink(out);
    assert_true(log_quiet());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_reload_waited),
        UNIT_TEST(test_reload_background),
        UNIT_TEST(test_reload_stops_with_its_pool),
        UNIT_TEST(test_reload_serialised),
        UNIT_TEST(test_reload_long_name),
        FIXTURE_TEST(test_reload_contract),
    };

    return UNIT_RUN(tests);
}
