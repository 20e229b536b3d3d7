/*
 * GET /openapi.json: the OpenAPI document of this build, as
 * mod_acctapi/api/openapi.json says it (scripts/build/embed-openapi compiles the file
 * into acct_openapi_doc.c).
 *
 * The document never changes while a process runs, so each process parses
 * it once and every request answers that same value: jansson counts
 * references atomically and, since 2.13, encodes a value without writing to
 * it, so threads of the event MPM may answer it at the same time as long as
 * nobody modifies it.  With an older jansson each request parses its own
 * copy instead.
 */
#include "api_handlers.h"
#include "acct_log.h"

#include <apr_atomic.h>

extern const char acct_openapi_doc[];
extern const size_t acct_openapi_doc_len;

#define SHARE_DOCUMENT (JANSSON_VERSION_HEX >= 0x020d00)

/* The embedded text as a new JSON value, or NULL (logged): a broken build. */
static json_t *openapi_parse(void)
{
    json_error_t err;
    json_t *doc = json_loadb(acct_openapi_doc, acct_openapi_doc_len,
                             JSON_REJECT_DUPLICATES, &err);

    if (!doc) {
        acct_log(ACCT_LOG_ERR, ACCTLOGNO(00041) "the embedded OpenAPI document does not parse: "
                 "line %d: %s", err.line, err.text);
    }
    return doc;
}

#if SHARE_DOCUMENT
/* The process's parsed document (json_t *): set once, never changed. */
static volatile void *shared_doc;

/*
 * A new reference to the process's document.  The first requests may race
 * to parse it: one compare-and-swap wins and the losers drop their copy.
 */
static json_t *openapi_document(void)
{
    json_t *doc = apr_atomic_casptr(&shared_doc, NULL, NULL), *won;

    if (!doc) {
        doc = openapi_parse();
        if (!doc) {
            return NULL;
        }
        won = apr_atomic_casptr(&shared_doc, doc, NULL);
        if (won) {
            json_decref(doc);
            doc = won;
        }
    }
    return json_incref(doc);
}
#else
static json_t *openapi_document(void)
{
    return openapi_parse();
}
#endif

void api_openapi(acct_req *req, acct_resp *resp)
{
    json_t *doc = openapi_document();

    if (!doc) {
        acct_resp_error(resp, req->pool, ACCT_HTTP_INTERNAL_SERVER_ERROR, ACCT_R_INTERNAL, NULL);
        return;
    }
    acct_resp_ok(resp, req->pool, doc);
    /* Fixed for the life of the build, like the regions catalogue. */
    apr_table_setn(resp->headers, "Cache-Control", "private, max-age=900");
}
