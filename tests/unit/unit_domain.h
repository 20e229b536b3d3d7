/* Helpers shared by the DNS domain tests (test_domain_*.c): long names, a
 * response's error fields, and the calls of the /domains handler tests on
 * a migrated SQLite database.  Header-only, as unit.h is; include it after
 * unit.h and unit_db.h. */
#ifndef UNIT_DOMAIN_H
#define UNIT_DOMAIN_H

#include <apr_dbd.h>
#include <apr_strings.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "unit_db.h"
#include "acct_auth.h"
#include "acct_body.h"
#include "acct_domain.h"
#include "acct_grants.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "acct_tags.h"
#include "api_handlers.h"

static inline const char *repeat(apr_pool_t *p, char c, int n)
{
    char *s = apr_palloc(p, (apr_size_t)n + 1);

    memset(s, c, (size_t)n);
    s[n] = '\0';
    return s;
}

/* "a.b.c..." of `total` characters: labels of 63 joined by dots. */
static inline const char *long_name(apr_pool_t *p, int total)
{
    char *s = apr_palloc(p, (apr_size_t)total + 1);
    int i;

    for (i = 0; i < total; i++) {
        s[i] = (i % 64 == 63) ? '.' : 'a';
    }
    s[total] = '\0';
    if (s[total - 1] == '.') {
        s[total - 1] = 'b';
    }
    return s;
}

/* The fields of resp's error items, sorted and comma-joined ("" for none). */
static inline const char *error_fields(apr_pool_t *p, const acct_resp *resp)
{
    const char **names;
    const char *out = "";
    size_t i, n = resp->errors ? json_array_size(resp->errors) : 0;
    json_t *item;

    names = apr_pcalloc(p, sizeof(*names) * (n + 1));
    json_array_foreach(resp->errors, i, item) {
        const char *f = json_string_value(json_object_get(item, "field"));

        names[i] = f ? f : "(none)";
    }
    for (i = 1; i < n; i++) {           /* insertion sort: tiny lists */
        const char *k = names[i];
        size_t j = i;

        for (; j > 0 && strcmp(names[j - 1], k) > 0; j--) {
            names[j] = names[j - 1];
        }
        names[j] = k;
    }
    for (i = 0; i < n; i++) {
        out = i ? apr_pstrcat(p, out, ",", names[i], NULL) : names[i];
    }
    return out;
}

/* A further user of an existing account, authenticated as the module would. */
static inline apr_int64_t member(unit_db *db, apr_int64_t account,
                                 const char *name, int restricted,
                                 acct_principal *who)
{
    return unit_member(db, account, name, restricted,
                       apr_time_sec(apr_time_now()), who);
}

static inline void sql(unit_db *db, const char *fmt, ...)
{
    va_list ap;
    char *text;

    va_start(ap, fmt);
    text = apr_pvsprintf(db->pool, fmt, ap);
    va_end(ap);
    assert_int_equal(acct_store_exec_script(db->store, db->pool, text),
                     ACCT_STORE_OK);
}

static inline const char *sql_value(unit_db *db, const char *fmt, ...)
{
    acct_rows *rows = NULL;
    va_list ap;
    char *text;

    va_start(ap, fmt);
    text = apr_pvsprintf(db->pool, fmt, ap);
    va_end(ap);
    assert_int_equal(acct_store_select_dynamic(db->store, db->pool, text, &rows,
                                               0, NULL), ACCT_STORE_OK);
    assert_int_equal(rows->nrows, 1);
    return rows->values[0][0];
}

/* Calls a handler; the answer parsed (NULL for an empty body). */
static inline json_t *call(unit_db *db, const acct_principal *who,
                           acct_handler *h, const char *id, const char *body,
                           int *status)
{
    acct_req *req = unit_req(db, who);
    const char *text;

    req->params[0] = id;
    req->body = body ? acct_json_own(db->pool, json_loads(body, 0, NULL))
                     : NULL;
    assert_true(!body || req->body);
    text = unit_call(req, h, status);
    return *text ? acct_json_own(db->pool, json_loads(text, 0, NULL)) : NULL;
}

static inline json_t *list(unit_db *db, const acct_principal *who,
                           const char *filter, int *status)
{
    acct_req *req = unit_req(db, who);
    const char *text;

    req->filter = filter;
    text = unit_call(req, api_domains_list, status);
    return acct_json_own(db->pool, json_loads(text, 0, NULL));
}

static inline const char *id_of(unit_db *db, json_t *doc)
{
    assert_true(json_is_integer(json_object_get(doc, "id")));
    return apr_psprintf(db->pool, "%" APR_INT64_T_FMT,
                        (apr_int64_t)json_integer_value(json_object_get(doc,
                                                                        "id")));
}

static inline const char *str(json_t *doc, const char *key)
{
    return json_string_value(json_object_get(doc, key));
}

static inline void assert_error(json_t *doc, int status, int want,
                                const char *reason, const char *field)
{
    json_t *e = json_array_get(json_object_get(doc, "errors"), 0);

    assert_int_equal(status, want);
    assert_string_equal(str(e, "reason"), reason);
    if (field) {
        assert_string_equal(str(e, "field"), field);
    }
    else {
        assert_null(json_object_get(e, "field"));
    }
}

static inline json_t *create(unit_db *db, const acct_principal *who,
                             const char *body)
{
    int status;
    json_t *doc = call(db, who, api_domain_create, NULL, body, &status);

    assert_int_equal(status, 200);
    return doc;
}

#endif
