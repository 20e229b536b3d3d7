/*
 * The zone renderer on whatever a database row may hold.  The input is split
 * at NUL bytes into fields: the domain's name, soa_email and four timers,
 * then records of eight fields each (type, name, target, priority, weight,
 * port, ttl_sec, tag).  Every rendered line must be one line: no line end
 * inside it, whatever the stored text.
 */
#include "fuzz_common.h"
#include "acct_zone.h"

#include <apr_strings.h>
#include <stdlib.h>

#define MAX_FIELDS 64
#define RECORD_FIELDS 8

static const char *const domain_columns[] = {
    "id", "account_id", "domain", "type", "status", "description",
    "group_name", "soa_email", "master_ips", "axfr_ips", "expire_sec",
    "refresh_sec", "retry_sec", "ttl_sec", "serial", "record_count",
    "created", "updated"
};
static const char *const record_columns[RECORD_FIELDS + 1] = {
    "id", "type", "name", "target", "priority", "weight", "port", "ttl_sec",
    "tag"
};

static acct_rows *rows_make(apr_pool_t *pool, const char *const *names,
                            int ncols, int nrows)
{
    acct_rows *rows = apr_pcalloc(pool, sizeof(*rows));
    int i;

    rows->ncols = ncols;
    rows->nrows = nrows;
    rows->names = (const char **)names;
    rows->values = apr_pcalloc(pool, sizeof(*rows->values) * (nrows + 1));
    for (i = 0; i < nrows; i++) {
        rows->values[i] = apr_pcalloc(pool, sizeof(const char *) * ncols);
    }
    return rows;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const nameservers[] = {"ns1.example.com",
                                              "ns2.example.com", NULL};
    apr_pool_t *pool = fuzz_pool();
    const char *fields[MAX_FIELDS];
    char *text = apr_palloc(pool, size + 1);
    acct_rows *domain, *records;
    apr_array_header_t *lines;
    int nfields = 0, nrecords, i, j;
    size_t start = 0, k;

    memcpy(text, data, size);
    text[size] = '\0';
    for (k = 0; k <= size && nfields < MAX_FIELDS; k++) {
        if (k == size || text[k] == '\0') {
            fields[nfields++] = text + start;
            start = k + 1;
        }
    }
    while (nfields < 6) {
        fields[nfields++] = "";
    }
    domain = rows_make(pool, domain_columns, 18, 1);
    for (i = 0; i < 18; i++) {
        domain->values[0][i] = "0";
    }
    domain->values[0][2] = fields[0];  /* domain */
    domain->values[0][3] = "master";
    domain->values[0][4] = "active";
    domain->values[0][7] = fields[1];  /* soa_email */
    domain->values[0][10] = fields[2]; /* expire_sec */
    domain->values[0][11] = fields[3]; /* refresh_sec */
    domain->values[0][12] = fields[4]; /* retry_sec */
    domain->values[0][13] = fields[5]; /* ttl_sec */
    domain->values[0][14] = "2026112201";

    nrecords = (nfields - 6) / RECORD_FIELDS;
    records = rows_make(pool, record_columns, RECORD_FIELDS + 1, nrecords);
    for (i = 0; i < nrecords; i++) {
        records->values[i][0] = apr_itoa(pool, i + 1);
        for (j = 0; j < RECORD_FIELDS; j++) {
            const char *v = fields[6 + i * RECORD_FIELDS + j];

            /* The tag column is NULL for every type but CAA. */
            records->values[i][j + 1] = (j == RECORD_FIELDS - 1 && !*v) ? NULL : v;
        }
    }
    lines = acct_zone_render(pool, domain, 0, records,
                             (size & 1) ? nameservers : NULL);
    for (i = 0; lines && i < lines->nelts; i++) {
        const char *line = APR_ARRAY_IDX(lines, i, const char *);

        if (!line || strchr(line, '\n') || strchr(line, '\r')) {
            abort();
        }
    }
    apr_pool_destroy(pool);
    return 0;
}
