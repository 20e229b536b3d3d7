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
 *  - description and group are display strings; "" or null clears them
 *    (clients that send back what they read get "" for an unset one);
 *  - the timer fields round up to the contract's valid values.
 */
#ifndef ACCT_DOMAIN_H
#define ACCT_DOMAIN_H

#include <apr_tables.h>

#include "acct_api.h"

#define ACCT_DOMAIN_DESCRIPTION_MAX 253
#define ACCT_DOMAIN_GROUP_MAX 50
#define ACCT_DOMAIN_IPS_MAX 1000   /* the entries joined with "," */

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
    const char *type;          /* "master" or "slave"; NULL: none */
    const char *status;        /* "active" or "disabled" */
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

/* The fields a body may set (NULL-terminated), for acct_body_only. */
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
 * 400 item for each invalid one and marking it in d->invalid.  Fields not in
 * the body keep their values.  Unknown fields are the caller's business.
 */
void acct_domain_read_body(acct_req *req, acct_resp *resp, acct_domain *d);

/* Only the "domain" field of the body, the same way (clone's body). */
void acct_domain_read_name(acct_req *req, acct_resp *resp, acct_domain *d);

/*
 * The rules on the domain as a whole: a name and a type, soa_email for a
 * master, master_ips for a slave.  Fields already refused are not reported
 * twice.
 */
void acct_domain_check(acct_req *req, acct_resp *resp, const acct_domain *d);

/*
 * Stores a new domain of the acting user's account with created = updated
 * = now: claims the name race-free (400 ACCT_DOMAIN_R_TAKEN on "domain" when
 * it is hosted already), sets d->tags, makes a restricted creator its
 * read_write grantee and starts the serial.  0 with *id set, or -1 once the
 * error is answered.
 */
int acct_domain_create(acct_req *req, acct_resp *resp, const acct_domain *d,
                       apr_int64_t *id);

/*
 * Stores `d` as the settings of domain `id` (which the caller has loaded
 * for the acting user), with the same uniqueness rule for a new name, sets
 * d->tags when not NULL and bumps the serial.  0, or -1 once answered.
 */
int acct_domain_update(acct_req *req, acct_resp *resp, apr_int64_t id,
                       const acct_domain *d);

/*
 * The Domain object of row `i` (ACCT_DOMAIN_COLUMNS; a "tags" column made
 * by acct_tags_column_sql is used when present, else the tags are read).
 * NULL only when reading the tags failed.
 */
json_t *acct_domain_render(acct_req *req, const acct_rows *rows, int i);

/* Answers 200 with domain `id` as it is stored now. */
void acct_domain_respond(acct_req *req, acct_resp *resp, apr_int64_t id);

#endif
