/*
 * The account's event feed: GET /account/events, GET /account/events/{id},
 * POST /account/events/{id}/seen and /read (scope events:*).  The model
 * (acct_event.h) writes the events with every change and says what a row
 * shows by the request's clock; this file renders the public API's shape.
 *
 * Choices where the public API is silent:
 *  - a notification's duration is 0 (done when made), its percent_complete
 *    and time_remaining null; a running operation's duration is null, its
 *    percent_complete the share of its time elapsed (at most 99) and its
 *    time_remaining "hh:mm:ss" (null when nothing is scheduled: an external
 *    backend reports the end); a finished one is 100%, a failed one null.
 *  - a tag's entity id is its label, as the public API says.
 *  - details is {}, and message "" for an event without one (the module
 *    writes none): the public API answers so for every event of its
 *    recorded traffic (details in each that carries the key).
 *  - an event a restricted user may not see is 404, like another account's.
 */
#include "api_handlers.h"
#include "acct_event.h"
#include "acct_json.h"
#include "acct_list.h"
#include "acct_text.h"

#include <apr_strings.h>
#include <string.h>

/* The columns of one entity of an event row. */
typedef struct entity_columns {
    const char *type, *id, *label, *url;
    int numeric_id;   /* the id column is a number (the primary entity's) */
} entity_columns;

static const entity_columns primary = {
    "entity_type", "entity_id", "entity_label", "entity_url", 1
};
static const entity_columns secondary = {
    "secondary_type", "secondary_id", "secondary_label", "secondary_url", 0
};

/* {id, label, type, url}, or null when the event has no such entity. */
static json_t *entity(const acct_rows *rows, int i, const entity_columns *c)
{
    const char *type = acct_rows_get(rows, i, c->type);
    const char *id = acct_rows_get(rows, i, c->id);
    const char *label;
    json_t *o;

    if (!type) {
        return json_null();
    }
    o = json_object();
    if (!id && strcmp(type, ACCT_EVENT_ENTITY_TAG) == 0) {
        json_object_set_new(o, "id",
                            acct_json_str(acct_rows_get(rows, i, c->label)));
    }
    else {
        json_object_set_new(o, "id", c->numeric_id ? acct_json_int_or_null(id)
                                                   : acct_json_str(id));
    }
    /* "" for an object without a label (a token made without one): the
     * public shape's label is a string. */
    label = acct_rows_get(rows, i, c->label);
    json_object_set_new(o, "label", acct_json_str(label ? label : ""));
    json_object_set_new(o, "type", json_string(type));
    json_object_set_new(o, "url", acct_json_str(acct_rows_get(rows, i,
                                                              c->url)));
    return o;
}

/* The event's message: "" when it has none, as the public API answers. */
static const char *message_of(const acct_rows *rows, int i)
{
    const char *message = acct_rows_get(rows, i, "message");

    return message ? message : "";
}

/* A count of seconds, or null for -1. */
static json_t *int_or_null(apr_int64_t v)
{
    return v < 0 ? json_null() : json_integer(v);
}

/* "hh:mm:ss", or null for -1. */
static json_t *hms(apr_pool_t *pool, apr_int64_t seconds)
{
    if (seconds < 0) {
        return json_null();
    }
    return json_string(apr_psprintf(pool, "%02" APR_INT64_T_FMT ":%02d:%02d",
                                    seconds / 3600, (int)(seconds / 60 % 60),
                                    (int)(seconds % 60)));
}

static json_t *render_event(acct_req *req, const acct_rows *rows, int i)
{
    acct_event_state s;
    json_t *o = json_object();

    acct_event_state_at(rows, i, req->now, &s);
    json_object_set_new(o, "id", acct_json_int(acct_rows_get(rows, i, "id")));
    json_object_set_new(o, "action",
                        acct_json_str(acct_rows_get(rows, i, "action")));
    json_object_set_new(o, "created",
                        acct_json_time(req->pool,
                                       acct_rows_get(rows, i, "created")));
    json_object_set_new(o, "details", json_object());
    json_object_set_new(o, "duration", int_or_null(s.duration));
    json_object_set_new(o, "entity", entity(rows, i, &primary));
    json_object_set_new(o, "secondary_entity", entity(rows, i, &secondary));
    json_object_set_new(o, "message", acct_json_str(message_of(rows, i)));
    json_object_set_new(o, "percent_complete", int_or_null(s.percent));
    json_object_set_new(o, "rate", json_null());
    json_object_set_new(o, "read",
                        acct_json_bool(acct_rows_get(rows, i, "read")));
    json_object_set_new(o, "seen",
                        acct_json_bool(acct_rows_get(rows, i, "seen")));
    json_object_set_new(o, "status", json_string(s.status));
    json_object_set_new(o, "time_remaining", hms(req->pool, s.remaining));
    json_object_set_new(o, "username",
                        acct_json_str(acct_rows_get(rows, i, "username")));
    return o;
}

/* ------------------------------------------------------------------------
 * A page as JSON text
 *
 * The provider's poll answers one event, yet building it as a jansson tree
 * and serialising that was a third of the request's work in httpd.  Pages
 * are written straight as text, byte for byte what json_dumps (compact)
 * gives for render_event's object: each value is decided as render_event
 * decides it, and tests/unit/test_events.c compares a page's items with
 * the single answers (rendered by render_event).
 * ------------------------------------------------------------------------ */

/* acct_json_int / acct_json_int_or_null of column text `s`. */
static void text_int(acct_text *t, const char *s, int null_when_none)
{
    apr_int64_t v;

    if (!s || acct_parse_i64(s, &v) != 0) {
        if (null_when_none) {
            ACCT_TEXT_LITERAL(t, "null");
            return;
        }
        v = 0;
    }
    acct_text_i64(t, v);
}

/* int_or_null. */
static void text_count(acct_text *t, apr_int64_t v)
{
    if (v < 0) {
        ACCT_TEXT_LITERAL(t, "null");
        return;
    }
    acct_text_i64(t, v);
}

/* acct_json_bool. */
static void text_bool(acct_text *t, const char *s)
{
    json_t *b = acct_json_bool(s);

    if (json_is_true(b)) {
        ACCT_TEXT_LITERAL(t, "true");
    }
    else {
        ACCT_TEXT_LITERAL(t, "false");
    }
}

/* A value jansson renders as a string or null (acct_json_time, hms). */
static void text_json_string(acct_text *t, json_t *v)
{
    acct_json_text_str(t, json_is_string(v) ? json_string_value(v) : NULL);
    json_decref(v);
}

/* entity(). */
static void text_entity(acct_text *t, const acct_rows *rows, int i,
                        const entity_columns *c)
{
    const char *type = acct_rows_get(rows, i, c->type);
    const char *id = acct_rows_get(rows, i, c->id);
    const char *label = acct_rows_get(rows, i, c->label);

    if (!type) {
        ACCT_TEXT_LITERAL(t, "null");
        return;
    }
    ACCT_TEXT_LITERAL(t, "{\"id\":");
    if (!id && strcmp(type, ACCT_EVENT_ENTITY_TAG) == 0) {
        acct_json_text_str(t, label);
    }
    else if (c->numeric_id) {
        text_int(t, id, 1);
    }
    else {
        acct_json_text_str(t, id);
    }
    /* "" for an object without a label, as entity() writes it. */
    ACCT_TEXT_LITERAL(t, ",\"label\":");
    acct_json_text_str(t, label ? label : "");
    ACCT_TEXT_LITERAL(t, ",\"type\":");
    acct_json_text_str(t, type);
    ACCT_TEXT_LITERAL(t, ",\"url\":");
    acct_json_text_str(t, acct_rows_get(rows, i, c->url));
    ACCT_TEXT_LITERAL(t, "}");
}

/* render_event(), key for key. */
static void text_event(acct_req *req, acct_text *t, const acct_rows *rows,
                       int i)
{
    acct_event_state s;

    acct_event_state_at(rows, i, req->now, &s);
    ACCT_TEXT_LITERAL(t, "{\"id\":");
    text_int(t, acct_rows_get(rows, i, "id"), 0);
    ACCT_TEXT_LITERAL(t, ",\"action\":");
    acct_json_text_str(t, acct_rows_get(rows, i, "action"));
    ACCT_TEXT_LITERAL(t, ",\"created\":");
    text_json_string(t, acct_json_time(req->pool,
                                       acct_rows_get(rows, i, "created")));
    ACCT_TEXT_LITERAL(t, ",\"details\":{},\"duration\":");
    text_count(t, s.duration);
    ACCT_TEXT_LITERAL(t, ",\"entity\":");
    text_entity(t, rows, i, &primary);
    ACCT_TEXT_LITERAL(t, ",\"secondary_entity\":");
    text_entity(t, rows, i, &secondary);
    ACCT_TEXT_LITERAL(t, ",\"message\":");
    acct_json_text_str(t, message_of(rows, i));
    ACCT_TEXT_LITERAL(t, ",\"percent_complete\":");
    text_count(t, s.percent);
    ACCT_TEXT_LITERAL(t, ",\"rate\":null,\"read\":");
    text_bool(t, acct_rows_get(rows, i, "read"));
    ACCT_TEXT_LITERAL(t, ",\"seen\":");
    text_bool(t, acct_rows_get(rows, i, "seen"));
    ACCT_TEXT_LITERAL(t, ",\"status\":");
    acct_json_text_str(t, s.status);
    ACCT_TEXT_LITERAL(t, ",\"time_remaining\":");
    text_json_string(t, hms(req->pool, s.remaining));
    ACCT_TEXT_LITERAL(t, ",\"username\":");
    acct_json_text_str(t, acct_rows_get(rows, i, "username"));
    ACCT_TEXT_LITERAL(t, "}");
}

static const char *render_events_text(acct_req *req, const acct_rows *rows,
                                      apr_size_t *len)
{
    acct_text t;
    int i;

    /* About 400 bytes make an event. */
    acct_text_init(&t, req->pool, 512 * (apr_size_t)rows->nrows + 16);
    ACCT_TEXT_LITERAL(&t, "[");
    for (i = 0; i < rows->nrows; i++) {
        if (i > 0) {
            ACCT_TEXT_LITERAL(&t, ",");
        }
        text_event(req, &t, rows, i);
    }
    ACCT_TEXT_LITERAL(&t, "]");
    *len = t.len;
    return t.data;
}

/*
 * The page, sent with the token lookup: the Terraform provider polls this
 * list every few seconds while it waits for a database, and on PostgreSQL a
 * second round trip would cost about as much as the rest of the request.
 */
int api_events_list_read(acct_req *req, const acct_token_ref *token,
                         acct_store_read *out)
{
    acct_list_query q;

    acct_event_list_query_by_token(req, token, render_event, &q);
    return acct_list_statement(req, &q, out);
}

void api_events_list(acct_req *req, acct_resp *resp)
{
    acct_list_query q;

    acct_event_list_query(req, render_event, &q);
    q.render_text = render_events_text;
    /* api_events_list_read read the rows an unrestricted user sees; a
     * restricted user's are fewer, and read now. */
    if (!req->who->restricted) {
        q.page_rows = req->auth_read;
    }
    acct_list_respond(req, resp, &q);
}

/* The provider's wait for an event to finish (linodego's
 * WaitForEventFinished) polls the event by id: it goes with the lookup too. */
int api_event_get_read(acct_req *req, const acct_token_ref *token,
                       acct_store_read *out)
{
    apr_int64_t id;

    if (acct_parse_i64(req->params[0], &id) != 0 || id <= 0) {
        return -1;
    }
    acct_event_get_by_token(req, id, token, out);
    return 0;
}

void api_event_get(acct_req *req, acct_resp *resp)
{
    acct_rows *rows = NULL;
    acct_store_rc rc = ACCT_STORE_OK;
    apr_int64_t id;

    if (acct_path_id(req, resp, 0, &id) != 0) {
        return;
    }
    /* api_event_get_read's row is what an unrestricted user sees. */
    if (!req->who->restricted && req->auth_read) {
        rows = req->auth_read;
    }
    else {
        rc = acct_event_get(req, id, &rows);
    }
    if (acct_resp_found(req, resp, rc, rows)) {
        acct_resp_ok(resp, req->pool, render_event(req, rows, 0));
    }
}

/* POST .../seen and .../read: {} once marked, 404 for an event the user
 * does not see. */
static void mark(acct_req *req, acct_resp *resp,
                 acct_store_rc (*fn)(acct_req *, apr_int64_t, int *))
{
    acct_store_rc rc;
    apr_int64_t id;
    int changed = 0;

    if (acct_path_id(req, resp, 0, &id) != 0) {
        return;
    }
    rc = fn(req, id, &changed);
    if (acct_resp_changed(req, resp, rc, changed) == 0) {
        acct_resp_ok(resp, req->pool, NULL);
    }
}

void api_event_seen(acct_req *req, acct_resp *resp)
{
    mark(req, resp, acct_event_mark_seen);
}

void api_event_read(acct_req *req, acct_resp *resp)
{
    mark(req, resp, acct_event_mark_read);
}
