/*
 * A record from a request body: each field read with its own problem, then
 * the whole judged by the rules per type (acct_record_normalise).
 */
#include "acct_record_body.h"
#include "acct_body.h"

#include <apr_strings.h>
#include <string.h>

/* An integer field of 0..max (any whole number when max is APR_INT64_MAX);
 * sets `bit` in *set when present and valid. */
static void read_number(acct_req *req, acct_problems *pb, const char *field,
                        apr_int64_t max, unsigned bit, apr_int64_t *out,
                        unsigned *set, unsigned *bad)
{
    json_t *v = json_object_get(req->body, field);

    if (!v) {
        return;
    }
    /* Seconds (max APR_INT64_MAX) may be any whole number: the public API
     * rounds every other value up to a valid one, and below 0 that is 0,
     * the domain's default. */
    if (!json_is_integer(v)
        || (max != APR_INT64_MAX && (json_integer_value(v) < 0
                                     || json_integer_value(v) > max))) {
        acct_problem_add(pb, field, max == APR_INT64_MAX
                ? apr_psprintf(req->pool, "%s must be a whole number of "
                               "seconds", field)
                : apr_psprintf(req->pool, "%s must be an integer from 0 to %"
                               APR_INT64_T_FMT, field, max));
        *bad |= bit;
        return;
    }
    *out = json_integer_value(v);
    *set |= bit;
}

/* A string field; JSON null, where `nullable`, leaves it as it is. */
static void read_text(acct_req *req, acct_problems *pb, const char *field,
                      size_t max, int nullable, unsigned bit,
                      const char **out, unsigned *bad)
{
    const char *s = NULL;

    switch (acct_field_string(req, pb, field, 0, max, nullable, &s)) {
    case ACCT_FIELD_SET:
        *out = s;
        break;
    case ACCT_FIELD_BAD:
        *bad |= bit;
        break;
    default:
        break;
    }
}

/*
 * The type: required on create; on update it cannot change, though a body
 * may repeat it (clients send a record back with its type, as read).
 */
static void read_type(acct_req *req, acct_problems *pb,
                      const acct_record *current, acct_record *r,
                      unsigned *bad)
{
    json_t *v = json_object_get(req->body, "type");

    if (current) {
        if (v && !(json_is_string(v)
                   && strcmp(json_string_value(v), current->type) == 0)) {
            acct_problem_add(pb, "type",
                             "type cannot be changed: delete the record and "
                             "create one of the new type");
            *bad |= ACCT_RECORD_TYPE;
        }
        return;
    }
    r->type = NULL;
    if (!v) {
        acct_field_require(req, pb, "type", ACCT_FIELD_ABSENT);
        *bad |= ACCT_RECORD_TYPE;
    }
    else if (acct_field_enum(req, pb, "type", acct_record_types, &r->type)
             != ACCT_FIELD_SET) {
        *bad |= ACCT_RECORD_TYPE;
    }
}

const char *const acct_record_fields[] = {
    "type", "name", "target", "priority", "weight", "port", "service",
    "protocol", "ttl_sec", "tag", NULL
};

int acct_record_read(acct_req *req, acct_problems *pb,
                     const acct_record *current, const acct_record_zone *zone,
                     acct_record *out)
{
    int before = acct_problems_count(pb);
    unsigned bad = 0;
    acct_record r;

    memset(&r, 0, sizeof(r));
    if (current) {
        r = *current;
        /* The stored name is relative: qualified, it normalises back to
         * itself even when it happens to end in the domain's name. */
        r.name = apr_pstrcat(req->pool, current->name,
                             *current->name ? "." : "", zone->domain, ".",
                             NULL);
    }
    read_type(req, pb, current, &r, &bad);
    read_text(req, pb, "name", ACCT_RECORD_NAME_MAX, 0, ACCT_RECORD_NAME,
              &r.name, &bad);
    read_text(req, pb, "target", ACCT_RECORD_TARGET_MAX, 0,
              ACCT_RECORD_TARGET, &r.target, &bad);
    read_number(req, pb, "priority", 255, ACCT_RECORD_PRIORITY, &r.priority,
                &r.set, &bad);
    read_number(req, pb, "weight", 65535, ACCT_RECORD_WEIGHT, &r.weight,
                &r.set, &bad);
    read_number(req, pb, "port", 65535, ACCT_RECORD_PORT, &r.port, &r.set,
                &bad);
    read_text(req, pb, "service", ACCT_RECORD_NAME_MAX, 1,
              ACCT_RECORD_SERVICE, &r.service, &bad);
    read_text(req, pb, "protocol", ACCT_RECORD_NAME_MAX, 1,
              ACCT_RECORD_PROTOCOL, &r.protocol, &bad);
    read_number(req, pb, "ttl_sec", APR_INT64_MAX, ACCT_RECORD_TTL,
                &r.ttl_sec, &r.set, &bad);
    read_text(req, pb, "tag", ACCT_RECORD_NAME_MAX, 1, ACCT_RECORD_TAG,
              &r.tag, &bad);
    if (acct_record_normalise(req->pool, pb, &r, bad, zone, out) != 0) {
        return -1;
    }
    return acct_problems_count(pb) > before ? -1 : 0;
}
