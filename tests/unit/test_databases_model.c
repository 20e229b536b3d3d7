/* Managed databases: the model (acct_db.h) called directly: its words,
 * the catalogue, rows, statuses and outcomes. */
#include "unit.h"

#include <apr_dbd.h>
#include <apr_strings.h>
#include <ctype.h>
#include <jansson.h>
#include <string.h>

#include "unit_db.h"
#include "acct_auth.h"
#include "acct_catalog.h"
#include "acct_db.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "acct_router.h"
#include "acct_seal.h"
#include "acct_time.h"
#include "api_handlers.h"

#include "unit_databases.h"

/* ------------------------------------------------------------------------
 * The model (acct_db.h) called directly
 */

static int listed(const char *const *list, const char *word)
{
    for (; *list; list++) {
        if (strcmp(*list, word) == 0) {
            return 1;
        }
    }
    return 0;
}

static void test_model_words(void **state)
{
    const char *const *s;
    int n = 0;

    (void)state;
    for (s = acct_db_statuses; *s; s++, n++) {
        assert_true(acct_db_status_known(*s));
    }
    assert_int_equal(n, 10);
    assert_false(acct_db_status_known("bogus"));
    assert_false(acct_db_status_known(NULL));
    /* Provisioned: every status but provisioning. */
    for (s = acct_db_when_provisioned, n = 0; *s; s++, n++) {
        assert_string_not_equal(*s, ACCT_DB_PROVISIONING);
    }
    assert_int_equal(n, 9);
    assert_true(listed(acct_db_when_at_rest, ACCT_DB_FAILED));
    assert_false(listed(acct_db_when_at_rest, ACCT_DB_UPDATING));
    assert_false(listed(acct_db_when_at_rest, ACCT_DB_SUSPENDED));
    /* Delete: the statuses at rest and suspended. */
    for (s = acct_db_when_at_rest; *s; s++) {
        assert_true(listed(acct_db_when_deletable, *s));
    }
    assert_true(listed(acct_db_when_deletable, ACCT_DB_SUSPENDED));
    assert_false(listed(acct_db_when_deletable, ACCT_DB_SUSPENDING));
    /* Suspend from active or provisioning, resume from suspended or
     * suspending. */
    assert_true(listed(acct_db_when_suspendable, ACCT_DB_ACTIVE));
    assert_true(listed(acct_db_when_suspendable, ACCT_DB_PROVISIONING));
    assert_null(acct_db_when_suspendable[2]);
    assert_true(listed(acct_db_when_resumable, ACCT_DB_SUSPENDED));
    assert_true(listed(acct_db_when_resumable, ACCT_DB_SUSPENDING));
    assert_null(acct_db_when_resumable[2]);
    assert_true(listed(acct_db_when_active, ACCT_DB_ACTIVE));
    assert_null(acct_db_when_active[1]);
    /* Only PostgreSQL takes a commit type; MySQL replicates semi-synch. */
    assert_null(acct_db_engine_named(ACCT_DB_MYSQL)->commit_types);
    assert_true(listed(acct_db_engine_named(ACCT_DB_MYSQL)->replication,
                       "semi_synch"));
    assert_true(listed(acct_db_engine_named(ACCT_DB_POSTGRESQL)->commit_types,
                       ACCT_DB_COMMIT_DEFAULT));
    assert_false(listed(acct_db_engine_named(ACCT_DB_POSTGRESQL)->replication,
                        "semi_synch"));
    assert_null(acct_db_engine_named("oracle"));
    assert_null(acct_db_engine_named(NULL));
}

static void test_model_catalogue(void **state)
{
    unit_db *db = *state;
    const char *status, *caps;
    acct_engine_ref ref;
    apr_int64_t disk;
    int found = -1;

    assert_int_equal(acct_db_region(db->store, db->pool, "us-east", &status,
                                    &caps), ACCT_STORE_OK);
    assert_string_equal(status, "ok");
    assert_true(acct_db_region_offers(caps));
    assert_false(acct_db_region_offers("[\"Linodes\"]"));
    assert_false(acct_db_region_offers(NULL));
    assert_int_equal(acct_db_region(db->store, db->pool, "nowhere", &status,
                                    &caps), ACCT_STORE_OK);
    assert_null(status);
    assert_null(caps);
    assert_int_equal(acct_db_type_disk(db->store, db->pool, "g6-standard-2",
                                       &disk), ACCT_STORE_OK);
    assert_int_equal(disk, 59392);      /* database_types, not compute */
    assert_int_equal(acct_db_type_disk(db->store, db->pool, "g0-none", &disk),
                     ACCT_STORE_OK);
    assert_int_equal(disk, -1);
    /* The create route's engine: a major id runs its current release. */
    assert_int_equal(acct_catalog_engine_find(db->store, db->pool, "mysql/8",
                                              &ref, &found), ACCT_STORE_OK);
    assert_int_equal(found, 1);
    assert_string_equal(ref.engine, ACCT_DB_MYSQL);
    assert_string_equal(ref.full_version, "8.0.35");
    assert_int_equal(acct_catalog_engine_find(db->store, db->pool,
                                              "postgresql/16.4", &ref,
                                              &found), ACCT_STORE_OK);
    assert_int_equal(found, 1);
    assert_string_equal(ref.full_version, "16.4");
    assert_int_equal(acct_catalog_engine_find(db->store, db->pool, "mysql/0",
                                              &ref, &found), ACCT_STORE_OK);
    assert_int_equal(found, 0);
}

/* A row through acct_db_create, as the create route checked it. */
static apr_int64_t model_create(ctx *c, const char *label)
{
    acct_db_new d;
    apr_int64_t id = -1;

    memset(&d, 0, sizeof(d));
    d.account_id = c->who.account_id;
    d.engine = acct_db_engine_named(ACCT_DB_POSTGRESQL);
    d.version = "16.4";
    d.label = label;
    d.region = "us-east";
    d.type = "g6-standard-2";
    d.cluster_size = ACCT_DB_CLUSTER_HA;
    d.ssl_connection = 1;
    d.replication_type = "asynch";
    d.commit_type = ACCT_DB_COMMIT_DEFAULT;
    d.allow_list = "[\"192.0.2.1\"]";
    d.disk_gb = 80;
    d.now = c->now;
    assert_int_equal(acct_db_label_lock(c->db->store, c->db->pool,
                                        c->who.account_id, label),
                     ACCT_STORE_OK);
    assert_int_equal(acct_db_create(c->db->store, c->db->pool, &d, &id),
                     ACCT_STORE_OK);
    return id;
}

static void test_model_rows(void **state)
{
    acct_db_changes ch = {NULL, NULL, NULL, -1, NULL, NULL, NULL, -1, NULL,
                          0, NULL, NULL, 0};
    acct_rows *rows = NULL;
    apr_int64_t id, other;
    int changed = -1;
    ctx c;

    ctx_init(&c, *state, "model");
    id = model_create(&c, "first");
    assert_true(id > 0);
    assert_int_equal(model_create(&c, "first"), 0);  /* the label is taken */
    assert_string_equal(column(&c, id, "status"), ACCT_DB_PROVISIONING);
    assert_string_equal(column(&c, id, "port"), "5432");
    assert_string_equal(column(&c, id, "root_username"), "linpostgres");
    assert_string_equal(column(&c, id, "updates"), ACCT_DB_UPDATES_DEFAULT);
    assert_string_equal(column(&c, id, "total_disk_size_gb"), "80");
    assert_string_equal(column(&c, id, "replication_commit_type"), "local");
    assert_string_equal(column(&c, id, "engine_config"), "{}");
    assert_string_equal(column(&c, id, "platform"), "rdbms-default");
    assert_null(column(&c, id, "private_network"));
    assert_null(column(&c, id, "fork_source"));
    assert_int_equal(acct_db_get(c.db->store, c.db->pool, id + 100, &rows),
                     ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 0);

    /* Passwords: the created row's, then a reset that dates itself. */
    assert_int_equal(acct_db_password_set(c.db->store, c.db->pool, id, "s1"),
                     ACCT_STORE_OK);
    assert_string_equal(column(&c, id, "root_password_sealed"), "s1");
    assert_null(column(&c, id, "credentials_reset"));
    assert_int_equal(acct_db_password_reset(c.db->store, c.db->pool, id, "s2",
                                            c.now + 5, &changed),
                     ACCT_STORE_OK);
    assert_int_equal(changed, 1);
    assert_string_equal(column(&c, id, "root_password_sealed"), "s2");
    assert_string_equal(column(&c, id, "credentials_reset"),
                        acct_i64(c.db->pool, c.now + 5));
    assert_int_equal(acct_db_password_reset(c.db->store, c.db->pool, id + 100,
                                            "s3", c.now, &changed),
                     ACCT_STORE_OK);
    assert_int_equal(changed, 0);

    /* Update: NULL keeps a column; another's label changes nothing. */
    other = model_create(&c, "second");
    ch.label = "second";
    ch.type = "g6-standard-4";
    assert_int_equal(acct_db_update(c.db->store, c.db->pool, c.who.account_id,
                                    id, &ch, &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 0);
    assert_string_equal(column(&c, id, "type"), "g6-standard-2");
    ch.label = "renamed";
    ch.disk_gb = 160;
    assert_int_equal(acct_db_update(c.db->store, c.db->pool, c.who.account_id,
                                    id, &ch, &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 1);
    assert_string_equal(column(&c, id, "label"), "renamed");
    assert_string_equal(column(&c, id, "type"), "g6-standard-4");
    assert_string_equal(column(&c, id, "total_disk_size_gb"), "160");
    assert_string_equal(column(&c, id, "allow_list"), "[\"192.0.2.1\"]");
    assert_string_equal(column(&c, other, "label"), "second");
}

static void test_model_set_status(void **state)
{
    apr_int64_t id;
    int changed = -1;
    ctx c;

    ctx_init(&c, *state, "admin");
    /* A database through the route: provisioning, active due later. */
    id = (apr_int64_t)num(pg_create(&c, "operated"), "id");
    assert_non_null(column(&c, id, "status_next"));
    assert_int_equal(acct_db_set_status(c.db->store, c.db->pool, id,
                                        ACCT_DB_DEGRADED, "p.example.net", NULL,
                                        c.now + 60, &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 1);
    assert_string_equal(column(&c, id, "status"), ACCT_DB_DEGRADED);
    assert_null(column(&c, id, "status_next"));
    assert_null(column(&c, id, "status_due"));
    assert_string_equal(column(&c, id, "host_primary"), "p.example.net");
    assert_string_equal(column(&c, id, "updated"),
                        acct_i64(c.db->pool, c.now + 60));
    assert_int_equal(acct_db_set_status(c.db->store, c.db->pool, id + 100,
                                        ACCT_DB_ACTIVE, NULL, NULL, c.now,
                                        &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 0);
}

/* What the model's status-bound functions come to, before any handler
 * turns it into HTTP: the status refusal's reason, a row gone, a grant
 * missing, and a compare-and-set that lost reading the row again. */
static void test_model_outcomes(void **state)
{
    const char *wait_update = "Your database is updating; please wait until "
                              "the update is complete to perform this "
                              "operation.";
    acct_rows *db, *stale;
    acct_outcome out;
    apr_int64_t id;
    acct_req *req;
    int changed = 0;
    ctx c, m;

    ctx_init(&c, *state, "outcomes");
    id = model_create(&c, "checked");
    req = request(&c, NULL, NULL, NULL);

    assert_null(acct_db_load(req, id + 100, NULL, ACCT_LEVEL_READ_WRITE,
                             &out));
    assert_int_equal(out.kind, ACCT_OUT_NOT_FOUND);
    assert_null(acct_db_load(req, id, ACCT_DB_MYSQL, ACCT_LEVEL_READ_ONLY,
                             &out));
    assert_int_equal(out.kind, ACCT_OUT_NOT_FOUND);
    db = acct_db_load(req, id, ACCT_DB_POSTGRESQL, ACCT_LEVEL_READ_WRITE,
                      &out);
    assert_non_null(db);
    assert_true(acct_out_ok(out));
    assert_int_equal(acct_db_id(db), id);

    /* Still provisioning: refused with DECISIONS' reason, no field. */
    out = acct_db_require_status(req->pool, db, acct_db_when_active);
    assert_int_equal(out.kind, ACCT_OUT_INVALID);
    assert_null(out.field);
    assert_string_equal(out.reason, "Your database is provisioning; please "
                        "wait until provisioning is complete to perform "
                        "this operation.");
    out = acct_db_begin(req, &db, acct_db_when_active, ACCT_DB_UPDATING,
                        ACCT_DB_ACTIVE, 60, NULL);
    assert_int_equal(out.kind, ACCT_OUT_INVALID);
    assert_true(acct_out_ok(acct_db_require_status(req->pool, db,
                                                   acct_db_when_suspendable)));

    /* Active: one begin wins; one holding the row as it was loses to the
     * status the winner left, read again into its row. */
    assert_int_equal(acct_db_set_status(c.db->store, c.db->pool, id,
                                        ACCT_DB_ACTIVE, NULL, NULL, c.now,
                                        &changed), ACCT_STORE_OK);
    db = acct_db_load(req, id, NULL, ACCT_LEVEL_READ_WRITE, &out);
    assert_non_null(db);
    stale = db;
    out = acct_db_begin(req, &db, acct_db_when_active, ACCT_DB_UPDATING,
                        ACCT_DB_ACTIVE, 60, NULL);
    assert_true(acct_out_ok(out));
    assert_string_equal(column(&c, id, "status"), ACCT_DB_UPDATING);
    out = acct_db_begin(req, &stale, acct_db_when_active, ACCT_DB_UPDATING,
                        ACCT_DB_ACTIVE, 60, NULL);
    assert_int_equal(out.kind, ACCT_OUT_INVALID);
    assert_string_equal(out.reason, wait_update);
    assert_string_equal(acct_rows_get(stale, 0, "status"), ACCT_DB_UPDATING);
    out = acct_db_delete(req, &stale);
    assert_int_equal(out.kind, ACCT_OUT_INVALID);
    assert_string_equal(out.reason, wait_update);

    /* A restricted member without a grant on it. */
    member(&c, &m, "outcomes-member", 1);
    assert_null(acct_db_load(request(&m, NULL, NULL, NULL), id, NULL,
                             ACCT_LEVEL_READ_ONLY, &out));
    assert_int_equal(out.kind, ACCT_OUT_FORBIDDEN);

    /* Deleted once at rest; then there is no such database. */
    assert_int_equal(acct_db_set_status(c.db->store, c.db->pool, id,
                                        ACCT_DB_ACTIVE, NULL, NULL, c.now,
                                        &changed), ACCT_STORE_OK);
    db = acct_db_load(req, id, NULL, ACCT_LEVEL_READ_WRITE, &out);
    assert_non_null(db);
    assert_true(acct_out_ok(acct_db_delete(req, &db)));
    assert_null(acct_db_load(req, id, NULL, ACCT_LEVEL_READ_WRITE, &out));
    assert_int_equal(out.kind, ACCT_OUT_NOT_FOUND);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_words),
        UNIT_DB_TEST(test_model_catalogue),
        UNIT_DB_TEST(test_model_rows),
        UNIT_DB_TEST(test_model_set_status),
        UNIT_DB_TEST(test_model_outcomes),
    };

    return UNIT_DB_RUN(tests);
}
