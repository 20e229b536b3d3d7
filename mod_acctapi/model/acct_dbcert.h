/*
 * The CA certificate of a managed database (docs/conventions.md: "a real
 * X.509 CA
 * certificate").  Clients pin it to verify the cluster's TLS connections.
 *
 * Each database gets its own self-signed CA: a fresh EC P-256 key, the
 * database named in the subject, valid ten years from `now`, with the
 * extensions a verifier requires of a trust anchor (basicConstraints
 * CA:TRUE critical, keyUsage keyCertSign and cRLSign critical, subject and
 * authority key identifiers).  The private key is thrown away once the
 * certificate is signed: the emulated cluster never issues server
 * certificates, and a key that is never stored cannot leak.
 */
#ifndef ACCT_DBCERT_H
#define ACCT_DBCERT_H

#include <apr_pools.h>

#include "acct_store.h"

/* Validity of a database's CA certificate. */
#define ACCT_DBCERT_DAYS 3650

/*
 * Creates the CA certificate of database `id` labelled `label` (engine
 * `engine`), valid from `now` (epoch seconds).  Returns its PEM text in
 * `pool`, or NULL if OpenSSL fails (logged).
 */
const char *acct_dbcert_create(apr_pool_t *pool, apr_int64_t id,
                               const char *engine, const char *label,
                               apr_int64_t now);

/*
 * Stores `pem` as the CA certificate of database `db_id` unless it has one:
 * the first writer wins, so concurrent first views agree on one
 * certificate.  *changed is 0 when it had one (or is gone).
 */
acct_store_rc acct_dbcert_store(acct_store *st, apr_pool_t *pool,
                                apr_int64_t db_id, const char *pem,
                                int *changed);

/* The stored CA certificate of database `db_id` into *pem (NULL: none);
 * *found is 0 when there is no such database. */
acct_store_rc acct_dbcert_get(acct_store *st, apr_pool_t *pool,
                              apr_int64_t db_id, const char **pem,
                              int *found);

#endif
