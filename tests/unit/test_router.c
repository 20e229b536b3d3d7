#include "unit.h"

#include <stdlib.h>
#include <string.h>

#include <apr_strings.h>

#include "acct_router.h"

static void dummy(acct_req *req, acct_resp *resp)
{
}

#define G ACCT_METHOD_GET
#define P ACCT_METHOD_POST
#define U ACCT_METHOD_PUT
#define D ACCT_METHOD_DELETE
#define DB ACCT_FAM_DATABASES
#define RO ACCT_LEVEL_READ_ONLY
#define RW ACCT_LEVEL_READ_WRITE

/* Row indexes of the synthetic table, for expectations. */
enum {
    S_THINGS_GET, S_THINGS_PUT, S_THING_GET, S_THING_POST, S_THING_DELETE,
    S_SPECIAL_GET, S_PARTS_GET, S_FILES_GET, S_FILES_META, S_ABY_POST,
    S_AXC_GET, S_PUBLIC_GET, S_ANY_GET, S_DOMAINS_POST, S_ACCOUNT_GET,
    S_FIVE_PARAMS, S_COUNT
};

static const acct_route synth[] = {
    {G, "/things", dummy, ACCT_ROUTE_LIST, DB, RO},
    {U, "/things", dummy, ACCT_ROUTE_BODY, DB, RW},
    {G, "/things/{thingId}", dummy, 0, DB, RO},
    {P, "/things/{thingId}", dummy, ACCT_ROUTE_BODY, DB, RW},
    {D, "/things/{thingId}", dummy, 0, DB, RW},
    {G, "/things/special", dummy, 0, DB, RO},
    {G, "/things/{thingId}/parts/{partId}", dummy, 0, DB, RO},
    {G, "/files/{path...}", dummy, 0, DB, RO},
    {G, "/files/{path}/meta", dummy, 0, DB, RO},
    {P, "/a/b/{y}", dummy, 0, DB, RW},
    {G, "/a/{x}/c", dummy, 0, DB, RO},
    {G, "/pub", dummy, ACCT_ROUTE_PUBLIC, ACCT_FAM_ACCOUNT, ACCT_LEVEL_NONE},
    {G, "/me", dummy, ACCT_ROUTE_ANY_TOKEN, ACCT_FAM_ACCOUNT,
     ACCT_LEVEL_NONE},
    {P, "/zones", dummy, ACCT_ROUTE_BODY, ACCT_FAM_DOMAINS, RW},
    {G, "/acct", dummy, 0, ACCT_FAM_ACCOUNT, RO},
    {G, "/five/{a}/{b}/{c}/{d}/{e}", dummy, 0, DB, RO},
    {0, NULL, NULL, 0, 0, 0}
};

/* ------------------------------------------------------------------------
 * Table-driven matching
 * ------------------------------------------------------------------------ */

#define NONE (-1)

typedef struct {
    const char *method;
    const char *path;
    acct_match_rc rc;
    int row;                    /* expected route index for FOUND */
    const char *allow;          /* NULL: do not check (NO_PATH: must be NULL) */
    const char *params[ACCT_MAX_PATH_PARAMS];
} match_case;

static const match_case synth_cases[] = {
    {"GET", "/things", ACCT_MATCH_FOUND, S_THINGS_GET,
     "GET, HEAD, PUT, OPTIONS", {0}},
    {"HEAD", "/things", ACCT_MATCH_FOUND, S_THINGS_GET,
     "GET, HEAD, PUT, OPTIONS", {0}},
    {"PUT", "/things/", ACCT_MATCH_FOUND, S_THINGS_PUT,
     "GET, HEAD, PUT, OPTIONS", {0}},
    {"POST", "/things", ACCT_MATCH_BAD_METHOD, NONE,
     "GET, HEAD, PUT, OPTIONS", {0}},
    {"DELETE", "/things", ACCT_MATCH_BAD_METHOD, NONE,
     "GET, HEAD, PUT, OPTIONS", {0}},
    {"GET", "/things/7", ACCT_MATCH_FOUND, S_THING_GET,
     "GET, HEAD, POST, DELETE, OPTIONS", {"7"}},
    {"HEAD", "/things/7", ACCT_MATCH_FOUND, S_THING_GET,
     "GET, HEAD, POST, DELETE, OPTIONS", {"7"}},
    {"POST", "/things/7", ACCT_MATCH_FOUND, S_THING_POST,
     "GET, HEAD, POST, DELETE, OPTIONS", {"7"}},
    {"DELETE", "/things/7/", ACCT_MATCH_FOUND, S_THING_DELETE,
     "GET, HEAD, POST, DELETE, OPTIONS", {"7"}},
    {"PUT", "/things/7", ACCT_MATCH_BAD_METHOD, NONE,
     "GET, HEAD, POST, DELETE, OPTIONS", {0}},
    {"OPTIONS", "/things/7", ACCT_MATCH_OPTIONS, NONE,
     "GET, HEAD, POST, DELETE, OPTIONS", {0}},
    {"PATCH", "/things/7", ACCT_MATCH_BAD_METHOD, NONE,
     "GET, HEAD, POST, DELETE, OPTIONS", {0}},
    {"TRACE", "/things/7", ACCT_MATCH_BAD_METHOD, NONE,
     "GET, HEAD, POST, DELETE, OPTIONS", {0}},
    {"get", "/things/7", ACCT_MATCH_BAD_METHOD, NONE,
     "GET, HEAD, POST, DELETE, OPTIONS", {0}},
    {"", "/things/7", ACCT_MATCH_BAD_METHOD, NONE,
     "GET, HEAD, POST, DELETE, OPTIONS", {0}},
    /* The literal segment wins over the parameter, for its methods only. */
    {"GET", "/things/special", ACCT_MATCH_FOUND, S_SPECIAL_GET,
     "GET, HEAD, OPTIONS", {0}},
    {"POST", "/things/special", ACCT_MATCH_BAD_METHOD, NONE,
     "GET, HEAD, OPTIONS", {0}},
    {"GET", "/things/speciaL", ACCT_MATCH_FOUND, S_THING_GET, NULL,
     {"speciaL"}},
    {"GET", "/things/%73pecial", ACCT_MATCH_FOUND, S_SPECIAL_GET, NULL, {0}},
    {"GET", "/things/a%2Fb", ACCT_MATCH_FOUND, S_THING_GET, NULL, {"a/b"}},
    {"GET", "/things/a%20b", ACCT_MATCH_FOUND, S_THING_GET, NULL, {"a b"}},
    {"GET", "/things/a+b", ACCT_MATCH_FOUND, S_THING_GET, NULL, {"a+b"}},
    {"GET", "/things/7/parts/9", ACCT_MATCH_FOUND, S_PARTS_GET,
     "GET, HEAD, OPTIONS", {"7", "9"}},
    {"GET", "/things/%37/parts/%39%39", ACCT_MATCH_FOUND, S_PARTS_GET, NULL,
     {"7", "99"}},
    {"GET", "/things/7/parts", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things/7/parts/9/x", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    /* {path...} takes the rest, decoded per segment. */
    {"GET", "/files/a", ACCT_MATCH_FOUND, S_FILES_GET,
     "GET, HEAD, OPTIONS", {"a"}},
    {"GET", "/files/a/b/c", ACCT_MATCH_FOUND, S_FILES_GET, NULL, {"a/b/c"}},
    {"GET", "/files/a%2Fb/c", ACCT_MATCH_FOUND, S_FILES_GET, NULL,
     {"a/b/c"}},
    {"GET", "/files/a/b/c/", ACCT_MATCH_FOUND, S_FILES_GET, NULL, {"a/b/c"}},
    {"GET", "/files/x/meta", ACCT_MATCH_FOUND, S_FILES_META, NULL, {"x"}},
    {"GET", "/files/x/meta/y", ACCT_MATCH_FOUND, S_FILES_GET, NULL,
     {"x/meta/y"}},
    {"GET", "/files", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/files/", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/files/a//b", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/files/a/%00", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    /* An earlier literal segment is more specific than a later one. */
    {"POST", "/a/b/c", ACCT_MATCH_FOUND, S_ABY_POST, "POST, OPTIONS", {"c"}},
    {"GET", "/a/z/c", ACCT_MATCH_FOUND, S_AXC_GET,
     "GET, HEAD, OPTIONS", {"z"}},
    {"POST", "/a/z/c", ACCT_MATCH_BAD_METHOD, NONE, "GET, HEAD, OPTIONS", {0}},
    /* More parameters than a match can hold: never matches. */
    {"GET", "/five/1/2/3/4/5", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    /* Unknown paths. */
    {"GET", "/", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/thing", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/thingss", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/Things", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things%2F7", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"OPTIONS", "/nowhere", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    /* OPTIONS: every known path answers it, whatever its methods. */
    {"OPTIONS", "/things/", ACCT_MATCH_OPTIONS, NONE,
     "GET, HEAD, PUT, OPTIONS", {0}},
    {"OPTIONS", "/things/special", ACCT_MATCH_OPTIONS, NONE,
     "GET, HEAD, OPTIONS", {0}},
    {"OPTIONS", "/a/b/c", ACCT_MATCH_OPTIONS, NONE, "POST, OPTIONS", {0}},
    {"OPTIONS", "/files/a/b/c", ACCT_MATCH_OPTIONS, NONE,
     "GET, HEAD, OPTIONS", {0}},
    {"OPTIONS", "/things/%00", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"OPTIONS", "/things/7/parts", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    /* Method names are case-sensitive (RFC 9110, 9.1). */
    {"options", "/things", ACCT_MATCH_BAD_METHOD, NONE,
     "GET, HEAD, PUT, OPTIONS", {0}},
    /* Empty segments and bad escapes. */
    {"GET", "//things", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things//", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things//7", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things/%G1", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things/%4", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things/%", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things/%00", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things/a%00", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things/%4/parts/1", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    /* Segments that are not text name no path: invalid UTF-8 ... */
    {"GET", "/things/%ff", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"DELETE", "/things/%FF", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things/\xff", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things/%c3%28", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things/%c3", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things/%c0%af", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things/%e0%80%af", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things/%ed%a0%80", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things/%f4%90%80%80", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things/a%80b", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things/%ff/parts/1", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things/1/parts/%ed%a0%80", ACCT_MATCH_NO_PATH, NONE, NULL,
     {0}},
    {"GET", "/files/a/%c0%af/b", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"OPTIONS", "/things/%ff", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    /* ... and control characters: C0, DEL and C1. */
    {"GET", "/things/1%0a", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things/a%09b", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things/%7f", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/things/%c2%85", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/files/a/b%1b", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    /* Valid UTF-8, any plane, still matches. */
    {"GET", "/things/caf%C3%A9", ACCT_MATCH_FOUND, S_THING_GET, NULL,
     {"caf\xc3\xa9"}},
    {"GET", "/things/caf\xc3\xa9", ACCT_MATCH_FOUND, S_THING_GET, NULL,
     {"caf\xc3\xa9"}},
    {"GET", "/things/%e2%82%ac/parts/%f0%9f%98%80", ACCT_MATCH_FOUND,
     S_PARTS_GET, NULL, {"\xe2\x82\xac", "\xf0\x9f\x98\x80"}},
    {"GET", "/things/%c2%a0", ACCT_MATCH_FOUND, S_THING_GET, NULL,
     {"\xc2\xa0"}},
};

/* Paths of the real table that are not expected to gain methods. */
static const match_case real_cases[] = {
    {"GET", "/regions", ACCT_MATCH_FOUND, 0, "GET, HEAD, OPTIONS", {0}},
    {"HEAD", "/regions", ACCT_MATCH_FOUND, 0, "GET, HEAD, OPTIONS", {0}},
    {"GET", "/regions/", ACCT_MATCH_FOUND, 0, "GET, HEAD, OPTIONS", {0}},
    {"POST", "/regions", ACCT_MATCH_BAD_METHOD, NONE,
     "GET, HEAD, OPTIONS", {0}},
    {"PUT", "/regions", ACCT_MATCH_BAD_METHOD, NONE,
     "GET, HEAD, OPTIONS", {0}},
    {"DELETE", "/regions", ACCT_MATCH_BAD_METHOD, NONE,
     "GET, HEAD, OPTIONS", {0}},
    {"OPTIONS", "/regions", ACCT_MATCH_OPTIONS, NONE,
     "GET, HEAD, OPTIONS", {0}},
    {"PATCH", "/regions", ACCT_MATCH_BAD_METHOD, NONE,
     "GET, HEAD, OPTIONS", {0}},
    {"TRACE", "/regions", ACCT_MATCH_BAD_METHOD, NONE,
     "GET, HEAD, OPTIONS", {0}},
    {"DELETE", "/regions/", ACCT_MATCH_BAD_METHOD, NONE,
     "GET, HEAD, OPTIONS", {0}},
    {"GET", "/regions/us-east", ACCT_MATCH_FOUND, 0, "GET, HEAD, OPTIONS",
     {"us-east"}},
    {"GET", "/regions/us%2Deast", ACCT_MATCH_FOUND, 0, NULL, {"us-east"}},
    {"GET", "/regions/us%2deast/", ACCT_MATCH_FOUND, 0, NULL, {"us-east"}},
    {"GET", "/regions/us%2Feast", ACCT_MATCH_FOUND, 0, NULL, {"us/east"}},
    {"POST", "/regions/us-east", ACCT_MATCH_BAD_METHOD, NONE,
     "GET, HEAD, OPTIONS", {0}},
    {"GET", "/regions/availability", ACCT_MATCH_FOUND, 0,
     "GET, HEAD, OPTIONS", {0}},
    {"HEAD", "/regions/availability/", ACCT_MATCH_FOUND, 0, NULL, {0}},
    {"GET", "/regions/us-east/availability", ACCT_MATCH_FOUND, 0,
     "GET, HEAD, OPTIONS", {"us-east"}},
    {"GET", "/regions/availability/availability", ACCT_MATCH_FOUND, 0, NULL,
     {"availability"}},
    {"GET", "/regions/vpc-availability", ACCT_MATCH_FOUND, 0,
     "GET, HEAD, OPTIONS", {0}},
    {"GET", "/regions/us-east/vpc-availability", ACCT_MATCH_FOUND, 0,
     "GET, HEAD, OPTIONS", {"us-east"}},
    {"GET", "/regions/vpc-availability/vpc-availability", ACCT_MATCH_FOUND, 0,
     NULL, {"vpc-availability"}},
    {"PUT", "/regions/us-east/vpc-availability", ACCT_MATCH_BAD_METHOD, NONE,
     "GET, HEAD, OPTIONS", {0}},
    {"GET", "/compute/types/g6-nanode-1", ACCT_MATCH_FOUND, 0, NULL,
     {"g6-nanode-1"}},
    {"GET", "/databases/engines", ACCT_MATCH_FOUND, 0, NULL, {0}},
    {"GET", "/databases/engines/", ACCT_MATCH_FOUND, 0, NULL, {0}},
    {"GET", "/databases/engines/mysql%2F8.0.30", ACCT_MATCH_FOUND, 0,
     "GET, HEAD, OPTIONS", {"mysql/8.0.30"}},
    {"GET", "/databases/engines/mysql%2f8.0.30", ACCT_MATCH_FOUND, 0, NULL,
     {"mysql/8.0.30"}},
    {"GET", "/databases/engines/mysql/8.0.30", ACCT_MATCH_FOUND, 0,
     "GET, HEAD, OPTIONS", {"mysql/8.0.30"}},
    {"GET", "/databases/engines/mysql/8.0.30/", ACCT_MATCH_FOUND, 0, NULL,
     {"mysql/8.0.30"}},
    {"HEAD", "/databases/engines/postgresql%2F16", ACCT_MATCH_FOUND, 0, NULL,
     {"postgresql/16"}},
    {"DELETE", "/databases/engines/mysql/8.0.30", ACCT_MATCH_BAD_METHOD,
     NONE, "GET, HEAD, OPTIONS", {0}},
    {"GET", "/profile", ACCT_MATCH_FOUND, 0, NULL, {0}},
    {"GET", "/profile/grants", ACCT_MATCH_FOUND, 0, NULL, {0}},
    /* Unknown paths. */
    {"GET", "/", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/nope", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/Regions", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/regionsx", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/regions%2Favailability", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/regions/us-east/availability/x", ACCT_MATCH_NO_PATH, NONE,
     NULL, {0}},
    {"OPTIONS", "/nope", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"OPTIONS", "/databases/engines/mysql%2F8.0.30", ACCT_MATCH_OPTIONS, NONE,
     "GET, HEAD, OPTIONS", {0}},
    {"OPTIONS", "/profile/", ACCT_MATCH_OPTIONS, NONE, NULL, {0}},
    /* Empty segments, bad escapes, encoded NUL. */
    {"GET", "//regions", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/regions//", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/regions//availability", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/databases/engines//mysql", ACCT_MATCH_NO_PATH, NONE, NULL,
     {0}},
    {"GET", "/databases/engines/mysql//8.0.30", ACCT_MATCH_NO_PATH, NONE,
     NULL, {0}},
    {"GET", "/regions/%G1", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/regions/%4", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/regions/us%2", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/regions/%00", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/regions/us%00east", ACCT_MATCH_NO_PATH, NONE, NULL, {0}},
    {"GET", "/databases/engines/mysql%00", ACCT_MATCH_NO_PATH, NONE, NULL,
     {0}},
    {"GET", "/databases/engines/mysql/%G1", ACCT_MATCH_NO_PATH, NONE, NULL,
     {0}},
};

static const acct_route *find_row(const char *method, const char *path)
{
    const acct_route *r;
    acct_method m = strcmp(method, "POST") == 0 ? ACCT_METHOD_POST
                    : strcmp(method, "PUT") == 0 ? ACCT_METHOD_PUT
                    : strcmp(method, "DELETE") == 0 ? ACCT_METHOD_DELETE
                    : ACCT_METHOD_GET;

    for (r = acct_routes; r->path; r++) {
        if (r->method == m && strcmp(r->path, path) == 0) {
            return r;
        }
    }
    return NULL;
}

/* The template a real path is expected to pick. */
static const char *real_template(const char *path)
{
    static const struct {
        const char *prefix;
        const char *tmpl;
    } map[] = {
        {"/regions/availability/availability",
         "/regions/{regionId}/availability"},
        {"/regions/availability", "/regions/availability"},
        {"/regions/vpc-availability/vpc-availability",
         "/regions/{regionId}/vpc-availability"},
        {"/regions/vpc-availability", "/regions/vpc-availability"},
        {"/regions/us-east/vpc-availability",
         "/regions/{regionId}/vpc-availability"},
        {"/regions/us-east/availability", "/regions/{regionId}/availability"},
        {"/regions/", "/regions/{regionId}"},
        {"/regions", "/regions"},
        {"/compute/types/", "/compute/types/{typeId}"},
        {"/databases/engines/", "/databases/engines/{engineId...}"},
        {"/databases/engines", "/databases/engines"},
        {"/profile/grants", "/profile/grants"},
        {"/profile", "/profile"},
    };
    size_t i, n = strlen(path);

    if (n > 1 && path[n - 1] == '/') {
        /* The same template as without the trailing slash. */
        path = apr_pstrndup(pool, path, n - 1);
    }
    for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        size_t k = strlen(map[i].prefix);

        if (strncmp(path, map[i].prefix, k) == 0
            && (path[k] == '\0' || map[i].prefix[k - 1] == '/')) {
            return map[i].tmpl;
        }
    }
    return NULL;
}

static void run_case(const char *label, const acct_route *table,
                     const match_case *c, const acct_route *want_route)
{
    acct_match m;
    acct_match_rc rc;
    int k;

    memset(&m, 0x5a, sizeof(m));
    rc = acct_route_match(table, pool, c->method, c->path, &m);
    if (rc != c->rc) {
        print_error("%s: %s %s: rc %d, want %d\n", label, c->method, c->path,
                    (int)rc, (int)c->rc);
        fail();
    }
    switch (c->rc) {
    case ACCT_MATCH_FOUND:
        if (m.route != want_route) {
            print_error("%s: %s %s: picked %s %s, want %s %s\n", label,
                        c->method, c->path,
                        m.route ? acct_method_name(m.route->method) : "-",
                        m.route ? m.route->path : "(none)",
                        want_route ? acct_method_name(want_route->method)
                                   : "-",
                        want_route ? want_route->path : "(none)");
            fail();
        }
        for (k = 0; k < ACCT_MAX_PATH_PARAMS; k++) {
            const char *got = m.params[k], *want = c->params[k];

            if ((got == NULL) != (want == NULL)
                || (got && strcmp(got, want) != 0)) {
                print_error("%s: %s %s: param %d \"%s\", want \"%s\"\n",
                            label, c->method, c->path, k,
                            got ? got : "(null)", want ? want : "(null)");
                fail();
            }
        }
        UNIT_CHECK(label, m.allow != NULL);
        break;
    case ACCT_MATCH_BAD_METHOD:
        UNIT_CHECK(label, m.route == NULL);
        UNIT_CHECK(label, m.allow != NULL);
        break;
    case ACCT_MATCH_OPTIONS:
        UNIT_CHECK(label, m.route == NULL);
        UNIT_CHECK(label, m.allow != NULL);
        for (k = 0; k < ACCT_MAX_PATH_PARAMS; k++) {
            UNIT_CHECK(label, m.params[k] == NULL);
        }
        break;
    case ACCT_MATCH_NO_PATH:
        UNIT_CHECK(label, m.route == NULL);
        UNIT_CHECK(label, m.allow == NULL);
        for (k = 0; k < ACCT_MAX_PATH_PARAMS; k++) {
            UNIT_CHECK(label, m.params[k] == NULL);
        }
        break;
    }
    if (c->allow && (!m.allow || strcmp(m.allow, c->allow) != 0)) {
        print_error("%s: %s %s: Allow \"%s\", want \"%s\"\n", label,
                    c->method, c->path, m.allow ? m.allow : "(null)",
                    c->allow);
        fail();
    }
}

static void test_synthetic_table(void **state)
{
    size_t i;

    assert_int_equal(sizeof(synth) / sizeof(synth[0]) - 1, S_COUNT);
    for (i = 0; i < sizeof(synth_cases) / sizeof(synth_cases[0]); i++) {
        const match_case *c = &synth_cases[i];
        const char *label = apr_psprintf(pool, "synthetic case %u",
                                         (unsigned)i);

        run_case(label, synth, c, c->row == NONE ? NULL : &synth[c->row]);
    }
}

static void test_real_table(void **state)
{
    size_t i;

    for (i = 0; i < sizeof(real_cases) / sizeof(real_cases[0]); i++) {
        const match_case *c = &real_cases[i];
        const char *label = apr_psprintf(pool, "real case %u", (unsigned)i);
        const acct_route *want = NULL;

        if (c->rc == ACCT_MATCH_FOUND) {
            const char *tmpl = real_template(c->path);

            UNIT_CHECK(label, tmpl != NULL);
            want = find_row(c->method, tmpl);
            UNIT_CHECK(label, want != NULL);
        }
        run_case(label, acct_routes, c, want);
    }
}

/* ------------------------------------------------------------------------
 * Invariants of the real table
 * ------------------------------------------------------------------------ */

/*
 * The concrete path for a template ("x" per {param}, "a/b" for {rest...})
 * and the parameters the match must produce.  Returns the parameter count.
 */
static int instantiate(const char *tmpl, const char **path,
                       const char *params[ACCT_MAX_PATH_PARAMS + 4])
{
    const char *t = tmpl, *out = "";
    int n = 0;

    while (*t) {
        if (*t == '{') {
            const char *close = strchr(t, '}');
            int rest = close && close - t > 4
                       && strncmp(close - 3, "...", 3) == 0;

            assert_non_null(close);
            out = apr_pstrcat(pool, out, rest ? "a/b" : "x", NULL);
            if (n < ACCT_MAX_PATH_PARAMS + 4) {
                params[n] = rest ? "a/b" : "x";
            }
            n++;
            t = close + 1;
        }
        else {
            out = apr_pstrcat(pool, out, apr_pstrndup(pool, t, 1), NULL);
            t++;
        }
    }
    *path = out;
    return n;
}

static const char *const method_names[] = {"GET", "HEAD", "POST", "PUT",
                                           "DELETE", "OPTIONS"};

static void test_every_row_matches_itself(void **state)
{
    const acct_route *r;
    int rows = 0;

    for (r = acct_routes; r->path; r++, rows++) {
        const char *params[ACCT_MAX_PATH_PARAMS + 4] = {0};
        const char *path, *label;
        const char *method = acct_method_name(r->method);
        acct_match m;
        int n, k, pass;

        label = apr_psprintf(pool, "row %d (%s %s)", rows, method, r->path);
        n = instantiate(r->path, &path, params);
        UNIT_CHECK(label, n <= ACCT_MAX_PATH_PARAMS);
        for (pass = 0; pass < 3; pass++) {
            /* As is, with a trailing slash, and as HEAD for a GET. */
            const char *p = pass == 1 ? apr_pstrcat(pool, path, "/", NULL)
                                      : path;
            const char *meth = pass == 2 ? "HEAD" : method;

            if (pass == 2 && r->method != ACCT_METHOD_GET) {
                continue;
            }
            if (acct_route_match(acct_routes, pool, meth, p, &m)
                != ACCT_MATCH_FOUND) {
                print_error("%s: %s %s does not match\n", label, meth, p);
                fail();
            }
            if (m.route != r) {
                print_error("%s: %s %s picked %s %s\n", label, meth, p,
                            acct_method_name(m.route->method),
                            m.route->path);
                fail();
            }
            for (k = 0; k < ACCT_MAX_PATH_PARAMS; k++) {
                const char *want = k < n ? params[k] : NULL;

                if ((m.params[k] == NULL) != (want == NULL)
                    || (want && strcmp(m.params[k], want) != 0)) {
                    print_error("%s: param %d \"%s\", want \"%s\"\n", label,
                                k, m.params[k] ? m.params[k] : "(null)",
                                want ? want : "(null)");
                    fail();
                }
            }
            /* The Allow list names this row's method. */
            UNIT_CHECK(label, m.allow && strstr(m.allow, method) != NULL);
            if (r->method == ACCT_METHOD_GET) {
                UNIT_CHECK(label, strstr(m.allow, "HEAD") != NULL);
            }
        }
        /* Every method the row's path does not serve answers 405, and
         * OPTIONS is answered on every path, last in its Allow. */
        for (k = 0; k < (int)(sizeof(method_names) / sizeof(method_names[0]));
             k++) {
            const char *meth = method_names[k];
            acct_match_rc rc = acct_route_match(acct_routes, pool, meth, path,
                                                &m);
            size_t n_allow;

            if (rc == ACCT_MATCH_NO_PATH) {
                print_error("%s: %s %s: NO_PATH\n", label, meth, path);
                fail();
            }
            n_allow = strlen(m.allow);
            UNIT_CHECK(label, n_allow > 9 && strcmp(m.allow + n_allow - 9,
                                                    ", OPTIONS") == 0);
            if (strcmp(meth, "OPTIONS") == 0) {
                UNIT_CHECK(label, rc == ACCT_MATCH_OPTIONS);
                UNIT_CHECK(label, m.route == NULL);
                continue;
            }
            UNIT_CHECK(label, (rc == ACCT_MATCH_FOUND)
                                  == (strstr(m.allow, meth) != NULL));
        }
    }
    assert_true(rows > 0);
}

/* "{anything}" becomes "{}", "{anything...}" becomes "{...}". */
static const char *shape(const char *tmpl)
{
    const char *t = tmpl, *out = "";

    while (*t) {
        if (*t == '{') {
            const char *close = strchr(t, '}');

            assert_non_null(close);
            out = apr_pstrcat(pool, out,
                              close - t > 4
                                  && strncmp(close - 3, "...", 3) == 0
                                  ? "{...}" : "{}", NULL);
            t = close + 1;
        }
        else {
            out = apr_pstrcat(pool, out, apr_pstrndup(pool, t, 1), NULL);
            t++;
        }
    }
    return out;
}

static void test_rows_unique_and_well_formed(void **state)
{
    const acct_route *r, *s;
    int i = 0;

    for (r = acct_routes; r->path; r++, i++) {
        const char *label = apr_psprintf(pool, "row %d (%s %s)", i,
                                         acct_method_name(r->method),
                                         r->path);
        const char *p, *rest;
        size_t len = strlen(r->path);
        int depth = 0;

        /* One HTTP method per row. */
        UNIT_CHECK(label, r->method == ACCT_METHOD_GET
                              || r->method == ACCT_METHOD_POST
                              || r->method == ACCT_METHOD_PUT
                              || r->method == ACCT_METHOD_DELETE);
        UNIT_CHECK(label, r->handler != NULL);
        /* "/a/b": leading slash, no trailing slash, no empty segment. */
        UNIT_CHECK(label, r->path[0] == '/' && len > 1);
        UNIT_CHECK(label, r->path[len - 1] != '/');
        UNIT_CHECK(label, strstr(r->path, "//") == NULL);
        UNIT_CHECK(label, strchr(r->path, '%') == NULL);
        UNIT_CHECK(label, strchr(r->path, '?') == NULL);
        for (p = r->path; *p; p++) {
            if (*p == '{') {
                UNIT_CHECK(label, depth == 0 && p[-1] == '/');
                depth++;
            }
            else if (*p == '}') {
                UNIT_CHECK(label, depth == 1 && (p[1] == '/' || p[1] == '\0'));
                depth--;
            }
        }
        UNIT_CHECK(label, depth == 0);
        /* "{x...}" only as the last segment. */
        rest = strstr(r->path, "...}");
        UNIT_CHECK(label, rest == NULL || rest[4] == '\0');
        /* Public and any-token are exclusive; others name a real level. */
        UNIT_CHECK(label, (r->flags & ACCT_ROUTE_PUBLIC) == 0
                              || (r->flags & ACCT_ROUTE_ANY_TOKEN) == 0);
        if (!(r->flags & (ACCT_ROUTE_PUBLIC | ACCT_ROUTE_ANY_TOKEN))) {
            UNIT_CHECK(label, r->level == ACCT_LEVEL_READ_ONLY
                                  || r->level == ACCT_LEVEL_READ_WRITE);
            UNIT_CHECK(label, acct_family_name(r->family) != NULL);
        }
        /* Public routes are GETs. */
        if (r->flags & ACCT_ROUTE_PUBLIC) {
            UNIT_CHECK(label, r->method == ACCT_METHOD_GET);
        }

        for (s = r + 1; s->path; s++) {
            /* No two rows share method and path... */
            if (s->method == r->method && strcmp(s->path, r->path) == 0) {
                print_error("%s: duplicated\n", label);
                fail();
            }
            /*
             * ...and one path shape is spelled one way: the router gathers
             * a path's methods by comparing template text.
             */
            if (strcmp(s->path, r->path) != 0
                && strcmp(shape(s->path), shape(r->path)) == 0) {
                print_error("%s: same shape as %s\n", label, s->path);
                fail();
            }
        }
    }
}

/* ------------------------------------------------------------------------
 * Scopes and names
 * ------------------------------------------------------------------------ */

static void test_route_scope(void **state)
{
    const acct_route *r;

    assert_string_equal(acct_route_scope(pool, &synth[S_PUBLIC_GET]), "*");
    assert_string_equal(acct_route_scope(pool, &synth[S_ANY_GET]), "*");
    assert_string_equal(acct_route_scope(pool, &synth[S_THING_GET]),
                        "databases:read_only");
    assert_string_equal(acct_route_scope(pool, &synth[S_THING_DELETE]),
                        "databases:read_write");
    assert_string_equal(acct_route_scope(pool, &synth[S_DOMAINS_POST]),
                        "domains:read_write");
    assert_string_equal(acct_route_scope(pool, &synth[S_ACCOUNT_GET]),
                        "account:read_only");

    /* Real table: catalogues and the two profile reads advertise "*". */
    for (r = acct_routes; r->path; r++) {
        const char *scope = acct_route_scope(pool, r);
        const char *label = apr_psprintf(pool, "%s %s",
                                         acct_method_name(r->method),
                                         r->path);

        UNIT_CHECK(label, scope != NULL);
        if (r->flags & (ACCT_ROUTE_PUBLIC | ACCT_ROUTE_ANY_TOKEN)) {
            UNIT_CHECK(label, strcmp(scope, "*") == 0);
        }
        else {
            UNIT_CHECK(label, strchr(scope, ':') != NULL);
        }
    }
    r = find_row("GET", "/regions");
    assert_non_null(r);
    assert_true(r->flags & ACCT_ROUTE_PUBLIC);
    assert_string_equal(acct_route_scope(pool, r), "*");
    r = find_row("GET", "/databases/engines/{engineId...}");
    assert_non_null(r);
    assert_true(r->flags & ACCT_ROUTE_PUBLIC);
    r = find_row("GET", "/profile");
    assert_non_null(r);
    assert_string_equal(acct_route_scope(pool, r), "*");
    r = find_row("GET", "/profile/grants");
    assert_non_null(r);
    assert_string_equal(acct_route_scope(pool, r), "*");
}

static void test_method_name(void **state)
{
    assert_string_equal(acct_method_name(ACCT_METHOD_GET), "GET");
    assert_string_equal(acct_method_name(ACCT_METHOD_POST), "POST");
    assert_string_equal(acct_method_name(ACCT_METHOD_PUT), "PUT");
    assert_string_equal(acct_method_name(ACCT_METHOD_DELETE), "DELETE");
}

/* ------------------------------------------------------------------------
 * acct_percent_decode
 * ------------------------------------------------------------------------ */

typedef struct {
    const char *in;
    size_t len;           /* (size_t)-1: strlen(in) */
    const char *out;      /* NULL: refused */
} decode_case;

#define ALL ((size_t)-1)

static const decode_case decode_cases[] = {
    {"", ALL, ""},
    {"abc", ALL, "abc"},
    {"%41", ALL, "A"},
    {"%2F", ALL, "/"},
    {"%2f", ALL, "/"},
    {"us%2Deast", ALL, "us-east"},
    {"a+b", ALL, "a+b"},
    {"+", ALL, "+"},
    {"%2B", ALL, "+"},
    {"%20", ALL, " "},
    {"%25", ALL, "%"},
    {"%2541", ALL, "%41"},
    {"%0a", ALL, "\n"},
    {"%e2%82%ac", ALL, "\xe2\x82\xac"},
    {"%C3%A9t%C3%A9", ALL, "\xc3\xa9t\xc3\xa9"},
    {"%ff", ALL, "\xff"},
    {"%01", ALL, "\x01"},
    {"%", ALL, NULL},
    {"%4", ALL, NULL},
    {"a%4", ALL, NULL},
    {"%G1", ALL, NULL},
    {"%1G", ALL, NULL},
    {"%g0", ALL, NULL},
    {"%%41", ALL, NULL},
    {"% 41", ALL, NULL},
    {"%-1", ALL, NULL},
    {"100%", ALL, NULL},
    {"%00", ALL, NULL},
    {"a%00b", ALL, NULL},
    {"%2500", ALL, "%00"},
    /* Only `len` bytes count. */
    {"abc%41", 3, "abc"},
    {"%4142", 3, "A"},
    {"%41", 2, NULL},
    {"%41", 1, NULL},
    {"xyz", 0, ""},
    /* A raw NUL within `len`. */
    {"a\0b", 3, NULL},
};

static void test_percent_decode(void **state)
{
    size_t i;

    for (i = 0; i < sizeof(decode_cases) / sizeof(decode_cases[0]); i++) {
        const decode_case *c = &decode_cases[i];
        size_t len = c->len == ALL ? strlen(c->in) : c->len;
        const char *got = acct_percent_decode(pool, c->in, len);

        if ((got == NULL) != (c->out == NULL)
            || (got && strcmp(got, c->out) != 0)) {
            print_error("decode case %u \"%s\" (len %u): got \"%s\", "
                        "want \"%s\"\n", (unsigned)i, c->in, (unsigned)len,
                        got ? got : "(null)", c->out ? c->out : "(null)");
            fail();
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_synthetic_table),
        UNIT_TEST(test_real_table),
        UNIT_TEST(test_every_row_matches_itself),
        UNIT_TEST(test_rows_unique_and_well_formed),
        UNIT_TEST(test_route_scope),
        UNIT_TEST(test_method_name),
        UNIT_TEST(test_percent_decode),
    };

    return UNIT_RUN(tests);
}
