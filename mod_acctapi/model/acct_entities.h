/*
 * The objects of other services that the operator registered (`entities`,
 * acctapi-admin entity add; acct_tags.h) as the public API's read-only views
 * show them: /linode/instances, /volumes, /nodebalancers and /images, and
 * as GET /tags/{label} shows the tagged ones.  The module knows an object's
 * type, id, account, label, registration time and tags; every other key of
 * the public shape has a value of the type that shape gives it (null only
 * where the public API answers null), chosen once per kind in one table
 * (acct_entities.c says how).
 */
#ifndef ACCT_ENTITIES_H
#define ACCT_ENTITIES_H

#include "acct_list.h"
#include "acct_outcome.h"
#include "acct_req.h"

/* The public API's prefix of a private image's id ("private/123"). */
#define ACCT_IMAGE_PRIVATE_PREFIX "private/"

/*
 * The list of the registered objects of `entity_type` (an ACCT_ENTITY_*
 * served here) that the acting user may see: those of the account, a
 * restricted user's only where it holds a grant.  Without an acting user
 * (the public's request for images), none: the module keeps no public
 * images.  X-Filter on the fields the public API marks filterable in that
 * shape; rendered by acct_entities_render.
 */
void acct_entities_list_query(acct_req *req, acct_store *st,
                              const char *entity_type, acct_list_query *q);

/*
 * The id that `text` names as a public id of `entity_type`: a positive
 * number, for images "private/N".  0 when it names none (or is NULL).
 */
apr_int64_t acct_entities_id(const char *entity_type, const char *text);

/*
 * Object `id` of `entity_type` as the acting user may see it, or NULL; *out
 * says which: done, not found (no such object in the account, no acting
 * user, or an id of 0, which names none), forbidden (a restricted user
 * without a grant on it) or the store's failure.
 */
acct_rows *acct_entities_load(acct_req *req, const char *entity_type,
                              apr_int64_t id, acct_outcome *out);

/* Row `i` (of a list or a load) in the public shape of its type. */
json_t *acct_entities_render(acct_req *req, const acct_rows *rows, int i);

/*
 * Registered object `id` of `entity_type` in the public shape of its type,
 * from its label, registration time (epoch seconds) and tags column
 * (acct_tags_column_sql); a type without a view gets id, label, created,
 * updated and tags only.
 */
json_t *acct_entities_object(apr_pool_t *pool, const char *entity_type,
                             const char *id, const char *label,
                             const char *created, const char *tags_column);

#endif
