/* Domain records: the /domains/{id}/records handlers on a migrated SQLite
 * database: the rules that need the domain's other records, the limit, the
 * serial, lists, 404s and restricted users. */
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

#include "unit_records.h"

/* ------------------------------------------------------------------------
 * Handlers
 * ------------------------------------------------------------------------ */

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        DB_TEST(test_create_read_all_types),
        DB_TEST(test_validation_answers),
        DB_TEST(test_cname_unique),
        DB_TEST(test_null_mx),
        DB_TEST(test_slave_and_not_found),
        DB_TEST(test_limit_serial_delete),
        DB_TEST(test_update_rules),
        DB_TEST(test_list_filter_pages),
        DB_TEST(test_restricted),
    };

    return UNIT_DB_RUN(tests);
}
