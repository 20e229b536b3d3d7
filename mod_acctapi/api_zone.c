/*
 * GET /domains/{domainId}/zone-file: the domain's zone as BIND master-file
 * lines, {"zone_file": [...]}.  The zone is rendered from what is stored, so
 * it is always the last rendered state: a disabled domain still answers
 * (it is only left out of publishing), and a slave domain answers its SOA
 * and NS lines plus whatever records it holds.
 */
#include "api_handlers.h"
#include "acct_dns.h"
#include "acct_json.h"
#include "acct_zone.h"

void api_zone_file(acct_req *req, acct_resp *resp)
{
    acct_rows *domain, *records = NULL;
    apr_array_header_t *lines;
    acct_store *st = NULL;
    acct_store_rc rc;
    apr_int64_t id;
    json_t *list, *doc;
    int i;

    domain = acct_dns_domain(req, resp, 0, ACCT_LEVEL_READ_ONLY);
    if (!domain) {
        return;
    }
    if (acct_parse_i64(acct_rows_get(domain, 0, "id"), &id) != 0) {
        acct_resp_store_error(resp, req->pool, ACCT_STORE_FAILED);
        return;
    }
    rc = acct_req_store(req, &st);
    if (rc == ACCT_STORE_OK) {
        rc = acct_zone_records(st, req->pool, id, &records);
    }
    if (rc != ACCT_STORE_OK) {
        acct_resp_store_error(resp, req->pool, rc);
        return;
    }
    lines = acct_zone_render(req->pool, domain, 0, records,
                             req->settings->nameservers);
    list = json_array();
    for (i = 0; i < lines->nelts; i++) {
        const char *line = APR_ARRAY_IDX(lines, i, const char *);

        json_array_append_new(list, json_string(line));
    }
    doc = json_object();
    json_object_set_new(doc, "zone_file", list);
    acct_resp_ok(resp, req->pool, doc);
}
