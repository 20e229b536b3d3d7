"""Real load, as SDKs make it: many keep-alive clients at once, writes and
reads mixed, against the configuration scripts/httpd-conf generates (the
quickstart's).  Every request gets an HTTP answer in the API's JSON: a
reset connection, a hang or an HTML page fails the test; nothing is
resent."""

import threading
import time

import requests

import harness
from harness import Account
from harness.wire import Http

CLIENTS = 200
ROUNDS = 5            # per client: a record POST and a record list GET each
DOMAINS = 20


def run_clients(srv, token, domain_ids, clients, rounds):
    """Each client: its own keep-alive session, released together; returns
    (statuses, problems, latencies)."""
    barrier = threading.Barrier(clients)
    lock = threading.Lock()
    statuses, problems, latencies = {}, [], []
    created = [0]

    def client(k):
        did = domain_ids[k % len(domain_ids)]
        # Its own keep-alive connection (the suite's transport, requests'
        # request and answer objects: harness/wire.py).
        session = Http()
        auth = {"Authorization": f"Bearer {token}"}
        try:
            barrier.wait(timeout=60)
            for i in range(rounds):
                for method, path, body in (
                        ("POST", f"/domains/{did}/records",
                         {"type": "A", "name": f"c{k}r{i}", "target": "192.0.2.7"}),
                        ("GET", f"/domains/{did}/records", None)):
                    started = time.monotonic()
                    try:
                        r = session.request(method, srv.base_url + path, json=body,
                                            headers=auth, timeout=60)
                    except requests.RequestException as e:
                        with lock:
                            problems.append(f"{method} {path}: {e!r}")
                        return
                    took = time.monotonic() - started
                    ok = r.headers.get("Content-Type") == "application/json"
                    if ok:
                        try:
                            r.json()
                        except ValueError:
                            ok = False
                    with lock:
                        latencies.append(took)
                        statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
                        if method == "POST" and r.status_code == 200:
                            created[0] += 1
                        if not ok:
                            problems.append(f"{method} {path}: {r.status_code} "
                                            f"{r.headers.get('Content-Type')} {r.content[:200]!r}")
                        elif r.status_code == 503 and not r.headers.get("Retry-After"):
                            problems.append(f"{method} {path}: 503 without Retry-After")
                        elif r.status_code not in (200, 503):
                            problems.append(f"{method} {path}: {r.status_code} {r.content[:200]!r}")
        except threading.BrokenBarrierError as e:
            with lock:
                problems.append(f"barrier: {e!r}")
        finally:
            session.close()

    harness.run_all(client, [(k,) for k in range(clients)], 300, what="clients")
    return statuses, problems, latencies, created[0]


def test_two_hundred_keepalive_clients(make_server, backend):
    srv = make_server(name="load", size=None)
    acct = Account(backend, srv, stem="load-")
    try:
        domain_ids = []
        for n in range(DOMAINS):
            r = acct.client.post("/domains", json={
                "domain": f"{backend.unique('load')}-{n}.example", "type": "master",
                "soa_email": "admin@example.com"})
            assert r.status == 200, r
            domain_ids.append(r.json["id"])
        token = acct.client.token
        started = time.monotonic()
        statuses, problems, latencies, created = run_clients(srv, token, domain_ids, CLIENTS, ROUNDS)
        took = time.monotonic() - started
    finally:
        acct.close()
    latencies.sort()
    p99 = latencies[int(len(latencies) * 0.99) - 1] if latencies else 0
    harness.report_figure(
        f"{CLIENTS} keep-alive clients ({backend.kind}): {sum(statuses.values())} requests "
        f"in {took:.1f}s, statuses {dict(sorted(statuses.items()))}, "
        f"{len(problems)} resets or non-JSON answers; latency p99 {p99 * 1000:.0f} ms, "
        f"max {latencies[-1] * 1000 if latencies else 0:.0f} ms")
    assert not problems, f"{len(problems)} problems, first: {problems[:5]}"
    assert sum(statuses.values()) == CLIENTS * ROUNDS * 2
    # Every write the server acknowledged is stored.
    stored = int(backend.query(
        "SELECT count(*) FROM domain_records WHERE domain_id IN ("
        + ",".join(str(d) for d in domain_ids) + ")")[0][0])
    assert stored == created > 0, (stored, created)
