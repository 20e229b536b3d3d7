/* The zone renderer on rows built in memory (every record type, escaping,
 * TXT chunking, names, defaults), the rendered zones checked by BIND's
 * named-checkzone, and GET /domains/{id}/zone-file on a migrated SQLite
 * database. */
#include "unit.h"

#include <apr_dbd.h>
#include <apr_strings.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit_db.h"
#include "acct_auth.h"
#include "acct_dns.h"
#include "acct_ident.h"
#include "acct_zone.h"
#include "api_handlers.h"

#define NAMED_CHECKZONE "/usr/bin/named-checkzone"

/* --------------------------------------------------------------------
 * Rows built in memory
 * -------------------------------------------------------------------- */

/* A result set of `nrows` rows of `ncols` cells each (row-major). */
static acct_rows *make_rows(int ncols, const char *const *names, int nrows,
                            const char *const *cells)
{
    acct_rows *r = apr_pcalloc(pool, sizeof(*r));
    int i, j;

    r->ncols = ncols;
    r->nrows = nrows;
    r->names = apr_palloc(pool, (size_t)ncols * sizeof(*r->names));
    for (j = 0; j < ncols; j++) {
        r->names[j] = names[j];
    }
    r->values = apr_palloc(pool, (size_t)(nrows ? nrows : 1)
                                     * sizeof(*r->values));
    for (i = 0; i < nrows; i++) {
        r->values[i] = apr_palloc(pool, (size_t)ncols * sizeof(**r->values));
        for (j = 0; j < ncols; j++) {
            r->values[i][j] = cells[i * ncols + j];
        }
    }
    return r;
}

typedef struct {
    const char *domain, *soa_email;
    const char *expire, *refresh, *retry, *ttl, *serial;
} domain_spec;

/* One row of ACCT_DOMAIN_COLUMNS, id 7. */
static acct_rows *domain_row(const domain_spec *d)
{
    static const char *const names[] = {
        "id", "account_id", "domain", "type", "status", "description",
        "group_name", "soa_email", "master_ips", "axfr_ips", "expire_sec",
        "refresh_sec", "retry_sec", "ttl_sec", "serial", "record_count",
        "created", "updated"
    };
    const char *cells[] = {
        "7", "1", d->domain, "master", "active", "", "", d->soa_email, "[]",
        "[]", d->expire, d->refresh, d->retry, d->ttl, d->serial, "0",
        "1700000000", "1700000000"
    };

    return make_rows(18, names, 1, cells);
}

typedef struct {
    const char *type, *name, *target;
    const char *priority, *weight, *port, *ttl, *tag;
} rec;

/* Rows of ACCT_ZONE_RECORD_COLUMNS, ids 1..n in the given order. */
static acct_rows *record_rows(const rec *recs, int n)
{
    static const char *const names[] = {
        "id", "type", "name", "target", "priority", "weight", "port",
        "ttl_sec", "tag"
    };
    const char **cells = apr_palloc(pool, (size_t)(n ? n : 1) * 9
                                              * sizeof(*cells));
    int i;

    for (i = 0; i < n; i++) {
        const char **c = cells + i * 9;

        c[0] = apr_itoa(pool, i + 1);
        c[1] = recs[i].type;
        c[2] = recs[i].name;
        c[3] = recs[i].target;
        c[4] = recs[i].priority ? recs[i].priority : "0";
        c[5] = recs[i].weight ? recs[i].weight : "0";
        c[6] = recs[i].port ? recs[i].port : "0";
        c[7] = recs[i].ttl ? recs[i].ttl : "0";
        c[8] = recs[i].tag;
    }
    return make_rows(9, names, n, cells);
}

static const char *const two_ns[] = {"ns1.example.net", "ns2.example.net",
                                     NULL};

/* A label of the maximum length, 63 characters. */
#define LABEL63 \
    "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0"

static const domain_spec zone_test = {
    "zone-test.example", "first.last@zone-test.example", "0", "0", "0", "0",
    "2024010101"
};

static const char *line_at(const apr_array_header_t *lines, int i)
{
    return APR_ARRAY_IDX(lines, i, const char *);
}

/* The lines are exactly `want` (n of them). */
static void check_lines(const apr_array_header_t *lines,
                        const char *const *want, int n)
{
    int i;

    for (i = 0; i < n && i < lines->nelts; i++) {
        UNIT_CHECKF(strcmp(line_at(lines, i), want[i]) == 0,
                    "line %d is '%s', want '%s'", i, line_at(lines, i),
                    want[i]);
    }
    UNIT_CHECKF(lines->nelts == n, "%d lines, want %d", lines->nelts, n);
}

/* The rendered line of one record in the zone-test domain. */
static const char *render_one(const rec *r)
{
    apr_array_header_t *lines = acct_zone_render(pool, domain_row(&zone_test),
                                                 0, record_rows(r, 1), two_ns);

    assert_int_equal(lines->nelts, 6);
    return line_at(lines, 5);
}

/* --------------------------------------------------------------------
 * The head of the zone: comment, $TTL, SOA, NS
 * -------------------------------------------------------------------- */

static void test_head_defaults(void **state)
{
    static const char *const want[] = {
        "; Zone file of zone-test.example. (domain 7)",
        "$TTL 86400",
        "zone-test.example. IN SOA ns1.example.net."
        " first\\.last.zone-test.example. 2024010101 14400 14400 1209600 86400",
        "zone-test.example. IN NS ns1.example.net.",
        "zone-test.example. IN NS ns2.example.net.",
    };

    check_lines(acct_zone_render(pool, domain_row(&zone_test), 0, NULL,
                                 two_ns),
                want, 5);
    /* An empty record set renders the same head. */
    check_lines(acct_zone_render(pool, domain_row(&zone_test), 0,
                                 record_rows(NULL, 0), two_ns),
                want, 5);
}

static void test_head_timers(void **state)
{
    static const domain_spec d = {
        "Timers.Example", "admin@timers.example", "2419200", "30", "120",
        "3600", "5"
    };
    static const char *const ns[] = {"a.ns.example.org.", NULL};
    static const char *const want[] = {
        "; Zone file of Timers.Example. (domain 7)",
        "$TTL 3600",
        "Timers.Example. IN SOA a.ns.example.org. admin.timers.example. 5 30"
        " 120 2419200 3600",
        "Timers.Example. IN NS a.ns.example.org.",
    };

    check_lines(acct_zone_render(pool, domain_row(&d), 0, NULL, ns), want, 4);
}

/* Without nameservers the apex is the primary and no NS line appears. */
static void test_head_without_nameservers(void **state)
{
    static const char *const none[] = {NULL};
    static const char *const want[] = {
        "; Zone file of zone-test.example. (domain 7)",
        "$TTL 86400",
        "zone-test.example. IN SOA zone-test.example."
        " first\\.last.zone-test.example. 2024010101 14400 14400 1209600 86400",
    };

    check_lines(acct_zone_render(pool, domain_row(&zone_test), 0, NULL, NULL),
                want, 3);
    check_lines(acct_zone_render(pool, domain_row(&zone_test), 0, NULL, none),
                want, 3);
}

/* Serials are 32-bit sequence numbers; missing numbers count as 0. */
static void test_head_serial(void **state)
{
    domain_spec d = zone_test;

    d.serial = "4294967295";
    assert_non_null(strstr(line_at(acct_zone_render(pool, domain_row(&d), 0,
                                                    NULL, two_ns), 2),
                           " 4294967295 14400 "));
    d.serial = "4294967301";
    assert_non_null(strstr(line_at(acct_zone_render(pool, domain_row(&d), 0,
                                                    NULL, two_ns), 2),
                           " 5 14400 "));
    d.serial = NULL;
    d.ttl = NULL;
    d.expire = "junk";
    assert_string_equal(line_at(acct_zone_render(pool, domain_row(&d), 0,
                                                 NULL, two_ns), 2),
                        "zone-test.example. IN SOA ns1.example.net."
                        " first\\.last.zone-test.example. 0 14400 14400"
                        " 1209600 86400");
}

typedef struct {
    const char *email, *domain, *rname;
} rname_case;

static const rname_case rname_cases[] = {
    {"admin@example.com", "example.com", "admin.example.com."},
    {"first.last@example.com", "example.com", "first\\.last.example.com."},
    {"a.b.c@mail.example.org", "example.com", "a\\.b\\.c.mail.example.org."},
    {"x+tag@example.com", "example.com", "x+tag.example.com."},
    {"we\"ird;(x)@example.com", "example.com",
     "we\\\"ird\\;\\(x\\).example.com."},
    {"back\\slash@example.com", "example.com", "back\\\\slash.example.com."},
    {"sp ace@example.com", "example.com", "sp\\ ace.example.com."},
    {"d$llar@example.com", "example.com", "d\\$llar.example.com."},
    {"caf\xc3\xa9@example.com", "example.com", "caf\\195\\169.example.com."},
    {"\"a@b\"@example.com", "example.com", "\\\"a\\@b\\\".example.com."},
    {"admin@Example.COM.", "example.com", "admin.Example.COM."},
    {NULL, "example.com", "hostmaster.example.com."},
    {"", "example.com", "hostmaster.example.com."},
    {"no-at-sign", "example.com", "hostmaster.example.com."},
    {"@example.com", "example.com", "hostmaster.example.com."},
    {"admin@", "example.com", "hostmaster.example.com."},
};

static void test_rname(void **state)
{
    size_t i;

    for (i = 0; i < sizeof(rname_cases) / sizeof(rname_cases[0]); i++) {
        const rname_case *c = &rname_cases[i];
        const char *got = acct_zone_rname(pool, c->email, c->domain);

        UNIT_CHECKF(strcmp(got, c->rname) == 0, "'%s' gave '%s', want '%s'",
                    c->email ? c->email : "(null)", got, c->rname);
    }
}

/* --------------------------------------------------------------------
 * Records
 * -------------------------------------------------------------------- */

/* Every type, apex and wildcard names, TTLs, Null MX: one line each. */
static const rec all_types[] = {
    {"A", "", "192.0.2.1", 0, 0, 0, 0, 0},
    {"A", "www", "192.0.2.2", 0, 0, 0, "3600", 0},
    {"AAAA", "www", "2001:db8::1", 0, 0, 0, 0, 0},
    {"A", "mail", "192.0.2.3", 0, 0, 0, "300", 0},
    {"A", "sip", "192.0.2.4", 0, 0, 0, 0, 0},
    {"A", "host", "192.0.2.5", 0, 0, 0, 0, 0},
    {"NS", "sub", "ns1.other.example", 0, 0, 0, "86400", 0},
    {"NS", "sub", "ns2.other.example", 0, 0, 0, 0, 0},
    {"MX", "", "mail.zone-test.example", "10", 0, 0, 0, 0},
    {"MX", "", "mx.other.example", "20", 0, 0, "7200", 0},
    {"MX", "nomail", "", "0", 0, 0, 0, 0},
    {"MX", "*.dev", "mail.zone-test.example", "5", 0, 0, 0, 0},
    {"CNAME", "alias", "www.zone-test.example", 0, 0, 0, 0, 0},
    {"CNAME", "ext", "target.other.example", 0, 0, 0, "2419200", 0},
    {"TXT", "", "v=spf1 mx -all", 0, 0, 0, 0, 0},
    {"TXT", "_dmarc", "v=DMARC1; p=none", 0, 0, 0, "300", 0},
    {"TXT", "quote", "say \"hi\" \\ (ok); $x", 0, 0, 0, 0, 0},
    {"SRV", "_sip._tcp", "sip.zone-test.example", "10", "20", "5060", "300",
     0},
    {"SRV", "_xmpp._udp", "xmpp.other.example", "0", "0", "0", 0, 0},
    {"PTR", "1", "host.zone-test.example", 0, 0, 0, 0, 0},
    {"PTR", "2.0", "other.example", 0, 0, 0, "3600", 0},
    {"CAA", "", "letsencrypt.org", 0, 0, 0, 0, "issue"},
    {"CAA", "", "letsencrypt.org; validationmethods=dns-01", 0, 0, 0, 0,
     "issue"},
    {"CAA", "", ";", 0, 0, 0, 0, "issuewild"},
    {"CAA", "", "mailto:security@zone-test.example", 0, 0, 0, "3600",
     "iodef"},
    {"CAA", "www", "https://iodef.example/report", 0, 0, 0, 0, "iodef"},
    {"A", "*", "192.0.2.9", 0, 0, 0, 0, 0},
    {"AAAA", "*.wild", "2001:db8::9", 0, 0, 0, 0, 0},
    {"A", "a.b.c.deep", "192.0.2.10", 0, 0, 0, 0, 0},
    {"MX", "wild", "*.mail.other.example", "10", 0, 0, 0, 0},
    {"PTR", "0/26", "classless.other.example", 0, 0, 0, 0, 0},
    {"CNAME", "_svc", "_target.other.example", 0, 0, 0, 0, 0},
};

static const char *const all_types_lines[] = {
    "zone-test.example. IN A 192.0.2.1",
    "www.zone-test.example. 3600 IN A 192.0.2.2",
    "www.zone-test.example. IN AAAA 2001:db8::1",
    "mail.zone-test.example. 300 IN A 192.0.2.3",
    "sip.zone-test.example. IN A 192.0.2.4",
    "host.zone-test.example. IN A 192.0.2.5",
    "sub.zone-test.example. 86400 IN NS ns1.other.example.",
    "sub.zone-test.example. IN NS ns2.other.example.",
    "zone-test.example. IN MX 10 mail.zone-test.example.",
    "zone-test.example. 7200 IN MX 20 mx.other.example.",
    "nomail.zone-test.example. IN MX 0 .",
    "*.dev.zone-test.example. IN MX 5 mail.zone-test.example.",
    "alias.zone-test.example. IN CNAME www.zone-test.example.",
    "ext.zone-test.example. 2419200 IN CNAME target.other.example.",
    "zone-test.example. IN TXT \"v=spf1 mx -all\"",
    "_dmarc.zone-test.example. 300 IN TXT \"v=DMARC1; p=none\"",
    "quote.zone-test.example. IN TXT \"say \\\"hi\\\" \\\\ (ok); $x\"",
    "_sip._tcp.zone-test.example. 300 IN SRV 10 20 5060"
    " sip.zone-test.example.",
    "_xmpp._udp.zone-test.example. IN SRV 0 0 0 xmpp.other.example.",
    "1.zone-test.example. IN PTR host.zone-test.example.",
    "2.0.zone-test.example. 3600 IN PTR other.example.",
    "zone-test.example. IN CAA 0 issue \"letsencrypt.org\"",
    "zone-test.example. IN CAA 0 issue"
    " \"letsencrypt.org; validationmethods=dns-01\"",
    "zone-test.example. IN CAA 0 issuewild \";\"",
    "zone-test.example. 3600 IN CAA 0 iodef"
    " \"mailto:security@zone-test.example\"",
    "www.zone-test.example. IN CAA 0 iodef \"https://iodef.example/report\"",
    "*.zone-test.example. IN A 192.0.2.9",
    "*.wild.zone-test.example. IN AAAA 2001:db8::9",
    "a.b.c.deep.zone-test.example. IN A 192.0.2.10",
    "wild.zone-test.example. IN MX 10 *.mail.other.example.",
    "0/26.zone-test.example. IN PTR classless.other.example.",
    "_svc.zone-test.example. IN CNAME _target.other.example.",
};

#define N_ALL (int)(sizeof(all_types) / sizeof(all_types[0]))

static void test_every_type(void **state)
{
    apr_array_header_t *lines;
    int i;

    assert_int_equal(N_ALL, (int)(sizeof(all_types_lines)
                                  / sizeof(all_types_lines[0])));
    lines = acct_zone_render(pool, domain_row(&zone_test), 0,
                             record_rows(all_types, N_ALL), two_ns);
    assert_int_equal(lines->nelts, 5 + N_ALL);
    for (i = 0; i < N_ALL; i++) {
        UNIT_CHECKF(strcmp(line_at(lines, 5 + i), all_types_lines[i]) == 0,
                    "record %d: '%s', want '%s'", i + 1, line_at(lines, 5 + i),
                    all_types_lines[i]);
    }
}

/* Records keep the order they are given in (the query's, by id). */
static void test_order_kept(void **state)
{
    rec two[2];
    apr_array_header_t *lines;

    two[0] = all_types[14];
    two[1] = all_types[0];
    lines = acct_zone_render(pool, domain_row(&zone_test), 0,
                             record_rows(two, 2), two_ns);
    assert_string_equal(line_at(lines, 5), all_types_lines[14]);
    assert_string_equal(line_at(lines, 6), all_types_lines[0]);
}

/* Targets stored with a trailing dot are not doubled; other bytes of a bad
 * row are escaped rather than breaking the line. */
static void test_names_defensive(void **state)
{
    rec r = {"CNAME", "alias", "www.other.example.", 0, 0, 0, 0, 0};

    assert_string_equal(render_one(&r),
                        "alias.zone-test.example. IN CNAME www.other.example.");
    r.name = "bad name;x";
    r.target = "t(a)rget\".example";
    assert_string_equal(render_one(&r),
                        "bad\\ name\\;x.zone-test.example. IN CNAME"
                        " t\\(a\\)rget\\\".example.");
    r.name = "caf\xc3\xa9";
    r.target = "a\nb.example";
    assert_string_equal(render_one(&r),
                        "caf\\195\\169.zone-test.example. IN CNAME"
                        " a\\010b.example.");
}

/* 63-character labels and 253-character names come out whole. */
static void test_long_names(void **state)
{
    const char *l63 = LABEL63;
    domain_spec d = zone_test;
    rec r = {"CNAME", NULL, NULL, 0, 0, 0, 0, 0};
    apr_array_header_t *lines;
    const char *name, *target;

    assert_int_equal(strlen(l63), 63);
    /* A domain of 127 characters, a record name of 100, a target of 253. */
    d.domain = apr_pstrcat(pool, l63, ".", l63, NULL);
    name = apr_pstrcat(pool, l63, ".", apr_pstrndup(pool, l63, 36), NULL);
    target = apr_pstrcat(pool, l63, ".", l63, ".", l63, ".",
                         apr_pstrndup(pool, l63, 61), NULL);
    assert_int_equal(strlen(name), 100);
    assert_int_equal(strlen(target), 253);
    r.name = name;
    r.target = target;
    lines = acct_zone_render(pool, domain_row(&d), 0, record_rows(&r, 1),
                             two_ns);
    assert_string_equal(line_at(lines, 5),
                        apr_pstrcat(pool, name, ".", d.domain, ". IN CNAME ",
                                    target, ".", NULL));
    assert_string_equal(line_at(lines, 3),
                        apr_pstrcat(pool, d.domain,
                                    ". IN NS ns1.example.net.", NULL));
}

/* --------------------------------------------------------------------
 * TXT values
 * -------------------------------------------------------------------- */

/*
 * Reads back the character-strings of a TXT RDATA: each chunk must be a
 * quoted string of at most 255 bytes once unescaped, separated by single
 * spaces.  Returns the concatenation; `starts` gets the offset of each
 * chunk in it.
 */
static char *unquote_all(const char *rdata, apr_array_header_t *starts,
                         size_t *len)
{
    char *out = apr_palloc(pool, strlen(rdata) + 1), *o = out;
    const char *p = rdata;

    for (;;) {
        size_t n = 0;

        APR_ARRAY_PUSH(starts, size_t) = (size_t)(o - out);
        UNIT_CHECKF(*p == '"', "chunk %d does not open with a quote: %.40s",
                    starts->nelts, p);
        for (p++; *p != '"'; p++, n++) {
            unsigned char c = (unsigned char)*p;

            UNIT_CHECKF(c >= 0x20 && c < 0x7f, "raw byte %u in rdata", c);
            if (c != '\\') {
                *o++ = (char)c;
                continue;
            }
            p++;
            if (p[0] >= '0' && p[0] <= '9') {
                *o++ = (char)((p[0] - '0') * 100 + (p[1] - '0') * 10
                              + (p[2] - '0'));
                p += 2;
            }
            else {
                UNIT_CHECKF(*p == '"' || *p == '\\', "needless escape \\%c",
                            *p);
                *o++ = *p;
            }
        }
        UNIT_CHECKF(n <= 255, "chunk %d holds %zu bytes", starts->nelts, n);
        p++;
        if (*p == '\0') {
            break;
        }
        UNIT_CHECKF(p[0] == ' ' && p[1] == '"', "bad separator at %.20s", p);
        p++;
    }
    *len = (size_t)(o - out);
    return out;
}

/* The RDATA of a TXT record holding `value`. */
static const char *txt_rdata_of(const char *value)
{
    rec r = {"TXT", "t", value, 0, 0, 0, 0, 0};
    const char *line = render_one(&r);
    const char *prefix = "t.zone-test.example. IN TXT ";

    assert_memory_equal(line, prefix, strlen(prefix));
    return line + strlen(prefix);
}

/*
 * Renders `value`, reads it back, checks the chunk count; in a UTF-8
 * `value` no chunk may start inside a character.
 */
static void check_txt(const char *value, int want_chunks, int utf8,
                      const char *what)
{
    apr_array_header_t *starts = apr_array_make(pool, 8, sizeof(size_t));
    size_t len, at;
    char *back = unquote_all(txt_rdata_of(value), starts, &len);
    int i;

    UNIT_CHECKF(len == strlen(value) && memcmp(back, value, len) == 0,
                "%s: the value does not read back", what);
    UNIT_CHECKF(starts->nelts == want_chunks, "%s: %d chunks, want %d", what,
                starts->nelts, want_chunks);
    for (i = 1; utf8 && i < starts->nelts; i++) {
        at = APR_ARRAY_IDX(starts, i, size_t);
        UNIT_CHECKF(((unsigned char)value[at] & 0xC0) != 0x80,
                    "%s: chunk %d starts inside a character", what, i);
    }
}

static char *filled(size_t n, char c)
{
    char *s = apr_palloc(pool, n + 1);

    memset(s, c, n);
    s[n] = '\0';
    return s;
}

static void test_txt_escaping(void **state)
{
    assert_string_equal(txt_rdata_of(""), "\"\"");
    assert_string_equal(txt_rdata_of("plain text"), "\"plain text\"");
    assert_string_equal(txt_rdata_of("a\"b"), "\"a\\\"b\"");
    assert_string_equal(txt_rdata_of("a\\b"), "\"a\\\\b\"");
    assert_string_equal(txt_rdata_of("\\\""), "\"\\\\\\\"\"");
    assert_string_equal(txt_rdata_of("; ( ) $ @ ' \t"),
                        "\"; ( ) $ @ ' \\009\"");
    assert_string_equal(txt_rdata_of("line\r\nnext\x7f"),
                        "\"line\\013\\010next\\127\"");
    assert_string_equal(txt_rdata_of("caf\xc3\xa9"), "\"caf\\195\\169\"");
    check_txt("mixed \"quotes\" and \\backslashes\\ \xe2\x82\xac", 1, 1,
              "mixed");
}

static void test_txt_chunks(void **state)
{
    char *s;

    check_txt("x", 1, 1, "1 byte");
    check_txt(filled(254, 'a'), 1, 1, "254 bytes");
    check_txt(filled(255, 'a'), 1, 1, "255 bytes");
    check_txt(filled(256, 'a'), 2, 1, "256 bytes");
    check_txt(filled(510, 'a'), 2, 1, "510 bytes");
    check_txt(filled(511, 'a'), 3, 1, "511 bytes");
    check_txt(filled(65535, 'v'), 257, 1, "65535 bytes");
    /* The limit is on bytes, not on the escaped text. */
    check_txt(filled(255, '"'), 1, 1, "255 quotes");
    check_txt(filled(256, '\\'), 2, 1, "256 backslashes");
    assert_string_equal(txt_rdata_of(filled(256, 'a')),
                        apr_pstrcat(pool, "\"", filled(255, 'a'), "\" \"a\"",
                                    NULL));
    /* A 2-byte character across the 255th byte moves to the next chunk. */
    s = apr_pstrcat(pool, filled(254, 'a'), "\xc3\xa9", "b", NULL);
    check_txt(s, 2, 1, "2-byte character at 254");
    assert_string_equal(txt_rdata_of(s),
                        apr_pstrcat(pool, "\"", filled(254, 'a'),
                                    "\" \"\\195\\169b\"", NULL));
    /* A 3-byte one ending exactly at 255 stays. */
    s = apr_pstrcat(pool, filled(252, 'a'), "\xe2\x82\xac", "b", NULL);
    check_txt(s, 2, 1, "3-byte character ending at 255");
    assert_non_null(strstr(txt_rdata_of(s), "\\226\\130\\172\" \"b\""));
    /* Only 4-byte characters: every chunk ends on a boundary (252 bytes). */
    s = apr_pstrdup(pool, "");
    while (strlen(s) < 1000) {
        s = apr_pstrcat(pool, s, "\xf0\x9f\x98\x80", NULL);
    }
    check_txt(s, 4, 1, "4-byte characters");
    /* Invalid UTF-8 (continuation bytes only) still splits at 255. */
    check_txt(filled(300, '\x80'), 2, 0, "continuation bytes");
}

/* --------------------------------------------------------------------
 * named-checkzone
 * -------------------------------------------------------------------- */

/* Writes `lines` to a temporary file; returns its path. */
static const char *write_zone(const apr_array_header_t *lines)
{
    char *path = apr_pstrdup(pool, "/tmp/acct-zone-XXXXXX");
    int fd = mkstemp(path), i;
    FILE *f;

    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    assert_non_null(f);
    for (i = 0; i < lines->nelts; i++) {
        fprintf(f, "%s\n", line_at(lines, i));
    }
    assert_int_equal(fclose(f), 0);
    return path;
}

/* Runs named-checkzone on the lines; returns its exit status and output. */
static int checkzone(const char *origin, const apr_array_header_t *lines,
                     const char **output)
{
    const char *path = write_zone(lines);
    char buf[4096];
    size_t n;
    FILE *p;
    int status;

    p = popen(apr_psprintf(pool, "%s %s %s 2>&1", NAMED_CHECKZONE, origin,
                           path), "r");
    assert_non_null(p);
    n = fread(buf, 1, sizeof(buf) - 1, p);
    buf[n] = '\0';
    status = pclose(p);
    unlink(path);
    *output = apr_pstrdup(pool, buf);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void expect_loads(const char *origin, const apr_array_header_t *lines,
                         const char *what)
{
    const char *out;
    int rc = checkzone(origin, lines, &out);

    UNIT_CHECKF(rc == 0, "%s: named-checkzone exit %d:\n%s", what, rc, out);
}

static void skip_without_checkzone(void)
{
    if (access(NAMED_CHECKZONE, X_OK) != 0) {
        print_message("skipped: %s is not installed\n", NAMED_CHECKZONE);
        skip();
    }
}

/* The check itself fails a broken zone (one string of 256 bytes). */
static void test_checkzone_catches_errors(void **state)
{
    apr_array_header_t *lines;
    const char *out;

    skip_without_checkzone();
    lines = acct_zone_render(pool, domain_row(&zone_test), 0, NULL, two_ns);
    APR_ARRAY_PUSH(lines, const char *) = apr_pstrcat(
        pool, "t.zone-test.example. IN TXT \"", filled(256, 'a'), "\"", NULL);
    assert_int_not_equal(checkzone("zone-test.example", lines, &out), 0);
}

static void test_checkzone_every_type(void **state)
{
    skip_without_checkzone();
    expect_loads("zone-test.example",
                 acct_zone_render(pool, domain_row(&zone_test), 0,
                                  record_rows(all_types, N_ALL), two_ns),
                 "every type");
}

static void test_checkzone_heads(void **state)
{
    domain_spec d = zone_test;
    static const char *const one_ns[] = {"ns.example.net", NULL};

    skip_without_checkzone();
    expect_loads("zone-test.example",
                 acct_zone_render(pool, domain_row(&d), 0, NULL, two_ns),
                 "no records");
    d.soa_email = NULL;
    d.expire = "30";
    d.refresh = "2419200";
    d.retry = "300";
    d.ttl = "30";
    d.serial = "4294967295";
    expect_loads("zone-test.example",
                 acct_zone_render(pool, domain_row(&d), 0, NULL, one_ns),
                 "timers, no soa_email");
    d.soa_email = "we\"ird;(x) y\\z.w@example.com";
    expect_loads("zone-test.example",
                 acct_zone_render(pool, domain_row(&d), 0, NULL, one_ns),
                 "escaped mailbox");
}

/* Long, escaped and non-ASCII TXT values, and the longest names. */
static void test_checkzone_long_values(void **state)
{
    const char *l63 = LABEL63;
    domain_spec d = zone_test;
    rec recs[6];
    char *mixed = apr_pstrdup(pool, "");
    int i;

    skip_without_checkzone();
    while (strlen(mixed) < 3000) {
        mixed = apr_pstrcat(pool, mixed, "q\"b\\s; caf\xc3\xa9 \xe2\x82\xac ",
                            NULL);
    }
    d.domain = apr_pstrcat(pool, l63, ".", l63, NULL);
    for (i = 0; i < 6; i++) {
        memset(&recs[i], 0, sizeof(recs[i]));
    }
    recs[0].type = "TXT";
    recs[0].name = "";
    recs[0].target = mixed;
    recs[1].type = "TXT";
    recs[1].name = "big";
    recs[1].target = filled(60000, 'z');
    recs[2].type = "CNAME";
    recs[2].name = apr_pstrcat(pool, l63, ".", apr_pstrndup(pool, l63, 36),
                               NULL);
    recs[2].target = apr_pstrcat(pool, l63, ".", l63, ".", l63, ".",
                                 apr_pstrndup(pool, l63, 61), NULL);
    recs[3].type = "CAA";
    recs[3].name = "";
    recs[3].target = "ca.example; account=\"x\"";
    recs[3].tag = "issue";
    recs[4].type = "TXT";
    recs[4].name = "*";
    recs[4].target = filled(255, '"');
    recs[5].type = "MX";
    recs[5].name = "nomail";
    recs[5].target = "";
    expect_loads(d.domain,
                 acct_zone_render(pool, domain_row(&d), 0, record_rows(recs, 6),
                                  two_ns),
                 "long values");
}

/* --------------------------------------------------------------------
 * GET /domains/{domainId}/zone-file
 * -------------------------------------------------------------------- */

static const acct_settings zone_settings = {0, 0, "https://r.example/", NULL,
                                            NULL, two_ns};


static void run_sql(unit_db *db, const char *sql)
{
    assert_int_equal(acct_store_exec_script(db->store, db->pool, sql),
                     ACCT_STORE_OK);
}

static apr_int64_t last_id(unit_db *db, const char *table)
{
    acct_rows *rows = NULL;
    apr_int64_t id;

    assert_int_equal(acct_store_select_dynamic(db->store, db->pool,
        apr_psprintf(db->pool, "SELECT MAX(id) AS id FROM %s", table), &rows,
        0, NULL), ACCT_STORE_OK);
    assert_int_equal(acct_parse_i64(acct_rows_get(rows, 0, "id"), &id), 0);
    return id;
}

/* A domain of `account` (SQL values text for type/status/soa_email). */
static apr_int64_t add_domain(unit_db *db, apr_int64_t account,
                              const char *name, const char *type,
                              const char *status, const char *soa)
{
    run_sql(db, apr_psprintf(db->pool,
        "INSERT INTO domains (account_id, domain, domain_key, type, status,"
        " soa_email, ttl_sec, serial, created, updated) VALUES (%"
        APR_INT64_T_FMT ", '%s', lower('%s'), '%s', '%s', %s, 3600,"
        " 2024060101, 1, 1)", account, name, name, type, status, soa));
    return last_id(db, "domains");
}

static void add_record(unit_db *db, apr_int64_t domain, const char *type,
                       const char *name, const char *target)
{
    run_sql(db, apr_psprintf(db->pool,
        "INSERT INTO domain_records (domain_id, type, name, target, priority,"
        " created, updated) VALUES (%" APR_INT64_T_FMT ", '%s', '%s', '%s',"
        " %d, 1, 1)", domain, type, name, target,
        strcmp(type, "MX") == 0 ? 10 : 0));
}

/* A user of `account` (restricted or not) and its principal. */
static void account_user(unit_db *db, apr_int64_t account, const char *name,
                         int restricted, acct_principal *who)
{
    unit_member(db, account, name, restricted, apr_time_sec(apr_time_now()),
                who);
}

/* Calls the handler for path parameter `id`; the document, parsed. */
static json_t *get_zone(unit_db *db, const acct_principal *who, const char *id,
                        int *status)
{
    acct_req *req = unit_req(db, who);
    json_t *doc;

    req->settings = &zone_settings;
    req->params[0] = id;
    doc = json_loads(unit_call(req, api_zone_file, status), 0, NULL);
    assert_non_null(doc);
    return doc;
}

static void expect_error(unit_db *db, const acct_principal *who,
                         const char *id, int status, const char *reason)
{
    int got;
    json_t *doc = get_zone(db, who, id, &got);

    UNIT_CHECKF(got == status, "id '%s': status %d, want %d", id, got, status);
    assert_string_equal(json_string_value(json_object_get(json_array_get(
                            json_object_get(doc, "errors"), 0), "reason")),
                        reason);
    json_decref(doc);
}

static const char *zone_line(json_t *doc, size_t i)
{
    return json_string_value(json_array_get(json_object_get(doc, "zone_file"),
                                            i));
}

static void test_handler(void **state)
{
    unit_db *db = *state;
    acct_principal owner, other, restricted;
    apr_int64_t d1, d2, d3, d_other;
    const char *id1;
    json_t *doc;
    int status;

    unit_identity(db, "zoneowner", 0, "*", &owner);
    unit_identity(db, "zoneother", 0, "*", &other);
    d1 = add_domain(db, owner.account_id, "Handler.Example", "master",
                    "active", "'hm@handler.example'");
    d2 = add_domain(db, owner.account_id, "disabled.example", "master",
                    "disabled", "'hm@disabled.example'");
    d3 = add_domain(db, owner.account_id, "slave.example", "slave", "active",
                    "NULL");
    d_other = add_domain(db, other.account_id, "other.example", "master",
                         "active", "'hm@other.example'");
    /* Records of two domains interleaved: only d1's, by id. */
    add_record(db, d1, "TXT", "", "first");
    add_record(db, d2, "A", "x", "192.0.2.77");
    add_record(db, d1, "MX", "", "mail.handler.example");
    add_record(db, d1, "A", "mail", "192.0.2.1");
    id1 = apr_psprintf(db->pool, "%" APR_INT64_T_FMT, d1);

    doc = get_zone(db, &owner, id1, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_object_size(doc), 1);
    assert_int_equal(json_array_size(json_object_get(doc, "zone_file")), 8);
    assert_string_equal(zone_line(doc, 0),
                        apr_psprintf(db->pool, "; Zone file of Handler.Example."
                                     " (domain %s)", id1));
    assert_string_equal(zone_line(doc, 1), "$TTL 3600");
    assert_string_equal(zone_line(doc, 2),
                        "Handler.Example. IN SOA ns1.example.net."
                        " hm.handler.example. 2024060101 14400 14400 1209600"
                        " 3600");
    assert_string_equal(zone_line(doc, 3),
                        "Handler.Example. IN NS ns1.example.net.");
    assert_string_equal(zone_line(doc, 4),
                        "Handler.Example. IN NS ns2.example.net.");
    assert_string_equal(zone_line(doc, 5), "Handler.Example. IN TXT \"first\"");
    assert_string_equal(zone_line(doc, 6),
                        "Handler.Example. IN MX 10 mail.handler.example.");
    assert_string_equal(zone_line(doc, 7),
                        "mail.Handler.Example. IN A 192.0.2.1");
    json_decref(doc);

    /* A disabled domain keeps answering its zone. */
    doc = get_zone(db, &owner, apr_psprintf(db->pool, "%" APR_INT64_T_FMT, d2),
                   &status);
    assert_int_equal(status, 200);
    assert_string_equal(zone_line(doc, 5),
                        "x.disabled.example. IN A 192.0.2.77");
    json_decref(doc);

    /* A slave answers its SOA and NS; no soa_email: hostmaster. */
    doc = get_zone(db, &owner, apr_psprintf(db->pool, "%" APR_INT64_T_FMT, d3),
                   &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_array_size(json_object_get(doc, "zone_file")), 5);
    assert_non_null(strstr(zone_line(doc, 2), " hostmaster.slave.example. "));
    json_decref(doc);

    /* Ids that name nothing the caller may see: 404. */
    expect_error(db, &owner, "abc", 404, "Not found");
    expect_error(db, &owner, "0", 404, "Not found");
    expect_error(db, &owner, "-1", 404, "Not found");
    expect_error(db, &owner, "", 404, "Not found");
    expect_error(db, &owner, "99999999", 404, "Not found");
    expect_error(db, &owner,
                 apr_psprintf(db->pool, "%" APR_INT64_T_FMT, d_other), 404,
                 "Not found");
    expect_error(db, &other, id1, 404, "Not found");

    /* A restricted user needs a grant; read_only is enough. */
    account_user(db, owner.account_id, "zonerestricted", 1, &restricted);
    expect_error(db, &restricted, id1, 403, "Unauthorized");
    run_sql(db, apr_psprintf(db->pool,
        "INSERT INTO entity_grants (user_id, entity_type, entity_id,"
        " permissions) VALUES (%" APR_INT64_T_FMT ", 'domain', %"
        APR_INT64_T_FMT ", 'read_only')", restricted.user_id, d1));
    doc = get_zone(db, &restricted, id1, &status);
    assert_int_equal(status, 200);
    assert_int_equal(json_array_size(json_object_get(doc, "zone_file")), 8);
    json_decref(doc);
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
        UNIT_TEST(test_head_defaults),
        UNIT_TEST(test_head_timers),
        UNIT_TEST(test_head_without_nameservers),
        UNIT_TEST(test_head_serial),
        UNIT_TEST(test_rname),
        UNIT_TEST(test_every_type),
        UNIT_TEST(test_order_kept),
        UNIT_TEST(test_names_defensive),
        UNIT_TEST(test_long_names),
        UNIT_TEST(test_txt_escaping),
        UNIT_TEST(test_txt_chunks),
        UNIT_TEST(test_checkzone_catches_errors),
        UNIT_TEST(test_checkzone_every_type),
        UNIT_TEST(test_checkzone_heads),
        UNIT_TEST(test_checkzone_long_values),
        UNIT_DB_TEST(test_handler),
    };

    return UNIT_RUN_GROUP(tests, group_setup, group_teardown);
}
