/*
 * The records of a DNS domain: /domains/{domainId}/records[/{recordId}].
 * acct_record.c holds the rules of each record type; this file adds the
 * rules that depend on the domain's other records (CNAME names are
 * unique, a Null MX excludes every other MX, at most 12,000 records) and
 * keeps the domain's serial and record count with its records.
 *
 * Every write first takes the domain row (an UPDATE of it) and only then
 * reads the records it checks: writers of one domain queue on that row
 * (PostgreSQL's row lock; SQLite's writers are serial anyway), so the
 * checks and the write that follows them cannot race another writer.
 */
#include "api_handlers.h"
#include "acct_dns.h"
#include "acct_grants.h"
#include "acct_list.h"
#include "acct_log.h"
#include "acct_publish.h"
#include "acct_record.h"

#include <apr_strings.h>
#include <string.h>

static const acct_sql q_record_get = ACCT_SQL("record_get",
    "SELECT " ACCT_RECORD_COLUMNS " FROM domain_records"
    " WHERE id = CAST(%s AS BIGINT) AND domain_id = CAST(%s AS BIGINT)");

/*
 * A new record's first statement: a slot under the limit and the serial of
 * the change, claimed on a master domain of the account in one write, which
 * takes the domain row and returns it (ACCT_DOMAIN_COLUMNS).  No row back:
 * the domain is not there, is a slave, or is full (create_refused says
 * which, in the order the checks answer).
 */
static const acct_sql q_slot_claim = ACCT_SQL("record_slot_claim",
    "UPDATE domains SET record_count = record_count + 1," ACCT_DNS_TOUCH_SET
    " WHERE id = CAST(%s AS BIGINT) AND account_id = CAST(%s AS BIGINT)"
    " AND type = 'master' AND record_count < CAST(%s AS INTEGER)"
    " RETURNING " ACCT_DOMAIN_COLUMNS_OF(""));

/*
 * A record update's first statement: the serial of the change, in one write
 * that takes the domain row and returns it as it is now, so that the slave
 * rule judges the domain under its lock (a concurrent domain PUT may just
 * have made it a slave).  No row back: the domain is gone.
 */
static const acct_sql q_domain_take = ACCT_SQL("record_domain_take",
    "UPDATE domains SET" ACCT_DNS_TOUCH_SET " WHERE id = CAST(%s AS BIGINT)"
    " RETURNING " ACCT_DOMAIN_COLUMNS_OF(""));

/*
 * A new record, written only when no neighbour rule forbids it (the rules
 * of check_cname and check_mx, for a record without an id), and returned
 * as stored.  No row back: a rule forbids it, and check_neighbours says
 * which.  Run under the domain's lock, like the checks it stands for.
 */
static const acct_sql q_record_insert_checked = ACCT_SQL(
    "record_insert_checked",
    "INSERT INTO domain_records (domain_id, type, name, target, priority,"
    " weight, port, service, protocol, ttl_sec, tag, created, updated)"
    " SELECT CAST(%s AS BIGINT), CAST(%s AS TEXT), CAST(%s AS TEXT),"
    " CAST(%s AS TEXT), CAST(%s AS INTEGER), CAST(%s AS INTEGER),"
    " CAST(%s AS INTEGER), CAST(%s AS TEXT), CAST(%s AS TEXT),"
    " CAST(%s AS INTEGER), CAST(%s AS TEXT), CAST(%s AS BIGINT),"
    " CAST(%s AS BIGINT)"
    " WHERE NOT EXISTS (SELECT 1 FROM domain_records o"
    "  WHERE o.domain_id = CAST(%s AS BIGINT)"
    "  AND lower(o.name) = lower(CAST(%s AS TEXT))"
    "  AND (o.type = 'CNAME' OR CAST(%s AS TEXT) = 'CNAME'))"
    " AND NOT EXISTS (SELECT 1 FROM domain_records o"
    "  WHERE o.domain_id = CAST(%s AS BIGINT) AND o.type = 'MX'"
    "  AND CAST(%s AS TEXT) = 'MX'"
    "  AND (CAST(%s AS INTEGER) = 1 OR (o.name = '' AND o.target = '')))"
    " RETURNING " ACCT_RECORD_COLUMNS);

static const acct_sql q_slot_release = ACCT_SQL("record_slot_release",
    "UPDATE domains SET record_count = record_count - 1"
    " WHERE id = CAST(%s AS BIGINT) AND record_count > 0");

/* Other records at a name (names compare as DNS does, ignoring case). */
static const acct_sql q_name_users = ACCT_SQL("record_name_users",
    "SELECT count(*) AS n,"
    " COALESCE(sum(CASE WHEN type = 'CNAME' THEN 1 ELSE 0 END), 0) AS cnames"
    " FROM domain_records WHERE domain_id = CAST(%s AS BIGINT)"
    " AND lower(name) = lower(CAST(%s AS TEXT)) AND id <> CAST(%s AS BIGINT)");

/* The domain's other MX records, and how many of them are Null MX. */
static const acct_sql q_mx_others = ACCT_SQL("record_mx_others",
    "SELECT count(*) AS mx,"
    " COALESCE(sum(CASE WHEN name = '' AND target = '' THEN 1 ELSE 0 END), 0)"
    " AS null_mx"
    " FROM domain_records WHERE domain_id = CAST(%s AS BIGINT) AND type = 'MX'"
    " AND id <> CAST(%s AS BIGINT)");

static const acct_sql q_record_update = ACCT_SQL("record_update",
    "UPDATE domain_records SET name = %s, target = %s,"
    " priority = CAST(%s AS INTEGER), weight = CAST(%s AS INTEGER),"
    " port = CAST(%s AS INTEGER), service = %s, protocol = %s,"
    " ttl_sec = CAST(%s AS INTEGER), tag = %s, updated = CAST(%s AS BIGINT)"
    " WHERE id = CAST(%s AS BIGINT) AND domain_id = CAST(%s AS BIGINT)");

static const acct_sql q_record_delete = ACCT_SQL("record_delete",
    "DELETE FROM domain_records"
    " WHERE id = CAST(%s AS BIGINT) AND domain_id = CAST(%s AS BIGINT)");

static const acct_filter_field record_fields[] = {
    {"type", "type", ACCT_FIELD_TEXT},
    {"name", "name", ACCT_FIELD_TEXT},
    {"target", "target", ACCT_FIELD_TEXT},
    {"tag", "tag", ACCT_FIELD_TEXT},
    {NULL, NULL, 0}
};

#define R_SLAVE "Records of a slave domain cannot be added or changed: a " \
    "slave domain copies its records from its master"
#define R_LIMIT "This domain already has %d records, the most a domain " \
    "can hold: delete some before adding more"

static json_t *render_record(acct_req *req, const acct_rows *rows, int i)
{
    return acct_record_json(req->pool, rows, i);
}

static const char *render_records(acct_req *req, const acct_rows *rows,
                                  apr_size_t *len)
{
    return acct_record_json_text(req->pool, rows, len);
}

static const char *domain_id(const acct_rows *domain)
{
    return acct_rows_get(domain, 0, "id");
}

/* The record of path parameter 1 in `domain`; answers 404 itself. */
static acct_rows *load_record(acct_req *req, acct_resp *resp,
                              const acct_rows *domain)
{
    const char *args[2];
    apr_int64_t id;

    if (acct_path_id(req, resp, 1, &id) != 0) {
        return NULL;
    }
    args[0] = acct_i64(req->pool, id);
    args[1] = domain_id(domain);
    return acct_req_row(req, resp, &q_record_get, 2, args);
}

/* The record just written, as the answer. */
static void respond_record(acct_req *req, acct_resp *resp,
                           const acct_rows *domain, const char *id)
{
    const char *args[2];
    acct_rows *rows;

    args[0] = id;
    args[1] = domain_id(domain);
    rows = acct_req_row(req, resp, &q_record_get, 2, args);
    if (rows) {
        acct_resp_ok(resp, req->pool, acct_record_json(req->pool, rows, 0));
    }
}

/* A slave's records come from its master: they cannot be written here. */
static int refuse_slave(acct_req *req, acct_resp *resp,
                        const acct_rows *domain)
{
    const char *type = acct_rows_get(domain, 0, "type");

    if (type && strcmp(type, "slave") == 0) {
        acct_resp_error(resp, req->pool, 400, R_SLAVE, NULL);
        return -1;
    }
    return 0;
}

/*
 * Bumps the domain's serial (every change of a record is a change of the
 * zone) and notes the zone for publishing; as the first write of an
 * update or delete it also takes the domain row (see the top of the
 * file).
 */
static int touch_domain(acct_req *req, acct_resp *resp,
                        const acct_rows *domain)
{
    apr_int64_t id = 0;

    acct_parse_i64(domain_id(domain), &id);
    if (acct_resp_store_failed(req, resp, acct_dns_touch(req->store, req->pool, id,
                                           req->now)) != 0) {
        return -1;
    }
    /* Published once the request commits; a request that fails after
     * this point rolls back and publishes nothing. */
    acct_publish_note(req, id, NULL, ACCT_PUBLISH_ZONE);
    return 0;
}

/*
 * touch_domain for a record update: the domain row taken, as it is now
 * (q_domain_take), and refused if it is a slave; NULL once answered.
 */
static acct_rows *take_master_domain(acct_req *req, acct_resp *resp,
                                     const acct_rows *domain)
{
    const char *args[4];
    acct_rows *now;
    apr_int64_t id = 0;

    args[0] = args[1] = args[2] = acct_i64(req->pool, req->now);
    args[3] = domain_id(domain);
    if (!(now = acct_req_row(req, resp, &q_domain_take, 4, args))
        || refuse_slave(req, resp, now) != 0) {
        return NULL;
    }
    acct_parse_i64(args[3], &id);
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
 * q_slot_claim) and the user's right to write it checked; NULL once
 * answered.
 */
static acct_rows *claim_slot(acct_req *req, acct_resp *resp)
{
    const char *args[6];
    acct_rows *domain = NULL;
    acct_store *st = NULL;
    acct_store_rc rc;
    apr_int64_t id;

    if (acct_path_id(req, resp, 0, &id) != 0) {
        return NULL;
    }
    args[0] = args[1] = args[2] = acct_i64(req->pool, req->now);
    args[3] = acct_i64(req->pool, id);
    args[4] = acct_i64(req->pool, req->who->account_id);
    args[5] = acct_i64(req->pool, ACCT_RECORD_LIMIT);
    rc = acct_req_store(req, &st);
    if (rc == ACCT_STORE_OK) {
        rc = acct_store_select(st, req->pool, &q_slot_claim, &domain, 6, args);
    }
    if (acct_resp_store_failed(req, resp, rc) != 0
        || domain->nrows == 0
        || acct_grant_require(req, resp, ACCT_ENTITY_DOMAIN, id,
                              ACCT_LEVEL_READ_WRITE) != 0) {
        return NULL;
    }
    acct_publish_note(req, id, NULL, ACCT_PUBLISH_ZONE);
    return domain;
}

/*
 * Why no slot could be claimed, answered as the checks of an update
 * would: the domain (404, 403), a slave (400), the body (400), else the
 * limit.
 */
static void create_refused(acct_req *req, acct_resp *resp)
{
    acct_rows *domain = acct_dns_domain(req, resp, 0, ACCT_LEVEL_READ_WRITE);
    acct_record_zone zone;
    acct_record rec;

    if (!domain || refuse_slave(req, resp, domain) != 0) {
        return;
    }
    zone_of(req, domain, &zone);
    if (acct_record_read(req, resp, NULL, &zone, &rec) != 0) {
        return;
    }
    acct_resp_error(resp, req->pool, 400,
                    apr_psprintf(req->pool, R_LIMIT, ACCT_RECORD_LIMIT), NULL);
}

/* A number column of a one-row result (0 when NULL). */
static apr_int64_t count_of(const acct_rows *rows, const char *col)
{
    apr_int64_t n = 0;
    const char *s = acct_rows_get(rows, 0, col);

    return s && acct_parse_i64(s, &n) == 0 ? n : 0;
}

/* Rule 5 and DECISIONS: a CNAME is alone at its name, whatever the type. */
static int check_cname(acct_req *req, acct_resp *resp, const char *domain,
                       const char *self, const acct_record *rec)
{
    const char *args[3];
    acct_rows *rows = NULL;
    int cname = strcmp(rec->type, "CNAME") == 0;

    args[0] = domain;
    args[1] = rec->name;
    args[2] = self;
    if (acct_resp_store_failed(req, resp, acct_store_select(req->store, req->pool,
                                              &q_name_users, &rows, 3,
                                              args)) != 0) {
        return -1;
    }
    if (cname && count_of(rows, "n") > 0) {
        acct_resp_invalid(resp, req->pool, "name", "Other records already "
                          "have this name: a CNAME record must be the only "
                          "record at its name");
    }
    else if (!cname && count_of(rows, "cnames") > 0) {
        acct_resp_invalid(resp, req->pool, "name", "A CNAME record already "
                          "has this name: no other record can share it");
    }
    return 0;
}

/* Rule 4: a Null MX excludes every other MX record, both ways round. */
static int check_mx(acct_req *req, acct_resp *resp, const char *domain,
                    const char *self, const acct_record *rec)
{
    const char *args[2];
    acct_rows *rows = NULL;

    args[0] = domain;
    args[1] = self;
    if (acct_resp_store_failed(req, resp, acct_store_select(req->store, req->pool,
                                              &q_mx_others, &rows, 2,
                                              args)) != 0) {
        return -1;
    }
    if (acct_record_is_null_mx(rec)) {
        if (count_of(rows, "mx") > 0) {
            acct_resp_invalid(resp, req->pool, "target", "A Null MX record "
                              "cannot be added while the domain has other MX "
                              "records: remove them first");
        }
    }
    else if (count_of(rows, "null_mx") > 0) {
        acct_resp_invalid(resp, req->pool, "target", "The domain has a Null "
                          "MX record: no other MX record can be added while "
                          "it exists");
    }
    return 0;
}

/*
 * The rules that depend on the domain's other records.  `self` is the id
 * of the record being changed ("0" for a new one).  0 when the write may
 * go ahead; -1 once answered.
 */
static int check_neighbours(acct_req *req, acct_resp *resp,
                            const acct_rows *domain, const char *self,
                            const acct_record *rec)
{
    if (check_cname(req, resp, domain_id(domain), self, rec) != 0) {
        return -1;
    }
    if (strcmp(rec->type, "MX") == 0
        && check_mx(req, resp, domain_id(domain), self, rec) != 0) {
        return -1;
    }
    return acct_resp_failed(resp) ? -1 : 0;
}

/*
 * The domain's row, read for the access check, also holds its record count
 * (kept exactly by every write of records: create, delete, clone, import),
 * so an unfiltered page needs no count(*) of up to 12,000 rows.
 */
void api_records_list(acct_req *req, acct_resp *resp)
{
    acct_rows *domain = acct_dns_domain(req, resp, 0, ACCT_LEVEL_READ_ONLY);
    const char *args[1];
    apr_int64_t total = 0;
    acct_list_query q = {ACCT_RECORD_COLUMNS, "domain_records",
                         "domain_id = CAST(%s AS BIGINT)", 1, args,
                         record_fields, "id", render_record};

    if (!domain) {
        return;
    }
    args[0] = domain_id(domain);
    q.render_text = render_records;
    if (acct_parse_i64(acct_rows_get(domain, 0, "record_count"), &total) == 0) {
        q.total = &total;
    }
    acct_list_respond(req, resp, &q);
}

void api_record_get(acct_req *req, acct_resp *resp)
{
    acct_rows *domain = acct_dns_domain(req, resp, 0, ACCT_LEVEL_READ_ONLY);
    acct_rows *rows = domain ? load_record(req, resp, domain) : NULL;

    if (rows) {
        acct_resp_ok(resp, req->pool, acct_record_json(req->pool, rows, 0));
    }
}

void api_record_create(acct_req *req, acct_resp *resp)
{
    acct_rows *domain, *rows = NULL;
    acct_record_zone zone;
    acct_record rec;
    const char *args[19];

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
    if (acct_record_read(req, resp, NULL, &zone, &rec) != 0) {
        return;
    }
    args[0] = domain_id(domain);
    args[1] = rec.type;
    acct_record_args(req->pool, &rec, args + 2);
    args[11] = args[12] = acct_i64(req->pool, req->now);
    args[13] = args[16] = domain_id(domain);
    args[14] = rec.name;
    args[15] = args[17] = rec.type;
    args[18] = acct_record_is_null_mx(&rec) ? "1" : "0";
    if (acct_resp_store_failed(req, resp, acct_store_select(req->store, req->pool,
                                              &q_record_insert_checked, &rows,
                                              19, args)) != 0) {
        return;
    }
    if (rows->nrows == 0) {
        /* A rule forbade it: the checks say which (and answer). */
        if (check_neighbours(req, resp, domain, "0", &rec) == 0) {
            acct_log(ACCT_LOG_ERR, ACCTLOGNO(00066) "record of domain %s: "
                     "not written, yet no rule forbids it", domain_id(domain));
            acct_resp_store_error(resp, req->pool, ACCT_STORE_FAILED);
        }
        return;
    }
    acct_resp_ok(resp, req->pool, acct_record_json(req->pool, rows, 0));
}

void api_record_update(acct_req *req, acct_resp *resp)
{
    acct_rows *domain = acct_dns_domain(req, resp, 0, ACCT_LEVEL_READ_WRITE);
    acct_rows *rows;
    acct_record_zone zone;
    acct_record current, rec;
    const char *args[12], *id;

    /* The domain first, then the record: the record is read under the
     * domain's lock, so the merge starts from its latest version. */
    if (!domain || !(domain = take_master_domain(req, resp, domain))
        || !(rows = load_record(req, resp, domain))) {
        return;
    }
    id = acct_rows_get(rows, 0, "id");
    acct_record_from_row(rows, 0, &current);
    zone_of(req, domain, &zone);
    if (acct_record_read(req, resp, &current, &zone, &rec) != 0
        || check_neighbours(req, resp, domain, id, &rec) != 0) {
        return;
    }
    acct_record_args(req->pool, &rec, args);
    args[9] = acct_i64(req->pool, req->now);
    args[10] = id;
    args[11] = domain_id(domain);
    if (acct_req_change(req, resp, &q_record_update, 12, args) != 0) {
        return;
    }
    respond_record(req, resp, domain, id);
}

void api_record_delete(acct_req *req, acct_resp *resp)
{
    acct_rows *domain = acct_dns_domain(req, resp, 0, ACCT_LEVEL_READ_WRITE);
    const char *args[2];
    apr_int64_t id;

    /* Deleting stays possible on a slave: it only tidies what is there. */
    if (!domain || acct_path_id(req, resp, 1, &id) != 0
        || touch_domain(req, resp, domain) != 0) {
        return;
    }
    args[0] = acct_i64(req->pool, id);
    args[1] = domain_id(domain);
    if (acct_req_change(req, resp, &q_record_delete, 2, args) != 0
        || acct_resp_store_failed(req, resp, acct_store_exec(req->store, req->pool,
                                               &q_slot_release, NULL, 1,
                                               args + 1)) != 0) {
        return;
    }
    acct_resp_ok(resp, req->pool, NULL);
}
