/*
 * The objects of other services that the operator registered (`entities`,
 * acctapi-admin entity add; acct_tags.h) as the public API's read-only views
 * show them: /linode/instances, /volumes, /nodebalancers and /images.  The
 * module knows an object's type, id, account, label, registration time and
 * tags; every other field of the public shape is null (an object-valued one
 * keeps its members, each null), or the public API's own value where it is
 * the same for every such object (a private image is neither public nor
 * deprecated, an instance's hypervisor is kvm, a volume's filesystem path
 * follows from its label).
 */
#ifndef ACCT_ENTITIES_H
#define ACCT_ENTITIES_H

#include "acct_api.h"
#include "acct_list.h"

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
 * The object of `entity_type` that path parameter 0 names (an image by its
 * public id, "private/N"), as the acting user may see it: NULL after
 * answering 404 (no such object in the account, no acting user, or an id
 * that names none), 403 (a restricted user without a grant on it) or the
 * store's error.
 */
acct_rows *acct_entities_load(acct_req *req, acct_resp *resp,
                              const char *entity_type);

/* Row `i` (of a list or a load) in the public shape of its type. */
json_t *acct_entities_render(acct_req *req, const acct_rows *rows, int i);

#endif
