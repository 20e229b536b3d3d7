/* Every route handler, by resource; the route table (acct_routes.c) names them. */
#ifndef API_HANDLERS_H
#define API_HANDLERS_H

#include "acct_api.h"

/* api_catalog.c */
acct_handler api_regions_list;
acct_handler api_region_get;
acct_handler api_regions_availability;
acct_handler api_region_availability;
acct_handler api_types_list;
acct_handler api_type_get;
acct_handler api_engines_list;
acct_handler api_engine_get;

/* api_profile.c */
acct_handler api_profile_get;
acct_handler api_profile_grants;

/* api_tokens.c */
acct_handler api_tokens_list;
acct_handler api_token_create;
acct_handler api_token_get;
acct_handler api_token_update;
acct_handler api_token_revoke;

#endif
