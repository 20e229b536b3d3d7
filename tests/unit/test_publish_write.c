/* Zone publishing: the atomic write of zone files. */
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
 * The atomic write
 * -------------------------------------------------------------------- */

static void test_write_and_remove(void **state)
{
    const char *dir = scratch_dir(pool);
    const char *path = apr_pstrcat(pool, dir, "/x.example.zone", NULL);
    mode_t old = umask(077);
    struct stat sb;

    log_capture();
    assert_int_equal(acct_publish_write(pool, dir, "x.example.zone", "one\n",
                                        4), 1);
    umask(old);
    assert_string_equal(slurp(pool, path), "one\n");
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0644);
    /* The same bytes again: the file is left alone (named sees no change). */
    assert_int_equal(acct_publish_write(pool, dir, "x.example.zone", "one\n",
                                        4), 0);
    /* Same length, other bytes; then longer; then empty. */
    assert_int_equal(acct_publish_write(pool, dir, "x.example.zone", "two\n",
                                        4), 1);
    assert_string_equal(slurp(pool, path), "two\n");
    assert_int_equal(acct_publish_write(pool, dir, "x.example.zone",
                                        "three\n", 6), 1);
    assert_string_equal(slurp(pool, path), "three\n");
    assert_int_equal(acct_publish_write(pool, dir, "x.example.zone", "", 0),
                     1);
    assert_string_equal(slurp(pool, path), "");
    /* No temporary file is left behind. */
    assert_string_equal(listing(pool, dir), "x.example.zone");

    /* Each version is strictly newer than the one it replaced, however
     * fast they follow each other (a nameserver skips a file that is not
     * newer than the one it loaded), and a time set ahead is kept ahead. */
    {
        struct timespec ahead[2] = {{0, UTIME_OMIT}, {0, 0}}, before;
        int i;

        ahead[1].tv_sec = time(NULL) + 3600;
        ahead[1].tv_nsec = 999999999L;
        assert_int_equal(utimensat(AT_FDCWD, path, ahead, 0), 0);
        for (i = 0; i < 20; i++) {
            assert_int_equal(stat(path, &sb), 0);
            before = sb.st_mtim;
            assert_int_equal(acct_publish_write(pool, dir, "x.example.zone",
                                                i % 2 ? "a\n" : "b\n", 2),
                             1);
            assert_int_equal(stat(path, &sb), 0);
            assert_true(sb.st_mtim.tv_sec > before.tv_sec
                        || (sb.st_mtim.tv_sec == before.tv_sec
                            && sb.st_mtim.tv_nsec > before.tv_nsec));
        }
        assert_true(sb.st_mtim.tv_sec == ahead[1].tv_sec + 1);
        assert_int_equal(sb.st_mtim.tv_nsec, 19);
    }

    assert_int_equal(acct_publish_remove(pool, dir, "x.example.zone"), 1);
    assert_int_equal(acct_publish_remove(pool, dir, "x.example.zone"), 0);
    assert_string_equal(listing(pool, dir), "");
    assert_true(log_quiet());

    /* A directory that cannot be written: -1, logged, nothing left. */
    assert_int_equal(acct_publish_write(pool, apr_pstrcat(pool, dir, "/none",
                                                          NULL),
                                        "y.zone", "x", 1), -1);
    assert_true(log_has("zone publishing: cannot create"));
    assert_string_equal(listing(pool, dir), "");
    scratch_remove(pool, dir);
}

/* A large file round-trips and compares (the comparison reads in chunks). */
static void test_write_large(void **state)
{
    const char *dir = scratch_dir(pool);
    apr_size_t len = 300000, i;
    char *text = apr_palloc(pool, len + 1);

    for (i = 0; i < len; i++) {
        text[i] = (char)('a' + i % 26);
    }
    text[len] = '\0';
    assert_int_equal(acct_publish_write(pool, dir, "big.zone", text, len), 1);
    assert_int_equal(acct_publish_write(pool, dir, "big.zone", text, len), 0);
    text[len - 1] = '!';
    assert_int_equal(acct_publish_write(pool, dir, "big.zone", text, len), 1);
    assert_string_equal(slurp(pool, apr_pstrcat(pool, dir, "/big.zone", NULL)),
                        text);
    scratch_remove(pool, dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_write_and_remove),
        UNIT_TEST(test_write_large),
    };

    return UNIT_RUN(tests);
}
