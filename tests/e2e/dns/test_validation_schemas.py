"""Every value the public console's validation accepts for a domain or a
record, the module accepts (docs/conventions.md, "Today's clients": never stricter
than the public API), on both backends.

tests/client/validation-samples.mjs generates the requests from the
schemas of @linode/validation (pinned in tests/client/package.json):
per field of createDomainSchema, updateDomainSchema, createRecordSchema and
updateRecordSchema, its enum members, length and number bounds, pattern and
e-mail samples, each in an otherwise valid request that the schema itself
accepts.  Each is sent here and must answer 200; the zone it leaves must
load as named loads a published zone (check-names off; one
named-checkconf -z for all of a schema's zones).  What
the schemas accept but the published specification refuses, or DNS cannot
carry, the script lists as excluded with its reason; a field it has no
samples for fails the test, so a new version of the schemas is looked at.
"""

import concurrent.futures
import itertools
import json
import secrets
import subprocess
import threading

import pytest

import harness
from named import published_zones_problems
from npm_client import ensure_installed

NONCE = "NONCE000"
SCHEMAS = ["createDomainSchema", "updateDomainSchema", "createRecordSchema",
           "updateRecordSchema"]


@pytest.fixture(scope="module")
def samples():
    client_dir = ensure_installed()
    p = subprocess.run(["node", "validation-samples.mjs"], cwd=client_dir,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["errors"] == [], doc["errors"]
    return doc


def test_every_field_is_sampled(samples):
    """Each field of each schema has cases (or, for what no request may
    carry, exclusions with a reason): the generator cannot go quiet."""
    fields = {}
    for c in samples["cases"] + samples["excluded"]:
        fields.setdefault(c["schema"], set()).add(c["field"])
    assert sorted(fields) == sorted(SCHEMAS), fields
    assert fields["createDomainSchema"] >= {
        "domain", "type", "status", "description", "soa_email", "master_ips",
        "axfr_ips", "tags", "expire_sec", "refresh_sec", "retry_sec", "ttl_sec"}
    assert fields["createRecordSchema"] >= {
        "type", "name", "target", "priority", "weight", "port", "service",
        "protocol", "ttl_sec", "tag"}
    assert all(e["reason"] for e in samples["excluded"])
    assert len(samples["cases"]) > 400, len(samples["cases"])


# Each case's domain is new: a prefix of this run's and a counter (8 hex
# digits in all, the width the samples leave for NONCE).
NONCE_PREFIX = secrets.token_hex(2)
NONCES = itertools.count()


def run_case(client, case):
    """Sends the case's request (its domain, and record, made first);
    returns (None, (origin, zone-file lines)) when accepted, else (what
    went wrong, None)."""
    nonce = f"{NONCE_PREFIX}{next(NONCES):04x}"
    case = json.loads(json.dumps(case).replace(NONCE, nonce))
    domain = case["domain"]
    if case["path"] == "domains":
        r = client.post("/domains", json=case["body"])
        if r.status != 200:
            return f"{r.status} {r.body[:300]!r}", None
        domain = r.json
    else:
        r = client.post("/domains", json=domain)
        assert r.status == 200, r
        domain = r.json
        base = f"/domains/{domain['id']}"
        if case["record"] is not None:
            r = client.post(f"{base}/records", json=case["record"])
            assert r.status == 200, r
            base = f"{base}/records/{r.json['id']}"
        elif case["path"] == "records":
            base = f"{base}/records"
        r = client.request(case["method"], base, json=case["body"])
        if r.status != 200:
            return f"{r.status} {r.body[:300]!r}", None
        if case["path"] == "domain":
            domain = r.json
    z = client.get(f"/domains/{domain['id']}/zone-file")
    assert z.status == 200, z
    r = client.delete(f"/domains/{domain['id']}")
    assert r.status == 200, r
    return None, (domain["domain"], z.json["zone_file"])


# Cases are independent (each its own domain), so CLIENTS of them run at
# once.
CLIENTS = 4


@pytest.mark.parametrize("schema", SCHEMAS)
def test_accepted_as_the_console_accepts(samples, schema, backend, server):
    cases = [c for c in samples["cases"] if c["schema"] == schema]
    assert cases
    acct = harness.Account(backend, server, stem="e2e-yup-")
    mine = threading.local()
    clients = []
    lock = threading.Lock()

    def run(case):
        if not hasattr(mine, "client"):
            mine.client = server.client(token=acct.client.token)
            with lock:
                clients.append(mine.client)
        return (case, *run_case(mine.client, case))

    def failure(case, problem):
        value = json.dumps(case["value"])
        return f"{case['field']} = {value[:80]} ({case['why']}): {problem}"

    try:
        failed, zones = [], {}
        with concurrent.futures.ThreadPoolExecutor(CLIENTS) as pool:
            for case, problem, zone in pool.map(run, cases):
                if problem:
                    failed.append(failure(case, problem))
                else:
                    assert zone[0] not in zones, f"two cases made {zone[0]}"
                    zones[zone[0]] = (case, zone[1])
        problems = published_zones_problems({o: lines for o, (_, lines) in zones.items()})
        failed += [failure(zones[o][0], f"the zone does not load: {p}")
                   for o, p in problems.items()]
    finally:
        for c in clients:
            c.close()
        acct.close()
    assert not failed, (f"{len(failed)} of {len(cases)} values {samples['package']}'s "
                        f"{schema} accepts were refused:\n" + "\n".join(failed))
