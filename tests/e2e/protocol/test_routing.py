"""Routing: 404, 405, trailing slash, HEAD, and the headers on errors."""

import pytest
import requests

from checks import CACHEABLE, assert_error, assert_headers, assert_json

NOT_FOUND = {"errors": [{"reason": "Not found"}]}
METHOD = {"errors": [{"reason": "Method Not Allowed"}]}


@pytest.mark.parametrize("path", ["/nope", "/nope/deeper", "/regionsx", "/compute",
                                  "/compute/types/x/y"])
def test_unknown_route(anon, path):
    r = anon.get(path)
    assert r.status == 404, r
    assert assert_json(r) == NOT_FOUND
    assert_headers(r, scopes="unknown")


def test_unknown_route_with_token(api):
    r = api.get("/nope")
    assert r.status == 404, r
    assert assert_json(r) == NOT_FOUND
    assert_headers(r)


def test_v4_root(anon):
    r = anon.get("")
    assert r.status == 404, r
    assert assert_json(r) == NOT_FOUND


@pytest.mark.parametrize("method", ["DELETE", "POST", "PUT", "PATCH"])
@pytest.mark.parametrize("path", ["/regions", "/compute/types", "/databases/engines"])
def test_wrong_method(anon, method, path):
    r = anon.request(method, path, headers={"Content-Type": "application/json"}, data=b"{}")
    assert r.status == 405, r
    assert assert_json(r) == METHOD
    allow = [m.strip() for m in r.headers.get("Allow", "").split(",")]
    assert allow == ["GET", "HEAD", "OPTIONS"], r
    assert method not in allow, r
    assert_headers(r, scopes="unknown")


def test_wrong_method_single(anon):
    reg = anon.get("/regions").json["data"][0]["id"]
    r = anon.delete(f"/regions/{reg}")
    assert r.status == 405, r
    assert assert_json(r) == METHOD
    assert "GET" in r.headers.get("Allow", ""), r


@pytest.mark.parametrize("path", ["/regions", "/compute/types", "/databases/engines",
                                  "/regions/availability"])
def test_trailing_slash(anon, path):
    a = anon.get(path)
    b = anon.get(path + "/")
    assert a.status == b.status == 200, (a, b)
    assert assert_json(b) == a.json
    assert b.headers.get("Cache-Control") == a.headers.get("Cache-Control")


def test_trailing_slash_single_and_auth(api):
    reg = api.get("/regions").json["data"][0]
    r = api.get(f"/regions/{reg['id']}/")
    assert r.status == 200 and r.json == reg, r
    r = api.get("/profile/")
    assert r.status == 200, r
    assert r.json == api.get("/profile").json


def test_head(anon):
    r = anon.head("/regions")
    assert r.status == 200, r
    assert r.body == b"", r
    assert r.ctype == "application/json", r
    assert_headers(r, cache=CACHEABLE, scopes="unknown", accepted="*")


def test_head_unknown(anon):
    r = anon.head("/nope")
    assert r.status == 404, r
    assert r.body == b""


def test_query_string_does_not_break_routing(anon):
    r = anon.get("/regions?foo=bar&page=1")
    assert r.status == 200, r
    assert assert_json(r)["page"] == 1


def test_encoded_path_segment(anon):
    reg = anon.get("/regions").json["data"][0]["id"]
    enc = "".join(f"%{ord(c):02X}" for c in reg)
    r = anon.get(f"/regions/{enc}")
    assert r.status == 200, r
    assert r.json["id"] == reg


@pytest.mark.parametrize("path", ["/regions/%00", "/regions/%zz", "/regions/a%2Fb"])
def test_odd_path_segments(anon, path):
    r = anon.get(path)
    assert r.status in (400, 404), r
    assert_error(r, r.status)


def test_options(anon):
    """OPTIONS is answered on every known path (CORS: test_cors.py)."""
    r = anon.request("OPTIONS", "/regions")
    assert r.status == 200, r
    assert assert_json(r) == {}
    assert r.headers.get("Allow") == "GET, HEAD, OPTIONS", r
    assert_headers(r, scopes="unknown", accepted="*")


def test_options_unknown_path_is_json(anon):
    r = anon.request("OPTIONS", "/nope")
    assert_error(r, 404, "Not found")


def test_api_urls_walk_no_file_system(make_server, backend, expect_log):
    """The API's URLs name no files: httpd walks no directories for them,
    so not even a broken .htaccess in DocumentRoot (which every other URL
    trips over) reaches an API request."""
    srv = make_server(name="no-walk", extra='<Directory "/">\n    AllowOverride All\n</Directory>\n')
    (srv.root / ".htaccess").write_text("ThisIsNotADirective on\n")
    expect_log(r"\.htaccess: Invalid command 'ThisIsNotADirective'")
    c = srv.client(token=backend.token)
    try:
        r = c.get("/profile")
        assert r.status == 200, r
        r = c.post("/domains", json={"domain": f"{backend.unique('walk')}.e2e-walk.example",
                                     "type": "master", "soa_email": "a@e2e-walk.example"})
        assert r.status == 200, r
        assert c.delete(f"/domains/{r.json['id']}").status == 200
        # Any other URL is mapped to the file system, and meets the file.
        other = requests.get(srv.url + "/elsewhere", timeout=15)
        assert other.status_code == 500, other
    finally:
        c.close()
