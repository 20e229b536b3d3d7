/*
 * DNS domains: the request fields, their validation, storage and the Domain
 * object of the API.  Shared by the /domains handlers, clone, the zone
 * renderer and import, so that every path applies the same rules:
 *
 *  - domain: an RFC 1035 host name of two labels or more, 1..253
 *    characters; a trailing dot is accepted and dropped; the caller's case is
 *    kept, uniqueness (across every account) ignores it;
 *  - type master needs soa_email, type slave at least one master_ips entry,
 *    judged on the domain as it results from the request;
 *  - description and group are display strings; "" clears them (clients
 *    that send back what they read get "" for an unset one), and so does
 *    "" for soa_email;
 *  - a body's nulls are gone before these readers see it
 *    (acct_fields_settable): null leaves a field as it is, or gives its
 *    default on create, like an absent field (docs/conventions.md, "Today's
 *    clients"); [] clears master_ips, axfr_ips and tags;
 *  - the timer fields round up to the contract's valid values.
 */
#ifndef ACCT_DOMAIN_H
#define ACCT_DOMAIN_H

#include <apr_tables.h>

#include "acct_list.h"
#include "acct_outcome.h"
#include "acct_problems.h"
#include "acct_req.h"

#define ACCT_DOMAIN_DESCRIPTION_MAX 253
#define ACCT_DOMAIN_GROUP_MAX 50
#define ACCT_DOMAIN_IPS_MAX 1000   /* the entries joined with "," */

/* The domain types and statuses of the contract, listed once. */
#define ACCT_DOMAIN_MASTER   "master"
#define ACCT_DOMAIN_SLAVE    "slave"
#define ACCT_DOMAIN_ACTIVE   "active"
#define ACCT_DOMAIN_DISABLED "disabled"
extern const char *const acct_domain_types[];    /* NULL-terminated */
extern const char *const acct_domain_statuses[]; /* NULL-terminated */

/* Reason of the 400 on "domain" when the name is hosted already. */
#define ACCT_DOMAIN_R_TAKEN "This domain is already hosted"

/* Bits of acct_domain.invalid: fields of the body already refused. */
#define ACCT_DOMAIN_F_DOMAIN     0x01
#define ACCT_DOMAIN_F_TYPE       0x02
#define ACCT_DOMAIN_F_SOA_EMAIL  0x04
#define ACCT_DOMAIN_F_MASTER_IPS 0x08

/* A domain's settings: a stored row, a new one, or either after a body. */
typedef struct acct_domain {
    const char *domain;        /* no trailing dot, caller's case; NULL: none */
    const char *type;          /* ACCT_DOMAIN_MASTER or _SLAVE; NULL: none */
    const char *status;        /* ACCT_DOMAIN_ACTIVE or _DISABLED */
    const char *description;   /* "" when unset */
    const char *group;         /* "" when unset */
    const char *soa_email;     /* NULL when unset */
    const char *master_ips;    /* JSON array text of canonical addresses */
    const char *axfr_ips;      /* same */
    int master_count;          /* entries of master_ips */
    apr_int64_t expire_sec;    /* stored rounded; 0 = the default */
    apr_int64_t refresh_sec;
    apr_int64_t retry_sec;
    apr_int64_t ttl_sec;
    apr_array_header_t *tags;  /* labels to set; NULL: leave them as they are */
    unsigned invalid;          /* ACCT_DOMAIN_F_* */
} acct_domain;

/* The fields a body may set (NULL-terminated), for acct_fields_settable. */
extern const char *const acct_domain_fields[];

/*
 * The stored form of a domain name the caller wrote: one trailing dot
 * dropped, then 1..253 characters of RFC 1035 labels, two at least.  NULL
 * with *reason set (the text of the 400) when the name is not acceptable.
 */
const char *acct_domain_name(apr_pool_t *pool, const char *name,
                             const char **reason);

/* The uniqueness key of a stored name: its ASCII lower case. */
const char *acct_domain_key(apr_pool_t *pool, const char *name);

/* A domain about to be created: no name or type yet, the defaults else. */
void acct_domain_init(acct_domain *d);

/* Row `i` (ACCT_DOMAIN_COLUMNS) as settings; tags are left alone. */
void acct_domain_from_row(const acct_rows *rows, int i, acct_domain *d);

/*
 * Applies every domain field present in the request body to `d`, adding a
 * problem for each invalid one and marking it in d->invalid.  Fields not in
 * the body keep their values.  The other keys of the body
 * (acct_fields_settable, before this) and "tags" (acct_tags_read_body, read
 * after these) are the caller's business.
 */
void acct_domain_read_body(acct_req *req, acct_problems *pb, acct_domain *d);

/* Only the "domain" field of the body, the same way (clone's body). */
void acct_domain_read_name(acct_req *req, acct_problems *pb, acct_domain *d);

/*
 * The rules on the domain as a whole: a name and a type, soa_email for a
 * master, master_ips for a slave.  Fields already refused are not reported
 * twice.
 */
void acct_domain_check(acct_req *req, acct_problems *pb, const acct_domain *d);

/*
 * Stores a new domain of the acting user's account with created = updated
 * = now: claims the name race-free (invalid, ACCT_DOMAIN_R_TAKEN on
 * "domain", when it is hosted already), sets d->tags, makes a restricted
 * creator its read_write grantee and starts the serial.  Done with *id set,
 * else what went wrong.
 */
acct_outcome acct_domain_create(acct_req *req, const acct_domain *d,
                                apr_int64_t *id);

/*
 * Stores `d` as the settings of domain `id` (which the caller has loaded
 * for the acting user), with the same uniqueness rule for a new name, sets
 * d->tags when not NULL and bumps the serial.
 */
acct_outcome acct_domain_update(acct_req *req, apr_int64_t id,
                                const acct_domain *d);

/*
 * A new master domain holding the zone an import transferred: the domain
 * as acct_domain_create stores it, then every record of `records`
 * (acct_record, validated, stored form) and its record count, in the
 * request's transaction.  Done with *id set, else what went wrong.
 */
acct_outcome acct_domain_import_create(acct_req *req, const acct_domain *d,
                                       const apr_array_header_t *records,
                                       apr_int64_t *id);

/*
 * Is a domain of any account named `name` (compared as acct_domain_key
 * does)?  *hosted 1 or 0.  The create decides for good; this only spares
 * an import's transfer.
 */
acct_store_rc acct_domain_hosted(acct_store *st, apr_pool_t *pool,
                                 const char *name, int *hosted);

/*
 * Deletes domain `id` of account `account_id` with what names it by id
 * only: its tag links and grants (its records go by ON DELETE CASCADE).
 * *deleted: the domains deleted, 0 when it is not there.  For a domain
 * the caller has loaded for the account: its dns_zone_delete event (by
 * `username` at `now`), the tag links and grants go first, so a caller
 * that gets 0 rolls its transaction back (a 404 does).
 */
acct_store_rc acct_domain_delete(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t id, apr_int64_t account_id,
                                 const char *username, apr_int64_t now,
                                 int *deleted);

/*
 * The list of the acting user's domains (GET /domains) as a query for
 * acct_list_respond: the account's domains the user may see, with their
 * tags, the filter fields of X-Filter, rendered by acct_domain_render.
 */
void acct_domain_list_query(acct_req *req, acct_store *st,
                            acct_list_query *q);

/*
 * The writes of a domain's records take the domain row first (an UPDATE
 * of it), so writers of one domain queue on that row (PostgreSQL's row
 * lock; SQLite's writers are serial anyway) and the checks that follow
 * cannot race another writer.  Both return the domain row as it is now
 * (ACCT_DOMAIN_COLUMNS_OF("")), with the serial of the change set.
 *
 * acct_domain_claim_slot, for a new record: a slot under ACCT_RECORD_LIMIT
 * and the serial, claimed on a master domain of account `account_id` in
 * one write.  No row: the domain is not there, is a slave, or is full.
 *
 * acct_domain_take, for a record update: the serial only, so that the
 * slave rule (acct_domain_is_slave) judges the domain under its lock (a
 * concurrent domain PUT may just have made it a slave).  No row: the
 * domain is gone.
 */
acct_store_rc acct_domain_claim_slot(acct_store *st, apr_pool_t *pool,
                                     apr_int64_t id, apr_int64_t account_id,
                                     apr_int64_t now, acct_rows **domain);
acct_store_rc acct_domain_take(acct_store *st, apr_pool_t *pool,
                               apr_int64_t id, apr_int64_t now,
                               acct_rows **domain);

/*
 * acct_domain_claim_slot's UPDATE up to the end of its WHERE, for a
 * statement that adds conditions of its own: six %s, the time three times
 * (ACCT_DNS_TOUCH_SET), the domain, its account, ACCT_RECORD_LIMIT.
 */
#define ACCT_DOMAIN_SLOT_CLAIM \
    "UPDATE domains SET record_count = record_count + 1," ACCT_DNS_TOUCH_SET \
    " WHERE id = CAST(%s AS BIGINT) AND account_id = CAST(%s AS BIGINT)" \
    " AND type = '" ACCT_DOMAIN_MASTER "'" \
    " AND record_count < CAST(%s AS INTEGER)"

/*
 * Takes domain `id`'s row lock (FOR NO KEY UPDATE, the lock its UPDATEs
 * take) in the open transaction, with the transaction's next statement
 * (acct_store_exec_deferred), so that statement starts once every other
 * writer of the domain has committed and sees what they wrote.  PostgreSQL
 * only (acct_store_pipelines): SQLite's writers are serial already.
 */
acct_store_rc acct_domain_lock(acct_store *st, apr_pool_t *pool,
                               apr_int64_t id);

/*
 * A route's read sent with the token lookup (acct_auth_read): the id,
 * domain, type and record_count of domain `id` if it is in the account of
 * `token`, whoever in it the token's user is (the handler judges the
 * user's grants itself): what a new record is read and judged against.
 */
void acct_domain_read_by_token(apr_pool_t *pool, apr_int64_t id,
                               const acct_token_ref *token,
                               acct_store_read *out);

/* Is row `i` of a domain a slave (whose records come from its master)? */
int acct_domain_is_slave(const acct_rows *rows, int i);

/* The id of row `i` of a domain (0 when unreadable, never stored). */
apr_int64_t acct_domain_row_id(const acct_rows *rows, int i);

/*
 * The Domain object of row `i` (ACCT_DOMAIN_COLUMNS; a "tags" column made
 * by acct_tags_column_sql is used when present, else the tags are read).
 * NULL only when reading the tags failed.
 */
json_t *acct_domain_render(acct_req *req, const acct_rows *rows, int i);

/*
 * The Domain object of domain `id` as it is stored now (what a write
 * answers), or NULL with *out saying why not.
 */
json_t *acct_domain_object(acct_req *req, apr_int64_t id, acct_outcome *out);

#endif
