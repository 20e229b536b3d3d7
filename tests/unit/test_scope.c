#include "unit.h"

#include <string.h>

#include "acct_scope.h"

static void expect_str(unsigned i, const char *what, const char *got,
                       const char *want)
{
    if (!got || strcmp(got, want) != 0) {
        print_error("case %u: %s: got \"%s\", want \"%s\"\n", i, what,
                    got ? got : "(null)", want);
        fail();
    }
}

#define ALL_RW                                                               \
    "account:read_write databases:read_write domains:read_write "           \
    "events:read_write firewall:read_write images:read_write "              \
    "ips:read_write linodes:read_write lke:read_write "                      \
    "longview:read_write nodebalancers:read_write "                          \
    "object_storage:read_write stackscripts:read_write volumes:read_write "  \
    "vpc:read_write"

typedef struct {
    const char *text;
    const char *formatted;  /* NULL: the parse must fail */
    const char *bad;
} parse_case;

static const parse_case parse_cases[] = {
    {"*", "*", NULL},
    {"account:read_only", "account:read_only", NULL},
    {"databases:read_write,domains:read_only",
     "databases:read_write domains:read_only", NULL},
    {"domains:read_only databases:read_write",
     "databases:read_write domains:read_only", NULL},
    {" , account:read_only,,  ,domains:read_write , ",
     "account:read_only domains:read_write", NULL},
    {"account:read_only account:read_write", "account:read_write", NULL},
    {"account:read_write,account:read_only", "account:read_write", NULL},
    {"vpc:read_only events:read_only lke:read_write",
     "events:read_only lke:read_write vpc:read_only", NULL},
    {"object_storage:read_only", "object_storage:read_only", NULL},
    {"* account:read_only", "*", NULL},
    {"account:read_only,*", "*", NULL},
    {ALL_RW, "*", NULL},
    {"account:read_write databases:read_write domains:read_write "
     "events:read_write firewall:read_write images:read_write "
     "ips:read_write linodes:read_write lke:read_write "
     "longview:read_write nodebalancers:read_write "
     "object_storage:read_write stackscripts:read_write volumes:read_write "
     "vpc:read_only",
     "account:read_write databases:read_write domains:read_write "
     "events:read_write firewall:read_write images:read_write "
     "ips:read_write linodes:read_write lke:read_write "
     "longview:read_write nodebalancers:read_write "
     "object_storage:read_write stackscripts:read_write volumes:read_write "
     "vpc:read_only", NULL},
    {"", NULL, ""},
    {"   ", NULL, "   "},
    {",,, ,", NULL, ",,, ,"},
    {"account", NULL, "account"},
    {"account:", NULL, "account:"},
    {":read_only", NULL, ":read_only"},
    {"foo:read_only", NULL, "foo:read_only"},
    {"account:write", NULL, "account:write"},
    {"account:read_only:x", NULL, "account:read_only:x"},
    {"Account:read_only", NULL, "Account:read_only"},
    {"account:READ_ONLY", NULL, "account:READ_ONLY"},
    {"**", NULL, "**"},
    {"*:read_only", NULL, "*:read_only"},
    {"account:read_only bogus domains:read_only", NULL, "bogus"},
    {"account:read_only,linode:read_only", NULL, "linode:read_only"},
    {"account:read_only;domains:read_only", NULL,
     "account:read_only;domains:read_only"},
    {"account:read_only\tdomains:read_only", NULL,
     "account:read_only\tdomains:read_only"},
};

static void test_parse_table(void **state)
{
    size_t i;

    for (i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
        const parse_case *c = &parse_cases[i];
        acct_scopes s;
        const char *bad = NULL;
        int rc;

        memset(&s, 0x7f, sizeof(s));
        rc = acct_scopes_parse(pool, c->text, &s, &bad);
        if (c->formatted) {
            if (rc != 0) {
                print_error("case %u: \"%s\" refused at \"%s\"\n",
                            (unsigned)i, c->text, bad ? bad : "(null)");
                fail();
            }
            expect_str((unsigned)i, "format", acct_scopes_format(pool, &s),
                       c->formatted);
        }
        else {
            if (rc != -1) {
                print_error("case %u: \"%s\" accepted\n", (unsigned)i,
                            c->text);
                fail();
            }
            expect_str((unsigned)i, "bad", bad, c->bad);
            /* A refused string must not leave half a scope set behind. */
            assert_int_equal(s.level[0], 0x7f);
        }
    }
}

static void test_parse_null(void **state)
{
    acct_scopes s;
    const char *bad = NULL;

    assert_int_equal(acct_scopes_parse(pool, NULL, &s, &bad), -1);
    assert_string_equal(bad, "");
    assert_int_equal(acct_scopes_parse(pool, "nope", &s, NULL), -1);
}

static void test_parse_levels(void **state)
{
    acct_scopes s;
    const char *bad = NULL;
    int i;

    assert_int_equal(acct_scopes_parse(pool, "databases:read_only", &s, &bad),
                     0);
    for (i = 0; i < ACCT_FAM_COUNT; i++) {
        assert_int_equal(s.level[i], i == ACCT_FAM_DATABASES
                                         ? ACCT_LEVEL_READ_ONLY
                                         : ACCT_LEVEL_NONE);
    }
    assert_int_equal(acct_scopes_parse(pool, "*", &s, &bad), 0);
    for (i = 0; i < ACCT_FAM_COUNT; i++) {
        assert_int_equal(s.level[i], ACCT_LEVEL_READ_WRITE);
    }
}

static void test_format_empty(void **state)
{
    acct_scopes s;

    memset(&s, 0, sizeof(s));
    assert_string_equal(acct_scopes_format(pool, &s), "");
}

/* Every family at every level survives format then parse. */
static void test_round_trip_each(void **state)
{
    int fam, level;

    for (fam = 0; fam < ACCT_FAM_COUNT; fam++) {
        for (level = ACCT_LEVEL_READ_ONLY; level <= ACCT_LEVEL_READ_WRITE;
             level++) {
            acct_scopes s, back;
            const char *text, *bad = NULL;

            memset(&s, 0, sizeof(s));
            s.level[fam] = (unsigned char)level;
            text = acct_scopes_format(pool, &s);
            expect_str((unsigned)fam, "single",
                       text, acct_scope_requirement(pool, (acct_family)fam,
                                                    (acct_level)level));
            assert_int_equal(acct_scopes_parse(pool, text, &back, &bad), 0);
            assert_memory_equal(&s, &back, sizeof(s));
        }
    }
}

/* Mixed sets from a fixed pseudo-random sequence. */
static void test_round_trip_mixed(void **state)
{
    apr_uint32_t x = 2463534242u;
    int n, i;

    for (n = 0; n < 2000; n++) {
        acct_scopes s, back;
        const char *text, *again, *bad = NULL;
        int any = 0;

        for (i = 0; i < ACCT_FAM_COUNT; i++) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            s.level[i] = (unsigned char)(x % 3);
            any |= s.level[i];
        }
        text = acct_scopes_format(pool, &s);
        if (!any) {
            assert_string_equal(text, "");
            continue;
        }
        assert_int_equal(acct_scopes_parse(pool, text, &back, &bad), 0);
        assert_memory_equal(&s, &back, sizeof(s));
        again = acct_scopes_format(pool, &back);
        assert_string_equal(text, again);
    }
}

typedef struct {
    const char *have;
    acct_family fam;
    acct_level need;
    int allowed;
} allow_case;

static const allow_case allow_cases[] = {
    {"*", ACCT_FAM_DATABASES, ACCT_LEVEL_READ_WRITE, 1},
    {"*", ACCT_FAM_VPC, ACCT_LEVEL_READ_ONLY, 1},
    {"databases:read_only", ACCT_FAM_DATABASES, ACCT_LEVEL_READ_ONLY, 1},
    {"databases:read_only", ACCT_FAM_DATABASES, ACCT_LEVEL_READ_WRITE, 0},
    {"databases:read_write", ACCT_FAM_DATABASES, ACCT_LEVEL_READ_ONLY, 1},
    {"databases:read_write", ACCT_FAM_DOMAINS, ACCT_LEVEL_READ_ONLY, 0},
    {"databases:read_write", ACCT_FAM_DOMAINS, ACCT_LEVEL_NONE, 1},
    {"account:read_only", ACCT_FAM_ACCOUNT, ACCT_LEVEL_READ_WRITE, 0},
    {"*", ACCT_FAM_COUNT, ACCT_LEVEL_READ_ONLY, 0},
};

static void test_allow_table(void **state)
{
    size_t i;

    for (i = 0; i < sizeof(allow_cases) / sizeof(allow_cases[0]); i++) {
        const allow_case *c = &allow_cases[i];
        acct_scopes have;

        assert_int_equal(acct_scopes_parse(pool, c->have, &have, NULL), 0);
        if (acct_scopes_allow(&have, c->fam, c->need) != c->allowed) {
            print_error("case %u: \"%s\" fam %d need %d\n", (unsigned)i,
                        c->have, (int)c->fam, (int)c->need);
            fail();
        }
    }
}

typedef struct {
    const char *want;
    const char *have;
    int within;
} within_case;

static const within_case within_cases[] = {
    {"*", "*", 1},
    {"account:read_only", "*", 1},
    {"*", ALL_RW, 1},
    {"*", "account:read_write", 0},
    {"account:read_only", "account:read_write", 1},
    {"account:read_write", "account:read_only", 0},
    {"account:read_only", "account:read_only", 1},
    {"account:read_only domains:read_only", "account:read_only", 0},
    {"domains:read_only", "account:read_write domains:read_write", 1},
    {"vpc:read_only", "databases:read_write", 0},
};

static void test_within_table(void **state)
{
    size_t i;
    acct_scopes none;

    for (i = 0; i < sizeof(within_cases) / sizeof(within_cases[0]); i++) {
        const within_case *c = &within_cases[i];
        acct_scopes want, have;

        assert_int_equal(acct_scopes_parse(pool, c->want, &want, NULL), 0);
        assert_int_equal(acct_scopes_parse(pool, c->have, &have, NULL), 0);
        if (acct_scopes_within(&want, &have) != c->within) {
            print_error("case %u: \"%s\" within \"%s\"\n", (unsigned)i,
                        c->want, c->have);
            fail();
        }
    }
    memset(&none, 0, sizeof(none));
    assert_true(acct_scopes_within(&none, &none));
}

static void test_requirement(void **state)
{
    assert_string_equal(
        acct_scope_requirement(pool, ACCT_FAM_DATABASES, ACCT_LEVEL_READ_ONLY),
        "databases:read_only");
    assert_string_equal(
        acct_scope_requirement(pool, ACCT_FAM_ACCOUNT, ACCT_LEVEL_READ_WRITE),
        "account:read_write");
    assert_string_equal(
        acct_scope_requirement(pool, ACCT_FAM_DOMAINS, ACCT_LEVEL_READ_WRITE),
        "domains:read_write");
    assert_string_equal(
        acct_scope_requirement(pool, ACCT_FAM_ACCOUNT, ACCT_LEVEL_NONE), "*");
    assert_null(acct_scope_requirement(pool, ACCT_FAM_COUNT,
                                       ACCT_LEVEL_READ_ONLY));
}

static void test_family_names(void **state)
{
    static const char *const names[] = {
        "account", "databases", "domains", "events", "firewall",
        "images", "ips", "linodes", "lke", "longview",
        "nodebalancers", "object_storage", "stackscripts", "volumes", "vpc"
    };
    int i;

    assert_int_equal(sizeof(names) / sizeof(names[0]), ACCT_FAM_COUNT);
    for (i = 0; i < ACCT_FAM_COUNT; i++) {
        expect_str((unsigned)i, "name", acct_family_name((acct_family)i),
                   names[i]);
    }
    assert_null(acct_family_name(ACCT_FAM_COUNT));
    assert_null(acct_family_name((acct_family)-1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_table),
        cmocka_unit_test(test_parse_null),
        cmocka_unit_test(test_parse_levels),
        cmocka_unit_test(test_format_empty),
        cmocka_unit_test(test_round_trip_each),
        cmocka_unit_test(test_round_trip_mixed),
        cmocka_unit_test(test_allow_table),
        cmocka_unit_test(test_within_table),
        cmocka_unit_test(test_requirement),
        cmocka_unit_test(test_family_names),
    };

    return UNIT_RUN_GROUP(tests, unit_pool_setup, unit_pool_teardown);
}
