/* The /tags handlers on a migrated SQLite database: the tag store shared
 * with domains, registered entities, all-or-nothing creation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <apr_general.h>
#include <apr_dbd.h>
#include <apr_strings.h>
#include <jansson.h>
#include <string.h>

#include "unit_db.h"
#include "acct_json.h"
#include "api_catalog.h"
#include "api_handlers.h"
#include "acct_grants.h"
#include "acct_tags.h"

static json_t *call(acct_req *req, acct_handler *h, int *status)
{
    const char *text = unit_call(req, h, status);
    json_t *doc = json_loads(text, 0, NULL);

    assert_non_null(doc);
    return doc;
}

static json_t *body(unit_db *db, const char *text)
{
    json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, NULL);

    assert_non_null(j);
    return acct_json_own(db->pool, j);
}

static const char *error_field(json_t *doc, size_t i)
{
    return json_string_value(json_object_get(
        json_array_get(json_object_get(doc, "errors"), i), "field"));
}

/* A domain of `who`'s account; returns its id. */
static json_int_t make_domain(unit_db *db, const acct_principal *who,
                              const char *name)
{
    acct_req *req = unit_req(db, who);
    json_t *doc;
    json_int_t id;
    int status;

    req->body = body(db, apr_psprintf(db->pool, "{\"domain\":\"%s\","
                                      "\"type\":\"master\",\"soa_email\":"
                                      "\"hostmaster@example.com\"}", name));
    doc = call(req, api_domain_create, &status);
    assert_int_equal(status, 200);
    id = json_integer_value(json_object_get(doc, "id"));
    json_decref(doc);
    return id;
}

static void register_entity(unit_db *db, const acct_principal *who,
                            const char *type, int id, const char *label)
{
    assert_int_equal(acct_store_exec_script(db->store, db->pool, apr_psprintf(
        db->pool, "INSERT INTO entities (entity_type, entity_id, account_id,"
        " label, created) VALUES ('%s', %d, %" APR_INT64_T_FMT ", '%s', 0)",
        type, id, who->account_id, label)), ACCT_STORE_OK);
}

static json_int_t results(unit_db *db, const acct_principal *who,
                          acct_handler *h, const char *label)
{
    acct_req *req = unit_req(db, who);
    json_t *doc;
    json_int_t n;
    int status;

    req->params[0] = label;
    doc = call(req, h, &status);
    assert_int_equal(status, 200);
    n = json_integer_value(json_object_get(doc, "results"));
    json_decref(doc);
    return n;
}

static void test_tag_lifecycle(void **state)
{
    unit_db *db = *state;
    acct_settings contract = {0, 0, "https://r.example/"};
    acct_principal who;
    acct_req *req;
    json_t *doc, *item, *data;
    json_int_t domain;
    int status;

    unit_identity(db, "tagger", 0, "*", &who);
    domain = make_domain(db, &who, "tagged.example");
    register_entity(db, &who, "instance", 41, "web-1");
    register_entity(db, &who, "volume", 42, "data-1");

    req = unit_req(db, &who);
    req->body = body(db, apr_psprintf(db->pool, "{\"label\":\"prod env\","
                                      "\"domains\":[%" APR_INT64_T_FMT
                                      "],\"instances\":[41,41],"
                                      "\"volumes\":[42]}",
                                      (apr_int64_t)domain));
    doc = call(req, api_tag_create, &status);
    assert_int_equal(status, 200);
    assert_string_equal(json_string_value(json_object_get(doc, "label")),
                        "prod env");
    json_decref(doc);

    /* the same label again is refused */
    doc = call(req, api_tag_create, &status);
    assert_int_equal(status, 400);
    assert_string_equal(error_field(doc, 0), "label");
    json_decref(doc);

    req = unit_req(db, &who);
    req->body = body(db, "{\"label\":\"aaa\"}");
    doc = call(req, api_tag_create, &status);
    assert_int_equal(status, 200);
    json_decref(doc);

    /* sorted by label */
    req = unit_req(db, &who);
    doc = call(req, api_tags_list, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_integer_value(json_object_get(doc, "results")), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(
        json_object_get(doc, "data"), 0), "label")), "aaa");
    json_decref(doc);

    req = unit_req(db, &who);
    req->params[0] = "prod env";
    doc = call(req, api_tag_objects, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_integer_value(json_object_get(doc, "results")), 3);
    item = json_array_get(json_object_get(doc, "data"), 0);
    data = json_object_get(item, "data");
    assert_string_equal(json_string_value(json_object_get(item, "type")),
                        "domain");
    assert_string_equal(json_string_value(json_object_get(data, "domain")),
                        "tagged.example");
    assert_string_equal(json_string_value(json_array_get(
        json_object_get(data, "tags"), 0)), "prod env");
    /* An instance's type is the public API's value (docs/conventions.md,
     * "Today's
     * clients"), the contract's only where the operator asks for the
     * contract's names alone. */
    item = json_array_get(json_object_get(doc, "data"), 1);
    data = json_object_get(item, "data");
    assert_string_equal(json_string_value(json_object_get(item, "type")),
                        "linode");
    assert_int_equal(json_integer_value(json_object_get(data, "id")), 41);
    assert_string_equal(json_string_value(json_object_get(data, "label")),
                        "web-1");
    assert_int_equal(json_array_size(json_object_get(data, "tags")), 1);
    json_decref(doc);
    contract.field_names = ACCT_NAMES_CONTRACT;
    req->settings = &contract;
    doc = call(req, api_tag_objects, &status);
    assert_int_equal(status, 200);
    item = json_array_get(json_object_get(doc, "data"), 1);
    assert_string_equal(json_string_value(json_object_get(item, "type")),
                        "instance");
    json_decref(doc);

    req = unit_req(db, &who);
    req->params[0] = "prod env";
    doc = call(req, api_tag_delete, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_object_size(doc), 0);
    json_decref(doc);
    doc = call(req, api_tag_objects, &status);
    assert_int_equal(status, 404);
    json_decref(doc);
    doc = call(req, api_tag_delete, &status);
    assert_int_equal(status, 404);
    json_decref(doc);
    assert_int_equal(results(db, &who, api_tags_list, NULL), 1);
}

static void test_tag_create_refusals(void **state)
{
    unit_db *db = *state;
    acct_principal who, other;
    acct_req *req;
    json_t *doc;
    json_int_t theirs;
    int status;

    unit_identity(db, "mine", 0, "*", &who);
    unit_identity(db, "theirs", 0, "*", &other);
    theirs = make_domain(db, &other, "theirs.example");
    make_domain(db, &who, "mine.example");
    register_entity(db, &other, "instance", 7, "their-vm");

    /* every bad item is reported, and no tag comes into being */
    req = unit_req(db, &who);
    req->body = body(db, apr_psprintf(db->pool, "{\"label\":\"nope\","
                                      "\"domains\":[%" APR_INT64_T_FMT
                                      ", \"x\"],\"instances\":[7],"
                                      "\"volumes\":5}", (apr_int64_t)theirs));
    doc = call(req, api_tag_create, &status);
    assert_int_equal(status, 400);
    assert_string_equal(error_field(doc, 0), "domains[0]");
    assert_string_equal(error_field(doc, 1), "domains[1]");
    assert_string_equal(error_field(doc, 2), "instances[0]");
    assert_string_equal(error_field(doc, 3), "volumes");
    json_decref(doc);
    assert_int_equal(results(db, &who, api_tags_list, NULL), 0);

    req = unit_req(db, &who);
    /* "colour" is not a field of the route: ignored (docs/conventions.md,
     * "Today's clients"); the label is too short */
    req->body = body(db, "{\"label\":\"ab\",\"colour\":1}");
    doc = call(req, api_tag_create, &status);
    assert_int_equal(status, 400);
    assert_int_equal(json_array_size(json_object_get(doc, "errors")), 1);
    assert_string_equal(error_field(doc, 0), "label");
    json_decref(doc);
    req->body = body(db, "{}");
    doc = call(req, api_tag_create, &status);
    assert_int_equal(status, 400);
    assert_string_equal(error_field(doc, 0), "label");
    json_decref(doc);

    /* another account's tag of the same label is not ours */
    req = unit_req(db, &other);
    req->body = body(db, "{\"label\":\"shared\"}");
    doc = call(req, api_tag_create, &status);
    assert_int_equal(status, 200);
    json_decref(doc);
    req = unit_req(db, &who);
    req->params[0] = "shared";
    doc = call(req, api_tag_objects, &status);
    assert_int_equal(status, 404);
    json_decref(doc);
    req->body = body(db, "{\"label\":\"shared\"}");
    doc = call(req, api_tag_create, &status);
    assert_int_equal(status, 200);
    json_decref(doc);
}

/* Domain tags and /tags are one store: what either writes, both read. */
static void test_domain_tags_shared(void **state)
{
    unit_db *db = *state;
    acct_principal who;
    acct_req *req;
    json_t *doc;
    int status;

    unit_identity(db, "sharer", 0, "*", &who);
    req = unit_req(db, &who);
    req->body = body(db, "{\"domain\":\"viadomain.example\",\"type\":"
                     "\"master\",\"soa_email\":\"h@example.com\","
                     "\"tags\":[\"from-domain\"]}");
    doc = call(req, api_domain_create, &status);
    assert_int_equal(status, 200);
    json_decref(doc);
    assert_int_equal(results(db, &who, api_tags_list, NULL), 1);
    assert_int_equal(results(db, &who, api_tag_objects, "from-domain"), 1);

    req = unit_req(db, &who);
    req->filter = "{\"tags\":\"from-domain\"}";
    doc = call(req, api_domains_list, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_integer_value(json_object_get(doc, "results")), 1);
    json_decref(doc);
}

/* The model's own functions: create, find, ownership, link, delete. */
static void test_tags_model(void **state)
{
    unit_db *db = *state;
    apr_int64_t tag = 0, again = -1, found = -1;
    acct_principal who, other;
    json_int_t domain;
    json_t *labels = NULL;
    int owned = -1;

    unit_identity(db, "modeller", 0, "*", &who);
    unit_identity(db, "stranger", 0, "*", &other);
    domain = make_domain(db, &who, "model.example");
    register_entity(db, &who, ACCT_ENTITY_VOLUME, 9, "vol-9");

    assert_int_equal(acct_tags_create(db->store, db->pool, who.account_id,
                                      "blue", "modeller", 100, &tag),
                     ACCT_STORE_OK);
    assert_true(tag > 0);
    /* the same label again: no tag, no error */
    assert_int_equal(acct_tags_create(db->store, db->pool, who.account_id,
                                      "blue", "modeller", 100, &again),
                     ACCT_STORE_OK);
    assert_int_equal(again, 0);
    assert_int_equal(acct_tags_find(db->store, db->pool, who.account_id,
                                    "blue", &found), ACCT_STORE_OK);
    assert_int_equal(found, tag);
    assert_int_equal(acct_tags_find(db->store, db->pool, other.account_id,
                                    "blue", &found), ACCT_STORE_OK);
    assert_int_equal(found, 0);

    assert_int_equal(acct_tags_entity_owned(db->store, db->pool,
                                            ACCT_ENTITY_DOMAIN, domain,
                                            who.account_id, &owned),
                     ACCT_STORE_OK);
    assert_int_equal(owned, 1);
    assert_int_equal(acct_tags_entity_owned(db->store, db->pool,
                                            ACCT_ENTITY_DOMAIN, domain,
                                            other.account_id, &owned),
                     ACCT_STORE_OK);
    assert_int_equal(owned, 0);
    assert_int_equal(acct_tags_entity_owned(db->store, db->pool,
                                            ACCT_ENTITY_VOLUME, 9,
                                            who.account_id, &owned),
                     ACCT_STORE_OK);
    assert_int_equal(owned, 1);
    /* a registered id of another type is not that object */
    assert_int_equal(acct_tags_entity_owned(db->store, db->pool,
                                            ACCT_ENTITY_INSTANCE, 9,
                                            who.account_id, &owned),
                     ACCT_STORE_OK);
    assert_int_equal(owned, 0);

    assert_int_equal(acct_tags_link(db->store, db->pool, tag,
                                    ACCT_ENTITY_DOMAIN, domain),
                     ACCT_STORE_OK);
    assert_int_equal(acct_tags_get(db->store, db->pool, ACCT_ENTITY_DOMAIN,
                                   domain, &labels), ACCT_STORE_OK);
    assert_int_equal(json_array_size(labels), 1);
    json_decref(labels);

    assert_int_equal(acct_tags_delete(db->store, db->pool, who.account_id, tag,
                                      "blue", "modeller", 100),
                     ACCT_STORE_OK);
    assert_int_equal(acct_tags_find(db->store, db->pool, who.account_id,
                                    "blue", &found), ACCT_STORE_OK);
    assert_int_equal(found, 0);
    assert_int_equal(acct_tags_get(db->store, db->pool, ACCT_ENTITY_DOMAIN,
                                   domain, &labels), ACCT_STORE_OK);
    assert_int_equal(json_array_size(labels), 0);
    json_decref(labels);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_DB_TEST(test_tag_lifecycle),
        UNIT_DB_TEST(test_tag_create_refusals),
        UNIT_DB_TEST(test_domain_tags_shared),
        UNIT_DB_TEST(test_tags_model),
    };

    return UNIT_DB_RUN(tests);
}
