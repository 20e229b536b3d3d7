"""Behaviours the public API's clients rely on, each shown end to
end: the timestamp layout on every object that has timestamps; the exact
Content-Type on every kind of answer; `pages` >= 1; 204 from
GET /profile/grants for an unrestricted user; Retry-After in whole seconds;
HEAD on every GET route of the route table answering as GET does, without
the body; `/v4beta/...` answering like `/v4/...`."""

import datetime
import re
import secrets
import subprocess
from urllib.parse import quote

import pytest

import rawhttp
import harness
from accounts import world_fixture
from checks import assert_envelope, assert_error, assert_json
from harness import ADMIN
from otp import server_now, totp

LAYOUT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
LOOKS_LIKE_A_DATE = re.compile(r"\d{4}-\d\d-\d\d")
ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIODawwa+Vh+oKziAsrGIN7OpMSUL4u4dBPf4dZfXjl+p"
ENGINES = {"mysql": {"type": "g6-nanode-1", "engine": "mysql/8.0.30"},
           "postgresql": {"type": "g6-standard-2", "engine": "postgresql/16.4"}}
# Headers that legitimately differ between two answers to the same request.
PER_CONNECTION = {"date", "keep-alive", "connection"}
# What each request changes: the HEAD and the GET are two requests of one
# rate-limit budget (and may straddle a window).
PER_REQUEST = {"x-ratelimit-remaining", "x-ratelimit-reset"}
EMPTY = {"data": [], "page": 1, "pages": 1, "results": 0}


def ok(r):
    assert r.status == 200, r
    return assert_json(r)


def get_routes():
    out = subprocess.run([str(ADMIN), "routes"], check=True, capture_output=True,
                         text=True).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    gets = [(path, kind) for method, path, scope, kind in rows if method == "GET"]
    assert len(gets) >= 40, out
    return gets


def comparable(headers):
    return {k.lower(): v for k, v in headers.items() if k.lower() not in PER_CONNECTION | PER_REQUEST}


# --------------------------------------------------------------------------
# One account holding one object of every kind
# --------------------------------------------------------------------------

class World:
    def __init__(self, backend, server):
        self.backend = backend
        self.account = harness.Account(backend, server, stem="e2e-behave-")
        self.owner = self.account.client
        c = self.owner
        self.domain = ok(c.post("/domains", json={
            "domain": f"behave-{secrets.token_hex(6)}.example", "type": "master",
            "soa_email": "hostmaster@example.com"}))
        self.record = ok(c.post(f"/domains/{self.domain['id']}/records", json={
            "type": "A", "name": "www", "target": "192.0.2.10"}))
        self.token = ok(c.post("/profile/tokens", json={
            "label": f"behave-{secrets.token_hex(4)}", "expiry": harness.utc_ts(86400)}))
        self.sshkey = ok(c.post("/profile/sshkeys", json={
            "label": f"behave-{secrets.token_hex(4)}", "ssh_key": ED25519}))
        self.tag = f"behave-{secrets.token_hex(4)}"
        ok(c.post("/tags", json={"label": self.tag, "domains": [self.domain["id"]]}))
        uid = self.account.uid
        self.app = self.admin_id("app", "authorize", "--user", uid, "--label",
                                 backend.unique("behave-app-"), "--scopes", "account:read_only")
        self.device = self.admin_id("device", "add", "--user", uid, "--ip", "198.51.100.23",
                                    "--user-agent", "Mozilla/5.0 behaviours")
        self.login = self.admin_id("login", "record", "--user", uid, "--ip", "203.0.113.7")
        self.db = {}
        self.backup = {}
        for engine, body in ENGINES.items():
            body = dict(body, label=f"bh-{secrets.token_hex(4)}", region="us-east")
            db = ok(c.post(f"/databases/{engine}/instances", json=body))
            self.db[engine] = db["id"]
            # Provisioning over: backups, credentials and SSL answer 200.
            backend.admin("database", "set-status", str(db["id"]), "active")
            self.backup[engine] = self.add_backup(db["id"])
        _, self.restricted = self.account.user(restricted=True)
        self.username = ok(c.get("/profile"))["username"]
        # One registered object of each type served read-only.
        self.entity = {}
        for kind in ("instance", "volume", "nodebalancer", "image"):
            n = secrets.randbelow(2**40) + 1000
            assert backend.admin("entity", "add", "--account", self.account.id, "--type", kind,
                                 "--id", n, "--label", f"behave-{kind}") == str(n)
            self.entity[kind] = n
        # The newest event of the account (the changes above wrote some).
        events = ok(c.get("/account/events"))["data"]
        assert events, events
        self.event = events[0]["id"]

    def admin_id(self, *args):
        out = self.backend.admin(*[str(a) for a in args]).split("\n")[0]
        assert re.fullmatch(r"[1-9][0-9]*", out), out
        return int(out)

    def add_backup(self, db_id):
        """A finished backup, written the way an operator would."""
        created = int(server_now(self.backend)) - 3600
        self.backend.execute(
            "INSERT INTO database_backups (database_id, type, label, created) "
            f"VALUES ({db_id}, 'snapshot', 'behave{created}', {created})")
        rows = self.backend.query(
            f"SELECT max(id) FROM database_backups WHERE database_id = {db_id}")
        return int(rows[0][0])

    def url(self, template):
        """A concrete /v4-relative path naming this world's objects."""
        engine = re.match(r"/v4/databases/(mysql|postgresql)/", template)
        ids = {"regionId": "us-east", "typeId": "g6-nanode-1",
               "engineId...": "mysql%2F8.0.30", "domainId": self.domain["id"],
               "recordId": self.record["id"], "tokenId": self.token["id"],
               "sshKeyId": self.sshkey["id"], "appId": self.app, "deviceId": self.device,
               "loginId": self.login, "tagLabel": quote(self.tag, safe=""),
               "instanceId": self.db[engine.group(1)] if engine else None,
               "backupId": self.backup[engine.group(1)] if engine else None,
               "username": self.username, "linodeId": self.entity["instance"],
               "volumeId": self.entity["volume"], "nodeBalancerId": self.entity["nodebalancer"],
               "imageId...": f"private/{self.entity['image']}", "eventId": self.event}
        return re.sub(r"\{([^}]+)\}", lambda m: str(ids[m.group(1)]), template)[len("/v4"):]

    def close(self):
        self.account.close()


world = world_fixture(World)


@pytest.fixture
def fresh(server, backend):
    """A client of a brand-new account's owner: every list of it is empty."""
    account = harness.Account(backend, server, stem="e2e-behave-fresh-")
    yield account.client
    account.close()


# --------------------------------------------------------------------------
# HEAD on every GET route
# --------------------------------------------------------------------------

@pytest.mark.parametrize("path,kind", get_routes())
def test_head_answers_like_get(world, path, kind):
    url = world.url(path)
    client = world.owner
    get = client.get(url)
    head = client.head(url)
    # Every object the path names exists: the owner gets it (204: grants).
    assert get.status in (200, 204), get
    assert head.status == get.status, (head, get)
    assert head.body == b"", head
    assert comparable(head.headers) == comparable(get.headers), (head, get)
    if get.status == 204:
        assert get.body == b"", get
        assert "Content-Type" not in get.headers, get
    else:
        assert get.headers.get("Content-Length") == str(len(get.body)), get
        assert_json(get)


@pytest.mark.parametrize("path,token", [
    ("/nope", True), ("/profile", False), ("/profile/tokens/987654321", True),
    ("/regions/%00", False), ("/profile/phone-number", True), ("/tags", "restricted"),
])
def test_head_errors_like_get(world, anon, path, token):
    tok = world.owner.token if token is True else \
        world.restricted.token if token == "restricted" else None
    get = anon.get(path, token=tok)
    head = anon.head(path, token=tok)
    assert get.status >= 400, get
    assert head.status == get.status, (head, get)
    assert head.body == b"", head
    assert comparable(head.headers) == comparable(get.headers), (head, get)


def test_head_405_lists_allow(world):
    r = world.owner.head("/profile/phone-number")
    assert r.status == 405, r
    assert r.headers.get("Allow") == "POST, DELETE, OPTIONS", r
    assert r.body == b""


# --------------------------------------------------------------------------
# Timestamps: YYYY-MM-DDTHH:MM:SS, UTC, nothing more
# --------------------------------------------------------------------------

def dates_in(doc, where="$"):
    """Every string of `doc` that starts like a date, with its JSON path."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from dates_in(v, f"{where}.{k}")
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from dates_in(v, f"{where}[{i}]")
    elif isinstance(doc, str) and LOOKS_LIKE_A_DATE.match(doc):
        yield where, doc


# A personal access token that never expires shows the public API's "never"
# (linodego's recorded traffic; docs/conventions.md, today's clients).
NEVER_EXPIRES = "2999-12-12T05:00:00"


def assert_timestamps(doc, fields, now, nullable=(), never=()):
    """`fields` hold the layout (or null where `nullable`, or NEVER_EXPIRES
    where `never`), in UTC: within two days of the servers' clock for objects
    made by this test module, within a year ahead for expiries."""
    for f in fields:
        v = doc[f]
        if v is None and f in nullable:
            continue
        if v == NEVER_EXPIRES and f in never:
            continue
        assert isinstance(v, str) and LAYOUT.fullmatch(v), (f, v, doc)
        t = datetime.datetime.strptime(v, "%Y-%m-%dT%H:%M:%S").replace(
            tzinfo=datetime.timezone.utc).timestamp()
        if f == "expiry":
            assert now - 2 * 86400 < t < now + 366 * 86400, (f, v, doc)
        else:
            assert abs(t - now) < 2 * 86400, (f, v, doc)
    for where, v in dates_in(doc):
        assert LAYOUT.fullmatch(v), (where, v)


def test_timestamps_every_object(world, backend):
    now = server_now(backend)
    c = world.owner
    objects = [
        ("domain", f"/domains/{world.domain['id']}", "/domains", ["created", "updated"], ()),
        ("record", f"/domains/{world.domain['id']}/records/{world.record['id']}",
         f"/domains/{world.domain['id']}/records", ["created", "updated"], ()),
        ("token", f"/profile/tokens/{world.token['id']}", "/profile/tokens",
         ["created", "expiry"], ()),
        ("ssh key", f"/profile/sshkeys/{world.sshkey['id']}", "/profile/sshkeys",
         ["created"], ()),
        ("app", f"/profile/apps/{world.app}", "/profile/apps", ["created", "expiry"],
         ("expiry",)),
        ("device", f"/profile/devices/{world.device}", "/profile/devices",
         ["created", "expiry", "last_authenticated"], ()),
        ("login", f"/profile/logins/{world.login}", "/profile/logins", ["datetime"], ()),
    ]
    for engine in ENGINES:
        base = f"/databases/{engine}/instances"
        objects += [
            (f"{engine} database", f"{base}/{world.db[engine]}", base, ["created", "updated"], ()),
            (f"{engine} backup", f"{base}/{world.db[engine]}/backups/{world.backup[engine]}",
             f"{base}/{world.db[engine]}/backups", ["created"], ()),
        ]
    objects.append(("database (all engines)", None, "/databases/instances",
                    ["created", "updated"], ()))
    for kind, listing, public_id in (
            ("instance", "/linode/instances", str), ("volume", "/volumes", str),
            ("nodebalancer", "/nodebalancers", str),
            ("image", "/images", lambda n: f"private/{n}")):
        objects.append((f"registered {kind}", f"{listing}/{public_id(world.entity[kind])}",
                        listing, ["created", "updated"], ()))
    for kind, single, listing, fields, nullable in objects:
        never = ("expiry",) if kind == "token" else ()
        items = c.all_pages(listing)
        assert items, (kind, listing)
        for item in items:
            assert_timestamps(item, fields, now, nullable, never)
        if single:
            doc = ok(c.get(single))
            assert_timestamps(doc, fields, now, nullable, never)
            assert doc in items, (kind, doc)
    # The creation answers carry the same layout.
    assert_timestamps(world.domain, ["created", "updated"], now)
    assert_timestamps(world.record, ["created", "updated"], now)
    assert_timestamps(world.token, ["created", "expiry"], now)
    assert world.token["expiry"] is not None
    assert_timestamps(world.sshkey, ["created"], now)


def test_timestamp_of_tfa_secret(server, backend):
    uid, _ = backend.create_user()
    user = server.client(token=backend.mint_token(scopes="*", user=uid))
    try:
        ok(user.post("/profile/security-questions", json={"security_questions": [
            {"question_id": 1, "response": "Paris"}, {"question_id": 5, "response": "Oak Hill"},
            {"question_id": 12, "response": "Porto"}]}))
        doc = ok(user.post("/profile/tfa-enable"))
        assert_timestamps(doc, ["expiry"], server_now(backend))
    finally:
        user.close()


def test_timestamp_is_utc_under_the_test_clock(world, backend, clock):
    """Set the servers' clock to a known instant: `created` is that instant,
    in UTC, whatever the machine's time zone."""
    clock("set", "2031-02-03T04:05:06")
    r = world.owner.post("/profile/sshkeys", json={"label": "behave-clock", "ssh_key": ED25519})
    doc = ok(r)
    created = datetime.datetime.strptime(doc["created"], "%Y-%m-%dT%H:%M:%S")
    assert datetime.datetime(2031, 2, 3, 4, 5, 6) <= created \
        <= datetime.datetime(2031, 2, 3, 4, 5, 36), doc
    ok(world.owner.delete(f"/profile/sshkeys/{doc['id']}"))


# --------------------------------------------------------------------------
# Content-Type: exactly application/json
# --------------------------------------------------------------------------

def raw_request(port, text):
    return rawhttp.request(port, text)


def test_content_type_success(world, anon):
    c = world.owner
    label = f"behave-ct-{secrets.token_hex(4)}"
    created = c.post("/profile/tokens", json={"label": label})
    cases = [anon.get("/regions"), anon.get("/regions/us-east"), c.get("/profile"),
             c.get("/profile/tokens"), created,
             c.put(f"/profile/tokens/{created.json['id']}", json={"label": label + "x"}),
             c.delete(f"/profile/tokens/{created.json['id']}"),
             c.get(f"/domains/{world.domain['id']}/zone-file"), anon.get("/openapi.json")]
    for r in cases:
        assert r.status == 200, r
        assert r.headers.get("Content-Type") == "application/json", r


def test_content_type_errors(world, anon, backend):
    c = world.owner
    cases = [
        (400, c.post("/profile/tokens", json={"label": ""})),
        (400, c.post("/profile/tokens", data=b"{",
                     headers={"Content-Type": "application/json"})),
        (400, anon.get("/regions", params={"page_size": "7"})),
        (401, anon.get("/profile")),
        (401, anon.get("/domains", token=backend.mint_token(scopes="account:read_only"))),
        (403, world.restricted.get("/tags")),
        (404, anon.get("/nope")),
        (404, c.get("/domains/987654321")),
        (404, anon.get("/regions/%00")),       # httpd's own, before the module's hooks
        (405, anon.delete("/regions")),
        (405, anon.request("PATCH", "/profile")),
        (415, c.post("/profile/tokens", data=b"label=x",
                     headers={"Content-Type": "text/plain"})),
        (415, c.post("/profile/tokens", data=b"{}")),
    ]
    for status, r in cases:
        assert_error(r, status, field=None, only=False)
        assert r.headers.get("Content-Type") == "application/json", r


def test_content_type_413(server, backend):
    status, headers, body = raw_request(server.port, (
        "POST /v4/profile/tokens HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {backend.token}\r\n"
        "Content-Type: application/json\r\nContent-Length: 50000000\r\n"
        "Connection: close\r\n\r\n"))
    assert status == 413, (status, headers, body)
    assert headers.get("content-type") == "application/json", headers
    assert body == b'{"errors":[{"reason":"Request body too large"}]}', body


def test_content_type_httpd_400(server):
    status, headers, body = raw_request(server.port, (
        "GET /v4/regions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1x\r\n"
        "Connection: close\r\n\r\n"))
    assert status == 400, (status, headers, body)
    assert headers.get("content-type") == "application/json", headers
    assert body.startswith(b'{"errors":[{"reason":'), body


def test_content_type_httpd_413(make_server, backend):
    """httpd's own LimitRequestBody, below the module's limit: httpd refuses
    the body and the answer is still the API's JSON."""
    srv = make_server(extra='<Location "/v4">\n    LimitRequestBody 100\n</Location>\n',
                      name="httpd-limit")
    body = b'{"label": "' + b"x" * 200 + b'"}'
    status, headers, answer = raw_request(srv.port, (
        "POST /v4/profile/tokens HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {backend.token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n") + body.decode())
    assert status == 413, (status, headers, answer)
    assert headers.get("content-type") == "application/json", headers
    assert answer.startswith(b'{"errors":[{"reason":'), answer


# --------------------------------------------------------------------------
# Pagination: pages >= 1
# --------------------------------------------------------------------------

def test_empty_lists_have_one_page(fresh, backend):
    """A new account: every list of its own is empty and still one page."""
    uid = ok(fresh.get("/profile"))["uid"]
    domain = ok(fresh.post("/domains", json={
        "domain": f"behave-empty-{secrets.token_hex(5)}.example", "type": "master",
        "soa_email": "hostmaster@example.com"}))
    db = ok(fresh.post("/databases/mysql/instances", json=dict(
        ENGINES["mysql"], label=f"bh-{secrets.token_hex(4)}", region="us-east")))
    # Backups are listed once provisioning is over.
    backend.admin("database", "set-status", str(db["id"]), "active")
    paths = ["/profile/sshkeys", "/profile/apps", "/profile/devices", "/profile/logins",
             "/tags", "/databases/postgresql/instances",
             f"/domains/{domain['id']}/records", f"/databases/mysql/instances/{db['id']}/backups"]
    for path in paths:
        r = fresh.get(path)
        assert ok(r) == EMPTY, (uid, r)
        for page in ("2", "9"):
            r = fresh.get(path, params={"page": page})
            assert ok(r) == dict(EMPTY, page=int(page)), r


@pytest.mark.parametrize("path,xfilter", [
    ("/regions", {"country": "zz"}), ("/compute/types", {"label": "no such type"}),
    ("/databases/engines", {"engine": "nosuchengine"}),
    ("/regions/availability", {"region": "xx-nowhere-1"}),
    ("/profile/tokens", {"label": "no token is called this"}),
    ("/domains", {"domain": "nothing.example.invalid"}),
    ("/databases/instances", {"label": "no-such-database"}),
])
def test_filtered_to_nothing_is_one_page(world, path, xfilter):
    r = world.owner.get(path, xfilter=xfilter)
    assert ok(r) == EMPTY, r


@pytest.mark.parametrize("path", ["/regions", "/compute/types", "/databases/engines",
                                  "/profile/tokens", "/domains"])
def test_past_the_last_page(world, path):
    first = ok(world.owner.get(path, params={"page_size": 25}))
    assert_envelope(first)
    assert first["results"] >= 1 and first["pages"] >= 1, first
    page = first["pages"] + 3
    r = world.owner.get(path, params={"page_size": 25, "page": page})
    assert ok(r) == {"data": [], "page": page, "pages": first["pages"],
                     "results": first["results"]}, r


# --------------------------------------------------------------------------
# GET /profile/grants
# --------------------------------------------------------------------------

def test_grants_204_for_unrestricted(world):
    for r in (world.owner.get("/profile/grants"), world.owner.head("/profile/grants")):
        assert r.status == 204, r
        assert r.body == b"", r
        assert r.headers.get("Content-Length", "0") == "0", r
        assert "Content-Type" not in r.headers, r
        assert r.headers.get("X-Accepted-OAuth-Scopes") == "*", r


def test_grants_200_for_restricted(server, backend):
    account = harness.Account(backend, server, stem="e2e-behave-grants-")
    try:
        _, restricted = account.user(restricted=True)
        r = restricted.get("/profile/grants")
        doc = ok(r)
        assert doc["global"]["account_access"] is None, doc
        assert doc["domain"] == [] and doc["database"] == [], doc
    finally:
        account.close()


# --------------------------------------------------------------------------
# Retry-After: whole seconds, counting down with the clock
# --------------------------------------------------------------------------

WHOLE_SECONDS = re.compile(r"[1-9][0-9]*")


def retry_after(r):
    assert_error(r, 429, "Too many requests")
    value = r.headers.get("Retry-After", "")
    assert WHOLE_SECONDS.fullmatch(value), r
    return int(value)


@pytest.fixture
def newcomer(server, backend):
    uid, _ = backend.create_user()
    c = server.client(token=backend.mint_token(scopes="*", user=uid))
    yield c
    c.close()


def sms_codes(server, e164):
    out = []
    for line in server.sms_log.read_text().splitlines():
        m = re.match(r"^\S+ (\+\d+) Your verification code is (\d{6})\b", line)
        if m and m.group(1) == e164:
            out.append(m.group(2))
    return out


def test_retry_after_phone_verification(newcomer, server, clock):
    """The phone code locks after five wrong attempts until it expires."""
    clock("set", "2031-05-06T07:08:09")
    rest = f"{secrets.randbelow(10**6):06d}"
    national, e164 = f"07700 9{rest[:2]} {rest[2:]}", f"+4477009{rest}"
    ok(newcomer.post("/profile/phone-number", json={"iso_code": "gb", "phone_number": national}))
    code = sms_codes(server, e164)[-1]
    wrong = f"{(int(code) + 1) % 10**6:06d}"
    for _ in range(5):
        r = newcomer.post("/profile/phone-number/verify", json={"otp_code": wrong})
        assert r.status == 400, r
    first = retry_after(newcomer.post("/profile/phone-number/verify", json={"otp_code": code}))
    assert 1 <= first <= 600, first
    clock("advance", "61s")
    later = retry_after(newcomer.post("/profile/phone-number/verify", json={"otp_code": code}))
    # The test clock is an offset on real time, which moves on too.
    assert first - 61 - 5 <= later <= first - 61, (first, later)


def test_retry_after_tfa_confirmation(newcomer, backend, clock):
    """Two-factor confirmation allows five wrong codes per window."""
    clock("set", "2031-05-06T07:08:09")
    ok(newcomer.post("/profile/security-questions", json={"security_questions": [
        {"question_id": 1, "response": "Paris"}, {"question_id": 5, "response": "Oak Hill"},
        {"question_id": 12, "response": "Porto"}]}))
    secret = ok(newcomer.post("/profile/tfa-enable"))["secret"]
    now = server_now(backend)
    window = {totp(secret, now, s) for s in (-2, -1, 0, 1, 2)}
    wrong = next(c for c in ("000000", "111111", "222222", "333333") if c not in window)
    for _ in range(5):
        r = newcomer.post("/profile/tfa-enable-confirm", json={"tfa_code": wrong})
        assert r.status == 400, r
    first = retry_after(newcomer.post("/profile/tfa-enable-confirm", json={"tfa_code": wrong}))
    assert 1 <= first <= 300, first
    clock("advance", "61s")
    later = retry_after(newcomer.post("/profile/tfa-enable-confirm", json={"tfa_code": wrong}))
    # The test clock is an offset on real time, which moves on too.
    assert first - 61 - 5 <= later <= first - 61, (first, later)


# --------------------------------------------------------------------------
# /v4beta answers like /v4
# --------------------------------------------------------------------------

# What scripts/httpd-conf must give /v4beta, until it does (the shared
# server is used as soon as its configuration maps /v4beta).
BETA_LOCATION = """<Location "/v4beta">
    Require all granted
    SetHandler acctapi
    AcctapiTestClock On
</Location>
"""


@pytest.fixture(scope="module")
def beta_server(backend, server):
    if re.search(r"<Location(Match)?\s[^>]*beta", server.conf.read_text()):
        yield server
        return
    with harness.serving(backend, extra=BETA_LOCATION, name="httpd-beta",
                         **harness.SMALL_SERVER) as srv:
        yield srv


def beta_pair(srv, token, method, path, **kw):
    """The same request on /v4 and on /v4beta of one server."""
    v4 = srv.client(token=token)
    beta = harness.Client(srv.url + "/v4beta", token=token)
    try:
        return v4.request(method, path, **kw), beta.request(method, path, **kw)
    finally:
        v4.close()
        beta.close()


@pytest.mark.parametrize("method,path,kw", [
    ("GET", "/regions", {}),
    ("GET", "/regions/us-east/", {}),
    ("GET", "/compute/types", {"params": {"page_size": 25, "page": 2}}),
    ("GET", "/databases/engines/mysql%2F8.0.30", {}),
    ("GET", "/profile", {}),
    ("GET", "/profile/grants", {}),
    ("HEAD", "/regions", {}),
    ("GET", "/profile/tokens", {"xfilter": {"label": "nothing"}}),
    ("GET", "/nope", {}),
    ("DELETE", "/regions", {}),
    ("POST", "/profile/tokens", {"json": {"label": ""}}),
    ("OPTIONS", "/profile", {"headers": {"Origin": "http://x.example.test",
                                         "Access-Control-Request-Method": "GET"}}),
])
def test_v4beta_answers_like_v4(beta_server, backend, method, path, kw):
    a, b = beta_pair(beta_server, backend.token, method, path, **kw)
    assert a.status == b.status, (a, b)
    assert a.body == b.body, (a, b)
    assert comparable(a.headers) == comparable(b.headers), (a, b)


def test_v4beta_writes_what_v4_reads(beta_server, backend):
    # A user of its own: the shared user's tokens may have reached the
    # module's per-user cap when other areas ran first.
    uid, _ = backend.create_user()
    token = backend.mint_token(user=str(uid))
    beta = harness.Client(beta_server.url + "/v4beta", token=token)
    v4 = beta_server.client(token=token)
    try:
        label = f"behave-beta-{secrets.token_hex(4)}"
        made = ok(beta.post("/profile/tokens", json={"label": label}))
        seen = ok(v4.get(f"/profile/tokens/{made['id']}"))
        assert seen["label"] == label, seen
        ok(beta.delete(f"/profile/tokens/{made['id']}"))
        assert v4.get(f"/profile/tokens/{made['id']}").status == 404
    finally:
        beta.close()
        v4.close()


def test_v4beta_unauthenticated_is_401(beta_server):
    beta = harness.Client(beta_server.url + "/v4beta")
    try:
        assert_error(beta.get("/profile"), 401, "Invalid Token")
    finally:
        beta.close()
