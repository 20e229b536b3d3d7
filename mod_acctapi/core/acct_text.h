/*
 * A growable text in pool memory, always NUL-terminated: what the writers
 * of large answers (record pages, zone files) build their bytes in.  It
 * grows by doubling, so a text of n bytes costs O(log n) allocations; the
 * outgrown buffers stay in the pool until it is cleared.
 */
#ifndef ACCT_TEXT_H
#define ACCT_TEXT_H

#include <apr_pools.h>
#include <string.h>

typedef struct acct_text {
    apr_pool_t *pool;
    char *data;        /* `len` bytes and a NUL */
    apr_size_t len;
    apr_size_t cap;    /* bytes allocated at `data`, the NUL included */
} acct_text;

/* An empty text with room for `cap` bytes (at least 1) before growing. */
void acct_text_init(acct_text *t, apr_pool_t *pool, apr_size_t cap);

/* acct_text_room's slow path: the buffer doubled until it has the room. */
char *acct_text_grow(acct_text *t, apr_size_t more);

/*
 * Room for `more` bytes and a NUL after the text: the place to write them,
 * which the caller then counts into t->len (and terminates).  Inline, as
 * acct_text_put: a 500-record page makes some 20,000 appends, and the call
 * alone cost a sixth of its writer's instructions.
 */
static inline char *acct_text_room(acct_text *t, apr_size_t more)
{
    return t->len + more + 1 <= t->cap ? t->data + t->len
                                       : acct_text_grow(t, more);
}

/* Appends `n` bytes of `s` (which may hold NULs). */
static inline void acct_text_put(acct_text *t, const char *s, apr_size_t n)
{
    memcpy(acct_text_room(t, n), s, n);
    t->len += n;
    t->data[t->len] = '\0';
}

/* Appends a C string. */
void acct_text_puts(acct_text *t, const char *s);

/* Appends a number in decimal. */
void acct_text_i64(acct_text *t, apr_int64_t v);

/*
 * Bytes of the strict UTF-8 sequence at `s` whose first byte is not ASCII
 * (no overlong forms, surrogates or code points past U+10FFFF), or 0 when
 * there is none there.  Stops at a NUL.
 */
apr_size_t acct_utf8_sequence(const unsigned char *s);

/* Whether the C string `s` is strict UTF-8 throughout. */
int acct_utf8_valid(const char *s);

/*
 * Whether valid UTF-8 text `s` holds a C0 or C1 control character or DEL:
 * no text field of the contract holds them, and a value with a line break
 * or an escape sequence would reach logs, terminals and zone files.
 */
int acct_has_control_character(const char *s);

/* Appends a string literal, its length known at compile time. */
#define ACCT_TEXT_LITERAL(t, s) acct_text_put((t), (s), sizeof(s) - 1)

#endif
