/* Constants and helpers shared by the managed-database handler tests
 * (test_databases_*.c): settings, routes, a caller's context, requests and
 * the answers read back.  Header-only, as unit.h is; include it after
 * unit.h and unit_db.h. */
#ifndef UNIT_DATABASES_H
#define UNIT_DATABASES_H

#include <apr_dbd.h>
#include <apr_strings.h>
#include <ctype.h>
#include <jansson.h>
#include <string.h>
#include "unit_db.h"
#include "acct_auth.h"
#include "acct_catalog.h"
#include "acct_db.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "acct_router.h"
#include "acct_seal.h"
#include "acct_time.h"
#include "api_handlers.h"

#define PROVISION 1200
#define OPERATION 180
#define SUFFIX "db.unit.test"

static const unsigned char seal_key[ACCT_SEAL_KEY_LEN] = "0123456789abcdef0123456789abcdef";

/* Provisioning takes exactly PROVISION seconds, so the tests can aim. */
static const acct_settings emulated = {
    0, 0, "https://r.example/", seal_key, NULL, NULL,
    0, PROVISION, PROVISION, OPERATION, SUFFIX
};
static const acct_settings external = {
    0, 0, "https://r.example/", seal_key, NULL, NULL,
    1, PROVISION, PROVISION, OPERATION, SUFFIX
};
static const acct_settings keyless = {
    0, 0, "https://r.example/", NULL, NULL, NULL,
    0, PROVISION, PROVISION, OPERATION, SUFFIX
};

static const acct_route mysql_route = {ACCT_METHOD_POST,
    "/databases/mysql/instances", NULL, ACCT_ROUTE_BODY, ACCT_FAM_DATABASES,
    ACCT_LEVEL_READ_WRITE, ACCT_DB_MYSQL};
static const acct_route pg_route = {ACCT_METHOD_POST,
    "/databases/postgresql/instances", NULL, ACCT_ROUTE_BODY,
    ACCT_FAM_DATABASES, ACCT_LEVEL_READ_WRITE, ACCT_DB_POSTGRESQL};
static const acct_route all_route = {ACCT_METHOD_GET, "/databases/instances",
    NULL, ACCT_ROUTE_LIST, ACCT_FAM_DATABASES, ACCT_LEVEL_READ_ONLY, NULL};

/* ------------------------------------------------------------------------
 * Helpers
 */

typedef struct ctx {
    unit_db *db;
    acct_principal who;
    const acct_settings *settings;
    apr_int64_t now;
} ctx;

static inline void ctx_init(ctx *c, unit_db *db, const char *username)
{
    memset(c, 0, sizeof(*c));
    c->db = db;
    c->settings = &emulated;
    c->now = apr_time_sec(apr_time_now());
    unit_identity(db, username, 0, "*", &c->who);
}

/* Another user of c's account. */
static inline void member(ctx *c, ctx *m, const char *username, int restricted)
{
    *m = *c;
    unit_member(c->db, c->who.account_id, username, restricted, c->now,
                &m->who);
}

static inline acct_req *request(ctx *c, const acct_route *route, const char *id,
                                const char *body)
{
    acct_req *req = unit_req(c->db, &c->who);

    req->settings = c->settings;
    req->now = c->now;
    req->route = route;
    req->params[0] = id;
    if (body) {
        json_error_t err;

        req->body = json_loads(body, JSON_REJECT_DUPLICATES, &err);
        if (!req->body) {
            fail_msg("bad test body %s: %s", body, err.text);
        }
        acct_json_own(c->db->pool, req->body);
    }
    return req;
}

static inline json_t *call(acct_req *req, acct_handler *h, int *status)
{
    const char *text = unit_call(req, h, status);
    json_t *doc = json_loads(text, 0, NULL);

    assert_non_null(doc);
    return acct_json_own(req->pool, doc);
}

/* The fields named by a 400's error items, sorted, comma-separated. */
static inline const char *error_fields(apr_pool_t *p, json_t *doc)
{
    json_t *errors = json_object_get(doc, "errors"), *e;
    const char *names[32], *out = "";
    size_t i, j, n = 0;

    json_array_foreach(errors, i, e) {
        const char *f = json_string_value(json_object_get(e, "field"));

        if (n < 32) {
            names[n++] = f ? f : "-";
        }
    }
    for (i = 1; i < n; i++) {
        for (j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            const char *t = names[j];

            names[j] = names[j - 1];
            names[j - 1] = t;
        }
    }
    for (i = 0; i < n; i++) {
        out = apr_pstrcat(p, out, i ? "," : "", names[i], NULL);
    }
    return out;
}

static inline const char *first_reason(json_t *doc)
{
    return json_string_value(json_object_get(
        json_array_get(json_object_get(doc, "errors"), 0), "reason"));
}

static inline const char *str(json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static inline json_int_t num(json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

static inline const char *sid(ctx *c, json_t *doc)
{
    return acct_i64(c->db->pool, (apr_int64_t)num(doc, "id"));
}

/* Creates a database of `route`'s engine; answers the document. */
static inline json_t *create(ctx *c, const acct_route *route, const char *body,
                             int want)
{
    int status;
    json_t *doc = call(request(c, route, NULL, body), api_database_create,
                       &status);

    if (status != want) {
        fail_msg("create %s: %d %s", body, status, json_dumps(doc, 0));
    }
    return doc;
}

static inline json_t *pg_create(ctx *c, const char *label)
{
    return create(c, &pg_route, apr_psprintf(c->db->pool,
        "{\"label\":\"%s\",\"region\":\"us-east\",\"type\":\"g6-standard-2\","
        "\"engine\":\"postgresql/16.4\"}", label), 200);
}

static inline json_t *get(ctx *c, const acct_route *route, const char *id,
                          int *status)
{
    return call(request(c, route, id, NULL), api_database_get, status);
}

static inline const char *status_of(ctx *c, const acct_route *route,
                                    const char *id)
{
    int status;
    json_t *doc = get(c, route, id, &status);

    assert_int_equal(status, 200);
    return apr_pstrdup(c->db->pool, str(doc, "status"));
}

static inline void sql(unit_db *db, const char *text)
{
    assert_int_equal(acct_store_exec_script(db->store, db->pool, text),
                     ACCT_STORE_OK);
}

static inline const char *scalar(unit_db *db, const char *query)
{
    acct_rows *rows = NULL;

    assert_int_equal(acct_store_select_dynamic(db->store, db->pool, query,
                                               &rows, 0, NULL), ACCT_STORE_OK);
    return rows->nrows ? rows->values[0][0] : NULL;
}

#define BASE_MY "\"region\":\"us-east\",\"type\":\"g6-nanode-1\"," \
    "\"engine\":\"mysql/8.0.30\""
#define BASE_PG "\"region\":\"us-east\",\"type\":\"g6-nanode-1\"," \
    "\"engine\":\"postgresql/15.4\""

static inline const char *column(ctx *c, apr_int64_t id, const char *name)
{
    acct_rows *rows = NULL;

    assert_int_equal(acct_db_get(c->db->store, c->db->pool, id, &rows),
                     ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    assert_int_equal(acct_db_id(rows), id);
    return acct_rows_get(rows, 0, name);
}

#endif
