#include "acct_json.h"
#include "acct_store.h"
#include "acct_time.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

static apr_status_t json_cleanup(void *data)
{
    json_decref((json_t *)data);
    return APR_SUCCESS;
}

json_t *acct_json_own(apr_pool_t *pool, json_t *j)
{
    if (j) {
        apr_pool_cleanup_register(pool, j, json_cleanup,
                                  apr_pool_cleanup_null);
    }
    return j;
}

json_t *acct_json_str(const char *s)
{
    json_t *j = s ? json_string(s) : NULL;

    return j ? j : json_null();
}

json_t *acct_json_int_or_null(const char *s)
{
    apr_int64_t v;

    if (!s || acct_parse_i64(s, &v) != 0) {
        return json_null();
    }
    return json_integer((json_int_t)v);
}

json_t *acct_json_int(const char *s)
{
    json_t *j = acct_json_int_or_null(s);

    if (json_is_null(j)) {
        return json_integer(0);
    }
    return j;
}

json_t *acct_json_bool(const char *s)
{
    /* pgsql renders booleans as "t"/"f"; the schema stores 0/1. */
    return json_boolean(s && (strcmp(s, "1") == 0 || strcmp(s, "t") == 0
                              || strcmp(s, "true") == 0));
}

json_t *acct_json_number(const char *s)
{
    json_t *real;
    char *end;
    double d;

    if (!s || !*s) {
        return json_integer(0);
    }
    if (!strpbrk(s, ".eE")) {
        return acct_json_int(s);
    }
    d = strtod(s, &end);
    if (*end) {
        return json_integer(0);
    }
    real = json_real(d);
    /* json_real refuses infinities; a key must never silently vanish. */
    return real ? real : json_null();
}

json_t *acct_json_time(apr_pool_t *pool, const char *epoch_seconds)
{
    apr_int64_t v;

    /* Years 1970..9999: the only ones the wire format can carry. */
    if (!epoch_seconds || acct_parse_i64(epoch_seconds, &v) != 0 || v < 0
        || v > APR_INT64_C(253402300799)) {
        return json_null();
    }
    return json_string(acct_format_timestamp(pool, v));
}

json_t *acct_json_parse_column(const char *text)
{
    json_t *j;

    if (!text) {
        return json_null();
    }
    j = json_loads(text, JSON_DECODE_ANY, NULL);
    return j ? j : json_null();
}

/*
 * Scans the raw text for nesting depth before jansson parses it: jansson
 * accepts up to 2048 levels and recurses for each, so a deep body would cost
 * stack and time before we could refuse it.
 */
static int depth_within(const char *buf, size_t len, int max)
{
    int depth = 0, in_string = 0;
    size_t i;

    for (i = 0; i < len; i++) {
        char c = buf[i];

        if (in_string) {
            if (c == '\\') {
                i++;
            }
            else if (c == '"') {
                in_string = 0;
            }
            continue;
        }
        switch (c) {
        case '"':
            in_string = 1;
            break;
        case '{':
        case '[':
            if (++depth > max) {
                return 0;
            }
            break;
        case '}':
        case ']':
            depth--;
            break;
        default:
            break;
        }
    }
    return 1;
}

json_t *acct_json_decode_body(apr_pool_t *pool, const char *buf, size_t len)
{
    json_error_t err;

    if (!buf || !depth_within(buf, len, ACCT_JSON_MAX_DEPTH)) {
        return NULL;
    }
    return acct_json_own(pool, json_loadb(buf, len, JSON_REJECT_DUPLICATES,
                                          &err));
}

char *acct_json_dump(apr_pool_t *pool, const json_t *j, size_t *len)
{
    char *text, *copy;
    size_t n;

    /* 15 significant digits print prices as written (0.0075, not 0.00749...). */
    text = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15));
    if (!text) {
        if (len) {
            *len = 0;
        }
        return NULL;
    }
    n = strlen(text);
    copy = apr_pstrmemdup(pool, text, n);
    free(text);
    if (len) {
        *len = n;
    }
    return copy;
}

apr_size_t acct_json_escape_byte(unsigned char c, char *out)
{
    static const char hex[] = "0123456789ABCDEF";
    char named = 0;

    switch (c) {
    case '"': named = '"'; break;
    case '\\': named = '\\'; break;
    case '\b': named = 'b'; break;
    case '\f': named = 'f'; break;
    case '\n': named = 'n'; break;
    case '\r': named = 'r'; break;
    case '\t': named = 't'; break;
    default:
        if (c >= 0x20) {
            return 0;
        }
        memcpy(out, "\\u00", 4);
        out[4] = hex[c >> 4];
        out[5] = hex[c & 0xF];
        return 6;
    }
    out[0] = '\\';
    out[1] = named;
    return 2;
}

char *acct_json_quote(char *out, const char *text, apr_size_t len)
{
    apr_size_t i;

    *out++ = '"';
    for (i = 0; i < len; i++) {
        apr_size_t n = acct_json_escape_byte((unsigned char)text[i], out);

        if (n == 0) {
            *out++ = text[i];
        }
        out += n;
    }
    *out++ = '"';
    return out;
}
