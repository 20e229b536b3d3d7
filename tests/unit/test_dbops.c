/* Operations on one managed database (api_dbops.c): automatic backups across
 * days, snapshots and their limits, restore, root credentials, patch, the CA
 * certificate, and every cell of the required-status table they own, on a
 * migrated SQLite database.  Databases are rows written directly; requests go
 * through the route table, so the engine comes from the path as in httpd. */
#include "unit.h"

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

static int setup(void **state)
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

static int teardown(void **state)
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

static void sql(fixture *f, const char *text)
{
    assert_int_equal(acct_store_exec_script(f->db->store, f->db->pool, text),
                     ACCT_STORE_OK);
}

static apr_int64_t sql_int(fixture *f, const char *text)
{
    acct_rows *rows = NULL;
    apr_int64_t v = -1;

    assert_int_equal(acct_store_select_dynamic(f->db->store, f->db->pool, text,
                                               &rows, 0, NULL), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    assert_int_equal(acct_parse_i64(rows->values[0][0], &v), 0);
    return v;
}

static const char *sql_text(fixture *f, const char *text)
{
    acct_rows *rows = NULL;

    assert_int_equal(acct_store_select_dynamic(f->db->store, f->db->pool, text,
                                               &rows, 0, NULL), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    return rows->values[0][0];
}

/* A database row as the create route leaves it, in `status`, created at
 * f->t0, with the root password "initialpassword1" sealed. */
static apr_int64_t add_db(fixture *f, const char *engine, const char *status)
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
static void set_status(fixture *f, apr_int64_t id, const char *status)
{
    sql(f, apr_psprintf(f->db->pool, "UPDATE databases SET status = '%s',"
                        " status_next = NULL, status_due = NULL WHERE id = %"
                        APR_INT64_T_FMT, status, id));
}

static const char *stored_status(fixture *f, apr_int64_t id)
{
    return sql_text(f, apr_psprintf(f->db->pool, "SELECT status FROM databases"
                                    " WHERE id = %" APR_INT64_T_FMT, id));
}

/* A finished backup row written directly; returns its id. */
static apr_int64_t add_backup(fixture *f, apr_int64_t db, const char *type,
                              apr_int64_t created)
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
static json_t *call_as(fixture *f, const acct_principal *who, apr_int64_t now,
                       const char *method, const char *path, const char *body,
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

static json_t *call(fixture *f, apr_int64_t now, const char *method,
                    const char *path, const char *body, int *status)
{
    return call_as(f, &f->who, now, method, path, body, NULL, status);
}

/* Calls and requires a 200; returns the answer. */
static json_t *ok(fixture *f, apr_int64_t now, const char *method,
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

static const char *first_reason(json_t *doc)
{
    return json_string_value(json_object_get(
        json_array_get(json_object_get(doc, "errors"), 0), "reason"));
}

/* Calls and requires `status` with the first error's reason `reason`. */
static void refused(fixture *f, apr_int64_t now, const char *method,
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

static const char *dbpath(fixture *f, const char *engine, apr_int64_t id,
                          const char *rest)
{
    return apr_psprintf(f->db->pool, "/databases/%s/instances/%"
                        APR_INT64_T_FMT "%s", engine, id, rest);
}

static json_t *list_backups(fixture *f, const char *engine, apr_int64_t id,
                            apr_int64_t now)
{
    return ok(f, now, "GET", dbpath(f, engine, id, "/backups"), NULL);
}

static apr_int64_t results(json_t *envelope)
{
    return json_integer_value(json_object_get(envelope, "results"));
}

static json_t *item(json_t *envelope, size_t i)
{
    return json_array_get(json_object_get(envelope, "data"), i);
}

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static const char *ts(fixture *f, apr_int64_t epoch)
{
    return acct_format_timestamp(f->db->pool, epoch);
}

/* 00:00 UTC of the day `days` after the creation day of the databases. */
static apr_int64_t midnight(fixture *f, int days)
{
    return f->t0 - f->t0 % DAY + (apr_int64_t)days * DAY;
}

/* ------------------------------------------------------------------------
 * Automatic backups
 * ------------------------------------------------------------------------ */

static void auto_backups_follow_the_calendar(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "mysql", "active");
    const char *autos = apr_psprintf(f->db->pool, "SELECT count(*) FROM"
                                     " database_backups WHERE database_id = %"
                                     APR_INT64_T_FMT " AND type = 'auto'", id);
    json_t *l, *b;
    int d;

    /* None on the creation day, the first at the next midnight exactly. */
    assert_int_equal(results(list_backups(f, "mysql", id, f->t0 + 3600)), 0);
    assert_int_equal(results(list_backups(f, "mysql", id, midnight(f, 1) - 1)),
                     0);
    l = list_backups(f, "mysql", id, midnight(f, 1));
    assert_int_equal(results(l), 1);
    b = item(l, 0);
    assert_string_equal(str(b, "type"), "auto");
    assert_string_equal(str(b, "label"), "auto20300111");
    assert_string_equal(str(b, "created"), "2030-01-11T00:00:00");
    assert_int_equal(json_object_size(b), 4);
    assert_true(json_is_integer(json_object_get(b, "id")));

    /* Three days on: three, in date order; reading again adds nothing. */
    l = list_backups(f, "mysql", id, f->t0 + 3 * DAY);
    assert_int_equal(results(l), 3);
    for (d = 0; d < 3; d++) {
        assert_string_equal(str(item(l, d), "created"), ts(f, midnight(f, d + 1)));
    }
    list_backups(f, "mysql", id, f->t0 + 3 * DAY);
    assert_int_equal(sql_int(f, autos), 3);

    /* Ten days on: the last seven only, the older ones gone from the table. */
    l = list_backups(f, "mysql", id, f->t0 + 10 * DAY);
    assert_int_equal(results(l), 7);
    assert_string_equal(str(item(l, 0), "created"), ts(f, midnight(f, 4)));
    assert_string_equal(str(item(l, 6), "created"), ts(f, midnight(f, 10)));
    assert_int_equal(sql_int(f, autos), 7);

    /* At a midnight the window holds exactly seven: the eighth expired. */
    l = list_backups(f, "mysql", id, midnight(f, 12));
    assert_int_equal(results(l), 7);
    assert_string_equal(str(item(l, 0), "label"), "auto20300116");

    /* A year later: still seven, and never more than seven rows. */
    assert_int_equal(results(list_backups(f, "mysql", id, f->t0 + 365 * DAY)), 7);
    assert_int_equal(sql_int(f, autos), 7);
}

static void auto_backups_filter_and_paginate(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "postgresql", "active"), now = f->t0 + 5 * DAY;
    const char *path = dbpath(f, "postgresql", id, "/backups");
    int status;
    json_t *l;

    add_backup(f, id, "snapshot", f->t0 + DAY + 600);
    l = call_as(f, &f->who, now, "GET", path, NULL, "{\"type\":\"snapshot\"}",
                &status);
    assert_int_equal(status, 200);
    assert_int_equal(results(l), 1);
    l = call_as(f, &f->who, now, "GET", path, NULL,
                apr_psprintf(f->db->pool, "{\"created\":{\"+gte\":\"%s\"},"
                             "\"type\":\"auto\"}", ts(f, midnight(f, 4))),
                &status);
    assert_int_equal(status, 200);
    assert_int_equal(results(l), 2);
    l = call_as(f, &f->who, now, "GET", path, NULL, "{\"label\":\"x\"}", &status);
    assert_int_equal(status, 400);
    assert_string_equal(first_reason(l), "Cannot filter on label");
}

static void deleted_auto_backup_stays_deleted(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "mysql", "active"), now = f->t0 + 3 * DAY;
    json_t *l = list_backups(f, "mysql", id, now);
    apr_int64_t gone = json_integer_value(json_object_get(item(l, 0), "id"));
    const char *one = dbpath(f, "mysql", id,
                             apr_psprintf(f->db->pool, "/backups/%" APR_INT64_T_FMT,
                                          gone));

    ok(f, now, "DELETE", one, NULL);
    refused(f, now, "GET", one, NULL, 404, "Not found");
    refused(f, now, "DELETE", one, NULL, 404, "Not found");
    l = list_backups(f, "mysql", id, now + DAY);
    assert_int_equal(results(l), 3);   /* days 2, 3, 4: day 1 not back */
    assert_string_equal(str(item(l, 0), "created"), ts(f, midnight(f, 2)));
    /* The marker expires with the backup it stands for. */
    list_backups(f, "mysql", id, now + 30 * DAY);
    assert_int_equal(sql_int(f, apr_psprintf(f->db->pool, "SELECT count(*) FROM"
                                             " database_backups WHERE id = %"
                                             APR_INT64_T_FMT, gone)), 0);
}

/* ------------------------------------------------------------------------
 * Snapshots
 * ------------------------------------------------------------------------ */

static void snapshot_validation(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "mysql", "active"), now = f->t0 + 3600;
    const char *path = dbpath(f, "mysql", id, "/backups");
    json_t *doc, *errs;
    int status;

    doc = call(f, now, "POST", path,
               "{\"target\":\"tertiary\",\"extra\":1}", &status);
    assert_int_equal(status, 400);
    errs = json_object_get(doc, "errors");
    /* label, target; "extra" is not a field: ignored (docs/conventions.md,
     * "Today's clients") */
    assert_int_equal(json_array_size(errs), 2);
    refused(f, now, "POST", path, "{\"label\":\"has-dash\"}", 400,
            "Label must contain only ASCII letters, digits and underscores");
    refused(f, now, "POST", path, "{\"label\":\"\"}", 400,
            "Length must be 1-30 characters");
    refused(f, now, "POST", path,
            "{\"label\":\"a234567890123456789012345678901\"}", 400,
            "Length must be 1-30 characters");
    refused(f, now, "POST", path, "{\"label\":\"caf\\u00e9\"}", 400,
            "Label must contain only ASCII letters, digits and underscores");
    /* null is the default, and label has none */
    refused(f, now, "POST", path, "{\"label\":null}", 400,
            "label is required");
    /* Nothing was started by the refusals. */
    assert_string_equal(stored_status(f, id), "active");
    /* the public API's labels take '_' */
    ok(f, now, "POST", path,
       "{\"label\":\"a2345678901234567890123456789_\",\"target\":\"secondary\"}");
    assert_string_equal(sql_text(f, "SELECT target FROM database_backups"),
                        "secondary");
}

static void snapshot_lifecycle_and_limit(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "postgresql", "active"), now = f->t0 + 3600;
    const char *path = dbpath(f, "postgresql", id, "/backups");
    json_t *l;
    int i;

    for (i = 1; i <= 3; i++) {
        json_t *empty = ok(f, now, "POST", path,
                           apr_psprintf(f->db->pool, "{\"label\":\"snap%d\"}", i));

        assert_int_equal(json_object_size(empty), 0);
        assert_string_equal(stored_status(f, id), "backing_up");
        /* Running: hidden, and no second backup meanwhile. */
        assert_int_equal(results(list_backups(f, "postgresql", id, now)), i - 1);
        refused(f, now + OP - 1, "POST", path, "{\"label\":\"other\"}", 400,
                "Your database is backing_up; please wait until the backup is "
                "complete to perform this operation.");
        now += OP;
        l = list_backups(f, "postgresql", id, now);
        assert_int_equal(results(l), i);
        assert_string_equal(str(item(l, i - 1), "type"), "snapshot");
        assert_string_equal(str(item(l, i - 1), "created"), ts(f, now));
        assert_string_equal(stored_status(f, id), "active");
        now += 60;
    }
    refused(f, now, "POST", path, "{\"label\":\"snap4\"}", 400,
            "A database may have at most 3 snapshots; delete one before "
            "creating another.");
    assert_string_equal(stored_status(f, id), "active");
    /* One deleted, another may be taken. */
    ok(f, now, "DELETE", apr_psprintf(f->db->pool, "%s/%" APR_INT64_T_FMT,
                                      path, (apr_int64_t)json_integer_value(json_object_get(
                                          item(l, 0), "id"))), NULL);
    ok(f, now, "POST", path, "{\"label\":\"snap4\"}");
}

/* The limit counts a snapshot still running; a backup still running (the
 * external backend leaves the status to the orchestrator) blocks another. */
static void snapshot_counts_running_ones(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "mysql", "active"), now = f->t0 + 3600;
    const char *path = dbpath(f, "mysql", id, "/backups");

    f->settings = &external;
    ok(f, now, "POST", path, "{\"label\":\"one\"}");
    assert_string_equal(stored_status(f, id), "backing_up");
    assert_null(sql_text(f, apr_psprintf(f->db->pool, "SELECT status_next FROM"
                                         " databases WHERE id = %"
                                         APR_INT64_T_FMT, id)));
    set_status(f, id, "active");   /* the orchestrator, early */
    refused(f, now + 1, "POST", path, "{\"label\":\"two\"}", 400,
            "Another backup is in progress; please wait until it is complete "
            "to perform this operation.");
    add_backup(f, id, "snapshot", now - 10);
    add_backup(f, id, "snapshot", now - 20);
    refused(f, now + OP, "POST", path, "{\"label\":\"two\"}", 400,
            "A database may have at most 3 snapshots; delete one before "
            "creating another.");
}

/*
 * An operation starts only from the status its request found: when another
 * request moves the database first, the loser is refused instead of
 * overwriting it.  A temporary trigger plays the winner: it moves the
 * database to restoring while the loser writes the day's automatic backups,
 * after the loser has loaded the row as active.
 */
static void operation_start_is_conditional(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "mysql", "active"), now = f->t0 + 2 * DAY;
    apr_int64_t backup = add_backup(f, id, "snapshot", f->t0 + 600);

    sql(f, apr_psprintf(f->db->pool,
        "CREATE TEMP TRIGGER winner AFTER INSERT ON database_backups BEGIN"
        " UPDATE databases SET status = 'restoring', status_next = 'degraded',"
        " status_due = %" APR_INT64_T_FMT " WHERE id = %" APR_INT64_T_FMT "; END",
        now + 7, id));
    refused(f, now, "POST", dbpath(f, "mysql", id, apr_psprintf(
                f->db->pool, "/backups/%" APR_INT64_T_FMT "/restore", backup)),
            NULL, 400, "Your database is restoring; please wait until the "
            "restore is complete to perform this operation.");
    sql(f, "DROP TRIGGER temp.winner");
    assert_string_equal(sql_text(f, "SELECT status || ' ' || status_next || ' '"
                                    " || status_due FROM databases"),
                        apr_psprintf(f->db->pool, "restoring degraded %"
                                     APR_INT64_T_FMT, now + 7));
}

/* ------------------------------------------------------------------------
 * Restore
 * ------------------------------------------------------------------------ */

static void restore_then_active(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "postgresql", "active"), now = f->t0 + 2 * DAY;
    json_t *l = list_backups(f, "postgresql", id, now);
    const char *restore = dbpath(f, "postgresql", id, apr_psprintf(
        f->db->pool, "/backups/%" APR_INT64_T_FMT "/restore",
        (apr_int64_t)json_integer_value(json_object_get(item(l, 0), "id"))));

    assert_int_equal(results(l), 2);
    assert_int_equal(json_object_size(ok(f, now, "POST", restore, NULL)), 0);
    assert_string_equal(stored_status(f, id), "restoring");
    refused(f, now + 1, "POST", restore, NULL, 400,
            "Your database is restoring; please wait until the restore is "
            "complete to perform this operation.");
    list_backups(f, "postgresql", id, now + OP);   /* settles */
    assert_string_equal(stored_status(f, id), "active");
    /* From failed and degraded too. */
    set_status(f, id, "failed");
    ok(f, now + OP, "POST", restore, NULL);
    list_backups(f, "postgresql", id, now + 2 * OP);
    assert_string_equal(stored_status(f, id), "active");
    set_status(f, id, "degraded");
    ok(f, now + 2 * OP, "POST", restore, NULL);
    /* Unknown and running backups cannot be restored. */
    set_status(f, id, "active");
    refused(f, now + 3 * OP, "POST", dbpath(f, "postgresql", id,
                                            "/backups/999999/restore"),
            NULL, 404, "Not found");
    ok(f, now + 3 * OP, "POST", dbpath(f, "postgresql", id, "/backups"),
       "{\"label\":\"running\"}");
    set_status(f, id, "active");
    refused(f, now + 3 * OP, "POST", dbpath(f, "postgresql", id, apr_psprintf(
                f->db->pool, "/backups/%" APR_INT64_T_FMT "/restore",
                sql_int(f, "SELECT max(id) FROM database_backups"))),
            NULL, 404, "Not found");
}

/* "Restoring a backup after credentials were reset currently yields a
 * failed cluster"; a backup taken after the reset restores fine. */
static void restore_after_reset_fails(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "mysql", "active"), now = f->t0 + 2 * DAY;
    const char *backups = dbpath(f, "mysql", id, "/backups");
    json_t *l = list_backups(f, "mysql", id, now);
    apr_int64_t before = json_integer_value(json_object_get(item(l, 1), "id"));

    ok(f, now, "POST", dbpath(f, "mysql", id, "/credentials/reset"), NULL);
    now += 10;
    ok(f, now, "POST", backups, "{\"label\":\"after\"}");
    now += OP;
    l = list_backups(f, "mysql", id, now);
    assert_int_equal(results(l), 3);
    ok(f, now, "POST", apr_psprintf(f->db->pool, "%s/%" APR_INT64_T_FMT
                                    "/restore", backups, before), NULL);
    assert_string_equal(stored_status(f, id), "restoring");
    now += OP;
    list_backups(f, "mysql", id, now);
    assert_string_equal(stored_status(f, id), "failed");
    /* The snapshot taken after the reset brings it back. */
    ok(f, now, "POST", apr_psprintf(f->db->pool, "%s/%" APR_INT64_T_FMT
                                    "/restore", backups, (apr_int64_t)json_integer_value(
                                        json_object_get(item(l, 2), "id"))),
       NULL);
    now += OP;
    list_backups(f, "mysql", id, now);
    assert_string_equal(stored_status(f, id), "active");
}

/* ------------------------------------------------------------------------
 * Credentials, patch, SSL
 * ------------------------------------------------------------------------ */

static int alnum_only(const char *s)
{
    for (; *s; s++) {
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')
              || (*s >= '0' && *s <= '9'))) {
            return 0;
        }
    }
    return 1;
}

static void credentials_view_and_reset(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "mysql", "active"), now = f->t0 + 3600;
    const char *creds = dbpath(f, "mysql", id, "/credentials");
    const char *sealed;
    json_t *c;
    int i;

    c = ok(f, now, "GET", creds, NULL);
    assert_int_equal(json_object_size(c), 2);
    assert_string_equal(str(c, "username"), "akroot");
    assert_string_equal(str(c, "password"), "initialpassword1");

    ok(f, now, "POST", dbpath(f, "mysql", id, "/credentials/reset"), NULL);
    assert_string_equal(stored_status(f, id), "updating");
    assert_int_equal(sql_int(f, "SELECT credentials_reset FROM databases"), now);
    /* "Several seconds", whatever the operation time. */
    assert_int_equal(sql_int(f, "SELECT status_due FROM databases"), now + 10);
    refused(f, now + 9, "GET", creds, NULL, 400,
            "Your database is updating; please wait until the update is "
            "complete to perform this operation.");
    c = ok(f, now + 10, "GET", creds, NULL);
    assert_string_not_equal(str(c, "password"), "initialpassword1");
    assert_int_equal(strlen(str(c, "password")), 24);
    assert_true(alnum_only(str(c, "password")));
    /* Sealed at rest. */
    sealed = sql_text(f, "SELECT root_password_sealed FROM databases");
    assert_null(strstr(sealed, str(c, "password")));
    assert_true(strncmp(sealed, ACCT_SEAL_PREFIX, 3) == 0);
    /* Every reset draws a new one. */
    for (i = 0; i < 3; i++) {
        const char *prev = str(c, "password");

        now += 20;
        ok(f, now, "POST", dbpath(f, "mysql", id, "/credentials/reset"), NULL);
        c = ok(f, now + 10, "GET", creds, NULL);
        assert_string_not_equal(str(c, "password"), prev);
    }
}

static void credentials_need_the_key(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "postgresql", "active"), now = f->t0 + 3600;

    f->settings = &keyless;
    refused(f, now, "GET", dbpath(f, "postgresql", id, "/credentials"), NULL,
            503, "Service Unavailable");
    refused(f, now, "POST", dbpath(f, "postgresql", id, "/credentials/reset"),
            NULL, 503, "Service Unavailable");
    assert_string_equal(stored_status(f, id), "active");
    /* A password sealed for another row does not open. */
    f->settings = &keyed;
    sql(f, apr_psprintf(f->db->pool, "UPDATE databases SET root_password_sealed"
                        " = (SELECT root_password_sealed FROM databases WHERE"
                        " id = %" APR_INT64_T_FMT ") WHERE id = %" APR_INT64_T_FMT,
                        add_db(f, "postgresql", "active"), id));
    refused(f, now, "GET", dbpath(f, "postgresql", id, "/credentials"), NULL,
            500, "Internal server error");
}

static void patch_updates_then_active(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "postgresql", "active"), now = f->t0 + 3600;
    const char *patch = dbpath(f, "postgresql", id, "/patch");

    assert_int_equal(json_object_size(ok(f, now, "POST", patch, NULL)), 0);
    assert_string_equal(stored_status(f, id), "updating");
    refused(f, now + OP - 1, "POST", patch, NULL, 400,
            "Your database is updating; please wait until the update is "
            "complete to perform this operation.");
    ok(f, now + OP, "POST", patch, NULL);
}

/* The PEM inside the answer, decoded from base64. */
static const char *ssl_pem(fixture *f, apr_int64_t id, const char *engine,
                           apr_int64_t now)
{
    json_t *doc = ok(f, now, "GET", dbpath(f, engine, id, "/ssl"), NULL);
    const char *b64 = str(doc, "ca_certificate");
    char *pem;
    int len;

    assert_non_null(b64);
    assert_int_equal(json_object_size(doc), 1);
    pem = apr_palloc(f->db->pool, apr_base64_decode_len(b64));
    len = apr_base64_decode(pem, b64);
    pem[len] = '\0';
    return pem;
}

static void check_ca(const char *pem, const char *cn, apr_int64_t now)
{
    BIO *bio = BIO_new_mem_buf(pem, -1);
    X509 *x = PEM_read_bio_X509(bio, NULL, NULL, NULL), *back;
    unsigned char *der = NULL;
    const unsigned char *p;
    char name[128];
    int len, crit = -1;
    BASIC_CONSTRAINTS *bc;
    time_t t;

    assert_non_null(x);
    /* DER round trip through d2i. */
    len = i2d_X509(x, &der);
    assert_true(len > 0);
    p = der;
    back = d2i_X509(NULL, &p, len);
    assert_non_null(back);
    assert_int_equal(X509_cmp(x, back), 0);
    X509_free(back);
    OPENSSL_free(der);

    assert_int_equal(X509_get_version(x), 2);
    assert_int_equal(X509_check_ca(x), 1);
    bc = X509_get_ext_d2i(x, NID_basic_constraints, &crit, NULL);
    assert_non_null(bc);
    assert_true(bc->ca);
    assert_int_equal(crit, 1);
    BASIC_CONSTRAINTS_free(bc);
    assert_int_equal(X509_get_key_usage(x), KU_KEY_CERT_SIGN | KU_CRL_SIGN);
    assert_non_null(X509_get0_subject_key_id(x));
    assert_int_equal(X509_check_issued(x, x), X509_V_OK);
    assert_int_equal(X509_verify(x, X509_get0_pubkey(x)), 1);
    assert_int_equal(EVP_PKEY_base_id(X509_get0_pubkey(x)), EVP_PKEY_EC);
    assert_true(X509_NAME_get_text_by_NID(X509_get_subject_name(x),
                                          NID_commonName, name,
                                          sizeof(name)) > 0);
    assert_string_equal(name, cn);
    /* Valid from `now` for ten years. */
    t = (time_t)now;
    assert_int_equal(X509_cmp_time(X509_get0_notBefore(x), &t), -1);
    t = (time_t)(now - 1);
    assert_int_equal(X509_cmp_time(X509_get0_notBefore(x), &t), 1);
    t = (time_t)(now + (apr_int64_t)ACCT_DBCERT_DAYS * DAY - 1);
    assert_int_equal(X509_cmp_time(X509_get0_notAfter(x), &t), 1);
    t = (time_t)(now + (apr_int64_t)ACCT_DBCERT_DAYS * DAY + 1);
    assert_int_equal(X509_cmp_time(X509_get0_notAfter(x), &t), -1);
    X509_free(x);
    BIO_free(bio);
}

static void ssl_certificate_is_a_ca(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "mysql", "active"), other, now = f->t0 + 3600;
    const char *pem = ssl_pem(f, id, "mysql", now);
    const char *label = sql_text(f, apr_psprintf(f->db->pool, "SELECT label FROM"
                                                 " databases WHERE id = %"
                                                 APR_INT64_T_FMT, id));

    assert_true(strncmp(pem, "-----BEGIN CERTIFICATE-----\n", 28) == 0);
    check_ca(pem, apr_pstrcat(f->db->pool, label, " CA", NULL), now);
    /* Stored: the same one later; every database has its own. */
    assert_string_equal(ssl_pem(f, id, "mysql", now + DAY), pem);
    assert_string_equal(sql_text(f, apr_psprintf(f->db->pool,
                                 "SELECT ca_certificate FROM databases WHERE id"
                                 " = %" APR_INT64_T_FMT, id)), pem);
    other = add_db(f, "postgresql", "active");
    assert_string_not_equal(ssl_pem(f, other, "postgresql", now), pem);
    /* Never made before the database is active. */
    other = add_db(f, "postgresql", "provisioning");
    refused(f, now, "GET", dbpath(f, "postgresql", other, "/ssl"), NULL, 400,
            "Your database is provisioning; please wait until provisioning is "
            "complete to perform this operation.");
    assert_null(sql_text(f, apr_psprintf(f->db->pool, "SELECT ca_certificate"
                                         " FROM databases WHERE id = %"
                                         APR_INT64_T_FMT, other)));
}

/* ------------------------------------------------------------------------
 * The required-status table, both engines
 * ------------------------------------------------------------------------ */

static const char *const statuses[] = {
    "provisioning", "active", "suspending", "suspended", "resuming",
    "restoring", "failed", "degraded", "updating", "backing_up", NULL
};

typedef struct status_cell {
    const char *method;
    const char *rest;        /* after the instance; %B is the backup id */
    const char *body;
    const char *allowed;     /* " s1 s2 ": the statuses that accept it */
} status_cell;

#define NOT_PROVISIONING \
    " active suspending suspended resuming restoring failed degraded" \
    " updating backing_up "

static const status_cell cells[] = {
    {"GET", "/backups", NULL, NOT_PROVISIONING},
    {"GET", "/backups/%B", NULL, NOT_PROVISIONING},
    {"DELETE", "/backups/%B", NULL, NOT_PROVISIONING},
    {"POST", "/backups", "{\"label\":\"cell\"}", " active "},
    {"POST", "/backups/%B/restore", NULL, " active degraded failed "},
    {"GET", "/credentials", NULL, " active "},
    {"POST", "/credentials/reset", NULL, " active "},
    {"POST", "/patch", NULL, " active "},
    {"GET", "/ssl", NULL, " active "},
    /* Today's public API (acct_db.c has the evidence). */
    {"POST", "/suspend", NULL, " provisioning active "},
    {"POST", "/resume", NULL, " suspending suspended "},
};

static void required_status_table(void **state)
{
    static const char *const engines[] = {"mysql", "postgresql", NULL};
    fixture *f = *state;
    apr_int64_t now = f->t0 + 3600, id, backup;
    const char *const *e, *const *s, *rest, *at;
    json_t *doc;
    size_t c;
    int status, allowed;

    for (e = engines; *e; e++) {
        for (c = 0; c < sizeof(cells) / sizeof(cells[0]); c++) {
            for (s = statuses; *s; s++) {
                id = add_db(f, *e, *s);
                backup = add_backup(f, id, "snapshot", now - 60);
                rest = cells[c].rest;
                if ((at = strstr(rest, "%B"))) {
                    rest = apr_psprintf(f->db->pool, "%.*s%" APR_INT64_T_FMT
                                        "%s", (int)(at - rest), rest, backup,
                                        at + 2);
                }
                allowed = strstr(cells[c].allowed,
                                 apr_pstrcat(f->db->pool, " ", *s, " ", NULL))
                          != NULL;
                doc = call(f, now, cells[c].method, dbpath(f, *e, id, rest),
                           cells[c].body, &status);
                UNIT_CHECKF(status == (allowed ? 200 : 400),
                            "%s %s %s in %s: %d %s", *e, cells[c].method,
                            cells[c].rest, *s, status,
                            acct_json_dump(f->db->pool, doc, NULL));
                UNIT_CHECKF(allowed || strncmp(first_reason(doc),
                                               apr_psprintf(f->db->pool,
                                               "Your database is %s; ", *s),
                                               strlen(*s) + 19) == 0,
                            "%s %s %s in %s: %s", *e, cells[c].method,
                            cells[c].rest, *s, first_reason(doc));
                /* A refusal changes nothing. */
                UNIT_CHECKF(allowed || strcmp(stored_status(f, id), *s) == 0,
                            "%s %s %s in %s", *e, cells[c].method,
                            cells[c].rest, *s);
            }
        }
    }
}

/* ------------------------------------------------------------------------
 * Who may do what
 * ------------------------------------------------------------------------ */

static void engines_and_grants(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "mysql", "active"), now = f->t0 + 3600;
    acct_principal stranger, reader;
    const char *ro;
    int status;

    /* The other engine's path, another account: 404. */
    refused(f, now, "GET", dbpath(f, "postgresql", id, "/backups"), NULL, 404,
            "Not found");
    unit_identity(f->db, "stranger", 0, "*", &stranger);
    call_as(f, &stranger, now, "GET", dbpath(f, "mysql", id, "/ssl"), NULL,
            NULL, &status);
    assert_int_equal(status, 404);

    /* A restricted user of the account with read_only on it: views, no
     * backups (they all need read_write). */
    unit_identity(f->db, "reader", 1, "*", &reader);
    sql(f, apr_psprintf(f->db->pool, "UPDATE users SET account_id = %"
                        APR_INT64_T_FMT " WHERE id = %" APR_INT64_T_FMT,
                        f->who.account_id, reader.user_id));
    reader.account_id = f->who.account_id;
    ro = apr_psprintf(f->db->pool, "INSERT INTO entity_grants VALUES (%"
                      APR_INT64_T_FMT ", 'database', %" APR_INT64_T_FMT
                      ", 'read_only')", reader.user_id, id);
    sql(f, ro);
    call_as(f, &reader, now, "GET", dbpath(f, "mysql", id, "/credentials"),
            NULL, NULL, &status);
    assert_int_equal(status, 200);
    call_as(f, &reader, now, "GET", dbpath(f, "mysql", id, "/ssl"), NULL, NULL,
            &status);
    assert_int_equal(status, 200);
    call_as(f, &reader, now, "GET", dbpath(f, "mysql", id, "/backups"), NULL,
            NULL, &status);
    assert_int_equal(status, 403);
    call_as(f, &reader, now, "POST", dbpath(f, "mysql", id, "/patch"), NULL,
            NULL, &status);
    assert_int_equal(status, 403);
    assert_string_equal(stored_status(f, id), "active");
}

/* ------------------------------------------------------------------------
 * The backup and certificate model (acct_dbbackup.h, acct_dbcert.h) called
 * directly
 * ------------------------------------------------------------------------ */

static void backup_model(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "mysql", "active"), now = f->t0 + 3 * DAY;
    apr_int64_t snapshots = -1, running = -1, snap;
    acct_store *st = f->db->store;
    apr_pool_t *p = f->db->pool;
    acct_rows *rows = NULL;
    int made = -1, changed = -1;

    assert_string_equal(acct_dbbackup_auto_label(p, midnight(f, 1)),
                        "auto20300111");
    /* Three midnights since creation: three rows, written once. */
    assert_int_equal(acct_dbbackup_materialise(st, p, id, f->t0, now),
                     ACCT_STORE_OK);
    assert_int_equal(acct_dbbackup_materialise(st, p, id, f->t0, now),
                     ACCT_STORE_OK);
    assert_int_equal(sql_int(f, "SELECT count(*) FROM database_backups"), 3);
    assert_int_equal(acct_dbbackup_counts(st, p, id, now, &snapshots,
                                          &running), ACCT_STORE_OK);
    assert_int_equal(snapshots, 0);
    assert_int_equal(running, 0);

    /* A snapshot finishing in OP seconds: counted, running, hidden. */
    assert_int_equal(acct_dbbackup_snapshot_create(st, p, id, "mine",
                                                   ACCT_DBBACKUP_SECONDARY,
                                                   now + OP, &made),
                     ACCT_STORE_OK);
    assert_int_equal(made, 1);
    assert_int_equal(acct_dbbackup_snapshot_create(st, p, id, "again",
                                                   ACCT_DBBACKUP_PRIMARY,
                                                   now + OP, &made),
                     ACCT_STORE_OK);
    assert_int_equal(made, 0);  /* one per second */
    snap = sql_int(f, "SELECT id FROM database_backups WHERE type = 'snapshot'");
    assert_int_equal(acct_dbbackup_counts(st, p, id, now, &snapshots,
                                          &running), ACCT_STORE_OK);
    assert_int_equal(snapshots, 1);
    assert_int_equal(running, 1);
    assert_int_equal(acct_dbbackup_get(st, p, id, snap, now, &rows),
                     ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 0);
    assert_int_equal(acct_dbbackup_get(st, p, id, snap, now + OP, &rows),
                     ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    assert_string_equal(acct_rows_get(rows, 0, "label"), "mine");
    assert_int_equal(acct_dbbackup_get(st, p, id + 1, snap, now + OP, &rows),
                     ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 0);

    /* Deleting: a snapshot goes, an automatic backup stays marked. */
    assert_int_equal(acct_dbbackup_delete(st, p, id, snap,
                                          ACCT_DBBACKUP_SNAPSHOT, "u", now,
                                          &changed),
                     ACCT_STORE_OK);
    assert_int_equal(changed, 0);  /* not finished yet: not visible */
    assert_int_equal(acct_dbbackup_delete(st, p, id, snap,
                                          ACCT_DBBACKUP_SNAPSHOT, "u", now + OP,
                                          &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 1);
    snap = sql_int(f, "SELECT min(id) FROM database_backups");
    assert_int_equal(acct_dbbackup_delete(st, p, id, snap, ACCT_DBBACKUP_AUTO,
                                          "u", now, &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 1);
    /* One event per delete that deleted. */
    assert_int_equal(sql_int(f, "SELECT count(*) FROM events WHERE action ="
                                " 'database_backup_delete' AND status ="
                                " 'notification' AND username = 'u'"), 2);
    assert_int_equal(sql_int(f, "SELECT count(*) FROM database_backups"), 3);
    assert_int_equal(sql_int(f, "SELECT count(*) FROM database_backups"
                                " WHERE deleted = 1"), 1);

    /* Restore outcome: failed only after a later password reset. */
    assert_string_equal(acct_dbbackup_restore_outcome(0, now), "active");
    assert_string_equal(acct_dbbackup_restore_outcome(now, now), "active");
    assert_string_equal(acct_dbbackup_restore_outcome(now + 1, now), "failed");
}

static void certificate_model(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "postgresql", "active");
    const char *pem = "x";
    int changed = -1, found = -1;

    assert_int_equal(acct_dbcert_get(f->db->store, f->db->pool, id, &pem,
                                     &found), ACCT_STORE_OK);
    assert_int_equal(found, 1);
    assert_null(pem);
    /* The first writer wins. */
    assert_int_equal(acct_dbcert_store(f->db->store, f->db->pool, id, "one",
                                       &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 1);
    assert_int_equal(acct_dbcert_store(f->db->store, f->db->pool, id, "two",
                                       &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 0);
    assert_int_equal(acct_dbcert_get(f->db->store, f->db->pool, id, &pem,
                                     &found), ACCT_STORE_OK);
    assert_string_equal(pem, "one");
    assert_int_equal(acct_dbcert_get(f->db->store, f->db->pool, id + 1, &pem,
                                     &found), ACCT_STORE_OK);
    assert_int_equal(found, 0);
    assert_null(pem);
}

/* apr_dbd keeps its drivers in a pool of its own, made once. */
static int group_setup(void **state)
{
    apr_pool_t *root = NULL;

    return apr_pool_create(&root, NULL) == APR_SUCCESS
           && apr_dbd_init(root) == APR_SUCCESS ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        DB_TEST(auto_backups_follow_the_calendar),
        DB_TEST(auto_backups_filter_and_paginate),
        DB_TEST(deleted_auto_backup_stays_deleted),
        DB_TEST(snapshot_validation),
        DB_TEST(snapshot_lifecycle_and_limit),
        DB_TEST(snapshot_counts_running_ones),
        DB_TEST(operation_start_is_conditional),
        DB_TEST(restore_then_active),
        DB_TEST(restore_after_reset_fails),
        DB_TEST(credentials_view_and_reset),
        DB_TEST(credentials_need_the_key),
        DB_TEST(patch_updates_then_active),
        DB_TEST(ssl_certificate_is_a_ca),
        DB_TEST(required_status_table),
        DB_TEST(engines_and_grants),
        DB_TEST(backup_model),
        DB_TEST(certificate_model),
    };

    return UNIT_RUN_GROUP(tests, group_setup, NULL);
}
