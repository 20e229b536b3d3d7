/*
 * The acting identity of a request: who the token belongs to and what it
 * may do.  Filled by the token lookup (acct_auth.h); read by every rule.
 */
#ifndef ACCT_PRINCIPAL_H
#define ACCT_PRINCIPAL_H

#include <apr.h>

#include "acct_scope.h"

struct acct_rows;

/* The acting identity, from one indexed token lookup. */
typedef struct acct_principal {
    apr_int64_t token_id;
    apr_int64_t user_id;
    apr_int64_t account_id;
    int restricted;
    const char *username;
    acct_scopes scopes;
    const char *scopes_text;     /* canonical form, for X-OAuth-Scopes */
    const char *client;          /* OAuth client: "pat:<token id>" or "app:<app id>" */
    /* The user's row as the token lookup read it (the profile's columns,
     * "user_id" for the id): GET /profile needs no query of its own. */
    const struct acct_rows *user_row;
} acct_principal;


#endif
