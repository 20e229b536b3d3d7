#include "acct_json.h"
#include "acct_resp.h"
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

const acct_json_limits acct_json_body_limits = {
    ACCT_JSON_MAX_DEPTH, ACCT_JSON_MAX_VALUES, ACCT_JSON_MAX_STRING
};

/* Where acct_json_scan is in the grammar: what may come next. */
typedef enum {
    SCAN_VALUE,             /* a value: the start, after ':' or ',' in an array */
    SCAN_VALUE_OR_CLOSE,    /* after '[': a value or ']' */
    SCAN_KEY,               /* after ',' in an object: a key */
    SCAN_KEY_OR_CLOSE,      /* after '{': a key or '}' */
    SCAN_COLON,             /* after a key */
    SCAN_NEXT,              /* after a value in a container: ',' or the close */
    SCAN_END                /* after the top-level value: whitespace only */
} scan_state;

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_hex(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/*
 * The string whose opening quote is at buf[*i]: moves *i to its closing
 * quote.  Its length in characters counts the bytes that start a UTF-8
 * sequence (or are not UTF-8 at all: jansson refuses those later) and one
 * per escape.
 */
static acct_json_scan_rc scan_string(const char *buf, size_t len, size_t *i,
                                     size_t max_string)
{
    size_t p = *i + 1, chars = 0;

    for (; p < len; p++) {
        unsigned char c = (unsigned char)buf[p];

        if (c == '"') {
            *i = p;
            return ACCT_JSON_SCAN_OK;
        }
        if (c < 0x20) {             /* control characters must be escaped */
            return ACCT_JSON_SCAN_MALFORMED;
        }
        if (c == '\\') {
            if (++p == len) {
                return ACCT_JSON_SCAN_MALFORMED;
            }
            if (buf[p] == 'u') {
                if (len - p < 5 || !is_hex(buf[p + 1]) || !is_hex(buf[p + 2])
                    || !is_hex(buf[p + 3]) || !is_hex(buf[p + 4])) {
                    return ACCT_JSON_SCAN_MALFORMED;
                }
                p += 4;
            }
            else if (!strchr("\"\\/bfnrt", buf[p]) || buf[p] == '\0') {
                return ACCT_JSON_SCAN_MALFORMED;
            }
        }
        else if ((c & 0xC0) == 0x80) {
            continue;               /* a continuation byte: no new character */
        }
        if (++chars > max_string) {
            return ACCT_JSON_SCAN_STRING_TOO_LONG;
        }
    }
    return ACCT_JSON_SCAN_MALFORMED;    /* unterminated */
}

/* The number starting at buf[*i] (RFC 8259, 6): *i moves to its last byte. */
static int scan_number(const char *buf, size_t len, size_t *i)
{
    size_t p = *i;

    if (buf[p] == '-') {
        p++;
    }
    if (p < len && buf[p] == '0') {
        p++;
    }
    else if (p < len && is_digit(buf[p])) {
        while (p < len && is_digit(buf[p])) {
            p++;
        }
    }
    else {
        return 0;
    }
    if (p < len && buf[p] == '.') {
        if (++p == len || !is_digit(buf[p])) {
            return 0;
        }
        while (p < len && is_digit(buf[p])) {
            p++;
        }
    }
    if (p < len && (buf[p] == 'e' || buf[p] == 'E')) {
        if (++p < len && (buf[p] == '+' || buf[p] == '-')) {
            p++;
        }
        if (p == len || !is_digit(buf[p])) {
            return 0;
        }
        while (p < len && is_digit(buf[p])) {
            p++;
        }
    }
    *i = p - 1;
    return 1;
}

acct_json_scan_rc acct_json_scan(const char *buf, size_t len,
                                 const acct_json_limits *lim)
{
    /* in_object[d]: whether the container at depth d + 1 is an object. */
    unsigned char in_object[ACCT_JSON_MAX_DEPTH];
    int depth = 0, max_depth = lim->max_depth;
    size_t values = 0, i;
    scan_state st = SCAN_VALUE;

    if (max_depth > ACCT_JSON_MAX_DEPTH) {
        max_depth = ACCT_JSON_MAX_DEPTH;
    }
    for (i = 0; i < len; i++) {
        char c = buf[i];
        acct_json_scan_rc rc;

        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            continue;
        }
        switch (st) {
        case SCAN_KEY:
        case SCAN_KEY_OR_CLOSE:
            if (c == '}' && st == SCAN_KEY_OR_CLOSE) {
                break;              /* the close, handled below */
            }
            if (c != '"') {
                return ACCT_JSON_SCAN_MALFORMED;
            }
            rc = scan_string(buf, len, &i, lim->max_string);
            if (rc != ACCT_JSON_SCAN_OK) {
                return rc;
            }
            st = SCAN_COLON;
            continue;
        case SCAN_COLON:
            if (c != ':') {
                return ACCT_JSON_SCAN_MALFORMED;
            }
            st = SCAN_VALUE;
            continue;
        case SCAN_NEXT:
            if (c == ',') {
                st = in_object[depth - 1] ? SCAN_KEY : SCAN_VALUE;
                continue;
            }
            break;                  /* a close, handled below */
        case SCAN_END:
            return ACCT_JSON_SCAN_MALFORMED;
        case SCAN_VALUE:
        case SCAN_VALUE_OR_CLOSE:
            if (c == ']' && st == SCAN_VALUE_OR_CLOSE) {
                break;              /* the close, handled below */
            }
            if (++values > lim->max_values) {
                return ACCT_JSON_SCAN_TOO_MANY_VALUES;
            }
            if (c == '{' || c == '[') {
                if (depth == max_depth) {
                    return ACCT_JSON_SCAN_TOO_DEEP;
                }
                in_object[depth++] = c == '{';
                st = c == '{' ? SCAN_KEY_OR_CLOSE : SCAN_VALUE_OR_CLOSE;
                continue;
            }
            if (c == '"') {
                rc = scan_string(buf, len, &i, lim->max_string);
                if (rc != ACCT_JSON_SCAN_OK) {
                    return rc;
                }
            }
            else if (c == 't' && len - i >= 4 && memcmp(buf + i, "true", 4) == 0) {
                i += 3;
            }
            else if (c == 'f' && len - i >= 5 && memcmp(buf + i, "false", 5) == 0) {
                i += 4;
            }
            else if (c == 'n' && len - i >= 4 && memcmp(buf + i, "null", 4) == 0) {
                i += 3;
            }
            else if (!scan_number(buf, len, &i)) {
                return ACCT_JSON_SCAN_MALFORMED;
            }
            st = depth ? SCAN_NEXT : SCAN_END;
            continue;
        }
        /* A close: it must match the innermost container. */
        if (c != (in_object[depth - 1] ? '}' : ']')) {
            return ACCT_JSON_SCAN_MALFORMED;
        }
        depth--;
        st = depth ? SCAN_NEXT : SCAN_END;
    }
    return st == SCAN_END ? ACCT_JSON_SCAN_OK : ACCT_JSON_SCAN_MALFORMED;
}

const char *acct_json_scan_reason(apr_pool_t *pool, acct_json_scan_rc rc)
{
    switch (rc) {
    case ACCT_JSON_SCAN_OK:
        return NULL;
    case ACCT_JSON_SCAN_TOO_MANY_VALUES:
        return apr_psprintf(pool, "Request body has too many JSON values "
                            "(at most %d)", ACCT_JSON_MAX_VALUES);
    case ACCT_JSON_SCAN_STRING_TOO_LONG:
        return apr_psprintf(pool, "Request body has a JSON string that is "
                            "too long (at most %d characters)",
                            ACCT_JSON_MAX_STRING);
    case ACCT_JSON_SCAN_MALFORMED:
    case ACCT_JSON_SCAN_TOO_DEEP:
        break;
    }
    return ACCT_R_INVALID_JSON;
}

json_t *acct_json_decode_body(apr_pool_t *pool, const char *buf, size_t len,
                              const char **reason)
{
    acct_json_scan_rc rc = buf ? acct_json_scan(buf, len,
                                                &acct_json_body_limits)
                               : ACCT_JSON_SCAN_MALFORMED;
    json_t *root = NULL;
    json_error_t err;

    if (rc == ACCT_JSON_SCAN_OK) {
        root = acct_json_own(pool, json_loadb(buf, len,
                                              JSON_REJECT_DUPLICATES, &err));
    }
    if (!root && reason) {
        *reason = rc == ACCT_JSON_SCAN_OK ? ACCT_R_INVALID_JSON
                                          : acct_json_scan_reason(pool, rc);
    }
    return root;
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

/*
 * What acct_json_text_str does at each byte: copy it with the run (0), end
 * the string (the NUL), escape it (a control byte, '"', '\\'), or check a
 * UTF-8 sequence (a byte from 0x80).  A table, so that the loop over a
 * run of plain bytes (nearly every byte of a page of records) is one load
 * and one test a byte.
 */
enum { JSON_PLAIN = 0, JSON_END, JSON_ESCAPE, JSON_UTF8 };

#define CLASS_X4(c) c, c, c, c
#define CLASS_X16(c) CLASS_X4(c), CLASS_X4(c), CLASS_X4(c), CLASS_X4(c)

static const unsigned char json_byte_class[256] = {
    JSON_END,
    /* 0x01-0x1f: the control bytes */
    CLASS_X16(JSON_ESCAPE), CLASS_X4(JSON_ESCAPE), CLASS_X4(JSON_ESCAPE),
    CLASS_X4(JSON_ESCAPE), JSON_ESCAPE, JSON_ESCAPE, JSON_ESCAPE,
    ['"'] = JSON_ESCAPE,
    ['\\'] = JSON_ESCAPE,
    /* 0x80-0xff */
    [0x80] = CLASS_X16(JSON_UTF8), CLASS_X16(JSON_UTF8), CLASS_X16(JSON_UTF8),
    CLASS_X16(JSON_UTF8), CLASS_X16(JSON_UTF8), CLASS_X16(JSON_UTF8),
    CLASS_X16(JSON_UTF8), CLASS_X16(JSON_UTF8)
};

void acct_json_text_str(acct_text *t, const char *s)
{
    const unsigned char *p = (const unsigned char *)s, *run = p;
    apr_size_t start = t->len, n;
    char escaped[6];

    if (!s) {
        ACCT_TEXT_LITERAL(t, "null");
        return;
    }
    ACCT_TEXT_LITERAL(t, "\"");
    for (;;) {
        while (json_byte_class[*p] == JSON_PLAIN) {
            p++;
        }
        if (json_byte_class[*p] == JSON_END) {
            break;
        }
        if (json_byte_class[*p] == JSON_UTF8) {
            if (!(n = acct_utf8_sequence(p))) {
                /* json_string refuses it: acct_json_str's null. */
                t->len = start;
                t->data[start] = '\0';
                ACCT_TEXT_LITERAL(t, "null");
                return;
            }
            p += n;
            continue;
        }
        acct_text_put(t, (const char *)run, (apr_size_t)(p - run));
        acct_text_put(t, escaped, acct_json_escape_byte(*p, escaped));
        run = ++p;
    }
    acct_text_put(t, (const char *)run, (apr_size_t)(p - run));
    ACCT_TEXT_LITERAL(t, "\"");
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
