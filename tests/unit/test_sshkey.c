/* SSH public keys: the parser, driven by the case files of tests/unit/sshkeys
 * (see its README), and the /profile/sshkeys handlers on a migrated SQLite
 * database. */
#include "unit.h"

#include <apr_dbd.h>
#include <apr_file_info.h>
#include <apr_strings.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "unit_db.h"
#include "acct_json.h"
#include "acct_sshkey.h"
#include "api_handlers.h"

/* Real keys (ssh-keygen) for the tests that build lines. */
#define ED25519 "ssh-ed25519 "\
    "AAAAC3NzaC1lZDI1NTE5AAAAIODawwa+Vh+oKziAsrGIN7OpMSUL4u4dBPf4dZfXjl+p"
#define NISTP256 "ecdsa-sha2-nistp256 "\
    "AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBI/DIU9IPNT6CFTXLPeKUIUYsBhr5t21LZM8RBsRR0QXXZp1v4y42aoN032GWFQJhGnIZpFmDN7uihTVt/m8L2Q="

/* ------------------------------------------------------------------------
 * The case files
 * ------------------------------------------------------------------------ */

static const char *cases_dir(const char *suite)
{
    const char *top = getenv("top_srcdir");

    return apr_pstrcat(pool, top && *top ? top : ".", "/tests/unit/sshkeys/",
                       suite, NULL);
}

/* Calls `check` on every *.json case of a suite; returns how many ran. */
static int each_case(const char *suite,
                     void (*check)(const char *name, json_t *c))
{
    const char *dir = cases_dir(suite);
    apr_dir_t *d = NULL;
    apr_finfo_t fi;
    json_error_t err;
    int n = 0;

    if (apr_dir_open(&d, dir, pool) != APR_SUCCESS) {
        fail_msg("cannot open %s (set top_srcdir)", dir);
    }
    while (apr_dir_read(&fi, APR_FINFO_NAME | APR_FINFO_TYPE, d) == APR_SUCCESS) {
        size_t len = strlen(fi.name);
        json_t *c;

        if (fi.filetype != APR_REG || len < 5
            || strcmp(fi.name + len - 5, ".json") != 0) {
            continue;
        }
        c = json_load_file(apr_pstrcat(pool, dir, "/", fi.name, NULL), 0, &err);
        if (!c) {
            fail_msg("%s/%s: %s", dir, fi.name, err.text);
        }
        check(fi.name, c);
        json_decref(c);
        n++;
    }
    apr_dir_close(d);
    return n;
}

static const char *case_text(json_t *c, const char *key)
{
    return json_string_value(json_object_get(c, key));
}

static void check_valid(const char *name, json_t *c)
{
    const char *reason = NULL;
    acct_sshkey key;

    UNIT_CHECKF(acct_sshkey_parse(pool, case_text(c, "input"), &key, &reason)
                == 0, "valid/%s (%s)", name, reason);
    UNIT_CHECK(name, strcmp(key.type, case_text(c, "type")) == 0);
    UNIT_CHECKF(strcmp(key.text, case_text(c, "text")) == 0, "%s: %s", name,
                key.text);
    if (json_is_null(json_object_get(c, "comment"))) {
        UNIT_CHECK(name, key.comment == NULL);
    }
    else {
        UNIT_CHECK(name, key.comment
                         && strcmp(key.comment, case_text(c, "comment")) == 0);
    }
    /* the normalised text is itself a valid line with the same meaning */
    UNIT_CHECK(name, acct_sshkey_parse(pool, key.text, &key, &reason) == 0
                     && strcmp(key.text, case_text(c, "text")) == 0);
}

static void check_invalid(const char *name, json_t *c)
{
    const char *reason = NULL;
    acct_sshkey key;

    UNIT_CHECKF(acct_sshkey_parse(pool, case_text(c, "input"), &key, &reason)
                == -1, "invalid/%s accepted", name);
    UNIT_CHECKF(reason && strcmp(reason, case_text(c, "reason")) == 0,
                "invalid/%s: %s", name, reason);
}

static void test_valid_cases(void **state)
{
    /* every supported type appears at least once */
    assert_true(each_case("valid", check_valid) >= 10);
}

static void test_invalid_cases(void **state)
{
    assert_true(each_case("invalid", check_invalid) >= 50);
}

/* ------------------------------------------------------------------------
 * Rules that case files cannot carry (size, bytes that are not UTF-8)
 * ------------------------------------------------------------------------ */

/* ED25519 with a comment of `n` 'x's. */
static const char *with_comment(size_t n)
{
    char *comment = apr_palloc(pool, n + 1);

    memset(comment, 'x', n);
    comment[n] = '\0';
    return apr_pstrcat(pool, ED25519, " ", comment, NULL);
}

static void test_line_length(void **state)
{
    size_t room = ACCT_SSHKEY_MAX_LINE - strlen(ED25519) - 1;
    const char *reason = NULL;
    acct_sshkey key;

    assert_int_equal(acct_sshkey_parse(pool, with_comment(room), &key, &reason),
                     0);
    assert_int_equal(strlen(key.text), ACCT_SSHKEY_MAX_LINE);
    assert_int_equal(acct_sshkey_parse(pool, with_comment(room + 1), &key,
                                       &reason), -1);
    assert_string_equal(reason, ACCT_SSHKEY_R_TOO_LONG);
}

static void test_comment_bytes(void **state)
{
    static const char *const bad[] = {
        "\xff", "caf\xc3", "\xc0\xaf", "\xe0\x80\xaf", "\xed\xa0\x80",
        "\xf4\x90\x80\x80", "a\x80z", NULL
    };
    const char *reason = NULL;
    acct_sshkey key;
    int i;

    for (i = 0; bad[i]; i++) {
        UNIT_CHECK_CASE(i, acct_sshkey_parse(pool, apr_pstrcat(pool, ED25519,
                                             " ", bad[i], NULL), &key, &reason)
                           == -1);
        UNIT_CHECK_CASE(i, strcmp(reason, ACCT_SSHKEY_R_COMMENT) == 0);
    }
    assert_int_equal(acct_sshkey_parse(pool, ED25519 " \xf0\x9f\x94\x91 key",
                                       &key, &reason), 0);
    assert_int_equal(acct_sshkey_parse(pool, NULL, &key, &reason), -1);
    assert_string_equal(reason, ACCT_SSHKEY_R_EMPTY);
}

/* ------------------------------------------------------------------------
 * Request bodies: one key, and the list of PUT /profile authorized_keys
 * ------------------------------------------------------------------------ */

/* A database, and `pool` for the test's own strings. */
static int db_setup(void **state)
{
    *state = unit_db_open();
    return unit_pool_setup(state);
}

static int db_teardown(void **state)
{
    unit_db_close(*state);
    return unit_pool_teardown(state);
}

static json_t *body(unit_db *db, const char *text)
{
    json_t *j = json_loads(text, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, NULL);

    assert_non_null(j);
    return acct_json_own(db->pool, j);
}

/* The errors as "field: reason" lines, for exact comparison. */
static const char *errors_of(acct_resp *resp)
{
    const char *out = "";
    json_t *item;
    size_t i;

    json_array_foreach(resp->errors, i, item) {
        out = apr_psprintf(pool, "%s%s: %s\n", out,
                           json_string_value(json_object_get(item, "field")),
                           json_string_value(json_object_get(item, "reason")));
    }
    return out;
}

/* The readers add problems; these answer them into `resp` as a handler
 * does, so the cases read the envelope the client gets. */
static acct_field_rc key_body(acct_req *req, acct_resp *resp,
                              const char *field, acct_sshkey *key)
{
    acct_problems *pb = acct_problems_make(pool);
    acct_field_rc rc = acct_sshkey_body(req, pb, field, key);

    acct_resp_problems(resp, pool, pb);
    return rc;
}

static acct_field_rc key_body_list(acct_req *req, acct_resp *resp,
                                   const char *field, const char **text)
{
    acct_problems *pb = acct_problems_make(pool);
    acct_field_rc rc = acct_sshkey_body_list(req, pb, field, text);

    acct_resp_problems(resp, pool, pb);
    return rc;
}

static void test_body_key(void **state)
{
    unit_db *db = *state;
    acct_req *req = unit_req(db, NULL);
    acct_sshkey key;
    acct_resp resp;

    acct_resp_init(&resp, pool);
    req->body = body(db, "{\"k\":\"  " ED25519 "  me \"}");
    assert_int_equal(key_body(req, &resp, "k", &key), ACCT_FIELD_SET);
    assert_string_equal(key.text, ED25519 " me");
    assert_int_equal(key_body(req, &resp, "absent", &key),
                     ACCT_FIELD_ABSENT);
    assert_false(acct_resp_failed(&resp));

    req->body = body(db, "{\"a\":null,\"b\":5,\"c\":\"" ED25519 "\\u0000x\"}");
    assert_int_equal(key_body(req, &resp, "a", &key), ACCT_FIELD_BAD);
    assert_int_equal(key_body(req, &resp, "b", &key), ACCT_FIELD_BAD);
    assert_int_equal(key_body(req, &resp, "c", &key), ACCT_FIELD_BAD);
    assert_int_equal(resp.status, 400);
    assert_string_equal(errors_of(&resp),
                        "a: a must be a string\n"
                        "b: b must be a string\n"
                        "c: " ACCT_SSHKEY_R_CONTROL "\n");
}

static void test_body_list(void **state)
{
    unit_db *db = *state;
    acct_req *req = unit_req(db, NULL);
    const char *text = "unset";
    acct_resp resp;

    acct_resp_init(&resp, pool);
    req->body = body(db, "{\"keys\":[\"" ED25519 "\\t me\",\"" NISTP256 "\"],"
                         "\"none\":null,\"empty\":[]}");
    assert_int_equal(key_body_list(req, &resp, "keys", &text),
                     ACCT_FIELD_SET);
    assert_string_equal(text, "[\"" ED25519 " me\",\"" NISTP256 "\"]");
    /* null leaves the keys as they are (docs/conventions.md, "Today's
     * clients") */
    text = "unset";
    assert_int_equal(key_body_list(req, &resp, "none", &text),
                     ACCT_FIELD_ABSENT);
    assert_string_equal(text, "unset");
    assert_int_equal(key_body_list(req, &resp, "empty", &text),
                     ACCT_FIELD_SET);
    assert_string_equal(text, "[]");
    assert_int_equal(key_body_list(req, &resp, "absent", &text),
                     ACCT_FIELD_ABSENT);
    assert_false(acct_resp_failed(&resp));

    /* every bad item is named, by its index from 0 */
    req->body = body(db, "{\"keys\":[\"" ED25519 "\",\"ssh-rsa x\",7,"
                         "\"from=\\\"x\\\" " ED25519 "\"],\"str\":\"" ED25519 "\"}");
    text = "unset";
    assert_int_equal(key_body_list(req, &resp, "keys", &text),
                     ACCT_FIELD_BAD);
    assert_int_equal(key_body_list(req, &resp, "str", &text),
                     ACCT_FIELD_BAD);
    assert_string_equal(text, "unset");
    assert_string_equal(errors_of(&resp),
                        "keys[1]: " ACCT_SSHKEY_R_BASE64 "\n"
                        "keys[2]: keys[2] must be a string\n"
                        "keys[3]: " ACCT_SSHKEY_R_OPTIONS "\n"
                        "str: str must be an array of SSH public keys\n");
}

/* ------------------------------------------------------------------------
 * Handlers
 * ------------------------------------------------------------------------ */

/* Runs a handler with an optional body (NULL: none) and path id. */
static json_t *call(unit_db *db, const acct_principal *who, acct_handler *h,
                    const char *id, const char *json, int *status)
{
    acct_req *req = unit_req(db, who);
    const char *text;
    json_t *doc;

    req->params[0] = id;
    req->body = json ? body(db, json) : NULL;
    text = unit_call(req, h, status);
    doc = json_loads(text, 0, NULL);
    assert_non_null(doc);
    return acct_json_own(db->pool, doc);
}

static const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static const char *id_of(json_t *o)
{
    return apr_psprintf(pool, "%" APR_INT64_T_FMT,
                        (apr_int64_t)json_integer_value(json_object_get(o, "id")));
}

static const char *error_list(json_t *doc)
{
    const char *out = "";
    json_t *item;
    size_t i;

    json_array_foreach(json_object_get(doc, "errors"), i, item) {
        out = apr_psprintf(pool, "%s%s: %s\n", out, str(item, "field"),
                           str(item, "reason"));
    }
    return out;
}

static void test_create_and_read(void **state)
{
    unit_db *db = *state;
    acct_principal who;
    json_t *doc, *again;
    int status;

    unit_identity(db, "kim", 0, "*", &who);
    doc = call(db, &who, api_sshkey_create, NULL,
               "{\"label\":\"laptop\",\"ssh_key\":\"" ED25519 "\\t kim@laptop  \"}",
               &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_object_size(doc), 4);
    assert_true(json_integer_value(json_object_get(doc, "id")) > 0);
    assert_string_equal(str(doc, "label"), "laptop");
    assert_string_equal(str(doc, "ssh_key"), ED25519 " kim@laptop");
    assert_int_equal(strlen(str(doc, "created")), 19);

    /* the single GET answers the same object */
    again = call(db, &who, api_sshkey_get, id_of(doc), NULL, &status);
    assert_int_equal(status, 200);
    assert_true(json_equal(doc, again));

    /* label optional (shown as "", the public API's string), "" kept, the
     * same key may be added again */
    doc = call(db, &who, api_sshkey_create, NULL,
               "{\"ssh_key\":\"" ED25519 "\"}", &status);
    assert_int_equal(status, 200);
    assert_string_equal(str(doc, "label"), "");
    doc = call(db, &who, api_sshkey_create, NULL,
               "{\"label\":null,\"ssh_key\":\"" ED25519 "\"}", &status);
    assert_int_equal(status, 200);
    assert_string_equal(str(doc, "label"), "");
    doc = call(db, &who, api_sshkey_create, NULL,
               "{\"label\":\"\",\"ssh_key\":\"" NISTP256 "\"}", &status);
    assert_int_equal(status, 200);
    assert_string_equal(str(doc, "label"), "");

    /* 64 characters (not bytes) is the most a label takes */
    doc = call(db, &who, api_sshkey_create, NULL,
               "{\"label\":\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9" /* 4 x e-acute */
               "123456789012345678901234567890123456789012345678901234567890\","
               "\"ssh_key\":\"" ED25519 "\"}", &status);
    assert_int_equal(status, 200);
}

static void test_create_refusals(void **state)
{
    unit_db *db = *state;
    acct_principal who;
    json_t *doc;
    int status;

    unit_identity(db, "lee", 0, "*", &who);
    /* every problem reported at once, in the order of the checks; "id",
     * not a field of a create, is ignored (docs/conventions.md, "Today's
     * clients") */
    doc = call(db, &who, api_sshkey_create, NULL,
               "{\"label\":\"12345678901234567890123456789012345678901234567890"
               "123456789012345\",\"ssh_key\":\"ssh-ed25519 AAAA\",\"id\":3}",
               &status);
    assert_int_equal(status, 400);
    assert_string_equal(error_list(doc),
                        "label: Length must be 0-64 characters\n"
                        "ssh_key: " ACCT_SSHKEY_R_TRUNCATED "\n");

    doc = call(db, &who, api_sshkey_create, NULL, "{\"label\":5}", &status);
    assert_int_equal(status, 400);
    assert_string_equal(error_list(doc), "label: label must be a string\n"
                                         "ssh_key: ssh_key is required\n");

    /* null is the default, and ssh_key has none */
    doc = call(db, &who, api_sshkey_create, NULL, "{\"ssh_key\":null}", &status);
    assert_int_equal(status, 400);
    assert_string_equal(error_list(doc), "ssh_key: ssh_key is required\n");

    doc = call(db, &who, api_sshkey_create, NULL,
               "{\"ssh_key\":\"-----BEGIN OPENSSH PRIVATE KEY-----\\nb3Bl\\n"
               "-----END OPENSSH PRIVATE KEY-----\\n\"}", &status);
    assert_int_equal(status, 400);
    assert_string_equal(error_list(doc), "ssh_key: " ACCT_SSHKEY_R_PRIVATE "\n");

    /* nothing was stored by the refusals */
    doc = call(db, &who, api_sshkeys_list, NULL, NULL, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_integer_value(json_object_get(doc, "results")), 0);
}

static void test_list_and_filter(void **state)
{
    unit_db *db = *state;
    acct_principal who, other;
    acct_req *req;
    json_t *doc;
    int status;

    unit_identity(db, "max", 0, "*", &who);
    unit_identity(db, "ned", 0, "*", &other);
    call(db, &who, api_sshkey_create, NULL,
         "{\"label\":\"a\",\"ssh_key\":\"" ED25519 "\"}", &status);
    call(db, &who, api_sshkey_create, NULL,
         "{\"label\":\"b\",\"ssh_key\":\"" NISTP256 "\"}", &status);
    call(db, &other, api_sshkey_create, NULL,
         "{\"label\":\"a\",\"ssh_key\":\"" ED25519 "\"}", &status);

    doc = call(db, &who, api_sshkeys_list, NULL, NULL, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_integer_value(json_object_get(doc, "results")), 2);
    assert_string_equal(str(json_array_get(json_object_get(doc, "data"), 0),
                            "label"), "a");
    assert_string_equal(str(json_array_get(json_object_get(doc, "data"), 1),
                            "ssh_key"), NISTP256);

    req = unit_req(db, &who);
    req->filter = "{\"label\":\"b\"}";
    doc = acct_json_own(db->pool,
                        json_loads(unit_call(req, api_sshkeys_list, &status), 0,
                                   NULL));
    assert_int_equal(status, 200);
    assert_int_equal(json_integer_value(json_object_get(doc, "results")), 1);

    req->filter = "{\"created\":{\"+gte\":\"2000-01-01T00:00:00\"},"
                  "\"+order_by\":\"label\",\"+order\":\"desc\"}";
    doc = acct_json_own(db->pool,
                        json_loads(unit_call(req, api_sshkeys_list, &status), 0,
                                   NULL));
    assert_int_equal(status, 200);
    assert_int_equal(json_integer_value(json_object_get(doc, "results")), 2);
    assert_string_equal(str(json_array_get(json_object_get(doc, "data"), 0),
                            "label"), "b");

    req->filter = "{\"fingerprint\":\"x\"}";
    doc = acct_json_own(db->pool,
                        json_loads(unit_call(req, api_sshkeys_list, &status), 0,
                                   NULL));
    assert_int_equal(status, 400);
    assert_string_equal(error_list(doc),
                        "X-Filter: Cannot filter on fingerprint\n");
}

static void test_update_and_delete(void **state)
{
    unit_db *db = *state;
    acct_principal who, other;
    const char *id, *mine;
    json_t *doc;
    int status;

    unit_identity(db, "ola", 0, "*", &who);
    unit_identity(db, "pat", 0, "*", &other);
    doc = call(db, &who, api_sshkey_create, NULL,
               "{\"label\":\"old\",\"ssh_key\":\"" ED25519 "\"}", &status);
    id = id_of(doc);
    mine = id_of(call(db, &other, api_sshkey_create, NULL,
                      "{\"ssh_key\":\"" ED25519 "\"}", &status));

    doc = call(db, &who, api_sshkey_update, id, "{\"label\":\"new\"}", &status);
    assert_int_equal(status, 200);
    assert_string_equal(str(doc, "label"), "new");
    assert_string_equal(str(doc, "ssh_key"), ED25519);
    /* null, or no label, leaves it as it is (docs/conventions.md, "Today's
     * clients") */
    doc = call(db, &who, api_sshkey_update, id, "{\"label\":null}", &status);
    assert_int_equal(status, 200);
    assert_string_equal(str(doc, "label"), "new");
    doc = call(db, &who, api_sshkey_update, id, "{\"x\":1}", &status);
    assert_int_equal(status, 200);
    assert_string_equal(str(doc, "label"), "new");

    /* the label only; the rest of the key is fixed: a different value is
     * refused, an unknown key ignored */
    doc = call(db, &who, api_sshkey_update, id,
               "{\"ssh_key\":\"" NISTP256 "\",\"created\":\"x\",\"x\":1}",
               &status);
    assert_int_equal(status, 400);
    assert_string_equal(error_list(doc),
                        "ssh_key: ssh_key cannot be changed\n"
                        "created: created cannot be changed\n");
    /* the key sent back as read is no change */
    doc = call(db, &who, api_sshkey_get, id, NULL, &status);
    json_object_set_new(doc, "label", json_string("again"));
    doc = call(db, &who, api_sshkey_update, id,
               acct_json_dump(pool, doc, NULL), &status);
    assert_int_equal(status, 200);
    assert_string_equal(str(doc, "label"), "again");
    assert_string_equal(str(doc, "ssh_key"), ED25519);

    /* another user's key, an unknown id and a non-number are all not found */
    doc = call(db, &who, api_sshkey_get, mine, NULL, &status);
    assert_int_equal(status, 404);
    assert_string_equal(error_list(doc), "(null): Not found\n");
    call(db, &who, api_sshkey_update, mine, "{\"label\":\"x\"}", &status);
    assert_int_equal(status, 404);
    call(db, &who, api_sshkey_delete, mine, NULL, &status);
    assert_int_equal(status, 404);
    call(db, &who, api_sshkey_get, "999999", NULL, &status);
    assert_int_equal(status, 404);
    call(db, &who, api_sshkey_get, "1x", NULL, &status);
    assert_int_equal(status, 404);
    call(db, &who, api_sshkey_get, "-1", NULL, &status);
    assert_int_equal(status, 404);

    doc = call(db, &who, api_sshkey_delete, id, NULL, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_object_size(doc), 0);
    call(db, &who, api_sshkey_delete, id, NULL, &status);
    assert_int_equal(status, 404);
    call(db, &who, api_sshkey_get, id, NULL, &status);
    assert_int_equal(status, 404);
    /* the other user's key is untouched */
    call(db, &other, api_sshkey_get, mine, NULL, &status);
    assert_int_equal(status, 200);
}

/* The storage functions find a key by id and owner together. */
static void test_model_functions(void **state)
{
    unit_db *db = *state;
    acct_principal who, other;
    acct_rows *rows = NULL;
    apr_int64_t id = 0, now = 1700000000;
    acct_list_query q;
    int changed = -1;

    unit_identity(db, "quinn", 0, "*", &who);
    unit_identity(db, "rosa", 0, "*", &other);
    assert_int_equal(acct_sshkey_create(db->store, db->pool, who.user_id,
                                        NULL, ED25519, now, &id),
                     ACCT_STORE_OK);
    assert_true(id > 0);
    assert_int_equal(acct_sshkey_get(db->store, db->pool, id, who.user_id,
                                     now, &rows), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    assert_null(acct_rows_get(rows, 0, "label"));
    assert_string_equal(acct_rows_get(rows, 0, "ssh_key"), ED25519);
    assert_string_equal(acct_rows_get(rows, 0, "created"), "1700000000");

    /* not the other user's, for any purpose */
    assert_int_equal(acct_sshkey_get(db->store, db->pool, id, other.user_id,
                                     now, &rows), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 0);
    assert_int_equal(acct_sshkey_update(db->store, db->pool, id,
                                        other.user_id, "x", now, &changed),
                     ACCT_STORE_OK);
    assert_int_equal(changed, 0);
    assert_int_equal(acct_sshkey_delete(db->store, db->pool, id,
                                        other.user_id, now, &changed),
                     ACCT_STORE_OK);
    assert_int_equal(changed, 0);

    assert_int_equal(acct_sshkey_update(db->store, db->pool, id, who.user_id,
                                        "laptop", now, &changed),
                     ACCT_STORE_OK);
    assert_int_equal(changed, 1);
    acct_sshkey_list_query(db->pool, who.user_id, &q);
    assert_int_equal(q.nargs, 1);
    assert_string_equal(q.args[0],
                        apr_psprintf(db->pool, "%" APR_INT64_T_FMT,
                                     who.user_id));
    assert_null(q.render);
    assert_int_equal(acct_sshkey_delete(db->store, db->pool, id, who.user_id,
                                        now, &changed), ACCT_STORE_OK);
    assert_int_equal(changed, 1);
    assert_int_equal(acct_sshkey_get(db->store, db->pool, id, who.user_id,
                                     now, &rows), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_valid_cases),
        UNIT_TEST(test_invalid_cases),
        UNIT_TEST(test_line_length),
        UNIT_TEST(test_comment_bytes),
        cmocka_unit_test_setup_teardown(test_body_key, db_setup, db_teardown),
        cmocka_unit_test_setup_teardown(test_body_list, db_setup, db_teardown),
        cmocka_unit_test_setup_teardown(test_create_and_read, db_setup, db_teardown),
        cmocka_unit_test_setup_teardown(test_create_refusals, db_setup, db_teardown),
        cmocka_unit_test_setup_teardown(test_list_and_filter, db_setup, db_teardown),
        cmocka_unit_test_setup_teardown(test_update_and_delete, db_setup, db_teardown),
        cmocka_unit_test_setup_teardown(test_model_functions, db_setup, db_teardown),
    };

    return UNIT_DB_RUN(tests);
}
