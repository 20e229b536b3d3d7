/* Fixture shared by the unit tests that need a database: a migrated SQLite
 * store through the real apr_dbd driver, on a private temporary file. */
#ifndef UNIT_DB_H
#define UNIT_DB_H

#include <apr_pools.h>

#include "acct_api.h"
#include "acct_store.h"

struct CMUnitTest;

typedef struct unit_db {
    apr_pool_t *pool;
    acct_store *store;
    char path[64];
} unit_db;

/* Creates the database, applies every migration; fails the test on error. */
unit_db *unit_db_open(void);
void unit_db_close(unit_db *db);

/* cmocka fixtures: a fresh migrated database per test, in *state. */
int unit_db_setup(void **state);
int unit_db_teardown(void **state);
#define UNIT_DB_TEST(f) \
    cmocka_unit_test_setup_teardown(f, unit_db_setup, unit_db_teardown)

/*
 * main() of a program of database tests: APR, the apr_dbd drivers and the
 * catalogue cache set up as the module does in a child, then the tests.
 */
int unit_db_main(const char *name, const struct CMUnitTest *tests,
                 size_t count);
#define UNIT_DB_RUN(tests) \
    unit_db_main(#tests, tests, sizeof(tests) / sizeof((tests)[0]))

/* A request over `db` with the given principal (may be NULL: public). */
acct_req *unit_req(unit_db *db, const acct_principal *who);

/* Runs `handler` and returns the serialised response document. */
const char *unit_call(acct_req *req, acct_handler *handler, int *status);

/*
 * A further user of `account` (restricted or not) with a "*" token,
 * authenticated at `now` as the module would: `who` filled; its user id.
 */
apr_int64_t unit_member(unit_db *db, apr_int64_t account, const char *username,
                        int restricted, apr_int64_t now, acct_principal *who);

/* Creates an account, a user and a "*" token; fills `who` as the module would. */
const char *unit_identity(unit_db *db, const char *username, int restricted,
                          const char *scopes, acct_principal *who);

#endif
