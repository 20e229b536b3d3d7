"""A domain with 12,000 records on SQLite and on PostgreSQL: how long a page
of 500 records and the whole zone file take.  Prints figures; asserts
nothing (speed goals live here, not in the tests)."""

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "e2e"))

import harness  # noqa: E402

RECORDS = 12000
ROUNDS = 30


def timed(client, path, rounds):
    """The time to the last byte of each answer.  Checked once through the
    test client (status, JSON, the OpenAPI document); timed with the bare
    session, since checking a 12,000-line answer takes longer than serving
    it."""
    assert client.get(path).status == 200
    headers = {"Authorization": f"Bearer {client.token}"}
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        r = client.session.get(client.base_url + path, headers=headers, timeout=60)
        samples.append((time.perf_counter() - start) * 1000)
        assert r.status_code == 200, r
    samples.sort()
    return statistics.median(samples), samples[max(0, int(len(samples) * 0.99) - 1)]


def run(kind, base):
    base.mkdir(parents=True)
    if harness.IS_ROOT:
        # The PostgreSQL cluster's owner and httpd's children must reach it.
        base.chmod(0o755)
        base.parent.chmod(0o755)
    backend = harness.Backend(kind, base).setup()
    server = harness.Httpd(backend, base, name=f"bench-{kind}").start()
    try:
        api = server.client(token=backend.token)
        r = api.post("/domains", json={"domain": f"bench-{kind}.example", "type": "master",
                                       "soa_email": "hostmaster@example.com"})
        assert r.status == 200, r
        domain = r.json["id"]
        numbers = (f"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
                   f" WHERE i < {RECORDS}) SELECT i FROM n" if kind == "sqlite"
                   else f"SELECT i FROM generate_series(1, {RECORDS}) AS g(i)")
        backend.execute("INSERT INTO domain_records (domain_id, type, name, target,"
                        f" created, updated) SELECT {domain}, 'A', 'host' || i,"
                        f" '192.0.2.' || (i % 250 + 1), 0, 0 FROM ({numbers}) AS numbers;"
                        f" UPDATE domains SET record_count = {RECORDS} WHERE id = {domain}")
        rows = []
        for label, path in [
                ("records page 1 of 24 (page_size=500)", f"/domains/{domain}/records?page_size=500"),
                ("records page 24 of 24 (page_size=500)",
                 f"/domains/{domain}/records?page_size=500&page=24"),
                ("zone file (12,000 records)", f"/domains/{domain}/zone-file")]:
            p50, p99 = timed(api, path, ROUNDS)
            rows.append((kind, label, p50, p99))
        api.close()
        return rows
    finally:
        server.stop()
        backend.destroy()


def main():
    harness.unblock_signals()
    base = Path(tempfile.mkdtemp(prefix="acctapi-bench-"))
    rows = []
    for kind in ("sqlite", "pgsql"):
        rows += run(kind, base / kind)
    print(f"\n{RECORDS} records, {ROUNDS} sequential requests each, one connection")
    print(f"{'backend':8} {'request':40} {'p50 ms':>8} {'p99 ms':>8}")
    for kind, label, p50, p99 in rows:
        print(f"{kind:8} {label:40} {p50:8.1f} {p99:8.1f}")


if __name__ == "__main__":
    main()
