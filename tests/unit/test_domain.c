/* DNS domains: the name and body rules (table-driven: every rule passing
 * and failing, on create and on update), the tag store, and the /domains
 * handlers on a migrated SQLite database, restricted users included. */
#include "unit.h"

#include <apr_dbd.h>
#include <apr_strings.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "unit_db.h"
#include "acct_auth.h"
#include "acct_body.h"
#include "acct_domain.h"
#include "acct_grants.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "acct_tags.h"
#include "api_handlers.h"

/* ------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------ */

static const char *repeat(apr_pool_t *p, char c, int n)
{
    char *s = apr_palloc(p, (apr_size_t)n + 1);

    memset(s, c, (size_t)n);
    s[n] = '\0';
    return s;
}

/* "a.b.c..." of `total` characters: labels of 63 joined by dots. */
static const char *long_name(apr_pool_t *p, int total)
{
    char *s = apr_palloc(p, (apr_size_t)total + 1);
    int i;

    for (i = 0; i < total; i++) {
        s[i] = (i % 64 == 63) ? '.' : 'a';
    }
    s[total] = '\0';
    if (s[total - 1] == '.') {
        s[total - 1] = 'b';
    }
    return s;
}

/* The fields of resp's error items, sorted and comma-joined ("" for none). */
static const char *error_fields(apr_pool_t *p, const acct_resp *resp)
{
    const char **names;
    const char *out = "";
    size_t i, n = resp->errors ? json_array_size(resp->errors) : 0;
    json_t *item;

    names = apr_pcalloc(p, sizeof(*names) * (n + 1));
    json_array_foreach(resp->errors, i, item) {
        const char *f = json_string_value(json_object_get(item, "field"));

        names[i] = f ? f : "(none)";
    }
    for (i = 1; i < n; i++) {           /* insertion sort: tiny lists */
        const char *k = names[i];
        size_t j = i;

        for (; j > 0 && strcmp(names[j - 1], k) > 0; j--) {
            names[j] = names[j - 1];
        }
        names[j] = k;
    }
    for (i = 0; i < n; i++) {
        out = i ? apr_pstrcat(p, out, ",", names[i], NULL) : names[i];
    }
    return out;
}

/* Sorts a comma-joined list the way error_fields does. */
static const char *sorted_fields(apr_pool_t *p, const char *list)
{
    acct_resp fake;
    char *copy = apr_pstrdup(p, list), *tok, *last = NULL;

    memset(&fake, 0, sizeof(fake));
    fake.errors = acct_json_own(p, json_array());
    for (tok = apr_strtok(copy, ",", &last); tok;
         tok = apr_strtok(NULL, ",", &last)) {
        json_t *item = json_object();

        json_object_set_new(item, "field", json_string(tok));
        json_array_append_new(fake.errors, item);
    }
    return error_fields(p, &fake);
}

/* A request for the validators alone: a pool and a body. */
static acct_req *body_req(apr_pool_t *p, const char *text)
{
    acct_req *req = apr_pcalloc(p, sizeof(*req));
    json_error_t err;

    req->pool = p;
    req->body = acct_json_own(p, json_loads(text, 0, &err));
    if (!req->body) {
        fail_msg("bad test body %s: %s", text, err.text);
    }
    return req;
}

/* ------------------------------------------------------------------------
 * Names
 * ------------------------------------------------------------------------ */

static void test_names(void **state)
{
    static const struct {
        const char *in;
        const char *out;        /* NULL: refused */
    } cases[] = {
        {"example.com", "example.com"},
        {"Example.COM", "Example.COM"},          /* the caller's case */
        {"example.com.", "example.com"},         /* one trailing dot */
        {"a.b", "a.b"},
        {"x-1.example-2.org", "x-1.example-2.org"},
        {"123.example", "123.example"},
        {"xn--bcher-kva.example", "xn--bcher-kva.example"},
        {"", NULL},
        {".", NULL},
        {"example.com..", NULL},
        {"com", NULL},                           /* one label */
        {"com.", NULL},
        {".example.com", NULL},
        {"a..example.com", NULL},
        {"-a.example.com", NULL},
        {"a-.example.com", NULL},
        {"a.example-.com", NULL},
        /* underscores, as the public API's domain pattern has them */
        {"a_b.example.com", "a_b.example.com"},
        {"_dmarc.example.com", "_dmarc.example.com"},
        {"_.example.com", "_.example.com"},
        /* no wildcard: BIND refuses a zone's NS records at a wildcard name */
        {"*.example.com", NULL},
        {"a_-.example.com", NULL},               /* hyphen last */
        {"ex ample.com", NULL},
        {"ex\xc3\xa4mple.com", NULL},            /* not ASCII */
        {"example.com/x", NULL},
    };
    const char *reason;
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *got;

        reason = NULL;
        got = acct_domain_name(pool, cases[i].in, &reason);
        if (cases[i].out) {
            UNIT_CHECKF(got && strcmp(got, cases[i].out) == 0, "%s",
                        cases[i].in);
        }
        else {
            UNIT_CHECKF(!got && reason && *reason, "%s", cases[i].in);
        }
    }
}

static void test_name_lengths(void **state)
{
    const char *reason = NULL, *n253 = long_name(pool, 253);

    assert_non_null(acct_domain_name(pool, n253, &reason));
    assert_non_null(acct_domain_name(pool, apr_pstrcat(pool, n253, ".", NULL),
                                     &reason));
    assert_null(acct_domain_name(pool, long_name(pool, 254), &reason));
    assert_string_equal(reason, "Length must be 1-253 characters");
    /* labels of 63 pass, 64 do not */
    assert_non_null(acct_domain_name(
        pool, apr_pstrcat(pool, repeat(pool, 'a', 63), ".com", NULL), &reason));
    assert_null(acct_domain_name(
        pool, apr_pstrcat(pool, repeat(pool, 'a', 64), ".com", NULL), &reason));
    assert_string_equal(acct_domain_key(pool, "Ex-AMPLE.Com"), "ex-ample.com");
}

/* ------------------------------------------------------------------------
 * Body rules
 * ------------------------------------------------------------------------ */

#define MASTER "\"domain\":\"example.com\",\"type\":\"master\"," \
               "\"soa_email\":\"hostmaster@example.com\""
#define SLAVE "\"domain\":\"example.com\",\"type\":\"slave\"," \
              "\"master_ips\":[\"192.0.2.1\"]"
/* The same without the field a case is about. */
#define MASTER_NO_EMAIL "\"domain\":\"example.com\",\"type\":\"master\""
#define SLAVE_NO_IPS "\"domain\":\"example.com\",\"type\":\"slave\""
#define NO_NAME "\"type\":\"master\",\"soa_email\":\"a@b.example\""

typedef enum { ON_CREATE, ON_MASTER, ON_SLAVE } rule_base;

static const struct {
    rule_base base;     /* a new domain, or a stored master / slave */
    const char *body;
    const char *errors; /* the fields refused, "" when the body passes */
} rules[] = {
    /* passing */
    {ON_CREATE, "{" MASTER "}", ""},
    {ON_CREATE, "{" SLAVE "}", ""},
    {ON_CREATE, "{\"domain\":\"Example.COM.\",\"type\":\"master\","
                "\"soa_email\":\"a@b.example\"}", ""},
    {ON_CREATE, "{\"domain\":\"example.com\",\"type\":\"slave\","
                "\"master_ips\":[\"2001:db8::1\",\"192.0.2.9\"]}", ""},
    {ON_CREATE, "{" MASTER ",\"status\":\"disabled\",\"description\":\"d\","
                "\"group\":\"g\",\"axfr_ips\":[\"198.51.100.4\",\"::1\"],"
                "\"master_ips\":[],\"tags\":[\"abc\",\"abc\",\"def\"],"
                "\"expire_sec\":0,\"refresh_sec\":1,\"retry_sec\":300,"
                "\"ttl_sec\":99999999}", ""},
    {ON_CREATE, "{" MASTER ",\"status\":\"active\",\"description\":\"\","
                "\"group\":null,\"axfr_ips\":null,\"tags\":null}", ""},
    {ON_CREATE, "{" MASTER ",\"tags\":[]}", ""},
    {ON_MASTER, "{}", ""},
    {ON_MASTER, "{\"domain\":\"other.example\"}", ""},
    {ON_MASTER, "{\"type\":\"slave\",\"master_ips\":[\"192.0.2.1\"]}", ""},
    {ON_MASTER, "{\"description\":null,\"group\":\"\"}", ""},
    {ON_SLAVE, "{\"soa_email\":null}", ""},
    {ON_SLAVE, "{\"type\":\"master\",\"soa_email\":\"x@y.example\"}", ""},
    {ON_SLAVE, "{\"master_ips\":[\"::ffff:192.0.2.1\"]}", ""},

    /* required */
    {ON_CREATE, "{}", "domain,type"},
    {ON_CREATE, "{" NO_NAME "}", "domain"},
    {ON_CREATE, "{\"domain\":\"example.com\"}", "type"},
    {ON_CREATE, "{\"type\":\"master\"}", "domain,soa_email"},
    /* domain */
    {ON_CREATE, "{" NO_NAME ",\"domain\":\"\"}", "domain"},
    {ON_CREATE, "{\"domain\":\"com\",\"type\":\"master\","
                "\"soa_email\":\"a@b.example\"}", "domain"},
    {ON_CREATE, "{\"domain\":\"a_b.example\",\"type\":\"master\","
                "\"soa_email\":\"a@b.example\"}", ""},
    {ON_CREATE, "{\"domain\":\"a b.example\",\"type\":\"master\","
                "\"soa_email\":\"a@b.example\"}", "domain"},
    {ON_CREATE, "{\"domain\":5,\"type\":\"master\","
                "\"soa_email\":\"a@b.example\"}", "domain"},
    {ON_CREATE, "{\"domain\":null,\"type\":\"master\","
                "\"soa_email\":\"a@b.example\"}", "domain"},
    {ON_MASTER, "{\"domain\":\"-x.example\"}", "domain"},
    {ON_MASTER, "{\"domain\":null}", ""},   /* null: unchanged */
    /* type */
    {ON_CREATE, "{\"domain\":\"example.com\",\"type\":\"primary\"}", "type"},
    {ON_CREATE, "{\"domain\":\"example.com\",\"type\":null}", "type"},
    {ON_MASTER, "{\"type\":\"Master\"}", "type"},
    /* master needs soa_email, slave needs master_ips: on the result */
    {ON_CREATE, "{" MASTER_NO_EMAIL "}", "soa_email"},
    {ON_CREATE, "{" MASTER_NO_EMAIL ",\"soa_email\":\"\"}", "soa_email"},
    {ON_CREATE, "{" MASTER_NO_EMAIL ",\"soa_email\":\"not-an-address\"}",
     "soa_email"},
    /* the e-mail form the public API's console accepts: one-label hosts,
     * dots anywhere in the local part; but no label longer than 63 */
    {ON_CREATE, "{" MASTER_NO_EMAIL ",\"soa_email\":\"a@b\"}", ""},
    {ON_CREATE, "{" MASTER_NO_EMAIL ",\"soa_email\":\".a..b.@b.example\"}",
     ""},
    {ON_CREATE, "{" MASTER_NO_EMAIL ",\"soa_email\":\"a@b_c.example\"}",
     "soa_email"},
    {ON_CREATE, "{" MASTER_NO_EMAIL ",\"soa_email\":\"a b@b.example\"}",
     "soa_email"},
    {ON_CREATE, "{" MASTER_NO_EMAIL ",\"soa_email\":\"a@-b.example\"}",
     "soa_email"},
    {ON_CREATE, "{" MASTER_NO_EMAIL ",\"soa_email\":7}", "soa_email"},
    {ON_CREATE, "{" SLAVE_NO_IPS "}", "master_ips"},
    {ON_CREATE, "{\"domain\":\"example.com\",\"type\":\"slave\","
                "\"master_ips\":[]}", "master_ips"},
    {ON_MASTER, "{\"soa_email\":null}", ""},
    {ON_MASTER, "{\"soa_email\":\"\"}", "soa_email"},   /* "" clears */
    {ON_MASTER, "{\"type\":\"slave\"}", "master_ips"},
    {ON_SLAVE, "{\"type\":\"master\"}", "soa_email"},
    {ON_SLAVE, "{\"master_ips\":[]}", "master_ips"},
    {ON_SLAVE, "{\"master_ips\":null}", ""},
    /* addresses */
    {ON_CREATE, "{" SLAVE_NO_IPS ",\"master_ips\":\"192.0.2.1\"}",
     "master_ips"},
    {ON_CREATE, "{" SLAVE_NO_IPS ",\"master_ips\":[\"192.0.2.1\",\"nope\","
                "\"::1\","
                "7,\"192.0.2.256\"]}",
     "master_ips[1],master_ips[3],master_ips[4]"},
    {ON_CREATE, "{" MASTER ",\"axfr_ips\":[\"999.1.1.1\"]}", "axfr_ips[0]"},
    {ON_CREATE, "{" MASTER ",\"axfr_ips\":{}}", "axfr_ips"},
    {ON_CREATE, "{" MASTER ",\"axfr_ips\":[\"192.0.2.1/24\"]}", "axfr_ips[0]"},
    /* status, display strings */
    {ON_CREATE, "{" MASTER ",\"status\":\"paused\"}", "status"},
    {ON_CREATE, "{" MASTER ",\"status\":null}", ""},   /* the default */
    {ON_CREATE, "{" MASTER ",\"description\":5}", "description"},
    {ON_CREATE, "{" MASTER ",\"group\":[]}", "group"},
    /* seconds */
    {ON_CREATE, "{" MASTER ",\"expire_sec\":-1}", ""},   /* rounds up to 0 */
    {ON_CREATE, "{" MASTER ",\"expire_sec\":-1.0}", "expire_sec"},
    {ON_CREATE, "{" MASTER ",\"refresh_sec\":\"300\"}", "refresh_sec"},
    {ON_CREATE, "{" MASTER ",\"retry_sec\":1.5}", "retry_sec"},
    {ON_CREATE, "{" MASTER ",\"ttl_sec\":true}", "ttl_sec"},
    {ON_MASTER, "{\"ttl_sec\":null}", ""},
    /* tags */
    {ON_CREATE, "{" MASTER ",\"tags\":\"abc\"}", "tags"},
    {ON_CREATE, "{" MASTER ",\"tags\":[\"ab\"]}", "tags[0]"},
    {ON_CREATE, "{" MASTER ",\"tags\":[\"abc\",5,\"\"]}", "tags[1],tags[2]"},
    /* unknown and read-only fields: ignored (docs/conventions.md, "Today's
     * clients"; test_update judges them against a stored domain) */
    {ON_CREATE, "{" MASTER ",\"foo\":1}", ""},
    {ON_CREATE, "{" MASTER ",\"id\":1,\"created\":\"2024-01-01T00:00:00\","
                "\"updated\":null}", ""},
    {ON_MASTER, "{\"serial\":5,\"record_count\":0}", ""},
    /* every invalid field at once */
    {ON_CREATE, "{\"domain\":\"bad\",\"type\":\"x\",\"status\":\"y\","
                "\"expire_sec\":0.5,\"tags\":[\"x\"],\"axfr_ips\":[\"z\"],"
                "\"soa_email\":\"q\",\"extra\":0}",
     "axfr_ips[0],domain,expire_sec,soa_email,status,tags[0],type"},
    {ON_MASTER, "{\"type\":\"slave\",\"master_ips\":[\"bad\"],"
                "\"description\":5}", "description,master_ips[0]"},
};

static void stored_base(rule_base base, acct_domain *d)
{
    acct_domain_init(d);
    d->domain = "stored.example";
    if (base == ON_MASTER) {
        d->type = "master";
        d->soa_email = "hostmaster@stored.example";
    }
    else {
        d->type = "slave";
        d->master_ips = "[\"192.0.2.53\"]";
        d->master_count = 1;
    }
}

/*
 * The readers add problems; these answer them into `resp` as the handlers
 * do (the body's other keys and nulls judged first, as a create judges
 * them; the tags, read by the handler after the other fields, included),
 * so the cases read the envelope the client gets.
 */
static void read_body(acct_req *req, acct_resp *resp, acct_domain *d)
{
    acct_problems *pb = acct_problems_make(pool);

    acct_fields_settable(req, pb, acct_domain_fields, NULL);
    acct_domain_read_body(req, pb, d);
    acct_tags_read_body(req, pb, "tags", &d->tags);
    acct_resp_problems(resp, pool, pb);
}

static void check_domain(acct_req *req, acct_resp *resp, const acct_domain *d)
{
    acct_problems *pb = acct_problems_make(pool);

    acct_domain_check(req, pb, d);
    acct_resp_problems(resp, pool, pb);
}

static void test_body_rules(void **state)
{
    size_t i;

    for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        acct_req *req = body_req(pool, rules[i].body);
        const char *got;
        acct_resp resp;
        acct_domain d;

        acct_resp_init(&resp, pool);
        if (rules[i].base == ON_CREATE) {
            acct_domain_init(&d);
        }
        else {
            stored_base(rules[i].base, &d);
        }
        read_body(req, &resp, &d);
        check_domain(req, &resp, &d);
        got = error_fields(pool, &resp);
        UNIT_CHECKF(strcmp(got, sorted_fields(pool, rules[i].errors)) == 0,
                    "case %u %s: refused [%s], expected [%s]", (unsigned)i,
                    rules[i].body, got, rules[i].errors);
        UNIT_CHECKF(!*rules[i].errors || resp.status == 400, "case %u",
                    (unsigned)i);
    }
}

/* The readers' own result: problems in the order found, the whole-domain
 * rules after the fields, and none of a field already refused. */
static void test_body_problems(void **state)
{
    acct_req *req = body_req(pool,
        "{\"domain\":\"-bad-\",\"type\":\"primary\",\"soa_email\":\"x\","
        "\"master_ips\":[\"192.0.2.1\",\"nope\"],\"ttl_sec\":-5.5}");
    acct_problems *pb = acct_problems_make(pool);
    acct_domain d;

    acct_domain_init(&d);
    acct_domain_read_body(req, pb, &d);
    acct_domain_check(req, pb, &d);
    assert_int_equal(acct_problems_count(pb), 5);
    assert_string_equal(acct_problem_field(pb, 0), "domain");
    assert_string_equal(acct_problem_field(pb, 1), "type");
    assert_string_equal(acct_problem_reason(pb, 1),
                        "type must be one of: master, slave");
    assert_string_equal(acct_problem_field(pb, 2), "soa_email");
    assert_string_equal(acct_problem_reason(pb, 2),
                        "soa_email must be a valid e-mail address whose "
                        "local part is at most 63 characters");
    assert_string_equal(acct_problem_field(pb, 3), "master_ips[1]");
    assert_string_equal(acct_problem_field(pb, 4), "ttl_sec");

    /* The rules on the whole come last: a master needs its soa_email. */
    req = body_req(pool, "{\"domain\":\"example.org\",\"type\":\"master\"}");
    pb = acct_problems_make(pool);
    acct_domain_init(&d);
    acct_domain_read_body(req, pb, &d);
    assert_false(acct_problems_any(pb));
    acct_domain_check(req, pb, &d);
    assert_int_equal(acct_problems_count(pb), 1);
    assert_string_equal(acct_problem_field(pb, 0), "soa_email");
    assert_string_equal(acct_problem_reason(pb, 0),
                        "soa_email required when type=master");
}

/* What passing fields become: rounded, canonical, cleared, de-duplicated. */
static void test_body_values(void **state)
{
    acct_req *req = body_req(pool,
        "{\"domain\":\"Example.ORG.\",\"type\":\"slave\","
        "\"master_ips\":[\"2001:DB8:0:0::1\",\"192.0.2.1\"],"
        "\"axfr_ips\":[\"::FFFF:192.0.2.7\"],\"description\":\"x\","
        "\"expire_sec\":1,\"refresh_sec\":300,\"retry_sec\":301,"
        "\"ttl_sec\":5000000,\"tags\":[\"bbb\",\"aaa\",\"bbb\"]}");
    acct_resp resp;
    acct_domain d;

    acct_resp_init(&resp, pool);
    acct_domain_init(&d);
    read_body(req, &resp, &d);
    check_domain(req, &resp, &d);
    assert_false(acct_resp_failed(&resp));
    assert_string_equal(d.domain, "Example.ORG");
    assert_string_equal(d.master_ips, "[\"2001:db8::1\",\"192.0.2.1\"]");
    assert_int_equal(d.master_count, 2);
    assert_string_equal(d.axfr_ips, "[\"::ffff:192.0.2.7\"]");
    assert_string_equal(d.status, "active");
    assert_string_equal(d.group, "");
    assert_null(d.soa_email);
    assert_int_equal(d.expire_sec, 30);
    assert_int_equal(d.refresh_sec, 300);
    assert_int_equal(d.retry_sec, 3600);
    assert_int_equal(d.ttl_sec, 2419200);
    assert_int_equal(d.tags->nelts, 2);
    assert_string_equal(APR_ARRAY_IDX(d.tags, 0, const char *), "bbb");
    assert_string_equal(APR_ARRAY_IDX(d.tags, 1, const char *), "aaa");

    /* "" clears the display strings and soa_email, [] the addresses; null
     * leaves a field as it is (docs/conventions.md, "Today's clients") */
    req = body_req(pool, "{\"description\":\"\",\"group\":null,"
                         "\"soa_email\":\"\",\"axfr_ips\":null,"
                         "\"master_ips\":[]}");
    d.description = "d";
    d.group = "g";
    d.soa_email = "a@b.example";
    read_body(req, &resp, &d);
    assert_false(acct_resp_failed(&resp));
    assert_string_equal(d.description, "");
    assert_string_equal(d.group, "g");
    assert_null(d.soa_email);
    assert_string_equal(d.axfr_ips, "[\"::ffff:192.0.2.7\"]");
    assert_string_equal(d.master_ips, "[]");
    assert_int_equal(d.master_count, 0);
}

/* Length limits at their edges: strings, tags, the joined addresses. */
static void test_body_limits(void **state)
{
    static const struct {
        const char *field;
        int len;
        int ok;
    } strings[] = {
        {"description", 1, 1}, {"description", 253, 1},
        {"description", 254, 0}, {"group", 50, 1}, {"group", 51, 0},
    };
    const char *ip38 = "2001:db8:1111:2222:3333:4444:5555:6666";
    json_t *ips;
    size_t i;

    for (i = 0; i < sizeof(strings) / sizeof(strings[0]); i++) {
        acct_req *req = body_req(pool, "{}");
        acct_resp resp;
        acct_domain d;

        json_object_set_new(req->body, strings[i].field,
                            json_string(repeat(pool, 'x', strings[i].len)));
        acct_resp_init(&resp, pool);
        acct_domain_init(&d);
        read_body(req, &resp, &d);
        UNIT_CHECKF(acct_resp_failed(&resp) == !strings[i].ok, "%s of %d",
                    strings[i].field, strings[i].len);
    }
    /* soa_email: 253 characters, a name an SOA RNAME can hold, pass */
    for (i = 253; i <= 254; i++) {
        acct_req *req = body_req(pool, "{}");
        acct_resp resp;
        acct_domain d;

        json_object_set_new(req->body, "soa_email", json_string(apr_pstrcat(
            pool, "a@", long_name(pool, (int)i - 2), NULL)));
        acct_resp_init(&resp, pool);
        acct_domain_init(&d);
        read_body(req, &resp, &d);
        assert_string_equal(error_fields(pool, &resp),
                            i == 253 ? "" : "soa_email");
    }
    for (i = 2; i <= 50; i += 48) { /* labels of i and i + 1: 3, 50 pass */
        acct_req *req = body_req(pool, "{}");
        acct_resp resp;
        acct_domain d;
        json_t *tags = json_array();

        json_array_append_new(tags, json_string(repeat(pool, 't', (int)i)));
        json_array_append_new(tags, json_string(repeat(pool, 't', (int)i + 1)));
        json_object_set_new(req->body, "tags", tags);
        acct_resp_init(&resp, pool);
        acct_domain_init(&d);
        read_body(req, &resp, &d);
        assert_string_equal(error_fields(pool, &resp),
                            i == 2 ? "tags[0]" : "tags[1]");
    }
    /* 38-character addresses: 26 of them joined are 26*38+25 = 1013 */
    assert_int_equal(strlen(ip38), 38);
    for (i = 25; i <= 26; i++) {
        acct_req *req = body_req(pool, "{}");
        acct_resp resp;
        acct_domain d;
        size_t k;

        ips = json_array();
        for (k = 0; k < i; k++) {
            json_array_append_new(ips, json_string(ip38));
        }
        json_object_set_new(req->body, "axfr_ips", ips);
        json_object_set_new(req->body, "master_ips", json_deep_copy(ips));
        acct_resp_init(&resp, pool);
        acct_domain_init(&d);
        read_body(req, &resp, &d);
        assert_string_equal(error_fields(pool, &resp),
                            i == 25 ? "" : "axfr_ips,master_ips");
    }
}

/* ------------------------------------------------------------------------
 * Handlers
 * ------------------------------------------------------------------------ */



/* A further user of an existing account, authenticated as the module would. */
static apr_int64_t member(unit_db *db, apr_int64_t account, const char *name,
                          int restricted, acct_principal *who)
{
    return unit_member(db, account, name, restricted,
                       apr_time_sec(apr_time_now()), who);
}

static void sql(unit_db *db, const char *fmt, ...)
{
    va_list ap;
    char *text;

    va_start(ap, fmt);
    text = apr_pvsprintf(db->pool, fmt, ap);
    va_end(ap);
    assert_int_equal(acct_store_exec_script(db->store, db->pool, text),
                     ACCT_STORE_OK);
}

static const char *sql_value(unit_db *db, const char *fmt, ...)
{
    acct_rows *rows = NULL;
    va_list ap;
    char *text;

    va_start(ap, fmt);
    text = apr_pvsprintf(db->pool, fmt, ap);
    va_end(ap);
    assert_int_equal(acct_store_select_dynamic(db->store, db->pool, text, &rows,
                                               0, NULL), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    return rows->values[0][0];
}

/* Calls a handler; the answer parsed (NULL for an empty body). */
static json_t *call(unit_db *db, const acct_principal *who, acct_handler *h,
                    const char *id, const char *body, int *status)
{
    acct_req *req = unit_req(db, who);
    const char *text;

    req->params[0] = id;
    req->body = body ? acct_json_own(db->pool, json_loads(body, 0, NULL))
                     : NULL;
    assert_true(!body || req->body);
    text = unit_call(req, h, status);
    return *text ? acct_json_own(db->pool, json_loads(text, 0, NULL)) : NULL;
}

static json_t *list(unit_db *db, const acct_principal *who, const char *filter,
                    int *status)
{
    acct_req *req = unit_req(db, who);
    const char *text;

    req->filter = filter;
    text = unit_call(req, api_domains_list, status);
    return acct_json_own(db->pool, json_loads(text, 0, NULL));
}

static const char *id_of(unit_db *db, json_t *doc)
{
    assert_true(json_is_integer(json_object_get(doc, "id")));
    return apr_psprintf(db->pool, "%" APR_INT64_T_FMT,
                        (apr_int64_t)json_integer_value(json_object_get(doc,
                                                                        "id")));
}

static const char *str(json_t *doc, const char *key)
{
    return json_string_value(json_object_get(doc, key));
}

static void assert_error(json_t *doc, int status, int want, const char *reason,
                         const char *field)
{
    json_t *e = json_array_get(json_object_get(doc, "errors"), 0);

    assert_int_equal(status, want);
    assert_string_equal(str(e, "reason"), reason);
    if (field) {
        assert_string_equal(str(e, "field"), field);
    }
    else {
        assert_null(json_object_get(e, "field"));
    }
}

static json_t *create(unit_db *db, const acct_principal *who, const char *body)
{
    int status;
    json_t *doc = call(db, who, api_domain_create, NULL, body, &status);

    assert_int_equal(status, 200);
    return doc;
}

static void test_create_and_view(void **state)
{
    static const char *const keys[] = {
        "id", "domain", "type", "status", "errors", "description", "group",
        "soa_email", "master_ips", "axfr_ips", "tags", "expire_sec",
        "refresh_sec", "retry_sec", "ttl_sec", "created", "updated", NULL
    };
    unit_db *db = *state;
    acct_principal who;
    const char *const *k, *id;
    json_t *doc, *got;
    void *iter;
    int status;

    unit_identity(db, "dana", 0, "*", &who);
    doc = create(db, &who, "{\"domain\":\"Shop.Example.\",\"type\":\"master\","
                           "\"soa_email\":\"hm@shop.example\","
                           "\"tags\":[\"zeta\",\"alpha\",\"zeta\"],"
                           "\"ttl_sec\":301,\"axfr_ips\":[\"::0:1\"]}");
    for (k = keys, iter = json_object_iter(doc); *k;
         k++, iter = json_object_iter_next(doc, iter)) {
        assert_non_null(iter);
        assert_string_equal(json_object_iter_key(iter), *k);
    }
    assert_null(iter);
    assert_string_equal(str(doc, "domain"), "Shop.Example");
    assert_string_equal(str(doc, "status"), "active");
    assert_string_equal(str(doc, "errors"), "");
    assert_string_equal(str(doc, "description"), "");
    assert_string_equal(str(doc, "group"), "");
    assert_int_equal(json_integer_value(json_object_get(doc, "ttl_sec")), 3600);
    assert_int_equal(json_integer_value(json_object_get(doc, "expire_sec")), 0);
    assert_string_equal(json_string_value(json_array_get(
        json_object_get(doc, "axfr_ips"), 0)), "::1");
    assert_int_equal(json_array_size(json_object_get(doc, "master_ips")), 0);
    assert_int_equal(json_array_size(json_object_get(doc, "tags")), 2);
    assert_string_equal(json_string_value(json_array_get(
        json_object_get(doc, "tags"), 0)), "alpha");
    assert_string_equal(str(doc, "created"), str(doc, "updated"));
    id = id_of(db, doc);
    /* created = updated = now; the serial started */
    assert_true(atoll(sql_value(db, "SELECT serial FROM domains WHERE id = %s",
                                id)) > 0);
    assert_string_equal(sql_value(db, "SELECT domain_key FROM domains"
                                      " WHERE id = %s", id), "shop.example");

    got = call(db, &who, api_domain_get, id, NULL, &status);
    assert_int_equal(status, 200);
    assert_true(json_equal(got, doc));

    /* unknown ids, ids that are not numbers */
    got = call(db, &who, api_domain_get, "999999", NULL, &status);
    assert_error(got, status, 404, "Not found", NULL);
    got = call(db, &who, api_domain_get, "abc", NULL, &status);
    assert_error(got, status, 404, "Not found", NULL);
}

static void test_unique_everywhere(void **state)
{
    unit_db *db = *state;
    acct_principal a, b;
    json_t *doc;
    int status;

    unit_identity(db, "ann", 0, "*", &a);
    unit_identity(db, "bob", 0, "*", &b);
    create(db, &a, "{\"domain\":\"taken.example\",\"type\":\"master\","
                   "\"soa_email\":\"a@taken.example\"}");
    /* case-insensitively, across accounts, with a trailing dot */
    doc = call(db, &b, api_domain_create, NULL,
               "{\"domain\":\"TAKEN.example.\",\"type\":\"slave\","
               "\"master_ips\":[\"192.0.2.1\"]}", &status);
    assert_error(doc, status, 400, ACCT_DOMAIN_R_TAKEN, "domain");
    doc = call(db, &a, api_domain_create, NULL,
               "{\"domain\":\"taken.example\",\"type\":\"master\","
               "\"soa_email\":\"a@taken.example\"}", &status);
    assert_error(doc, status, 400, ACCT_DOMAIN_R_TAKEN, "domain");
    assert_string_equal(sql_value(db, "SELECT count(*) FROM domains"
                                      " WHERE domain_key = 'taken.example'"),
                        "1");
}

static void test_update(void **state)
{
    unit_db *db = *state;
    acct_principal who, other;
    const char *id, *serial;
    json_t *doc;
    int status;

    unit_identity(db, "una", 0, "*", &who);
    unit_identity(db, "ola", 0, "*", &other);
    doc = create(db, &who, "{\"domain\":\"up.example\",\"type\":\"master\","
                           "\"soa_email\":\"a@up.example\",\"tags\":[\"one\"],"
                           "\"description\":\"first\",\"group\":\"g1\"}");
    id = id_of(db, doc);
    create(db, &other, "{\"domain\":\"elsewhere.example\",\"type\":\"master\","
                       "\"soa_email\":\"a@elsewhere.example\"}");
    sql(db, "UPDATE domains SET serial = 5, updated = 1 WHERE id = %s", id);

    doc = call(db, &who, api_domain_update, id,
               "{\"type\":\"slave\",\"master_ips\":[\"192.0.2.1\"],"
               "\"domain\":\"UP.example\",\"tags\":[\"two\",\"three\"],"
               "\"description\":\"\",\"retry_sec\":100}", &status);
    assert_int_equal(status, 200);
    assert_string_equal(str(doc, "domain"), "UP.example");   /* case only */
    assert_string_equal(str(doc, "type"), "slave");
    assert_string_equal(str(doc, "soa_email"), "a@up.example"); /* kept */
    assert_string_equal(str(doc, "description"), "");
    assert_string_equal(str(doc, "group"), "g1");
    assert_int_equal(json_integer_value(json_object_get(doc, "retry_sec")),
                     120);
    assert_string_equal(json_string_value(json_array_get(
        json_object_get(doc, "tags"), 0)), "three");
    assert_int_equal(json_array_size(json_object_get(doc, "tags")), 2);
    assert_string_not_equal(str(doc, "updated"), "1970-01-01T00:00:01");
    serial = sql_value(db, "SELECT serial FROM domains WHERE id = %s", id);
    assert_true(atoll(serial) > 5);

    /* rules on the result; nothing stored when refused */
    doc = call(db, &who, api_domain_update, id, "{\"master_ips\":[]}", &status);
    assert_error(doc, status, 400,
                 "You need at least one master DNS server IP address for "
                 "this zone.",
                 "master_ips");
    doc = call(db, &who, api_domain_update, id, "{\"id\":0,\"type\":\"master\","
               "\"soa_email\":\"\"}", &status);
    assert_int_equal(status, 400);
    assert_string_equal(error_fields(db->pool, &(acct_resp){
        .errors = json_object_get(doc, "errors")}), "id,soa_email");
    /* null leaves soa_email as it is; the id equal to the stored one is no
     * change (docs/conventions.md, "Today's clients") */
    doc = call(db, &who, api_domain_update, id,
               apr_psprintf(db->pool, "{\"id\":%s,\"soa_email\":null,"
                            "\"domainId\":%s}", id, id), &status);
    assert_int_equal(status, 200);
    assert_string_equal(str(doc, "soa_email"), "a@up.example");
    /* renaming onto another account's name */
    doc = call(db, &who, api_domain_update, id,
               "{\"domain\":\"Elsewhere.Example\"}", &status);
    assert_error(doc, status, 400, ACCT_DOMAIN_R_TAKEN, "domain");
    /* a body without fields changes nothing but the serial */
    doc = call(db, &who, api_domain_update, id, "{}", &status);
    assert_int_equal(status, 200);
    assert_string_equal(str(doc, "type"), "slave");
    assert_true(atoll(sql_value(db, "SELECT serial FROM domains WHERE id = %s",
                                id)) > atoll(serial));
    /* tags: [] removes every one */
    doc = call(db, &who, api_domain_update, id, "{\"tags\":[]}", &status);
    assert_int_equal(json_array_size(json_object_get(doc, "tags")), 0);

    /* another account's domain is not found, for every route */
    doc = call(db, &other, api_domain_update, id, "{\"group\":\"x\"}", &status);
    assert_error(doc, status, 404, "Not found", NULL);
    doc = call(db, &other, api_domain_get, id, NULL, &status);
    assert_error(doc, status, 404, "Not found", NULL);
    doc = call(db, &other, api_domain_delete, id, NULL, &status);
    assert_error(doc, status, 404, "Not found", NULL);
    doc = call(db, &other, api_domain_clone, id, "{\"domain\":\"c.example\"}",
               &status);
    assert_error(doc, status, 404, "Not found", NULL);
}

static size_t results(json_t *doc)
{
    return (size_t)json_integer_value(json_object_get(doc, "results"));
}

/* The number of results of the list through `filter`. */
static size_t counted(unit_db *db, const acct_principal *who,
                      const char *filter)
{
    int status;
    json_t *doc = list(db, who, filter, &status);

    assert_int_equal(status, 200);
    return results(doc);
}

static void test_list_and_filters(void **state)
{
    unit_db *db = *state;
    acct_principal who, other;
    json_t *doc;
    int status, i;

    unit_identity(db, "lia", 0, "*", &who);
    unit_identity(db, "max", 0, "*", &other);
    for (i = 0; i < 4; i++) {
        create(db, &who, apr_psprintf(db->pool,
            "{\"domain\":\"d%d.example\",\"type\":\"%s\","
            "\"soa_email\":\"a@b.example\",\"master_ips\":[\"192.0.2.1\"],"
            "\"group\":\"%s\",\"tags\":[%s],\"status\":\"%s\"}", i,
            i % 2 ? "slave" : "master", i < 2 ? "low" : "high",
            i == 3 ? "\"red\",\"blue\"" : i == 1 ? "\"red\"" : "",
            i == 2 ? "disabled" : "active"));
    }
    create(db, &other, "{\"domain\":\"d9.example\",\"type\":\"master\","
                       "\"soa_email\":\"a@b.example\",\"tags\":[\"red\"]}");

    doc = list(db, &who, NULL, &status);
    assert_int_equal(status, 200);
    assert_int_equal(results(doc), 4);
    assert_string_equal(str(json_array_get(json_object_get(doc, "data"), 0),
                            "domain"), "d0.example");
    /* list items are the same objects as single views */
    assert_true(json_equal(json_array_get(json_object_get(doc, "data"), 3),
                           call(db, &who, api_domain_get,
                                id_of(db, json_array_get(json_object_get(doc,
                                      "data"), 3)), NULL, &status)));
    assert_string_equal(json_string_value(json_array_get(json_object_get(
        json_array_get(json_object_get(doc, "data"), 3), "tags"), 0)), "blue");

    assert_int_equal(counted(db, &who, "{\"tags\":\"red\"}"), 2);
    assert_int_equal(counted(db, &who, "{\"tags\":\"blue\"}"), 1);
    assert_int_equal(counted(db, &who, "{\"tags\":\"nope\"}"), 0);
    assert_int_equal(counted(db, &who, "{\"tags\":{\"+neq\":\"red\"}}"), 2);
    assert_int_equal(counted(db, &who, "{\"group\":\"low\"}"), 2);
    assert_int_equal(counted(db, &who, "{\"type\":\"slave\"}"), 2);
    assert_int_equal(counted(db, &who, "{\"status\":\"disabled\"}"), 1);
    assert_int_equal(counted(db, &who, "{\"domain\":\"d2.example\"}"), 1);
    assert_int_equal(counted(db, &who, "{\"+or\":[{\"group\":\"high\"},"
                                       "{\"tags\":\"red\"}]}"), 3);
    doc = list(db, &who, "{\"+order_by\":\"domain\",\"+order\":\"desc\"}",
               &status);
    assert_string_equal(str(json_array_get(json_object_get(doc, "data"), 0),
                            "domain"), "d3.example");
    doc = list(db, &who, "{\"serial\":1}", &status);
    assert_error(doc, status, 400, "Cannot filter on serial", "X-Filter");
}

static void test_delete(void **state)
{
    unit_db *db = *state;
    acct_principal owner, limited;
    const char *id;
    json_t *doc;
    int status;
    apr_int64_t uid;

    unit_identity(db, "del", 0, "*", &owner);
    uid = member(db, owner.account_id, "del-r", 1, &limited);
    doc = create(db, &owner, "{\"domain\":\"gone.example\",\"type\":\"master\","
                             "\"soa_email\":\"a@gone.example\","
                             "\"tags\":[\"keep-me\"]}");
    id = id_of(db, doc);
    sql(db, "INSERT INTO domain_records (domain_id, type, name, target,"
            " created, updated) VALUES (%s, 'A', 'www', '192.0.2.1', 1, 1)",
        id);
    sql(db, "INSERT INTO entity_grants VALUES (%" APR_INT64_T_FMT
            ", 'domain', %s, 'read_write')", uid, id);

    doc = call(db, &owner, api_domain_delete, id, NULL, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_object_size(doc), 0);
    assert_string_equal(sql_value(db, "SELECT count(*) FROM domain_records"
                                      " WHERE domain_id = %s", id), "0");
    assert_string_equal(sql_value(db, "SELECT count(*) FROM tag_links"
                                      " WHERE entity_id = %s", id), "0");
    assert_string_equal(sql_value(db, "SELECT count(*) FROM entity_grants"
                                      " WHERE entity_id = %s", id), "0");
    /* the tag stays in the account; the name is free again */
    assert_string_equal(sql_value(db, "SELECT count(*) FROM tags"
                                      " WHERE label = 'keep-me'"), "1");
    doc = call(db, &owner, api_domain_delete, id, NULL, &status);
    assert_error(doc, status, 404, "Not found", NULL);
    create(db, &owner, "{\"domain\":\"GONE.example\",\"type\":\"master\","
                       "\"soa_email\":\"a@gone.example\"}");
}

static void test_clone(void **state)
{
    unit_db *db = *state;
    acct_principal who;
    const char *src, *copy;
    json_t *from, *doc;
    int status;

    unit_identity(db, "cleo", 0, "*", &who);
    from = create(db, &who, "{\"domain\":\"orig.example\",\"type\":\"master\","
                            "\"soa_email\":\"a@orig.example\",\"status\":"
                            "\"disabled\",\"description\":\"desc\",\"group\":"
                            "\"grp\",\"axfr_ips\":[\"192.0.2.3\"],\"tags\":"
                            "[\"tag-b\",\"tag-a\"],\"expire_sec\":300,"
                            "\"refresh_sec\":7200,\"retry_sec\":120,"
                            "\"ttl_sec\":30}");
    src = id_of(db, from);
    sql(db, "INSERT INTO domain_records (domain_id, type, name, target,"
            " priority, weight, port, service, protocol, ttl_sec, tag,"
            " created, updated) VALUES"
            " (%s, 'A', 'www', '192.0.2.1', 0, 0, 0, NULL, NULL, 300, NULL,"
            "  1, 1),"
            " (%s, 'MX', '', 'mail.orig.example', 10, 0, 0, NULL, NULL, 0,"
            "  NULL, 1, 1),"
            " (%s, 'SRV', '_sip._tcp', 'sip.orig.example', 5, 6, 5060, 'sip',"
            "  'tcp', 0, NULL, 1, 1),"
            " (%s, 'CAA', '', 'ca.example', 0, 0, 0, NULL, NULL, 0, 'issue',"
            "  1, 1)",
            src, src, src, src);
    sql(db, "UPDATE domains SET record_count = 4 WHERE id = %s", src);

    doc = call(db, &who, api_domain_clone, src, "{\"domain\":\"Copy.Example\"}",
               &status);
    assert_int_equal(status, 200);
    copy = id_of(db, doc);
    assert_string_not_equal(copy, src);
    assert_string_equal(str(doc, "domain"), "Copy.Example");
    /* every setting but the name and the times */
    json_object_del(from, "id");
    json_object_del(from, "domain");
    json_object_del(from, "created");
    json_object_del(from, "updated");
    json_object_del(doc, "id");
    json_object_del(doc, "domain");
    json_object_del(doc, "created");
    json_object_del(doc, "updated");
    assert_true(json_equal(from, doc));
    /* the records, field for field, and their count */
    assert_string_equal(sql_value(db, "SELECT record_count FROM domains"
                                      " WHERE id = %s", copy), "4");
    assert_string_equal(sql_value(db,
        "SELECT count(*) FROM domain_records c JOIN domain_records o"
        " ON o.domain_id = %s AND c.type = o.type AND c.name = o.name"
        " AND c.target = o.target AND c.priority = o.priority"
        " AND c.weight = o.weight AND c.port = o.port"
        " AND c.service IS o.service AND c.protocol IS o.protocol"
        " AND c.ttl_sec = o.ttl_sec AND c.tag IS o.tag"
        " WHERE c.domain_id = %s", src, copy), "4");
    assert_true(atoll(sql_value(db, "SELECT serial FROM domains WHERE id = %s",
                                copy)) > 0);

    /* the name follows the create rules */
    doc = call(db, &who, api_domain_clone, src,
               "{\"domain\":\"copy.example.\"}", &status);
    assert_error(doc, status, 400, ACCT_DOMAIN_R_TAKEN, "domain");
    doc = call(db, &who, api_domain_clone, src, "{}", &status);
    assert_error(doc, status, 400, "domain is required", "domain");
    /* a clone sets the name only: the other keys are ignored */
    doc = call(db, &who, api_domain_clone, src, "{\"domain\":\"x\","
               "\"type\":\"slave\"}", &status);
    assert_int_equal(status, 400);
    assert_string_equal(error_fields(db->pool, &(acct_resp){
        .errors = json_object_get(doc, "errors")}), "domain");
    doc = call(db, &who, api_domain_clone, "424242",
               "{\"domain\":\"n.example\"}", &status);
    assert_error(doc, status, 404, "Not found", NULL);
}

static void grant(unit_db *db, apr_int64_t uid, const char *id,
                  const char *level)
{
    sql(db, "INSERT INTO entity_grants (user_id, entity_type, entity_id,"
            " permissions) VALUES (%" APR_INT64_T_FMT ", 'domain', %s, '%s')",
        uid, id, level);
}

static void test_restricted_users(void **state)
{
    unit_db *db = *state;
    acct_principal owner, ro, creator;
    const char *d1, *d2, *d3, *mine;
    apr_int64_t ro_uid, creator_uid;
    json_t *doc;
    int status;

    unit_identity(db, "boss", 0, "*", &owner);
    ro_uid = member(db, owner.account_id, "reader", 1, &ro);
    creator_uid = member(db, owner.account_id, "maker", 1, &creator);
    d1 = id_of(db, create(db, &owner, "{\"domain\":\"r1.example\",\"type\":"
                          "\"master\",\"soa_email\":\"a@b.example\"}"));
    d2 = id_of(db, create(db, &owner, "{\"domain\":\"r2.example\",\"type\":"
                          "\"master\",\"soa_email\":\"a@b.example\"}"));
    d3 = id_of(db, create(db, &owner, "{\"domain\":\"r3.example\",\"type\":"
                          "\"master\",\"soa_email\":\"a@b.example\"}"));
    grant(db, ro_uid, d1, "read_only");
    grant(db, ro_uid, d2, "read_write");

    /* the list shows granted domains only */
    doc = list(db, &ro, NULL, &status);
    assert_int_equal(status, 200);
    assert_int_equal(results(doc), 2);
    assert_int_equal(results(list(db, &owner, NULL, &status)), 3);

    /* read_only: view and clone source; no changes */
    call(db, &ro, api_domain_get, d1, NULL, &status);
    assert_int_equal(status, 200);
    doc = call(db, &ro, api_domain_update, d1, "{\"group\":\"x\"}", &status);
    assert_error(doc, status, 403, "Unauthorized", NULL);
    doc = call(db, &ro, api_domain_delete, d1, NULL, &status);
    assert_error(doc, status, 403, "Unauthorized", NULL);
    /* no grant at all */
    doc = call(db, &ro, api_domain_get, d3, NULL, &status);
    assert_error(doc, status, 403, "Unauthorized", NULL);
    /* read_write: changes */
    call(db, &ro, api_domain_update, d2, "{\"group\":\"x\"}", &status);
    assert_int_equal(status, 200);
    /* creating needs add_domains, for create and clone alike */
    doc = call(db, &ro, api_domain_create, NULL, "{\"domain\":\"rn.example\","
               "\"type\":\"master\",\"soa_email\":\"a@b.example\"}", &status);
    assert_error(doc, status, 403, "Unauthorized", NULL);
    doc = call(db, &ro, api_domain_clone, d1, "{\"domain\":\"rc.example\"}",
               &status);
    assert_error(doc, status, 403, "Unauthorized", NULL);

    sql(db, "INSERT INTO user_global_grants (user_id, add_domains)"
            " VALUES (%" APR_INT64_T_FMT ", 1)", creator_uid);
    mine = id_of(db, create(db, &creator,
                            "{\"domain\":\"rm.example\",\"type\":\"master\","
                            "\"soa_email\":\"a@b.example\"}"));
    assert_string_equal(sql_value(db, "SELECT permissions FROM entity_grants"
                                      " WHERE user_id = %" APR_INT64_T_FMT
                                      " AND entity_id = %s", creator_uid, mine),
                        "read_write");
    call(db, &creator, api_domain_update, mine, "{\"group\":\"mine\"}",
         &status);
    assert_int_equal(status, 200);
    doc = list(db, &creator, NULL, &status);
    assert_int_equal(results(doc), 1);
    /* clone needs read_only on the source */
    doc = call(db, &creator, api_domain_clone, d1,
               "{\"domain\":\"rx.example\"}", &status);
    assert_error(doc, status, 403, "Unauthorized", NULL);
    grant(db, creator_uid, d1, "read_only");
    doc = call(db, &creator, api_domain_clone, d1,
               "{\"domain\":\"rx.example\"}", &status);
    assert_int_equal(status, 200);
    assert_int_equal(results(list(db, &creator, NULL, &status)), 3);
    call(db, &creator, api_domain_delete, id_of(db, doc), NULL, &status);
    assert_int_equal(status, 200);
}

/* The tag store on its own: set, replace, read sorted, copy, remove. */
static void test_tag_store(void **state)
{
    unit_db *db = *state;
    acct_principal who;
    apr_array_header_t *labels = apr_array_make(db->pool, 3, sizeof(char *));
    json_t *tags = NULL;

    unit_identity(db, "tess", 0, "*", &who);
    APR_ARRAY_PUSH(labels, const char *) = "pear";
    APR_ARRAY_PUSH(labels, const char *) = "Apple";
    APR_ARRAY_PUSH(labels, const char *) = "apple";
    assert_int_equal(acct_tags_set(db->store, db->pool, who.account_id,
                                   "domain", 7001, labels, 1), ACCT_STORE_OK);
    assert_int_equal(acct_tags_get(db->store, db->pool, "domain", 7001, &tags),
                     ACCT_STORE_OK);
    assert_string_equal(acct_json_dump(db->pool, tags, NULL),
                        "[\"Apple\",\"apple\",\"pear\"]");
    json_decref(tags);
    /* a second entity shares the tags; replacing keeps the rows of tags */
    assert_int_equal(acct_tags_copy(db->store, db->pool, "domain", 7001, 7002),
                     ACCT_STORE_OK);
    labels->nelts = 1;
    assert_int_equal(acct_tags_set(db->store, db->pool, who.account_id,
                                   "domain", 7001, labels, 2), ACCT_STORE_OK);
    assert_int_equal(acct_tags_get(db->store, db->pool, "domain", 7001, &tags),
                     ACCT_STORE_OK);
    assert_string_equal(acct_json_dump(db->pool, tags, NULL), "[\"pear\"]");
    json_decref(tags);
    assert_int_equal(acct_tags_get(db->store, db->pool, "domain", 7002, &tags),
                     ACCT_STORE_OK);
    assert_int_equal(json_array_size(tags), 3);
    json_decref(tags);
    assert_string_equal(sql_value(db, "SELECT count(*) FROM tags WHERE"
                                      " account_id = %" APR_INT64_T_FMT,
                                      who.account_id), "3");
    assert_int_equal(acct_tags_remove(db->store, db->pool, "domain", 7002),
                     ACCT_STORE_OK);
    assert_int_equal(acct_tags_get(db->store, db->pool, "domain", 7002, &tags),
                     ACCT_STORE_OK);
    assert_int_equal(json_array_size(tags), 0);
    json_decref(tags);
    /* the list column, sorted whatever order the aggregate gave */
    tags = acct_tags_from_column(db->pool, "[\"b\",\"a\",\"c\"]");
    assert_string_equal(acct_json_dump(db->pool, tags, NULL),
                        "[\"a\",\"b\",\"c\"]");
    json_decref(tags);
    tags = acct_tags_from_column(db->pool, NULL);
    assert_int_equal(json_array_size(tags), 0);
    json_decref(tags);
}

/* The storage functions of a domain on their own. */
static void test_hosted_and_delete(void **state)
{
    unit_db *db = *state;
    acct_principal owner, other;
    apr_int64_t id;
    int hosted = -1, deleted = -1;

    unit_identity(db, "store-a", 0, "*", &owner);
    unit_identity(db, "store-b", 0, "*", &other);
    assert_int_equal(acct_parse_i64(id_of(db, create(db, &owner,
        "{\"domain\":\"Held.example\",\"type\":\"master\","
        "\"soa_email\":\"a@held.example\",\"tags\":[\"kept\"]}")), &id), 0);
    /* Hosted by any account, whatever the case. */
    assert_int_equal(acct_domain_hosted(db->store, db->pool, "HELD.example",
                                        &hosted), ACCT_STORE_OK);
    assert_int_equal(hosted, 1);
    assert_int_equal(acct_domain_hosted(db->store, db->pool, "free.example",
                                        &hosted), ACCT_STORE_OK);
    assert_int_equal(hosted, 0);
    assert_string_equal(sql_value(db, "SELECT count(*) FROM tag_links"
                                      " WHERE entity_type = 'domain'"
                                      " AND entity_id = %" APR_INT64_T_FMT,
                                  id), "1");
    /* Another account deletes no domain (its handler has answered 404
     * before, and a 404 rolls the request back). */
    assert_int_equal(acct_domain_delete(db->store, db->pool, id,
                                        other.account_id, "u", 0, &deleted),
                     ACCT_STORE_OK);
    assert_int_equal(deleted, 0);
    assert_string_equal(sql_value(db, "SELECT count(*) FROM domains"
                                      " WHERE id = %" APR_INT64_T_FMT, id),
                        "1");
    assert_int_equal(acct_domain_delete(db->store, db->pool, id,
                                        owner.account_id, "u", 0, &deleted),
                     ACCT_STORE_OK);
    assert_int_equal(deleted, 1);
    assert_string_equal(sql_value(db, "SELECT count(*) FROM tag_links"
                                      " WHERE entity_type = 'domain'"
                                      " AND entity_id = %" APR_INT64_T_FMT,
                                  id), "0");
    assert_int_equal(acct_domain_hosted(db->store, db->pool, "held.example",
                                        &hosted), ACCT_STORE_OK);
    assert_int_equal(hosted, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_names),
        UNIT_TEST(test_name_lengths),
        UNIT_TEST(test_body_rules),
        UNIT_TEST(test_body_problems),
        UNIT_TEST(test_body_values),
        UNIT_TEST(test_body_limits),
        UNIT_DB_TEST(test_create_and_view),
        UNIT_DB_TEST(test_unique_everywhere),
        UNIT_DB_TEST(test_update),
        UNIT_DB_TEST(test_list_and_filters),
        UNIT_DB_TEST(test_delete),
        UNIT_DB_TEST(test_clone),
        UNIT_DB_TEST(test_restricted_users),
        UNIT_DB_TEST(test_tag_store),
        UNIT_DB_TEST(test_hosted_and_delete),
    };

    return UNIT_DB_RUN(tests);
}
