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

/* ------------------------------------------------------------------------
 * The public shapes, one table per kind
 *
 * Every key of the public shape (the public API's OpenAPI document) is
 * listed once, with where its value comes from.  The module knows an
 * object's id, label, registration time and tags; every other key has a
 * value of the type the public shape gives it, so that clients that
 * validate the answer, or parse it into typed fields, accept it:
 *  - null where the public shape allows null (an instance's image, a
 *    volume's linode_id ...), and for the few keys the public API itself
 *    answers null although its document does not say so (docs/conventions.md,
 *    "Today's clients": its recorded traffic is the evidence);
 *  - otherwise a neutral value: an empty list, 0, false or "" for a free
 *    string (an alert threshold or a connection throttle of 0 is off, as
 *    the public API documents them; a feature flag false is off);
 *  - for an enumeration, the steady state of an object in service, as the
 *    public API shows a typical one (its recorded traffic): an instance is
 *    running, a volume active, a private image an available manual one, so
 *    that clients that wait for that state do not wait forever; a volume is
 *    unencrypted (the public API's default) and on nvme (the hardware type
 *    of every volume in its recorded traffic);
 *  - for the keys the public API added after its document (its recorded
 *    traffic is the evidence), what it gives a new object when the request
 *    names nothing: an instance's disk is encrypted, its interfaces are the
 *    legacy configuration profile's, maintenance migrates it, and it is in
 *    a core site; a node balancer is a common one on a public address; and
 *    no object is locked (locks, which only its owner sets, are []).
 * The X-Filter columns follow from the same table (view_filters), so a
 * filter on a key matches what the key shows.
 */

/* Where a key's value comes from. */
typedef enum {
    FROM_ID,        /* the object's id: a number */
    FROM_ID_TEXT,   /* `text`, the id, then `after` if any: a string */
    FROM_LABEL,
    FROM_LABEL_AFTER, /* `text` followed by the label (a volume's path) */
    FROM_CREATED,   /* registration time */
    FROM_UPDATED,   /* the same: the module keeps no change time */
    FROM_TAGS,
    IS_NULL,
    IS_TEXT,        /* `text` */
    IS_ZERO,
    IS_FALSE,
    IS_EMPTY_LIST,
    IS_OBJECT       /* `members` */
} view_source;

/*
 * How X-Filter may name a key; NO_FILTER: it may not.  Filterable: the
 * keys the public API marks, those today's clients send (the Terraform
 * provider's data sources, linode_api4's filters, which may name every
 * property of its models), scalar or list; objects are not.
 */
typedef enum {
    NO_FILTER = 0, FILTER_TEXT, FILTER_INT, FILTER_BOOL, FILTER_TAGS,
    FILTER_TIME
} view_filter;

typedef struct view_key {
    const char *key;
    view_source from;
    const char *text;
    const struct view_key *members;
    view_filter filter;
    const char *after;  /* FROM_ID_TEXT: what follows the id */
} view_key;

/* What every view has, filterable in each. */
#define COMMON_KEYS \
    {"label", FROM_LABEL, NULL, NULL, FILTER_TEXT}, \
    {"created", FROM_CREATED, NULL, NULL, FILTER_TIME}, \
    {"updated", FROM_UPDATED, NULL, NULL, FILTER_TIME}, \
    {"tags", FROM_TAGS, NULL, NULL, FILTER_TAGS}
#define KEY(k, from) {k, from, NULL, NULL, NO_FILTER}
#define TEXT(k, value) {k, IS_TEXT, value, NULL, NO_FILTER}
/* A key X-Filter may name (view_filter says which). */
#define KEY_F(k, from, filter) {k, from, NULL, NULL, filter}
#define TEXT_F(k, value) {k, IS_TEXT, value, NULL, FILTER_TEXT}
#define OBJECT(k, members) {k, IS_OBJECT, NULL, members, NO_FILTER}
#define END {NULL, IS_NULL, NULL, NULL, NO_FILTER}

/* No alert is set, and none has fired. */
static const view_key instance_alerts[] = {
    KEY("cpu", IS_ZERO), KEY("io", IS_ZERO), KEY("network_in", IS_ZERO),
    KEY("network_out", IS_ZERO), KEY("system_alerts", IS_EMPTY_LIST),
    KEY("transfer_quota", IS_ZERO), KEY("user_alerts", IS_EMPTY_LIST), END
};
static const view_key instance_schedule[] = {
    KEY("day", IS_NULL), KEY("window", IS_NULL), END
};
static const view_key instance_backups[] = {
    KEY("available", IS_FALSE), KEY("enabled", IS_FALSE),
    /* No backup: the public API's null (its document says a date). */
    KEY("last_successful", IS_NULL),
    OBJECT("schedule", instance_schedule), END
};
static const view_key instance_specs[] = {
    KEY("accelerated_devices", IS_ZERO), KEY("disk", IS_ZERO),
    KEY("gpus", IS_ZERO), KEY("memory", IS_ZERO), KEY("transfer", IS_ZERO),
    KEY("vcpus", IS_ZERO), END
};

/* X-Filter: the keys the public API marks filterable, image and
 * lke_cluster_id, which the Terraform provider's linode_instances sends,
 * and the other properties of linode_api4's Instance. */
static const view_key instance_view[] = {
    {"id", FROM_ID, NULL, NULL, FILTER_INT},
    COMMON_KEYS,
    OBJECT("alerts", instance_alerts),
    OBJECT("backups", instance_backups),
    KEY_F("capabilities", IS_EMPTY_LIST, FILTER_TEXT),
    TEXT_F("disk_encryption", "enabled"),
    /* No group: the public API's value for none (the key is deprecated). */
    {"group", IS_TEXT, "", NULL, FILTER_TEXT},
    KEY_F("has_user_data", IS_FALSE, FILTER_BOOL),
    TEXT_F("host_uuid", ""),
    /* The only hypervisor the public API names. */
    TEXT_F("hypervisor", "kvm"),
    {"image", IS_NULL, NULL, NULL, FILTER_TEXT},
    TEXT_F("interface_generation", "legacy_config"),
    {"ipv4", IS_EMPTY_LIST, NULL, NULL, FILTER_TEXT},
    KEY_F("ipv6", IS_NULL, FILTER_TEXT),
    {"lke_cluster_id", IS_NULL, NULL, NULL, FILTER_INT},
    KEY_F("locks", IS_EMPTY_LIST, FILTER_TEXT),
    TEXT_F("maintenance_policy", "linode/migrate"),
    KEY("placement_group", IS_NULL),
    {"region", IS_TEXT, "", NULL, FILTER_TEXT},
    TEXT("site_type", "core"),
    OBJECT("specs", instance_specs),
    TEXT_F("status", "running"),
    TEXT_F("type", ""),
    KEY_F("watchdog_enabled", IS_FALSE, FILTER_BOOL),
    END
};

/* X-Filter: the public API's marks (label, tags), size and status, which
 * linode_api4's Volume marked filterable, and its other properties. */
static const view_key volume_view[] = {
    KEY_F("id", FROM_ID, FILTER_INT),
    COMMON_KEYS,
    TEXT_F("encryption", "disabled"),
    /* The public API derives the path from the label. */
    {"filesystem_path", FROM_LABEL_AFTER,
     "/dev/disk/by-id/scsi-0Linode_Volume_", NULL, FILTER_TEXT},
    TEXT_F("hardware_type", "nvme"),
    /* Attached to no instance: not ready for I/O, as the public API
     * answers a detached volume. */
    KEY("io_ready", IS_FALSE),
    KEY_F("linode_id", IS_NULL, FILTER_INT),
    KEY_F("linode_label", IS_NULL, FILTER_TEXT),
    KEY("locks", IS_EMPTY_LIST),
    TEXT_F("region", ""),
    KEY_F("size", IS_ZERO, FILTER_INT),
    TEXT_F("status", "active"),
    END
};

static const view_key nodebalancer_transfer[] = {
    KEY("in", IS_NULL), KEY("out", IS_NULL), KEY("total", IS_NULL), END
};

/* X-Filter: the public API's marks (ipv4, label, region, tags), and the
 * other properties of linode_api4's NodeBalancer. */
static const view_key nodebalancer_view[] = {
    KEY_F("id", FROM_ID, FILTER_INT),
    COMMON_KEYS,
    /* 0: no throttle, the public API's default (both). */
    KEY_F("client_conn_throttle", IS_ZERO, FILTER_INT),
    KEY_F("client_udp_sess_throttle", IS_ZERO, FILTER_INT),
    TEXT("frontend_address_type", "public"),
    /* A public frontend is in no VPC subnet. */
    KEY("frontend_vpc_subnet_id", IS_NULL),
    TEXT_F("hostname", ""),
    {"ipv4", IS_TEXT, "", NULL, FILTER_TEXT},
    KEY_F("ipv6", IS_NULL, FILTER_TEXT),
    KEY("lke_cluster", IS_NULL),
    KEY_F("locks", IS_EMPTY_LIST, FILTER_TEXT),
    {"region", IS_TEXT, "", NULL, FILTER_TEXT},
    OBJECT("transfer", nodebalancer_transfer),
    TEXT("type", "common"),
    END
};

/* The account's own image (shared by no one) in no share group, as the
 * public API shows one; the path of its share groups follows from its id. */
static const view_key image_shared_with[] = {
    KEY("sharegroup_count", IS_ZERO),
    {"sharegroup_list_url", FROM_ID_TEXT, "/images/" ACCT_IMAGE_PRIVATE_PREFIX,
     NULL, NO_FILTER, "/sharegroups"},
    END
};
static const view_key image_sharing[] = {
    KEY("shared_by", IS_NULL), OBJECT("shared_with", image_shared_with), END
};

/* Private images, as the public API shows them: no vendor, description,
 * end of life or expiry; never public, deprecated or shared.  X-Filter: the
 * public API's marks, and the other properties of linode_api4's Image. */
static const view_key image_view[] = {
    {"id", FROM_ID_TEXT, ACCT_IMAGE_PRIVATE_PREFIX, NULL, FILTER_TEXT},
    COMMON_KEYS,
    KEY_F("capabilities", IS_EMPTY_LIST, FILTER_TEXT),
    TEXT_F("created_by", ""),
    {"deprecated", IS_FALSE, NULL, NULL, FILTER_BOOL},
    KEY_F("description", IS_NULL, FILTER_TEXT),
    KEY_F("eol", IS_NULL, FILTER_TIME),
    KEY_F("expiry", IS_NULL, FILTER_TIME),
    OBJECT("image_sharing", image_sharing),
    {"is_public", IS_FALSE, NULL, NULL, FILTER_BOOL},
    KEY_F("is_shared", IS_FALSE, FILTER_BOOL),
    KEY("regions", IS_EMPTY_LIST),
    {"size", IS_ZERO, NULL, NULL, FILTER_INT},
    {"status", IS_TEXT, "available", NULL, FILTER_TEXT},
    KEY_F("total_size", IS_ZERO, FILTER_INT),
    {"type", IS_TEXT, "manual", NULL, FILTER_TEXT},
    {"vendor", IS_NULL, NULL, NULL, FILTER_TEXT},
    END
};

static const view_key *view_of(const char *entity_type)
{
    if (!entity_type) {
        return NULL;
    }
    if (strcmp(entity_type, ACCT_ENTITY_INSTANCE) == 0) {
        return instance_view;
    }
    if (strcmp(entity_type, ACCT_ENTITY_VOLUME) == 0) {
        return volume_view;
    }
    if (strcmp(entity_type, ACCT_ENTITY_NODEBALANCER) == 0) {
        return nodebalancer_view;
    }
    if (strcmp(entity_type, ACCT_ENTITY_IMAGE) == 0) {
        return image_view;
    }
    return NULL;
}

#define TAGGED \
    "EXISTS (SELECT 1 FROM tag_links tl JOIN tags t ON t.id = tl.tag_id" \
    " WHERE tl.entity_type = e.entity_type AND tl.entity_id = e.entity_id" \
    " AND t.label = %s)"

/*
 * The SQL value of key `k`, the same as its JSON: a constant is cast, so
 * that both engines take it as an expression (a bare constant in ORDER BY
 * is a column position, or refused); null and an empty list hold no
 * value, so an equality on them matches nothing and +neq everything.
 */
static const char *filter_column(apr_pool_t *pool, const view_key *k,
                                 acct_field_type *type)
{
    static const acct_field_type types[] = {
        ACCT_FIELD_TEXT, ACCT_FIELD_TEXT, ACCT_FIELD_INT, ACCT_FIELD_BOOL,
        ACCT_FIELD_TAG, ACCT_FIELD_TIME
    };
    const char *sql_type;

    *type = types[k->filter];
    sql_type = *type == ACCT_FIELD_TEXT ? "TEXT"
             : *type == ACCT_FIELD_BOOL ? "INTEGER" : "BIGINT";
    switch (k->from) {
    case FROM_ID:
        return "e.entity_id";
    case FROM_ID_TEXT:
        return apr_pstrcat(pool, "('", k->text,
                           "' || CAST(e.entity_id AS TEXT) || '",
                           k->after ? k->after : "", "')", NULL);
    case FROM_LABEL:
        return "e.label";
    case FROM_LABEL_AFTER:
        return apr_pstrcat(pool, "('", k->text, "' || e.label)", NULL);
    case FROM_CREATED:
    case FROM_UPDATED:
        /* The module keeps no change time: updated is the registration. */
        return "e.created";
    case FROM_TAGS:
        return TAGGED;
    case IS_TEXT:
        /* Our constants: no quote in them. */
        return apr_pstrcat(pool, "CAST('", k->text, "' AS TEXT)", NULL);
    case IS_ZERO:
    case IS_FALSE:
        return apr_pstrcat(pool, "CAST(0 AS ", sql_type, ")", NULL);
    default:
        return apr_pstrcat(pool, "CAST(NULL AS ", sql_type, ")", NULL);
    }
}

/* The X-Filter fields of a view: its filterable top-level keys. */
static const acct_filter_field *view_filters(apr_pool_t *pool,
                                             const view_key *view)
{
    acct_filter_field *fields;
    int n = 0, i;

    for (i = 0; view && view[i].key; i++) {
        n += view[i].filter != NO_FILTER;
    }
    fields = apr_pcalloc(pool, (n + 1) * sizeof(*fields));
    for (i = 0, n = 0; view && view[i].key; i++) {
        if (view[i].filter != NO_FILTER) {
            fields[n].name = view[i].key;
            fields[n].column = filter_column(pool, &view[i], &fields[n].type);
            n++;
        }
    }
    return fields;
}

/* The values a view is built from. */
typedef struct view_values {
    const char *id, *label, *created, *tags;
} view_values;

static json_t *view_object(apr_pool_t *pool, const view_key *k,
                           const view_values *v)
{
    json_t *o = json_object();

    for (; k->key; k++) {
        json_t *value;

        switch (k->from) {
        case FROM_ID:
            value = acct_json_int(v->id);
            break;
        case FROM_ID_TEXT:
            value = acct_json_str(apr_pstrcat(pool, k->text,
                                              v->id ? v->id : "",
                                              k->after ? k->after : "",
                                              NULL));
            break;
        case FROM_LABEL:
            value = acct_json_str(v->label);
            break;
        case FROM_LABEL_AFTER:
            value = acct_json_str(apr_pstrcat(pool, k->text,
                                              v->label ? v->label : "", NULL));
            break;
        case FROM_CREATED:
        case FROM_UPDATED:
            value = acct_json_time(pool, v->created);
            break;
        case FROM_TAGS:
            value = acct_tags_from_column(pool, v->tags);
            break;
        case IS_TEXT:
            value = json_string(k->text);
            break;
        case IS_ZERO:
            value = json_integer(0);
            break;
        case IS_FALSE:
            value = json_false();
            break;
        case IS_EMPTY_LIST:
            value = json_array();
            break;
        case IS_OBJECT:
            value = view_object(pool, k->members, v);
            break;
        default:
            value = json_null();
            break;
        }
        json_object_set_new(o, k->key, value);
    }
    return o;
}

json_t *acct_entities_object(apr_pool_t *pool, const char *entity_type,
                             const char *id, const char *label,
                             const char *created, const char *tags_column)
{
    static const view_key bare[] = {
        KEY("id", FROM_ID), COMMON_KEYS, END
    };
    const view_key *view = view_of(entity_type);
    view_values v;

    v.id = id;
    v.label = label;
    v.created = created;
    v.tags = tags_column;
    return view_object(pool, view ? view : bare, &v);
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
    q->fields = view_filters(req->pool, view_of(entity_type));
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

apr_int64_t acct_entities_id(const char *entity_type, const char *text)
{
    size_t n = strlen(ACCT_IMAGE_PRIVATE_PREFIX);
    apr_int64_t id;

    if (!text) {
        return 0;
    }
    if (strcmp(entity_type, ACCT_ENTITY_IMAGE) == 0) {
        if (strncmp(text, ACCT_IMAGE_PRIVATE_PREFIX, n) != 0) {
            return 0;
        }
        text += n;
    }
    return acct_parse_i64(text, &id) == 0 && id > 0 ? id : 0;
}

acct_rows *acct_entities_load(acct_req *req, const char *entity_type,
                              apr_int64_t id, acct_outcome *out)
{
    const char *args[3];
    acct_rows *rows = NULL;
    acct_store *st = NULL;
    acct_store_rc rc;

    if (id <= 0 || !req->who) {
        *out = acct_out_not_found();
        return NULL;
    }
    args[0] = entity_type;
    args[1] = acct_i64(req->pool, id);
    args[2] = acct_i64(req->pool, req->who->account_id);
    rc = acct_req_store(req, &st);
    if (rc == ACCT_STORE_OK) {
        rc = acct_store_select(st, req->pool, &q_entity_get, &rows, 3, args);
    }
    *out = acct_out_found(rc, rows);
    if (acct_out_ok(*out)) {
        *out = acct_grant_require(req, entity_type, id, ACCT_LEVEL_READ_ONLY);
    }
    return acct_out_ok(*out) ? rows : NULL;
}

json_t *acct_entities_render(acct_req *req, const acct_rows *rows, int i)
{
    return acct_entities_object(req->pool, acct_rows_get(rows, i, "kind"),
                                acct_rows_get(rows, i, "id"),
                                acct_rows_get(rows, i, "label"),
                                acct_rows_get(rows, i, "created"),
                                acct_rows_get(rows, i, "tags"));
}
