/*
 * Tags of the acting user's account: /tags and /tags/{tagLabel}.  Every tag
 * route is unrestricted-only (the route table says so; the glue answers 403
 * before a handler runs).  Domains carry tags through their own `tags`
 * field too: both paths share the store of acct_tags.c.  Objects that other
 * services own (instances, volumes, node balancers) can be tagged once the
 * operator has registered them in `entities`.
 */
#include "api_handlers.h"
#include "acct_body.h"
#include "acct_dns.h"
#include "acct_domain.h"
#include "acct_grants.h"
#include "acct_json.h"
#include "acct_list.h"
#include "acct_tags.h"

#include <apr_strings.h>
#include <string.h>

#define R_TAG_EXISTS "Tag already exists"

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

static const acct_filter_field tag_fields[] = {
    {"label", "label", ACCT_FIELD_TEXT},
    {NULL, NULL, 0}
};

/* A tag's objects are not filterable: any X-Filter key is refused. */
static const acct_filter_field no_fields[] = {
    {NULL, NULL, 0}
};

/* What the create body may tag: its field, the entity type, the table. */
typedef struct taggable {
    const char *field;
    const char *type;
    const acct_sql *owned;   /* takes (id, account) or (type, id, account) */
    const char *noun;
} taggable;

static const taggable taggables[] = {
    {"domains", "domain", &q_domain_owned, "Domain"},
    {"instances", "instance", &q_entity_owned, "Instance"},
    {"nodebalancers", "nodebalancer", &q_entity_owned, "NodeBalancer"},
    {"volumes", "volume", &q_entity_owned, "Volume"},
    {NULL, NULL, NULL, NULL}
};

/*
 * The objects of a tag: its links to domains and registered entities of the
 * tag's account (a link whose object has gone is left out).  Aliases x and
 * tg because the tags column's subquery uses tl and t.
 */
#define TAG_OBJECTS_FROM \
    "tag_links x JOIN tags tg ON tg.id = x.tag_id" \
    " LEFT JOIN domains d ON x.entity_type = 'domain'" \
    " AND d.id = x.entity_id AND d.account_id = tg.account_id" \
    " LEFT JOIN entities e ON e.entity_type = x.entity_type" \
    " AND e.entity_id = x.entity_id AND e.account_id = tg.account_id"

#define TAG_OBJECTS_WHERE \
    "x.tag_id = CAST(%s AS BIGINT)" \
    " AND x.entity_type IN ('domain', 'instance', 'volume', 'nodebalancer')" \
    " AND (d.id IS NOT NULL OR e.entity_id IS NOT NULL)"

static json_t *render_tag(acct_req *req, const acct_rows *rows, int i)
{
    json_t *o = json_object();

    (void)req;
    json_object_set_new(o, "label",
                        acct_json_str(acct_rows_get(rows, i, "label")));
    return o;
}

static json_t *render_object(acct_req *req, const acct_rows *rows, int i)
{
    const char *type = acct_rows_get(rows, i, "kind");
    json_t *o = json_object(), *data;

    if (strcmp(type, "domain") == 0) {
        /* The tags column is present: rendering cannot fail. */
        data = acct_domain_render(req, rows, i);
    }
    else {
        data = json_object();
        json_object_set_new(data, "id", acct_json_int(acct_rows_get(
                                                rows, i, "entity_id")));
        json_object_set_new(data, "label",
                            acct_json_str(acct_rows_get(rows, i,
                                                        "entity_label")));
        json_object_set_new(data, "tags",
                            acct_tags_from_column(req->pool,
                                                  acct_rows_get(rows, i,
                                                                "tags")));
    }
    json_object_set_new(o, "type", json_string(type));
    json_object_set_new(o, "data", data ? data : json_null());
    return o;
}

/* The id of the tag named by the path, as text; answers 404 itself. */
static const char *load_tag(acct_req *req, acct_resp *resp)
{
    const char *args[2];
    acct_rows *rows;

    args[0] = acct_i64(req->pool, req->who->account_id);
    args[1] = req->params[0];
    rows = acct_req_row(req, resp, &q_tag_find, 2, args);
    return rows ? acct_rows_get(rows, 0, "id") : NULL;
}

void api_tags_list(acct_req *req, acct_resp *resp)
{
    const char *args[1];
    acct_list_query q = {"id, label", "tags",
                         "account_id = CAST(%s AS BIGINT)", 1, args,
                         tag_fields, "label", render_tag};

    args[0] = acct_i64(req->pool, req->who->account_id);
    acct_list_respond(req, resp, &q);
}

/*
 * Reads body field `t->field` (absent or null: nothing) as an array of ids,
 * each of an object of the account the caller may change; every bad item
 * is reported by its index.  *ids gets them (apr_int64_t).  0 when the
 * store answered, -1 after a store error.
 */
static int read_ids(acct_req *req, acct_resp *resp, const taggable *t,
                    apr_array_header_t **ids)
{
    json_t *v = req->body ? json_object_get(req->body, t->field) : NULL;
    const char *args[3], *account = acct_i64(req->pool, req->who->account_id);
    acct_store *st = NULL;
    acct_rows *rows;
    json_t *item;
    size_t i;

    *ids = apr_array_make(req->pool, 4, sizeof(apr_int64_t));
    if (!v || json_is_null(v)) {
        return 0;
    }
    if (!json_is_array(v)) {
        acct_resp_invalid(resp, req->pool, t->field,
                          apr_psprintf(req->pool, "%s must be an array of ids",
                                       t->field));
        return 0;
    }
    if (acct_resp_store_failed(req, resp, acct_req_store(req, &st)) != 0) {
        return -1;
    }
    json_array_foreach(v, i, item) {
        const char *where = apr_psprintf(req->pool, "%s[%lu]", t->field,
                                         (unsigned long)i);
        apr_int64_t id = json_is_integer(item) ? json_integer_value(item) : 0;
        int n = 0;

        if (id <= 0) {
            acct_resp_invalid(resp, req->pool, where,
                              apr_psprintf(req->pool, "%s ids are positive "
                                           "integers", t->noun));
            continue;
        }
        if (t->owned == &q_entity_owned) {
            args[n++] = t->type;
        }
        args[n++] = acct_i64(req->pool, id);
        args[n++] = account;
        rows = NULL;
        if (acct_resp_store_failed(req, resp, acct_store_select(st, req->pool, t->owned,
                                                      &rows, n, args)) != 0) {
            return -1;
        }
        if (rows->nrows == 0) {
            acct_resp_invalid(resp, req->pool, where,
                              apr_psprintf(req->pool, "%s %" APR_INT64_T_FMT
                                           " not found", t->noun, id));
            continue;
        }
        /* Tagging changes the object: a restricted caller needs read_write. */
        if (acct_grant_require(req, resp, t->type, id,
                               ACCT_LEVEL_READ_WRITE) != 0) {
            return -1;
        }
        APR_ARRAY_PUSH(*ids, apr_int64_t) = id;
    }
    return 0;
}

/*
 * All or nothing: every id is checked before the tag is created, and the
 * glue's transaction rolls back whatever an error status leaves behind.
 */
void api_tag_create(acct_req *req, acct_resp *resp)
{
    static const char *const allowed[] = {"label", "domains", "instances",
                                          "nodebalancers", "volumes", NULL};
    apr_array_header_t *ids[sizeof(taggables) / sizeof(taggables[0])];
    const char *label = NULL, *args[3], *tag_id;
    acct_rows *rows = NULL;
    acct_store *st = NULL;
    int k, j;

    acct_body_only(req, resp, allowed);
    acct_body_require(req, resp, "label",
                      acct_body_string(req, resp, "label", ACCT_TAG_LABEL_MIN,
                                       ACCT_TAG_LABEL_MAX, 0, &label));
    for (k = 0; taggables[k].field; k++) {
        if (read_ids(req, resp, &taggables[k], &ids[k]) != 0) {
            return;
        }
    }
    if (acct_resp_failed(resp)
        || acct_resp_store_failed(req, resp, acct_req_store(req, &st)) != 0) {
        return;
    }
    args[0] = acct_i64(req->pool, req->who->account_id);
    args[1] = label;
    args[2] = acct_i64(req->pool, req->now);
    if (acct_resp_store_failed(req, resp, acct_store_select(st, req->pool,
                                                  &q_tag_create, &rows, 3,
                                                  args)) != 0) {
        return;
    }
    if (rows->nrows == 0) {
        acct_resp_invalid(resp, req->pool, "label", R_TAG_EXISTS);
        return;
    }
    tag_id = acct_rows_get(rows, 0, "id");
    for (k = 0; taggables[k].field; k++) {
        for (j = 0; j < ids[k]->nelts; j++) {
            if (acct_resp_store_failed(req, resp, acct_tags_link(
                    st, req->pool, tag_id, taggables[k].type,
                    APR_ARRAY_IDX(ids[k], j, apr_int64_t))) != 0) {
                return;
            }
        }
    }
    acct_resp_ok(resp, req->pool, json_pack("{s:s}", "label", label));
}

void api_tag_objects(acct_req *req, acct_resp *resp)
{
    const char *args[1];
    acct_store *st = NULL;
    acct_list_query q = {NULL, TAG_OBJECTS_FROM, TAG_OBJECTS_WHERE, 1, args,
                         no_fields, "x.entity_type, x.entity_id",
                         render_object};

    if (!(args[0] = load_tag(req, resp))
        || acct_resp_store_failed(req, resp, acct_req_store(req, &st)) != 0) {
        return;
    }
    q.columns = apr_pstrcat(req->pool,
                            "x.entity_type AS kind, x.entity_id AS entity_id,"
                            " e.label AS entity_label, " ACCT_DOMAIN_COLUMNS
                            ", ",
                            acct_tags_column_sql_typed(req->pool,
                                                       acct_store_dialect(st),
                                                       "x.entity_type",
                                                       "x.entity_id"),
                            " AS tags", NULL);
    acct_list_respond(req, resp, &q);
}

/* Tags are not part of zones: the tagged domains' serials stay. */
void api_tag_delete(acct_req *req, acct_resp *resp)
{
    const char *args[1];

    if (!(args[0] = load_tag(req, resp))
        || acct_resp_store_failed(req, resp, acct_store_exec(req->store, req->pool,
                                                   &q_tag_unlink, NULL, 1,
                                                   args)) != 0
        || acct_resp_store_failed(req, resp, acct_store_exec(req->store, req->pool,
                                                   &q_tag_delete, NULL, 1,
                                                   args)) != 0) {
        return;
    }
    acct_resp_ok(resp, req->pool, NULL);
}
