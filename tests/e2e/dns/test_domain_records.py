"""/domains/{domainId}/records: DNS records end to end, on both backends.

Each test works in an account of its own (made with acctapi-admin) and on
domains of its own (POST /domains, names with a random part), so nothing
else the session stored shows up in its lists.  The 12,000-record limit is
reached by writing 11,999 rows straight into the database, as an operator
with a bulk import would, then crossing it through the API.
"""

import re
import secrets

import pytest

import harness
from accounts import account_fixtures

from checks import assert_envelope, assert_error, assert_headers, assert_json
from holding import start_holding

SCOPE_REASON = "Your OAuth token is not authorized to use this endpoint."
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
KEYS = ["id", "type", "name", "target", "priority", "weight", "port", "service",
        "protocol", "ttl_sec", "tag", "created", "updated"]
LIMIT = 12000
R_LIMIT = ("This domain already has 12000 records, the most a domain can hold: "
           "delete some before adding more")
R_SLAVE = ("Records of a slave domain cannot be added or changed: a slave domain "
           "copies its records from its master")
R_CNAME_ALONE = ("Other records already have this name: a CNAME record must be the "
                 "only record at its name")
R_CNAME_TAKEN = "A CNAME record already has this name: no other record can share it"
R_NULL_MX_FIRST = ("A Null MX record cannot be added while the domain has other MX "
                   "records: remove them first")
R_NULL_MX_EXISTS = ("The domain has a Null MX record: no other MX record can be "
                    "added while it exists")
R_TYPE_FIXED = "type cannot be changed: delete the record and create one of the new type"


def new_name(stem="rec"):
    return f"{stem}-{secrets.token_hex(4)}.example"


class Account(harness.Account):
    """A fresh account (harness.Account) with the helpers of these tests."""

    def __init__(self, backend, server):
        super().__init__(backend, server, stem="e2e-rec-")

    def domain(self, type="master", **extra):
        body = {"domain": new_name(), "type": type}
        if type == "master":
            body["soa_email"] = "hostmaster@example.net"
        else:
            body["master_ips"] = ["192.0.2.53"]
        body.update(extra)
        r = self.client.post("/domains", json=body)
        assert r.status == 200, r
        return assert_json(r)

    def add(self, domain_id, **fields):
        r = self.client.post(f"/domains/{domain_id}/records", json=fields)
        assert r.status == 200, r
        return assert_json(r)

    def records(self, domain_id, **kw):
        return self.client.all_pages(f"/domains/{domain_id}/records", **kw)


acct, acct2 = account_fixtures(Account)


def bulk_records(backend, domain_id, count):
    """`count` TXT records in one statement, and the domain's count to match."""
    if backend.kind == "sqlite":
        numbers = (f"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
                   f" WHERE i < {count}) SELECT i FROM n")
    else:
        numbers = f"SELECT i FROM generate_series(1, {count}) AS g(i)"
    backend.execute(
              "INSERT INTO domain_records (domain_id, type, name, target, created,"
              f" updated) SELECT {domain_id}, 'TXT', 'bulk' || i, 'bulk', 0, 0"
              f" FROM ({numbers}) AS numbers;"
              f" UPDATE domains SET record_count = record_count + {count}"
              f" WHERE id = {domain_id}")


@pytest.fixture
def big_domain(acct):
    """A domain that will hold thousands of records, deleted (records and
    all) after the test: the session's database stays small for the tests
    that dump it whole."""
    made = []

    def make():
        made.append(acct.domain())
        return made[-1]
    yield make
    for d in made:
        r = acct.client.delete(f"/domains/{d['id']}")
        assert r.status == 200, r


def domain_row(backend, domain_id):
    serial, count = backend.query(
        f"SELECT serial, record_count FROM domains WHERE id = {domain_id}")[0]
    return int(serial), int(count)


def record_ids(client, domain_id, **kw):
    return [r["id"] for r in client.all_pages(f"/domains/{domain_id}/records", **kw)]


def without_times(record):
    return {k: v for k, v in record.items() if k not in ("id", "created", "updated")}


def rec(type, name, target, priority=0, weight=0, port=0, service=None, protocol=None,
        ttl_sec=0, tag=None):
    return {"type": type, "name": name, "target": target, "priority": priority,
            "weight": weight, "port": port, "service": service, "protocol": protocol,
            "ttl_sec": ttl_sec, "tag": tag}


def errors_of(r):
    """[(field, reason)] of a 400."""
    errs = assert_error(r, 400, None, None, only=False)
    return [(e.get("field"), e["reason"]) for e in errs]


# --------------------------------------------------------------------------
# Create and read back
# --------------------------------------------------------------------------

def every_type(d):
    """(request body, the record as stored) for each of the nine types."""
    return [
        ({"type": "A", "name": f"www.{d}", "target": "[remote_addr]", "ttl_sec": 301},
         rec("A", "www", "127.0.0.1", ttl_sec=3600)),
        ({"type": "AAAA", "name": "v6", "target": "2001:DB8:0::1"},
         rec("AAAA", "v6", "2001:db8::1")),
        ({"type": "NS", "name": "sub", "target": "ns1.example.net."},
         rec("NS", "sub", "ns1.example.net")),
        ({"type": "MX", "name": "", "target": f"mail.{d}.", "priority": 10},
         rec("MX", "", f"mail.{d}", priority=10)),
        ({"type": "CNAME", "name": f"docs.{d.upper()}.", "target": "example.net."},
         rec("CNAME", "docs", "example.net")),
        ({"type": "TXT", "name": "_dmarc", "target": "v=DMARC1; p=none"},
         rec("TXT", "_dmarc", "v=DMARC1; p=none")),
        ({"type": "SRV", "service": "_sip", "protocol": "tcp", "target": "sipserver",
          "priority": 5, "weight": 10, "port": 5060, "name": "ignored"},
         rec("SRV", "_sip._tcp", f"sipserver.{d}", 5, 10, 5060, "sip", "tcp")),
        ({"type": "PTR", "name": "10", "target": "host.example.com."},
         rec("PTR", "10", "host.example.com")),
        ({"type": "CAA", "name": "", "tag": "issue",
          "target": "letsencrypt.org; validationmethods=dns-01"},
         rec("CAA", "", "letsencrypt.org; validationmethods=dns-01", tag="issue")),
    ]


def test_every_type_reads_back(acct):
    d = acct.domain()
    made = []
    for body, stored in every_type(d["domain"]):
        r = acct.client.post(f"/domains/{d['id']}/records", json=body)
        assert r.status == 200, r
        assert_headers(r, scopes="*", accepted="domains:read_write")
        assert [k for k, _ in r.json_pairs()] == KEYS, r
        doc = assert_json(r)
        assert without_times(doc) == stored, (body, doc)
        assert isinstance(doc["id"], int) and not isinstance(doc["id"], bool)
        assert TIMESTAMP.fullmatch(doc["created"]) and doc["updated"] == doc["created"]
        made.append(doc)

        one = acct.client.get(f"/domains/{d['id']}/records/{doc['id']}")
        assert one.status == 200, one
        assert_headers(one, accepted="domains:read_only")
        assert one.json == doc

    r = acct.client.get(f"/domains/{d['id']}/records")
    assert r.status == 200, r
    assert_headers(r, accepted="domains:read_only")
    listed = assert_envelope(assert_json(r))
    assert listed == made
    assert (r.json["page"], r.json["pages"], r.json["results"]) == (1, 1, 9)


def test_null_mx_and_remote_addr(acct):
    d = acct.domain()
    null_mx = acct.add(d["id"], type="MX", name="", target="", priority=0)
    assert without_times(null_mx) == rec("MX", "", "")
    # [remote_addr] is the caller's IPv4 address; an AAAA needs an IPv6 one
    r = acct.client.post(f"/domains/{d['id']}/records",
                         json={"type": "AAAA", "target": "[remote_addr]"})
    assert errors_of(r) == [("target", "[remote_addr] stands for the address of your "
                                       "request, and an AAAA record needs an IPv6 one")]


# --------------------------------------------------------------------------
# Refusals: every rule, each naming its field
# --------------------------------------------------------------------------

REFUSALS = [
    ({}, [("type", "type is required")]),
    ({"type": "SOA", "target": "x"},
     [("type", "type must be one of: A, AAAA, NS, MX, CNAME, TXT, SRV, PTR, CAA")]),
    # a key that is not a record field is ignored (docs/conventions.md, "Today's
    # clients"): only the target is refused
    ({"type": "A", "target": "2001:db8::1", "colour": "red", "domainId": 1},
     [("target", "target must be an IPv4 address, such as 192.0.2.10, or [remote_addr]")]),
    ({"type": "A", "name": "@", "target": "192.0.2.1"},
     [("name", "@ is not a valid name: use an empty string for the domain itself")]),
    ({"type": "A", "name": "x" * 101, "target": "192.0.2.1"},
     [("name", "Length must be 0-100 characters")]),
    ({"type": "A", "name": "www.elsewhere.example.", "target": "192.0.2.1"},
     [("name", None)]),
    ({"type": "A", "name": "-x", "target": "192.0.2.1"},
     [("name", "name must be a host name: labels of letters, digits, hyphens and "
               "underscores; the left-most label may be *")]),
    ({"type": "A", "target": "2001:db8::1"},
     [("target", "target must be an IPv4 address, such as 192.0.2.10, or [remote_addr]")]),
    ({"type": "A", "target": "192.0.2.1."},
     [("target", "target must be an IPv4 address, such as 192.0.2.10, or [remote_addr]")]),
    ({"type": "AAAA", "target": "192.0.2.1"},
     [("target", "target must be an IPv6 address, such as 2001:db8::10")]),
    ({"type": "A", "name": "x"},
     [("target", "target is required")]),
    ({"type": "A", "target": "192.0.2.1", "port": 80},
     [("port", "port is only valid for SRV records")]),
    ({"type": "A", "target": "192.0.2.1", "priority": 300},
     [("priority", "priority must be an integer from 0 to 255")]),
    ({"type": "A", "target": "192.0.2.1", "ttl_sec": 300.5},
     [("ttl_sec", "ttl_sec must be a whole number of seconds")]),
    ({"type": "TXT", "target": "x", "tag": "issue"},
     [("tag", "tag is only valid for CAA records")]),
    ({"type": "NS", "name": "*", "target": "ns1.example.net"},
     [("name", "name must be a host name: labels of letters, digits, hyphens and "
               "underscores (wildcard names are not supported for NS records)")]),
    ({"type": "NS", "name": "sub", "target": "ns1"},
     [("target", "target must be a name server's fully qualified host name, such as "
                 "ns1.example.net")]),
    ({"type": "MX", "name": "1mail", "target": "mail.example.net"},
     [("name", "name must be a mail subdomain: labels of letters, digits and hyphens "
               "that start with a letter and end with a letter or digit; the left-most "
               "label may be *")]),
    ({"type": "MX", "target": ("m" * 62 + ".") * 4 + "nn"},
     [("target", "target must be fewer than 254 characters")]),
    ({"type": "MX", "name": "lists", "target": ""},
     [("target", "target is required: only a Null MX record, at the domain itself "
                 "(name \"\"), has an empty target")]),
    ({"type": "MX", "target": "", "priority": 5},
     [("priority", "priority must be 0 for a Null MX record")]),
    ({"type": "MX", "target": "mail.example.net", "weight": 1},
     [("weight", "weight is only valid for SRV records")]),
    ({"type": "CNAME", "target": "example.net"},
     [("name", "name is required for CNAME records: a CNAME cannot be at the domain "
               "itself")]),
    ({"type": "CNAME", "name": "www", "target": "web"},
     [("target", "target must be a fully qualified domain name, such as "
                 "www.example.net")]),
    ({"type": "TXT", "target": ""}, [("target", "target is required")]),
    ({"type": "TXT", "target": "line\nbreak"},
     [("target", "target must be printable text: control characters are not "
                 "allowed")]),
    ({"type": "SRV"},
     [("service", "service is required for SRV records"),
      ("priority", "priority is required for SRV records"),
      ("weight", "weight is required for SRV records"),
      ("port", "port is required for SRV records"),
      ("target", "target is required")]),
    ({"type": "SRV", "service": "s.ip", "protocol": "tcp", "priority": 1, "weight": 1,
      "port": 70000, "target": "sip"},
     [("port", "port must be an integer from 0 to 65535"),
      ("service", "service must be one label of letters, digits, hyphens and "
                  "underscores, with or without a leading underscore (such as sip "
                  "or _sip)")]),
    ({"type": "PTR", "name": "10", "target": "host"},
     [("target", "target must be a fully qualified host name, such as "
                 "host.example.net")]),
    ({"type": "CAA", "target": "letsencrypt.org"},
     [("tag", "tag is required for CAA records")]),
    ({"type": "CAA", "tag": "issuer", "target": "letsencrypt.org"},
     [("tag", "tag must be one of: issue, issuewild, iodef")]),
    ({"type": "CAA", "tag": "issue", "target": "letsencrypt.org; =x"},
     [("target", "target must be a certificate authority's domain, such as "
                 "letsencrypt.org, optionally followed by ';' and key=value "
                 "parameters")]),
    ({"type": "CAA", "tag": "issuewild", "target": "*.letsencrypt.org"},
     [("target", "target of an issuewild record must be a domain that does not "
                 "start with *")]),
    ({"type": "CAA", "tag": "iodef", "target": "ftp://example.com/"},
     [("target", "target of an iodef record must be a domain, an http:// or https:// "
                 "URL, or a mailto: e-mail address")]),
    # every problem at once
    ({"type": "A", "name": "@", "target": "::1", "port": 80, "tag": "issue",
      "ttl_sec": 0.5},
     [("ttl_sec", "ttl_sec must be a whole number of seconds"),
      ("port", "port is only valid for SRV records"),
      ("tag", "tag is only valid for CAA records"),
      ("name", "@ is not a valid name: use an empty string for the domain itself"),
      ("target", "target must be an IPv4 address, such as 192.0.2.10, or "
                 "[remote_addr]")]),
]


def test_refusals(acct, backend):
    d = acct.domain()
    before = domain_row(backend, d["id"])
    for body, want in REFUSALS:
        r = acct.client.post(f"/domains/{d['id']}/records", json=body)
        assert_headers(r, accepted="domains:read_write")
        got = errors_of(r)
        assert [f for f, _ in got] == [f for f, _ in want], (body, got)
        for (_, reason), (_, expected) in zip(got, want):
            assert expected is None or reason == expected, (body, got)
    # nothing of it was stored, and neither the serial nor the count moved
    assert acct.records(d["id"]) == []
    assert domain_row(backend, d["id"]) == before


def test_cname_stands_alone(acct):
    d = acct.domain()
    did = d["id"]
    a = acct.add(did, type="A", name="www", target="192.0.2.1")
    r = acct.client.post(f"/domains/{did}/records",
                         json={"type": "CNAME", "name": "WWW", "target": "example.net"})
    assert errors_of(r) == [("name", R_CNAME_ALONE)]
    cname = acct.add(did, type="CNAME", name="docs", target="example.net")
    for body in ({"type": "TXT", "name": f"docs.{d['domain']}.", "target": "x"},
                 {"type": "CNAME", "name": "Docs", "target": "example.org"},
                 {"type": "MX", "name": "docs", "target": "mail.example.net"}):
        r = acct.client.post(f"/domains/{did}/records", json=body)
        assert errors_of(r) == [("name", R_CNAME_TAKEN if body["type"] != "CNAME"
                                 else R_CNAME_ALONE)], body
    # renames are checked alike; a record never conflicts with itself
    r = acct.client.put(f"/domains/{did}/records/{a['id']}", json={"name": "docs"})
    assert errors_of(r) == [("name", R_CNAME_TAKEN)]
    r = acct.client.put(f"/domains/{did}/records/{cname['id']}", json={"name": "www"})
    assert errors_of(r) == [("name", R_CNAME_ALONE)]
    r = acct.client.put(f"/domains/{did}/records/{cname['id']}",
                        json={"name": "docs", "target": "example.org"})
    assert r.status == 200, r
    # the same name in another domain is no conflict
    other = acct.domain()
    acct.add(other["id"], type="A", name="docs", target="192.0.2.1")
    assert record_ids(acct.client, did) == [a["id"], cname["id"]]


def test_null_mx_excludes_other_mx(acct):
    d = acct.domain()
    did = d["id"]
    mx = acct.add(did, type="MX", target="mail.example.net", priority=10)
    r = acct.client.post(f"/domains/{did}/records",
                         json={"type": "MX", "name": "", "target": "", "priority": 0})
    assert errors_of(r) == [("target", R_NULL_MX_FIRST)]
    assert acct.client.delete(f"/domains/{did}/records/{mx['id']}").status == 200
    null_mx = acct.add(did, type="MX", name="", target="", priority=0)
    for body in ({"type": "MX", "target": "mail.example.net"},
                 {"type": "MX", "name": "lists", "target": "mx.example.net", "priority": 5}):
        r = acct.client.post(f"/domains/{did}/records", json=body)
        assert errors_of(r) == [("target", R_NULL_MX_EXISTS)], body
    # the Null MX itself may turn into an ordinary MX, and back once alone
    r = acct.client.put(f"/domains/{did}/records/{null_mx['id']}",
                        json={"target": "mx.example.net", "priority": 5})
    assert r.status == 200, r
    second = acct.add(did, type="MX", name="lists", target="mx.example.net")
    r = acct.client.put(f"/domains/{did}/records/{null_mx['id']}",
                        json={"target": "", "priority": 0})
    assert errors_of(r) == [("target", R_NULL_MX_FIRST)]
    assert acct.client.delete(f"/domains/{did}/records/{second['id']}").status == 200
    r = acct.client.put(f"/domains/{did}/records/{null_mx['id']}",
                        json={"target": "", "priority": 0})
    assert r.status == 200 and without_times(r.json) == rec("MX", "", ""), r


def test_slave_domain(acct, backend):
    slave = acct.domain(type="slave")
    r = acct.client.post(f"/domains/{slave['id']}/records",
                         json={"type": "A", "name": "x", "target": "192.0.2.1"})
    assert_error(r, 400, R_SLAVE)
    # a record left from the domain's master days: readable, not changeable,
    # deletable
    backend.execute("INSERT INTO domain_records (domain_id, type, name, target,"
                       f" created, updated) VALUES ({slave['id']}, 'A', 'old',"
                       " '192.0.2.1', 0, 0)")
    old = acct.records(slave["id"])
    assert [without_times(o) for o in old] == [rec("A", "old", "192.0.2.1")]
    r = acct.client.put(f"/domains/{slave['id']}/records/{old[0]['id']}",
                        json={"target": "192.0.2.2"})
    assert_error(r, 400, R_SLAVE)
    assert acct.client.delete(f"/domains/{slave['id']}/records/{old[0]['id']}").status == 200
    assert acct.records(slave["id"]) == []


# --------------------------------------------------------------------------
# Update and delete
# --------------------------------------------------------------------------

def test_update(acct, backend, clock):
    d = acct.domain()
    did = d["id"]
    srv = acct.add(did, type="SRV", service="sip", protocol="udp", priority=1, weight=2,
                   port=5060, target="sip")
    serial = domain_row(backend, did)[0]
    clock("advance", "1h")
    r = acct.client.put(f"/domains/{did}/records/{srv['id']}",
                        json={"service": "_xmpp", "protocol": "_tcp", "name": "ignored"})
    assert r.status == 200, r
    assert_headers(r, accepted="domains:read_write")
    doc = r.json
    assert without_times(doc) == rec("SRV", "_xmpp._tcp", f"sip.{d['domain']}", 1, 2,
                                     5060, "xmpp", "tcp")
    assert doc["created"] == srv["created"] and doc["updated"] > srv["updated"]
    assert domain_row(backend, did)[0] > serial
    assert acct.client.get(f"/domains/{did}/records/{srv['id']}").json == doc

    # the type is fixed; repeating it is fine (clients send records back whole)
    r = acct.client.put(f"/domains/{did}/records/{srv['id']}", json={"type": "TXT"})
    assert errors_of(r) == [("type", R_TYPE_FIXED)]
    a = acct.add(did, type="A", name="host", target="192.0.2.7")
    back = {k: v for k, v in a.items() if k not in ("id", "created", "updated")}
    back["ttl_sec"] = 7000
    r = acct.client.put(f"/domains/{did}/records/{a['id']}", json=back)
    assert r.status == 200, r
    assert without_times(r.json) == rec("A", "host", "192.0.2.7", ttl_sec=7200)
    a = r.json
    # the merged record must satisfy every rule
    r = acct.client.put(f"/domains/{did}/records/{a['id']}",
                        json={"port": 80, "target": "nope"})
    assert sorted(f for f, _ in errors_of(r)) == ["port", "target"]
    r = acct.client.put(f"/domains/{did}/records/{srv['id']}", json={"service": ""})
    assert [f for f, _ in errors_of(r)] == ["service"], r
    # refusals changed nothing
    assert acct.client.get(f"/domains/{did}/records/{a['id']}").json == a
    assert acct.client.get(f"/domains/{did}/records/{srv['id']}").json == doc
    # null leaves a field as it is (docs/conventions.md, "Today's clients")
    r = acct.client.put(f"/domains/{did}/records/{srv['id']}",
                        json={"service": None, "protocol": None, "name": None, "target": None,
                              "port": None, "ttl_sec": None, "type": None})
    assert r.status == 200, r
    assert without_times(r.json) == without_times(doc)


def test_delete(acct, backend):
    d = acct.domain()
    did = d["id"]
    first = acct.add(did, type="TXT", target="one")
    second = acct.add(did, type="TXT", target="two")
    serial, count = domain_row(backend, did)
    assert count == 2
    r = acct.client.delete(f"/domains/{did}/records/{first['id']}")
    assert r.status == 200 and r.json == {}, r
    assert_headers(r, accepted="domains:read_write")
    assert domain_row(backend, did)[0] > serial
    assert domain_row(backend, did)[1] == 1
    assert_error(acct.client.get(f"/domains/{did}/records/{first['id']}"), 404, "Not found")
    assert_error(acct.client.delete(f"/domains/{did}/records/{first['id']}"), 404,
                 "Not found")
    assert_error(acct.client.put(f"/domains/{did}/records/{first['id']}",
                                 json={"target": "x"}), 404, "Not found")
    assert record_ids(acct.client, did) == [second["id"]]
    assert domain_row(backend, did)[1] == 1


# --------------------------------------------------------------------------
# Lists
# --------------------------------------------------------------------------

def test_filters_and_pagination(acct):
    d = acct.domain()
    did = d["id"]
    made = []
    for i in range(30):
        if i % 3 == 0:
            made.append(acct.add(did, type="TXT", name=f"h{i:02}", target=f"text {i}"))
        elif i % 3 == 1:
            made.append(acct.add(did, type="A", name=f"h{i:02}", target=f"192.0.2.{i}"))
        else:
            made.append(acct.add(did, type="CAA", name=f"h{i:02}",
                                 tag="issue" if i % 2 else "iodef",
                                 target="letsencrypt.org"))
    ids = [m["id"] for m in made]

    def filtered(f):
        r = acct.client.get(f"/domains/{did}/records", xfilter=f,
                            params={"page_size": 500})
        assert r.status == 200, r
        return [x["id"] for x in r.json["data"]]

    assert filtered({"type": "TXT"}) == ids[0::3]
    assert filtered({"name": "h07"}) == [ids[7]]
    assert filtered({"target": "192.0.2.4"}) == [ids[4]]
    assert filtered({"target": {"+contains": "text 1"}}) == [ids[12], ids[15], ids[18]]
    assert filtered({"tag": "iodef"}) == [m["id"] for m in made
                                          if m["tag"] == "iodef"]
    assert filtered({"+and": [{"type": "CAA"}, {"tag": "issue"}]}) == \
        [m["id"] for m in made if m["tag"] == "issue"]
    assert filtered({"+or": [{"name": "h01"}, {"name": "h02"}]}) == ids[1:3]
    assert filtered({"+order_by": "name", "+order": "desc"}) == ids[::-1]
    assert filtered({"type": "MX"}) == []
    # linode_api4's other DomainRecord properties, as the records show them.
    assert filtered({"ttl_sec": {"+neq": -1}}) == [m["id"] for m in made]
    assert filtered({"id": ids[2]}) == [ids[2]]
    assert_error(acct.client.get(f"/domains/{did}/records", xfilter={"zone": 0}),
                 400, "Cannot filter on zone", "X-Filter")
    assert_error(acct.client.get(f"/domains/{did}/records", xfilter={"type": 5}),
                 400, "Could not apply filter", "X-Filter")

    r = acct.client.get(f"/domains/{did}/records", params={"page_size": 25})
    doc = assert_json(r)
    assert (doc["page"], doc["pages"], doc["results"]) == (1, 2, 30)
    assert [x["id"] for x in doc["data"]] == ids[:25]
    doc = acct.client.get(f"/domains/{did}/records",
                          params={"page_size": 25, "page": 2}).json
    assert doc["data"] == made[25:]
    doc = acct.client.get(f"/domains/{did}/records",
                          params={"page_size": 25, "page": 5}).json
    assert (doc["data"], doc["page"], doc["pages"], doc["results"]) == ([], 5, 2, 30)
    assert_error(acct.client.get(f"/domains/{did}/records", params={"page_size": 501}),
                 400, None, "page_size")
    assert_error(acct.client.get(f"/domains/{did}/records", params={"page": 0}),
                 400, None, "page")


# --------------------------------------------------------------------------
# Who may see what
# --------------------------------------------------------------------------

def test_records_of_other_domains_and_accounts(acct, acct2):
    mine, second = acct.domain(), acct.domain()
    theirs = acct2.domain()
    rec_mine = acct.add(mine["id"], type="A", name="x", target="192.0.2.1")
    rec_theirs = acct2.add(theirs["id"], type="A", name="x", target="192.0.2.2")
    # a record id of another domain, even of the same account: 404
    for did, rid in ((second["id"], rec_mine["id"]), (mine["id"], rec_theirs["id"]),
                     (theirs["id"], rec_theirs["id"]), (mine["id"], 0),
                     (mine["id"], "abc"), (mine["id"], 10 ** 15), (10 ** 15, 1)):
        path = f"/domains/{did}/records/{rid}"
        assert_error(acct.client.get(path), 404, "Not found")
        assert_error(acct.client.put(path, json={"target": "192.0.2.9"}), 404, "Not found")
        assert_error(acct.client.delete(path), 404, "Not found")
    assert_error(acct.client.get(f"/domains/{theirs['id']}/records"), 404, "Not found")
    assert_error(acct.client.post(f"/domains/{theirs['id']}/records",
                                  json={"type": "A", "target": "192.0.2.1"}),
                 404, "Not found")
    # nothing changed on either side
    assert acct.records(mine["id"]) == [rec_mine]
    assert acct2.records(theirs["id"]) == [rec_theirs]


def test_scopes_and_grants(acct, backend, anon):
    d = acct.domain()
    made = acct.add(d["id"], type="TXT", target="hello")
    base = f"/domains/{d['id']}/records"
    _, ro = acct.user(scopes="domains:read_only")
    assert ro.get(base).status == 200
    assert ro.get(f"{base}/{made['id']}").status == 200
    assert_error(ro.post(base, json={"type": "TXT", "target": "x"}), 401, SCOPE_REASON)
    assert_error(ro.put(f"{base}/{made['id']}", json={"target": "x"}), 401, SCOPE_REASON)
    assert_error(ro.delete(f"{base}/{made['id']}"), 401, SCOPE_REASON)
    assert_error(anon.get(base), 401, "Invalid Token")

    uid, limited = acct.user(restricted=True)
    assert_error(limited.get(base), 403, "Unauthorized")
    backend.execute("INSERT INTO entity_grants (user_id, entity_type, entity_id,"
                       f" permissions) VALUES ({uid}, 'domain', {d['id']}, 'read_only')")
    assert limited.get(base).json["data"] == [made]
    assert_error(limited.post(base, json={"type": "TXT", "target": "x"}), 403,
                 "Unauthorized")
    assert_error(limited.delete(f"{base}/{made['id']}"), 403, "Unauthorized")
    backend.execute("UPDATE entity_grants SET permissions = 'read_write'"
                       f" WHERE user_id = {uid}")
    assert limited.post(base, json={"type": "TXT", "target": "x"}).status == 200


# --------------------------------------------------------------------------
# The limit: 12,000 records per domain
# --------------------------------------------------------------------------

def test_limit(acct, backend, big_domain):
    d = big_domain()
    did = d["id"]
    bulk_records(backend, did, LIMIT - 1)
    assert domain_row(backend, did)[1] == LIMIT - 1
    last = acct.add(did, type="TXT", name="last", target="the 12,000th")
    r = acct.client.post(f"/domains/{did}/records",
                         json={"type": "TXT", "name": "over", "target": "the 12,001st"})
    assert_error(r, 400, R_LIMIT)
    doc = acct.client.get(f"/domains/{did}/records", params={"page_size": 500}).json
    assert (doc["results"], doc["pages"]) == (LIMIT, 24)
    assert domain_row(backend, did)[1] == LIMIT
    # updates are not creates; a delete frees a slot
    r = acct.client.put(f"/domains/{did}/records/{last['id']}", json={"target": "edited"})
    assert r.status == 200, r
    assert acct.client.delete(f"/domains/{did}/records/{last['id']}").status == 200
    acct.add(did, type="TXT", name="again", target="fits")
    assert_error(acct.client.post(f"/domains/{did}/records",
                                  json={"type": "TXT", "target": "no"}), 400, R_LIMIT)
    # the limit is per domain
    other = acct.domain()
    acct.add(other["id"], type="TXT", target="elsewhere")


def test_parallel_creates_never_exceed_the_limit(acct, backend, server,
                                                 big_domain):
    d = big_domain()
    did = d["id"]
    bulk_records(backend, did, LIMIT - 10)
    calls = [("POST", f"/domains/{did}/records",
              {"type": "TXT", "name": f"race{i}", "target": "x"}) for i in range(40)]
    results = harness.race(server, acct.client.token, calls)
    ok = [b for s, b in results if s == 200]
    refused = [b for s, b in results if s == 400]
    assert len(ok) == 10 and len(refused) == 30, results
    assert all(b == {"errors": [{"reason": R_LIMIT}]} for b in refused)
    doc = acct.client.get(f"/domains/{did}/records", params={"page_size": 25}).json
    assert doc["results"] == LIMIT
    assert domain_row(backend, did)[1] == LIMIT


def test_parallel_cnames_of_one_name(acct, server):
    """30 writers race for one name: one CNAME, or else only non-CNAMEs."""
    d = acct.domain()
    did = d["id"]
    calls = [("POST", f"/domains/{did}/records",
              {"type": "CNAME", "name": "race", "target": f"t{i}.example.net"})
             for i in range(20)]
    calls += [("POST", f"/domains/{did}/records",
               {"type": "A", "name": "RACE", "target": f"192.0.2.{i + 1}"})
              for i in range(10)]
    results = harness.race(server, acct.client.token, calls)
    assert all(s in (200, 400) for s, _ in results), results
    stored = acct.records(did)
    types = {r["type"] for r in stored}
    if "CNAME" in types:
        assert len(stored) == 1, stored
    else:
        assert types == {"A"} and len(stored) == 10, stored
    assert len([s for s, _ in results if s == 200]) == len(stored)


def test_a_domain_renamed_before_the_write_is_read_again(acct, backend):
    """A record read against the domain's name is written only while the
    domain still has that name.  Here a rename holds the domain's row while
    the record is posted: the record's name lies in the old zone, and once
    the rename commits, outside the new one.  Refused, nothing written.  (On
    PostgreSQL the domain is read with the token lookup and the write in
    one round trip refuses a domain renamed since; the long way then reads
    the new name and says why.  On SQLite the request waits for the
    rename's commit before it reads anything.)"""
    d = acct.domain()
    did, old = d["id"], d["domain"]
    new = new_name("renamed")
    acct.add(did, type="A", name="warm", target="192.0.2.1")
    before = domain_row(backend, did)
    holder = start_holding(backend, f"UPDATE domains SET domain = '{new}' WHERE id = {did}", 1.5)
    r = acct.client.post(f"/domains/{did}/records",
                         json={"type": "A", "name": f"www.{old}.", "target": "192.0.2.2"})
    holder.join(timeout=30)
    assert not holder.is_alive()
    assert_error(r, 400, f"name www.{old}. is outside the domain {new}", field="name")
    assert domain_row(backend, did) == before
    assert [x["name"] for x in acct.records(did)] == ["warm"]
