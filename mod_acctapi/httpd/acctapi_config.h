/* Directives of mod_acctapi (per directory/location, merged "later wins if set"). */
#ifndef ACCTAPI_CONFIG_H
#define ACCTAPI_CONFIG_H

#include "httpd.h"
#include "http_config.h"

#include "acct_api.h"
#include "acct_dns.h"

#define ACCTAPI_HANDLER "acctapi"

extern module AP_MODULE_DECLARE_DATA acctapi_module;

#define ACCTAPI_DEFAULT_MAX_BODY ((apr_off_t)1024 * 1024)
#define ACCTAPI_DEFAULT_CATALOG_TTL_SEC 60
#define ACCTAPI_DEFAULT_REFERRAL_URL "https://cloud.example.com/referrals/"
/* Managed databases: realistic durations unless configured otherwise. */
#define ACCTAPI_DEFAULT_DB_PROVISION_MIN (15 * 60)
#define ACCTAPI_DEFAULT_DB_PROVISION_MAX (30 * 60)
#define ACCTAPI_DEFAULT_DB_OPERATION (3 * 60)
#define ACCTAPI_DEFAULT_DB_HOST_SUFFIX "db.example.com"
/* Rate limits per user (or client address) and minute, as the public API. */
#define ACCTAPI_DEFAULT_RATE_LISTS 200
#define ACCTAPI_DEFAULT_RATE_OTHERS 1600
/* Active personal access tokens one user may hold (POST /profile/tokens). */
#define ACCTAPI_DEFAULT_MAX_TOKENS 100
/* Zone transfers (domain import): the deadline of the whole exchange, from
 * connecting to the last message, in seconds. */
#define ACCTAPI_DEFAULT_TRANSFER_TIMEOUT 10
/* The longest a request waits for the database at each step: a statement's
 * answer from PostgreSQL, a writer's turn on SQLite.  Then 503. */
#define ACCTAPI_DEFAULT_DB_TIMEOUT_SEC 5

/* The nameservers zones name when AcctapiNameservers is not set (the same
 * list acctapi-admin zones publish uses). */
#define ACCTAPI_DEFAULT_NAMESERVERS ACCT_DNS_DEFAULT_NAMESERVERS

typedef struct acctapi_dir_conf {
    apr_off_t max_body;              /* -1: unset */
    int test_clock;                  /* -1: unset */
    apr_interval_time_t catalog_ttl; /* -1: unset */
    const char *referral_url;        /* NULL: unset */
    const unsigned char *seal_key;   /* NULL: unset; else ACCT_SEAL_KEY_LEN bytes */
    const char *sms_command;         /* NULL: unset */
    apr_array_header_t *nameservers; /* NULL: unset */
    int db_external;                 /* -1: unset */
    apr_int64_t db_provision_min;    /* -1: unset (and max) */
    apr_int64_t db_provision_max;
    apr_int64_t db_operation;        /* -1: unset */
    const char *db_host_suffix;      /* NULL: unset */
    apr_array_header_t *transfer_sources; /* NULL: unset (any) */
    apr_int64_t transfer_timeout;    /* -1: unset */
    const char *zone_dir;            /* NULL: unset (no publishing) */
    const char *zone_reload_command; /* NULL: unset */
    apr_int64_t rate_lists;          /* -1: unset; 0: off */
    apr_int64_t rate_others;
    int rate_in_database;            /* AcctapiRateLimitScope: -1 unset, 0 node */
    apr_interval_time_t db_timeout;  /* AcctapiDatabaseTimeout: -1 unset */
    apr_int64_t max_tokens;          /* AcctapiMaxTokensPerUser: -1 unset */
} acctapi_dir_conf;

/* AcctapiHeaderWait: how long a request header may take to arrive while
 * the connection waits in the event MPM's poll set (acctapi_headers.c). */
#define ACCTAPI_DEFAULT_HEADER_WAIT_SEC 20

/* Directives of a virtual host (connection level, before any request). */
typedef struct acctapi_srv_conf {
    apr_interval_time_t header_wait; /* -1: unset; 0: off */
} acctapi_srv_conf;

extern const command_rec acctapi_cmds[];

void *acctapi_create_srv_conf(apr_pool_t *pool, server_rec *s);
void *acctapi_merge_srv_conf(apr_pool_t *pool, void *base, void *add);

/* AcctapiHeaderWait, default applied; 0 when off. */
apr_interval_time_t acctapi_conf_header_wait(const acctapi_srv_conf *conf);

void *acctapi_create_dir_conf(apr_pool_t *pool, char *dir);
void *acctapi_merge_dir_conf(apr_pool_t *pool, void *base, void *add);

/* Does AcctapiRateLimitScope (default node) count in the database? */
int acctapi_conf_rate_in_database(const acctapi_dir_conf *conf);

/* AcctapiDatabaseTimeout, default applied. */
apr_interval_time_t acctapi_conf_db_timeout(const acctapi_dir_conf *conf);

/* Effective values, defaults applied. */
void acctapi_conf_settings(const acctapi_dir_conf *conf, acct_settings *out,
                           apr_off_t *max_body);

#endif
