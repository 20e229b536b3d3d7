#include "acct_dbconfig.h"
#include "acct_log.h"

#include <apr_atomic.h>
#include <apr_strings.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* scripts/build/embed-dbconfig compiles mod_acctapi/model/dbconfig/ in. */
extern const char acct_dbconfig_mysql_doc[];
extern const size_t acct_dbconfig_mysql_doc_len;
extern const char acct_dbconfig_mysql_defaults[];
extern const size_t acct_dbconfig_mysql_defaults_len;
extern const char acct_dbconfig_postgresql_doc[];
extern const size_t acct_dbconfig_postgresql_doc_len;
extern const char acct_dbconfig_postgresql_defaults[];
extern const size_t acct_dbconfig_postgresql_defaults_len;

/* A setting's JSON types, from its description's "type". */
#define T_INTEGER 0x01
#define T_NUMBER  0x02
#define T_STRING  0x04
#define T_BOOLEAN 0x08
#define T_NULL    0x10

/* Reals that hold an int64 exactly lie within these (2^63 excluded). */
#define I64_LOW (-9223372036854775808.0)
#define I64_HIGH 9223372036854775808.0

/* A description's pattern, compiled once. */
typedef struct pattern {
    const char *text;          /* the description's string (borrowed) */
    regex_t re;
    int compiled;
    struct pattern *next;
} pattern;

/* An engine's settings, parsed once per process and read-only after. */
typedef struct dbconfig {
    json_t *desc;              /* numbers as reals: bounds past int64 parse */
    json_t *defaults;
    pattern *patterns;
} dbconfig;

typedef struct engine_docs {
    const char *name;
    const char *doc;
    const size_t *doc_len;
    const char *defaults;
    const size_t *defaults_len;
} engine_docs;

static const engine_docs engines[] = {
    {"mysql", acct_dbconfig_mysql_doc, &acct_dbconfig_mysql_doc_len,
     acct_dbconfig_mysql_defaults, &acct_dbconfig_mysql_defaults_len},
    {"postgresql", acct_dbconfig_postgresql_doc,
     &acct_dbconfig_postgresql_doc_len, acct_dbconfig_postgresql_defaults,
     &acct_dbconfig_postgresql_defaults_len},
};

#define N_ENGINES (sizeof(engines) / sizeof(engines[0]))

/* The process's parsed settings, by engine (dbconfig *): set once. */
static volatile void *parsed[N_ENGINES];

static int engine_index(const char *engine)
{
    size_t i;

    for (i = 0; engine && i < N_ENGINES; i++) {
        if (strcmp(engines[i].name, engine) == 0) {
            return (int)i;
        }
    }
    return -1;
}

const char *acct_dbconfig_document(const char *engine, size_t *len)
{
    int e = engine_index(engine);

    if (e < 0) {
        return NULL;
    }
    *len = *engines[e].doc_len;
    return engines[e].doc;
}

/* ---- patterns ------------------------------------------------------------- */

/*
 * The descriptions' patterns are JSON Schema's (ECMA-262) and use \d and
 * \w, which POSIX extended expressions lack: they become the ASCII classes
 * they stand for, inside brackets and out.  Any other escape is kept as
 * the quoted character outside brackets; inside brackets POSIX takes a
 * backslash literally, so another escape there is not translated (NULL).
 */
static char *ere_of(const char *p)
{
    size_t n = strlen(p);
    char *out = malloc(n * 12 + 1), *o = out;
    int in_bracket = 0;

    if (!out) {
        return NULL;
    }
    for (; *p; p++) {
        if (*p == '\\' && p[1]) {
            const char *cls = p[1] == 'd' ? "0-9"
                              : p[1] == 'w' ? "A-Za-z0-9_" : NULL;

            p++;
            if (cls) {
                o += sprintf(o, in_bracket ? "%s" : "[%s]", cls);
            }
            else if (in_bracket) {
                free(out);
                return NULL;
            }
            else {
                *o++ = '\\';
                *o++ = *p;
            }
            continue;
        }
        if (*p == '[' && !in_bracket) {
            in_bracket = 1;
            *o++ = *p;
            /* A leading ']' or '^]' is a member, not the end. */
            if (p[1] == '^') {
                *o++ = *++p;
            }
            if (p[1] == ']') {
                *o++ = *++p;
            }
            continue;
        }
        if (*p == ']' && in_bracket) {
            in_bracket = 0;
        }
        *o++ = *p;
    }
    *o = '\0';
    return out;
}

static pattern *pattern_of(const dbconfig *c, const char *text)
{
    pattern *p;

    for (p = c->patterns; p; p = p->next) {
        if (strcmp(p->text, text) == 0) {
            return p;
        }
    }
    return NULL;
}

static void patterns_free(pattern *p)
{
    pattern *next;

    for (; p; p = next) {
        next = p->next;
        if (p->compiled) {
            regfree(&p->re);
        }
        free(p);
    }
}

/* Compiles the pattern of every setting of `group` (and of its groups). */
static void compile_patterns(dbconfig *c, const json_t *group)
{
    const char *key;
    json_t *d;

    json_object_foreach((json_t *)group, key, d) {
        const char *text = json_string_value(json_object_get(d, "pattern"));
        char *ere;
        pattern *p;

        if (!json_object_get(d, "type")) {
            compile_patterns(c, d);
            continue;
        }
        if (!text || pattern_of(c, text)) {
            continue;
        }
        p = calloc(1, sizeof(*p));
        if (!p) {
            continue;
        }
        p->text = text;
        ere = ere_of(text);
        p->compiled = ere && regcomp(&p->re, ere, REG_EXTENDED | REG_NOSUB) == 0;
        if (!p->compiled) {
            /* A build with such a description is broken: the value is
             * taken unchecked rather than refused for the module's fault. */
            acct_log(ACCT_LOG_ERR, ACCTLOGNO(00180) "engine setting %s: its "
                     "pattern %s cannot be used; values are not checked "
                     "against it", key, text);
        }
        free(ere);
        p->next = c->patterns;
        c->patterns = p;
    }
}

/* ---- the parsed descriptions -------------------------------------------------- */

static void dbconfig_free(dbconfig *c)
{
    if (c) {
        json_decref(c->desc);
        json_decref(c->defaults);
        patterns_free(c->patterns);
        free(c);
    }
}

static dbconfig *dbconfig_parse(const engine_docs *d)
{
    dbconfig *c = calloc(1, sizeof(*c));
    json_error_t err;

    if (!c) {
        return NULL;
    }
    c->desc = json_loadb(d->doc, *d->doc_len,
                         JSON_DECODE_INT_AS_REAL | JSON_REJECT_DUPLICATES, &err);
    c->defaults = c->desc ? json_loadb(d->defaults, *d->defaults_len,
                                       JSON_REJECT_DUPLICATES, &err)
                          : NULL;
    if (!json_is_object(c->desc) || !json_is_object(c->defaults)) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00181) "the embedded %s engine "
                 "settings do not parse: line %d: %s", d->name, err.line,
                 err.text);
        dbconfig_free(c);
        return NULL;
    }
    compile_patterns(c, c->desc);
    return c;
}

/*
 * `engine`'s settings, parsed by the first caller of the process; callers
 * racing to parse them keep the first copy stored and drop theirs.  NULL
 * for an unknown engine or a broken build (logged).
 */
static const dbconfig *config_of(const char *engine)
{
    int e = engine_index(engine);
    dbconfig *c, *won;

    if (e < 0) {
        return NULL;
    }
    c = apr_atomic_casptr(&parsed[e], NULL, NULL);
    if (c) {
        return c;
    }
    c = dbconfig_parse(&engines[e]);
    if (!c) {
        return NULL;
    }
    won = apr_atomic_casptr(&parsed[e], c, NULL);
    if (won) {
        dbconfig_free(c);
        return won;
    }
    return c;
}

/* ---- one setting --------------------------------------------------------------- */

/* A description node names a group of settings unless it has a type. */
static int is_group(const json_t *d)
{
    return json_is_object(d) && !json_object_get(d, "type");
}

static int type_bit(const char *name)
{
    static const struct {
        const char *name;
        int bit;
    } names[] = {
        {"integer", T_INTEGER}, {"number", T_NUMBER}, {"string", T_STRING},
        {"boolean", T_BOOLEAN}, {"null", T_NULL},
    };
    size_t i;

    for (i = 0; name && i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(names[i].name, name) == 0) {
            return names[i].bit;
        }
    }
    return 0;
}

static int types_of(const json_t *d)
{
    const json_t *t = json_object_get(d, "type");
    json_t *item;
    size_t i;
    int bits = type_bit(json_string_value(t));

    json_array_foreach((json_t *)t, i, item) {
        bits |= type_bit(json_string_value(item));
    }
    return bits;
}

/* A real that is a whole number an int64 holds. */
static int is_whole(double x)
{
    return x >= I64_LOW && x < I64_HIGH && (double)(json_int_t)x == x;
}

/* Is `v` of one of `types`?  A whole real is an integer (JSON Schema). */
static int has_type(const json_t *v, int types)
{
    switch (json_typeof(v)) {
    case JSON_INTEGER:
        return (types & (T_INTEGER | T_NUMBER)) != 0;
    case JSON_REAL:
        return (types & T_NUMBER)
               || ((types & T_INTEGER) && is_whole(json_real_value(v)));
    case JSON_STRING:
        return (types & T_STRING) != 0;
    case JSON_TRUE:
    case JSON_FALSE:
        return (types & T_BOOLEAN) != 0;
    case JSON_NULL:
        return (types & T_NULL) != 0;
    default:
        return 0;
    }
}

/*
 * -1, 0 or 1 as the number `v` is below, at or above the bound `b` (a real
 * of the description).  Integers are compared exactly where the bound is
 * a whole int64; an integer is always within a bound past int64.
 */
static int compare_bound(const json_t *v, double b)
{
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);

        if (b >= I64_HIGH) {
            return -1;
        }
        if (b < I64_LOW) {
            return 1;
        }
        if (is_whole(b)) {
            json_int_t bi = (json_int_t)b;

            return i < bi ? -1 : i > bi;
        }
    }
    return json_number_value(v) < b ? -1 : json_number_value(v) > b;
}

/* A bound as the description gives it, for a message: "3600", "0.5". */
static const char *bound_text(apr_pool_t *pool, double b)
{
    return is_whole(b) ? apr_psprintf(pool, "%" APR_INT64_T_FMT,
                                      (apr_int64_t)b)
                       : apr_psprintf(pool, "%.15g", b);
}

/* "Must be an integer from 2 to 3600" and the like: the type, the range. */
static const char *number_reason(apr_pool_t *pool, const json_t *d, int types)
{
    const json_t *lo = json_object_get(d, "minimum");
    const json_t *hi = json_object_get(d, "maximum");
    const char *what = (types & T_NUMBER) ? "a number" : "an integer";
    double h = json_number_value(hi);

    /* No integer a request can hold reaches a maximum past int64. */
    if (hi && !(types & T_NUMBER) && h >= I64_HIGH) {
        hi = NULL;
    }
    if (lo && hi) {
        return apr_psprintf(pool, "Must be %s from %s to %s", what,
                            bound_text(pool, json_number_value(lo)),
                            bound_text(pool, h));
    }
    if (lo) {
        return apr_psprintf(pool, "Must be %s of at least %s", what,
                            bound_text(pool, json_number_value(lo)));
    }
    if (hi) {
        return apr_psprintf(pool, "Must be %s of at most %s", what,
                            bound_text(pool, h));
    }
    return apr_psprintf(pool, "Must be %s", what);
}

/* Characters (code points) of UTF-8 text, as JSON Schema counts length. */
static size_t utf8_chars(const char *s, size_t len)
{
    size_t i, n = 0;

    for (i = 0; i < len; i++) {
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    }
    return n;
}

static const char *enum_reason(apr_pool_t *pool, const json_t *values)
{
    const char *list = NULL;
    json_t *item;
    size_t i;

    json_array_foreach((json_t *)values, i, item) {
        const char *s = json_is_string(item) ? json_string_value(item)
                                             : "null";

        list = list ? apr_pstrcat(pool, list, ", ", s, NULL) : s;
    }
    return apr_pstrcat(pool, "Must be one of: ", list ? list : "", NULL);
}

static const char *string_reason(apr_pool_t *pool, const dbconfig *c,
                                 const json_t *d, const json_t *v)
{
    const json_t *values = json_object_get(d, "enum");
    const json_t *lo = json_object_get(d, "minLength");
    const json_t *hi = json_object_get(d, "maxLength");
    const char *text = json_string_value(json_object_get(d, "pattern"));
    const char *s = json_string_value(v);
    size_t len = json_string_length(v), n = utf8_chars(s, len), i;
    const pattern *p;

    if (values) {
        for (i = 0; i < json_array_size(values); i++) {
            if (json_equal(json_array_get(values, i), (json_t *)v)) {
                break;
            }
        }
        if (i == json_array_size(values)) {
            return enum_reason(pool, values);
        }
    }
    if ((lo && (double)n < json_number_value(lo))
        || (hi && (double)n > json_number_value(hi))) {
        return lo && hi ? apr_psprintf(pool, "Must be %s to %s characters "
                                       "long",
                                       bound_text(pool, json_number_value(lo)),
                                       bound_text(pool, json_number_value(hi)))
               : lo ? apr_psprintf(pool, "Must be at least %s characters long",
                                   bound_text(pool, json_number_value(lo)))
                    : apr_psprintf(pool, "Must be at most %s characters long",
                                   bound_text(pool, json_number_value(hi)));
    }
    p = text ? pattern_of(c, text) : NULL;
    /* An embedded NUL cannot match: regexec would stop there. */
    if (p && p->compiled
        && (strlen(s) != len || regexec(&p->re, s, 0, NULL, 0) != 0)) {
        return apr_pstrcat(pool, "Must match the pattern ", text, NULL);
    }
    return NULL;
}

/* What is wrong with value `v` of the setting described by `d`, or NULL. */
static const char *setting_reason(apr_pool_t *pool, const dbconfig *c,
                                  const json_t *d, const json_t *v)
{
    int types = types_of(d);
    const json_t *lo, *hi;

    if (json_is_null(v)) {
        return NULL;
    }
    if (!has_type(v, types)) {
        if (types & (T_INTEGER | T_NUMBER)) {
            return number_reason(pool, d, types);
        }
        if (types & T_BOOLEAN) {
            return "Must be true or false";
        }
        return (types & T_NULL) ? "Must be a string or null"
                                : "Must be a string";
    }
    if (json_is_number(v)) {
        lo = json_object_get(d, "minimum");
        hi = json_object_get(d, "maximum");
        if ((lo && compare_bound(v, json_number_value(lo)) < 0)
            || (hi && compare_bound(v, json_number_value(hi)) > 0)) {
            return number_reason(pool, d, types);
        }
        return NULL;
    }
    if (json_is_string(v)) {
        return string_reason(pool, c, d, v);
    }
    return NULL;
}

/* ---- validation ------------------------------------------------------------------ */

static int validate_group(apr_pool_t *pool, const char *engine,
                          const dbconfig *c, const json_t *group,
                          const json_t *given, acct_problems *pb,
                          const char *prefix)
{
    const char *key, *reason;
    json_t *v;
    int added = 0;

    if (!json_is_object(given)) {
        acct_problem_add(pb, prefix, "Must be an object");
        return 1;
    }
    json_object_foreach((json_t *)given, key, v) {
        const json_t *d = json_object_get(group, key);
        const char *field = apr_pstrcat(pool, prefix, ".", key, NULL);

        if (!json_is_object(d)) {
            /* Not a setting: refused, as a value the module cannot apply
             * must not look applied. */
            acct_problem_add(pb, field,
                             apr_psprintf(pool, "Not a setting of %s (GET "
                                          "/databases/%s/config lists them)",
                                          engine, engine));
            added++;
        }
        else if (is_group(d)) {
            if (!json_is_null(v)) {
                added += validate_group(pool, engine, c, d, v, pb, field);
            }
        }
        else if ((reason = setting_reason(pool, c, d, v)) != NULL) {
            acct_problem_add(pb, field, reason);
            added++;
        }
    }
    return added;
}

int acct_dbconfig_validate(apr_pool_t *pool, const char *engine,
                           const json_t *engine_config, acct_problems *pb,
                           const char *prefix)
{
    const dbconfig *c = config_of(engine);

    if (!engine_config || json_is_null(engine_config)) {
        return 0;
    }
    if (!c) {
        acct_problem_add(pb, prefix, "No settings for this engine");
        return 1;
    }
    return validate_group(pool, engine, c, c->desc, engine_config, pb, prefix);
}

/* ---- merging ----------------------------------------------------------------------- */

/* The value stored for `v`, valid for the setting `d`: a whole real given
 * to a setting that is an integer and not a number is stored as one. */
static json_t *stored_value(const json_t *d, const json_t *v)
{
    int types = types_of(d);

    if (json_is_real(v) && (types & T_INTEGER) && !(types & T_NUMBER)
        && is_whole(json_real_value(v))) {
        return json_integer((json_int_t)json_real_value(v));
    }
    return json_deep_copy(v);
}

/* Applies `given` to `out` (a copy of the stored settings of `group`). */
static void merge_group(const json_t *group, json_t *out, const json_t *given)
{
    const char *key;
    json_t *v, *sub;

    json_object_foreach((json_t *)given, key, v) {
        const json_t *d = json_object_get(group, key);

        if (!json_is_object(d)) {
            continue;
        }
        if (is_group(d)) {
            if (!json_is_object(v)) {
                continue;
            }
            sub = json_object_get(out, key);
            if (!json_is_object(sub)) {
                sub = json_object();
                json_object_set_new(out, key, sub);
            }
            merge_group(d, sub, v);
        }
        else if (!json_is_null(v)) {
            json_object_set_new(out, key, stored_value(d, v));
        }
        else if (types_of(d) & T_NULL) {
            json_object_set_new(out, key, json_null());
        }
    }
}

json_t *acct_dbconfig_merge(const char *engine, const json_t *stored,
                            const json_t *given)
{
    const dbconfig *c = config_of(engine);
    json_t *out = json_is_object(stored) ? json_deep_copy(stored)
                                         : json_object();

    if (c && out && json_is_object(given)) {
        merge_group(c->desc, out, given);
    }
    return out;
}

json_t *acct_dbconfig_initial(const char *engine, const json_t *given)
{
    const dbconfig *c = config_of(engine);

    return c ? acct_dbconfig_merge(engine, c->defaults, given) : NULL;
}

/* ---- restarts ------------------------------------------------------------------------ */

static int same_value(const json_t *a, const json_t *b)
{
    if (!a || !b) {
        return a == b;
    }
    if (json_is_number(a) && json_is_number(b)) {
        return json_number_value(a) == json_number_value(b);
    }
    return json_equal((json_t *)a, (json_t *)b);
}

static int group_needs_restart(const json_t *group, const json_t *before,
                               const json_t *after)
{
    const char *key;
    json_t *d;

    json_object_foreach((json_t *)group, key, d) {
        const json_t *a = json_object_get(before, key);
        const json_t *b = json_object_get(after, key);

        if (is_group(d)) {
            if (group_needs_restart(d, a, b)) {
                return 1;
            }
        }
        else if (json_is_true(json_object_get(d, "requires_restart"))
                 && !same_value(a, b)) {
            return 1;
        }
    }
    return 0;
}

int acct_dbconfig_needs_restart(const char *engine, const json_t *before,
                                const json_t *after)
{
    const dbconfig *c = config_of(engine);

    return c && group_needs_restart(c->desc, before, after);
}
