"""PUT /profile: only the writable fields change.  As the public API does
(docs/conventions.md, "Today's clients"), unknown fields are ignored, a read-only
field is accepted when it equals the stored value and refused by name when
it differs, and null leaves a field as it is."""

import pytest

from checks import assert_error, assert_json

SCOPE_REASON = "Your OAuth token is not authorized to use this endpoint."
# A well-formed public key: the blob's embedded type matches, 32-byte key.
ED25519 = ("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f"
           " laptop")


@pytest.fixture
def own(make_user):
    """A client for a fresh user of the e2e account, so tests can change it."""
    return make_user()


def test_update_writable_fields(own):
    before = assert_json(own.get("/profile"))
    r = own.put("/profile", json={"email": "new.address@example.org",
                                  "email_notifications": False,
                                  "shell_auth_method": "keys_only",
                                  "timezone": "Europe/Berlin",
                                  "ip_whitelist_enabled": False})
    assert r.status == 200, r
    p = assert_json(r)
    assert p["email"] == "new.address@example.org"
    assert p["email_notifications"] is False
    assert p["shell_auth_method"] == "keys_only"
    assert p["timezone"] == "Europe/Berlin"
    assert p["uid"] == before["uid"] and p["username"] == before["username"]
    assert assert_json(own.get("/profile")) == p


def test_empty_timezone_clears_it(own):
    """The public API takes a profile without a time zone (docs/conventions.md,
    "Today's clients": never stricter)."""
    r = own.put("/profile", json={"timezone": ""})
    assert r.status == 200, r
    assert assert_json(r)["timezone"] == ""
    assert assert_json(own.get("/profile"))["timezone"] == ""
    assert_error(own.put("/profile", json={"timezone": "Mars/Olympus"}), 400,
                 field="timezone")


def test_empty_body_changes_nothing(own):
    before = assert_json(own.get("/profile"))
    r = own.put("/profile", json={})
    assert r.status == 200, r
    assert assert_json(r) == before


@pytest.mark.parametrize("field,value", [
    ("uid", 0), ("username", "mallory"), ("referrals", {"code": "x"}),
    ("authentication_type", "github"), ("verified_phone_number", "+15555550100"),
    ("user_type", "parent"),
])
def test_read_only_fields_refused(own, field, value):
    before = assert_json(own.get("/profile"))
    r = own.put("/profile", json={field: value, "timezone": "UTC"})
    assert_error(r, 400, f"{field} cannot be changed", field=field)
    assert assert_json(own.get("/profile")) == before, "a refused request changed something"


@pytest.mark.parametrize("field", ["uid", "username", "referrals", "authentication_type",
                                   "verified_phone_number", "user_type"])
def test_read_only_fields_equal_accepted(own, field):
    before = assert_json(own.get("/profile"))
    r = own.put("/profile", json={field: before[field], "timezone": "Europe/Paris"})
    assert r.status == 200, r
    after = assert_json(r)
    assert after["timezone"] == "Europe/Paris" and after[field] == before[field]


def test_unknown_fields_ignored(own):
    before = assert_json(own.get("/profile"))
    r = own.put("/profile", json={"bogus": 1, "profileId": 5, "lish": {"x": 1}})
    assert r.status == 200, r
    assert assert_json(r) == before
    assert assert_json(own.get("/profile")) == before


def test_get_then_put_changes_nothing(own):
    before = assert_json(own.get("/profile"))
    r = own.put("/profile", json=before)
    assert r.status == 200, r
    assert assert_json(r) == before
    assert assert_json(own.get("/profile")) == before


def test_null_leaves_every_field(own):
    r = own.put("/profile", json={"email": "kept@example.org", "timezone": "Asia/Tokyo",
                                  "authorized_keys": [ED25519], "email_notifications": False})
    assert r.status == 200, r
    before = assert_json(r)
    r = own.put("/profile", json={k: None for k in before})
    assert r.status == 200, r
    assert assert_json(r) == before
    assert assert_json(own.get("/profile")) == before


def test_every_invalid_field_reported_at_once(own):
    r = own.put("/profile", json={"email": "not-an-address", "timezone": "Mars/Olympus",
                                  "shell_auth_method": "telnet", "email_notifications": "yes",
                                  "bogus": 1, "uid": -1})
    assert r.status == 400, r
    fields = sorted(e.get("field") for e in assert_json(r)["errors"])
    assert fields == ["email", "email_notifications", "shell_auth_method", "timezone",
                      "uid"], r


@pytest.mark.parametrize("field,value", [
    ("ip_whitelist_enabled", True), ("restricted", True), ("two_factor_auth", True),
])
def test_flags_that_cannot_be_turned_on(own, field, value):
    before = assert_json(own.get("/profile"))
    r = own.put("/profile", json={field: value})
    assert_error(r, 400, field=field)
    assert assert_json(own.get("/profile")) == before


def test_setting_flags_to_their_value_is_fine(own):
    r = own.put("/profile", json={"restricted": False, "two_factor_auth": False})
    assert r.status == 200, r


def test_authorized_keys(own):
    r = own.put("/profile", json={"authorized_keys": [ED25519]})
    assert r.status == 200, r
    assert assert_json(r)["authorized_keys"] == [ED25519]
    r = own.put("/profile", json={"authorized_keys": ["ssh-rsa not-a-key"]})
    assert_error(r, 400, field="authorized_keys[0]")
    assert assert_json(own.get("/profile"))["authorized_keys"] == [ED25519]
    # null leaves the keys (docs/conventions.md, "Today's clients"); [] clears them
    r = own.put("/profile", json={"authorized_keys": None})
    assert r.status == 200, r
    assert assert_json(r)["authorized_keys"] == [ED25519]
    r = own.put("/profile", json={"authorized_keys": []})
    assert r.status == 200, r
    assert assert_json(r)["authorized_keys"] == []


def test_needs_read_write_scope(backend, server):
    c = server.client(token=backend.mint_token(scopes="account:read_only"))
    assert_error(c.put("/profile", json={"timezone": "UTC"}), 401, SCOPE_REASON)
    c.close()


def test_body_must_be_json(own):
    r = own.put("/profile", data="timezone=UTC",
                headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert_error(r, 415, "Content-Type must be application/json")
