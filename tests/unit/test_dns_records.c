/* Domain records: the validator, driven by the case files of
 * tests/unit/records (see its README), and the /domains/{id}/records
 * handlers on a migrated SQLite database: the rules that need the domain's
 * other records, the limit, the serial, lists and 404s. */
#include "unit.h"

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

/* ------------------------------------------------------------------------
 * The case files
 * ------------------------------------------------------------------------ */

static const char *const record_keys[] = {
    "type", "name", "target", "priority", "weight", "port", "service",
    "protocol", "ttl_sec", "tag", NULL
};

static const char *cases_dir(void)
{
    const char *top = getenv("top_srcdir");

    return apr_pstrcat(pool, top && *top ? top : ".", "/tests/unit/records",
                       NULL);
}

/* A case's stored record, through a row as the handlers read one. */
static void current_record(json_t *c, acct_record *out)
{
    static const char *names[11];
    const char **values = apr_pcalloc(pool, sizeof(char *) * 11), ***rowv;
    acct_rows rows;
    int i;

    for (i = 0; record_keys[i]; i++) {
        json_t *v = json_object_get(c, record_keys[i]);

        names[i] = record_keys[i];
        if (json_is_integer(v)) {
            values[i] = acct_i64(pool, json_integer_value(v));
        }
        else if (json_is_string(v)) {
            values[i] = json_string_value(v);
        }
    }
    rowv = apr_pcalloc(pool, sizeof(*rowv));
    rowv[0] = values;
    rows.nrows = 1;
    rows.ncols = i;
    rows.names = names;
    rows.values = rowv;
    acct_record_from_row(&rows, 0, out);
}

static json_t *record_object(const acct_record *r)
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

static char *dump(const json_t *j)
{
    char *text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
    char *copy = apr_pstrdup(pool, text ? text : "(null)");

    free(text);
    return copy;
}

/* acct_record_read after the body's other keys and nulls are judged, with
 * its problems answered into `resp`, as the handlers do, so the cases read
 * the envelope the client gets.  No stored Record: the handler tests judge
 * read-only keys against one. */
static int record_read(acct_req *req, acct_resp *resp,
                       const acct_record *current,
                       const acct_record_zone *zone, acct_record *out)
{
    acct_problems *pb = acct_problems_make(pool);
    int rc;

    acct_fields_settable(req, pb, acct_record_fields, NULL);
    rc = acct_record_read(req, pb, current, zone, out);

    acct_resp_problems(resp, pool, pb);
    return rc;
}

static void check_case(const char *name, json_t *c)
{
    json_t *current = json_object_get(c, "current");
    json_t *want_out = json_object_get(c, "output");
    json_t *want_err = json_object_get(c, "errors");
    json_t *got;
    acct_record cur, rec;
    acct_record_zone zone;
    acct_req req;
    acct_resp resp;
    int rc;

    UNIT_CHECKF((want_out != NULL) != (want_err != NULL),
                "%s: needs output or errors", name);
    memset(&req, 0, sizeof(req));
    req.pool = pool;
    req.body = json_object_get(c, "input");
    UNIT_CHECKF(json_is_object(req.body), "%s: input", name);
    zone.domain = json_string_value(json_object_get(c, "domain"));
    zone.domain = zone.domain ? zone.domain : "example.com";
    zone.remote_addr = json_string_value(json_object_get(c, "remote_addr"));
    if (current) {
        current_record(current, &cur);
    }
    acct_resp_init(&resp, pool);
    rc = record_read(&req, &resp, current ? &cur : NULL, &zone, &rec);
    if (want_out) {
        UNIT_CHECKF(rc == 0, "%s: refused with %s", name, dump(resp.errors));
        got = record_object(&rec);
        UNIT_CHECKF(json_equal(got, want_out), "%s: got %s", name, dump(got));
        json_decref(got);
        return;
    }
    UNIT_CHECKF(rc == -1, "%s: accepted", name);
    UNIT_CHECKF(json_equal(resp.errors, want_err), "%s: got %s", name,
                dump(resp.errors));
}

/* Calls check_case on every *.json file; returns how many ran. */
static int each_case(const char *prefix)
{
    const char *dir = cases_dir();
    apr_dir_t *d = NULL;
    apr_finfo_t fi;
    json_error_t err;
    int n = 0;

    if (apr_dir_open(&d, dir, pool) != APR_SUCCESS) {
        fail_msg("cannot open %s (set top_srcdir)", dir);
    }
    while (apr_dir_read(&fi, APR_FINFO_NAME | APR_FINFO_TYPE, d)
           == APR_SUCCESS) {
        size_t len = strlen(fi.name);
        json_t *c;

        if (fi.filetype != APR_REG || len < 5
            || strcmp(fi.name + len - 5, ".json") != 0
            || strncmp(fi.name, prefix, strlen(prefix)) != 0) {
            continue;
        }
        c = json_load_file(apr_pstrcat(pool, dir, "/", fi.name, NULL),
                           JSON_REJECT_DUPLICATES, &err);
        if (!c) {
            fail_msg("%s/%s: %s", dir, fi.name, err.text);
        }
        check_case(fi.name, c);
        json_decref(c);
        n++;
    }
    apr_dir_close(d);
    return n;
}

/* Every rule has a passing and a failing case: at least this many. */
static void test_cases_common(void **state)
{
    assert_true(each_case("any-") >= 30);
}

static void test_cases_a(void **state)
{
    assert_true(each_case("a-") >= 8);
    assert_true(each_case("aaaa-") >= 5);
}

static void test_cases_ns(void **state)
{
    assert_true(each_case("ns-") >= 5);
}

static void test_cases_mx(void **state)
{
    assert_true(each_case("mx-") >= 12);
}

static void test_cases_cname(void **state)
{
    assert_true(each_case("cname-") >= 6);
}

static void test_cases_txt(void **state)
{
    assert_true(each_case("txt-") >= 7);
}

static void test_cases_srv(void **state)
{
    assert_true(each_case("srv-") >= 9);
}

static void test_cases_ptr(void **state)
{
    assert_true(each_case("ptr-") >= 5);
}

static void test_cases_caa(void **state)
{
    assert_true(each_case("caa-") >= 14);
}

static void test_cases_update(void **state)
{
    assert_true(each_case("put-") >= 8);
}

/* ------------------------------------------------------------------------
 * Rules a JSON file cannot carry: text that is not UTF-8 never reaches
 * the validator (the body decoder refuses it), NUL bytes do not either;
 * the longest values are built here rather than stored.
 * ------------------------------------------------------------------------ */

static int read_body(json_t *body, const acct_record *current,
                     acct_record *out, acct_resp *resp)
{
    acct_record_zone zone = {"example.com", "192.0.2.50"};
    acct_req req;

    memset(&req, 0, sizeof(req));
    req.pool = pool;
    req.body = body;
    acct_resp_init(resp, pool);
    return record_read(&req, resp, current, &zone, out);
}

static void test_target_lengths(void **state)
{
    char *text = apr_palloc(pool, 65537);
    acct_record rec;
    acct_resp resp;
    json_t *body;

    memset(text, 'x', 65536);
    text[65536] = '\0';
    body = json_pack("{s:s, s:s}", "type", "TXT", "target", text);
    assert_int_equal(read_body(body, NULL, &rec, &resp), -1);
    assert_string_equal(json_string_value(json_object_get(
        json_array_get(resp.errors, 0), "field")), "target");
    json_decref(body);
    /* Within the contract's 65535 characters, but no DNS record could hold
     * it once split into 255-byte strings. */
    text[ACCT_RECORD_TXT_BYTES_MAX + 1] = '\0';
    body = json_pack("{s:s, s:s}", "type", "TXT", "target", text);
    assert_int_equal(read_body(body, NULL, &rec, &resp), -1);
    assert_non_null(strstr(json_string_value(json_object_get(
        json_array_get(resp.errors, 0), "reason")), "too long for DNS"));
    json_decref(body);
    text[ACCT_RECORD_TXT_BYTES_MAX] = '\0';
    body = json_pack("{s:s, s:s}", "type", "TXT", "target", text);
    assert_int_equal(read_body(body, NULL, &rec, &resp), 0);
    assert_int_equal(strlen(rec.target), ACCT_RECORD_TXT_BYTES_MAX);
    json_decref(body);
}

/* The validator's own result: its problems, in the order a client reads
 * them, and nothing answered (it knows no response). */
static void test_read_problems(void **state)
{
    static const char *const want[][2] = {
        {"ttl_sec", "ttl_sec must be a whole number of seconds"},
        {"weight", "weight is only valid for SRV records"},
        {"name", "@ is not a valid name: use an empty string for the "
                 "domain itself"},
        {"target", "target must be an IPv4 address, such as 192.0.2.10, or "
                   "[remote_addr]"},
    };
    acct_record_zone zone = {"example.com", NULL};
    acct_problems *pb = acct_problems_make(pool);
    acct_record rec;
    acct_req req;
    size_t i;

    memset(&req, 0, sizeof(req));
    req.pool = pool;
    req.body = json_pack("{s:s, s:s, s:s, s:i, s:f, s:s}", "type", "A",
                         "name", "@", "target", "192.0.2.300", "weight", 5,
                         "ttl_sec", 1.5, "color", "blue");
    /* "color", not a field of a record, is ignored (docs/conventions.md,
     * "Today's
     * clients") */
    acct_fields_settable(&req, pb, acct_record_fields, NULL);
    assert_int_equal(acct_record_read(&req, pb, NULL, &zone, &rec), -1);
    assert_int_equal(acct_problems_count(pb), sizeof(want) / sizeof(want[0]));
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        assert_string_equal(acct_problem_field(pb, (int)i), want[i][0]);
        assert_string_equal(acct_problem_reason(pb, (int)i), want[i][1]);
    }
    json_decref(req.body);

    /* A valid record adds none; an SRV's missing parts are named each (its
     * protocol defaults to tcp). */
    pb = acct_problems_make(pool);
    req.body = json_pack("{s:s, s:s}", "type", "A", "target", "192.0.2.3");
    assert_int_equal(acct_record_read(&req, pb, NULL, &zone, &rec), 0);
    assert_false(acct_problems_any(pb));
    json_decref(req.body);
    req.body = json_pack("{s:s, s:s}", "type", "SRV", "target", "sip");
    assert_int_equal(acct_record_read(&req, pb, NULL, &zone, &rec), -1);
    assert_int_equal(acct_problems_count(pb), 4);
    assert_string_equal(acct_problem_field(pb, 0), "service");
    assert_string_equal(acct_problem_field(pb, 1), "priority");
    assert_string_equal(acct_problem_field(pb, 2), "weight");
    assert_string_equal(acct_problem_field(pb, 3), "port");
    json_decref(req.body);
}

static void test_embedded_nul(void **state)
{
    acct_record rec;
    acct_resp resp;
    json_t *body = json_pack("{s:s, s:s#}", "type", "TXT", "target",
                             "a\0b", (size_t)3);

    assert_int_equal(read_body(body, NULL, &rec, &resp), -1);
    json_decref(body);
}

/* ------------------------------------------------------------------------
 * Handlers
 * ------------------------------------------------------------------------ */

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

static const char *add_domain(unit_db *db, apr_int64_t account,
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

static int db_setup(void **state)
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

static int db_teardown(void **state)
{
    unit_db_close(((fixture *)*state)->db);
    return unit_pool_teardown(state);
}

/* JSON written with single quotes, for readable bodies in C strings. */
static const char *js(const char *text)
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
static json_t *call(fixture *f, const acct_principal *who, acct_handler *h,
                    const char *domain, const char *record, const char *body,
                    int *status)
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
static const char *create(fixture *f, const char *domain, const char *body)
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
static const char *refusal(fixture *f, acct_handler *h, const char *domain,
                           const char *record, const char *body)
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

static apr_int64_t domain_number(fixture *f, const char *domain,
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

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static void test_create_read_all_types(void **state)
{
    /* Each body, and what differs in the stored record from an A record
     * at the apex whose every other field is unused. */
    static const struct {
        const char *body;
        const char *expect;
    } cases[] = {
        {"{'type':'A','name':'www.example.com','target':'[remote_addr]',"
         "'ttl_sec':301}",
         "{'name':'www','target':'192.0.2.50','ttl_sec':3600}"},
        {"{'type':'AAAA','name':'','target':'2001:DB8::0:1'}",
         "{'type':'AAAA','target':'2001:db8::1'}"},
        {"{'type':'NS','name':'sub','target':'ns1.example.net.'}",
         "{'type':'NS','name':'sub','target':'ns1.example.net'}"},
        {"{'type':'MX','name':'','target':'mail.example.com','priority':10}",
         "{'type':'MX','target':'mail.example.com','priority':10}"},
        {"{'type':'CNAME','name':'docs','target':'example.net.'}",
         "{'type':'CNAME','name':'docs','target':'example.net'}"},
        {"{'type':'TXT','name':'_dmarc','target':'v=DMARC1; p=none'}",
         "{'type':'TXT','name':'_dmarc','target':'v=DMARC1; p=none'}"},
        {"{'type':'SRV','service':'_sip','protocol':'tcp','priority':5,"
         "'weight':10,'port':5060,'target':'sip'}",
         "{'type':'SRV','name':'_sip._tcp','target':'sip.example.com',"
         "'priority':5,'weight':10,'port':5060,'service':'sip',"
         "'protocol':'tcp'}"},
        {"{'type':'PTR','name':'10','target':'host.example.com.'}",
         "{'type':'PTR','name':'10','target':'host.example.com'}"},
        {"{'type':'CAA','tag':'issue','target':'letsencrypt.org'}",
         "{'type':'CAA','target':'letsencrypt.org','tag':'issue'}"},
    };
    fixture *f = *state;
    json_t *doc, *want, *diff, *list;
    const char *id;
    size_t i;
    int status;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        id = create(f, f->domain, cases[i].body);
        doc = call(f, &f->who, api_record_get, f->domain, id, NULL, &status);
        assert_int_equal(status, 200);
        UNIT_CHECK_CASE(i, json_is_string(json_object_get(doc, "created"))
                           && json_is_string(json_object_get(doc, "updated")));
        UNIT_CHECK_CASE(i, json_object_size(doc) == 13);
        json_object_del(doc, "id");
        json_object_del(doc, "created");
        json_object_del(doc, "updated");
        want = json_loads(js("{'type':'A','name':'','target':'',"
                             "'priority':0,'weight':0,'port':0,"
                             "'service':null,'protocol':null,'ttl_sec':0,"
                             "'tag':null}"), 0, NULL);
        diff = json_loads(js(cases[i].expect), 0, NULL);
        json_object_update(want, diff);
        json_decref(diff);
        UNIT_CHECKF(json_equal(doc, want), "case %u: %s", (unsigned)i,
                    dump(doc));
        json_decref(want);
    }
    doc = call(f, &f->who, api_records_list, f->domain, NULL, NULL, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_integer_value(json_object_get(doc, "results")), 9);
    list = json_object_get(doc, "data");
    assert_string_equal(str(json_array_get(list, 0), "type"), "A");
    assert_string_equal(str(json_array_get(list, 8), "type"), "CAA");
    assert_int_equal(domain_number(f, f->domain, "record_count"), 9);
}

static void test_validation_answers(void **state)
{
    fixture *f = *state;
    json_t *doc;
    int status;

    /* every problem at once, each naming its field ("color", not a field
     * of a record, is ignored: docs/conventions.md, "Today's clients") */
    doc = call(f, &f->who, api_record_create, f->domain, NULL,
               "{'type':'A','name':'@','target':'::1','port':80,"
               "'tag':'issue','ttl_sec':1.5,'color':'red'}", &status);
    assert_int_equal(status, 400);
    assert_int_equal(json_array_size(json_object_get(doc, "errors")), 5);
    assert_string_equal(refusal(f, api_record_create, f->domain, NULL,
                                "{'name':'x','target':'192.0.2.1'}"),
                        "type|type is required");
    assert_int_equal(domain_number(f, f->domain, "record_count"), 0);
}

static void test_cname_unique(void **state)
{
    fixture *f = *state;
    const char *a, *cname;
    json_t *doc;
    int status;

    a = create(f, f->domain, "{'type':'A','name':'www','target':'192.0.2.1'}");
    /* a CNAME cannot join other records at a name, whatever the case */
    assert_string_equal(refusal(f, api_record_create, f->domain, NULL,
                                "{'type':'CNAME','name':'WWW',"
                                "'target':'example.net'}"),
                        "name|Other records already have this name: a CNAME "
                        "record must be the only record at its name");
    cname = create(f, f->domain,
                   "{'type':'CNAME','name':'docs','target':'example.net'}");
    /* nor can any record join a CNAME, TXT and another CNAME included */
    assert_string_equal(refusal(f, api_record_create, f->domain, NULL,
                                "{'type':'TXT','name':'docs.example.com.',"
                                "'target':'x'}"),
                        "name|A CNAME record already has this name: no other "
                        "record can share it");
    assert_string_equal(refusal(f, api_record_create, f->domain, NULL,
                                "{'type':'CNAME','name':'Docs',"
                                "'target':'example.org'}"),
                        "name|Other records already have this name: a CNAME "
                        "record must be the only record at its name");
    /* renames run the same checks; a record never conflicts with itself */
    assert_string_equal(refusal(f, api_record_update, f->domain, a,
                                "{'name':'docs'}"),
                        "name|A CNAME record already has this name: no other "
                        "record can share it");
    assert_string_equal(refusal(f, api_record_update, f->domain, cname,
                                "{'name':'www'}"),
                        "name|Other records already have this name: a CNAME "
                        "record must be the only record at its name");
    create(f, f->domain, "{'type':'A','name':'other','target':'192.0.2.1'}");
    create(f, f->second, "{'type':'A','name':'docs','target':'192.0.2.1'}");
    doc = call(f, &f->who, api_record_update, f->domain, cname,
               "{'target':'example.com.example.net'}", &status);
    assert_int_equal(status, 200);
    assert_string_equal(str(doc, "target"), "example.com.example.net");
    /* the refusals rolled back: three records, no more */
    assert_int_equal(domain_number(f, f->domain, "record_count"), 3);
}

static void test_null_mx(void **state)
{
    fixture *f = *state;
    const char *mx, *null_mx;
    int status;
    json_t *doc;

    mx = create(f, f->domain,
                "{'type':'MX','target':'mail.example.com','priority':10}");
    assert_string_equal(refusal(f, api_record_create, f->domain, NULL,
                                "{'type':'MX','name':'',"
                                "'target':'','priority':0}"),
                        "target|A Null MX record cannot be added while the "
                        "domain has other MX records: remove them first");
    doc = call(f, &f->who, api_record_delete, f->domain, mx, NULL, &status);
    assert_int_equal(status, 200);
    null_mx = create(f, f->domain,
                     "{'type':'MX','name':'','target':'','priority':0}");
    doc = call(f, &f->who, api_record_get, f->domain, null_mx, NULL, &status);
    assert_string_equal(str(doc, "target"), "");
    assert_string_equal(str(doc, "name"), "");
    assert_string_equal(refusal(f, api_record_create, f->domain, NULL,
                                "{'type':'MX','name':'mail',"
                                "'target':'mx.example.net'}"),
                        "target|The domain has a Null MX record: no other MX "
                        "record can be added while it exists");
    /* the Null MX itself may become an ordinary MX, and back */
    doc = call(f, &f->who, api_record_update, f->domain, null_mx,
               "{'target':'mx.example.net','priority':5}", &status);
    assert_int_equal(status, 200);
    mx = create(f, f->domain,
                "{'type':'MX','name':'lists','target':'mx.example.net'}");
    assert_string_equal(refusal(f, api_record_update, f->domain, null_mx,
                                "{'target':'','priority':0}"),
                        "target|A Null MX record cannot be added while the "
                        "domain has other MX records: remove them first");
    doc = call(f, &f->who, api_record_delete, f->domain, mx, NULL, &status);
    doc = call(f, &f->who, api_record_update, f->domain, null_mx,
               "{'target':'','priority':0}", &status);
    assert_int_equal(status, 200);
    /* other domains are not concerned */
    create(f, f->second, "{'type':'MX','target':'mx.example.net'}");
}

static void test_slave_and_not_found(void **state)
{
    fixture *f = *state;
    const char *id, *foreign;
    int status;
    json_t *doc;

    assert_string_equal(refusal(f, api_record_create, f->slave, NULL,
                                "{'type':'A','name':'x',"
                                "'target':'192.0.2.1'}"),
                        "-|Records of a slave domain cannot be added or "
                        "changed: a slave domain copies its records from its "
                        "master");
    id = create(f, f->domain, "{'type':'A','name':'x','target':'192.0.2.1'}");
    foreign = acct_i64(pool, json_integer_value(
        json_object_get(call(f, &f->other, api_record_create, f->foreign, NULL,
                             "{'type':'A','target':'192.0.2.9'}",
                             &status), "id")));
    assert_int_equal(status, 200);
    /* a record id of another domain, even of the same account, is a 404 */
    call(f, &f->who, api_record_get, f->second, id, NULL, &status);
    assert_int_equal(status, 404);
    call(f, &f->who, api_record_update, f->second, id,
         "{'target':'192.0.2.2'}", &status);
    assert_int_equal(status, 404);
    call(f, &f->who, api_record_delete, f->second, id, NULL, &status);
    assert_int_equal(status, 404);
    call(f, &f->who, api_record_update, f->slave, id,
         "{'target':'192.0.2.2'}", &status);
    assert_int_equal(status, 400);
    /* another account's domain and record: 404 however addressed */
    call(f, &f->who, api_record_get, f->foreign, foreign, NULL, &status);
    assert_int_equal(status, 404);
    call(f, &f->who, api_records_list, f->foreign, NULL, NULL, &status);
    assert_int_equal(status, 404);
    call(f, &f->who, api_record_create, f->foreign, NULL,
         "{'type':'A','target':'192.0.2.1'}", &status);
    assert_int_equal(status, 404);
    call(f, &f->who, api_record_get, f->domain, foreign, NULL, &status);
    assert_int_equal(status, 404);
    call(f, &f->who, api_record_get, f->domain, "abc", NULL, &status);
    assert_int_equal(status, 404);
    call(f, &f->who, api_record_delete, f->domain, "0", NULL, &status);
    assert_int_equal(status, 404);
    doc = call(f, &f->who, api_record_get, f->domain, id, NULL, &status);
    assert_int_equal(status, 200);
    assert_string_equal(str(doc, "target"), "192.0.2.1");
    assert_int_equal(domain_number(f, f->domain, "record_count"), 1);
}

static void test_limit_serial_delete(void **state)
{
    fixture *f = *state;
    const char *args[2], *id, *last;
    apr_int64_t serial;
    int status;

    args[0] = acct_i64(pool, ACCT_RECORD_LIMIT - 2);
    args[1] = f->domain;
    assert_int_equal(acct_store_exec(f->db->store, f->db->pool,
                                     &q_domain_count, NULL, 2, args),
                     ACCT_STORE_OK);
    serial = domain_number(f, f->domain, "serial");
    id = create(f, f->domain, "{'type':'TXT','target':'one'}");
    assert_true(domain_number(f, f->domain, "serial") > serial);
    last = create(f, f->domain, "{'type':'TXT','target':'two'}");
    assert_int_equal(domain_number(f, f->domain, "record_count"),
                     ACCT_RECORD_LIMIT);
    assert_string_equal(refusal(f, api_record_create, f->domain, NULL,
                                "{'type':'TXT','target':'three'}"),
                        "-|This domain already has 12000 records, the most a "
                        "domain can hold: delete some before adding more");
    /* updates are not limited; every change bumps the serial */
    serial = domain_number(f, f->domain, "serial");
    call(f, &f->who, api_record_update, f->domain, id, "{'target':'uno'}",
         &status);
    assert_int_equal(status, 200);
    assert_true(domain_number(f, f->domain, "serial") > serial);
    serial = domain_number(f, f->domain, "serial");
    call(f, &f->who, api_record_delete, f->domain, last, NULL, &status);
    assert_int_equal(status, 200);
    assert_true(domain_number(f, f->domain, "serial") > serial);
    assert_int_equal(domain_number(f, f->domain, "record_count"),
                     ACCT_RECORD_LIMIT - 1);
    create(f, f->domain, "{'type':'TXT','target':'three'}");
    /* deleting twice: the second is a 404 and changes nothing */
    call(f, &f->who, api_record_delete, f->domain, last, NULL, &status);
    assert_int_equal(status, 404);
    assert_int_equal(domain_number(f, f->domain, "record_count"),
                     ACCT_RECORD_LIMIT);
}

static void test_update_rules(void **state)
{
    fixture *f = *state;
    const char *srv, *a;
    int status;
    json_t *doc;

    srv = create(f, f->domain,
                 "{'type':'SRV','service':'sip','protocol':'udp','priority':1,"
                 "'weight':2,'port':5060,'target':'sip'}");
    doc = call(f, &f->who, api_record_update, f->domain, srv,
               "{'service':'_xmpp','protocol':'_tcp','name':'ignored'}",
               &status);
    assert_int_equal(status, 200);
    assert_string_equal(str(doc, "name"), "_xmpp._tcp");
    assert_string_equal(str(doc, "target"), "sip.example.com");
    assert_int_equal(json_integer_value(json_object_get(doc, "port")), 5060);
    assert_string_equal(refusal(f, api_record_update, f->domain, srv,
                                "{'type':'TXT'}"),
                        "type|type cannot be changed: delete the record and "
                        "create one of the new type");
    assert_string_equal(refusal(f, api_record_update, f->domain, srv,
                                "{'port':70000}"),
                        "port|port must be an integer from 0 to 65535");
    /* a record sent back as it was read is accepted (clients do that) */
    a = create(f, f->domain,
               "{'type':'A','name':'host','target':'192.0.2.7'}");
    doc = call(f, &f->who, api_record_get, f->domain, a, NULL, &status);
    json_object_del(doc, "id");
    json_object_del(doc, "created");
    json_object_del(doc, "updated");
    json_object_set_new(doc, "ttl_sec", json_integer(7000));
    doc = call(f, &f->who, api_record_update, f->domain, a, dump(doc),
               &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_integer_value(json_object_get(doc, "ttl_sec")),
                     7200);
    assert_string_equal(str(doc, "name"), "host");
    assert_string_equal(refusal(f, api_record_update, f->domain, a,
                                "{'port':80}"),
                        "port|port is only valid for SRV records");
    /* what a record shows but a PUT cannot change: ignored when equal to
     * the stored value, refused by name when not; unknown keys ignored
     * (docs/conventions.md, "Today's clients") */
    doc = call(f, &f->who, api_record_update, f->domain, a,
               apr_psprintf(pool, "{'id':%s,'domainId':1,'recordId':%s,"
                            "'target':'192.0.2.8'}", a, a), &status);
    assert_int_equal(status, 200);
    assert_string_equal(str(doc, "target"), "192.0.2.8");
    assert_string_equal(refusal(f, api_record_update, f->domain, a,
                                "{'id':999999,'target':'192.0.2.9'}"),
                        "id|id cannot be changed");
    assert_string_equal(refusal(f, api_record_update, f->domain, a,
                                "{'created':'2000-01-01T00:00:00'}"),
                        "created|created cannot be changed");
}

static void test_list_filter_pages(void **state)
{
    fixture *f = *state;
    acct_req *req;
    json_t *doc;
    int i, status;

    for (i = 0; i < 30; i++) {
        create(f, f->domain,
               apr_psprintf(pool, "{'type':'%s','name':'h%d','target':'%s'}",
                            i % 3 ? "A" : "TXT", i,
                            i % 3 ? "192.0.2.1" : "text"));
    }
    req = unit_req(f->db, &f->who);
    req->params[0] = f->domain;
    req->filter = js("{'type':'TXT'}");
    doc = json_loads(unit_call(req, api_records_list, &status), 0, NULL);
    assert_int_equal(status, 200);
    assert_int_equal(json_integer_value(json_object_get(doc, "results")), 10);
    json_decref(doc);
    req->filter = js("{'name':'h7'}");
    doc = json_loads(unit_call(req, api_records_list, &status), 0, NULL);
    assert_int_equal(json_integer_value(json_object_get(doc, "results")), 1);
    json_decref(doc);
    req->filter = js("{'zone':0}");
    doc = json_loads(unit_call(req, api_records_list, &status), 0, NULL);
    assert_int_equal(status, 400);
    json_decref(doc);
    req->filter = NULL;
    apr_table_set(req->query, "page_size", "25");
    apr_table_set(req->query, "page", "2");
    doc = json_loads(unit_call(req, api_records_list, &status), 0, NULL);
    assert_int_equal(status, 200);
    assert_int_equal(json_integer_value(json_object_get(doc, "pages")), 2);
    assert_int_equal(json_array_size(json_object_get(doc, "data")), 5);
    assert_string_equal(str(json_array_get(json_object_get(doc, "data"), 0),
                            "name"), "h25");
    json_decref(doc);
}

static void test_restricted(void **state)
{
    fixture *f = *state;
    acct_principal limited;
    const char *args[3];
    int status;

    unit_identity(f->db, "rita", 1, "*", &limited);
    /* rita is in her own account: our domain is not found for her */
    call(f, &limited, api_records_list, f->domain, NULL, NULL, &status);
    assert_int_equal(status, 404);
    /* a read_only grant in the same account: reads yes, writes 403 */
    limited.account_id = f->who.account_id;
    call(f, &limited, api_records_list, f->domain, NULL, NULL, &status);
    assert_int_equal(status, 403);
    args[0] = acct_i64(pool, limited.user_id);
    args[1] = f->domain;
    args[2] = "read_only";
    assert_int_equal(acct_store_exec(f->db->store, f->db->pool, &q_grant, NULL,
                                     3, args), ACCT_STORE_OK);
    call(f, &limited, api_records_list, f->domain, NULL, NULL, &status);
    assert_int_equal(status, 200);
    call(f, &limited, api_record_create, f->domain, NULL,
         "{'type':'A','target':'192.0.2.1'}", &status);
    assert_int_equal(status, 403);
}

#define DB_TEST(f) cmocka_unit_test_setup_teardown(f, db_setup, db_teardown)

/* ------------------------------------------------------------------------
 * The storage functions on their own (acct_domain's take and claim,
 * acct_record's statements), as the handlers, clone and import use them
 * ------------------------------------------------------------------------ */

static apr_int64_t id_number(const char *id)
{
    apr_int64_t n = 0;

    assert_int_equal(acct_parse_i64(id, &n), 0);
    return n;
}

static acct_record stored(const char *type, const char *name,
                          const char *target, apr_int64_t priority)
{
    acct_record r;

    memset(&r, 0, sizeof(r));
    r.type = type;
    r.name = name;
    r.target = target;
    r.priority = priority;
    return r;
}

static void test_domain_take_and_claim(void **state)
{
    fixture *f = *state;
    acct_store *st = f->db->store;
    apr_pool_t *p = f->db->pool;
    apr_int64_t dom = id_number(f->domain), slave = id_number(f->slave);
    acct_rows *rows = NULL;

    /* A slot of a master of the account: the row back, count and serial
     * moved in the same write. */
    assert_int_equal(acct_domain_claim_slot(st, p, dom, f->who.account_id,
                                            5000, &rows), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    assert_int_equal(acct_domain_row_id(rows, 0), dom);
    assert_string_equal(acct_rows_get(rows, 0, "record_count"), "1");
    assert_string_equal(acct_rows_get(rows, 0, "serial"), "5000");
    assert_false(acct_domain_is_slave(rows, 0));
    /* No slot on a slave, on another account's domain, or when full. */
    assert_int_equal(acct_domain_claim_slot(st, p, slave, f->who.account_id,
                                            5000, &rows), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 0);
    assert_int_equal(acct_domain_claim_slot(st, p, id_number(f->foreign),
                                            f->who.account_id, 5000, &rows),
                     ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 0);
    {
        const char *args[2] = {"12000", f->domain};

        assert_int_equal(acct_store_exec(st, p, &q_domain_count, NULL, 2,
                                         args), ACCT_STORE_OK);
    }
    assert_int_equal(acct_domain_claim_slot(st, p, dom, f->who.account_id,
                                            5000, &rows), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 0);
    assert_int_equal(domain_number(f, f->domain, "record_count"), 12000);
    /* A take returns any domain as it is now, a slave as one; the serial
     * grows by one within the same second. */
    assert_int_equal(acct_domain_take(st, p, slave, 5000, &rows),
                     ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    assert_true(acct_domain_is_slave(rows, 0));
    assert_int_equal(acct_domain_take(st, p, dom, 5000, &rows),
                     ACCT_STORE_OK);
    assert_string_equal(acct_rows_get(rows, 0, "serial"), "5001");
    assert_int_equal(acct_domain_take(st, p, dom + 1000, 5000, &rows),
                     ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 0);
}

static void test_record_store(void **state)
{
    fixture *f = *state;
    acct_store *st = f->db->store;
    apr_pool_t *p = f->db->pool;
    apr_int64_t dom = id_number(f->domain), second = id_number(f->second);
    apr_int64_t cname_id = 0, n = -1, cnames = -1, mx = -1, null_mx = -1;
    apr_int64_t fresh;
    acct_record cname = stored(ACCT_RECORD_TYPE_CNAME, "www", "example.net",
                               0);
    acct_record a = stored(ACCT_RECORD_TYPE_A, "WWW", "192.0.2.1", 0);
    acct_record null = stored(ACCT_RECORD_TYPE_MX, "", "", 0);
    acct_record mail = stored(ACCT_RECORD_TYPE_MX, "", "mail.example.net",
                              10);
    apr_array_header_t *records;
    acct_rows *rows = NULL;
    int changed = -1;

    /* create: stored as given and returned; refused (no row) by the
     * neighbour rules, which the counts then explain. */
    assert_int_equal(acct_record_create(st, p, dom, &cname, "u", 5000, &rows),
                     ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    assert_string_equal(acct_rows_get(rows, 0, "target"), "example.net");
    assert_string_equal(acct_rows_get(rows, 0, "created"), "5000");
    cname_id = id_number(acct_rows_get(rows, 0, "id"));
    assert_int_equal(acct_record_create(st, p, dom, &a, "u", 5000, &rows),
                     ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 0);
    assert_int_equal(acct_record_name_users(st, p, dom, "WWW", 0, &n,
                                            &cnames), ACCT_STORE_OK);
    assert_int_equal(n, 1);
    assert_int_equal(cnames, 1);
    assert_int_equal(acct_record_name_users(st, p, dom, "www", cname_id, &n,
                                            &cnames), ACCT_STORE_OK);
    assert_int_equal(n, 0);
    assert_int_equal(cnames, 0);
    assert_int_equal(acct_record_create(st, p, dom, &null, "u", 5000, &rows),
                     ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    assert_int_equal(acct_record_create(st, p, dom, &mail, "u", 5000, &rows),
                     ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 0);
    assert_int_equal(acct_record_mx_others(st, p, dom, 0, &mx, &null_mx),
                     ACCT_STORE_OK);
    assert_int_equal(mx, 1);
    assert_int_equal(null_mx, 1);

    /* update and get: of this domain's record only. */
    cname.target = "example.org";
    assert_int_equal(acct_record_update(st, p, second, cname_id, &cname, "u", 6000,
                                        &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 0);
    assert_int_equal(acct_record_update(st, p, dom, cname_id, &cname, "u", 6000,
                                        &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 1);
    assert_int_equal(acct_record_get(st, p, dom, cname_id, &rows),
                     ACCT_STORE_OK);
    assert_string_equal(acct_rows_get(rows, 0, "target"), "example.org");
    assert_string_equal(acct_rows_get(rows, 0, "updated"), "6000");
    assert_int_equal(acct_record_get(st, p, second, cname_id, &rows),
                     ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 0);

    /* delete frees the record's slot; nothing deleted, nothing freed. */
    {
        const char *args[2] = {"2", f->domain};

        assert_int_equal(acct_store_exec(st, p, &q_domain_count, NULL, 2,
                                         args), ACCT_STORE_OK);
    }
    assert_int_equal(acct_record_delete(st, p, second, cname_id, "u", 6000, &changed),
                     ACCT_STORE_OK);
    assert_int_equal(changed, 0);
    assert_int_equal(domain_number(f, f->domain, "record_count"), 2);
    assert_int_equal(acct_record_delete(st, p, dom, cname_id, "u", 6000, &changed),
                     ACCT_STORE_OK);
    assert_int_equal(changed, 1);
    assert_int_equal(domain_number(f, f->domain, "record_count"), 1);

    /* copy_all (clone): the records and their count; insert_all (import):
     * every record and the count. */
    assert_int_equal(acct_record_copy_all(st, p, dom, second, 7000),
                     ACCT_STORE_OK);
    assert_int_equal(domain_number(f, f->second, "record_count"), 1);
    assert_int_equal(acct_record_mx_others(st, p, second, 0, &mx, &null_mx),
                     ACCT_STORE_OK);
    assert_int_equal(null_mx, 1);
    fresh = id_number(add_domain(f->db, f->who.account_id, "fresh.example",
                                 "master"));
    records = apr_array_make(p, 2, sizeof(acct_record));
    APR_ARRAY_PUSH(records, acct_record) = a;
    APR_ARRAY_PUSH(records, acct_record) = mail;
    assert_int_equal(acct_record_insert_all(st, p, fresh, records, 8000),
                     ACCT_STORE_OK);
    assert_int_equal(domain_number(f, acct_i64(p, fresh), "record_count"), 2);
    assert_int_equal(acct_record_name_users(st, p, fresh, "www", 0, &n,
                                            &cnames), ACCT_STORE_OK);
    assert_int_equal(n, 1);
    assert_int_equal(cnames, 0);
}


/* ------------------------------------------------------------------------
 * The Record writer: its text is what jansson's compact dump gives for the
 * same document (so a client reads the same bytes as from any other answer)
 * ------------------------------------------------------------------------ */

static const char *const record_column_names[] = {
    "id", "type", "name", "target", "priority", "weight", "port", "service",
    "protocol", "ttl_sec", "tag", "created", "updated", NULL
};

static acct_rows *record_rows(const char *const (*values)[13], int n)
{
    acct_rows *rows = apr_pcalloc(pool, sizeof(*rows));

    rows->ncols = 13;
    rows->nrows = n;
    rows->names = (const char **)record_column_names;
    rows->values = apr_pcalloc(pool, sizeof(const char **) * (apr_size_t)n);
    for (int i = 0; i < n; i++) {
        rows->values[i] = (const char **)values[i];
    }
    return rows;
}

/* `text` (len bytes) parses, and jansson dumps the parsed document to the
 * very same bytes. */
static json_t *assert_canonical(const char *text, apr_size_t len)
{
    json_error_t err;
    json_t *doc = json_loadb(text, len, JSON_DECODE_ANY, &err);
    size_t dumped_len = 0;
    char *dumped;

    if (!doc) {
        fail_msg("not JSON (%s): %.*s", err.text, (int)len, text);
    }
    dumped = acct_json_dump(pool, doc, &dumped_len);
    assert_non_null(dumped);
    if (dumped_len != len || memcmp(dumped, text, len) != 0) {
        fail_msg("writer: %.*s\njansson: %s", (int)len, text, dumped);
    }
    assert_int_equal(text[len], '\0');
    return doc;
}

static void test_record_writer_is_jansson_compact(void **state)
{
    static const char *const values[][13] = {
        {"1", "A", "www", "192.0.2.1", "0", "0", "0", NULL, NULL, "300", NULL,
         "1700000000", "1700000000"},
        {"2", "TXT", "q\"uote\\back", "tab\there\nline \x01\x1f ctl",
         "10", "5", "5060", "_sip", "_tcp", "0", "issue", "0", "2147483648"},
        {"3", "TXT", "caf\xc3\xa9-\xe2\x82\xac-\xf0\x9f\x98\x80",
         "not utf-8 \xff\xfe", "-1", "65535", "x", NULL, NULL, NULL, NULL,
         NULL, "1700000001"},
    };
    acct_rows *rows = record_rows(values, 3);
    apr_size_t len = 0;
    const char *text;
    json_t *doc, *page;

    (void)state;
    for (int i = 0; i < 3; i++) {
        text = acct_record_object_text(pool, rows, i, &len);
        doc = assert_canonical(text, len);
        assert_int_equal(json_object_size(doc), 13);
        if (i == 1) {
            assert_string_equal(json_string_value(json_object_get(doc, "name")),
                                "q\"uote\\back");
            assert_int_equal(json_integer_value(json_object_get(doc, "port")),
                             5060);
        }
        if (i == 2) {
            /* Text that is not UTF-8 is null, as acct_json_str makes it;
             * a column that is not an integer is 0. */
            assert_true(json_is_null(json_object_get(doc, "target")));
            assert_int_equal(json_integer_value(json_object_get(doc, "port")),
                             0);
        }
        json_decref(doc);
    }
    text = acct_record_json_text(pool, rows, &len);
    page = assert_canonical(text, len);
    assert_int_equal(json_array_size(page), 3);
    for (int i = 0; i < 3; i++) {
        apr_size_t one_len = 0;
        const char *one = acct_record_object_text(pool, rows, i, &one_len);
        char *item = acct_json_dump(pool, json_array_get(page, (size_t)i), NULL);

        assert_string_equal(item, one);
    }
    json_decref(page);
    text = acct_record_json_text(pool, record_rows(values, 0), &len);
    assert_int_equal(len, 2);
    assert_string_equal(text, "[]");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_cases_common),
        UNIT_TEST(test_read_problems),
        UNIT_TEST(test_cases_a),
        UNIT_TEST(test_cases_ns),
        UNIT_TEST(test_cases_mx),
        UNIT_TEST(test_cases_cname),
        UNIT_TEST(test_cases_txt),
        UNIT_TEST(test_cases_srv),
        UNIT_TEST(test_cases_ptr),
        UNIT_TEST(test_cases_caa),
        UNIT_TEST(test_cases_update),
        UNIT_TEST(test_target_lengths),
        UNIT_TEST(test_embedded_nul),
        UNIT_TEST(test_record_writer_is_jansson_compact),
        DB_TEST(test_create_read_all_types),
        DB_TEST(test_validation_answers),
        DB_TEST(test_cname_unique),
        DB_TEST(test_null_mx),
        DB_TEST(test_slave_and_not_found),
        DB_TEST(test_limit_serial_delete),
        DB_TEST(test_update_rules),
        DB_TEST(test_list_filter_pages),
        DB_TEST(test_restricted),
        DB_TEST(test_domain_take_and_claim),
        DB_TEST(test_record_store),
    };

    return UNIT_DB_RUN(tests);
}
