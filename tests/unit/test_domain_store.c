/* DNS domains: the tag store and a domain's storage functions on their own,
 * on a migrated SQLite database. */
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
        UNIT_DB_TEST(test_tag_store),
        UNIT_DB_TEST(test_hosted_and_delete),
    };

    return UNIT_DB_RUN(tests);
}
