/*
 * The account's event feed (GET /account/events): one row per action this
 * module performs, written by the model's write functions in the
 * transaction of the change, so no change exists without its event.
 *
 * An action that is done when it is made is a "notification".  A timed
 * operation (a managed database provisioning, updating, backing up...) is
 * "started" and stores the status it ends in (finished or failed) with the
 * moment it is due, copied from the database's own pending transition
 * (acct_db.h): a reader shows the status that is due by its clock, as the
 * database's reader settles the database, so the feed is right with nothing
 * running in the background, on every node, under the test clock too.
 *
 * Events are kept ACCT_EVENT_RETENTION seconds: reads never show older
 * ones, and acct_event_prune deletes them (acctapi-admin events prune).
 *
 * An event is written with acct_store_exec_deferred: it goes with what
 * the transaction sends next, its COMMIT when it is the last statement (on
 * PostgreSQL one round trip less for most writes); its failure fails the
 * transaction all the same.
 *
 * This module owns the SQL of the events table.
 */
#ifndef ACCT_EVENT_H
#define ACCT_EVENT_H

#include "acct_list.h"
#include "acct_req.h"

/* 90 days, the public API's window. */
#define ACCT_EVENT_RETENTION (90 * 86400)

/* ------------------------------------------------------------------------
 * Words of the entity, listed once (the public API's)
 */

/* Statuses. */
#define ACCT_EVENT_FAILED "failed"
#define ACCT_EVENT_FINISHED "finished"
#define ACCT_EVENT_NOTIFICATION "notification"
#define ACCT_EVENT_SCHEDULED "scheduled"
#define ACCT_EVENT_STARTED "started"

/* Entity types. */
#define ACCT_EVENT_ENTITY_DATABASE "database"
#define ACCT_EVENT_ENTITY_DOMAIN "domain"
#define ACCT_EVENT_ENTITY_TOKEN "token"
#define ACCT_EVENT_ENTITY_SSH_KEY "user_ssh_key"
#define ACCT_EVENT_ENTITY_PROFILE "profile"
#define ACCT_EVENT_ENTITY_TAG "tag"
#define ACCT_EVENT_ENTITY_USER "user"

/* Actions. */
#define ACCT_EVENT_DATABASE_CREATE "database_create"
#define ACCT_EVENT_DATABASE_UPDATE "database_update"
#define ACCT_EVENT_DATABASE_RESIZE "database_resize"
#define ACCT_EVENT_DATABASE_DELETE "database_delete"
#define ACCT_EVENT_DATABASE_BACKUP_CREATE "database_backup_create"
#define ACCT_EVENT_DATABASE_BACKUP_RESTORE "database_backup_restore"
#define ACCT_EVENT_DATABASE_BACKUP_DELETE "database_backup_delete"
#define ACCT_EVENT_DATABASE_CREDENTIALS_RESET "database_credentials_reset"
#define ACCT_EVENT_DATABASE_DEGRADED "database_degraded"
#define ACCT_EVENT_DATABASE_FAILED "database_failed"
/* Suspend and resume: the public API's event action enum (v4.215.0) lists
 * both, and its reference pages say a resume writes database_resume and a
 * suspend database_suspend (PostgreSQL's page; MySQL's says
 * database_update, which the enum's own suspend action supersedes). */
#define ACCT_EVENT_DATABASE_SUSPEND "database_suspend"
#define ACCT_EVENT_DATABASE_RESUME "database_resume"
#define ACCT_EVENT_DNS_ZONE_CREATE "dns_zone_create"
#define ACCT_EVENT_DNS_ZONE_IMPORT "dns_zone_import"
#define ACCT_EVENT_DNS_ZONE_UPDATE "dns_zone_update"
#define ACCT_EVENT_DNS_ZONE_DELETE "dns_zone_delete"
#define ACCT_EVENT_DNS_RECORD_CREATE "dns_record_create"
#define ACCT_EVENT_DNS_RECORD_UPDATE "dns_record_update"
#define ACCT_EVENT_DNS_RECORD_DELETE "dns_record_delete"
#define ACCT_EVENT_TOKEN_CREATE "token_create"
#define ACCT_EVENT_TOKEN_UPDATE "token_update"
#define ACCT_EVENT_TOKEN_DELETE "token_delete"
#define ACCT_EVENT_SSH_KEY_ADD "user_ssh_key_add"
#define ACCT_EVENT_SSH_KEY_UPDATE "user_ssh_key_update"
#define ACCT_EVENT_SSH_KEY_DELETE "user_ssh_key_delete"
#define ACCT_EVENT_TFA_ENABLED "tfa_enabled"
#define ACCT_EVENT_TFA_DISABLED "tfa_disabled"
#define ACCT_EVENT_PROFILE_UPDATE "profile_update"
#define ACCT_EVENT_TAG_CREATE "tag_create"
#define ACCT_EVENT_TAG_DELETE "tag_delete"
#define ACCT_EVENT_USER_CREATE "user_create"
#define ACCT_EVENT_USER_UPDATE "user_update"

/* ------------------------------------------------------------------------
 * Writing
 */

/* What an event is about; a NULL type is no entity. */
typedef struct acct_event_entity {
    const char *type;     /* ACCT_EVENT_ENTITY_... */
    const char *id;       /* decimal id, or NULL (a tag is named by label) */
    const char *label;
    const char *url;      /* "/v4/..." */
} acct_event_entity;

/* An action that is done when it is made. */
typedef struct acct_event_new {
    apr_int64_t account_id;
    const char *action;
    const char *username;     /* who did it; NULL: the operator */
    acct_event_entity entity;
    acct_event_entity secondary;
    const char *message;      /* or NULL */
    apr_int64_t now;
} acct_event_new;

/* Writes `e` as a notification: call it in the transaction of the change. */
acct_store_rc acct_event_write(acct_store *st, apr_pool_t *pool,
                               const acct_event_new *e);

/*
 * Writes event `action` of managed database `db_id` as the database's row
 * is now: "started" when the database is in a transient status (ending
 * when its pending transition is due: failed if that leads to failed,
 * finished otherwise), a notification when it is at rest.  Call it after
 * the statement that changed the row, in its transaction.
 */
acct_store_rc acct_event_database(acct_store *st, apr_pool_t *pool,
                                  apr_int64_t db_id, const char *action,
                                  const char *username, apr_int64_t now);

/*
 * acct_event_domain's statement up to its FROM: the event of domain row
 * `d`, read from the table or from a statement's own rows (a
 * data-modifying WITH that changed it) named after FROM.  Three %s:
 * the action, the time, the username.
 */
#define ACCT_EVENT_OF_DOMAIN \
    "INSERT INTO events (account_id, action, created, username, entity_type," \
    " entity_id, entity_label, entity_url, status)" \
    " SELECT d.account_id, %s, CAST(%s AS BIGINT), %s," \
    " '" ACCT_EVENT_ENTITY_DOMAIN "', d.id, d.domain, '/v4/domains/' || d.id," \
    " '" ACCT_EVENT_NOTIFICATION "' FROM "

/* Writes notification `action` about domain `domain_id` (a zone or one of
 * its records) as its row is now. */
acct_store_rc acct_event_domain(acct_store *st, apr_pool_t *pool,
                                apr_int64_t domain_id, const char *action,
                                const char *username, apr_int64_t now);

/*
 * Writes notification `action` that user `uid` made about something of its
 * own (a token, an SSH key...): `entity` (its type, id, label, url), the
 * account and username read from the user's row.
 */
acct_store_rc acct_event_user(acct_store *st, apr_pool_t *pool,
                              apr_int64_t uid, const char *action,
                              const acct_event_entity *entity,
                              apr_int64_t now);

/*
 * Writes notification `action` (profile_update, tfa_enabled) that user
 * `uid` made about their profile: the entity is the profile (no id, the
 * public API's profile events have none), labelled with the username, at
 * /v4/profile.
 */
acct_store_rc acct_event_profile(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t uid, const char *action,
                                 apr_int64_t now);

/*
 * Writes tfa_disabled about `uid`'s profile when two-factor is on, that is
 * when `uid` has a confirmed two-factor secret (acct_tfa.h): call it before
 * the secret is deleted, after a statement that locked the user's row, so
 * that of two requests turning it off only the first writes it.
 */
acct_store_rc acct_event_tfa_disabled(acct_store *st, apr_pool_t *pool,
                                      apr_int64_t uid, apr_int64_t now);

/* Writes notification `action` (tag_create, tag_delete) about tag `label`
 * of account `account_id`, made by `username`. */
acct_store_rc acct_event_tag(acct_store *st, apr_pool_t *pool,
                             apr_int64_t account_id, const char *label,
                             const char *action, const char *username,
                             apr_int64_t now);

/* Writes notification `action` (user_create) that the operator made about
 * user `uid`, `username`, of account `account_id`. */
acct_store_rc acct_event_account_user(acct_store *st, apr_pool_t *pool,
                                      apr_int64_t account_id, apr_int64_t uid,
                                      const char *username, const char *action,
                                      apr_int64_t now);

/*
 * The database's operation was rescheduled (its pending transition
 * changed): its newest running event ends as the row now says.
 */
acct_store_rc acct_event_database_follow(acct_store *st, apr_pool_t *pool,
                                         apr_int64_t db_id);

/*
 * The operator put database `db_id` in `status` at `now` (acctapi-admin
 * database set-status), dropping its pending transition: at rest, its
 * running events end (failed when `status` is failed, else finished), and
 * failed and degraded are reported by a database_failed /
 * database_degraded notification.  A transient status changes no event.
 */
acct_store_rc acct_event_database_status(acct_store *st, apr_pool_t *pool,
                                         apr_int64_t db_id, const char *status,
                                         apr_int64_t now);

/*
 * acct_event_user about `uid`'s own object of `type` (ACCT_EVENT_ENTITY_...)
 * `id`, labelled `label` (NULL: unknown), at `url_base` + id, when `rc`
 * (the outcome of the change) is ACCT_STORE_OK and `changed`; else `rc`.
 */
acct_store_rc acct_event_own(acct_store *st, apr_pool_t *pool,
                             acct_store_rc rc, int changed, apr_int64_t uid,
                             const char *action, const char *type,
                             apr_int64_t id, const char *label,
                             const char *url_base, apr_int64_t now);

/* ------------------------------------------------------------------------
 * Reading
 */

/* Every column a reader renders (table alias e). */
#define ACCT_EVENT_COLUMNS \
    "e.id, e.action, e.created, e.username, e.entity_type, e.entity_id," \
    " e.entity_label, e.entity_url, e.secondary_type, e.secondary_id," \
    " e.secondary_label, e.secondary_url, e.message, e.status," \
    " e.status_next, e.status_due, e.ended, e.seen, e.read"

/*
 * The events of the acting account that the acting user may see (a
 * restricted user: those of entities it holds a grant on), younger than the
 * retention by req->now, newest first, rendered by `render`: the spec for
 * acct_list_respond (X-Filter: id, action, created, seen, read, status,
 * entity.id, entity.type, entity.label, username).
 */
void acct_event_list_query(acct_req *req, acct_render_row *render,
                           acct_list_query *q);

/*
 * acct_event_list_query as an unrestricted user sees it, for the account of
 * `token` (its hint when it has one, else the account of the token stored
 * under its hash): what a route's read_with_auth reads before it knows who
 * the principal is (acct_auth_read).  The same rows as
 * acct_event_list_query's for an unrestricted user of that token, once the
 * lookup has confirmed a hint.
 */
void acct_event_list_query_by_token(acct_req *req,
                                    const acct_token_ref *token,
                                    acct_render_row *render,
                                    acct_list_query *q);

/* acct_event_get's statement as acct_event_list_query_by_token's: event
 * `id` as an unrestricted user of the token sees it. */
void acct_event_get_by_token(acct_req *req, apr_int64_t id,
                             const acct_token_ref *token,
                             acct_store_read *out);

/* Event `id` as the acting user may see it (ACCT_EVENT_COLUMNS): no row
 * when there is none. */
acct_store_rc acct_event_get(acct_req *req, apr_int64_t id, acct_rows **rows);

/* The status row `row` of `rows` shows at `now`, with what it implies. */
typedef struct acct_event_state {
    const char *status;
    int timed;                  /* a started/ended operation, not a notification */
    apr_int64_t percent;        /* -1: null */
    apr_int64_t remaining;      /* seconds; -1: null */
    apr_int64_t duration;       /* seconds; -1: null */
} acct_event_state;

void acct_event_state_at(const acct_rows *rows, int row, apr_int64_t now,
                         acct_event_state *out);

/* ------------------------------------------------------------------------
 * Marks and retention
 */

/* Marks event `id` and every older one the acting user may see seen;
 * *changed is 0 when the user may see no event `id`. */
acct_store_rc acct_event_mark_seen(acct_req *req, apr_int64_t id,
                                   int *changed);

/* Marks event `id` read; *changed is 0 when the user may see no such event. */
acct_store_rc acct_event_mark_read(acct_req *req, apr_int64_t id,
                                   int *changed);

/* Deletes every event older than the retention at `now`; *deleted is how
 * many. */
acct_store_rc acct_event_prune(acct_store *st, apr_pool_t *pool,
                               apr_int64_t now, int *deleted);

#endif
