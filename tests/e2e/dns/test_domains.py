"""/domains: DNS domains end to end, on both backends.

Each test works in an account of its own (made with acctapi-admin), so its
lists hold only its own domains whatever the rest of the session stored.
Names are unique across all accounts, so every name carries a random part.
Grants of restricted users have no API in this contract: the tests write
them straight into the database, as an operator would.
"""

import re
import secrets

import pytest

import harness
from accounts import account_fixtures

from checks import assert_envelope, assert_error, assert_headers, assert_json

SCOPE_REASON = "Your OAuth token is not authorized to use this endpoint."
TAKEN = "This domain is already hosted"
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
# errors: the public API's report of the zone's problems, "" for none
# (linodego's recorded TestDomain_Get).
KEYS = ["id", "domain", "type", "status", "errors", "description", "group", "soa_email",
        "master_ips", "axfr_ips", "tags", "expire_sec", "refresh_sec",
        "retry_sec", "ttl_sec", "created", "updated"]


def name(stem="d"):
    return f"{stem}-{secrets.token_hex(4)}.example"


def master(domain=None, **extra):
    body = {"domain": domain or name(), "type": "master",
            "soa_email": "hostmaster@example.net"}
    body.update(extra)
    return body


class Account(harness.Account):
    """A fresh account (harness.Account) with the helpers of these tests."""

    def __init__(self, backend, server):
        super().__init__(backend, server, stem="e2e-dns-")

    def create(self, client=None, **fields):
        r = (client or self.client).post("/domains", json=master(**fields))
        assert r.status == 200, r
        return assert_json(r)


acct, acct2 = account_fixtures(Account)


def grant(backend, uid, domain_id, level):
    backend.execute("INSERT INTO entity_grants (user_id, entity_type, entity_id,"
                       f" permissions) VALUES ({uid}, 'domain', {domain_id}, '{level}')")


def allow_add_domains(backend, uid):
    backend.execute("INSERT INTO user_global_grants (user_id, add_domains)"
                       f" VALUES ({uid}, 1)")


def fields_of(r):
    errs = assert_error(r, 400, None, None, only=False)
    return sorted(e.get("field", "") for e in errs)


def ids(client, **kw):
    return [d["id"] for d in client.all_pages("/domains", **kw)]


# --------------------------------------------------------------------------
# Create and view
# --------------------------------------------------------------------------

def test_create_and_view(acct):
    want = name("Shop").upper() + "."
    r = acct.client.post("/domains", json={
        "domain": want, "type": "master", "soa_email": "hm@example.net",
        "status": "disabled", "description": "the shop", "group": "web",
        "axfr_ips": ["2001:DB8::0:1", "192.0.2.4"], "tags": ["zz-top", "aaa", "zz-top"],
        "expire_sec": 1, "refresh_sec": 300, "retry_sec": 301, "ttl_sec": 10 ** 9})
    assert r.status == 200, r
    assert_headers(r, scopes="*", accepted="domains:read_write")
    pairs = r.json_pairs()
    assert [k for k, _ in pairs] == KEYS, r
    d = dict(pairs)
    assert isinstance(d["id"], int) and d["id"] > 0
    assert d["domain"] == want[:-1]                     # caller's case, no dot
    assert (d["type"], d["status"], d["errors"]) == ("master", "disabled", "")
    assert (d["description"], d["group"]) == ("the shop", "web")
    assert d["soa_email"] == "hm@example.net"
    assert d["master_ips"] == []
    assert d["axfr_ips"] == ["2001:db8::1", "192.0.2.4"]
    assert d["tags"] == ["aaa", "zz-top"]
    assert [d[k] for k in ("expire_sec", "refresh_sec", "retry_sec", "ttl_sec")] == \
        [30, 300, 3600, 2419200]
    assert TIMESTAMP.fullmatch(d["created"]) and d["created"] == d["updated"]

    v = acct.client.get(f"/domains/{d['id']}")
    assert v.status == 200, v
    assert_headers(v, scopes="*", accepted="domains:read_only")
    assert v.json_pairs() == pairs


def test_defaults_and_slave(acct):
    d = acct.create(domain=name())
    assert (d["status"], d["description"], d["group"]) == ("active", "", "")
    assert d["tags"] == [] and d["axfr_ips"] == [] and d["master_ips"] == []
    assert [d[k] for k in ("expire_sec", "refresh_sec", "retry_sec", "ttl_sec")] == [0] * 4
    r = acct.client.post("/domains", json={"domain": name(), "type": "slave",
                                           "master_ips": ["192.0.2.1", "::1"]})
    assert r.status == 200, r
    s = r.json
    # soa_email unset: "", a string as the public API types it (docs/conventions.md,
    # today's clients: the public API's response shapes).
    assert (s["type"], s["soa_email"], s["master_ips"]) == ("slave", "", ["192.0.2.1", "::1"])


REFUSALS = [
    ({}, ["domain", "type"]),
    ({"domain": "x.example"}, ["type"]),
    ({"type": "master", "soa_email": "a@b.example"}, ["domain"]),
    ({"domain": "x.example", "type": "master"}, ["soa_email"]),
    ({"domain": "x.example", "type": "master", "soa_email": "nope"}, ["soa_email"]),
    ({"domain": "x.example", "type": "slave"}, ["master_ips"]),
    ({"domain": "x.example", "type": "slave", "master_ips": []}, ["master_ips"]),
    ({"domain": "x.example", "type": "slave", "master_ips": ["192.0.2.1", "bad", 3]},
     ["master_ips[1]", "master_ips[2]"]),
    ({"domain": "x.example", "type": "slave", "master_ips": "192.0.2.1"}, ["master_ips"]),
    ({"domain": "com", "type": "master", "soa_email": "a@b.example"}, ["domain"]),
    ({"domain": "", "type": "master", "soa_email": "a@b.example"}, ["domain"]),
    ({"domain": "a b.example", "type": "master", "soa_email": "a@b.example"}, ["domain"]),
    ({"domain": "*.x.example", "type": "master", "soa_email": "a@b.example"}, ["domain"]),
    ({"domain": "-a.example", "type": "master", "soa_email": "a@b.example"}, ["domain"]),
    ({"domain": "a" * 64 + ".example", "type": "master", "soa_email": "a@b.example"},
     ["domain"]),
    ({"domain": ("a" * 63 + ".") * 4 + "b", "type": "master", "soa_email": "a@b.example"},
     ["domain"]),
    ({"domain": 7, "type": "primary", "soa_email": "a@b.example"}, ["domain", "type"]),
    (master("x.example", status="paused"), ["status"]),
    (master("x.example", description="d" * 254, group="g" * 51), ["description", "group"]),
    (master("x.example", axfr_ips=["192.0.2.1", "10.0.0.256"]), ["axfr_ips[1]"]),
    (master("x.example", axfr_ips=["2001:db8:1111:2222:3333:4444:5555:6666"] * 26),
     ["axfr_ips"]),
    # null is the default (docs/conventions.md, "Today's clients")
    (master("x.example", expire_sec=-1.0, refresh_sec="300", retry_sec=1.5, ttl_sec=None),
     ["expire_sec", "refresh_sec", "retry_sec"]),
    (master("x.example", tags=["ok-tag", "no", "t" * 51]), ["tags[1]", "tags[2]"]),
    (master("x.example", tags="abc"), ["tags"]),
    # what a create does not set is ignored (docs/conventions.md, "Today's clients"):
    # only the bad status is refused
    (master("x.example", id=1, created="2024-01-01T00:00:00", updated=None, serial=3,
            status="paused"),
     ["status"]),
    ({"domain": "bad", "type": "x", "status": "y", "expire_sec": 0.5, "colour": "red",
      "axfr_ips": ["z"]},
     ["axfr_ips[0]", "domain", "expire_sec", "status", "type"]),
]


@pytest.mark.parametrize("body,fields", REFUSALS, ids=[str(i) for i in range(len(REFUSALS))])
def test_create_refusals(acct, body, fields):
    r = acct.client.post("/domains", json=body)
    assert fields_of(r) == fields, r
    assert acct.client.get("/domains").json["results"] == 0


def test_limits_that_pass(acct):
    longest = "a" * 63 + "." + secrets.token_hex(31) + "c." + "a" * 63 + "." + "b" * 61
    d = acct.create(domain=longest + ".",
                    description="d" * 253, group="g" * 50, tags=["t" * 50, "abc"],
                    axfr_ips=["2001:db8:1111:2222:3333:4444:5555:6666"] * 25)
    assert d["domain"] == longest and len(longest) == 253
    assert d["tags"] == ["abc", "t" * 50]
    assert len(d["axfr_ips"]) == 25


def test_unique_across_accounts_case_insensitive(acct, acct2):
    n = name("Uniq")
    acct.create(domain=n)
    for client, variant in ((acct2.client, n.upper()), (acct2.client, n + "."),
                            (acct.client, n.lower())):
        r = client.post("/domains", json=master(variant))
        assert_error(r, 400, TAKEN, "domain")
    assert ids(acct2.client) == []


def test_concurrent_creates_of_one_name(acct, server):
    """50 creates of one name over separate connections: exactly one wins."""
    n = name("race")
    results = harness.race(server, acct.client.token,
                           [("POST", "/domains", master(n))] * 50)
    ok = [body for status, body in results if status == 200]
    refused = [body for status, body in results if status == 400]
    assert len(ok) == 1 and len(refused) == 49, results
    assert all(b == {"errors": [{"reason": TAKEN, "field": "domain"}]} for b in refused)
    assert ids(acct.client) == [ok[0]["id"]]


def test_concurrent_renames_and_creates_of_one_name(acct, server):
    """Renames cannot use ON CONFLICT; racing creates of the same name they
    still lose cleanly (a 400, never a 500 from the unique index)."""
    n = name("rename-race")
    own = [acct.create(domain=name("before"))["id"] for _ in range(10)]
    calls = ([("PUT", f"/domains/{i}", {"domain": n}) for i in own]
             + [("POST", "/domains", master(n))] * 10)
    results = harness.race(server, acct.client.token, calls)
    assert sorted(status for status, _ in results) == [200] + [400] * 19, results
    refused = [body for status, body in results if status == 400]
    assert all(b == {"errors": [{"reason": TAKEN, "field": "domain"}]} for b in refused)
    assert [d["domain"] for d in acct.client.all_pages("/domains")].count(n) == 1


# --------------------------------------------------------------------------
# Update, delete
# --------------------------------------------------------------------------

def test_update(acct, acct2, clock):
    d = acct.create(domain=name("up"), tags=["one", "two"], description="x", group="g")
    path = f"/domains/{d['id']}"
    clock("advance", "1h")
    r = acct.client.put(path, json={"type": "slave", "master_ips": ["192.0.2.9"],
                                    "domain": d["domain"].upper(), "tags": ["three"],
                                    "description": "", "retry_sec": 100})
    assert r.status == 200, r
    assert_headers(r, scopes="*", accepted="domains:read_write")
    u = r.json
    assert [k for k, _ in r.json_pairs()] == KEYS
    assert (u["id"], u["domain"], u["type"]) == (d["id"], d["domain"].upper(), "slave")
    assert (u["description"], u["group"], u["tags"]) == ("", "g", ["three"])
    assert u["soa_email"] == d["soa_email"] and u["retry_sec"] == 120
    assert u["created"] == d["created"] and u["updated"] > d["updated"]
    assert acct.client.get(path).json == u

    # the rules judge the resulting domain; a refusal stores nothing
    assert fields_of(acct.client.put(path, json={"master_ips": []})) == ["master_ips"]
    assert fields_of(acct.client.put(path, json={"type": "master", "soa_email": ""})) == \
        ["soa_email"]
    # read-only keys: a different value is refused, the stored one ignored
    assert fields_of(acct.client.put(path, json={"id": 0, "updated": u["updated"],
                                                 "ttl_sec": 0.5})) == ["id", "ttl_sec"]
    assert fields_of(acct.client.put(path, json={"id": d["id"], "updated": "2000-01-01T00:00:00",
                                                 "created": d["created"]})) == ["updated"]
    other = acct2.create(domain=name("taken"))
    assert_error(acct.client.put(path, json={"domain": other["domain"].upper()}), 400, TAKEN,
                 "domain")
    assert acct.client.get(path).json == u
    # switching back to master with an address; null leaves the group
    # (docs/conventions.md, "Today's clients"), "" clears it
    r = acct.client.put(path, json={"type": "master", "soa_email": "a@b.example",
                                    "group": None, "tags": []})
    assert r.status == 200, r
    assert (r.json["type"], r.json["group"], r.json["tags"]) == ("master", "g", [])
    r = acct.client.put(path, json={"group": ""})
    assert r.status == 200 and r.json["group"] == "", r


def test_delete(acct, backend):
    d = acct.create(domain=name("gone"), tags=["keep-this-tag"])
    uid, _ = acct.user(restricted=True)
    grant(backend, uid, d["id"], "read_write")
    r = acct.client.delete(f"/domains/{d['id']}")
    assert r.status == 200, r
    assert_headers(r, scopes="*", accepted="domains:read_write")
    assert r.json == {}
    assert_error(acct.client.get(f"/domains/{d['id']}"), 404, "Not found")
    assert_error(acct.client.delete(f"/domains/{d['id']}"), 404, "Not found")
    # Ids are per table: other entities' rows (a database's grant) may
    # carry the same number.
    for table, where in (("domain_records", f"domain_id = {d['id']}"),
                         ("tag_links", f"entity_type = 'domain' AND entity_id = {d['id']}"),
                         ("entity_grants", f"entity_type = 'domain' AND entity_id = {d['id']}")):
        assert backend.query(f"SELECT count(*) FROM {table} WHERE {where}") == [["0"]], table
    # the tag stays in the account; the name is free again
    assert backend.query("SELECT count(*) FROM tags WHERE account_id = "
                         f"{acct.id} AND label = 'keep-this-tag'") == [["1"]]
    acct.create(domain=d["domain"].upper())


@pytest.mark.parametrize("bad", ["0", "-1", "abc", "99999999999"])
def test_ids_that_name_nothing(acct, bad):
    for method in ("get", "delete"):
        assert_error(getattr(acct.client, method)(f"/domains/{bad}"), 404, "Not found")
    assert_error(acct.client.put(f"/domains/{bad}", json={}), 404, "Not found")
    assert_error(acct.client.post(f"/domains/{bad}/clone", json={"domain": name()}), 404,
                 "Not found")


def test_other_accounts_domain_is_not_found(acct, acct2):
    d = acct.create(domain=name("mine"))
    path = f"/domains/{d['id']}"
    assert_error(acct2.client.get(path), 404, "Not found")
    assert_error(acct2.client.put(path, json={"group": "x"}), 404, "Not found")
    assert_error(acct2.client.delete(path), 404, "Not found")
    assert_error(acct2.client.post(path + "/clone", json={"domain": name()}), 404,
                 "Not found")
    assert acct.client.get(path).json == d


def test_scopes(acct):
    d = acct.create(domain=name("scoped"))
    _, ro = acct.user(scopes="domains:read_only")
    assert ro.get(f"/domains/{d['id']}").status == 200
    assert ro.get("/domains").status == 200
    assert_error(ro.post("/domains", json=master()), 401, SCOPE_REASON)
    assert_error(ro.put(f"/domains/{d['id']}", json={}), 401, SCOPE_REASON)
    assert_error(ro.delete(f"/domains/{d['id']}"), 401, SCOPE_REASON)
    _, none = acct.user(scopes="account:read_write")
    assert_error(none.get("/domains"), 401, SCOPE_REASON)


# --------------------------------------------------------------------------
# Lists
# --------------------------------------------------------------------------

def test_list_filters(acct, acct2):
    made = []
    for i, (typ, group, tags, status) in enumerate([
            ("master", "low", [], "active"),
            ("slave", "low", ["red"], "active"),
            ("master", "high", [], "disabled"),
            ("slave", "high", ["red", "blue"], "active")]):
        body = {"domain": name(f"f{i}"), "type": typ, "group": group, "tags": tags,
                "status": status, "soa_email": "a@b.example", "master_ips": ["192.0.2.1"]}
        r = acct.client.post("/domains", json=body)
        assert r.status == 200, r
        made.append(r.json)
    acct2.create(domain=name("elsewhere"), tags=["red"])
    all_ids = [d["id"] for d in made]

    r = acct.client.get("/domains")
    assert r.status == 200, r
    assert_headers(r, scopes="*", accepted="domains:read_only")
    doc = assert_json(r)
    assert assert_envelope(doc) == made
    assert (doc["page"], doc["pages"], doc["results"]) == (1, 1, 4)

    def filtered(f):
        r = acct.client.get("/domains", xfilter=f)
        assert r.status == 200, r
        return [d["id"] for d in r.json["data"]]

    assert filtered({"tags": "red"}) == [all_ids[1], all_ids[3]]
    assert filtered({"tags": "blue"}) == [all_ids[3]]
    assert filtered({"tags": "nope"}) == []
    assert filtered({"tags": {"+neq": "red"}}) == [all_ids[0], all_ids[2]]
    assert filtered({"group": "low"}) == all_ids[:2]
    assert filtered({"type": "slave"}) == [all_ids[1], all_ids[3]]
    assert filtered({"status": "disabled"}) == [all_ids[2]]
    assert filtered({"domain": made[2]["domain"]}) == [all_ids[2]]
    assert filtered({"domain": {"+contains": "f3-"}}) == [all_ids[3]]
    assert filtered({"+or": [{"group": "high"}, {"tags": "red"}]}) == all_ids[1:]
    assert filtered({"+and": [{"type": "slave"}, {"tags": "red"}, {"group": "high"}]}) == \
        [all_ids[3]]
    assert filtered({"+order_by": "domain", "+order": "desc"}) == \
        [d["id"] for d in sorted(made, key=lambda d: d["domain"], reverse=True)]
    assert_error(acct.client.get("/domains", xfilter={"serial": 1}), 400,
                 "Cannot filter on serial", "X-Filter")
    assert_error(acct.client.get("/domains", xfilter={"tags": 5}), 400,
                 "Could not apply filter", "X-Filter")


def test_pagination(acct):
    made = [acct.create(domain=name(f"p{i}"))["id"] for i in range(27)]
    r = acct.client.get("/domains", params={"page_size": 25})
    doc = r.json
    assert (doc["page"], doc["pages"], doc["results"]) == (1, 2, 27)
    assert [d["id"] for d in doc["data"]] == made[:25]
    doc = acct.client.get("/domains", params={"page_size": 25, "page": 2}).json
    assert [d["id"] for d in doc["data"]] == made[25:]
    doc = acct.client.get("/domains", params={"page_size": 25, "page": 9}).json
    assert (doc["data"], doc["page"], doc["pages"], doc["results"]) == ([], 9, 2, 27)
    assert_error(acct.client.get("/domains", params={"page_size": 24}), 400, None, "page_size")
    assert_error(acct.client.get("/domains", params={"page": 0}), 400, None, "page")


# --------------------------------------------------------------------------
# Restricted users
# --------------------------------------------------------------------------

def test_restricted_users(acct, backend):
    d1, d2, d3 = (acct.create(domain=name(f"r{i}")) for i in range(3))
    uid, ro = acct.user(restricted=True)
    grant(backend, uid, d1["id"], "read_only")
    grant(backend, uid, d2["id"], "read_write")

    assert ids(ro) == [d1["id"], d2["id"]]
    assert ro.get(f"/domains/{d1['id']}").json == d1
    assert_error(ro.get(f"/domains/{d3['id']}"), 403, "Unauthorized")
    assert_error(ro.put(f"/domains/{d1['id']}", json={"group": "x"}), 403, "Unauthorized")
    assert_error(ro.delete(f"/domains/{d1['id']}"), 403, "Unauthorized")
    r = ro.put(f"/domains/{d2['id']}", json={"group": "mine"})
    assert r.status == 200 and r.json["group"] == "mine", r
    # creating and cloning need add_domains
    assert_error(ro.post("/domains", json=master()), 403, "Unauthorized")
    assert_error(ro.post(f"/domains/{d1['id']}/clone", json={"domain": name()}), 403,
                 "Unauthorized")

    uid2, maker = acct.user(restricted=True)
    allow_add_domains(backend, uid2)
    mine = acct.create(client=maker, domain=name("made"))
    assert ids(maker) == [mine["id"]]
    assert maker.put(f"/domains/{mine['id']}", json={"group": "g"}).status == 200
    # clone: read_only on the source is enough
    assert_error(maker.post(f"/domains/{d1['id']}/clone", json={"domain": name()}), 403,
                 "Unauthorized")
    grant(backend, uid2, d1["id"], "read_only")
    r = maker.post(f"/domains/{d1['id']}/clone", json={"domain": name("rc")})
    assert r.status == 200, r
    assert ids(maker) == [d1["id"], mine["id"], r.json["id"]]
    assert maker.delete(f"/domains/{r.json['id']}").status == 200
    assert maker.delete(f"/domains/{mine['id']}").status == 200
    assert ids(maker) == [d1["id"]]
    # the owner saw all of it
    assert ids(acct.client) == [d1["id"], d2["id"], d3["id"]]


# --------------------------------------------------------------------------
# Clone
# --------------------------------------------------------------------------

SAME = [k for k in KEYS if k not in ("id", "domain", "created", "updated")]


def test_clone_settings_and_tags(acct, clock):
    src = acct.create(domain=name("orig"), status="disabled", description="desc",
                      group="grp", axfr_ips=["192.0.2.3"], tags=["tag-b", "tag-a"],
                      expire_sec=300, refresh_sec=7200, retry_sec=120, ttl_sec=30)
    clock("advance", "1h")
    want = name("Copy").upper() + "."
    r = acct.client.post(f"/domains/{src['id']}/clone", json={"domain": want})
    assert r.status == 200, r
    assert_headers(r, scopes="*", accepted="domains:read_write")
    c = r.json
    assert [k for k, _ in r.json_pairs()] == KEYS
    assert c["id"] != src["id"] and c["domain"] == want[:-1]
    assert {k: c[k] for k in SAME} == {k: src[k] for k in SAME}
    assert c["created"] == c["updated"] and c["created"] > src["created"]
    assert acct.client.get(f"/domains/{c['id']}").json == c
    assert acct.client.get(f"/domains/{src['id']}").json == src

    # the name follows the create rules
    assert_error(acct.client.post(f"/domains/{src['id']}/clone",
                                  json={"domain": want.lower()}), 400, TAKEN, "domain")
    assert_error(acct.client.post(f"/domains/{src['id']}/clone", json={}), 400,
                 "domain is required", "domain")
    # a clone sets the name only: the other keys are ignored
    assert fields_of(acct.client.post(f"/domains/{src['id']}/clone",
                                      json={"domain": "x", "type": "slave"})) == \
        ["domain"]


RECORDS = [
    {"type": "A", "name": "www", "target": "192.0.2.1", "ttl_sec": 300},
    {"type": "AAAA", "name": "www", "target": "2001:db8::1"},
    {"type": "MX", "name": "", "target": "mail.example.net", "priority": 10},
    {"type": "TXT", "name": "", "target": "v=spf1 -all"},
    {"type": "SRV", "service": "sip", "protocol": "tcp", "target": "sip.example.net",
     "priority": 5, "weight": 6, "port": 5060},
    {"type": "CAA", "name": "", "tag": "issue", "target": "ca.example.net"},
]


def test_clone_copies_records(acct):
    src = acct.create(domain=name("withrecs"))
    path = f"/domains/{src['id']}/records"
    for rec in RECORDS:
        r = acct.client.post(path, json=rec)
        assert r.status == 200, r
    originals = acct.client.all_pages(path)
    assert len(originals) == len(RECORDS)

    r = acct.client.post(f"/domains/{src['id']}/clone", json={"domain": name("recs-copy")})
    assert r.status == 200, r
    copies = acct.client.all_pages(f"/domains/{r.json['id']}/records")

    def strip(recs):
        return [{k: v for k, v in rec.items() if k not in ("id", "created", "updated")}
                for rec in recs]
    assert strip(copies) == strip(originals)
    assert not {c["id"] for c in copies} & {o["id"] for o in originals}
    # the copies are the clone's own: deleting the source leaves them
    assert acct.client.delete(f"/domains/{src['id']}").status == 200
    assert len(acct.client.all_pages(f"/domains/{r.json['id']}/records")) == len(RECORDS)
