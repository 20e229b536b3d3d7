/* Operations on one managed database (api_dbops.c): automatic backups
 * across days, snapshots and their limits, and the conditional start of an
 * operation. */
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

#include "unit_dbops.h"

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
    };

    return UNIT_RUN_GROUP(tests, group_setup, NULL);
}
