#include "acct_dbcert.h"
#include "acct_crypto.h"
#include "acct_log.h"

#include <apr_strings.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

static const acct_sql q_store = ACCT_SQL("db_cert_set",
    "UPDATE databases SET ca_certificate = %s"
    " WHERE id = CAST(%s AS BIGINT) AND ca_certificate IS NULL");

static const acct_sql q_get = ACCT_SQL("db_cert_get",
    "SELECT ca_certificate FROM databases WHERE id = CAST(%s AS BIGINT)");

/* RFC 5280 allows 20 octets; 16 random bytes with the top bit clear stay
 * positive and make collisions between databases practically impossible. */
#define SERIAL_BYTES 16
#define SECONDS_PER_DAY 86400

/* A fresh EC P-256 key, or NULL. */
static EVP_PKEY *new_key(void)
{
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, NULL);
    EVP_PKEY *key = NULL;

    if (ctx && (EVP_PKEY_keygen_init(ctx) != 1
                || EVP_PKEY_CTX_set_ec_paramgen_curve_nid(
                       ctx, NID_X9_62_prime256v1) != 1
                || EVP_PKEY_keygen(ctx, &key) != 1)) {
        EVP_PKEY_free(key);
        key = NULL;
    }
    EVP_PKEY_CTX_free(ctx);
    return key;
}

static int set_serial(X509 *x)
{
    unsigned char bytes[SERIAL_BYTES];
    BIGNUM *bn;
    int ok;

    if (acct_random_bytes(bytes, sizeof(bytes)) != 0) {
        return -1;
    }
    bytes[0] &= 0x7f;
    bytes[0] |= 0x40;  /* never a shorter, leading-zero encoding */
    bn = BN_bin2bn(bytes, sizeof(bytes), NULL);
    ok = bn && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) != NULL;
    BN_free(bn);
    return ok ? 0 : -1;
}

/* Subject = issuer (self-signed), naming the database. */
static int set_names(apr_pool_t *pool, X509 *x, apr_int64_t id,
                     const char *engine, const char *label)
{
    X509_NAME *name = X509_get_subject_name(x);
    const char *cn = apr_pstrcat(pool, label, " CA", NULL);
    const char *ou = apr_psprintf(pool, "%s database %" APR_INT64_T_FMT,
                                  engine, id);

    if (X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                                   (const unsigned char *)"Managed Databases",
                                   -1, -1, 0) != 1
        || X509_NAME_add_entry_by_txt(name, "OU", MBSTRING_UTF8,
                                      (const unsigned char *)ou, -1, -1, 0) != 1
        || X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                                      (const unsigned char *)cn, -1, -1, 0) != 1) {
        return -1;
    }
    return X509_set_issuer_name(x, name) == 1 ? 0 : -1;
}

static int set_validity(X509 *x, apr_int64_t now)
{
    time_t from = (time_t)now;

    return ASN1_TIME_set(X509_getm_notBefore(x), from) != NULL
           && ASN1_TIME_adj(X509_getm_notAfter(x), from, ACCT_DBCERT_DAYS, 0)
              != NULL ? 0 : -1;
}

/* Adds the extension `nid` written in openssl.cnf syntax. */
static int add_ext(X509 *x, int nid, const char *value)
{
    X509V3_CTX ctx;
    X509_EXTENSION *ext;
    int ok;

    /* The certificate is its own issuer: the key identifiers derive from it. */
    X509V3_set_ctx(&ctx, x, x, NULL, NULL, 0);
    ext = X509V3_EXT_nconf_nid(NULL, &ctx, nid, value);
    ok = ext && X509_add_ext(x, ext, -1) == 1;
    X509_EXTENSION_free(ext);
    return ok ? 0 : -1;
}

/* The extensions that make it a trust anchor, in dependency order: the
 * authority key identifier copies the subject key identifier. */
static int add_ca_extensions(X509 *x)
{
    return add_ext(x, NID_basic_constraints, "critical,CA:TRUE") == 0
           && add_ext(x, NID_key_usage, "critical,keyCertSign,cRLSign") == 0
           && add_ext(x, NID_subject_key_identifier, "hash") == 0
           && add_ext(x, NID_authority_key_identifier, "keyid:always") == 0
           ? 0 : -1;
}

static const char *to_pem(apr_pool_t *pool, X509 *x)
{
    BIO *bio = BIO_new(BIO_s_mem());
    const char *pem = NULL;
    char *data;
    long len;

    if (bio && PEM_write_bio_X509(bio, x) == 1
        && (len = BIO_get_mem_data(bio, &data)) > 0) {
        pem = apr_pstrmemdup(pool, data, (apr_size_t)len);
    }
    BIO_free(bio);
    return pem;
}

const char *acct_dbcert_create(apr_pool_t *pool, apr_int64_t id,
                               const char *engine, const char *label,
                               apr_int64_t now)
{
    EVP_PKEY *key = new_key();
    X509 *x = X509_new();
    const char *pem = NULL;
    char why[256] = "";

    if (key && x && X509_set_version(x, 2) == 1 && set_serial(x) == 0
        && set_names(pool, x, id, engine, label) == 0
        && set_validity(x, now) == 0 && X509_set_pubkey(x, key) == 1
        && add_ca_extensions(x) == 0 && X509_sign(x, key, EVP_sha256()) > 0) {
        pem = to_pem(pool, x);
    }
    if (!pem) {
        ERR_error_string_n(ERR_peek_last_error(), why, sizeof(why));
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00002) "cannot create the CA certificate of database %"
                 APR_INT64_T_FMT ": %s", id, why[0] ? why : "no OpenSSL reason");
    }
    ERR_clear_error();
    X509_free(x);
    EVP_PKEY_free(key);  /* the key dies with the request: see the header */
    return pem;
}

acct_store_rc acct_dbcert_store(acct_store *st, apr_pool_t *pool,
                                apr_int64_t db_id, const char *pem,
                                int *changed)
{
    const char *args[2];

    args[0] = pem;
    args[1] = acct_i64(pool, db_id);
    return acct_store_exec(st, pool, &q_store, changed, 2, args);
}

acct_store_rc acct_dbcert_get(acct_store *st, apr_pool_t *pool,
                              apr_int64_t db_id, const char **pem,
                              int *found)
{
    const char *arg = acct_i64(pool, db_id);
    acct_rows *rows = NULL;
    acct_store_rc rc = acct_store_select(st, pool, &q_get, &rows, 1, &arg);

    *found = rc == ACCT_STORE_OK && rows->nrows > 0;
    *pem = *found ? acct_rows_get(rows, 0, "ca_certificate") : NULL;
    return rc;
}
