/*
 * The core's settings: what the module's directives (or acctapi-admin's
 * options) decide, as plain values the model and the handlers read.
 */
#ifndef ACCT_SETTINGS_H
#define ACCT_SETTINGS_H

#include <apr.h>
#include <apr_time.h>

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


#endif
