#include "acct_entities.h"
#include "acct_grants.h"
#include "acct_json.h"
#include "acct_tags.h"

#include <apr_strings.h>
#include <string.h>

/* What a view row carries: the columns every shape starts from. */
#define ENTITY_COLUMNS(tags) \
    "e.entity_type AS kind, e.entity_id AS id, e.label AS label," \
    " e.created AS created, " tags " AS tags"
#define ENTITY_BY_ID \
    " FROM entities e WHERE e.entity_type = %s" \
    " AND e.entity_id = CAST(%s AS BIGINT)" \
    " AND e.account_id = CAST(%s AS BIGINT)"

static const acct_sql q_entity_get = ACCT_SQL2("entity_view_get",
    "SELECT " ENTITY_COLUMNS(ACCT_TAGS_COLUMN(ACCT_TAGS_AGG_SQLITE,
                                              "e.entity_type", "e.entity_id"))
    ENTITY_BY_ID,
    "SELECT " ENTITY_COLUMNS(ACCT_TAGS_COLUMN(ACCT_TAGS_AGG_PGSQL,
                                              "e.entity_type", "e.entity_id"))
    ENTITY_BY_ID);

/*
 * X-Filter: the fields the public API marks filterable in each shape (and,
 * for instances, image and lke_cluster_id, which the Terraform provider's
 * linode_instances sends).  A field the module does not know is NULL, so
 * an equality on it matches nothing and +neq everything; one whose value
 * follows from the kind of object is that constant.
 */
#define TAGGED \
    "EXISTS (SELECT 1 FROM tag_links tl JOIN tags t ON t.id = tl.tag_id" \
    " WHERE tl.entity_type = e.entity_type AND tl.entity_id = e.entity_id" \
    " AND t.label = %s)"
#define UNKNOWN_TEXT "CAST(NULL AS TEXT)"
#define UNKNOWN_INT "CAST(NULL AS BIGINT)"

static const acct_filter_field instance_fields[] = {
    {"group", "''", ACCT_FIELD_TEXT},
    {"id", "e.entity_id", ACCT_FIELD_INT},
    {"image", UNKNOWN_TEXT, ACCT_FIELD_TEXT},
    {"ipv4", UNKNOWN_TEXT, ACCT_FIELD_TEXT},
    {"label", "e.label", ACCT_FIELD_TEXT},
    {"lke_cluster_id", UNKNOWN_INT, ACCT_FIELD_INT},
    {"region", UNKNOWN_TEXT, ACCT_FIELD_TEXT},
    {"tags", TAGGED, ACCT_FIELD_TAG},
    {NULL, NULL, 0}
};

static const acct_filter_field volume_fields[] = {
    {"label", "e.label", ACCT_FIELD_TEXT},
    {"tags", TAGGED, ACCT_FIELD_TAG},
    {NULL, NULL, 0}
};

static const acct_filter_field nodebalancer_fields[] = {
    {"ipv4", UNKNOWN_TEXT, ACCT_FIELD_TEXT},
    {"label", "e.label", ACCT_FIELD_TEXT},
    {"region", UNKNOWN_TEXT, ACCT_FIELD_TEXT},
    {"tags", TAGGED, ACCT_FIELD_TAG},
    {NULL, NULL, 0}
};

/* Every image served is private: not public, never deprecated. */
static const acct_filter_field image_fields[] = {
    {"deprecated", "0", ACCT_FIELD_BOOL},
    {"is_public", "0", ACCT_FIELD_BOOL},
    {"label", "e.label", ACCT_FIELD_TEXT},
    {"size", UNKNOWN_INT, ACCT_FIELD_INT},
    {"status", UNKNOWN_TEXT, ACCT_FIELD_TEXT},
    {"tags", TAGGED, ACCT_FIELD_TAG},
    {"type", UNKNOWN_TEXT, ACCT_FIELD_TEXT},
    {"vendor", UNKNOWN_TEXT, ACCT_FIELD_TEXT},
    {NULL, NULL, 0}
};

static const acct_filter_field no_fields[] = {{NULL, NULL, 0}};

static const acct_filter_field *fields_of(const char *entity_type)
{
    if (strcmp(entity_type, ACCT_ENTITY_INSTANCE) == 0) {
        return instance_fields;
    }
    if (strcmp(entity_type, ACCT_ENTITY_VOLUME) == 0) {
        return volume_fields;
    }
    if (strcmp(entity_type, ACCT_ENTITY_NODEBALANCER) == 0) {
        return nodebalancer_fields;
    }
    if (strcmp(entity_type, ACCT_ENTITY_IMAGE) == 0) {
        return image_fields;
    }
    return no_fields;
}

void acct_entities_list_query(acct_req *req, acct_store *st,
                              const char *entity_type, acct_list_query *q)
{
    const char **args = apr_pcalloc(req->pool, 4 * sizeof(*args));

    memset(q, 0, sizeof(*q));
    q->columns = apr_psprintf(req->pool, ENTITY_COLUMNS("%s"),
                              acct_tags_column_sql_typed(
                                  req->pool, acct_store_dialect(st),
                                  "e.entity_type", "e.entity_id"));
    q->from = "entities e";
    q->fields = fields_of(entity_type);
    q->stable_order = "e.entity_id";
    q->render = acct_entities_render;
    if (!req->who) {
        /* The public's list: the public objects, of which there are none. */
        q->where = "1 = 0";
        return;
    }
    q->where = apr_pstrcat(req->pool, "e.entity_type = %s"
                           " AND e.account_id = CAST(%s AS BIGINT) AND ",
                           acct_grant_visible_sql(req->pool, entity_type,
                                                  "e.entity_id"), NULL);
    args[0] = entity_type;
    args[1] = acct_i64(req->pool, req->who->account_id);
    acct_grant_visible_args(req, args + 2);
    q->nargs = 4;
    q->args = args;
}

/* The id a path names: a number, or for images "private/N".  0: none. */
static apr_int64_t path_id(const char *entity_type, const char *param)
{
    size_t n = strlen(ACCT_IMAGE_PRIVATE_PREFIX);
    apr_int64_t id;

    if (!param) {
        return 0;
    }
    if (strcmp(entity_type, ACCT_ENTITY_IMAGE) == 0) {
        if (strncmp(param, ACCT_IMAGE_PRIVATE_PREFIX, n) != 0) {
            return 0;
        }
        param += n;
    }
    return acct_parse_i64(param, &id) == 0 && id > 0 ? id : 0;
}

acct_rows *acct_entities_load(acct_req *req, acct_resp *resp,
                              const char *entity_type)
{
    apr_int64_t id = path_id(entity_type, req->params[0]);
    const char *args[3];
    acct_rows *rows;

    if (id == 0 || !req->who) {
        acct_resp_error(resp, req->pool, 404, ACCT_R_NOT_FOUND, NULL);
        return NULL;
    }
    args[0] = entity_type;
    args[1] = acct_i64(req->pool, id);
    args[2] = acct_i64(req->pool, req->who->account_id);
    rows = acct_req_row(req, resp, &q_entity_get, 3, args);
    if (!rows || acct_grant_require(req, resp, entity_type, id,
                                    ACCT_LEVEL_READ_ONLY) != 0) {
        return NULL;
    }
    return rows;
}

/* ------------------------------------------------------------------------
 * The public shapes
 */

/* Fields the module does not know: null. */
static void set_null(json_t *o, const char *const *keys)
{
    for (; *keys; keys++) {
        json_object_set_new(o, *keys, json_null());
    }
}

/* An object of the public shape whose members the module does not know:
 * its keys, each null, rather than a null object, so that clients that read
 * a member (the Terraform provider reads specs.disk) find one. */
static json_t *unknown_object(const char *const *keys)
{
    json_t *o = json_object();

    set_null(o, keys);
    return o;
}

static void render_instance(json_t *o)
{
    static const char *const unknown[] = {
        "capabilities", "has_user_data", "host_uuid", "image", "ipv4", "ipv6",
        "lke_cluster_id", "placement_group", "region", "status", "type",
        "watchdog_enabled", NULL
    };
    static const char *const alerts[] = {
        "cpu", "io", "network_in", "network_out", "transfer_quota", NULL
    };
    static const char *const specs[] = {
        "disk", "gpus", "memory", "transfer", "vcpus", NULL
    };
    static const char *const backups[] = {
        "available", "enabled", "last_successful", NULL
    };
    static const char *const schedule[] = {"day", "window", NULL};
    json_t *b = unknown_object(backups);

    set_null(o, unknown);
    /* No group: the public API's value for none (the field is deprecated). */
    json_object_set_new(o, "group", json_string(""));
    /* The only hypervisor the public API names. */
    json_object_set_new(o, "hypervisor", json_string("kvm"));
    json_object_set_new(o, "alerts", unknown_object(alerts));
    json_object_set_new(b, "schedule", unknown_object(schedule));
    json_object_set_new(o, "backups", b);
    json_object_set_new(o, "specs", unknown_object(specs));
}

static void render_volume(json_t *o, apr_pool_t *pool, const char *label)
{
    static const char *const unknown[] = {
        "encryption", "hardware_type", "linode_id", "linode_label", "region",
        "size", "status", NULL
    };

    set_null(o, unknown);
    /* The public API derives the path from the label. */
    json_object_set_new(o, "filesystem_path", acct_json_str(apr_pstrcat(
        pool, "/dev/disk/by-id/scsi-0Linode_Volume_", label ? label : "",
        NULL)));
}

static void render_nodebalancer(json_t *o)
{
    static const char *const unknown[] = {
        "client_conn_throttle", "hostname", "ipv4", "ipv6", "region", NULL
    };
    static const char *const transfer[] = {"in", "out", "total", NULL};

    set_null(o, unknown);
    json_object_set_new(o, "transfer", unknown_object(transfer));
}

/* Private images, as the public API describes them: no vendor, no end of
 * life, no expiry, never public or deprecated. */
static void render_image(json_t *o, apr_pool_t *pool, const char *id)
{
    static const char *const unknown[] = {
        "capabilities", "created_by", "description", "eol", "expiry",
        "regions", "size", "status", "total_size", "type", "vendor", NULL
    };

    set_null(o, unknown);
    json_object_set_new(o, "id", acct_json_str(apr_pstrcat(
        pool, ACCT_IMAGE_PRIVATE_PREFIX, id ? id : "", NULL)));
    json_object_set_new(o, "is_public", json_false());
    json_object_set_new(o, "deprecated", json_false());
}

json_t *acct_entities_render(acct_req *req, const acct_rows *rows, int i)
{
    const char *kind = acct_rows_get(rows, i, "kind");
    const char *id = acct_rows_get(rows, i, "id");
    const char *label = acct_rows_get(rows, i, "label");
    const char *created = acct_rows_get(rows, i, "created");
    json_t *o = json_object();

    json_object_set_new(o, "id", acct_json_int(id));
    json_object_set_new(o, "label", acct_json_str(label));
    json_object_set_new(o, "created", acct_json_time(req->pool, created));
    /* The module keeps no change time: registration is the last it saw. */
    json_object_set_new(o, "updated", acct_json_time(req->pool, created));
    json_object_set_new(o, "tags", acct_tags_from_column(
                                       req->pool,
                                       acct_rows_get(rows, i, "tags")));
    if (!kind) {
        return o;
    }
    if (strcmp(kind, ACCT_ENTITY_INSTANCE) == 0) {
        render_instance(o);
    }
    else if (strcmp(kind, ACCT_ENTITY_VOLUME) == 0) {
        render_volume(o, req->pool, label);
    }
    else if (strcmp(kind, ACCT_ENTITY_NODEBALANCER) == 0) {
        render_nodebalancer(o);
    }
    else if (strcmp(kind, ACCT_ENTITY_IMAGE) == 0) {
        render_image(o, req->pool, id);
    }
    return o;
}
