#include "acct_router.h"
#include "acct_text.h"

#include <apr_strings.h>
#include <string.h>

#define MAX_SEGMENTS 16

typedef struct {
    const char *seg[MAX_SEGMENTS];
    int n;
} segments;

static int hexval(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

char *acct_percent_decode(apr_pool_t *pool, const char *s, size_t len)
{
    char *out = apr_palloc(pool, len + 1), *o = out;
    size_t i;

    for (i = 0; i < len; i++) {
        if (s[i] == '%') {
            int hi, lo;

            hi = i + 1 < len ? hexval(s[i + 1]) : -1;
            lo = i + 2 < len ? hexval(s[i + 2]) : -1;
            if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
                return NULL;
            }
            *o++ = (char)(hi * 16 + lo);
            i += 2;
        }
        else if (s[i] == '\0') {
            return NULL;
        }
        else {
            *o++ = s[i];
        }
    }
    *o = '\0';
    return out;
}

/*
 * Whether a decoded segment is text a request may carry: strict UTF-8 without
 * control characters, exactly what the body readers accept in a string.  A
 * segment that is not is no id, label or literal of any route, so the path
 * does not exist; checking it here, once, keeps bytes the database cannot
 * store (PostgreSQL fails a statement on invalid UTF-8) out of every handler.
 */
static int segment_is_text(const char *seg)
{
    return acct_utf8_valid(seg) && !acct_has_control_character(seg);
}

/*
 * Splits "/a/b%2Fc/" into decoded segments; -1 on an empty segment, a bad
 * escape, or a segment that is not text (segment_is_text).
 */
static int split_path(apr_pool_t *pool, const char *path, segments *out)
{
    const char *p = path, *end;

    out->n = 0;
    if (*p == '/') {
        p++;
    }
    while (*p) {
        end = strchr(p, '/');
        if (!end) {
            end = p + strlen(p);
        }
        if (end == p) {
            /* "//" inside the path; a single trailing slash ends the loop */
            return -1;
        }
        if (out->n == MAX_SEGMENTS) {
            return -1;
        }
        out->seg[out->n] = acct_percent_decode(pool, p, (size_t)(end - p));
        if (!out->seg[out->n] || !segment_is_text(out->seg[out->n])) {
            return -1;
        }
        out->n++;
        p = *end ? end + 1 : end;
    }
    return 0;
}

/*
 * Does `tmpl` match the path?  Fills params and returns a specificity score:
 * literal segments weigh more the earlier they come, so "/regions/availability"
 * beats "/regions/{regionId}".  Returns -1 when it does not match.
 *
 * Every request tries every template (about 90), and most differ from the
 * path in their first bytes: a literal segment is compared byte by byte as
 * the template is walked, so a mismatch costs a few instructions instead of
 * measuring and comparing whole segments (the router was a quarter of the
 * instructions of a small answer).
 */
static long match_template(apr_pool_t *pool, const char *tmpl,
                           const segments *path, const char **params)
{
    const char *t = tmpl + (*tmpl == '/');
    long score = 0;
    int i = 0, np = 0;

    while (*t) {
        if (i >= path->n) {
            return -1;
        }
        score <<= 1;
        if (*t == '{') {
            const char *end = t;
            size_t len;
            int rest;

            while (*end && *end != '/') {
                end++;
            }
            len = (size_t)(end - t);
            rest = len > 5 && memcmp(end - 4, "...}", 4) == 0;
            if (np == ACCT_MAX_PATH_PARAMS) {
                return -1;
            }
            if (rest) {
                /* "{name...}": the remaining segments, joined again by '/'. */
                const char *joined = path->seg[i];
                int k;

                for (k = i + 1; k < path->n; k++) {
                    joined = apr_pstrcat(pool, joined, "/", path->seg[k], NULL);
                }
                params[np++] = joined;
                return *end ? -1 : score;
            }
            params[np++] = path->seg[i];
            t = end;
        }
        else {
            /* A decoded segment may hold '/' (%2F): it then differs from
             * the template's segment, which ends there. */
            const char *s = path->seg[i];

            while (*t && *t != '/' && *t == *s) {
                t++;
                s++;
            }
            if ((*t && *t != '/') || *s) {
                return -1;
            }
            score |= 1;
        }
        i++;
        if (*t) {
            t++;                    /* the '/' after the segment */
        }
    }
    return i == path->n ? score : -1;
}

const char *acct_method_name(acct_method m)
{
    switch (m) {
    case ACCT_METHOD_GET: return "GET";
    case ACCT_METHOD_POST: return "POST";
    case ACCT_METHOD_PUT: return "PUT";
    case ACCT_METHOD_DELETE: return "DELETE";
    }
    return "?";
}

static int method_from_name(const char *name)
{
    if (strcmp(name, "GET") == 0 || strcmp(name, "HEAD") == 0) {
        return ACCT_METHOD_GET;
    }
    if (strcmp(name, "POST") == 0) {
        return ACCT_METHOD_POST;
    }
    if (strcmp(name, "PUT") == 0) {
        return ACCT_METHOD_PUT;
    }
    if (strcmp(name, "DELETE") == 0) {
        return ACCT_METHOD_DELETE;
    }
    return 0;
}

acct_match_rc acct_route_match(const acct_route *table, apr_pool_t *pool,
                               const char *method, const char *raw_path,
                               acct_match *out)
{
    const char *params[ACCT_MAX_PATH_PARAMS];
    const char *best_path = NULL;
    long best = -1;
    unsigned allowed = 0;
    segments path;
    int want = method_from_name(method);
    const acct_route *r;

    memset(out, 0, sizeof(*out));
    if (split_path(pool, raw_path, &path) != 0) {
        return ACCT_MATCH_NO_PATH;
    }
    /*
     * One pass: the most specific template matching the path (the first
     * row with the best score), the methods of the rows with that template,
     * and the row of this method.  Another template with the same score
     * (only parameter names could differ) does not count.
     */
    for (r = table; r->path; r++) {
        const char *t = r->path + (r->path[0] == '/');
        long score;

        /* Most templates differ from the path in their first byte. */
        if (path.n > 0 && *t != '{' && *t != path.seg[0][0]) {
            continue;
        }
        score = match_template(pool, r->path, &path, params);
        if (score < 0 || score < best) {
            continue;
        }
        if (score > best) {
            best = score;
            best_path = r->path;
            allowed = 0;
            out->route = NULL;
            memset(out->params, 0, sizeof(out->params));
        }
        else if (r->path != best_path && strcmp(r->path, best_path) != 0) {
            continue;
        }
        allowed |= (unsigned)r->method;
        if ((int)r->method == want) {
            out->route = r;
            /* Again, into the answer: `params` may hold a longer
             * template's parameters past this one's. */
            match_template(pool, r->path, &path, out->params);
        }
    }
    if (!best_path) {
        return ACCT_MATCH_NO_PATH;
    }
    out->allow = apr_pstrcat(pool,
                             (allowed & ACCT_METHOD_GET) ? "GET, HEAD, " : "",
                             (allowed & ACCT_METHOD_POST) ? "POST, " : "",
                             (allowed & ACCT_METHOD_PUT) ? "PUT, " : "",
                             (allowed & ACCT_METHOD_DELETE) ? "DELETE, " : "",
                             "OPTIONS", NULL);
    if (strcmp(method, "OPTIONS") == 0) {
        return ACCT_MATCH_OPTIONS;
    }
    return out->route ? ACCT_MATCH_FOUND : ACCT_MATCH_BAD_METHOD;
}

const char *acct_route_scope(apr_pool_t *pool, const acct_route *route)
{
    if (route->flags & (ACCT_ROUTE_PUBLIC | ACCT_ROUTE_ANY_TOKEN)) {
        return "*";
    }
    return acct_scope_requirement(pool, route->family, route->level);
}
