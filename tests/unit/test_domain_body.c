/* DNS domains: the body rules (table-driven: every rule passing and failing,
 * on create and on update), their problems, values and limits. */
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

#include "unit_domain.h"

/* ------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------ */

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_body_rules),
        UNIT_TEST(test_body_problems),
        UNIT_TEST(test_body_values),
        UNIT_TEST(test_body_limits),
    };

    return UNIT_DB_RUN(tests);
}
