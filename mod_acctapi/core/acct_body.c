#include "acct_body.h"
#include "acct_text.h"
#include "acct_time.h"

#include <apr_strings.h>
#include <ctype.h>

size_t acct_utf8_length(const char *s)
{
    size_t n = 0;

    for (; *s; s++) {
        n += ((unsigned char)*s & 0xc0) != 0x80;
    }
    return n;
}

void acct_fields_only(acct_req *req, acct_problems *pb,
                      const char *const *allowed)
{
    const char *key;
    json_t *value;

    json_object_foreach(req->body, key, value) {
        const char *const *a;

        for (a = allowed; *a && strcmp(*a, key) != 0; a++) {
        }
        if (!*a) {
            acct_problem_add(pb, apr_pstrdup(req->pool, key),
                             apr_psprintf(req->pool, "%s is not a field that "
                                          "can be set here", key));
        }
    }
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
        || acct_parse_timestamp(json_string_value(v), out) != 0) {
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

static int domain_valid(const char *d)
{
    size_t label = 0, dots = 0;
    const char *p;

    if (!*d || *d == '.' || *d == '-') {
        return 0;
    }
    for (p = d; *p; p++) {
        if (*p == '.') {
            if (label == 0 || p[-1] == '-') {
                return 0;
            }
            label = 0;
            dots++;
        }
        else if (isalnum((unsigned char)*p) || (*p == '-' && label > 0)) {
            if (++label > 63) {
                return 0;
            }
        }
        else {
            return 0;
        }
    }
    return dots > 0 && label > 0 && p[-1] != '-';
}

int acct_email_valid(const char *email)
{
    const char *at = strchr(email, '@'), *p;

    if (!at || strchr(at + 1, '@') || at == email || at - email > 64
        || strlen(email) > 254) {
        return 0;
    }
    for (p = email; p < at; p++) {
        if (*p <= ' ' || *p >= 0x7f || strchr("\"(),:;<>[\\]", *p)) {
            return 0;
        }
    }
    if (email[0] == '.' || at[-1] == '.' || strstr(email, "..")) {
        return 0;
    }
    return domain_valid(at + 1);
}
