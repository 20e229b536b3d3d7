/*
 * Zone publishing (AcctapiZoneDir): the hosted zones as files a nameserver
 * loads.  In the directory:
 *
 *   <zone>.zone      the master file of every active master domain (the
 *                    zone-file endpoint's renderer; <zone> is the domain
 *                    in lower case, shortened with a hash in the rare case
 *                    that it is too long for a file name);
 *   zones.conf       a BIND include file declaring every active zone:
 *                    masters with their file, slaves with their master_ips
 *                    as masters; the allow-transfer list of each is the
 *                    ACL "acctapi-transfer" (the operator's own, defined in
 *                    named.conf) plus the domain's axfr_ips;
 *   .acctapi-publish.lock  the lock that serialises the writers;
 *   .acctapi-reload.lock   the lock that serialises the reload commands.
 *
 * Files are replaced atomically (acct_file.h: a temporary file in the
 * directory, fsync, rename, the directory synced), so a nameserver never
 * reads half a zone.
 *
 * Handlers note what they change (acct_publish_note, acct_publish_note_zone);
 * once the request's transaction has committed, acct_publish_committed
 * takes the lock, reads the current state of the noted zones from the
 * database and writes or removes their files, and rewrites zones.conf
 * when a change could alter it.  Reading after the commit under the lock
 * is what orders concurrent writers: whoever takes the lock later reads a
 * state that includes every commit the earlier one saw, so the last
 * rename always carries the newest state (see acct_publish.c).
 *
 * AcctapiZoneReloadCommand then runs in the background, never delaying
 * the answer: with the zone's name appended when only zone files
 * changed (once per zone: "rndc reload example.com"), with nothing
 * appended when zones.conf changed (zones added, removed or their
 * transfer settings changed: "rndc reload" rereads the configuration and
 * every changed zone).  acct_publish_reload.h runs it.
 */
#ifndef ACCT_PUBLISH_H
#define ACCT_PUBLISH_H

#include <apr_pools.h>
#include <apr_tables.h>

#include "acct_req.h"

/* The include file, relative to the zone directory. */
#define ACCT_PUBLISH_INCLUDE "zones.conf"

/* The operator's ACL that every zone's allow-transfer list starts with. */
#define ACCT_PUBLISH_ACL "acctapi-transfer"

/* What a change touched (acct_publish_note). */
#define ACCT_PUBLISH_ZONE    0x01 /* the zone's content: records, SOA */
#define ACCT_PUBLISH_LISTING 0x02 /* its zones.conf entry: name, type,
                                     status, master_ips, axfr_ips */

/*
 * Records that the request changed domain `domain_id` (`what`: the
 * ACCT_PUBLISH_* bits), `previous_name` being its name before a rename or
 * a delete (else NULL).  A no-op without AcctapiZoneDir.
 * acct_publish_note_zone is this with both bits.
 */
void acct_publish_note(acct_req *req, apr_int64_t domain_id,
                       const char *previous_name, unsigned what);

/*
 * Records that the request changed the zone of domain `domain_id` (created,
 * changed, its records changed, or deleted): its content and its listing.
 * `previous_name`: the domain's name before the change when the change
 * renamed or deleted it, else NULL.
 */
void acct_publish_note_zone(acct_req *req, apr_int64_t domain_id,
                            const char *previous_name);

/*
 * After the request's transaction committed: publishes the noted zones and
 * starts the reload command.  Failures are logged, never answered: the
 * change itself is stored.
 */
void acct_publish_committed(acct_req *req);

/*
 * The name under which `domain` is published (its lower case), or NULL
 * when it could not be a safe file name: empty, more than 253
 * characters, a leading or trailing dot, an empty label, or any character
 * but letters, digits, '-', '_' and '.'.
 */
const char *acct_publish_zone_name(apr_pool_t *pool, const char *domain);

/* One zone's entry in zones.conf. */
typedef struct acct_published_zone {
    const char *zone;        /* acct_publish_zone_name */
    int slave;
    const char *master_ips;  /* JSON array text of addresses (slaves) */
    const char *axfr_ips;    /* JSON array text of addresses */
} acct_published_zone;

/*
 * The text of zones.conf for `zones` (acct_published_zone, in the given
 * order) whose master files are in `dir`.  A slave without a master
 * address is left out: BIND refuses one.
 */
const char *acct_publish_include_text(apr_pool_t *pool, const char *dir,
                                      const apr_array_header_t *zones);

/* What a zone file's name ends with. */
#define ACCT_PUBLISH_ZONE_SUFFIX ".zone"

/*
 * The file name of `zone` (acct_publish_zone_name) in the directory:
 * "<zone>.zone", or, when that is too long for a file name, the start of
 * the name, '-' and 16 hex digits of its SHA-256.
 */
const char *acct_publish_zone_file(apr_pool_t *pool, const char *zone);

/*
 * Makes dir/name hold exactly `len` bytes of `text`: unchanged when it
 * does already, else written to a temporary file in `dir`, synced, and
 * renamed over it (mode 0644).  1 written, 0 unchanged, -1 failed (logged).
 */
int acct_publish_write(apr_pool_t *pool, const char *dir, const char *name,
                       const char *text, apr_size_t len);

/* Removes dir/name: 1 removed, 0 there was none, -1 failed (logged). */
int acct_publish_remove(apr_pool_t *pool, const char *dir, const char *name);

/*
 * Takes the lock file dir/lock (created if need be), waiting for it: the
 * descriptor, whose closing unlocks, or -1 (logged).
 */
int acct_publish_lock(apr_pool_t *pool, const char *dir, const char *lock);

/* What acct_publish_all did. */
typedef struct acct_publish_summary {
    int masters;   /* master zones published */
    int written;   /* of these, files written (the others were current) */
    int slaves;    /* slave zones in zones.conf */
    int removed;   /* files of zones no longer published, stale temporaries */
    int failed;    /* zones that could not be written (logged) */
    int include_written;
} acct_publish_summary;

/*
 * Full resynchronisation of `dir` from the database, every account's
 * domains: every published zone's file, zones.conf, and the removal of
 * *.zone files nothing publishes.  0, or -1 when the database or the lock
 * failed (logged).
 */
int acct_publish_all(acct_store *st, apr_pool_t *pool, const char *dir,
                     const char *const *nameservers,
                     acct_publish_summary *summary);

#endif
