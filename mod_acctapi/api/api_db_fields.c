/*
 * The fields of a managed database's create or PUT body that both read:
 * label, allow_list and private_network, and the catalogue's region, node
 * type and engine a create names (api_databases.c says the choices).  Each
 * reader adds a 400 item per problem; a store failure is answered alone.
 */
#include "api_db_fields.h"
#include "acct_addr.h"
#include "acct_body.h"
#include "acct_catalog.h"
#include "acct_db.h"
#include "acct_dbconfig.h"
#include "acct_grants.h"
#include "acct_json.h"
#include "acct_tags.h"

#include <apr_strings.h>
#include <arpa/inet.h>
#include <string.h>

#define LABEL_MIN 3

#define R_ALLOW_ITEM "Must be an IPv4 or IPv6 address or a CIDR range"

/*
 * A store failure while checking a body is the whole answer: the problems
 * gathered so far would only mislead next to a 503, so the handler drops
 * them.  0, or -1 once answered.
 */
int api_db_check_store(acct_req *req, acct_resp *resp, acct_store_rc rc)
{
    return acct_resp_store_failed(req, resp, rc);
}

/* The request's store for checking the body against the catalogue; NULL
 * after answering its failure alone (api_db_check_store). */
acct_store *api_db_body_store(acct_req *req, acct_resp *resp)
{
    acct_store *st = NULL;

    return api_db_check_store(req, resp, acct_req_store(req, &st)) == 0
           ? st : NULL;
}

/* ------------------------------------------------------------------------
 * Fields
 */

/* The body's label; ACCT_FIELD_SET with *out, or another outcome. */
acct_field_rc api_db_read_label(acct_req *req, acct_problems *pb,
                                const char **out)
{
    return acct_field_string(req, pb, "label", LABEL_MIN, LABEL_MAX, 0, out);
}

/* Takes a PostgreSQL lock on (account, label) until the transaction ends. */
acct_store_rc api_db_lock_label(acct_req *req, const char *label)
{
    acct_store *st = NULL;
    acct_store_rc rc = acct_req_store(req, &st);

    return rc != ACCT_STORE_OK ? rc
           : acct_db_label_lock(st, req->pool, req->who->account_id, label);
}

/*
 * One allow-list item in canonical text; NULL with *reason when the item
 * is not acceptable.
 */
static const char *allow_item(apr_pool_t *pool, const char *item,
                              const char **reason)
{
    unsigned char addr[16];
    char text[INET6_ADDRSTRLEN];
    int family, bits = 0, prefix = 0;

    *reason = R_ALLOW_ITEM;
    family = acct_ip_range(item, addr, &prefix, &bits);
    if (family < 0) {
        *reason = apr_psprintf(pool, "The prefix length must be a whole "
                               "number from 0 to %d", bits);
        return NULL;
    }
    if (family == 0 || !inet_ntop(family, addr, text, sizeof(text))) {
        return NULL;
    }
    return strchr(item, '/') ? apr_psprintf(pool, "%s/%d", text, prefix)
                             : apr_pstrdup(pool, text);
}

/* The body's allow_list as canonical JSON text; NULL when absent or bad. */
const char *api_db_read_allow_list(acct_req *req, acct_problems *pb)
{
    json_t *v = json_object_get(req->body, "allow_list"), *item;
    json_t *out = acct_json_own(req->pool, json_array());
    int bad = 0;
    size_t i;

    if (!v) {
        return NULL;
    }
    if (!json_is_array(v)) {
        acct_problem_add(pb, "allow_list",
                         "allow_list must be an array of strings");
        return NULL;
    }
    json_array_foreach(v, i, item) {
        const char *field = apr_psprintf(req->pool, "allow_list[%lu]",
                                         (unsigned long)i);
        const char *canonical = NULL, *reason = R_ALLOW_ITEM;

        if (json_is_string(item)
            && strlen(json_string_value(item)) == json_string_length(item)) {
            canonical = allow_item(req->pool, json_string_value(item),
                                   &reason);
        }
        if (!canonical) {
            acct_problem_add(pb, field, reason);
            bad = 1;
        }
        else {
            json_array_append_new(out, json_string(canonical));
        }
    }
    return bad ? NULL : acct_json_dump(req->pool, out, NULL);
}

/*
 * private_network: {vpc_id, subnet_id, public_access}, as the public API
 * takes it on create and update.  vpc_id must name a VPC the operator
 * registered in the account (acctapi-admin entity add --type vpc) that a
 * restricted user holds a grant on (read_only: seeing it is enough; the
 * public API documents no stricter rule for a database); subnet_id is a
 * subnet of that VPC in the public API, but subnets are not registered
 * here, so any positive integer is taken (never stricter than the public
 * API).  public_access defaults to false, as the Terraform provider and
 * Cloud Manager default it.  The required-field reasons are Cloud
 * Manager's.  Keys are kept in the public API's order.
 */
static const char *const network_fields[] = {"vpc_id", "subnet_id",
                                             "public_access", NULL};

/* A positive integer member `key` of private_network; 0 after a problem. */
static json_int_t network_id(acct_req *req, acct_problems *pb, json_t *net,
                             const char *key, const char *required)
{
    json_t *v = json_object_get(net, key);
    const char *field = apr_pstrcat(req->pool, "private_network.", key, NULL);

    if (!v) {
        acct_problem_add(pb, field, required);
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) <= 0) {
        acct_problem_add(pb, field, "Must be a positive integer");
        return 0;
    }
    return json_integer_value(v);
}

/*
 * The body's private_network (absent: none) checked, as canonical JSON text
 * into *text; *text stays `stored` (the database's, NULL: none) when the
 * body gives the same network back, which is checked for shape only (a
 * client PUTs back what it read, whether or not it may still use the VPC).
 * 0, or -1 once answered (403 without a grant on the VPC, a store
 * failure).
 */
int api_db_read_private_network(acct_req *req, acct_resp *resp,
                                acct_problems *pb, const char *stored,
                                const char **text)
{
    json_t *net = json_object_get(req->body, "private_network"), *v, *out;
    json_t *was;
    json_int_t vpc, subnet;
    int before = acct_problems_count(pb), owned = 0, open = 0;
    acct_store *st;

    *text = stored;
    if (!net) {
        return 0;
    }
    if (!json_is_object(net)) {
        acct_problem_add(pb, "private_network",
                         "Must be an object of vpc_id, subnet_id and "
                         "public_access");
        return 0;
    }
    /* Nulls are left out; other keys are ignored, as in the body. */
    acct_object_settable(req->pool, pb, net, "private_network.",
                         network_fields, NULL);
    vpc = network_id(req, pb, net, "vpc_id", "VPC is required.");
    subnet = network_id(req, pb, net, "subnet_id", "Subnet is required.");
    if ((v = json_object_get(net, "public_access"))) {
        if (json_is_boolean(v)) {
            open = json_is_true(v);
        }
        else {
            acct_problem_add(pb, "private_network.public_access",
                             "Must be a boolean");
        }
    }
    if (acct_problems_count(pb) > before) {
        return 0;
    }
    out = acct_json_own(req->pool, json_pack("{s:I, s:I, s:b}", "vpc_id",
                                             vpc, "subnet_id", subnet,
                                             "public_access", open));
    was = acct_json_own(req->pool, acct_json_parse_column(stored));
    if (acct_json_same(out, was)) {
        return 0;
    }
    if (!(st = api_db_body_store(req, resp))
        || api_db_check_store(req, resp,
                              acct_tags_entity_owned(st, req->pool,
                                                     ACCT_ENTITY_VPC, vpc,
                                                     req->who->account_id,
                                                     &owned)) != 0) {
        return -1;
    }
    if (!owned) {
        acct_problem_add(pb, "private_network.vpc_id",
                         apr_psprintf(req->pool, "VPC %" APR_INT64_T_FMT
                                      " not found", (apr_int64_t)vpc));
        return 0;
    }
    if (acct_resp_outcome(resp, req->pool, acct_grant_require(req, ACCT_ENTITY_VPC, vpc,
                           ACCT_LEVEL_READ_ONLY)) != 0) {
        return -1;
    }
    *text = acct_json_dump(req->pool, out, NULL);
    return 0;
}

/* A catalogue id field (string); NULL unless present and well-formed. */
const char *api_db_read_catalog_id(acct_req *req, acct_problems *pb,
                                   const char *field)
{
    const char *id = NULL;
    acct_field_rc frc = acct_field_string(req, pb, field, 1, CATALOG_ID_MAX,
                                          0, &id);

    acct_field_require(req, pb, field, frc);
    return frc == ACCT_FIELD_SET ? id : NULL;
}

/*
 * The catalogue checks below add a 400 item for a value that is not
 * acceptable and return 0; -1 means a store failure, answered alone.
 */

/* The region must exist, be up and offer Managed Databases. */
int api_db_check_region(acct_req *req, acct_resp *resp, acct_problems *pb,
                        const char *region)
{
    acct_store *st = api_db_body_store(req, resp);
    const char *status, *caps;

    if (!st || api_db_check_store(req, resp,
                                  acct_db_region(st, req->pool, region,
                                                 &status, &caps)) != 0) {
        return -1;
    }
    if (!status) {
        acct_problem_add(pb, "region", "Region not found");
    }
    else if (strcmp(status, "ok") != 0) {
        acct_problem_add(pb, "region",
                         "Region is currently unavailable");
    }
    else if (!acct_db_region_offers(caps)) {
        acct_problem_add(pb, "region",
                         "Managed Databases are not available in this region");
    }
    return 0;
}

/* The disk of node type `type` in MB into *disk; -1 there if unknown. */
int api_db_type_disk(acct_req *req, acct_resp *resp, acct_problems *pb,
                     const char *type, apr_int64_t *disk)
{
    acct_store *st = api_db_body_store(req, resp);

    *disk = -1;
    if (!st || api_db_check_store(req, resp,
                                  acct_db_type_disk(st, req->pool, type,
                                                    disk)) != 0) {
        return -1;
    }
    if (*disk < 0) {
        acct_problem_add(pb, "type", "Type not found");
    }
    return 0;
}

/*
 * The engine id of a create body, as the public API names engines
 * ("mysql/8") or the contract does ("mysql/8.0.30", kept as an alias): of
 * the route's engine, its full version (the current release of a major)
 * into *version.
 */
int api_db_check_engine(acct_req *req, acct_resp *resp, acct_problems *pb,
                        const acct_db_engine *e, const char *id,
                        const char **version)
{
    acct_store *st = api_db_body_store(req, resp);
    acct_engine_ref ref;
    int found = 0;

    *version = NULL;
    if (!st || api_db_check_store(req, resp,
                                  acct_catalog_engine_find(st, req->pool, id,
                                                           &ref, &found))
               != 0) {
        return -1;
    }
    if (!found) {
        acct_problem_add(pb, "engine", "Engine not found");
    }
    else if (strcmp(ref.engine, e->name) != 0) {
        acct_problem_add(pb, "engine",
                         apr_psprintf(req->pool, "Must be a %s engine "
                                      "(%s/<version>)", e->name, e->name));
    }
    else {
        *version = ref.full_version;
    }
    return 0;
}

/*
 * The node type of a create body: a type of GET /databases/types must be
 * sold for the engine in clusters of `nodes` (0: not known, not checked);
 * any other compute type is what the contract names a database's type, in
 * clusters of the contract's sizes.  Its disk in MB into *disk, -1 when it
 * is not acceptable.
 */
int api_db_check_type(acct_req *req, acct_resp *resp, acct_problems *pb,
                      const acct_db_engine *e, const char *type,
                      apr_int64_t nodes, apr_int64_t *disk)
{
    acct_store *st = api_db_body_store(req, resp);
    acct_db_type t;
    int found = 0;

    *disk = -1;
    if (!st || api_db_check_store(req, resp,
                                  acct_catalog_db_type_find(st, req->pool,
                                                            type, &t, &found))
               != 0) {
        return -1;
    }
    if (!found) {
        return api_db_type_disk(req, resp, pb, type, disk);
    }
    if (nodes > 0
        && !acct_db_type_offers(&t, e->name, (int)nodes, NULL, NULL)) {
        acct_problem_add(pb, "cluster_size",
                         apr_psprintf(req->pool, "Type %s is not offered in "
                                      "a cluster of %" APR_INT64_T_FMT
                                      " nodes", type, nodes));
    }
    else {
        *disk = t.disk;
    }
    return 0;
}

/*
 * The body's engine_config of engine `e`, checked: the settings a new
 * database gets (the defaults, with those given) as JSON text, or NULL
 * after the problems.
 */
const char *api_db_read_engine_config(acct_req *req, acct_problems *pb,
                                      const acct_db_engine *e)
{
    json_t *given = json_object_get(req->body, "engine_config");

    if (given && !json_is_object(given)) {
        acct_problem_add(pb, "engine_config", "Must be an object");
        return NULL;
    }
    if (acct_dbconfig_validate(req->pool, e->name, given, pb,
                               "engine_config") > 0) {
        return NULL;
    }
    return acct_json_dump(req->pool,
                          acct_json_own(req->pool,
                                        acct_dbconfig_initial(e->name, given)),
                          NULL);
}
