/*
 * What a core handler sees and returns.  Handlers never touch httpd: the glue
 * (or a unit test) fills an acct_req, calls the handler, and writes acct_resp.
 */
#ifndef ACCT_API_H
#define ACCT_API_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <apr_time.h>
#include <jansson.h>

#include "acct_http_status.h"
#include "acct_problems.h"
#include "acct_scope.h"
#include "acct_store.h"

#define ACCT_SPEC_VERSION "4.174.0"
#define ACCT_MAX_PATH_PARAMS 4

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

/*
 * Which names a response gives the fields that the contract and the public
 * API name differently (AcctapiFieldNames; the pairs: acct_names.h).  The
 * directive's words are in this order: both, public, contract.
 */
typedef enum {
    ACCT_NAMES_BOTH = 0,    /* both keys, the same value (the default) */
    ACCT_NAMES_PUBLIC = 1,  /* the public API's only: clients that validate
                             * against its schema refuse extra keys */
    ACCT_NAMES_CONTRACT = 2 /* the contract's only */
} acct_names_mode;

/* Settings of the core that come from configuration. */
typedef struct acct_settings {
    int test_clock;                  /* honour the stored clock offset */
    apr_interval_time_t catalog_ttl; /* per-child catalogue cache lifetime */
    const char *referral_url;        /* prefix of profile.referrals.url */
    const unsigned char *seal_key;   /* AcctapiSecretKeyFile: 32 bytes, or NULL */
    const char *sms_command;         /* AcctapiSmsCommand, or NULL */
    const char *const *nameservers;  /* AcctapiNameservers, NULL-terminated */
    int db_external;                 /* AcctapiDatabaseBackend external */
    apr_int64_t db_provision_min;    /* AcctapiDatabaseProvisionTime, seconds */
    apr_int64_t db_provision_max;
    apr_int64_t db_operation;        /* AcctapiDatabaseOperationTime, seconds */
    const char *db_host_suffix;      /* AcctapiDatabaseHostSuffix */
    const char *db_admin_user;       /* AcctapiDatabaseAdminUser; NULL: each engine's */
    int db_host_public;              /* AcctapiDatabaseHostNames public */
    const char *const *transfer_sources; /* AcctapiTransferSource: IP
                                          * addresses, NULL-terminated;
                                          * NULL: any */
    apr_int64_t transfer_timeout;    /* AcctapiTransferTimeout, seconds */
    const char *zone_dir;            /* AcctapiZoneDir, or NULL */
    const char *zone_reload_command; /* AcctapiZoneReloadCommand, or NULL */
    apr_int64_t rate_lists;          /* AcctapiRateLimit: list GETs per minute */
    apr_int64_t rate_others;         /* and other requests; 0: no limit */
    apr_int64_t max_tokens;          /* AcctapiMaxTokensPerUser: the most
                                      * active personal access tokens a
                                      * user may hold; 0: no cap */
    int field_names;                 /* AcctapiFieldNames: acct_names_mode */
} acct_settings;

#define ACCT_SEAL_KEY_LEN 32

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

typedef struct acct_resp {
    int status;
    json_t *body;          /* owned by the request pool; NULL: empty body */
    const char *raw;       /* or the body as JSON text, sent as it is (see
                            * acct_resp_ok_raw); NULL: none */
    apr_size_t raw_len;
    json_t *errors;        /* error items collected so far, or NULL */
    apr_table_t *headers;  /* extra response headers (Allow, Cache-Control) */
} acct_resp;

typedef void acct_handler(acct_req *req, acct_resp *resp);

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

/* Initialises `resp` pessimistically: 500 until a handler says otherwise. */
void acct_resp_init(acct_resp *resp, apr_pool_t *pool);

/* Success: 200 with `body` (ownership taken).  NULL body answers {}. */
void acct_resp_ok(acct_resp *resp, apr_pool_t *pool, json_t *body);

/*
 * Success: 200 with a body already serialised: `len` bytes of JSON `text`,
 * the exact bytes acct_json_dump would give for the document (callers
 * render it that way once and keep it), with a NUL after them like every
 * string.  The text is not copied: it must outlive the request (request
 * pool, or a cache the request holds).
 */
void acct_resp_ok_raw(acct_resp *resp, const char *text, apr_size_t len);

/* Adds an error item; `field` may be NULL.  Sets the status (last one wins). */
void acct_resp_error(acct_resp *resp, apr_pool_t *pool, int status,
                     const char *reason, const char *field);

/* Adds a 400 validation item naming `field`. */
void acct_resp_invalid(acct_resp *resp, apr_pool_t *pool, const char *field,
                       const char *reason);

/*
 * Answers the problems of `p` (none: nothing is added): one 400 item per
 * problem, in order, exactly as acct_resp_invalid adds them.  A handler
 * calls it once, after every check of the request has run.
 */
void acct_resp_problems(acct_resp *resp, apr_pool_t *pool,
                        const acct_problems *p);

/* Maps a store failure to 503 or 500 with the fixed reasons of DECISIONS.md. */
void acct_resp_store_error(acct_resp *resp, apr_pool_t *pool, acct_store_rc rc);

/* The one way a handler checks a store call: 0 when rc is ACCT_STORE_OK;
 * otherwise answers rc as acct_resp_store_error does and returns -1. */
int acct_resp_store_failed(acct_req *req, acct_resp *resp, acct_store_rc rc);

/*
 * The integer id of path parameter `index`; a value that is not a positive
 * decimal number names nothing, so it answers 404 (returns -1).
 */
int acct_path_id(acct_req *req, acct_resp *resp, int index, apr_int64_t *id);

/*
 * What a model read or write found of the object the path names, as one
 * answer: acct_resp_found gives `rows` when the read returned a row, else
 * NULL after answering the store's failure (rc) or 404; acct_resp_changed
 * gives 0 when the write changed a row, else -1 after answering likewise.
 */
acct_rows *acct_resp_found(acct_req *req, acct_resp *resp, acct_store_rc rc,
                           acct_rows *rows);
int acct_resp_changed(acct_req *req, acct_resp *resp, acct_store_rc rc,
                      int changed);

/*
 * The one row that `sql` selects: the object the path names, as the caller
 * may see it.  NULL after answering 404 (no such row) or the store's error.
 */
acct_rows *acct_req_row(acct_req *req, acct_resp *resp, const acct_sql *sql,
                        int nargs, const char *const *args);

/*
 * Runs `sql`, a statement that changes the object the path names; 0 when it
 * changed a row, else -1 after answering 404 (nothing the caller may change)
 * or the store's error.
 */
int acct_req_change(acct_req *req, acct_resp *resp, const acct_sql *sql,
                    int nargs, const char *const *args);

/* Has an error item been recorded?  (Validators call this before acting.) */
int acct_resp_failed(const acct_resp *resp);

/* Should the request's transaction commit?  Only on success. */
int acct_resp_commits(const acct_resp *resp);

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
acct_store_rc acct_req_checkpoint(acct_req *req);

/*
 * The body to send: the errors envelope when there are errors, else body
 * (a raw body parsed, for callers that inspect the document; the glue
 * sends acct_resp_text instead).
 */
json_t *acct_resp_document(acct_resp *resp, apr_pool_t *pool);

/*
 * The raw body when it is what the response sends (set, and neither an
 * error item nor an error status replaced it), else NULL.
 */
const char *acct_resp_raw(const acct_resp *resp, apr_size_t *len);

/*
 * The body to send as text (`*len` bytes): the raw body as it is, else
 * acct_resp_document serialised into pool memory.  NULL: no body (204), or
 * the document could not be serialised.
 */
const char *acct_resp_text(acct_resp *resp, apr_pool_t *pool, apr_size_t *len);

/* Fixed reasons of DECISIONS.md. */
#define ACCT_R_INVALID_JSON "Invalid JSON"
#define ACCT_R_INVALID_TOKEN "Invalid Token"
#define ACCT_R_SCOPE "Your OAuth token is not authorized to use this endpoint."
#define ACCT_R_UNAUTHORIZED "Unauthorized"
#define ACCT_R_NOT_FOUND "Not found"
#define ACCT_R_METHOD "Method Not Allowed"
#define ACCT_R_TOO_LARGE "Request body too large"
#define ACCT_R_MEDIA_TYPE "Content-Type must be application/json"
#define ACCT_R_RATE "Too many requests"
#define ACCT_R_UNAVAILABLE "Service Unavailable"
#define ACCT_R_INTERNAL "Internal server error"

/* The reason for an HTTP status produced outside a handler (httpd's own errors). */
const char *acct_reason_for_status(int status);

#endif
