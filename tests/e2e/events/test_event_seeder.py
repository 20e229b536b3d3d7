"""bench/seed-events, the benchmark's writer of an account's event feed
(bench/run's events scenarios): it writes through the model's own event
writer, many events in one transaction, each from a pool it clears before
the next.  On PostgreSQL an event is held back to travel with the next
statement (acct_store_exec_deferred), so this is also the test that a
deferred statement outlives the pool of its caller: the seeder crashed
when it did not.  The feed then lists every seeded event as the module
wrote it."""

import re
import time

import pytest

import harness
from harness import run

SEEDER = harness.BUILD / "bench" / "seed-events"
COUNT = 500


@pytest.fixture
def acct(backend, server):
    a = harness.Account(backend, server, stem="e2e-seed-")
    yield a
    a.close()


def test_seeded_events_are_the_module_s(acct, backend, server):
    assert SEEDER.exists(), f"{SEEDER} is not built (make bench/seed-events)"
    c = acct.client
    r = c.post("/domains", json={"domain": backend.unique("seed-") + ".example",
                                 "type": "master", "soa_email": "a@seed.example"})
    assert r.status == 200, r
    domain = r.json["id"]
    username = c.get("/profile").json["username"]
    # The module's clock (the test clock's offset may be set): the seeded
    # events span the 89 days before it, all within the retention.
    offset = int(re.search(r"offset ([+-]\d+)s", backend.admin("clock", "show")).group(1))
    before = c.get("/account/events").json["results"]

    out = run([SEEDER, backend.driver, backend.params, acct.id, username, COUNT,
               int(time.time()) + offset, "7", domain], timeout=120).stdout
    assert out.strip() == str(COUNT), out
    if backend.kind == "sqlite":
        backend._share_sqlite()

    page = c.get("/account/events", params={"page_size": 500}).json
    assert page["results"] == before + COUNT, page["results"]
    seeded = [e for e in page["data"] if e["username"] == username
              and e["action"].startswith("dns_")]
    assert seeded and all(e["entity"]["id"] == domain and e["status"] == "notification"
                          for e in seeded), seeded[:3]
    # Newest first, and the Terraform provider's poll finds a seeded one.
    ids = [e["id"] for e in page["data"]]
    assert ids == sorted(ids, reverse=True)
    r = c.get("/account/events", params={"page": 1}, headers={"X-Filter": (
        '{"+order":"desc","+order_by":"created","action":"database_update",'
        '"entity.id":7,"entity.type":"database"}')})
    assert r.status == 200 and r.json["data"], r
