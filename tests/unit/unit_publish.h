/* Fixtures and helpers shared by the zone publishing tests
 * (test_publish_*.c): log capture (the reload thread logs too), scratch
 * directories and their files, and the fixture of the handler tests (a
 * migrated SQLite database publishing into a scratch directory) with its
 * calls.  Header-only, as unit.h is; include it after unit.h and unit_db.h. */
#ifndef UNIT_PUBLISH_H
#define UNIT_PUBLISH_H

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

/* --------------------------------------------------------------------
 * Log capture (the reload thread logs too) and scratch directories
 * -------------------------------------------------------------------- */

static char logged[8192];
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static inline void capture_sink(acct_log_level level, const char *file,
                                int line, const char *msg, void *baton)
{
    size_t n;

    pthread_mutex_lock(&log_lock);
    n = strlen(logged);
    snprintf(logged + n, sizeof(logged) - n, "[%d] %s\n", (int)level, msg);
    pthread_mutex_unlock(&log_lock);
}

static inline void log_capture(void)
{
    pthread_mutex_lock(&log_lock);
    logged[0] = '\0';
    pthread_mutex_unlock(&log_lock);
    acct_log_set_sink(capture_sink, NULL);
}

static inline int log_has(const char *text)
{
    int found;

    pthread_mutex_lock(&log_lock);
    found = strstr(logged, text) != NULL;
    pthread_mutex_unlock(&log_lock);
    return found;
}

/* Nothing at warning level or worse was logged. */
static inline int log_quiet(void)
{
    return !log_has("[3] ") && !log_has("[4] ");
}

static inline const char *scratch_dir(apr_pool_t *p)
{
    char *dir = apr_pstrdup(p, "/tmp/acct-publish-XXXXXX");

    assert_non_null(mkdtemp(dir));
    return dir;
}

static inline void scratch_remove(apr_pool_t *p, const char *dir)
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
static inline const char *slurp(apr_pool_t *p, const char *path)
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

static inline int exists(apr_pool_t *p, const char *dir, const char *name)
{
    struct stat sb;

    return stat(apr_pstrcat(p, dir, "/", name, NULL), &sb) == 0;
}

/* The directory's entries but "." and "..", sorted, space-separated. */
static inline const char *listing(apr_pool_t *p, const char *dir)
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

static const char *const test_nameservers[] = {"ns1.test", "ns2.test", NULL};

typedef struct fixture {
    unit_db *db;
    const char *dir;
    acct_settings settings;
    acct_principal who;
} fixture;

static inline int fixture_setup(void **state)
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

static inline int fixture_teardown(void **state)
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
static inline json_t *call(fixture *fx, acct_handler *h, const char *id,
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

static inline const char *id_of(fixture *fx, json_t *doc)
{
    return apr_psprintf(fx->db->pool, "%" APR_INT64_T_FMT,
                        (apr_int64_t)json_integer_value(json_object_get(doc,
                                                                        "id")));
}

static inline const char *zone_path(fixture *fx, const char *zone)
{
    return apr_pstrcat(fx->db->pool, fx->dir, "/", zone, ".zone", NULL);
}

static inline const char *include(fixture *fx)
{
    const char *text = slurp(fx->db->pool,
                             apr_pstrcat(fx->db->pool, fx->dir, "/zones.conf",
                                         NULL));

    return text ? text : "";
}

/* The zone-file endpoint's lines, joined as the published file is. */
static inline const char *endpoint_zone(fixture *fx, const char *id)
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

#endif
