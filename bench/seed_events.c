/*
 * bench/seed-events: fills an account's event feed for bench/run, the way
 * the module writes it (acct_event_write, the model's own statement), in
 * one transaction: far faster than the API writes that would make as many
 * events, with every column what the module writes.  Built on demand
 * (make bench/seed-events), never installed.
 *
 *   seed-events DRIVER PARAMS ACCOUNT USERNAME COUNT NOW DATABASES DOMAINS
 *
 * DATABASES and DOMAINS are comma-separated ids of the account's managed
 * databases and domains.  The events are those a busy account's month
 * leaves, oldest first, spread over the 89 days before NOW (all within the
 * retention): record and zone changes of the domains (6 in 10), updates
 * and backups of the databases (3 in 10), tokens (1 in 10).  Prints how
 * many it wrote.
 */
#include <apr_dbd.h>
#include <apr_general.h>
#include <apr_strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acct_event.h"
#include "acct_log.h"
#include "acct_store.h"

static void to_stderr(acct_log_level level, const char *file, int line,
                      const char *msg, void *baton)
{
    (void)file;
    (void)line;
    (void)baton;
    if (level <= ACCT_LOG_WARN) {
        fprintf(stderr, "seed-events: %s\n", msg);
    }
}

/* The ids of a comma-separated list; *n of them. */
static apr_int64_t *ids_of(apr_pool_t *pool, const char *list, int *n)
{
    char *copy = apr_pstrdup(pool, list), *last = NULL, *item;
    apr_int64_t *ids = apr_pcalloc(pool, sizeof(*ids) * (strlen(list) + 1));

    *n = 0;
    for (item = apr_strtok(copy, ",", &last); item;
         item = apr_strtok(NULL, ",", &last)) {
        if (acct_parse_i64(item, &ids[*n]) != 0) {
            return NULL;
        }
        (*n)++;
    }
    return *n ? ids : NULL;
}

/* The i-th event of the feed, in `e` (pool memory). */
static void event_at(apr_pool_t *pool, long i, const apr_int64_t *dbs,
                     int ndbs, const apr_int64_t *domains, int ndomains,
                     acct_event_new *e)
{
    static const char *const domain_actions[] = {
        ACCT_EVENT_DNS_RECORD_CREATE, ACCT_EVENT_DNS_RECORD_UPDATE,
        ACCT_EVENT_DNS_RECORD_CREATE, ACCT_EVENT_DNS_RECORD_DELETE,
        ACCT_EVENT_DNS_ZONE_UPDATE, ACCT_EVENT_DNS_RECORD_CREATE
    };
    static const char *const db_actions[] = {
        ACCT_EVENT_DATABASE_UPDATE, ACCT_EVENT_DATABASE_BACKUP_CREATE,
        ACCT_EVENT_DATABASE_UPDATE
    };
    int slot = (int)(i % 10);
    apr_int64_t id;

    memset(&e->entity, 0, sizeof(e->entity));
    if (slot < 6) {
        id = domains[(i / 10) % ndomains];
        e->action = domain_actions[slot];
        e->entity.type = ACCT_EVENT_ENTITY_DOMAIN;
        e->entity.label = apr_psprintf(pool, "bench-%" APR_INT64_T_FMT
                                       ".example", id);
        e->entity.url = apr_psprintf(pool, "/v4/domains/%" APR_INT64_T_FMT,
                                     id);
    }
    else if (slot < 9) {
        id = dbs[(i / 10) % ndbs];
        e->action = db_actions[slot - 6];
        e->entity.type = ACCT_EVENT_ENTITY_DATABASE;
        e->entity.label = apr_psprintf(pool, "bench-db-%" APR_INT64_T_FMT, id);
        e->entity.url = apr_psprintf(pool, "/v4/databases/mysql/instances/%"
                                     APR_INT64_T_FMT, id);
    }
    else {
        id = i + 1;
        e->action = ACCT_EVENT_TOKEN_CREATE;
        e->entity.type = ACCT_EVENT_ENTITY_TOKEN;
        e->entity.label = "bench-token";
        e->entity.url = apr_psprintf(pool, "/v4/profile/tokens/%"
                                     APR_INT64_T_FMT, id);
    }
    e->entity.id = acct_i64(pool, id);
}

int main(int argc, const char *const argv[])
{
    apr_pool_t *pool, *iter;
    acct_store *st = NULL;
    const char *error = NULL;
    apr_int64_t account, count, now, *dbs, *domains;
    int ndbs = 0, ndomains = 0;
    acct_event_new e;
    acct_store_rc rc;
    long i;

    if (argc != 9) {
        fputs("usage: seed-events DRIVER PARAMS ACCOUNT USERNAME COUNT NOW "
              "DATABASES DOMAINS\n", stderr);
        return 2;
    }
    if (apr_app_initialize(&argc, &argv, NULL) != APR_SUCCESS
        || apr_pool_create(&pool, NULL) != APR_SUCCESS
        || apr_dbd_init(pool) != APR_SUCCESS) {
        fputs("seed-events: cannot initialise APR\n", stderr);
        return 1;
    }
    atexit(apr_terminate);
    acct_log_set_sink(to_stderr, NULL);
    dbs = ids_of(pool, argv[7], &ndbs);
    domains = ids_of(pool, argv[8], &ndomains);
    if (acct_parse_i64(argv[3], &account) != 0
        || acct_parse_i64(argv[5], &count) != 0 || count < 1
        || acct_parse_i64(argv[6], &now) != 0 || !dbs || !domains) {
        fputs("seed-events: ACCOUNT, COUNT and NOW are numbers, DATABASES "
              "and DOMAINS lists of ids\n", stderr);
        return 2;
    }
    if (acct_store_open(&st, pool, argv[1], argv[2], &error)
        != ACCT_STORE_OK) {
        fprintf(stderr, "seed-events: cannot open the database: %s\n",
                error ? error : "unknown error");
        return 1;
    }
    memset(&e, 0, sizeof(e));
    e.account_id = account;
    e.username = argv[4];
    apr_pool_create(&iter, pool);
    rc = acct_store_begin(st, pool);
    for (i = 0; rc == ACCT_STORE_OK && i < count; i++) {
        apr_pool_clear(iter);
        event_at(iter, i, dbs, ndbs, domains, ndomains, &e);
        /* Oldest first, over 89 days: ids and times rise together. */
        e.now = now - (apr_int64_t)((double)(count - i) * 89 * 86400 / count);
        rc = acct_event_write(st, iter, &e);
    }
    if (rc == ACCT_STORE_OK) {
        rc = acct_store_commit(st, pool);
    }
    if (rc != ACCT_STORE_OK) {
        fprintf(stderr, "seed-events: writing event %ld failed\n", i);
        return 1;
    }
    printf("%ld\n", i);
    apr_pool_destroy(pool);
    return 0;
}
