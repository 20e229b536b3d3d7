"""Authentication, scopes headers, the profile and grants."""

import pytest

from checks import assert_headers, assert_json
from harness import utc_ts

# By default both the contract's and the public API's name of a field they
# name differently (docs/conventions.md, "Today's clients", Names): lish_auth_method,
# linode, longview, add_linodes, add_longview, longview_subscription.
PROFILE_KEYS = {"authentication_type", "authorized_keys", "email", "email_notifications",
                "ip_whitelist_enabled", "shell_auth_method", "lish_auth_method", "referrals",
                "restricted", "timezone", "two_factor_auth", "uid", "user_type", "username",
                "verified_phone_number"}
REFERRAL_KEYS = {"code", "completed", "credit", "pending", "total", "url"}
# Both names by default; firewall, placement_group, add_placement_groups and
# child_account_access are the public API's only (no firewalls, placement
# groups or parent accounts here: empty, false, null).
GRANT_KEYS = {"database", "domain", "firewall", "global", "image", "instance", "linode",
              "monitoring", "longview", "nodebalancer", "placement_group", "stackscript",
              "volume", "vpc"}
ADD_GRANTS = ["add_databases", "add_domains", "add_firewalls", "add_images", "add_instances",
              "add_linodes", "add_monitoring", "add_longview", "add_nodebalancers",
              "add_placement_groups", "add_stackscripts", "add_volumes", "add_vpcs"]
INVALID_TOKEN = {"errors": [{"reason": "Invalid Token"}]}


def assert_invalid_token(r):
    assert r.status == 401, r
    assert assert_json(r) == INVALID_TOKEN, r
    assert_headers(r, scopes="unknown", accepted="*")


def test_profile(api, backend):
    r = api.get("/profile")
    assert r.status == 200, r
    assert_headers(r, scopes="*", accepted="*")
    p = assert_json(r)
    assert set(p) == PROFILE_KEYS, p
    assert p["uid"] == backend.uid
    assert p["username"] == backend.username
    assert p["email"] == "owner@example.com"
    assert p["restricted"] is False
    # The public API's type of a user of an account without parent or child
    # accounts (linodego's recorded TestProfile_Get).
    assert p["user_type"] == "default", p
    for k in ("email_notifications", "ip_whitelist_enabled", "two_factor_auth"):
        assert isinstance(p[k], bool), (k, p)
    assert p["shell_auth_method"] in ("password_keys", "keys_only", "disabled"), p
    assert p["lish_auth_method"] == p["shell_auth_method"], p
    assert isinstance(p["authentication_type"], str), p
    assert isinstance(p["timezone"], str), p
    assert p["authorized_keys"] is None or isinstance(p["authorized_keys"], list), p
    assert p["verified_phone_number"] is None or isinstance(p["verified_phone_number"], str), p
    ref = p["referrals"]
    assert set(ref) == REFERRAL_KEYS, ref
    assert isinstance(ref["code"], str) and isinstance(ref["url"], str), ref
    for k in ("completed", "credit", "pending", "total"):
        assert isinstance(ref[k], (int, float)) and not isinstance(ref[k], bool), ref


def test_profile_without_token(anon):
    assert_invalid_token(anon.get("/profile"))


def test_profile_unknown_token(anon):
    assert_invalid_token(anon.get("/profile", token="0123456789abcdef" * 4))


@pytest.mark.parametrize("variant", [
    "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer 63hex", "Bearer 65hex", "upper",
    "trailing-junk", "no-scheme", "token-token", "garbage",
])
def test_malformed_authorization(anon, backend, variant):
    tok = backend.token
    header = {
        "Bearer": "Bearer",
        "Bearer ": "Bearer ",
        "Basic dXNlcjpwYXNz": "Basic dXNlcjpwYXNz",
        "Bearer 63hex": "Bearer " + tok[:63],
        "Bearer 65hex": "Bearer " + tok + "0",
        "upper": "Bearer " + tok.upper(),
        "trailing-junk": "Bearer " + tok + "junk",
        "no-scheme": tok,
        "token-token": f"Bearer {tok} {tok}",
        "garbage": "Bearer %%%%",
    }[variant]
    assert_invalid_token(anon.get("/profile", authorization=header))


def test_expired_token(anon, backend, clock):
    tok = backend.mint_token(scopes="*", expiry=utc_ts(30 * 60))
    r = anon.get("/profile", token=tok)
    assert r.status == 200, r
    clock("advance", "1h")
    assert_invalid_token(anon.get("/profile", token=tok))
    assert_invalid_token(anon.get("/profile/grants", token=tok))
    # The owner's never-expiring token still works with the clock moved.
    assert anon.get("/profile", token=backend.token).status == 200
    clock("reset")
    assert anon.get("/profile", token=tok).status == 200


def test_token_expired_at_creation_time(anon, backend):
    """A token whose expiry is already past (real clock) is refused."""
    out = backend.admin("token", "create", "--user", str(backend.uid), "--label", "past",
                        "--expiry", utc_ts(-3600), check=False)
    if out.returncode != 0:
        return  # refusing to mint an expired token is fine too
    tok = out.stdout.strip()
    assert_invalid_token(anon.get("/profile", token=tok))


@pytest.mark.parametrize("scopes", ["domains:read_only", "databases:read_write account:read_only"])
def test_profile_with_narrow_scopes(anon, backend, scopes):
    tok = backend.mint_token(scopes=scopes)
    r = anon.get("/profile", token=tok)
    assert r.status == 200, r
    assert_headers(r, accepted="*")
    # The token's scopes, space-separated (the order may be canonical).
    assert sorted(r.headers["X-OAuth-Scopes"].split(" ")) == sorted(scopes.split(" ")), r
    assert r.json["uid"] == backend.uid
    r = anon.get("/profile/grants", token=tok)
    assert r.status == 204, r
    assert sorted(r.headers["X-OAuth-Scopes"].split(" ")) == sorted(scopes.split(" ")), r
    assert r.headers.get("X-Accepted-OAuth-Scopes") == "*", r


def test_grants_unrestricted(api):
    r = api.get("/profile/grants")
    assert r.status == 204, r
    assert r.body == b"", r
    assert_headers(r, scopes="*", accepted="*")


def test_grants_restricted(anon, backend):
    uid, username = backend.create_user(restricted=True)
    tok = backend.mint_token(scopes="*", user=uid)
    r = anon.get("/profile", token=tok)
    assert r.status == 200, r
    assert r.json["restricted"] is True and r.json["uid"] == uid
    assert r.json["username"] == username
    r = anon.get("/profile/grants", token=tok)
    assert r.status == 200, r
    assert_headers(r, scopes="*", accepted="*")
    g = assert_json(r)
    assert set(g) == GRANT_KEYS, g
    for k in GRANT_KEYS - {"global"}:
        assert isinstance(g[k], list), (k, g)
    glob = g["global"]
    assert isinstance(glob, dict), g
    assert "account_access" in glob and glob["account_access"] is None, glob
    assert "child_account_access" in glob and glob["child_account_access"] is None, glob
    assert g["firewall"] == [] and g["placement_group"] == [], g
    for k in ADD_GRANTS:
        assert glob.get(k) is False, (k, glob)
    for k in ("cancel_account", "monitoring_subscription", "longview_subscription"):
        assert glob.get(k) is False, (k, glob)
    assert set(glob) == {"account_access", "cancel_account", "monitoring_subscription",
                         "longview_subscription", "child_account_access", *ADD_GRANTS}, glob


def test_grants_without_token(anon):
    assert_invalid_token(anon.get("/profile/grants"))


def test_user_by_username(anon, backend):
    """token create --user accepts a username as well as a uid."""
    uid, username = backend.create_user()
    tok = backend.mint_token(scopes="account:read_only", user=username)
    r = anon.get("/profile", token=tok)
    assert r.status == 200, r
    assert r.json["uid"] == uid


# --------------------------------------------------------------------------
# Scopes of scoped routes (exercised on /profile/tokens)
# --------------------------------------------------------------------------

SCOPE_ERROR = {"errors": [{"reason": "Your OAuth token is not authorized to use this endpoint."}]}


def test_scoped_route_headers(api):
    r = api.get("/profile/tokens")
    assert r.status == 200, r
    assert_headers(r, scopes="*", accepted="account:read_only")


@pytest.mark.parametrize("scopes", ["domains:read_only", "databases:read_write"])
def test_scope_missing_read(anon, api, backend, scopes):
    tok = backend.mint_token(scopes=scopes)
    r = anon.get("/profile/tokens", token=tok)
    assert r.status == 401, r
    assert assert_json(r) == SCOPE_ERROR
    assert_headers(r, scopes=scopes, accepted="account:read_only")


def test_read_only_cannot_write(anon, api, backend):
    tok = backend.mint_token(scopes="account:read_only")
    assert anon.get("/profile/tokens", token=tok).status == 200
    r = anon.post("/profile/tokens", token=tok, json={"label": "e2e-nope"})
    assert r.status == 401, r
    assert assert_json(r) == SCOPE_ERROR
    assert_headers(r, scopes="account:read_only", accepted="account:read_write")


def test_read_write_satisfies_read_only(anon, api, backend):
    tok = backend.mint_token(scopes="account:read_write")
    r = anon.get("/profile/tokens", token=tok)
    assert r.status == 200, r


def test_revoked_token(anon, api, backend):
    r = api.post("/profile/tokens", json={"label": "e2e-revoke-me"})
    assert r.status == 200, r
    created = r.json
    tok = created["token"]
    assert len(tok) == 64
    assert anon.get("/profile", token=tok).status == 200
    r = api.delete(f"/profile/tokens/{created['id']}")
    assert r.status == 200, r
    assert assert_json(r) == {}
    assert_invalid_token(anon.get("/profile", token=tok))
