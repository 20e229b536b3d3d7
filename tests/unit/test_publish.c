/* Zone publishing: file names, zones.conf (checked by named-checkconf),
 * the atomic write, the handlers' notes published after a "commit" on a
 * migrated SQLite database (create, records, disable, rename, delete,
 * slaves, the full resynchronisation), and the reload command, waited for
 * and in the background. */
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

#define NAMED_CHECKCONF "/usr/bin/named-checkconf"

/* --------------------------------------------------------------------
 * Log capture (the reload thread logs too) and scratch directories
 * -------------------------------------------------------------------- */

static char logged[8192];
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void capture_sink(acct_log_level level, const char *file, int line,
                         const char *msg, void *baton)
{
    size_t n;

    pthread_mutex_lock(&log_lock);
    n = strlen(logged);
    snprintf(logged + n, sizeof(logged) - n, "[%d] %s\n", (int)level, msg);
    pthread_mutex_unlock(&log_lock);
}

static void log_capture(void)
{
    pthread_mutex_lock(&log_lock);
    logged[0] = '\0';
    pthread_mutex_unlock(&log_lock);
    acct_log_set_sink(capture_sink, NULL);
}

static int log_has(const char *text)
{
    int found;

    pthread_mutex_lock(&log_lock);
    found = strstr(logged, text) != NULL;
    pthread_mutex_unlock(&log_lock);
    return found;
}

/* Nothing at warning level or worse was logged. */
static int log_quiet(void)
{
    return !log_has("[3] ") && !log_has("[4] ");
}

static const char *scratch_dir(apr_pool_t *p)
{
    char *dir = apr_pstrdup(p, "/tmp/acct-publish-XXXXXX");

    assert_non_null(mkdtemp(dir));
    return dir;
}

static void scratch_remove(apr_pool_t *p, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    while (d && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            unlink(apr_pstrcat(p, dir, "/", e->d_name, NULL));
        }
    }
    if (d) {
        closedir(d);
    }
    rmdir(dir);
}

/* The whole file, or NULL when there is none. */
static const char *slurp(apr_pool_t *p, const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long len;

    if (!f) {
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    rewind(f);
    buf = apr_palloc(p, (apr_size_t)len + 1);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = '\0';
    fclose(f);
    return buf;
}

static int exists(apr_pool_t *p, const char *dir, const char *name)
{
    struct stat sb;

    return stat(apr_pstrcat(p, dir, "/", name, NULL), &sb) == 0;
}

/* The directory's entries but "." and "..", sorted, space-separated. */
static const char *listing(apr_pool_t *p, const char *dir)
{
    struct dirent **names = NULL;
    const char *out = "";
    int n = scandir(dir, &names, NULL, alphasort), i;

    assert_true(n >= 0);
    for (i = 0; i < n; i++) {
        if (strcmp(names[i]->d_name, ".") != 0
            && strcmp(names[i]->d_name, "..") != 0) {
            out = apr_pstrcat(p, out, *out ? " " : "", names[i]->d_name, NULL);
        }
        free(names[i]);
    }
    free(names);
    return out;
}

/* --------------------------------------------------------------------
 * Names
 * -------------------------------------------------------------------- */

static void test_zone_names(void **state)
{
    static const struct {
        const char *domain, *zone;
    } cases[] = {
        {"example.com", "example.com"},
        {"Mixed-Case.Example.COM", "mixed-case.example.com"},
        {"a.b", "a.b"},
        {"", NULL},
        {".hidden.example", NULL},
        {"example.com.", NULL},
        {"a..b", NULL},
        {"../etc/passwd", NULL},
        {"a/b.example", NULL},
        {"Under_Score.example", "under_score.example"},
        {"space .example", NULL},
        {"quote\".example", NULL},
    };
    char longname[300];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *got = acct_publish_zone_name(pool, cases[i].domain);

        if (cases[i].zone) {
            UNIT_CHECK(cases[i].domain, got && strcmp(got, cases[i].zone) == 0);
        }
        else {
            UNIT_CHECK(cases[i].domain, got == NULL);
        }
    }
    assert_null(acct_publish_zone_name(pool, NULL));
    memset(longname, 'a', sizeof(longname));
    longname[1] = '.';
    longname[254] = '\0';
    assert_null(acct_publish_zone_name(pool, longname));
}

/* --------------------------------------------------------------------
 * zones.conf
 * -------------------------------------------------------------------- */

static void add(apr_array_header_t *zones, const char *zone, int slave,
                const char *masters, const char *axfr)
{
    acct_published_zone *z = apr_array_push(zones);

    z->zone = zone;
    z->slave = slave;
    z->master_ips = masters;
    z->axfr_ips = axfr;
}

static void test_include_text(void **state)
{
    apr_array_header_t *zones = apr_array_make(pool, 4,
                                               sizeof(acct_published_zone));
    const char *text, *body;

    add(zones, "a.example", 0, "[]", "[]");
    add(zones, "b.example", 0, "[]",
        "[\"192.0.2.1\", \"2001:db8::1\", \"not an address; };\", 7]");
    add(zones, "s.example", 1, "[\"192.0.2.53\",\"2001:DB8::53\"]",
        "[\"198.51.100.2\"]");
    add(zones, "nomasters.example", 1, "[]", "[]");
    add(zones, "garbage.example", 1, "not json", NULL);
    text = acct_publish_include_text(pool, "/srv/zo\"nes//", zones);
    body = strstr(text, "zone ");
    assert_non_null(body);
    assert_true(strncmp(text, "// ", 3) == 0);
    assert_non_null(strstr(text, "acl \"acctapi-transfer\""));
    assert_string_equal(
        body,
        "zone \"a.example\" { type master; file \"/srv/zo\\\"nes/a.example.zone\";"
        " check-names ignore; allow-transfer { \"acctapi-transfer\"; }; };\n"
        "zone \"b.example\" { type master; file \"/srv/zo\\\"nes/b.example.zone\";"
        " check-names ignore; allow-transfer { \"acctapi-transfer\"; 192.0.2.1; 2001:db8::1; }; };\n"
        "zone \"s.example\" { type slave; masters { 192.0.2.53; 2001:db8::53; };"
        " allow-transfer { \"acctapi-transfer\"; 198.51.100.2; }; };\n");
    /* Nothing to declare: the comment only. */
    text = acct_publish_include_text(pool, "/srv/zones",
                                     apr_array_make(pool, 1,
                                                    sizeof(acct_published_zone)));
    assert_null(strstr(text, "zone \""));
}

/* named-checkconf accepts what zones.conf declares, masters loaded (names
 * with underscores included). */
static void test_include_checkconf(void **state)
{
    const char *dir = scratch_dir(pool), *conf, *cmd;
    apr_array_header_t *zones = apr_array_make(pool, 4,
                                               sizeof(acct_published_zone));
    const char *text;
    FILE *f;

    if (access(NAMED_CHECKCONF, X_OK) != 0) {
        print_message("skipped: %s is not installed\n", NAMED_CHECKCONF);
        scratch_remove(pool, dir);
        return;
    }
    add(zones, "m.example", 0, "[]", "[\"192.0.2.9\"]");
    add(zones, "s.example", 1, "[\"192.0.2.53\"]", "[]");
    text = acct_publish_include_text(pool, dir, zones);
    assert_int_equal(acct_publish_write(pool, dir, ACCT_PUBLISH_INCLUDE, text,
                                        strlen(text)), 1);
    /* Names with underscores, which the API accepts and BIND's default
     * check-names would refuse the zone for. */
    text = "$TTL 300\nm.example. IN SOA ns1.example.com. h.m.example. 1 2 3 4 5\n"
           "m.example. IN NS ns1.example.com.\n"
           "_a.m.example. IN A 192.0.2.1\n"
           "_service_test._tcp.m.example. IN SRV 10 5 80 rc_test.m.example.\n";
    assert_int_equal(acct_publish_write(pool, dir, "m.example.zone", text,
                                        strlen(text)), 1);
    conf = apr_pstrcat(pool, dir, "/named.conf", NULL);
    f = fopen(conf, "w");
    assert_non_null(f);
    fprintf(f, "options { directory \"%s\"; };\n"
               "acl \"acctapi-transfer\" { none; };\n"
               "include \"%s/zones.conf\";\n", dir, dir);
    fclose(f);
    cmd = apr_psprintf(pool, "%s -z %s >/dev/null 2>&1", NAMED_CHECKCONF, conf);
    assert_int_equal(system(cmd), 0);
    scratch_remove(pool, dir);
}

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

/* --------------------------------------------------------------------
 * Publishing through the handlers
 * -------------------------------------------------------------------- */

static const char *const test_nameservers[] = {"ns1.test", "ns2.test", NULL};

typedef struct fixture {
    unit_db *db;
    const char *dir;
    acct_settings settings;
    acct_principal who;
} fixture;

static int fixture_setup(void **state)
{
    fixture *fx = calloc(1, sizeof(*fx));

    fx->db = unit_db_open();
    fx->dir = scratch_dir(fx->db->pool);
    fx->settings.referral_url = "https://r.example/";
    fx->settings.nameservers = test_nameservers;
    fx->settings.zone_dir = fx->dir;
    unit_identity(fx->db, "publisher", 0, "*", &fx->who);
    log_capture();
    *state = fx;
    return 0;
}

static int fixture_teardown(void **state)
{
    fixture *fx = *state;

    scratch_remove(fx->db->pool, fx->dir);
    unit_db_close(fx->db);
    free(fx);
    return 0;
}

#define FIXTURE_TEST(f) \
    cmocka_unit_test_setup_teardown(f, fixture_setup, fixture_teardown)

/*
 * Runs a handler as the module would: the handler, then (it "commits"
 * at once: unit requests have no transaction) publishing.  The answer,
 * parsed.
 */
static json_t *call(fixture *fx, acct_handler *h, const char *id,
                    const char *record, const char *body, int want)
{
    acct_req *req = unit_req(fx->db, &fx->who);
    const char *text;
    int status;

    req->settings = &fx->settings;
    req->params[0] = id;
    req->params[1] = record;
    req->body = body ? acct_json_own(fx->db->pool, json_loads(body, 0, NULL))
                     : NULL;
    assert_true(!body || req->body);
    text = unit_call(req, h, &status);
    if (status != want) {
        fail_msg("status %d, expected %d: %s", status, want, text);
    }
    if (status == 200) {
        acct_publish_committed(req);
    }
    return *text ? acct_json_own(fx->db->pool, json_loads(text, 0, NULL))
                 : NULL;
}

static const char *id_of(fixture *fx, json_t *doc)
{
    return apr_psprintf(fx->db->pool, "%" APR_INT64_T_FMT,
                        (apr_int64_t)json_integer_value(json_object_get(doc,
                                                                        "id")));
}

static const char *zone_path(fixture *fx, const char *zone)
{
    return apr_pstrcat(fx->db->pool, fx->dir, "/", zone, ".zone", NULL);
}

static const char *include(fixture *fx)
{
    const char *text = slurp(fx->db->pool,
                             apr_pstrcat(fx->db->pool, fx->dir, "/zones.conf",
                                         NULL));

    return text ? text : "";
}

/* The zone-file endpoint's lines, joined as the published file is. */
static const char *endpoint_zone(fixture *fx, const char *id)
{
    json_t *doc = call(fx, api_zone_file, id, NULL, NULL, 200);
    json_t *lines = json_object_get(doc, "zone_file"), *line;
    const char *out = "";
    size_t i;

    json_array_foreach(lines, i, line) {
        out = apr_pstrcat(fx->db->pool, out, json_string_value(line), "\n",
                          NULL);
    }
    return out;
}

#define MASTER(name) \
    "{\"domain\":\"" name "\",\"type\":\"master\"," \
    "\"soa_email\":\"admin@example.com\"}"

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
        UNIT_TEST(test_zone_names),
        UNIT_TEST(test_include_text),
        UNIT_TEST(test_include_checkconf),
        UNIT_TEST(test_write_and_remove),
        UNIT_TEST(test_write_large),
        FIXTURE_TEST(test_master_lifecycle),
        FIXTURE_TEST(test_long_name),
        FIXTURE_TEST(test_failed_change),
        FIXTURE_TEST(test_slave_and_transfers),
        FIXTURE_TEST(test_off_without_zone_dir),
        FIXTURE_TEST(test_missing_file_healed),
        FIXTURE_TEST(test_publish_all),
        UNIT_TEST(test_reload_waited),
        UNIT_TEST(test_reload_background),
        UNIT_TEST(test_reload_stops_with_its_pool),
        UNIT_TEST(test_reload_serialised),
        UNIT_TEST(test_reload_long_name),
        FIXTURE_TEST(test_reload_contract),
    };

    return UNIT_RUN(tests);
}
