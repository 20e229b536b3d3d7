/*
 * Every directive of mod_acctapi, once.  An X-macro list: the includer
 * defines ACCTAPI_DIR (per directory/location) and ACCTAPI_SRV (per virtual
 * host) and includes this file; it is included again for each thing made
 * from the list, so it has no include guard and undefines both at the end.
 * Made from it: the fields of acctapi_dir_conf and acctapi_srv_conf and
 * their getters (acctapi_config.h), create, merge ("later wins if set"), the
 * copy into the core's acct_settings, the parser descriptors and the
 * command table (acctapi_config.c).  tests/check-directives compares the
 * names with the table of docs/configuration.md.
 *
 * ACCTAPI_DIR(name, field, kind, default, to, how, parser, args, help)
 *   name     the directive, a string literal
 *   field    its member in the configuration struct; acctapi_conf_<field>()
 *            returns the effective value (default applied)
 *   kind     NUM (apr_int64_t), BOOL (int, 0 or 1), ENUM (int, 0, 1 or
 *            2: the index of a set_choice word), TEXT (const char *),
 *            KEY (const unsigned char *), LIST (apr_array_header_t * of
 *            strings, NULL-terminated; read as const char *const *) or PAIR
 *            (acctapi_pair, two numbers set together); "unset" is -1 for
 *            numbers and NULL for pointers (acctapi_config.h)
 *   default  the effective value while unset
 *   to       CORE(member): copied into acct_settings.member;
 *            CORE2(lo, hi): a PAIR copied into two members;
 *            GLUE: read by the httpd glue through acctapi_conf_<field>()
 *   how      TAKE1, TAKE12, FLAG or ITERATE (httpd's AP_INIT_<how>)
 *   parser   a generic parser, given args through its descriptor:
 *              set_number   (.min, .max[, .unit]): a whole number in
 *                           [min, max], stored times unit (default 1)
 *              set_duration 90s, 30m, 2h, 1d or seconds, up to 7 days
 *              set_text     (.error): any non-empty string
 *              set_choice   (.words = {w0, w1}, .error): w0 is 0, w1 is 1
 *                           (a BOOL); {w0, w1, w2}: 0, 1, 2 (an ENUM)
 *              set_onoff    (FLAG) On is 1, Off is 0
 *            or one of its own in acctapi_config.c, with args ()
 *   help     httpd's help text (httpd -L, syntax errors)
 * ACCTAPI_SRV: the same columns; "to" is always GLUE.
 *
 * Contexts: ACCTAPI_DIR in server, virtual host, <Location> and <Directory>,
 * never .htaccess (these choose keys, programs and limits of the server);
 * ACCTAPI_SRV in server and virtual host only.
 */
#if !defined(ACCTAPI_DIR) || !defined(ACCTAPI_SRV)
#error "define ACCTAPI_DIR and ACCTAPI_SRV before including acctapi_directives.h"
#endif

ACCTAPI_DIR("AcctapiMaxBodySize", max_body, NUM, 1024 * 1024, GLUE,
            TAKE1, set_number, (.min = 1024, .max = APR_INT64_C(1073741824)),
            "Largest request body accepted, in bytes (default 1048576); "
            "larger bodies are answered 413")

ACCTAPI_DIR("AcctapiTestClock", test_clock, BOOL, 0, CORE(test_clock),
            FLAG, set_onoff, (),
            "On: honour the fleet-wide test clock offset stored in the "
            "database (acctapi-admin clock); never in production "
            "(default Off)")

/* The longest a request waits for the database at each step: a statement's
 * answer from PostgreSQL, a writer's turn on SQLite.  Then 503. */
ACCTAPI_DIR("AcctapiDatabaseTimeout", db_timeout, NUM, apr_time_from_sec(5),
            GLUE, TAKE1, set_db_timeout, (),
            "Longest wait for the database at each step: PostgreSQL's "
            "answer to a statement, an SQLite writer's turn; then 503 "
            "(seconds, or milliseconds with ms; default 5)")

ACCTAPI_DIR("AcctapiCatalogCacheTTL", catalog_ttl, NUM, apr_time_from_sec(60),
            CORE(catalog_ttl), TAKE1, set_number,
            (.min = 0, .max = 86400, .unit = APR_USEC_PER_SEC),
            "Seconds a child keeps its copy of the regions, compute "
            "types and engines catalogues (default 60; 0 disables)")

ACCTAPI_DIR("AcctapiReferralURL", referral_url, TEXT,
            "https://cloud.example.com/referrals/", CORE(referral_url),
            TAKE1, set_text,
            (.error = "AcctapiReferralURL: the URL prefix may not be empty"),
            "Prefix of the referral URL shown in profiles")

ACCTAPI_DIR("AcctapiSecretKeyFile", seal_key, KEY, NULL, CORE(seal_key),
            TAKE1, set_secret_key_file, (),
            "File of 64 hex digits: the AES-256 key that seals "
            "two-factor secrets and security answers at rest")

ACCTAPI_DIR("AcctapiDatabaseBackend", db_external, BOOL, 0, CORE(db_external),
            TAKE1, set_choice,
            (.words = {"emulate", "external"},
             .error = "AcctapiDatabaseBackend: must be 'emulate' or "
                      "'external'"),
            "emulate (default): database lifecycles advance by "
            "themselves after the configured durations; external: an "
            "orchestrator drives them through acctapi-admin")

/* Managed databases: realistic durations unless configured otherwise. */
ACCTAPI_DIR("AcctapiDatabaseProvisionTime", db_provision, PAIR,
            ACCTAPI_PAIR(15 * 60, 30 * 60),
            CORE2(db_provision_min, db_provision_max),
            TAKE12, set_db_provision, (),
            "How long provisioning takes: MIN [MAX] (default 15m 30m)")

ACCTAPI_DIR("AcctapiDatabaseOperationTime", db_operation, NUM, 3 * 60,
            CORE(db_operation), TAKE1, set_duration, (),
            "How long updates, backups, restores, patches and "
            "credential resets take (default 3m)")

ACCTAPI_DIR("AcctapiDatabaseHostSuffix", db_host_suffix, TEXT,
            "db.example.com", CORE(db_host_suffix),
            TAKE1, set_db_host_suffix, (),
            "Domain under which database hosts are named (default "
            "db.example.com)")

/* Unset: each engine's own administrator, as the contract names them
 * (linroot, linpostgres); today's service names both akmadmin. */
ACCTAPI_DIR("AcctapiDatabaseAdminUser", db_admin_user, TEXT, NULL,
            CORE(db_admin_user), TAKE1, set_db_admin_user, (),
            "User name of the administrator of every new managed database "
            "(default: linroot for MySQL, linpostgres for PostgreSQL)")

/* How answers name a provisioned database's hosts (acct_db_hosts_of): the
 * contract's, or today's service's as its clients' recorded traffic shows
 * them (a<id>-akamai-prod-<n>-default.<suffix>, a standby replica-... only
 * with replicas, private- in front once the database is in a VPC). */
ACCTAPI_DIR("AcctapiDatabaseHostNames", db_host_public, BOOL, 0,
            CORE(db_host_public), TAKE1, set_choice,
            (.words = {"contract", "public"},
             .error = "AcctapiDatabaseHostNames: contract (the default) or "
                      "public"),
            "How managed databases' hosts are named: contract (default: "
            "lin-<account>-<id>-<engine>-primary[-private].<suffix>) or "
            "public (today's service: a<id>-akamai-prod-<account>-default."
            "<suffix>, standby replica-... with replicas)")

/* default_nameservers: ACCT_DNS_DEFAULT_NAMESERVERS, the list acctapi-admin
 * zones publish uses too. */
ACCTAPI_DIR("AcctapiNameservers", nameservers, LIST, default_nameservers,
            CORE(nameservers), ITERATE, add_nameserver, (),
            "Host names of the nameservers that serve the hosted "
            "zones: the NS records of every zone file")

/* Unset: the system chooses the source address. */
ACCTAPI_DIR("AcctapiTransferSource", transfer_sources, LIST, NULL,
            CORE(transfer_sources), ITERATE, add_transfer_source, (),
            "Local IPv4 and/or IPv6 addresses that zone transfers "
            "(domain import) are made from (default: any)")

/* 0: node (shared memory), 1: database. */
ACCTAPI_DIR("AcctapiRateLimitScope", rate_in_database, BOOL, 0, GLUE,
            TAKE1, set_choice,
            (.words = {"node", "database"},
             .error = "AcctapiRateLimitScope: node (this server's children "
                      "count together) or database (every node sharing the "
                      "database does)"),
            "Where rate-limit counters live: node (this server's shared "
            "memory, the default) or database (shared by every node)")

/* Per user (or client address) and minute, as the public API; off: 0 0. */
ACCTAPI_DIR("AcctapiRateLimit", rate, PAIR, ACCTAPI_PAIR(200, 1600),
            CORE2(rate_lists, rate_others), TAKE12, set_rate_limit, (),
            "Requests per minute per user, whichever of their tokens "
            "is used (per client address without one): LISTS OTHERS "
            "for paginated list GETs and for every other request "
            "(default 200 1600), or off")

/* The cap on a user's active personal access tokens (POST /profile/tokens);
 * the operator's acctapi-admin token create is not bound by it. */
ACCTAPI_DIR("AcctapiMaxTokensPerUser", max_tokens, NUM, 100, CORE(max_tokens),
            TAKE1, set_number, (.min = 1, .max = APR_INT64_C(1000000)),
            "Active (unexpired, unrevoked) personal access tokens a "
            "user may hold before POST /profile/tokens is refused "
            "(1 to 1000000, default 100)")

/* Zone transfers (domain import): the deadline of the whole exchange, from
 * connecting to the last message, in seconds. */
ACCTAPI_DIR("AcctapiTransferTimeout", transfer_timeout, NUM, 10,
            CORE(transfer_timeout), TAKE1, set_number,
            (.min = 1, .max = 300),
            "Seconds a whole zone transfer may take, from connecting to "
            "the last message (1 to 300, default 10)")

/* Unset: nothing is published. */
ACCTAPI_DIR("AcctapiZoneDir", zone_dir, TEXT, NULL, CORE(zone_dir),
            TAKE1, set_zone_dir, (),
            "Directory where every active master zone is published as "
            "<zone>.zone, with zones.conf, a BIND include declaring "
            "every active zone (default: no publishing)")

ACCTAPI_DIR("AcctapiZoneReloadCommand", zone_reload_command, TEXT, NULL,
            CORE(zone_reload_command), TAKE1, set_text,
            (.error = "AcctapiZoneReloadCommand: the command is empty"),
            "Program (with arguments) run in the background after the "
            "published zones change: with the zone's name appended when "
            "only its file changed, with nothing appended when "
            "zones.conf changed, e.g. rndc reload (default: none)")

ACCTAPI_DIR("AcctapiSmsCommand", sms_command, TEXT, NULL, CORE(sms_command),
            TAKE1, set_text,
            (.error = "AcctapiSmsCommand: the command may not be empty"),
            "Program (with arguments) run to send a text message; the "
            "phone number and the message are appended as two more "
            "arguments")

/* The fields the contract and the public API name differently (acct_names.h):
 * both names in every response by default; public for clients that validate
 * answers against the public API's schema, which forbids extra keys. */
ACCTAPI_DIR("AcctapiFieldNames", field_names, ENUM, ACCT_NAMES_BOTH,
            CORE(field_names), TAKE1, set_choice,
            (.words = {"both", "public", "contract"},
             .error = "AcctapiFieldNames: both (the default), public or "
                      "contract"),
            "Names of the fields the contract and the public API name "
            "differently (shell_auth_method/lish_auth_method, the grants' "
            "instance/linode, monitoring/longview ...) in responses: both "
            "(default), public or contract")

/* How long a request header may take to arrive while the connection waits
 * in the event MPM's poll set (acctapi_headers.c); 0: off.  It acts before
 * any request, so per virtual host only. */
ACCTAPI_SRV("AcctapiHeaderWait", header_wait, NUM, apr_time_from_sec(20),
            GLUE, TAKE1, set_header_wait, (),
            "Seconds a request header may take to arrive while its "
            "connection waits in the event MPM's poll set instead of "
            "holding a worker thread (1 to 300, default 20), or off: "
            "httpd reads every header with a blocking worker")

/* Per server: the connections of mod_dbd's pool are the server's. */
ACCTAPI_SRV("AcctapiPreparedStatements", named_statements, BOOL, 1,
            GLUE, FLAG, set_onoff, (),
            "On: PostgreSQL statements are prepared once per connection "
            "and run by name (default); Off: sent with their text each "
            "time and no session setting made, for a transaction pooler "
            "such as PgBouncer's pool_mode = transaction")

#undef ACCTAPI_DIR
#undef ACCTAPI_SRV
