"""The data set of bench/run: one account, as a busy customer's would be.

  - 20 access tokens of its owner (acctapi-admin token create, all scopes);
  - DOMAINS domains (POST /v4/domains), one of them ("big") holding
    BIG_RECORDS records, the others SMALL_RECORDS each, the records written
    straight into the database in one statement each (the API would take
    minutes), then record_count and serial brought in line as the API
    keeps them;
  - DATABASES managed databases (POST /v4/databases/{engine}/instances).

Domains and databases go through the API so that every column is what the
module itself writes; only the bulk of the records is SQL.

seed_events then gives the account EVENTS events more (the feed of a busy
account over three months) through the model's own event writer
(bench/seed-events, built from bench/seed_events.c), in one transaction.
"""

import subprocess
import time
from dataclasses import dataclass, field

FULL = dict(tokens=20, domains=200, big_records=12000, small_records=20, databases=50,
            events=100000)
QUICK = dict(tokens=20, domains=20, big_records=3000, small_records=5, databases=5,
             events=20000)


@dataclass
class DataSet:
    tokens: list                 # the owner's tokens, the first is backend.token
    big_domain: int              # the domain with the most records
    domains: list                # every other domain of the account (writes go there)
    databases: list = field(default_factory=list)
    counts: dict = field(default_factory=dict)


def _numbers(kind, n):
    """A derived table `numbers(i)` of 1..n in the backend's dialect."""
    if kind == "sqlite":
        return (f"(WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
                f" WHERE i < {n}) SELECT i FROM n) AS numbers")
    return f"(SELECT i FROM generate_series(1, {n}) AS g(i)) AS numbers"


# What record i of a domain is: mostly addresses, some of each common type.
# The names never collide across types (a CNAME is alone at its name).
_RECORD_COLUMNS = (
    "CASE WHEN i % 20 < 14 THEN 'A' WHEN i % 20 < 16 THEN 'AAAA'"
    " WHEN i % 20 = 16 THEN 'MX' WHEN i % 20 = 17 THEN 'TXT' ELSE 'CNAME' END,"
    " CASE WHEN i % 20 < 16 THEN 'host' || i WHEN i % 20 = 16 THEN 'mail' || i"
    " WHEN i % 20 = 17 THEN 'txt' || i ELSE 'alias' || i END,"
    " CASE WHEN i % 20 < 14 THEN '192.0.2.' || (i % 250 + 1)"
    " WHEN i % 20 < 16 THEN '2001:db8::' || (i % 10000)"
    " WHEN i % 20 = 16 THEN 'mx' || (i % 7) || '.example.net'"
    " WHEN i % 20 = 17 THEN 'v=spf1 ip4:192.0.2.0/24 -all'"
    " ELSE 'www.example.net' END,"
    " CASE WHEN i % 20 = 16 THEN 10 ELSE 0 END")


def _insert_records(backend, domain_sql, n, now):
    """Records 1..n for every domain `domain_sql` selects (a SELECT of ids)."""
    backend.execute(
        "INSERT INTO domain_records (domain_id, type, name, target, priority,"
        " created, updated)"
        f" SELECT d.id, {_RECORD_COLUMNS}, {now}, {now}"
        f" FROM ({domain_sql}) AS d, {_numbers(backend.kind, n)}")


def _sync_domains(backend, account_id, now):
    """record_count and serial as the API keeps them (serial: the larger of
    serial + 1 and now, once, for the bulk change)."""
    backend.execute(
        "UPDATE domains SET record_count = (SELECT count(*) FROM domain_records r"
        " WHERE r.domain_id = domains.id),"
        f" serial = CASE WHEN serial + 1 > {now} THEN serial + 1 ELSE {now} END,"
        f" updated = {now}"
        f" WHERE account_id = {account_id}")


def resync(backend):
    """After the write ceiling, which inserts records behind the API's back."""
    _sync_domains(backend, backend.account_id, int(time.time()))


def _post(api, path, body):
    r = api.post(path, json=body)
    if r.status != 200:
        raise RuntimeError(f"POST {path} answered {r.status}: {r.body[:300]!r}")
    return r.json


def _catalogue(api):
    """A region, a compute type and an engine of each kind the databases can use."""
    region = api.get("/regions").json["data"][0]["id"]
    types = api.get("/compute/types", params={"page_size": 500}).json["data"]
    engines = api.get("/databases/engines", params={"page_size": 500}).json["data"]
    by_engine = {}
    for e in engines:
        by_engine.setdefault(e["engine"], e["id"])
    kind = next((t["id"] for t in types if t.get("class") == "dedicated"), types[0]["id"])
    return region, kind, by_engine


def load(backend, server, size):
    """Creates the data set of `size` (FULL or QUICK) in the backend that
    `server` serves; returns a DataSet."""
    started = time.monotonic()
    tokens = [backend.token] + [backend.mint_token(scopes="*", label=f"bench-token-{i}")
                                for i in range(1, size["tokens"])]
    api = server.client(token=backend.token)
    try:
        ids = []
        stamp = int(time.time())
        for i in range(size["domains"]):
            d = _post(api, "/domains", {"domain": f"bench{stamp}-{i:03d}.example",
                                        "type": "master",
                                        "soa_email": "hostmaster@example.com"})
            ids.append(d["id"])
        big, small = ids[0], ids[1:]
        now = int(time.time())
        _insert_records(backend, f"SELECT {big} AS id", size["big_records"], now)
        _insert_records(backend, "SELECT id FROM domains WHERE account_id ="
                        f" {backend.account_id} AND id <> {big}",
                        size["small_records"], now)
        _sync_domains(backend, backend.account_id, now)
        if backend.cluster:
            # What autovacuum would long have done on a server in use: the
            # planner's statistics, and no vacuum running into the figures.
            backend.cluster.psql("VACUUM ANALYZE", db="acctapi")

        region, kind, engines = _catalogue(api)
        databases = []
        names = sorted(engines)
        for i in range(size["databases"]):
            engine = names[i % len(names)]
            db = _post(api, f"/databases/{engine}/instances",
                       {"label": f"bench-db-{i:03d}", "region": region, "type": kind,
                        "engine": engines[engine]})
            databases.append(db["id"])
    finally:
        api.close()
    return DataSet(tokens=tokens, big_domain=big, domains=small, databases=databases,
                   counts=dict(size, seconds=round(time.monotonic() - started, 1)))


def seed_events(backend, ds, count, seeder):
    """`count` events in the account of `ds` (bench/seed-events, `seeder`),
    about its domains and databases; returns the seconds it took."""
    started = time.monotonic()
    subprocess.run([str(seeder), backend.driver, backend.params, str(backend.account_id),
                    backend.username, str(count), str(int(time.time())),
                    ",".join(str(d) for d in ds.databases),
                    ",".join(str(d) for d in [ds.big_domain] + ds.domains)],
                   check=True, capture_output=True, text=True, timeout=600)
    if backend.kind == "sqlite":
        # Files the seeder created (-wal, -shm) must stay httpd's, as after
        # every acctapi-admin run.
        backend._share_sqlite()
    if backend.cluster:
        backend.cluster.psql("VACUUM ANALYZE events", db="acctapi")
    ds.counts["events"] = count
    return round(time.monotonic() - started, 1)
