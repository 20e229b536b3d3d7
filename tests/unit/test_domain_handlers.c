/* DNS domains: the /domains handlers on a migrated SQLite database: create,
 * view, update, lists and filters, delete, clone, restricted users. */
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
 * Handlers
 * ------------------------------------------------------------------------ */

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_DB_TEST(test_create_and_view),
        UNIT_DB_TEST(test_unique_everywhere),
        UNIT_DB_TEST(test_update),
        UNIT_DB_TEST(test_list_and_filters),
        UNIT_DB_TEST(test_delete),
        UNIT_DB_TEST(test_clone),
        UNIT_DB_TEST(test_restricted_users),
    };

    return UNIT_DB_RUN(tests);
}
