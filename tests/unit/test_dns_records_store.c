/* Domain records: the storage functions on their own (acct_domain's take and
 * claim, acct_record's statements), on a migrated SQLite database. */
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
#include "acct_record_store.h"
#include "api_handlers.h"

#include "unit_records.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        DB_TEST(test_domain_take_and_claim),
        DB_TEST(test_record_store),
    };

    return UNIT_DB_RUN(tests);
}
