/*
 * Schema migrations, embedded from sql/<dialect>/NNN_name.sql at build time
 * so the binary and its schema cannot disagree.  The schema records its
 * version in schema_version; the module refuses to serve another version.
 */
#ifndef ACCT_MIGRATE_H
#define ACCT_MIGRATE_H

#include "acct_store.h"

typedef struct acct_migration {
    int version;
    const char *name;
    const char *sqlite;
    const char *pgsql;
} acct_migration;

/* Ordered by version, terminated by an entry with a NULL name. */
extern const acct_migration acct_migrations[];

/* The version this build expects. */
int acct_schema_latest(void);

/* The version recorded in the database; 0 when it has no schema yet. */
acct_store_rc acct_schema_version(acct_store *st, apr_pool_t *pool, int *version);

/*
 * Applies every migration newer than the recorded version, each in its own
 * transaction.  *from and *to report the versions (either may be NULL).
 * A database newer than this build is refused (ACCT_STORE_FAILED).
 */
acct_store_rc acct_migrate(acct_store *st, apr_pool_t *pool, int *from, int *to);

#endif
