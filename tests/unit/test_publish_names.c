/* Zone publishing: the zone files' names. */
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

/* --------------------------------------------------------------------
 * Names
 * -------------------------------------------------------------------- */

static void test_zone_names(void **state)
{
    static const struct {
        const char *domain, *zone;
    } cases[] = {
        {"example.com", "example.com"},
        {"Mixed-Case.Example.COM", "mixed-case.example.com"},
        {"a.b", "a.b"},
        {"", NULL},
        {".hidden.example", NULL},
        {"example.com.", NULL},
        {"a..b", NULL},
        {"../etc/passwd", NULL},
        {"a/b.example", NULL},
        {"Under_Score.example", "under_score.example"},
        {"space .example", NULL},
        {"quote\".example", NULL},
    };
    char longname[300];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *got = acct_publish_zone_name(pool, cases[i].domain);

        if (cases[i].zone) {
            UNIT_CHECK(cases[i].domain, got && strcmp(got, cases[i].zone) == 0);
        }
        else {
            UNIT_CHECK(cases[i].domain, got == NULL);
        }
    }
    assert_null(acct_publish_zone_name(pool, NULL));
    memset(longname, 'a', sizeof(longname));
    longname[1] = '.';
    longname[254] = '\0';
    assert_null(acct_publish_zone_name(pool, longname));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_TEST(test_zone_names),
    };

    return UNIT_RUN(tests);
}
