/*
 * Domain records in the store: their rows, and every statement on
 * domain_records (acct_record_store.h).
 */
#include "acct_record_store.h"
#include "acct_dns.h"
#include "acct_domain.h"
#include "acct_event.h"

#include <string.h>

/* ------------------------------------------------------------------------
 * Rows
 * ------------------------------------------------------------------------ */

static apr_int64_t row_number(const acct_rows *rows, int i, const char *col)
{
    apr_int64_t v = 0;
    const char *s = acct_rows_get(rows, i, col);

    if (!s || acct_parse_i64(s, &v) != 0) {
        return 0;
    }
    return v;
}

void acct_record_from_row(const acct_rows *rows, int i, acct_record *out)
{
    memset(out, 0, sizeof(*out));
    out->type = acct_rows_get(rows, i, "type");
    out->name = acct_rows_get(rows, i, "name");
    out->target = acct_rows_get(rows, i, "target");
    out->priority = row_number(rows, i, "priority");
    out->weight = row_number(rows, i, "weight");
    out->port = row_number(rows, i, "port");
    out->ttl_sec = row_number(rows, i, "ttl_sec");
    out->service = acct_rows_get(rows, i, "service");
    out->protocol = acct_rows_get(rows, i, "protocol");
    out->tag = acct_rows_get(rows, i, "tag");
    out->set = ACCT_RECORD_PRIORITY | ACCT_RECORD_WEIGHT | ACCT_RECORD_PORT;
    if (!out->name) {
        out->name = "";
    }
    if (!out->target) {
        out->target = "";
    }
}

/* ------------------------------------------------------------------------
 * Storage
 * ------------------------------------------------------------------------ */

static const acct_sql q_record_insert = ACCT_SQL("record_insert",
    "INSERT INTO domain_records (domain_id, type, name, target, priority,"
    " weight, port, service, protocol, ttl_sec, tag, created, updated)"
    " VALUES (CAST(%s AS BIGINT), %s, %s, %s, CAST(%s AS INTEGER),"
    " CAST(%s AS INTEGER), CAST(%s AS INTEGER), %s, %s, CAST(%s AS INTEGER),"
    " %s, CAST(%s AS BIGINT), CAST(%s AS BIGINT)) RETURNING id");

/* A new record's row as a SELECT (row_args's 13 %s), for INSERT ... SELECT. */
#define RECORD_INSERT_SELECT \
    "INSERT INTO domain_records (domain_id, type, name, target, priority," \
    " weight, port, service, protocol, ttl_sec, tag, created, updated)" \
    " SELECT CAST(%s AS BIGINT), CAST(%s AS TEXT), CAST(%s AS TEXT)," \
    " CAST(%s AS TEXT), CAST(%s AS INTEGER), CAST(%s AS INTEGER)," \
    " CAST(%s AS INTEGER), CAST(%s AS TEXT), CAST(%s AS TEXT)," \
    " CAST(%s AS INTEGER), CAST(%s AS TEXT), CAST(%s AS BIGINT)," \
    " CAST(%s AS BIGINT)"

/*
 * The neighbour rules of a record without an id (api_records.c's
 * check_cname and check_mx) as one condition, true when neither forbids
 * it; rule_args's six %s: the domain, the name, the type, the domain, the
 * type, 1 for a Null MX.
 */
#define RECORD_RULES_ALLOW \
    "NOT EXISTS (SELECT 1 FROM domain_records o" \
    "  WHERE o.domain_id = CAST(%s AS BIGINT)" \
    "  AND lower(o.name) = lower(CAST(%s AS TEXT))" \
    "  AND (o.type = '" ACCT_RECORD_TYPE_CNAME "'" \
    "  OR CAST(%s AS TEXT) = '" ACCT_RECORD_TYPE_CNAME "'))" \
    " AND NOT EXISTS (SELECT 1 FROM domain_records o" \
    "  WHERE o.domain_id = CAST(%s AS BIGINT)" \
    "  AND o.type = '" ACCT_RECORD_TYPE_MX "'" \
    "  AND CAST(%s AS TEXT) = '" ACCT_RECORD_TYPE_MX "'" \
    "  AND (CAST(%s AS INTEGER) = 1 OR (o.name = '' AND o.target = '')))"

/*
 * A new record, written only when no neighbour rule forbids it, and
 * returned as stored.
 */
static const acct_sql q_record_insert_checked = ACCT_SQL(
    "record_insert_checked",
    RECORD_INSERT_SELECT " WHERE " RECORD_RULES_ALLOW
    " RETURNING " ACCT_RECORD_COLUMNS);

/*
 * acct_record_create_at_once's statement (PostgreSQL only: SQLite has no
 * data-modifying WITH): the slot claimed on the domain still named as the
 * record was read (ACCT_DOMAIN_SLOT_CLAIM and one %s, the name) when the
 * rules allow the record (RECORD_RULES_ALLOW), then the record from the
 * claimed row (RECORD_INSERT_SELECT) and the domain's event
 * (ACCT_EVENT_OF_DOMAIN), all or nothing.  The claim's own row lock is
 * held already (acct_domain_lock, the statement before): a statement takes
 * its snapshot when it starts, so rules judged in the statement that
 * waited for the lock would not see what the writer it waited for wrote.
 */
static const acct_sql q_record_create_at_once = ACCT_SQL2(
    "record_create_at_once", NULL,
    "WITH d AS (" ACCT_DOMAIN_SLOT_CLAIM " AND domain = %s"
    " AND " RECORD_RULES_ALLOW " RETURNING id, account_id, domain),"
    " r AS (" RECORD_INSERT_SELECT " FROM d RETURNING " ACCT_RECORD_COLUMNS "),"
    " e AS (" ACCT_EVENT_OF_DOMAIN "d)"
    " SELECT " ACCT_RECORD_COLUMNS " FROM r");

/* One statement, so a clone holds exactly the records of one moment. */
static const acct_sql q_records_copy = ACCT_SQL("domain_records_copy",
    "INSERT INTO domain_records (domain_id, type, name, target, priority,"
    " weight, port, service, protocol, ttl_sec, tag, created, updated)"
    " SELECT CAST(%s AS BIGINT), type, name, target, priority, weight, port,"
    " service, protocol, ttl_sec, tag, CAST(%s AS BIGINT), CAST(%s AS BIGINT)"
    " FROM domain_records WHERE domain_id = CAST(%s AS BIGINT) ORDER BY id");

/* The count of a domain whose records were all just written (clone,
 * import). */
static const acct_sql q_record_count_set = ACCT_SQL("domain_record_count_set",
    "UPDATE domains SET record_count = CAST(%s AS INTEGER)"
    " WHERE id = CAST(%s AS BIGINT)");

static const acct_sql q_record_get = ACCT_SQL("record_get",
    "SELECT " ACCT_RECORD_COLUMNS " FROM domain_records"
    " WHERE id = CAST(%s AS BIGINT) AND domain_id = CAST(%s AS BIGINT)");

/* Other records at a name (names compare as DNS does, ignoring case). */
static const acct_sql q_name_users = ACCT_SQL("record_name_users",
    "SELECT count(*) AS n,"
    " COALESCE(sum(CASE WHEN type = '" ACCT_RECORD_TYPE_CNAME "'"
    " THEN 1 ELSE 0 END), 0) AS cnames"
    " FROM domain_records WHERE domain_id = CAST(%s AS BIGINT)"
    " AND lower(name) = lower(CAST(%s AS TEXT)) AND id <> CAST(%s AS BIGINT)");

/* The domain's other MX records, and how many of them are Null MX. */
static const acct_sql q_mx_others = ACCT_SQL("record_mx_others",
    "SELECT count(*) AS mx,"
    " COALESCE(sum(CASE WHEN name = '' AND target = '' THEN 1 ELSE 0 END), 0)"
    " AS null_mx"
    " FROM domain_records WHERE domain_id = CAST(%s AS BIGINT)"
    " AND type = '" ACCT_RECORD_TYPE_MX "'"
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

static const acct_sql q_slot_release = ACCT_SQL("record_slot_release",
    "UPDATE domains SET record_count = record_count - 1"
    " WHERE id = CAST(%s AS BIGINT) AND record_count > 0");

/* The public API's marks, and the other properties of linode_api4's
 * DomainRecord, which its filters may name. */
static const acct_filter_field record_filter_fields[] = {
    {"type", "type", ACCT_FIELD_TEXT},
    {"name", "name", ACCT_FIELD_TEXT},
    {"target", "target", ACCT_FIELD_TEXT},
    {"tag", "tag", ACCT_FIELD_TEXT},
    {"id", "id", ACCT_FIELD_INT},
    {"priority", "priority", ACCT_FIELD_INT},
    {"weight", "weight", ACCT_FIELD_INT},
    {"port", "port", ACCT_FIELD_INT},
    {"service", "service", ACCT_FIELD_TEXT},
    {"protocol", "protocol", ACCT_FIELD_TEXT},
    {"ttl_sec", "ttl_sec", ACCT_FIELD_INT},
    {"created", "created", ACCT_FIELD_TIME},
    {"updated", "updated", ACCT_FIELD_TIME},
    {NULL, NULL, 0}
};

/*
 * The record's stored columns as statement arguments, in the order
 * name, target, priority, weight, port, service, protocol, ttl_sec, tag
 * (nine entries of `args`).
 */
static void record_args(apr_pool_t *pool, const acct_record *rec,
                        const char **args)
{
    args[0] = rec->name;
    args[1] = rec->target;
    args[2] = acct_i64(pool, rec->priority);
    args[3] = acct_i64(pool, rec->weight);
    args[4] = acct_i64(pool, rec->port);
    args[5] = rec->service;
    args[6] = rec->protocol;
    args[7] = acct_i64(pool, rec->ttl_sec);
    args[8] = rec->tag;
}

/* The thirteen values of a new row: domain, type, the stored columns,
 * created and updated. */
static void row_args(apr_pool_t *pool, apr_int64_t domain_id,
                     const acct_record *rec, apr_int64_t now,
                     const char **args)
{
    args[0] = acct_i64(pool, domain_id);
    args[1] = rec->type;
    record_args(pool, rec, args + 2);
    args[11] = args[12] = acct_i64(pool, now);
}

acct_store_rc acct_record_insert(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t domain_id, const acct_record *rec,
                                 apr_int64_t now, apr_int64_t *new_id)
{
    const char *args[13];
    acct_rows *rows = NULL;
    acct_store_rc rc;

    row_args(pool, domain_id, rec, now, args);
    rc = acct_store_select(st, pool, &q_record_insert, &rows, 13, args);
    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    if (rows->nrows != 1) {
        return ACCT_STORE_FAILED;
    }
    if (new_id && acct_parse_i64(acct_rows_get(rows, 0, "id"), new_id) != 0) {
        return ACCT_STORE_FAILED;
    }
    return ACCT_STORE_OK;
}

static acct_store_rc set_count(acct_store *st, apr_pool_t *pool,
                               apr_int64_t domain_id, apr_int64_t count)
{
    const char *args[2];

    args[0] = acct_i64(pool, count);
    args[1] = acct_i64(pool, domain_id);
    return acct_store_exec(st, pool, &q_record_count_set, NULL, 2, args);
}

acct_store_rc acct_record_insert_all(acct_store *st, apr_pool_t *pool,
                                     apr_int64_t domain_id,
                                     const apr_array_header_t *records,
                                     apr_int64_t now)
{
    acct_store_rc rc;
    int i;

    for (i = 0; i < records->nelts; i++) {
        rc = acct_record_insert(st, pool, domain_id,
                                &APR_ARRAY_IDX(records, i, acct_record), now,
                                NULL);
        if (rc != ACCT_STORE_OK) {
            return rc;
        }
    }
    return set_count(st, pool, domain_id, records->nelts);
}

acct_store_rc acct_record_copy_all(acct_store *st, apr_pool_t *pool,
                                   apr_int64_t from, apr_int64_t to,
                                   apr_int64_t now)
{
    const char *args[4];
    acct_store_rc rc;
    int copied = 0;

    args[0] = acct_i64(pool, to);
    args[1] = args[2] = acct_i64(pool, now);
    args[3] = acct_i64(pool, from);
    rc = acct_store_exec(st, pool, &q_records_copy, &copied, 4, args);
    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    return set_count(st, pool, to, copied);
}

/* RECORD_RULES_ALLOW's six arguments for `rec`, new in domain `domain`
 * (acct_i64 of the domain id). */
static void rule_args(const char *domain, const acct_record *rec,
                      const char **args)
{
    args[0] = args[3] = domain;
    args[1] = rec->name;
    args[2] = args[4] = rec->type;
    args[5] = acct_record_is_null_mx(rec) ? "1" : "0";
}

acct_store_rc acct_record_create(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t domain_id, const acct_record *rec,
                                 const char *username, apr_int64_t now,
                                 acct_rows **rows)
{
    const char *args[19];
    acct_store_rc rc;

    row_args(pool, domain_id, rec, now, args);
    rule_args(args[0], rec, args + 13);
    *rows = NULL;
    rc = acct_store_select(st, pool, &q_record_insert_checked, rows, 19, args);
    return rc != ACCT_STORE_OK || (*rows)->nrows == 0
           ? rc : acct_event_domain(st, pool, domain_id,
                                    ACCT_EVENT_DNS_RECORD_CREATE, username,
                                    now);
}

acct_store_rc acct_record_create_at_once(acct_store *st, apr_pool_t *pool,
                                         const acct_record_slot *slot,
                                         const acct_record *rec,
                                         const char *username,
                                         apr_int64_t now, acct_rows **rows)
{
    const char *args[29];
    acct_store_rc rc;

    *rows = NULL;
    if (!acct_store_pipelines(st) || !acct_store_in_tx(st)) {
        return ACCT_STORE_OK;
    }
    /* ACCT_DOMAIN_SLOT_CLAIM's six, the name, RECORD_RULES_ALLOW's six,
     * row_args's thirteen, ACCT_EVENT_OF_DOMAIN's three. */
    args[0] = args[1] = args[2] = acct_i64(pool, now);
    args[3] = acct_i64(pool, slot->domain_id);
    args[4] = acct_i64(pool, slot->account_id);
    args[5] = acct_i64(pool, ACCT_RECORD_LIMIT);
    args[6] = slot->zone;
    rule_args(args[3], rec, args + 7);
    row_args(pool, slot->domain_id, rec, now, args + 13);
    args[26] = ACCT_EVENT_DNS_RECORD_CREATE;
    args[27] = args[0];
    args[28] = username;
    rc = acct_domain_lock(st, pool, slot->domain_id);
    if (rc != ACCT_STORE_OK) {
        acct_store_rollback(st, pool);
        return rc;
    }
    return acct_store_select_commit(st, pool, &q_record_create_at_once, rows,
                                    29, args);
}

/* Record `id` of domain `domain_id` as the two arguments that name it. */
static void id_args(apr_pool_t *pool, apr_int64_t id, apr_int64_t domain_id,
                    const char **args)
{
    args[0] = acct_i64(pool, id);
    args[1] = acct_i64(pool, domain_id);
}

acct_store_rc acct_record_get(acct_store *st, apr_pool_t *pool,
                              apr_int64_t domain_id, apr_int64_t id,
                              acct_rows **rows)
{
    const char *args[2];

    id_args(pool, id, domain_id, args);
    *rows = NULL;
    return acct_store_select(st, pool, &q_record_get, rows, 2, args);
}

/* Column `col` of a one-row count (0 when NULL). */
static apr_int64_t count_of(const acct_rows *rows, const char *col)
{
    apr_int64_t n = 0;
    const char *s = acct_rows_get(rows, 0, col);

    return s && acct_parse_i64(s, &n) == 0 ? n : 0;
}

acct_store_rc acct_record_name_users(acct_store *st, apr_pool_t *pool,
                                     apr_int64_t domain_id, const char *name,
                                     apr_int64_t self, apr_int64_t *records,
                                     apr_int64_t *cnames)
{
    const char *args[3];
    acct_rows *rows = NULL;
    acct_store_rc rc;

    args[0] = acct_i64(pool, domain_id);
    args[1] = name;
    args[2] = acct_i64(pool, self);
    rc = acct_store_select(st, pool, &q_name_users, &rows, 3, args);
    *records = rc == ACCT_STORE_OK ? count_of(rows, "n") : 0;
    *cnames = rc == ACCT_STORE_OK ? count_of(rows, "cnames") : 0;
    return rc;
}

acct_store_rc acct_record_mx_others(acct_store *st, apr_pool_t *pool,
                                    apr_int64_t domain_id, apr_int64_t self,
                                    apr_int64_t *mx, apr_int64_t *null_mx)
{
    const char *args[2];
    acct_rows *rows = NULL;
    acct_store_rc rc;

    args[0] = acct_i64(pool, domain_id);
    args[1] = acct_i64(pool, self);
    rc = acct_store_select(st, pool, &q_mx_others, &rows, 2, args);
    *mx = rc == ACCT_STORE_OK ? count_of(rows, "mx") : 0;
    *null_mx = rc == ACCT_STORE_OK ? count_of(rows, "null_mx") : 0;
    return rc;
}

acct_store_rc acct_record_update(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t domain_id, apr_int64_t id,
                                 const acct_record *rec, const char *username,
                                 apr_int64_t now, int *changed)
{
    const char *args[12];
    acct_store_rc rc;

    record_args(pool, rec, args);
    args[9] = acct_i64(pool, now);
    id_args(pool, id, domain_id, args + 10);
    *changed = 0;
    rc = acct_store_exec(st, pool, &q_record_update, changed, 12, args);
    return rc != ACCT_STORE_OK || *changed == 0
           ? rc : acct_event_domain(st, pool, domain_id,
                                    ACCT_EVENT_DNS_RECORD_UPDATE, username,
                                    now);
}

acct_store_rc acct_record_delete(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t domain_id, apr_int64_t id,
                                 const char *username, apr_int64_t now,
                                 int *deleted)
{
    const char *args[2];
    acct_store_rc rc;

    id_args(pool, id, domain_id, args);
    *deleted = 0;
    rc = acct_store_exec(st, pool, &q_record_delete, deleted, 2, args);
    if (rc != ACCT_STORE_OK || *deleted == 0) {
        return rc;
    }
    rc = acct_store_exec(st, pool, &q_slot_release, NULL, 1, args + 1);
    return rc != ACCT_STORE_OK
           ? rc : acct_event_domain(st, pool, domain_id,
                                    ACCT_EVENT_DNS_RECORD_DELETE, username,
                                    now);
}

void acct_record_list_query(apr_pool_t *pool, apr_int64_t domain_id,
                            acct_list_query *q)
{
    acct_list_query_of(q, pool, ACCT_RECORD_COLUMNS, "domain_records",
                       "domain_id = CAST(%s AS BIGINT)", domain_id,
                       record_filter_fields, "id");
}
