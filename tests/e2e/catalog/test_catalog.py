"""Public catalogue routes: regions, availability, compute types, engines."""

import pytest

from checks import (CACHEABLE, NO_STORE, assert_envelope, assert_error, assert_headers,
                    assert_json)

# The contract's keys, and placement_group_limits and monitors, which the
# public API's regions carry (the public shapes; linodego's
# recorded TestRegionsMonitorsSection).
REGION_KEYS = {"id", "label", "country", "capabilities", "status", "resolvers", "site_type",
               "placement_group_limits", "monitors"}
MONITORED = "Managed Databases"
TYPE_KEYS = ["id", "label", "price", "region_prices", "addons", "memory", "disk", "transfer",
             "vcpus", "gpus", "network_out", "class", "successor"]
CLASSES = {"nanode", "standard", "dedicated", "premium", "gpu", "highmem"}


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_region(reg):
    assert set(reg) == REGION_KEYS, reg
    for k in ("id", "label", "country", "site_type"):
        assert isinstance(reg[k], str) and reg[k], reg
    assert reg["status"] in ("ok", "outage"), reg
    assert isinstance(reg["capabilities"], list), reg
    assert all(isinstance(c, str) for c in reg["capabilities"]), reg
    assert set(reg["resolvers"]) == {"ipv4", "ipv6"}, reg
    assert all(isinstance(v, str) for v in reg["resolvers"].values()), reg
    # No placement groups here: the public API's values.
    assert reg["placement_group_limits"] == {"maximum_pgs_per_customer": None,
                                             "maximum_linodes_per_pg": 5,
                                             "maximum_linodes_per_flexible_pg": 5}, reg
    # Alerts and metrics of the managed databases, where the region has them.
    offered = [MONITORED] if MONITORED in reg["capabilities"] else []
    assert reg["monitors"] == {"alerts": offered, "metrics": offered}, reg


# --------------------------------------------------------------------------
# Regions
# --------------------------------------------------------------------------

def test_regions_list(anon):
    r = anon.get("/regions")
    assert r.status == 200, r
    assert_headers(r, cache=CACHEABLE, scopes="unknown", accepted="*")
    doc = assert_json(r)
    data = assert_envelope(doc)
    assert doc["page"] == 1 and doc["pages"] == 1, doc
    assert doc["results"] == len(data) >= 10, doc
    for reg in data:
        check_region(reg)
    ids = [reg["id"] for reg in data]
    assert len(set(ids)) == len(ids), ids
    assert [reg["status"] for reg in data].count("outage") == 1, data
    # The seeded catalogue has regions with managed databases and without.
    assert {bool(reg["monitors"]["alerts"]) for reg in data} == {True, False}, data


def test_region_single(anon):
    regions = anon.get("/regions").json["data"]
    for reg in (regions[0], regions[-1]):
        r = anon.get(f"/regions/{reg['id']}")
        assert r.status == 200, r
        assert_headers(r, cache=CACHEABLE, scopes="unknown", accepted="*")
        assert assert_json(r) == reg


def test_region_unknown(anon):
    r = anon.get("/regions/xx-nowhere-9")
    assert_error(r, 404, "Not found")
    assert_headers(r, cache=None)   # see test_headers.py::test_errors_not_cacheable


def test_regions_availability(anon):
    regions = {reg["id"] for reg in anon.get("/regions").json["data"]}
    r = anon.get("/regions/availability")
    assert r.status == 200, r
    assert_headers(r, cache=NO_STORE, scopes="unknown", accepted="*")
    doc = assert_json(r)
    data = assert_envelope(doc)
    assert data, doc
    assert doc["results"] >= len(data)
    for item in data:
        assert set(item) == {"region", "plan", "available"}, item
        assert item["region"] in regions, item
        assert isinstance(item["plan"], str) and item["plan"], item
        assert isinstance(item["available"], bool), item


def test_region_availability_single(anon):
    everything = anon.all_pages("/regions/availability")
    region = everything[0]["region"]
    r = anon.get(f"/regions/{region}/availability")
    assert r.status == 200, r
    assert_headers(r, cache=NO_STORE, scopes="unknown", accepted="*")
    doc = assert_json(r)
    assert isinstance(doc, list), doc           # a bare array, not an envelope
    assert doc, doc
    for item in doc:
        assert set(item) == {"region", "plan", "available"}, item
        assert item["region"] == region, item
    expected = sorted((i["plan"], i["available"]) for i in everything if i["region"] == region)
    assert sorted((i["plan"], i["available"]) for i in doc) == expected


def test_region_availability_unknown(anon):
    assert_error(anon.get("/regions/xx-nowhere-9/availability"), 404, "Not found")


# VPC availability: one item per region, in the public API's shape
# (linodego's recorded TestRegionsVPCAvailability_List,
# TestRegionVPCAvailability_Get); available where the region's capabilities
# list VPCs, as in those recordings region by region.
VPC_KEYS = ["region", "available", "available_ipv6_prefix_lengths"]


def expected_vpc(reg):
    return {"region": reg["id"], "available": "VPCs" in reg["capabilities"],
            "available_ipv6_prefix_lengths": []}


def test_regions_vpc_availability(anon):
    regions = anon.all_pages("/regions")
    r = anon.get("/regions/vpc-availability")
    assert r.status == 200, r
    assert_headers(r, cache=NO_STORE, scopes="unknown", accepted="*")
    doc = assert_json(r)
    data = assert_envelope(doc)
    assert (doc["page"], doc["pages"], doc["results"]) == (1, 1, len(regions)), doc
    assert [[k for k, _ in item] for item in dict(r.json_pairs())["data"]] == \
        [VPC_KEYS] * len(data)
    assert data == [expected_vpc(reg) for reg in sorted(regions, key=lambda x: x["id"])]
    # The seeded catalogue has regions with VPCs and without (edge sites).
    assert {item["available"] for item in data} == {True, False}, data


def test_regions_vpc_availability_pages(anon):
    everything = anon.all_pages("/regions/vpc-availability")
    first = anon.get("/regions/vpc-availability", params={"page_size": 25}).json
    assert first["results"] == len(everything) and first["data"] == everything[:25], first
    past = anon.get("/regions/vpc-availability", params={"page": 9}).json
    assert past["data"] == [] and past["page"] == 9, past


def test_regions_vpc_availability_filter(anon):
    """X-Filter on region and available: each selects exactly the matching
    items; any other field is refused as on every list."""
    everything = anon.all_pages("/regions/vpc-availability")
    without = [i for i in everything if not i["available"]]
    assert without and len(without) < len(everything), everything
    for value, want in ((False, without),
                        (True, [i for i in everything if i["available"]])):
        r = anon.get("/regions/vpc-availability", xfilter={"available": value})
        assert r.status == 200, r
        assert r.json["data"] == want and r.json["results"] == len(want), r
    r = anon.get("/regions/vpc-availability", xfilter={"region": "us-east"})
    assert r.status == 200, r
    assert r.json["data"] == [i for i in everything if i["region"] == "us-east"], r
    r = anon.get("/regions/vpc-availability",
                 xfilter={"+order_by": "available", "+order": "asc"})
    assert [i["available"] for i in r.json["data"]] == \
        sorted(i["available"] for i in everything), r
    for field in ("plan", "available_ipv6_prefix_lengths", "capabilities"):
        assert_error(anon.get("/regions/vpc-availability", xfilter={field: "x"}), 400,
                     f"Cannot filter on {field}", "X-Filter")
    assert_error(anon.get("/regions/vpc-availability", xfilter={"available": "yes"}), 400,
                 "Could not apply filter", "X-Filter")


def test_region_vpc_availability_single(anon):
    everything = anon.all_pages("/regions/vpc-availability")
    for item in (everything[0], everything[-1],
                 [i for i in everything if not i["available"]][0]):
        r = anon.get(f"/regions/{item['region']}/vpc-availability")
        assert r.status == 200, r
        assert_headers(r, cache=NO_STORE, scopes="unknown", accepted="*")
        assert assert_json(r) == item          # an object, not an array
        assert [k for k, _ in r.json_pairs()] == VPC_KEYS


def test_region_vpc_availability_unknown(anon):
    r = anon.get("/regions/xx-nowhere-9/vpc-availability")
    assert_error(r, 404, "Not found")
    assert_headers(r, cache=None)
    # The same answer as the plans' availability of the same unknown region.
    other = anon.get("/regions/xx-nowhere-9/availability")
    assert (r.status, r.json) == (other.status, other.json)


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE"])
def test_vpc_availability_is_read_only(anon, method):
    for path in ("/regions/vpc-availability", "/regions/us-east/vpc-availability"):
        r = anon.request(method, path)
        assert_error(r, 405, "Method Not Allowed")


# --------------------------------------------------------------------------
# Compute types
# --------------------------------------------------------------------------

def check_type_pairs(pairs):
    """pairs: one type as (key, value) pairs in wire order."""
    assert [k for k, _ in pairs] == TYPE_KEYS, [k for k, _ in pairs]
    t = dict(pairs)
    assert isinstance(t["id"], str) and t["id"], t
    assert isinstance(t["label"], str) and t["label"], t
    assert t["class"] in CLASSES, t
    for k in ("memory", "disk", "transfer", "vcpus", "gpus", "network_out"):
        assert is_int(t[k]), (k, t)
    price = dict(t["price"])
    assert set(price) == {"hourly", "monthly"}, t
    assert all(is_num(v) for v in price.values()), t
    assert isinstance(t["region_prices"], list), t
    for rp in t["region_prices"]:
        rp = dict(rp)
        assert {"id", "hourly", "monthly"} <= set(rp), rp
        assert is_num(rp["hourly"]) and is_num(rp["monthly"]), rp
    addons = dict(t["addons"])
    assert "backups" in addons, t
    backups = dict(addons["backups"])
    assert {"price", "region_prices"} <= set(backups), t
    assert t["successor"] is None or isinstance(t["successor"], str), t
    return t


def test_types_list(anon):
    r = anon.get("/compute/types")
    assert r.status == 200, r
    assert_headers(r, cache=NO_STORE, scopes="unknown", accepted="*")
    doc = assert_json(r)
    data = assert_envelope(doc)
    assert doc["results"] == len(data) >= 20, doc
    types = [check_type_pairs(p) for p in dict(r.json_pairs())["data"]]
    assert {t["class"] for t in types} == CLASSES
    ids = [t["id"] for t in types]
    assert len(set(ids)) == len(ids), ids


def test_type_single(anon):
    data = anon.get("/compute/types").json["data"]
    for t in (data[0], data[-1]):
        r = anon.get(f"/compute/types/{t['id']}")
        assert r.status == 200, r
        assert_headers(r, cache=NO_STORE, scopes="unknown", accepted="*")
        assert assert_json(r) == t
        check_type_pairs(r.json_pairs())


def test_type_unknown(anon):
    assert_error(anon.get("/compute/types/g6-nonexistent-1"), 404, "Not found")


# --------------------------------------------------------------------------
# Database engines
# --------------------------------------------------------------------------

def test_engines_list(anon):
    r = anon.get("/databases/engines")
    assert r.status == 200, r
    assert_headers(r, cache=NO_STORE, scopes="unknown", accepted="*")
    doc = assert_json(r)
    data = assert_envelope(doc)
    assert doc["results"] == len(data), doc
    for e in data:
        assert set(e) == {"id", "engine", "version"}, e
        assert e["id"] == f"{e['engine']}/{e['version']}", e
    versions = {}
    for e in data:
        versions.setdefault(e["engine"], set()).add(e["version"])
    # docs/conventions.md, today's clients (managed databases): engine ids by major
    # version, the public API's list; the contract's full-version ids stay
    # accepted as aliases (test_database_catalog.py, test_engine_full_version_ids).
    assert versions == {"mysql": {"8"}, "postgresql": {"13", "14", "15", "16", "17"}}, versions


@pytest.mark.parametrize("encoded", [True, False], ids=["encoded", "unencoded"])
def test_engine_single(anon, encoded):
    data = anon.get("/databases/engines").json["data"]
    for e in [e for e in data if e["engine"] in ("mysql", "postgresql")][:4]:
        sep = "%2F" if encoded else "/"
        r = anon.get(f"/databases/engines/{e['engine']}{sep}{e['version']}")
        assert r.status == 200, r
        assert_headers(r, cache=NO_STORE, scopes="unknown", accepted="*")
        assert assert_json(r) == e


def test_engine_encoded_lowercase_escape(anon):
    e = [e for e in anon.get("/databases/engines").json["data"] if e["engine"] == "mysql"][0]
    r = anon.get(f"/databases/engines/mysql%2f{e['version']}")
    assert r.status == 200, r
    assert assert_json(r) == e


@pytest.mark.parametrize("path", ["/databases/engines/mysql%2F0.0.1",
                                  "/databases/engines/mysql/0.0.1",
                                  "/databases/engines/nosql%2F1.0",
                                  "/databases/engines/mysql"])
def test_engine_unknown(anon, path):
    assert_error(anon.get(path), 404, "Not found")


# --------------------------------------------------------------------------
# Public routes ignore Authorization
# --------------------------------------------------------------------------

PUBLIC_PATHS = ["/regions", "/regions/availability", "/regions/vpc-availability",
                "/compute/types", "/databases/engines"]


@pytest.mark.parametrize("path", PUBLIC_PATHS)
@pytest.mark.parametrize("authorization", ["Bearer junk", "Bearer " + "0" * 64, "Basic Zm9vOmJhcg=="],
                         ids=["junk", "unknown-token", "basic"])
def test_public_ignores_authorization(anon, path, authorization):
    r = anon.get(path, authorization=authorization)
    assert r.status == 200, r
    assert_json(r)


def test_public_single_ignores_authorization(anon):
    reg = anon.get("/regions").json["data"][0]["id"]
    typ = anon.get("/compute/types").json["data"][0]["id"]
    eng = anon.get("/databases/engines").json["data"][0]["id"].replace("/", "%2F")
    for path in (f"/regions/{reg}", f"/regions/{reg}/availability",
                 f"/regions/{reg}/vpc-availability", f"/compute/types/{typ}",
                 f"/databases/engines/{eng}"):
        r = anon.get(path, authorization="Bearer junk")
        assert r.status == 200, r
        assert_json(r)


def test_public_with_valid_token(api):
    r = api.get("/regions")
    assert r.status == 200, r
    assert_headers(r, cache=CACHEABLE, accepted="*")
    for path in ("/regions/vpc-availability", "/regions/us-east/vpc-availability"):
        r = api.get(path)
        assert r.status == 200, r
        assert_headers(r, cache=NO_STORE, accepted="*")
