/*
 * DNS domains of the acting user's account: /domains, /domains/{domainId}
 * and its clone.  The rules on the fields live in acct_domain.c; here are
 * who may do what (restricted users by their grants) and what a delete or a
 * clone takes along: records, tag links, grants.
 */
#include "api_handlers.h"
#include "api_domains.h"
#include "acct_body.h"
#include "acct_dns.h"
#include "acct_domain.h"
#include "acct_grants.h"
#include "acct_json.h"
#include "acct_list.h"
#include "acct_publish.h"
#include "acct_record.h"
#include "acct_record_store.h"
#include "acct_tags.h"

#include <apr_strings.h>
#include <string.h>

acct_rows *api_domain_of_path(acct_req *req, acct_resp *resp,
                              acct_level need)
{
    acct_outcome out;
    acct_rows *rows;
    apr_int64_t id;

    if (acct_path_id(req, resp, 0, &id) != 0) {
        return NULL;
    }
    rows = acct_dns_domain(req, id, need, &out);
    if (acct_resp_outcome(resp, req->pool, out) != 0) {
        return NULL;
    }
    return rows;
}

void api_domain_respond(acct_req *req, acct_resp *resp, apr_int64_t id)
{
    acct_outcome out;
    json_t *o = acct_domain_object(req, id, &out);

    if (acct_resp_outcome(resp, req->pool, out) != 0) {
        return;
    }
    acct_resp_ok(resp, req->pool, o);
}

void api_domains_list(acct_req *req, acct_resp *resp)
{
    acct_store *st = NULL;
    acct_list_query q;

    if (acct_resp_store_failed(req, resp, acct_req_store(req, &st)) != 0) {
        return;
    }
    acct_domain_list_query(req, st, &q);
    acct_list_respond(req, resp, &q);
}

/* The whole body on top of `d`, its other keys judged against `stored`
 * (the domain as a GET shows it; NULL on create), then the rules on the
 * result: -1 once the problems are answered. */
static int read_domain(acct_req *req, acct_resp *resp, const json_t *stored,
                       acct_domain *d)
{
    acct_problems *pb = acct_problems_make(req->pool);

    acct_fields_settable(req, pb, acct_domain_fields, stored);
    acct_domain_read_body(req, pb, d);
    acct_tags_read_body(req, pb, "tags", &d->tags);
    acct_domain_check(req, pb, d);
    if (acct_problems_any(pb)) {
        acct_resp_problems(resp, req->pool, pb);
        return -1;
    }
    return 0;
}

void api_domain_create(acct_req *req, acct_resp *resp)
{
    apr_int64_t id = 0;
    acct_domain d;

    if (acct_resp_outcome(resp, req->pool,
                          acct_grant_require_global(req, "add_domains"))
        != 0) {
        return;
    }
    acct_domain_init(&d);
    if (read_domain(req, resp, NULL, &d) != 0
        || acct_resp_outcome(resp, req->pool,
                             acct_domain_create(req, &d, &id)) != 0) {
        return;
    }
    acct_publish_note_zone(req, id, NULL);
    api_domain_respond(req, resp, id);
}

void api_domain_get(acct_req *req, acct_resp *resp)
{
    acct_outcome out;
    acct_rows *rows;
    apr_int64_t id;
    json_t *o;

    if (acct_path_id(req, resp, 0, &id) != 0) {
        return;
    }
    rows = acct_dns_domain_with_tags(req, id, ACCT_LEVEL_READ_ONLY, &out);
    if (acct_resp_outcome(resp, req->pool, out) != 0) {
        return;
    }
    o = acct_domain_render(req, rows, 0);
    if (!o) {
        acct_resp_store_error(resp, req->pool, ACCT_STORE_FAILED);
        return;
    }
    acct_resp_ok(resp, req->pool, o);
}

/*
 * Tells publishing what an update changed: the zone always (the serial
 * moves), its zones.conf entry when the name (other than in case), type,
 * status or an address list changed; a rename names the old zone too.
 */
static void note_update(acct_req *req, apr_int64_t id, const acct_rows *rows,
                        const acct_domain *d)
{
    acct_domain old;
    const char *previous = NULL;
    unsigned what = ACCT_PUBLISH_ZONE;

    acct_domain_from_row(rows, 0, &old);
    if (strcmp(acct_domain_key(req->pool, old.domain),
               acct_domain_key(req->pool, d->domain)) != 0) {
        previous = old.domain;
    }
    if (previous || strcmp(old.type, d->type) != 0
        || strcmp(old.status, d->status) != 0
        || strcmp(old.master_ips, d->master_ips) != 0
        || strcmp(old.axfr_ips, d->axfr_ips) != 0) {
        what |= ACCT_PUBLISH_LISTING;
    }
    acct_publish_note(req, id, previous, what);
}

/*
 * The body's fields on top of the stored ones; the rules judge the result.
 * The stored domain is rendered (its tags read) only for a body that holds
 * keys it must be judged against, such as a GET's body sent back.
 */
void api_domain_update(acct_req *req, acct_resp *resp)
{
    acct_rows *rows = api_domain_of_path(req, resp, ACCT_LEVEL_READ_WRITE);
    json_t *stored = NULL;
    apr_int64_t id;
    acct_domain d;

    if (!rows) {
        return;
    }
    if (acct_fields_beyond(req, acct_domain_fields)
        && !(stored = acct_json_own(req->pool,
                                    acct_domain_render(req, rows, 0)))) {
        acct_resp_store_error(resp, req->pool, ACCT_STORE_FAILED);
        return;
    }
    id = acct_domain_row_id(rows, 0);
    acct_domain_from_row(rows, 0, &d);
    if (read_domain(req, resp, stored, &d) != 0
        || acct_resp_outcome(resp, req->pool,
                             acct_domain_update(req, id, &d)) != 0) {
        return;
    }
    note_update(req, id, rows, &d);
    api_domain_respond(req, resp, id);
}

/* Tag links and grants name the domain by id only: they go too. */
void api_domain_delete(acct_req *req, acct_resp *resp)
{
    acct_rows *rows = api_domain_of_path(req, resp, ACCT_LEVEL_READ_WRITE);
    apr_int64_t id;
    acct_store_rc rc;
    int deleted = 0;

    if (!rows) {
        return;
    }
    id = acct_domain_row_id(rows, 0);
    rc = acct_domain_delete(req->store, req->pool, id, req->who->account_id,
                            req->who->username, req->now, &deleted);
    if (acct_resp_changed(req, resp, rc, deleted) != 0) {
        return;
    }
    acct_publish_note_zone(req, id, acct_rows_get(rows, 0, "domain"));
    acct_resp_ok(resp, req->pool, NULL);
}

/*
 * A new domain named by the body with the settings, tags and records of
 * the one in the path; the new one's serial starts afresh.
 */
void api_domain_clone(acct_req *req, acct_resp *resp)
{
    static const char *const settable[] = {"domain", NULL};
    acct_rows *rows = api_domain_of_path(req, resp, ACCT_LEVEL_READ_ONLY);
    acct_problems *pb = acct_problems_make(req->pool);
    apr_int64_t from, to = 0;
    acct_domain d;

    if (!rows
        || acct_resp_outcome(resp, req->pool,
                             acct_grant_require_global(req, "add_domains"))
           != 0) {
        return;
    }
    from = acct_domain_row_id(rows, 0);
    acct_fields_settable(req, pb, settable, NULL);
    acct_domain_from_row(rows, 0, &d);
    d.domain = NULL;
    acct_domain_read_name(req, pb, &d);
    acct_domain_check(req, pb, &d);
    if (acct_problems_any(pb)) {
        acct_resp_problems(resp, req->pool, pb);
        return;
    }
    if (acct_resp_outcome(resp, req->pool,
                          acct_domain_create(req, &d, &to)) != 0
        || acct_resp_store_failed(req, resp,
                        acct_tags_copy(req->store, req->pool,
                                       ACCT_ENTITY_DOMAIN, from, to)) != 0
        || acct_resp_store_failed(req, resp,
                        acct_record_copy_all(req->store, req->pool, from, to,
                                             req->now)) != 0) {
        return;
    }
    acct_publish_note_zone(req, to, NULL);
    api_domain_respond(req, resp, to);
}
