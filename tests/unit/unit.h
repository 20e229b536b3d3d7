/* Scaffolding shared by the cmocka unit tests: the cmocka include prologue,
 * a pool fixture, row-naming checks for table-driven tests and main()'s
 * body.  Header-only; include it first, before the file's own headers. */
#ifndef UNIT_H
#define UNIT_H

/* cmocka.h needs these, in this order, before it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_pools.h>

/* ------------------------------------------------------------------------
 * Pool fixture
 * ------------------------------------------------------------------------ */

/* The test's pool: created by unit_pool_setup, destroyed by
 * unit_pool_teardown.  One per test program (static). */
static apr_pool_t *pool;

static inline int unit_pool_setup(void **state)
{
    return apr_pool_create(&pool, NULL) == APR_SUCCESS ? 0 : -1;
}

static inline int unit_pool_teardown(void **state)
{
    apr_pool_destroy(pool);
    return 0;
}

/* A test that gets a fresh `pool` of its own. */
#define UNIT_TEST(f)                                                         \
    cmocka_unit_test_setup_teardown(f, unit_pool_setup, unit_pool_teardown)

/* ------------------------------------------------------------------------
 * Checks that name the failing row of a table-driven test
 * ------------------------------------------------------------------------ */

/* Prints "<label>: <cond>\n", the label formatted from `fmt`. */
static inline void unit_row_error(const char *cond, const char *fmt, ...)
    CMOCKA_PRINTF_ATTRIBUTE(2, 3);

static inline void unit_row_error(const char *cond, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vprint_error(fmt, ap);
    va_end(ap);
    print_error(": %s\n", cond);
}

/* Fails the test unless `cond`, naming the row with a printf-style label.
 * `text` is the condition as written: each public macro stringifies its own
 * argument, so macros in it (NULL...) are printed unexpanded.  fail() stays
 * in the macro so cmocka reports the caller's line. */
#define UNIT_CHECK_AS(cond, text, ...)                                       \
    do {                                                                     \
        if (!(cond)) {                                                       \
            unit_row_error((text), __VA_ARGS__);                             \
            fail();                                                          \
        }                                                                    \
    } while (0)

/* Row named by a printf-style label: "<label>: <cond>". */
#define UNIT_CHECKF(cond, ...) UNIT_CHECK_AS(cond, #cond, __VA_ARGS__)

/* Row named by a string: "<label>: <cond>". */
#define UNIT_CHECK(label, cond) UNIT_CHECK_AS(cond, #cond, "%s", (label))

/* Row named by its index: "case <i>: <cond>". */
#define UNIT_CHECK_CASE(i, cond)                                             \
    UNIT_CHECK_AS(cond, #cond, "case %u", (unsigned)(i))

/* ------------------------------------------------------------------------
 * main()
 * ------------------------------------------------------------------------ */

static inline int unit_run_done(int rc)
{
    apr_terminate();
    return rc;
}

/* Runs the array `tests` between apr_initialize() and apr_terminate(), with
 * the given group fixtures (NULL for none); evaluates to main()'s status:
 *     return UNIT_RUN(tests);                                              */
#define UNIT_RUN_GROUP(tests, group_setup, group_teardown)                   \
    (apr_initialize(),                                                       \
     unit_run_done(cmocka_run_group_tests(tests, group_setup,               \
                                          group_teardown)))

#define UNIT_RUN(tests) UNIT_RUN_GROUP(tests, NULL, NULL)

#endif
