#include "acct_scope.h"

#include <apr_strings.h>
#include <apr_tables.h>
#include <string.h>

/* Indexed by acct_family: the canonical output order. */
static const char *const family_names[ACCT_FAM_COUNT] = {
    "account", "databases", "domains", "events", "firewall",
    "images", "ips", "linodes", "lke", "longview",
    "nodebalancers", "object_storage", "stackscripts", "volumes", "vpc"
};

/* Indexed by acct_level; NONE never appears in a scope string. */
static const char *const level_names[] = {NULL, "read_only", "read_write"};

#define SCOPE_SEPARATORS " ,"

const char *acct_family_name(acct_family fam)
{
    if ((int)fam < 0 || fam >= ACCT_FAM_COUNT) {
        return NULL;
    }
    return family_names[fam];
}

/* Compares a length-delimited piece of the input with a NUL-ended name. */
static int piece_is(const char *piece, size_t len, const char *name)
{
    return strlen(name) == len && memcmp(piece, name, len) == 0;
}

static int find_family(const char *piece, size_t len)
{
    int i;

    for (i = 0; i < ACCT_FAM_COUNT; i++) {
        if (piece_is(piece, len, family_names[i])) {
            return i;
        }
    }
    return -1;
}

static int find_level(const char *piece, size_t len)
{
    if (piece_is(piece, len, level_names[ACCT_LEVEL_READ_ONLY])) {
        return ACCT_LEVEL_READ_ONLY;
    }
    if (piece_is(piece, len, level_names[ACCT_LEVEL_READ_WRITE])) {
        return ACCT_LEVEL_READ_WRITE;
    }
    return -1;
}

/* One "family:level" or "*" item of `len` bytes, merged into `s`. */
static int apply_item(const char *item, size_t len, acct_scopes *s)
{
    const char *colon;
    int fam, level, i;

    if (piece_is(item, len, "*")) {
        for (i = 0; i < ACCT_FAM_COUNT; i++) {
            s->level[i] = ACCT_LEVEL_READ_WRITE;
        }
        return 0;
    }
    colon = memchr(item, ':', len);
    if (!colon) {
        return -1;
    }
    fam = find_family(item, (size_t)(colon - item));
    level = find_level(colon + 1, len - (size_t)(colon - item) - 1);
    if (fam < 0 || level < 0) {
        return -1;
    }
    /* A repeated family must not lose the access another item granted. */
    if (s->level[fam] < level) {
        s->level[fam] = (unsigned char)level;
    }
    return 0;
}

int acct_scopes_parse(apr_pool_t *pool, const char *text, acct_scopes *out,
                      const char **bad)
{
    acct_scopes s;
    const char *p = text ? text : "";
    int items = 0;

    memset(&s, 0, sizeof(s));
    while (*p) {
        size_t len;

        p += strspn(p, SCOPE_SEPARATORS);
        len = strcspn(p, SCOPE_SEPARATORS);
        if (!len) {
            break;
        }
        if (apply_item(p, len, &s) != 0) {
            if (bad) {
                *bad = apr_pstrmemdup(pool, p, len);
            }
            return -1;
        }
        items++;
        p += len;
    }
    if (!items) {
        if (bad) {
            *bad = apr_pstrdup(pool, text ? text : "");
        }
        return -1;
    }
    *out = s;
    return 0;
}

const char *acct_scopes_format(apr_pool_t *pool, const acct_scopes *s)
{
    apr_array_header_t *items;
    int i;

    for (i = 0; i < ACCT_FAM_COUNT; i++) {
        if (s->level[i] != ACCT_LEVEL_READ_WRITE) {
            break;
        }
    }
    if (i == ACCT_FAM_COUNT) {
        return "*";
    }
    items = apr_array_make(pool, ACCT_FAM_COUNT, sizeof(const char *));
    for (i = 0; i < ACCT_FAM_COUNT; i++) {
        unsigned level = s->level[i];

        /* Out-of-range levels are not ours to invent a name for. */
        if (level == ACCT_LEVEL_NONE || level > ACCT_LEVEL_READ_WRITE) {
            continue;
        }
        APR_ARRAY_PUSH(items, const char *) =
            apr_pstrcat(pool, family_names[i], ":", level_names[level], NULL);
    }
    return apr_array_pstrcat(pool, items, ' ');
}

int acct_scopes_allow(const acct_scopes *have, acct_family fam,
                      acct_level need)
{
    if ((int)fam < 0 || fam >= ACCT_FAM_COUNT) {
        return 0;
    }
    return have->level[fam] >= (unsigned)need;
}

int acct_scopes_within(const acct_scopes *want, const acct_scopes *have)
{
    int i;

    for (i = 0; i < ACCT_FAM_COUNT; i++) {
        if (want->level[i] > have->level[i]) {
            return 0;
        }
    }
    return 1;
}

const char *acct_scope_requirement(apr_pool_t *pool, acct_family fam,
                                   acct_level need)
{
    const char *name = acct_family_name(fam);

    /* Routes that only need a valid token advertise "*" (docs/conventions.md). */
    if (need == ACCT_LEVEL_NONE) {
        return "*";
    }
    if (!name || need > ACCT_LEVEL_READ_WRITE) {
        return NULL;
    }
    return apr_pstrcat(pool, name, ":", level_names[need], NULL);
}
