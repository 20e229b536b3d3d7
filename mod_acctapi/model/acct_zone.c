/*
 * Zone rendering.  Every owner name and target is written absolute, so no
 * line depends on $ORIGIN; the only text taken from callers (TXT and CAA
 * values, the SOA mailbox) is escaped so that a value can never end a
 * string, a label or the line early.  The output is plain ASCII: bytes
 * outside printable ASCII become \DDD escapes.
 */
#include "acct_zone.h"
#include "acct_addr.h"
#include "acct_record.h"
#include "acct_json.h"
#include "acct_text.h"

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

/* ---- a growing text buffer ----------------------------------------------- */

/*
 * Lines are built in one acct_text reused from line to line, so a zone of
 * 12,000 records costs a few allocations, not several per record.
 */

/* ---- rows ------------------------------------------------------------------ */

/* A cell; NULL for SQL NULL or a column the rows lack (col < 0). */
static const char *cell(const acct_rows *rows, int row, int col)
{
    return col >= 0 ? rows->values[row][col] : NULL;
}

static const char *cell_text(const acct_rows *rows, int row, int col)
{
    const char *text = cell(rows, row, col);

    return text ? text : "";
}

/* A number cell; NULL or anything unparsable counts as 0 (unused). */
static apr_int64_t cell_i64(const acct_rows *rows, int row, int col)
{
    const char *text = cell(rows, row, col);
    apr_int64_t v;

    return text && acct_parse_i64(text, &v) == 0 ? v : 0;
}

static apr_int64_t column_i64(const acct_rows *rows, int row, const char *col)
{
    return cell_i64(rows, row, acct_rows_col(rows, col));
}

static const char *column_text(const acct_rows *rows, int row, const char *col)
{
    return cell_text(rows, row, acct_rows_col(rows, col));
}

/* ---- master-file text ------------------------------------------------------ */

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

/* `len` bytes of `text` as one quoted, escaped master-file string. */
static void zb_quoted(acct_text *b, const char *text, apr_size_t len)
{
    char *p = acct_text_room(b, 4 * len + 2);

    *p++ = '"';
    p = escape_into(p, text, len, "\"\\");
    *p++ = '"';
    *p = '\0';
    b->len = (apr_size_t)(p - b->data);
}

/*
 * `len` bytes of a dotted name (or of one label, `keep_dots` 0) as
 * master-file text: any byte that is not a letter, digit, '-', '_', '*' or
 * '/' (or a separating dot) is escaped.  Stored names are validated, so
 * this only keeps a bad row from breaking the file.
 */
static void zb_name(acct_text *b, const char *name, apr_size_t len, int keep_dots)
{
    char *p = acct_text_room(b, 4 * len);
    apr_size_t i;

    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)name[i];

        p = put_escaped(p, c, !plain_name_char(c) && !(keep_dots && c == '.'));
    }
    *p = '\0';
    b->len = (apr_size_t)(p - b->data);
}

/*
 * `len` bytes of a name, absolute: "" is the root ".", a trailing dot is
 * not doubled.
 */
static void zb_absolute(acct_text *b, const char *name, apr_size_t len)
{
    if (len && name[len - 1] == '.') {
        len--;
    }
    if (len == 0) {
        acct_text_put(b, ".", 1);
        return;
    }
    zb_name(b, name, len, 1);
    acct_text_put(b, ".", 1);
}

static const char *absolute(apr_pool_t *pool, const char *name)
{
    acct_text b;
    size_t len = strlen(name);

    acct_text_init(&b, pool, 4 * len + 2);
    zb_absolute(&b, name, len);
    return b.data;
}

const char *acct_zone_quote(apr_pool_t *pool, const char *text, size_t len)
{
    acct_text b;

    acct_text_init(&b, pool, 4 * len + 3);
    zb_quoted(&b, text, len);
    return b.data;
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
static void zb_txt(acct_text *b, const char *value)
{
    size_t left = strlen(value), n;

    do {
        n = chunk_length(value, left);
        zb_quoted(b, value, n);
        value += n;
        left -= n;
        if (left > 0) {
            acct_text_put(b, " ", 1);
        }
    } while (left > 0);
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

/* ---- records --------------------------------------------------------------- */

/* Where the renderer's columns are in the record rows (-1: absent). */
typedef struct record_cols {
    int type, name, target, priority, weight, port, ttl, tag;
} record_cols;

static void find_record_cols(const acct_rows *records, record_cols *c)
{
    c->type = acct_rows_col(records, "type");
    c->name = acct_rows_col(records, "name");
    c->target = acct_rows_col(records, "target");
    c->priority = acct_rows_col(records, "priority");
    c->weight = acct_rows_col(records, "weight");
    c->port = acct_rows_col(records, "port");
    c->ttl = acct_rows_col(records, "ttl_sec");
    c->tag = acct_rows_col(records, "tag");
}

typedef enum {
    RT_NONE, RT_ADDRESS, RT_NAME, RT_MX, RT_SRV, RT_TXT, RT_CAA
} rdata_kind;

/* How the RDATA of a type is written; RT_NONE: the zone omits the row. */
static rdata_kind kind_of(const char *type)
{
    if (strcmp(type, ACCT_RECORD_TYPE_A) == 0
        || strcmp(type, ACCT_RECORD_TYPE_AAAA) == 0) {
        return RT_ADDRESS;
    }
    if (strcmp(type, ACCT_RECORD_TYPE_NS) == 0
        || strcmp(type, ACCT_RECORD_TYPE_CNAME) == 0
        || strcmp(type, ACCT_RECORD_TYPE_PTR) == 0) {
        return RT_NAME;
    }
    if (strcmp(type, ACCT_RECORD_TYPE_MX) == 0) {
        return RT_MX;
    }
    if (strcmp(type, ACCT_RECORD_TYPE_SRV) == 0) {
        return RT_SRV;
    }
    if (strcmp(type, ACCT_RECORD_TYPE_TXT) == 0) {
        return RT_TXT;
    }
    if (strcmp(type, ACCT_RECORD_TYPE_CAA) == 0) {
        return RT_CAA;
    }
    /* The schema's CHECK admits no other type. */
    return RT_NONE;
}

/* The RDATA of row `i` of `records`. */
static void zb_rdata(acct_text *b, const acct_rows *records, int i,
                     const record_cols *c, rdata_kind kind, const char *target)
{
    switch (kind) {
    case RT_ADDRESS:
        acct_text_puts(b, target);
        break;
    case RT_NAME:
        zb_absolute(b, target, strlen(target));
        break;
    case RT_MX:
        /* An empty target is the Null MX of RFC 7505: "0 .". */
        acct_text_i64(b, cell_i64(records, i, c->priority));
        acct_text_put(b, " ", 1);
        zb_absolute(b, target, strlen(target));
        break;
    case RT_SRV:
        acct_text_i64(b, cell_i64(records, i, c->priority));
        acct_text_put(b, " ", 1);
        acct_text_i64(b, cell_i64(records, i, c->weight));
        acct_text_put(b, " ", 1);
        acct_text_i64(b, cell_i64(records, i, c->port));
        acct_text_put(b, " ", 1);
        zb_absolute(b, target, strlen(target));
        break;
    case RT_TXT:
        zb_txt(b, target);
        break;
    case RT_CAA: {
        const char *tag = cell_text(records, i, c->tag);

        acct_text_put(b, "0 ", 2);
        zb_name(b, tag, strlen(tag), 0);
        acct_text_put(b, " ", 1);
        zb_quoted(b, target, strlen(target));
        break;
    }
    case RT_NONE:
        break;
    }
}

/*
 * The owner of a record: its name relative to the domain, "" being the
 * apex; the absolute form of "<name>.<domain>".  Escaping goes byte by
 * byte, so that is the escaped name, a dot and the domain's absolute form
 * (`apex`, escaped once per zone), unless the domain is "" (then the dot
 * after the name is the trailing one).  `scratch` holds the joined name in
 * that case.
 */
static void zb_owner(acct_text *b, acct_text *scratch, const char *name,
                     const char *domain, const char *apex)
{
    if (!*name) {
        acct_text_puts(b, apex);
    }
    else if (*domain) {
        zb_name(b, name, strlen(name), 1);
        acct_text_put(b, ".", 1);
        acct_text_puts(b, apex);
    }
    else {
        scratch->len = 0;
        acct_text_puts(scratch, name);
        acct_text_put(scratch, ".", 1);
        zb_absolute(b, scratch->data, scratch->len);
    }
}

/*
 * Record line of row `i` into `b` (emptied first): owner, the TTL unless 0
 * ($TTL applies), class, type, RDATA.  0 when the zone omits the row.
 */
static int record_line(acct_text *b, acct_text *scratch, const acct_rows *records,
                       int i, const record_cols *c, const char *domain,
                       const char *apex)
{
    const char *type = cell_text(records, i, c->type);
    const char *target = cell_text(records, i, c->target);
    const char *name = cell_text(records, i, c->name);
    rdata_kind kind = kind_of(type);
    apr_int64_t ttl;

    b->len = 0;
    if (kind == RT_NONE) {
        return 0;
    }
    if (kind == RT_ADDRESS) {
        /*
         * Stored validated in canonical form; checked again because the text
         * goes into the file unescaped, and a published file is read by a
         * nameserver: a bad row is left out rather than injected.
         */
        if (acct_ip_family(target) != (type[1] ? AF_INET6 : AF_INET)) {
            return 0;
        }
    }
    zb_owner(b, scratch, name, domain, apex);
    ttl = cell_i64(records, i, c->ttl);
    if (ttl > 0) {
        acct_text_put(b, " ", 1);
        acct_text_i64(b, ttl);
    }
    acct_text_put(b, " IN ", 4);
    acct_text_puts(b, type);
    acct_text_put(b, " ", 1);
    zb_rdata(b, records, i, c, kind, target);
    return 1;
}

/* ---- the zone -------------------------------------------------------------- */

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

void acct_zone_each_line(apr_pool_t *pool, const acct_rows *domain, int row,
                         const acct_rows *records,
                         const char *const *nameservers,
                         acct_zone_line_fn *emit, void *baton)
{
    const char *name = column_text(domain, row, "domain");
    const char *apex = absolute(pool, name);
    int nrecords = records ? records->nrows : 0, i, nns = 0;
    apr_int64_t ttl = timer(domain, row, "ttl_sec", ACCT_ZONE_DEFAULT_TTL);
    const char *mname, *line;
    record_cols cols;
    acct_text b, scratch;

    while (nameservers && nameservers[nns]) {
        nns++;
    }
    /* Without configured nameservers the apex names itself as primary. */
    mname = nns ? absolute(pool, nameservers[0]) : apex;
    line = apr_psprintf(pool, "; Zone file of %s (domain %s)", apex,
                        column_text(domain, row, "id"));
    emit(baton, line, strlen(line));
    line = apr_psprintf(pool, "$TTL %" APR_INT64_T_FMT, ttl);
    emit(baton, line, strlen(line));
    line = apr_psprintf(
        pool,
        "%s IN SOA %s %s %" APR_INT64_T_FMT " %" APR_INT64_T_FMT
        " %" APR_INT64_T_FMT " %" APR_INT64_T_FMT " %" APR_INT64_T_FMT,
        apex, mname,
        acct_zone_rname(pool, acct_rows_get(domain, row, "soa_email"), name),
        zone_serial(column_i64(domain, row, "serial")),
        timer(domain, row, "refresh_sec", ACCT_ZONE_DEFAULT_REFRESH),
        timer(domain, row, "retry_sec", ACCT_ZONE_DEFAULT_RETRY),
        timer(domain, row, "expire_sec", ACCT_ZONE_DEFAULT_EXPIRE), ttl);
    emit(baton, line, strlen(line));
    for (i = 0; i < nns; i++) {
        line = apr_pstrcat(pool, apex, " IN NS ",
                           absolute(pool, nameservers[i]), NULL);
        emit(baton, line, strlen(line));
    }
    if (nrecords == 0) {
        return;
    }
    find_record_cols(records, &cols);
    acct_text_init(&b, pool, 1024);
    acct_text_init(&scratch, pool, 256);
    for (i = 0; i < nrecords; i++) {
        if (record_line(&b, &scratch, records, i, &cols, name, apex)) {
            emit(baton, b.data, b.len);
        }
    }
}

/* acct_zone_render's line sink: each line copied into the array's pool. */
static void push_line(void *baton, const char *line, apr_size_t len)
{
    apr_array_header_t *lines = baton;

    APR_ARRAY_PUSH(lines, const char *) = apr_pstrmemdup(lines->pool, line,
                                                         len);
}

apr_array_header_t *acct_zone_render(apr_pool_t *pool, const acct_rows *domain,
                                     int row, const acct_rows *records,
                                     const char *const *nameservers)
{
    int nns = 0;
    apr_array_header_t *lines;

    while (nameservers && nameservers[nns]) {
        nns++;
    }
    lines = apr_array_make(pool, 3 + nns + (records ? records->nrows : 0),
                           sizeof(const char *));
    acct_zone_each_line(pool, domain, row, records, nameservers, push_line,
                        lines);
    return lines;
}

/* ---- the zone as JSON ------------------------------------------------------ */

/* acct_zone_json's line sink: the line as the next array element. */
static void json_line(void *baton, const char *line, apr_size_t len)
{
    acct_text *b = baton;
    char *p = acct_text_room(b, 6 * len + 3);

    /* The array's opening bracket is last only before the first line. */
    if (b->data[b->len - 1] != '[') {
        *p++ = ',';
    }
    p = acct_json_quote(p, line, len);
    *p = '\0';
    b->len = (apr_size_t)(p - b->data);
}

#define ZONE_JSON_OPEN "{\"zone_file\":["
#define ZONE_JSON_CLOSE "]}"

const char *acct_zone_json(apr_pool_t *pool, const acct_rows *domain, int row,
                           const acct_rows *records,
                           const char *const *nameservers, apr_size_t *len)
{
    acct_text b;

    /* About 40 bytes a record line; growing doubles when it is more. */
    acct_text_init(&b, pool, 1024 + 48 * (apr_size_t)(records ? records->nrows : 0));
    acct_text_put(&b, ZONE_JSON_OPEN, sizeof(ZONE_JSON_OPEN) - 1);
    acct_zone_each_line(pool, domain, row, records, nameservers, json_line,
                        &b);
    acct_text_put(&b, ZONE_JSON_CLOSE, sizeof(ZONE_JSON_CLOSE) - 1);
    *len = b.len;
    return b.data;
}
