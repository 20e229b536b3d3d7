"""The OpenAPI document (mod_acctapi/api/openapi.json): it agrees with the route
table compiled into this build (`acctapi-admin routes`) in both directions,
it is a sound document on its own, and the module serves it unchanged at
/v4/openapi.json.  (Every response of the suite is also checked against it:
harness.check_response.)"""

import json
import re
import subprocess

import jsonschema
import pytest

import harness
from checks import CACHEABLE, assert_headers, assert_json
from harness import ADMIN, METHODS, OPENAPI_DOC, SPEC_VERSION

TIMESTAMP_PATTERN = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$"


@pytest.fixture(scope="module")
def doc():
    return json.loads(OPENAPI_DOC.read_text())


@pytest.fixture(scope="module")
def routes():
    """(method, path under /v4 as the document writes it, scope, kind, flags)."""
    out = subprocess.run([str(ADMIN), "routes"], check=True, capture_output=True,
                         text=True).stdout
    rows = []
    for line in out.splitlines():
        method, path, scope, kinds = line.split("\t")
        kind, *flags = kinds.split(" ")
        assert path.startswith("/v4/"), line
        # "{name...}" (the rest of the path) is "{name}" with x-rest-of-path.
        rows.append((method, path[len("/v4"):].replace("...}", "}"), scope, kind,
                     set(flags), "...}" in path))
    assert len(rows) >= 40, out
    return rows


def deref(doc, node):
    while isinstance(node, dict) and "$ref" in node:
        node = harness.resolve_pointer(doc, node["$ref"])
    return node


def operations(doc):
    for path, item in doc["paths"].items():
        for method in METHODS:
            if method in item:
                yield method.upper(), path, item[method]


def params_of(doc, op):
    return {(p["in"], p["name"]): p for p in (deref(doc, x) for x in op.get("parameters", []))}


# ---- the route table and the document ---------------------------------------

def test_every_route_is_documented(doc, routes):
    problems = []
    for method, path, scope, kind, flags, rest in routes:
        op = doc["paths"].get(path, {}).get(method.lower())
        where = f"{method} {path}"
        if op is None:
            problems.append(f"{where}: not in the document")
            continue
        if op.get("x-required-scope") != scope:
            problems.append(f"{where}: x-required-scope {op.get('x-required-scope')!r}, "
                            f"the route needs {scope!r}")
        security = op.get("security")
        if kind == "public":
            want = []
        elif kind == "any-token":
            want = [{"personalAccessToken": []}, {"oauth": []}]
        else:
            want = [{"personalAccessToken": [scope]}, {"oauth": [scope]}]
        if "token-optional" in flags:
            # Answered without a token too: the empty requirement first.
            want = [{}] + want
        if security != want:
            problems.append(f"{where}: security {security!r}, want {want!r} ({kind})")
        responses = op.get("responses", {})
        if (kind == "public") == ("401" in responses):
            problems.append(f"{where}: 401 {'documented' if kind == 'public' else 'missing'} "
                            f"on a {kind} route")
        params = params_of(doc, op)
        is_list = {("query", "page"), ("query", "page_size"), ("header", "X-Filter")} <= set(params)
        if is_list != ("list" in flags):
            problems.append(f"{where}: list parameters {'present' if is_list else 'missing'}, "
                            f"route flags {sorted(flags)}")
        has_body = bool(op.get("requestBody", {}).get("required"))
        if has_body != ("body" in flags):
            problems.append(f"{where}: requestBody {'present' if has_body else 'missing'}, "
                            f"route flags {sorted(flags)}")
        if has_body and not {"413", "415"} <= set(responses):
            problems.append(f"{where}: takes a body but documents no 413/415")
        unrestricted = op.get("x-unrestricted-only") is True
        if unrestricted != ("unrestricted-only" in flags):
            problems.append(f"{where}: x-unrestricted-only {unrestricted}, "
                            f"route flags {sorted(flags)}")
        if unrestricted and "403" not in responses:
            problems.append(f"{where}: unrestricted-only without a 403")
        cache = deref(doc, deref(doc, responses.get("200", {})).get("headers", {})
                      .get("Cache-Control", {})).get("schema", {}).get("const")
        if "cacheable" in flags and cache != CACHEABLE:
            problems.append(f"{where}: cacheable route, the document's 200 says "
                            f"Cache-Control {cache!r}")
        for name in re.findall(r"\{([^}]+)\}", path):
            p = params.get(("path", name))
            if p is None:
                problems.append(f"{where}: path parameter {name} undeclared")
            elif bool(p.get("x-rest-of-path")) != rest:
                problems.append(f"{where}: {name}: x-rest-of-path must be {rest} "
                                f"as in the route table")
    assert not problems, "\n".join(problems)


def test_every_operation_is_a_route(doc, routes):
    table = {(m, p) for m, p, *_ in routes}
    extra = [f"{m} {p}" for m, p, _ in operations(doc) if (m, p) not in table]
    assert not extra, "operations the module does not route:\n" + "\n".join(extra)


# ---- the document on its own --------------------------------------------------

def walk(node, at="#"):
    if isinstance(node, dict):
        yield at, node
        for k, v in node.items():
            yield from walk(v, f"{at}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from walk(v, f"{at}/{i}")


def test_document_header(doc):
    assert re.fullmatch(r"3\.1\.\d+", doc["openapi"]), doc["openapi"]
    assert doc["info"]["version"] == SPEC_VERSION
    assert doc["info"]["title"]
    assert doc["servers"][0]["url"] == "/v4"
    assert set(doc) <= {"openapi", "info", "jsonSchemaDialect", "servers", "paths",
                        "webhooks", "components", "security", "tags", "externalDocs"}


def test_every_ref_resolves(doc):
    bad = []
    for at, node in walk(doc):
        ref = node.get("$ref")
        if isinstance(ref, str):
            try:
                harness.resolve_pointer(doc, ref)
            except (KeyError, IndexError, ValueError):
                bad.append(f"{at}: {ref}")
    assert not bad, "unresolved references:\n" + "\n".join(bad)


def test_every_component_is_used(doc):
    used = {node["$ref"] for _, node in walk(doc) if isinstance(node.get("$ref"), str)}
    unused = [f"#/components/{kind}/{name}"
              for kind, items in doc["components"].items() if kind != "securitySchemes"
              for name in items if f"#/components/{kind}/{name}" not in used]
    # MethodNotAllowed describes 405, which no operation answers: a method
    # the path does not list does.
    assert unused == ["#/components/responses/MethodNotAllowed"], unused


def test_schemas_are_valid_json_schema(doc):
    for name, schema in doc["components"]["schemas"].items():
        jsonschema.Draft202012Validator.check_schema(schema)
        for at, node in walk(schema, name):
            if "required" in node and "properties" in node:
                missing = set(node["required"]) - set(node["properties"])
                assert not missing, f"{at}: required but not described: {missing}"
    assert doc["components"]["schemas"]["Timestamp"]["pattern"] == TIMESTAMP_PATTERN


def test_error_envelope(doc):
    schemas = doc["components"]["schemas"]
    env = schemas["ErrorEnvelope"]
    assert env["additionalProperties"] is False and env["required"] == ["errors"]
    item = schemas["ErrorItem"]
    assert item["required"] == ["reason"] and item["additionalProperties"] is False
    assert set(item["properties"]) == {"reason", "field"}
    v = jsonschema.Draft202012Validator(harness.openapi().inline(env))
    assert v.is_valid({"errors": [{"reason": "Not found"}]})
    assert v.is_valid({"errors": [{"reason": "x", "field": "label"}, {"reason": "y"}]})
    for bad in ({"errors": []}, {"errors": [{"reason": "x", "field": None}]},
                {"errors": [{"field": "x"}]}, {"errors": [{"reason": "x"}], "extra": 1}):
        assert not v.is_valid(bad), bad


def test_every_operation_is_complete(doc):
    problems = []
    ids = set()
    schemes = doc["components"]["securitySchemes"]
    oauth_scopes = set(schemes["oauth"]["flows"]["authorizationCode"]["scopes"])
    tags = {t["name"] for t in doc.get("tags", [])}
    for method, path, op in operations(doc):
        where = f"{method} {path}"
        if op.get("operationId") in ids or not op.get("operationId"):
            problems.append(f"{where}: operationId missing or not unique")
        ids.add(op.get("operationId"))
        if not set(op.get("tags", [])) <= tags:
            problems.append(f"{where}: undeclared tag")
        if "security" not in op:
            problems.append(f"{where}: no security (public operations say [])")
        for req in op.get("security", []):
            for scheme, scopes in req.items():
                if scheme not in schemes:
                    problems.append(f"{where}: unknown security scheme {scheme}")
                if not set(scopes) <= oauth_scopes:
                    problems.append(f"{where}: undeclared scopes {scopes}")
        responses = op.get("responses", {})
        if not any(re.fullmatch(r"2\d\d", k) for k in responses):
            problems.append(f"{where}: no success response")
        for code in ("429", "5XX"):
            if code not in responses:
                problems.append(f"{where}: no {code}")
        for code, resp in responses.items():
            resp = deref(doc, resp)
            schema = resp.get("content", {}).get("application/json", {}).get("schema")
            if code[0] in "45" and schema != {"$ref": "#/components/schemas/ErrorEnvelope"}:
                problems.append(f"{where}: {code} is not the error envelope")
            if code[0] == "2" and code != "204" and schema is None:
                problems.append(f"{where}: {code} has no body schema")
            if code == "204" and schema is not None:
                problems.append(f"{where}: 204 with a body")
            if code == "429" and "Retry-After" not in resp.get("headers", {}):
                problems.append(f"{where}: 429 without Retry-After")
            for h in ("X-Spec-Version", "X-OAuth-Scopes", "X-Accepted-OAuth-Scopes"):
                if not deref(doc, resp.get("headers", {}).get(h, {})).get("required"):
                    problems.append(f"{where}: {code} does not require {h}")
        for (where_in, name), p in params_of(doc, op).items():
            if where_in == "path" and f"{{{name}}}" not in path:
                problems.append(f"{where}: path parameter {name} not in the path")
        body = op.get("requestBody")
        if body and list(body.get("content", {})) != ["application/json"]:
            problems.append(f"{where}: request body not application/json")
    assert not problems, "\n".join(problems)


def test_page_size_bounds(doc):
    p = doc["components"]["parameters"]
    assert p["page"]["schema"] == {"type": "integer", "minimum": 1, "default": 1}
    assert p["page_size"]["schema"] == {"type": "integer", "minimum": 25, "maximum": 500,
                                        "default": 100}


# ---- served ---------------------------------------------------------------------

def test_served_document_is_the_repository_file(anon, doc):
    r = anon.get("/openapi.json")
    assert r.status == 200, r
    assert assert_json(r) == doc
    assert_headers(r, cache=CACHEABLE, scopes="unknown", accepted="*")


def test_served_document_ignores_authorization(anon, doc):
    r = anon.get("/openapi.json", authorization="Bearer " + "0" * 64)
    assert r.status == 200, r
    assert r.json == doc
    r = anon.head("/openapi.json")
    assert r.status == 200 and r.body == b"", r


def test_served_document_under_v4beta(anon, server, doc):
    r = anon.get(server.url + "/v4beta/openapi.json")
    assert r.status == 200 and r.json == doc, r


# ---- the response checks themselves -------------------------------------------

HEADERS = {"X-Spec-Version": SPEC_VERSION, "X-OAuth-Scopes": "*",
           "X-Accepted-OAuth-Scopes": "domains:read_only", "Vary": "Authorization, X-Filter",
           "Cache-Control": "private, max-age=0, no-cache, no-store",
           "Content-Type": "application/json"}
DOMAIN = {"id": 1, "domain": "example.org", "type": "master", "status": "active",
          "errors": "", "description": "", "group": "", "soa_email": "hostmaster@example.org",
          "master_ips": [], "axfr_ips": [], "tags": [], "expire_sec": 0,
          "refresh_sec": 0, "retry_sec": 0, "ttl_sec": 0,
          "created": "2024-05-01T12:30:00", "updated": "2024-05-01T12:30:00"}


def check(method, path, status, body, **headers):
    h = dict(HEADERS)
    h.update({k.replace("_", "-"): v for k, v in headers.items()})
    h = {k: v for k, v in h.items() if v is not None}
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    harness.openapi().check(method, "http://127.0.0.1:1/v4" + path, status, h, raw)


@pytest.mark.parametrize("change,message", [
    ({"created": "2024-05-01T12:30:00Z"}, "does not match"),
    ({"tags": None}, "is not of type 'array'"),
    ({"id": "1"}, "is not of type 'integer'"),
    ({"extra": 1}, "Additional properties"),
])
def test_checks_catch_a_wrong_body(change, message):
    with pytest.raises(AssertionError, match=message):
        check("GET", "/domains/1", 200, dict(DOMAIN, **change))


def test_checks_pass_a_right_body():
    check("GET", "/domains/1", 200, DOMAIN)
    check("GET", "/domains/1/", 200, DOMAIN)
    check("HEAD", "/domains/1", 200, b"")
    check("GET", "/domains/1", 404, {"errors": [{"reason": "Not found"}]})
    check("GET", "/nope", 404, {"errors": [{"reason": "Not found"}]},
          X_Accepted_OAuth_Scopes="*")
    check("PATCH", "/domains/1", 405, {"errors": [{"reason": "Method Not Allowed"}]},
          Allow="GET, HEAD, PUT, DELETE")
    check("GET", "/databases/engines/mysql/8.0.30", 200,
          {"id": "mysql/8.0.30", "engine": "mysql", "version": "8.0.30"},
          X_Accepted_OAuth_Scopes="*")
    check("OPTIONS", "/domains", 204, b"", Content_Type=None)


@pytest.mark.parametrize("args,message", [
    (("GET", "/domains/1", 418, {"errors": [{"reason": "x"}]}), "status 418 is not documented"),
    (("GET", "/domains/1", 404, {"errors": [{"reason": "x", "field": None}]}),
     "None is not of type 'string'"),
    (("GET", "/nope", 200, {}), "answered a success"),
    (("PATCH", "/domains/1", 405, {"errors": [{"reason": "Method Not Allowed"}]}),
     "without an Allow header"),
    (("HEAD", "/domains/1", 200, DOMAIN), "HEAD answered a body"),
    (("GET", "/domains/1", 200, b"<html>"), "not JSON"),
])
def test_checks_catch_a_wrong_answer(args, message):
    with pytest.raises(AssertionError, match=message):
        check(*args)


def test_checks_catch_wrong_headers():
    with pytest.raises(AssertionError, match="Content-Type"):
        check("GET", "/domains/1", 200, DOMAIN, Content_Type="application/json; charset=utf-8")
    with pytest.raises(AssertionError, match="X-Accepted-OAuth-Scopes"):
        check("GET", "/domains/1", 200, DOMAIN, X_Accepted_OAuth_Scopes="*")
    with pytest.raises(AssertionError, match="Cache-Control"):
        check("GET", "/domains/1", 200, DOMAIN, Cache_Control="private, max-age=900")
    with pytest.raises(AssertionError, match="X-Spec-Version"):
        check("GET", "/domains/1", 200, DOMAIN, X_Spec_Version=None)
    with pytest.raises(AssertionError, match="Retry-After"):
        check("GET", "/domains/1", 429, {"errors": [{"reason": "Too many requests"}]})


def test_header_verdicts_are_kept_per_value():
    """A header's verdict is kept for its value: a value refused once is
    refused again, and a good value seen before lets no other through."""
    check("GET", "/domains/1", 200, DOMAIN, X_RateLimit_Remaining="7")
    for _ in range(2):
        with pytest.raises(AssertionError, match="X-RateLimit-Remaining: -1 is less than"):
            check("GET", "/domains/1", 200, DOMAIN, X_RateLimit_Remaining="-1")
        with pytest.raises(AssertionError, match="X-RateLimit-Remaining: '7x' is not an integer"):
            check("GET", "/domains/1", 200, DOMAIN, X_RateLimit_Remaining="7x")
    check("GET", "/domains/1", 200, DOMAIN, X_RateLimit_Remaining="7")


def test_checks_skip_other_url_spaces():
    harness.openapi().check("GET", "http://127.0.0.1:1/server-status", 200, {}, b"<html>")
