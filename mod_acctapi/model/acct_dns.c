#include "acct_dns.h"
#include "acct_grants.h"
#include "acct_tags.h"

/* The contract's valid values; 0 means "the default" for both lists. */
static const apr_int64_t domain_seconds[] = {
    0, 30, 120, 300, 3600, 7200, 14400, 28800, 57600, 86400, 172800, 345600,
    604800, 1209600, 2419200
};
static const apr_int64_t record_ttls[] = {
    0, 300, 3600, 7200, 14400, 28800, 57600, 86400, 172800, 345600, 604800,
    1209600, 2419200
};

static apr_int64_t round_up(const apr_int64_t *valid, size_t n,
                            apr_int64_t seconds)
{
    size_t i;

    if (seconds <= 0) {
        return 0;
    }
    for (i = 0; i < n; i++) {
        if (valid[i] >= seconds) {
            return valid[i];
        }
    }
    return ACCT_DNS_SECONDS_MAX;
}

apr_int64_t acct_dns_round_domain_seconds(apr_int64_t seconds)
{
    return round_up(domain_seconds,
                    sizeof(domain_seconds) / sizeof(domain_seconds[0]), seconds);
}

apr_int64_t acct_dns_round_record_ttl(apr_int64_t seconds)
{
    return round_up(record_ttls, sizeof(record_ttls) / sizeof(record_ttls[0]),
                    seconds);
}

static const acct_sql q_touch = ACCT_SQL("domain_touch",
    "UPDATE domains SET" ACCT_DNS_TOUCH_SET " WHERE id = CAST(%s AS BIGINT)");

acct_store_rc acct_dns_touch(acct_store *st, apr_pool_t *pool,
                             apr_int64_t domain_id, apr_int64_t now)
{
    const char *args[4];

    args[0] = args[1] = args[2] = acct_i64(pool, now);
    args[3] = acct_i64(pool, domain_id);
    return acct_store_exec(st, pool, &q_touch, NULL, 4, args);
}

static const acct_sql q_domain_in_account = ACCT_SQL("domain_in_account",
    "SELECT " ACCT_DOMAIN_COLUMNS " FROM domains d"
    " WHERE d.id = CAST(%s AS BIGINT) AND d.account_id = CAST(%s AS BIGINT)");

/* The same row with its tags (a "tags" column, see acct_domain_render). */
#define DOMAIN_WITH_TAGS(agg) \
    "SELECT " ACCT_DOMAIN_COLUMNS ", " \
    ACCT_TAGS_COLUMN(agg, "'" ACCT_ENTITY_DOMAIN "'", "d.id") " AS tags" \
    " FROM domains d" \
    " WHERE d.id = CAST(%s AS BIGINT) AND d.account_id = CAST(%s AS BIGINT)"
static const acct_sql q_domain_with_tags = ACCT_SQL2("domain_with_tags",
    DOMAIN_WITH_TAGS(ACCT_TAGS_AGG_SQLITE),
    DOMAIN_WITH_TAGS(ACCT_TAGS_AGG_PGSQL));

static acct_rows *domain_by_id(acct_req *req, apr_int64_t id,
                               acct_level need, const acct_sql *sql,
                               acct_outcome *out)
{
    const char *args[2];
    acct_rows *rows = NULL;
    acct_store *st = NULL;
    acct_store_rc rc = acct_req_store(req, &st);

    if (rc == ACCT_STORE_OK) {
        args[0] = acct_i64(req->pool, id);
        args[1] = acct_i64(req->pool, req->who->account_id);
        rc = acct_store_select(st, req->pool, sql, &rows, 2, args);
    }
    *out = acct_out_found(rc, rows);
    if (acct_out_ok(*out)) {
        *out = acct_grant_require(req, ACCT_ENTITY_DOMAIN, id, need);
    }
    return acct_out_ok(*out) ? rows : NULL;
}

acct_rows *acct_dns_domain(acct_req *req, apr_int64_t id, acct_level need,
                           acct_outcome *out)
{
    return domain_by_id(req, id, need, &q_domain_in_account, out);
}

acct_rows *acct_dns_domain_with_tags(acct_req *req, apr_int64_t id,
                                     acct_level need, acct_outcome *out)
{
    return domain_by_id(req, id, need, &q_domain_with_tags, out);
}
