/* Operations on one managed database (api_dbops.c): root credentials,
 * patch, and the CA certificate. */
#include "unit.h"

#include <apr_base64.h>
#include <apr_dbd.h>
#include <apr_strings.h>
#include <jansson.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <string.h>

#include "unit_db.h"
#include "acct_dbbackup.h"
#include "acct_dbcert.h"
#include "acct_json.h"
#include "acct_router.h"
#include "acct_seal.h"
#include "acct_time.h"
#include "api_handlers.h"

#include "unit_dbops.h"

/* ------------------------------------------------------------------------
 * Credentials, patch, SSL
 * ------------------------------------------------------------------------ */

static int alnum_only(const char *s)
{
    for (; *s; s++) {
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')
              || (*s >= '0' && *s <= '9'))) {
            return 0;
        }
    }
    return 1;
}

static void credentials_view_and_reset(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "mysql", "active"), now = f->t0 + 3600;
    const char *creds = dbpath(f, "mysql", id, "/credentials");
    const char *sealed;
    json_t *c;
    int i;

    c = ok(f, now, "GET", creds, NULL);
    assert_int_equal(json_object_size(c), 2);
    assert_string_equal(str(c, "username"), "akroot");
    assert_string_equal(str(c, "password"), "initialpassword1");

    ok(f, now, "POST", dbpath(f, "mysql", id, "/credentials/reset"), NULL);
    assert_string_equal(stored_status(f, id), "updating");
    assert_int_equal(sql_int(f, "SELECT credentials_reset FROM databases"), now);
    /* "Several seconds", whatever the operation time. */
    assert_int_equal(sql_int(f, "SELECT status_due FROM databases"), now + 10);
    refused(f, now + 9, "GET", creds, NULL, 400,
            "Your database is updating; please wait until the update is "
            "complete to perform this operation.");
    c = ok(f, now + 10, "GET", creds, NULL);
    assert_string_not_equal(str(c, "password"), "initialpassword1");
    assert_int_equal(strlen(str(c, "password")), 24);
    assert_true(alnum_only(str(c, "password")));
    /* Sealed at rest. */
    sealed = sql_text(f, "SELECT root_password_sealed FROM databases");
    assert_null(strstr(sealed, str(c, "password")));
    assert_true(strncmp(sealed, ACCT_SEAL_PREFIX, 3) == 0);
    /* Every reset draws a new one. */
    for (i = 0; i < 3; i++) {
        const char *prev = str(c, "password");

        now += 20;
        ok(f, now, "POST", dbpath(f, "mysql", id, "/credentials/reset"), NULL);
        c = ok(f, now + 10, "GET", creds, NULL);
        assert_string_not_equal(str(c, "password"), prev);
    }
}

static void credentials_need_the_key(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "postgresql", "active"), now = f->t0 + 3600;

    f->settings = &keyless;
    refused(f, now, "GET", dbpath(f, "postgresql", id, "/credentials"), NULL,
            503, "Service Unavailable");
    refused(f, now, "POST", dbpath(f, "postgresql", id, "/credentials/reset"),
            NULL, 503, "Service Unavailable");
    assert_string_equal(stored_status(f, id), "active");
    /* A password sealed for another row does not open. */
    f->settings = &keyed;
    sql(f, apr_psprintf(f->db->pool, "UPDATE databases SET root_password_sealed"
                        " = (SELECT root_password_sealed FROM databases WHERE"
                        " id = %" APR_INT64_T_FMT ") WHERE id = %" APR_INT64_T_FMT,
                        add_db(f, "postgresql", "active"), id));
    refused(f, now, "GET", dbpath(f, "postgresql", id, "/credentials"), NULL,
            500, "Internal server error");
}

static void patch_updates_then_active(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "postgresql", "active"), now = f->t0 + 3600;
    const char *patch = dbpath(f, "postgresql", id, "/patch");

    assert_int_equal(json_object_size(ok(f, now, "POST", patch, NULL)), 0);
    assert_string_equal(stored_status(f, id), "updating");
    refused(f, now + OP - 1, "POST", patch, NULL, 400,
            "Your database is updating; please wait until the update is "
            "complete to perform this operation.");
    ok(f, now + OP, "POST", patch, NULL);
}

/* The PEM inside the answer, decoded from base64. */
static const char *ssl_pem(fixture *f, apr_int64_t id, const char *engine,
                           apr_int64_t now)
{
    json_t *doc = ok(f, now, "GET", dbpath(f, engine, id, "/ssl"), NULL);
    const char *b64 = str(doc, "ca_certificate");
    char *pem;
    int len;

    assert_non_null(b64);
    assert_int_equal(json_object_size(doc), 1);
    pem = apr_palloc(f->db->pool, apr_base64_decode_len(b64));
    len = apr_base64_decode(pem, b64);
    pem[len] = '\0';
    return pem;
}

static void check_ca(const char *pem, const char *cn, apr_int64_t now)
{
    BIO *bio = BIO_new_mem_buf(pem, -1);
    X509 *x = PEM_read_bio_X509(bio, NULL, NULL, NULL), *back;
    unsigned char *der = NULL;
    const unsigned char *p;
    char name[128];
    int len, crit = -1;
    BASIC_CONSTRAINTS *bc;
    time_t t;

    assert_non_null(x);
    /* DER round trip through d2i. */
    len = i2d_X509(x, &der);
    assert_true(len > 0);
    p = der;
    back = d2i_X509(NULL, &p, len);
    assert_non_null(back);
    assert_int_equal(X509_cmp(x, back), 0);
    X509_free(back);
    OPENSSL_free(der);

    assert_int_equal(X509_get_version(x), 2);
    assert_int_equal(X509_check_ca(x), 1);
    bc = X509_get_ext_d2i(x, NID_basic_constraints, &crit, NULL);
    assert_non_null(bc);
    assert_true(bc->ca);
    assert_int_equal(crit, 1);
    BASIC_CONSTRAINTS_free(bc);
    assert_int_equal(X509_get_key_usage(x), KU_KEY_CERT_SIGN | KU_CRL_SIGN);
    assert_non_null(X509_get0_subject_key_id(x));
    assert_int_equal(X509_check_issued(x, x), X509_V_OK);
    assert_int_equal(X509_verify(x, X509_get0_pubkey(x)), 1);
    assert_int_equal(EVP_PKEY_base_id(X509_get0_pubkey(x)), EVP_PKEY_EC);
    assert_true(X509_NAME_get_text_by_NID(X509_get_subject_name(x),
                                          NID_commonName, name,
                                          sizeof(name)) > 0);
    assert_string_equal(name, cn);
    /* Valid from `now` for ten years. */
    t = (time_t)now;
    assert_int_equal(X509_cmp_time(X509_get0_notBefore(x), &t), -1);
    t = (time_t)(now - 1);
    assert_int_equal(X509_cmp_time(X509_get0_notBefore(x), &t), 1);
    t = (time_t)(now + (apr_int64_t)ACCT_DBCERT_DAYS * DAY - 1);
    assert_int_equal(X509_cmp_time(X509_get0_notAfter(x), &t), 1);
    t = (time_t)(now + (apr_int64_t)ACCT_DBCERT_DAYS * DAY + 1);
    assert_int_equal(X509_cmp_time(X509_get0_notAfter(x), &t), -1);
    X509_free(x);
    BIO_free(bio);
}

static void ssl_certificate_is_a_ca(void **state)
{
    fixture *f = *state;
    apr_int64_t id = add_db(f, "mysql", "active"), other, now = f->t0 + 3600;
    const char *pem = ssl_pem(f, id, "mysql", now);
    const char *label = sql_text(f, apr_psprintf(f->db->pool, "SELECT label FROM"
                                                 " databases WHERE id = %"
                                                 APR_INT64_T_FMT, id));

    assert_true(strncmp(pem, "-----BEGIN CERTIFICATE-----\n", 28) == 0);
    check_ca(pem, apr_pstrcat(f->db->pool, label, " CA", NULL), now);
    /* Stored: the same one later; every database has its own. */
    assert_string_equal(ssl_pem(f, id, "mysql", now + DAY), pem);
    assert_string_equal(sql_text(f, apr_psprintf(f->db->pool,
                                 "SELECT ca_certificate FROM databases WHERE id"
                                 " = %" APR_INT64_T_FMT, id)), pem);
    other = add_db(f, "postgresql", "active");
    assert_string_not_equal(ssl_pem(f, other, "postgresql", now), pem);
    /* Never made before the database is active. */
    other = add_db(f, "postgresql", "provisioning");
    refused(f, now, "GET", dbpath(f, "postgresql", other, "/ssl"), NULL, 400,
            "Your database is provisioning; please wait until provisioning is "
            "complete to perform this operation.");
    assert_null(sql_text(f, apr_psprintf(f->db->pool, "SELECT ca_certificate"
                                         " FROM databases WHERE id = %"
                                         APR_INT64_T_FMT, other)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        DB_TEST(credentials_view_and_reset),
        DB_TEST(credentials_need_the_key),
        DB_TEST(patch_updates_then_active),
        DB_TEST(ssl_certificate_is_a_ca),
    };

    return UNIT_RUN_GROUP(tests, group_setup, NULL);
}
