"""Pagination and X-Filter on the public lists."""

import pytest

from checks import assert_envelope, assert_error, assert_headers, assert_json, pages_for

LISTS = ["/regions", "/regions/availability", "/compute/types", "/databases/engines"]


# --------------------------------------------------------------------------
# Pagination
# --------------------------------------------------------------------------

@pytest.mark.parametrize("path", LISTS)
@pytest.mark.parametrize("params,field", [
    ({"page_size": "10"}, "page_size"),
    ({"page_size": "24"}, "page_size"),
    ({"page_size": "501"}, "page_size"),
    ({"page_size": "abc"}, "page_size"),
    ({"page_size": ""}, "page_size"),
    ({"page": "0"}, "page"),
    ({"page": "-1"}, "page"),
    ({"page": "abc"}, "page"),
    ({"page": "1.5"}, "page"),
], ids=["size10", "size24", "size501", "size-abc", "size-empty", "page0", "page-neg",
        "page-abc", "page-frac"])
def test_bad_pagination(anon, path, params, field):
    r = anon.get(path, params=params)
    assert_error(r, 400, None, field)
    assert_headers(r, cache=None)   # see test_headers.py::test_errors_not_cacheable


@pytest.mark.parametrize("size", ["25", "500"])
def test_page_size_bounds_accepted(anon, size):
    r = anon.get("/compute/types", params={"page_size": size})
    assert r.status == 200, r
    assert len(assert_envelope(r.json)) <= int(size)


def test_types_page_slice(anon):
    full = anon.get("/compute/types", params={"page_size": 500}).json
    everything = full["data"]
    assert full["results"] == len(everything)
    r = anon.get("/compute/types", params={"page_size": 25, "page": 2})
    assert r.status == 200, r
    doc = assert_json(r)
    assert_envelope(doc)
    assert doc["page"] == 2, doc
    assert doc["results"] == len(everything), doc
    assert doc["pages"] == pages_for(len(everything), 25), doc
    assert doc["data"] == everything[25:50]
    first = anon.get("/compute/types", params={"page_size": 25}).json
    assert first["data"] == everything[:25]


def test_default_page_size_is_100(anon):
    doc = anon.get("/regions/availability").json
    assert len(doc["data"]) == min(100, doc["results"]), doc
    assert doc["pages"] == pages_for(doc["results"], 100), doc


def test_page_past_the_end(anon):
    full = anon.get("/compute/types", params={"page_size": 25}).json
    page = full["pages"] + 3
    r = anon.get("/compute/types", params={"page_size": 25, "page": page})
    assert r.status == 200, r
    doc = assert_json(r)
    assert doc == {"data": [], "page": page, "pages": full["pages"],
                   "results": full["results"]}, doc


def test_pagination_walk_is_consistent(anon):
    """Walking every page of availability with page_size 25 yields each item
    once, and every page reports the same results/pages."""
    first = anon.get("/regions/availability", params={"page_size": 25}).json
    items = []
    for page in range(1, first["pages"] + 1):
        doc = anon.get("/regions/availability", params={"page_size": 25, "page": page}).json
        assert doc["results"] == first["results"] and doc["pages"] == first["pages"], doc
        assert len(doc["data"]) == (25 if page < doc["pages"]
                                    else doc["results"] - 25 * (doc["pages"] - 1))
        items += doc["data"]
    assert len(items) == first["results"]
    keys = [(i["region"], i["plan"]) for i in items]
    assert len(set(keys)) == len(keys)


def test_zero_results(anon):
    r = anon.get("/compute/types", xfilter={"label": "no such type, really"})
    assert r.status == 200, r
    assert assert_json(r) == {"data": [], "page": 1, "pages": 1, "results": 0}


# --------------------------------------------------------------------------
# X-Filter
# --------------------------------------------------------------------------

@pytest.fixture
def types(anon):
    return anon.all_pages("/compute/types")


def test_filter_class_ordered(anon, types):
    r = anon.get("/compute/types", params={"page_size": 500},
                 xfilter={"class": "gpu", "+order_by": "memory", "+order": "desc"})
    assert r.status == 200, r
    assert_headers(r)
    data = assert_envelope(assert_json(r))
    gpus = [t for t in types if t["class"] == "gpu"]
    assert gpus, "the catalogue has no gpu type"
    assert r.json["results"] == len(data) == len(gpus)
    assert all(t["class"] == "gpu" for t in data)
    mem = [t["memory"] for t in data]
    assert mem == sorted(mem, reverse=True), mem
    assert {t["id"] for t in data} == {t["id"] for t in gpus}


def test_filter_order_asc_default(anon, types):
    data = anon.get("/compute/types", params={"page_size": 500},
                    xfilter={"+order_by": "vcpus"}).json["data"]
    v = [t["vcpus"] for t in data]
    assert v == sorted(v) and len(data) == len(types)


def test_filter_or(anon, types):
    r = anon.get("/compute/types", params={"page_size": 500},
                 xfilter={"+or": [{"class": "nanode"}, {"class": "highmem"}]})
    assert r.status == 200, r
    data = r.json["data"]
    want = [t["id"] for t in types if t["class"] in ("nanode", "highmem")]
    assert {t["class"] for t in data} == {"nanode", "highmem"}
    assert sorted(t["id"] for t in data) == sorted(want)
    assert r.json["results"] == len(want)


def test_filter_gte(anon, types):
    r = anon.get("/compute/types", params={"page_size": 500}, xfilter={"vcpus": {"+gte": 8}})
    assert r.status == 200, r
    data = r.json["data"]
    assert all(t["vcpus"] >= 8 for t in data)
    assert len(data) == len([t for t in types if t["vcpus"] >= 8]) > 0


def test_filter_lt_and(anon, types):
    r = anon.get("/compute/types", params={"page_size": 500},
                 xfilter={"+and": [{"memory": {"+lt": 16384}}, {"class": "standard"}]})
    assert r.status == 200, r
    want = [t["id"] for t in types if t["memory"] < 16384 and t["class"] == "standard"]
    assert sorted(t["id"] for t in r.json["data"]) == sorted(want)


def test_filter_contains(anon, types):
    r = anon.get("/compute/types", params={"page_size": 500}, xfilter={"label": {"+contains": "GB"}})
    assert r.status == 200, r
    data = r.json["data"]
    assert data
    assert all("gb" in t["label"].lower() for t in data), data
    got = {t["id"] for t in data}
    assert {t["id"] for t in types if "GB" in t["label"]} <= got


def test_filter_neq(anon, types):
    r = anon.get("/compute/types", params={"page_size": 500}, xfilter={"class": {"+neq": "gpu"}})
    assert r.status == 200, r
    assert sorted(t["id"] for t in r.json["data"]) == sorted(
        t["id"] for t in types if t["class"] != "gpu")


def test_filter_unknown_field(anon):
    r = anon.get("/compute/types", xfilter={"foo": 1})
    assert_error(r, 400, "Cannot filter on foo", "X-Filter")
    assert_headers(r)


@pytest.mark.parametrize("xfilter", ["{", "not json", "[1,2]", '"class"',
                                     '{"class": {"+bogus": 1}}', '{"+or": 5}',
                                     '{"+order": "sideways", "+order_by": "memory"}'],
                         ids=["truncated", "text", "array", "string", "bad-op", "or-not-array",
                              "bad-order"])
def test_filter_bad(anon, xfilter):
    r = anon.get("/compute/types", xfilter=xfilter)
    assert_error(r, 400, "Could not apply filter", "X-Filter")


def test_filter_on_non_filterable_type_field(anon):
    assert_error(anon.get("/compute/types", xfilter={"price": None}), 400,
                 "Cannot filter on price", "X-Filter")


def test_filter_regions_country(anon):
    regions = anon.all_pages("/regions")
    us = [r["id"] for r in regions if r["country"] == "us"]
    assert us, "no region in the us"
    r = anon.get("/regions", xfilter={"country": "us"})
    assert r.status == 200, r
    assert sorted(x["id"] for x in r.json["data"]) == sorted(us)
    assert r.json["results"] == len(us)


def test_filter_regions_unfilterable(anon):
    assert_error(anon.get("/regions", xfilter={"resolvers": "x"}), 400,
                 "Cannot filter on resolvers", "X-Filter")


def test_filter_engines(anon):
    engines = anon.all_pages("/databases/engines")
    r = anon.get("/databases/engines", xfilter={"engine": "mysql"})
    assert r.status == 200, r
    assert sorted(e["id"] for e in r.json["data"]) == sorted(
        e["id"] for e in engines if e["engine"] == "mysql")


def test_filter_availability(anon):
    everything = anon.all_pages("/regions/availability")
    r = anon.get("/regions/availability", params={"page_size": 500},
                 xfilter={"available": True})
    assert r.status == 200, r
    doc = r.json
    assert all(i["available"] is True for i in doc["data"])
    assert doc["results"] == len([i for i in everything if i["available"]])


@pytest.mark.parametrize("xfilter", [{"+and": []}, {"+or": []},
                                     {"+and": [], "+order_by": "memory", "+order": "desc"}],
                         ids=["and", "or", "and-ordered"])
def test_filter_empty_and_or_match_everything(anon, types, xfilter):
    """Today's clients send an empty "+and" (linodego's filter builder, for
    every Terraform data source without filters): no condition (docs/conventions.md,
    "Today's clients")."""
    r = anon.get("/compute/types", params={"page_size": 500}, xfilter=xfilter)
    assert r.status == 200, r
    got = [t["id"] for t in r.json["data"]]
    assert sorted(got) == sorted(t["id"] for t in types)
    if "+order_by" in xfilter:
        memory = [t["memory"] for t in r.json["data"]]
        assert memory == sorted(memory, reverse=True)


def test_filter_regions_site_type(anon):
    """The Terraform provider's linode_regions filters on site_type."""
    regions = anon.all_pages("/regions")
    core = sorted(x["id"] for x in regions if x["site_type"] == "core")
    assert core, "no core region"
    r = anon.get("/regions", params={"page_size": 500}, xfilter={"site_type": "core"})
    assert r.status == 200, r
    assert sorted(x["id"] for x in r.json["data"]) == core
    r = anon.get("/regions", xfilter={"site_type": "no-such-site"})
    assert r.status == 200 and r.json["data"] == [], r
