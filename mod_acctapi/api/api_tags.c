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
#include "acct_domain.h"
#include "acct_entities.h"
#include "acct_grants.h"
#include "acct_json.h"
#include "acct_list.h"
#include "acct_names.h"
#include "acct_tags.h"

#include <apr_strings.h>
#include <string.h>

#define R_TAG_EXISTS "Tag already exists"

/* What the create body may tag: its field, the entity type, its name, and
 * the public API's name of the field where it differs (docs/conventions.md,
 * "Today's clients": both are accepted). */
typedef struct taggable {
    const char *field;
    const char *type;
    const char *noun;
    const char *public_field;
} taggable;

static const taggable taggables[] = {
    {"domains", ACCT_ENTITY_DOMAIN, "Domain", NULL},
    {"instances", ACCT_ENTITY_INSTANCE, "Instance", "linodes"},
    {"nodebalancers", ACCT_ENTITY_NODEBALANCER, "NodeBalancer", NULL},
    {"volumes", ACCT_ENTITY_VOLUME, "Volume", NULL},
    {NULL, NULL, NULL, NULL}
};

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
        /* A registered object: the shape its own view shows. */
        data = acct_entities_object(req->pool, type,
                                    acct_rows_get(rows, i, "entity_id"),
                                    acct_rows_get(rows, i, "entity_label"),
                                    acct_rows_get(rows, i, "entity_created"),
                                    acct_rows_get(rows, i, "tags"));
    }
    /* A value has one name: the public API's (linode), unless the operator
     * asked for the contract's names only. */
    json_object_set_new(o, "type",
                        json_string(acct_names_value(
                            req->settings->field_names, type)));
    json_object_set_new(o, "data", data ? data : json_null());
    return o;
}

/*
 * The id of the tag named by the path in *tag_id, and the request's store;
 * 0, or -1 after answering 404 or the store's error.
 */
static int load_tag(acct_req *req, acct_resp *resp, acct_store **st,
                    apr_int64_t *tag_id)
{
    if (acct_resp_store_failed(req, resp, acct_req_store(req, st)) != 0
        || acct_resp_store_failed(req, resp, acct_tags_find(
               *st, req->pool, req->who->account_id, req->params[0],
               tag_id)) != 0) {
        return -1;
    }
    if (*tag_id == 0) {
        acct_resp_error(resp, req->pool, ACCT_HTTP_NOT_FOUND, ACCT_R_NOT_FOUND, NULL);
        return -1;
    }
    return 0;
}

void api_tags_list(acct_req *req, acct_resp *resp)
{
    acct_list_query q;

    acct_tags_list_query(req->pool, req->who->account_id, render_tag, &q);
    acct_list_respond(req, resp, &q);
}

/*
 * Reads body field `t->field` (or its public name; absent or null: nothing)
 * as an array of ids, each of an object of the account the caller may
 * change; every bad item is reported by its index, under the name the
 * client used.  Both names with different values: a problem naming the
 * public one.  *ids gets them (apr_int64_t).  0 when the store answered,
 * -1 after a store error.
 */
static int read_ids(acct_req *req, acct_resp *resp, acct_problems *pb,
                    const taggable *t, apr_array_header_t **ids)
{
    const char *field = t->field;
    json_t *v = req->body ? json_object_get(req->body, t->field) : NULL;
    json_t *pub = req->body && t->public_field
                  ? json_object_get(req->body, t->public_field) : NULL;
    acct_store *st = NULL;
    json_t *item;
    size_t i;

    if (pub && v && !json_equal(pub, v)) {
        acct_problem_add(pb, t->public_field,
                         apr_psprintf(req->pool, "%s and %s name the same "
                                      "objects; give one, or the same ids "
                                      "in both", t->public_field, t->field));
        *ids = apr_array_make(req->pool, 1, sizeof(apr_int64_t));
        return 0;
    }
    if (pub && !v) {
        v = pub;
        field = t->public_field;
    }

    *ids = apr_array_make(req->pool, 4, sizeof(apr_int64_t));
    if (!v || json_is_null(v)) {
        return 0;
    }
    if (!json_is_array(v)) {
        acct_problem_add(pb, field,
                         apr_psprintf(req->pool, "%s must be an array of ids",
                                      field));
        return 0;
    }
    if (acct_resp_store_failed(req, resp, acct_req_store(req, &st)) != 0) {
        return -1;
    }
    json_array_foreach(v, i, item) {
        const char *where = apr_psprintf(req->pool, "%s[%lu]", field,
                                         (unsigned long)i);
        apr_int64_t id = json_is_integer(item) ? json_integer_value(item) : 0;
        int owned = 0;

        if (id <= 0) {
            acct_problem_add(pb, where,
                             apr_psprintf(req->pool, "%s ids are positive "
                                          "integers", t->noun));
            continue;
        }
        if (acct_resp_store_failed(req, resp, acct_tags_entity_owned(
                st, req->pool, t->type, id, req->who->account_id,
                &owned)) != 0) {
            return -1;
        }
        if (!owned) {
            acct_problem_add(pb, where,
                             apr_psprintf(req->pool, "%s %" APR_INT64_T_FMT
                                          " not found", t->noun, id));
            continue;
        }
        /* Tagging changes the object: a restricted caller needs read_write. */
        if (acct_resp_outcome(resp, req->pool, acct_grant_require(req, t->type, id,
                               ACCT_LEVEL_READ_WRITE)) != 0) {
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
    static const char *const settable[] = {"label", "domains", "instances",
                                           "linodes", "nodebalancers",
                                           "volumes", NULL};
    apr_array_header_t *ids[sizeof(taggables) / sizeof(taggables[0])];
    const char *label = NULL;
    apr_int64_t tag_id = 0;
    acct_store *st = NULL;
    acct_problems *pb = acct_problems_make(req->pool);
    int k, j;

    acct_fields_settable(req, pb, settable, NULL);
    acct_field_require(req, pb, "label",
                       acct_field_string(req, pb, "label", ACCT_TAG_LABEL_MIN,
                                         ACCT_TAG_LABEL_MAX, 0, &label));
    for (k = 0; taggables[k].field; k++) {
        if (read_ids(req, resp, pb, &taggables[k], &ids[k]) != 0) {
            return;
        }
    }
    if (acct_problems_any(pb)) {
        acct_resp_problems(resp, req->pool, pb);
        return;
    }
    if (acct_resp_store_failed(req, resp, acct_req_store(req, &st)) != 0) {
        return;
    }
    if (acct_resp_store_failed(req, resp, acct_tags_create(
            st, req->pool, req->who->account_id, label, req->who->username,
            req->now, &tag_id)) != 0) {
        return;
    }
    if (tag_id == 0) {
        acct_resp_invalid(resp, req->pool, "label", R_TAG_EXISTS);
        return;
    }
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
    apr_int64_t tag_id = 0;
    acct_store *st = NULL;
    acct_list_query q;

    if (load_tag(req, resp, &st, &tag_id) != 0) {
        return;
    }
    acct_tags_objects_query(req->pool, acct_store_dialect(st), tag_id,
                            render_object, &q);
    acct_list_respond(req, resp, &q);
}

/* Tags are not part of zones: the tagged domains' serials stay. */
void api_tag_delete(acct_req *req, acct_resp *resp)
{
    apr_int64_t tag_id = 0;
    acct_store *st = NULL;

    if (load_tag(req, resp, &st, &tag_id) != 0
        || acct_resp_store_failed(req, resp, acct_tags_delete(
               st, req->pool, req->who->account_id, tag_id, req->params[0],
               req->who->username, req->now)) != 0) {
        return;
    }
    acct_resp_ok(resp, req->pool, NULL);
}
