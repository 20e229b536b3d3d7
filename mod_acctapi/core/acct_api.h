/*
 * Everything a handler sees, in one include: the request (acct_req.h), the
 * principal and settings it carries, the model's outcomes and the response
 * (acct_resp.h).  For api/, httpd/ and the CLI.  Core files include the
 * headers they use and the model includes acct_req.h and acct_outcome.h:
 * neither ever includes this (tests/check-layers).
 */
#ifndef ACCT_API_H
#define ACCT_API_H

#include "acct_http_status.h"
#include "acct_outcome.h"
#include "acct_principal.h"
#include "acct_problems.h"
#include "acct_req.h"
#include "acct_resp.h"
#include "acct_scope.h"
#include "acct_settings.h"
#include "acct_store.h"

/* The contract version this build serves (X-Spec-Version). */
#define ACCT_SPEC_VERSION "4.174.0"

#endif
