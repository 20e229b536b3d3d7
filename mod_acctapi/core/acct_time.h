/*
 * Time on the wire is "YYYY-MM-DDTHH:MM:SS", UTC, nothing else (docs/conventions.md);
 * in the database it is epoch seconds (BIGINT) on both dialects, so ordering
 * and filters compare numbers.
 */
#ifndef ACCT_TIME_H
#define ACCT_TIME_H

#include <apr_pools.h>
#include <apr_time.h>

#define ACCT_TIMESTAMP_LEN 19

/* Epoch seconds to "YYYY-MM-DDTHH:MM:SS" in pool memory. */
const char *acct_format_timestamp(apr_pool_t *pool, apr_int64_t epoch);

/* Exactly "YYYY-MM-DDTHH:MM:SS", a real calendar date; returns -1 otherwise. */
int acct_parse_timestamp(const char *s, apr_int64_t *epoch);

/*
 * "90s", "30m", "2h", "3d", "1w" or a bare number of seconds; the result may
 * be negative with a leading '-'.  Returns -1 when malformed.
 */
int acct_parse_duration(const char *s, apr_int64_t *seconds);

/* apr_time_t (microseconds) to epoch seconds. */
#define acct_epoch(t) ((apr_int64_t)apr_time_sec(t))

#endif
