#include "acct_store_filter.h"
#include "acct_time.h"

#include <apr_strings.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REASON_BAD "Could not apply filter"

#define TYPE_BIT(t) (1u << (t))
#define TYPES_ALL                                                            \
    (TYPE_BIT(ACCT_FIELD_TEXT) | TYPE_BIT(ACCT_FIELD_INT)                    \
     | TYPE_BIT(ACCT_FIELD_NUMBER) | TYPE_BIT(ACCT_FIELD_BOOL)               \
     | TYPE_BIT(ACCT_FIELD_TIME) | TYPE_BIT(ACCT_FIELD_TAG))
#define TYPES_ORDERED                                                        \
    (TYPE_BIT(ACCT_FIELD_INT) | TYPE_BIT(ACCT_FIELD_NUMBER)                  \
     | TYPE_BIT(ACCT_FIELD_TIME))

typedef enum {
    OP_COMPARE,   /* column <sql> value */
    OP_NEQ,       /* NULL-safe inequality, spelled per dialect */
    OP_CONTAINS   /* substring, spelled per dialect */
} op_kind;

typedef struct {
    const char *key;   /* key inside an operator object */
    op_kind kind;
    const char *sql;   /* comparison operator for OP_COMPARE */
    unsigned types;    /* TYPE_BIT set of the field types it applies to */
} filter_op;

static const filter_op op_equal = {NULL, OP_COMPARE, "=", TYPES_ALL};

static const filter_op operators[] = {
    {"+neq", OP_NEQ, NULL, TYPES_ALL},
    {"+gt", OP_COMPARE, ">", TYPES_ORDERED},
    {"+gte", OP_COMPARE, ">=", TYPES_ORDERED},
    {"+lt", OP_COMPARE, "<", TYPES_ORDERED},
    {"+lte", OP_COMPARE, "<=", TYPES_ORDERED},
    {"+contains", OP_CONTAINS, NULL, TYPE_BIT(ACCT_FIELD_TEXT)},
    {NULL, OP_COMPARE, NULL, 0}
};

typedef struct {
    apr_pool_t *pool;
    const acct_filter_field *fields;
    acct_dialect dialect;
    apr_array_header_t *args;
    const acct_filter_field *order_field;
    int descending;
    int ties_follow;   /* the stable key takes the direction of +order */
    const char *reason;
} filter_ctx;

static int compile_object(filter_ctx *c, json_t *obj, int depth,
                          const char **sql);

static int refuse(filter_ctx *c, const char *reason)
{
    c->reason = reason;
    return -1;
}

static int refuse_field(filter_ctx *c, const char *name)
{
    return refuse(c, apr_pstrcat(c->pool, "Cannot filter on ", name, NULL));
}

static const acct_filter_field *find_field(const filter_ctx *c,
                                           const char *name)
{
    const acct_filter_field *f;

    for (f = c->fields; f->name; f++) {
        if (strcmp(f->name, name) == 0) {
            return f;
        }
    }
    return NULL;
}

static const filter_op *find_operator(const char *key)
{
    const filter_op *op;

    for (op = operators; op->key; op++) {
        if (strcmp(op->key, key) == 0) {
            return op;
        }
    }
    return NULL;
}

/* "(a)" stays "(a)"; several become "(a SEP b SEP c)"; none is NULL. */
static const char *join(apr_pool_t *pool, const apr_array_header_t *parts,
                        const char *sep)
{
    const char *out;
    int i;

    if (parts->nelts == 0) {
        return NULL;
    }
    if (parts->nelts == 1) {
        return APR_ARRAY_IDX(parts, 0, const char *);
    }
    out = apr_pstrcat(pool, "(", APR_ARRAY_IDX(parts, 0, const char *), NULL);
    for (i = 1; i < parts->nelts; i++) {
        out = apr_pstrcat(pool, out, sep, APR_ARRAY_IDX(parts, i, const char *),
                          NULL);
    }
    return apr_pstrcat(pool, out, ")", NULL);
}

/*
 * The shortest text that reads back as the same double: "%.17g" would turn
 * 0.1 into 0.10000000000000001, which a NUMERIC column holding 0.1 does not
 * equal on PostgreSQL.
 */
static const char *real_text(apr_pool_t *pool, double d)
{
    char buf[40];
    int prec;

    for (prec = 1; prec <= 17; prec++) {
        snprintf(buf, sizeof(buf), "%.*g", prec, d);
        if (strtod(buf, NULL) == d) {
            break;
        }
    }
    return apr_pstrdup(pool, buf);
}

static const char *int_text(apr_pool_t *pool, apr_int64_t v)
{
    return apr_psprintf(pool, "%" APR_INT64_T_FMT, v);
}

/*
 * The parameter text for `v` as a value of field `f`, or NULL when the JSON
 * type does not fit.  Strings are copied: the JSON tree dies before the
 * caller runs the statement.
 */
static const char *value_text(apr_pool_t *pool, const acct_filter_field *f,
                              json_t *v)
{
    apr_int64_t epoch;

    switch (f->type) {
    case ACCT_FIELD_TEXT:
    case ACCT_FIELD_TAG:
        return json_is_string(v) ? apr_pstrdup(pool, json_string_value(v))
                                 : NULL;
    case ACCT_FIELD_INT:
        return json_is_integer(v) ? int_text(pool, json_integer_value(v))
                                  : NULL;
    case ACCT_FIELD_NUMBER:
        if (json_is_integer(v)) {
            return int_text(pool, json_integer_value(v));
        }
        return json_is_real(v) ? real_text(pool, json_real_value(v)) : NULL;
    case ACCT_FIELD_BOOL:
        return json_is_boolean(v) ? (json_is_true(v) ? "1" : "0") : NULL;
    case ACCT_FIELD_TIME:
        if (!json_is_string(v)
            || acct_parse_timestamp(json_string_value(v), &epoch) != 0) {
            return NULL;
        }
        return int_text(pool, epoch);
    }
    return NULL;
}

/*
 * Both engines see a %s parameter as text: pgsql types it varchar
 * (HACKING.md, trap 2), so anything but text is cast to the column's kind.
 */
static const char *param_marker(acct_field_type type)
{
    switch (type) {
    case ACCT_FIELD_INT:
    case ACCT_FIELD_TIME:
        return "CAST(%s AS BIGINT)";
    case ACCT_FIELD_NUMBER:
        return "CAST(%s AS NUMERIC)";
    case ACCT_FIELD_BOOL:
        return "CAST(%s AS INTEGER)";
    default:
        return "%s";
    }
}

/* TAG columns are whole conditions around their own %s. */
static const char *tag_sql(apr_pool_t *pool, const acct_filter_field *f,
                           const filter_op *op)
{
    if (op->kind == OP_NEQ) {
        return apr_pstrcat(pool, "(NOT (", f->column, "))", NULL);
    }
    return apr_pstrcat(pool, "(", f->column, ")", NULL);
}

static const char *compare_sql(const filter_ctx *c,
                               const acct_filter_field *f,
                               const filter_op *op)
{
    const char *ph = param_marker(f->type);
    int pg = c->dialect == ACCT_DIALECT_PGSQL;

    switch (op->kind) {
    case OP_CONTAINS:
        return apr_pstrcat(c->pool, pg ? "(strpos(" : "(instr(", f->column,
                           ", ", ph, ") > 0)", NULL);
    case OP_NEQ:
        /* "not x" must keep the rows whose column is NULL. */
        return apr_pstrcat(c->pool, "(", f->column,
                           pg ? " IS DISTINCT FROM " : " IS NOT ", ph, ")",
                           NULL);
    default:
        return apr_pstrcat(c->pool, "(", f->column, " ", op->sql, " ", ph,
                           ")", NULL);
    }
}

/* One comparison: validates the value, records its parameter, emits SQL. */
static int condition(filter_ctx *c, const acct_filter_field *f,
                     const filter_op *op, json_t *v, const char **sql)
{
    const char *param;

    if (!(op->types & TYPE_BIT(f->type))) {
        return refuse(c, REASON_BAD);
    }
    param = value_text(c->pool, f, v);
    if (!param || c->args->nelts >= ACCT_FILTER_MAX_PARAMS) {
        return refuse(c, REASON_BAD);
    }
    APR_ARRAY_PUSH(c->args, const char *) = param;
    *sql = f->type == ACCT_FIELD_TAG ? tag_sql(c->pool, f, op)
                                     : compare_sql(c, f, op);
    return 0;
}

/* `"field": value` or `"field": {"+op": value, ...}` (AND-ed). */
static int compile_field(filter_ctx *c, const acct_filter_field *f, json_t *v,
                         const char **sql)
{
    apr_array_header_t *parts;
    const char *key;
    json_t *operand;

    if (!json_is_object(v)) {
        return condition(c, f, &op_equal, v, sql);
    }
    if (json_object_size(v) == 0) {
        return refuse(c, REASON_BAD);
    }
    parts = apr_array_make(c->pool, (int)json_object_size(v),
                           sizeof(const char *));
    json_object_foreach(v, key, operand) {
        const filter_op *op = find_operator(key);
        const char *part;

        if (!op) {
            return refuse(c, REASON_BAD);
        }
        if (condition(c, f, op, operand, &part) != 0) {
            return -1;
        }
        APR_ARRAY_PUSH(parts, const char *) = part;
    }
    *sql = join(c->pool, parts, " AND ");
    return 0;
}

/* "+and"/"+or": a non-empty array of non-empty filter objects. */
static int compile_list(filter_ctx *c, json_t *v, int depth, const char *sep,
                        const char **sql)
{
    apr_array_header_t *parts;
    size_t i;
    json_t *item;

    if (!json_is_array(v)) {
        return refuse(c, REASON_BAD);
    }
    /* Empty: no condition, so it matches everything (docs/conventions.md, "Today's
     * clients"): linodego's filter builder sends {"+and": []} for a data
     * source without filters. */
    if (json_array_size(v) == 0) {
        *sql = NULL;
        return 0;
    }
    parts = apr_array_make(c->pool, (int)json_array_size(v),
                           sizeof(const char *));
    json_array_foreach(v, i, item) {
        const char *part = NULL;

        if (!json_is_object(item) || json_object_size(item) == 0) {
            return refuse(c, REASON_BAD);
        }
        if (compile_object(c, item, depth + 1, &part) != 0) {
            return -1;
        }
        if (part) {
            APR_ARRAY_PUSH(parts, const char *) = part;
        }
    }
    *sql = join(c->pool, parts, sep);
    return 0;
}

static int set_order_by(filter_ctx *c, json_t *v)
{
    const acct_filter_field *f;

    if (!json_is_string(v)) {
        return refuse(c, REASON_BAD);
    }
    f = find_field(c, json_string_value(v));
    if (!f) {
        return refuse_field(c, json_string_value(v));
    }
    /* A tag column is a condition, not something rows can be sorted by. */
    if (f->type == ACCT_FIELD_TAG) {
        return refuse(c, REASON_BAD);
    }
    c->order_field = f;
    return 0;
}

static int set_order(filter_ctx *c, json_t *v)
{
    const char *s = json_is_string(v) ? json_string_value(v) : "";

    if (strcmp(s, "asc") == 0) {
        c->descending = 0;
    }
    else if (strcmp(s, "desc") == 0) {
        c->descending = 1;
    }
    else {
        return refuse(c, REASON_BAD);
    }
    return 0;
}

static int compile_key(filter_ctx *c, const char *key, json_t *v, int depth,
                       const char **sql)
{
    const acct_filter_field *f;

    if (key[0] != '+') {
        f = find_field(c, key);
        return f ? compile_field(c, f, v, sql) : refuse_field(c, key);
    }
    if (strcmp(key, "+and") == 0) {
        return compile_list(c, v, depth, " AND ", sql);
    }
    if (strcmp(key, "+or") == 0) {
        return compile_list(c, v, depth, " OR ", sql);
    }
    if (depth == 1 && strcmp(key, "+order_by") == 0) {
        return set_order_by(c, v);
    }
    if (depth == 1 && strcmp(key, "+order") == 0) {
        return set_order(c, v);
    }
    return refuse(c, REASON_BAD);
}

/* Siblings are AND-ed; *sql stays NULL when the object has no condition. */
static int compile_object(filter_ctx *c, json_t *obj, int depth,
                          const char **sql)
{
    apr_array_header_t *parts;
    const char *key;
    json_t *v;

    if (depth > ACCT_FILTER_MAX_DEPTH) {
        return refuse(c, REASON_BAD);
    }
    parts = apr_array_make(c->pool, 4, sizeof(const char *));
    json_object_foreach(obj, key, v) {
        const char *part = NULL;

        if (compile_key(c, key, v, depth, &part) != 0) {
            return -1;
        }
        if (part) {
            APR_ARRAY_PUSH(parts, const char *) = part;
        }
    }
    *sql = join(c->pool, parts, " AND ");
    return 0;
}

static const char *order_by(const filter_ctx *c, const char *stable_order)
{
    const char *column;

    if (!c->order_field) {
        return c->descending ? apr_pstrcat(c->pool, stable_order, " DESC", NULL)
                             : stable_order;
    }
    column = apr_pstrcat(c->pool, c->order_field->column,
                         c->descending ? " DESC" : " ASC", NULL);
    if (strcmp(c->order_field->column, stable_order) == 0) {
        return column;
    }
    return apr_pstrcat(c->pool, column, ", ", stable_order,
                       c->ties_follow && c->descending ? " DESC" : "", NULL);
}

static int is_blank(const char *s)
{
    return s[strspn(s, " \t\r\n")] == '\0';
}

int acct_filter_compile(apr_pool_t *pool, const char *header,
                        const acct_filter_field *fields,
                        const char *stable_order, acct_dialect dialect,
                        acct_filter *out, const char **reason)
{
    return acct_filter_compile_ordered(pool, header, fields, stable_order, 0,
                                       dialect, out, reason);
}

int acct_filter_compile_ordered(apr_pool_t *pool, const char *header,
                                const acct_filter_field *fields,
                                const char *stable_order, int newest_first,
                                acct_dialect dialect, acct_filter *out,
                                const char **reason)
{
    filter_ctx c;
    json_t *root = NULL;
    json_error_t jerr;
    const char *where = NULL;
    int rc = -1;

    memset(&c, 0, sizeof(c));
    c.pool = pool;
    c.fields = fields;
    c.dialect = dialect;
    c.args = apr_array_make(pool, 4, sizeof(const char *));
    c.reason = REASON_BAD;
    c.descending = newest_first != 0;
    c.ties_follow = newest_first != 0;

    if (header && strlen(header) > ACCT_FILTER_MAX_BYTES) {
        goto leave;
    }
    if (header && !is_blank(header)) {
        root = json_loads(header, JSON_REJECT_DUPLICATES, &jerr);
        if (!json_is_object(root)
            || compile_object(&c, root, 1, &where) != 0) {
            goto leave;
        }
    }
    out->where = where ? where : "1=1";
    out->order_by = order_by(&c, stable_order);
    out->args = c.args;
    rc = 0;

leave:
    json_decref(root);
    if (rc != 0) {
        *reason = c.reason;
    }
    return rc;
}
