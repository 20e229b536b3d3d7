/* Every route handler, by resource; the route table (api_routes.c) names them. */
#ifndef API_HANDLERS_H
#define API_HANDLERS_H

#include "acct_api.h"

/* api_catalog.c */
acct_handler api_regions_list;
acct_handler api_region_get;
acct_handler api_regions_availability;
acct_handler api_region_availability;
acct_handler api_regions_vpc_availability;
acct_handler api_region_vpc_availability;
acct_handler api_types_list;
acct_handler api_type_get;
acct_handler api_engines_list;
acct_handler api_engine_get;
acct_handler api_db_types_list;
acct_handler api_db_type_get;
/* req->route->param is the engine. */
acct_handler api_db_config_get;

/* api_profile.c */
acct_handler api_profile_get;
acct_handler api_profile_grants;
/* The grants document of restricted user `user_id` (api_profile.c), also
 * for GET /account/users/{username}/grants. */
void api_grants_respond(acct_req *req, acct_resp *resp, apr_int64_t user_id);
acct_handler api_profile_update;

/* api_tokens.c */
acct_handler api_tokens_list;
acct_handler api_token_create;
acct_handler api_token_get;
acct_handler api_token_update;
acct_handler api_token_revoke;

/* api_sshkeys.c */
acct_handler api_sshkeys_list;
acct_handler api_sshkey_create;
acct_handler api_sshkey_get;
acct_handler api_sshkey_update;
acct_handler api_sshkey_delete;

/* api_security.c */
acct_handler api_security_questions_get;
acct_handler api_security_questions_answer;

/* api_tfa.c */
acct_handler api_tfa_enable;
acct_handler api_tfa_confirm;
acct_handler api_tfa_disable;

/* api_phone.c */
acct_handler api_phone_send;
acct_handler api_phone_verify;
acct_handler api_phone_delete;

/* api_preferences.c */
acct_handler api_preferences_get;
acct_handler api_preferences_put;

/* api_apps.c */
acct_handler api_apps_list;
acct_handler api_app_get;
acct_handler api_app_revoke;

/* api_devices.c */
acct_handler api_devices_list;
acct_handler api_device_get;
acct_handler api_device_revoke;

/* api_logins.c */
acct_handler api_logins_list;
acct_handler api_login_get;

/* api_domains.c */
acct_handler api_domains_list;
acct_handler api_domain_create;
acct_handler api_domain_get;
acct_handler api_domain_update;
acct_handler api_domain_delete;
acct_handler api_domain_clone;

/* api_import.c */
acct_handler api_domain_import;

/* api_openapi.c */
acct_handler api_openapi;

/* api_records.c */
acct_handler api_records_list;
acct_handler api_record_create;
acct_auth_read api_record_create_read;
acct_handler api_record_get;
acct_handler api_record_update;
acct_handler api_record_delete;

/* api_zone.c */
acct_handler api_zone_file;

/*
 * The per-process cache of api_zone_file's answers: once per process
 * (child_init), before requests; `pool` outlives them.  Without it every
 * answer is rendered afresh.  0, or -1 when the cache cannot be made.
 */
int api_zone_cache_init(apr_pool_t *pool);

/* api_databases.c; api_database_create: api_db_create.c */
acct_handler api_databases_all;
acct_handler api_databases_list;
acct_handler api_database_create;
acct_handler api_database_get;
acct_handler api_database_update;
acct_handler api_database_delete;

/* api_dbops.c */
acct_handler api_db_backups_list;
acct_handler api_db_snapshot_create;
acct_handler api_db_backup_get;
acct_handler api_db_backup_delete;
acct_handler api_db_backup_restore;
acct_handler api_db_credentials_get;
acct_handler api_db_credentials_reset;
acct_handler api_db_patch;
acct_handler api_db_ssl_get;
acct_handler api_db_suspend;
acct_handler api_db_resume;

/* api_tags.c */
acct_handler api_tags_list;
acct_handler api_tag_create;
acct_handler api_tag_objects;
acct_handler api_tag_delete;

/* api_events.c */
acct_handler api_events_list;
acct_auth_read api_events_list_read;
acct_auth_read api_event_get_read;
acct_handler api_event_get;
acct_handler api_event_seen;
acct_handler api_event_read;
/* api_account_users.c */
acct_handler api_account_users_list;
acct_handler api_account_user_get;
acct_handler api_account_user_grants;

/* api_entities.c: req->route->param is the entity type. */
acct_handler api_entities_list;
acct_handler api_entity_get;

#endif
