/* Helpers shared by the zone transfer tests (test_axfr_*.c): the expected
 * remote_nameserver reasons, an RR from its text, and a scripted DNS server
 * on a loopback port (every way a transfer can end).  Header-only, as
 * unit.h is; include it after unit.h and unit_db.h. */
#ifndef UNIT_AXFR_H
#define UNIT_AXFR_H

#include <apr_network_io.h>
#include <apr_poll.h>
#include <apr_strings.h>
#include <apr_thread_proc.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "unit_db.h"
#include "acct_auth.h"
#include "acct_axfr.h"
#include "acct_ident.h"
#include "acct_json.h"
#include "api_handlers.h"

#define R_SERVER "remote_nameserver must be an IPv4 or IPv6 address or a " \
    "host name, optionally followed by a port: 192.0.2.1, 192.0.2.1:5353, " \
    "2001:db8::1, [2001:db8::1]:5353, ns1.example.net or " \
    "ns1.example.net:5353"
#define R_PORT "The port of remote_nameserver must be a number from 1 to " \
    "65535"

static inline ldns_rr *rr_of(const char *text)
{
    ldns_rr *rr = NULL;

    if (ldns_rr_new_frm_str(&rr, text, 3600, NULL, NULL) != LDNS_STATUS_OK) {
        fail_msg("ldns cannot read %s", text);
    }
    return rr;
}

typedef struct script {
    const char *const *rrs;  /* the answer to AXFR, NULL-terminated */
    int per_message;         /* RRs per message (0: all in one) */
    int aa;
    ldns_pkt_rcode rcode;    /* of the AXFR answer */
    ldns_pkt_rcode probe;    /* of the answer to a SOA query */
    int close_after;         /* messages sent before hanging up (0: all) */
    int silent;              /* accept, read, never answer */
    int connections;         /* served, then the thread ends */
} script;

typedef struct fake {
    apr_pool_t *pool;
    apr_socket_t *listener;
    apr_port_t port;
    apr_thread_t *thread;
    const script *script;
    char address[32];
} fake;

static inline int send_framed(apr_socket_t *s, const ldns_pkt *p)
{
    uint8_t *wire = NULL;
    size_t size = 0;
    unsigned char head[2];
    apr_size_t n;
    int rc = -1;

    if (ldns_pkt2wire(&wire, p, &size) == LDNS_STATUS_OK) {
        head[0] = (unsigned char)(size >> 8);
        head[1] = (unsigned char)size;
        n = 2;
        if (apr_socket_send(s, (char *)head, &n) == APR_SUCCESS) {
            n = size;
            rc = apr_socket_send(s, (char *)wire, &n) == APR_SUCCESS ? 0 : -1;
        }
    }
    free(wire);
    return rc;
}

static inline int read_full(apr_socket_t *s, unsigned char *buf, apr_size_t len)
{
    apr_size_t got = 0, n;

    while (got < len) {
        n = len - got;
        if (apr_socket_recv(s, (char *)buf + got, &n) != APR_SUCCESS
            && n == 0) {
            return -1;
        }
        got += n;
    }
    return 0;
}

/* The query of a connection; NULL when none arrived. */
static inline ldns_pkt *read_query(apr_socket_t *s)
{
    unsigned char head[2], buf[512];
    apr_size_t len;
    ldns_pkt *q = NULL;

    if (read_full(s, head, 2) != 0) {
        return NULL;
    }
    len = (apr_size_t)head[0] << 8 | head[1];
    if (len > sizeof(buf) || read_full(s, buf, len) != 0
        || ldns_wire2pkt(&q, buf, len) != LDNS_STATUS_OK) {
        return NULL;
    }
    return q;
}

static inline ldns_pkt *reply_to(const ldns_pkt *q, int aa,
                                 ldns_pkt_rcode rcode)
{
    ldns_pkt *p = ldns_pkt_new();

    ldns_pkt_set_id(p, ldns_pkt_id(q));
    ldns_pkt_set_qr(p, 1);
    ldns_pkt_set_aa(p, aa);
    ldns_pkt_set_rcode(p, (uint8_t)rcode);
    ldns_pkt_push_rr(p, LDNS_SECTION_QUESTION,
                     ldns_rr_clone(ldns_rr_list_rr(ldns_pkt_question(q), 0)));
    return p;
}

static inline void serve_axfr(apr_socket_t *s, const ldns_pkt *q,
                              const script *sc)
{
    int i = 0, sent = 0, in_message = 0;
    ldns_pkt *p = reply_to(q, sc->aa, sc->rcode);

    for (; sc->rcode == LDNS_RCODE_NOERROR && sc->rrs[i]; i++) {
        ldns_rr *rr = NULL;

        if (ldns_rr_new_frm_str(&rr, sc->rrs[i], 3600, NULL, NULL)
            == LDNS_STATUS_OK) {
            ldns_pkt_push_rr(p, LDNS_SECTION_ANSWER, rr);
        }
        if (sc->per_message && ++in_message == sc->per_message
            && sc->rrs[i + 1]) {
            if (send_framed(s, p) != 0
                || (sc->close_after && ++sent == sc->close_after)) {
                ldns_pkt_free(p);
                return;
            }
            ldns_pkt_free(p);
            p = reply_to(q, sc->aa, sc->rcode);
            in_message = 0;
        }
    }
    send_framed(s, p);
    ldns_pkt_free(p);
}

/* A test that fails before connecting must not leave the thread hanging. */
static inline int wait_for_client(fake *f)
{
    apr_pollfd_t pfd;
    apr_int32_t n = 0;

    memset(&pfd, 0, sizeof(pfd));
    pfd.p = f->pool;
    pfd.desc_type = APR_POLL_SOCKET;
    pfd.reqevents = APR_POLLIN;
    pfd.desc.s = f->listener;
    return apr_poll(&pfd, 1, &n, apr_time_from_sec(5)) == APR_SUCCESS && n == 1
           ? 0 : -1;
}

static inline void *APR_THREAD_FUNC fake_main(apr_thread_t *thread, void *data)
{
    fake *f = data;
    int i;

    for (i = 0; i < f->script->connections; i++) {
        apr_socket_t *s = NULL;
        apr_pool_t *p = NULL;
        ldns_pkt *q;

        apr_pool_create(&p, NULL);
        if (wait_for_client(f) != 0
            || apr_socket_accept(&s, f->listener, p) != APR_SUCCESS) {
            apr_pool_destroy(p);
            break;
        }
        q = read_query(s);
        if (q && f->script->silent) {
            apr_sleep(apr_time_from_sec(1));
        }
        else if (q && ldns_rr_get_type(ldns_rr_list_rr(ldns_pkt_question(q),
                                                       0))
                      == LDNS_RR_TYPE_SOA) {
            ldns_pkt *r = reply_to(q, 1, f->script->probe);

            send_framed(s, r);
            ldns_pkt_free(r);
        }
        else if (q) {
            serve_axfr(s, q, f->script);
        }
        ldns_pkt_free(q);
        apr_socket_close(s);
        apr_pool_destroy(p);
    }
    apr_thread_exit(thread, APR_SUCCESS);
    return NULL;
}

/* Listens on 127.0.0.1 (a free port) and serves `sc` in a thread. */
static inline fake *fake_start(const script *sc)
{
    fake *f = apr_pcalloc(pool, sizeof(*f));
    apr_sockaddr_t *sa = NULL, *local = NULL;

    f->pool = pool;
    f->script = sc;
    assert_int_equal(apr_sockaddr_info_get(&sa, "127.0.0.1", APR_INET, 0, 0,
                                           pool), APR_SUCCESS);
    assert_int_equal(apr_socket_create(&f->listener, APR_INET, SOCK_STREAM,
                                       APR_PROTO_TCP, pool), APR_SUCCESS);
    apr_socket_opt_set(f->listener, APR_SO_REUSEADDR, 1);
    assert_int_equal(apr_socket_bind(f->listener, sa), APR_SUCCESS);
    assert_int_equal(apr_socket_listen(f->listener, 8), APR_SUCCESS);
    assert_int_equal(apr_socket_addr_get(&local, APR_LOCAL, f->listener),
                     APR_SUCCESS);
    f->port = local->port;
    snprintf(f->address, sizeof(f->address), "127.0.0.1:%u",
             (unsigned)f->port);
    if (sc->connections > 0) {
        assert_int_equal(apr_thread_create(&f->thread, NULL, fake_main, f,
                                           pool), APR_SUCCESS);
    }
    return f;
}

static inline void fake_stop(fake *f)
{
    apr_status_t rv;

    if (f->thread) {
        apr_thread_join(&rv, f->thread);
    }
    apr_socket_close(f->listener);
}

#endif
