/* Slow request headers wait in the event MPM's poll set, not in a worker.
 *
 * httpd 2.4 reads a request header with a worker thread that blocks until
 * the header is complete; mod_reqtimeout only bounds for how long.  A client
 * that sends half a header and stalls (slowloris) therefore holds a worker
 * for the whole deadline, and MaxRequestWorkers such clients leave every
 * other request waiting for a thread.
 *
 * This hook runs before httpd's own connection handler (and before mod_ssl's,
 * whose TLS handshake it drives the same way).  It looks at what the
 * connection has sent without blocking.  A complete header, the usual case,
 * is only peeked at (speculative read): httpd's parser then reads it as if
 * the hook were not there.  An incomplete one is read out of the input
 * filters into a buffer of the connection (consumed, so the socket is polled
 * for new bytes only), and the connection goes back to the event MPM in the
 * keep-alive state: the listener thread polls it with no worker held and
 * dispatches it again when more bytes arrive (each gap bounded by
 * KeepAliveTimeout; the MPM drops such connections first when every worker
 * is busy).  Once the buffered header is complete, an input filter hands the
 * buffer to httpd's parser before anything newer; a header still incomplete
 * after AcctapiHeaderWait closes the connection.
 *
 * Only the event MPM parks connections (AP_MPMQ_IS_ASYNC); with prefork or
 * worker the hook declines and httpd behaves as without it. */
#include "acctapi_headers.h"
#include "acctapi_config.h"
#include "acct_http.h"
#include "acct_log.h"

#include "ap_mpm.h"
#include "http_config.h"
#include "http_connection.h"
#include "http_log.h"
#include "util_filter.h"

#include <string.h>

APLOG_USE_MODULE(acctapi);

/* The most of a header the hook looks at: a longer one is read by httpd
 * with a blocking worker (within mod_reqtimeout's limits), as without the
 * hook.  Every legitimate client of this API sends far less. */
#define HEADER_LOOKAHEAD 16384

/* One per connection, made the first time the hook runs on it. */
typedef struct header_wait {
    apr_bucket_brigade *bb;   /* scratch for every read */
    apr_bucket_brigade *held; /* bytes read out of the filters, unparsed */
    ap_filter_t *replay;      /* the filter serving `held`, while in place */
    apr_time_t deadline;      /* when the current header must be complete */
    int parked;               /* the current header has been parked before */
    int keepalive;            /* c->keepalive before it was first parked */
} header_wait;

/* Registered once in register_hooks, read only after. */
static ap_filter_rec_t *replay_filter_handle;

/* The bytes of bb, flattened into buf (HEADER_LOOKAHEAD bytes) when they
 * span buckets; a single bucket, the usual case, is read in place.  Returns
 * their length; *data points at them. */
static apr_size_t brigade_text(apr_bucket_brigade *bb, char *buf,
                               const char **data)
{
    apr_bucket *first = APR_BRIGADE_FIRST(bb);
    apr_size_t len = 0;

    if (first != APR_BRIGADE_SENTINEL(bb)
        && APR_BUCKET_NEXT(first) == APR_BRIGADE_SENTINEL(bb)
        && apr_bucket_read(first, data, &len, APR_NONBLOCK_READ)
           == APR_SUCCESS) {
        return len;
    }
    len = HEADER_LOOKAHEAD;
    if (apr_brigade_flatten(bb, buf, &len) != APR_SUCCESS) {
        len = 0;
    }
    *data = buf;
    return len;
}

/* Input filter: what the hook read out of the filters below comes first,
 * in whichever mode httpd asks for it; then it steps aside. */
static apr_status_t replay_filter(ap_filter_t *f, apr_bucket_brigade *bb,
                                  ap_input_mode_t mode, apr_read_type_e block,
                                  apr_off_t readbytes)
{
    header_wait *hw = f->ctx;
    apr_bucket *e, *next;
    apr_status_t rv;

    if (APR_BRIGADE_EMPTY(hw->held)) {
        hw->replay = NULL;
        ap_remove_input_filter(f);
        return ap_get_brigade(f->next, bb, mode, block, readbytes);
    }
    switch (mode) {
    case AP_MODE_GETLINE:
        return apr_brigade_split_line(bb, hw->held, block, HUGE_STRING_LEN);
    case AP_MODE_READBYTES:
    case AP_MODE_SPECULATIVE:
        rv = apr_brigade_partition(hw->held, readbytes, &e);
        if (rv != APR_SUCCESS && rv != APR_INCOMPLETE) {
            return rv;
        }
        for (apr_bucket *b = APR_BRIGADE_FIRST(hw->held); b != e; b = next) {
            next = APR_BUCKET_NEXT(b);
            if (mode == AP_MODE_READBYTES) {
                APR_BUCKET_REMOVE(b);
                APR_BRIGADE_INSERT_TAIL(bb, b);
            }
            else {
                apr_bucket *copy;

                if ((rv = apr_bucket_copy(b, &copy)) != APR_SUCCESS) {
                    return rv;
                }
                APR_BRIGADE_INSERT_TAIL(bb, copy);
            }
        }
        return APR_SUCCESS;
    case AP_MODE_EXHAUSTIVE:
        APR_BRIGADE_CONCAT(bb, hw->held);
        return ap_get_brigade(f->next, bb, mode, block, readbytes);
    case AP_MODE_EATCRLF:
        /* Blank lines before a request line are skipped by the parser. */
        return APR_SUCCESS;
    default:
        return ap_get_brigade(f->next, bb, mode, block, readbytes);
    }
}

/* Reads, without blocking, everything the filters below the replay filter
 * have (up to HEADER_LOOKAHEAD held in all) into hw->held: afterwards
 * nothing is pending above the socket, so the socket's readability is the
 * only news to wait for. */
static apr_status_t drain_into_held(conn_rec *c, header_wait *hw)
{
    ap_filter_t *from = hw->replay ? hw->replay->next : c->input_filters;

    for (;;) {
        apr_off_t have = 0;
        apr_status_t rv;

        apr_brigade_length(hw->held, 1, &have);
        if (have >= HEADER_LOOKAHEAD) {
            return APR_SUCCESS;
        }
        rv = ap_get_brigade(from, hw->bb, AP_MODE_READBYTES, APR_NONBLOCK_READ,
                            HEADER_LOOKAHEAD - have);
        if (APR_STATUS_IS_EAGAIN(rv)
            || (rv == APR_SUCCESS && APR_BRIGADE_EMPTY(hw->bb))) {
            apr_brigade_cleanup(hw->bb);
            return APR_SUCCESS;
        }
        if (rv != APR_SUCCESS) {
            apr_brigade_cleanup(hw->bb);
            return rv;
        }
        /* Filters may hand out buckets pointing into their own buffers
         * (mod_ssl does): copy them before the next read reuses those. */
        for (apr_bucket *b = APR_BRIGADE_FIRST(hw->bb);
             b != APR_BRIGADE_SENTINEL(hw->bb); b = APR_BUCKET_NEXT(b)) {
            if ((rv = apr_bucket_setaside(b, c->pool)) != APR_SUCCESS) {
                apr_brigade_cleanup(hw->bb);
                return rv;
            }
        }
        APR_BRIGADE_CONCAT(hw->held, hw->bb);
    }
}

/* Whether the MPM can park a connection (event): set in post_config,
 * before the children are forked, read only after. */
static int mpm_is_async;

static int headers_post_config(apr_pool_t *pconf, apr_pool_t *plog,
                               apr_pool_t *ptemp, server_rec *s)
{
    (void)pconf; (void)plog; (void)ptemp; (void)s;
    if (ap_mpm_query(AP_MPMQ_IS_ASYNC, &mpm_is_async) != APR_SUCCESS) {
        mpm_is_async = 0;
    }
    return OK;
}

/* Closes the connection without an answer: what the event MPM itself does
 * to a kept-alive connection that stays silent. */
static int give_up(conn_rec *c, header_wait *hw, const char *why)
{
    ap_log_cerror(APLOG_MARK, APLOG_DEBUG, 0, c, ACCTLOGNO(00106)
                  "closing a connection whose request header %s", why);
    hw->parked = 0;
    apr_brigade_cleanup(hw->held);
    c->keepalive = AP_CONN_CLOSE;
    c->cs->state = CONN_STATE_LINGER;
    return OK;
}

/* httpd's parser takes the header from here, without waiting. */
static int hand_over(conn_rec *c, header_wait *hw)
{
    if (!APR_BRIGADE_EMPTY(hw->held) && !hw->replay) {
        hw->replay = ap_add_input_filter_handle(replay_filter_handle, hw, NULL,
                                                c);
    }
    if (hw->parked) {
        c->keepalive = hw->keepalive;
        hw->parked = 0;
    }
    return DECLINED;
}

static int wait_for_header(conn_rec *c)
{
    const acctapi_srv_conf *sc;
    apr_interval_time_t limit;
    header_wait *hw;
    apr_status_t rv;
    char buf[HEADER_LOOKAHEAD];
    const char *data = NULL;
    apr_size_t len;
    apr_time_t now;

    if (!mpm_is_async || !c->cs || c->master || c->clogging_input_filters
        || c->aborted) {
        return DECLINED;
    }
    sc = ap_get_module_config(c->base_server->module_config, &acctapi_module);
    limit = acctapi_conf_header_wait(sc);
    if (limit <= 0) {
        return DECLINED;
    }
    hw = ap_get_module_config(c->conn_config, &acctapi_module);
    if (!hw) {
        hw = apr_pcalloc(c->pool, sizeof(*hw));
        hw->bb = apr_brigade_create(c->pool, c->bucket_alloc);
        hw->held = apr_brigade_create(c->pool, c->bucket_alloc);
        ap_set_module_config(c->conn_config, &acctapi_module, hw);
    }

    if (!hw->parked && APR_BRIGADE_EMPTY(hw->held)) {
        /* The usual case: the whole header is there; only peek at it. */
        rv = ap_get_brigade(c->input_filters, hw->bb, AP_MODE_SPECULATIVE,
                            APR_NONBLOCK_READ, HEADER_LOOKAHEAD);
        if (rv == APR_SUCCESS) {
            len = brigade_text(hw->bb, buf, &data);
            apr_brigade_cleanup(hw->bb);
            if (len >= HEADER_LOOKAHEAD || acct_http_header_complete(data, len)) {
                return DECLINED;
            }
        }
        else {
            apr_brigade_cleanup(hw->bb);
            if (!APR_STATUS_IS_EAGAIN(rv)) {
                goto failed;
            }
        }
    }
    /* Incomplete: take what has come out of the filters and wait for more. */
    if ((rv = drain_into_held(c, hw)) != APR_SUCCESS) {
        goto failed;
    }
    len = brigade_text(hw->held, buf, &data);
    if (len >= HEADER_LOOKAHEAD || acct_http_header_complete(data, len)) {
        return hand_over(c, hw);
    }
    now = apr_time_now();
    if (!hw->parked) {
        hw->parked = 1;
        hw->deadline = now + limit;
        hw->keepalive = c->keepalive;
    }
    else if (now >= hw->deadline) {
        return give_up(c, hw, "took longer than AcctapiHeaderWait");
    }
    /* Back to the listener's poll set until more bytes arrive.  The MPM
     * parks only connections marked keep-alive, and would dispatch at once
     * one it believes has input pending: nothing is, it is all in held. */
    c->keepalive = AP_CONN_KEEPALIVE;
    c->data_in_input_filters = 0;
    c->cs->state = CONN_STATE_KEEPALIVE;
    return OK;

failed:
    if (APR_STATUS_IS_EOF(rv) && APR_BRIGADE_EMPTY(hw->held)) {
        return give_up(c, hw, "never came: the client closed");
    }
    if (APR_STATUS_IS_TIMEUP(rv)) {
        return give_up(c, hw, "outlasted mod_reqtimeout's deadline");
    }
    /* Anything else (a TLS error, a reset, a close after part of a
     * header) is httpd's to answer and log, with what was read. */
    return hand_over(c, hw);
}

void acctapi_headers_register_hooks(apr_pool_t *pool)
{
    /* After mod_reqtimeout's initialisation (its filter and handshake
     * deadline), before mod_ssl's blocking handshake and httpd's reader. */
    static const char *const after[] = { "mod_reqtimeout.c", NULL };

    (void)pool;
    /* Below the protocol filters, above TLS (AP_FTYPE_CONNECTION + 5):
     * what it replays is the text httpd parses. */
    replay_filter_handle = ap_register_input_filter(
        "ACCTAPI_HEADER_REPLAY", replay_filter, NULL, AP_FTYPE_CONNECTION);
    ap_hook_post_config(headers_post_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_process_connection(wait_for_header, after, NULL, APR_HOOK_FIRST);
}
