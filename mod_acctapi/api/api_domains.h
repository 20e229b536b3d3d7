/*
 * What the handlers of a domain's resources (its records, zone file and
 * import) share with the /domains handlers: the domain a path names and
 * the Domain object a write answers.
 */
#ifndef API_DOMAINS_H
#define API_DOMAINS_H

#include "acct_api.h"

/*
 * The domain of path parameter 0 (acct_dns_domain: in the acting user's
 * account, `need` held on it); NULL once the error is answered.
 */
acct_rows *api_domain_of_path(acct_req *req, acct_resp *resp,
                              acct_level need);

/* Answers 200 with domain `id` as it is stored now. */
void api_domain_respond(acct_req *req, acct_resp *resp, apr_int64_t id);

#endif
