#include "acct_text.h"

#include <apr_strings.h>
#include <string.h>

void acct_text_init(acct_text *t, apr_pool_t *pool, apr_size_t cap)
{
    t->pool = pool;
    t->cap = cap > 0 ? cap : 1;
    t->len = 0;
    t->data = apr_palloc(pool, t->cap);
    t->data[0] = '\0';
}

char *acct_text_grow(acct_text *t, apr_size_t more)
{
    apr_size_t cap = t->cap * 2;
    char *bigger;

    while (t->len + more + 1 > cap) {
        cap *= 2;
    }
    bigger = apr_palloc(t->pool, cap);
    memcpy(bigger, t->data, t->len + 1);
    t->data = bigger;
    t->cap = cap;
    return t->data + t->len;
}

void acct_text_puts(acct_text *t, const char *s)
{
    acct_text_put(t, s, strlen(s));
}

void acct_text_i64(acct_text *t, apr_int64_t v)
{
    char num[24];
    int n = apr_snprintf(num, sizeof(num), "%" APR_INT64_T_FMT, v);

    acct_text_put(t, num, (apr_size_t)n);
}

apr_size_t acct_utf8_sequence(const unsigned char *s)
{
    apr_size_t n, i;
    unsigned long cp;

    if (s[0] < 0xC2 || s[0] > 0xF4) {
        return 0;
    }
    n = s[0] < 0xE0 ? 2 : s[0] < 0xF0 ? 3 : 4;
    cp = s[0] & (0x7F >> n);
    for (i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) {    /* also the terminating NUL */
            return 0;
        }
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000)
        || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return 0;
    }
    return n;
}

int acct_utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    apr_size_t n;

    while (*p) {
        if (*p < 0x80) {
            p++;
        }
        else if ((n = acct_utf8_sequence(p)) != 0) {
            p += n;
        }
        else {
            return 0;
        }
    }
    return 1;
}

int acct_has_control_character(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;

    /* C1 is U+0080..U+009F: 0xC2 0x80..0x9F in UTF-8. */
    for (; *p; p++) {
        if (*p < 0x20 || *p == 0x7f
            || (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)) {
            return 1;
        }
    }
    return 0;
}
