/*
 * A request as the core sees it: the route's decoded inputs, the acting
 * principal, the settings, the clock and the store connection the request
 * owns.  The glue (or a unit test, or acctapi-admin) fills it; the model's
 * functions take it for the store, the pool, the principal and the time,
 * and never answer through it (see acct_outcome.h for what they return).
 */
#ifndef ACCT_REQ_H
#define ACCT_REQ_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <jansson.h>

#include "acct_principal.h"
#include "acct_settings.h"
#include "acct_store.h"

#define ACCT_MAX_PATH_PARAMS 4

typedef enum {
    ACCT_METHOD_GET = 1,
    ACCT_METHOD_POST = 2,
    ACCT_METHOD_PUT = 4,
    ACCT_METHOD_DELETE = 8
} acct_method;

struct acct_route;

typedef struct acct_req {
    apr_pool_t *pool;
    const struct acct_route *route;
    const char *params[ACCT_MAX_PATH_PARAMS]; /* decoded path parameters */
    apr_table_t *query;                       /* decoded query parameters */
    const char *filter;                       /* X-Filter header, or NULL */
    json_t *body;                             /* decoded JSON body, or NULL */
    const char *remote_addr;
    const acct_principal *who;                /* NULL on public routes */
    acct_store *store;                        /* opened on first use, see acct_req_store */
    acct_store_rc (*open_store)(struct acct_req *req, acct_store **out);
    void *host;                               /* the host's baton for open_store */
    const acct_settings *settings;
    apr_int64_t now;                          /* epoch seconds, test-clock offset applied */
    acct_rows *auth_read;                     /* the route's read_with_auth rows, or NULL */
    int tx_suspended;                         /* committed early, see acct_req_commit_now */
    apr_array_header_t *zones_changed;        /* see acct_publish_note_zone */
} acct_req;

/*
 * The request's token as a read built before the lookup knows it: the hash
 * it is stored under, and the account this process last saw it belong to
 * (0: none).  That account is a hint, never a fact: the lookup that goes
 * with the read decides, and rows read by a hint it contradicts are
 * dropped (acct_authenticate_with).
 */
typedef struct acct_token_ref {
    const char *hash;
    apr_int64_t account;
} acct_token_ref;

/*
 * A route's first read, sent with the lookup of the request's token (in the
 * same round trip on PostgreSQL) instead of after it: built before the
 * principal is known, it reads by the token where it would read by the
 * principal: by `token->account` when it is known (the same statement as
 * for any other account, no subquery for PostgreSQL to run), else by the
 * account of the token stored under `token->hash`.  The handler finds its
 * rows in req->auth_read (only when the token was found, in the account
 * read) and uses them only where they are what it would have read for the
 * principal.  `req` is the request without `who` and `body`.  0 with *out's
 * statement filled, or -1 for nothing to send (the handler then reads, and
 * answers what is wrong with the request, as usual).
 */
typedef int acct_auth_read(acct_req *req, const acct_token_ref *token,
                           acct_store_read *out);

/*
 * The request's database connection, opened on first use so that routes
 * served from a cache never take one from the pool.
 */
acct_store_rc acct_req_store(acct_req *req, acct_store **out);

/*
 * Early commits, for writes that must outlive the answer: the attempt
 * counter of a one-time code survives its refusal, and an issued code is
 * durable before slow work (a text message) runs without holding a write
 * lock.  acct_req_commit_now commits the request's transaction and leaves it
 * closed; acct_req_reopen opens the one the glue will end.
 * acct_req_checkpoint does both.  No-ops outside a transaction (unit tests
 * calling a handler directly).
 */
acct_store_rc acct_req_commit_now(acct_req *req);
acct_store_rc acct_req_reopen(acct_req *req);
/* After a model call that ended the request's transaction itself (one
 * built on acct_store_select_commit): acct_req_reopen then opens another,
 * as after acct_req_commit_now. */
void acct_req_note_ended(acct_req *req);
acct_store_rc acct_req_checkpoint(acct_req *req);


#endif
