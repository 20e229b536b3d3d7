/*
 * Preferences: one JSON object per user and OAuth client
 * (docs/conventions.md), so
 * each app, and each personal access token ("pat:<id>"), keeps a document
 * of its own.  Stored as its compact text (table preferences).
 */
#ifndef ACCT_PREFERENCES_H
#define ACCT_PREFERENCES_H

#include "acct_store.h"

/* The contract's limit, on the compact serialisation, in characters. */
#define ACCT_PREFERENCES_MAX 65535

/* The stored text of `uid`'s document for `client`; *doc NULL: never set. */
acct_store_rc acct_preferences_get(acct_store *st, apr_pool_t *pool,
                                   apr_int64_t uid, const char *client,
                                   const char **doc);

/* Replaces (or creates) `uid`'s document for `client` with `doc`. */
acct_store_rc acct_preferences_put(acct_store *st, apr_pool_t *pool,
                                   apr_int64_t uid, const char *client,
                                   const char *doc);

#endif
