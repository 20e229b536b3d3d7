/*
 * The service's routes.  One row per (method, path): the handler, the flags,
 * and the scope a token needs (docs/conventions.md, "Auth, scopes, grants").
 */
#include "acct_router.h"
#include "api_handlers.h"
#include "acct_grants.h"

#define PUBLIC_GET(path, fn, extra) \
    {ACCT_METHOD_GET, path, fn, ACCT_ROUTE_PUBLIC | (extra), ACCT_FAM_ACCOUNT, \
     ACCT_LEVEL_NONE}
#define ACCOUNT_READ(method, path, fn, flags) \
    {method, path, fn, flags, ACCT_FAM_ACCOUNT, ACCT_LEVEL_READ_ONLY}
#define ACCOUNT_WRITE(method, path, fn, flags) \
    {method, path, fn, flags, ACCT_FAM_ACCOUNT, ACCT_LEVEL_READ_WRITE}
/* Databases: one row per engine; the handler reads the engine from `param`. */
#define DATABASES(method, path, fn, flags, level, engine) \
    {method, path, fn, flags, ACCT_FAM_DATABASES, level, engine}
#define DB_ENGINE_ROUTES(engine) \
    DATABASES(ACCT_METHOD_GET, "/databases/" engine "/instances", \
              api_databases_list, ACCT_ROUTE_LIST, ACCT_LEVEL_READ_ONLY, engine), \
    DATABASES(ACCT_METHOD_POST, "/databases/" engine "/instances", \
              api_database_create, ACCT_ROUTE_BODY, ACCT_LEVEL_READ_WRITE, engine), \
    DATABASES(ACCT_METHOD_GET, "/databases/" engine "/instances/{instanceId}", \
              api_database_get, 0, ACCT_LEVEL_READ_ONLY, engine), \
    DATABASES(ACCT_METHOD_PUT, "/databases/" engine "/instances/{instanceId}", \
              api_database_update, ACCT_ROUTE_BODY, ACCT_LEVEL_READ_WRITE, engine), \
    DATABASES(ACCT_METHOD_DELETE, "/databases/" engine "/instances/{instanceId}", \
              api_database_delete, ACCT_ROUTE_UNRESTRICTED_ONLY, \
              ACCT_LEVEL_READ_WRITE, engine), \
    DATABASES(ACCT_METHOD_GET, \
              "/databases/" engine "/instances/{instanceId}/backups", \
              api_db_backups_list, ACCT_ROUTE_LIST, ACCT_LEVEL_READ_WRITE, engine), \
    DATABASES(ACCT_METHOD_POST, \
              "/databases/" engine "/instances/{instanceId}/backups", \
              api_db_snapshot_create, ACCT_ROUTE_BODY, ACCT_LEVEL_READ_WRITE, \
              engine), \
    DATABASES(ACCT_METHOD_GET, \
              "/databases/" engine "/instances/{instanceId}/backups/{backupId}", \
              api_db_backup_get, 0, ACCT_LEVEL_READ_WRITE, engine), \
    DATABASES(ACCT_METHOD_DELETE, \
              "/databases/" engine "/instances/{instanceId}/backups/{backupId}", \
              api_db_backup_delete, 0, ACCT_LEVEL_READ_WRITE, engine), \
    DATABASES(ACCT_METHOD_POST, "/databases/" engine \
              "/instances/{instanceId}/backups/{backupId}/restore", \
              api_db_backup_restore, 0, ACCT_LEVEL_READ_WRITE, engine), \
    DATABASES(ACCT_METHOD_GET, \
              "/databases/" engine "/instances/{instanceId}/credentials", \
              api_db_credentials_get, 0, ACCT_LEVEL_READ_ONLY, engine), \
    DATABASES(ACCT_METHOD_POST, \
              "/databases/" engine "/instances/{instanceId}/credentials/reset", \
              api_db_credentials_reset, ACCT_ROUTE_UNRESTRICTED_ONLY, \
              ACCT_LEVEL_READ_WRITE, engine), \
    DATABASES(ACCT_METHOD_POST, \
              "/databases/" engine "/instances/{instanceId}/patch", \
              api_db_patch, 0, ACCT_LEVEL_READ_WRITE, engine), \
    DATABASES(ACCT_METHOD_GET, "/databases/" engine "/instances/{instanceId}/ssl", \
              api_db_ssl_get, 0, ACCT_LEVEL_READ_ONLY, engine), \
    DATABASES(ACCT_METHOD_POST, \
              "/databases/" engine "/instances/{instanceId}/suspend", \
              api_db_suspend, 0, ACCT_LEVEL_READ_WRITE, engine), \
    DATABASES(ACCT_METHOD_POST, \
              "/databases/" engine "/instances/{instanceId}/resume", \
              api_db_resume, 0, ACCT_LEVEL_READ_WRITE, engine)
/* Read-only views of registered entities: the handler reads the type from
 * `param`. */
#define ENTITY_VIEWS(path, idparam, family, type, flags) \
    {ACCT_METHOD_GET, path, api_entities_list, ACCT_ROUTE_LIST | (flags), \
     family, ACCT_LEVEL_READ_ONLY, type}, \
    {ACCT_METHOD_GET, path "/" idparam, api_entity_get, (flags), family, \
     ACCT_LEVEL_READ_ONLY, type}
#define DOMAINS_READ(method, path, fn, flags) \
    {method, path, fn, flags, ACCT_FAM_DOMAINS, ACCT_LEVEL_READ_ONLY}
#define DOMAINS_WRITE(method, path, fn, flags) \
    {method, path, fn, flags, ACCT_FAM_DOMAINS, ACCT_LEVEL_READ_WRITE}

const acct_route acct_routes[] = {
    /* Catalogues: public, the Authorization header is ignored. */
    /* The OpenAPI document of this build (mod_acctapi/openapi.json). */
    PUBLIC_GET("/openapi.json", api_openapi, 0),
    PUBLIC_GET("/regions", api_regions_list,
               ACCT_ROUTE_LIST | ACCT_ROUTE_CACHEABLE),
    PUBLIC_GET("/regions/availability", api_regions_availability,
               ACCT_ROUTE_LIST),
    PUBLIC_GET("/regions/{regionId}", api_region_get, ACCT_ROUTE_CACHEABLE),
    PUBLIC_GET("/regions/{regionId}/availability", api_region_availability, 0),
    /* VPC availability, public like the plans' availability. */
    PUBLIC_GET("/regions/vpc-availability", api_regions_vpc_availability,
               ACCT_ROUTE_LIST),
    PUBLIC_GET("/regions/{regionId}/vpc-availability",
               api_region_vpc_availability, 0),
    PUBLIC_GET("/compute/types", api_types_list, ACCT_ROUTE_LIST),
    PUBLIC_GET("/compute/types/{typeId}", api_type_get, 0),
    /* The same catalogue under the public API's own path, which its SDKs,
     * CLI and Terraform provider call (the contract's /compute/types). */
    PUBLIC_GET("/linode/types", api_types_list, ACCT_ROUTE_LIST),
    PUBLIC_GET("/linode/types/{typeId}", api_type_get, 0),
    PUBLIC_GET("/databases/engines", api_engines_list, ACCT_ROUTE_LIST),
    PUBLIC_GET("/databases/engines/{engineId...}", api_engine_get, 0),
    /* Today's managed-database catalogues: node types with
     * their prices, and each engine's settings (engine_config), public as
     * the engines are; the handler reads the engine from `param`. */
    PUBLIC_GET("/databases/types", api_db_types_list, ACCT_ROUTE_LIST),
    PUBLIC_GET("/databases/types/{typeId}", api_db_type_get, 0),
    {ACCT_METHOD_GET, "/databases/mysql/config", api_db_config_get,
     ACCT_ROUTE_PUBLIC, ACCT_FAM_ACCOUNT, ACCT_LEVEL_NONE, "mysql"},
    {ACCT_METHOD_GET, "/databases/postgresql/config", api_db_config_get,
     ACCT_ROUTE_PUBLIC, ACCT_FAM_ACCOUNT, ACCT_LEVEL_NONE, "postgresql"},

    /* Profile: any valid token. */
    {ACCT_METHOD_GET, "/profile", api_profile_get,
     ACCT_ROUTE_ANY_TOKEN | ACCT_ROUTE_PROFILE_ROW, ACCT_FAM_ACCOUNT,
     ACCT_LEVEL_NONE},
    {ACCT_METHOD_GET, "/profile/grants", api_profile_grants,
     ACCT_ROUTE_ANY_TOKEN, ACCT_FAM_ACCOUNT, ACCT_LEVEL_NONE},

    /* Profile.  GET needs account:read_only, changes account:read_write. */
    ACCOUNT_WRITE(ACCT_METHOD_PUT, "/profile", api_profile_update,
                  ACCT_ROUTE_BODY),
    ACCOUNT_READ(ACCT_METHOD_GET, "/profile/apps", api_apps_list, ACCT_ROUTE_LIST),
    ACCOUNT_READ(ACCT_METHOD_GET, "/profile/apps/{appId}", api_app_get, 0),
    ACCOUNT_WRITE(ACCT_METHOD_DELETE, "/profile/apps/{appId}", api_app_revoke, 0),
    ACCOUNT_READ(ACCT_METHOD_GET, "/profile/devices", api_devices_list,
                 ACCT_ROUTE_LIST),
    ACCOUNT_READ(ACCT_METHOD_GET, "/profile/devices/{deviceId}", api_device_get, 0),
    ACCOUNT_WRITE(ACCT_METHOD_DELETE, "/profile/devices/{deviceId}",
                  api_device_revoke, 0),
    ACCOUNT_READ(ACCT_METHOD_GET, "/profile/logins", api_logins_list,
                 ACCT_ROUTE_LIST),
    ACCOUNT_READ(ACCT_METHOD_GET, "/profile/logins/{loginId}", api_login_get, 0),
    ACCOUNT_WRITE(ACCT_METHOD_POST, "/profile/phone-number", api_phone_send,
                  ACCT_ROUTE_BODY),
    ACCOUNT_WRITE(ACCT_METHOD_DELETE, "/profile/phone-number", api_phone_delete, 0),
    ACCOUNT_WRITE(ACCT_METHOD_POST, "/profile/phone-number/verify",
                  api_phone_verify, ACCT_ROUTE_BODY),
    ACCOUNT_READ(ACCT_METHOD_GET, "/profile/preferences", api_preferences_get, 0),
    ACCOUNT_WRITE(ACCT_METHOD_PUT, "/profile/preferences", api_preferences_put,
                  ACCT_ROUTE_BODY),
    ACCOUNT_READ(ACCT_METHOD_GET, "/profile/security-questions",
                 api_security_questions_get, 0),
    ACCOUNT_WRITE(ACCT_METHOD_POST, "/profile/security-questions",
                  api_security_questions_answer, ACCT_ROUTE_BODY),
    ACCOUNT_READ(ACCT_METHOD_GET, "/profile/sshkeys", api_sshkeys_list,
                 ACCT_ROUTE_LIST),
    ACCOUNT_WRITE(ACCT_METHOD_POST, "/profile/sshkeys", api_sshkey_create,
                  ACCT_ROUTE_BODY),
    ACCOUNT_READ(ACCT_METHOD_GET, "/profile/sshkeys/{sshKeyId}", api_sshkey_get, 0),
    ACCOUNT_WRITE(ACCT_METHOD_PUT, "/profile/sshkeys/{sshKeyId}", api_sshkey_update,
                  ACCT_ROUTE_BODY),
    ACCOUNT_WRITE(ACCT_METHOD_DELETE, "/profile/sshkeys/{sshKeyId}",
                  api_sshkey_delete, 0),
    ACCOUNT_WRITE(ACCT_METHOD_POST, "/profile/tfa-disable", api_tfa_disable, 0),
    ACCOUNT_WRITE(ACCT_METHOD_POST, "/profile/tfa-enable", api_tfa_enable, 0),
    ACCOUNT_WRITE(ACCT_METHOD_POST, "/profile/tfa-enable-confirm", api_tfa_confirm,
                  ACCT_ROUTE_BODY),

    /* Personal access tokens. */
    ACCOUNT_READ(ACCT_METHOD_GET, "/profile/tokens", api_tokens_list,
                 ACCT_ROUTE_LIST),
    ACCOUNT_WRITE(ACCT_METHOD_POST, "/profile/tokens", api_token_create,
                  ACCT_ROUTE_BODY),
    ACCOUNT_READ(ACCT_METHOD_GET, "/profile/tokens/{tokenId}", api_token_get, 0),
    ACCOUNT_WRITE(ACCT_METHOD_PUT, "/profile/tokens/{tokenId}", api_token_update,
                  ACCT_ROUTE_BODY),
    ACCOUNT_WRITE(ACCT_METHOD_DELETE, "/profile/tokens/{tokenId}",
                  api_token_revoke, 0),

    /* DNS domains: GET needs domains:read_only, changes domains:read_write. */
    DOMAINS_READ(ACCT_METHOD_GET, "/domains", api_domains_list, ACCT_ROUTE_LIST),
    DOMAINS_WRITE(ACCT_METHOD_POST, "/domains", api_domain_create,
                  ACCT_ROUTE_BODY),
    DOMAINS_WRITE(ACCT_METHOD_POST, "/domains/import", api_domain_import,
                  ACCT_ROUTE_BODY),
    DOMAINS_READ(ACCT_METHOD_GET, "/domains/{domainId}", api_domain_get, 0),
    DOMAINS_WRITE(ACCT_METHOD_PUT, "/domains/{domainId}", api_domain_update,
                  ACCT_ROUTE_BODY),
    DOMAINS_WRITE(ACCT_METHOD_DELETE, "/domains/{domainId}", api_domain_delete, 0),
    DOMAINS_WRITE(ACCT_METHOD_POST, "/domains/{domainId}/clone", api_domain_clone,
                  ACCT_ROUTE_BODY),
    DOMAINS_READ(ACCT_METHOD_GET, "/domains/{domainId}/records", api_records_list,
                 ACCT_ROUTE_LIST),
    /* The domain goes with the token lookup: a record is read against its
     * name before the write, which then takes one round trip. */
    {ACCT_METHOD_POST, "/domains/{domainId}/records", api_record_create,
     ACCT_ROUTE_BODY, ACCT_FAM_DOMAINS, ACCT_LEVEL_READ_WRITE, NULL,
     api_record_create_read},
    DOMAINS_READ(ACCT_METHOD_GET, "/domains/{domainId}/records/{recordId}",
                 api_record_get, 0),
    DOMAINS_WRITE(ACCT_METHOD_PUT, "/domains/{domainId}/records/{recordId}",
                  api_record_update, ACCT_ROUTE_BODY),
    DOMAINS_WRITE(ACCT_METHOD_DELETE, "/domains/{domainId}/records/{recordId}",
                  api_record_delete, 0),
    DOMAINS_READ(ACCT_METHOD_GET, "/domains/{domainId}/zone-file", api_zone_file,
                 0),

    /* Tags: unrestricted users only (the contract's "All tag operations"). */
    ACCOUNT_READ(ACCT_METHOD_GET, "/tags", api_tags_list,
                 ACCT_ROUTE_LIST | ACCT_ROUTE_UNRESTRICTED_ONLY),
    ACCOUNT_WRITE(ACCT_METHOD_POST, "/tags", api_tag_create,
                  ACCT_ROUTE_BODY | ACCT_ROUTE_UNRESTRICTED_ONLY),
    ACCOUNT_READ(ACCT_METHOD_GET, "/tags/{tagLabel}", api_tag_objects,
                 ACCT_ROUTE_LIST | ACCT_ROUTE_UNRESTRICTED_ONLY),
    ACCOUNT_WRITE(ACCT_METHOD_DELETE, "/tags/{tagLabel}", api_tag_delete,
                  ACCT_ROUTE_UNRESTRICTED_ONLY),

    /* Managed databases: every backup route needs read_write
     * (docs/conventions.md);
     * delete and credential resets are for unrestricted users only. */
    DATABASES(ACCT_METHOD_GET, "/databases/instances", api_databases_all,
              ACCT_ROUTE_LIST, ACCT_LEVEL_READ_ONLY, NULL),
    DB_ENGINE_ROUTES("mysql"),
    DB_ENGINE_ROUTES("postgresql"),

    /* The account's event feed: reads need events:read_only, marking an
     * event seen or read events:read_write. */
    /* Polled in a loop by the Terraform provider while it waits: the page
     * and the event go with the token lookup. */
    {ACCT_METHOD_GET, "/account/events", api_events_list, ACCT_ROUTE_LIST,
     ACCT_FAM_EVENTS, ACCT_LEVEL_READ_ONLY, NULL, api_events_list_read},
    {ACCT_METHOD_GET, "/account/events/{eventId}", api_event_get, 0,
     ACCT_FAM_EVENTS, ACCT_LEVEL_READ_ONLY, NULL, api_event_get_read},
    {ACCT_METHOD_POST, "/account/events/{eventId}/read", api_event_read, 0,
     ACCT_FAM_EVENTS, ACCT_LEVEL_READ_WRITE},
    {ACCT_METHOD_POST, "/account/events/{eventId}/seen", api_event_seen, 0,
     ACCT_FAM_EVENTS, ACCT_LEVEL_READ_WRITE},
    /* Today's clients: read-only views they call before
     * anything else.  The account's users: unrestricted users only, as the
     * public API documents. */
    ACCOUNT_READ(ACCT_METHOD_GET, "/account/users", api_account_users_list,
                 ACCT_ROUTE_LIST | ACCT_ROUTE_UNRESTRICTED_ONLY),
    ACCOUNT_READ(ACCT_METHOD_GET, "/account/users/{username}",
                 api_account_user_get, ACCT_ROUTE_UNRESTRICTED_ONLY),
    ACCOUNT_READ(ACCT_METHOD_GET, "/account/users/{username}/grants",
                 api_account_user_grants, ACCT_ROUTE_UNRESTRICTED_ONLY),
    /* Registered entities in the public shapes, under the public paths;
     * restricted users see those they hold a grant on.  Images also answer
     * without a token (linode-cli configure asks so): the public's list. */
    ENTITY_VIEWS("/linode/instances", "{linodeId}", ACCT_FAM_LINODES,
                 ACCT_ENTITY_INSTANCE, 0),
    ENTITY_VIEWS("/volumes", "{volumeId}", ACCT_FAM_VOLUMES,
                 ACCT_ENTITY_VOLUME, 0),
    ENTITY_VIEWS("/nodebalancers", "{nodeBalancerId}", ACCT_FAM_NODEBALANCERS,
                 ACCT_ENTITY_NODEBALANCER, 0),
    ENTITY_VIEWS("/images", "{imageId...}", ACCT_FAM_IMAGES, ACCT_ENTITY_IMAGE,
                 ACCT_ROUTE_TOKEN_OPTIONAL),

    {0, NULL, NULL, 0, 0, 0, NULL}
};
