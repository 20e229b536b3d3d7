#include "acct_sshkey.h"
#include "acct_event.h"
#include "acct_text.h"
#include "acct_json.h"

#include <apr_strings.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/obj_mac.h>
#include <string.h>

/* Where an SSH key is, for its events. */
#define SSHKEY_URL "/v4/profile/sshkeys/"

/* How the blob after the type string is laid out (OpenSSH PROTOCOL.key, RFC 4253/5656/8709). */
typedef enum {
    KIND_RSA,        /* mpint e, mpint n */
    KIND_DSS,        /* mpint p, q, g, y */
    KIND_ED25519,    /* string pk (32 bytes) */
    KIND_ECDSA,      /* string curve, string Q */
    KIND_SK_ED25519, /* string pk (32 bytes), string application */
    KIND_SK_ECDSA    /* string curve, string Q, string application */
} key_kind;

typedef struct key_type {
    const char *name;
    key_kind kind;
    const char *curve;  /* ECDSA: the curve field the blob must carry */
    int nid;            /* ECDSA: OpenSSL's curve */
} key_type;

static const key_type key_types[] = {
    {"ssh-ed25519", KIND_ED25519, NULL, 0},
    {"ecdsa-sha2-nistp256", KIND_ECDSA, "nistp256", NID_X9_62_prime256v1},
    {"ecdsa-sha2-nistp384", KIND_ECDSA, "nistp384", NID_secp384r1},
    {"ecdsa-sha2-nistp521", KIND_ECDSA, "nistp521", NID_secp521r1},
    {"ssh-rsa", KIND_RSA, NULL, 0},
    {"ssh-dss", KIND_DSS, NULL, 0},
    {"sk-ssh-ed25519@openssh.com", KIND_SK_ED25519, NULL, 0},
    {"sk-ecdsa-sha2-nistp256@openssh.com", KIND_SK_ECDSA, "nistp256",
     NID_X9_62_prime256v1},
    {NULL, 0, NULL, 0}
};

#define ED25519_KEY_LEN 32
#define RSA_MIN_BITS 1024
#define RSA_MAX_BITS 16384   /* OpenSSH's and OpenSSL's ceiling */
#define DSA_MIN_BITS 1024

static const key_type *type_named(const char *name, size_t len)
{
    const key_type *t;

    for (t = key_types; t->name; t++) {
        if (strlen(t->name) == len && memcmp(t->name, name, len) == 0) {
            return t;
        }
    }
    return NULL;
}

/* ---- the line ------------------------------------------------------------ */

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Tab separates fields; any other C0 control or DEL could end the line early. */
static int has_control(const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;

        if ((c < 0x20 && c != '\t') || c == 0x7f) {
            return 1;
        }
    }
    return 0;
}

static const char *skip_blanks(const char *s)
{
    while (is_blank(*s)) {
        s++;
    }
    return s;
}

static const char *token_end(const char *s)
{
    while (*s && !is_blank(*s)) {
        s++;
    }
    return s;
}

/* Does a later blank-separated token name a key type ('from="..." ssh-rsa ...')? */
static int type_follows(const char *s)
{
    const char *end;

    for (s = skip_blanks(s); *s; s = skip_blanks(end)) {
        end = token_end(s);
        if (type_named(s, (size_t)(end - s))) {
            return 1;
        }
    }
    return 0;
}

/* ---- base64 -------------------------------------------------------------- */

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/*
 * Canonical base64 only: padded to a multiple of 4, '=' only at the end, and
 * the bits past the last byte zero, so one key has exactly one spelling.
 * Returns the decoded bytes or NULL.
 */
static unsigned char *base64_strict(apr_pool_t *pool, const char *s,
                                    size_t len, size_t *outlen)
{
    unsigned char *out;
    size_t i, o = 0, pad = 0;

    if (len == 0 || len % 4 != 0) {
        return NULL;
    }
    if (s[len - 1] == '=') {
        pad = s[len - 2] == '=' ? 2 : 1;
    }
    out = apr_palloc(pool, len / 4 * 3);
    for (i = 0; i < len; i += 4) {
        size_t real = i + 4 < len ? 4 : 4 - pad;
        apr_uint32_t acc = 0;
        int v[4] = {0, 0, 0, 0};
        size_t k;

        for (k = 0; k < real; k++) {
            if ((v[k] = b64_value(s[i + k])) < 0) {
                return NULL;
            }
        }
        if ((real == 3 && (v[2] & 0x03)) || (real == 2 && (v[1] & 0x0f))) {
            return NULL;
        }
        acc = ((apr_uint32_t)v[0] << 18) | ((apr_uint32_t)v[1] << 12)
              | ((apr_uint32_t)v[2] << 6) | (apr_uint32_t)v[3];
        out[o++] = (unsigned char)(acc >> 16);
        if (real > 2) {
            out[o++] = (unsigned char)(acc >> 8);
        }
        if (real > 3) {
            out[o++] = (unsigned char)acc;
        }
    }
    *outlen = o;
    return out;
}

/* ---- the blob (RFC 4251 section 5 encodings) ------------------------------ */

typedef struct blob {
    const unsigned char *p;
    size_t left;
} blob;

/* The next uint32-length-prefixed string; -1 when the blob ends first. */
static int blob_string(blob *b, const unsigned char **s, size_t *n)
{
    apr_uint32_t len;

    if (b->left < 4) {
        return -1;
    }
    len = ((apr_uint32_t)b->p[0] << 24) | ((apr_uint32_t)b->p[1] << 16)
          | ((apr_uint32_t)b->p[2] << 8) | (apr_uint32_t)b->p[3];
    if (len > b->left - 4) {
        return -1;
    }
    *s = b->p + 4;
    *n = len;
    b->p += 4 + (size_t)len;
    b->left -= 4 + (size_t)len;
    return 0;
}

/*
 * Significant bits of an mpint; -1 when negative.  Leading zero bytes are
 * tolerated, as OpenSSH does.  Zero has 0 bits.
 */
static int mpint_bits(const unsigned char *s, size_t n)
{
    int bits;

    if (n > 0 && (s[0] & 0x80)) {
        return -1;
    }
    while (n > 0 && s[0] == 0) {
        s++, n--;
    }
    if (n == 0) {
        return 0;
    }
    if (n > RSA_MAX_BITS / 8 + 1) {
        return RSA_MAX_BITS + 8;  /* beyond anything accepted; no overflow */
    }
    bits = (int)(n - 1) * 8;
    for (n = s[0]; n; n >>= 1) {
        bits++;
    }
    return bits;
}

/* An uncompressed point (0x04 || X || Y) that lies on the curve. */
static int ec_point_valid(int nid, const unsigned char *q, size_t n)
{
    EC_GROUP *group = EC_GROUP_new_by_curve_name(nid);
    EC_POINT *point = NULL;
    size_t coord;
    int ok = 0;

    if (group) {
        coord = ((size_t)EC_GROUP_get_degree(group) + 7) / 8;
        if (n == 1 + 2 * coord && q[0] == 0x04
            && (point = EC_POINT_new(group)) != NULL) {
            ok = EC_POINT_oct2point(group, point, q, n, NULL) == 1;
        }
    }
    EC_POINT_free(point);
    EC_GROUP_free(group);
    /* a refused point leaves errors on this thread's queue: not ours to keep */
    ERR_clear_error();
    return ok;
}

static int field_equals(const unsigned char *s, size_t n, const char *text)
{
    return n == strlen(text) && memcmp(s, text, n) == 0;
}

/* Result of checking the fields after the type string. */
typedef enum {
    BLOB_OK = 0,
    BLOB_TRUNCATED,
    BLOB_INVALID,
    BLOB_RSA_BITS,
    BLOB_DSA_BITS
} blob_rc;

static blob_rc check_rsa(blob *b)
{
    const unsigned char *e, *n;
    size_t elen, nlen;
    int ebits, nbits;

    if (blob_string(b, &e, &elen) != 0 || blob_string(b, &n, &nlen) != 0) {
        return BLOB_TRUNCATED;
    }
    ebits = mpint_bits(e, elen);
    nbits = mpint_bits(n, nlen);
    /* e odd and at least 3, n odd: anything else cannot be an RSA key */
    if (ebits < 2 || !(e[elen - 1] & 1) || nbits <= 0 || !(n[nlen - 1] & 1)) {
        return BLOB_INVALID;
    }
    return nbits < RSA_MIN_BITS || nbits > RSA_MAX_BITS ? BLOB_RSA_BITS
                                                        : BLOB_OK;
}

static blob_rc check_dss(blob *b)
{
    const unsigned char *s;
    size_t n;
    int i, bits, pbits = 0;

    for (i = 0; i < 4; i++) {  /* p, q, g, y */
        if (blob_string(b, &s, &n) != 0) {
            return BLOB_TRUNCATED;
        }
        if ((bits = mpint_bits(s, n)) <= 0) {
            return BLOB_INVALID;
        }
        pbits = i == 0 ? bits : pbits;
    }
    return pbits < DSA_MIN_BITS ? BLOB_DSA_BITS : BLOB_OK;
}

static blob_rc check_ed25519(blob *b)
{
    const unsigned char *pk;
    size_t n;

    if (blob_string(b, &pk, &n) != 0) {
        return BLOB_TRUNCATED;
    }
    return n == ED25519_KEY_LEN ? BLOB_OK : BLOB_INVALID;
}

static blob_rc check_ecdsa(blob *b, const key_type *t)
{
    const unsigned char *curve, *q;
    size_t clen, qlen;

    if (blob_string(b, &curve, &clen) != 0 || blob_string(b, &q, &qlen) != 0) {
        return BLOB_TRUNCATED;
    }
    return field_equals(curve, clen, t->curve) && ec_point_valid(t->nid, q, qlen)
           ? BLOB_OK : BLOB_INVALID;
}

/* Security-key types end with the FIDO application ("ssh:" by default). */
static blob_rc check_application(blob *b)
{
    const unsigned char *app;
    size_t n;

    if (blob_string(b, &app, &n) != 0) {
        return BLOB_TRUNCATED;
    }
    return n > 0 && !memchr(app, 0, n) ? BLOB_OK : BLOB_INVALID;
}

static blob_rc check_fields(blob *b, const key_type *t)
{
    blob_rc rc;

    switch (t->kind) {
    case KIND_RSA:
        return check_rsa(b);
    case KIND_DSS:
        return check_dss(b);
    case KIND_ED25519:
        return check_ed25519(b);
    case KIND_ECDSA:
        return check_ecdsa(b, t);
    case KIND_SK_ED25519:
        rc = check_ed25519(b);
        return rc == BLOB_OK ? check_application(b) : rc;
    case KIND_SK_ECDSA:
        rc = check_ecdsa(b, t);
        return rc == BLOB_OK ? check_application(b) : rc;
    }
    return BLOB_INVALID;
}

/* Checks the decoded key data against its type; NULL when it is a key. */
static const char *check_blob(apr_pool_t *pool, const unsigned char *data,
                              size_t len, const key_type *t)
{
    blob b = {data, len};
    const unsigned char *name;
    size_t n;

    if (blob_string(&b, &name, &n) != 0) {
        return ACCT_SSHKEY_R_TRUNCATED;
    }
    if (!field_equals(name, n, t->name)) {
        return ACCT_SSHKEY_R_MISMATCH;
    }
    switch (check_fields(&b, t)) {
    case BLOB_OK:
        return b.left == 0 ? NULL : ACCT_SSHKEY_R_TRAILING;
    case BLOB_TRUNCATED:
        return ACCT_SSHKEY_R_TRUNCATED;
    case BLOB_RSA_BITS:
        return ACCT_SSHKEY_R_RSA_BITS;
    case BLOB_DSA_BITS:
        return ACCT_SSHKEY_R_DSA_BITS;
    case BLOB_INVALID:
        break;
    }
    return apr_psprintf(pool, "Key data is not a valid %s key", t->name);
}

/* ---- parsing --------------------------------------------------------------- */

/* Refusals that look at the line as a whole, before it is split. */
static const char *check_line(const char *line)
{
    const char *s = skip_blanks(line);

    if (!*s) {
        return ACCT_SSHKEY_R_EMPTY;
    }
    if (strlen(line) > ACCT_SSHKEY_MAX_LINE) {
        return ACCT_SSHKEY_R_TOO_LONG;
    }
    if (strstr(line, "PRIVATE KEY-----")
        || strncmp(s, "PuTTY-User-Key-File-", 20) == 0) {
        return ACCT_SSHKEY_R_PRIVATE;
    }
    if (strncmp(s, "---- BEGIN SSH2 PUBLIC KEY", 26) == 0) {
        return ACCT_SSHKEY_R_RFC4716;
    }
    return has_control(line) ? ACCT_SSHKEY_R_CONTROL : NULL;
}

/* The comment: the rest of the line without surrounding blanks, or NULL. */
static const char *comment_of(apr_pool_t *pool, const char *s)
{
    const char *end;

    s = skip_blanks(s);
    for (end = s + strlen(s); end > s && is_blank(end[-1]); end--) {
    }
    return end > s ? apr_pstrmemdup(pool, s, (size_t)(end - s)) : NULL;
}

int acct_sshkey_parse(apr_pool_t *pool, const char *line, acct_sshkey *out,
                      const char **reason)
{
    const char *s, *end, *data;
    const unsigned char *raw;
    const key_type *t;
    size_t rawlen = 0;

    if ((*reason = check_line(line ? line : "")) != NULL) {
        return -1;
    }
    s = skip_blanks(line);
    end = token_end(s);
    if (!(t = type_named(s, (size_t)(end - s)))) {
        *reason = type_follows(end) ? ACCT_SSHKEY_R_OPTIONS : ACCT_SSHKEY_R_TYPE;
        return -1;
    }
    s = skip_blanks(end);
    end = token_end(s);
    if (end == s) {
        *reason = ACCT_SSHKEY_R_NO_DATA;
        return -1;
    }
    data = apr_pstrmemdup(pool, s, (size_t)(end - s));
    if (!(raw = base64_strict(pool, data, (size_t)(end - s), &rawlen))) {
        *reason = ACCT_SSHKEY_R_BASE64;
        return -1;
    }
    if ((*reason = check_blob(pool, raw, rawlen, t)) != NULL) {
        return -1;
    }
    out->type = t->name;
    out->data = data;
    out->comment = comment_of(pool, end);
    if (out->comment && !acct_utf8_valid(out->comment)) {
        *reason = ACCT_SSHKEY_R_COMMENT;
        return -1;
    }
    out->text = out->comment
                ? apr_pstrcat(pool, t->name, " ", data, " ", out->comment, NULL)
                : apr_pstrcat(pool, t->name, " ", data, NULL);
    return 0;
}

/* ---- request bodies ---------------------------------------------------- */

/* One body value that must be a key line; 0, or -1 after adding a problem. */
static int key_value(acct_req *req, acct_problems *pb, const char *field,
                     json_t *v, acct_sshkey *out)
{
    const char *reason = NULL;

    if (!json_is_string(v)) {
        reason = apr_psprintf(req->pool, "%s must be a string", field);
    }
    else if (strlen(json_string_value(v)) != json_string_length(v)) {
        reason = ACCT_SSHKEY_R_CONTROL;  /* an embedded NUL */
    }
    else if (acct_sshkey_parse(req->pool, json_string_value(v), out, &reason)
             == 0) {
        return 0;
    }
    acct_problem_add(pb, field, reason);
    return -1;
}

acct_field_rc acct_sshkey_body(acct_req *req, acct_problems *pb,
                               const char *field, acct_sshkey *out)
{
    json_t *v = req->body ? json_object_get(req->body, field) : NULL;

    if (!v) {
        return ACCT_FIELD_ABSENT;
    }
    return key_value(req, pb, field, v, out) == 0 ? ACCT_FIELD_SET
                                                  : ACCT_FIELD_BAD;
}

acct_field_rc acct_sshkey_body_list(acct_req *req, acct_problems *pb,
                                    const char *field, const char **json_text)
{
    json_t *v = req->body ? json_object_get(req->body, field) : NULL;
    json_t *keys, *item;
    acct_sshkey key;
    size_t i;
    int bad = 0;

    if (!v || json_is_null(v)) {
        return ACCT_FIELD_ABSENT;
    }
    if (!json_is_array(v)) {
        acct_problem_add(pb, field,
                         apr_psprintf(req->pool, "%s must be an array of SSH "
                                      "public keys", field));
        return ACCT_FIELD_BAD;
    }
    keys = acct_json_own(req->pool, json_array());
    json_array_foreach(v, i, item) {
        const char *name = apr_psprintf(req->pool, "%s[%lu]", field,
                                        (unsigned long)i);

        if (key_value(req, pb, name, item, &key) != 0) {
            bad = 1;
        }
        else {
            json_array_append_new(keys, json_string(key.text));
        }
    }
    if (bad) {
        return ACCT_FIELD_BAD;
    }
    *json_text = acct_json_dump(req->pool, keys, NULL);
    return ACCT_FIELD_SET;
}

/* ---- storage ----------------------------------------------------------- */

#define SSHKEY_COLUMNS "id, label, ssh_key, created"
#define SSHKEY_OWNED "user_id = CAST(%s AS BIGINT)"
#define SSHKEY_ONE "id = CAST(%s AS BIGINT) AND " SSHKEY_OWNED

static const acct_sql q_sshkey_get = ACCT_SQL("sshkey_get",
    "SELECT " SSHKEY_COLUMNS " FROM ssh_keys WHERE " SSHKEY_ONE);

static const acct_sql q_sshkey_insert = ACCT_SQL("sshkey_insert",
    "INSERT INTO ssh_keys (user_id, label, ssh_key, created)"
    " VALUES (CAST(%s AS BIGINT), %s, %s, CAST(%s AS BIGINT)) RETURNING id");

static const acct_sql q_sshkey_label = ACCT_SQL("sshkey_label",
    "UPDATE ssh_keys SET label = %s WHERE " SSHKEY_ONE);

/* RETURNING: the deleted key's label, for its event. */
static const acct_sql q_sshkey_delete = ACCT_SQL("sshkey_delete",
    "DELETE FROM ssh_keys WHERE " SSHKEY_ONE " RETURNING label");

/* label and created, and the other properties of linode_api4's SSHKey,
 * which its filters may name. */
static const acct_filter_field sshkey_fields[] = {
    {"label", "label", ACCT_FIELD_TEXT},
    {"created", "created", ACCT_FIELD_TIME},
    {"id", "id", ACCT_FIELD_INT},
    {"ssh_key", "ssh_key", ACCT_FIELD_TEXT},
    {NULL, NULL, 0}
};

void acct_sshkey_list_query(apr_pool_t *pool, apr_int64_t uid,
                            acct_list_query *q)
{
    acct_own_list_query(pool, q, SSHKEY_COLUMNS, "ssh_keys", SSHKEY_OWNED,
                        sshkey_fields, uid, NULL);
}

/* The arguments of SSHKEY_ONE after `first` (when `nfirst` is 1). */
static const char **key_args(apr_pool_t *pool, const char **args, int nfirst,
                             const char *first, apr_int64_t id,
                             apr_int64_t uid)
{
    if (nfirst) {
        args[0] = first;
    }
    args[nfirst] = acct_i64(pool, id);
    args[nfirst + 1] = acct_i64(pool, uid);
    return args;
}

acct_store_rc acct_sshkey_get(acct_store *st, apr_pool_t *pool,
                              apr_int64_t id, apr_int64_t uid,
                              apr_int64_t now, acct_rows **rows)
{
    const char *args[2];

    (void)now;
    return acct_store_select(st, pool, &q_sshkey_get, rows, 2,
                             key_args(pool, args, 0, NULL, id, uid));
}

acct_store_rc acct_sshkey_create(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t uid, const char *label,
                                 const char *text, apr_int64_t created,
                                 apr_int64_t *id)
{
    const char *args[4];
    acct_rows *rows = NULL;
    acct_store_rc rc;

    args[0] = acct_i64(pool, uid);
    args[1] = label;
    args[2] = text;
    args[3] = acct_i64(pool, created);
    rc = acct_store_select(st, pool, &q_sshkey_insert, &rows, 4, args);
    if (rc == ACCT_STORE_OK && (rows->nrows != 1
        || acct_parse_i64(acct_rows_get(rows, 0, "id"), id) != 0)) {
        rc = ACCT_STORE_FAILED;
    }
    return acct_event_own(st, pool, rc, 1, uid, ACCT_EVENT_SSH_KEY_ADD,
                          ACCT_EVENT_ENTITY_SSH_KEY, *id, label, SSHKEY_URL,
                          created);
}

acct_store_rc acct_sshkey_update(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t id, apr_int64_t uid,
                                 const char *label, apr_int64_t now,
                                 int *changed)
{
    const char *args[3];
    acct_store_rc rc = acct_store_exec(st, pool, &q_sshkey_label, changed, 3,
                                       key_args(pool, args, 1, label, id,
                                                uid));

    return acct_event_own(st, pool, rc, *changed, uid,
                          ACCT_EVENT_SSH_KEY_UPDATE, ACCT_EVENT_ENTITY_SSH_KEY,
                          id, label, SSHKEY_URL, now);
}

acct_store_rc acct_sshkey_delete(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t id, apr_int64_t uid,
                                 apr_int64_t now, int *changed)
{
    const char *args[2];
    acct_rows *rows = NULL;
    acct_store_rc rc = acct_store_select(st, pool, &q_sshkey_delete, &rows, 2,
                                         key_args(pool, args, 0, NULL, id,
                                                  uid));

    *changed = rc == ACCT_STORE_OK ? rows->nrows : 0;
    return acct_event_own(st, pool, rc, *changed, uid,
                          ACCT_EVENT_SSH_KEY_DELETE, ACCT_EVENT_ENTITY_SSH_KEY,
                          id, *changed ? acct_rows_get(rows, 0, "label") : NULL,
                          SSHKEY_URL, now);
}
