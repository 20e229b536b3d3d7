#include "acct_phone.h"
#include "acct_crypto.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

/*
 * Every code assigned by ISO 3166-1 (the list of tzdata's iso3166.tab) with
 * its E.164 country code.  Countries of the North American Numbering Plan
 * share 1, and dependencies use their administrator's code (GG, IM, JE: 44;
 * SJ: 47; AX: 358).  The three without telephone service of their own get
 * the code that serves them: BV 47, HM 672 (Australian Antarctic), UM 1.
 */
static const acct_country countries[] = {

    {"AD", "376"}, {"AE", "971"}, {"AF", "93"}, {"AG", "1"}, {"AI", "1"},
    {"AL", "355"}, {"AM", "374"}, {"AO", "244"}, {"AQ", "672"}, {"AR", "54"},
    {"AS", "1"}, {"AT", "43"}, {"AU", "61"}, {"AW", "297"}, {"AX", "358"},
    {"AZ", "994"}, {"BA", "387"}, {"BB", "1"}, {"BD", "880"}, {"BE", "32"},
    {"BF", "226"}, {"BG", "359"}, {"BH", "973"}, {"BI", "257"}, {"BJ", "229"},
    {"BL", "590"}, {"BM", "1"}, {"BN", "673"}, {"BO", "591"}, {"BQ", "599"},
    {"BR", "55"}, {"BS", "1"}, {"BT", "975"}, {"BV", "47"}, {"BW", "267"},
    {"BY", "375"}, {"BZ", "501"}, {"CA", "1"}, {"CC", "61"}, {"CD", "243"},
    {"CF", "236"}, {"CG", "242"}, {"CH", "41"}, {"CI", "225"}, {"CK", "682"},
    {"CL", "56"}, {"CM", "237"}, {"CN", "86"}, {"CO", "57"}, {"CR", "506"},
    {"CU", "53"}, {"CV", "238"}, {"CW", "599"}, {"CX", "61"}, {"CY", "357"},
    {"CZ", "420"}, {"DE", "49"}, {"DJ", "253"}, {"DK", "45"}, {"DM", "1"},
    {"DO", "1"}, {"DZ", "213"}, {"EC", "593"}, {"EE", "372"}, {"EG", "20"},
    {"EH", "212"}, {"ER", "291"}, {"ES", "34"}, {"ET", "251"}, {"FI", "358"},
    {"FJ", "679"}, {"FK", "500"}, {"FM", "691"}, {"FO", "298"}, {"FR", "33"},
    {"GA", "241"}, {"GB", "44"}, {"GD", "1"}, {"GE", "995"}, {"GF", "594"},
    {"GG", "44"}, {"GH", "233"}, {"GI", "350"}, {"GL", "299"}, {"GM", "220"},
    {"GN", "224"}, {"GP", "590"}, {"GQ", "240"}, {"GR", "30"}, {"GS", "500"},
    {"GT", "502"}, {"GU", "1"}, {"GW", "245"}, {"GY", "592"}, {"HK", "852"},
    {"HM", "672"}, {"HN", "504"}, {"HR", "385"}, {"HT", "509"}, {"HU", "36"},
    {"ID", "62"}, {"IE", "353"}, {"IL", "972"}, {"IM", "44"}, {"IN", "91"},
    {"IO", "246"}, {"IQ", "964"}, {"IR", "98"}, {"IS", "354"}, {"IT", "39"},
    {"JE", "44"}, {"JM", "1"}, {"JO", "962"}, {"JP", "81"}, {"KE", "254"},
    {"KG", "996"}, {"KH", "855"}, {"KI", "686"}, {"KM", "269"}, {"KN", "1"},
    {"KP", "850"}, {"KR", "82"}, {"KW", "965"}, {"KY", "1"}, {"KZ", "7"},
    {"LA", "856"}, {"LB", "961"}, {"LC", "1"}, {"LI", "423"}, {"LK", "94"},
    {"LR", "231"}, {"LS", "266"}, {"LT", "370"}, {"LU", "352"}, {"LV", "371"},
    {"LY", "218"}, {"MA", "212"}, {"MC", "377"}, {"MD", "373"}, {"ME", "382"},
    {"MF", "590"}, {"MG", "261"}, {"MH", "692"}, {"MK", "389"}, {"ML", "223"},
    {"MM", "95"}, {"MN", "976"}, {"MO", "853"}, {"MP", "1"}, {"MQ", "596"},
    {"MR", "222"}, {"MS", "1"}, {"MT", "356"}, {"MU", "230"}, {"MV", "960"},
    {"MW", "265"}, {"MX", "52"}, {"MY", "60"}, {"MZ", "258"}, {"NA", "264"},
    {"NC", "687"}, {"NE", "227"}, {"NF", "672"}, {"NG", "234"}, {"NI", "505"},
    {"NL", "31"}, {"NO", "47"}, {"NP", "977"}, {"NR", "674"}, {"NU", "683"},
    {"NZ", "64"}, {"OM", "968"}, {"PA", "507"}, {"PE", "51"}, {"PF", "689"},
    {"PG", "675"}, {"PH", "63"}, {"PK", "92"}, {"PL", "48"}, {"PM", "508"},
    {"PN", "64"}, {"PR", "1"}, {"PS", "970"}, {"PT", "351"}, {"PW", "680"},
    {"PY", "595"}, {"QA", "974"}, {"RE", "262"}, {"RO", "40"}, {"RS", "381"},
    {"RU", "7"}, {"RW", "250"}, {"SA", "966"}, {"SB", "677"}, {"SC", "248"},
    {"SD", "249"}, {"SE", "46"}, {"SG", "65"}, {"SH", "290"}, {"SI", "386"},
    {"SJ", "47"}, {"SK", "421"}, {"SL", "232"}, {"SM", "378"}, {"SN", "221"},
    {"SO", "252"}, {"SR", "597"}, {"SS", "211"}, {"ST", "239"}, {"SV", "503"},
    {"SX", "1"}, {"SY", "963"}, {"SZ", "268"}, {"TC", "1"}, {"TD", "235"},
    {"TF", "262"}, {"TG", "228"}, {"TH", "66"}, {"TJ", "992"}, {"TK", "690"},
    {"TL", "670"}, {"TM", "993"}, {"TN", "216"}, {"TO", "676"}, {"TR", "90"},
    {"TT", "1"}, {"TV", "688"}, {"TW", "886"}, {"TZ", "255"}, {"UA", "380"},
    {"UG", "256"}, {"UM", "1"}, {"US", "1"}, {"UY", "598"}, {"UZ", "998"},
    {"VA", "39"}, {"VC", "1"}, {"VE", "58"}, {"VG", "1"}, {"VI", "1"},
    {"VN", "84"}, {"VU", "678"}, {"WF", "681"}, {"WS", "685"}, {"YE", "967"},
    {"YT", "262"}, {"ZA", "27"}, {"ZM", "260"}, {"ZW", "263"},
};

#define NCOUNTRIES (sizeof(countries) / sizeof(countries[0]))

const acct_country *acct_phone_countries(size_t *n)
{
    *n = NCOUNTRIES;
    return countries;
}

static int compare_iso(const void *key, const void *member)
{
    return strcmp(key, ((const acct_country *)member)->iso);
}

const acct_country *acct_phone_country(const char *iso)
{
    char upper[3];
    int i;

    for (i = 0; i < 2; i++) {
        char c = iso[i];

        if (c >= 'a' && c <= 'z') {
            c = (char)(c - 'a' + 'A');
        }
        if (c < 'A' || c > 'Z') {
            return NULL;
        }
        upper[i] = c;
    }
    if (iso[2] != '\0') {
        return NULL;
    }
    upper[2] = '\0';
    return bsearch(upper, countries, NCOUNTRIES, sizeof(countries[0]),
                   compare_iso);
}

acct_phone_rc acct_phone_parse(apr_pool_t *pool, const char *text,
                               const char **digits, int *international)
{
    char *out = apr_palloc(pool, strlen(text) + 1), *d = out;
    const char *p = text;

    *international = 0;
    if (*p == '+') {
        *international = 1;
        p++;
    }
    for (; *p; p++) {
        if (*p >= '0' && *p <= '9') {
            *d++ = *p;
        }
        else if (!strchr(" -.()", *p)) {
            return ACCT_PHONE_SYNTAX;
        }
    }
    *d = '\0';
    if (d == out) {
        return ACCT_PHONE_SYNTAX;
    }
    /* "00" is the international prefix of most of the world: same as '+'. */
    if (!*international && out[0] == '0' && out[1] == '0') {
        *international = 1;
        out += 2;
    }
    *digits = out;
    return ACCT_PHONE_OK;
}

/*
 * Countries whose national numbers begin with a 0 that is part of the
 * number, not a trunk prefix: it stays after the country code.
 */
static int keeps_leading_zero(const acct_country *c)
{
    static const char *const keep[] = {"CI", "IT", "SM", "VA", NULL};
    const char *const *k;

    for (k = keep; *k; k++) {
        if (strcmp(*k, c->iso) == 0) {
            return 1;
        }
    }
    return 0;
}

/*
 * The national significant number of a number written the national way.
 * Most countries write a trunk '0' in front of it; the plans with 10-digit
 * numbers of calling codes 1 and 7 write a trunk '1' or '8' instead.
 */
static const char *national_number(const acct_country *c, const char *digits)
{
    size_t n = strlen(digits);

    if (strcmp(c->calling, "1") == 0) {
        return n == 11 && digits[0] == '1' ? digits + 1 : digits;
    }
    if (strcmp(c->calling, "7") == 0 && n == 11 && digits[0] == '8') {
        return digits + 1;
    }
    if (digits[0] == '0' && !keeps_leading_zero(c)) {
        return digits + 1;
    }
    return digits;
}

acct_phone_rc acct_phone_e164(apr_pool_t *pool, const acct_country *country,
                              const char *digits, int international,
                              const char **e164)
{
    size_t cc = strlen(country->calling);
    const char *national;

    if (international) {
        if (strncmp(digits, country->calling, cc) != 0) {
            return ACCT_PHONE_MISMATCH;
        }
        national = digits + cc;
        /* "+44 (0)20 ...": the trunk prefix written after the code. */
        if (national[0] == '0' && !keeps_leading_zero(country)) {
            national++;
        }
    }
    else {
        national = national_number(country, digits);
    }
    if (!*national || cc + strlen(national) < ACCT_PHONE_MIN_DIGITS
        || cc + strlen(national) > ACCT_PHONE_MAX_DIGITS) {
        return ACCT_PHONE_LENGTH;
    }
    *e164 = apr_pstrcat(pool, "+", country->calling, national, NULL);
    return ACCT_PHONE_OK;
}

const char *acct_phone_reason(acct_phone_rc rc)
{
    switch (rc) {
    case ACCT_PHONE_SYNTAX:
        return "Phone number may contain only digits, spaces, dashes, dots, "
               "parentheses and a leading +";
    case ACCT_PHONE_LENGTH:
        return "Phone number must have 4 to 15 digits including the country "
               "code";
    case ACCT_PHONE_MISMATCH:
        return "Phone number does not begin with the calling code of iso_code";
    default:
        return "Invalid phone number";
    }
}

/*
 * 2^32 rounded down to a multiple of 10^6: 32-bit values from here up would
 * favour the low codes, so they are skipped for the next 32 bits of the MAC.
 */
#define CODE_SPACE 1000000UL
#define CODE_LIMIT (4294UL * CODE_SPACE)

const char *acct_phone_code(apr_pool_t *pool, const unsigned char *key,
                            size_t keylen, apr_int64_t user_id,
                            const char *e164, apr_int64_t issued)
{
    const char *mac;
    unsigned long v = 0;
    char word[9];
    int i;

    mac = acct_hmac_sha256_hex(pool, key, keylen,
                               apr_psprintf(pool, "phone-code|%" APR_INT64_T_FMT
                                            "|%s|%" APR_INT64_T_FMT,
                                            user_id, e164, issued));
    if (!mac) {
        return NULL;
    }
    /*
     * Eight 32-bit words; each is rejected with probability 2.3e-4, so all
     * eight are with probability below 1e-29, and only then the last one is
     * used with its bias of one part in 4294.
     */
    for (i = 0; i < 8; i++) {
        memcpy(word, mac + 8 * i, 8);
        word[8] = '\0';
        v = strtoul(word, NULL, 16);
        if (v < CODE_LIMIT) {
            break;
        }
    }
    return apr_psprintf(pool, "%06lu", v % CODE_SPACE);
}

const char *acct_phone_code_hash(apr_pool_t *pool, const unsigned char *key,
                                 size_t keylen, apr_int64_t user_id,
                                 const char *e164, const char *code)
{
    /* Its own prefix, so a stored hash can never be a derivation's MAC. */
    const char *text = apr_psprintf(pool, "phone-hash|%" APR_INT64_T_FMT
                                    "|%s|%s", user_id, e164, code);

    return acct_hmac_sha256_hex(pool, key, keylen, text);
}

/* ---- verification ------------------------------------------------------ */

#define PENDING_WHERE "user_id = CAST(%s AS BIGINT)"

static const acct_sql q_verified_get = ACCT_SQL("phone_verified_get",
    "SELECT verified_phone_number FROM users WHERE id = CAST(%s AS BIGINT)");

static const acct_sql q_verified_set = ACCT_SQL("phone_verified_set",
    "UPDATE users SET verified_phone_number = %s"
    " WHERE id = CAST(%s AS BIGINT)");

/* The last argument forces the replacement of a live code. */
static const acct_sql q_pending_issue = ACCT_SQL("phone_pending_issue",
    "INSERT INTO phone_verifications"
    " (user_id, iso_code, phone_number, code_hash, issued, expires,"
    " failed_attempts)"
    " VALUES (CAST(%s AS BIGINT), %s, %s, %s, CAST(%s AS BIGINT),"
    " CAST(%s AS BIGINT), 0)"
    " ON CONFLICT (user_id) DO UPDATE SET iso_code = excluded.iso_code,"
    " phone_number = excluded.phone_number, code_hash = excluded.code_hash,"
    " issued = excluded.issued, expires = excluded.expires,"
    " failed_attempts = 0"
    " WHERE phone_verifications.phone_number <> excluded.phone_number"
    " OR phone_verifications.expires <= excluded.issued"
    " OR CAST(%s AS INTEGER) = 1");

static const acct_sql q_pending_get = ACCT_SQL("phone_pending_get",
    "SELECT phone_number, code_hash, issued, expires, failed_attempts"
    " FROM phone_verifications WHERE " PENDING_WHERE);

/* No row changed: the code is locked already. */
static const acct_sql q_pending_miss = ACCT_SQL("phone_pending_miss",
    "UPDATE phone_verifications SET failed_attempts = failed_attempts + 1"
    " WHERE " PENDING_WHERE " AND issued = CAST(%s AS BIGINT)"
    " AND failed_attempts < CAST(%s AS INTEGER)");

static const acct_sql q_pending_use = ACCT_SQL("phone_pending_use",
    "DELETE FROM phone_verifications"
    " WHERE " PENDING_WHERE " AND issued = CAST(%s AS BIGINT)"
    " AND code_hash = %s AND failed_attempts < CAST(%s AS INTEGER)"
    " AND expires > CAST(%s AS BIGINT)");

static const acct_sql q_pending_drop = ACCT_SQL("phone_pending_drop",
    "DELETE FROM phone_verifications WHERE " PENDING_WHERE);

acct_store_rc acct_phone_verified_get(acct_store *st, apr_pool_t *pool,
                                      apr_int64_t uid, const char **number)
{
    const char *args[1];
    acct_rows *rows = NULL;
    acct_store_rc rc;

    *number = NULL;
    args[0] = acct_i64(pool, uid);
    rc = acct_store_select(st, pool, &q_verified_get, &rows, 1, args);
    if (rc == ACCT_STORE_OK && rows->nrows > 0) {
        *number = acct_rows_get(rows, 0, "verified_phone_number");
    }
    return rc;
}

acct_store_rc acct_phone_pending_issue(acct_store *st, apr_pool_t *pool,
                                       apr_int64_t uid, const char *iso,
                                       const char *e164,
                                       const char *code_hash, apr_int64_t now,
                                       int force)
{
    const char *args[7];

    args[0] = acct_i64(pool, uid);
    args[1] = iso;
    args[2] = e164;
    args[3] = code_hash;
    args[4] = acct_i64(pool, now);
    args[5] = acct_i64(pool, now + ACCT_PHONE_CODE_TTL);
    args[6] = force ? "1" : "0";
    return acct_store_exec(st, pool, &q_pending_issue, NULL, 7, args);
}

acct_store_rc acct_phone_pending_get(acct_store *st, apr_pool_t *pool,
                                     apr_int64_t uid, acct_phone_pending *p)
{
    const char *args[1];
    acct_rows *rows = NULL;
    acct_store_rc rc;

    memset(p, 0, sizeof(*p));
    args[0] = acct_i64(pool, uid);
    rc = acct_store_select(st, pool, &q_pending_get, &rows, 1, args);
    if (rc != ACCT_STORE_OK || rows->nrows == 0) {
        return rc;
    }
    p->found = 1;
    p->number = acct_rows_get(rows, 0, "phone_number");
    p->code_hash = acct_rows_get(rows, 0, "code_hash");
    p->issued_text = acct_rows_get(rows, 0, "issued");
    p->issued_ok = acct_parse_i64(p->issued_text, &p->issued) == 0;
    p->complete = p->number && p->code_hash && p->issued_text
        && acct_parse_i64(acct_rows_get(rows, 0, "expires"), &p->expires) == 0
        && acct_parse_i64(acct_rows_get(rows, 0, "failed_attempts"),
                          &p->attempts) == 0;
    return rc;
}

acct_store_rc acct_phone_pending_miss(acct_store *st, apr_pool_t *pool,
                                      apr_int64_t uid,
                                      const acct_phone_pending *p,
                                      int *counted)
{
    const char *args[3];

    *counted = 0;
    args[0] = acct_i64(pool, uid);
    args[1] = p->issued_text;
    args[2] = acct_i64(pool, ACCT_PHONE_MAX_ATTEMPTS);
    return acct_store_exec(st, pool, &q_pending_miss, counted, 3, args);
}

/* Sets (or with NULL clears) `uid`'s verified number. */
static acct_store_rc verified_set(acct_store *st, apr_pool_t *pool,
                                  apr_int64_t uid, const char *number)
{
    const char *args[2];

    args[0] = number;
    args[1] = acct_i64(pool, uid);
    return acct_store_exec(st, pool, &q_verified_set, NULL, 2, args);
}

acct_store_rc acct_phone_verify(acct_store *st, apr_pool_t *pool,
                                apr_int64_t uid, const acct_phone_pending *p,
                                apr_int64_t now, int *verified)
{
    const char *args[5];
    acct_store_rc rc;

    *verified = 0;
    args[0] = acct_i64(pool, uid);
    args[1] = p->issued_text;
    args[2] = p->code_hash;
    args[3] = acct_i64(pool, ACCT_PHONE_MAX_ATTEMPTS);
    args[4] = acct_i64(pool, now);
    rc = acct_store_exec(st, pool, &q_pending_use, verified, 5, args);
    if (rc == ACCT_STORE_OK && *verified) {
        rc = verified_set(st, pool, uid, p->number);
    }
    return rc;
}

acct_store_rc acct_phone_number_delete(acct_store *st, apr_pool_t *pool,
                                       apr_int64_t uid)
{
    const char *args[1];
    acct_store_rc rc = verified_set(st, pool, uid, NULL);

    if (rc == ACCT_STORE_OK) {
        args[0] = acct_i64(pool, uid);
        rc = acct_store_exec(st, pool, &q_pending_drop, NULL, 1, args);
    }
    return rc;
}
