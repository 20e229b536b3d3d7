/*
 * DNS domains of the acting user's account: /domains, /domains/{domainId}
 * and its clone.  The rules on the fields live in acct_domain.c; here are
 * who may do what (restricted users by their grants) and what a delete or a
 * clone takes along: records, tag links, grants.
 */
#include "api_handlers.h"
#include "acct_body.h"
#include "acct_dns.h"
#include "acct_domain.h"
#include "acct_grants.h"
#include "acct_list.h"
#include "acct_publish.h"
#include "acct_tags.h"

#include <apr_strings.h>
#include <string.h>

static const acct_sql q_domain_grants_delete = ACCT_SQL("domain_grants_delete",
    "DELETE FROM entity_grants"
    " WHERE entity_type = 'domain' AND entity_id = CAST(%s AS BIGINT)");

/* Records go with the domain (ON DELETE CASCADE). */
static const acct_sql q_domain_delete = ACCT_SQL("domain_delete",
    "DELETE FROM domains"
    " WHERE id = CAST(%s AS BIGINT) AND account_id = CAST(%s AS BIGINT)");

/* One statement, so a clone holds exactly the records of one moment. */
static const acct_sql q_records_copy = ACCT_SQL("domain_records_copy",
    "INSERT INTO domain_records (domain_id, type, name, target, priority,"
    " weight, port, service, protocol, ttl_sec, tag, created, updated)"
    " SELECT CAST(%s AS BIGINT), type, name, target, priority, weight, port,"
    " service, protocol, ttl_sec, tag, CAST(%s AS BIGINT), CAST(%s AS BIGINT)"
    " FROM domain_records WHERE domain_id = CAST(%s AS BIGINT) ORDER BY id");

static const acct_sql q_record_count_set = ACCT_SQL("domain_record_count_set",
    "UPDATE domains SET record_count = CAST(%s AS INTEGER)"
    " WHERE id = CAST(%s AS BIGINT)");

#define TAGGED_DOMAIN \
    "EXISTS (SELECT 1 FROM tag_links tl JOIN tags t ON t.id = tl.tag_id" \
    " WHERE tl.entity_type = 'domain' AND tl.entity_id = d.id" \
    " AND t.label = %s)"

static const acct_filter_field domain_filter_fields[] = {
    {"domain", "d.domain", ACCT_FIELD_TEXT},
    {"group", "d.group_name", ACCT_FIELD_TEXT},
    {"tags", TAGGED_DOMAIN, ACCT_FIELD_TAG},
    {"type", "d.type", ACCT_FIELD_TEXT},
    {"status", "d.status", ACCT_FIELD_TEXT},
    {NULL, NULL, 0}
};

static apr_int64_t row_id(const acct_rows *rows)
{
    apr_int64_t id = 0;

    acct_parse_i64(acct_rows_get(rows, 0, "id"), &id);
    return id;
}

void api_domains_list(acct_req *req, acct_resp *resp)
{
    const char *args[3];
    acct_store *st = NULL;
    acct_store_rc rc = acct_req_store(req, &st);
    acct_list_query q = {NULL, "domains d", NULL, 3, args,
                         domain_filter_fields, "d.id", acct_domain_render};

    if (acct_resp_store_failed(req, resp, rc) != 0) {
        return;
    }
    q.columns = apr_pstrcat(req->pool, ACCT_DOMAIN_COLUMNS ", ",
                            acct_tags_column_sql(req->pool,
                                                 acct_store_dialect(st),
                                                 ACCT_ENTITY_DOMAIN, "d.id"),
                            " AS tags", NULL);
    q.where = apr_pstrcat(req->pool, "d.account_id = CAST(%s AS BIGINT) AND ",
                          acct_grant_visible_sql(req->pool, ACCT_ENTITY_DOMAIN,
                                                 "d.id"), NULL);
    args[0] = acct_i64(req->pool, req->who->account_id);
    acct_grant_visible_args(req, args + 1);
    acct_list_respond(req, resp, &q);
}

void api_domain_create(acct_req *req, acct_resp *resp)
{
    apr_int64_t id = 0;
    acct_domain d;

    if (acct_grant_require_global(req, resp, "add_domains") != 0) {
        return;
    }
    acct_body_only(req, resp, acct_domain_fields);
    acct_domain_init(&d);
    acct_domain_read_body(req, resp, &d);
    acct_domain_check(req, resp, &d);
    if (acct_resp_failed(resp) || acct_domain_create(req, resp, &d, &id) != 0) {
        return;
    }
    acct_req_note_zone(req, id, NULL);
    acct_domain_respond(req, resp, id);
}

void api_domain_get(acct_req *req, acct_resp *resp)
{
    acct_rows *rows = acct_dns_domain_with_tags(req, resp, 0,
                                                ACCT_LEVEL_READ_ONLY);
    json_t *o;

    if (!rows) {
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

/* The body's fields on top of the stored ones; the rules judge the result. */
void api_domain_update(acct_req *req, acct_resp *resp)
{
    acct_rows *rows = acct_dns_domain(req, resp, 0, ACCT_LEVEL_READ_WRITE);
    apr_int64_t id;
    acct_domain d;

    if (!rows) {
        return;
    }
    id = row_id(rows);
    acct_body_only(req, resp, acct_domain_fields);
    acct_domain_from_row(rows, 0, &d);
    acct_domain_read_body(req, resp, &d);
    acct_domain_check(req, resp, &d);
    if (acct_resp_failed(resp) || acct_domain_update(req, resp, id, &d) != 0) {
        return;
    }
    note_update(req, id, rows, &d);
    acct_domain_respond(req, resp, id);
}

/* Tag links and grants name the domain by id only: they go explicitly. */
void api_domain_delete(acct_req *req, acct_resp *resp)
{
    acct_rows *rows = acct_dns_domain(req, resp, 0, ACCT_LEVEL_READ_WRITE);
    const char *args[2];
    acct_store_rc rc;

    if (!rows) {
        return;
    }
    args[0] = acct_rows_get(rows, 0, "id");
    args[1] = acct_i64(req->pool, req->who->account_id);
    rc = acct_tags_remove(req->store, req->pool, ACCT_ENTITY_DOMAIN,
                          row_id(rows));
    if (rc == ACCT_STORE_OK) {
        rc = acct_store_exec(req->store, req->pool, &q_domain_grants_delete,
                             NULL, 1, args);
    }
    if (acct_resp_store_failed(req, resp, rc) != 0
        || acct_req_change(req, resp, &q_domain_delete, 2, args) != 0) {
        return;
    }
    acct_req_note_zone(req, row_id(rows), acct_rows_get(rows, 0, "domain"));
    acct_resp_ok(resp, req->pool, NULL);
}

/* Every record of `from` again under `to`, and its record count. */
static acct_store_rc copy_records(acct_req *req, apr_int64_t from,
                                  apr_int64_t to)
{
    const char *args[4];
    acct_store_rc rc;
    int copied = 0;

    args[0] = acct_i64(req->pool, to);
    args[1] = args[2] = acct_i64(req->pool, req->now);
    args[3] = acct_i64(req->pool, from);
    rc = acct_store_exec(req->store, req->pool, &q_records_copy, &copied, 4,
                         args);
    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    args[0] = acct_i64(req->pool, copied);
    args[1] = acct_i64(req->pool, to);
    return acct_store_exec(req->store, req->pool, &q_record_count_set, NULL, 2,
                           args);
}

/*
 * A new domain named by the body with the settings, tags and records of
 * the one in the path; the new one's serial starts afresh.
 */
void api_domain_clone(acct_req *req, acct_resp *resp)
{
    static const char *const allowed[] = {"domain", NULL};
    acct_rows *rows = acct_dns_domain(req, resp, 0, ACCT_LEVEL_READ_ONLY);
    apr_int64_t from, to = 0;
    acct_domain d;

    if (!rows || acct_grant_require_global(req, resp, "add_domains") != 0) {
        return;
    }
    from = row_id(rows);
    acct_body_only(req, resp, allowed);
    acct_domain_from_row(rows, 0, &d);
    d.domain = NULL;
    acct_domain_read_name(req, resp, &d);
    acct_domain_check(req, resp, &d);
    if (acct_resp_failed(resp) || acct_domain_create(req, resp, &d, &to) != 0
        || acct_resp_store_failed(req, resp,
                        acct_tags_copy(req->store, req->pool,
                                       ACCT_ENTITY_DOMAIN, from, to)) != 0
        || acct_resp_store_failed(req, resp, copy_records(req, from, to)) != 0) {
        return;
    }
    acct_req_note_zone(req, to, NULL);
    acct_domain_respond(req, resp, to);
}
