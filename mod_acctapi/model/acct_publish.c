/*
 * Zone publishing: what to publish (the zones a request changed, the full
 * resynchronisation), rendered as zone files and zones.conf.  What is
 * written where is in acct_publish.h; the files are replaced by
 * acct_file.h, the reload command runs from acct_publish_reload.c.  This
 * is about getting it right when several httpd children (and threads,
 * and acctapi-admin) publish at once.
 *
 * Ordering.  Every writer holds an exclusive flock(2) on the directory's
 * lock file while it reads the zones from the database and writes their
 * files (flock, not fcntl locks: each open file description is its own
 * lock, so threads of one process exclude each other too).  A request
 * publishes after its commit, and reads only after taking the lock, in
 * autocommit: the state it reads contains its own commit and every commit
 * of any writer that held the lock before it.  So the file left by the
 * last writer is the state as of its read, which no earlier writer's read
 * is newer than; a commit that lands after that read has a publisher of
 * its own still to come.  Nothing depends on which child's rename lands
 * last, and no serial comparison is needed.
 *
 * Names, not ids.  A zone is published by its name: the writer looks the
 * name up and writes the file when an active master has it now, removes it
 * otherwise.  So a rename, a delete and a create of the same name in
 * other requests all end with the file of whoever holds the name last.
 *
 * zones.conf lists only the masters whose file exists, so named never
 * meets a zone without its file; a master without its file (publishing
 * was off when it was created, or a write failed) is written when the
 * listing is next rebuilt.
 */
#include "acct_publish.h"
#include "acct_addr.h"
#include "acct_crypto.h"
#include "acct_dns.h"
#include "acct_domain.h"
#include "acct_file.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "acct_log.h"
#include "acct_publish_reload.h"
#include "acct_zone.h"

#include <apr_file_info.h>
#include <apr_hash.h>
#include <apr_strings.h>

#include <string.h>

#define LOCK_FILE ".acctapi-publish.lock"
#define ZONE_SUFFIX ACCT_PUBLISH_ZONE_SUFFIX
#define TMP_MARK ACCT_FILE_TMP_MARK
#define FILE_MODE 0644
#define NAME_LIMIT ACCT_FILE_NAME_LIMIT

static const acct_sql q_domain_by_key = ACCT_SQL("publish_domain_by_key",
    "SELECT " ACCT_DOMAIN_COLUMNS " FROM domains d WHERE d.domain_key = %s");

static const acct_sql q_domain_name = ACCT_SQL("publish_domain_name",
    "SELECT d.domain FROM domains d WHERE d.id = CAST(%s AS BIGINT)");

/* Every account's active zones: what zones.conf declares. */
static const acct_sql q_listing = ACCT_SQL("publish_listing",
    "SELECT d.domain, d.type, d.master_ips, d.axfr_ips FROM domains d"
    " WHERE d.status = '" ACCT_DOMAIN_ACTIVE "' ORDER BY d.domain_key");

/* One change noted by a handler (req->zones_changed). */
typedef struct zone_note {
    apr_int64_t id;
    const char *previous;
    unsigned what;
} zone_note;

/* A writer holding the lock. */
typedef struct publisher {
    apr_pool_t *pool;
    acct_store *st;
    const char *dir;
    const char *const *nameservers;
    apr_hash_t *published;   /* files of the master zones; NULL: not kept */
    acct_publish_summary *summary;
    int appeared;            /* a zone file was created: zones.conf lacks it */
} publisher;

/* ---- notes ---------------------------------------------------------------- */

void acct_publish_note(acct_req *req, apr_int64_t domain_id,
                       const char *previous_name, unsigned what)
{
    zone_note *note;

    if (!req->settings || !req->settings->zone_dir) {
        return;
    }
    if (!req->zones_changed) {
        req->zones_changed = apr_array_make(req->pool, 2, sizeof(zone_note));
    }
    note = apr_array_push(req->zones_changed);
    note->id = domain_id;
    note->previous = previous_name ? apr_pstrdup(req->pool, previous_name)
                                   : NULL;
    note->what = what;
}

void acct_publish_note_zone(acct_req *req, apr_int64_t domain_id,
                            const char *previous_name)
{
    acct_publish_note(req, domain_id, previous_name,
                      ACCT_PUBLISH_ZONE | ACCT_PUBLISH_LISTING);
}

/* ---- names ---------------------------------------------------------------- */

/* Safe in a file name, a named.conf string and an rndc argument; '_' as
 * domain names may hold it (_domainkey.example.com). */
static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
           || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

const char *acct_publish_zone_name(apr_pool_t *pool, const char *domain)
{
    size_t len, i;

    if (!domain) {
        return NULL;
    }
    len = strlen(domain);
    if (len == 0 || len > ACCT_DNS_NAME_MAX || domain[0] == '.'
        || domain[len - 1] == '.') {
        return NULL;
    }
    for (i = 0; i < len; i++) {
        if (domain[i] == '.' ? domain[i + 1] == '.' : !name_char(domain[i])) {
            return NULL;
        }
    }
    return acct_domain_key(pool, domain);
}

/*
 * The file of `zone`: "<zone>.zone", unless that is longer than a file
 * name may be (a domain may have 253 characters): then the start of the
 * name, '-' and 16 hex digits of its SHA-256 stand for the rest.
 */
const char *acct_publish_zone_file(apr_pool_t *pool, const char *zone)
{
    size_t len = strlen(zone), keep = NAME_LIMIT - strlen(ZONE_SUFFIX) - 17;

    if (len + strlen(ZONE_SUFFIX) <= NAME_LIMIT) {
        return apr_pstrcat(pool, zone, ZONE_SUFFIX, NULL);
    }
    return apr_psprintf(pool, "%.*s-%.16s" ZONE_SUFFIX, (int)keep, zone,
                        acct_sha256_hex(pool, zone));
}

/* ---- zones.conf ----------------------------------------------------------- */

/* A named.conf string: quoted, with '"' and '\' escaped. */
static const char *conf_string(apr_pool_t *pool, const char *text)
{
    char *out = apr_palloc(pool, 2 * strlen(text) + 3), *p = out;

    *p++ = '"';
    for (; *text; text++) {
        if (*text == '"' || *text == '\\') {
            *p++ = '\\';
        }
        *p++ = *text;
    }
    *p++ = '"';
    *p = '\0';
    return out;
}

/*
 * The addresses of a JSON array column as address-match-list elements
 * ("192.0.2.1; 2001:db8::1; "); anything that is not an IP address (never
 * stored) is left out, so no stored text can reach named.conf unchecked.
 */
static const char *address_list(apr_pool_t *pool, const char *json_text,
                                int *count)
{
    json_t *list = acct_json_parse_column(json_text), *item;
    const char *out = "", *ip;
    size_t i;

    *count = 0;
    if (json_is_array(list)) {
        json_array_foreach(list, i, item) {
            ip = json_is_string(item)
                 ? acct_ip_canonical(pool, json_string_value(item)) : NULL;
            if (ip) {
                out = apr_pstrcat(pool, out, ip, "; ", NULL);
                (*count)++;
            }
        }
    }
    json_decref(list);
    return out;
}

const char *acct_publish_include_text(apr_pool_t *pool, const char *dir,
                                      const apr_array_header_t *zones)
{
    apr_array_header_t *lines = apr_array_make(pool, zones->nelts + 4,
                                               sizeof(const char *));
    int i, n;

    APR_ARRAY_PUSH(lines, const char *) =
        "// Written by mod_acctapi (AcctapiZoneDir): do not edit.  It is "
        "rewritten\n"
        "// whenever zones are added or removed or change their transfer "
        "settings.\n"
        "// named.conf must define acl \"" ACCT_PUBLISH_ACL "\" before "
        "including it.\n";
    for (i = 0; i < zones->nelts; i++) {
        const acct_published_zone *z = &APR_ARRAY_IDX(zones, i,
                                                      acct_published_zone);
        const char *axfr = address_list(pool, z->axfr_ips, &n);
        const char *transfer = apr_pstrcat(pool, "allow-transfer { \""
                                           ACCT_PUBLISH_ACL "\"; ", axfr, "};",
                                           NULL);
        const char *masters;

        /*
         * check-names ignore: the names were validated when stored, by the
         * public API's rules, which allow underscores where BIND's
         * host-name check (on by default for masters) refuses the whole
         * zone (an SRV target rc_test.example.com, an A record _a).
         */
        if (!z->slave) {
            APR_ARRAY_PUSH(lines, const char *) = apr_psprintf(
                pool, "zone \"%s\" { type master; file %s; check-names "
                "ignore; %s };\n", z->zone,
                conf_string(pool, acct_file_in_dir(
                                      pool, dir,
                                      acct_publish_zone_file(pool, z->zone))),
                transfer);
            continue;
        }
        masters = address_list(pool, z->master_ips, &n);
        if (n > 0) {
            APR_ARRAY_PUSH(lines, const char *) = apr_psprintf(
                pool, "zone \"%s\" { type slave; masters { %s}; %s };\n",
                z->zone, masters, transfer);
        }
    }
    return apr_array_pstrcat(pool, lines, '\0');
}

/* ---- files ---------------------------------------------------------------- */

int acct_publish_write(apr_pool_t *pool, const char *dir, const char *name,
                       const char *text, apr_size_t len)
{
    acct_file_error e;
    int r = acct_file_replace(pool, dir, name, text, len, FILE_MODE, &e);

    if (r < 0) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00006) "zone publishing: cannot %s %s (for %s): %s", e.step,
                 e.path, acct_file_in_dir(pool, dir, name),
                 acct_os_error(pool, e.err));
    }
    else if (e.step) {
        /* Readers see the new file; a crash might bring the old one back
         * until the next write. */
        acct_log(ACCT_LOG_WARN, ACCTLOGNO(00105) "zone publishing: cannot %s %s: %s",
                 e.step, e.path, acct_os_error(pool, e.err));
    }
    return r;
}

int acct_publish_remove(apr_pool_t *pool, const char *dir, const char *name)
{
    acct_file_error e;
    int r = acct_file_remove(pool, dir, name, &e);

    if (r < 0) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00007) "zone publishing: cannot remove %s: %s", e.path,
                 acct_os_error(pool, e.err));
    }
    return r;
}

static int file_exists(apr_pool_t *pool, const char *dir, const char *name)
{
    return acct_file_exists(acct_file_in_dir(pool, dir, name));
}

int acct_publish_lock(apr_pool_t *pool, const char *dir, const char *lock)
{
    acct_file_error e;
    int fd = acct_file_lock(pool, dir, lock, FILE_MODE, &e);

    if (fd < 0 && strcmp(e.step, "open") == 0) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00008) "zone publishing: cannot open %s: %s", e.path,
                 acct_os_error(pool, e.err));
    }
    else if (fd < 0) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00009) "zone publishing: cannot lock %s: %s",
                 e.path, acct_os_error(pool, e.err));
    }
    return fd;
}

/* ---- zones ---------------------------------------------------------------- */

static int row_is(const acct_rows *rows, const char *col, const char *value)
{
    const char *v = acct_rows_get(rows, 0, col);

    return v && strcmp(v, value) == 0;
}

/* The zone's lines as one text, each line ended. */
static const char *zone_text(apr_pool_t *pool, const acct_rows *domain,
                             const acct_rows *records,
                             const char *const *nameservers, apr_size_t *len)
{
    apr_array_header_t *lines = acct_zone_render(pool, domain, 0, records,
                                                 nameservers);
    const char *text;

    APR_ARRAY_PUSH(lines, const char *) = "";
    text = apr_array_pstrcat(pool, lines, '\n');
    *len = strlen(text);
    return text;
}

static void store_failed(const char *what, const char *zone)
{
    acct_log(ACCT_LOG_ERR, ACCTLOGNO(00010) "zone publishing: cannot read %s%s from the "
             "database", what, zone ? zone : "");
}

/*
 * Brings the file of `zone` to the current state of the domain of that
 * name: written for an active master, removed otherwise.  1 the file
 * changed, 0 it was current, -1 failed (logged).
 */
static int publish_zone(publisher *p, const char *zone)
{
    const char *file = acct_publish_zone_file(p->pool, zone), *text;
    acct_rows *rows = NULL, *records = NULL;
    apr_pool_t *sub = NULL;
    apr_int64_t id = 0;
    apr_size_t len = 0;
    acct_store_rc rc;
    int r = -1;

    if (apr_pool_create(&sub, p->pool) != APR_SUCCESS) {
        return -1;
    }
    rc = acct_store_select(p->st, sub, &q_domain_by_key, &rows, 1, &zone);
    if (rc == ACCT_STORE_OK && rows->nrows == 1
        && row_is(rows, "type", ACCT_DOMAIN_MASTER)
        && row_is(rows, "status", ACCT_DOMAIN_ACTIVE)) {
        acct_parse_i64(acct_rows_get(rows, 0, "id"), &id);
        rc = acct_zone_records(p->st, sub, id, &records);
        if (rc == ACCT_STORE_OK) {
            int existed = file_exists(sub, p->dir, file);

            text = zone_text(sub, rows, records, p->nameservers, &len);
            r = acct_publish_write(sub, p->dir, file, text, len);
            p->appeared |= r > 0 && !existed;
        }
    }
    else if (rc == ACCT_STORE_OK) {
        r = acct_publish_remove(sub, p->dir, file);
    }
    if (rc != ACCT_STORE_OK) {
        store_failed("zone ", zone);
    }
    apr_pool_destroy(sub);
    return r;
}

/*
 * Rewrites zones.conf from every active zone of the database.  Masters
 * without a file get one first (all of them when `full`).  *written: 1
 * zones.conf changed, 0 it was current, -1 it could not be written.
 * 0, or -1 when the database failed (logged).
 */
static int refresh_include(publisher *p, int full, int *written)
{
    apr_array_header_t *zones;
    acct_published_zone *z;
    acct_rows *rows = NULL;
    const char *zone, *file, *text;
    int i;

    *written = 0;
    if (acct_store_select(p->st, p->pool, &q_listing, &rows, 0, NULL)
        != ACCT_STORE_OK) {
        store_failed("the list of zones", NULL);
        return -1;
    }
    zones = apr_array_make(p->pool, rows->nrows + 1,
                           sizeof(acct_published_zone));
    for (i = 0; i < rows->nrows; i++) {
        int slave = acct_domain_is_slave(rows, i);

        zone = acct_publish_zone_name(p->pool, acct_rows_get(rows, i,
                                                             "domain"));
        if (!zone) {
            continue; /* stored names are validated: never happens */
        }
        if (!slave) {
            file = acct_publish_zone_file(p->pool, zone);
            if (full || !file_exists(p->pool, p->dir, file)) {
                int r = publish_zone(p, zone);

                p->summary->written += r > 0;
                p->summary->failed += r < 0;
            }
            if (!file_exists(p->pool, p->dir, file)) {
                continue;
            }
            p->summary->masters++;
            if (p->published) {
                apr_hash_set(p->published, file, APR_HASH_KEY_STRING, file);
            }
        }
        else {
            p->summary->slaves++;
        }
        z = apr_array_push(zones);
        z->zone = zone;
        z->slave = slave;
        z->master_ips = acct_rows_get(rows, i, "master_ips");
        z->axfr_ips = acct_rows_get(rows, i, "axfr_ips");
    }
    text = acct_publish_include_text(p->pool, p->dir, zones);
    *written = acct_publish_write(p->pool, p->dir, ACCT_PUBLISH_INCLUDE, text,
                                  strlen(text));
    return 0;
}

/* Adds `zone` to `zones` (const char *) unless it is there already. */
static void add_zone(apr_array_header_t *zones, const char *zone)
{
    int i;

    if (!zone) {
        return;
    }
    for (i = 0; i < zones->nelts; i++) {
        if (strcmp(APR_ARRAY_IDX(zones, i, const char *), zone) == 0) {
            return;
        }
    }
    APR_ARRAY_PUSH(zones, const char *) = zone;
}

/*
 * The zones the notes name: each domain's current name and its previous
 * one.  *listing: whether a note may change zones.conf.
 */
static apr_array_header_t *noted_zones(publisher *p,
                                       const apr_array_header_t *notes,
                                       int *listing)
{
    apr_array_header_t *zones = apr_array_make(p->pool, notes->nelts + 1,
                                               sizeof(const char *));
    acct_rows *rows;
    const char *id;
    int i;

    *listing = 0;
    for (i = 0; i < notes->nelts; i++) {
        const zone_note *note = &APR_ARRAY_IDX(notes, i, zone_note);

        *listing |= (note->what & ACCT_PUBLISH_LISTING) != 0;
        if (note->previous) {
            add_zone(zones, acct_publish_zone_name(p->pool, note->previous));
        }
        rows = NULL;
        id = acct_i64(p->pool, note->id);
        if (acct_store_select(p->st, p->pool, &q_domain_name, &rows, 1, &id)
            != ACCT_STORE_OK) {
            store_failed("domain ", id);
            continue;
        }
        if (rows->nrows == 1) {
            add_zone(zones, acct_publish_zone_name(
                                p->pool, acct_rows_get(rows, 0, "domain")));
        }
    }
    return zones;
}

void acct_publish_committed(acct_req *req)
{
    const acct_settings *s = req->settings;
    acct_publish_summary summary;
    apr_array_header_t *zones, *changed, *reloads;
    acct_store *st = NULL;
    publisher p;
    int i, lock, listing, include = 0;

    if (!s || !s->zone_dir || !req->zones_changed
        || req->zones_changed->nelts == 0) {
        return;
    }
    if (acct_req_store(req, &st) != ACCT_STORE_OK) {
        store_failed("the changed zones", NULL);
        return;
    }
    memset(&summary, 0, sizeof(summary));
    memset(&p, 0, sizeof(p));
    p.pool = req->pool;
    p.st = st;
    p.dir = s->zone_dir;
    p.nameservers = s->nameservers;
    p.summary = &summary;
    if ((lock = acct_publish_lock(p.pool, p.dir, LOCK_FILE)) < 0) {
        return;
    }
    zones = noted_zones(&p, req->zones_changed, &listing);
    changed = apr_array_make(p.pool, zones->nelts + 1, sizeof(const char *));
    for (i = 0; i < zones->nelts; i++) {
        const char *zone = APR_ARRAY_IDX(zones, i, const char *);

        if (publish_zone(&p, zone) > 0) {
            APR_ARRAY_PUSH(changed, const char *) = zone;
        }
    }
    /* A file that was not there before (a new zone, or one whose earlier
     * publishing failed) needs its zones.conf entry too. */
    if (listing || p.appeared) {
        refresh_include(&p, 0, &include);
    }
    close(lock);

    if (!s->zone_reload_command) {
        return;
    }
    /* A changed zones.conf needs the whole configuration reread, which
     * loads every changed zone too: one run without a zone covers all. */
    reloads = changed;
    if (include > 0 || summary.written > 0) {
        reloads = apr_array_make(p.pool, 1, sizeof(const char *));
        APR_ARRAY_PUSH(reloads, const char *) = NULL;
    }
    if (reloads->nelts > 0) {
        acct_publish_reload_background(p.dir, s->zone_reload_command,
                                       reloads);
    }
}

/* Could `name` be a zone file's name without ZONE_SUFFIX? */
static int is_zone_name(apr_pool_t *pool, const char *name)
{
    const char *zone = acct_publish_zone_name(pool, name);

    return zone && strcmp(zone, name) == 0;
}

/*
 * Removes the zone files nothing publishes (names this module could have
 * written, nothing else) and temporaries of dead writers.
 */
static void remove_stale(publisher *p)
{
    apr_dir_t *dir = NULL;
    apr_finfo_t info;
    const char *name;
    size_t len, suffix = strlen(ZONE_SUFFIX);
    int stale;

    if (apr_dir_open(&dir, p->dir, p->pool) != APR_SUCCESS) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00011) "zone publishing: cannot list %s", p->dir);
        p->summary->failed++;
        return;
    }
    while (apr_dir_read(&info, APR_FINFO_NAME | APR_FINFO_TYPE, dir)
           == APR_SUCCESS) {
        name = info.name;
        len = strlen(name);
        if (info.filetype != APR_REG) {
            continue;
        }
        /* Under the lock, no writer has a temporary file open. */
        stale = name[0] == '.' && strstr(name, TMP_MARK) != NULL;
        if (!stale && len > suffix
            && strcmp(name + len - suffix, ZONE_SUFFIX) == 0) {
            stale = is_zone_name(p->pool, apr_pstrmemdup(p->pool, name,
                                                         len - suffix))
                    && !apr_hash_get(p->published, name, APR_HASH_KEY_STRING);
        }
        if (stale) {
            int r = acct_publish_remove(p->pool, p->dir, name);

            p->summary->removed += r > 0;
            p->summary->failed += r < 0;
        }
    }
    apr_dir_close(dir);
}

int acct_publish_all(acct_store *st, apr_pool_t *pool, const char *dir,
                     const char *const *nameservers,
                     acct_publish_summary *summary)
{
    publisher p;
    int lock, include = 0, rc;

    memset(summary, 0, sizeof(*summary));
    memset(&p, 0, sizeof(p));
    p.pool = pool;
    p.st = st;
    p.dir = dir;
    p.nameservers = nameservers;
    p.published = apr_hash_make(pool);
    p.summary = summary;
    if ((lock = acct_publish_lock(pool, dir, LOCK_FILE)) < 0) {
        return -1;
    }
    rc = refresh_include(&p, 1, &include);
    if (rc == 0) {
        summary->include_written = include > 0;
        summary->failed += include < 0;
        remove_stale(&p);
    }
    close(lock);
    return rc;
}
