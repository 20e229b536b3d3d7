/* Helpers shared by the domain-record tests (test_dns_records_*.c): a
 * Record as a JSON object and the compact dump compared, and the fixture of
 * the handler and storage tests (a domain on a migrated SQLite database)
 * with its calls.  Header-only, as unit.h is (dump uses its pool); include
 * it after unit.h and unit_db.h. */
#ifndef UNIT_RECORDS_H
#define UNIT_RECORDS_H

#include <apr_dbd.h>
#include <apr_file_info.h>
#include <apr_strings.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "unit_db.h"
#include "acct_body.h"
#include "acct_json.h"
#include "acct_domain.h"
#include "acct_record.h"
#include "acct_record_body.h"
#include "acct_record_json.h"
#include "api_handlers.h"

static inline json_t *record_object(const acct_record *r)
{
    return json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:o, s:o, s:I, s:o}",
                     "type", r->type, "name", r->name, "target", r->target,
                     "priority", (json_int_t)r->priority,
                     "weight", (json_int_t)r->weight,
                     "port", (json_int_t)r->port,
                     "service", acct_json_str(r->service),
                     "protocol", acct_json_str(r->protocol),
                     "ttl_sec", (json_int_t)r->ttl_sec,
                     "tag", acct_json_str(r->tag));
}

static inline char *dump(const json_t *j)
{
    char *text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
    char *copy = apr_pstrdup(pool, text ? text : "(null)");

    free(text);
    return copy;
}

typedef struct fixture {
    unit_db *db;
    acct_principal who;     /* unrestricted, account A */
    acct_principal other;   /* unrestricted, account B */
    const char *domain;     /* master "example.com" of A */
    const char *second;     /* master "example.org" of A */
    const char *slave;      /* slave of A */
    const char *foreign;    /* master of B */
} fixture;

static const acct_sql q_domain_add = ACCT_SQL("unit_domain_add",
    "INSERT INTO domains (account_id, domain, domain_key, type, soa_email,"
    " created, updated) VALUES (CAST(%s AS BIGINT), %s, lower(%s), %s,"
    " 'hostmaster@example.com', 0, 0) RETURNING id");

static const acct_sql q_domain_state = ACCT_SQL("unit_domain_state",
    "SELECT serial, record_count FROM domains WHERE id = CAST(%s AS BIGINT)");

static const acct_sql q_domain_count = ACCT_SQL("unit_domain_count",
    "UPDATE domains SET record_count = CAST(%s AS INTEGER)"
    " WHERE id = CAST(%s AS BIGINT)");

static const acct_sql q_grant = ACCT_SQL("unit_grant",
    "INSERT INTO entity_grants (user_id, entity_type, entity_id, permissions)"
    " VALUES (CAST(%s AS BIGINT), 'domain', CAST(%s AS BIGINT), %s)");

static inline const char *add_domain(unit_db *db, apr_int64_t account,
                                     const char *name, const char *type)
{
    const char *args[4];
    acct_rows *rows = NULL;

    args[0] = acct_i64(db->pool, account);
    args[1] = args[2] = name;
    args[3] = type;
    assert_int_equal(acct_store_select(db->store, db->pool, &q_domain_add,
                                       &rows, 4, args), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    return acct_rows_get(rows, 0, "id");
}

static inline int db_setup(void **state)
{
    fixture *f;
    unit_db *db;

    if (unit_pool_setup(state) != 0) {
        return -1;
    }
    db = unit_db_open();

    f = apr_pcalloc(db->pool, sizeof(*f));
    f->db = db;
    unit_identity(db, "dana", 0, "*", &f->who);
    unit_identity(db, "otto", 0, "*", &f->other);
    f->domain = add_domain(db, f->who.account_id, "example.com", "master");
    f->second = add_domain(db, f->who.account_id, "example.org", "master");
    f->slave = add_domain(db, f->who.account_id, "copy.example", "slave");
    f->foreign = add_domain(db, f->other.account_id, "other.example",
                            "master");
    *state = f;
    return 0;
}

static inline int db_teardown(void **state)
{
    unit_db_close(((fixture *)*state)->db);
    return unit_pool_teardown(state);
}

/* JSON written with single quotes, for readable bodies in C strings. */
static inline const char *js(const char *text)
{
    char *s = apr_pstrdup(pool, text), *p;

    for (p = s; *p; p++) {
        if (*p == '\'') {
            *p = '"';
        }
    }
    return s;
}

/* Runs a handler as the module does: in a transaction that commits only on
 * success.  Returns the response document (owned by the pool). */
static inline json_t *call(fixture *f, const acct_principal *who,
                           acct_handler *h, const char *domain,
                           const char *record, const char *body, int *status)
{
    acct_req *req = unit_req(f->db, who);
    acct_resp resp;
    json_t *doc;

    req->params[0] = domain;
    req->params[1] = record;
    req->remote_addr = "192.0.2.50";
    if (body) {
        req->body = acct_json_own(f->db->pool,
                                  json_loads(js(body), 0, NULL));
        assert_non_null(req->body);
    }
    assert_int_equal(acct_store_begin(f->db->store, f->db->pool),
                     ACCT_STORE_OK);
    acct_resp_init(&resp, req->pool);
    h(req, &resp);
    if (acct_resp_commits(&resp)) {
        assert_int_equal(acct_store_commit(f->db->store, f->db->pool),
                         ACCT_STORE_OK);
    }
    else {
        assert_int_equal(acct_store_rollback(f->db->store, f->db->pool),
                         ACCT_STORE_OK);
    }
    *status = resp.status;
    doc = acct_resp_document(&resp, req->pool);
    return doc ? doc : json_object();
}

/* Creates a record and returns its id; fails the test unless 200. */
static inline const char *create(fixture *f, const char *domain,
                                 const char *body)
{
    int status;
    json_t *doc = call(f, &f->who, api_record_create, domain, NULL, body,
                       &status);

    if (status != 200) {
        fail_msg("create %s: %d %s", body, status, dump(doc));
    }
    return acct_i64(pool, json_integer_value(json_object_get(doc, "id")));
}

/* The single error of a 400: "<field>|<reason>" ("-" when no field). */
static inline const char *refusal(fixture *f, acct_handler *h,
                                  const char *domain, const char *record,
                                  const char *body)
{
    int status;
    json_t *doc = call(f, &f->who, h, domain, record, body, &status);
    json_t *errs = json_object_get(doc, "errors"), *e;
    const char *field;

    if (status != 400 || json_array_size(errs) != 1) {
        fail_msg("%s: %d %s", body ? body : "(no body)", status, dump(doc));
    }
    e = json_array_get(errs, 0);
    field = json_string_value(json_object_get(e, "field"));
    return apr_pstrcat(pool, field ? field : "-", "|",
                       json_string_value(json_object_get(e, "reason")), NULL);
}

static inline apr_int64_t domain_number(fixture *f, const char *domain,
                                        const char *col)
{
    acct_rows *rows = NULL;
    apr_int64_t v = -1;

    assert_int_equal(acct_store_select(f->db->store, f->db->pool,
                                       &q_domain_state, &rows, 1, &domain),
                     ACCT_STORE_OK);
    assert_int_equal(acct_parse_i64(acct_rows_get(rows, 0, col), &v), 0);
    return v;
}

static inline const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

#define DB_TEST(f) cmocka_unit_test_setup_teardown(f, db_setup, db_teardown)

#endif
