"""/profile/sshkeys: the acting user's SSH public keys, end to end.

The parser's case files (tests/unit/sshkeys) are replayed through POST, so
every accepted form and every refusal is checked over HTTP on both backends.
Each test works as a fresh user of the e2e account: its key list starts
empty whatever other tests stored.
"""

import json
import re
from pathlib import Path

import pytest

from checks import assert_envelope, assert_error, assert_headers, assert_json

SCOPE_REASON = "Your OAuth token is not authorized to use this endpoint."
CASES = Path(__file__).resolve().parents[2] / "unit" / "sshkeys"
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")

ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIODawwa+Vh+oKziAsrGIN7OpMSUL4u4dBPf4dZfXjl+p"
NISTP256 = ("ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBI/DIU9I"
            "PNT6CFTXLPeKUIUYsBhr5t21LZM8RBsRR0QXXZp1v4y42aoN032GWFQJhGnIZpFmDN7uihTVt/m8L2Q=")


def cases(suite):
    files = sorted((CASES / suite).glob("*.json"))
    assert files, f"no case files in {CASES / suite}"
    return [pytest.param(json.loads(f.read_text(encoding="utf-8")), id=f.stem) for f in files]


@pytest.fixture
def own(make_user):
    """A fresh user with an all-scopes token."""
    return make_user()


@pytest.fixture
def other(make_user):
    """Another fresh user of the same account."""
    return make_user()


def add(client, key, label=None):
    body = {"ssh_key": key}
    if label is not None:
        body["label"] = label
    r = client.post("/profile/sshkeys", json=body)
    assert r.status == 200, r
    return assert_json(r)


def keys_of(client):
    return assert_envelope(assert_json(client.get("/profile/sshkeys")))


def test_lifecycle(own):
    assert keys_of(own) == []
    r = own.post("/profile/sshkeys", json={"label": "laptop", "ssh_key": ED25519 + " kim@laptop"})
    assert r.status == 200, r
    assert_headers(r, accepted="account:read_write")
    k = assert_json(r)
    assert list(k) == ["id", "label", "ssh_key", "created"], k
    assert isinstance(k["id"], int) and not isinstance(k["id"], bool)
    assert k["label"] == "laptop"
    assert k["ssh_key"] == ED25519 + " kim@laptop"
    assert TIMESTAMP.fullmatch(k["created"]), k

    r = own.get(f"/profile/sshkeys/{k['id']}")
    assert r.status == 200, r
    assert_headers(r, accepted="account:read_only")
    assert assert_json(r) == k

    r = own.get("/profile/sshkeys")
    assert_headers(r, accepted="account:read_only")
    doc = assert_json(r)
    assert doc == {"data": [k], "page": 1, "pages": 1, "results": 1}

    r = own.put(f"/profile/sshkeys/{k['id']}", json={"label": "desktop"})
    assert r.status == 200, r
    assert assert_json(r) == dict(k, label="desktop")
    assert assert_json(own.get(f"/profile/sshkeys/{k['id']}"))["label"] == "desktop"

    r = own.delete(f"/profile/sshkeys/{k['id']}")
    assert r.status == 200, r
    assert_headers(r, accepted="account:read_write")
    assert assert_json(r) == {}
    assert_error(own.get(f"/profile/sshkeys/{k['id']}"), 404, "Not found")
    assert_error(own.delete(f"/profile/sshkeys/{k['id']}"), 404, "Not found")
    assert keys_of(own) == []


@pytest.mark.parametrize("case", cases("valid"))
def test_accepted_keys(own, case):
    k = add(own, case["input"], label="case")
    assert k["ssh_key"] == case["text"], k
    assert assert_json(own.get(f"/profile/sshkeys/{k['id']}"))["ssh_key"] == case["text"]


@pytest.mark.parametrize("case", cases("invalid"))
def test_refused_keys(own, case):
    r = own.post("/profile/sshkeys", json={"label": "case", "ssh_key": case["input"]})
    assert_error(r, 400, case["reason"], field="ssh_key")
    assert keys_of(own) == []


def test_refusals_of_the_value(own):
    too_long = ED25519 + " " + "x" * 16384
    assert_error(own.post("/profile/sshkeys", json={"ssh_key": too_long}), 400,
                 "SSH key is longer than 16384 bytes", field="ssh_key")
    # a NUL never reaches the parser: the body decoder refuses it
    assert_error(own.post("/profile/sshkeys", json={"ssh_key": ED25519 + "\u0000 x"}), 400,
                 "Invalid JSON")
    for value in (5, [ED25519], {"key": ED25519}):
        assert_error(own.post("/profile/sshkeys", json={"ssh_key": value}), 400,
                     "ssh_key must be a string", field="ssh_key")
    # null is the default (docs/conventions.md, "Today's clients"): ssh_key has none
    for body in ({"label": "x"}, {"label": "x", "ssh_key": None}):
        assert_error(own.post("/profile/sshkeys", json=body), 400,
                     "ssh_key is required", field="ssh_key")
    assert keys_of(own) == []


def test_normalised_on_store(own):
    k = add(own, f"  {ED25519.replace(' ', chr(9) + '  ')} \t my  work key \t")
    assert k["ssh_key"] == ED25519 + " my  work key"
    assert keys_of(own)[0]["ssh_key"] == ED25519 + " my  work key"


def test_labels(own):
    # No label shows "", a string as the public API types it (docs/conventions.md,
    # today's clients: the public API's response shapes).
    assert add(own, ED25519)["label"] == ""
    assert add(own, ED25519, label="")["label"] == ""
    r = own.post("/profile/sshkeys", json={"label": None, "ssh_key": ED25519})
    assert r.status == 200 and assert_json(r)["label"] == "", r
    longest = "é" * 64
    assert add(own, ED25519, label=longest)["label"] == longest
    assert_error(own.post("/profile/sshkeys", json={"label": "x" * 65, "ssh_key": ED25519}),
                 400, "Length must be 0-64 characters", field="label")
    assert_error(own.post("/profile/sshkeys", json={"label": 7, "ssh_key": ED25519}),
                 400, "label must be a string", field="label")
    assert len(keys_of(own)) == 4


def test_same_key_twice(own):
    """As in the public API, a key may be added again (under another label)."""
    a = add(own, ED25519, label="home")
    b = add(own, ED25519, label="work")
    assert a["id"] != b["id"] and a["ssh_key"] == b["ssh_key"]
    assert [k["label"] for k in keys_of(own)] == ["home", "work"]


def test_every_error_at_once(own):
    # "id" is not a field of a create: ignored (docs/conventions.md, "Today's clients")
    r = own.post("/profile/sshkeys", json={"label": "x" * 65, "ssh_key": "ssh-foo AAAA",
                                           "id": 9})
    errs = assert_error(r, 400, field=None, only=False)
    assert [e["field"] for e in errs] == ["label", "ssh_key"], r
    assert errs[1]["reason"].startswith("Unsupported key type")
    assert keys_of(own) == []


def test_create_ignores_what_it_does_not_set(own):
    r = own.post("/profile/sshkeys", json={"label": "k", "ssh_key": ED25519, "id": 9,
                                           "created": "2000-01-01T00:00:00", "x": [1]})
    assert r.status == 200, r
    k = assert_json(r)
    assert k["id"] != 9 and k["created"] != "2000-01-01T00:00:00"
    assert keys_of(own) == [k]


def test_update_takes_the_label_only(own):
    k = add(own, ED25519, label="a")
    path = f"/profile/sshkeys/{k['id']}"
    assert_error(own.put(path, json={"label": "b", "ssh_key": NISTP256}), 400,
                 "ssh_key cannot be changed", field="ssh_key")
    assert_error(own.put(path, json={"label": "b", "created": "2000-01-01T00:00:00"}), 400,
                 "created cannot be changed", field="created")
    assert_error(own.put(path, json={"label": "y" * 65}), 400,
                 "Length must be 0-64 characters", field="label")
    assert assert_json(own.get(path)) == k
    # docs/conventions.md, "Today's clients": an unknown key is ignored, a read-only
    # one equal to the stored value too; null (or no label) leaves the label
    for body in ({}, {"label": None}, {"colour": "red"}, {"sshKeyId": k["id"]}, k):
        r = own.put(path, json=body)
        assert r.status == 200 and assert_json(r) == k, (body, r)
    r = own.put(path, json=dict(k, label="b", colour="red"))
    assert r.status == 200 and assert_json(r) == dict(k, label="b"), r
    r = own.put(path, json={"label": ""})
    assert r.status == 200 and assert_json(r) == dict(k, label=""), r
    assert assert_json(own.get(path)) == dict(k, label="")


def test_other_users_keys_are_not_found(own, other):
    theirs = add(other, NISTP256, label="theirs")
    path = f"/profile/sshkeys/{theirs['id']}"
    assert_error(own.get(path), 404, "Not found")
    assert_error(own.put(path, json={"label": "mine now"}), 404, "Not found")
    assert_error(own.delete(path), 404, "Not found")
    assert keys_of(own) == []
    assert assert_json(other.get(path)) == theirs


@pytest.mark.parametrize("key_id", ["0", "-1", "abc", "1.5", "99999999999"])
def test_unknown_ids(own, key_id):
    assert_error(own.get(f"/profile/sshkeys/{key_id}"), 404, "Not found")
    assert_error(own.put(f"/profile/sshkeys/{key_id}", json={"label": "x"}), 404, "Not found")
    assert_error(own.delete(f"/profile/sshkeys/{key_id}"), 404, "Not found")


def test_scopes(backend, server, own):
    k = add(own, ED25519, label="scoped")
    ro_uid, _ = backend.create_user()
    ro = server.client(token=backend.mint_token(scopes="account:read_only", user=ro_uid))
    rw = server.client(token=backend.mint_token(scopes="*", user=ro_uid))
    none = server.client(token=backend.mint_token(scopes="domains:read_write", user=ro_uid))
    try:
        mine = add(rw, NISTP256, label="ro-user")
        path = f"/profile/sshkeys/{mine['id']}"
        r = ro.post("/profile/sshkeys", json={"ssh_key": ED25519})
        assert_error(r, 401, SCOPE_REASON)
        assert_headers(r, scopes="account:read_only", accepted="account:read_write")
        assert_error(ro.put(path, json={"label": "x"}), 401, SCOPE_REASON)
        assert_error(ro.delete(path), 401, SCOPE_REASON)
        assert assert_json(ro.get(path)) == mine
        assert assert_envelope(assert_json(ro.get("/profile/sshkeys"))) == [mine]
        assert_error(none.get("/profile/sshkeys"), 401, SCOPE_REASON)
        assert_error(none.get(path), 401, SCOPE_REASON)
        # the read-only token sees its own user's keys only
        assert_error(ro.get(f"/profile/sshkeys/{k['id']}"), 404, "Not found")
    finally:
        for c in (ro, rw, none):
            c.close()


def test_restricted_user_manages_own_keys(backend, server):
    uid, _ = backend.create_user(restricted=True)
    c = server.client(token=backend.mint_token(scopes="*", user=uid))
    try:
        k = add(c, ED25519, label="restricted")
        assert keys_of(c) == [k]
        assert assert_json(c.delete(f"/profile/sshkeys/{k['id']}")) == {}
    finally:
        c.close()


def test_filter_and_order(own, clock):
    a = add(own, ED25519, label="alpha")
    clock("advance", "2d")
    b = add(own, NISTP256, label="beta")
    assert a["created"] < b["created"]

    def listed(xfilter):
        r = own.get("/profile/sshkeys", xfilter=xfilter)
        assert r.status == 200, r
        return [k["id"] for k in assert_envelope(assert_json(r))]

    assert listed({"label": "beta"}) == [b["id"]]
    assert listed({"label": {"+contains": "lph"}}) == [a["id"]]
    assert listed({"created": {"+gt": a["created"]}}) == [b["id"]]
    assert listed({"created": a["created"]}) == [a["id"]]
    assert listed({"+order_by": "label", "+order": "desc"}) == [b["id"], a["id"]]
    assert listed({"+or": [{"label": "alpha"}, {"label": "beta"}]}) == [a["id"], b["id"]]
    # linode_api4's SSHKey properties: the key as shown, the id.
    assert listed({"ssh_key": b["ssh_key"]}) == [b["id"]]
    assert listed({"id": a["id"]}) == [a["id"]]
    assert_error(own.get("/profile/sshkeys", xfilter={"fingerprint": "x"}), 400,
                 "Cannot filter on fingerprint", field="X-Filter")
    assert_error(own.get("/profile/sshkeys", xfilter={"created": "yesterday"}), 400,
                 "Could not apply filter", field="X-Filter")


def test_pages(own):
    ids = [add(own, ED25519, label=f"k{i:02d}")["id"] for i in range(27)]
    r = own.get("/profile/sshkeys", params={"page": 2, "page_size": 25})
    doc = assert_json(r)
    assert doc["page"] == 2 and doc["pages"] == 2 and doc["results"] == 27, doc
    assert [k["id"] for k in doc["data"]] == ids[25:]
    assert_error(own.get("/profile/sshkeys", params={"page_size": 10}), 400,
                 field="page_size")
