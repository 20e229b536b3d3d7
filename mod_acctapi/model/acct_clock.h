/*
 * The clock: the servers' UTC time plus an offset stored in the database, so
 * every node and process of a fleet agrees on it.  The offset is honoured only
 * where AcctapiTestClock is On; production never reads it.
 */
#ifndef ACCT_CLOCK_H
#define ACCT_CLOCK_H

#include "acct_store.h"

/* The stored offset in *offset_seconds (0 when unreadable). */
acct_store_rc acct_clock_offset(acct_store *st, apr_pool_t *pool,
                                apr_int64_t *offset_seconds);

/* Stores the offset that every node then reads (acctapi-admin). */
acct_store_rc acct_clock_set_offset(acct_store *st, apr_pool_t *pool,
                                    apr_int64_t offset_seconds);

#endif
