"""Records other systems own: logins, trusted devices and authorized OAuth
apps, created with acctapi-admin, then listed, viewed and revoked over HTTP.
Every test works on a user of its own, so the shared database's other rows
never show up in its lists."""

import datetime
import re

import pytest

from checks import assert_envelope, assert_error, assert_headers, assert_json
from harness import utc_ts

DAY = 86400
LOGIN_KEYS = ["id", "datetime", "ip", "restricted", "status", "username"]
DEVICE_KEYS = ["id", "created", "expiry", "last_authenticated", "last_remote_addr",
               "user_agent"]
APP_KEYS = ["id", "label", "created", "expiry", "scopes", "thumbnail_url", "website"]
INVALID_TOKEN = {"errors": [{"reason": "Invalid Token"}]}
SCOPE_REASON = "Your OAuth token is not authorized to use this endpoint."
UA = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"


def parse_ts(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%S")


@pytest.fixture
def owner(make_user):
    """A fresh user and an all-scopes token of theirs: (uid, username, token)."""
    c = make_user()
    return c.uid, c.username, c.token


def admin_id(backend, *args):
    out = backend.admin(*args)
    assert re.fullmatch(r"[1-9][0-9]*", out), out
    return int(out)


def record_login(backend, user, *args, ip="203.0.113.7"):
    return admin_id(backend, "login", "record", "--user", str(user), "--ip", ip, *args)


def add_device(backend, user, *args, ip="198.51.100.23"):
    return admin_id(backend, "device", "add", "--user", str(user), "--ip", ip,
                    "--user-agent", UA, *args)


def authorize_app(backend, user, scopes, *args, label=None):
    label = label or backend.unique("e2e-app-")
    out = backend.admin("app", "authorize", "--user", str(user), "--label", label,
                        "--scopes", scopes, *args)
    lines = out.split("\n")
    assert len(lines) == 2, out
    assert re.fullmatch(r"[1-9][0-9]*", lines[0]), out
    assert re.fullmatch(r"[0-9a-f]{64}", lines[1]), out
    return int(lines[0]), lines[1], label


def list_ids(anon, path, token, **kw):
    r = anon.get(path, token=token, **kw)
    assert r.status == 200, r
    assert_headers(r, scopes="*", accepted="account:read_only")
    return [item["id"] for item in assert_envelope(assert_json(r))]


def view(anon, path, token, keys):
    r = anon.get(path, token=token)
    assert r.status == 200, r
    assert_headers(r, scopes="*", accepted="account:read_only")
    pairs = r.json_pairs()
    assert [k for k, _ in pairs] == keys, r
    return dict(pairs)


# --------------------------------------------------------------------------
# Logins
# --------------------------------------------------------------------------

def test_logins_list_and_view(anon, backend, owner):
    uid, username, tok = owner
    recent = record_login(backend, username)
    earlier = record_login(backend, uid, "--at", utc_ts(-3600), ip="2001:DB8:0:0::5")
    failed = record_login(backend, uid, "--status", "failed", "--at", utc_ts(-60))
    old = record_login(backend, uid, "--at", utc_ts(-91 * DAY))
    # The contract lists successful logins of the last 90 days.
    assert list_ids(anon, "/profile/logins", tok) == [recent, earlier]
    assert_error(anon.get(f"/profile/logins/{failed}", token=tok), 404, "Not found")

    login = view(anon, f"/profile/logins/{earlier}", tok, LOGIN_KEYS)
    assert login == {"id": earlier, "datetime": login["datetime"], "ip": "2001:db8::5",
                     "restricted": False, "status": "successful", "username": username}
    assert abs((parse_ts(utc_ts(-3600)) - parse_ts(login["datetime"])).total_seconds()) < 60
    assert view(anon, f"/profile/logins/{recent}", tok, LOGIN_KEYS)["status"] == "successful"

    assert_error(anon.get(f"/profile/logins/{old}", token=tok), 404, "Not found")
    # Another user's login is as absent as a missing one.
    assert_error(anon.get(f"/profile/logins/{recent}", token=backend.token), 404, "Not found")
    assert recent not in list_ids(anon, "/profile/logins", backend.token)


def test_logins_window_follows_the_clock(anon, backend, owner, clock):
    uid, _, tok = owner
    login = record_login(backend, uid, "--at", utc_ts(-89 * DAY))
    assert list_ids(anon, "/profile/logins", tok) == [login]
    clock("advance", "2d")
    assert list_ids(anon, "/profile/logins", tok) == []
    assert_error(anon.get(f"/profile/logins/{login}", token=tok), 404, "Not found")


def test_login_of_restricted_user(anon, backend):
    uid, username = backend.create_user(restricted=True)
    tok = backend.mint_token(scopes="*", user=uid)
    login = record_login(backend, uid, ip="192.0.2.44")
    got = view(anon, f"/profile/logins/{login}", tok, LOGIN_KEYS)
    assert got["restricted"] is True and got["username"] == username, got


def test_logins_filter_and_pages(anon, backend, owner):
    uid, _, tok = owner
    ids = [record_login(backend, uid) for _ in range(3)]
    # linode_api4's ProfileLogin properties: only successful logins are
    # listed, so status "failed" selects none; ip selects its login.
    assert list_ids(anon, "/profile/logins", tok, xfilter={"status": "failed"}) == []
    assert list_ids(anon, "/profile/logins", tok, xfilter={"status": "successful"}) == ids
    other = record_login(backend, uid, ip="192.0.2.99")
    assert list_ids(anon, "/profile/logins", tok, xfilter={"ip": "192.0.2.99"}) == [other]
    assert list_ids(anon, "/profile/logins", tok, xfilter={"ip": {"+neq": "192.0.2.99"}}) == ids
    assert list_ids(anon, "/profile/logins", tok, xfilter={"id": ids[1]}) == [ids[1]]
    r = anon.get("/profile/logins", token=tok, xfilter={"location": "x"})
    assert_error(r, 400, "Cannot filter on location", field="X-Filter")
    ids.append(other)
    r = anon.get("/profile/logins", token=tok, xfilter={"+order": "desc"})
    assert [i["id"] for i in assert_envelope(r.json)] == ids[::-1], r
    r = anon.get("/profile/logins", token=tok, params={"page_size": 24})
    assert_error(r, 400, field="page_size")


# --------------------------------------------------------------------------
# Trusted devices
# --------------------------------------------------------------------------

def test_devices_list_view_revoke(anon, backend, owner):
    uid, username, tok = owner
    first = add_device(backend, username)
    second = add_device(backend, uid, ip="2001:db8::1:0:0:1")
    assert list_ids(anon, "/profile/devices", tok) == [first, second]

    dev = view(anon, f"/profile/devices/{first}", tok, DEVICE_KEYS)
    assert dev["id"] == first
    assert dev["last_remote_addr"] == "198.51.100.23"
    assert dev["user_agent"] == UA
    assert dev["created"] == dev["last_authenticated"]
    assert abs((parse_ts(utc_ts()) - parse_ts(dev["created"])).total_seconds()) < 60
    assert (parse_ts(dev["expiry"]) - parse_ts(dev["created"])).total_seconds() == 30 * DAY
    assert view(anon, f"/profile/devices/{second}", tok,
                DEVICE_KEYS)["last_remote_addr"] == "2001:db8::1:0:0:1"

    # Another user's device: 404 for view and revoke, and it survives.
    assert_error(anon.get(f"/profile/devices/{first}", token=backend.token), 404, "Not found")
    assert_error(anon.delete(f"/profile/devices/{first}", token=backend.token), 404,
                 "Not found")

    r = anon.delete(f"/profile/devices/{first}", token=tok)
    assert r.status == 200 and assert_json(r) == {}, r
    assert_headers(r, scopes="*", accepted="account:read_write")
    assert_error(anon.get(f"/profile/devices/{first}", token=tok), 404, "Not found")
    assert_error(anon.delete(f"/profile/devices/{first}", token=tok), 404, "Not found")
    assert list_ids(anon, "/profile/devices", tok) == [second]


def test_device_expiry(anon, backend, owner, clock):
    uid, _, tok = owner
    dev = add_device(backend, uid, "--expiry", utc_ts(3600))
    assert view(anon, f"/profile/devices/{dev}", tok, DEVICE_KEYS)["expiry"]
    clock("advance", "2h")
    assert_error(anon.get(f"/profile/devices/{dev}", token=tok), 404, "Not found")
    assert list_ids(anon, "/profile/devices", tok) == []


@pytest.mark.parametrize("path", ["/profile/devices", "/profile/logins", "/profile/apps"])
@pytest.mark.parametrize("bad_id", ["0", "-1", "abc", "1.0", "99999999999999999999"])
def test_ids_that_name_nothing(anon, owner, path, bad_id):
    tok = owner[2]
    assert_error(anon.get(f"{path}/{bad_id}", token=tok), 404, "Not found")
    if path != "/profile/logins":
        assert_error(anon.delete(f"{path}/{bad_id}", token=tok), 404, "Not found")


def test_devices_filter(anon, backend, owner):
    """linode_api4's TrustedDevice properties select exactly their device."""
    uid, _, tok = owner
    first = add_device(backend, uid)
    second = add_device(backend, uid, ip="198.51.100.99")
    assert list_ids(anon, "/profile/devices", tok, xfilter={"user_agent": UA}) == \
        [first, second]
    assert list_ids(anon, "/profile/devices", tok,
                    xfilter={"last_remote_addr": "198.51.100.99"}) == [second]
    assert list_ids(anon, "/profile/devices", tok, xfilter={"id": {"+neq": second}}) == [first]
    r = anon.get("/profile/devices", token=tok, xfilter={"browser": UA})
    assert_error(r, 400, "Cannot filter on browser", field="X-Filter")


# --------------------------------------------------------------------------
# Authorized apps and their tokens
# --------------------------------------------------------------------------

def test_apps_list_view_filter(anon, backend, owner):
    uid, _, tok = owner
    plain, _, plain_label = authorize_app(backend, uid, "account:read_only")
    full, _, full_label = authorize_app(
        backend, uid, "domains:read_write, account:read_only",
        "--website", "https://app.example/", "--thumbnail-url", "https://app.example/t.png",
        "--expiry", utc_ts(7 * DAY))
    assert list_ids(anon, "/profile/apps", tok) == [plain, full]

    app = view(anon, f"/profile/apps/{plain}", tok, APP_KEYS)
    assert app == {"id": plain, "label": plain_label, "created": app["created"],
                   "expiry": None, "scopes": "account:read_only", "thumbnail_url": None,
                   "website": ""}      # no website: "", a string as the public API's
    app = view(anon, f"/profile/apps/{full}", tok, APP_KEYS)
    assert app["scopes"] == "account:read_only domains:read_write", app
    assert app["website"] == "https://app.example/"
    assert app["thumbnail_url"] == "https://app.example/t.png"
    assert (parse_ts(app["expiry"]) - parse_ts(app["created"])).total_seconds() > 6 * DAY

    assert list_ids(anon, "/profile/apps", tok, xfilter={"label": full_label}) == [full]
    assert list_ids(anon, "/profile/apps", tok,
                    xfilter={"expiry": {"+gt": utc_ts()}}) == [full]
    assert list_ids(anon, "/profile/apps", tok, xfilter={"+order": "desc"}) == [full, plain]
    assert sorted(list_ids(anon, "/profile/apps", tok,
                           xfilter={"+order_by": "created", "+order": "desc"})) == [plain, full]
    # linode_api4's other AuthorizedApp properties, as the app shows them.
    assert list_ids(anon, "/profile/apps", tok, xfilter={"scopes": "*"}) == []
    assert list_ids(anon, "/profile/apps", tok,
                    xfilter={"scopes": "account:read_only"}) == [plain]
    assert list_ids(anon, "/profile/apps", tok, xfilter={"website": ""}) == [plain]
    assert list_ids(anon, "/profile/apps", tok,
                    xfilter={"thumbnail_url": "https://app.example/t.png"}) == [full]
    assert_error(anon.get("/profile/apps", token=tok, xfilter={"token": "x"}), 400,
                 "Cannot filter on token", field="X-Filter")
    # Another user's app.
    assert_error(anon.get(f"/profile/apps/{plain}", token=backend.token), 404, "Not found")
    assert_error(anon.delete(f"/profile/apps/{plain}", token=backend.token), 404, "Not found")
    assert plain in list_ids(anon, "/profile/apps", tok)


def test_app_token_has_the_apps_scopes(anon, backend, owner):
    uid, _, tok = owner
    app, app_token, _ = authorize_app(backend, uid, "account:read_only")

    r = anon.get("/profile", token=app_token)
    assert r.status == 200, r
    assert_headers(r, scopes="account:read_only", accepted="*")
    assert r.json["uid"] == uid
    r = anon.get("/profile/apps", token=app_token)
    assert r.status == 200, r
    assert_headers(r, scopes="account:read_only", accepted="account:read_only")

    # Outside its scopes: writes need account:read_write.
    for r in (anon.post("/profile/tokens", token=app_token, json={"label": "e2e-nope"}),
              anon.delete(f"/profile/apps/{app}", token=app_token)):
        assert_error(r, 401, SCOPE_REASON)
        assert_headers(r, scopes="account:read_only", accepted="account:read_write")

    # An app's token is not a personal access token.
    r = anon.get("/profile/tokens", token=tok)
    assert r.status == 200, r
    assert app_token[:16] not in [t["token"] for t in assert_envelope(r.json)]

    r = anon.delete(f"/profile/apps/{app}", token=tok)
    assert r.status == 200 and assert_json(r) == {}, r
    assert_headers(r, scopes="*", accepted="account:read_write")
    r = anon.get("/profile", token=app_token)
    assert r.status == 401 and assert_json(r) == INVALID_TOKEN, r
    assert_headers(r, scopes="unknown")
    assert_error(anon.get(f"/profile/apps/{app}", token=tok), 404, "Not found")
    assert_error(anon.delete(f"/profile/apps/{app}", token=tok), 404, "Not found")
    assert app not in list_ids(anon, "/profile/apps", tok)


def test_app_revokes_itself(anon, backend, owner):
    uid = owner[0]
    app, app_token, _ = authorize_app(backend, uid, "account:read_write")
    r = anon.delete(f"/profile/apps/{app}", token=app_token)
    assert r.status == 200 and assert_json(r) == {}, r
    r = anon.get("/profile/apps", token=app_token)
    assert r.status == 401 and assert_json(r) == INVALID_TOKEN, r


def test_app_expiry(anon, backend, owner, clock):
    uid, _, tok = owner
    app, app_token, _ = authorize_app(backend, uid, "*", "--expiry", utc_ts(3600))
    r = anon.get("/profile", token=app_token)
    assert r.status == 200, r
    assert_headers(r, scopes="*")
    clock("advance", "2h")
    r = anon.get("/profile", token=app_token)
    assert r.status == 401 and assert_json(r) == INVALID_TOKEN, r
    # The expired app stays listed, with its expiry, until the user revokes it.
    assert view(anon, f"/profile/apps/{app}", tok, APP_KEYS)["expiry"] is not None
    r = anon.delete(f"/profile/apps/{app}", token=tok)
    assert r.status == 200, r


# --------------------------------------------------------------------------
# acctapi-admin: error paths (0 ok, 1 failed, 2 usage) leave nothing behind
# --------------------------------------------------------------------------

CLI_ERRORS = [
    # login record
    (["login", "record", "--ip", "192.0.2.1"], 2),
    (["login", "record", "--user", "{uid}"], 2),
    (["login", "record", "--user", "{uid}", "--ip", "192.0.2.256"], 2),
    (["login", "record", "--user", "{uid}", "--ip", "example.com"], 2),
    (["login", "record", "--user", "{uid}", "--ip", "192.0.2.1", "--status", "ok"], 2),
    (["login", "record", "--user", "{uid}", "--ip", "192.0.2.1", "--at", "yesterday"], 2),
    (["login", "record", "--user", "{uid}", "--ip", "192.0.2.1", "--at", "{future}"], 2),
    (["login", "record", "--user", "{uid}", "--ip", "192.0.2.1", "--bogus", "x"], 2),
    (["login", "record", "--user", "e2e-nobody", "--ip", "192.0.2.1"], 1),
    # device add
    (["device", "add", "--user", "{uid}", "--ip", "192.0.2.1"], 2),
    (["device", "add", "--user", "{uid}", "--ip", "::g", "--user-agent", "UA"], 2),
    (["device", "add", "--user", "{uid}", "--ip", "192.0.2.1", "--user-agent", ""], 2),
    (["device", "add", "--user", "{uid}", "--ip", "192.0.2.1", "--user-agent", "UA",
      "--expiry", "{past}"], 2),
    (["device", "add", "--user", "{uid}", "--ip", "192.0.2.1", "--user-agent", "UA",
      "--expiry", "2030-02-30T00:00:00"], 2),
    (["device", "add", "--user", "999999999", "--ip", "192.0.2.1", "--user-agent", "UA"], 1),
    # app authorize
    (["app", "authorize", "--user", "{uid}", "--label", "x"], 2),
    (["app", "authorize", "--user", "{uid}", "--scopes", "*"], 2),
    (["app", "authorize", "--user", "{uid}", "--label", "x", "--scopes", "account:write"], 2),
    (["app", "authorize", "--user", "{uid}", "--label", "", "--scopes", "*"], 2),
    (["app", "authorize", "--user", "{uid}", "--label", "x", "--scopes", "*",
      "--website", "ftp://app.example/"], 2),
    (["app", "authorize", "--user", "{uid}", "--label", "x", "--scopes", "*",
      "--thumbnail-url", "not a url"], 2),
    (["app", "authorize", "--user", "{uid}", "--label", "x", "--scopes", "*",
      "--expiry", "{past}"], 2),
    (["app", "authorize", "--user", "e2e-nobody", "--label", "x", "--scopes", "*"], 1),
]


@pytest.mark.parametrize("args,code", CLI_ERRORS,
                         ids=[" ".join(a[:2]) + f"-{i}" for i, (a, _) in enumerate(CLI_ERRORS)])
def test_cli_errors(anon, backend, owner, args, code):
    uid, _, tok = owner
    subst = {"uid": str(uid), "future": utc_ts(2 * DAY), "past": utc_ts(-60)}
    p = backend.admin(*[a.format(**subst) for a in args], check=False)
    assert p.returncode == code, (p.returncode, p.stdout, p.stderr)
    assert p.stdout == "", p.stdout
    assert p.stderr.startswith("acctapi-admin: ") and p.stderr.count("\n") == 1, p.stderr
    for path in ("/profile/logins", "/profile/devices", "/profile/apps"):
        assert list_ids(anon, path, tok) == [], path


@pytest.mark.parametrize("command", [["login", "record"], ["device", "add"],
                                     ["app", "authorize"]])
def test_cli_help(backend, command):
    for args in (command + ["--help"], ["help"] + command, command[:1] + ["--help"]):
        p = backend.admin(*args, check=False)
        assert p.returncode == 0, p
        assert p.stdout.startswith("Usage: acctapi-admin [GLOBAL OPTIONS] " + " ".join(command)), \
            p.stdout
        assert "--user USER" in p.stdout, p.stdout
    p = backend.admin("--help", check=False)
    assert " ".join(command) in p.stdout, p.stdout
