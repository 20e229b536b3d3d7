/*
 * Zone publishing.  What is written where and the reload contract are in
 * acct_publish.h; this is about getting it right when several httpd
 * children (and threads, and acctapi-admin) publish at once.
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
#include "acct_crypto.h"
#include "acct_dns.h"
#include "acct_domain.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "acct_log.h"
#include "acct_zone.h"

#include <apr_file_info.h>
#include <apr_hash.h>
#include <apr_strings.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define LOCK_FILE ".acctapi-publish.lock"
#define RELOAD_LOCK_FILE ".acctapi-reload.lock"
#define ZONE_SUFFIX ".zone"
#define TMP_MARK ".tmp-"
#define FILE_MODE 0644
/* The longest file name written (NAME_MAX of common file systems). */
#define NAME_LIMIT 255

/* How much of a reload command's stderr is kept for the log. */
#define STDERR_KEEP 400

/* How long the queue of reloads is quiet before its confirming run. */
#define RELOAD_CONFIRM_DELAY apr_time_from_sec(2)

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

void acct_req_note_zone(acct_req *req, apr_int64_t domain_id,
                        const char *previous_name)
{
    acct_publish_note(req, domain_id, previous_name,
                      ACCT_PUBLISH_ZONE | ACCT_PUBLISH_LISTING);
}

/* ---- names ---------------------------------------------------------------- */

static int name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
           || (c >= '0' && c <= '9') || c == '-';
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

/* dir/name, without doubling the separator. */
static const char *in_dir(apr_pool_t *pool, const char *dir, const char *name)
{
    size_t len = strlen(dir);

    while (len > 1 && dir[len - 1] == '/') {
        len--;
    }
    return apr_pstrcat(pool, apr_pstrmemdup(pool, dir, len), "/", name, NULL);
}

/*
 * The file of `zone`: "<zone>.zone", unless that is longer than a file
 * name may be (a domain may have 253 characters): then the start of the
 * name, '-' and 16 hex digits of its SHA-256 stand for the rest.
 */
static const char *zone_file(apr_pool_t *pool, const char *zone)
{
    size_t len = strlen(zone), keep = NAME_LIMIT - strlen(ZONE_SUFFIX) - 17;

    if (len + strlen(ZONE_SUFFIX) <= NAME_LIMIT) {
        return apr_pstrcat(pool, zone, ZONE_SUFFIX, NULL);
    }
    return apr_psprintf(pool, "%.*s-%.16s" ZONE_SUFFIX, (int)keep, zone,
                        acct_sha256_hex(pool, zone));
}

static const char *os_error(apr_pool_t *pool, int err)
{
    char buf[120];

    return apr_pstrdup(pool, apr_strerror(APR_FROM_OS_ERROR(err), buf,
                                          sizeof(buf)));
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

        if (!z->slave) {
            APR_ARRAY_PUSH(lines, const char *) = apr_psprintf(
                pool, "zone \"%s\" { type master; file %s; %s };\n", z->zone,
                conf_string(pool, in_dir(pool, dir, zone_file(pool, z->zone))),
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

/* Does `path` hold exactly these bytes? */
static int same_content(const char *path, const char *text, apr_size_t len)
{
    char buf[65536];
    struct stat sb;
    apr_size_t done = 0;
    ssize_t n;
    int fd = open(path, O_RDONLY | O_CLOEXEC), same = 0;

    if (fd < 0) {
        return 0;
    }
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)
        && (apr_size_t)sb.st_size == len) {
        same = 1;
        while (same && done < len) {
            n = read(fd, buf, sizeof(buf));
            if (n < 0 && errno == EINTR) {
                continue;
            }
            same = n > 0 && (apr_size_t)n <= len - done
                   && memcmp(buf, text + done, (size_t)n) == 0;
            done += n > 0 ? (apr_size_t)n : 0;
        }
    }
    close(fd);
    return same;
}

static int write_all(int fd, const char *text, apr_size_t len)
{
    ssize_t n;

    while (len > 0) {
        n = write(fd, text, len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            if (n == 0) {
                errno = EIO;
            }
            return -1;
        }
        text += n;
        len -= (apr_size_t)n;
    }
    return 0;
}

/* Temporary names never repeat within a process, whatever the thread. */
static unsigned tmp_counter;

/*
 * The modification time a new version of `path` gets: now, or just after
 * the version it replaces, whichever is later.  A nameserver asked to
 * reload a zone skips the load when the file is not newer than the one it
 * last loaded (BIND compares the two times, "skipping load: master file
 * older than last load"); two versions written within one tick of the
 * kernel's coarse file clock would have equal times, and the second would
 * never be served.
 */
static struct timespec next_mtime(const char *path)
{
    struct timespec now;
    struct stat sb;

    clock_gettime(CLOCK_REALTIME, &now);
    if (stat(path, &sb) == 0
        && (sb.st_mtim.tv_sec > now.tv_sec
            || (sb.st_mtim.tv_sec == now.tv_sec
                && sb.st_mtim.tv_nsec >= now.tv_nsec))) {
        now = sb.st_mtim;
        if (++now.tv_nsec == 1000000000L) {
            now.tv_sec++;
            now.tv_nsec = 0;
        }
    }
    return now;
}

/*
 * Fills and closes the new file `fd`, which replaces `path`; NULL, or the
 * step that failed (errno set).
 */
static const char *fill(int fd, const char *path, const char *text,
                        apr_size_t len)
{
    struct timespec times[2];
    const char *step = NULL;

    times[0].tv_sec = 0;
    times[0].tv_nsec = UTIME_OMIT;
    /* The nameserver's user reads it, whatever httpd's umask. */
    if (fchmod(fd, FILE_MODE) != 0) {
        step = "chmod";
    }
    else if (write_all(fd, text, len) != 0) {
        step = "write";
    }
    else if ((times[1] = next_mtime(path), futimens(fd, times)) != 0) {
        step = "set the time of";
    }
    else if (fsync(fd) != 0) {
        step = "sync";
    }
    if (step) {
        int err = errno;

        close(fd);
        errno = err;
        return step;
    }
    return close(fd) == 0 ? NULL : "close";
}

int acct_publish_write(apr_pool_t *pool, const char *dir, const char *name,
                       const char *text, apr_size_t len)
{
    const char *path = in_dir(pool, dir, name), *tmp, *step, *suffix;
    unsigned n = __atomic_add_fetch(&tmp_counter, 1, __ATOMIC_RELAXED);
    int fd;

    if (same_content(path, text, len)) {
        return 0;
    }
    suffix = apr_psprintf(pool, TMP_MARK "%ld-%u", (long)getpid(), n);
    tmp = in_dir(pool, dir, apr_psprintf(pool, ".%.*s%s",
                                         (int)(NAME_LIMIT - 1 - strlen(suffix)),
                                         name, suffix));
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
              FILE_MODE);
    if (fd < 0) {
        step = "create";
    }
    else if (!(step = fill(fd, path, text, len))) {
        if (rename(tmp, path) == 0) {
            return 1;
        }
        step = "rename";
    }
    acct_log(ACCT_LOG_ERR, ACCTLOGNO(00006) "zone publishing: cannot %s %s (for %s): %s", step,
             tmp, path, os_error(pool, errno));
    if (fd >= 0) {
        unlink(tmp);
    }
    return -1;
}

int acct_publish_remove(apr_pool_t *pool, const char *dir, const char *name)
{
    const char *path = in_dir(pool, dir, name);

    if (unlink(path) == 0) {
        return 1;
    }
    if (errno == ENOENT) {
        return 0;
    }
    acct_log(ACCT_LOG_ERR, ACCTLOGNO(00007) "zone publishing: cannot remove %s: %s", path,
             os_error(pool, errno));
    return -1;
}

static int file_exists(apr_pool_t *pool, const char *dir, const char *name)
{
    struct stat sb;

    return stat(in_dir(pool, dir, name), &sb) == 0 && S_ISREG(sb.st_mode);
}

/* The lock's descriptor, or -1 (logged).  Closing it unlocks. */
static int lock_dir(apr_pool_t *pool, const char *dir, const char *lock)
{
    const char *path = in_dir(pool, dir, lock);
    /* Read-only is enough for flock, and opens a lock file that another
     * user (acctapi-admin run as root) created. */
    int fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, FILE_MODE);

    if (fd < 0) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00008) "zone publishing: cannot open %s: %s", path,
                 os_error(pool, errno));
        return -1;
    }
    while (flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            acct_log(ACCT_LOG_ERR, ACCTLOGNO(00009) "zone publishing: cannot lock %s: %s",
                     path, os_error(pool, errno));
            close(fd);
            return -1;
        }
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
    const char *file = zone_file(p->pool, zone), *text;
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
            file = zone_file(p->pool, zone);
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
    if ((lock = lock_dir(p.pool, p.dir, LOCK_FILE)) < 0) {
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
    if ((lock = lock_dir(pool, dir, LOCK_FILE)) < 0) {
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

/* ---- the reload command --------------------------------------------------- */

/* The command's words with `zone` appended (unless NULL); NULL if empty. */
static const char *const *reload_argv(apr_pool_t *pool, const char *command,
                                      const char *zone)
{
    char **words = NULL;
    const char **argv;
    int n = 0;

    if (!command || apr_tokenize_to_argv(command, &words, pool) != APR_SUCCESS
        || !words || !words[0]) {
        return NULL;
    }
    while (words[n]) {
        n++;
    }
    argv = apr_palloc(pool, (size_t)(n + 2) * sizeof(*argv));
    memcpy(argv, words, (size_t)n * sizeof(*argv));
    argv[n] = zone;
    argv[n + 1] = NULL;
    return argv;
}

/*
 * Starts argv with stdin and stdout on /dev/null and stderr on `err_fd`,
 * in a process group of its own (httpd signalling its children's group
 * must not kill a reload half done), with every signal unblocked and at
 * its default (httpd's threads block and ignore some).
 */
static int spawn(const char *const *argv, int err_fd, pid_t *pid)
{
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    sigset_t none, defaults;
    int rc, sig;

    sigemptyset(&none);
    sigemptyset(&defaults);
    for (sig = 1; sig < 32; sig++) {
        if (sig != SIGKILL && sig != SIGSTOP) {
            sigaddset(&defaults, sig);
        }
    }
    if ((rc = posix_spawn_file_actions_init(&actions)) != 0) {
        return rc;
    }
    if ((rc = posix_spawnattr_init(&attr)) != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return rc;
    }
    if ((rc = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null",
                                               O_RDONLY, 0)) == 0
        && (rc = posix_spawn_file_actions_addopen(&actions, 1, "/dev/null",
                                                  O_WRONLY, 0)) == 0
        && (rc = posix_spawn_file_actions_adddup2(&actions, err_fd, 2)) == 0
        && (rc = posix_spawnattr_setflags(
                &attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
                       | POSIX_SPAWN_SETPGROUP)) == 0
        && (rc = posix_spawnattr_setsigmask(&attr, &none)) == 0
        && (rc = posix_spawnattr_setsigdefault(&attr, &defaults)) == 0
        && (rc = posix_spawnattr_setpgroup(&attr, 0)) == 0) {
        rc = posix_spawnp(pid, argv[0], &actions, &attr,
                          (char *const *)argv, environ);
    }
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    return rc;
}

/* Reads `fd` to its end, keeping the start on one printable line. */
static void drain(int fd, char *keep, size_t *kept)
{
    char chunk[512];
    ssize_t n, i;

    for (;;) {
        n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            break;
        }
        for (i = 0; i < n && *kept < STDERR_KEEP; i++) {
            char c = chunk[i];

            keep[(*kept)++] = (c < ' ' || c == 0x7f) ? ' ' : c;
        }
    }
    while (*kept > 0 && keep[*kept - 1] == ' ') {
        (*kept)--;
    }
    keep[*kept] = '\0';
}

/* Runs argv and waits for it (acct_publish_reload without the lock). */
static int run_reload(apr_pool_t *pool, const char *const *argv,
                      const char *what)
{
    char err[STDERR_KEEP + 1];
    size_t kept = 0;
    int fds[2], rc, status = 0;
    pid_t pid = 0;

    if (pipe2(fds, O_CLOEXEC) != 0) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00012) "zone reload (%s): cannot make a pipe: %s",
                 what, os_error(pool, errno));
        return -1;
    }
    rc = spawn(argv, fds[1], &pid);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00013) "zone reload (%s): cannot run %s: %s", what,
                 argv[0], os_error(pool, rc));
        return -1;
    }
    drain(fds[0], err, &kept);
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            acct_log(ACCT_LOG_ERR, ACCTLOGNO(00014) "zone reload (%s): waiting for %s: %s",
                     what, argv[0], os_error(pool, errno));
            return -1;
        }
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        acct_log(ACCT_LOG_DEBUG, ACCTLOGNO(00015) "zone reload (%s): %s succeeded", what,
                 argv[0]);
        return 0;
    }
    acct_log(ACCT_LOG_ERR, ACCTLOGNO(00016) "zone reload (%s): %s %s %d%s%s", what, argv[0],
             WIFEXITED(status) ? "exited with status" : "was killed by signal",
             WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
             kept ? ": " : "", err);
    return -1;
}

int acct_publish_reload(apr_pool_t *pool, const char *dir,
                        const char *command, const char *zone)
{
    const char *const *argv = reload_argv(pool, command, zone);
    const char *what = zone ? zone : "all zones";
    int lock = -1, rc;

    if (!argv) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00017) "zone reload (%s): the command is empty", what);
        return -1;
    }
    /* Without the lock the command still runs: a reload is better late
     * and out of order than never. */
    if (dir) {
        lock = lock_dir(pool, dir, RELOAD_LOCK_FILE);
    }
    rc = run_reload(pool, argv, what);
    if (lock >= 0) {
        close(lock);
    }
    return rc;
}

/* ---- background reloads ------------------------------------------------- */

/*
 * Requests wait in one queue per process, drained by one detached worker
 * thread: a burst of changes costs one run per zone (or one run without a
 * zone), not one per change, and the request never waits for the command.
 *
 * The confirming run.  A nameserver may accept a reload and drop it: BIND
 * answers "zone reload queued" to a zone already loading and loads nothing
 * more when that load ends, so a file renamed in just after that load
 * opened it would not be served until the next change.  So everything run
 * since the queue was last quiet is run once more when no request has come
 * for the confirmation delay (by then those loads have ended); a zone
 * whose file is current costs the nameserver a stat.
 */
typedef struct reload_entry {
    const char *dir;       /* NULL: no lock */
    const char *command;
    const char *zone;      /* NULL: the run without a zone */
} reload_entry;

/* Entries without repeats, in their own pool. */
typedef struct reload_set {
    apr_pool_t *pool;
    apr_hash_t *keys;
    apr_array_header_t *entries;
} reload_set;

static pthread_mutex_t reload_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t reload_wakeup = PTHREAD_COND_INITIALIZER;
static reload_set *reload_pending;     /* not run yet */
static reload_set *reload_confirm;     /* run since the queue was quiet */
static apr_time_t reload_confirm_at;
static apr_interval_time_t reload_confirm_delay = RELOAD_CONFIRM_DELAY;
/* The process whose worker drains the queue (a forked child starts its own). */
static pid_t reload_worker_pid;

void acct_publish_set_confirm_delay(apr_interval_time_t delay)
{
    pthread_mutex_lock(&reload_mutex);
    reload_confirm_delay = delay;
    pthread_mutex_unlock(&reload_mutex);
}

/* Creates *set if need be and adds an entry; 0, or -1 out of memory. */
static int set_add(reload_set **set, const char *dir, const char *command,
                   const char *zone)
{
    reload_set *s = *set;
    const char *parts[3];
    apr_size_t sizes[3], len = 0;
    reload_entry *e;
    apr_pool_t *pool;
    char *key;
    int i;

    if (!s) {
        if (apr_pool_create_unmanaged_ex(&pool, NULL, NULL) != APR_SUCCESS) {
            return -1;
        }
        s = apr_palloc(pool, sizeof(*s));
        s->pool = pool;
        s->keys = apr_hash_make(pool);
        s->entries = apr_array_make(pool, 4, sizeof(reload_entry));
        *set = s;
    }
    /* The key: each part marked present ('+') or NULL ('-') and ended by
     * a NUL, so that no two entries share one; its parts are the entry's
     * own copies of the strings. */
    parts[0] = dir;
    parts[1] = command;
    parts[2] = zone;
    for (i = 0; i < 3; i++) {
        sizes[i] = parts[i] ? strlen(parts[i]) : 0;
        len += sizes[i] + 2;
    }
    key = apr_palloc(s->pool, len);
    for (len = 0, i = 0; i < 3; i++) {
        key[len++] = parts[i] ? '+' : '-';
        memcpy(key + len, parts[i] ? parts[i] : "", sizes[i]);
        len += sizes[i];
        key[len++] = '\0';
    }
    if (apr_hash_get(s->keys, key, (apr_ssize_t)len)) {
        return 0;
    }
    apr_hash_set(s->keys, key, (apr_ssize_t)len, key);
    e = apr_array_push(s->entries);
    e->dir = dir ? key + 1 : NULL;
    e->command = key + sizes[0] + 3;
    e->zone = zone ? e->command + sizes[1] + 2 : NULL;
    return 0;
}

static void set_destroy(reload_set *set)
{
    if (set) {
        apr_pool_destroy(set->pool);
    }
}

/* Is there a run without a zone for e's directory and command? */
static int covered(const reload_set *set, const reload_entry *e)
{
    int i;

    for (i = 0; i < set->entries->nelts; i++) {
        const reload_entry *all = &APR_ARRAY_IDX(set->entries, i, reload_entry);

        if (!all->zone && strcmp(all->command, e->command) == 0
            && (all->dir == e->dir
                || (all->dir && e->dir && strcmp(all->dir, e->dir) == 0))) {
            return 1;
        }
    }
    return 0;
}

/*
 * Runs a set: a run without a zone rereads every zone, so it replaces the
 * runs of single zones of its directory and command.  A zone whose file
 * is gone was unpublished since; the run without a zone that its removal
 * asked for drops it, and naming it would only fail.
 */
static void run_set(const reload_set *set)
{
    apr_pool_t *pool = NULL;
    int i;

    if (apr_pool_create_unmanaged_ex(&pool, NULL, NULL) != APR_SUCCESS) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00018) "zone reload: out of memory");
        return;
    }
    for (i = 0; i < set->entries->nelts; i++) {
        const reload_entry *e = &APR_ARRAY_IDX(set->entries, i, reload_entry);

        if (e->zone && (covered(set, e)
                        || (e->dir && !file_exists(pool, e->dir,
                                                   apr_pstrcat(pool, e->zone,
                                                               ZONE_SUFFIX,
                                                               NULL))))) {
            continue;
        }
        acct_publish_reload(pool, e->dir, e->command, e->zone);
        apr_pool_clear(pool);
    }
    apr_pool_destroy(pool);
}

/* Moves set's entries into reload_confirm (under reload_mutex). */
static void keep_for_confirming(const reload_set *set)
{
    int i;

    for (i = 0; i < set->entries->nelts; i++) {
        const reload_entry *e = &APR_ARRAY_IDX(set->entries, i, reload_entry);

        if (set_add(&reload_confirm, e->dir, e->command, e->zone) != 0) {
            acct_log(ACCT_LOG_ERR, ACCTLOGNO(00060) "zone reload: out of memory; "
                     "no confirming run for %s", e->zone ? e->zone : "all zones");
        }
    }
    reload_confirm_at = apr_time_now() + reload_confirm_delay;
}

static void *reload_worker(void *unused)
{
    reload_set *batch;

    (void)unused;
    pthread_mutex_lock(&reload_mutex);
    for (;;) {
        if (reload_pending) {
            batch = reload_pending;
            reload_pending = NULL;
            keep_for_confirming(batch);
        }
        else if (reload_confirm && apr_time_now() >= reload_confirm_at) {
            batch = reload_confirm;
            reload_confirm = NULL;
        }
        else if (reload_confirm) {
            struct timespec until;

            until.tv_sec = (time_t)apr_time_sec(reload_confirm_at);
            until.tv_nsec = (long)apr_time_usec(reload_confirm_at) * 1000L;
            pthread_cond_timedwait(&reload_wakeup, &reload_mutex, &until);
            continue;
        }
        else {
            pthread_cond_wait(&reload_wakeup, &reload_mutex);
            continue;
        }
        pthread_mutex_unlock(&reload_mutex);
        run_set(batch);
        set_destroy(batch);
        pthread_mutex_lock(&reload_mutex);
    }
    return NULL;
}

/* Starts this process's worker unless it runs (under reload_mutex). */
static int start_worker(void)
{
    pthread_attr_t attr;
    pthread_t thread;
    int rc;

    if (reload_worker_pid == getpid()) {
        return 0;
    }
    rc = pthread_attr_init(&attr);
    if (rc == 0) {
        rc = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (rc == 0) {
            rc = pthread_create(&thread, &attr, reload_worker, NULL);
        }
        pthread_attr_destroy(&attr);
    }
    if (rc == 0) {
        reload_worker_pid = getpid();
    }
    return rc;
}

/*
 * posix_spawn does not run any code of the parent in the child, which
 * matters in a threaded process; the worker reaps every command it
 * starts, so no zombie is left in the httpd child.  If the child process
 * exits first, the command goes on under init, which reaps it.
 */
void acct_publish_reload_background(const char *dir, const char *command,
                                    const apr_array_header_t *zones)
{
    int i, rc = 0;

    pthread_mutex_lock(&reload_mutex);
    for (i = 0; i < zones->nelts && rc == 0; i++) {
        rc = set_add(&reload_pending, dir, command,
                     APR_ARRAY_IDX(zones, i, const char *));
    }
    if (rc != 0) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00061) "zone reload: out of memory");
    }
    else if ((rc = start_worker()) != 0) {
        char buf[120];

        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00019) "zone reload: cannot start a thread: %s",
                 apr_strerror(APR_FROM_OS_ERROR(rc), buf, sizeof(buf)));
    }
    else {
        pthread_cond_signal(&reload_wakeup);
    }
    pthread_mutex_unlock(&reload_mutex);
}
