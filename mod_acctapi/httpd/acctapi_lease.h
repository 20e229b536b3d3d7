/*
 * The database connection of a request (acctapi_lease.c): opened from
 * mod_dbd's pool on first use, checked against the schema, handed back when
 * the request ends; a per-child breaker answers 503 at once while the
 * database is found down.
 */
#ifndef ACCTAPI_LEASE_H
#define ACCTAPI_LEASE_H

#include "acctapi_request.h"

/* post_config: finds mod_dbd's functions; HTTP_INTERNAL_SERVER_ERROR (and a
 * log line) without mod_dbd. */
int acctapi_lease_find_dbd(server_rec *s);

/* post_config, real start: the lock SQLite writers of every child queue on
 * (created by the first generation, found again by the others). */
int acctapi_lease_create_gate(server_rec *s);

/* post_config: the breakers' shared stamp of the database's newest answer,
 * created once for the server's life (acctapi_lease.c, breaker_news). */
int acctapi_lease_create_breaker_news(server_rec *s);

/* child_init: attaches the child to that lock. */
void acctapi_lease_child_init(apr_pool_t *pchild, server_rec *s);

/* Opens the request's connection (once) into ctx->store and sets ctx->now
 * (test clock included). */
acct_store_rc acctapi_lease_open(request_rec *r, acctapi_ctx *ctx);

/* Hands the connection back now (rolling back an open transaction). */
void acctapi_lease_drop(acctapi_ctx *ctx);

/* The request's exchanges with the database so far, on every lease, and
 * in *setup how many of them set a connection up (acct_store_exchanges). */
unsigned acctapi_lease_exchanges(const acctapi_ctx *ctx, unsigned *setup);

/* What the database did for this request, for the breaker. */
void acctapi_lease_note(acctapi_ctx *ctx, acct_store_rc rc);

/*
 * Runs `step` on the request's connection; a pooled pgsql connection whose
 * server restarted gets one more try on a fresh lease.
 */
typedef acct_store_rc acctapi_lease_step(request_rec *r, acctapi_ctx *ctx,
                                         void *baton);
acct_store_rc acctapi_on_lease(request_rec *r, acctapi_ctx *ctx,
                               acctapi_lease_step *step, void *baton);

#endif
