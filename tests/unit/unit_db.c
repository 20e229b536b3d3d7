#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <apr_dbd.h>
#include <apr_strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit_db.h"
#include "acct_auth.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "acct_log.h"
#include "acct_migrate.h"
#include "acct_tokens.h"
#include "api_catalog.h"

static const acct_settings unit_settings = {0, 0, "https://r.example/"};

/* Core log lines go to stderr, so a failing test shows the database's words. */
static void stderr_sink(acct_log_level level, const char *file, int line,
                        const char *msg, void *baton)
{
    if (level <= ACCT_LOG_WARN) {
        fprintf(stderr, "[core %d] %s:%d: %s\n", (int)level, file, line, msg);
    }
}

unit_db *unit_db_open(void)
{
    apr_pool_t *pool = NULL;
    unit_db *db;
    const char *err = NULL;
    int fd;

    static apr_pool_t *dbd_pool;

    acct_log_set_sink(stderr_sink, NULL);
    if (!dbd_pool) {
        /* apr_dbd keeps its driver table in the pool it is given first. */
        assert_int_equal(apr_pool_create(&dbd_pool, NULL), APR_SUCCESS);
        apr_dbd_init(dbd_pool);
    }
    assert_int_equal(apr_pool_create(&pool, NULL), APR_SUCCESS);
    db = apr_pcalloc(pool, sizeof(*db));
    db->pool = pool;
    snprintf(db->path, sizeof(db->path), "/tmp/acct-unit-XXXXXX");
    fd = mkstemp(db->path);
    assert_true(fd >= 0);
    close(fd);
    if (acct_store_open(&db->store, pool, "sqlite3", db->path, &err)
        != ACCT_STORE_OK) {
        fail_msg("cannot open %s: %s", db->path, err);
    }
    assert_int_equal(acct_migrate(db->store, pool, NULL, NULL), ACCT_STORE_OK);
    return db;
}

void unit_db_close(unit_db *db)
{
    char path[sizeof(db->path)], wal[sizeof(db->path) + 8];

    /* db lives in its own pool: copy the path out before the pool goes. */
    memcpy(path, db->path, sizeof(path));
    apr_pool_destroy(db->pool);
    unlink(path);
    snprintf(wal, sizeof(wal), "%s-wal", path);
    unlink(wal);
    snprintf(wal, sizeof(wal), "%s-shm", path);
    unlink(wal);
}

int unit_db_setup(void **state)
{
    *state = unit_db_open();
    return 0;
}

int unit_db_teardown(void **state)
{
    unit_db_close(*state);
    return 0;
}

static acct_store_rc unit_open_store(acct_req *req, acct_store **out)
{
    *out = ((unit_db *)req->host)->store;
    return ACCT_STORE_OK;
}

acct_req *unit_req(unit_db *db, const acct_principal *who)
{
    acct_req *req = apr_pcalloc(db->pool, sizeof(*req));

    req->pool = db->pool;
    req->query = apr_table_make(db->pool, 2);
    req->who = who;
    req->open_store = unit_open_store;
    req->host = db;
    req->settings = &unit_settings;
    req->now = (apr_int64_t)apr_time_sec(apr_time_now());
    return req;
}

const char *unit_call(acct_req *req, acct_handler *handler, int *status)
{
    acct_resp resp;
    apr_size_t len = 0;
    const char *text;

    acct_resp_init(&resp, req->pool);
    handler(req, &resp);
    *status = resp.status;
    /* The bytes the glue would send, a raw body as it is. */
    text = acct_resp_text(&resp, req->pool, &len);
    return text ? text : "";
}

const char *unit_identity(unit_db *db, const char *username, int restricted,
                          const char *scopes, acct_principal *who)
{
    apr_int64_t account, uid, token_id, now = apr_time_sec(apr_time_now());
    acct_ident_result res;
    acct_store_rc src;
    const char *token;

    assert_int_equal(acct_account_create(db->store, db->pool, "Test", now,
                                         &account, &res), ACCT_IDENT_OK);
    assert_int_equal(acct_user_create(db->store, db->pool, account, username,
                                      "u@example.com", restricted, now, &uid,
                                      &res), ACCT_IDENT_OK);
    assert_int_equal(acct_token_create(db->store, db->pool, uid, "unit", scopes,
                                       0, now, &token_id, &token, &res),
                     ACCT_IDENT_OK);
    if (who) {
        assert_int_equal(acct_authenticate(db->store, db->pool,
                                           apr_pstrcat(db->pool, "Bearer ",
                                                       token, NULL),
                                           now, who, &src), ACCT_AUTH_OK);
    }
    return token;
}

apr_int64_t unit_member(unit_db *db, apr_int64_t account, const char *username,
                        int restricted, apr_int64_t now, acct_principal *who)
{
    apr_int64_t uid, token_id;
    acct_ident_result res;
    acct_store_rc src;
    const char *token;

    assert_int_equal(acct_user_create(db->store, db->pool, account, username,
                                      "m@example.com", restricted, now, &uid,
                                      &res), ACCT_IDENT_OK);
    assert_int_equal(acct_token_create(db->store, db->pool, uid, "unit", "*", 0,
                                       now, &token_id, &token, &res),
                     ACCT_IDENT_OK);
    assert_int_equal(acct_authenticate(db->store, db->pool,
                                       apr_pstrcat(db->pool, "Bearer ", token,
                                                   NULL), now, who, &src),
                     ACCT_AUTH_OK);
    return uid;
}

int unit_db_main(const char *name, const struct CMUnitTest *tests,
                 size_t count)
{
    apr_pool_t *root = NULL;
    int rc;

    apr_initialize();
    apr_pool_create(&root, NULL);
    apr_dbd_init(root);
    acct_catalog_init(root);
    acct_auth_hints_init(root);
    rc = _cmocka_run_group_tests(name, tests, count, NULL, NULL);
    apr_terminate();
    return rc;
}
