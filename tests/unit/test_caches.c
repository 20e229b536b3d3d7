/* The answers served as text: acct_resp's raw body, the pages
 * and items the catalogue snapshot keeps, and the zone file written as JSON
 * directly.  Each is compared byte for byte with what the slow path
 * (jansson, or SQL for the catalogues) gives. */
#include "unit.h"

#include <apr_strings.h>
#include <apr_thread_proc.h>
#include <jansson.h>
#include <string.h>

#include "unit_db.h"
#include "acct_dns.h"
#include "acct_json.h"
#include "acct_textcache.h"
#include "acct_zone.h"
#include "api_catalog.h"
#include "api_handlers.h"

/* A snapshot that outlives the test: every answer after the first is kept. */
static const acct_settings long_lived = {0, APR_INT64_C(3600000000)};

/* ------------------------------------------------------------------------
 * acct_resp with a raw body
 * ------------------------------------------------------------------------ */

static void test_resp_raw(void **state)
{
    unit_db *db = *state;
    apr_pool_t *p = db->pool;
    static const char text[] = "{\"a\":[1,\"x\"],\"b\":0.0075}";
    acct_resp resp;
    apr_size_t len = 0;
    json_t *doc;

    acct_resp_init(&resp, p);
    assert_null(resp.raw);
    assert_null(acct_resp_raw(&resp, &len));

    acct_resp_ok_raw(&resp, text, sizeof(text) - 1);
    assert_int_equal(resp.status, 200);
    assert_false(acct_resp_failed(&resp));
    assert_true(acct_resp_commits(&resp));
    assert_ptr_equal(acct_resp_raw(&resp, &len), text);
    assert_int_equal(len, sizeof(text) - 1);
    /* The wire gets the text itself, not a copy. */
    assert_ptr_equal(acct_resp_text(&resp, p, &len), text);
    /* Readers of the document get it parsed, and the same one each time. */
    doc = acct_resp_document(&resp, p);
    assert_non_null(doc);
    assert_ptr_equal(acct_resp_document(&resp, p), doc);
    assert_string_equal(acct_json_dump(p, doc, NULL), text);
    assert_ptr_equal(acct_resp_text(&resp, p, &len), text);

    /* An error after the raw body: the envelope goes out, not the text. */
    acct_resp_error(&resp, p, 404, ACCT_R_NOT_FOUND, NULL);
    assert_null(acct_resp_raw(&resp, &len));
    assert_string_equal(acct_resp_text(&resp, p, &len),
                        "{\"errors\":[{\"reason\":\"Not found\"}]}");

    /* An error status without an item: its reason, never the text. */
    acct_resp_init(&resp, p);
    acct_resp_ok_raw(&resp, text, sizeof(text) - 1);
    resp.status = 503;
    assert_null(acct_resp_raw(&resp, &len));
    assert_string_equal(acct_resp_text(&resp, p, &len),
                        "{\"errors\":[{\"reason\":\"Service Unavailable\"}]}");

    /* A later JSON answer replaces the raw one, and the other way round. */
    acct_resp_init(&resp, p);
    acct_resp_ok_raw(&resp, text, sizeof(text) - 1);
    acct_resp_ok(&resp, p, json_pack("{s:i}", "n", 1));
    assert_null(acct_resp_raw(&resp, &len));
    assert_string_equal(acct_resp_text(&resp, p, &len), "{\"n\":1}");
    acct_resp_ok_raw(&resp, "[]", 2);
    assert_string_equal(acct_resp_text(&resp, p, &len), "[]");
    assert_int_equal(len, 2);

    /* No body at all (204): no text. */
    acct_resp_init(&resp, p);
    resp.status = 204;
    assert_null(acct_resp_text(&resp, p, &len));
    assert_int_equal(len, 0);
}

/* ------------------------------------------------------------------------
 * Catalogues
 * ------------------------------------------------------------------------ */

typedef struct answer {
    int status;
    const char *text;     /* the bytes the glue would send */
    const char *raw;      /* the raw body's address, or NULL */
} answer;

/*
 * Runs `h` as the glue does and returns what it would send.  The request
 * is a copy of `tpl` (from unit_req) in `p`, so that threads can run it.
 */
static answer run(apr_pool_t *p, const acct_req *tpl, acct_handler *h,
                  const char *page, const char *page_size, const char *filter,
                  const char *param)
{
    acct_req *req = apr_pmemdup(p, tpl, sizeof(*tpl));
    acct_resp resp;
    apr_size_t len = 0;
    answer a;

    req->pool = p;
    req->query = apr_table_make(p, 2);
    req->settings = &long_lived;
    req->filter = filter;
    req->params[0] = param;
    if (page) {
        apr_table_setn(req->query, "page", page);
    }
    if (page_size) {
        apr_table_setn(req->query, "page_size", page_size);
    }
    acct_resp_init(&resp, p);
    h(req, &resp);
    a.status = resp.status;
    a.raw = acct_resp_raw(&resp, &len);
    a.text = acct_resp_text(&resp, p, &len);
    if (!a.text || strlen(a.text) != len) {
        a.status = -1;
    }
    return a;
}

typedef struct list_route {
    const char *name;
    acct_handler *handler;
} list_route;

static const list_route lists[] = {
    {"regions", api_regions_list},
    {"availability", api_regions_availability},
    {"types", api_types_list},
    {"engines", api_engines_list},
    {"db types", api_db_types_list},
};

#define N_LISTS ((int)(sizeof(lists) / sizeof(lists[0])))

/*
 * Every page of every list at several page sizes: the kept text equals
 * the answer through SQL (an empty X-Filter takes that path), the second
 * request is served from what the first kept, and pages past the end and
 * bad parameters still answer as before.
 */
static void test_catalog_pages(void **state)
{
    static const char *const sizes[] = {NULL, "25", "26", "99", "100", "500"};
    unit_db *db = *state;
    apr_pool_t *p = db->pool;
    const acct_req *tpl = unit_req(db, NULL);
    size_t l, s;

    for (l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
        for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            int page, pages = 1;

            for (page = 1; page <= pages + 1; page++) {
                const char *pg = apr_itoa(p, page);
                answer sql = run(p, tpl, lists[l].handler, pg, sizes[s], "{}",
                                 NULL);
                answer first = run(p, tpl, lists[l].handler, pg, sizes[s],
                                   NULL, NULL);
                answer again = run(p, tpl, lists[l].handler, pg, sizes[s],
                                   NULL, NULL);
                json_t *doc = json_loads(sql.text, 0, NULL);

                assert_int_equal(sql.status, 200);
                pages = (int)json_integer_value(json_object_get(doc, "pages"));
                json_decref(doc);
                UNIT_CHECKF(strcmp(first.text, sql.text) == 0,
                            "%s page %s size %s: cached %s, SQL %s",
                            lists[l].name, pg, sizes[s] ? sizes[s] : "-",
                            first.text, sql.text);
                assert_string_equal(again.text, sql.text);
                if (page <= pages) {
                    /* Kept: the second answer is the first one's text. */
                    assert_non_null(first.raw);
                    assert_ptr_equal(again.raw, first.raw);
                }
                else {
                    /* Past the end: rendered each time, never kept. */
                    assert_null(first.raw);
                    assert_null(again.raw);
                }
            }
        }
        assert_int_equal(run(p, tpl, lists[l].handler, "0", NULL, NULL,
                             NULL).status, 400);
        assert_int_equal(run(p, tpl, lists[l].handler, "1", "10", NULL,
                             NULL).status, 400);
        /* Filtered lists go through SQL, as before: nothing kept. */
        assert_null(run(p, tpl, lists[l].handler, NULL, NULL, "{}", NULL).raw);
    }
}

/* Each item equals its entry of the list, and is kept once rendered. */
static void test_catalog_items(void **state)
{
    static const struct {
        acct_handler *list, *item;
    } kinds[] = {
        {api_regions_list, api_region_get},
        {api_types_list, api_type_get},
        {api_engines_list, api_engine_get},
        {api_db_types_list, api_db_type_get},
    };
    unit_db *db = *state;
    apr_pool_t *p = db->pool;
    const acct_req *tpl = unit_req(db, NULL);
    size_t k, i;

    for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        answer all = run(p, tpl, kinds[k].list, NULL, "500", NULL, NULL);
        /* Owned by the pool: freed with it. */
        json_t *data = json_object_get(acct_json_own(p, json_loads(all.text, 0,
                                                                   NULL)),
                                       "data");
        json_t *entry;

        assert_true(json_array_size(data) > 0);
        json_array_foreach(data, i, entry) {
            const char *id = json_string_value(json_object_get(entry, "id"));
            answer a = run(p, tpl, kinds[k].item, NULL, NULL, NULL, id);
            answer b = run(p, tpl, kinds[k].item, NULL, NULL, NULL, id);

            assert_int_equal(a.status, 200);
            assert_string_equal(a.text, acct_json_dump(p, entry, NULL));
            assert_non_null(a.raw);
            assert_ptr_equal(b.raw, a.raw);
        }
        assert_int_equal(run(p, tpl, kinds[k].item, NULL, NULL, NULL,
                             "atlantis").status, 404);
        assert_int_equal(run(p, tpl, kinds[k].item, NULL, NULL, NULL,
                             "atlantis").status, 404);
    }
}

/* A region's availability equals its slice of the whole list. */
static void test_catalog_region_availability(void **state)
{
    unit_db *db = *state;
    apr_pool_t *p = db->pool;
    const acct_req *tpl = unit_req(db, NULL);
    answer regions = run(p, tpl, api_regions_list, NULL, "500", NULL, NULL);
    answer avail = run(p, tpl, api_regions_availability, NULL, "500", NULL,
                       NULL);
    json_t *rdata = json_object_get(acct_json_own(p, json_loads(regions.text,
                                                                0, NULL)),
                                    "data");
    json_t *adata = json_object_get(acct_json_own(p, json_loads(avail.text, 0,
                                                                NULL)),
                                    "data");
    json_t *region, *item;
    size_t i, j;

    json_array_foreach(rdata, i, region) {
        const char *id = json_string_value(json_object_get(region, "id"));
        json_t *want = json_array();
        answer a = run(p, tpl, api_region_availability, NULL, NULL, NULL, id);
        answer b = run(p, tpl, api_region_availability, NULL, NULL, NULL, id);

        json_array_foreach(adata, j, item) {
            if (strcmp(json_string_value(json_object_get(item, "region")),
                       id) == 0) {
                json_array_append(want, item);
            }
        }
        assert_string_equal(a.text, acct_json_dump(p, want, NULL));
        assert_ptr_equal(b.raw, a.raw);
        json_decref(want);
    }
    assert_int_equal(run(p, tpl, api_region_availability, NULL, NULL, NULL,
                         "atlantis").status, 404);
}

/*
 * Every page size of the compute types, more than the snapshot may keep:
 * answers past the budget are rendered per request, and all stay right.
 */
static void test_catalog_budget(void **state)
{
    unit_db *db = *state;
    apr_pool_t *p = db->pool;
    const acct_req *tpl = unit_req(db, NULL);
    int size, kept = 0, rendered = 0;

    for (size = 25; size <= 500; size++) {
        const char *sz = apr_itoa(p, size);
        answer sql = run(p, tpl, api_types_list, "1", sz, "{}", NULL);
        answer a = run(p, tpl, api_types_list, "1", sz, NULL, NULL);
        answer b = run(p, tpl, api_types_list, "1", sz, NULL, NULL);

        assert_string_equal(a.text, sql.text);
        assert_string_equal(b.text, sql.text);
        if (b.raw == a.raw) {
            kept++;
        }
        else {
            rendered++;
        }
    }
    assert_true(kept > 0);
    print_message("types at every page size: %d kept, %d past the budget\n",
                  kept, rendered);
}

/* Threads asking for pages at once, misses racing: every answer right. */
typedef struct worker {
    const acct_req *tpl;
    const char *const *want;   /* [list * WORKER_SIZES + size] texts */
    int index;
    int failures;
} worker;

#define WORKER_SIZES 8
#define WORKER_ROUNDS 300
#define WORKERS 6

static void *APR_THREAD_FUNC work(apr_thread_t *thread, void *data)
{
    worker *w = data;
    apr_pool_t *p = NULL;
    int i;

    apr_pool_create_unmanaged_ex(&p, NULL, NULL);
    for (i = 0; i < WORKER_ROUNDS; i++) {
        int l = i % N_LISTS, s = (i / N_LISTS + w->index) % WORKER_SIZES;
        answer a = run(p, w->tpl, lists[l].handler, "1",
                       apr_itoa(p, 25 + 50 * s), NULL, NULL);

        if (a.status != 200 || strcmp(a.text, w->want[l * WORKER_SIZES + s])) {
            w->failures++;
        }
        if (i % 50 == 49) {
            apr_pool_clear(p);
        }
    }
    apr_pool_destroy(p);
    apr_thread_exit(thread, APR_SUCCESS);
    return NULL;
}

static void test_catalog_threads(void **state)
{
    unit_db *db = *state;
    apr_pool_t *p = db->pool;
    const acct_req *tpl = unit_req(db, NULL);
    const char **want = apr_palloc(p, sizeof(char *) * N_LISTS * WORKER_SIZES);
    apr_thread_t *threads[WORKERS];
    worker workers[WORKERS];
    acct_req *req;
    acct_resp resp;
    apr_status_t rv;
    int l, s, t;

    for (l = 0; l < N_LISTS; l++) {
        for (s = 0; s < WORKER_SIZES; s++) {
            want[l * WORKER_SIZES + s] =
                run(p, tpl, lists[l].handler, "1", apr_itoa(p, 25 + 50 * s),
                    "{}", NULL).text;
        }
    }
    /* unit_req's TTL is 0: this loads a fresh snapshot, which the threads'
     * long-lived settings then use (never touching the store), racing to
     * keep every page. */
    req = unit_req(db, NULL);
    acct_resp_init(&resp, p);
    api_engines_list(req, &resp);
    assert_int_equal(resp.status, 200);
    for (t = 0; t < WORKERS; t++) {
        workers[t].tpl = tpl;
        workers[t].want = want;
        workers[t].index = t;
        workers[t].failures = 0;
        assert_int_equal(apr_thread_create(&threads[t], NULL, work,
                                           &workers[t], p), APR_SUCCESS);
    }
    for (t = 0; t < WORKERS; t++) {
        apr_thread_join(&rv, threads[t]);
    }
    for (t = 0; t < WORKERS; t++) {
        assert_int_equal(workers[t].failures, 0);
    }
}

/* ------------------------------------------------------------------------
 * The zone file as JSON
 * ------------------------------------------------------------------------ */

static acct_rows *rows_of(apr_pool_t *p, int ncols, const char **names,
                          int nrows, const char **cells)
{
    acct_rows *r = apr_pcalloc(p, sizeof(*r));
    int i;

    r->ncols = ncols;
    r->nrows = nrows;
    r->names = names;
    r->values = apr_palloc(p, sizeof(*r->values) * (size_t)(nrows + 1));
    for (i = 0; i < nrows; i++) {
        r->values[i] = cells + i * ncols;
    }
    return r;
}

/* The document the old code built: a JSON string per line, dumped. */
static const char *jansson_zone(apr_pool_t *p, const apr_array_header_t *lines)
{
    json_t *list = json_array(), *doc = json_object();
    const char *text;
    int i;

    for (i = 0; i < lines->nelts; i++) {
        json_t *line = json_string(APR_ARRAY_IDX(lines, i, const char *));

        assert_non_null(line);
        json_array_append_new(list, line);
    }
    json_object_set_new(doc, "zone_file", list);
    text = acct_json_dump(p, doc, NULL);
    json_decref(doc);
    return text;
}

static void test_zone_json(void **state)
{
    static const char *dnames[] = {"id", "domain", "soa_email", "expire_sec",
                                   "refresh_sec", "retry_sec", "ttl_sec",
                                   "serial"};
    static const char *rnames[] = {"type", "name", "target", "priority",
                                   "weight", "port", "ttl_sec", "tag"};
    static const char *domains[][8] = {
        {"7", "Ex-ample.com", "first.last@example.com", "0", "0", "0", "0",
         "2024010101"},
        {"8", "", NULL, "1", "2", "3", "4", "99999999999"},
        {"9", "odd\"\\ \x01\xc3\xa9.", "@", NULL, "x", "-1", "60", NULL},
    };
    const char *records[] = {
        "A", "", "192.0.2.1", "0", "0", "0", "0", NULL,
        "A", "bad", "192.0.2.300", "0", "0", "0", "0", NULL,
        "AAAA", "www", "2001:db8::1", "0", "0", "0", "300", NULL,
        "MX", "", "", "0", "0", "0", "0", NULL,
        "MX", "m", "mail.example.net", "10", "0", "0", "0", NULL,
        "SRV", "_sip._tcp", "sip", "1", "2", "5060", "0", NULL,
        "TXT", "t", "q\"b\\s \t\n\x7f\xc3\xa9 end", "0", "0", "0", "0", NULL,
        "CAA", "", "letsencrypt.org", "0", "0", "0", "0", "issue",
        "CAA", "", "x", "0", "0", "0", "0", NULL,
        "NS", "sub.", "ns.example.org.", "0", "0", "0", "0", NULL,
        "CNAME", "*", "", "0", "0", "0", "0", NULL,
        "PTR", "1.2", "host", "0", "0", "0", "0", NULL,
        "HINFO", "h", "x", "0", "0", "0", "0", NULL,
        NULL, "n", NULL, NULL, NULL, NULL, NULL, NULL,
        "TXT", "long", "(set below)", "0", "0", "0", "0", NULL,
    };
    static const char *const ns[] = {"ns1.example.net", "ns2.\"odd\".",
                                     NULL};
    unit_db *db = *state;
    apr_pool_t *p = db->pool;
    acct_rows *recs;
    char long_txt[2000];
    size_t d;

    memset(long_txt, 'a', sizeof(long_txt) - 1);
    memcpy(long_txt + 250, "\xc3\xa9\xc3\xa9\xc3\xa9\"\\", 8);
    long_txt[sizeof(long_txt) - 1] = '\0';
    records[14 * 8 + 2] = long_txt;
    recs = rows_of(p, 8, rnames, 15, records);
    for (d = 0; d < sizeof(domains) / sizeof(domains[0]); d++) {
        acct_rows *dom = rows_of(p, 8, dnames, 1, domains[d]);
        int with;

        for (with = 0; with < 4; with++) {
            const acct_rows *r = with & 1 ? recs : NULL;
            const char *const *n = with & 2 ? ns : NULL;
            apr_size_t len = 0;
            const char *got = acct_zone_json(p, dom, 0, r, n, &len);
            const char *want = jansson_zone(p, acct_zone_render(p, dom, 0, r,
                                                                n));

            assert_non_null(got);
            assert_non_null(want);
            UNIT_CHECKF(strcmp(got, want) == 0, "domain %d, case %d:\n%s\n%s",
                        (int)d, with, got ? got : "(null)",
                        want ? want : "(null)");
            assert_int_equal(len, strlen(want));
        }
    }
}

/* The escaper against jansson, byte by byte (UTF-8 for bytes >= 0x80). */
static void test_json_string_escaper(void **state)
{
    unit_db *db = *state;
    char in[8], out[64], *end;
    int c;

    for (c = 1; c < 0x800; c++) {
        size_t n = 0;
        json_t *s;
        char *want;

        in[n++] = 'x';
        if (c < 0x80) {
            in[n++] = (char)c;
        }
        else {
            in[n++] = (char)(0xC0 | (c >> 6));
            in[n++] = (char)(0x80 | (c & 0x3F));
        }
        in[n++] = 'y';
        in[n] = '\0';
        s = json_string(in);
        want = acct_json_dump(db->pool, s, NULL);
        end = acct_json_quote(out, in, n);
        *end = '\0';
        UNIT_CHECKF(strcmp(out, want) == 0, "U+%04X: ours %s, jansson %s", c,
                    out, want);
        json_decref(s);
    }
}

/* GET zone-file through the handler: the text the old code sent. */
static void test_zone_handler_text(void **state)
{
    static const acct_settings zone_settings = {0};
    unit_db *db = *state;
    apr_pool_t *p = db->pool;
    acct_principal who;
    acct_req *req;
    acct_resp resp;
    acct_rows *domain = NULL, *records = NULL;
    apr_size_t len = 0;
    const char *args[1], *text;
    apr_int64_t id;
    int i;
    static const acct_sql q_last = ACCT_SQL("test_last_domain",
        "SELECT max(id) AS id FROM domains");
    static const acct_sql q_domain = ACCT_SQL("test_domain_row",
        "SELECT * FROM domains WHERE id = CAST(%s AS BIGINT)");

    unit_identity(db, "cacheowner", 0, "*", &who);
    assert_int_equal(acct_store_exec_script(db->store, p, apr_psprintf(p,
        "INSERT INTO domains (account_id, domain, domain_key, type, status,"
        " soa_email, serial, created, updated) VALUES (%" APR_INT64_T_FMT
        ", 'Cache.Example', 'cache.example', 'master', 'active',"
        " 'a.b@cache.example', 7, 1, 1)", who.account_id)), ACCT_STORE_OK);
    assert_int_equal(acct_store_select(db->store, p, &q_last, &domain, 0,
                                       NULL), ACCT_STORE_OK);
    assert_int_equal(acct_parse_i64(acct_rows_get(domain, 0, "id"), &id), 0);
    for (i = 0; i < 300; i++) {
        assert_int_equal(acct_store_exec_script(db->store, p, apr_psprintf(p,
            "INSERT INTO domain_records (domain_id, type, name, target,"
            " priority, ttl_sec, created, updated) VALUES (%" APR_INT64_T_FMT
            ", '%s', 'h%d', '%s', %d, %d, 1, 1)", id,
            i % 3 == 0 ? "A" : i % 3 == 1 ? "TXT" : "MX", i,
            i % 3 == 0 ? "192.0.2.9" : i % 3 == 1 ? "say \"\"hi\"\" \\ ok"
                                                  : "mx.example.org",
            i % 7, i % 5 * 60)), ACCT_STORE_OK);
    }
    req = unit_req(db, &who);
    req->settings = &zone_settings;
    req->params[0] = apr_psprintf(p, "%" APR_INT64_T_FMT, id);
    acct_resp_init(&resp, p);
    api_zone_file(req, &resp);
    assert_int_equal(resp.status, 200);
    assert_non_null(acct_resp_raw(&resp, &len));
    text = acct_resp_text(&resp, p, &len);

    args[0] = req->params[0];
    assert_int_equal(acct_store_select(db->store, p, &q_domain, &domain, 1,
                                       args), ACCT_STORE_OK);
    assert_int_equal(acct_zone_records(db->store, p, id, &records),
                     ACCT_STORE_OK);
    assert_int_equal(records->nrows, 300);
    assert_string_equal(text, jansson_zone(p, acct_zone_render(p, domain, 0,
                                                               records,
                                                               NULL)));
    /* What the unit helper (and any reader of the document) sees agrees. */
    req = unit_req(db, &who);
    req->settings = &zone_settings;
    req->params[0] = args[0];
    assert_string_equal(unit_call(req, api_zone_file, &i), text);
}

/* ------------------------------------------------------------------------
 * acct_textcache and the zone file cache
 * ------------------------------------------------------------------------ */

static void test_textcache(void **state)
{
    unit_db *db = *state;
    apr_pool_t *p = db->pool, *cp = NULL;
    acct_textcache *c;
    apr_size_t len = 0, bytes = 0;
    const char *got;
    int n = 0;

    assert_null(acct_textcache_get(NULL, p, "k", "1", &len));
    acct_textcache_put(NULL, "k", "1", "text", 4);

    assert_int_equal(apr_pool_create(&cp, p), APR_SUCCESS);
    c = acct_textcache_create(cp, 3, 10);
    assert_non_null(c);
    assert_null(acct_textcache_get(c, p, "a", "1", &len));

    acct_textcache_put(c, "a", "1", "aaaa", 4);
    got = acct_textcache_get(c, p, "a", "1", &len);
    assert_non_null(got);
    assert_int_equal(len, 4);
    assert_string_equal(got, "aaaa");
    /* Another version of the key misses; storing it replaces the first. */
    assert_null(acct_textcache_get(c, p, "a", "2", &len));
    acct_textcache_put(c, "a", "2", "AAAAA", 5);
    assert_null(acct_textcache_get(c, p, "a", "1", &len));
    assert_string_equal(acct_textcache_get(c, p, "a", "2", &len), "AAAAA");
    acct_textcache_usage(c, &n, &bytes);
    assert_int_equal(n, 1);
    assert_int_equal(bytes, 5);

    /* The byte budget: "b" (4) fits beside "a" (5); "c" (3) does not, so
     * the least recently used goes: "b", since "a" was read after it. */
    acct_textcache_put(c, "b", "1", "bbbb", 4);
    assert_non_null(acct_textcache_get(c, p, "a", "2", &len));
    acct_textcache_put(c, "c", "1", "ccc", 3);
    assert_null(acct_textcache_get(c, p, "b", "1", &len));
    assert_string_equal(acct_textcache_get(c, p, "a", "2", &len), "AAAAA");
    assert_string_equal(acct_textcache_get(c, p, "c", "1", &len), "ccc");
    acct_textcache_usage(c, &n, &bytes);
    assert_int_equal(n, 2);
    assert_int_equal(bytes, 8);

    /* The entry budget: a fourth key pushes out the oldest of three. */
    acct_textcache_put(c, "d", "1", "d", 1);
    acct_textcache_put(c, "e", "1", "e", 1);
    assert_null(acct_textcache_get(c, p, "a", "2", &len));
    assert_non_null(acct_textcache_get(c, p, "c", "1", &len));
    assert_non_null(acct_textcache_get(c, p, "d", "1", &len));
    assert_non_null(acct_textcache_get(c, p, "e", "1", &len));

    /* Larger than the whole budget: not kept, nothing else lost. */
    acct_textcache_put(c, "big", "1", "0123456789x", 11);
    assert_null(acct_textcache_get(c, p, "big", "1", &len));
    acct_textcache_usage(c, &n, &bytes);
    assert_int_equal(n, 3);
    assert_int_equal(bytes, 5);

    /* A text with NUL bytes comes back whole, and NUL-terminated. */
    acct_textcache_put(c, "z", "1", "x\0y", 3);
    got = acct_textcache_get(c, p, "z", "1", &len);
    assert_int_equal(len, 3);
    assert_memory_equal(got, "x\0y", 4);
    apr_pool_destroy(cp);
}

/* The zone text GET /zone-file answers, through the handler. */
static const char *zone_answer(unit_db *db, const acct_principal *who,
                               const char *id, const acct_settings *settings)
{
    acct_req *req = unit_req(db, who);
    const char *text;
    int status = 0;

    req->settings = settings;
    req->params[0] = id;
    text = unit_call(req, api_zone_file, &status);
    assert_int_equal(status, 200);
    return text;
}

/*
 * With the cache, a zone is answered from the text of the same serial; a
 * change that moves the serial (every stored change does) is answered
 * afresh.  The records are changed here behind the serial's back to tell a
 * cached answer from a fresh one.
 */
static void test_zone_cache(void **state)
{
    static const acct_settings plain = {0};
    static const char *const other_ns[] = {"ns1.other.example", NULL};
    acct_settings with_ns = plain;
    unit_db *db = *state;
    apr_pool_t *p = db->pool, *cp = NULL;
    acct_principal who;
    acct_rows *rows = NULL;
    const char *id, *first, *second;
    apr_int64_t n;
    static const acct_sql q_last = ACCT_SQL("test_cache_last_domain",
        "SELECT max(id) AS id FROM domains");

    with_ns.nameservers = other_ns;
    assert_int_equal(apr_pool_create(&cp, p), APR_SUCCESS);
    assert_int_equal(api_zone_cache_init(cp), 0);
    unit_identity(db, "zonecache", 0, "*", &who);
    assert_int_equal(acct_store_exec_script(db->store, p, apr_psprintf(p,
        "INSERT INTO domains (account_id, domain, domain_key, type, status,"
        " serial, created, updated) VALUES (%" APR_INT64_T_FMT
        ", 'zc.example', 'zc.example', 'master', 'active', 5, 1, 1)",
        who.account_id)), ACCT_STORE_OK);
    assert_int_equal(acct_store_select(db->store, p, &q_last, &rows, 0, NULL),
                     ACCT_STORE_OK);
    id = acct_rows_get(rows, 0, "id");
    assert_int_equal(acct_parse_i64(id, &n), 0);

    first = zone_answer(db, &who, id, &plain);
    assert_null(strstr(first, "sneaked"));
    assert_int_equal(acct_store_exec_script(db->store, p, apr_psprintf(p,
        "INSERT INTO domain_records (domain_id, type, name, target, created,"
        " updated) VALUES (%s, 'A', 'sneaked', '192.0.2.7', 1, 1)", id)),
        ACCT_STORE_OK);
    /* Same serial: the kept text. */
    assert_string_equal(zone_answer(db, &who, id, &plain), first);
    /* Other nameservers: another text, rendered now. */
    second = zone_answer(db, &who, id, &with_ns);
    assert_non_null(strstr(second, "sneaked"));
    assert_non_null(strstr(second, "ns1.other.example"));
    /* The serial moves: rendered afresh, with the record. */
    assert_int_equal(acct_dns_touch(db->store, p, n, 1000), ACCT_STORE_OK);
    second = zone_answer(db, &who, id, &plain);
    assert_non_null(strstr(second, "sneaked"));
    assert_non_null(strstr(second, " 1000 "));
    assert_string_not_equal(second, first);

    /* Without the cache (its pool gone), every answer is fresh. */
    apr_pool_destroy(cp);
    assert_int_equal(acct_store_exec_script(db->store, p, apr_psprintf(p,
        "DELETE FROM domain_records WHERE domain_id = %s", id)),
        ACCT_STORE_OK);
    assert_null(strstr(zone_answer(db, &who, id, &plain), "sneaked"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        UNIT_DB_TEST(test_resp_raw),
        UNIT_DB_TEST(test_catalog_pages),
        UNIT_DB_TEST(test_catalog_items),
        UNIT_DB_TEST(test_catalog_region_availability),
        UNIT_DB_TEST(test_catalog_budget),
        UNIT_DB_TEST(test_catalog_threads),
        UNIT_DB_TEST(test_zone_json),
        UNIT_DB_TEST(test_json_string_escaper),
        UNIT_DB_TEST(test_zone_handler_text),
        UNIT_DB_TEST(test_textcache),
        UNIT_DB_TEST(test_zone_cache),
    };

    return UNIT_DB_RUN(tests);
}
