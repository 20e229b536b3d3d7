/*
 * The tag store: labels of an account (tags) and the entities that carry
 * them (tag_links).  A tag comes into being the first time an entity of the
 * account is given its label; labels are compared byte for byte.
 */
#ifndef ACCT_TAGS_H
#define ACCT_TAGS_H

#include <apr_tables.h>

#include "acct_body.h"
#include "acct_grants.h"
#include "acct_list.h"
#include "acct_problems.h"
#include "acct_req.h"

#define ACCT_TAG_LABEL_MIN 3
#define ACCT_TAG_LABEL_MAX 50

/* Entity types (ACCT_ENTITY_*) are listed once, in acct_grants.h. */

/* What /tags may put a tag on and list as a tag's objects; NULL-ended. */
extern const char *const acct_tags_taggable_types[];

/*
 * The id of tag `label` of account `account_id` in *tag_id; 0 when the
 * account has no such tag.
 */
acct_store_rc acct_tags_find(acct_store *st, apr_pool_t *pool,
                             apr_int64_t account_id, const char *label,
                             apr_int64_t *tag_id);

/*
 * Creates tag `label` of account `account_id` for `username` at `now`
 * (event tag_create): its id in *tag_id, or 0 when the account has that
 * label already (the caller's error).
 */
acct_store_rc acct_tags_create(acct_store *st, apr_pool_t *pool,
                               apr_int64_t account_id, const char *label,
                               const char *username, apr_int64_t now,
                               apr_int64_t *tag_id);

/* Deletes tag `tag_id` (`label` of account `account_id`) for `username`
 * at `now`, taking it off every entity first (event tag_delete). */
acct_store_rc acct_tags_delete(acct_store *st, apr_pool_t *pool,
                               apr_int64_t account_id, apr_int64_t tag_id,
                               const char *label, const char *username,
                               apr_int64_t now);

/*
 * Is entity (`entity_type`, `id`) one of account `account_id`'s?  A domain
 * of the account, or an object the operator registered for it: *owned 1,
 * else 0.  `entity_type` is one of acct_tags_taggable_types.
 */
acct_store_rc acct_tags_entity_owned(acct_store *st, apr_pool_t *pool,
                                     const char *entity_type, apr_int64_t id,
                                     apr_int64_t account_id, int *owned);

/*
 * The list of account `account_id`'s tags: columns id and label, X-Filter
 * on label, ordered by label.  Allocated in `pool`.
 */
void acct_tags_list_query(apr_pool_t *pool, apr_int64_t account_id,
                          acct_render_row *render, acct_list_query *q);

/*
 * The list of tag `tag_id`'s objects (not filterable), ordered by type and
 * id, one row per linked object that still exists in the tag's account:
 * columns kind (the entity type), entity_id, entity_label and
 * entity_created (registered objects), ACCT_DOMAIN_COLUMNS (domains) and
 * tags (JSON array text, see acct_tags_from_column).  `dialect` is the store's.
 */
void acct_tags_objects_query(apr_pool_t *pool, acct_dialect dialect,
                             apr_int64_t tag_id, acct_render_row *render,
                             acct_list_query *q);

/*
 * Reads body field `field` as an array of tag labels (3..50 characters
 * each): *labels gets them in request order without repeats (a label given
 * twice is one tag); [] clears the tags (a body's nulls are gone before:
 * acct_fields_settable, null leaves the tags).  Errors name the
 * field or the element ("tags[2]"); ACCT_FIELD_BAD once any was added to pb.
 */
acct_field_rc acct_tags_read_body(acct_req *req, acct_problems *pb,
                                  const char *field,
                                  apr_array_header_t **labels);

/*
 * Gives entity (`entity_type`, `id`) exactly the tags `labels` (const char *
 * items), creating the tags of account `account_id` that do not exist yet.
 */
acct_store_rc acct_tags_set(acct_store *st, apr_pool_t *pool,
                            apr_int64_t account_id, const char *entity_type,
                            apr_int64_t id, const apr_array_header_t *labels,
                            apr_int64_t now);

/* Gives entity `to` the tags of entity `from` (both of `entity_type`). */
acct_store_rc acct_tags_copy(acct_store *st, apr_pool_t *pool,
                             const char *entity_type, apr_int64_t from,
                             apr_int64_t to);

/* The labels of an entity, as a new JSON array sorted byte-wise. */
acct_store_rc acct_tags_get(acct_store *st, apr_pool_t *pool,
                            const char *entity_type, apr_int64_t id,
                            json_t **out);

/* ------------------------------------------------------------------------
 * Objects of other services, registered by the operator (`entities`)
 */

typedef enum {
    ACCT_ENTITY_REGISTERED = 0,
    ACCT_ENTITY_NO_ACCOUNT,      /* no account with that id */
    ACCT_ENTITY_TAKEN            /* that type and id are registered already */
} acct_entity_outcome;

/* Registers object `entity_type` `id` (one of acct_registered_entity_types)
 * of another service in account `account_id`, labelled `label`. */
acct_store_rc acct_entity_register(acct_store *st, apr_pool_t *pool,
                                   const char *entity_type, apr_int64_t id,
                                   apr_int64_t account_id, const char *label,
                                   apr_int64_t now,
                                   acct_entity_outcome *outcome);

/* Forgets a registered object with its tag links and grants: nothing
 * refers to a gone object.  *removed is 0 when it was not registered. */
acct_store_rc acct_entity_unregister(acct_store *st, apr_pool_t *pool,
                                     const char *entity_type, apr_int64_t id,
                                     int *removed);

/* Takes every tag off an entity (the tags themselves stay in the account). */
acct_store_rc acct_tags_remove(acct_store *st, apr_pool_t *pool,
                               const char *entity_type, apr_int64_t id);

/*
 * A select-list expression giving the labels of the entity whose id is SQL
 * expression `id_column` as JSON array text, for lists that render tags
 * without a query per row.  `entity_type` is one of the ACCT_ENTITY_*
 * constants, never user text.
 */
const char *acct_tags_column_sql(apr_pool_t *pool, acct_dialect dialect,
                                 const char *entity_type,
                                 const char *id_column);

/*
 * The same expression written into a statement at compile time: `agg` is
 * ACCT_TAGS_AGG_SQLITE or ACCT_TAGS_AGG_PGSQL, `type_sql` and `id_column`
 * SQL text (string literals), as for acct_tags_column_sql_typed.
 */
#define ACCT_TAGS_AGG_SQLITE "json_group_array(t.label)"
#define ACCT_TAGS_AGG_PGSQL "COALESCE(CAST(json_agg(t.label) AS TEXT), '[]')"
#define ACCT_TAGS_COLUMN(agg, type_sql, id_column) \
    "(SELECT " agg " FROM tag_links tl JOIN tags t ON t.id = tl.tag_id" \
    " WHERE tl.entity_type = " type_sql " AND tl.entity_id = " id_column ")"

/*
 * The same for lists that mix entity types: `type_sql` is an SQL expression
 * (a column of the outer query, never user text) giving each row's type.
 * The subquery's own aliases are tl and t: the outer query must use others.
 */
const char *acct_tags_column_sql_typed(apr_pool_t *pool, acct_dialect dialect,
                                       const char *type_sql,
                                       const char *id_column);

/* Gives entity (`entity_type`, `id`) the tag `tag_id` (no-op if it has it). */
acct_store_rc acct_tags_link(acct_store *st, apr_pool_t *pool,
                             apr_int64_t tag_id, const char *entity_type,
                             apr_int64_t id);

/*
 * JSON array text of labels (a column made by acct_tags_column_sql) as a
 * new JSON array sorted byte-wise; NULL or unreadable text gives [].
 */
json_t *acct_tags_from_column(apr_pool_t *pool, const char *text);

#endif
