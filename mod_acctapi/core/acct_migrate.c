#include "acct_migrate.h"
#include "acct_log.h"

#include <apr_strings.h>
#include <stdlib.h>

static const acct_sql q_has_version_table = ACCT_SQL2("schema_version_exists",
    "SELECT count(*) AS n FROM sqlite_master"
    " WHERE type = 'table' AND name = 'schema_version'",
    "SELECT count(*) AS n FROM information_schema.tables"
    " WHERE table_schema = current_schema() AND table_name = 'schema_version'");

static const acct_sql q_version = ACCT_SQL("schema_version",
    "SELECT max(version) AS v FROM schema_version");

static const acct_sql q_record_version = ACCT_SQL("schema_version_record",
    "INSERT INTO schema_version (version) VALUES (CAST(%s AS INTEGER))");

static const acct_sql q_clear_version = ACCT_SQL("schema_version_clear",
    "DELETE FROM schema_version");

int acct_schema_latest(void)
{
    int i, latest = 0;

    for (i = 0; acct_migrations[i].name; i++) {
        latest = acct_migrations[i].version;
    }
    return latest;
}

acct_store_rc acct_schema_version(acct_store *st, apr_pool_t *pool,
                                  int *version)
{
    acct_rows *rows = NULL;
    acct_store_rc rc;
    const char *v;

    *version = 0;
    rc = acct_store_select(st, pool, &q_has_version_table, &rows, 0, NULL);
    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    v = acct_rows_get(rows, 0, "n");
    if (!v || atoi(v) == 0) {
        return ACCT_STORE_OK;
    }
    rc = acct_store_select(st, pool, &q_version, &rows, 0, NULL);
    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    v = acct_rows_get(rows, 0, "v");
    *version = v ? atoi(v) : 0;
    return ACCT_STORE_OK;
}

static acct_store_rc apply_one(acct_store *st, apr_pool_t *pool,
                               const acct_migration *m)
{
    const char *args[1];
    acct_store_rc rc;

    rc = acct_store_begin(st, pool);
    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    rc = acct_store_exec_script(st, pool,
                                acct_store_dialect(st) == ACCT_DIALECT_PGSQL
                                ? m->pgsql : m->sqlite);
    if (rc == ACCT_STORE_OK) {
        rc = acct_store_exec(st, pool, &q_clear_version, NULL, 0, NULL);
    }
    if (rc == ACCT_STORE_OK) {
        args[0] = apr_itoa(pool, m->version);
        rc = acct_store_exec(st, pool, &q_record_version, NULL, 1, args);
    }
    if (rc != ACCT_STORE_OK) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00003) "migration %s failed; rolled back", m->name);
        acct_store_rollback(st, pool);
        return rc;
    }
    return acct_store_commit(st, pool);
}

acct_store_rc acct_migrate(acct_store *st, apr_pool_t *pool, int *from,
                           int *to)
{
    int current = 0, i;
    acct_store_rc rc;

    rc = acct_schema_version(st, pool, &current);
    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    if (from) {
        *from = current;
    }
    if (current > acct_schema_latest()) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00004) "database schema version %d is newer than "
                 "this build (%d)", current, acct_schema_latest());
        return ACCT_STORE_FAILED;
    }
    for (i = 0; acct_migrations[i].name; i++) {
        if (acct_migrations[i].version <= current) {
            continue;
        }
        rc = apply_one(st, pool, &acct_migrations[i]);
        if (rc != ACCT_STORE_OK) {
            return rc;
        }
        current = acct_migrations[i].version;
        acct_log(ACCT_LOG_INFO, ACCTLOGNO(00005) "applied migration %s", acct_migrations[i].name);
    }
    if (to) {
        *to = current;
    }
    return ACCT_STORE_OK;
}
