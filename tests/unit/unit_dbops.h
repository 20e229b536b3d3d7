/* Fixtures and helpers shared by the managed-database operation tests
 * (test_dbops_*.c): settings, a fixture of a migrated SQLite database with
 * databases as rows written directly, requests through the route table (so
 * the engine comes from the path as in httpd), and the group fixture that
 * loads apr_dbd's drivers.  Header-only, as unit.h is; include it after
 * unit.h and unit_db.h. */
#ifndef UNIT_DBOPS_H
#define UNIT_DBOPS_H

#include <apr_base64.h>
#include <apr_dbd.h>
#include <apr_strings.h>
#include <jansson.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <string.h>
#include "unit_db.h"
#include "acct_dbbackup.h"
#include "acct_dbcert.h"
#include "acct_json.h"
#include "acct_router.h"
#include "acct_seal.h"
#include "acct_time.h"
#include "api_handlers.h"

#define DAY 86400
#define OP 180   /* the operation time of these tests' settings */

static const unsigned char test_key[ACCT_SEAL_KEY_LEN] = {
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
    17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32
};

static const acct_settings keyed = {
    .referral_url = "https://r.example/", .seal_key = test_key,
    .db_provision_min = 900, .db_provision_max = 1800, .db_operation = OP,
    .db_host_suffix = "db.example.net"
};

static const acct_settings external = {
    .referral_url = "https://r.example/", .seal_key = test_key,
    .db_external = 1, .db_provision_min = 900, .db_provision_max = 1800,
    .db_operation = OP, .db_host_suffix = "db.example.net"
};

static const acct_settings keyless = {
    .referral_url = "https://r.example/", .db_operation = OP,
    .db_host_suffix = "db.example.net"
};

/* What each test works on: the database file, the owner, one database. */
typedef struct fixture {
    unit_db *db;
    acct_principal who;
    apr_int64_t t0;         /* creation time of the databases */
    const acct_settings *settings;
} fixture;

static inline int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));

    f->db = unit_db_open();
    unit_identity(f->db, "owner", 0, "*", &f->who);
    /* A Thursday, 10:00 UTC: days are easy to count from here. */
    assert_int_equal(acct_parse_timestamp("2030-01-10T10:00:00", &f->t0), 0);
    f->settings = &keyed;
    *state = f;
    return 0;
}

static inline int teardown(void **state)
{
    fixture *f = *state;

    unit_db_close(f->db);
    free(f);
    return 0;
}

#define DB_TEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

/* ------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------ */

static inline void sql(fixture *f, const char *text)
{
    assert_int_equal(acct_store_exec_script(f->db->store, f->db->pool, text),
                     ACCT_STORE_OK);
}

static inline apr_int64_t sql_int(fixture *f, const char *text)
{
    acct_rows *rows = NULL;
    apr_int64_t v = -1;

    assert_int_equal(acct_store_select_dynamic(f->db->store, f->db->pool, text,
                                               &rows, 0, NULL), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    assert_int_equal(acct_parse_i64(rows->values[0][0], &v), 0);
    return v;
}

static inline const char *sql_text(fixture *f, const char *text)
{
    acct_rows *rows = NULL;

    assert_int_equal(acct_store_select_dynamic(f->db->store, f->db->pool, text,
                                               &rows, 0, NULL), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    return rows->values[0][0];
}

/* A database row as the create route leaves it, in `status`, created at
 * f->t0, with the root password "initialpassword1" sealed. */
static inline apr_int64_t add_db(fixture *f, const char *engine,
                                 const char *status)
{
    static unsigned n;
    const char *args[6];
    acct_rows *rows = NULL;
    apr_int64_t id;
    const char *sealed;

    args[0] = acct_i64(f->db->pool, f->who.account_id);
    args[1] = engine;
    args[2] = apr_psprintf(f->db->pool, "db%u", ++n);
    args[3] = status;
    args[4] = args[5] = acct_i64(f->db->pool, f->t0);
    assert_int_equal(acct_store_select_dynamic(f->db->store, f->db->pool,
        "INSERT INTO databases (account_id, engine, version, label, region,"
        " type, port, status, updates, root_username, root_password_sealed,"
        " created, updated) VALUES (CAST(%s AS BIGINT), %s, '8.0.30', %s,"
        " 'us-east', 'g6-dedicated-2', 3306, %s,"
        " '{\"frequency\":\"weekly\"}', 'akroot', 'x',"
        " CAST(%s AS BIGINT), CAST(%s AS BIGINT)) RETURNING id",
        &rows, 6, args), ACCT_STORE_OK);
    assert_int_equal(acct_parse_i64(rows->values[0][0], &id), 0);
    sealed = acct_seal(f->db->pool, test_key,
                       apr_psprintf(f->db->pool, "dbpass:%" APR_INT64_T_FMT, id),
                       "initialpassword1");
    sql(f, apr_psprintf(f->db->pool, "UPDATE databases SET"
                        " root_password_sealed = '%s' WHERE id = %"
                        APR_INT64_T_FMT, sealed, id));
    return id;
}

/* What `acctapi-admin database set-status` does: a status, nothing pending. */
static inline void set_status(fixture *f, apr_int64_t id, const char *status)
{
    sql(f, apr_psprintf(f->db->pool, "UPDATE databases SET status = '%s',"
                        " status_next = NULL, status_due = NULL WHERE id = %"
                        APR_INT64_T_FMT, status, id));
}

static inline const char *stored_status(fixture *f, apr_int64_t id)
{
    return sql_text(f, apr_psprintf(f->db->pool, "SELECT status FROM databases"
                                    " WHERE id = %" APR_INT64_T_FMT, id));
}

/* A finished backup row written directly; returns its id. */
static inline apr_int64_t add_backup(fixture *f, apr_int64_t db,
                                     const char *type, apr_int64_t created)
{
    sql(f, apr_psprintf(f->db->pool, "INSERT INTO database_backups"
                        " (database_id, type, label, created) VALUES (%"
                        APR_INT64_T_FMT ", '%s', 'b%" APR_INT64_T_FMT "', %"
                        APR_INT64_T_FMT ")", db, type, created, created));
    return sql_int(f, "SELECT max(id) FROM database_backups");
}

/*
 * Runs `method path` (below /v4) at time `now` with `body` (JSON text or
 * NULL) and X-Filter `filter`, as the user `who`; returns the parsed answer.
 */
static inline json_t *call_as(fixture *f, const acct_principal *who,
                              apr_int64_t now, const char *method,
                              const char *path, const char *body,
                              const char *filter, int *status)
{
    acct_req *req = unit_req(f->db, who);
    acct_match m;
    const char *text;
    json_t *doc;
    int i;

    if (acct_route_match(acct_routes, req->pool, method, path, &m)
        != ACCT_MATCH_FOUND) {
        fail_msg("no route %s %s", method, path);
    }
    req->route = m.route;
    for (i = 0; i < ACCT_MAX_PATH_PARAMS; i++) {
        req->params[i] = m.params[i];
    }
    req->settings = f->settings;
    req->now = now;
    req->filter = filter;
    if (body) {
        req->body = acct_json_own(req->pool, json_loads(body, 0, NULL));
        assert_non_null(req->body);
    }
    text = unit_call(req, m.route->handler, status);
    doc = json_loads(text, 0, NULL);
    assert_non_null(doc);
    return acct_json_own(req->pool, doc);
}

static inline json_t *call(fixture *f, apr_int64_t now, const char *method,
                           const char *path, const char *body, int *status)
{
    return call_as(f, &f->who, now, method, path, body, NULL, status);
}

/* Calls and requires a 200; returns the answer. */
static inline json_t *ok(fixture *f, apr_int64_t now, const char *method,
                         const char *path, const char *body)
{
    int status;
    json_t *doc = call(f, now, method, path, body, &status);

    if (status != 200) {
        fail_msg("%s %s: %d %s", method, path, status,
                 acct_json_dump(f->db->pool, doc, NULL));
    }
    return doc;
}

static inline const char *first_reason(json_t *doc)
{
    return json_string_value(json_object_get(
        json_array_get(json_object_get(doc, "errors"), 0), "reason"));
}

/* Calls and requires `status` with the first error's reason `reason`. */
static inline void refused(fixture *f, apr_int64_t now, const char *method,
                           const char *path, const char *body, int want,
                           const char *reason)
{
    int status;
    json_t *doc = call(f, now, method, path, body, &status);

    if (status != want || !first_reason(doc)
        || (reason && strcmp(first_reason(doc), reason) != 0)) {
        fail_msg("%s %s: %d %s (wanted %d %s)", method, path, status,
                 acct_json_dump(f->db->pool, doc, NULL), want,
                 reason ? reason : "");
    }
}

static inline const char *dbpath(fixture *f, const char *engine, apr_int64_t id,
                                 const char *rest)
{
    return apr_psprintf(f->db->pool, "/databases/%s/instances/%"
                        APR_INT64_T_FMT "%s", engine, id, rest);
}

static inline json_t *list_backups(fixture *f, const char *engine,
                                   apr_int64_t id, apr_int64_t now)
{
    return ok(f, now, "GET", dbpath(f, engine, id, "/backups"), NULL);
}

static inline apr_int64_t results(json_t *envelope)
{
    return json_integer_value(json_object_get(envelope, "results"));
}

static inline json_t *item(json_t *envelope, size_t i)
{
    return json_array_get(json_object_get(envelope, "data"), i);
}

static inline const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static inline const char *ts(fixture *f, apr_int64_t epoch)
{
    return acct_format_timestamp(f->db->pool, epoch);
}

/* 00:00 UTC of the day `days` after the creation day of the databases. */
static inline apr_int64_t midnight(fixture *f, int days)
{
    return f->t0 - f->t0 % DAY + (apr_int64_t)days * DAY;
}

/* apr_dbd keeps its drivers in a pool of its own, made once. */
static inline int group_setup(void **state)
{
    apr_pool_t *root = NULL;

    return apr_pool_create(&root, NULL) == APR_SUCCESS
           && apr_dbd_init(root) == APR_SUCCESS ? 0 : -1;
}

#endif
