"""CORS as the public API does it: every /v4 answer, errors included, lets
any origin read it (Access-Control-Allow-Origin: *) and exposes the API's own
headers; OPTIONS preflights are answered without authentication, on every
path, so that the actual request's answer (a 404 or 405 included) reaches the
script instead of an opaque network error.  A plain OPTIONS (no
Access-Control-Request-Method) describes a known path (Allow) and is a 404
elsewhere.  The browser itself is in test_browser.py."""

import re
import shutil
import subprocess

import pytest

import rawhttp
from checks import assert_error, assert_headers, assert_json
from harness import ADMIN, NO_STORE

ORIGIN = "http://app.example.test:8080"
EXPOSED = ["X-OAuth-Scopes", "X-Accepted-OAuth-Scopes", "X-Spec-Version",
           "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset",
           "Retry-After"]
METHODS = ["HEAD", "GET", "OPTIONS", "POST", "PUT", "DELETE"]
# What browsers ask for on behalf of the public clients (the JavaScript SDK
# sends Authorization, Content-Type and X-Filter; the others User-Agent).
REQUEST_HEADERS = ["Authorization", "Content-Type", "X-Filter", "User-Agent", "Accept",
                   "Origin", "X-Requested-With"]
PREFLIGHT = {"Origin": ORIGIN, "Access-Control-Request-Method": "GET",
             "Access-Control-Request-Headers": "authorization,x-filter"}


def tokens(value):
    return [t.strip().lower() for t in (value or "").split(",") if t.strip()]


def assert_cors(r):
    """The headers of every answer: any origin, the API's headers exposed."""
    h = r.headers
    assert h.get("Access-Control-Allow-Origin") == "*", r
    exposed = tokens(h.get("Access-Control-Expose-Headers"))
    for name in EXPOSED:
        assert name.lower() in exposed, (name, r)
    # "*" with credentials is refused by browsers: bearer tokens need none.
    assert "Access-Control-Allow-Credentials" not in h, r


def assert_preflight(r):
    assert r.status == 200, r
    assert assert_json(r) == {}, r
    assert_cors(r)
    h = r.headers
    assert tokens(h.get("Access-Control-Allow-Methods")) == [m.lower() for m in METHODS], r
    allowed = tokens(h.get("Access-Control-Allow-Headers"))
    for name in REQUEST_HEADERS:
        assert name.lower() in allowed, (name, r)
    assert re.fullmatch(r"[1-9][0-9]*", h.get("Access-Control-Max-Age", "")), r
    # The usual headers of every answer; no token was looked at.
    assert_headers(r, scopes="unknown", accepted="*")


def allow_of(r):
    return [m.strip() for m in r.headers.get("Allow", "").split(",") if m.strip()]


def route_paths():
    """Every path template of the build's route table, with its methods."""
    out = subprocess.run([str(ADMIN), "routes"], check=True, capture_output=True,
                         text=True).stdout
    paths = {}
    for line in out.splitlines():
        method, path = line.split("\t")[:2]
        paths.setdefault(path, set()).add(method)
    assert len(paths) >= 30, out
    return sorted(paths.items())


def concrete(path):
    return re.sub(r"\{[^}]+\}", "1", path)[len("/v4"):]


# --------------------------------------------------------------------------
# Preflight
# --------------------------------------------------------------------------

def test_preflight_without_authentication(anon):
    r = anon.request("OPTIONS", "/profile", headers=PREFLIGHT)
    assert_preflight(r)
    assert allow_of(r) == ["GET", "HEAD", "PUT", "OPTIONS"], r


@pytest.mark.parametrize("path,methods", route_paths(), ids=lambda v: v if isinstance(v, str)
                         else None)
def test_preflight_every_route(anon, path, methods):
    """Every path of the table, for each of its methods and with the headers
    a write sends; Allow lists exactly the path's methods."""
    for method in sorted(methods):
        headers = dict(PREFLIGHT, **{"Access-Control-Request-Method": method,
                                     "Access-Control-Request-Headers":
                                     "authorization,content-type,x-filter"})
        r = anon.request("OPTIONS", concrete(path), headers=headers)
        assert_preflight(r)
        want = set(methods) | {"OPTIONS"} | ({"HEAD"} if "GET" in methods else set())
        assert set(allow_of(r)) == want, r
        assert allow_of(r)[-1] == "OPTIONS", r


@pytest.mark.parametrize("authorization", [None, "Bearer " + "0" * 64, "Basic Zm9vOmJhcg==",
                                           "garbage"])
def test_preflight_ignores_authorization(anon, backend, authorization):
    """Browsers never send credentials on a preflight; whatever a non-browser
    client sends, the token is not looked at (no 401, scopes unknown)."""
    for auth in (authorization, f"Bearer {backend.token}"):
        r = anon.request("OPTIONS", "/profile/tokens", headers=PREFLIGHT,
                         authorization=auth)
        assert_preflight(r)


@pytest.mark.parametrize("path", ["/nope", "/regions/x/y/z", "", "/profile/tokens/1/2"])
def test_preflight_unknown_path(anon, path):
    """Answered too: the script then sees the actual request's JSON 404."""
    r = anon.request("OPTIONS", path, headers=PREFLIGHT)
    assert_preflight(r)
    assert "Allow" not in r.headers, r


@pytest.mark.parametrize("method", ["DELETE", "PATCH", "PUT"])
def test_preflight_for_a_method_the_path_lacks(anon, method):
    """The preflight grants the API's methods; the actual request gets the
    405 with Allow, readable by the script."""
    headers = dict(PREFLIGHT, **{"Access-Control-Request-Method": method})
    r = anon.request("OPTIONS", "/regions", headers=headers)
    assert_preflight(r)
    assert allow_of(r) == ["GET", "HEAD", "OPTIONS"], r
    actual = anon.request(method, "/regions", headers={"Origin": ORIGIN})
    assert_error(actual, 405, "Method Not Allowed")
    assert_cors(actual)


def test_preflight_trailing_slash_and_encoded_segment(anon):
    for path in ("/regions/", "/databases/engines/mysql%2F8.0.30",
                 "/databases/engines/mysql/8.0.30"):
        r = anon.request("OPTIONS", path, headers=PREFLIGHT)
        assert_preflight(r)
        assert allow_of(r) == ["GET", "HEAD", "OPTIONS"], r


def test_preflight_is_not_cached_as_data(anon):
    """Regions may be cached (max-age=900); their preflight answer is not
    region data: Access-Control-Max-Age governs it, Cache-Control says no."""
    r = anon.request("OPTIONS", "/regions", headers=PREFLIGHT)
    assert_preflight(r)
    assert r.headers.get("Cache-Control") == NO_STORE, r


def test_preflight_with_a_body_keeps_the_connection_usable(anon):
    r = anon.request("OPTIONS", "/profile", headers=dict(PREFLIGHT, **{
        "Content-Type": "application/json"}), data=b'{"x": 1}')
    assert_preflight(r)
    r = anon.get("/regions")
    assert r.status == 200, r


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_preflight(server):
    """The issue's check, as written: curl -X OPTIONS with a browser's headers."""
    p = subprocess.run(
        ["curl", "-sS", "-i", "--max-time", "15", "-X", "OPTIONS",
         "-H", f"Origin: {ORIGIN}",
         "-H", "Access-Control-Request-Method: POST",
         "-H", "Access-Control-Request-Headers: authorization, content-type, x-filter",
         f"{server.base_url}/profile/tokens"],
        capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    head, _, body = p.stdout.replace("\r\n", "\n").partition("\n\n")
    lines = head.split("\n")
    assert lines[0].split()[1] == "200", p.stdout
    fields = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    assert fields["access-control-allow-origin"] == "*", p.stdout
    assert "post" in tokens(fields["access-control-allow-methods"]), p.stdout
    assert {"authorization", "content-type", "x-filter"} <= \
        set(tokens(fields["access-control-allow-headers"])), p.stdout
    assert fields["content-type"] == "application/json", p.stdout
    assert body == "{}", p.stdout


# --------------------------------------------------------------------------
# Plain OPTIONS
# --------------------------------------------------------------------------

def test_plain_options_known_path(anon):
    r = anon.request("OPTIONS", "/profile/sshkeys/7")
    assert r.status == 200, r
    assert assert_json(r) == {}, r
    assert allow_of(r) == ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"], r
    assert_cors(r)
    assert_headers(r, scopes="unknown", accepted="*")


def test_plain_options_unknown_path(anon):
    r = anon.request("OPTIONS", "/nope")
    assert_error(r, 404, "Not found")
    assert "Allow" not in r.headers, r
    assert_cors(r)
    assert_headers(r, scopes="unknown")


def test_plain_options_with_a_bad_token(anon):
    r = anon.request("OPTIONS", "/profile", authorization="Bearer nonsense")
    assert r.status == 200, r
    assert r.headers.get("X-OAuth-Scopes") == "unknown", r


# --------------------------------------------------------------------------
# CORS headers on every answer
# --------------------------------------------------------------------------

def raw_request(server, text):
    return rawhttp.request(server.port, text)


@pytest.fixture
def restricted(server, backend):
    uid, _ = backend.create_user(restricted=True)
    c = server.client(token=backend.mint_token(scopes="*", user=uid))
    yield c
    c.close()


def test_cors_on_every_kind_of_answer(anon, api, backend, restricted):
    domains_only = backend.mint_token(scopes="domains:read_only")
    cases = [
        (200, anon.get("/regions")),
        (200, anon.head("/regions")),
        (200, api.get("/profile")),
        (200, api.get("/profile/tokens", xfilter={"label": "nothing-has-this-label"})),
        (204, api.get("/profile/grants")),
        (200, restricted.get("/profile/grants")),
        (404, anon.get("/nope")),
        (404, api.get("/profile/tokens/987654321")),
        (405, anon.delete("/regions")),
        (401, anon.get("/profile")),
        (401, anon.get("/profile", authorization="Bearer " + "1" * 64)),
        (401, anon.get("/profile/tokens", token=domains_only)),
        (403, restricted.get("/tags")),
        (400, api.get("/profile/tokens", params={"page": "0"})),
        (400, api.get("/profile/tokens", xfilter={"nonsense": 1})),
        (400, api.post("/profile/tokens", json={"label": ""})),
        (400, api.post("/profile/tokens", data=b"{nope",
                       headers={"Content-Type": "application/json"})),
        (415, api.post("/profile/tokens", data=b"label=x",
                       headers={"Content-Type": "application/x-www-form-urlencoded"})),
        # httpd's own answer, before the module's hooks ran
        (404, anon.get("/regions/%00")),
    ]
    for status, r in cases:
        assert r.status == status, r
        assert_cors(r)
        assert r.headers.get("X-Spec-Version"), r


def test_cors_on_413(server, backend):
    status, headers, body = raw_request(server, (
        "POST /v4/profile/tokens HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {backend.token}\r\n"
        "Content-Type: application/json\r\nContent-Length: 50000000\r\n"
        "Connection: close\r\n\r\n"))
    assert status == 413, (status, headers, body)
    assert headers.get("access-control-allow-origin") == "*", headers
    assert headers.get("content-type") == "application/json", headers


def test_cors_on_httpd_400(server):
    """A request httpd refuses while reading it (a malformed Content-Length)
    still answers the API's JSON with CORS."""
    status, headers, body = raw_request(server, (
        "GET /v4/regions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 12abc\r\n"
        "Connection: close\r\n\r\n"))
    assert status == 400, (status, headers, body)
    assert headers.get("access-control-allow-origin") == "*", headers
    assert headers.get("content-type") == "application/json", headers


def test_lowercase_options_is_another_method(server):
    """Method names are case-sensitive (requests would upper-case it)."""
    status, headers, body = raw_request(server, (
        "options /v4/regions HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Access-Control-Request-Method: GET\r\nConnection: close\r\n\r\n"))
    assert status == 405, (status, headers, body)
    assert headers.get("allow") == "GET, HEAD, OPTIONS", headers
    assert headers.get("access-control-allow-origin") == "*", headers
    assert "access-control-allow-methods" not in headers, headers


def test_no_vary_on_origin(anon):
    """The answer is the same for every origin: caches need no Vary: Origin."""
    a = anon.get("/regions", headers={"Origin": ORIGIN})
    b = anon.get("/regions", headers={"Origin": "https://other.example.test"})
    c = anon.get("/regions")
    for r in (a, b, c):
        assert r.status == 200, r
        assert r.headers.get("Access-Control-Allow-Origin") == "*", r
        assert "origin" not in tokens(r.headers.get("Vary")), r
    assert a.body == b.body == c.body
