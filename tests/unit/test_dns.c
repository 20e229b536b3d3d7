/* DNS primitives of acct_dns.c: host name syntax under every flag, the
 * rounding of domain timers and record TTLs over their whole valid sets,
 * and the SOA serial bump on a migrated SQLite database. */
#include "unit.h"

#include <apr_dbd.h>
#include <apr_strings.h>
#include <string.h>

#include "unit_db.h"
#include "acct_dns.h"
#include "acct_valid.h"

#define W ACCT_DNS_WILDCARD
#define U ACCT_DNS_UNDERSCORE
#define R ACCT_DNS_RELATIVE

/* `n` copies of `c`, in pool memory. */
static char *repeat(char c, size_t n)
{
    char *s = apr_palloc(pool, n + 1);

    memset(s, c, n);
    s[n] = '\0';
    return s;
}

/* A name of exactly `total` characters: 63-character labels, then the rest. */
static char *name_of_length(size_t total)
{
    char *s = repeat('a', total);
    size_t i;

    for (i = 63; i < total; i += 64) {
        s[i] = '.';
    }
    if (s[total - 1] == '.') {
        s[total - 2] = '.';
        s[total - 1] = 'b';
        s[total - 3] = 'a';
    }
    return s;
}

typedef struct {
    const char *name;
    unsigned flags;
    int valid;
} name_case;

static const name_case name_cases[] = {
    /* Plain host names: two labels at least without RELATIVE. */
    {"example.com", 0, 1},
    {"www.example.com", 0, 1},
    {"a.b", 0, 1},
    {"EXAMPLE.Com", 0, 1},
    {"3com.com", 0, 1},
    {"1.2.3.4", 0, 1},
    {"a-b.c-d", 0, 1},
    {"a--b.com", 0, 1},
    {"com", 0, 0},
    {"com", R, 1},
    {"a", R, 1},
    {"", 0, 0},
    {"", R, 0},
    {"", W | U | R, 0},
    /* Hyphens may not start or end a label. */
    {"-a.com", 0, 0},
    {"a-.com", 0, 0},
    {"a.-com", 0, 0},
    {"a.com-", 0, 0},
    {"-", R, 0},
    /* Empty labels: leading, doubled or trailing dots. */
    {".example.com", 0, 0},
    {"example..com", 0, 0},
    {"example.com.", 0, 0},
    {".", R, 0},
    {"a.", R, 0},
    /* Characters outside letters, digits and hyphens. */
    {"exa mple.com", 0, 0},
    {"ex@mple.com", 0, 0},
    {"exa/mple.com", 0, 0},
    {"ex\xc3\xa9.com", 0, 0},
    {"exa\tmple.com", 0, 0},
    {"exa_mple.com", 0, 0},
    {"*.example.com", 0, 0},
    /* UNDERSCORE admits '_' anywhere in a label. */
    {"exa_mple.com", U, 1},
    {"_dmarc.example.com", U, 1},
    {"_sip._tcp", U, 1},
    {"_sip._tcp", U | R, 1},
    {"_dmarc", U, 0},
    {"_dmarc", U | R, 1},
    {"_", U | R, 1},
    {"_-", U | R, 0},
    {"-_", U | R, 0},
    {"_dmarc.example.com", W | R, 0},
    /* WILDCARD: "*" only as the whole left-most label. */
    {"*.example.com", W, 1},
    {"*.com", W, 1},
    {"*", W, 0},
    {"*", W | R, 1},
    {"*", R, 0},
    {"*.dev", W | R, 1},
    {"a.*.com", W, 0},
    {"*.*.com", W, 0},
    {"**.com", W, 0},
    {"*a.com", W, 0},
    {"a*.com", W, 0},
    {"*.", W | R, 0},
    {"*.-a.com", W, 0},
    {"*._tcp.example.com", W, 0},
    {"*._tcp.example.com", W | U, 1},
    {"*", W | U | R, 1},
};

static void test_name_valid_table(void **state)
{
    size_t i;

    for (i = 0; i < sizeof(name_cases) / sizeof(name_cases[0]); i++) {
        const name_case *c = &name_cases[i];

        UNIT_CHECKF(acct_valid_dns_name(c->name, c->flags) == c->valid,
                    "'%s' flags %u", c->name, c->flags);
    }
}

/* Labels of 1..63 octets, names of at most 253, under every flag. */
static void test_name_lengths(void **state)
{
    unsigned flags;

    for (flags = 0; flags <= (W | U | R); flags++) {
        char *l63 = apr_pstrcat(pool, repeat('a', 63), ".com", NULL);
        char *l64 = apr_pstrcat(pool, repeat('a', 64), ".com", NULL);
        char *n253 = name_of_length(253), *n254 = name_of_length(254);

        assert_int_equal(strlen(n253), 253);
        UNIT_CHECKF(acct_valid_dns_name(l63, flags), "63 flags %u", flags);
        UNIT_CHECKF(!acct_valid_dns_name(l64, flags), "64 flags %u", flags);
        UNIT_CHECKF(acct_valid_dns_name(n253, flags), "253 flags %u", flags);
        UNIT_CHECKF(!acct_valid_dns_name(n254, flags), "254 flags %u", flags);
        UNIT_CHECKF(acct_valid_dns_name(repeat('a', 63), flags)
                        == ((flags & R) != 0),
                    "one label of 63, flags %u", flags);
        UNIT_CHECKF(!acct_valid_dns_name(repeat('a', 64), flags),
                    "one label of 64, flags %u", flags);
    }
    /* The wildcard label counts toward the 253. */
    assert_true(acct_valid_dns_name(
        apr_pstrcat(pool, "*.", name_of_length(251), NULL), W));
    assert_false(acct_valid_dns_name(
        apr_pstrcat(pool, "*.", name_of_length(252), NULL), W));
}

static const apr_int64_t domain_valid[] = {
    0, 30, 120, 300, 3600, 7200, 14400, 28800, 57600, 86400, 172800, 345600,
    604800, 1209600, 2419200
};
static const apr_int64_t ttl_valid[] = {
    0, 300, 3600, 7200, 14400, 28800, 57600, 86400, 172800, 345600, 604800,
    1209600, 2419200
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Over a valid set: each value stays, everything between two neighbours
 * rounds up to the upper one (both ends and the middle probed), anything
 * at or below 0 is 0, anything above the cap is the cap.
 */
static void check_rounding(apr_int64_t (*round)(apr_int64_t),
                           const apr_int64_t *valid, size_t n, const char *what)
{
    size_t i;

    for (i = 0; i < n; i++) {
        UNIT_CHECKF(round(valid[i]) == valid[i], "%s %" APR_INT64_T_FMT, what,
                    valid[i]);
        if (i == 0) {
            continue;
        }
        UNIT_CHECKF(round(valid[i - 1] + 1) == valid[i],
                    "%s %" APR_INT64_T_FMT " + 1", what, valid[i - 1]);
        UNIT_CHECKF(round(valid[i] - 1) == valid[i],
                    "%s %" APR_INT64_T_FMT " - 1", what, valid[i]);
        UNIT_CHECKF(round((valid[i - 1] + valid[i]) / 2 + 1) == valid[i],
                    "%s between %" APR_INT64_T_FMT " and %" APR_INT64_T_FMT,
                    what, valid[i - 1], valid[i]);
    }
    UNIT_CHECK(what, round(-1) == 0);
    UNIT_CHECK(what, round(-2419200) == 0);
    UNIT_CHECK(what, round(APR_INT64_MIN) == 0);
    UNIT_CHECK(what, round(ACCT_DNS_SECONDS_MAX + 1) == ACCT_DNS_SECONDS_MAX);
    UNIT_CHECK(what, round(APR_INT64_MAX) == ACCT_DNS_SECONDS_MAX);
}

static void test_round_domain_seconds(void **state)
{
    apr_int64_t s;

    check_rounding(acct_dns_round_domain_seconds, domain_valid,
                   COUNT(domain_valid), "domain");
    for (s = 1; s <= 30; s++) {
        UNIT_CHECKF(acct_dns_round_domain_seconds(s) == 30, "%d", (int)s);
    }
}

static void test_round_record_ttl(void **state)
{
    apr_int64_t s;

    check_rounding(acct_dns_round_record_ttl, ttl_valid, COUNT(ttl_valid),
                   "ttl");
    /* The domain-only values below 300 are not record TTLs. */
    for (s = 1; s <= 300; s++) {
        UNIT_CHECKF(acct_dns_round_record_ttl(s) == 300, "%d", (int)s);
    }
}

/*
 * SOA mailboxes: the WHATWG e-mail form the public API's console validates
 * soa_email with, within what an SOA RNAME can carry.
 */
static void test_mailbox_valid(void **state)
{
    static const struct {
        const char *email;
        int valid;
    } cases[] = {
        {"hostmaster@example.com", 1},
        {"a@b", 1},                       /* a host of one label */
        {".a@example.com", 1},            /* dots anywhere: escaped in RNAME */
        {"a.@example.com", 1},
        {"a..b@example.com", 1},
        {"!#$%&'*+/=?^_`{|}~-@example.com", 1},
        {"A.B@Example.COM", 1},
        {"a@x-1.example", 1},
        {"", 0},
        {"@example.com", 0},
        {"a@", 0},
        {"a", 0},
        {"a@@example.com", 0},
        {"a@b@example.com", 0},
        {"a b@example.com", 0},
        {"a\"b@example.com", 0},
        {"a(b@example.com", 0},
        {"a,b@example.com", 0},
        {"a:b@example.com", 0},
        {"a;b@example.com", 0},
        {"a<b@example.com", 0},
        {"a[b@example.com", 0},
        {"a\\b@example.com", 0},
        {"\xc3\xa4@example.com", 0},
        {"a@b_c.example", 0},
        {"a@-b.example", 0},
        {"a@b-.example", 0},
        {"a@b..example", 0},
        {"a@.example", 0},
        {"a@example.", 0},
        {"a@exa mple.com", 0},
    };
    size_t i;
    char *s;

    for (i = 0; i < COUNT(cases); i++) {
        UNIT_CHECKF(acct_valid_mailbox(cases[i].email) == cases[i].valid,
                    "%s", cases[i].email);
    }
    /* The local part is one RNAME label: 63 octets at most. */
    UNIT_CHECK("local 63", acct_valid_mailbox(
        apr_pstrcat(pool, repeat('a', 63), "@example.com", NULL)));
    UNIT_CHECK("local 64", !acct_valid_mailbox(
        apr_pstrcat(pool, repeat('a', 64), "@example.com", NULL)));
    /* The host's labels: 63 at most. */
    UNIT_CHECK("host label 63", acct_valid_mailbox(
        apr_pstrcat(pool, "a@", repeat('b', 63), ".com", NULL)));
    UNIT_CHECK("host label 64", !acct_valid_mailbox(
        apr_pstrcat(pool, "a@", repeat('b', 64), ".com", NULL)));
    /* The RNAME a name of 253 characters at most. */
    s = apr_pstrcat(pool, "a@", name_of_length(251), NULL);
    UNIT_CHECKF(acct_valid_mailbox(s), "%d", (int)strlen(s));
    s = apr_pstrcat(pool, "a@", name_of_length(252), NULL);
    UNIT_CHECKF(!acct_valid_mailbox(s), "%d", (int)strlen(s));
}

/* Every rounded value, at every second of the range, is in its set. */
static int in_set(const apr_int64_t *valid, size_t n, apr_int64_t v)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (valid[i] == v) {
            return 1;
        }
    }
    return 0;
}

static void test_round_exhaustive(void **state)
{
    apr_int64_t s, d, t, prev_d = 0, prev_t = 0;

    for (s = 0; s <= ACCT_DNS_SECONDS_MAX + 1; s++) {
        d = acct_dns_round_domain_seconds(s);
        t = acct_dns_round_record_ttl(s);
        /* Record TTLs are the domain values from 300 up. */
        if (!in_set(domain_valid, COUNT(domain_valid), d) || d < prev_d
            || !in_set(ttl_valid, COUNT(ttl_valid), t) || t < prev_t
            || t < d || (d >= 300 && t != d)) {
            fail_msg("at %" APR_INT64_T_FMT ": domain %" APR_INT64_T_FMT
                     " ttl %" APR_INT64_T_FMT, s, d, t);
        }
        if (s <= ACCT_DNS_SECONDS_MAX && (d < s || t < s)) {
            fail_msg("rounded down at %" APR_INT64_T_FMT, s);
        }
        prev_d = d;
        prev_t = t;
    }
}

/* --------------------------------------------------------------------
 * acct_dns_touch on a real database
 * -------------------------------------------------------------------- */


/* A domain of a fresh account with the given serial; returns its id. */
static apr_int64_t add_domain(unit_db *db, const char *name, apr_int64_t serial)
{
    static int users;
    acct_principal who;
    acct_rows *rows = NULL;
    apr_int64_t id;

    unit_identity(db, apr_psprintf(db->pool, "dnsowner%d", ++users), 0, "*",
                  &who);
    assert_int_equal(
        acct_store_exec_script(db->store, db->pool, apr_psprintf(db->pool,
            "INSERT INTO domains (account_id, domain, domain_key, type,"
            " soa_email, serial, created, updated) VALUES (%" APR_INT64_T_FMT
            ", '%s', '%s', 'master', 'a@%s', %" APR_INT64_T_FMT ", 1, 1)",
            who.account_id, name, name, name, serial)),
        ACCT_STORE_OK);
    assert_int_equal(acct_store_select_dynamic(db->store, db->pool,
        apr_psprintf(db->pool, "SELECT id FROM domains WHERE domain_key = '%s'",
                     name), &rows, 0, NULL), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    assert_int_equal(acct_parse_i64(acct_rows_get(rows, 0, "id"), &id), 0);
    return id;
}

/* serial and updated of domain `id`. */
static void read_domain(unit_db *db, apr_int64_t id, apr_int64_t *serial,
                        apr_int64_t *updated)
{
    const char *args[1] = {acct_i64(db->pool, id)};
    acct_rows *rows = NULL;

    assert_int_equal(acct_store_select_dynamic(db->store, db->pool,
        "SELECT serial, updated FROM domains WHERE id = CAST(%s AS BIGINT)",
        &rows, 1, args), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    assert_int_equal(acct_parse_i64(acct_rows_get(rows, 0, "serial"), serial),
                     0);
    assert_int_equal(acct_parse_i64(acct_rows_get(rows, 0, "updated"), updated),
                     0);
}

static void touch_and_check(unit_db *db, apr_int64_t id, apr_int64_t now,
                            apr_int64_t want_serial)
{
    apr_int64_t serial, updated;

    assert_int_equal(acct_dns_touch(db->store, db->pool, id, now),
                     ACCT_STORE_OK);
    read_domain(db, id, &serial, &updated);
    UNIT_CHECKF(serial == want_serial,
                "touch at %" APR_INT64_T_FMT ": serial %" APR_INT64_T_FMT
                ", want %" APR_INT64_T_FMT, now, serial, want_serial);
    UNIT_CHECKF(updated == now, "touch at %" APR_INT64_T_FMT ": updated %"
                APR_INT64_T_FMT, now, updated);
}

static void test_touch(void **state)
{
    unit_db *db = *state;
    apr_int64_t a = add_domain(db, "touch-a.example", 2000000000);
    apr_int64_t b = add_domain(db, "touch-b.example", 0);
    apr_int64_t serial, updated;

    /* A clock behind the serial: the serial still grows, by one. */
    touch_and_check(db, a, 1700000000, 2000000001);
    touch_and_check(db, a, 1700000000, 2000000002);
    /* A clock equal to the serial: serial + 1 wins. */
    touch_and_check(db, a, 2000000002, 2000000003);
    /* A clock ahead: the serial jumps to now. */
    touch_and_check(db, a, 2000005000, 2000005000);
    /* Many changes in the same second: strictly growing. */
    touch_and_check(db, a, 2000005000, 2000005001);
    touch_and_check(db, a, 2000005000, 2000005002);
    /* A fresh domain (serial 0) takes the time. */
    touch_and_check(db, b, 1700000000, 1700000000);
    /* Each touch changes only its own domain. */
    read_domain(db, a, &serial, &updated);
    assert_int_equal(serial, 2000005002);
    assert_int_equal(updated, 2000005000);
    /* An unknown domain changes nothing and is no error. */
    assert_int_equal(acct_dns_touch(db->store, db->pool, b + 1000, 1),
                     ACCT_STORE_OK);
}

/* The sqlite3 driver needs apr_dbd initialised once, on a pool that lives
 * as long as the program. */
static apr_pool_t *root;

static int group_setup(void **state)
{
    if (apr_pool_create(&root, NULL) != APR_SUCCESS) {
        return -1;
    }
    return apr_dbd_init(root) == APR_SUCCESS ? 0 : -1;
}

static int group_teardown(void **state)
{
    apr_pool_destroy(root);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_name_valid_table),
        UNIT_TEST(test_name_lengths),
        UNIT_TEST(test_round_domain_seconds),
        UNIT_TEST(test_round_record_ttl),
        UNIT_TEST(test_round_exhaustive),
        UNIT_TEST(test_mailbox_valid),
        UNIT_DB_TEST(test_touch),
    };

    return UNIT_RUN_GROUP(tests, group_setup, group_teardown);
}
