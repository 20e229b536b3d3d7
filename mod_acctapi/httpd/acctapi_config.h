/*
 * Directives of mod_acctapi: their list is acctapi_directives.h; the
 * configuration structs and their getters below are made from it.
 */
#ifndef ACCTAPI_CONFIG_H
#define ACCTAPI_CONFIG_H

#include "httpd.h"
#include "http_config.h"

#include "acct_api.h"

#define ACCTAPI_HANDLER "acctapi"

extern module AP_MODULE_DECLARE_DATA acctapi_module;

/* Two numbers one directive sets together (MIN MAX, LISTS OTHERS). */
typedef struct acctapi_pair {
    apr_int64_t lo, hi;
} acctapi_pair;

#define ACCTAPI_PAIR(lo, hi) ((acctapi_pair){(lo), (hi)})

/*
 * The kinds of value a directive holds (acctapi_directives.h): the field's
 * type, its mark for "not set here" (so a merge can tell an inherited value
 * from one set in the section), and the type and value of the effective
 * setting.
 */
#define ACCTAPI_TYPE_NUM  apr_int64_t
#define ACCTAPI_TYPE_BOOL int
#define ACCTAPI_TYPE_ENUM int
#define ACCTAPI_TYPE_TEXT const char *
#define ACCTAPI_TYPE_KEY  const unsigned char *
#define ACCTAPI_TYPE_LIST apr_array_header_t *
#define ACCTAPI_TYPE_PAIR acctapi_pair

#define ACCTAPI_UNSET_NUM  -1
#define ACCTAPI_UNSET_BOOL -1
#define ACCTAPI_UNSET_ENUM -1
#define ACCTAPI_UNSET_TEXT NULL
#define ACCTAPI_UNSET_KEY  NULL
#define ACCTAPI_UNSET_LIST NULL
#define ACCTAPI_UNSET_PAIR ACCTAPI_PAIR(-1, -1)

#define ACCTAPI_ISSET_NUM(v)  ((v) >= 0)
#define ACCTAPI_ISSET_BOOL(v) ((v) >= 0)
#define ACCTAPI_ISSET_ENUM(v) ((v) >= 0)
#define ACCTAPI_ISSET_TEXT(v) ((v) != NULL)
#define ACCTAPI_ISSET_KEY(v)  ((v) != NULL)
#define ACCTAPI_ISSET_LIST(v) ((v) != NULL)
#define ACCTAPI_ISSET_PAIR(v) ((v).lo >= 0)

#define ACCTAPI_VALUETYPE_NUM  apr_int64_t
#define ACCTAPI_VALUETYPE_BOOL int
#define ACCTAPI_VALUETYPE_ENUM int
#define ACCTAPI_VALUETYPE_TEXT const char *
#define ACCTAPI_VALUETYPE_KEY  const unsigned char *
#define ACCTAPI_VALUETYPE_LIST const char *const *
#define ACCTAPI_VALUETYPE_PAIR acctapi_pair

/* The lists are kept NULL-terminated, so the core walks them without a
 * count. */
#define ACCTAPI_VALUE_NUM(v)  (v)
#define ACCTAPI_VALUE_BOOL(v) (v)
#define ACCTAPI_VALUE_ENUM(v) (v)
#define ACCTAPI_VALUE_TEXT(v) (v)
#define ACCTAPI_VALUE_KEY(v)  (v)
#define ACCTAPI_VALUE_LIST(v) ((const char *const *)(v)->elts)
#define ACCTAPI_VALUE_PAIR(v) (v)

#define ACCTAPI_FIELD(name, field, kind, ...) ACCTAPI_TYPE_##kind field;

/* Per directory/location, merged "later wins if set". */
typedef struct acctapi_dir_conf {
#define ACCTAPI_DIR ACCTAPI_FIELD
#define ACCTAPI_SRV(...)
#include "acctapi_directives.h"
} acctapi_dir_conf;

/* Per virtual host: what acts on a connection before any request. */
typedef struct acctapi_srv_conf {
#define ACCTAPI_DIR(...)
#define ACCTAPI_SRV ACCTAPI_FIELD
#include "acctapi_directives.h"
} acctapi_srv_conf;

/* acctapi_conf_<field>(conf): the effective value, default applied. */
#define ACCTAPI_GETTER(conf_type, field, kind) \
    ACCTAPI_VALUETYPE_##kind acctapi_conf_##field(const conf_type *conf);
#define ACCTAPI_DIR(name, field, kind, ...) \
    ACCTAPI_GETTER(acctapi_dir_conf, field, kind)
#define ACCTAPI_SRV(name, field, kind, ...) \
    ACCTAPI_GETTER(acctapi_srv_conf, field, kind)
#include "acctapi_directives.h"
#undef ACCTAPI_GETTER

extern const command_rec acctapi_cmds[];

void *acctapi_create_srv_conf(apr_pool_t *pool, server_rec *s);
void *acctapi_merge_srv_conf(apr_pool_t *pool, void *base, void *add);
void *acctapi_create_dir_conf(apr_pool_t *pool, char *dir);
void *acctapi_merge_dir_conf(apr_pool_t *pool, void *base, void *add);

/* The core's settings (every CORE directive), defaults applied. */
void acctapi_conf_settings(const acctapi_dir_conf *conf, acct_settings *out);

#endif
