"""Managed databases' catalogues as today's public API serves them:
engines by major version with the contract's full-version ids kept as
aliases, database node types with prices per engine and cluster size, and
the description of each engine's settings (engine_config).

Each route is read the way the clients read it: the Go SDK's structs (field
types that fail to decode otherwise), the Terraform provider's data sources
and engine_id rule, the Python SDK's integration tests and linode-cli's
assertions on the config documents.  All are public routes, under /v4 and
/v4beta, with HEAD."""

import json

import pytest

import harness
from checks import NO_STORE, assert_envelope, assert_error, assert_headers, assert_json
from dbaccounts import MY, PG, Account, my_body, pg_body

DBCONFIG = harness.REPO / "mod_acctapi" / "model" / "dbconfig"

# The public API's engine list (recorded by the Go SDK, January 2025).
ENGINES = [("mysql", "mysql/8", "8"), ("postgresql", "postgresql/13", "13"),
           ("postgresql", "postgresql/14", "14"), ("postgresql", "postgresql/15", "15"),
           ("postgresql", "postgresql/16", "16"), ("postgresql", "postgresql/17", "17")]
# The ids the contract's catalogue listed, and the releases the majors run:
# accepted wherever an engine id is taken, never listed.
FULL_VERSION_IDS = ["mysql/5.7.30", "mysql/5.7.39", "mysql/8.0.26", "mysql/8.0.30",
                    "mysql/8.0.35", "postgresql/13.2", "postgresql/14.6",
                    "postgresql/14.15", "postgresql/15.4", "postgresql/16.4",
                    "postgresql/17.4"]
# The public API's node types, in its order (recorded by the Go SDK).
TYPE_IDS = ["g6-nanode-1", "g6-standard-1", "g6-standard-2", "g6-standard-4",
            "g6-standard-6", "g6-standard-8", "g6-standard-16", "g6-standard-20",
            "g6-standard-24", "g6-standard-32", "g6-dedicated-2", "g6-dedicated-4",
            "g6-dedicated-8", "g6-dedicated-16", "g6-dedicated-32", "g6-dedicated-48",
            "g6-dedicated-50", "g6-dedicated-56"]
TYPE_KEYS = ["class", "deprecated", "disk", "engines", "id", "label", "memory", "vcpus"]
PUBLIC = ["/databases/engines", "/databases/engines/mysql%2F8", "/databases/types",
          "/databases/types/g6-nanode-1", "/databases/mysql/config",
          "/databases/postgresql/config"]


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


@pytest.fixture
def acct(make_account):
    return make_account(Account)


# --------------------------------------------------------------------------
# Public, HEAD, v4beta
# --------------------------------------------------------------------------

@pytest.mark.parametrize("path", PUBLIC)
def test_public_without_token(anon, path):
    r = anon.get(path)
    assert r.status == 200, r
    assert_headers(r, cache=NO_STORE, scopes="unknown", accepted="*")
    assert r.ctype == "application/json", r


@pytest.mark.parametrize("path", PUBLIC)
@pytest.mark.parametrize("authorization", ["Bearer junk", "Bearer " + "0" * 64])
def test_public_ignores_authorization(anon, path, authorization):
    r = anon.get(path, authorization=authorization)
    assert r.status == 200, r
    assert r.json == anon.get(path).json


@pytest.mark.parametrize("path", PUBLIC)
def test_public_with_the_clients_token(api, path):
    """The SDKs send their token to every route: accepted, scope '*'."""
    r = api.get(path)
    assert r.status == 200, r
    assert_headers(r, cache=NO_STORE, accepted="*")


@pytest.mark.parametrize("path", PUBLIC)
def test_head_and_v4beta(anon, server, path):
    got = anon.get(path)
    h = anon.head(path)
    assert h.status == 200 and h.body == b"", h
    assert h.headers.get("Content-Length") == str(len(got.body)), h
    assert h.ctype == got.ctype
    beta = anon.get(server.url + "/v4beta" + path)
    assert beta.status == 200, beta
    assert beta.body == got.body


@pytest.mark.parametrize("path", ["/databases/types", "/databases/mysql/config",
                                  "/databases/postgresql/config"])
def test_writes_not_allowed(api, path):
    r = api.post(path, json={})
    assert_error(r, 405, "Method Not Allowed")
    assert r.headers.get("Allow") == "GET, HEAD, OPTIONS", r


# --------------------------------------------------------------------------
# Engines by major version
# --------------------------------------------------------------------------

def test_engines_as_the_public_api_lists_them(anon):
    r = anon.get("/databases/engines")
    doc = assert_json(r)
    data = assert_envelope(doc)
    assert [(e["engine"], e["id"], e["version"]) for e in data] == ENGINES, data
    assert (doc["page"], doc["pages"], doc["results"]) == (1, 1, 6), doc
    for e in data:
        assert set(e) == {"id", "engine", "version"}, e
        # The Python SDK's integration test; the Terraform provider's
        # engine_id rule (engine/major of a database's version).
        assert e["id"] == e["engine"] + "/" + e["version"], e
        assert e["id"] == e["engine"] + "/" + e["version"].split(".")[0], e


@pytest.mark.parametrize("engine,eid,version", ENGINES)
def test_engine_single_by_major(anon, engine, eid, version):
    want = {"id": eid, "engine": engine, "version": version}
    # The Go SDK escapes the slash; a browser or curl may not.
    for path in (eid.replace("/", "%2F"), eid):
        r = anon.get("/databases/engines/" + path)
        assert r.status == 200, r
        assert assert_json(r) == want


@pytest.mark.parametrize("eid", FULL_VERSION_IDS)
def test_engine_full_version_ids(anon, eid):
    """The contract's ids answer their own entry, and are no list entry."""
    engine, version = eid.split("/")
    for path in (eid.replace("/", "%2F"), eid):
        r = anon.get("/databases/engines/" + path)
        assert r.status == 200, r
        assert assert_json(r) == {"id": eid, "engine": engine, "version": version}
    assert eid not in [e["id"] for e in anon.all_pages("/databases/engines")]


def test_engines_filter_as_terraform_resolves_them(anon):
    """ResolveValidDBEngine: X-Filter engine=..., the first entry."""
    r = anon.get("/databases/engines", xfilter={"engine": "mysql"})
    assert [e["id"] for e in assert_json(r)["data"]] == ["mysql/8"]
    r = anon.get("/databases/engines", xfilter={"engine": "postgresql"})
    assert [e["id"] for e in assert_json(r)["data"]] == [
        "postgresql/13", "postgresql/14", "postgresql/15", "postgresql/16", "postgresql/17"]
    r = anon.get("/databases/engines", xfilter={"version": "16"})
    assert [e["id"] for e in assert_json(r)["data"]] == ["postgresql/16"]
    # Aliases are names, not entries.
    r = anon.get("/databases/engines", xfilter={"version": "8.0.30"})
    assert assert_json(r)["data"] == [] and r.json["results"] == 0
    r = anon.get("/databases/engines", xfilter={"engine": "postgresql", "+order_by": "version",
                                                "+order": "desc"})
    assert [e["version"] for e in assert_json(r)["data"]] == ["17", "16", "15", "14", "13"]


@pytest.mark.parametrize("path,engine", [(MY, "mysql/8"), (PG, "postgresql/13"),
                                         (PG, "postgresql/14"), (PG, "postgresql/15"),
                                         (PG, "postgresql/16"), (PG, "postgresql/17")])
def test_create_takes_major_ids(acct, path, engine):
    make = my_body if path == MY else pg_body
    r = acct.client.post(path, json=make("major-" + engine.split("/")[1], engine=engine))
    assert r.status == 200, r
    assert assert_json(r)["engine"] == engine.split("/")[0]


@pytest.mark.parametrize("path,engine", [(MY, "mysql/8.0.30"), (MY, "mysql/5.7.30"),
                                         (MY, "mysql/8.0.35"), (PG, "postgresql/16.4"),
                                         (PG, "postgresql/13.2"), (PG, "postgresql/17.4")])
def test_create_takes_full_version_ids(acct, path, engine):
    """A contract client's engine id: the database runs that version."""
    make = my_body if path == MY else pg_body
    r = acct.client.post(path, json=make("full-" + engine.split("/")[1].replace(".", "-"),
                                         engine=engine))
    assert r.status == 200, r
    db = assert_json(r)
    assert (db["engine"], db["version"]) == tuple(engine.split("/"))


@pytest.mark.parametrize("path,engine,reason", [
    (MY, "mysql/9", "Engine not found"),
    (MY, "mysql/8.0", "Engine not found"),
    (PG, "postgresql/12", "Engine not found"),
    (PG, "mysql/8", "Must be a postgresql engine (postgresql/<version>)"),
    (MY, "postgresql/17", "Must be a mysql engine (mysql/<version>)"),
])
def test_create_refuses_other_ids(acct, path, engine, reason):
    make = my_body if path == MY else pg_body
    assert_error(acct.client.post(path, json=make("nope", engine=engine)), 400, reason,
                 "engine")


# --------------------------------------------------------------------------
# Node types
# --------------------------------------------------------------------------

def check_db_type(t):
    """What the Go SDK's DatabaseType decodes (ints, a bool, float prices)
    and what the Python SDK reads (type_class from class)."""
    assert [k for k, _ in t] == TYPE_KEYS, t
    t = dict(t)
    for k in ("id", "label", "class"):
        assert isinstance(t[k], str) and t[k], t
    for k in ("disk", "memory", "vcpus"):
        assert is_int(t[k]) and t[k] > 0, t
    assert t["deprecated"] is False, t
    engines = dict(t["engines"])
    assert list(engines) == ["mysql", "postgresql"], t
    for engine, tiers in engines.items():
        tiers = [dict(x) for x in tiers]
        sizes = [x["quantity"] for x in tiers]
        # Shared plans: one or three nodes; dedicated ones two as well.
        assert sizes == ([1, 2, 3] if t["class"] == "dedicated" else [1, 3]), t
        prices = [dict(x["price"]) for x in tiers]
        for p in prices:
            assert list(p) == ["hourly", "monthly"] and all(is_num(v) and v > 0
                                                            for v in p.values()), t
        assert prices == sorted(prices, key=lambda p: p["monthly"]), t
    return t


def test_types_as_the_public_api_lists_them(anon):
    r = anon.get("/databases/types")
    doc = assert_json(r)
    data = assert_envelope(doc)
    assert [t["id"] for t in data] == TYPE_IDS
    assert (doc["page"], doc["pages"], doc["results"]) == (1, 1, 18), doc
    for t in r.json_pairs()[0][1]:
        check_db_type(t)
    # The Python SDK's integration test reads the first type.
    assert data[0]["class"] == "nanode" and data[0]["id"] == "g6-nanode-1"
    # The public API's recorded entry, every value.
    assert data[0] == {
        "class": "nanode", "deprecated": False, "disk": 9216, "id": "g6-nanode-1",
        "label": "DBaaS - Nanode 1GB", "memory": 1024, "vcpus": 1,
        "engines": {e: [{"price": {"hourly": 0.024, "monthly": 16.0}, "quantity": 1},
                        {"price": {"hourly": 0.055, "monthly": 37.0}, "quantity": 3}]
                    for e in ("mysql", "postgresql")}}
    dedicated = {t["id"]: t for t in data}["g6-dedicated-2"]
    assert dedicated["engines"]["postgresql"][1] == {
        "price": {"hourly": 0.214, "monthly": 143.0}, "quantity": 2}


def test_type_single(anon):
    data = anon.all_pages("/databases/types")
    for t in data:
        r = anon.get("/databases/types/" + t["id"])
        assert r.status == 200, r
        assert assert_json(r) == t
    check_db_type(anon.get("/databases/types/g6-dedicated-56").json_pairs())


@pytest.mark.parametrize("tid", ["g6-nanode-2", "g6-premium-2", "G6-NANODE-1", "nanode"])
def test_type_unknown(anon, tid):
    assert_error(anon.get("/databases/types/" + tid), 404, "Not found")


def test_types_pages(anon):
    whole = anon.get("/databases/types", params={"page_size": 500}).json
    r = anon.get("/databases/types", params={"page_size": 25})
    assert assert_json(r) == whole
    r = anon.get("/databases/types", params={"page": 2, "page_size": 25})
    assert assert_json(r) == {"data": [], "page": 2, "pages": 1, "results": 18}
    assert_error(anon.get("/databases/types", params={"page_size": 10}), 400, None,
                 "page_size")


def test_types_filter(anon):
    """deprecated: the field the public API marks filterable, which the
    Python SDK's docs filter on (DatabaseType.deprecated == False)."""
    everything = anon.all_pages("/databases/types")
    r = anon.get("/databases/types", xfilter={"deprecated": False})
    assert assert_json(r)["data"] == everything
    r = anon.get("/databases/types", xfilter={"deprecated": True})
    assert assert_json(r) == {"data": [], "page": 1, "pages": 1, "results": 0}
    r = anon.get("/databases/types", xfilter={"+or": []})
    assert assert_json(r)["data"] == everything
    assert_error(anon.get("/databases/types", xfilter={"class": "nanode"}), 400,
                 "Cannot filter on class", "X-Filter")
    assert_error(anon.get("/databases/types", xfilter={"deprecated": {"+gt": "x"}}), 400,
                 None, "X-Filter")


# --------------------------------------------------------------------------
# Engine settings
# --------------------------------------------------------------------------

def settings(doc, at=""):
    """(path, description) of every setting of a config document."""
    for key, d in doc.items():
        path = f"{at}.{key}" if at else key
        if "type" in d:
            yield path, d
        else:
            yield from settings(d, path)


@pytest.mark.parametrize("engine,keys,count", [
    ("mysql", ["binlog_retention_period", "mysql"], 28),
    ("postgresql", ["pg", "pg_stat_monitor_enable", "pglookout",
                    "shared_buffers_percentage", "work_mem"], 52)])
def test_config_document(anon, engine, keys, count):
    r = anon.get(f"/databases/{engine}/config")
    doc = assert_json(r)
    # The repository's data, served as it is, compact as the public API
    # writes it.
    assert doc == json.loads((DBCONFIG / f"{engine}.json").read_text())
    assert r.body.startswith(b'{"' + keys[0].encode() + b'": {"')
    assert list(doc) == keys
    found = list(settings(doc))
    assert len(found) == count
    for path, d in found:
        assert set(d) <= {"default", "description", "enum", "example", "maxLength",
                          "maximum", "minLength", "minimum", "pattern",
                          "requires_restart", "type"}, path
        assert isinstance(d["description"], str) and d["description"], path
        assert isinstance(d["requires_restart"], bool), path
        types = d["type"] if isinstance(d["type"], list) else [d["type"]]
        assert set(types) <= {"integer", "number", "string", "boolean", "null"}, path
        if "integer" in types:
            # The Go SDK decodes these into int fields: whole JSON numbers.
            for k in ("minimum", "maximum", "example", "default"):
                assert k not in d or is_int(d[k]), (path, k)
        if "enum" in d:
            assert "example" not in d or d["example"] in d["enum"], path
            assert "default" not in d or d["default"] in d["enum"], path
    # Only innodb_ft_server_stopword_table takes null: the Go SDK's field
    # for its type is a list, every other one a string.
    assert [p for p, d in found if isinstance(d["type"], list)] == (
        ["mysql.innodb_ft_server_stopword_table"] if engine == "mysql" else [])


def test_mysql_config_as_clients_read_it(anon):
    doc = anon.get("/databases/mysql/config").json
    # linode-cli's integration test.
    assert doc["binlog_retention_period"] == {
        **doc["binlog_retention_period"], "type": "integer", "minimum": 600,
        "maximum": 9007199254740991, "requires_restart": False}
    read_io = doc["mysql"]["innodb_read_io_threads"]
    assert (read_io["requires_restart"], read_io["type"], read_io["minimum"],
            read_io["maximum"]) == (True, "integer", 1, 64)
    tmp = doc["mysql"]["internal_tmp_mem_storage_engine"]
    assert tmp["type"] == "string" and set(tmp["enum"]) == {"TempTable", "MEMORY"}
    # The Terraform provider's linode_database_mysql_config data source.
    assert {"description", "example", "maximum", "minimum", "requires_restart",
            "type"} <= set(doc["mysql"]["connect_timeout"])
    assert {"description", "example", "maxLength", "minLength", "pattern",
            "requires_restart", "type"} <= set(doc["mysql"]["default_time_zone"])
    # The public maximum of group_concat_max_len is 2^64 - 1: kept exactly.
    assert doc["mysql"]["group_concat_max_len"]["maximum"] == 18446744073709551615
    assert b'"maximum": 18446744073709551615,' in anon.get("/databases/mysql/config").body


def test_postgresql_config_as_clients_read_it(anon):
    doc = anon.get("/databases/postgresql/config").json
    pg = doc["pg"]
    # linode-cli's integration test.
    f = pg["autovacuum_analyze_scale_factor"]
    assert (f["type"], f["minimum"], f["maximum"]) == ("number", 0.0, 1.0)
    f = pg["autovacuum_analyze_threshold"]
    assert (f["type"], f["minimum"], f["maximum"]) == ("integer", 0, 2147483647)
    f = pg["autovacuum_max_workers"]
    assert (f["type"], f["minimum"], f["maximum"], f["requires_restart"]) == (
        "integer", 1, 20, True)
    f = pg["bgwriter_delay"]
    assert (f["type"], f["minimum"], f["maximum"]) == ("integer", 10, 10000)
    assert pg["default_toast_compression"]["type"] == "string"
    assert {"lz4", "pglz"} <= set(pg["default_toast_compression"]["enum"])
    assert pg["jit"]["type"] == "boolean"
    assert pg["max_files_per_process"]["requires_restart"] is True
    assert pg["max_logical_replication_workers"]["requires_restart"] is True
    assert {"md5", "scram-sha-256"} <= set(pg["password_encryption"]["enum"])
    assert (pg["pg_partman_bgw.interval"]["type"], pg["pg_partman_bgw.interval"]["minimum"]
            ) == ("integer", 3600)
    assert (pg["pg_partman_bgw.role"]["type"], pg["pg_partman_bgw.role"]["maxLength"]) == (
        "string", 64)
    f = pg["pg_stat_monitor.pgsm_enable_query_plan"]
    assert (f["type"], f["requires_restart"]) == ("boolean", True)
    # The settings outside pg, and the defaults the public API applies.
    assert doc["pg_stat_monitor_enable"]["default"] is False
    assert doc["pglookout"]["max_failover_replication_time_lag"]["default"] == 60
    assert pg["password_encryption"]["default"] == "md5"
    assert doc["shared_buffers_percentage"]["type"] == "number"
    assert doc["work_mem"]["type"] == "integer"


def test_config_of_no_engine(anon):
    assert_error(anon.get("/databases/oracle/config"), 404, "Not found")
