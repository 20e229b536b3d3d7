"""Request bodies: limits, media type, JSON strictness.

Exercised on POST /v4/profile/tokens.  While the module has no such route
yet (404/405), these tests skip, and they activate by themselves once it
exists.
"""

import json

import pytest

from checks import assert_headers, assert_json
from harness import Httpd

ROUTE = "/profile/tokens"
LIMIT = 1024
INVALID_JSON = {"errors": [{"reason": "Invalid JSON"}]}
TOO_LARGE = {"errors": [{"reason": "Request body too large"}]}
MEDIA = {"errors": [{"reason": "Content-Type must be application/json"}]}
JSON_CT = {"Content-Type": "application/json"}


def require_body_route(client):
    r = client.post(ROUTE, json={"label": "e2e-probe"})
    if r.status in (404, 405):
        pytest.skip(f"no body route yet: POST /v4{ROUTE} answers {r.status}")
    return r


@pytest.fixture(scope="module")
def small_server(backend):
    """A server with AcctapiMaxBodySize 1024."""
    srv = Httpd(backend, backend.base, max_body=LIMIT, name="httpd-small")
    try:
        srv.start()
        yield srv
    finally:
        srv.stop_and_check()


@pytest.fixture
def small(small_server, backend):
    c = small_server.client(token=backend.token)
    require_body_route(c)
    yield c
    c.close()


@pytest.fixture
def body_api(api):
    require_body_route(api)
    return api


def chunks(data, size=100):
    for i in range(0, len(data), size):
        yield data[i:i + size]


def test_probe_creates_token(body_api):
    r = body_api.post(ROUTE, json={"label": "e2e-plain"})
    assert r.status == 200, r
    doc = assert_json(r)
    assert doc.get("label") == "e2e-plain", doc


def test_chunked_body_accepted(body_api):
    data = json.dumps({"label": "e2e-chunked"}).encode()
    r = body_api.post(ROUTE, headers=JSON_CT, data=chunks(data, 5))
    assert r.raw.request.headers.get("Transfer-Encoding") == "chunked"
    assert r.status == 200, r
    assert assert_json(r).get("label") == "e2e-chunked", r


def test_charset_parameter_accepted(body_api):
    r = body_api.post(ROUTE, headers={"Content-Type": "application/json; charset=utf-8"},
                      data=json.dumps({"label": "e2e-charset"}).encode())
    assert r.status == 200, r


@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded",
                                   "application/jsonx"])
def test_wrong_content_type(body_api, ctype):
    r = body_api.post(ROUTE, headers={"Content-Type": ctype},
                      data=json.dumps({"label": "e2e-text"}).encode())
    assert r.status == 415, r
    assert assert_json(r) == MEDIA
    assert_headers(r)


@pytest.mark.parametrize("body", [b"{", b'{"label": }', b"not json", b'{"label": "a"} x',
                                  b'{"label": "\xff\xfe"}'],
                         ids=["truncated", "missing-value", "text", "trailing", "bad-utf8"])
def test_malformed_json(body_api, body):
    r = body_api.post(ROUTE, headers=JSON_CT, data=body)
    assert r.status == 400, r
    assert assert_json(r) == INVALID_JSON


def test_duplicate_keys(body_api):
    r = body_api.post(ROUTE, headers=JSON_CT, data=b'{"label": "a", "label": "b"}')
    assert r.status == 400, r
    assert assert_json(r) == INVALID_JSON


def nested(depth):
    """An object whose deepest container is the `depth`-th level (the outer
    object counts as 1)."""
    inner = "[" * (depth - 1) + "]" * (depth - 1)
    return ('{"label": "e2e-deep", "x": ' + inner + "}").encode()


def test_nesting_65_is_invalid(body_api):
    r = body_api.post(ROUTE, headers=JSON_CT, data=nested(65))
    assert r.status == 400, r
    assert assert_json(r) == INVALID_JSON


def test_nesting_64_is_not_invalid_json(body_api):
    r = body_api.post(ROUTE, headers=JSON_CT, data=nested(64))
    doc = assert_json(r)
    assert r.status not in (413, 415, 500), r
    if r.status >= 400:
        assert "Invalid JSON" not in [e.get("reason") for e in doc["errors"]], r


def test_too_large_content_length(small):
    body = json.dumps({"label": "e2e-big", "pad": "x" * 2 * LIMIT}).encode()
    r = small.post(ROUTE, headers=JSON_CT, data=body)
    assert r.status == 413, r
    assert assert_json(r) == TOO_LARGE
    assert_headers(r)


def test_too_large_chunked(small):
    body = json.dumps({"label": "e2e-big", "pad": "x" * 4 * LIMIT}).encode()
    r = small.post(ROUTE, headers=JSON_CT, data=chunks(body, 256))
    assert r.status == 413, r
    assert assert_json(r) == TOO_LARGE


def test_at_limit_accepted(small):
    body = json.dumps({"label": "e2e-limit"}).encode()
    body += b" " * (LIMIT - len(body))
    assert len(body) == LIMIT
    r = small.post(ROUTE, headers=JSON_CT, data=body)
    assert r.status == 200, r
    r = small.post(ROUTE, headers=JSON_CT, data=chunks(body, 100))
    assert r.status == 200, r


def test_one_over_limit(small):
    body = json.dumps({"label": "e2e-limit"}).encode()
    body += b" " * (LIMIT + 1 - len(body))
    r = small.post(ROUTE, headers=JSON_CT, data=body)
    assert r.status == 413, r
    assert assert_json(r) == TOO_LARGE
