#include "acct_event.h"
#include "acct_auth.h"
#include "acct_db.h"
#include "acct_grants.h"

#include <apr_escape.h>
#include <apr_strings.h>
#include <string.h>

static const acct_sql q_insert = ACCT_SQL("event_insert",
    "INSERT INTO events (account_id, action, created, username, entity_type,"
    " entity_id, entity_label, entity_url, secondary_type, secondary_id,"
    " secondary_label, secondary_url, message, status)"
    " VALUES (CAST(%s AS BIGINT), %s, CAST(%s AS BIGINT), %s, %s,"
    " CAST(%s AS BIGINT), %s, %s, %s, %s, %s, %s, %s,"
    " '" ACCT_EVENT_NOTIFICATION "')");

/* The statuses a database leaves by itself or by the operator: an event
 * written in one of them reports an operation that runs. */
#define DB_TRANSIENT \
    "('" ACCT_DB_PROVISIONING "', '" ACCT_DB_SUSPENDING "', '" \
    ACCT_DB_RESUMING "', '" ACCT_DB_RESTORING "', '" ACCT_DB_UPDATING \
    "', '" ACCT_DB_BACKING_UP "')"

/* Does the action (timed: the %s is 1) run in the database's status? */
#define DB_RUNS "CAST(%s AS INTEGER) = 1 AND db.status IN " DB_TRANSIENT

/* How the pending transition of database row db ends its event. */
#define DB_OUTCOME \
    "CASE WHEN db.status_due IS NULL THEN NULL" \
    " WHEN db.status_next = '" ACCT_DB_FAILED "' THEN '" ACCT_EVENT_FAILED "'" \
    " ELSE '" ACCT_EVENT_FINISHED "' END"

/*
 * The event mirrors the row as the statement before it left it: the
 * database's pending transition is the event's, so both end at the same
 * second on every reader.
 */
static const acct_sql q_database = ACCT_SQL("event_database",
    "INSERT INTO events (account_id, action, created, username, entity_type,"
    " entity_id, entity_label, entity_url, status, status_next, status_due)"
    " SELECT db.account_id, %s, CAST(%s AS BIGINT), %s,"
    " '" ACCT_EVENT_ENTITY_DATABASE "', db.id, db.label,"
    " '/v4/databases/' || db.engine || '/instances/' || db.id,"
    " CASE WHEN " DB_RUNS " THEN '" ACCT_EVENT_STARTED "'"
    "  ELSE '" ACCT_EVENT_NOTIFICATION "' END,"
    " CASE WHEN " DB_RUNS " THEN " DB_OUTCOME " END,"
    " CASE WHEN " DB_RUNS " THEN db.status_due END"
    " FROM databases db WHERE db.id = CAST(%s AS BIGINT)");

static const acct_sql q_domain = ACCT_SQL("event_domain",
    ACCT_EVENT_OF_DOMAIN "domains d WHERE d.id = CAST(%s AS BIGINT)");

static const acct_sql q_user = ACCT_SQL("event_user",
    "INSERT INTO events (account_id, action, created, username, entity_type,"
    " entity_id, entity_label, entity_url, status)"
    " SELECT u.account_id, %s, CAST(%s AS BIGINT), u.username, %s,"
    " CAST(%s AS BIGINT), %s, %s, '" ACCT_EVENT_NOTIFICATION "'"
    " FROM users u WHERE u.id = CAST(%s AS BIGINT)");

/* The profile of user row u, by that user. */
#define PROFILE_EVENT \
    "INSERT INTO events (account_id, action, created, username, entity_type," \
    " entity_label, entity_url, status)" \
    " SELECT u.account_id, %s, CAST(%s AS BIGINT), u.username," \
    " '" ACCT_EVENT_ENTITY_PROFILE "', u.username, '/v4/profile'," \
    " '" ACCT_EVENT_NOTIFICATION "'" \
    " FROM users u WHERE u.id = CAST(%s AS BIGINT)"

static const acct_sql q_profile = ACCT_SQL("event_profile", PROFILE_EVENT);

/* Two-factor is on while a confirmed secret exists (acct_tfa.h): the
 * profile may only turn it off, and only a confirmation turns it on. */
static const acct_sql q_tfa_disabled = ACCT_SQL("event_tfa_disabled",
    PROFILE_EVENT " AND EXISTS (SELECT 1 FROM tfa_secrets t"
    " WHERE t.user_id = u.id AND t.confirmed = 1)");

/* The database's running events: account first, for events_entity. */
#define DB_RUNNING \
    " account_id = (SELECT db.account_id FROM databases db" \
    "  WHERE db.id = CAST(%s AS BIGINT))" \
    " AND entity_type = '" ACCT_EVENT_ENTITY_DATABASE "'" \
    " AND entity_id = CAST(%s AS BIGINT)" \
    " AND status = '" ACCT_EVENT_STARTED "'"

static const acct_sql q_database_follow = ACCT_SQL("event_database_follow",
    "UPDATE events SET"
    " status_next = (SELECT " DB_OUTCOME " FROM databases db"
    "  WHERE db.id = CAST(%s AS BIGINT)),"
    " status_due = (SELECT db.status_due FROM databases db"
    "  WHERE db.id = CAST(%s AS BIGINT))"
    " WHERE id = (SELECT max(id) FROM events WHERE" DB_RUNNING ")");

/* Those still running at %s (the last argument) end now. */
static const acct_sql q_database_end = ACCT_SQL("event_database_end",
    "UPDATE events SET status = %s, status_next = NULL, status_due = NULL,"
    " ended = CAST(%s AS BIGINT)"
    " WHERE" DB_RUNNING
    " AND (status_due IS NULL OR status_due > CAST(%s AS BIGINT))");

static const acct_sql q_prune = ACCT_SQL("event_prune",
    "DELETE FROM events WHERE created <= CAST(%s AS BIGINT)");

/* What a reader shows of an event row, by its clock (`now`, SQL). */
#define STATUS_AT(now) \
    "CASE WHEN e.status_due IS NOT NULL AND e.status_due <= " now \
    " THEN e.status_next ELSE e.status END"

/*
 * The acting user's events in table `t` (alias or name): its account, the
 * retention cutoff, and for a restricted user a grant on the entity
 * (VISIBLE_NARGS arguments, visible_args).
 */
#define ACCOUNT_EVENTS(t) \
    t ".account_id = CAST(%s AS BIGINT) AND " t ".created > CAST(%s AS BIGINT)"
#define VISIBLE(t) \
    ACCOUNT_EVENTS(t) \
    " AND " ACCT_GRANT_VISIBLE(t ".entity_type", t ".entity_id")
#define VISIBLE_NARGS 4

/* ACCOUNT_EVENTS with the account of the token stored under a hash: what
 * an unrestricted user of the token sees, read before the lookup tells who
 * that is, when no hint names the account (TOKEN_NARGS arguments,
 * token_args, as ACCOUNT_EVENTS's). */
#define TOKEN_ACCOUNT_EVENTS(t) \
    t ".account_id = " ACCT_TOKEN_ACCOUNT \
    " AND " t ".created > CAST(%s AS BIGINT)"
#define TOKEN_NARGS 2

/* The events an unrestricted user of `token` sees: ACCOUNT_EVENTS when
 * its account is known (a subquery costs PostgreSQL about a tenth of the
 * provider's poll), else TOKEN_ACCOUNT_EVENTS. */
#define TOKEN_EVENTS(token, t) \
    ((token)->account ? ACCOUNT_EVENTS(t) : TOKEN_ACCOUNT_EVENTS(t))

/* Event %s among the events `visible` names. */
#define EVENT_BY_ID(visible) \
    "SELECT " ACCT_EVENT_COLUMNS " FROM events e" \
    " WHERE e.id = CAST(%s AS BIGINT) AND " visible

static const acct_sql q_get = ACCT_SQL("event_get", EVENT_BY_ID(VISIBLE("e")));

static const acct_sql q_read = ACCT_SQL("event_read",
    "UPDATE events SET read = 1"
    " WHERE events.id = CAST(%s AS BIGINT) AND " VISIBLE("events"));

/* "And every older one". */
static const acct_sql q_seen = ACCT_SQL("event_seen",
    "UPDATE events SET seen = 1"
    " WHERE events.id <= CAST(%s AS BIGINT) AND events.seen = 0"
    " AND " VISIBLE("events"));

static void visible_args(acct_req *req, const char **args)
{
    args[0] = acct_i64(req->pool, req->who->account_id);
    args[1] = acct_i64(req->pool, req->now - ACCT_EVENT_RETENTION);
    acct_grant_visible_args(req, args + 2);
}

static void token_args(acct_req *req, const acct_token_ref *token,
                       const char **args)
{
    args[0] = token->account ? acct_i64(req->pool, token->account)
                             : token->hash;
    args[1] = acct_i64(req->pool, req->now - ACCT_EVENT_RETENTION);
}

acct_store_rc acct_event_write(acct_store *st, apr_pool_t *pool,
                               const acct_event_new *e)
{
    const char *args[13];

    args[0] = acct_i64(pool, e->account_id);
    args[1] = e->action;
    args[2] = acct_i64(pool, e->now);
    args[3] = e->username;
    args[4] = e->entity.type;
    args[5] = e->entity.id;
    args[6] = e->entity.label;
    args[7] = e->entity.url;
    args[8] = e->secondary.type;
    args[9] = e->secondary.id;
    args[10] = e->secondary.label;
    args[11] = e->secondary.url;
    args[12] = e->message;
    return acct_store_exec_deferred(st, pool, &q_insert, 13, args);
}

/* Is `word` one of `list` (NULL-terminated)? */
static int listed(const char *const *list, const char *word)
{
    for (; *list; list++) {
        if (strcmp(*list, word) == 0) {
            return 1;
        }
    }
    return 0;
}

/* Actions done when made, whatever the database is doing meanwhile; the
 * others are operations that take time. */
static const char *const instant_actions[] = {
    ACCT_EVENT_DATABASE_DELETE, ACCT_EVENT_DATABASE_BACKUP_DELETE,
    ACCT_EVENT_DATABASE_DEGRADED, ACCT_EVENT_DATABASE_FAILED, NULL
};

/* The statuses a database rests in: its operation is over. */
static const char *const rest_statuses[] = {
    ACCT_DB_ACTIVE, ACCT_DB_SUSPENDED, ACCT_DB_FAILED, ACCT_DB_DEGRADED, NULL
};

/*
 * Runs `sql`, an INSERT ... SELECT of an event about the row `id` names:
 * its arguments are the action, the time, the username, `timed` three
 * times when not NULL (acct_event_database's), then the id.
 */
static acct_store_rc insert_about(acct_store *st, apr_pool_t *pool,
                                  const acct_sql *sql, const char *action,
                                  const char *username, apr_int64_t now,
                                  const char *timed, apr_int64_t id)
{
    const char *args[7];
    int n = 0;

    args[n++] = action;
    args[n++] = acct_i64(pool, now);
    args[n++] = username;
    while (timed && n < 6) {
        args[n++] = timed;
    }
    args[n++] = acct_i64(pool, id);
    return acct_store_exec_deferred(st, pool, sql, n, args);
}

acct_store_rc acct_event_database(acct_store *st, apr_pool_t *pool,
                                  apr_int64_t db_id, const char *action,
                                  const char *username, apr_int64_t now)
{
    return insert_about(st, pool, &q_database, action, username, now,
                        listed(instant_actions, action) ? "0" : "1", db_id);
}

acct_store_rc acct_event_domain(acct_store *st, apr_pool_t *pool,
                                apr_int64_t domain_id, const char *action,
                                const char *username, apr_int64_t now)
{
    return insert_about(st, pool, &q_domain, action, username, now, NULL,
                        domain_id);
}

acct_store_rc acct_event_user(acct_store *st, apr_pool_t *pool,
                              apr_int64_t uid, const char *action,
                              const acct_event_entity *entity,
                              apr_int64_t now)
{
    const char *args[7];

    args[0] = action;
    args[1] = acct_i64(pool, now);
    args[2] = entity->type;
    args[3] = entity->id;
    args[4] = entity->label;
    args[5] = entity->url;
    args[6] = acct_i64(pool, uid);
    return acct_store_exec_deferred(st, pool, &q_user, 7, args);
}

acct_store_rc acct_event_own(acct_store *st, apr_pool_t *pool,
                             acct_store_rc rc, int changed, apr_int64_t uid,
                             const char *action, const char *type,
                             apr_int64_t id, const char *label,
                             const char *url_base, apr_int64_t now)
{
    acct_event_entity e;

    if (rc != ACCT_STORE_OK || !changed) {
        return rc;
    }
    e.type = type;
    e.id = acct_i64(pool, id);
    e.label = label;
    e.url = apr_pstrcat(pool, url_base, e.id, NULL);
    return acct_event_user(st, pool, uid, action, &e, now);
}

/* Runs `sql`, an event about user `uid`'s profile (PROFILE_EVENT). */
static acct_store_rc profile_event(acct_store *st, apr_pool_t *pool,
                                   const acct_sql *sql, apr_int64_t uid,
                                   const char *action, apr_int64_t now)
{
    const char *args[3];

    args[0] = action;
    args[1] = acct_i64(pool, now);
    args[2] = acct_i64(pool, uid);
    return acct_store_exec_deferred(st, pool, sql, 3, args);
}

acct_store_rc acct_event_profile(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t uid, const char *action,
                                 apr_int64_t now)
{
    return profile_event(st, pool, &q_profile, uid, action, now);
}

acct_store_rc acct_event_tfa_disabled(acct_store *st, apr_pool_t *pool,
                                      apr_int64_t uid, apr_int64_t now)
{
    return profile_event(st, pool, &q_tfa_disabled, uid,
                         ACCT_EVENT_TFA_DISABLED, now);
}

/* acct_event_write of `action` about one entity, without a secondary one. */
static acct_store_rc write_about(acct_store *st, apr_pool_t *pool,
                                 apr_int64_t account_id, const char *action,
                                 const char *username, apr_int64_t now,
                                 const acct_event_entity *entity)
{
    acct_event_new e;

    memset(&e, 0, sizeof(e));
    e.account_id = account_id;
    e.action = action;
    e.username = username;
    e.now = now;
    e.entity = *entity;
    return acct_event_write(st, pool, &e);
}

acct_store_rc acct_event_tag(acct_store *st, apr_pool_t *pool,
                             apr_int64_t account_id, const char *label,
                             const char *action, const char *username,
                             apr_int64_t now)
{
    /* No id: a tag is named by its label (the reader shows the label as
     * the id, as the public API does). */
    acct_event_entity tag = {ACCT_EVENT_ENTITY_TAG, NULL, label, NULL};

    tag.url = apr_pstrcat(pool, "/v4/tags/",
                          apr_pescape_path_segment(pool, label), NULL);
    return write_about(st, pool, account_id, action, username, now, &tag);
}

acct_store_rc acct_event_account_user(acct_store *st, apr_pool_t *pool,
                                      apr_int64_t account_id, apr_int64_t uid,
                                      const char *username, const char *action,
                                      apr_int64_t now)
{
    acct_event_entity user = {ACCT_EVENT_ENTITY_USER, NULL, username, NULL};

    user.id = acct_i64(pool, uid);
    /* Usernames are letters, digits, '_' and '-': nothing to escape. */
    user.url = apr_pstrcat(pool, "/v4/account/users/", username, NULL);
    /* No username: the operator. */
    return write_about(st, pool, account_id, action, NULL, now, &user);
}

acct_store_rc acct_event_database_follow(acct_store *st, apr_pool_t *pool,
                                         apr_int64_t db_id)
{
    const char *args[4];

    args[0] = args[1] = args[2] = args[3] = acct_i64(pool, db_id);
    return acct_store_exec(st, pool, &q_database_follow, NULL, 4, args);
}

acct_store_rc acct_event_database_status(acct_store *st, apr_pool_t *pool,
                                         apr_int64_t db_id, const char *status,
                                         apr_int64_t now)
{
    int failed = strcmp(status, ACCT_DB_FAILED) == 0;
    const char *args[5];
    acct_store_rc rc;

    if (!listed(rest_statuses, status)) {
        return ACCT_STORE_OK;
    }
    args[0] = failed ? ACCT_EVENT_FAILED : ACCT_EVENT_FINISHED;
    args[1] = args[4] = acct_i64(pool, now);
    args[2] = args[3] = acct_i64(pool, db_id);
    rc = acct_store_exec(st, pool, &q_database_end, NULL, 5, args);
    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    if (failed) {
        return acct_event_database(st, pool, db_id, ACCT_EVENT_DATABASE_FAILED,
                                   NULL, now);
    }
    if (strcmp(status, ACCT_DB_DEGRADED) == 0) {
        return acct_event_database(st, pool, db_id,
                                   ACCT_EVENT_DATABASE_DEGRADED, NULL, now);
    }
    return ACCT_STORE_OK;
}

/* The events of `where` (its arguments `args`), for the acting request. */
static void list_query(acct_req *req, acct_render_row *render,
                       const char *where, int nargs, const char **args,
                       acct_list_query *q)
{
    static const acct_filter_field fixed[] = {
        {"id", "e.id", ACCT_FIELD_INT},
        {"action", "e.action", ACCT_FIELD_TEXT},
        {"created", "e.created", ACCT_FIELD_TIME},
        {"seen", "e.seen", ACCT_FIELD_BOOL},
        {"read", "e.read", ACCT_FIELD_BOOL},
        {"entity.id", "e.entity_id", ACCT_FIELD_INT},
        {"entity.type", "e.entity_type", ACCT_FIELD_TEXT},
        {"entity.label", "e.entity_label", ACCT_FIELD_TEXT},
        {"username", "e.username", ACCT_FIELD_TEXT},
    };
    const size_t n = sizeof(fixed) / sizeof(fixed[0]);
    /* status, then the terminating row (zeroed). */
    acct_filter_field *fields = apr_pcalloc(req->pool,
                                            (n + 2) * sizeof(*fields));

    memcpy(fields, fixed, sizeof(fixed));
    /* The status a reader shows depends on its clock, which goes into the
     * expression as a number of ours: a list's filter columns take no
     * parameters. */
    fields[n].name = "status";
    fields[n].column = apr_psprintf(req->pool,
                                    STATUS_AT("%" APR_INT64_T_FMT), req->now);
    fields[n].type = ACCT_FIELD_TEXT;
    memset(q, 0, sizeof(*q));
    q->columns = ACCT_EVENT_COLUMNS;
    q->from = "events e";
    q->where = where;
    q->nargs = nargs;
    q->args = args;
    q->fields = fields;
    q->stable_order = "e.id";
    q->newest_first = 1;
    q->render = render;
}

void acct_event_list_query(acct_req *req, acct_render_row *render,
                           acct_list_query *q)
{
    const char **args = apr_palloc(req->pool, VISIBLE_NARGS * sizeof(*args));

    visible_args(req, args);
    /* An unrestricted user sees the whole account: a condition the
     * database would evaluate for every row counted is left out. */
    list_query(req, render,
               req->who->restricted ? VISIBLE("e") : ACCOUNT_EVENTS("e"),
               req->who->restricted ? VISIBLE_NARGS : 2, args, q);
}

void acct_event_list_query_by_token(acct_req *req,
                                    const acct_token_ref *token,
                                    acct_render_row *render,
                                    acct_list_query *q)
{
    const char **args = apr_palloc(req->pool, TOKEN_NARGS * sizeof(*args));

    token_args(req, token, args);
    list_query(req, render, TOKEN_EVENTS(token, "e"), TOKEN_NARGS, args, q);
}

/* The arguments of a statement on event `id` of the acting user. */
static const char **one_event_args(acct_req *req, apr_int64_t id)
{
    const char **args = apr_palloc(req->pool,
                                   (1 + VISIBLE_NARGS) * sizeof(*args));

    args[0] = acct_i64(req->pool, id);
    visible_args(req, args + 1);
    return args;
}

acct_store_rc acct_event_get(acct_req *req, apr_int64_t id, acct_rows **rows)
{
    acct_store *st = NULL;
    acct_store_rc rc = acct_req_store(req, &st);

    *rows = NULL;
    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    return acct_store_select(st, req->pool, &q_get, rows, 1 + VISIBLE_NARGS,
                             one_event_args(req, id));
}

void acct_event_get_by_token(acct_req *req, apr_int64_t id,
                             const acct_token_ref *token,
                             acct_store_read *out)
{
    const char **args = apr_palloc(req->pool,
                                   (1 + TOKEN_NARGS) * sizeof(*args));

    args[0] = acct_i64(req->pool, id);
    token_args(req, token, args + 1);
    memset(out, 0, sizeof(*out));
    out->sql = token->account ? EVENT_BY_ID(ACCOUNT_EVENTS("e"))
                              : EVENT_BY_ID(TOKEN_ACCOUNT_EVENTS("e"));
    out->nargs = 1 + TOKEN_NARGS;
    out->args = args;
}

/*
 * Runs `sql` on the acting user's events from event `id`, which must be
 * one the user sees (*changed 0 otherwise: marking none of them says
 * nothing, since they may all be marked already).
 */
static acct_store_rc mark(acct_req *req, apr_int64_t id, const acct_sql *sql,
                          int *changed)
{
    acct_rows *rows = NULL;
    acct_store_rc rc = acct_event_get(req, id, &rows);

    *changed = 0;
    if (rc != ACCT_STORE_OK || !rows || rows->nrows == 0) {
        return rc;
    }
    rc = acct_store_exec(req->store, req->pool, sql, NULL, 1 + VISIBLE_NARGS,
                         one_event_args(req, id));
    *changed = rc == ACCT_STORE_OK;
    return rc;
}

acct_store_rc acct_event_mark_seen(acct_req *req, apr_int64_t id,
                                   int *changed)
{
    return mark(req, id, &q_seen, changed);
}

acct_store_rc acct_event_mark_read(acct_req *req, apr_int64_t id,
                                   int *changed)
{
    return mark(req, id, &q_read, changed);
}

acct_store_rc acct_event_prune(acct_store *st, apr_pool_t *pool,
                               apr_int64_t now, int *deleted)
{
    const char *arg = acct_i64(pool, now - ACCT_EVENT_RETENTION);

    *deleted = 0;
    return acct_store_exec(st, pool, &q_prune, deleted, 1, &arg);
}

void acct_event_state_at(const acct_rows *rows, int row, apr_int64_t now,
                         acct_event_state *out)
{
    const char *status = acct_rows_get(rows, row, "status");
    const char *next = acct_rows_get(rows, row, "status_next");
    apr_int64_t created = 0, due = -1, ended = -1;

    acct_parse_i64(acct_rows_get(rows, row, "created"), &created);
    if (acct_parse_i64(acct_rows_get(rows, row, "status_due"), &due) != 0) {
        due = -1;
    }
    if (acct_parse_i64(acct_rows_get(rows, row, "ended"), &ended) != 0) {
        ended = -1;
    }
    /* The transition due by the reader's clock has happened. */
    if (next && due >= 0 && due <= now) {
        status = next;
        ended = due;
    }
    out->status = status;
    out->timed = strcmp(status, ACCT_EVENT_NOTIFICATION) != 0;
    out->percent = out->remaining = out->duration = -1;
    if (!out->timed) {
        out->duration = 0;  /* done when it was made */
        return;
    }
    if (strcmp(status, ACCT_EVENT_STARTED) != 0) {
        out->percent = strcmp(status, ACCT_EVENT_FINISHED) == 0 ? 100 : -1;
        out->duration = ended >= created ? ended - created : -1;
        return;
    }
    out->percent = 0;
    if (due > created) {
        apr_int64_t elapsed = now > created ? now - created : 0;

        out->percent = elapsed * 100 / (due - created);
        if (out->percent > 99) {
            out->percent = 99;
        }
        out->remaining = due > now ? due - now : 0;
    }
}
