#include "acct_valid.h"

#include <ctype.h>
#include <string.h>

int acct_valid_dns_name(const char *name, unsigned flags)
{
    size_t total = strlen(name), label = 0, labels = 0;
    const char *p;

    if (total == 0 || total > ACCT_DNS_NAME_MAX) {
        return 0;
    }
    if ((flags & ACCT_DNS_WILDCARD) && name[0] == '*'
        && (name[1] == '.' || name[1] == '\0')) {
        if (name[1] == '\0') {
            return (flags & ACCT_DNS_RELATIVE) != 0;
        }
        name += 2;
        labels = 1;
    }
    for (p = name;; p++) {
        if (*p == '.' || *p == '\0') {
            if (label == 0 || p[-1] == '-') {
                return 0;
            }
            labels++;
            label = 0;
            if (*p == '\0') {
                break;
            }
            continue;
        }
        if (++label > ACCT_DNS_LABEL_MAX) {
            return 0;
        }
        if (isalnum((unsigned char)*p)
            || ((flags & ACCT_DNS_UNDERSCORE) && *p == '_')) {
            continue;
        }
        if (*p != '-' || label == 1) {
            return 0;
        }
    }
    return labels >= ((flags & ACCT_DNS_RELATIVE) ? 1 : 2);
}

/* The characters of an e-mail local part in the WHATWG form. */
#define MAILBOX_LOCAL_CHARS ".!#$%&'*+/=?^_`{|}~-"

int acct_valid_mailbox(const char *email)
{
    const char *at = strchr(email, '@'), *p;
    size_t label = 0;

    if (!at || at == email || at - email > ACCT_DNS_LABEL_MAX
        || strlen(email) > ACCT_DNS_NAME_MAX) {
        return 0;
    }
    for (p = email; p < at; p++) {
        if (!isalnum((unsigned char)*p) && !strchr(MAILBOX_LOCAL_CHARS, *p)) {
            return 0;
        }
    }
    /* The host: one label or more of letters, digits and inner hyphens. */
    for (p = at + 1;; p++) {
        if (*p == '.' || *p == '\0') {
            if (label == 0 || p[-1] == '-') {
                return 0;
            }
            if (*p == '\0') {
                return 1;
            }
            label = 0;
            continue;
        }
        if (++label > ACCT_DNS_LABEL_MAX
            || !(isalnum((unsigned char)*p) || (*p == '-' && label > 1))) {
            return 0;
        }
    }
}

int acct_valid_email(const char *email)
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
    /* The host: two labels or more of letters, digits and inner hyphens. */
    return acct_valid_dns_name(at + 1, 0);
}
