/*
 * The helpers acctapi-admin's commands share: error messages and exit
 * statuses, option values, word lists, the user and the clock as the
 * database has them, and the output.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <apr_strings.h>

#include "acct_clock.h"
#include "acct_ident.h"
#include "acct_store.h"

#include "admin.h"

/* A one-line message with a hint to the help of `topic` (NULL: general). */
int admin_usage_error(const char *topic, const char *fmt, ...)
{
    va_list ap;

    fputs(NAME ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "; see '" NAME "%s%s --help'\n", topic ? " " : "",
            topic ? topic : "");
    return ADMIN_USAGE;
}

int admin_failure(const char *fmt, ...)
{
    va_list ap;

    fputs(NAME ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return ADMIN_FAIL;
}

/* The driver's own text has already gone to stderr through the log sink. */
int admin_store_failure(const char *what, acct_store_rc rc)
{
    return admin_failure("cannot %s: %s", what,
                         rc == ACCT_STORE_UNAVAILABLE
                       ? "the database is unavailable"
                       : "the database reported an error");
}

int admin_ident_failure(const admin_ctx *c, acct_ident_rc rc,
                        const acct_ident_result *res, const char *what,
                        const char *not_found, const char *conflict)
{
    switch (rc) {
    case ACCT_IDENT_INVALID:
        return admin_usage_error(c->topic, "cannot %s: %s", what,
                                 res->error ? res->error : "invalid input");
    case ACCT_IDENT_NOT_FOUND:
        return admin_failure("cannot %s: %s", what,
                             not_found ? not_found : "not found");
    case ACCT_IDENT_CONFLICT:
        return admin_failure("cannot %s: %s", what,
                             conflict ? conflict : "it already exists");
    default:
        return admin_store_failure(what, res->store_rc);
    }
}

const char *admin_opt_value(const admin_ctx *c, const char *name)
{
    int k;

    for (k = 0; c->cmd->opts[k].name; k++) {
        if (strcmp(c->cmd->opts[k].name, name) == 0) {
            return c->values[k];
        }
    }
    return NULL;
}

/* --account into c->account_id. */
int admin_parse_account_opt(admin_ctx *c)
{
    const char *account = admin_opt_value(c, "--account");

    if (acct_parse_i64(account, &c->account_id) < 0 || c->account_id <= 0) {
        return admin_usage_error(c->topic, "--account expects an account id, "
                                 "not '%s'", account);
    }
    return ADMIN_OK;
}

/* Index of `word` in `list` (NULL-terminated), or -1. */
int admin_word_index(const char *const *list, const char *word)
{
    int k;

    for (k = 0; list[k]; k++) {
        if (strcmp(list[k], word) == 0) {
            return k;
        }
    }
    return -1;
}

/* `list` as "a, b, c", for messages. */
const char *admin_word_list(apr_pool_t *pool, const char *const *list)
{
    const char *out = NULL;
    int k;

    for (k = 0; list[k]; k++) {
        out = out ? apr_pstrcat(pool, out, ", ", list[k], NULL) : list[k];
    }
    return out;
}

/* The uid of --user; `what` says what could not be done without it. */
int admin_find_user(admin_ctx *c, const char *what, apr_int64_t *uid)
{
    acct_ident_result res = { ACCT_STORE_OK, NULL };
    const char *user = admin_opt_value(c, "--user");
    acct_ident_rc rc = acct_user_find(c->st, c->pool, user, uid, &res);

    if (rc != ACCT_IDENT_OK) {
        return admin_ident_failure(c, rc, &res, what,
                                   apr_psprintf(c->pool, "no user '%s'", user),
                                   NULL);
    }
    return ADMIN_OK;
}

int admin_clock_in_range(apr_int64_t real_now, apr_int64_t offset)
{
    return offset >= -real_now && offset <= CLOCK_MAX - real_now;
}

/*
 * Reads the stored offset.  One that puts the clock out of range can only
 * come from outside this tool; refuse to compute with it rather than print
 * nonsense, and point at the way out.
 */
int admin_read_offset(admin_ctx *c, apr_int64_t *offset)
{
    acct_store_rc rc = acct_clock_offset(c->st, c->pool, offset);

    if (rc != ACCT_STORE_OK) {
        return admin_store_failure("read the clock", rc);
    }
    if (!admin_clock_in_range(c->real_now, *offset)) {
        return admin_failure("the stored clock offset (%" APR_INT64_T_FMT
                             "s) puts the clock out of range: run '" NAME
                             " clock reset'", *offset);
    }
    return ADMIN_OK;
}

/*
 * The tool always works on the clock, whatever AcctapiTestClock says, so
 * that creation times and expiries agree with a test fleet that honours it.
 */
int admin_read_now(admin_ctx *c, apr_int64_t *now)
{
    apr_int64_t offset;
    int status = admin_read_offset(c, &offset);

    if (status == ADMIN_OK) {
        *now = c->real_now + offset;
    }
    return status;
}

int admin_emit(const char *out)
{
    if (fputs(out, stdout) == EOF || fflush(stdout) != 0) {
        return admin_failure("cannot write to standard output");
    }
    return ADMIN_OK;
}
