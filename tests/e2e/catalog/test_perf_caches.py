"""The fast paths (the caches of answers served as text) never serve stale or wrong content.

Catalogue lists and items are served from text each child renders once per
catalogue snapshot: every page at every page size must be byte for byte what
the SQL path (an X-Filter, even an empty one) answers, the item routes what
the lists hold, HEAD the same headers without a body, and a new snapshot
(after AcctapiCatalogCacheTTL) what the database holds then.

The zone file is written as JSON text directly and each child keeps the
answers it rendered, keyed by the domain's serial: the body must be the
compact JSON of its lines, and every kind of change (records created,
changed, deleted; the domain's SOA fields, TTL and name; a change made with
SQL that moves the serial, as docs/configuration.md tells operators to) shows in the very
next answer, of this server and of another one on the same database."""

import json
import secrets
import time

import pytest

import harness
from checks import assert_json

LISTS = ["/regions", "/regions/availability", "/regions/vpc-availability", "/linode/types",
         "/databases/engines", "/databases/types"]
ITEMS = {"/regions": "/regions/{}", "/linode/types": "/linode/types/{}",
         "/databases/engines": "/databases/engines/{}",
         "/databases/types": "/databases/types/{}"}


def compact(doc):
    """JSON as jansson's compact dump writes it (for ASCII-only text)."""
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()


def get_ok(client, path, **kw):
    r = client.get(path, **kw)
    assert r.status == 200, r
    assert r.ctype == "application/json", r
    return r


def check_head(client, path, got, **kw):
    """HEAD answers GET's status and entity headers, without a body."""
    h = client.head(path, **kw)
    assert h.status == got.status, h
    assert h.body == b"", h
    assert h.ctype == got.ctype, h
    assert h.headers.get("Content-Length") == str(len(got.body)), (h, len(got.body))
    assert h.headers.get("Cache-Control") == got.headers.get("Cache-Control"), h


# --------------------------------------------------------------------------
# Catalogues
# --------------------------------------------------------------------------

@pytest.mark.parametrize("path", LISTS)
def test_catalog_pages_match_sql(anon, path):
    """Every page at several page sizes, twice (the second from the kept
    text), equals the SQL path's bytes; the pages of 25 put together are
    the whole list."""
    whole = assert_json(get_ok(anon, path, params={"page_size": 500}))
    for size in (None, 25, 26, 100, 500):
        page, pages, items = 1, 1, []
        while page <= pages + 1:
            params = {"page": page}
            if size is not None:
                params["page_size"] = size
            first = get_ok(anon, path, params=params)
            again = get_ok(anon, path, params=params)
            sql = get_ok(anon, path, params=params, xfilter={})
            assert first.body == sql.body, (path, params)
            assert again.body == first.body, (path, params)
            assert first.headers.get("Content-Length") == str(len(first.body))
            doc = first.json
            assert doc["page"] == page
            pages = doc["pages"]
            assert doc["results"] == whole["results"]
            if page > pages:
                assert doc["data"] == [], (path, params)
            items += doc["data"]
            if page in (1, pages + 1):
                check_head(anon, path, first, params=params)
            page += 1
        assert items == whole["data"], (path, size)


def test_catalog_page_parameters_still_checked(anon):
    for params, field in (({"page": 0}, "page"), ({"page_size": 10}, "page_size"),
                          ({"page": "x"}, "page")):
        for _ in range(2):
            r = anon.get("/regions", params=params)
            assert r.status == 400, r
            assert r.json["errors"][0]["field"] == field


def test_catalog_filtered_lists_still_filter(anon):
    whole = get_ok(anon, "/regions", params={"page_size": 500}).json["data"]
    country = whole[0]["country"]
    for _ in range(2):
        got = get_ok(anon, "/regions", xfilter={"country": country}).json["data"]
        assert got == [x for x in whole if x["country"] == country]


@pytest.mark.parametrize("path", list(ITEMS))
def test_catalog_items_match_lists(anon, path):
    """Each item, asked twice, is the list's entry (same key order); ids
    that name nothing stay 404."""
    entries = get_ok(anon, path, params={"page_size": 500}).json_pairs()
    entries = dict(entries)["data"]
    for entry in entries:
        ident = dict(entry)["id"]
        item_path = ITEMS[path].format(ident.replace("/", "%2F"))
        first = get_ok(anon, item_path)
        again = get_ok(anon, item_path)
        assert first.json_pairs() == entry, item_path
        assert again.body == first.body
    check_head(anon, item_path, first)
    for _ in range(2):
        r = anon.get(ITEMS[path].format("e2e-no-such-id"))
        assert r.status == 404, r


def test_catalog_region_availability_matches_list(anon):
    regions = get_ok(anon, "/regions", params={"page_size": 500}).json["data"]
    avail = harness.Client.all_pages(anon, "/regions/availability")
    for region in regions:
        path = f"/regions/{region['id']}/availability"
        first = get_ok(anon, path)
        again = get_ok(anon, path)
        assert first.json == [a for a in avail if a["region"] == region["id"]], path
        assert again.body == first.body
    for _ in range(2):
        assert anon.get("/regions/e2e-nowhere/availability").status == 404


def test_catalog_region_vpc_availability_matches_list(anon):
    """Each region's VPC availability, asked twice, is the list's entry
    (same key order); an unknown region stays 404."""
    entries = dict(get_ok(anon, "/regions/vpc-availability",
                          params={"page_size": 500}).json_pairs())["data"]
    for entry in entries:
        path = f"/regions/{dict(entry)['region']}/vpc-availability"
        first = get_ok(anon, path)
        again = get_ok(anon, path)
        assert first.json_pairs() == entry, path
        assert again.body == first.body
    check_head(anon, path, first)
    for _ in range(2):
        assert anon.get("/regions/e2e-nowhere/vpc-availability").status == 404


class PrivateDatabase:
    """A migrated database of its own on the backend's kind (SQLite: a new
    file; PostgreSQL: a new database in the session's cluster), for a test
    that changes the catalogue without disturbing the shared database."""

    def __init__(self, backend):
        self.shared = backend
        self.name = f"acctapi_cache_{secrets.token_hex(4)}"
        self.b = harness.Backend(backend.kind, backend.base / self.name)
        if backend.kind == "sqlite":
            self.b.base.mkdir()
            self.b.base.chmod(0o755)
            self.b.setup()
        else:
            backend.cluster.psql(f"CREATE DATABASE {self.name} OWNER acctapi")
            self.b.driver = "pgsql"
            self.b.params = (f"host=127.0.0.1 port={backend.cluster.port} dbname={self.name}"
                             " user=acctapi connect_timeout=3")
            self.b.admin("migrate")

    def execute(self, sql):
        if self.b.kind == "sqlite":
            self.b.execute(sql)
        else:
            self.shared.cluster.psql(f"BEGIN; {sql}; COMMIT;", db=self.name)

    def drop(self):
        if self.b.kind == "pgsql":
            # WITH (FORCE): the harness's acctapi-admin batch keeps its
            # connection to the database it last used (AdminSession).
            self.shared.cluster.psql(f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)")


def test_catalog_new_snapshot_renders_anew(backend):
    """After the snapshot's lifetime the pages and items show what the
    database holds now: nothing rendered from the old snapshot survives."""
    db = PrivateDatabase(backend)
    srv = harness.Httpd(db.b, backend.base, name="cache-ttl",
                        extra="AcctapiCatalogCacheTTL 1\n", **harness.SMALL_SERVER)
    try:
        srv.start()
        c = srv.client()
        region = get_ok(c, "/regions").json["data"][0]["id"]
        label = f"E2E relabelled {secrets.token_hex(3)}"

        def bodies():
            return [get_ok(c, "/regions").body,
                    get_ok(c, "/regions", params={"page_size": 25}).body,
                    get_ok(c, f"/regions/{region}").body]

        before = bodies()
        assert bodies() == before
        db.execute(f"UPDATE regions SET label = '{label}' WHERE id = '{region}'")
        # Each child keeps its own snapshot: wait until every answer is new.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            now = bodies()
            if all(a != b for a, b in zip(now, before)):
                break
            time.sleep(0.3)
        assert all(a != b for a, b in zip(now, before)), now
        assert get_ok(c, f"/regions/{region}").json["label"] == label
        first = get_ok(c, "/regions").json["data"]
        assert [x["label"] for x in first if x["id"] == region] == [label]
        assert get_ok(c, "/regions").body == get_ok(c, "/regions", xfilter={}).body
        c.close()
    finally:
        srv.stop()
        db.drop()


# --------------------------------------------------------------------------
# Zone file
# --------------------------------------------------------------------------

def zone_body(client, did):
    """The zone's lines, after checking the body is their compact JSON and
    HEAD agrees."""
    r = get_ok(client, f"/domains/{did}/zone-file")
    doc = assert_json(r)
    assert list(doc) == ["zone_file"]
    lines = doc["zone_file"]
    assert r.body == compact(doc), r
    check_head(client, f"/domains/{did}/zone-file", r)
    return lines


def soa_fields(lines):
    soa = next(line for line in lines if " IN SOA " in line)
    return soa.split()


@pytest.fixture
def other_server(make_server):
    """A second server on the same database: another process, its own
    caches."""
    srv = make_server(name="cache-other")
    return srv


def test_zone_shows_every_change_at_once(api, backend, other_server):
    other = other_server.client(token=backend.token)
    name = f"{backend.unique('cache')}-{secrets.token_hex(3)}.e2e-cache.example"
    r = api.post("/domains", json={"domain": name, "type": "master",
                                   "soa_email": f"hostmaster@{name}"})
    assert r.status == 200, r
    did = r.json["id"]
    state = {"name": name}

    def both():
        """This server's zone and the other's, equal, read twice."""
        mine = zone_body(api, did)
        assert zone_body(other, did) == mine
        assert zone_body(api, did) == mine
        return mine

    def change(method, path, body, check, what):
        both()      # read before: whatever could be kept is kept now
        r = api.request(method, path, json=body)
        assert r.status == 200, (what, r)
        lines = both()
        assert check(lines), (what, lines)
        return r

    rec = change("POST", f"/domains/{did}/records",
                 {"type": "A", "name": "www", "target": "192.0.2.10"},
                 lambda z: f"www.{state['name']}. IN A 192.0.2.10" in z,
                 "record created").json
    txt = change("POST", f"/domains/{did}/records",
                 {"type": "TXT", "name": "t", "target": 'say "hi" \\ now'},
                 lambda z: f't.{state["name"]}. IN TXT "say \\"hi\\" \\\\ now"' in z,
                 "TXT created").json
    change("PUT", f"/domains/{did}/records/{rec['id']}", {"target": "192.0.2.11"},
           lambda z: f"www.{state['name']}. IN A 192.0.2.11" in z
           and not any("192.0.2.10" in x for x in z), "record updated")
    change("PUT", f"/domains/{did}/records/{rec['id']}", {"ttl_sec": 300},
           lambda z: f"www.{state['name']}. 300 IN A 192.0.2.11" in z, "record TTL")
    change("DELETE", f"/domains/{did}/records/{txt['id']}", None,
           lambda z: not any(" IN TXT " in x for x in z), "record deleted")
    change("PUT", f"/domains/{did}", {"soa_email": f"new.admin@{name}"},
           lambda z: soa_fields(z)[4] == f"new\\.admin.{name}.", "soa_email")
    change("PUT", f"/domains/{did}", {"ttl_sec": 3600},
           lambda z: "$TTL 3600" in z and soa_fields(z)[-1] == "3600", "ttl_sec")
    change("PUT", f"/domains/{did}", {"refresh_sec": 7200},
           lambda z: soa_fields(z)[6] == "7200", "refresh_sec")
    change("PUT", f"/domains/{did}", {"retry_sec": 300, "expire_sec": 604800},
           lambda z: soa_fields(z)[7:9] == ["300", "604800"], "retry/expire")
    renamed = f"renamed-{name}"
    state["name"] = renamed
    change("PUT", f"/domains/{did}", {"domain": renamed},
           lambda z: z[0].startswith(f"; Zone file of {renamed}. ")
           and f"www.{renamed}. 300 IN A 192.0.2.11" in z
           and not any(f" {name}." in x or x.startswith(f"{name}.") for x in z),
           "rename")

    # With SQL, as docs/configuration.md's operator notes say: the change and a serial bump
    # (any change of a zone needs one, for secondaries as for the cache).
    serial = int(soa_fields(both())[5])
    bump = f"UPDATE domains SET serial = serial + 1 WHERE id = {int(did)}"
    backend.execute(f"UPDATE domain_records SET target = '192.0.2.99'"
                    f" WHERE id = {int(rec['id'])}")
    backend.execute(bump)
    lines = both()
    assert f"www.{renamed}. 300 IN A 192.0.2.99" in lines, lines
    assert int(soa_fields(lines)[5]) == serial + 1, lines
    backend.execute(f"INSERT INTO domain_records (domain_id, type, name, target,"
                    f" created, updated) VALUES ({int(did)}, 'A', 'sql', '192.0.2.7', 0, 0)")
    backend.execute(bump)
    lines = both()
    assert f"sql.{renamed}. IN A 192.0.2.7" in lines, lines
    backend.execute(f"UPDATE domains SET soa_email = 'sql@{renamed}', serial = serial + 1"
                    f" WHERE id = {int(did)}")
    lines = both()
    assert soa_fields(lines)[4] == f"sql.{renamed}." and int(soa_fields(lines)[5]) == serial + 3, lines
    backend.execute(f"DELETE FROM domain_records WHERE domain_id = {int(did)}")
    backend.execute(bump)
    lines = both()
    assert not any(" IN A " in x for x in lines), lines

    assert api.delete(f"/domains/{did}").status == 200
    for client in (api, other):
        assert client.get(f"/domains/{did}/zone-file").status == 404
    other.close()


def test_zone_large_body_is_compact_json(api, backend):
    """A zone of a few thousand records (every type) through the direct
    writer: the body is exactly the compact JSON of its lines, in record
    order, and HEAD gives its length."""
    name = f"{backend.unique('cachebig')}-{secrets.token_hex(3)}.e2e-cache.example"
    r = api.post("/domains", json={"domain": name, "type": "master",
                                   "soa_email": f"first.last@{name}"})
    assert r.status == 200, r
    did = int(r.json["id"])
    n = 3000
    numbers = (f"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
               f" WHERE i < {n}) SELECT i FROM n" if backend.kind == "sqlite"
               else f"SELECT i FROM generate_series(1, {n}) AS g(i)")
    backend.execute(
        "INSERT INTO domain_records (domain_id, type, name, target, priority, weight,"
        " port, ttl_sec, tag, created, updated)"
        f" SELECT {did},"
        " CASE i % 6 WHEN 0 THEN 'A' WHEN 1 THEN 'TXT' WHEN 2 THEN 'MX'"
        "  WHEN 3 THEN 'SRV' WHEN 4 THEN 'CAA' ELSE 'CNAME' END,"
        " 'h' || i,"
        " CASE i % 6 WHEN 0 THEN '192.0.2.' || (i % 250 + 1)"
        "  WHEN 1 THEN 'v=\"' || i || '\" \\ x'"
        "  WHEN 4 THEN 'ca.example.net' ELSE 'target' || i || '.example.org' END,"
        " i % 20, i % 7, i % 1000, (i % 3) * 300,"
        " CASE i % 6 WHEN 4 THEN 'issue' ELSE NULL END, 0, 0"
        f" FROM ({numbers}) AS numbers")
    lines = zone_body(api, did)
    records = [x for x in lines if x.split()[0].startswith("h")]
    assert len(records) == n
    # Record i: TTL (i % 3) * 300, type by i % 6 (1 TXT, 2 MX, 3 SRV, 0 A).
    assert records[0] == f'h1.{name}. 300 IN TXT "v=\\"1\\" \\\\ x"'
    assert records[1] == f"h2.{name}. 600 IN MX 2 target2.example.org."
    assert records[2] == f"h3.{name}. IN SRV 3 3 3 target3.example.org."
    assert records[5] == f"h6.{name}. IN A 192.0.2.7"
    assert api.delete(f"/domains/{did}").status == 200
