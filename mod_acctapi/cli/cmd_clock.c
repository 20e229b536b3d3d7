/*
 * acctapi-admin's clock commands: the test clock is real time plus an
 * offset stored in the database (acct_clock.h).
 */
#include "config.h"

#include <apr_strings.h>

#include "acct_clock.h"
#include "acct_store.h"
#include "acct_time.h"

#include "admin.h"

static const char *clock_line(admin_ctx *c, apr_int64_t offset)
{
    return apr_psprintf(c->pool, "%s (offset %s%" APR_INT64_T_FMT "s)\n",
                        acct_format_timestamp(c->pool, c->real_now + offset),
                        offset >= 0 ? "+" : "", offset);
}

static int write_offset(admin_ctx *c, apr_int64_t offset)
{
    acct_store_rc rc = acct_clock_set_offset(c->st, c->pool, offset);

    if (rc != ACCT_STORE_OK) {
        return admin_store_failure("store the clock offset", rc);
    }
    c->out = clock_line(c, offset);
    return ADMIN_OK;
}

int cmd_clock_show(admin_ctx *c)
{
    apr_int64_t offset;
    int status;

    if ((status = admin_read_offset(c, &offset)) != ADMIN_OK) {
        return status;
    }
    c->out = clock_line(c, offset);
    return ADMIN_OK;
}

int check_clock_advance(admin_ctx *c)
{
    /* Bounded so that adding it to a valid offset cannot overflow. */
    if (acct_parse_duration(c->positional, &c->duration) < 0
        || c->duration > CLOCK_MAX || c->duration < -CLOCK_MAX) {
        return admin_usage_error(c->topic, "invalid duration '%s'", c->positional);
    }
    return ADMIN_OK;
}

int cmd_clock_advance(admin_ctx *c)
{
    apr_int64_t offset;
    int status;

    if ((status = admin_read_offset(c, &offset)) != ADMIN_OK) {
        return status;
    }
    offset += c->duration;
    if (!admin_clock_in_range(c->real_now, offset)) {
        return admin_usage_error(c->topic, "advancing by %s would move the clock "
                                 "outside 1970-01-01T00:00:00..9999-12-31T23:59:59",
                                 c->positional);
    }
    return write_offset(c, offset);
}

int check_clock_set(admin_ctx *c)
{
    /* Negative epochs would put the clock out of range (see CLOCK_MAX). */
    if (acct_parse_timestamp(c->positional, &c->timestamp) < 0
        || c->timestamp < 0) {
        return admin_usage_error(c->topic, "invalid timestamp '%s' (expected "
                                 TIMESTAMP_HELP ")", c->positional);
    }
    return ADMIN_OK;
}

int cmd_clock_set(admin_ctx *c)
{
    return write_offset(c, c->timestamp - c->real_now);
}

int cmd_clock_reset(admin_ctx *c)
{
    return write_offset(c, 0);
}
