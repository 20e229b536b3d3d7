#include "acct_body.h"
#include "acct_text.h"
#include "acct_time.h"

#include <apr_strings.h>
#include <ctype.h>
#include <string.h>

size_t acct_utf8_length(const char *s)
{
    size_t n = 0;

    for (; *s; s++) {
        n += ((unsigned char)*s & 0xc0) != 0x80;
    }
    return n;
}

static int listed(const char *const *names, const char *name)
{
    for (; *names; names++) {
        if (strcmp(*names, name) == 0) {
            return 1;
        }
    }
    return 0;
}

int acct_json_same(const json_t *a, const json_t *b)
{
    const char *key;
    json_t *v;
    size_t i;

    if (json_is_number(a) && json_is_number(b)) {
        if (json_is_integer(a) && json_is_integer(b)) {
            return json_integer_value(a) == json_integer_value(b);
        }
        return json_number_value(a) == json_number_value(b);
    }
    if (json_is_object(a) && json_is_object(b)) {
        if (json_object_size(a) != json_object_size(b)) {
            return 0;
        }
        json_object_foreach((json_t *)a, key, v) {
            json_t *w = json_object_get(b, key);

            if (!w || !acct_json_same(v, w)) {
                return 0;
            }
        }
        return 1;
    }
    if (json_is_array(a) && json_is_array(b)) {
        if (json_array_size(a) != json_array_size(b)) {
            return 0;
        }
        for (i = 0; i < json_array_size(a); i++) {
            if (!acct_json_same(json_array_get(a, i), json_array_get(b, i))) {
                return 0;
            }
        }
        return 1;
    }
    return json_equal((json_t *)a, (json_t *)b);
}

void acct_object_settable(apr_pool_t *pool, acct_problems *pb, json_t *object,
                          const char *prefix, const char *const *settable,
                          const json_t *stored)
{
    const char *key, *name;
    json_t *value, *shown;
    void *tmp;

    if (!json_is_object(object)) {
        return;
    }
    json_object_foreach_safe(object, tmp, key, value) {
        if (json_is_null(value)) {
            json_object_del(object, key);
            continue;
        }
        if (listed(settable, key) || !stored
            || !(shown = json_object_get(stored, key))
            || acct_json_same(value, shown)) {
            continue;
        }
        name = apr_pstrcat(pool, prefix ? prefix : "", key, NULL);
        acct_problem_add(pb, name,
                         apr_psprintf(pool, "%s cannot be changed", name));
    }
}

void acct_fields_settable(acct_req *req, acct_problems *pb,
                          const char *const *settable, const json_t *stored)
{
    acct_object_settable(req->pool, pb, req->body, NULL, settable, stored);
}

int acct_fields_beyond(const acct_req *req, const char *const *settable)
{
    const char *key;
    json_t *value;

    if (!json_is_object(req->body)) {
        return 0;
    }
    json_object_foreach(req->body, key, value) {
        if (!json_is_null(value) && !listed(settable, key)) {
            return 1;
        }
    }
    return 0;
}

acct_field_rc acct_field_string(acct_req *req, acct_problems *pb,
                                const char *field, size_t min, size_t max,
                                int nullable, const char **out)
{
    json_t *v = req->body ? json_object_get(req->body, field) : NULL;
    size_t len;

    if (!v) {
        return ACCT_FIELD_ABSENT;
    }
    if (json_is_null(v) && nullable) {
        return ACCT_FIELD_NULL;
    }
    if (!json_is_string(v)) {
        acct_problem_add(pb, field, apr_psprintf(req->pool, "%s must be a "
                                                 "string", field));
        return ACCT_FIELD_BAD;
    }
    len = acct_utf8_length(json_string_value(v));
    if (len < min || len > max || strlen(json_string_value(v))
                                  != json_string_length(v)) {
        acct_problem_add(pb, field,
                         apr_psprintf(req->pool, "Length must be %lu-%lu "
                                      "characters", (unsigned long)min,
                                      (unsigned long)max));
        return ACCT_FIELD_BAD;
    }
    if (acct_has_control_character(json_string_value(v))) {
        acct_problem_add(pb, field,
                         apr_psprintf(req->pool, "%s must be printable text: "
                                      "control characters are not allowed",
                                      field));
        return ACCT_FIELD_BAD;
    }
    *out = apr_pstrdup(req->pool, json_string_value(v));
    return ACCT_FIELD_SET;
}

/*
 * "YYYY-MM-DDTHH:MM:SS" as epoch seconds, with what RFC 3339 may add (the
 * public API's date-time format): a fraction of a second, dropped, and "Z"
 * or an offset from UTC.  0, or -1 when `s` is none of these.
 */
static int rfc3339_seconds(const char *s, apr_int64_t *out)
{
    char head[ACCT_TIMESTAMP_LEN + 1];
    const char *p = s + ACCT_TIMESTAMP_LEN;
    apr_int64_t offset = 0;

    if (strlen(s) < ACCT_TIMESTAMP_LEN) {
        return -1;
    }
    memcpy(head, s, ACCT_TIMESTAMP_LEN);
    head[ACCT_TIMESTAMP_LEN] = '\0';
    if (acct_parse_timestamp(head, out) != 0) {
        return -1;
    }
    if (*p == '.' && isdigit((unsigned char)p[1])) {
        for (p++; isdigit((unsigned char)*p); p++) {
        }
    }
    if (*p == 'Z' || *p == 'z') {
        p++;
    }
    else if ((*p == '+' || *p == '-') && isdigit((unsigned char)p[1])
             && isdigit((unsigned char)p[2]) && p[3] == ':'
             && isdigit((unsigned char)p[4]) && isdigit((unsigned char)p[5])) {
        offset = ((p[1] - '0') * 10 + (p[2] - '0')) * 3600
                 + ((p[4] - '0') * 10 + (p[5] - '0')) * 60;
        if (offset >= 86400) {
            return -1;
        }
        offset = *p == '+' ? offset : -offset;
        p += 6;
    }
    if (*p) {
        return -1;
    }
    *out -= offset;
    return 0;
}

int acct_parse_date_time(const char *s, apr_int64_t *epoch)
{
    return s ? rfc3339_seconds(s, epoch) : -1;
}

acct_field_rc acct_field_timestamp(acct_req *req, acct_problems *pb,
                                   const char *field, int nullable,
                                   apr_int64_t *out)
{
    json_t *v = req->body ? json_object_get(req->body, field) : NULL;

    if (!v) {
        return ACCT_FIELD_ABSENT;
    }
    if (json_is_null(v) && nullable) {
        return ACCT_FIELD_NULL;
    }
    if (!json_is_string(v)
        || rfc3339_seconds(json_string_value(v), out) != 0) {
        acct_problem_add(pb, field,
                         "Must be a date-time in the form "
                         "YYYY-MM-DDTHH:MM:SS (UTC)");
        return ACCT_FIELD_BAD;
    }
    return ACCT_FIELD_SET;
}

void acct_field_require(acct_req *req, acct_problems *pb, const char *field,
                        acct_field_rc rc)
{
    if (rc == ACCT_FIELD_ABSENT) {
        acct_problem_add(pb, field,
                         apr_psprintf(req->pool, "%s is required", field));
    }
}

acct_field_rc acct_field_bool(acct_req *req, acct_problems *pb,
                              const char *field, int *out)
{
    json_t *v = req->body ? json_object_get(req->body, field) : NULL;

    if (!v) {
        return ACCT_FIELD_ABSENT;
    }
    if (!json_is_boolean(v)) {
        acct_problem_add(pb, field,
                         apr_psprintf(req->pool, "%s must be true or false",
                                      field));
        return ACCT_FIELD_BAD;
    }
    *out = json_is_true(v);
    return ACCT_FIELD_SET;
}

acct_field_rc acct_field_enum(acct_req *req, acct_problems *pb,
                              const char *field, const char *const *choices,
                              const char **out)
{
    json_t *v = req->body ? json_object_get(req->body, field) : NULL;
    const char *const *c;
    const char *list = NULL;

    if (!v) {
        return ACCT_FIELD_ABSENT;
    }
    for (c = choices; json_is_string(v) && *c; c++) {
        if (strcmp(*c, json_string_value(v)) == 0) {
            *out = *c;
            return ACCT_FIELD_SET;
        }
    }
    for (c = choices; *c; c++) {
        list = list ? apr_pstrcat(req->pool, list, ", ", *c, NULL) : *c;
    }
    acct_problem_add(pb, field,
                     apr_psprintf(req->pool, "%s must be one of: %s", field,
                                  list));
    return ACCT_FIELD_BAD;
}

