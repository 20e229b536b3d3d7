/* Zone publishing: the handlers' notes published after a "commit" on a
 * migrated SQLite database (create, records, disable, rename, delete,
 * slaves, the full resynchronisation). */
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
 * Publishing through the handlers
 * -------------------------------------------------------------------- */

static void test_master_lifecycle(void **state)
{
    fixture *fx = *state;
    json_t *dom, *rec;
    const char *id, *rid, *file;

    dom = call(fx, api_domain_create, NULL, NULL, MASTER("Pub.Example"), 200);
    id = id_of(fx, dom);
    file = zone_path(fx, "pub.example");
    /* The file is exactly what the zone-file endpoint shows. */
    assert_string_equal(slurp(fx->db->pool, file), endpoint_zone(fx, id));
    assert_non_null(strstr(slurp(fx->db->pool, file),
                           "Pub.Example. IN NS ns2.test."));
    assert_non_null(strstr(include(fx), apr_psprintf(fx->db->pool,
        "zone \"pub.example\" { type master; file \"%s\";", file)));

    rec = call(fx, api_record_create, id, NULL,
               "{\"type\":\"A\",\"name\":\"www\",\"target\":\"192.0.2.7\"}",
               200);
    rid = id_of(fx, rec);
    assert_non_null(strstr(slurp(fx->db->pool, file),
                           "www.Pub.Example. IN A 192.0.2.7\n"));
    assert_string_equal(slurp(fx->db->pool, file), endpoint_zone(fx, id));

    call(fx, api_record_update, id, rid, "{\"target\":\"192.0.2.8\"}", 200);
    assert_non_null(strstr(slurp(fx->db->pool, file),
                           "www.Pub.Example. IN A 192.0.2.8\n"));
    assert_null(strstr(slurp(fx->db->pool, file), "192.0.2.7"));

    call(fx, api_record_delete, id, rid, NULL, 200);
    assert_null(strstr(slurp(fx->db->pool, file), "www."));
    assert_string_equal(slurp(fx->db->pool, file), endpoint_zone(fx, id));

    /* Disabled: neither file nor entry; active again: both back. */
    call(fx, api_domain_update, id, NULL, "{\"status\":\"disabled\"}", 200);
    assert_null(slurp(fx->db->pool, file));
    assert_null(strstr(include(fx), "pub.example"));
    call(fx, api_domain_update, id, NULL, "{\"status\":\"active\"}", 200);
    assert_string_equal(slurp(fx->db->pool, file), endpoint_zone(fx, id));
    assert_non_null(strstr(include(fx), "\"pub.example\""));

    /* Renamed: the old name's file and entry go, the new ones come. */
    call(fx, api_domain_update, id, NULL, "{\"domain\":\"moved.example\"}",
         200);
    assert_null(slurp(fx->db->pool, file));
    assert_string_equal(slurp(fx->db->pool, zone_path(fx, "moved.example")),
                        endpoint_zone(fx, id));
    assert_null(strstr(include(fx), "pub.example"));
    assert_non_null(strstr(include(fx), "\"moved.example\""));

    /* Cloned: a zone of its own. */
    dom = call(fx, api_domain_clone, id, NULL,
               "{\"domain\":\"copy.example\"}", 200);
    assert_string_equal(slurp(fx->db->pool, zone_path(fx, "copy.example")),
                        endpoint_zone(fx, id_of(fx, dom)));
    assert_non_null(strstr(include(fx), "\"copy.example\""));

    call(fx, api_domain_delete, id, NULL, NULL, 200);
    assert_null(slurp(fx->db->pool, zone_path(fx, "moved.example")));
    assert_null(strstr(include(fx), "moved.example"));
    assert_non_null(strstr(include(fx), "\"copy.example\""));
    assert_string_equal(listing(fx->db->pool, fx->dir),
                        ".acctapi-publish.lock copy.example.zone zones.conf");
    assert_true(log_quiet());
}

/* A 253-character name is longer than a file name may be: the file's
 * name is shortened with a hash, zones.conf names it, a resync keeps it. */
static void test_long_name(void **state)
{
    fixture *fx = *state;
    apr_pool_t *p = fx->db->pool;
    char label[64];
    const char *name, *entry, *file, *end;
    acct_publish_summary sum;

    memset(label, 'a', 63);
    label[63] = '\0';
    name = apr_psprintf(p, "%s.%s.%s.%.61s", label, label, label, label);
    assert_int_equal(strlen(name), 253);
    call(fx, api_domain_create, NULL, NULL,
         apr_psprintf(p, "{\"domain\":\"%s\",\"type\":\"master\","
                      "\"soa_email\":\"a@example.com\"}", name), 200);
    entry = strstr(include(fx), apr_psprintf(p, "zone \"%s\"", name));
    assert_non_null(entry);
    file = strstr(entry, "file \"") + 6;
    end = strchr(file, '"');
    file = apr_pstrmemdup(p, file, (apr_size_t)(end - file));
    assert_true(strlen(strrchr(file, '/') + 1) <= 255);
    assert_non_null(slurp(p, file));
    assert_int_equal(acct_publish_all(fx->db->store, p, fx->dir,
                                      test_nameservers, &sum), 0);
    assert_int_equal(sum.removed, 0);
    assert_non_null(slurp(p, file));
    assert_true(log_quiet());
}

/* A change that fails publishes nothing (and a failed request never
 * reaches acct_publish_committed). */
static void test_failed_change(void **state)
{
    fixture *fx = *state;
    const char *id;

    id = id_of(fx, call(fx, api_domain_create, NULL, NULL,
                        MASTER("fail.example"), 200));
    call(fx, api_domain_update, id, NULL, "{\"type\":\"bogus\"}", 400);
    call(fx, api_record_create, id, NULL, "{\"type\":\"A\"}", 400);
    assert_non_null(slurp(fx->db->pool, zone_path(fx, "fail.example")));
}

static void test_slave_and_transfers(void **state)
{
    fixture *fx = *state;
    const char *id;

    id = id_of(fx, call(fx, api_domain_create, NULL, NULL,
                        "{\"domain\":\"sec.example\",\"type\":\"slave\","
                        "\"master_ips\":[\"192.0.2.53\"],"
                        "\"axfr_ips\":[\"198.51.100.1\"]}", 200));
    assert_false(exists(fx->db->pool, fx->dir, "sec.example.zone"));
    assert_non_null(strstr(include(fx),
        "zone \"sec.example\" { type slave; masters { 192.0.2.53; };"
        " allow-transfer { \"acctapi-transfer\"; 198.51.100.1; }; };\n"));

    call(fx, api_domain_update, id, NULL,
         "{\"master_ips\":[\"192.0.2.54\",\"2001:db8::54\"]}", 200);
    assert_non_null(strstr(include(fx),
                           "masters { 192.0.2.54; 2001:db8::54; };"));

    /* To master: a file and a master entry; to slave again: neither. */
    call(fx, api_domain_update, id, NULL,
         "{\"type\":\"master\",\"soa_email\":\"a@example.com\","
         "\"axfr_ips\":[]}", 200);
    assert_true(exists(fx->db->pool, fx->dir, "sec.example.zone"));
    assert_non_null(strstr(include(fx), "\"sec.example\" { type master;"));
    assert_non_null(strstr(include(fx),
                           "allow-transfer { \"acctapi-transfer\"; }; };"));
    call(fx, api_domain_update, id, NULL, "{\"type\":\"slave\"}", 200);
    assert_false(exists(fx->db->pool, fx->dir, "sec.example.zone"));
    assert_non_null(strstr(include(fx), "\"sec.example\" { type slave;"));
}

/* Without AcctapiZoneDir nothing is noted, nothing written. */
static void test_off_without_zone_dir(void **state)
{
    fixture *fx = *state;
    acct_req *req = unit_req(fx->db, &fx->who);

    fx->settings.zone_dir = NULL;
    req->settings = &fx->settings;
    acct_publish_note_zone(req, 1, "x.example");
    assert_null(req->zones_changed);
    call(fx, api_domain_create, NULL, NULL, MASTER("quiet.example"), 200);
    assert_string_equal(listing(fx->db->pool, fx->dir), "");
}

/* A master whose file is missing is written when the listing is rebuilt,
 * and stays out of zones.conf until it has one. */
static void test_missing_file_healed(void **state)
{
    fixture *fx = *state;
    const char *id;

    fx->settings.zone_dir = NULL;
    call(fx, api_domain_create, NULL, NULL, MASTER("early.example"), 200);
    id = id_of(fx, call(fx, api_domain_create, NULL, NULL,
                        MASTER("records.example"), 200));
    fx->settings.zone_dir = fx->dir;
    call(fx, api_domain_create, NULL, NULL, MASTER("late.example"), 200);
    assert_true(exists(fx->db->pool, fx->dir, "early.example.zone"));
    assert_non_null(strstr(include(fx), "\"early.example\""));
    assert_non_null(strstr(include(fx), "\"late.example\""));

    /* A record change that creates the file adds the zones.conf entry
     * (as after a failed write: neither file nor entry). */
    assert_int_equal(unlink(zone_path(fx, "records.example")), 0);
    assert_int_equal(acct_publish_write(fx->db->pool, fx->dir,
                                        ACCT_PUBLISH_INCLUDE, "", 0), 1);
    call(fx, api_record_create, id, NULL,
         "{\"type\":\"A\",\"name\":\"a\",\"target\":\"192.0.2.1\"}",
         200);
    assert_true(exists(fx->db->pool, fx->dir, "records.example.zone"));
    assert_non_null(strstr(include(fx), "\"records.example\""));
}

static void test_publish_all(void **state)
{
    fixture *fx = *state;
    apr_pool_t *p = fx->db->pool;
    acct_publish_summary sum;
    const char *id;
    FILE *f;

    fx->settings.zone_dir = NULL;
    call(fx, api_domain_create, NULL, NULL, MASTER("one.example"), 200);
    id = id_of(fx, call(fx, api_domain_create, NULL, NULL,
                        MASTER("two.example"), 200));
    call(fx, api_domain_create, NULL, NULL,
         "{\"domain\":\"off.example\",\"type\":\"master\","
         "\"soa_email\":\"a@example.com\",\"status\":\"disabled\"}", 200);
    call(fx, api_domain_create, NULL, NULL,
         "{\"domain\":\"sl.example\",\"type\":\"slave\","
         "\"master_ips\":[\"192.0.2.1\"]}", 200);
    /* Stale files of ours, and files that are not ours. */
    f = fopen(apr_pstrcat(p, fx->dir, "/gone.example.zone", NULL), "w");
    fclose(f);
    f = fopen(apr_pstrcat(p, fx->dir, "/.one.example.zone.tmp-1-1", NULL), "w");
    fclose(f);
    f = fopen(apr_pstrcat(p, fx->dir, "/Not_Ours.zone", NULL), "w");
    fclose(f);
    f = fopen(apr_pstrcat(p, fx->dir, "/README", NULL), "w");
    fclose(f);

    assert_int_equal(acct_publish_all(fx->db->store, p, fx->dir,
                                      test_nameservers, &sum), 0);
    assert_int_equal(sum.masters, 2);
    assert_int_equal(sum.written, 2);
    assert_int_equal(sum.slaves, 1);
    assert_int_equal(sum.removed, 2);
    assert_int_equal(sum.failed, 0);
    assert_int_equal(sum.include_written, 1);
    assert_string_equal(listing(p, fx->dir),
                        ".acctapi-publish.lock Not_Ours.zone README "
                        "one.example.zone two.example.zone zones.conf");
    fx->settings.zone_dir = fx->dir;
    assert_string_equal(slurp(p, zone_path(fx, "two.example")),
                        endpoint_zone(fx, id));
    assert_non_null(strstr(include(fx), "\"sl.example\" { type slave;"));
    assert_null(strstr(include(fx), "off.example"));

    /* Again: everything is current. */
    assert_int_equal(acct_publish_all(fx->db->store, p, fx->dir,
                                      test_nameservers, &sum), 0);
    assert_int_equal(sum.written, 0);
    assert_int_equal(sum.removed, 0);
    assert_int_equal(sum.include_written, 0);
    assert_true(log_quiet());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        FIXTURE_TEST(test_master_lifecycle),
        FIXTURE_TEST(test_long_name),
        FIXTURE_TEST(test_failed_change),
        FIXTURE_TEST(test_slave_and_transfers),
        FIXTURE_TEST(test_off_without_zone_dir),
        FIXTURE_TEST(test_missing_file_healed),
        FIXTURE_TEST(test_publish_all),
    };

    return UNIT_RUN(tests);
}
