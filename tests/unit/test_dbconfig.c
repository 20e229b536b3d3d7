/* Managed databases' catalogues: the engine settings' validator,
 * merge and restart rule (model/acct_dbconfig), checked against the public
 * API's recorded values; engine ids by major version with the contract's
 * full-version ids as aliases, and node types with prices per engine and
 * cluster size (model/acct_catalog). */
#include "unit.h"

#include <apr_strings.h>
#include <jansson.h>
#include <string.h>

#include "unit_db.h"
#include "acct_catalog.h"
#include "acct_dbconfig.h"
#include "acct_json.h"
#include "acct_problems.h"

/* ------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------ */

/* `text` parsed, owned by `p`; NULL text stays NULL. */
static json_t *doc(apr_pool_t *p, const char *text)
{
    json_t *j;
    json_error_t err;

    if (!text) {
        return NULL;
    }
    /* NUL allowed: the validator must not trust request bodies to lack
     * it (the body reader refuses it today). */
    j = json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
    UNIT_CHECKF(j != NULL, "%s: %s", text, err.text);
    return acct_json_own(p, j);
}

/* The problems validate finds, as "field=reason|field=reason". */
static const char *problems_of(apr_pool_t *p, const char *engine,
                               const char *text)
{
    acct_problems *pb = acct_problems_make(p);
    const char *out = "";
    int i, n;

    n = acct_dbconfig_validate(p, engine, doc(p, text), pb, "engine_config");
    assert_int_equal(n, acct_problems_count(pb));
    for (i = 0; i < n; i++) {
        out = apr_pstrcat(p, out, i ? "|" : "", acct_problem_field(pb, i), "=",
                          acct_problem_reason(pb, i), NULL);
    }
    return out;
}

static int same(apr_pool_t *p, const json_t *a, const char *b)
{
    return json_equal((json_t *)a, doc(p, b));
}

/* ------------------------------------------------------------------------
 * Values the public API accepted, as clients sent them
 * ------------------------------------------------------------------------ */

/* The Go SDK's create of a MySQL database with every setting (recorded). */
static const char mysql_full[] =
    "{\"mysql\":{\"connect_timeout\":10,\"default_time_zone\":\"+03:00\","
    "\"group_concat_max_len\":1024,\"information_schema_stats_expiry\":86400,"
    "\"innodb_change_buffer_max_size\":30,\"innodb_flush_neighbors\":1,"
    "\"innodb_ft_min_token_size\":3,"
    "\"innodb_ft_server_stopword_table\":\"mydb/stopwords\","
    "\"innodb_lock_wait_timeout\":50,\"innodb_log_buffer_size\":16777216,"
    "\"innodb_online_alter_log_max_size\":134217728,"
    "\"innodb_read_io_threads\":10,\"innodb_rollback_on_timeout\":true,"
    "\"innodb_thread_concurrency\":10,\"innodb_write_io_threads\":10,"
    "\"interactive_timeout\":3600,"
    "\"internal_tmp_mem_storage_engine\":\"TempTable\","
    "\"max_allowed_packet\":67108864,\"max_heap_table_size\":16777216,"
    "\"net_buffer_length\":16384,\"net_read_timeout\":30,"
    "\"net_write_timeout\":30,\"sort_buffer_size\":262144,"
    "\"sql_mode\":\"TRADITIONAL\",\"sql_require_primary_key\":true,"
    "\"tmp_table_size\":16777216,\"wait_timeout\":28800},"
    "\"binlog_retention_period\":600}";

/* Its update, and the settings the public API answered after it. */
static const char mysql_update[] =
    "{\"mysql\":{\"connect_timeout\":20,"
    "\"innodb_ft_server_stopword_table\":null,"
    "\"innodb_lock_wait_timeout\":60,\"net_read_timeout\":40}}";

/* The same create of a PostgreSQL database (recorded). */
static const char pg_full[] =
    "{\"pg\":{\"autovacuum_analyze_scale_factor\":0.1,"
    "\"autovacuum_analyze_threshold\":500,\"autovacuum_max_workers\":3,"
    "\"autovacuum_naptime\":60,\"autovacuum_vacuum_cost_delay\":100,"
    "\"autovacuum_vacuum_cost_limit\":2000,"
    "\"autovacuum_vacuum_scale_factor\":0.2,"
    "\"autovacuum_vacuum_threshold\":500,\"bgwriter_delay\":100,"
    "\"bgwriter_flush_after\":1000,\"bgwriter_lru_maxpages\":100,"
    "\"bgwriter_lru_multiplier\":2,\"deadlock_timeout\":1000,"
    "\"default_toast_compression\":\"lz4\","
    "\"idle_in_transaction_session_timeout\":600,\"jit\":true,"
    "\"max_files_per_process\":1000,\"max_locks_per_transaction\":64,"
    "\"max_logical_replication_workers\":4,\"max_parallel_workers\":8,"
    "\"max_parallel_workers_per_gather\":2,"
    "\"max_pred_locks_per_transaction\":64,\"max_replication_slots\":8,"
    "\"max_slot_wal_keep_size\":512,\"max_stack_depth\":2097152,"
    "\"max_standby_archive_delay\":30000,"
    "\"max_standby_streaming_delay\":30000,\"max_wal_senders\":20,"
    "\"max_worker_processes\":8,\"password_encryption\":\"scram-sha-256\","
    "\"pg_partman_bgw.interval\":3600,"
    "\"pg_partman_bgw.role\":\"pg_partman_bgw\","
    "\"pg_stat_monitor.pgsm_enable_query_plan\":true,"
    "\"pg_stat_monitor.pgsm_max_buckets\":10,"
    "\"pg_stat_statements.track\":\"top\",\"temp_file_limit\":1000,"
    "\"timezone\":\"UTC\",\"track_activity_query_size\":1024,"
    "\"track_commit_timestamp\":\"on\",\"track_functions\":\"all\","
    "\"track_io_timing\":\"on\",\"wal_sender_timeout\":60000,"
    "\"wal_writer_delay\":200},"
    "\"pg_stat_monitor_enable\":true,\"pglookout\":{},"
    "\"shared_buffers_percentage\":25,\"work_mem\":1024}";

static const char mysql_defaults[] =
    "{\"mysql\":{\"sql_mode\":\"ANSI,ERROR_FOR_DIVISION_BY_ZERO,"
    "NO_ENGINE_SUBSTITUTION,NO_ZERO_DATE,NO_ZERO_IN_DATE,STRICT_ALL_TABLES\","
    "\"sql_require_primary_key\":true}}";

static const char pg_defaults[] =
    "{\"pg\":{\"io_combine_limit\":16,\"io_max_combine_limit\":16,"
    "\"io_max_concurrency\":-1,\"io_method\":\"worker\",\"io_workers\":3,"
    "\"password_encryption\":\"md5\"},"
    "\"pg_stat_monitor_enable\":false,"
    "\"pglookout\":{\"max_failover_replication_time_lag\":60}}";

/* ------------------------------------------------------------------------
 * Validation, table-driven
 * ------------------------------------------------------------------------ */

#define F "engine_config."
#define MY_CT F "mysql.connect_timeout=Must be an integer from 2 to 3600"
#define STOPWORD F "mysql.innodb_ft_server_stopword_table"

typedef struct vcase {
    const char *engine;
    const char *config;    /* JSON text, NULL: not given */
    const char *want;      /* problems_of's text; "" for none */
} vcase;

static const vcase vcases[] = {
    /* What clients send. */
    {"mysql", mysql_full, ""},
    {"mysql", mysql_update, ""},
    {"postgresql", pg_full, ""},
    {"mysql", "{\"mysql\":{}}", ""},
    {"postgresql", "{\"pg\":{}}", ""},
    {"mysql", "{}", ""},
    {"mysql", NULL, ""},
    {"postgresql", "null", ""},
    /* null: a value for a nullable setting, "unchanged" for the rest. */
    {"mysql", "{\"mysql\":{\"innodb_ft_server_stopword_table\":null}}", ""},
    {"mysql", "{\"mysql\":{\"connect_timeout\":null}}", ""},
    {"mysql", "{\"mysql\":null,\"binlog_retention_period\":null}", ""},
    {"postgresql", "{\"pglookout\":null,\"pg\":null,\"work_mem\":null}", ""},
    /* Integers: edges, whole reals, other types. */
    {"mysql", "{\"mysql\":{\"connect_timeout\":2}}", ""},
    {"mysql", "{\"mysql\":{\"connect_timeout\":3600}}", ""},
    {"mysql", "{\"mysql\":{\"connect_timeout\":1}}", MY_CT},
    {"mysql", "{\"mysql\":{\"connect_timeout\":3601}}", MY_CT},
    {"mysql", "{\"mysql\":{\"connect_timeout\":10.0}}", ""},
    {"mysql", "{\"mysql\":{\"connect_timeout\":10.5}}", MY_CT},
    {"mysql", "{\"mysql\":{\"connect_timeout\":\"10\"}}", MY_CT},
    {"mysql", "{\"mysql\":{\"connect_timeout\":true}}", MY_CT},
    {"mysql", "{\"mysql\":{\"connect_timeout\":[10]}}", MY_CT},
    {"postgresql", "{\"pg\":{\"autovacuum_vacuum_cost_delay\":-1}}", ""},
    {"postgresql", "{\"pg\":{\"autovacuum_vacuum_cost_delay\":-2}}",
     F "pg.autovacuum_vacuum_cost_delay=Must be an integer from -1 to 100"},
    /* A maximum past int64 bounds nothing a request can hold. */
    {"mysql", "{\"mysql\":{\"group_concat_max_len\":9223372036854775807}}",
     ""},
    {"mysql", "{\"mysql\":{\"group_concat_max_len\":3}}",
     F "mysql.group_concat_max_len=Must be an integer of at least 4"},
    /* Exact comparison at 2^53 - 1, where reals lose units. */
    {"mysql", "{\"binlog_retention_period\":9007199254740991}", ""},
    {"mysql", "{\"binlog_retention_period\":9007199254740992}",
     F "binlog_retention_period=Must be an integer from 600 to "
     "9007199254740991"},
    {"mysql", "{\"binlog_retention_period\":599}",
     F "binlog_retention_period=Must be an integer from 600 to "
     "9007199254740991"},
    /* An integer setting without a range. */
    {"postgresql", "{\"pg\":{\"wal_sender_timeout\":0}}", ""},
    {"postgresql", "{\"pg\":{\"wal_sender_timeout\":-5}}", ""},
    {"postgresql", "{\"pg\":{\"wal_sender_timeout\":\"1m\"}}",
     F "pg.wal_sender_timeout=Must be an integer"},
    /* Numbers: integers are numbers; edges. */
    {"postgresql", "{\"shared_buffers_percentage\":20}", ""},
    {"postgresql", "{\"shared_buffers_percentage\":60.0}", ""},
    {"postgresql", "{\"shared_buffers_percentage\":19.99}",
     F "shared_buffers_percentage=Must be a number from 20 to 60"},
    {"postgresql", "{\"shared_buffers_percentage\":60.01}",
     F "shared_buffers_percentage=Must be a number from 20 to 60"},
    {"postgresql", "{\"pg\":{\"autovacuum_analyze_scale_factor\":0}}", ""},
    {"postgresql", "{\"pg\":{\"autovacuum_analyze_scale_factor\":1.0}}", ""},
    {"postgresql", "{\"pg\":{\"autovacuum_analyze_scale_factor\":1.0000001}}",
     F "pg.autovacuum_analyze_scale_factor=Must be a number from 0 to 1"},
    {"postgresql", "{\"pg\":{\"bgwriter_lru_multiplier\":\"2\"}}",
     F "pg.bgwriter_lru_multiplier=Must be a number from 0 to 10"},
    /* Booleans. */
    {"mysql", "{\"mysql\":{\"sql_require_primary_key\":false}}", ""},
    {"mysql", "{\"mysql\":{\"sql_require_primary_key\":1}}",
     F "mysql.sql_require_primary_key=Must be true or false"},
    {"postgresql", "{\"pg_stat_monitor_enable\":\"true\"}",
     F "pg_stat_monitor_enable=Must be true or false"},
    /* Strings: types, enums, lengths, patterns. */
    {"mysql", "{\"mysql\":{\"sql_mode\":5}}",
     F "mysql.sql_mode=Must be a string"},
    {"mysql", "{\"mysql\":{\"innodb_ft_server_stopword_table\":5}}",
     STOPWORD "=Must be a string or null"},
    {"mysql", "{\"mysql\":{\"internal_tmp_mem_storage_engine\":\"MEMORY\"}}",
     ""},
    {"mysql", "{\"mysql\":{\"internal_tmp_mem_storage_engine\":\"memory\"}}",
     F "mysql.internal_tmp_mem_storage_engine=Must be one of: TempTable, "
     "MEMORY"},
    {"postgresql", "{\"pg\":{\"track_functions\":\"pl\"}}", ""},
    {"postgresql", "{\"pg\":{\"track_functions\":\"some\"}}",
     F "pg.track_functions=Must be one of: all, pl, none"},
    {"postgresql", "{\"pg\":{\"password_encryption\":\"md5\"}}", ""},
    {"mysql", "{\"mysql\":{\"default_time_zone\":\"+\"}}",
     F "mysql.default_time_zone=Must be 2 to 100 characters long"},
    {"mysql", "{\"mysql\":{\"default_time_zone\":\"SYSTEM\"}}", ""},
    {"mysql", "{\"mysql\":{\"default_time_zone\":\"Europe/Helsinki\"}}", ""},
    {"mysql", "{\"mysql\":{\"default_time_zone\":\"-11:30\"}}", ""},
    {"mysql", "{\"mysql\":{\"default_time_zone\":\"+0a:00\"}}",
     F "mysql.default_time_zone=Must match the pattern ^([-+][\\d:]*|[\\w/]*)$"},
    {"mysql", "{\"mysql\":{\"innodb_ft_server_stopword_table\":\"db/t\"}}", ""},
    {"mysql", "{\"mysql\":{\"innodb_ft_server_stopword_table\":\"nodelim\"}}",
     STOPWORD "=Must match the pattern ^.+/.+$"},
    {"mysql", "{\"mysql\":{\"sql_mode\":\"\"}}", ""},
    {"mysql", "{\"mysql\":{\"sql_mode\":\"ANSI,TRADITIONAL\"}}", ""},
    {"mysql", "{\"mysql\":{\"sql_mode\":\"ansi\"}}",
     F "mysql.sql_mode=Must match the pattern ^[A-Z_]*(,[A-Z_]+)*$"},
    {"mysql", "{\"mysql\":{\"sql_mode\":\"ANSI,\"}}",
     F "mysql.sql_mode=Must match the pattern ^[A-Z_]*(,[A-Z_]+)*$"},
    {"postgresql", "{\"pg\":{\"timezone\":\"Europe/Helsinki\"}}", ""},
    {"postgresql", "{\"pg\":{\"timezone\":\"Europe Helsinki\"}}",
     F "pg.timezone=Must match the pattern ^[\\w/]*$"},
    {"postgresql", "{\"pg\":{\"pg_partman_bgw.role\":\"myrolename\"}}", ""},
    {"postgresql", "{\"pg\":{\"pg_partman_bgw.role\":\"-x\"}}",
     F "pg.pg_partman_bgw.role=Must match the pattern "
     "^[_A-Za-z0-9][-._A-Za-z0-9]{0,63}$"},
    /* An embedded NUL never matches a pattern. */
    {"postgresql", "{\"pg\":{\"timezone\":\"UTC\\u0000x\"}}",
     F "pg.timezone=Must match the pattern ^[\\w/]*$"},
    /* Groups: nested fields, dotted names, wrong shapes. */
    {"postgresql", "{\"pglookout\":{\"max_failover_replication_time_lag\":9}}",
     F "pglookout.max_failover_replication_time_lag=Must be an integer from "
     "10 to 999999"},
    {"postgresql", "{\"pg\":{\"pg_stat_monitor.pgsm_max_buckets\":11}}",
     F "pg.pg_stat_monitor.pgsm_max_buckets=Must be an integer from 1 to 10"},
    {"mysql", "{\"mysql\":5}", F "mysql=Must be an object"},
    {"postgresql", "{\"pglookout\":[]}", F "pglookout=Must be an object"},
    {"mysql", "\"x\"", "engine_config=Must be an object"},
    {"mysql", "[]", "engine_config=Must be an object"},
    /* Names that are no setting of the engine. */
    {"mysql", "{\"mysql\":{\"nope\":1}}",
     F "mysql.nope=Not a setting of mysql (GET /databases/mysql/config "
     "lists them)"},
    {"mysql", "{\"pg\":{}}",
     F "pg=Not a setting of mysql (GET /databases/mysql/config lists them)"},
    {"postgresql", "{\"deadlock_timeout\":1000}",
     F "deadlock_timeout=Not a setting of postgresql (GET "
     "/databases/postgresql/config lists them)"},
    {"postgresql", "{\"pg\":{\"description\":\"x\"}}",
     F "pg.description=Not a setting of postgresql (GET "
     "/databases/postgresql/config lists them)"},
    /* Every problem at once, in the body's order. */
    {"mysql", "{\"mysql\":{\"connect_timeout\":1,\"wait_timeout\":0},"
     "\"binlog_retention_period\":1}",
     MY_CT "|" F "mysql.wait_timeout=Must be an integer from 1 to 2147483"
     "|" F "binlog_retention_period=Must be an integer from 600 to "
     "9007199254740991"},
    {"oracle", "{}", "engine_config=No settings for this engine"},
};

static void test_validate(void **state)
{
    unit_db *db = *state;
    size_t i;

    for (i = 0; i < sizeof(vcases) / sizeof(vcases[0]); i++) {
        const char *got = problems_of(db->pool, vcases[i].engine,
                                      vcases[i].config);

        UNIT_CHECKF(strcmp(got, vcases[i].want) == 0,
                    "case %u %s: got \"%s\", want \"%s\"", (unsigned)i,
                    vcases[i].config ? vcases[i].config : "(none)", got,
                    vcases[i].want);
    }
}

/* Lengths count characters, not bytes (JSON Schema). */
static void test_validate_length_in_characters(void **state)
{
    unit_db *db = *state;
    apr_pool_t *p = db->pool;
    char *table = apr_palloc(p, 1025 * 2 + 3);
    size_t i, o = 0;

    /* 1022 two-byte characters and "/x": 1024 characters, 2046 bytes. */
    for (i = 0; i < 1022; i++) {
        table[o++] = (char)0xC3;
        table[o++] = (char)0xA9;
    }
    memcpy(table + o, "/x", 3);
    assert_string_equal(problems_of(p, "mysql", apr_psprintf(
        p, "{\"mysql\":{\"innodb_ft_server_stopword_table\":\"%s\"}}", table)),
        "");
    assert_string_equal(problems_of(p, "mysql", apr_psprintf(
        p, "{\"mysql\":{\"innodb_ft_server_stopword_table\":\"e%s\"}}",
        table)),
        STOPWORD "=Must be at most 1024 characters long");
    /* 64 characters, then 65: the length is checked before the pattern. */
    assert_string_equal(problems_of(p, "postgresql", apr_psprintf(
        p, "{\"pg\":{\"pg_partman_bgw.role\":\"%s\"}}",
        apr_pstrndup(p, "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"
                        "abcdefghijklmnopqrstuvwxyz", 64))), "");
    assert_string_equal(problems_of(p, "postgresql", apr_psprintf(
        p, "{\"pg\":{\"pg_partman_bgw.role\":\"%s\"}}",
        apr_pstrndup(p, "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"
                        "abcdefghijklmnopqrstuvwxyz", 65))),
        F "pg.pg_partman_bgw.role=Must be at most 64 characters long");
}

/* ------------------------------------------------------------------------
 * The descriptions themselves
 * ------------------------------------------------------------------------ */

/* Every setting of `group` (path `at`) is complete and takes its example
 * and each of its enum values; *count counts the settings. */
static void check_group(apr_pool_t *p, const char *engine, json_t *group,
                        const char *at, int *count)
{
    const char *key;
    json_t *d;

    json_object_foreach(group, key, d) {
        const char *path = *at ? apr_pstrcat(p, at, ".", key, NULL) : key;
        json_t *example = json_object_get(d, "example"), *v, *cfg, *leaf;
        json_t *values = json_object_get(d, "enum");
        size_t i;

        if (!json_object_get(d, "type")) {
            check_group(p, engine, d, path, count);
            continue;
        }
        (*count)++;
        UNIT_CHECK(path, json_is_string(json_object_get(d, "description")));
        UNIT_CHECK(path, json_is_boolean(json_object_get(d, "requires_restart")));
        for (i = 0; i < json_array_size(values) + 1; i++) {
            v = i < json_array_size(values) ? json_array_get(values, i)
                                            : example;
            if (!v) {
                continue;
            }
            /* {"group": {"key": v}} or {"key": v}. */
            leaf = json_object();
            json_object_set(leaf, key, v);
            if (*at) {
                cfg = json_object();
                json_object_set_new(cfg, at, leaf);
            }
            else {
                cfg = leaf;
            }
            acct_json_own(p, cfg);
            UNIT_CHECKF(strcmp(problems_of(p, engine, acct_json_dump(p, cfg,
                                                                     NULL)),
                               "") == 0, "%s takes %s", path,
                        acct_json_dump(p, v, NULL));
        }
    }
}

static void test_documents(void **state)
{
    static const struct {
        const char *engine;
        const char *keys;   /* top-level members, in order */
        int settings;
    } docs[] = {
        {"mysql", "binlog_retention_period,mysql", 28},
        {"postgresql",
         "pg,pg_stat_monitor_enable,pglookout,shared_buffers_percentage,"
         "work_mem", 52},
    };
    unit_db *db = *state;
    apr_pool_t *p = db->pool;
    size_t i, len = 0;

    for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
        const char *text = acct_dbconfig_document(docs[i].engine, &len);
        /* Reals: the public maximum of group_concat_max_len is 2^64 - 1. */
        json_t *d = acct_json_own(p, json_loadb(text, len,
                                                JSON_DECODE_INT_AS_REAL
                                                | JSON_REJECT_DUPLICATES,
                                                NULL));
        const char *key, *keys = "";
        json_t *v;
        int count = 0;

        assert_non_null(d);
        assert_int_equal(strlen(text), len);
        json_object_foreach(d, key, v) {
            keys = apr_pstrcat(p, keys, *keys ? "," : "", key, NULL);
        }
        assert_string_equal(keys, docs[i].keys);
        check_group(p, docs[i].engine, d, "", &count);
        assert_int_equal(count, docs[i].settings);
    }
    assert_null(acct_dbconfig_document("oracle", &len));
    /* Compact, as the public API writes its answers. */
    assert_true(strncmp(acct_dbconfig_document("mysql", &len),
                        "{\"binlog_retention_period\": {\"description\": ",
                        44) == 0);
}

/* The defaults are the description's "default" values where it has them. */
static void collect_defaults(json_t *group, json_t *out)
{
    const char *key;
    json_t *d;

    json_object_foreach(group, key, d) {
        if (!json_object_get(d, "type")) {
            json_t *sub = json_object();

            collect_defaults(d, sub);
            if (json_object_size(sub)) {
                json_object_set(out, key, sub);
            }
            json_decref(sub);
        }
        else if (json_object_get(d, "default")) {
            json_object_set(out, key, json_object_get(d, "default"));
        }
    }
}

static void test_defaults_agree_with_description(void **state)
{
    unit_db *db = *state;
    apr_pool_t *p = db->pool;
    size_t len = 0;
    const char *text = acct_dbconfig_document("postgresql", &len);
    json_t *d = acct_json_own(p, json_loadb(text, len, 0, NULL));
    json_t *want = acct_json_own(p, json_object());
    json_t *got = acct_json_own(p, acct_dbconfig_initial("postgresql", NULL));

    collect_defaults(d, want);
    assert_true(json_equal(got, want));
}

/* ------------------------------------------------------------------------
 * Creation and update, as the public API answered them
 * ------------------------------------------------------------------------ */

static void test_initial(void **state)
{
    unit_db *db = *state;
    apr_pool_t *p = db->pool;
    json_t *pg = doc(p, pg_full);

    /* {"mysql": {}} and {"pg": {}}: the defaults alone. */
    assert_true(same(p, acct_json_own(p, acct_dbconfig_initial(
        "mysql", doc(p, "{\"mysql\":{}}"))), mysql_defaults));
    assert_true(same(p, acct_json_own(p, acct_dbconfig_initial(
        "postgresql", doc(p, "{\"pg\":{}}"))), pg_defaults));
    assert_true(same(p, acct_json_own(p, acct_dbconfig_initial("mysql", NULL)),
                     mysql_defaults));
    /* Every setting given: the given values; the defaults of the settings
     * not given fill in (pglookout's, the pg group's I/O settings). */
    assert_true(same(p, acct_json_own(p, acct_dbconfig_initial(
        "mysql", doc(p, mysql_full))), mysql_full));
    json_object_set_new(pg, "pglookout",
                        json_pack("{s:i}", "max_failover_replication_time_lag",
                                  60));
    json_object_update(json_object_get(pg, "pg"),
                       acct_json_own(p, json_pack("{s:i, s:i, s:i, s:s, s:i}",
                                                  "io_combine_limit", 16,
                                                  "io_max_combine_limit", 16,
                                                  "io_max_concurrency", -1,
                                                  "io_method", "worker",
                                                  "io_workers", 3)));
    assert_true(json_equal(acct_json_own(p, acct_dbconfig_initial(
        "postgresql", doc(p, pg_full))), pg));
    assert_null(acct_dbconfig_initial("oracle", NULL));
}

static void test_merge(void **state)
{
    unit_db *db = *state;
    apr_pool_t *p = db->pool;
    json_t *stored = doc(p, mysql_full);
    const char *before = acct_json_dump(p, stored, NULL);
    json_t *got, *want;

    /* The recorded update: named settings change, a nullable one becomes
     * null, the others stay. */
    got = acct_json_own(p, acct_dbconfig_merge("mysql", stored,
                                               doc(p, mysql_update)));
    want = doc(p, mysql_full);
    json_object_update(json_object_get(want, "mysql"),
                       json_object_get(doc(p, mysql_update), "mysql"));
    assert_true(json_equal(got, want));
    assert_true(json_is_null(json_object_get(json_object_get(got, "mysql"),
                                             "innodb_ft_server_stopword_table")));
    /* The stored settings are not touched. */
    assert_string_equal(acct_json_dump(p, stored, NULL), before);

    /* null elsewhere, null groups: unchanged. */
    got = acct_json_own(p, acct_dbconfig_merge("mysql", stored, doc(p,
        "{\"mysql\":{\"connect_timeout\":null},\"binlog_retention_period\":"
        "null}")));
    assert_true(json_equal(got, stored));
    got = acct_json_own(p, acct_dbconfig_merge("mysql", stored,
                                               doc(p, "{\"mysql\":null}")));
    assert_true(json_equal(got, stored));

    /* A whole real given to an integer setting is stored as an integer; a
     * number setting keeps what it was given. */
    got = acct_json_own(p, acct_dbconfig_merge("mysql", stored, doc(p,
        "{\"mysql\":{\"wait_timeout\":100.0}}")));
    assert_true(json_is_integer(json_object_get(json_object_get(got, "mysql"),
                                                "wait_timeout")));
    assert_int_equal(json_integer_value(json_object_get(json_object_get(
        got, "mysql"), "wait_timeout")), 100);
    got = acct_json_own(p, acct_dbconfig_merge("postgresql", NULL, doc(p,
        "{\"shared_buffers_percentage\":25.0,\"work_mem\":4}")));
    assert_true(json_is_real(json_object_get(got, "shared_buffers_percentage")));
    assert_true(json_is_integer(json_object_get(got, "work_mem")));

    /* A group absent from the stored settings is made; groups merge member
     * by member. */
    got = acct_json_own(p, acct_dbconfig_merge("postgresql",
        doc(p, "{\"pg\":{\"jit\":true}}"),
        doc(p, "{\"pglookout\":{\"max_failover_replication_time_lag\":30},"
               "\"pg\":{\"deadlock_timeout\":3000}}")));
    assert_true(same(p, got, "{\"pg\":{\"jit\":true,\"deadlock_timeout\":3000},"
                     "\"pglookout\":{\"max_failover_replication_time_lag\":30}}"));
    /* Nothing given: a copy. */
    got = acct_json_own(p, acct_dbconfig_merge("mysql", stored, NULL));
    assert_true(json_equal(got, stored));
    assert_ptr_not_equal(got, stored);
}

static void test_needs_restart(void **state)
{
    static const struct {
        const char *engine, *before, *after;
        int want;
    } cases[] = {
        {"mysql", mysql_full, mysql_full, 0},
        {"mysql", "{\"mysql\":{\"connect_timeout\":10}}",
         "{\"mysql\":{\"connect_timeout\":20}}", 0},
        {"mysql", "{\"mysql\":{\"innodb_read_io_threads\":4}}",
         "{\"mysql\":{\"innodb_read_io_threads\":10}}", 1},
        /* Absent, then set. */
        {"mysql", "{\"mysql\":{}}",
         "{\"mysql\":{\"innodb_rollback_on_timeout\":true}}", 1},
        {"mysql", "{}", "{\"binlog_retention_period\":900}", 0},
        {"postgresql", "{\"pg_stat_monitor_enable\":false}",
         "{\"pg_stat_monitor_enable\":true}", 1},
        {"postgresql", "{\"pglookout\":{\"max_failover_replication_time_lag\":60}}",
         "{\"pglookout\":{\"max_failover_replication_time_lag\":30}}", 0},
        /* The same number written two ways is no change. */
        {"postgresql", "{\"shared_buffers_percentage\":25}",
         "{\"shared_buffers_percentage\":25.0}", 0},
        {"postgresql", "{\"shared_buffers_percentage\":25}",
         "{\"shared_buffers_percentage\":30}", 1},
        {"postgresql", "{\"pg\":{\"max_wal_senders\":20}}",
         "{\"pg\":{\"max_wal_senders\":21}}", 1},
        {"postgresql", "{\"pg\":{\"pg_stat_monitor.pgsm_max_buckets\":2}}",
         "{\"pg\":{\"pg_stat_monitor.pgsm_max_buckets\":3}}", 1},
        {"postgresql", "{\"pg\":{\"deadlock_timeout\":1000}}",
         "{\"pg\":{\"deadlock_timeout\":3000}}", 0},
        {"oracle", "{}", "{\"x\":1}", 0},
    };
    unit_db *db = *state;
    apr_pool_t *p = db->pool;
    size_t i;

    json_t *stored = doc(p, mysql_full), *after;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        UNIT_CHECK_CASE(i, acct_dbconfig_needs_restart(
                               cases[i].engine, doc(p, cases[i].before),
                               doc(p, cases[i].after)) == cases[i].want);
    }
    /* What an update compares: the settings before and after the merge.
     * The recorded update changes no setting that restarts. */
    after = acct_json_own(p, acct_dbconfig_merge("mysql", stored,
                                                 doc(p, mysql_update)));
    assert_false(acct_dbconfig_needs_restart("mysql", stored, after));
    after = acct_json_own(p, acct_dbconfig_merge("mysql", stored, doc(p,
        "{\"mysql\":{\"net_buffer_length\":8192}}")));
    assert_true(acct_dbconfig_needs_restart("mysql", stored, after));
}

/* ------------------------------------------------------------------------
 * Engines and node types (the catalogue)
 * ------------------------------------------------------------------------ */

static void test_engines(void **state)
{
    static const struct {
        const char *id, *version, *canonical, *full;
        int listed;
    } known[] = {
        {"mysql/8", "8", "mysql/8", "8.0.35", 1},
        {"postgresql/13", "13", "postgresql/13", "13.2", 1},
        {"postgresql/14", "14", "postgresql/14", "14.15", 1},
        {"postgresql/15", "15", "postgresql/15", "15.4", 1},
        {"postgresql/16", "16", "postgresql/16", "16.4", 1},
        {"postgresql/17", "17", "postgresql/17", "17.4", 1},
        /* The contract's ids, and the releases the majors run. */
        {"mysql/8.0.30", "8.0.30", "mysql/8", "8.0.30", 0},
        {"mysql/8.0.26", "8.0.26", "mysql/8", "8.0.26", 0},
        {"mysql/8.0.35", "8.0.35", "mysql/8", "8.0.35", 0},
        {"mysql/5.7.30", "5.7.30", "mysql/5", "5.7.30", 0},
        {"postgresql/16.4", "16.4", "postgresql/16", "16.4", 0},
        {"postgresql/17.4", "17.4", "postgresql/17", "17.4", 0},
    };
    unit_db *db = *state;
    apr_pool_t *p = db->pool;
    acct_engine_ref e;
    const char *full;
    size_t i;
    int found;

    for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        assert_int_equal(acct_catalog_engine_find(db->store, p, known[i].id, &e,
                                                  &found), ACCT_STORE_OK);
        UNIT_CHECK(known[i].id, found == 1);
        assert_string_equal(e.id, known[i].id);
        assert_string_equal(e.engine, strncmp(known[i].id, "mysql", 5) == 0
                                      ? "mysql" : "postgresql");
        assert_string_equal(e.version, known[i].version);
        assert_string_equal(e.canonical, known[i].canonical);
        assert_string_equal(e.full_version, known[i].full);
        UNIT_CHECK(known[i].id, e.listed == known[i].listed);
    }
    for (i = 0; i < 4; i++) {
        static const char *const unknown[] = {"mysql/9", "mysql", "mysql/8.0",
                                              "postgresql/16/4"};

        assert_int_equal(acct_catalog_engine_find(db->store, p, unknown[i], &e,
                                                  &found), ACCT_STORE_OK);
        UNIT_CHECK(unknown[i], found == 0 && e.id == NULL);
    }
    assert_int_equal(acct_catalog_engine_of(db->store, p, "postgresql", "16",
                                            &e, &found), ACCT_STORE_OK);
    assert_true(found && strcmp(e.full_version, "16.4") == 0);
    assert_int_equal(acct_catalog_engine_current(db->store, p, "postgresql",
                                                 "14", &full), ACCT_STORE_OK);
    assert_string_equal(full, "14.15");
    assert_int_equal(acct_catalog_engine_current(db->store, p, "mysql", "8",
                                                 &full), ACCT_STORE_OK);
    assert_string_equal(full, "8.0.35");
    /* No listed major 5: a full-version id names no current release. */
    assert_int_equal(acct_catalog_engine_current(db->store, p, "mysql", "5",
                                                 &full), ACCT_STORE_OK);
    assert_null(full);
    assert_string_equal(acct_engine_major(p, "8.0.35"), "8");
    assert_string_equal(acct_engine_major(p, "17"), "17");
    assert_null(acct_engine_major(p, NULL));
}

static void test_db_types(void **state)
{
    unit_db *db = *state;
    apr_pool_t *p = db->pool;
    acct_db_type t;
    double hourly = 0, monthly = 0;
    int found;

    assert_int_equal(acct_catalog_db_type_find(db->store, p, "g6-nanode-1", &t,
                                               &found), ACCT_STORE_OK);
    assert_true(found);
    assert_string_equal(t.id, "g6-nanode-1");
    assert_string_equal(t.label, "DBaaS - Nanode 1GB");
    assert_string_equal(t.type_class, "nanode");
    assert_int_equal(t.memory, 1024);
    assert_int_equal(t.vcpus, 1);
    assert_int_equal(t.disk, 9216);
    assert_false(t.deprecated);
    assert_true(acct_db_type_offers(&t, "mysql", 1, &hourly, &monthly));
    assert_true(hourly == 0.024 && monthly == 16.0);
    assert_true(acct_db_type_offers(&t, "postgresql", 3, &hourly, NULL));
    assert_true(hourly == 0.055);
    /* Shared plans come in one or three nodes, dedicated ones in two too. */
    assert_false(acct_db_type_offers(&t, "mysql", 2, NULL, NULL));
    assert_false(acct_db_type_offers(&t, "oracle", 1, NULL, NULL));
    assert_int_equal(acct_catalog_db_type_find(db->store, p, "g6-dedicated-2",
                                               &t, &found), ACCT_STORE_OK);
    assert_true(found);
    assert_true(acct_db_type_offers(&t, "postgresql", 2, &hourly, &monthly));
    assert_true(hourly == 0.214 && monthly == 143.0);
    assert_int_equal(acct_catalog_db_type_find(db->store, p, "g6-dedicated-56",
                                               &t, &found), ACCT_STORE_OK);
    assert_true(found && t.memory == 262144);
    assert_int_equal(acct_catalog_db_type_find(db->store, p, "g6-nanode-2", &t,
                                               &found), ACCT_STORE_OK);
    assert_false(found);
    assert_null(t.id);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_DB_TEST(test_validate),
        UNIT_DB_TEST(test_validate_length_in_characters),
        UNIT_DB_TEST(test_documents),
        UNIT_DB_TEST(test_defaults_agree_with_description),
        UNIT_DB_TEST(test_initial),
        UNIT_DB_TEST(test_merge),
        UNIT_DB_TEST(test_needs_restart),
        UNIT_DB_TEST(test_engines),
        UNIT_DB_TEST(test_db_types),
    };

    return UNIT_DB_RUN(tests);
}
