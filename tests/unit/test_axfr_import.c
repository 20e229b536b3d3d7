/* POST /domains/import on a migrated SQLite database through a scripted
 * server (unit_axfr.h): the body rules, grants, and what an import stores
 * and skips. */
#include "unit.h"

#include <apr_network_io.h>
#include <apr_poll.h>
#include <apr_strings.h>
#include <apr_thread_proc.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "unit_db.h"
#include "acct_auth.h"
#include "acct_axfr.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "api_handlers.h"

#include "unit_axfr.h"

/* ------------------------------------------------------------------------
 * POST /domains/import
 * ------------------------------------------------------------------------ */

static json_t *import(unit_db *db, const acct_principal *who,
                      const char *body, int *status)
{
    acct_req *req = unit_req(db, who);
    const char *text;

    req->body = acct_json_own(db->pool, json_loads(body, 0, NULL));
    assert_non_null(req->body);
    text = unit_call(req, api_domain_import, status);
    return acct_json_own(db->pool, json_loads(text, 0, NULL));
}

static const char *error_list(json_t *doc)
{
    const char *out = "";
    json_t *e;
    size_t i;

    json_array_foreach(json_object_get(doc, "errors"), i, e) {
        const char *f = json_string_value(json_object_get(e, "field"));

        out = apr_psprintf(pool, "%s%s%s: %s", out, i ? " | " : "",
                           f ? f : "-",
                           json_string_value(json_object_get(e, "reason")));
    }
    return out;
}

static const char *one_value(unit_db *db, const char *sql)
{
    acct_rows *rows = NULL;

    assert_int_equal(acct_store_select_dynamic(db->store, db->pool, sql, &rows,
                                               0, NULL), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    return rows->values[0][0] ? rows->values[0][0] : "(null)";
}

static void test_import_body(void **state)
{
    static const struct {
        const char *body, *errors;
    } cases[] = {
        {"{}", "domain: domain is required | remote_nameserver: "
               "remote_nameserver is required"},
        {"{\"domain\":\"example.com\"}",
         "remote_nameserver: remote_nameserver is required"},
        {"{\"remote_nameserver\":\"192.0.2.1\"}", "domain: domain is required"},
        {"{\"domain\":5,\"remote_nameserver\":[\"192.0.2.1\"]}",
         "domain: domain must be a string | remote_nameserver: "
         "remote_nameserver must be a string"},
        /* null is an absent field (docs/conventions.md, "Today's clients") */
        {"{\"domain\":null,\"remote_nameserver\":null}",
         "domain: domain is required | remote_nameserver: "
         "remote_nameserver is required"},
        {"{\"domain\":\"nodot\",\"remote_nameserver\":\"\"}",
         "domain: Must be a domain name of two labels or more: letters, "
         "digits, underscores and hyphens (not first or last), at most 63 "
         "characters per label | remote_nameserver: Length must be 1-260 "
         "characters"},
        {"{\"domain\":\"example.com\",\"remote_nameserver\":\"192.0.2.1:0\"}",
         "remote_nameserver: " R_PORT},
        {"{\"domain\":\"example.com\",\"remote_nameserver\":\"[::1\"}",
         "remote_nameserver: " R_SERVER},
        /* keys that are not fields of the route are ignored */
        {"{\"domain\":\"example.com\",\"remote_nameserver\":\"192.0.2.1:0\","
         "\"type\":\"master\",\"domainId\":5}",
         "remote_nameserver: " R_PORT},
    };
    unit_db *db = *state;
    acct_principal who;
    json_t *doc;
    size_t i;
    int status;

    unit_identity(db, "ivy", 0, "*", &who);
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        doc = import(db, &who, cases[i].body, &status);
        UNIT_CHECK(cases[i].body, status == 400);
        UNIT_CHECKF(strcmp(error_list(doc), cases[i].errors) == 0, "%s: %s",
                    cases[i].body, error_list(doc));
    }
    assert_string_equal(one_value(db, "SELECT count(*) FROM domains"), "0");
}

static void test_import_refusals(void **state)
{
    unit_db *db = *state;
    acct_principal owner, other, restricted;
    json_t *doc;
    int status;

    unit_identity(db, "olga", 0, "*", &owner);
    unit_identity(db, "otto", 0, "*", &other);
    unit_member(db, owner.account_id, "rita", 1, apr_time_sec(apr_time_now()),
                &restricted);
    /* restricted without add_domains: 403 before anything else */
    doc = import(db, &restricted, "{}", &status);
    assert_int_equal(status, 403);
    assert_string_equal(error_list(doc), "-: Unauthorized");
    /* a name hosted by another account, in another case: refused before
     * any transfer (nothing listens at the server named) */
    assert_int_equal(acct_store_exec_script(db->store, db->pool, apr_psprintf(
        pool, "INSERT INTO domains (account_id, domain, domain_key, type,"
        " soa_email, created, updated) VALUES (%" APR_INT64_T_FMT ","
        " 'Taken.Example', 'taken.example', 'master', 'a@b.example', 0, 0)",
        other.account_id)), ACCT_STORE_OK);
    doc = import(db, &owner, "{\"domain\":\"TAKEN.example.\","
                             "\"remote_nameserver\":\"127.0.0.1:9\"}",
                 &status);
    assert_int_equal(status, 400);
    assert_string_equal(error_list(doc),
                        "domain: This domain is already hosted");
}

static const char *const import_rrs[] = {
    "shop.example. 7200 IN SOA ns1.old.example. john\\.doe.shop.example. "
    "9 3600 600 604800 60",
    "shop.example. 7200 IN NS ns1.old.example.",
    "shop.example. 7200 IN NS ns2.old.example.",
    "shop.example. 300 IN A 192.0.2.1",
    "shop.example. 300 IN MX 10 mail.shop.example.",
    "www.shop.example. 300 IN CNAME shop.example.",
    /* a second record at a CNAME's name: skipped */
    "www.shop.example. 300 IN TXT \"hello\"",
    "mail.shop.example. 300 IN A 192.0.2.2",
    /* a Null MX beside another MX: skipped */
    "shop.example. 300 IN MX 0 .",
    "_xmpp._tcp.shop.example. 300 IN SRV 5 10 5222 xmpp.shop.example.",
    "shop.example. 300 IN CAA 0 issue \"letsencrypt.org\"",
    "shop.example. 300 IN TXT \"v=spf1\" \" -all\"",
    "shop.example. 300 IN HINFO \"PC\" \"Linux\"",
    "sub.shop.example. 300 IN NS ns.sub.shop.example.",
    "ns.sub.shop.example. 300 IN A 192.0.2.3",
    "shop.example. 7200 IN SOA ns1.old.example. john\\.doe.shop.example. "
    "9 3600 600 604800 60",
    NULL
};

static void test_import_stores(void **state)
{
    unit_db *db = *state;
    script sc = {import_rrs, 3, 1, LDNS_RCODE_NOERROR, LDNS_RCODE_NOERROR, 0, 0,
                 1};
    acct_principal who;
    const char *body, *id;
    json_t *doc;
    fake *f;
    int status;

    unit_identity(db, "sam", 0, "*", &who);
    f = fake_start(&sc);
    body = apr_psprintf(pool, "{\"domain\":\"Shop.Example\","
                        "\"remote_nameserver\":\"%s\"}", f->address);
    doc = import(db, &who, body, &status);
    fake_stop(f);
    assert_int_equal(status, 200);
    assert_string_equal(json_string_value(json_object_get(doc, "domain")),
                        "Shop.Example");
    assert_string_equal(json_string_value(json_object_get(doc, "type")),
                        "master");
    assert_string_equal(json_string_value(json_object_get(doc, "soa_email")),
                        "john.doe@shop.example");
    assert_int_equal(json_integer_value(json_object_get(doc, "refresh_sec")),
                     3600);
    assert_int_equal(json_integer_value(json_object_get(doc, "retry_sec")),
                     3600);
    assert_int_equal(json_integer_value(json_object_get(doc, "expire_sec")),
                     604800);
    assert_int_equal(json_integer_value(json_object_get(doc, "ttl_sec")),
                     7200);
    id = apr_psprintf(pool, "%" APR_INT64_T_FMT,
                      (apr_int64_t)json_integer_value(json_object_get(doc,
                                                                      "id")));
    /* apex NS, HINFO, the TXT at the CNAME's name and the MX beside the
     * Null MX are not stored; the rest is, in transfer order */
    assert_string_equal(one_value(db, apr_psprintf(pool,
        "SELECT group_concat(type || ' ' || name || ' ' || target || ' ' ||"
        " priority || ' ' || weight || ' ' || port || ' ' ||"
        " COALESCE(service, '-') || ' ' || COALESCE(protocol, '-') || ' ' ||"
        " ttl_sec || ' ' || COALESCE(tag, '-'), ' | ') FROM"
        " (SELECT * FROM domain_records WHERE domain_id = %s ORDER BY id)",
        id)),
        "A  192.0.2.1 0 0 0 - - 300 - | "
        "MX  mail.shop.example 10 0 0 - - 300 - | "
        "CNAME www shop.example 0 0 0 - - 300 - | "
        "A mail 192.0.2.2 0 0 0 - - 300 - | "
        "SRV _xmpp._tcp xmpp.shop.example 5 10 5222 xmpp tcp 300 - | "
        "CAA  letsencrypt.org 0 0 0 - - 300 issue | "
        "TXT  v=spf1 -all 0 0 0 - - 300 - | "
        "NS sub ns.sub.shop.example 0 0 0 - - 300 - | "
        "A ns.sub 192.0.2.3 0 0 0 - - 300 -");
    assert_string_equal(one_value(db, apr_psprintf(pool,
        "SELECT record_count FROM domains WHERE id = %s", id)), "9");
    /* the same name again: hosted now, refused before any transfer */
    doc = import(db, &who, body, &status);
    assert_int_equal(status, 400);
    assert_string_equal(error_list(doc),
                        "domain: This domain is already hosted");
}

static void test_import_failures_store_nothing(void **state)
{
    unit_db *db = *state;
    script refused = {import_rrs, 0, 1, LDNS_RCODE_REFUSED, LDNS_RCODE_NOERROR,
                      0, 0, 1};
    script notauth = {import_rrs, 0, 0, LDNS_RCODE_NOERROR, LDNS_RCODE_NOERROR,
                      0, 0, 2};
    acct_principal who;
    json_t *doc;
    fake *f;
    int status;

    unit_identity(db, "tom", 0, "*", &who);
    f = fake_start(&refused);
    doc = import(db, &who, apr_psprintf(pool, "{\"domain\":\"shop.example\","
                                        "\"remote_nameserver\":\"%s\"}",
                                        f->address), &status);
    fake_stop(f);
    assert_int_equal(status, 400);
    assert_string_equal(error_list(doc), apr_psprintf(pool,
        "remote_nameserver: The remote nameserver %s refused the zone "
        "transfer (AXFR) of shop.example: it must allow transfers to this "
        "service", f->address));
    f = fake_start(&notauth);
    doc = import(db, &who, apr_psprintf(pool, "{\"domain\":\"shop.example\","
                                        "\"remote_nameserver\":\"%s\"}",
                                        f->address), &status);
    fake_stop(f);
    assert_int_equal(status, 400);
    assert_string_equal(error_list(doc), apr_psprintf(pool,
        "remote_nameserver: The remote nameserver %s is not authoritative "
        "for shop.example: it does not serve that zone", f->address));
    assert_string_equal(one_value(db, "SELECT count(*) FROM domains"), "0");
    assert_string_equal(one_value(db, "SELECT count(*) FROM domain_records"),
                        "0");
}

/* A database and the test pool. */
static int db_setup(void **state)
{
    return unit_pool_setup(state) == 0 ? unit_db_setup(state) : -1;
}

static int db_teardown(void **state)
{
    unit_db_teardown(state);
    return unit_pool_teardown(state);
}

#define IMPORT_TEST(f) cmocka_unit_test_setup_teardown(f, db_setup, db_teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        IMPORT_TEST(test_import_body),
        IMPORT_TEST(test_import_refusals),
        IMPORT_TEST(test_import_stores),
        IMPORT_TEST(test_import_failures_store_nothing),
    };
    /* The scripted servers may write to a connection the client has just
     * closed: that must be an error return, as in httpd, not a SIGPIPE. */
    signal(SIGPIPE, SIG_IGN);

    return UNIT_RUN(tests);
}
