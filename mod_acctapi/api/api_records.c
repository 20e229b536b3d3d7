/*
 * The records of a DNS domain: /domains/{domainId}/records[/{recordId}].
 * acct_record.c holds the rules of each record type; this file adds the
 * rules that depend on the domain's other records (CNAME names are
 * unique, a Null MX excludes every other MX, at most 12,000 records) and
 * keeps the domain's serial and record count with its records.
 *
 * Every write first takes the domain row (an UPDATE of it:
 * acct_domain_claim_slot, acct_domain_take, acct_dns_touch; or its lock,
 * acct_domain_lock, in acct_record_create_at_once) and only then reads the
 * records it checks: writers of one domain queue on that row (PostgreSQL's
 * row lock; SQLite's writers are serial anyway), so the checks and the
 * write that follows them cannot race another writer.  The statements are
 * the model's (acct_domain.h, acct_record_store.h).
 */
#include "api_handlers.h"
#include "api_domains.h"
#include "acct_body.h"
#include "acct_dns.h"
#include "acct_domain.h"
#include "acct_grants.h"
#include "acct_json.h"
#include "acct_list.h"
#include "acct_log.h"
#include "acct_publish.h"
#include "acct_record.h"
#include "acct_record_body.h"
#include "acct_record_json.h"
#include "acct_record_store.h"

#include <apr_strings.h>
#include <string.h>

#define R_SLAVE "Records of a slave domain cannot be added or changed: a " \
    "slave domain copies its records from its master"
#define R_LIMIT "This domain already has %d records, the most a domain " \
    "can hold: delete some before adding more"

/* The first row of `rows` as the answer (the one writer of a Record). */
static void answer_record(acct_req *req, acct_resp *resp, const acct_rows *rows)
{
    apr_size_t len = 0;
    const char *text = acct_record_object_text(req->pool, rows, 0, &len);

    acct_resp_ok_raw(resp, text, len);
}

static const char *render_records(acct_req *req, const acct_rows *rows,
                                  apr_size_t *len)
{
    return acct_record_json_text(req->pool, rows, len);
}

static apr_int64_t domain_id(const acct_rows *domain)
{
    return acct_domain_row_id(domain, 0);
}

/* Record `id` of `domain`; NULL once answered (404 when there is none). */
static acct_rows *record_of(acct_req *req, acct_resp *resp,
                            const acct_rows *domain, apr_int64_t id)
{
    acct_rows *rows = NULL;
    acct_store *st = NULL;
    acct_store_rc rc = acct_req_store(req, &st);

    if (rc == ACCT_STORE_OK) {
        rc = acct_record_get(st, req->pool, domain_id(domain), id, &rows);
    }
    return acct_resp_found(req, resp, rc, rows);
}

/* The record of path parameter 1 in `domain`; answers 404 itself. */
static acct_rows *load_record(acct_req *req, acct_resp *resp,
                              const acct_rows *domain)
{
    apr_int64_t id;

    if (acct_path_id(req, resp, 1, &id) != 0) {
        return NULL;
    }
    return record_of(req, resp, domain, id);
}

/* The record just written, as the answer. */
static void respond_record(acct_req *req, acct_resp *resp,
                           const acct_rows *domain, apr_int64_t id)
{
    acct_rows *rows = record_of(req, resp, domain, id);

    if (rows) {
        answer_record(req, resp, rows);
    }
}

/* A slave's records come from its master: they cannot be written here. */
static int refuse_slave(acct_req *req, acct_resp *resp,
                        const acct_rows *domain)
{
    if (acct_domain_is_slave(domain, 0)) {
        acct_resp_error(resp, req->pool, ACCT_HTTP_BAD_REQUEST, R_SLAVE, NULL);
        return -1;
    }
    return 0;
}

/*
 * Bumps the domain's serial (every change of a record is a change of the
 * zone) and notes the zone for publishing; as the first write of a
 * delete it also takes the domain row (see the top of the file).
 */
static int touch_domain(acct_req *req, acct_resp *resp,
                        const acct_rows *domain)
{
    apr_int64_t id = domain_id(domain);

    if (acct_resp_store_failed(req, resp, acct_dns_touch(req->store, req->pool,
                                                         id, req->now)) != 0) {
        return -1;
    }
    /* Published once the request commits; a request that fails after
     * this point rolls back and publishes nothing. */
    acct_publish_note(req, id, NULL, ACCT_PUBLISH_ZONE);
    return 0;
}

/*
 * touch_domain for a record update: the domain row taken, as it is now
 * (acct_domain_take), and refused if it is a slave; NULL once answered.
 */
static acct_rows *take_master_domain(acct_req *req, acct_resp *resp,
                                     const acct_rows *domain)
{
    apr_int64_t id = domain_id(domain);
    acct_rows *now = NULL;
    acct_store_rc rc = acct_domain_take(req->store, req->pool, id, req->now,
                                        &now);

    if (!(now = acct_resp_found(req, resp, rc, now))
        || refuse_slave(req, resp, now) != 0) {
        return NULL;
    }
    acct_publish_note(req, id, NULL, ACCT_PUBLISH_ZONE);
    return now;
}

static void zone_of(acct_req *req, const acct_rows *domain,
                    acct_record_zone *zone)
{
    zone->domain = acct_rows_get(domain, 0, "domain");
    zone->remote_addr = req->remote_addr;
}

/*
 * The domain of path parameter 0 with a record slot claimed (see
 * acct_domain_claim_slot) and the user's right to write it checked; NULL
 * once answered.
 */
static acct_rows *claim_slot(acct_req *req, acct_resp *resp)
{
    acct_rows *domain = NULL;
    acct_store *st = NULL;
    acct_store_rc rc;
    apr_int64_t id;

    if (acct_path_id(req, resp, 0, &id) != 0) {
        return NULL;
    }
    rc = acct_req_store(req, &st);
    if (rc == ACCT_STORE_OK) {
        rc = acct_domain_claim_slot(st, req->pool, id, req->who->account_id,
                                    req->now, &domain);
    }
    if (acct_resp_store_failed(req, resp, rc) != 0
        || domain->nrows == 0
        || acct_resp_outcome(resp, req->pool,
                             acct_grant_require(req, ACCT_ENTITY_DOMAIN, id,
                                                ACCT_LEVEL_READ_WRITE)) != 0) {
        return NULL;
    }
    acct_publish_note(req, id, NULL, ACCT_PUBLISH_ZONE);
    return domain;
}

/*
 * The Record of row 0 of `rows` as a GET shows it, for judging a body's
 * other keys (acct_fields_settable): written by the one writer of the shape
 * and parsed back, with no query.
 */
static json_t *stored_record(acct_req *req, const acct_rows *rows)
{
    apr_size_t len = 0;
    const char *text = acct_record_object_text(req->pool, rows, 0, &len);

    return acct_json_own(req->pool, json_loadb(text, len, 0, NULL));
}

/*
 * The body as a record (acct_record_read), its other keys judged against
 * the stored record `rows` (NULL on create; rendered only for a body that
 * holds such keys): -1 once its problems are answered.
 */
static int read_record(acct_req *req, acct_resp *resp, const acct_rows *rows,
                       const acct_record *current,
                       const acct_record_zone *zone, acct_record *out)
{
    acct_problems *pb = acct_problems_make(req->pool);

    acct_fields_settable(req, pb, acct_record_fields,
                         rows && acct_fields_beyond(req, acct_record_fields)
                         ? stored_record(req, rows) : NULL);
    if (acct_record_read(req, pb, current, zone, out) != 0
        || acct_problems_any(pb)) {
        acct_resp_problems(resp, req->pool, pb);
        return -1;
    }
    return 0;
}

/*
 * Why no slot could be claimed, answered as the checks of an update
 * would: the domain (404, 403), a slave (400), the body (400), else the
 * limit.
 */
static void create_refused(acct_req *req, acct_resp *resp)
{
    acct_rows *domain = api_domain_of_path(req, resp, ACCT_LEVEL_READ_WRITE);
    acct_record_zone zone;
    acct_record rec;

    if (!domain || refuse_slave(req, resp, domain) != 0) {
        return;
    }
    zone_of(req, domain, &zone);
    if (read_record(req, resp, NULL, NULL, &zone, &rec) != 0) {
        return;
    }
    acct_resp_error(resp, req->pool, ACCT_HTTP_BAD_REQUEST,
                    apr_psprintf(req->pool, R_LIMIT, ACCT_RECORD_LIMIT), NULL);
}

/* Rule 5 and docs/conventions.md: a CNAME is alone at its name, whatever the
 * type. */
static int check_cname(acct_req *req, acct_resp *resp, acct_problems *pb,
                       apr_int64_t domain, apr_int64_t self,
                       const acct_record *rec)
{
    apr_int64_t records = 0, cnames = 0;
    int cname = strcmp(rec->type, ACCT_RECORD_TYPE_CNAME) == 0;

    if (acct_resp_store_failed(req, resp,
                               acct_record_name_users(req->store, req->pool,
                                                      domain, rec->name, self,
                                                      &records, &cnames))
        != 0) {
        return -1;
    }
    if (cname && records > 0) {
        acct_problem_add(pb, "name", "Other records already have this "
                         "name: a CNAME record must be the only record at "
                         "its name");
    }
    else if (!cname && cnames > 0) {
        acct_problem_add(pb, "name", "A CNAME record already has this "
                         "name: no other record can share it");
    }
    return 0;
}

/* Rule 4: a Null MX excludes every other MX record, both ways round. */
static int check_mx(acct_req *req, acct_resp *resp, acct_problems *pb,
                    apr_int64_t domain, apr_int64_t self,
                    const acct_record *rec)
{
    apr_int64_t mx = 0, null_mx = 0;

    if (acct_resp_store_failed(req, resp,
                               acct_record_mx_others(req->store, req->pool,
                                                     domain, self, &mx,
                                                     &null_mx)) != 0) {
        return -1;
    }
    if (acct_record_is_null_mx(rec)) {
        if (mx > 0) {
            acct_problem_add(pb, "target", "A Null MX record cannot be "
                             "added while the domain has other MX records: "
                             "remove them first");
        }
    }
    else if (null_mx > 0) {
        acct_problem_add(pb, "target", "The domain has a Null MX record: "
                         "no other MX record can be added while it exists");
    }
    return 0;
}

/*
 * The rules that depend on the domain's other records.  `self` is the id
 * of the record being changed (0 for a new one).  0 when the write may
 * go ahead; -1 once answered: a store failure as such, else the problems.
 */
static int check_neighbours(acct_req *req, acct_resp *resp,
                            const acct_rows *domain, apr_int64_t self,
                            const acct_record *rec)
{
    acct_problems *pb = acct_problems_make(req->pool);

    if (check_cname(req, resp, pb, domain_id(domain), self, rec) != 0) {
        return -1;
    }
    if (strcmp(rec->type, ACCT_RECORD_TYPE_MX) == 0
        && check_mx(req, resp, pb, domain_id(domain), self, rec) != 0) {
        return -1;
    }
    if (acct_problems_any(pb)) {
        acct_resp_problems(resp, req->pool, pb);
        return -1;
    }
    return 0;
}

/*
 * The domain's row, read for the access check, also holds its record count
 * (kept exactly by every write of records: create, delete, clone, import),
 * so an unfiltered page needs no count(*) of up to 12,000 rows.
 */
void api_records_list(acct_req *req, acct_resp *resp)
{
    acct_rows *domain = api_domain_of_path(req, resp, ACCT_LEVEL_READ_ONLY);
    apr_int64_t total = 0;
    acct_list_query q;

    if (!domain) {
        return;
    }
    acct_record_list_query(req->pool, domain_id(domain), &q);
    q.render_text = render_records;
    if (acct_parse_i64(acct_rows_get(domain, 0, "record_count"), &total) == 0) {
        q.total = &total;
    }
    acct_list_respond(req, resp, &q);
}

void api_record_get(acct_req *req, acct_resp *resp)
{
    acct_rows *domain = api_domain_of_path(req, resp, ACCT_LEVEL_READ_ONLY);
    acct_rows *rows = domain ? load_record(req, resp, domain) : NULL;

    if (rows) {
        answer_record(req, resp, rows);
    }
}

/*
 * api_record_create's domain, sent with the token lookup where that saves
 * a round trip (acct_store_pipelines): the record is then read against
 * the domain's name before the transaction, and the write takes one more
 * round trip (create_at_once).
 */
int api_record_create_read(acct_req *req, const acct_token_ref *token,
                           acct_store_read *out)
{
    apr_int64_t id;

    if (!req->store || !acct_store_pipelines(req->store)
        || acct_parse_i64(req->params[0], &id) != 0 || id <= 0) {
        return -1;
    }
    acct_domain_read_by_token(req->pool, id, token, out);
    return 0;
}

/*
 * A new record written in one round trip (acct_record_create_at_once)
 * when its domain came with the token lookup (api_record_create_read), the
 * user may write every domain of the account, and the domain as read
 * takes the record.  1 once answered (the record, or what is wrong with
 * the body or the store); 0 to write it the long way in the transaction
 * then open: the domain was not read so, or the write was refused (by a
 * rule, or by a change of the domain since it was read), and the long way
 * says why (or writes it, when what refused it is gone).
 */
static int create_at_once(acct_req *req, acct_resp *resp)
{
    const acct_rows *domain = req->auth_read;
    acct_rows *rows = NULL;
    acct_record_slot slot;
    acct_record_zone zone;
    acct_record rec;
    apr_int64_t count = 0;

    if (!domain || domain->nrows != 1 || req->who->restricted
        || acct_domain_is_slave(domain, 0)
        || acct_parse_i64(acct_rows_get(domain, 0, "record_count"),
                          &count) != 0
        || count >= ACCT_RECORD_LIMIT) {
        return 0;
    }
    zone_of(req, domain, &zone);
    if (read_record(req, resp, NULL, NULL, &zone, &rec) != 0) {
        return 1;
    }
    slot.domain_id = domain_id(domain);
    slot.account_id = req->who->account_id;
    slot.zone = zone.domain;
    if (acct_resp_store_failed(req, resp,
                               acct_record_create_at_once(
                                   req->store, req->pool, &slot, &rec,
                                   req->who->username, req->now, &rows))
        != 0) {
        return 1;
    }
    if (!rows) {
        return 0;
    }
    acct_req_note_ended(req);
    if (rows->nrows == 0) {
        /* Nothing was written: the long way, in a transaction of its own. */
        return acct_resp_store_failed(req, resp, acct_req_reopen(req)) != 0;
    }
    /* Committed already: published once the request ends. */
    acct_publish_note(req, slot.domain_id, NULL, ACCT_PUBLISH_ZONE);
    answer_record(req, resp, rows);
    return 1;
}

void api_record_create(acct_req *req, acct_resp *resp)
{
    acct_rows *domain, *rows = NULL;
    acct_record_zone zone;
    acct_record rec;

    if (create_at_once(req, resp)) {
        return;
    }
    /* The claim comes first: the row it takes and returns is the domain
     * the checks read.  Any refusal after it rolls it back. */
    domain = claim_slot(req, resp);
    if (!domain) {
        if (!acct_resp_failed(resp)) {
            create_refused(req, resp);
        }
        return;
    }
    zone_of(req, domain, &zone);
    if (read_record(req, resp, NULL, NULL, &zone, &rec) != 0
        || acct_resp_store_failed(req, resp,
                                  acct_record_create(req->store, req->pool,
                                                     domain_id(domain), &rec,
                                                     req->who->username,
                                                     req->now, &rows)) != 0) {
        return;
    }
    if (rows->nrows == 0) {
        /* A rule forbade it: the checks say which (and answer). */
        if (check_neighbours(req, resp, domain, 0, &rec) == 0) {
            acct_log(ACCT_LOG_ERR, ACCTLOGNO(00066) "record of domain %"
                     APR_INT64_T_FMT ": not written, yet no rule forbids it",
                     domain_id(domain));
            acct_resp_store_error(resp, req->pool, ACCT_STORE_FAILED);
        }
        return;
    }
    answer_record(req, resp, rows);
}

void api_record_update(acct_req *req, acct_resp *resp)
{
    acct_rows *domain = api_domain_of_path(req, resp, ACCT_LEVEL_READ_WRITE);
    acct_rows *rows;
    acct_record_zone zone;
    acct_record current, rec;
    apr_int64_t id = 0;
    acct_store_rc rc;
    int changed = 0;

    /* The domain first, then the record: the record is read under the
     * domain's lock, so the merge starts from its latest version. */
    if (!domain || !(domain = take_master_domain(req, resp, domain))
        || !(rows = load_record(req, resp, domain))) {
        return;
    }
    acct_parse_i64(acct_rows_get(rows, 0, "id"), &id);
    acct_record_from_row(rows, 0, &current);
    zone_of(req, domain, &zone);
    if (read_record(req, resp, rows, &current, &zone, &rec) != 0
        || check_neighbours(req, resp, domain, id, &rec) != 0) {
        return;
    }
    rc = acct_record_update(req->store, req->pool, domain_id(domain), id, &rec,
                            req->who->username, req->now, &changed);
    if (acct_resp_changed(req, resp, rc, changed) != 0) {
        return;
    }
    respond_record(req, resp, domain, id);
}

void api_record_delete(acct_req *req, acct_resp *resp)
{
    acct_rows *domain = api_domain_of_path(req, resp, ACCT_LEVEL_READ_WRITE);
    apr_int64_t id;
    acct_store_rc rc;
    int deleted = 0;

    /* Deleting stays possible on a slave: it only tidies what is there. */
    if (!domain || acct_path_id(req, resp, 1, &id) != 0
        || touch_domain(req, resp, domain) != 0) {
        return;
    }
    rc = acct_record_delete(req->store, req->pool, domain_id(domain), id,
                            req->who->username, req->now, &deleted);
    if (acct_resp_changed(req, resp, rc, deleted) != 0) {
        return;
    }
    acct_resp_ok(resp, req->pool, NULL);
}
