"""GET /domains/{domainId}/records: `results` and `pages` after every kind of
write, on both backends.

An unfiltered list takes its total from the domain's record_count (read
with the domain row the access check loads) instead of a count(*); a list
with X-Filter conditions still counts.  So every test here compares the
envelope with the records themselves and with the database, after creates,
deletes, a clone and an import (a zone transferred from a private BIND
named), at page boundaries and past the end.

The list's items are written as JSON text directly, not through jansson:
the tests also require each item to be byte for byte the body of GET
/domains/{domainId}/records/{recordId} (which jansson serialises), for
ordinary records and for odd stored values (escapes, control characters,
non-ASCII, text that is not UTF-8, numbers and times out of range).
"""

import json
import secrets

import pytest

import harness
from checks import assert_envelope, assert_headers, assert_json, pages_for
from named import Named

R_TYPE_FILTER = {"type": "TXT"}


def new_name(stem="tot"):
    return f"{stem}-{secrets.token_hex(4)}.example"


class Account(harness.Account):
    """A fresh account (nothing else the session stores shows in its lists)."""

    def __init__(self, backend, server):
        super().__init__(backend, server, stem="e2e-tot-")
        self.domains = []

    def domain(self):
        r = self.client.post("/domains", json={"domain": new_name(), "type": "master",
                                               "soa_email": "hostmaster@example.net"})
        assert r.status == 200, r
        return self.own(assert_json(r)["id"])

    def own(self, domain_id):
        """Deleted (records and all) after the test: the session's database
        stays small, and free of the odd values some tests store, for the
        tests that dump it whole."""
        self.domains.append(domain_id)
        return domain_id

    def add(self, domain_id, type="A", name="www", target="192.0.2.1", **extra):
        r = self.client.post(f"/domains/{domain_id}/records",
                             json={"type": type, "name": name, "target": target, **extra})
        assert r.status == 200, r
        return r.json["id"]

    def close(self):
        for d in self.domains:
            r = self.client.delete(f"/domains/{d}")
            assert r.status == 200, r
        super().close()

    def delete(self, domain_id, record_id):
        r = self.client.delete(f"/domains/{domain_id}/records/{record_id}")
        assert r.status == 200, r

    def get(self, path, unchecked=False, **kw):
        """GET `path`; unchecked: past the OpenAPI check of every response,
        for values out of the contract's ranges that only an operator's SQL
        could store (the API answers them all the same)."""
        if not unchecked:
            return self.client.get(path, **kw)
        return harness.Resp(self.client.session.get(
            self.client.base_url + path, timeout=15,
            headers={"Authorization": f"Bearer {self.client.token}"}, **kw))

    def page(self, domain_id, page=None, page_size=None, xfilter=None,
             unchecked=False):
        params = {}
        if page is not None:
            params["page"] = page
        if page_size is not None:
            params["page_size"] = page_size
        if xfilter is not None:
            r = self.client.get(f"/domains/{domain_id}/records", params=params,
                                xfilter=xfilter)
        else:
            r = self.get(f"/domains/{domain_id}/records", unchecked, params=params)
        assert r.status == 200, r
        assert_envelope(assert_json(r))
        return r


@pytest.fixture
def acct(make_account):
    return make_account(Account)


def stored(backend, domain_id, where=""):
    """(record_count, count(*)) of the domain, as the database holds them."""
    rows = backend.query(f"SELECT record_count, (SELECT count(*) FROM domain_records"
                         f" WHERE domain_id = {domain_id}{where}) FROM domains"
                         f" WHERE id = {domain_id}")
    return int(rows[0][0]), int(rows[0][1])


def check_walk(acct, domain_id, expected_ids, page_size=25, xfilter=None,
               unchecked=False):
    """Every page of the list, and the first one past the end: the same
    results and pages each time, the items in id order, nothing twice."""
    total = len(expected_ids)
    pages = pages_for(total, page_size)
    seen = []
    for page in range(1, pages + 2):
        doc = acct.page(domain_id, page, page_size, xfilter, unchecked).json
        assert (doc["page"], doc["pages"], doc["results"]) == (page, pages, total), doc
        if page <= pages:
            want = min(page_size, total - page_size * (page - 1))
            assert len(doc["data"]) == want, (page, doc)
        else:
            assert doc["data"] == [], doc
        seen += [x["id"] for x in doc["data"]]
    assert seen == sorted(expected_ids)


def test_empty_domain(acct, backend):
    d = acct.domain()
    doc = acct.page(d).json
    assert doc == {"data": [], "page": 1, "pages": 1, "results": 0}
    doc = acct.page(d, page=3, page_size=25).json
    assert doc == {"data": [], "page": 3, "pages": 1, "results": 0}
    assert stored(backend, d) == (0, 0)


def test_creates_and_deletes(acct, backend):
    d = acct.domain()
    a_ids = [acct.add(d, name=f"h{i}", target=f"192.0.2.{i + 1}") for i in range(40)]
    txt_ids = [acct.add(d, type="TXT", name=f"t{i}", target=f"text {i}") for i in range(11)]
    ids = a_ids + txt_ids
    assert stored(backend, d) == (51, 51)
    # 51 records: two full pages of 25 and a last one of 1, then past the end
    check_walk(acct, d, ids)
    # the default page size, and the largest
    doc = acct.page(d).json
    assert (doc["results"], doc["pages"], len(doc["data"])) == (51, 1, 51)
    doc = acct.page(d, page_size=500).json
    assert (doc["results"], doc["pages"], len(doc["data"])) == (51, 1, 51)
    # a filter with conditions counts what it matches
    check_walk(acct, d, txt_ids, xfilter=R_TYPE_FILTER)
    check_walk(acct, d, [i for i in ids if i != a_ids[3]],
               xfilter={"name": {"+neq": "h3"}})
    doc = acct.page(d, xfilter={"type": "MX"}).json
    assert doc == {"data": [], "page": 1, "pages": 1, "results": 0}
    # an empty filter, or ordering alone, changes no total
    doc = acct.page(d, page_size=25, xfilter={}).json
    assert (doc["results"], doc["pages"], len(doc["data"])) == (51, 3, 25)
    doc = acct.page(d, page_size=25, xfilter={"+order_by": "name", "+order": "desc"}).json
    assert (doc["results"], doc["pages"]) == (51, 3)
    assert doc["data"][0]["name"] == "t9"

    # deletes: down to exactly two pages, then one, then none
    for rid in a_ids[:1]:
        acct.delete(d, rid)
    ids = ids[1:]
    assert stored(backend, d) == (50, 50)
    check_walk(acct, d, ids)
    for rid in a_ids[1:26]:
        acct.delete(d, rid)
    ids = ids[25:]
    assert stored(backend, d) == (25, 25)
    check_walk(acct, d, ids)
    check_walk(acct, d, txt_ids, xfilter=R_TYPE_FILTER)
    # a failed delete (no such record) changes nothing
    r = acct.client.delete(f"/domains/{d}/records/{a_ids[0]}")
    assert r.status == 404, r
    assert stored(backend, d) == (25, 25)
    for rid in ids:
        acct.delete(d, rid)
    assert stored(backend, d) == (0, 0)
    assert acct.page(d).json == {"data": [], "page": 1, "pages": 1, "results": 0}


def test_refused_creates_count_nothing(acct, backend):
    """A create refused after its slot was claimed (CNAME clash, invalid
    body) rolls the claim back with everything else."""
    d = acct.domain()
    acct.add(d, type="CNAME", name="alias", target="www.example.net")
    r = acct.client.post(f"/domains/{d}/records",
                         json={"type": "A", "name": "alias", "target": "192.0.2.9"})
    assert r.status == 400, r
    r = acct.client.post(f"/domains/{d}/records", json={"type": "A", "name": "x"})
    assert r.status == 400, r
    assert stored(backend, d) == (1, 1)
    doc = acct.page(d).json
    assert (doc["results"], len(doc["data"])) == (1, 1)


def test_clone(acct, backend):
    src = acct.domain()
    ids = [acct.add(src, name=f"c{i}", target=f"192.0.2.{i + 1}") for i in range(30)]
    acct.add(src, type="TXT", name="t", target="one")
    r = acct.client.post(f"/domains/{src}/clone", json={"domain": new_name("clone")})
    assert r.status == 200, r
    copy = acct.own(r.json["id"])
    assert stored(backend, copy) == (31, 31)
    copy_ids = [x["id"] for x in acct.client.all_pages(f"/domains/{copy}/records")]
    assert len(copy_ids) == 31
    check_walk(acct, copy, copy_ids)
    check_walk(acct, copy, copy_ids[-1:], xfilter=R_TYPE_FILTER)
    # the copy's records are its own: deleting one leaves the source whole
    acct.delete(copy, copy_ids[0])
    assert stored(backend, copy) == (30, 30)
    check_walk(acct, copy, copy_ids[1:])
    assert stored(backend, src) == (31, 31)
    assert acct.page(src).json["results"] == 31
    # a clone of an empty domain
    empty = acct.domain()
    r = acct.client.post(f"/domains/{empty}/clone", json={"domain": new_name("clone")})
    assert r.status == 200, r
    assert acct.page(acct.own(r.json["id"])).json == {"data": [], "page": 1, "pages": 1,
                                            "results": 0}
    assert len(ids) == 30


def test_import(acct, backend):
    zone = new_name("imp")
    body = (f"$TTL 3600\n@ IN SOA ns1.old-dns.test. hostmaster.{zone}. 2024010101"
            f" 10800 3600 1209600 300\n@ IN NS ns1.old-dns.test.\n"
            + "".join(f"h{i} IN A 192.0.2.{i % 250 + 1}\n" for i in range(60))
            + "".join(f"t{i} IN TXT \"text {i}\"\n" for i in range(7)))
    ns = Named(backend.base, "records-total")
    ns.add_zone(zone, body)
    ns.start()
    try:
        r = acct.client.post("/domains/import",
                             json={"domain": zone, "remote_nameserver": ns.address})
    finally:
        ns.stop()
    assert r.status == 200, r
    d = acct.own(r.json["id"])
    # the apex NS is replaced by the service's own: 67 records stored
    assert stored(backend, d) == (67, 67)
    ids = [x["id"] for x in acct.client.all_pages(f"/domains/{d}/records")]
    check_walk(acct, d, ids)
    check_walk(acct, d, ids[-7:], xfilter=R_TYPE_FILTER)
    # and the count goes on with the API's own writes
    new = acct.add(d, name="later")
    acct.delete(d, ids[0])
    assert stored(backend, d) == (67, 67)
    check_walk(acct, d, ids[1:] + [new])


def test_restricted_reader(acct, backend):
    """A restricted user with read_only on the domain sees the same totals."""
    d = acct.domain()
    ids = [acct.add(d, name=f"r{i}") for i in range(27)]
    uid, reader = acct.user(restricted=True)
    backend.admin("grant", "entity", "--user", str(uid), "--type", "domain",
                  "--id", str(d), "--permissions", "read_only")
    r = reader.get(f"/domains/{d}/records", params={"page_size": 25, "page": 2})
    assert r.status == 200, r
    doc = r.json
    assert (doc["results"], doc["pages"], [x["id"] for x in doc["data"]]) == \
        (27, 2, ids[25:])


# --------------------------------------------------------------------------
# The list's text: byte for byte what a record's own GET serialises
# --------------------------------------------------------------------------

def item_bytes(body):
    """The raw bytes of each item of a list body (no nested arrays in records,
    and no "[" or "]" outside strings once the envelope's head is gone)."""
    head = b'{"data":['
    assert body.startswith(head), body[:80]
    tail = body.rindex(b'],"page":')
    items, depth, start, in_str, esc = [], 0, None, False, False
    inner = body[len(head):tail]
    for i, c in enumerate(inner):
        if in_str:
            if esc:
                esc = False
            elif c == 0x5C:
                esc = True
            elif c == 0x22:
                in_str = False
            continue
        if c == 0x22:
            in_str = True
        elif c == 0x7B:
            if depth == 0:
                start = i
            depth += 1
        elif c == 0x7D:
            depth -= 1
            if depth == 0:
                items.append(inner[start:i + 1])
    return items


def check_bytes(acct, domain_id, page_size=500, unchecked=False):
    r = acct.page(domain_id, page_size=page_size, unchecked=unchecked)
    doc = r.json
    items = item_bytes(r.body)
    assert len(items) == len(doc["data"])
    for raw, item in zip(items, doc["data"]):
        one = acct.get(f"/domains/{domain_id}/records/{item['id']}", unchecked)
        assert one.status == 200, one
        assert raw == one.body, (raw, one.body)
    # the envelope as jansson writes it: compact, keys in order
    assert r.body.endswith(f'],"page":1,"pages":{doc["pages"]},'
                           f'"results":{doc["results"]}}}'.encode())
    return doc


def test_items_are_byte_identical(acct, backend):
    d = acct.domain()
    acct.add(d, name="plain")
    acct.add(d, type="AAAA", name="v6", target="2001:db8::1")
    acct.add(d, type="MX", name="mail", target="mx.example.net", priority=10)
    r = acct.client.post(f"/domains/{d}/records",
                         json={"type": "SRV", "service": "sip", "protocol": "tcp",
                               "target": "sip.example.net", "priority": 5, "weight": 7,
                               "port": 5060})
    assert r.status == 200, r
    acct.add(d, type="CAA", name="", target="letsencrypt.org", tag="issue")
    acct.add(d, type="TXT", name="quote",
             target='v=spf1 "quoted" back\\slash / slash <tag> & \u00e9\u20ac\U0001F600 \u2028')
    acct.add(d, type="TXT", name="long", target="x" * 4000)
    r = acct.client.put(f"/domains/{d}/records/{acct.add(d, name='changed')}",
                        json={"target": "192.0.2.77"})
    assert r.status == 200, r
    doc = check_bytes(acct, d)
    assert doc["results"] == 8
    # HEAD answers the same headers, without the body
    get = acct.client.get(f"/domains/{d}/records")
    head = acct.client.head(f"/domains/{d}/records")
    assert head.status == 200 and head.body == b""
    assert head.headers["Content-Length"] == str(len(get.body))
    assert_headers(get)


def test_odd_stored_values(acct, backend):
    """Values only an operator's SQL could store: control characters, numbers
    and times out of range or not numbers, SQL NULL in NOT NULL-free columns
    and, on SQLite, text that is not UTF-8 (null, as jansson makes it)."""
    d = acct.domain()
    texts = ["tab\there", "nl\nand\rcr", "bell\x07\x1f\x7f", "back\\slash\"quote\"",
             "\u00e9\u20ac\U0001F600", "\b\f"]
    values = []
    for i, t in enumerate(texts):
        lit = "'" + t.replace("'", "''") + "'"
        values.append(f"({d}, 'TXT', 'odd{i}', {lit}, {i * 1000 - 1}, {2 ** 31 - 1},"
                      f" {-(2 ** 31)}, {lit}, NULL, 0, NULL, {i * 86400 * 365 * 3},"
                      f" {253402300799 + i - 2})")
    if backend.kind == "sqlite":
        # text that is not UTF-8: a lone continuation byte, an overlong form,
        # a surrogate, a truncated sequence; and a number column holding text
        for i, blob in enumerate(["80", "c0af", "eda080", "e282", "f4908080"]):
            values.append(f"({d}, 'TXT', 'bad{i}', CAST(x'41{blob}42' AS TEXT), 'abc',"
                          f" 0, 0, CAST(x'{blob}' AS TEXT), 'udp', -5, 'issue', -1, 'soon')")
    backend.execute("INSERT INTO domain_records (domain_id, type, name, target,"
                    " priority, weight, port, service, protocol, ttl_sec, tag, created,"
                    " updated) VALUES " + ", ".join(values) + ";"
                    f" UPDATE domains SET record_count = record_count + {len(values)}"
                    f" WHERE id = {d}")
    doc = check_bytes(acct, d, unchecked=True)
    assert doc["results"] == len(values) == len(doc["data"])
    first = doc["data"][0]
    assert first["target"] == "tab\there" and first["priority"] == -1
    assert first["weight"] == 2 ** 31 - 1 and first["port"] == -(2 ** 31)
    if backend.kind == "sqlite":
        bad = [x for x in doc["data"] if x["name"].startswith("bad")]
        assert [x["target"] for x in bad] == [None] * 5
        assert all(x["priority"] == 0 and x["created"] is None and x["updated"] is None
                   for x in bad)
    # the same again through a page boundary
    check_walk(acct, d, [x["id"] for x in doc["data"]], page_size=25, unchecked=True)


def test_totals_match_the_database(acct, backend):
    """Many small writes, interleaved: the total stays the database's."""
    d = acct.domain()
    live = []
    for i in range(30):
        live.append(acct.add(d, name=f"m{i}"))
        if i % 3 == 2:
            acct.delete(d, live.pop(0))
    assert stored(backend, d) == (len(live), len(live))
    doc = acct.page(d, page_size=25).json
    assert doc["results"] == len(live) == 20
    assert json.loads(json.dumps(doc))["pages"] == 1
