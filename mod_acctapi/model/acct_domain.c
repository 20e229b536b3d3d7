#include "acct_domain.h"
#include "acct_event.h"
#include "acct_addr.h"
#include "acct_auth.h"
#include "acct_body.h"
#include "acct_dns.h"
#include "acct_grants.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "acct_record.h"
#include "acct_record_store.h"
#include "acct_tags.h"

#include <apr_strings.h>
#include <string.h>

const char *const acct_domain_fields[] = {
    "domain", "type", "status", "description", "group", "soa_email",
    "master_ips", "axfr_ips", "tags", "expire_sec", "refresh_sec",
    "retry_sec", "ttl_sec", NULL
};

const char *const acct_domain_types[] = {
    ACCT_DOMAIN_MASTER, ACCT_DOMAIN_SLAVE, NULL
};
const char *const acct_domain_statuses[] = {
    ACCT_DOMAIN_ACTIVE, ACCT_DOMAIN_DISABLED, NULL
};

#define R_NAME_LENGTH "Length must be 1-253 characters"
#define R_NAME_SYNTAX \
    "Must be a domain name of two labels or more: letters, digits," \
    " underscores and hyphens (not first or last), at most 63 characters" \
    " per label"

static const acct_sql q_domain_insert = ACCT_SQL("domain_insert",
    "INSERT INTO domains (account_id, domain, domain_key, type, status,"
    " description, group_name, soa_email, master_ips, axfr_ips, expire_sec,"
    " refresh_sec, retry_sec, ttl_sec, created, updated)"
    " VALUES (CAST(%s AS BIGINT), %s, %s, %s, %s, %s, %s, %s, %s, %s,"
    " CAST(%s AS INTEGER), CAST(%s AS INTEGER), CAST(%s AS INTEGER),"
    " CAST(%s AS INTEGER), CAST(%s AS BIGINT), CAST(%s AS BIGINT))"
    " ON CONFLICT DO NOTHING RETURNING id");

/* Renaming onto a hosted name changes nothing: the update reports it
 * taken (ACCT_DOMAIN_R_TAKEN). */
static const acct_sql q_domain_update = ACCT_SQL("domain_update",
    "UPDATE domains SET domain = %s, domain_key = %s, type = %s, status = %s,"
    " description = %s, group_name = %s, soa_email = %s, master_ips = %s,"
    " axfr_ips = %s, expire_sec = CAST(%s AS INTEGER),"
    " refresh_sec = CAST(%s AS INTEGER), retry_sec = CAST(%s AS INTEGER),"
    " ttl_sec = CAST(%s AS INTEGER)"
    " WHERE id = CAST(%s AS BIGINT) AND NOT EXISTS (SELECT 1 FROM domains o"
    " WHERE o.domain_key = %s AND o.id <> CAST(%s AS BIGINT))");

/*
 * PostgreSQL only (SQLite writers are serial): serialises the transactions
 * that claim one name until they end, so a rename, which cannot use ON
 * CONFLICT, sees a concurrent create's row instead of failing on the
 * unique index, and the other way round.  The first key is this lock's own
 * class ("dom").
 */
static const acct_sql q_name_lock = ACCT_SQL("domain_name_lock",
    "SELECT pg_advisory_xact_lock(6582125, hashtext(%s))");

static const acct_sql q_domain_by_id = ACCT_SQL("domain_by_id",
    "SELECT " ACCT_DOMAIN_COLUMNS " FROM domains d"
    " WHERE d.id = CAST(%s AS BIGINT)");

static const acct_sql q_name_hosted = ACCT_SQL("import_name_hosted",
    "SELECT id FROM domains WHERE domain_key = %s");

/* Records go with the domain (ON DELETE CASCADE). */
static const acct_sql q_domain_delete = ACCT_SQL("domain_delete",
    "DELETE FROM domains"
    " WHERE id = CAST(%s AS BIGINT) AND account_id = CAST(%s AS BIGINT)");

/* See acct_domain_claim_slot: no row back when the domain is not there, is
 * a slave, or is full. */
static const acct_sql q_slot_claim = ACCT_SQL("record_slot_claim",
    ACCT_DOMAIN_SLOT_CLAIM " RETURNING " ACCT_DOMAIN_COLUMNS_OF(""));

/* See acct_domain_lock.  PostgreSQL only: SQLite's writers are serial. */
static const acct_sql q_domain_lock = ACCT_SQL2("domain_lock", NULL,
    "SELECT FROM domains WHERE id = CAST(%s AS BIGINT) FOR NO KEY UPDATE");

/* Domain %s of the account `account` names (acct_domain_read_by_token):
 * what a new record is read and judged against. */
#define DOMAIN_OF_ACCOUNT(account) \
    "SELECT d.id, d.domain, d.type, d.record_count FROM domains d" \
    " WHERE d.id = CAST(%s AS BIGINT) AND d.account_id = " account

/* See acct_domain_take: no row back when the domain is gone. */
static const acct_sql q_domain_take = ACCT_SQL("record_domain_take",
    "UPDATE domains SET" ACCT_DNS_TOUCH_SET " WHERE id = CAST(%s AS BIGINT)"
    " RETURNING " ACCT_DOMAIN_COLUMNS_OF(""));

#define TAGGED_DOMAIN \
    "EXISTS (SELECT 1 FROM tag_links tl JOIN tags t ON t.id = tl.tag_id" \
    " WHERE tl.entity_type = '" ACCT_ENTITY_DOMAIN "' AND tl.entity_id = d.id" \
    " AND t.label = %s)"

/*
 * The public API's marks (domain, group, tags), type and status, and the
 * other properties of linode_api4's Domain, which its filters may name
 * (master_ips its older releases marked filterable); a slave's unset
 * soa_email is "" as the domain shows it.
 */
static const acct_filter_field domain_filter_fields[] = {
    {"domain", "d.domain", ACCT_FIELD_TEXT},
    {"group", "d.group_name", ACCT_FIELD_TEXT},
    {"tags", TAGGED_DOMAIN, ACCT_FIELD_TAG},
    {"type", "d.type", ACCT_FIELD_TEXT},
    {"status", "d.status", ACCT_FIELD_TEXT},
    {"id", "d.id", ACCT_FIELD_INT},
    {"description", "d.description", ACCT_FIELD_TEXT},
    {"soa_email", "COALESCE(d.soa_email, '')", ACCT_FIELD_TEXT},
    {"master_ips", ACCT_FILTER_HOLDS("d.master_ips"), ACCT_FIELD_TAG},
    {"axfr_ips", ACCT_FILTER_HOLDS("d.axfr_ips"), ACCT_FIELD_TAG},
    {"expire_sec", "d.expire_sec", ACCT_FIELD_INT},
    {"refresh_sec", "d.refresh_sec", ACCT_FIELD_INT},
    {"retry_sec", "d.retry_sec", ACCT_FIELD_INT},
    {"ttl_sec", "d.ttl_sec", ACCT_FIELD_INT},
    {NULL, NULL, 0}
};

const char *acct_domain_name(apr_pool_t *pool, const char *name,
                             const char **reason)
{
    size_t len = strlen(name);

    if (len > 0 && name[len - 1] == '.') {
        len--;
    }
    if (len == 0 || len > ACCT_DNS_NAME_MAX) {
        *reason = R_NAME_LENGTH;
        return NULL;
    }
    name = apr_pstrmemdup(pool, name, len);
    /* Underscores as the public API's domain pattern allows them
     * (_domainkey.example.com); the zone's names are published with
     * check-names off (acct_publish_include_text). */
    if (!acct_valid_dns_name(name, ACCT_DNS_UNDERSCORE)) {
        *reason = R_NAME_SYNTAX;
        return NULL;
    }
    return name;
}

const char *acct_domain_key(apr_pool_t *pool, const char *name)
{
    char *key = apr_pstrdup(pool, name), *p;

    for (p = key; *p; p++) {
        if (*p >= 'A' && *p <= 'Z') {
            *p = (char)(*p - 'A' + 'a');
        }
    }
    return key;
}

void acct_domain_init(acct_domain *d)
{
    memset(d, 0, sizeof(*d));
    d->status = ACCT_DOMAIN_ACTIVE;
    d->description = "";
    d->group = "";
    d->master_ips = "[]";
    d->axfr_ips = "[]";
}

static apr_int64_t column_i64(const acct_rows *rows, int i, const char *col)
{
    apr_int64_t v = 0;

    acct_parse_i64(acct_rows_get(rows, i, col), &v);
    return v;
}

static const char *column_text(const acct_rows *rows, int i, const char *col,
                               const char *unset)
{
    const char *v = acct_rows_get(rows, i, col);

    return v ? v : unset;
}

void acct_domain_from_row(const acct_rows *rows, int i, acct_domain *d)
{
    json_t *masters;

    acct_domain_init(d);
    d->domain = acct_rows_get(rows, i, "domain");
    d->type = acct_rows_get(rows, i, "type");
    d->status = column_text(rows, i, "status", ACCT_DOMAIN_ACTIVE);
    d->description = column_text(rows, i, "description", "");
    d->group = column_text(rows, i, "group_name", "");
    d->soa_email = acct_rows_get(rows, i, "soa_email");
    d->master_ips = column_text(rows, i, "master_ips", "[]");
    d->axfr_ips = column_text(rows, i, "axfr_ips", "[]");
    masters = acct_json_parse_column(d->master_ips);
    d->master_count = json_is_array(masters) ? (int)json_array_size(masters)
                                             : 0;
    json_decref(masters);
    d->expire_sec = column_i64(rows, i, "expire_sec");
    d->refresh_sec = column_i64(rows, i, "refresh_sec");
    d->retry_sec = column_i64(rows, i, "retry_sec");
    d->ttl_sec = column_i64(rows, i, "ttl_sec");
}

static json_t *body_field(acct_req *req, const char *field)
{
    return req->body ? json_object_get(req->body, field) : NULL;
}

static void refuse(acct_req *req, acct_problems *pb, acct_domain *d,
                   unsigned bit, const char *field, const char *reason)
{
    acct_problem_add(pb, field, reason);
    d->invalid |= bit;
}

void acct_domain_read_name(acct_req *req, acct_problems *pb, acct_domain *d)
{
    json_t *v = body_field(req, "domain");
    const char *reason = NULL, *name;

    if (!v) {
        return;
    }
    if (!json_is_string(v)
        || strlen(json_string_value(v)) != json_string_length(v)) {
        refuse(req, pb, d, ACCT_DOMAIN_F_DOMAIN, "domain",
               "domain must be a string");
        return;
    }
    name = acct_domain_name(req->pool, json_string_value(v), &reason);
    if (!name) {
        refuse(req, pb, d, ACCT_DOMAIN_F_DOMAIN, "domain", reason);
        return;
    }
    d->domain = name;
}

/* description and group: "" clears, else min..max characters. */
static void read_display(acct_req *req, acct_problems *pb, const char *field,
                         size_t max, const char **out)
{
    json_t *v = body_field(req, field);

    if (json_is_string(v) && json_string_length(v) == 0) {
        *out = "";
        return;
    }
    acct_field_string(req, pb, field, 1, max, 0, out);
}

static void read_soa_email(acct_req *req, acct_problems *pb, acct_domain *d)
{
    json_t *v = body_field(req, "soa_email");
    const char *email = NULL;

    if (json_is_string(v) && json_string_length(v) == 0) {
        d->soa_email = NULL;
        return;
    }
    switch (acct_field_string(req, pb, "soa_email", 1, ACCT_DNS_NAME_MAX, 0,
                              &email)) {
    case ACCT_FIELD_SET:
        if (acct_valid_mailbox(email)) {
            d->soa_email = email;
            return;
        }
        refuse(req, pb, d, ACCT_DOMAIN_F_SOA_EMAIL, "soa_email",
               "soa_email must be a valid e-mail address whose local part "
               "is at most 63 characters");
        return;
    case ACCT_FIELD_BAD:
        d->invalid |= ACCT_DOMAIN_F_SOA_EMAIL;
        return;
    default:
        return;
    }
}

/*
 * An array of IPv4/IPv6 addresses, stored canonical as JSON array text.
 * Each bad entry is named ("master_ips[2]").  Returns the number of
 * entries, or -1 after adding an error.
 */
static int read_ips(acct_req *req, acct_problems *pb, const char *field,
                    const char **out)
{
    json_t *v = body_field(req, field), *item, *list;
    size_t i, joined = 0;
    int bad = 0;

    if (!v) {
        return 0;
    }
    if (!json_is_array(v)) {
        acct_problem_add(pb, field,
                         apr_psprintf(req->pool, "%s must be an array of IP "
                                      "addresses", field));
        return -1;
    }
    list = acct_json_own(req->pool, json_array());
    json_array_foreach(v, i, item) {
        const char *ip = json_is_string(item)
                         ? acct_ip_canonical(req->pool, json_string_value(item))
                         : NULL;

        if (!ip) {
            acct_problem_add(pb, apr_psprintf(req->pool, "%s[%lu]", field,
                                              (unsigned long)i),
                             "Must be an IPv4 or IPv6 address");
            bad = 1;
            continue;
        }
        joined += strlen(ip) + (i > 0);
        json_array_append_new(list, json_string(ip));
    }
    if (bad) {
        return -1;
    }
    if (joined > ACCT_DOMAIN_IPS_MAX) {
        acct_problem_add(pb, field,
                         apr_psprintf(req->pool, "The addresses of %s may "
                                      "total at most %d characters", field,
                                      ACCT_DOMAIN_IPS_MAX));
        return -1;
    }
    *out = acct_json_dump(req->pool, list, NULL);
    return (int)json_array_size(list);
}

static void read_seconds(acct_req *req, acct_problems *pb, const char *field,
                         apr_int64_t *out)
{
    json_t *v = body_field(req, field);

    if (!v) {
        return;
    }
    /* Any whole number: the public API rounds every other value up to a
     * valid one, and below 0 the next valid value is 0 (the default). */
    if (!json_is_integer(v)) {
        acct_problem_add(pb, field,
                         apr_psprintf(req->pool, "%s must be a whole number "
                                      "of seconds", field));
        return;
    }
    *out = acct_dns_round_domain_seconds((apr_int64_t)json_integer_value(v));
}

void acct_domain_read_body(acct_req *req, acct_problems *pb, acct_domain *d)
{
    int n;

    acct_domain_read_name(req, pb, d);
    if (acct_field_enum(req, pb, "type", acct_domain_types, &d->type)
        == ACCT_FIELD_BAD) {
        d->invalid |= ACCT_DOMAIN_F_TYPE;
    }
    acct_field_enum(req, pb, "status", acct_domain_statuses, &d->status);
    read_display(req, pb, "description", ACCT_DOMAIN_DESCRIPTION_MAX,
                 &d->description);
    read_display(req, pb, "group", ACCT_DOMAIN_GROUP_MAX, &d->group);
    read_soa_email(req, pb, d);
    n = read_ips(req, pb, "master_ips", &d->master_ips);
    if (n < 0) {
        d->invalid |= ACCT_DOMAIN_F_MASTER_IPS;
    }
    else if (body_field(req, "master_ips")) {
        d->master_count = n;
    }
    read_ips(req, pb, "axfr_ips", &d->axfr_ips);
    read_seconds(req, pb, "expire_sec", &d->expire_sec);
    read_seconds(req, pb, "refresh_sec", &d->refresh_sec);
    read_seconds(req, pb, "retry_sec", &d->retry_sec);
    read_seconds(req, pb, "ttl_sec", &d->ttl_sec);
}

void acct_domain_check(acct_req *req, acct_problems *pb, const acct_domain *d)
{
    if (!d->domain && !(d->invalid & ACCT_DOMAIN_F_DOMAIN)) {
        acct_problem_add(pb, "domain", "domain is required");
    }
    if (!d->type) {
        if (!(d->invalid & ACCT_DOMAIN_F_TYPE)) {
            acct_problem_add(pb, "type", "type is required");
        }
        return;
    }
    if (strcmp(d->type, ACCT_DOMAIN_MASTER) == 0 && !d->soa_email
        && !(d->invalid & ACCT_DOMAIN_F_SOA_EMAIL)) {
        /* The public API's text, which linode-cli's tests assert. */
        acct_problem_add(pb, "soa_email",
                         "soa_email required when type=master");
    }
    if (strcmp(d->type, ACCT_DOMAIN_SLAVE) == 0 && d->master_count == 0
        && !(d->invalid & ACCT_DOMAIN_F_MASTER_IPS)) {
        /* The public API's text, which linode-cli's tests assert. */
        acct_problem_add(pb, "master_ips",
                         "You need at least one master DNS server IP "
                         "address for this zone.");
    }
}

static acct_store_rc lock_name(acct_store *st, apr_pool_t *pool,
                               const char *key)
{
    acct_rows *rows = NULL;

    if (acct_store_dialect(st) != ACCT_DIALECT_PGSQL) {
        return ACCT_STORE_OK;
    }
    return acct_store_select(st, pool, &q_name_lock, &rows, 1, &key);
}

/* The settings columns shared by insert and update, in statement order. */
static void settings_args(apr_pool_t *pool, const acct_domain *d,
                          const char *key, const char **args)
{
    args[0] = d->domain;
    args[1] = key;
    args[2] = d->type;
    args[3] = d->status;
    args[4] = d->description;
    args[5] = d->group;
    args[6] = d->soa_email;
    args[7] = d->master_ips;
    args[8] = d->axfr_ips;
    args[9] = acct_i64(pool, d->expire_sec);
    args[10] = acct_i64(pool, d->refresh_sec);
    args[11] = acct_i64(pool, d->retry_sec);
    args[12] = acct_i64(pool, d->ttl_sec);
}

/* Tags (when given), the serial and event `action`: what every stored
 * change ends with. */
static acct_store_rc finish_change(acct_req *req, acct_store *st,
                                   const acct_domain *d, apr_int64_t id,
                                   const char *action)
{
    acct_store_rc rc = acct_event_domain(st, req->pool, id, action,
                                         req->who->username, req->now);

    if (rc == ACCT_STORE_OK && d->tags) {
        rc = acct_tags_set(st, req->pool, req->who->account_id,
                           ACCT_ENTITY_DOMAIN, id, d->tags, req->now);
    }
    if (rc == ACCT_STORE_OK) {
        rc = acct_dns_touch(st, req->pool, id, req->now);
    }
    return rc;
}

/* acct_domain_create, reported as `action`. */
static acct_outcome insert_domain(acct_req *req, const acct_domain *d,
                                  apr_int64_t *id, const char *action)
{
    const char *args[16], *key = acct_domain_key(req->pool, d->domain);
    acct_rows *rows = NULL;
    acct_store *st = NULL;
    acct_store_rc rc = acct_req_store(req, &st);

    if (rc == ACCT_STORE_OK) {
        rc = lock_name(st, req->pool, key);
    }
    if (rc == ACCT_STORE_OK) {
        args[0] = acct_i64(req->pool, req->who->account_id);
        settings_args(req->pool, d, key, args + 1);
        args[14] = args[15] = acct_i64(req->pool, req->now);
        rc = acct_store_select(st, req->pool, &q_domain_insert, &rows, 16,
                               args);
    }
    if (rc != ACCT_STORE_OK) {
        return acct_out_store(rc);
    }
    if (rows->nrows == 0) {
        return acct_out_invalid("domain", ACCT_DOMAIN_R_TAKEN);
    }
    if (acct_parse_i64(acct_rows_get(rows, 0, "id"), id) != 0) {
        return acct_out_store(ACCT_STORE_FAILED);
    }
    rc = acct_grant_creator(req, ACCT_ENTITY_DOMAIN, *id);
    if (rc == ACCT_STORE_OK) {
        rc = finish_change(req, st, d, *id, action);
    }
    return acct_out_store(rc);
}

acct_outcome acct_domain_create(acct_req *req, const acct_domain *d,
                                apr_int64_t *id)
{
    return insert_domain(req, d, id, ACCT_EVENT_DNS_ZONE_CREATE);
}

acct_outcome acct_domain_update(acct_req *req, apr_int64_t id,
                                const acct_domain *d)
{
    const char *args[16], *key = acct_domain_key(req->pool, d->domain);
    acct_store *st = NULL;
    acct_store_rc rc = acct_req_store(req, &st);
    int affected = 0;

    if (rc == ACCT_STORE_OK) {
        rc = lock_name(st, req->pool, key);
    }
    if (rc == ACCT_STORE_OK) {
        settings_args(req->pool, d, key, args);
        args[13] = acct_i64(req->pool, id);
        args[14] = key;
        args[15] = args[13];
        rc = acct_store_exec(st, req->pool, &q_domain_update, &affected, 16,
                             args);
    }
    if (rc != ACCT_STORE_OK) {
        return acct_out_store(rc);
    }
    if (affected == 0) {
        return acct_out_invalid("domain", ACCT_DOMAIN_R_TAKEN);
    }
    return acct_out_store(finish_change(req, st, d, id,
                                        ACCT_EVENT_DNS_ZONE_UPDATE));
}

acct_outcome acct_domain_import_create(acct_req *req, const acct_domain *d,
                                       const apr_array_header_t *records,
                                       apr_int64_t *id)
{
    acct_outcome out = insert_domain(req, d, id, ACCT_EVENT_DNS_ZONE_IMPORT);

    if (!acct_out_ok(out)) {
        return out;
    }
    return acct_out_store(acct_record_insert_all(req->store, req->pool, *id,
                                                 records, req->now));
}

acct_store_rc acct_domain_hosted(acct_store *st, apr_pool_t *pool,
                                 const char *name, int *hosted)
{
    const char *key = acct_domain_key(pool, name);
    acct_rows *rows = NULL;
    acct_store_rc rc = acct_store_select(st, pool, &q_name_hosted, &rows, 1,
                                         &key);

    *hosted = rc == ACCT_STORE_OK && rows->nrows > 0;
    return rc;
}

acct_store_rc acct_domain_delete(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t id, apr_int64_t account_id,
                                 const char *username, apr_int64_t now,
                                 int *deleted)
{
    const char *args[2];
    acct_store_rc rc;

    *deleted = 0;
    args[0] = acct_i64(pool, id);
    args[1] = acct_i64(pool, account_id);
    /* While the row still names the zone. */
    rc = acct_event_domain(st, pool, id, ACCT_EVENT_DNS_ZONE_DELETE, username,
                           now);
    if (rc == ACCT_STORE_OK) {
        rc = acct_tags_remove(st, pool, ACCT_ENTITY_DOMAIN, id);
    }
    if (rc == ACCT_STORE_OK) {
        rc = acct_grants_remove_entity(st, pool, ACCT_ENTITY_DOMAIN, id);
    }
    if (rc == ACCT_STORE_OK) {
        rc = acct_store_exec(st, pool, &q_domain_delete, deleted, 2, args);
    }
    return rc;
}

void acct_domain_list_query(acct_req *req, acct_store *st, acct_list_query *q)
{
    const char **args = apr_pcalloc(req->pool, 3 * sizeof(*args));

    memset(q, 0, sizeof(*q));
    q->columns = apr_pstrcat(req->pool, ACCT_DOMAIN_COLUMNS ", ",
                             acct_tags_column_sql(req->pool,
                                                  acct_store_dialect(st),
                                                  ACCT_ENTITY_DOMAIN, "d.id"),
                             " AS tags", NULL);
    q->from = "domains d";
    q->where = apr_pstrcat(req->pool, "d.account_id = CAST(%s AS BIGINT) AND ",
                           acct_grant_visible_sql(req->pool, ACCT_ENTITY_DOMAIN,
                                                  "d.id"), NULL);
    args[0] = acct_i64(req->pool, req->who->account_id);
    acct_grant_visible_args(req, args + 1);
    q->nargs = 3;
    q->args = args;
    q->fields = domain_filter_fields;
    q->stable_order = "d.id";
    q->render = acct_domain_render;
}

/* The one-row UPDATE ... RETURNING of the domain writes of records. */
static acct_store_rc take_row(acct_store *st, apr_pool_t *pool,
                              const acct_sql *sql, apr_int64_t now, int nargs,
                              const char **args, acct_rows **domain)
{
    args[0] = args[1] = args[2] = acct_i64(pool, now);
    *domain = NULL;
    return acct_store_select(st, pool, sql, domain, nargs, args);
}

acct_store_rc acct_domain_claim_slot(acct_store *st, apr_pool_t *pool,
                                     apr_int64_t id, apr_int64_t account_id,
                                     apr_int64_t now, acct_rows **domain)
{
    const char *args[6];

    args[3] = acct_i64(pool, id);
    args[4] = acct_i64(pool, account_id);
    args[5] = acct_i64(pool, ACCT_RECORD_LIMIT);
    return take_row(st, pool, &q_slot_claim, now, 6, args, domain);
}

acct_store_rc acct_domain_lock(acct_store *st, apr_pool_t *pool,
                               apr_int64_t id)
{
    const char *arg = acct_i64(pool, id);

    return acct_store_exec_deferred(st, pool, &q_domain_lock, 1, &arg);
}

void acct_domain_read_by_token(apr_pool_t *pool, apr_int64_t id,
                               const acct_token_ref *token,
                               acct_store_read *out)
{
    const char **args = apr_palloc(pool, 2 * sizeof(*args));

    args[0] = acct_i64(pool, id);
    args[1] = token->account ? acct_i64(pool, token->account) : token->hash;
    memset(out, 0, sizeof(*out));
    out->sql = token->account ? DOMAIN_OF_ACCOUNT("CAST(%s AS BIGINT)")
                              : DOMAIN_OF_ACCOUNT(ACCT_TOKEN_ACCOUNT);
    out->nargs = 2;
    out->args = args;
}

acct_store_rc acct_domain_take(acct_store *st, apr_pool_t *pool,
                               apr_int64_t id, apr_int64_t now,
                               acct_rows **domain)
{
    const char *args[4];

    args[3] = acct_i64(pool, id);
    return take_row(st, pool, &q_domain_take, now, 4, args, domain);
}

int acct_domain_is_slave(const acct_rows *rows, int i)
{
    const char *type = acct_rows_get(rows, i, "type");

    return type && strcmp(type, ACCT_DOMAIN_SLAVE) == 0;
}

apr_int64_t acct_domain_row_id(const acct_rows *rows, int i)
{
    return column_i64(rows, i, "id");
}

/* A JSON array column; anything else (never stored) renders as []. */
static json_t *array_column(const char *text)
{
    json_t *j = acct_json_parse_column(text);

    if (json_is_array(j)) {
        return j;
    }
    json_decref(j);
    return json_array();
}

static json_t *domain_tags(acct_req *req, const acct_rows *rows, int i)
{
    acct_store *st = NULL;
    apr_int64_t id = 0;
    json_t *tags = NULL;

    if (acct_rows_col(rows, "tags") >= 0) {
        return acct_tags_from_column(req->pool, acct_rows_get(rows, i, "tags"));
    }
    if (acct_parse_i64(acct_rows_get(rows, i, "id"), &id) != 0
        || acct_req_store(req, &st) != ACCT_STORE_OK
        || acct_tags_get(st, req->pool, ACCT_ENTITY_DOMAIN, id, &tags)
           != ACCT_STORE_OK) {
        return NULL;
    }
    return tags;
}

static json_t *str_column(const acct_rows *rows, int i, const char *col)
{
    return acct_json_str(acct_rows_get(rows, i, col));
}

json_t *acct_domain_render(acct_req *req, const acct_rows *rows, int i)
{
    static const char *const seconds[] = {
        "expire_sec", "refresh_sec", "retry_sec", "ttl_sec", NULL
    };
    const char *const *k;
    json_t *o, *tags = domain_tags(req, rows, i);

    if (!tags) {
        return NULL;
    }
    o = json_object();
    json_object_set_new(o, "id", acct_json_int(acct_rows_get(rows, i, "id")));
    json_object_set_new(o, "domain", str_column(rows, i, "domain"));
    json_object_set_new(o, "type", str_column(rows, i, "type"));
    json_object_set_new(o, "status", str_column(rows, i, "status"));
    /* The zone's problems, which the public API reports as a string ("" for
     * none: its recorded domains).  A zone here is always published whole
     * (named-checkzone accepts every zone the module writes): none. */
    json_object_set_new(o, "errors", json_string(""));
    json_object_set_new(o, "description",
                        json_string(column_text(rows, i, "description", "")));
    json_object_set_new(o, "group",
                        json_string(column_text(rows, i, "group_name", "")));
    /* "" when unset (a slave's), as the display strings: the public API
     * types soa_email as a string, and its SDKs read it so. */
    json_object_set_new(o, "soa_email",
                        json_string(column_text(rows, i, "soa_email", "")));
    json_object_set_new(o, "master_ips",
                        array_column(acct_rows_get(rows, i, "master_ips")));
    json_object_set_new(o, "axfr_ips",
                        array_column(acct_rows_get(rows, i, "axfr_ips")));
    json_object_set_new(o, "tags", tags);
    for (k = seconds; *k; k++) {
        json_object_set_new(o, *k, acct_json_int(acct_rows_get(rows, i, *k)));
    }
    json_object_set_new(o, "created",
                        acct_json_time(req->pool,
                                       acct_rows_get(rows, i, "created")));
    json_object_set_new(o, "updated",
                        acct_json_time(req->pool,
                                       acct_rows_get(rows, i, "updated")));
    return o;
}

json_t *acct_domain_object(acct_req *req, apr_int64_t id, acct_outcome *out)
{
    const char *arg = acct_i64(req->pool, id);
    acct_rows *rows = NULL;
    acct_store *st = NULL;
    acct_store_rc rc = acct_req_store(req, &st);
    json_t *o;

    if (rc == ACCT_STORE_OK) {
        rc = acct_store_select(st, req->pool, &q_domain_by_id, &rows, 1,
                               &arg);
    }
    *out = acct_out_found(rc, rows);
    if (!acct_out_ok(*out)) {
        return NULL;
    }
    o = acct_domain_render(req, rows, 0);
    if (!o) {
        *out = acct_out_store(ACCT_STORE_FAILED);
    }
    return o;
}
