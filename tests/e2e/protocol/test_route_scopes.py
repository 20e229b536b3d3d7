"""Every route the module serves (as `acctapi-admin routes` prints the route
table compiled into this build, so the test cannot drift from it) enforces
its scope: a token lacking the route's scope gets docs/conventions.md's 401 before
anything else happens, answers name the scope in X-Accepted-OAuth-Scopes,
and unrestricted-only routes refuse restricted users with 403."""

import re
import subprocess

import pytest

from checks import assert_error
from harness import ADMIN

SCOPE_REASON = "Your OAuth token is not authorized to use this endpoint."
FAMILIES = ["account", "databases", "domains", "events", "vpc"]


def routes():
    out = subprocess.run([str(ADMIN), "routes"], check=True, capture_output=True,
                         text=True).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    assert len(rows) >= 40, out
    return rows


def lacking(scope):
    """Every family read_write but the route's, which gets one level less."""
    family, level = scope.split(":")
    items = [f"{f}:read_write" for f in FAMILIES if f not in (family, "vpc")]
    if level == "read_write":
        items.append(f"{family}:read_only")
    return " ".join(sorted(items, key=lambda s: FAMILIES.index(s.split(":")[0])))


def concrete(path):
    return re.sub(r"\{[^}]+\}", "1", path)[len("/v4"):]


def body_for(method):
    return {} if method in ("POST", "PUT") else None


@pytest.mark.parametrize("method,path,scope,kind", routes())
def test_route_scope(anon, backend, method, path, scope, kind):
    url = concrete(path)
    if scope == "*":
        r = anon.request(method, url, token=backend.mint_token(scopes="vpc:read_only"),
                         json=body_for(method))
        assert r.status != 401, r
        assert r.headers.get("X-Accepted-OAuth-Scopes") == "*", r
        return
    token_scopes = lacking(scope)
    r = anon.request(method, url, token=backend.mint_token(scopes=token_scopes),
                     json=body_for(method))
    assert_error(r, 401, SCOPE_REASON)
    assert r.headers.get("X-Accepted-OAuth-Scopes") == scope, r
    assert r.headers.get("X-OAuth-Scopes") == token_scopes, r


@pytest.mark.parametrize("method,path,scope,kind",
                         [r for r in routes() if "unrestricted-only" in r[3]])
def test_unrestricted_only(anon, backend, method, path, scope, kind):
    uid, _ = backend.create_user(restricted=True)
    r = anon.request(method, concrete(path), token=backend.mint_token(scopes="*", user=uid),
                     json=body_for(method))
    assert_error(r, 403, "Unauthorized")
