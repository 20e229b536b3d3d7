/* Zone publishing: zones.conf, its text and named-checkconf's judgement. */
#include "unit.h"

#include <apr_strings.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unit_db.h"
#include "acct_json.h"
#include "acct_log.h"
#include "acct_publish.h"
#include "acct_publish_reload.h"
#include "acct_zone.h"
#include "api_handlers.h"

#include "unit_publish.h"

#define NAMED_CHECKCONF "/usr/bin/named-checkconf"

/* --------------------------------------------------------------------
 * zones.conf
 * -------------------------------------------------------------------- */

static void add(apr_array_header_t *zones, const char *zone, int slave,
                const char *masters, const char *axfr)
{
    acct_published_zone *z = apr_array_push(zones);

    z->zone = zone;
    z->slave = slave;
    z->master_ips = masters;
    z->axfr_ips = axfr;
}

static void test_include_text(void **state)
{
    apr_array_header_t *zones = apr_array_make(pool, 4,
                                               sizeof(acct_published_zone));
    const char *text, *body;

    add(zones, "a.example", 0, "[]", "[]");
    add(zones, "b.example", 0, "[]",
        "[\"192.0.2.1\", \"2001:db8::1\", \"not an address; };\", 7]");
    add(zones, "s.example", 1, "[\"192.0.2.53\",\"2001:DB8::53\"]",
        "[\"198.51.100.2\"]");
    add(zones, "nomasters.example", 1, "[]", "[]");
    add(zones, "garbage.example", 1, "not json", NULL);
    text = acct_publish_include_text(pool, "/srv/zo\"nes//", zones);
    body = strstr(text, "zone ");
    assert_non_null(body);
    assert_true(strncmp(text, "// ", 3) == 0);
    assert_non_null(strstr(text, "acl \"acctapi-transfer\""));
    assert_string_equal(
        body,
        "zone \"a.example\" { type master; file \"/srv/zo\\\"nes/a.example.zone\";"
        " check-names ignore; allow-transfer { \"acctapi-transfer\"; }; };\n"
        "zone \"b.example\" { type master; file \"/srv/zo\\\"nes/b.example.zone\";"
        " check-names ignore; allow-transfer { \"acctapi-transfer\"; 192.0.2.1; 2001:db8::1; }; };\n"
        "zone \"s.example\" { type slave; masters { 192.0.2.53; 2001:db8::53; };"
        " allow-transfer { \"acctapi-transfer\"; 198.51.100.2; }; };\n");
    /* Nothing to declare: the comment only. */
    text = acct_publish_include_text(pool, "/srv/zones",
                                     apr_array_make(pool, 1,
                                                    sizeof(acct_published_zone)));
    assert_null(strstr(text, "zone \""));
}

/* named-checkconf accepts what zones.conf declares, masters loaded (names
 * with underscores included). */
static void test_include_checkconf(void **state)
{
    const char *dir = scratch_dir(pool), *conf, *cmd;
    apr_array_header_t *zones = apr_array_make(pool, 4,
                                               sizeof(acct_published_zone));
    const char *text;
    FILE *f;

    if (access(NAMED_CHECKCONF, X_OK) != 0) {
        print_message("skipped: %s is not installed\n", NAMED_CHECKCONF);
        scratch_remove(pool, dir);
        return;
    }
    add(zones, "m.example", 0, "[]", "[\"192.0.2.9\"]");
    add(zones, "s.example", 1, "[\"192.0.2.53\"]", "[]");
    text = acct_publish_include_text(pool, dir, zones);
    assert_int_equal(acct_publish_write(pool, dir, ACCT_PUBLISH_INCLUDE, text,
                                        strlen(text)), 1);
    /* Names with underscores, which the API accepts and BIND's default
     * check-names would refuse the zone for. */
    text = "$TTL 300\nm.example. IN SOA ns1.example.com. h.m.example. 1 2 3 4 5\n"
           "m.example. IN NS ns1.example.com.\n"
           "_a.m.example. IN A 192.0.2.1\n"
           "_service_test._tcp.m.example. IN SRV 10 5 80 rc_test.m.example.\n";
    assert_int_equal(acct_publish_write(pool, dir, "m.example.zone", text,
                                        strlen(text)), 1);
    conf = apr_pstrcat(pool, dir, "/named.conf", NULL);
    f = fopen(conf, "w");
    assert_non_null(f);
    fprintf(f, "options { directory \"%s\"; };\n"
               "acl \"acctapi-transfer\" { none; };\n"
               "include \"%s/zones.conf\";\n", dir, dir);
    fclose(f);
    cmd = apr_psprintf(pool, "%s -z %s >/dev/null 2>&1", NAMED_CHECKCONF, conf);
    assert_int_equal(system(cmd), 0);
    scratch_remove(pool, dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_include_text),
        UNIT_TEST(test_include_checkconf),
    };

    return UNIT_RUN(tests);
}
