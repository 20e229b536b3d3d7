#include "acct_time.h"

#include <apr_strings.h>
#include <ctype.h>
#include <stdlib.h>

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar. */
static apr_int64_t days_from_civil(apr_int64_t y, unsigned m, unsigned d)
{
    apr_int64_t era;
    unsigned yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = (unsigned)(y - era * 400);
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (apr_int64_t)doe - 719468;
}

static void civil_from_days(apr_int64_t z, apr_int64_t *y, unsigned *m,
                            unsigned *d)
{
    apr_int64_t era;
    unsigned doe, yoe, doy, mp;

    z += 719468;
    era = (z >= 0 ? z : z - 146096) / 146097;
    doe = (unsigned)(z - era * 146097);
    yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (apr_int64_t)yoe + era * 400 + (*m <= 2);
}

const char *acct_format_timestamp(apr_pool_t *pool, apr_int64_t epoch)
{
    apr_int64_t days = epoch / 86400, secs = epoch % 86400, y;
    unsigned m, d;

    if (secs < 0) {
        secs += 86400;
        days -= 1;
    }
    civil_from_days(days, &y, &m, &d);
    return apr_psprintf(pool, "%04d-%02u-%02uT%02d:%02d:%02d", (int)y, m, d,
                        (int)(secs / 3600), (int)(secs / 60 % 60),
                        (int)(secs % 60));
}

static int digits(const char *s, int n, unsigned *out)
{
    unsigned v = 0;
    int i;

    for (i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i])) {
            return -1;
        }
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    *out = v;
    return 0;
}

int acct_parse_timestamp(const char *s, apr_int64_t *epoch)
{
    static const unsigned mdays[] = {31, 28, 31, 30, 31, 30,
                                     31, 31, 30, 31, 30, 31};
    unsigned y, mo, d, h, mi, se, limit;

    if (!s || strlen(s) != ACCT_TIMESTAMP_LEN || s[4] != '-' || s[7] != '-'
        || s[10] != 'T' || s[13] != ':' || s[16] != ':'
        || digits(s, 4, &y) || digits(s + 5, 2, &mo) || digits(s + 8, 2, &d)
        || digits(s + 11, 2, &h) || digits(s + 14, 2, &mi)
        || digits(s + 17, 2, &se)) {
        return -1;
    }
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59
        || se > 59) {
        return -1;
    }
    limit = mdays[mo - 1];
    if (mo == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) {
        limit = 29;
    }
    if (d > limit) {
        return -1;
    }
    *epoch = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
    return 0;
}

int acct_parse_duration(const char *s, apr_int64_t *seconds)
{
    const char *p = s;
    apr_int64_t sign = 1, v = 0, unit = 1;

    if (!s || !*s) {
        return -1;
    }
    if (*p == '-') {
        sign = -1;
        p++;
    }
    if (!isdigit((unsigned char)*p)) {
        return -1;
    }
    while (isdigit((unsigned char)*p)) {
        if (v > APR_INT64_C(100000000000)) {
            return -1;
        }
        v = v * 10 + (*p++ - '0');
    }
    switch (*p) {
    case '\0': unit = 1; break;
    case 's': unit = 1; p++; break;
    case 'm': unit = 60; p++; break;
    case 'h': unit = 3600; p++; break;
    case 'd': unit = 86400; p++; break;
    case 'w': unit = 604800; p++; break;
    default: return -1;
    }
    if (*p) {
        return -1;
    }
    *seconds = sign * v * unit;
    return 0;
}
