/*
 * GET /domains/{domainId}/zone-file: the domain's zone as BIND master-file
 * lines, {"zone_file": [...]}.  The zone is rendered from what is stored, so
 * it is always the last rendered state: a disabled domain still answers
 * (it is only left out of publishing), and a slave domain answers its SOA
 * and NS lines plus whatever records it holds.
 *
 * Each process keeps the last answers it rendered (a zone of 12,000 records
 * costs tens of milliseconds to fetch and render, and is read far more often
 * than written).  An answer is reused only for the same domain row at the
 * same serial: every stored change of a domain or of its records moves its
 * serial forwards in the same transaction (acct_dns_touch), so a reader that
 * sees the serial of a change also sees the change.
 *
 * The cache is this route's own (api_zone_cache_init), not the model's:
 * it holds answer bodies keyed by what this handler renders them from (the
 * domain row and the answering server's nameservers), and the model's zone
 * functions stay free of per-process state; core/acct_textcache is only
 * the mechanism, shared with other routes' caches.
 */
#include "api_handlers.h"
#include "api_domains.h"
#include "acct_textcache.h"
#include "acct_zone.h"

#include <apr_strings.h>

/* A few zones (the largest ~1 MB of text) per process. */
#define ZONE_CACHE_ENTRIES 16
#define ZONE_CACHE_BYTES (16 * 1024 * 1024)

/* This process's cache of rendered zones: made by api_zone_cache_init in
 * the child's pool before any thread serves, and forgotten by
 * zone_cache_gone when that pool goes; the cache locks itself
 * (acct_textcache.h). */
static acct_textcache *zone_cache;

/* Runs before the cache's own cleanup frees it (registered after it). */
static apr_status_t zone_cache_gone(void *data)
{
    (void)data;
    zone_cache = NULL;
    return APR_SUCCESS;
}

int api_zone_cache_init(apr_pool_t *pool)
{
    zone_cache = acct_textcache_create(pool, ZONE_CACHE_ENTRIES,
                                       ZONE_CACHE_BYTES);
    if (!zone_cache) {
        return -1;
    }
    apr_pool_cleanup_register(pool, NULL, zone_cache_gone,
                              apr_pool_cleanup_null);
    return 0;
}

/*
 * What identifies the domain (its id alone could name another domain in
 * another database served by the same process) and what its zone text
 * depends on besides the records: the serial and the nameservers of the
 * answering server.
 */
static void cache_key(acct_req *req, const acct_rows *domain,
                      const char **key, const char **version)
{
    const char *const *ns = req->settings ? req->settings->nameservers : NULL;
    const char *servers = "";

    for (; ns && *ns; ns++) {
        servers = apr_pstrcat(req->pool, servers, *ns, " ", NULL);
    }
    *key = apr_pstrcat(req->pool, acct_rows_get(domain, 0, "id"), " ",
                       acct_rows_get(domain, 0, "created"), " ",
                       acct_rows_get(domain, 0, "domain"), NULL);
    *version = apr_pstrcat(req->pool, acct_rows_get(domain, 0, "serial"), " ",
                           acct_rows_get(domain, 0, "updated"), " ", servers,
                           NULL);
}

void api_zone_file(acct_req *req, acct_resp *resp)
{
    acct_rows *domain, *records = NULL;
    acct_store *st = NULL;
    acct_store_rc rc;
    apr_int64_t id;
    const char *body, *key, *version;
    apr_size_t len = 0;

    domain = api_domain_of_path(req, resp, ACCT_LEVEL_READ_ONLY);
    if (!domain) {
        return;
    }
    if (acct_parse_i64(acct_rows_get(domain, 0, "id"), &id) != 0) {
        acct_resp_store_error(resp, req->pool, ACCT_STORE_FAILED);
        return;
    }
    cache_key(req, domain, &key, &version);
    body = acct_textcache_get(zone_cache, req->pool, key, version, &len);
    if (body) {
        acct_resp_ok_raw(resp, body, len);
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
                          req->settings ? req->settings->nameservers : NULL,
                          &len);
    acct_textcache_put(zone_cache, key, version, body, len);
    acct_resp_ok_raw(resp, body, len);
}
