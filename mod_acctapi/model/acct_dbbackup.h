/*
 * Backups of a managed database: the database_backups table.
 *
 * Automatic backups are facts of the calendar: one at every 00:00 UTC after
 * the day the database was created, each kept ACCT_DBBACKUP_AUTO_KEEP.
 * Nothing runs in the background, so a request that reads or uses the
 * backups first writes the rows the calendar says exist and drops the
 * expired ones (acct_dbbackup_materialise); every node that does so at once
 * writes the same rows (the UNIQUE key absorbs the duplicates).  A
 * snapshot's row is written when it is asked for, dated when it finishes,
 * and hidden until then.
 *
 * A deleted automatic backup stays as a row marked deleted until it
 * expires: the calendar would otherwise write it again on the next read.
 * Snapshots are deleted outright.
 */
#ifndef ACCT_DBBACKUP_H
#define ACCT_DBBACKUP_H

#include "acct_list.h"
#include "acct_store.h"

/* Backup types (database_backups.type). */
#define ACCT_DBBACKUP_AUTO "auto"
#define ACCT_DBBACKUP_SNAPSHOT "snapshot"

/* How long each automatic backup is kept. */
#define ACCT_DBBACKUP_AUTO_KEEP (7 * 86400)

/* Snapshots a database may have, finished or running. */
#define ACCT_DBBACKUP_SNAPSHOT_MAX 3

/* Where a snapshot is taken from (acct_dbbackup_targets); automatic
 * backups are taken from the primary, the default of a snapshot too. */
#define ACCT_DBBACKUP_PRIMARY "primary"
#define ACCT_DBBACKUP_SECONDARY "secondary"
extern const char *const acct_dbbackup_targets[];

/* "auto20240105": the label of the automatic backup taken at `midnight`
 * (the contract's labels are ASCII letters and digits). */
const char *acct_dbbackup_auto_label(apr_pool_t *pool, apr_int64_t midnight);

/*
 * Brings the automatic backups of database `db_id`, created at
 * `db_created`, up to `now`: one per midnight after its creation day within
 * the last ACCT_DBBACKUP_AUTO_KEEP (so at most seven), none older.  One
 * read when nothing is due.
 */
acct_store_rc acct_dbbackup_materialise(acct_store *st, apr_pool_t *pool,
                                        apr_int64_t db_id,
                                        apr_int64_t db_created,
                                        apr_int64_t now);

/* Backup `id` of database `db_id` as users see it at `now` (finished, not
 * deleted): id, type, label, created; no row when there is none. */
acct_store_rc acct_dbbackup_get(acct_store *st, apr_pool_t *pool,
                                apr_int64_t db_id, apr_int64_t id,
                                apr_int64_t now, acct_rows **rows);

/*
 * The list of database `db_id`'s backups as users see them at `now`,
 * rendered by `render` (columns id, type, label, created; X-Filter: type,
 * created): the spec for acct_list_respond.
 */
void acct_dbbackup_list_query(apr_pool_t *pool, apr_int64_t db_id,
                              apr_int64_t now, acct_render_row *render,
                              acct_list_query *q);

/*
 * Deletes backup `id` of type `type` of database `db_id` if users see it at
 * `now`: a snapshot goes, an automatic backup is marked deleted; `username`
 * did it (database_backup_delete event).  *changed is 0 when there was
 * nothing to delete.
 */
acct_store_rc acct_dbbackup_delete(acct_store *st, apr_pool_t *pool,
                                   apr_int64_t db_id, apr_int64_t id,
                                   const char *type, const char *username,
                                   apr_int64_t now, int *changed);

/* Database `db_id`'s snapshots, finished or running, and its backups of any
 * type still running at `now`. */
acct_store_rc acct_dbbackup_counts(acct_store *st, apr_pool_t *pool,
                                   apr_int64_t db_id, apr_int64_t now,
                                   apr_int64_t *snapshots,
                                   apr_int64_t *running);

/*
 * Writes a snapshot of database `db_id` labelled `label` from `target`,
 * dated `finished` (hidden until then).  *made is 0 when the database has a
 * snapshot dated that second already (nothing written).
 */
acct_store_rc acct_dbbackup_snapshot_create(acct_store *st, apr_pool_t *pool,
                                            apr_int64_t db_id,
                                            const char *label,
                                            const char *target,
                                            apr_int64_t finished, int *made);

/*
 * The status a restore of a backup taken at `backup_created` ends in
 * (ACCT_DB_ACTIVE or ACCT_DB_FAILED): failed when the root password was
 * reset (at `credentials_reset`, 0 never) after the backup was taken.
 */
const char *acct_dbbackup_restore_outcome(apr_int64_t credentials_reset,
                                          apr_int64_t backup_created);

#endif
