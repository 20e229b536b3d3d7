"""GET /account/users and /account/users/{username} (today's
clients): the account's users in the public API's User shape, unrestricted
users only (the public API documents both operations so), paginated and
filterable on username; writes are the router's 405; and the request
linode-cli configure sends for its default SSH user, answered in a form it
reads."""


import pytest

import harness
from accounts import world_fixture
from checks import assert_envelope, assert_error, assert_json

ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIODawwa+Vh+oKziAsrGIN7OpMSUL4u4dBPf4dZfXjl+p"
SCOPE_REASON = "Your OAuth token is not authorized to use this endpoint."
# The keys of the public API's User (4.189.0 spec: User and its user_type part).
USER_KEYS = {"username", "email", "restricted", "ssh_keys", "tfa_enabled",
             "verified_phone_number", "user_type", "password_created", "last_login"}


def ok(r):
    assert r.status == 200, r
    return assert_json(r)


class World:
    """An account with its owner (two SSH keys, one unlabelled, two logins,
    a verified phone, two-factor on), a second unrestricted user and a
    restricted one; and another account."""

    def __init__(self, backend, server):
        self.backend = backend
        self.account = harness.Account(backend, server, stem="e2e-users-")
        self.theirs = harness.Account(backend, server, stem="e2e-users-other-")
        self.owner = self.account.client
        self.owner_name = ok(self.owner.get("/profile"))["username"]
        ok(self.owner.post("/profile/sshkeys", json={"label": "laptop", "ssh_key": ED25519}))
        ok(self.owner.post("/profile/sshkeys", json={"ssh_key": ED25519}))
        ok(self.owner.post("/profile/sshkeys", json={"label": "home-pc", "ssh_key": ED25519}))
        uid = str(self.account.uid)
        backend.admin("login", "record", "--user", uid, "--ip", "203.0.113.7",
                      "--at", "2024-01-02T03:04:05")
        backend.admin("login", "record", "--user", uid, "--ip", "203.0.113.8",
                      "--status", "failed", "--at", "2024-02-03T04:05:06")
        # What the phone and two-factor flows leave behind, written directly.
        backend.execute(f"UPDATE users SET verified_phone_number = '+15555550123',"
                        f" two_factor_auth = 1 WHERE id = {uid}")
        self.second_uid, self.second = self.account.user()
        self.second_name = ok(self.second.get("/profile"))["username"]
        self.restricted_uid, self.restricted = self.account.user(restricted=True)
        self.restricted_name = ok(self.restricted.get("/profile"))["username"]
        self.their_name = ok(self.theirs.client.get("/profile"))["username"]

    def close(self):
        self.account.close()
        self.theirs.close()


world = world_fixture(World)


def test_list_is_the_accounts_users(world):
    doc = ok(world.owner.get("/account/users"))
    users = assert_envelope(doc)
    assert doc["results"] == 3 and doc["pages"] == 1, doc
    assert [u["username"] for u in users] == [world.owner_name, world.second_name,
                                              world.restricted_name], users
    for u in users:
        assert set(u) == USER_KEYS, u
    owner, second, restricted = users
    assert owner == {
        "username": world.owner_name, "email": f"{world.owner_name}@example.com",
        "restricted": False, "ssh_keys": ["", "home-pc", "laptop"], "tfa_enabled": True,
        "verified_phone_number": "+15555550123", "user_type": "default",
        "password_created": None,
        "last_login": {"login_datetime": "2024-02-03T04:05:06", "status": "failed"},
    }, owner
    assert second == dict(owner, username=world.second_name,
                          email=f"{world.second_name}@example.com", ssh_keys=[],
                          tfa_enabled=False, verified_phone_number=None,
                          last_login=None), second
    assert restricted["restricted"] is True, restricted


def test_view_one_user(world):
    listed = {u["username"]: u for u in ok(world.owner.get("/account/users"))["data"]}
    for name in (world.owner_name, world.second_name, world.restricted_name):
        assert ok(world.owner.get(f"/account/users/{name}")) == listed[name]
    # Usernames are unique without regard to case, and found so.
    assert ok(world.owner.get(f"/account/users/{world.second_name.upper()}")) == \
        listed[world.second_name]


def test_other_accounts_user_is_not_found(world):
    assert_error(world.owner.get(f"/account/users/{world.their_name}"), 404, "Not found")
    assert_error(world.owner.get("/account/users/nobody-is-called-this"), 404, "Not found")
    theirs = ok(world.theirs.client.get("/account/users"))
    assert [u["username"] for u in theirs["data"]] == [world.their_name], theirs


def test_pagination(backend, server):
    acct = harness.Account(backend, server, stem="e2e-users-pages-")
    try:
        for _ in range(26):
            backend.admin("user", "create", "--account", str(acct.id), "--username",
                          backend.unique("e2e-users-pages-u-"), "--email", "u@example.com")
        everyone = acct.client.all_pages("/account/users")
        assert len(everyone) == 27
        first = ok(acct.client.get("/account/users", params={"page_size": 25}))
        assert (first["page"], first["pages"], first["results"]) == (1, 2, 27), first
        second = ok(acct.client.get("/account/users", params={"page_size": 25, "page": 2}))
        assert first["data"] + second["data"] == everyone
        assert len(second["data"]) == 2
        assert_error(acct.client.get("/account/users", params={"page_size": 24}), 400,
                     None, "page_size")
    finally:
        acct.close()


def test_filter_on_username(world):
    c = world.owner
    doc = ok(c.get("/account/users", xfilter={"username": world.second_name}))
    assert [u["username"] for u in doc["data"]] == [world.second_name], doc
    doc = ok(c.get("/account/users", xfilter={"+order_by": "username", "+order": "desc"}))
    names = [u["username"] for u in doc["data"]]
    assert names == sorted(names, reverse=True) and len(names) == 3, names
    doc = ok(c.get("/account/users", xfilter={"+and": []}))
    assert doc["results"] == 3, doc
    doc = ok(c.get("/account/users", xfilter={"username": {"+contains": "no-such"}}))
    assert doc == {"data": [], "page": 1, "pages": 1, "results": 0}, doc
    # linode_api4's other User properties, as the users show them.
    doc = ok(c.get("/account/users", xfilter={"email": f"{world.second_name}@example.com"}))
    assert [u["username"] for u in doc["data"]] == [world.second_name], doc
    doc = ok(c.get("/account/users", xfilter={"restricted": True}))
    assert [u["username"] for u in doc["data"]] == [world.restricted_name], doc
    everyone = ok(c.get("/account/users"))["data"]
    for tfa in (True, False):
        doc = ok(c.get("/account/users", xfilter={"user_type": "default", "tfa_enabled": tfa}))
        assert doc["data"] == [u for u in everyone if u["tfa_enabled"] is tfa], doc
    assert ok(c.get("/account/users", xfilter={"user_type": "child"}))["results"] == 0
    # Not the objects and lists no client filters on.
    assert_error(c.get("/account/users", xfilter={"last_login": None}), 400,
                 "Cannot filter on last_login", "X-Filter")


def test_scope_and_tokens(world, backend, anon):
    for path in ("/account/users", f"/account/users/{world.owner_name}",
                 f"/account/users/{world.restricted_name}/grants"):
        assert_error(anon.get(path), 401, "Invalid Token")
        lacking = backend.mint_token(scopes="domains:read_write databases:read_write",
                                     user=world.account.uid)
        r = anon.get(path, token=lacking)
        assert_error(r, 401, SCOPE_REASON)
        assert r.headers.get("X-Accepted-OAuth-Scopes") == "account:read_only", r
        reader = backend.mint_token(scopes="account:read_only", user=world.account.uid)
        assert anon.get(path, token=reader).status == 200


def test_restricted_users_are_refused(world):
    """The public API: "This operation can only be accessed by account users
    with unrestricted access", for the list and for a single user, their
    own included."""
    for path in ("/account/users", f"/account/users/{world.restricted_name}",
                 f"/account/users/{world.owner_name}"):
        assert_error(world.restricted.get(path), 403, "Unauthorized")


@pytest.mark.parametrize("method,path,allow", [
    ("POST", "/account/users", "GET, HEAD, OPTIONS"),
    ("PUT", "/account/users/{name}", "GET, HEAD, OPTIONS"),
    ("DELETE", "/account/users/{name}", "GET, HEAD, OPTIONS"),
])
def test_writes_are_not_served(world, method, path, allow):
    path = path.format(name=world.second_name)
    body = {"username": "e2e-users-new", "email": "new@example.com"} \
        if method != "DELETE" else None
    r = world.owner.request(method, path, json=body)
    assert_error(r, 405, "Method Not Allowed")
    assert r.headers.get("Allow") == allow, r
    # Nothing changed.
    assert ok(world.owner.get(f"/account/users/{world.second_name}"))["username"] == \
        world.second_name


def test_user_grants(world, backend):
    """GET /account/users/{username}/grants (the Terraform provider's
    linode_user and linode_users read it): a restricted user's grants, as
    that user sees them at /profile/grants; 204 for an unrestricted user;
    another account's user 404; unrestricted callers only; read-only."""
    backend.admin("grant", "global", "--user", str(world.restricted_uid), "add_domains=true")
    path = f"/account/users/{world.restricted_name}/grants"
    grants = ok(world.owner.get(path))
    assert grants == ok(world.restricted.get("/profile/grants"))
    assert grants["global"]["add_domains"] is True, grants
    # the name as the public API matches it, whatever its case
    assert ok(world.owner.get(path.upper().replace("/ACCOUNT/USERS/", "/account/users/")
                              .replace("/GRANTS", "/grants"))) == grants
    for name in (world.owner_name, world.second_name):
        r = world.owner.get(f"/account/users/{name}/grants")
        assert r.status == 204 and not r.body, r
    assert_error(world.owner.get(f"/account/users/{world.their_name}/grants"), 404,
                 "Not found")
    assert_error(world.restricted.get(path), 403, "Unauthorized")
    r = world.owner.put(path, json={"global": {"add_domains": False}})
    assert_error(r, 405, "Method Not Allowed")
    assert ok(world.owner.get(path))["global"]["add_domains"] is True


def test_linode_cli_configure_default_user(world, anon):
    """linode-cli configure (linodecli/configuration/config.py, auth.py): for
    a token whose GET /profile/grants is 204 (full access) it asks GET
    /account/users with the token and a JSON Content-Type and no body,
    tolerating only 401 besides success, and offers the usernames of the
    users that carry ssh_keys."""
    headers = {"Content-type": "application/json"}
    grants = anon.get("/profile/grants", token=world.owner.token, headers=headers)
    assert grants.status == 204, grants
    r = anon.get("/account/users", token=world.owner.token, headers=headers)
    assert 199 < r.status < 300, r
    users = r.json
    assert "data" in users
    auth_users = sorted(u["username"] for u in users["data"] if "ssh_keys" in u)
    assert auth_users == sorted([world.owner_name, world.second_name, world.restricted_name])
    # A restricted user's token: grants answer 200, so configure does not ask.
    limited = anon.get("/profile/grants", token=world.restricted.token, headers=headers)
    assert limited.status == 200, limited
