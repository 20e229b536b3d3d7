/*
 * POST /domains/import: a new master domain holding the zone that a remote
 * nameserver transfers to us (acct_axfr.h does the transfer and the mapping
 * of each RR onto the record fields).
 *
 * The transfer runs outside the request's transaction: it may take up to
 * AcctapiTransferTimeout seconds and must not hold the database's write
 * lock meanwhile.  The body, the grant and the name are checked first (a
 * name hosted already needs no transfer), and the name again when the
 * domain is created, in the transaction that then stores the domain and
 * every record at once.  Each record goes through the validation of POST
 * /domains/{id}/records (acct_record_normalise, then the rules on a
 * domain's other records: a CNAME is alone at its name, a Null MX excludes
 * other MX); records that fail it are skipped and named in the log, as are
 * records of types the contract has not.
 */
#include "api_handlers.h"
#include "api_domains.h"
#include "acct_axfr.h"
#include "acct_body.h"
#include "acct_domain.h"
#include "acct_grants.h"
#include "acct_log.h"
#include "acct_publish.h"
#include "acct_record.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <string.h>

/* Invalid records named one by one in the log; the rest are counted. */
#define LOG_INVALID_MAX 20

/* ------------------------------------------------------------------------
 * The request
 * ------------------------------------------------------------------------ */

static void read_body(acct_req *req, acct_problems *pb, acct_domain *d,
                      acct_axfr_server *server)
{
    static const char *const settable[] = {"domain", "remote_nameserver",
                                           NULL};
    const char *text = NULL, *reason;
    acct_field_rc rc;

    acct_fields_settable(req, pb, settable, NULL);
    acct_domain_read_name(req, pb, d);
    if (!req->body || !json_object_get(req->body, "domain")) {
        acct_field_require(req, pb, "domain", ACCT_FIELD_ABSENT);
    }
    rc = acct_field_string(req, pb, "remote_nameserver", 1,
                           ACCT_AXFR_SERVER_MAX, 0, &text);
    acct_field_require(req, pb, "remote_nameserver", rc);
    if (rc == ACCT_FIELD_SET
        && (reason = acct_axfr_parse_server(req->pool, text, server))) {
        acct_problem_add(pb, "remote_nameserver", reason);
    }
}

/*
 * A hosted name needs no transfer (acct_domain_create decides for good):
 * a problem of `pb`.  -1 when the store failed (answered).
 */
static int check_hosted(acct_req *req, acct_resp *resp, acct_problems *pb,
                        const char *name)
{
    acct_store *st = NULL;
    int hosted = 0;

    if (acct_resp_store_failed(req, resp, acct_req_store(req, &st)) != 0
        || acct_resp_store_failed(req, resp,
                                  acct_domain_hosted(st, req->pool, name,
                                                     &hosted)) != 0) {
        return -1;
    }
    if (hosted) {
        acct_problem_add(pb, "domain", ACCT_DOMAIN_R_TAKEN);
    }
    return 0;
}

static apr_int64_t timeout_of(const acct_req *req)
{
    return req->settings && req->settings->transfer_timeout > 0
           ? req->settings->transfer_timeout : ACCT_AXFR_DEFAULT_TIMEOUT;
}

/* The configured transfer source addresses, "a,b", or NULL for any. */
static const char *sources_list(acct_req *req)
{
    const char *const *s = req->settings ? req->settings->transfer_sources
                                         : NULL;
    apr_array_header_t *list = apr_array_make(req->pool, 4,
                                              sizeof(const char *));

    for (; s && *s; s++) {
        APR_ARRAY_PUSH(list, const char *) = *s;
    }
    if (list->nelts == 0) {
        return NULL;
    }
    return apr_array_pstrcat(req->pool, list, ',');
}

/* Where the remote server must allow transfers from, in words. */
static const char *allowed_peers(acct_req *req)
{
    const char *list = sources_list(req);

    return list ? apr_pstrcat(req->pool, "this service's transfer addresses "
                              "(", list, ")", NULL)
                : "this service";
}

/* The 400 (or 500) of a transfer that failed, saying which way it did. */
static void refuse_transfer(acct_req *req, acct_resp *resp, const char *zone,
                            const char *server, const acct_axfr_result *x)
{
    apr_pool_t *p = req->pool;
    const char *field = "remote_nameserver", *reason;

    switch (x->rc) {
    case ACCT_AXFR_REFUSED:
        reason = apr_psprintf(p, "The remote nameserver %s refused the zone "
                              "transfer (AXFR) of %s: it must allow transfers "
                              "to %s", server, zone, allowed_peers(req));
        break;
    case ACCT_AXFR_TIMEOUT:
        reason = apr_psprintf(p, "The zone transfer of %s from the remote "
                              "nameserver %s timed out: no complete answer "
                              "within %" APR_INT64_T_FMT " seconds", zone,
                              server, timeout_of(req));
        break;
    case ACCT_AXFR_NXDOMAIN:
        reason = apr_psprintf(p, "The remote nameserver %s answered NXDOMAIN: "
                              "%s does not exist there", server, zone);
        break;
    case ACCT_AXFR_NOT_AUTH:
        reason = apr_psprintf(p, "The remote nameserver %s is not "
                              "authoritative for %s: it does not serve that "
                              "zone", server, zone);
        break;
    case ACCT_AXFR_TOO_MANY:
        reason = apr_psprintf(p, "The zone %s has more than %d records, the "
                              "most a domain can hold", zone,
                              ACCT_RECORD_LIMIT);
        field = NULL;
        break;
    case ACCT_AXFR_UNRESOLVED:
        reason = apr_psprintf(p, "The remote nameserver %s could not be "
                              "resolved to an address", server);
        break;
    case ACCT_AXFR_NO_SOURCE:
        reason = apr_psprintf(p, "The remote nameserver %s has no address "
                              "this service can transfer from: it has an %s "
                              "address, and zone transfers are made from %s "
                              "only", server, x->detail, sources_list(req));
        break;
    case ACCT_AXFR_UNREACHABLE:
        reason = apr_psprintf(p, "Could not connect to the remote nameserver "
                              "%s: %s", server, x->detail);
        break;
    case ACCT_AXFR_FAILED:
        reason = apr_psprintf(p, "The remote nameserver %s could not transfer "
                              "%s: it answered %s", server, zone, x->detail);
        break;
    case ACCT_AXFR_BROKEN:
        reason = apr_psprintf(p, "The remote nameserver %s sent no valid zone "
                              "transfer of %s: %s", server, zone, x->detail);
        break;
    default:
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00036) "import of %s from %s: %s", zone, server,
                 x->detail ? x->detail : "failed");
        acct_resp_error(resp, p, ACCT_HTTP_INTERNAL_SERVER_ERROR, ACCT_R_INTERNAL, NULL);
        return;
    }
    acct_log(ACCT_LOG_INFO, ACCTLOGNO(00037) "import of %s from %s (%s) failed: %s", zone,
             server, x->peer ? x->peer : "no address", reason);
    acct_resp_error(resp, p, ACCT_HTTP_BAD_REQUEST, reason, field);
}

/*
 * The transfer, with the request's transaction closed meanwhile and opened
 * again after it.  0, or -1 once answered.
 */
static int transfer(acct_req *req, acct_resp *resp, const char *zone,
                    const acct_axfr_server *server, acct_axfr_result *x)
{
    acct_axfr_options opts;

    opts.sources = req->settings ? req->settings->transfer_sources : NULL;
    opts.timeout = apr_time_from_sec(timeout_of(req));
    opts.max_records = ACCT_RECORD_LIMIT;
    if (acct_resp_store_failed(req, resp, acct_req_commit_now(req)) != 0) {
        return -1;
    }
    acct_axfr_transfer(req->pool, zone, server, &opts, x);
    if (acct_resp_store_failed(req, resp, acct_req_reopen(req)) != 0) {
        return -1;
    }
    if (x->rc != ACCT_AXFR_OK) {
        refuse_transfer(req, resp, zone,
                        acct_axfr_server_text(req->pool, server), x);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * The zone's records
 * ------------------------------------------------------------------------ */

/* Records of one name so far (CNAME exclusivity). */
typedef struct name_use {
    int records;
    int cname;
} name_use;

typedef struct type_count {
    const char *type;
    int n;
} type_count;

/* What the import keeps and what it skips, with the reasons. */
typedef struct import_set {
    apr_pool_t *pool;
    const char *zone;
    acct_record_zone where;
    apr_array_header_t *records;  /* acct_record, stored form */
    apr_hash_t *names;            /* lower-cased name -> name_use */
    apr_array_header_t *skipped;  /* type_count of unsupported types */
    int apex_ns, invalid, mx, null_mx;
} import_set;

static void skip_type(import_set *s, const char *type)
{
    type_count *t;
    int i;

    for (i = 0; i < s->skipped->nelts; i++) {
        t = &APR_ARRAY_IDX(s->skipped, i, type_count);
        if (strcmp(t->type, type) == 0) {
            t->n++;
            return;
        }
    }
    t = apr_array_push(s->skipped);
    t->type = type;
    t->n = 1;
}

static void skip_invalid(import_set *s, const char *type, const char *name,
                         const char *why)
{
    if (++s->invalid <= LOG_INVALID_MAX) {
        acct_log(ACCT_LOG_INFO, ACCTLOGNO(00038) "import of %s: skipped the %s record of %s: %s",
                 s->zone, type, name, why);
    }
}

/* The first problem of a list, with its field. */
static const char *first_problem(apr_pool_t *pool, const acct_problems *pb)
{
    const char *field = acct_problem_field(pb, 0);
    const char *reason = acct_problem_reason(pb, 0);

    return apr_psprintf(pool, "%s%s%s", field ? field : "", field ? ": " : "",
                        reason ? reason : "invalid");
}

static name_use *use_of(import_set *s, const char *name)
{
    const char *key = acct_domain_key(s->pool, name);
    name_use *u = apr_hash_get(s->names, key, APR_HASH_KEY_STRING);

    if (!u) {
        u = apr_pcalloc(s->pool, sizeof(*u));
        apr_hash_set(s->names, key, APR_HASH_KEY_STRING, u);
    }
    return u;
}

/*
 * The rules on a domain's other records (api_records.c), against the
 * records kept so far: NULL when `rec` may join them, else why not.
 */
static const char *neighbour_problem(import_set *s, const acct_record *rec)
{
    name_use *u = use_of(s, rec->name);
    int cname = strcmp(rec->type, ACCT_RECORD_TYPE_CNAME) == 0;

    if (cname ? u->records > 0 : u->cname > 0) {
        return "a CNAME record must be the only record at its name";
    }
    if (strcmp(rec->type, ACCT_RECORD_TYPE_MX) == 0) {
        if (acct_record_is_null_mx(rec) ? s->mx > 0 : s->null_mx > 0) {
            return "a Null MX record excludes every other MX record";
        }
        s->mx++;
        s->null_mx += acct_record_is_null_mx(rec);
    }
    u->records++;
    u->cname += cname;
    return NULL;
}

/* One RR of the transfer: kept (validated, stored form) or counted. */
static void take_rr(import_set *s, const ldns_rr *rr)
{
    acct_record raw, rec;
    acct_problems *pb;
    const char *why = NULL;

    switch (acct_axfr_record(s->pool, rr, s->zone, &raw, &why)) {
    case ACCT_AXFR_UNSUPPORTED:
        skip_type(s, acct_axfr_type_name(s->pool, rr));
        return;
    case ACCT_AXFR_APEX_NS:
        s->apex_ns++;
        return;
    case ACCT_AXFR_UNFIT:
        skip_invalid(s, acct_axfr_type_name(s->pool, rr), raw.name
                     ? raw.name : "?", why);
        return;
    default:
        break;
    }
    pb = acct_problems_make(s->pool);
    if (acct_record_normalise(s->pool, pb, &raw, 0, &s->where, &rec) != 0) {
        skip_invalid(s, raw.type, raw.name, first_problem(s->pool, pb));
        return;
    }
    if ((why = neighbour_problem(s, &rec))) {
        skip_invalid(s, raw.type, raw.name, why);
        return;
    }
    APR_ARRAY_PUSH(s->records, acct_record) = rec;
}

static void import_set_init(import_set *s, acct_req *req, const char *zone)
{
    memset(s, 0, sizeof(*s));
    s->pool = req->pool;
    s->zone = zone;
    s->where.domain = zone;
    s->where.remote_addr = NULL;   /* no "[remote_addr]" in a zone */
    s->records = apr_array_make(req->pool, 64, sizeof(acct_record));
    s->names = apr_hash_make(req->pool);
    s->skipped = apr_array_make(req->pool, 4, sizeof(type_count));
}

static void take_zone(import_set *s, const acct_axfr_result *x)
{
    size_t i, n = ldns_rr_list_rr_count(x->rrs);

    for (i = 0; i < n; i++) {
        take_rr(s, ldns_rr_list_rr(x->rrs, i));
    }
}

/* One line on what the import kept and skipped. */
static void log_summary(const import_set *s, apr_int64_t id,
                        const char *server)
{
    apr_array_header_t *types = apr_array_make(s->pool, 4,
                                               sizeof(const char *));
    int i, skipped = s->apex_ns + s->invalid;

    for (i = 0; i < s->skipped->nelts; i++) {
        const type_count *t = &APR_ARRAY_IDX(s->skipped, i, type_count);

        APR_ARRAY_PUSH(types, const char *) =
            apr_psprintf(s->pool, " %s %d", t->type, t->n);
        skipped += t->n;
    }
    acct_log(ACCT_LOG_INFO, ACCTLOGNO(00039) "import of %s (domain %" APR_INT64_T_FMT ") from "
             "%s: %d records imported, %d skipped: %d apex NS (replaced by "
             "this service's nameservers), %d invalid, unsupported types:%s",
             s->zone, id, server, s->records->nelts, skipped, s->apex_ns,
             s->invalid, types->nelts ? apr_array_pstrcat(s->pool, types, ',')
                                      : " none");
}

/* ------------------------------------------------------------------------
 * The handler
 * ------------------------------------------------------------------------ */

/* The SOA's settings; a mailbox that is no e-mail address gets the usual. */
static void domain_of_zone(acct_req *req, const acct_axfr_result *x,
                           acct_domain *d)
{
    acct_axfr_soa_domain(req->pool, x->soa, d);
    if (!d->soa_email) {
        d->soa_email = apr_pstrcat(req->pool, "hostmaster@", d->domain, NULL);
        acct_log(ACCT_LOG_INFO, ACCTLOGNO(00040) "import of %s: the SOA's mailbox is no e-mail "
                 "address; soa_email is %s", d->domain, d->soa_email);
    }
}

void api_domain_import(acct_req *req, acct_resp *resp)
{
    acct_axfr_server server;
    acct_axfr_result xfr;
    import_set set;
    acct_problems *pb;
    apr_int64_t id = 0;
    acct_domain d;

    if (acct_resp_outcome(resp, req->pool,
                          acct_grant_require_global(req, "add_domains"))
        != 0) {
        return;
    }
    acct_domain_init(&d);
    d.type = ACCT_DOMAIN_MASTER;
    pb = acct_problems_make(req->pool);
    read_body(req, pb, &d, &server);
    if (!acct_problems_any(pb) && check_hosted(req, resp, pb, d.domain) != 0) {
        return;
    }
    if (acct_problems_any(pb)) {
        acct_resp_problems(resp, req->pool, pb);
        return;
    }
    if (transfer(req, resp, d.domain, &server, &xfr) != 0) {
        return;
    }
    domain_of_zone(req, &xfr, &d);
    import_set_init(&set, req, d.domain);
    take_zone(&set, &xfr);
    if (acct_resp_outcome(resp, req->pool,
                          acct_domain_import_create(req, &d, set.records,
                                                    &id)) != 0) {
        return;
    }
    acct_publish_note_zone(req, id, NULL);
    log_summary(&set, id, acct_axfr_server_text(req->pool, &server));
    api_domain_respond(req, resp, id);
}
