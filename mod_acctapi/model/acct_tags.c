#include "acct_tags.h"
#include "acct_dns.h"
#include "acct_event.h"
#include "acct_grants.h"
#include "acct_json.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

/*
 * The tag of a label, created on first use.  DO UPDATE (a no-op write)
 * rather than DO NOTHING so that the id comes back in both cases, from one
 * statement that a concurrent creator of the same label cannot race.
 */
static const acct_sql q_tag_ensure = ACCT_SQL("tag_ensure",
    "INSERT INTO tags (account_id, label, created)"
    " VALUES (CAST(%s AS BIGINT), %s, CAST(%s AS BIGINT))"
    " ON CONFLICT (account_id, label) DO UPDATE SET label = excluded.label"
    " RETURNING id");

static const acct_sql q_tag_link = ACCT_SQL("tag_link",
    "INSERT INTO tag_links (tag_id, entity_type, entity_id)"
    " VALUES (CAST(%s AS BIGINT), %s, CAST(%s AS BIGINT))"
    " ON CONFLICT DO NOTHING");

static const acct_sql q_tag_unlink_all = ACCT_SQL("tag_unlink_all",
    "DELETE FROM tag_links"
    " WHERE entity_type = %s AND entity_id = CAST(%s AS BIGINT)");

static const acct_sql q_tag_copy = ACCT_SQL("tag_copy",
    "INSERT INTO tag_links (tag_id, entity_type, entity_id)"
    " SELECT tag_id, entity_type, CAST(%s AS BIGINT) FROM tag_links"
    " WHERE entity_type = %s AND entity_id = CAST(%s AS BIGINT)"
    " ON CONFLICT DO NOTHING");

static const acct_sql q_tag_labels = ACCT_SQL("tag_labels",
    "SELECT t.label FROM tag_links tl JOIN tags t ON t.id = tl.tag_id"
    " WHERE tl.entity_type = %s AND tl.entity_id = CAST(%s AS BIGINT)");

static const acct_sql q_tag_find = ACCT_SQL("tags_find",
    "SELECT id FROM tags"
    " WHERE account_id = CAST(%s AS BIGINT) AND label = %s");

/* DO NOTHING: a label that exists already is the caller's error. */
static const acct_sql q_tag_create = ACCT_SQL("tags_create",
    "INSERT INTO tags (account_id, label, created)"
    " VALUES (CAST(%s AS BIGINT), %s, CAST(%s AS BIGINT))"
    " ON CONFLICT (account_id, label) DO NOTHING RETURNING id");

static const acct_sql q_tag_unlink = ACCT_SQL("tags_unlink",
    "DELETE FROM tag_links WHERE tag_id = CAST(%s AS BIGINT)");

static const acct_sql q_tag_delete = ACCT_SQL("tags_delete",
    "DELETE FROM tags WHERE id = CAST(%s AS BIGINT)");

static const acct_sql q_domain_owned = ACCT_SQL("tags_domain_owned",
    "SELECT id FROM domains"
    " WHERE id = CAST(%s AS BIGINT) AND account_id = CAST(%s AS BIGINT)");

static const acct_sql q_entity_owned = ACCT_SQL("tags_entity_owned",
    "SELECT entity_id FROM entities"
    " WHERE entity_type = %s AND entity_id = CAST(%s AS BIGINT)"
    " AND account_id = CAST(%s AS BIGINT)");

const char *const acct_tags_taggable_types[] = {
    ACCT_ENTITY_DOMAIN, ACCT_ENTITY_INSTANCE, ACCT_ENTITY_NODEBALANCER,
    ACCT_ENTITY_VOLUME, NULL
};

static const acct_filter_field tag_fields[] = {
    {"label", "label", ACCT_FIELD_TEXT},
    {NULL, NULL, 0}
};

/* A tag's objects are not filterable: any X-Filter key is refused. */
static const acct_filter_field no_fields[] = {
    {NULL, NULL, 0}
};

/*
 * The objects of a tag: its links to domains and registered entities of the
 * tag's account (a link whose object has gone is left out).  Aliases x and
 * tg because the tags column's subquery uses tl and t.
 */
#define TAG_OBJECTS_FROM \
    "tag_links x JOIN tags tg ON tg.id = x.tag_id" \
    " LEFT JOIN domains d ON x.entity_type = '" ACCT_ENTITY_DOMAIN "'" \
    " AND d.id = x.entity_id AND d.account_id = tg.account_id" \
    " LEFT JOIN entities e ON e.entity_type = x.entity_type" \
    " AND e.entity_id = x.entity_id AND e.account_id = tg.account_id"

/* Followed by the IN list of acct_tags_taggable_types. */
#define TAG_OBJECTS_WHERE "x.tag_id = CAST(%s AS BIGINT) AND x.entity_type IN "
#define TAG_OBJECTS_EXISTING " AND (d.id IS NOT NULL OR e.entity_id IS NOT NULL)"

static int label_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A new JSON array of `n` labels, sorted; `labels` is reordered. */
static json_t *sorted_array(const char **labels, size_t n)
{
    json_t *out = json_array();
    size_t i;

    qsort(labels, n, sizeof(*labels), label_cmp);
    for (i = 0; i < n; i++) {
        json_array_append_new(out, json_string(labels[i]));
    }
    return out;
}

static int seen_before(const apr_array_header_t *labels, const char *label)
{
    int i;

    for (i = 0; i < labels->nelts; i++) {
        if (strcmp(APR_ARRAY_IDX(labels, i, const char *), label) == 0) {
            return 1;
        }
    }
    return 0;
}

acct_field_rc acct_tags_read_body(acct_req *req, acct_problems *pb,
                                  const char *field,
                                  apr_array_header_t **labels)
{
    json_t *v = req->body ? json_object_get(req->body, field) : NULL;
    acct_field_rc rc = ACCT_FIELD_SET;
    json_t *item;
    size_t i;

    if (!v) {
        return ACCT_FIELD_ABSENT;
    }
    *labels = apr_array_make(req->pool, 4, sizeof(const char *));
    if (!json_is_array(v)) {
        acct_problem_add(pb, field,
                         apr_psprintf(req->pool, "%s must be an array of "
                                      "tag labels", field));
        return ACCT_FIELD_BAD;
    }
    json_array_foreach(v, i, item) {
        const char *label = json_string_value(item);
        size_t len = label ? acct_utf8_length(label) : 0;

        if (!label || strlen(label) != json_string_length(item)
            || len < ACCT_TAG_LABEL_MIN || len > ACCT_TAG_LABEL_MAX) {
            acct_problem_add(pb,
                             apr_psprintf(req->pool, "%s[%lu]", field,
                                          (unsigned long)i),
                             apr_psprintf(req->pool, "A tag label must be a "
                                          "string of %d-%d characters",
                                          ACCT_TAG_LABEL_MIN,
                                          ACCT_TAG_LABEL_MAX));
            rc = ACCT_FIELD_BAD;
        }
        else if (!seen_before(*labels, label)) {
            APR_ARRAY_PUSH(*labels, const char *) = apr_pstrdup(req->pool,
                                                                label);
        }
    }
    return rc;
}

static acct_store_rc link_label(acct_store *st, apr_pool_t *pool,
                                const char *account, const char *label,
                                const char *now, const char *entity_type,
                                const char *id)
{
    const char *args[3];
    acct_rows *rows = NULL;
    acct_store_rc rc;

    args[0] = account;
    args[1] = label;
    args[2] = now;
    rc = acct_store_select(st, pool, &q_tag_ensure, &rows, 3, args);
    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    if (rows->nrows != 1) {
        return ACCT_STORE_FAILED;
    }
    args[0] = acct_rows_get(rows, 0, "id");
    args[1] = entity_type;
    args[2] = id;
    return acct_store_exec(st, pool, &q_tag_link, NULL, 3, args);
}

acct_store_rc acct_tags_set(acct_store *st, apr_pool_t *pool,
                            apr_int64_t account_id, const char *entity_type,
                            apr_int64_t id, const apr_array_header_t *labels,
                            apr_int64_t now)
{
    const char *account = acct_i64(pool, account_id);
    const char *when = acct_i64(pool, now);
    const char *entity = acct_i64(pool, id);
    acct_store_rc rc = acct_tags_remove(st, pool, entity_type, id);
    int i;

    for (i = 0; rc == ACCT_STORE_OK && i < labels->nelts; i++) {
        rc = link_label(st, pool, account,
                        APR_ARRAY_IDX(labels, i, const char *), when,
                        entity_type, entity);
    }
    return rc;
}

acct_store_rc acct_tags_copy(acct_store *st, apr_pool_t *pool,
                             const char *entity_type, apr_int64_t from,
                             apr_int64_t to)
{
    const char *args[3];

    args[0] = acct_i64(pool, to);
    args[1] = entity_type;
    args[2] = acct_i64(pool, from);
    return acct_store_exec(st, pool, &q_tag_copy, NULL, 3, args);
}

acct_store_rc acct_tags_get(acct_store *st, apr_pool_t *pool,
                            const char *entity_type, apr_int64_t id,
                            json_t **out)
{
    const char *args[2], **labels;
    acct_rows *rows = NULL;
    acct_store_rc rc;
    int i;

    args[0] = entity_type;
    args[1] = acct_i64(pool, id);
    rc = acct_store_select(st, pool, &q_tag_labels, &rows, 2, args);
    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    labels = apr_pcalloc(pool, sizeof(*labels) * (rows->nrows + 1));
    for (i = 0; i < rows->nrows; i++) {
        labels[i] = acct_rows_get(rows, i, "label");
    }
    *out = sorted_array(labels, (size_t)rows->nrows);
    return ACCT_STORE_OK;
}

acct_store_rc acct_tags_remove(acct_store *st, apr_pool_t *pool,
                               const char *entity_type, apr_int64_t id)
{
    const char *args[2];

    args[0] = entity_type;
    args[1] = acct_i64(pool, id);
    return acct_store_exec(st, pool, &q_tag_unlink_all, NULL, 2, args);
}

const char *acct_tags_column_sql_typed(apr_pool_t *pool, acct_dialect dialect,
                                       const char *type_sql,
                                       const char *id_column)
{
    /* acct_tags_from_column sorts: the dialects' collations differ. */
    const char *agg = dialect == ACCT_DIALECT_PGSQL ? ACCT_TAGS_AGG_PGSQL
                                                    : ACCT_TAGS_AGG_SQLITE;

    return apr_psprintf(pool, ACCT_TAGS_COLUMN("%s", "%s", "%s"), agg,
                        type_sql, id_column);
}

const char *acct_tags_column_sql(apr_pool_t *pool, acct_dialect dialect,
                                 const char *entity_type,
                                 const char *id_column)
{
    return acct_tags_column_sql_typed(pool, dialect,
                                      apr_psprintf(pool, "'%s'", entity_type),
                                      id_column);
}

acct_store_rc acct_tags_link(acct_store *st, apr_pool_t *pool,
                             apr_int64_t tag_id, const char *entity_type,
                             apr_int64_t id)
{
    const char *args[3];

    args[0] = acct_i64(pool, tag_id);
    args[1] = entity_type;
    args[2] = acct_i64(pool, id);
    return acct_store_exec(st, pool, &q_tag_link, NULL, 3, args);
}

json_t *acct_tags_from_column(apr_pool_t *pool, const char *text)
{
    json_t *parsed = acct_json_parse_column(text), *item, *out;
    const char **labels;
    size_t i, n = 0;

    if (!json_is_array(parsed)) {
        json_decref(parsed);
        return json_array();
    }
    labels = apr_pcalloc(pool, sizeof(*labels)
                               * (json_array_size(parsed) + 1));
    json_array_foreach(parsed, i, item) {
        if (json_is_string(item)) {
            labels[n++] = json_string_value(item);
        }
    }
    out = sorted_array(labels, n);
    json_decref(parsed);
    return out;
}

/* The id column of the one row a statement returned: 0 when no row. */
static acct_store_rc row_id(acct_store *st, apr_pool_t *pool,
                            const acct_sql *sql, int nargs,
                            const char *const *args, const char *column,
                            apr_int64_t *id)
{
    acct_rows *rows = NULL;
    acct_store_rc rc = acct_store_select(st, pool, sql, &rows, nargs, args);

    *id = 0;
    if (rc != ACCT_STORE_OK) {
        return rc;
    }
    if (rows->nrows > 0
        && acct_parse_i64(acct_rows_get(rows, 0, column), id) != 0) {
        return ACCT_STORE_FAILED;
    }
    return ACCT_STORE_OK;
}

acct_store_rc acct_tags_find(acct_store *st, apr_pool_t *pool,
                             apr_int64_t account_id, const char *label,
                             apr_int64_t *tag_id)
{
    const char *args[2];

    args[0] = acct_i64(pool, account_id);
    args[1] = label;
    return row_id(st, pool, &q_tag_find, 2, args, "id", tag_id);
}

acct_store_rc acct_tags_create(acct_store *st, apr_pool_t *pool,
                               apr_int64_t account_id, const char *label,
                               const char *username, apr_int64_t now,
                               apr_int64_t *tag_id)
{
    const char *args[3];
    acct_store_rc rc;

    args[0] = acct_i64(pool, account_id);
    args[1] = label;
    args[2] = acct_i64(pool, now);
    rc = row_id(st, pool, &q_tag_create, 3, args, "id", tag_id);
    if (rc != ACCT_STORE_OK || *tag_id == 0) {
        return rc;
    }
    return acct_event_tag(st, pool, account_id, label, ACCT_EVENT_TAG_CREATE,
                          username, now);
}

acct_store_rc acct_tags_delete(acct_store *st, apr_pool_t *pool,
                               apr_int64_t account_id, apr_int64_t tag_id,
                               const char *label, const char *username,
                               apr_int64_t now)
{
    const char *args[1];
    acct_store_rc rc;
    int deleted = 0;

    args[0] = acct_i64(pool, tag_id);
    rc = acct_store_exec(st, pool, &q_tag_unlink, NULL, 1, args);
    if (rc == ACCT_STORE_OK) {
        rc = acct_store_exec(st, pool, &q_tag_delete, &deleted, 1, args);
    }
    /* A concurrent delete of the same tag came first: its event. */
    if (rc != ACCT_STORE_OK || deleted == 0) {
        return rc;
    }
    return acct_event_tag(st, pool, account_id, label, ACCT_EVENT_TAG_DELETE,
                          username, now);
}

acct_store_rc acct_tags_entity_owned(acct_store *st, apr_pool_t *pool,
                                     const char *entity_type, apr_int64_t id,
                                     apr_int64_t account_id, int *owned)
{
    const char *args[3];
    acct_rows *rows = NULL;
    acct_store_rc rc;
    int n = 0;

    *owned = 0;
    /* Domains are this service's own; the rest are registered objects. */
    if (strcmp(entity_type, ACCT_ENTITY_DOMAIN) == 0) {
        args[n++] = acct_i64(pool, id);
        args[n++] = acct_i64(pool, account_id);
        rc = acct_store_select(st, pool, &q_domain_owned, &rows, n, args);
    }
    else {
        args[n++] = entity_type;
        args[n++] = acct_i64(pool, id);
        args[n++] = acct_i64(pool, account_id);
        rc = acct_store_select(st, pool, &q_entity_owned, &rows, n, args);
    }
    if (rc == ACCT_STORE_OK) {
        *owned = rows->nrows > 0;
    }
    return rc;
}

void acct_tags_list_query(apr_pool_t *pool, apr_int64_t account_id,
                          acct_render_row *render, acct_list_query *q)
{
    acct_list_query_of(q, pool, "id, label", "tags",
                       "account_id = CAST(%s AS BIGINT)", account_id,
                       tag_fields, "label");
    q->render = render;
}

void acct_tags_objects_query(apr_pool_t *pool, acct_dialect dialect,
                             apr_int64_t tag_id, acct_render_row *render,
                             acct_list_query *q)
{
    const char *in = "(";
    int i;

    /* Type names are constants, never user text: written as literals. */
    for (i = 0; acct_tags_taggable_types[i]; i++) {
        in = apr_psprintf(pool, "%s%s'%s'", in, i ? ", " : "",
                          acct_tags_taggable_types[i]);
    }
    acct_list_query_of(q, pool,
                       apr_pstrcat(pool,
                                   "x.entity_type AS kind,"
                                   " x.entity_id AS entity_id,"
                                   " e.label AS entity_label,"
                                   " e.created AS entity_created, "
                                   ACCT_DOMAIN_COLUMNS
                                   ", ",
                                   acct_tags_column_sql_typed(pool, dialect,
                                                              "x.entity_type",
                                                              "x.entity_id"),
                                   " AS tags", NULL),
                       TAG_OBJECTS_FROM,
                       apr_pstrcat(pool, TAG_OBJECTS_WHERE, in, ")",
                                   TAG_OBJECTS_EXISTING, NULL),
                       tag_id, no_fields, "x.entity_type, x.entity_id");
    q->render = render;
}

/* ------------------------------------------------------------------------
 * Registered objects
 */

/* ON CONFLICT: the pair names one object of one service. */
static const acct_sql q_entity_add = ACCT_SQL("admin_entity_add",
    "INSERT INTO entities (entity_type, entity_id, account_id, label, created)"
    " SELECT %s, CAST(%s AS BIGINT), id, %s, CAST(%s AS BIGINT)"
    " FROM accounts WHERE id = CAST(%s AS BIGINT)"
    " ON CONFLICT (entity_type, entity_id) DO NOTHING RETURNING entity_id");

static const acct_sql q_account_exists = ACCT_SQL("admin_account_exists",
    "SELECT id FROM accounts WHERE id = CAST(%s AS BIGINT)");

static const acct_sql q_entity_remove = ACCT_SQL("admin_entity_remove",
    "DELETE FROM entities"
    " WHERE entity_type = %s AND entity_id = CAST(%s AS BIGINT)");

acct_store_rc acct_entity_register(acct_store *st, apr_pool_t *pool,
                                   const char *entity_type, apr_int64_t id,
                                   apr_int64_t account_id, const char *label,
                                   apr_int64_t now,
                                   acct_entity_outcome *outcome)
{
    const char *args[5];
    acct_rows *rows = NULL;
    acct_store_rc rc;

    args[0] = entity_type;
    args[1] = acct_i64(pool, id);
    args[2] = label;
    args[3] = acct_i64(pool, now);
    args[4] = acct_i64(pool, account_id);
    *outcome = ACCT_ENTITY_REGISTERED;
    rc = acct_store_select(st, pool, &q_entity_add, &rows, 5, args);
    if (rc == ACCT_STORE_OK && rows->nrows == 0) {
        /* No row: the account is missing or the pair is taken; say which. */
        rc = acct_store_select(st, pool, &q_account_exists, &rows, 1,
                               args + 4);
        if (rc == ACCT_STORE_OK) {
            *outcome = rows->nrows == 0 ? ACCT_ENTITY_NO_ACCOUNT
                                        : ACCT_ENTITY_TAKEN;
        }
    }
    return rc;
}

acct_store_rc acct_entity_unregister(acct_store *st, apr_pool_t *pool,
                                     const char *entity_type, apr_int64_t id,
                                     int *removed)
{
    const char *args[2];
    acct_store_rc rc;

    args[0] = entity_type;
    args[1] = acct_i64(pool, id);
    *removed = 0;
    rc = acct_store_exec(st, pool, &q_entity_remove, removed, 2, args);
    if (rc == ACCT_STORE_OK && *removed) {
        rc = acct_tags_remove(st, pool, entity_type, id);
    }
    if (rc == ACCT_STORE_OK && *removed) {
        rc = acct_grants_remove_entity(st, pool, entity_type, id);
    }
    return rc;
}
