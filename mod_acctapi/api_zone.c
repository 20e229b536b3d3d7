/*
 * GET /domains/{domainId}/zone-file: the domain's zone as BIND master-file
 * lines, {"zone_file": [...]}.  The zone is rendered from what is stored, so
 * it is always the last rendered state: a disabled domain still answers
 * (it is only left out of publishing), and a slave domain answers its SOA
 * and NS lines plus whatever records it holds.
 */
#include "api_handlers.h"
#include "acct_dns.h"
#include "acct_zone.h"

void api_zone_file(acct_req *req, acct_resp *resp)
{
    acct_rows *domain, *records = NULL;
    acct_store *st = NULL;
    acct_store_rc rc;
    apr_int64_t id;
    const char *body;
    apr_size_t len = 0;

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
    /* Written as text directly: a JSON value per line of a 12,000-record
     * zone costs more than rendering the zone. */
    body = acct_zone_json(req->pool, domain, 0, records,
                          req->settings->nameservers, &len);
    acct_resp_ok_raw(resp, body, len);
}
