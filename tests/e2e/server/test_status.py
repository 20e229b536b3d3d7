"""The module's counters: SetHandler acctapi-status (JSON, ?html for a page)
and the module's section of mod_status's server-status (?auto too).  They are
shared by every child, so the counts are exact however the requests spread.

The status pages are outside /v4 (and outside the OpenAPI document), so they
are read with plain requests; so are the counted requests, each on a fresh
connection."""

import collections
import re
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

import harness

STATUS = "/acctapi-status"
FAMILIES = ["catalog", "profile", "domains", "databases", "tags", "openapi", "other"]
CLASSES = ["2xx", "3xx", "4xx", "5xx"]
LISTS = 3      # list budget per minute: a few list GETs reach a 429


@pytest.fixture
def srv(make_server):
    srv = make_server(name="status", rate_limit=f"{LISTS} 1000000", status=STATUS)
    # The harness's readiness probe (GET /v4/regions) is counted once logged,
    # possibly after the server has answered: let it land before any test
    # takes its "before" numbers.
    deadline = time.monotonic() + 5
    while status_json(srv)["families"]["catalog"]["requests"] == 0:
        assert time.monotonic() < deadline, "the readiness probe was not counted"
        time.sleep(0.05)
    return srv


def call(srv, path, token=None):
    """One API request on a fresh connection; its status code."""
    headers = {"Connection": "close"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return requests.get(srv.url + "/v4" + path, headers=headers, timeout=15).status_code


def status_json(srv):
    r = requests.get(srv.url + STATUS, timeout=15)
    assert r.status_code == 200, r.text
    assert r.headers["Content-Type"] == "application/json"
    return r.json()


def status_auto(srv):
    r = requests.get(srv.url + "/server-status?auto", timeout=15)
    assert r.status_code == 200, r.text
    lines = dict(line.split(": ", 1) for line in r.text.splitlines() if ": " in line)
    return {k: v for k, v in lines.items() if k.startswith("Acctapi")}


def schema_version(backend):
    out = backend.admin("migrate")
    m = re.fullmatch(r"schema at version (\d+) \(was \d+\)\s*", out)
    assert m, out
    return int(m.group(1))


def deltas(before, after):
    return {f: {k: after["families"][f][k] - before["families"][f][k]
                for k in ["requests"] + CLASSES}
            for f in FAMILIES}


def settled(srv, before, expected, timeout=5):
    """The status once the counts reach `expected`: a request is counted when
    httpd logs it, just after the client has its answer."""
    deadline = time.monotonic() + timeout
    while True:
        after = status_json(srv)
        if deltas(before, after) == expected or time.monotonic() > deadline:
            return after
        time.sleep(0.05)


def test_counts_per_family_and_class(srv, backend):
    before = status_json(srv)
    seen = collections.defaultdict(collections.Counter)
    statuses = collections.Counter()

    def count(family, path, token=None):
        code = call(srv, path, token)
        seen[family]["requests"] += 1
        seen[family][f"{code // 100}xx"] += 1
        statuses[code] += 1
        return code

    assert count("profile", "/profile", backend.token) == 200
    assert count("profile", "/profile", "0" * 64) == 401
    assert count("openapi", "/openapi.json") == 200
    assert count("catalog", "/regions/xx-nowhere-9") == 404
    assert count("domains", "/domains/999999999", backend.token) == 404
    assert count("other", "/no-such-route") == 404
    # A token of its own: a list budget nobody else spends.
    token = backend.mint_token()
    codes = [count("tags", "/tags", token) for _ in range(LISTS + 5)]
    assert 429 in codes, codes

    expected = {f: {k: seen[f][k] for k in ["requests"] + CLASSES} for f in FAMILIES}
    after = settled(srv, before, expected)
    assert deltas(before, after) == expected
    assert after["rate_limited"] - before["rate_limited"] == statuses[429]
    assert after["database"]["unavailable"] == before["database"]["unavailable"]
    assert after["database"]["leases_in_use"] >= 0

    for name, fam in after["families"].items():
        lat = fam["latency_ms"]
        if fam["requests"]:
            assert 0 <= lat["p50"] <= lat["p90"] <= lat["p99"] <= lat["max"], (name, lat)
        else:
            assert lat == {"p50": None, "p90": None, "p99": None, "max": None}, name

    version = schema_version(backend)
    assert after["schema_version"] == version
    assert after["database_schema_version"] == version
    assert after["schema_ok"] is True
    assert after["uptime_seconds"] >= 0

    # server-status?auto: the same numbers, nothing counted in between.
    auto = status_auto(srv)
    for name, fam in after["families"].items():
        assert int(auto[f"AcctapiRequests_{name}"]) == fam["requests"]
        assert int(auto[f"AcctapiResponses2xx_{name}"]) == fam["2xx"]
        assert int(auto[f"AcctapiResponses3xx_{name}"]) == fam["3xx"]
        assert int(auto[f"AcctapiErrors4xx_{name}"]) == fam["4xx"]
        assert int(auto[f"AcctapiErrors5xx_{name}"]) == fam["5xx"]
        for p in ("50", "90", "99"):
            assert int(auto[f"AcctapiLatencyP{p}ms_{name}"]) == (fam["latency_ms"][f"p{p}"] or 0)
    assert int(auto["AcctapiRateLimited"]) == after["rate_limited"]
    assert int(auto["AcctapiDbUnavailable"]) == after["database"]["unavailable"]
    assert int(auto["AcctapiSchemaVersion"]) == version
    assert auto["AcctapiSchemaOk"] == "1"


def test_counts_are_shared_by_children(srv, backend):
    """50 requests on fresh connections, many at once so that they spread
    over the children: every one is counted."""
    before = status_json(srv)
    with ThreadPoolExecutor(max_workers=25) as pool:
        codes = list(pool.map(lambda _: call(srv, "/profile", backend.token), range(50)))
    assert codes == [200] * 50
    expected = {f: dict.fromkeys(["requests"] + CLASSES, 0) for f in FAMILIES}
    expected["profile"].update(requests=50, **{"2xx": 50})
    assert deltas(before, settled(srv, before, expected)) == expected


def test_pages(srv):
    r = requests.get(srv.url + STATUS + "?html", timeout=15)
    assert r.status_code == 200
    assert r.headers["Content-Type"].startswith("text/html")
    assert "<h1>mod_acctapi status</h1>" in r.text and "<td>profile</td>" in r.text

    r = requests.get(srv.url + "/server-status", timeout=15)
    assert r.status_code == 200
    assert "<h2>mod_acctapi</h2>" in r.text

    r = requests.post(srv.url + STATUS, timeout=15)
    assert r.status_code == 405
    assert "GET" in r.headers.get("Allow", "")


EXPORTER = "/usr/bin/prometheus-apache-exporter"


def test_prometheus_apache_exporter_scrapes_server_status(srv, tmp_path):
    """Debian's prometheus-apache-exporter reads server-status?auto with the
    module's lines in it: it reports the server up and its standard metrics,
    and logs no parse error."""
    port = harness.free_port()
    log = tmp_path / "exporter.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen([EXPORTER, f"--telemetry.address=127.0.0.1:{port}",
                                 f"--scrape_uri={srv.url}/server-status?auto"],
                                stdout=out, stderr=subprocess.STDOUT)
    try:
        def scrape():
            try:
                return requests.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
            except requests.ConnectionError:
                return None
        harness.wait_for(lambda: scrape() is not None, 15, 0.1, "the exporter listening")
        call(srv, "/regions")
        metrics = scrape()
        values = {}
        for line in metrics.splitlines():
            if line and not line.startswith("#"):
                name, _, value = line.rpartition(" ")
                values[name] = float(value)
        assert values["apache_up"] == 1, metrics
        assert values["apache_accesses_total"] >= 1
        assert values['apache_workers{state="idle"}'] >= 1
        assert any(k.startswith("apache_scoreboard{") for k in values)
        assert values["apache_uptime_seconds_total"] >= 0
    finally:
        proc.terminate()
        proc.wait(10)
    text = log.read_text()
    assert "level=error" not in text and "level=warn" not in text, text


def test_prometheus_text_format(srv, backend):
    """?prometheus: the same counters in Prometheus' text format, with a
    latency histogram per family whose buckets add up."""
    before = status_json(srv)
    assert call(srv, "/profile", backend.token) == 200
    assert call(srv, "/nonexistent") == 404
    expected = deltas(before, before)
    expected["profile"].update(requests=1, **{"2xx": 1})
    expected["other"].update(requests=1, **{"4xx": 1})
    # Both requests counted (once logged, after their answers) before the
    # JSON view is read.
    view = settled(srv, before, expected)
    assert deltas(before, view) == expected
    r = requests.get(srv.url + STATUS + "?prometheus", timeout=15)
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    samples, types = {}, {}
    for line in r.text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            types[name] = kind
        elif line and not line.startswith("#"):
            m = re.fullmatch(r'([a-z_]+)(\{[^}]*\})? (\S+)', line)
            assert m, line
            samples[m.group(1) + (m.group(2) or "")] = float(m.group(3))
    assert types["acctapi_requests_total"] == "counter"
    assert types["acctapi_request_duration_seconds"] == "histogram"
    assert types["acctapi_db_leases_in_use"] == "gauge"
    # Read after the JSON view: counts only grow (the status request itself
    # is not counted in any family).
    for name in FAMILIES:
        fam = view["families"][name]
        assert samples[f'acctapi_requests_total{{family="{name}"}}'] >= fam["requests"]
        for cls in CLASSES:
            key = f'acctapi_responses_total{{family="{name}",class="{cls}"}}'
            assert samples[key] >= fam[cls]
        buckets = [(k, v) for k, v in samples.items()
                   if k.startswith(f'acctapi_request_duration_seconds_bucket{{family="{name}",')]
        counts = [v for _, v in buckets]
        assert counts == sorted(counts), buckets
        assert buckets[-1][0].endswith('le="+Inf"}')
        count = samples[f'acctapi_request_duration_seconds_count{{family="{name}"}}']
        assert counts[-1] == count
        assert samples[f'acctapi_request_duration_seconds_sum{{family="{name}"}}'] >= 0
    assert samples['acctapi_requests_total{family="profile"}'] >= 1
    assert samples["acctapi_schema_version"] == view["schema_version"]
    assert samples["acctapi_rate_limited_total"] >= view["rate_limited"]
