"""acctapi-admin user create --token-scopes: the new user and a token of it,
minted in the same transaction, printed as two lines (uid, token).  The
token is what 'token create' would mint: it authenticates as the user, with
the scopes, label and expiry given; a failure leaves neither user nor token.
account create --owner/--owner-email: the account and its first user
(unrestricted), with --token-scopes a token of theirs, in one transaction."""

import re

import pytest

from harness import utc_ts


def users_named(backend, username):
    return backend.query(f"SELECT id FROM users WHERE username = '{username}'")


def tokens_of(backend, uid):
    return backend.query(f"SELECT kind, label, scopes, expiry FROM tokens "
                         f"WHERE user_id = {uid} ORDER BY id")


@pytest.fixture
def account(backend):
    return backend.admin("account", "create", "--name", backend.unique("e2e-cli-"))


def create(backend, account, *extra, check=True):
    username = backend.unique("e2e-cli-user-")
    out = backend.admin("user", "create", "--account", account, "--username", username,
                        "--email", f"{username}@example.com", *extra, check=check)
    return username, out


def test_prints_uid_and_a_working_token(backend, server, account):
    username, out = create(backend, account, "--token-scopes", "domains:read_only",
                           "--token-label", "deploy")
    lines = out.split("\n")
    assert len(lines) == 2, out
    uid, token = int(lines[0]), lines[1]
    assert re.fullmatch(r"[0-9a-f]{64}", token), out
    assert users_named(backend, username) == [[str(uid)]]
    assert tokens_of(backend, uid) == [["pat", "deploy", "domains:read_only", None]]
    c = server.client(token=token)
    try:
        r = c.get("/profile")
        assert r.status == 200, r
        assert r.json["uid"] == uid and r.json["username"] == username, r
        assert r.headers["X-OAuth-Scopes"] == "domains:read_only", r
        # Its scopes bound it: the account's own routes are refused.
        r = c.get("/profile/tokens")
        assert r.status == 401, r
        assert r.headers["X-Accepted-OAuth-Scopes"] == "account:read_only", r
    finally:
        c.close()


def test_defaults_and_restricted(backend, server, account):
    """Without --token-label the label is token create's default; the user
    is restricted as asked; "*" gives every scope."""
    username, out = create(backend, account, "--restricted", "--token-scopes", "*")
    uid, token = out.split("\n")
    assert tokens_of(backend, uid) == [["pat", "acctapi-admin", "*", None]]
    c = server.client(token=token)
    try:
        r = c.get("/profile")
        assert r.status == 200, r
        assert r.json["restricted"] is True, r
        assert r.headers["X-OAuth-Scopes"] == "*", r
    finally:
        c.close()


def test_expiry(backend, server, account, clock):
    username, out = create(backend, account, "--token-scopes", "*",
                           "--token-expiry", utc_ts(30 * 60))
    uid, token = out.split("\n")
    c = server.client(token=token)
    try:
        assert c.get("/profile").status == 200
        clock("advance", "1h")
        assert c.get("/profile").status == 401
    finally:
        c.close()


def test_without_token_scopes_prints_the_uid_only(backend, account):
    username, out = create(backend, account)
    assert re.fullmatch(r"[0-9]+", out), out
    assert tokens_of(backend, out) == []


@pytest.mark.parametrize("extra,message", [
    (["--token-label", "x"], "--token-label and --token-expiry need --token-scopes"),
    (["--token-expiry", "2999-01-01T00:00:00"],
     "--token-label and --token-expiry need --token-scopes"),
    (["--token-scopes", "domains:bogus"], "invalid scope"),
    (["--token-scopes", "*", "--token-expiry", "tomorrow"], "invalid token-expiry"),
    (["--token-scopes", "*", "--token-expiry", "2001-01-01T00:00:00"],
     "is not in the future"),
])
def test_usage_errors_create_nothing(backend, account, extra, message):
    username, p = create(backend, account, *extra, check=False)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert message in p.stderr, p.stderr
    assert p.stdout == ""
    assert users_named(backend, username) == []


def test_a_failed_token_leaves_no_user(backend, account):
    """The token is refused (an empty label: a usage error, as 'token create'
    reports it) after the user was created in the transaction: the user goes
    too, and the name stays free."""
    username = backend.unique("e2e-cli-user-")
    args = ["user", "create", "--account", account, "--username", username,
            "--email", f"{username}@example.com", "--token-scopes", "*"]
    p = backend.admin(*args, "--token-label", "", check=False)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert "cannot create the token" in p.stderr, p.stderr
    assert users_named(backend, username) == []
    uid, token = backend.admin(*args).split("\n")
    assert users_named(backend, username) == [[uid]]


# --------------------------------------------------------------------------
# account create --owner
# --------------------------------------------------------------------------

def accounts_named(backend, name):
    return backend.query(f"SELECT id FROM accounts WHERE name = '{name}'")


def test_account_with_owner_and_token(backend, server):
    name, username = backend.unique("e2e-cli-acct-"), backend.unique("e2e-cli-owner-")
    out = backend.admin("account", "create", "--name", name, "--owner", username,
                        "--owner-email", "boss@example.com", "--token-scopes",
                        "account:read_only", "--token-label", "ci")
    account, uid, token = out.split("\n")
    assert accounts_named(backend, name) == [[account]]
    assert backend.query(f"SELECT account_id, email, restricted FROM users "
                         f"WHERE id = {uid}") == [[account, "boss@example.com", "0"]]
    assert tokens_of(backend, uid) == [["pat", "ci", "account:read_only", None]]
    c = server.client(token=token)
    try:
        r = c.get("/profile")
        assert r.status == 200, r
        assert r.json["uid"] == int(uid) and r.json["username"] == username, r
        assert r.json["restricted"] is False, r
        assert r.headers["X-OAuth-Scopes"] == "account:read_only", r
        # The owner sees the account it was made with, and only its own users.
        users = c.all_pages("/account/users")
        assert [u["username"] for u in users] == [username], users
    finally:
        c.close()


def test_account_with_owner_only(backend):
    name, username = backend.unique("e2e-cli-acct-"), backend.unique("e2e-cli-owner-")
    out = backend.admin("account", "create", "--name", name, "--owner", username,
                        "--owner-email", f"{username}@example.com")
    account, uid = out.split("\n")
    assert users_named(backend, username) == [[uid]]
    assert tokens_of(backend, uid) == []


def test_account_without_owner_prints_the_id_only(backend):
    out = backend.admin("account", "create", "--name", backend.unique("e2e-cli-acct-"))
    assert re.fullmatch(r"[1-9][0-9]*", out), out


@pytest.mark.parametrize("extra,message", [
    (["--owner", "x-owner"], "--owner and --owner-email go together"),
    (["--owner-email", "x@example.com"], "--owner and --owner-email go together"),
    (["--token-scopes", "*"], "--token-scopes needs --owner"),
    (["--token-label", "x"], "--token-label and --token-expiry need --token-scopes"),
    (["--owner", "x-owner", "--owner-email", "x@example.com", "--token-scopes", "nope"],
     "invalid scope"),
    (["--owner", "x-owner", "--owner-email", "x@example.com", "--token-scopes", "*",
      "--token-expiry", "2001-01-01T00:00:00"], "is not in the future"),
])
def test_account_usage_errors_create_nothing(backend, extra, message):
    name = backend.unique("e2e-cli-acct-")
    p = backend.admin("account", "create", "--name", name, *extra, check=False)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert message in p.stderr, p.stderr
    assert p.stdout == ""
    assert accounts_named(backend, name) == []


def test_a_taken_owner_name_leaves_no_account(backend):
    name = backend.unique("e2e-cli-acct-")
    p = backend.admin("account", "create", "--name", name, "--owner", backend.username,
                      "--owner-email", "dup@example.com", "--token-scopes", "*",
                      check=False)
    assert p.returncode == 1, (p.stdout, p.stderr)
    assert f"username '{backend.username}' is taken" in p.stderr, p.stderr
    assert accounts_named(backend, name) == []
