"""Request bodies: limits, media type, JSON strictness (exercised on
POST /v4/profile/tokens; while the module has no such route yet (404/405),
these tests skip, and they activate by themselves once it exists).

Then what today's clients send (docs/conventions.md, "Today's clients"),
on every route that reads a body: keys a route does not set are ignored
(clients copy path ids into bodies, SDKs PUT back what they GET); a key the
object shows but the route cannot change is accepted when it equals the
stored value and refused, named, when it differs; null leaves a field as it
is in a PUT and gives its default in a POST; "" and [] clear.
"""

import json
import secrets

import pytest

import harness
from accounts import world_fixture
from checks import assert_error, assert_headers, assert_json
from otp import server_now, totp

ROUTE = "/profile/tokens"
LIMIT = 1024
INVALID_JSON = {"errors": [{"reason": "Invalid JSON"}]}
TOO_LARGE = {"errors": [{"reason": "Request body too large"}]}
MEDIA = {"errors": [{"reason": "Content-Type must be application/json"}]}
JSON_CT = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def small_server(backend):
    """A server with AcctapiMaxBodySize 1024."""
    with harness.serving(backend, max_body=LIMIT, name="httpd-small", **harness.SMALL_SERVER) as srv:
        yield srv


@pytest.fixture
def small(small_server, backend):
    c = small_server.client(token=backend.token)
    yield c
    c.close()


def chunks(data, size=100):
    for i in range(0, len(data), size):
        yield data[i:i + size]


def test_probe_creates_token(api):
    r = api.post(ROUTE, json={"label": "e2e-plain"})
    assert r.status == 200, r
    doc = assert_json(r)
    assert doc.get("label") == "e2e-plain", doc


def test_chunked_body_accepted(api):
    data = json.dumps({"label": "e2e-chunked"}).encode()
    r = api.post(ROUTE, headers=JSON_CT, data=chunks(data, 5))
    assert r.raw.request.headers.get("Transfer-Encoding") == "chunked"
    assert r.status == 200, r
    assert assert_json(r).get("label") == "e2e-chunked", r


def test_charset_parameter_accepted(api):
    r = api.post(ROUTE, headers={"Content-Type": "application/json; charset=utf-8"},
                      data=json.dumps({"label": "e2e-charset"}).encode())
    assert r.status == 200, r


@pytest.mark.parametrize("ctype", ["text/plain", "application/x-www-form-urlencoded",
                                   "application/jsonx"])
def test_wrong_content_type(api, ctype):
    r = api.post(ROUTE, headers={"Content-Type": ctype},
                      data=json.dumps({"label": "e2e-text"}).encode())
    assert r.status == 415, r
    assert assert_json(r) == MEDIA
    assert_headers(r)


@pytest.mark.parametrize("body", [b"{", b'{"label": }', b"not json", b'{"label": "a"} x',
                                  b'{"label": "\xff\xfe"}'],
                         ids=["truncated", "missing-value", "text", "trailing", "bad-utf8"])
def test_malformed_json(api, body):
    r = api.post(ROUTE, headers=JSON_CT, data=body)
    assert r.status == 400, r
    assert assert_json(r) == INVALID_JSON


def test_duplicate_keys(api):
    r = api.post(ROUTE, headers=JSON_CT, data=b'{"label": "a", "label": "b"}')
    assert r.status == 400, r
    assert assert_json(r) == INVALID_JSON


def nested(depth):
    """An object whose deepest container is the `depth`-th level (the outer
    object counts as 1)."""
    inner = "[" * (depth - 1) + "]" * (depth - 1)
    return ('{"label": "e2e-deep", "x": ' + inner + "}").encode()


def test_nesting_65_is_invalid(api):
    r = api.post(ROUTE, headers=JSON_CT, data=nested(65))
    assert r.status == 400, r
    assert assert_json(r) == INVALID_JSON


def test_nesting_64_is_not_invalid_json(api):
    r = api.post(ROUTE, headers=JSON_CT, data=nested(64))
    doc = assert_json(r)
    assert r.status not in (413, 415, 500), r
    if r.status >= 400:
        assert "Invalid JSON" not in [e.get("reason") for e in doc["errors"]], r


def test_too_large_content_length(small):
    body = json.dumps({"label": "e2e-big", "pad": "x" * 2 * LIMIT}).encode()
    r = small.post(ROUTE, headers=JSON_CT, data=body)
    assert r.status == 413, r
    assert assert_json(r) == TOO_LARGE
    assert_headers(r)


def test_too_large_chunked(small):
    body = json.dumps({"label": "e2e-big", "pad": "x" * 4 * LIMIT}).encode()
    r = small.post(ROUTE, headers=JSON_CT, data=chunks(body, 256))
    assert r.status == 413, r
    assert assert_json(r) == TOO_LARGE


def test_at_limit_accepted(small):
    body = json.dumps({"label": "e2e-limit"}).encode()
    body += b" " * (LIMIT - len(body))
    assert len(body) == LIMIT
    r = small.post(ROUTE, headers=JSON_CT, data=body)
    assert r.status == 200, r
    r = small.post(ROUTE, headers=JSON_CT, data=chunks(body, 100))
    assert r.status == 200, r


def test_one_over_limit(small):
    body = json.dumps({"label": "e2e-limit"}).encode()
    body += b" " * (LIMIT + 1 - len(body))
    r = small.post(ROUTE, headers=JSON_CT, data=body)
    assert r.status == 413, r
    assert assert_json(r) == TOO_LARGE



# ==========================================================================
# Today's clients: what a body does not set, and null
# ==========================================================================

ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIODawwa+Vh+oKziAsrGIN7OpMSUL4u4dBPf4dZfXjl+p"
# Keys no route sets: a copied path id, a read-only-looking name, an object.
UNKNOWN = {"bogusKey": 1, "somethingId": 5, "extra": {"x": [1, None]}}
PG = "/databases/postgresql/instances"
MY = "/databases/mysql/instances"
# A database PUT starts an update: these change with every accepted one.
DB_MOVES = ("status", "updated")


def ok(r):
    assert r.status == 200, r
    return assert_json(r)


def fields_of(r):
    """The fields a 400 names, in order."""
    return [e.get("field") for e in assert_error(r, 400, None, None, only=False)]


def without(doc, *keys):
    return {k: v for k, v in doc.items() if k not in keys}


class World(harness.Account):
    """A fresh account whose owner makes one object of each kind on demand."""

    def __init__(self, backend, server):
        super().__init__(backend, server, stem="e2e-bodies-")

    def token(self, **body):
        return ok(self.client.post("/profile/tokens", json={"label": "tok", **body}))

    def sshkey(self, **body):
        return ok(self.client.post("/profile/sshkeys",
                                   json={"label": "key", "ssh_key": ED25519, **body}))

    def domain(self, **body):
        base = {"domain": f"b-{secrets.token_hex(4)}.example", "type": "master",
                "soa_email": "hostmaster@example.net"}
        return ok(self.client.post("/domains", json={**base, **body}))

    def record(self, domain, **body):
        return ok(self.client.post(f"/domains/{domain['id']}/records", json=body))

    def database(self, path=PG, **body):
        engine = "postgresql/16.4" if path == PG else "mysql/8.0.30"
        base = {"label": f"b-{secrets.token_hex(4)}", "region": "us-east",
                "type": "g6-standard-2", "engine": engine}
        db = ok(self.client.post(path, json={**base, **body}))
        return self.active(path, db)

    def active(self, path, db):
        """The database made active again (an accepted PUT starts an update)."""
        self.backend.admin("database", "set-status", str(db["id"]), "active")
        return ok(self.client.get(f"{path}/{db['id']}"))


world = world_fixture(World, scope="function")


def record_bodies(domain):
    """A create body of each of the nine record types."""
    return [
        {"type": "A", "name": "www", "target": "192.0.2.10"},
        {"type": "AAAA", "name": "v6", "target": "2001:db8::10"},
        {"type": "NS", "name": "sub", "target": "ns1.example.net"},
        {"type": "MX", "name": "", "target": f"mail.{domain}", "priority": 10},
        {"type": "CNAME", "name": "docs", "target": "example.net"},
        {"type": "TXT", "name": "_acme-challenge", "target": "token-1"},
        {"type": "SRV", "service": "sip", "protocol": "tcp", "target": "sip.example.net",
         "priority": 5, "weight": 10, "port": 5060},
        {"type": "PTR", "name": "10", "target": "host.example.com"},
        {"type": "CAA", "name": "", "tag": "issue", "target": "letsencrypt.org"},
    ]


# ---- unknown keys: ignored on every writing route, changing nothing --------

def test_unknown_keys_ignored_on_creates(world):
    c = world.client
    made = [
        ok(c.post("/profile/tokens", json={"label": "tok", **UNKNOWN})),
        ok(c.post("/profile/sshkeys", json={"ssh_key": ED25519, **UNKNOWN})),
        world.domain(**UNKNOWN),
        world.database(**UNKNOWN),
        world.database(MY, **UNKNOWN),
    ]
    d = made[2]
    made.append(world.record(d, type="A", name="x", target="192.0.2.1", **UNKNOWN))
    made.append(ok(c.post(f"/domains/{d['id']}/clone",
                           json={"domain": f"c-{secrets.token_hex(4)}.example", **UNKNOWN})))
    for doc in made:
        assert not set(UNKNOWN) & set(doc), doc
    label = f"tag-{secrets.token_hex(3)}"
    assert ok(c.post("/tags", json={"label": label, "domains": [d["id"]], **UNKNOWN})) == \
        {"label": label}
    assert ok(c.get(f"/domains/{d['id']}"))["tags"] == [label]
    db = made[3]
    assert ok(c.post(f"{PG}/{db['id']}/backups", json={"label": "snap", **UNKNOWN})) == {}
    # an import reaches its transfer only with a valid body: the unknown keys
    # are not what is named
    r = c.post("/domains/import", json={"domain": f"i-{secrets.token_hex(4)}.example",
                                        "remote_nameserver": "192.0.2.300", **UNKNOWN})
    assert fields_of(r) == ["remote_nameserver"]


def test_unknown_keys_ignored_on_actions(world, server, backend):
    c = world.client
    answers = [{"question_id": q, "response": f"answer {q}", "security_question": "x", "id": q}
               for q in (1, 2, 3)]
    ok(c.post("/profile/security-questions", json={"security_questions": answers, **UNKNOWN}))
    # phone: send, then verify with the code from the SMS sink
    rest = f"{secrets.randbelow(10**6):06d}"
    ok(c.post("/profile/phone-number",
              json={"iso_code": "gb", "phone_number": f"07700 9{rest}", **UNKNOWN}))
    line = [ln for ln in server.sms_log.read_text().splitlines() if f"+4477009{rest}" in ln][-1]
    code = line.split("Your verification code is ")[1][:6]
    ok(c.post("/profile/phone-number/verify", json={"otp_code": code, **UNKNOWN}))
    assert ok(c.get("/profile"))["verified_phone_number"] == f"+4477009{rest}"
    # two-factor: enable, confirm with a current code
    secret = ok(c.post("/profile/tfa-enable"))["secret"]
    ok(c.post("/profile/tfa-enable-confirm",
              json={"tfa_code": totp(secret, server_now(backend)), **UNKNOWN}))
    assert ok(c.get("/profile"))["two_factor_auth"] is True


def put_targets(world):
    """(path, the object as a GET shows it, keys a PUT may move) of every
    object with a PUT."""
    d = world.domain(tags=["aaa"], axfr_ips=["192.0.2.7"], description="d", group="g")
    db = world.database(allow_list=["192.0.2.0/24"])
    token, key = world.token(), world.sshkey()
    rec = world.record(d, type="TXT", name="t", target="v")
    return [
        ("/profile", ok(world.client.get("/profile")), ()),
        (f"/profile/tokens/{token['id']}", ok(world.client.get(f"/profile/tokens/{token['id']}")),
         ()),
        (f"/profile/sshkeys/{key['id']}", key, ()),
        # Read after the record was made: that change moved the domain's
        # `updated` when the clock ticked between the two.
        (f"/domains/{d['id']}", ok(world.client.get(f"/domains/{d['id']}")), ("updated",)),
        (f"/domains/{d['id']}/records/{rec['id']}", rec, ("updated",)),
        (f"{PG}/{db['id']}", db, DB_MOVES),
    ]


def test_unknown_keys_change_nothing_on_updates(world):
    for path, before, moves in put_targets(world):
        after = ok(world.client.put(path, json=UNKNOWN))
        assert without(after, *moves) == without(before, *moves), path
        assert without(ok(world.client.get(path)), *moves) == without(before, *moves), path
        if path.startswith(PG):
            world.active(PG, before)


# ---- read-only keys: equal accepted, different refused by name -------------

READ_ONLY = [
    # (object, field, a different value)
    ("profile", "uid", 0), ("profile", "username", "someone-else"),
    ("profile", "authentication_type", "github"),
    ("profile", "referrals", {"code": "x"}),
    ("profile", "verified_phone_number", "+15555550100"), ("profile", "user_type", "child"),
    ("token", "id", 0), ("token", "scopes", "domains:read_only"),
    ("token", "created", "2000-01-01T00:00:00"), ("token", "token", "abc"),
    ("token", "expiry", "2099-01-01T00:00:00"),
    ("sshkey", "id", 0), ("sshkey", "ssh_key", ED25519 + " other"),
    ("sshkey", "created", "2000-01-01T00:00:00"),
    ("domain", "id", 0), ("domain", "created", "2000-01-01T00:00:00"),
    ("domain", "updated", "2000-01-01T00:00:00"), ("domain", "errors", "SOA missing"),
    ("record", "id", 0), ("record", "created", "2000-01-01T00:00:00"),
    ("database", "id", 0), ("database", "engine", "mysql"),
    # cluster_size and version are settable today: a resize, an upgrade
    # (test_database_cluster_size_and_version_are_settable)
    ("database", "region", "eu-west"), ("database", "port", 1),
    ("database", "status", "provisioning"), ("database", "encrypted", True),
    ("database", "hosts", {"primary": "x", "secondary": None}),
    ("database", "created", "2000-01-01T00:00:00"),
    ("database", "replication_type", "asynch"), ("database", "ssl_connection", False),
]


@pytest.mark.parametrize("kind,field,other", READ_ONLY,
                         ids=[f"{k}-{f}" for k, f, _ in READ_ONLY])
def test_read_only_keys(world, kind, field, other):
    if kind == "profile":
        path = "/profile"
    elif kind == "token":
        path = f"/profile/tokens/{world.token()['id']}"
    elif kind == "sshkey":
        path = f"/profile/sshkeys/{world.sshkey()['id']}"
    elif kind == "domain":
        path = f"/domains/{world.domain()['id']}"
    elif kind == "record":
        d = world.domain()
        path = f"/domains/{d['id']}/records/{world.record(d, type='A', target='192.0.2.1')['id']}"
    else:
        path = f"{PG}/{world.database()['id']}"
    before = ok(world.client.get(path))
    label = "lbl" if kind != "profile" else None
    # equal to the stored value: accepted, with the settable change made
    body = {field: before[field]}
    change = {"timezone": "Asia/Tokyo"} if kind == "profile" else \
        {"description": "seen"} if kind == "domain" else \
        {"target": "192.0.2.2"} if kind == "record" else {"label": label + "-one"}
    r = world.client.put(path, json={**body, **change})
    after = ok(r)
    # (an accepted database PUT starts an update: its status moves; the
    # change made with it stamps `updated` anew, a later second when the
    # clock ticked between the GET and the PUT)
    if field == "updated":
        assert after[field] >= before[field], r
    else:
        assert after[field] == before[field] or (kind, field) == ("database", "status"), r
    assert all(after[k] == v for k, v in change.items()), r
    if kind == "database":
        world.active(PG, before)
    # different: refused, named, nothing changed
    now = ok(world.client.get(path))
    assert other != before[field]
    r = world.client.put(path, json={field: other, **change})
    assert_error(r, 400, f"{field} cannot be changed", field)
    assert ok(world.client.get(path)) == now


def test_database_cluster_size_and_version_are_settable(world):
    """Read-only keys until today's public API: the stored value
    is still accepted and changes nothing; another one is judged by its own
    rule, not refused as unchangeable -- an earlier version is a downgrade,
    refused so; another node count is a resize."""
    db = world.database()
    path = f"{PG}/{db['id']}"
    for field in ("cluster_size", "version"):
        after = ok(world.client.put(path, json={field: db[field], "label": "lbl-one"}))
        assert after[field] == db[field] and after["label"] == "lbl-one", after
        world.active(PG, db)
    r = world.client.put(path, json={"version": "13.2", "label": "lbl-two"})
    assert_error(r, 400, "A database cannot be downgraded: it runs postgresql 16.4", "version")
    after = ok(world.client.put(path, json={"cluster_size": 3, "label": "lbl-two"}))
    assert (after["cluster_size"], after["label"]) == (3, "lbl-two"), after


def test_record_type_is_judged_as_read_only(world):
    d = world.domain()
    rec = world.record(d, type="A", target="192.0.2.1")
    path = f"/domains/{d['id']}/records/{rec['id']}"
    assert ok(world.client.put(path, json={"type": "A", "target": "192.0.2.3"}))["target"] == \
        "192.0.2.3"
    assert fields_of(world.client.put(path, json={"type": "AAAA"})) == ["type"]


def test_database_type_equal_is_no_resize(world):
    db = world.database()
    path = f"{PG}/{db['id']}"
    after = ok(world.client.put(path, json={"type": db["type"], "label": "same-type"}))
    assert (after["type"], after["total_disk_size_gb"]) == (db["type"], db["total_disk_size_gb"])
    world.active(PG, db)
    # a different type is a resize, judged by its own rule: today's
    # platform takes a smaller type, not one /databases/types
    # does not sell at the node count
    assert fields_of(world.client.put(path, json={"type": "g6-nanode-1",
                                                  "cluster_size": 2})) == ["type"]
    after = ok(world.client.put(path, json={"type": "g6-nanode-1"}))
    assert (after["type"], after["total_disk_size_gb"]) == ("g6-nanode-1", 9), after


# ---- GET, then PUT of what was read: every object, unchanged ----------------

def test_get_then_put_changes_nothing(world):
    for path, before, moves in put_targets(world):
        after = ok(world.client.put(path, json=before))
        assert without(after, *moves) == without(before, *moves), path
        if path.startswith(PG):
            world.active(PG, before)
    for path in (MY,):
        db = world.database(path, cluster_size=3)
        after = ok(world.client.put(f"{path}/{db['id']}", json=db))
        assert without(after, *DB_MOVES) == without(db, *DB_MOVES)
    prefs = {"theme": "dark", "nested": {"a": [1, None]}, "n": None}
    assert ok(world.client.put("/profile/preferences", json=prefs)) == prefs
    got = ok(world.client.get("/profile/preferences"))
    assert ok(world.client.put("/profile/preferences", json=got)) == prefs


def test_get_then_put_every_record_type(world):
    d = world.domain()
    for body in record_bodies(d["domain"]):
        rec = world.record(d, **body)
        path = f"/domains/{d['id']}/records/{rec['id']}"
        after = ok(world.client.put(path, json=ok(world.client.get(path))))
        assert without(after, "updated") == without(rec, "updated"), body


def test_get_then_put_slave_domain(world):
    d = world.domain(type="slave", master_ips=["192.0.2.53", "2001:db8::53"],
                     soa_email=None)
    after = ok(world.client.put(f"/domains/{d['id']}", json=d))
    assert without(after, "updated") == without(d, "updated")


# ---- null: unchanged in a PUT, the default in a POST; "" and [] clear -------

def test_null_leaves_every_field(world):
    for path, before, moves in put_targets(world):
        after = ok(world.client.put(path, json={k: None for k in before}))
        assert without(after, *moves) == without(before, *moves), path
        assert without(ok(world.client.get(path)), *moves) == without(before, *moves), path
        if path.startswith(PG):
            world.active(PG, before)


def test_null_leaves_tags_and_addresses(world):
    """The Terraform provider (through linodego) sends null for a domain's
    lists it does not change; a database's allow_list likewise."""
    d = world.domain(type="slave", master_ips=["192.0.2.53"], axfr_ips=["192.0.2.7"],
                     tags=["keep-me"], soa_email=None)
    path = f"/domains/{d['id']}"
    after = ok(world.client.put(path, json={"domain": d["domain"], "master_ips": None,
                                            "axfr_ips": None, "tags": None}))
    assert (after["master_ips"], after["axfr_ips"], after["tags"]) == \
        (["192.0.2.53"], ["192.0.2.7"], ["keep-me"])
    db = world.database(allow_list=["192.0.2.0/24"])
    after = ok(world.client.put(f"{PG}/{db['id']}", json={"allow_list": None,
                                                           "label": "kept-list"}))
    assert after["allow_list"] == ["192.0.2.0/24"] and after["label"] == "kept-list"


def test_empty_clears(world):
    d = world.domain(tags=["aaa"], axfr_ips=["192.0.2.7"], description="d", group="g")
    after = ok(world.client.put(f"/domains/{d['id']}",
                                json={"description": "", "group": "", "tags": [],
                                      "axfr_ips": [], "master_ips": []}))
    assert (after["description"], after["group"], after["tags"], after["axfr_ips"],
            after["master_ips"]) == ("", "", [], [], [])
    db = world.database(allow_list=["192.0.2.0/24"])
    assert ok(world.client.put(f"{PG}/{db['id']}", json={"allow_list": []}))["allow_list"] == []
    key = world.sshkey(label="named")
    assert ok(world.client.put(f"/profile/sshkeys/{key['id']}", json={"label": ""}))["label"] == ""
    keys = ok(world.client.put("/profile", json={"authorized_keys": [ED25519]}))
    assert keys["authorized_keys"] == [ED25519]
    assert ok(world.client.put("/profile", json={"authorized_keys": []}))["authorized_keys"] == []


def test_null_in_a_post_is_the_default(world):
    d = world.domain(status=None, description=None, group=None, master_ips=None,
                     axfr_ips=None, tags=None, expire_sec=None, ttl_sec=None)
    assert (d["status"], d["description"], d["group"], d["master_ips"], d["axfr_ips"],
            d["tags"], d["expire_sec"], d["ttl_sec"]) == ("active", "", "", [], [], [], 0, 0)
    rec = world.record(d, type="A", name=None, target="192.0.2.1", priority=None, weight=None,
                       port=None, service=None, protocol=None, ttl_sec=None, tag=None)
    assert (rec["name"], rec["priority"], rec["service"], rec["ttl_sec"]) == ("", 0, None, 0)
    token = world.token(expiry=None, scopes=None)
    # a token that never expires shows the public API's "never"
    assert token["expiry"] == "2999-12-12T05:00:00" and token["scopes"] == "*"
    db = world.database(cluster_size=None, allow_list=None, ssl_connection=None,
                        encrypted=None, replication_type=None, replication_commit_type=None)
    assert (db["cluster_size"], db["allow_list"], db["ssl_connection"], db["encrypted"],
            db["replication_type"]) == (1, [], True, False, "none")
    assert fields_of(world.client.post("/profile/sshkeys", json={"ssh_key": None})) == \
        ["ssh_key"]


# ---- today's clients, request by request -------------------------------------

def test_linode_cli_before_5_55_copies_path_ids(world):
    """linode-cli < 5.55 puts the path's ids into the body of every request."""
    c = world.client
    d = world.domain()
    did = d["id"]
    assert ok(c.put(f"/domains/{did}", json={"domainId": did, "description": "cli"}))[
        "description"] == "cli"
    rec = ok(c.post(f"/domains/{did}/records",
                    json={"domainId": did, "type": "A", "name": "cli", "target": "192.0.2.5"}))
    assert ok(c.put(f"/domains/{did}/records/{rec['id']}",
                    json={"domainId": did, "recordId": rec["id"], "target": "192.0.2.6"}))[
        "target"] == "192.0.2.6"
    clone = f"cli-{secrets.token_hex(4)}.example"
    assert ok(c.post(f"/domains/{did}/clone", json={"domainId": did, "domain": clone}))[
        "domain"] == clone
    key = world.sshkey()
    assert ok(c.put(f"/profile/sshkeys/{key['id']}",
                    json={"sshKeyId": key["id"], "label": "cli"}))["label"] == "cli"
    token = world.token()
    assert ok(c.put(f"/profile/tokens/{token['id']}",
                    json={"tokenId": token["id"], "label": "cli"}))["label"] == "cli"
    db = world.database()
    assert ok(c.put(f"{PG}/{db['id']}", json={"instanceId": db["id"], "label": "cli-db"}))[
        "label"] == "cli-db"


def test_lexicon_record_bodies(world):
    """lexicon (certbot-dns-linode) creates with "name": null for the apex and
    updates with null for what it leaves."""
    c = world.client
    d = world.domain()
    path = f"/domains/{d['id']}/records"
    apex = ok(c.post(path, json={"name": None, "type": "TXT", "target": "apex", "ttl_sec": 0}))
    assert apex["name"] == ""
    rec = ok(c.post(path, json={"name": "_acme-challenge", "type": "TXT", "target": "one",
                                "ttl_sec": 0}))
    after = ok(c.put(f"{path}/{rec['id']}", json={"name": None, "type": "TXT",
                                                 "target": "two"}))
    assert (after["name"], after["target"]) == ("_acme-challenge", "two")
    after = ok(c.put(f"{path}/{rec['id']}", json={"name": "_acme-challenge", "type": None,
                                                 "target": None}))
    assert (after["type"], after["target"]) == ("TXT", "two")


def test_linodego_recorded_domain_bodies(world):
    """The bodies of linodego's recorded TestDomain_Update and
    TestDomainRecord_Create, byte for byte but the names."""
    c = world.client
    name = f"lgo-{secrets.token_hex(4)}.example"
    d = ok(c.post("/domains", data=json.dumps(
        {"domain": name, "type": "master", "soa_email": "example@example.com",
         "master_ips": None, "axfr_ips": None, "tags": None}, separators=(",", ":")),
        headers=JSON_CT))
    assert (d["master_ips"], d["axfr_ips"], d["tags"]) == ([], [], [])
    renamed = f"lgo-r-{secrets.token_hex(4)}.example"
    after = ok(c.put(f"/domains/{d['id']}", data=json.dumps(
        {"domain": renamed, "master_ips": None, "axfr_ips": None, "tags": None},
        separators=(",", ":")), headers=JSON_CT))
    assert after["domain"] == renamed and without(after, "domain", "updated") == \
        without(d, "domain", "updated")


def test_linode_api4_database_save(world):
    """linode_api4's db.save() PUTs back its mutable properties as read,
    private_network null included."""
    db = world.database(allow_list=["192.0.2.0/24"])
    updates = dict(db["updates"], day_of_week=2)
    body = {"label": db["label"], "allow_list": ["192.168.0.1/32"],
            "cluster_size": db["cluster_size"], "type": db["type"], "updates": updates,
            "private_network": None}
    after = ok(world.client.put(f"{PG}/{db['id']}", json=body))
    assert after["allow_list"] == ["192.168.0.1/32"] and after["updates"]["day_of_week"] == 2
    assert (after["type"], after["cluster_size"]) == (db["type"], db["cluster_size"])


@pytest.mark.parametrize("expiry", ["2099-01-02T03:04:05", "2099-01-02T03:04:05Z",
                                    "2099-01-02T03:04:05.250Z", "2099-01-02T05:04:05+02:00"])
def test_token_expiry_in_rfc3339_forms(world, expiry):
    """The public API's expiry is a date-time: "Z", an offset and a fraction
    are read as the same UTC second."""
    assert world.token(expiry=expiry)["expiry"] == "2099-01-02T03:04:05"
