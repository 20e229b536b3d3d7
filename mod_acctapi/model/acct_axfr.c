#include "acct_axfr.h"
#include "acct_addr.h"
#include "acct_body.h"
#include "acct_dns.h"

#include <apr_strings.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The largest DNS message a TCP frame can carry (RFC 1035 4.2.2). */
#define MESSAGE_MAX 65535

/* ------------------------------------------------------------------------
 * remote_nameserver
 * ------------------------------------------------------------------------ */

#define R_SERVER "remote_nameserver must be an IPv4 or IPv6 address or a " \
    "host name, optionally followed by a port: 192.0.2.1, 192.0.2.1:5353, " \
    "2001:db8::1, [2001:db8::1]:5353, ns1.example.net or " \
    "ns1.example.net:5353"
#define R_PORT "The port of remote_nameserver must be a number from 1 to " \
    "65535"

static int is_ipv4(const char *s)
{
    return acct_ip_family(s) == AF_INET;
}

static int is_ipv6(const char *s)
{
    return acct_ip_family(s) == AF_INET6;
}

/* A port: 1..65535 in decimal digits, nothing else. */
static int parse_port(const char *s, apr_port_t *out)
{
    apr_int64_t v = 0;
    const char *p;

    for (p = s; *p; p++) {
        if (!isdigit((unsigned char)*p)) {
            return -1;
        }
    }
    if (p == s || p - s > 5 || acct_parse_i64(s, &v) != 0 || v < 1
        || v > 65535) {
        return -1;
    }
    *out = (apr_port_t)v;
    return 0;
}

/*
 * A host name for the resolver: host-name labels (one is enough:
 * "localhost"), one trailing dot allowed, and not something that only
 * looks like one (a malformed IPv4 address such as 192.0.2.300).
 */
static const char *host_name(apr_pool_t *pool, const char *s)
{
    size_t n = strlen(s);
    const char *last, *name;

    if (n > 0 && s[n - 1] == '.') {
        n--;
    }
    name = apr_pstrmemdup(pool, s, n);
    if (!acct_valid_dns_name(name, ACCT_DNS_RELATIVE)) {
        return NULL;
    }
    last = strrchr(name, '.');
    last = last ? last + 1 : name;
    return strspn(last, "0123456789") == strlen(last) ? NULL : name;
}

const char *acct_axfr_parse_server(apr_pool_t *pool, const char *text,
                                   acct_axfr_server *out)
{
    const char *colon = strchr(text, ':'), *port = NULL, *host;
    const char *close;

    out->port = ACCT_AXFR_DEFAULT_PORT;
    if (text[0] == '[') {
        close = strchr(text, ']');
        if (!close) {
            return R_SERVER;
        }
        host = apr_pstrmemdup(pool, text + 1, (size_t)(close - text - 1));
        if (!is_ipv6(host) || (close[1] && close[1] != ':')) {
            return R_SERVER;
        }
        port = close[1] ? close + 2 : NULL;
    }
    else if (colon && strchr(colon + 1, ':')) {
        /* Two colons or more: a bare IPv6 address, which has no port. */
        if (!is_ipv6(text)) {
            return R_SERVER;
        }
        host = text;
    }
    else {
        host = colon ? apr_pstrmemdup(pool, text, (size_t)(colon - text))
                     : text;
        port = colon ? colon + 1 : NULL;
        if (!is_ipv4(host) && !(host = host_name(pool, host))) {
            return R_SERVER;
        }
    }
    if (port && parse_port(port, &out->port) != 0) {
        return R_PORT;
    }
    out->host = host;
    return NULL;
}

const char *acct_axfr_server_text(apr_pool_t *pool,
                                  const acct_axfr_server *server)
{
    return apr_psprintf(pool, strchr(server->host, ':') ? "[%s]:%u" : "%s:%u",
                        server->host, (unsigned)server->port);
}

/* ------------------------------------------------------------------------
 * One TCP connection to the server, within the transfer's deadline
 * ------------------------------------------------------------------------ */

typedef struct xfr_conn {
    apr_pool_t *pool;        /* the caller's: results and details */
    apr_pool_t *own;         /* the socket's, destroyed with the connection */
    apr_socket_t *sock;
    apr_time_t deadline;
    unsigned char *buf;      /* one message */
    const char *detail;
} xfr_conn;

static acct_axfr_rc conn_fail(xfr_conn *c, acct_axfr_rc rc, const char *detail)
{
    c->detail = detail;
    return rc;
}

static const char *status_text(apr_pool_t *pool, apr_status_t st)
{
    char buf[256];

    return apr_pstrdup(pool, apr_strerror(st, buf, sizeof(buf)));
}

/* Sets the socket's timeout to what is left; ACCT_AXFR_TIMEOUT when none. */
static acct_axfr_rc conn_arm(xfr_conn *c)
{
    apr_interval_time_t left = c->deadline - apr_time_now();

    if (left <= 0) {
        return ACCT_AXFR_TIMEOUT;
    }
    apr_socket_timeout_set(c->sock, left);
    return ACCT_AXFR_OK;
}

static void conn_close(xfr_conn *c)
{
    if (c->own) {
        apr_pool_destroy(c->own);   /* closes the socket */
        c->own = NULL;
        c->sock = NULL;
    }
}

static acct_axfr_rc conn_open(xfr_conn *c, apr_pool_t *pool,
                              apr_time_t deadline, apr_sockaddr_t *to,
                              const char *source)
{
    apr_sockaddr_t *from = NULL;
    apr_status_t st;
    acct_axfr_rc rc;

    memset(c, 0, sizeof(*c));
    c->pool = pool;
    c->deadline = deadline;
    if (apr_pool_create(&c->own, pool) != APR_SUCCESS) {
        c->own = NULL;
        return conn_fail(c, ACCT_AXFR_LOCAL, "out of memory");
    }
    c->buf = apr_palloc(c->own, MESSAGE_MAX);
    st = apr_socket_create(&c->sock, to->family, SOCK_STREAM, APR_PROTO_TCP,
                           c->own);
    if (st != APR_SUCCESS) {
        return conn_fail(c, ACCT_AXFR_LOCAL,
                         apr_psprintf(pool, "cannot create a socket: %s",
                                      status_text(pool, st)));
    }
    if (source) {
        st = apr_sockaddr_info_get(&from, source, to->family, 0, 0, c->own);
        if (st == APR_SUCCESS) {
            st = apr_socket_bind(c->sock, from);
        }
        if (st != APR_SUCCESS) {
            return conn_fail(c, ACCT_AXFR_LOCAL,
                             apr_psprintf(pool, "cannot bind the transfer "
                                          "source address %s: %s", source,
                                          status_text(pool, st)));
        }
    }
    if ((rc = conn_arm(c)) != ACCT_AXFR_OK) {
        return rc;
    }
    st = apr_socket_connect(c->sock, to);
    if (APR_STATUS_IS_TIMEUP(st)) {
        return ACCT_AXFR_TIMEOUT;
    }
    if (st != APR_SUCCESS) {
        return conn_fail(c, ACCT_AXFR_UNREACHABLE, status_text(pool, st));
    }
    return ACCT_AXFR_OK;
}

/* A receive or send status that is not success, as the transfer's end. */
static acct_axfr_rc conn_io_fail(xfr_conn *c, apr_status_t st)
{
    if (APR_STATUS_IS_TIMEUP(st) || APR_STATUS_IS_EAGAIN(st)) {
        return ACCT_AXFR_TIMEOUT;
    }
    if (APR_STATUS_IS_EOF(st)) {
        return conn_fail(c, ACCT_AXFR_BROKEN, "the server closed the "
                         "connection before the transfer was complete");
    }
    return conn_fail(c, ACCT_AXFR_BROKEN,
                     apr_psprintf(c->pool, "the connection failed: %s",
                                  status_text(c->pool, st)));
}

/*
 * All of `len` bytes sent (`sending`) or received, each step within the
 * transfer's deadline: apr_socket_send and apr_socket_recv share one shape,
 * so one loop serves both directions.
 */
static acct_axfr_rc conn_io(xfr_conn *c, unsigned char *data, apr_size_t len,
                            int sending)
{
    apr_size_t done = 0, n;
    apr_status_t st;
    acct_axfr_rc rc;

    while (done < len) {
        if ((rc = conn_arm(c)) != ACCT_AXFR_OK) {
            return rc;
        }
        n = len - done;
        st = sending ? apr_socket_send(c->sock, (const char *)data + done, &n)
                     : apr_socket_recv(c->sock, (char *)data + done, &n);
        done += n;
        if (st != APR_SUCCESS && done < len) {
            return conn_io_fail(c, st);
        }
    }
    return ACCT_AXFR_OK;
}

/*
 * Sends a query for `zone` of `type`, framed; *id is its message id.  The
 * name goes in lower case: servers compress the names of the answer
 * against the question's (RFC 1035 4.1.4), so the caller's case would
 * otherwise leak into every name of the zone.
 */
static acct_axfr_rc conn_query(xfr_conn *c, const char *zone,
                               ldns_rr_type type, uint16_t *id)
{
    ldns_rdf *name = ldns_dname_new_frm_str(acct_domain_key(c->pool, zone));
    ldns_pkt *query = name ? ldns_pkt_query_new(name, type, LDNS_RR_CLASS_IN,
                                                0)
                           : NULL;
    uint8_t *wire = NULL;
    size_t size = 0;
    unsigned char *frame;
    ldns_status st;

    if (!query) {
        ldns_rdf_deep_free(name);
        return conn_fail(c, ACCT_AXFR_LOCAL, "cannot build the query");
    }
    ldns_pkt_set_random_id(query);
    *id = ldns_pkt_id(query);
    st = ldns_pkt2wire(&wire, query, &size);
    ldns_pkt_free(query);
    if (st != LDNS_STATUS_OK || size > MESSAGE_MAX) {
        free(wire);
        return conn_fail(c, ACCT_AXFR_LOCAL, "cannot build the query");
    }
    frame = apr_palloc(c->own, size + 2);
    frame[0] = (unsigned char)(size >> 8);
    frame[1] = (unsigned char)(size & 0xff);
    memcpy(frame + 2, wire, size);
    free(wire);
    return conn_io(c, frame, size + 2, 1);
}

/* The next message of the stream, decoded by ldns (the caller frees it). */
static acct_axfr_rc conn_message(xfr_conn *c, ldns_pkt **pkt)
{
    unsigned char head[2];
    apr_size_t len;
    ldns_status st;
    acct_axfr_rc rc;

    *pkt = NULL;
    if ((rc = conn_io(c, head, 2, 0)) != ACCT_AXFR_OK) {
        return rc;
    }
    len = (apr_size_t)head[0] << 8 | head[1];
    if ((rc = conn_io(c, c->buf, len, 0)) != ACCT_AXFR_OK) {
        return rc;
    }
    st = ldns_wire2pkt(pkt, c->buf, len);
    if (st != LDNS_STATUS_OK) {
        *pkt = NULL;
        return conn_fail(c, ACCT_AXFR_BROKEN,
                         apr_psprintf(c->pool, "a message that is not valid "
                                      "DNS (%s)", ldns_get_errorstr_by_id(st)));
    }
    return ACCT_AXFR_OK;
}

/* ------------------------------------------------------------------------
 * The transfer
 * ------------------------------------------------------------------------ */

static const char *rcode_name(ldns_pkt_rcode rcode)
{
    ldns_lookup_table *t = ldns_lookup_by_id(ldns_rcodes, (int)rcode);

    return t ? t->name : "an unknown error code";
}

acct_axfr_rc acct_axfr_judge(const ldns_pkt *pkt, uint16_t id, int first,
                             const char **detail)
{
    ldns_pkt_rcode rcode = ldns_pkt_get_rcode(pkt);

    if (ldns_pkt_id(pkt) != id || !ldns_pkt_qr(pkt)) {
        *detail = "a message that does not answer the query";
        return ACCT_AXFR_BROKEN;
    }
    switch (rcode) {
    case LDNS_RCODE_NOERROR:
        break;
    case LDNS_RCODE_REFUSED:
        return ACCT_AXFR_REFUSED;
    case LDNS_RCODE_NXDOMAIN:
        return ACCT_AXFR_NXDOMAIN;
    case LDNS_RCODE_NOTAUTH:
        return ACCT_AXFR_NOT_AUTH;
    default:
        *detail = rcode_name(rcode);
        return ACCT_AXFR_FAILED;
    }
    /* RFC 5936 2.2.1: a transfer's answers carry AA; an answer without
     * it, or without records, comes from a server without the zone. */
    if (first && (!ldns_pkt_aa(pkt) || ldns_pkt_ancount(pkt) == 0)) {
        return ACCT_AXFR_NOT_AUTH;
    }
    return ACCT_AXFR_OK;
}

static apr_status_t free_rr(void *rr)
{
    ldns_rr_free(rr);
    return APR_SUCCESS;
}

static apr_status_t free_rr_list(void *list)
{
    ldns_rr_list_deep_free(list);
    return APR_SUCCESS;
}

static apr_status_t free_rdf(void *rdf)
{
    ldns_rdf_deep_free(rdf);
    return APR_SUCCESS;
}

static int push_clone(ldns_rr_list *list, const ldns_rr *rr)
{
    ldns_rr *copy = ldns_rr_clone(rr);

    if (!copy || !ldns_rr_list_push_rr(list, copy)) {
        ldns_rr_free(copy);
        return -1;
    }
    return 0;
}

/*
 * Takes the answer records of one message into `out`: the opening SOA,
 * then the zone's records until the closing SOA (*done).
 */
static acct_axfr_rc take_records(xfr_conn *c, const ldns_pkt *pkt,
                                 const ldns_rdf *apex, int max,
                                 acct_axfr_result *out, int *done)
{
    ldns_rr_list *answer = ldns_pkt_answer(pkt);
    size_t i, n = ldns_rr_list_rr_count(answer);

    for (i = 0; i < n; i++) {
        const ldns_rr *rr = ldns_rr_list_rr(answer, i);
        int soa = ldns_rr_get_type(rr) == LDNS_RR_TYPE_SOA;

        if (!out->soa) {
            if (!soa || ldns_dname_compare(ldns_rr_owner(rr), apex) != 0) {
                return conn_fail(c, ACCT_AXFR_BROKEN, "the transfer does not "
                                 "start with the zone's SOA record");
            }
            if (!(out->soa = ldns_rr_clone(rr))) {
                return conn_fail(c, ACCT_AXFR_LOCAL, "out of memory");
            }
            apr_pool_cleanup_register(c->pool, out->soa, free_rr,
                                      apr_pool_cleanup_null);
            continue;
        }
        if (soa) {
            *done = 1;
            return ACCT_AXFR_OK;
        }
        if (max > 0 && ldns_rr_list_rr_count(out->rrs) >= (size_t)max) {
            return ACCT_AXFR_TOO_MANY;
        }
        if (push_clone(out->rrs, rr) != 0) {
            return conn_fail(c, ACCT_AXFR_LOCAL, "out of memory");
        }
    }
    return ACCT_AXFR_OK;
}

/* Reads the answer to AXFR query `id` until the closing SOA. */
static acct_axfr_rc receive_zone(xfr_conn *c, uint16_t id,
                                 const ldns_rdf *apex, int max,
                                 acct_axfr_result *out)
{
    int first = 1, done = 0;
    acct_axfr_rc rc;
    ldns_pkt *pkt;

    while (!done) {
        if ((rc = conn_message(c, &pkt)) != ACCT_AXFR_OK) {
            return rc;
        }
        rc = acct_axfr_judge(pkt, id, first, &c->detail);
        if (rc == ACCT_AXFR_OK) {
            rc = take_records(c, pkt, apex, max, out, &done);
        }
        ldns_pkt_free(pkt);
        if (rc != ACCT_AXFR_OK) {
            return rc;
        }
        first = 0;
    }
    return ACCT_AXFR_OK;
}

/*
 * A server that will not transfer a zone it does not have: does the name
 * exist there at all?  One SOA query, in the time left; 1 when the answer
 * is NXDOMAIN.
 */
static int name_missing(apr_pool_t *pool, apr_time_t deadline,
                        apr_sockaddr_t *to, const char *source,
                        const char *zone)
{
    const char *detail = NULL;
    ldns_pkt *pkt = NULL;
    uint16_t id = 0;
    xfr_conn c;
    int missing = 0;

    if (conn_open(&c, pool, deadline, to, source) == ACCT_AXFR_OK
        && conn_query(&c, zone, LDNS_RR_TYPE_SOA, &id) == ACCT_AXFR_OK
        && conn_message(&c, &pkt) == ACCT_AXFR_OK) {
        missing = acct_axfr_judge(pkt, id, 1, &detail) == ACCT_AXFR_NXDOMAIN;
    }
    ldns_pkt_free(pkt);
    conn_close(&c);
    return missing;
}

static const char *peer_text(apr_pool_t *pool, apr_sockaddr_t *sa)
{
    char *ip = NULL;

    apr_sockaddr_ip_get(&ip, sa);
    return apr_psprintf(pool, sa->family == APR_INET6 ? "[%s]:%u" : "%s:%u",
                        ip ? ip : "?", (unsigned)sa->port);
}

/* The first configured source address of `family`, or NULL. */
static const char *pick_source(const char *const *sources, int family)
{
    for (; *sources; sources++) {
        if (family == APR_INET ? is_ipv4(*sources) : is_ipv6(*sources)) {
            return *sources;
        }
    }
    return NULL;
}

static acct_axfr_rc transfer_from(apr_pool_t *pool, apr_sockaddr_t *to,
                                  const char *source, const char *zone,
                                  const ldns_rdf *apex, apr_time_t deadline,
                                  const acct_axfr_options *opts,
                                  acct_axfr_result *out)
{
    uint16_t id = 0;
    xfr_conn c;
    acct_axfr_rc rc;

    out->peer = peer_text(pool, to);
    rc = conn_open(&c, pool, deadline, to, source);
    if (rc == ACCT_AXFR_OK) {
        rc = conn_query(&c, zone, LDNS_RR_TYPE_AXFR, &id);
    }
    if (rc == ACCT_AXFR_OK) {
        rc = receive_zone(&c, id, apex, opts->max_records, out);
    }
    conn_close(&c);
    out->detail = c.detail;
    if (rc == ACCT_AXFR_NOT_AUTH
        && name_missing(pool, deadline, to, source, zone)) {
        rc = ACCT_AXFR_NXDOMAIN;
    }
    return rc;
}

static acct_axfr_rc finish(acct_axfr_result *out, acct_axfr_rc rc,
                           const char *detail)
{
    out->rc = rc;
    if (detail) {
        out->detail = detail;
    }
    return rc;
}

acct_axfr_rc acct_axfr_transfer(apr_pool_t *pool, const char *zone,
                                const acct_axfr_server *server,
                                const acct_axfr_options *opts,
                                acct_axfr_result *out)
{
    apr_time_t deadline = apr_time_now() + opts->timeout;
    apr_sockaddr_t *addrs = NULL, *to;
    ldns_rdf *apex;
    apr_status_t st;
    acct_axfr_rc rc = ACCT_AXFR_NO_SOURCE;
    const char *source = NULL;

    memset(out, 0, sizeof(*out));
    out->rrs = ldns_rr_list_new();
    apex = ldns_dname_new_frm_str(zone);
    if (!out->rrs || !apex) {
        ldns_rr_list_free(out->rrs);
        out->rrs = NULL;
        ldns_rdf_deep_free(apex);
        return finish(out, ACCT_AXFR_LOCAL, "out of memory");
    }
    apr_pool_cleanup_register(pool, out->rrs, free_rr_list,
                              apr_pool_cleanup_null);
    apr_pool_cleanup_register(pool, apex, free_rdf, apr_pool_cleanup_null);
    st = apr_sockaddr_info_get(&addrs, server->host, APR_UNSPEC, server->port,
                               0, pool);
    if (st != APR_SUCCESS || !addrs) {
        return finish(out, ACCT_AXFR_UNRESOLVED, status_text(pool, st));
    }
    /* Another address only when this one could not be reached at all:
     * an answer, even a refusal, is the server's word. */
    for (to = addrs; to; to = to->next) {
        if (opts->sources && !(source = pick_source(opts->sources,
                                                    to->family))) {
            if (rc == ACCT_AXFR_NO_SOURCE && !out->peer) {
                out->peer = peer_text(pool, to);
                out->detail = to->family == APR_INET6 ? "IPv6" : "IPv4";
            }
            continue;
        }
        rc = transfer_from(pool, to, source, zone, apex, deadline, opts, out);
        if (rc != ACCT_AXFR_UNREACHABLE) {
            break;
        }
    }
    return finish(out, rc, NULL);
}

/* ------------------------------------------------------------------------
 * Mapping
 * ------------------------------------------------------------------------ */

/* ldns's presentation text of `rdf` in the pool; NULL when there is none. */
static const char *rdf_text(apr_pool_t *pool, const ldns_rdf *rdf)
{
    char *s = rdf ? ldns_rdf2str(rdf) : NULL;
    const char *copy = s ? apr_pstrdup(pool, s) : NULL;

    free(s);
    return copy;
}

/* A target name: fully qualified text, the root (".") as "". */
static const char *dname_target(apr_pool_t *pool, const ldns_rdf *rdf)
{
    const char *s = rdf_text(pool, rdf);

    return s && strcmp(s, ".") == 0 ? "" : s;
}

static int rdf_u16(const ldns_rr *rr, size_t i, apr_int64_t *out)
{
    const ldns_rdf *rdf = ldns_rr_rdf(rr, i);

    if (!rdf || ldns_rdf_size(rdf) != 2) {
        return -1;
    }
    *out = ldns_rdf2native_int16(rdf);
    return 0;
}

static apr_int64_t rdf_u32(const ldns_rr *rr, size_t i)
{
    const ldns_rdf *rdf = ldns_rr_rdf(rr, i);

    return rdf && ldns_rdf_size(rdf) == 4 ? ldns_rdf2native_int32(rdf) : 0;
}

/*
 * Bytes received as text for a record's field: the API carries strings in
 * JSON, which holds neither a NUL byte (in our C strings) nor anything
 * that is not UTF-8.  NULL with *why set when they cannot be a value.
 */
static const char *text_value(apr_pool_t *pool, const unsigned char *bytes,
                              size_t len, const char **why)
{
    json_t *probe;

    if (memchr(bytes, '\0', len)) {
        *why = "its text holds a NUL byte";
        return NULL;
    }
    probe = json_stringn((const char *)bytes, len);
    if (!probe) {
        *why = "its text is not UTF-8";
        return NULL;
    }
    json_decref(probe);
    return apr_pstrmemdup(pool, (const char *)bytes, len);
}

/* TXT: the character-strings joined, as resolvers read them (RFC 7208). */
static const char *txt_value(apr_pool_t *pool, const ldns_rr *rr,
                             const char **why)
{
    size_t i, total = 0, n = ldns_rr_rd_count(rr);
    unsigned char *joined, *p;

    for (i = 0; i < n; i++) {
        if (ldns_rdf_size(ldns_rr_rdf(rr, i)) < 1) {
            *why = "its data is malformed";
            return NULL;
        }
        total += ldns_rdf_size(ldns_rr_rdf(rr, i)) - 1;
    }
    p = joined = apr_palloc(pool, total + 1);
    for (i = 0; i < n; i++) {
        const ldns_rdf *rdf = ldns_rr_rdf(rr, i);

        memcpy(p, ldns_rdf_data(rdf) + 1, ldns_rdf_size(rdf) - 1);
        p += ldns_rdf_size(rdf) - 1;
    }
    return text_value(pool, joined, total, why);
}

/* The owner relative to `zone`: "" at the apex, NULL outside the zone. */
static const char *relative_owner(apr_pool_t *pool, const char *owner,
                                  const char *zone)
{
    size_t n = strlen(owner), z = strlen(zone);

    if (n > 0 && owner[n - 1] == '.') {
        n--;
    }
    if (n == z && strncasecmp(owner, zone, z) == 0) {
        return "";
    }
    if (n > z + 1 && owner[n - z - 1] == '.'
        && strncasecmp(owner + n - z, zone, z) == 0) {
        return apr_pstrmemdup(pool, owner, n - z - 1);
    }
    return NULL;
}

/* SRV: the record lives at "_service._protocol" right under the domain. */
static acct_axfr_map_rc map_srv(apr_pool_t *pool, const ldns_rr *rr,
                                const char *rel, acct_record *out,
                                const char **why)
{
    const char *dot = strchr(rel, '.');

    if (!dot || rel[0] != '_' || dot[1] != '_' || strchr(dot + 1, '.')) {
        *why = "an SRV record is kept only at _service._protocol directly "
               "under the domain";
        return ACCT_AXFR_UNFIT;
    }
    out->service = apr_pstrmemdup(pool, rel, (size_t)(dot - rel));
    out->protocol = dot + 1;
    if (rdf_u16(rr, 0, &out->priority) != 0
        || rdf_u16(rr, 1, &out->weight) != 0
        || rdf_u16(rr, 2, &out->port) != 0) {
        *why = "its data is malformed";
        return ACCT_AXFR_UNFIT;
    }
    out->set |= ACCT_RECORD_PRIORITY | ACCT_RECORD_WEIGHT | ACCT_RECORD_PORT;
    out->target = rdf_text(pool, ldns_rr_rdf(rr, 3));
    return ACCT_AXFR_MAPPED;
}

/* CAA: flags have no field (the known tags need no critical bit). */
static acct_axfr_map_rc map_caa(apr_pool_t *pool, const ldns_rr *rr,
                                acct_record *out, const char **why)
{
    const ldns_rdf *tag = ldns_rr_rdf(rr, 1), *value = ldns_rr_rdf(rr, 2);
    char *lower;

    if (!tag || !value || ldns_rdf_size(tag) < 2) {
        *why = "its data is malformed";
        return ACCT_AXFR_UNFIT;
    }
    lower = apr_pstrmemdup(pool, (const char *)ldns_rdf_data(tag) + 1,
                           ldns_rdf_size(tag) - 1);
    out->tag = lower;
    for (; *lower; lower++) {
        *lower = (char)tolower((unsigned char)*lower);
    }
    out->target = text_value(pool, ldns_rdf_data(value), ldns_rdf_size(value),
                             why);
    return out->target ? ACCT_AXFR_MAPPED : ACCT_AXFR_UNFIT;
}

acct_axfr_map_rc acct_axfr_record(apr_pool_t *pool, const ldns_rr *rr,
                                  const char *zone, acct_record *out,
                                  const char **why)
{
    const char *owner = rdf_text(pool, ldns_rr_owner(rr));
    const char *rel = owner ? relative_owner(pool, owner, zone) : NULL;
    apr_int64_t ttl = ldns_rr_ttl(rr);

    memset(out, 0, sizeof(*out));
    *why = NULL;
    if (ldns_rr_get_class(rr) != LDNS_RR_CLASS_IN) {
        return ACCT_AXFR_UNSUPPORTED;
    }
    if (!rel) {
        *why = "its name lies outside the zone";
        return ACCT_AXFR_UNFIT;
    }
    out->name = owner;
    /* TTL 0 means "do not cache": the shortest TTL, not the default. */
    out->ttl_sec = ttl > 0 ? ttl : 1;
    out->set = ACCT_RECORD_TTL;
    switch (ldns_rr_get_type(rr)) {
    case LDNS_RR_TYPE_A:
        out->type = ACCT_RECORD_TYPE_A;
        out->target = rdf_text(pool, ldns_rr_rdf(rr, 0));
        return ACCT_AXFR_MAPPED;
    case LDNS_RR_TYPE_AAAA:
        out->type = ACCT_RECORD_TYPE_AAAA;
        out->target = rdf_text(pool, ldns_rr_rdf(rr, 0));
        return ACCT_AXFR_MAPPED;
    case LDNS_RR_TYPE_NS:
        if (!*rel) {
            return ACCT_AXFR_APEX_NS;
        }
        out->type = ACCT_RECORD_TYPE_NS;
        out->target = dname_target(pool, ldns_rr_rdf(rr, 0));
        return ACCT_AXFR_MAPPED;
    case LDNS_RR_TYPE_CNAME:
        out->type = ACCT_RECORD_TYPE_CNAME;
        out->target = dname_target(pool, ldns_rr_rdf(rr, 0));
        return ACCT_AXFR_MAPPED;
    case LDNS_RR_TYPE_PTR:
        out->type = ACCT_RECORD_TYPE_PTR;
        out->target = dname_target(pool, ldns_rr_rdf(rr, 0));
        return ACCT_AXFR_MAPPED;
    case LDNS_RR_TYPE_MX:
        out->type = ACCT_RECORD_TYPE_MX;
        if (rdf_u16(rr, 0, &out->priority) != 0) {
            *why = "its data is malformed";
            return ACCT_AXFR_UNFIT;
        }
        out->set |= ACCT_RECORD_PRIORITY;
        out->target = dname_target(pool, ldns_rr_rdf(rr, 1));
        return ACCT_AXFR_MAPPED;
    case LDNS_RR_TYPE_TXT:
        out->type = ACCT_RECORD_TYPE_TXT;
        out->target = txt_value(pool, rr, why);
        return out->target ? ACCT_AXFR_MAPPED : ACCT_AXFR_UNFIT;
    case LDNS_RR_TYPE_SRV:
        out->type = ACCT_RECORD_TYPE_SRV;
        return map_srv(pool, rr, rel, out, why);
    case LDNS_RR_TYPE_CAA:
        out->type = ACCT_RECORD_TYPE_CAA;
        return map_caa(pool, rr, out, why);
    default:
        return ACCT_AXFR_UNSUPPORTED;
    }
}

const char *acct_axfr_type_name(apr_pool_t *pool, const ldns_rr *rr)
{
    char *s = ldns_rr_type2str(ldns_rr_get_type(rr));
    const char *copy = apr_pstrdup(pool, s ? s : "?");

    free(s);
    return copy;
}

const char *acct_axfr_soa_email(apr_pool_t *pool, const ldns_rdf *rname)
{
    ldns_rdf *mailbox = ldns_dname_label(rname, 0);
    ldns_rdf *host = ldns_dname_left_chop(rname);
    const char *local = NULL, *domain = rdf_text(pool, host), *email = NULL;
    const char *why = NULL;

    /* The mailbox label's bytes as they are: its dots belong to it. */
    if (mailbox && ldns_rdf_size(mailbox) >= 2
        && ldns_rdf_data(mailbox)[0] > 0
        && ldns_rdf_data(mailbox)[0] < ldns_rdf_size(mailbox)) {
        local = text_value(pool, ldns_rdf_data(mailbox) + 1,
                           ldns_rdf_data(mailbox)[0], &why);
    }
    if (local && domain && strlen(domain) > 1) {
        email = apr_pstrcat(pool, local, "@",
                            apr_pstrndup(pool, domain, strlen(domain) - 1),
                            NULL);
    }
    ldns_rdf_deep_free(mailbox);
    ldns_rdf_deep_free(host);
    return email && acct_valid_mailbox(email) ? email : NULL;
}

void acct_axfr_soa_domain(apr_pool_t *pool, const ldns_rr *soa,
                          acct_domain *d)
{
    d->soa_email = acct_axfr_soa_email(pool, ldns_rr_rdf(soa, 1));
    d->refresh_sec = acct_dns_round_domain_seconds(rdf_u32(soa, 3));
    d->retry_sec = acct_dns_round_domain_seconds(rdf_u32(soa, 4));
    d->expire_sec = acct_dns_round_domain_seconds(rdf_u32(soa, 5));
    d->ttl_sec = acct_dns_round_domain_seconds(ldns_rr_ttl(soa));
}
