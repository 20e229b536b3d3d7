/*
 * Zone rendering.  Every owner name and target is written absolute, so no
 * line depends on $ORIGIN; the only text taken from callers (TXT and CAA
 * values, the SOA mailbox) is escaped so that a value can never end a
 * string, a label or the line early.  The output is plain ASCII: bytes
 * outside printable ASCII become \DDD escapes.
 */
#include "acct_zone.h"

#include <apr_strings.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <string.h>

static const acct_sql q_zone_records = ACCT_SQL("zone_records",
    "SELECT " ACCT_ZONE_RECORD_COLUMNS " FROM domain_records r"
    " WHERE r.domain_id = CAST(%s AS BIGINT) ORDER BY r.id");

acct_store_rc acct_zone_records(acct_store *st, apr_pool_t *pool,
                                apr_int64_t domain_id, acct_rows **records)
{
    const char *args[1];

    args[0] = acct_i64(pool, domain_id);
    return acct_store_select(st, pool, &q_zone_records, records, 1, args);
}

/* A number column; NULL or anything unparsable counts as 0 (unused). */
static apr_int64_t column_i64(const acct_rows *rows, int row, const char *col)
{
    const char *text = acct_rows_get(rows, row, col);
    apr_int64_t v;

    return text && acct_parse_i64(text, &v) == 0 ? v : 0;
}

static const char *column_text(const acct_rows *rows, int row, const char *col)
{
    const char *text = acct_rows_get(rows, row, col);

    return text ? text : "";
}

static int plain_name_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
           || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '*'
           || c == '/';
}

/*
 * Writes byte `c` at `p` as master-file text: \DDD outside printable ASCII,
 * else the byte, after a backslash when `quote`.  Returns the new end; at
 * most 4 bytes are written.
 */
static char *put_escaped(char *p, unsigned char c, int quote)
{
    if (c < 0x20 || c >= 0x7f) {
        *p++ = '\\';
        *p++ = (char)('0' + c / 100);
        *p++ = (char)('0' + c / 10 % 10);
        *p++ = (char)('0' + c % 10);
        return p;
    }
    if (quote) {
        *p++ = '\\';
    }
    *p++ = (char)c;
    return p;
}

/*
 * Appends `len` bytes of `text` to `out`, escaped, with a backslash before
 * the characters that `special` names; NUL-terminates and returns the end.
 * `out` needs 4 bytes per input byte, plus one.
 */
static char *escape_into(char *out, const char *text, size_t len,
                         const char *special)
{
    size_t i;

    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];

        out = put_escaped(out, c, c && strchr(special, c) != NULL);
    }
    *out = '\0';
    return out;
}

/*
 * A dotted name (or one label, `keep_dots` 0) as master-file text: any byte
 * that is not a letter, digit, '-', '_', '*' or '/' (or a separating dot) is
 * escaped.  Stored names are validated, so this only keeps a bad row from
 * breaking the file.
 */
static const char *name_text(apr_pool_t *pool, const char *name, int keep_dots)
{
    size_t len = strlen(name), i;
    char *out = apr_palloc(pool, 4 * len + 1), *p = out;

    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];

        p = put_escaped(p, c, !plain_name_char(c) && !(keep_dots && c == '.'));
    }
    *p = '\0';
    return out;
}

/* An absolute name: "" is the root ".", a trailing dot is not doubled. */
static const char *absolute(apr_pool_t *pool, const char *name)
{
    size_t len = strlen(name);

    if (len && name[len - 1] == '.') {
        len--;
    }
    if (len == 0) {
        return ".";
    }
    return apr_pstrcat(pool,
                       name_text(pool, apr_pstrndup(pool, name, len), 1), ".",
                       NULL);
}

/* A record's owner: its name relative to the domain, "" being the apex. */
static const char *owner(apr_pool_t *pool, const char *name, const char *domain)
{
    return absolute(pool, *name ? apr_pstrcat(pool, name, ".", domain, NULL)
                                : domain);
}

const char *acct_zone_quote(apr_pool_t *pool, const char *text, size_t len)
{
    char *out = apr_palloc(pool, 4 * len + 3), *end;

    out[0] = '"';
    end = escape_into(out + 1, text, len, "\"\\");
    end[0] = '"';
    end[1] = '\0';
    return out;
}

/*
 * The end of the next TXT chunk: at most ACCT_ZONE_TXT_CHUNK bytes, moved
 * back to the start of a UTF-8 sequence so that no chunk splits a
 * character (resolvers concatenate the strings, but people read them).
 */
static size_t chunk_length(const char *text, size_t left)
{
    size_t n = left < ACCT_ZONE_TXT_CHUNK ? left : ACCT_ZONE_TXT_CHUNK, cut = n;

    if (n == left) {
        return n;
    }
    while (cut > 0 && ((unsigned char)text[cut] & 0xC0) == 0x80) {
        cut--;
    }
    return cut > 0 ? cut : n;
}

/* A TXT value as quoted character-strings of at most 255 bytes each. */
static const char *txt_rdata(apr_pool_t *pool, const char *value)
{
    size_t left = strlen(value), n;
    apr_array_header_t *chunks =
        apr_array_make(pool, 1 + (int)(left / ACCT_ZONE_TXT_CHUNK),
                       sizeof(const char *));

    do {
        n = chunk_length(value, left);
        APR_ARRAY_PUSH(chunks, const char *) = acct_zone_quote(pool, value, n);
        value += n;
        left -= n;
    } while (left > 0);
    return apr_array_pstrcat(pool, chunks, ' ');
}

const char *acct_zone_rname(apr_pool_t *pool, const char *email,
                            const char *domain)
{
    const char *at = email ? strrchr(email, '@') : NULL;
    char *local;

    if (!at || at == email || !at[1]) {
        return absolute(pool, apr_pstrcat(pool, "hostmaster.", domain, NULL));
    }
    /* The first label is the mailbox: its dots (and any other special
     * character) are escaped, the host part is an ordinary name. */
    local = apr_palloc(pool, 4 * (size_t)(at - email) + 1);
    escape_into(local, email, (size_t)(at - email), ".\\\"();@$ ");
    return apr_pstrcat(pool, local, ".", absolute(pool, at + 1), NULL);
}

/* The RDATA of row `i` of `records`, or NULL for a type the zone omits. */
static const char *record_rdata(apr_pool_t *pool, const acct_rows *records,
                                int i)
{
    const char *type = column_text(records, i, "type");
    const char *target = column_text(records, i, "target");

    if (strcmp(type, "A") == 0 || strcmp(type, "AAAA") == 0) {
        /*
         * Stored validated in canonical form; checked again because the text
         * goes into the file unescaped, and a published file is read by a
         * nameserver: a bad row is left out rather than injected.
         */
        unsigned char addr[16];

        return inet_pton(type[1] ? AF_INET6 : AF_INET, target, addr) == 1
               ? target : NULL;
    }
    if (strcmp(type, "NS") == 0 || strcmp(type, "CNAME") == 0
        || strcmp(type, "PTR") == 0) {
        return absolute(pool, target);
    }
    if (strcmp(type, "MX") == 0) {
        /* An empty target is the Null MX of RFC 7505: "0 .". */
        return apr_psprintf(pool, "%" APR_INT64_T_FMT " %s",
                            column_i64(records, i, "priority"),
                            absolute(pool, target));
    }
    if (strcmp(type, "SRV") == 0) {
        return apr_psprintf(pool,
                            "%" APR_INT64_T_FMT " %" APR_INT64_T_FMT
                            " %" APR_INT64_T_FMT " %s",
                            column_i64(records, i, "priority"),
                            column_i64(records, i, "weight"),
                            column_i64(records, i, "port"),
                            absolute(pool, target));
    }
    if (strcmp(type, "TXT") == 0) {
        return txt_rdata(pool, target);
    }
    if (strcmp(type, "CAA") == 0) {
        return apr_pstrcat(pool, "0 ",
                           name_text(pool, column_text(records, i, "tag"), 0),
                           " ", acct_zone_quote(pool, target, strlen(target)),
                           NULL);
    }
    /* The schema's CHECK admits no other type. */
    return NULL;
}

/* One record line: owner, the TTL unless 0 ($TTL applies), class, type. */
static const char *record_line(apr_pool_t *pool, const acct_rows *records,
                               int i, const char *domain)
{
    const char *rdata = record_rdata(pool, records, i);
    apr_int64_t ttl = column_i64(records, i, "ttl_sec");

    if (!rdata) {
        return NULL;
    }
    return apr_pstrcat(pool,
                       owner(pool, column_text(records, i, "name"), domain),
                       ttl > 0 ? apr_psprintf(pool, " %" APR_INT64_T_FMT, ttl)
                               : "",
                       " IN ", column_text(records, i, "type"), " ", rdata,
                       NULL);
}

/*
 * The SOA serial is a 32-bit sequence number (RFC 1982): a stored serial
 * past 2^32 - 1 (a clock far in the future) wraps instead of making the
 * zone unloadable; secondaries still see each step as an increase.
 */
static apr_int64_t zone_serial(apr_int64_t serial)
{
    return serial & APR_INT64_C(0xFFFFFFFF);
}

/* A domain timer; 0 stands for the contract's default. */
static apr_int64_t timer(const acct_rows *domain, int row, const char *col,
                         apr_int64_t fallback)
{
    apr_int64_t v = column_i64(domain, row, col);

    return v > 0 ? v : fallback;
}

apr_array_header_t *acct_zone_render(apr_pool_t *pool, const acct_rows *domain,
                                     int row, const acct_rows *records,
                                     const char *const *nameservers)
{
    const char *name = column_text(domain, row, "domain");
    const char *apex = absolute(pool, name);
    int nrecords = records ? records->nrows : 0, i, nns = 0;
    apr_array_header_t *lines;
    apr_int64_t ttl = timer(domain, row, "ttl_sec", ACCT_ZONE_DEFAULT_TTL);
    const char *mname, *line;

    while (nameservers && nameservers[nns]) {
        nns++;
    }
    /* Without configured nameservers the apex names itself as primary. */
    mname = nns ? absolute(pool, nameservers[0]) : apex;
    lines = apr_array_make(pool, 3 + nns + nrecords, sizeof(const char *));
    APR_ARRAY_PUSH(lines, const char *) =
        apr_psprintf(pool, "; Zone file of %s (domain %s)", apex,
                     column_text(domain, row, "id"));
    APR_ARRAY_PUSH(lines, const char *) =
        apr_psprintf(pool, "$TTL %" APR_INT64_T_FMT, ttl);
    APR_ARRAY_PUSH(lines, const char *) = apr_psprintf(
        pool,
        "%s IN SOA %s %s %" APR_INT64_T_FMT " %" APR_INT64_T_FMT
        " %" APR_INT64_T_FMT " %" APR_INT64_T_FMT " %" APR_INT64_T_FMT,
        apex, mname,
        acct_zone_rname(pool, acct_rows_get(domain, row, "soa_email"), name),
        zone_serial(column_i64(domain, row, "serial")),
        timer(domain, row, "refresh_sec", ACCT_ZONE_DEFAULT_REFRESH),
        timer(domain, row, "retry_sec", ACCT_ZONE_DEFAULT_RETRY),
        timer(domain, row, "expire_sec", ACCT_ZONE_DEFAULT_EXPIRE), ttl);
    for (i = 0; i < nns; i++) {
        APR_ARRAY_PUSH(lines, const char *) = apr_pstrcat(
            pool, apex, " IN NS ", absolute(pool, nameservers[i]), NULL);
    }
    for (i = 0; i < nrecords; i++) {
        line = record_line(pool, records, i, name);
        if (line) {
            APR_ARRAY_PUSH(lines, const char *) = line;
        }
    }
    return lines;
}
