"""Every route of the route table (mod_acctapi/acct_routes.c, read here so
the test cannot drift from it) enforces its scope: a token without the
route's scope gets DECISIONS' 401 before anything else happens, and every
answer names the route's scope in X-Accepted-OAuth-Scopes."""

import re

import pytest

from checks import assert_error
from harness import REPO

SCOPE_REASON = "Your OAuth token is not authorized to use this endpoint."
ROW = re.compile(r'^\s*(PUBLIC_GET|ACCOUNT_READ|ACCOUNT_WRITE|DOMAINS_READ|DOMAINS_WRITE)'
                 r'\((?:ACCT_METHOD_(\w+), )?"([^"]+)"', re.M)
ANY_TOKEN = re.compile(r'\{ACCT_METHOD_(\w+), "([^"]+)", \w+,\s*ACCT_ROUTE_ANY_TOKEN', re.M)
NEEDS = {
    "ACCOUNT_READ": "account:read_only", "ACCOUNT_WRITE": "account:read_write",
    "DOMAINS_READ": "domains:read_only", "DOMAINS_WRITE": "domains:read_write",
}
# A token holding everything but the route's family at the level it needs.
LACKING = {
    "account:read_only": "domains:read_write databases:read_write",
    "account:read_write": "account:read_only domains:read_write databases:read_write",
    "domains:read_only": "account:read_write databases:read_write",
    "domains:read_write": "domains:read_only account:read_write databases:read_write",
}


def routes():
    text = (REPO / "mod_acctapi" / "acct_routes.c").read_text()
    rows = []
    for macro, method, path in ROW.findall(text):
        rows.append((method or "GET", path, NEEDS.get(macro, "*")))
    for method, path in ANY_TOKEN.findall(text):
        rows.append((method, path, "*"))
    assert len(rows) >= 40, f"parsed only {len(rows)} routes from acct_routes.c"
    return rows


def concrete(path):
    return re.sub(r"\{[^}]+\}", "1", path).replace("1...", "mysql/8.0.30")


@pytest.mark.parametrize("method,path,scope", routes())
def test_route_scope(anon, backend, method, path, scope):
    url = concrete(path)
    if scope == "*":
        r = anon.request(method, url, token=backend.mint_token(scopes="vpc:read_only"),
                         json={} if method in ("POST", "PUT") else None)
        assert r.status != 401 or "Invalid Token" not in str(r.json), r
        assert r.headers.get("X-Accepted-OAuth-Scopes") == "*", r
        return
    token = backend.mint_token(scopes=LACKING[scope])
    r = anon.request(method, url, token=token, json={} if method in ("POST", "PUT") else None)
    assert_error(r, 401, SCOPE_REASON)
    assert r.headers.get("X-Accepted-OAuth-Scopes") == scope, r
    assert r.headers.get("X-OAuth-Scopes") == " ".join(
        sorted(LACKING[scope].split(), key=lambda s: [
            "account", "databases", "domains", "vpc"].index(s.split(":")[0]))), r
