/* Operations on one managed database (api_dbops.c): every cell of the
 * required-status table they own, both engines. */
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
 * The required-status table, both engines
 * ------------------------------------------------------------------------ */

static const char *const statuses[] = {
    "provisioning", "active", "suspending", "suspended", "resuming",
    "restoring", "failed", "degraded", "updating", "backing_up", NULL
};

typedef struct status_cell {
    const char *method;
    const char *rest;        /* after the instance; %B is the backup id */
    const char *body;
    const char *allowed;     /* " s1 s2 ": the statuses that accept it */
} status_cell;

#define NOT_PROVISIONING \
    " active suspending suspended resuming restoring failed degraded" \
    " updating backing_up "

static const status_cell cells[] = {
    {"GET", "/backups", NULL, NOT_PROVISIONING},
    {"GET", "/backups/%B", NULL, NOT_PROVISIONING},
    {"DELETE", "/backups/%B", NULL, NOT_PROVISIONING},
    {"POST", "/backups", "{\"label\":\"cell\"}", " active "},
    {"POST", "/backups/%B/restore", NULL, " active degraded failed "},
    {"GET", "/credentials", NULL, " active "},
    {"POST", "/credentials/reset", NULL, " active "},
    {"POST", "/patch", NULL, " active "},
    {"GET", "/ssl", NULL, " active "},
    /* Today's public API (acct_db.c has the evidence). */
    {"POST", "/suspend", NULL, " provisioning active "},
    {"POST", "/resume", NULL, " suspending suspended "},
};

static void required_status_table(void **state)
{
    static const char *const engines[] = {"mysql", "postgresql", NULL};
    fixture *f = *state;
    apr_int64_t now = f->t0 + 3600, id, backup;
    const char *const *e, *const *s, *rest, *at;
    json_t *doc;
    size_t c;
    int status, allowed;

    for (e = engines; *e; e++) {
        for (c = 0; c < sizeof(cells) / sizeof(cells[0]); c++) {
            for (s = statuses; *s; s++) {
                id = add_db(f, *e, *s);
                backup = add_backup(f, id, "snapshot", now - 60);
                rest = cells[c].rest;
                if ((at = strstr(rest, "%B"))) {
                    rest = apr_psprintf(f->db->pool, "%.*s%" APR_INT64_T_FMT
                                        "%s", (int)(at - rest), rest, backup,
                                        at + 2);
                }
                allowed = strstr(cells[c].allowed,
                                 apr_pstrcat(f->db->pool, " ", *s, " ", NULL))
                          != NULL;
                doc = call(f, now, cells[c].method, dbpath(f, *e, id, rest),
                           cells[c].body, &status);
                UNIT_CHECKF(status == (allowed ? 200 : 400),
                            "%s %s %s in %s: %d %s", *e, cells[c].method,
                            cells[c].rest, *s, status,
                            acct_json_dump(f->db->pool, doc, NULL));
                UNIT_CHECKF(allowed || strncmp(first_reason(doc),
                                               apr_psprintf(f->db->pool,
                                               "Your database is %s; ", *s),
                                               strlen(*s) + 19) == 0,
                            "%s %s %s in %s: %s", *e, cells[c].method,
                            cells[c].rest, *s, first_reason(doc));
                /* A refusal changes nothing. */
                UNIT_CHECKF(allowed || strcmp(stored_status(f, id), *s) == 0,
                            "%s %s %s in %s", *e, cells[c].method,
                            cells[c].rest, *s);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        DB_TEST(required_status_table),
    };

    return UNIT_RUN_GROUP(tests, group_setup, NULL);
}
