"""Storage resilience on PostgreSQL: a restart under load, a stopped server.

Each test gets its own cluster and server, so what it does to PostgreSQL
cannot leak into other tests.  The module logs database failures at
[error]/[warn]; these tests allow such lines (and only those), never a crash.
"""

import os
import secrets
import signal
import threading
import time

import requests

import harness

from outage import DB_LINES, UNAVAILABLE, classify, pg  # noqa: F401  (pg: the fixture)


def test_postgres_restart_under_load(pg, expect_log):
    expect_log(DB_LINES)
    backend, start_server = pg
    srv = start_server(name="httpd-restart")

    results = []          # (monotonic time, status or exception text)
    problems = []
    lock = threading.Lock()
    stop = threading.Event()
    deadline = time.monotonic() + 60

    def worker(n):
        s = requests.Session()
        count = 0
        while not stop.is_set() and count < 3000 and time.monotonic() < deadline:
            count += 1
            # Every 10th request on a fresh connection, to reach every child.
            if count % 10 == 0:
                s.close()
                s = requests.Session()
            try:
                r = s.get(srv.base_url + "/profile", timeout=15,
                          headers={"Authorization": f"Bearer {backend.token}"})
            except requests.RequestException as e:
                with lock:
                    problems.append(f"thread {n}: {type(e).__name__}: {e}")
                    results.append((time.monotonic(), "exception"))
                continue
            why = classify(r)
            with lock:
                results.append((time.monotonic(), r.status_code))
                if why:
                    problems.append(f"thread {n}: {why}")
        s.close()

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(6)]
    for t in threads:
        t.start()
    try:
        # Load before the restart.
        time.sleep(1.0)
        with lock:
            before = len(results)
        assert before > 0, "no request completed before the restart"
        backend.cluster.restart()
        restarted = time.monotonic()
        # Wait (bounded) until 2 s of responses after the restart are all 200.
        recovered = None
        while time.monotonic() < restarted + 15:
            time.sleep(0.2)
            with lock:
                after = [(t, s) for t, s in results if t >= restarted]
            bad = [t for t, s in after if s != 200]
            last_bad = max(bad) if bad else restarted
            good_since = [t for t, s in after if t > last_bad]
            if good_since and time.monotonic() - last_bad >= 2.0 and len(good_since) >= 20:
                recovered = last_bad
                break
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=20)

    with lock:
        statuses = {}
        for _, s in results:
            statuses[s] = statuses.get(s, 0) + 1
    summary = f"statuses {statuses}; problems {problems[:10]}"
    harness.report_figure(f"PostgreSQL restart under load: {summary}; recovered "
                          f"{(recovered or restarted) - restarted:.1f}s after")
    assert not problems, summary
    assert recovered is not None, "not 200 again within 15 s of the restart: " + summary
    assert recovered - restarted <= 10, \
        f"last failure {recovered - restarted:.1f}s after the restart: {summary}"

    # After recovery: a fresh batch of requests, every one 200, and nothing
    # about lost prepared statements in the log from now on.
    log_mark = srv.log_size()
    sessions = [requests.Session() for _ in range(4)]
    try:
        for i in range(80):
            s = sessions[i % 4] if i % 2 else requests.Session()
            r = s.get(srv.base_url + "/profile", timeout=15,
                      headers={"Authorization": f"Bearer {backend.token}"})
            assert r.status_code == 200, (r.status_code, r.content[:300])
            if not i % 2:
                s.close()
    finally:
        for s in sessions:
            s.close()
    later = srv.log_text(log_mark)
    assert "prepared statement" not in later, later
    crash = [ln for ln in srv.log_text().splitlines()
             if "Segmentation fault" in ln or "exit signal" in ln]
    assert not crash, crash


SINGLE_CHILD = """
StartServers 1
ServerLimit 1
ThreadsPerChild 10
MaxRequestWorkers 10
MinSpareThreads 5
MaxSpareThreads 20
"""


def test_postgres_down(pg, expect_log):
    expect_log(DB_LINES)
    backend, start_server = pg
    # One child, so that "served before" means "in this child's cache".
    srv = start_server(name="httpd-down", extra=SINGLE_CHILD)
    c = srv.client(token=backend.token)
    try:
        assert c.get("/profile").status == 200
        regions = c.get("/regions").json["data"]
        public = ["/regions", "/compute/types", "/databases/engines",
                  f"/regions/{regions[0]['id']}"]
        before = {}
        for path in public:
            r = c.get(path)
            assert r.status == 200, r
            before[path] = r.json

        backend.cluster.stop()

        for path in ("/profile", "/profile/grants"):
            for _ in range(3):
                r = c.get(path)
                assert r.status == 503, r
                assert r.ctype == "application/json", r
                assert r.json == UNAVAILABLE, r
        for path in public:
            r = c.get(path)
            assert r.status == 200, r
            assert r.json == before[path], path

        # And back.
        backend.cluster.start()
        deadline = time.monotonic() + 10
        while True:
            r = c.get("/profile")
            if r.status == 200:
                break
            assert r.status == 503, r
            assert time.monotonic() < deadline, f"not 200 10 s after PostgreSQL came back: {r}"
            time.sleep(0.2)
    finally:
        c.close()


def single_child_with_domain(pg, expect_log, name):
    """A one-child server of the test's cluster (its children's statements
    are the ones the test changes the schema under), a client of it, and
    the id of a domain `name`.e2e-storage.example made through it."""
    expect_log(DB_LINES)
    backend, start_server = pg
    srv = start_server(name=f"httpd-{name}", extra=SINGLE_CHILD)
    c = srv.client(token=backend.token)
    r = c.post("/domains", json={"domain": f"{name}.e2e-storage.example", "type": "master",
                                 "soa_email": f"hostmaster@{name}.e2e-storage.example"})
    assert r.status == 200, r
    return c, r.json["id"]


def test_statements_outlive_a_schema_change(pg, expect_log):
    """A column changes type under statements every child has prepared
    (PostgreSQL then refuses them: "cached plan must not change result
    type"): reads and writes go on without an error, including a write
    whose very first statement meets it, where the module sends BEGIN with
    that statement, rolls back and starts the transaction again."""
    backend = pg[0]
    c, did = single_child_with_domain(pg, expect_log, "ddl")
    try:
        def round_of_requests(tag):
            """A write whose first statement reads the domain row, a read of
            it, an update of it: every one succeeds."""
            r = c.post(f"/domains/{did}/records",
                       json={"type": "A", "name": f"h{tag}", "target": "192.0.2.1"})
            assert r.status == 200, (tag, r)
            r = c.get(f"/domains/{did}")
            assert r.status == 200, (tag, r)
            r = c.put(f"/domains/{did}", json={"ttl_sec": 300})
            assert r.status == 200 and r.json["ttl_sec"] == 300, (tag, r)

        round_of_requests("warm1")
        round_of_requests("warm2")
        backend.execute("ALTER TABLE domains ALTER COLUMN ttl_sec TYPE BIGINT")
        round_of_requests("bigint1")
        round_of_requests("bigint2")
        backend.execute("ALTER TABLE domains ALTER COLUMN ttl_sec TYPE INTEGER")
        round_of_requests("integer")
        records = c.get(f"/domains/{did}/records").json
        assert records["results"] == 5, records
    finally:
        c.close()


def test_event_poll_outlives_a_schema_change(pg, expect_log):
    """The event list's page goes in one pipeline with the token lookup: a
    schema change under the page's statement, then under the lookup's,
    leaves the poll answering as before (each statement is prepared again,
    and the lookup still answers when only the page's was refused)."""
    backend = pg[0]
    c, did = single_child_with_domain(pg, expect_log, "poll")
    try:
        poll = {"+order_by": "created", "+order": "desc", "entity.type": "domain",
                "entity.id": did, "action": "dns_zone_create"}

        def polled(tag):
            r = c.get("/account/events", xfilter=poll)
            assert r.status == 200, (tag, r)
            assert [e["entity"]["id"] for e in r.json["data"]] == [did], (tag, r)
            assert r.json["data"][0]["seen"] is False, (tag, r)

        for tag in ("warm1", "warm2"):
            polled(tag)
        backend.execute("ALTER TABLE events ALTER COLUMN seen TYPE BIGINT")
        polled("page changed")
        polled("page changed again")
        backend.execute("ALTER TABLE tokens ALTER COLUMN expiry TYPE NUMERIC")
        polled("lookup changed")
        polled("lookup changed again")
        backend.execute("ALTER TABLE tokens ALTER COLUMN expiry TYPE BIGINT")
        backend.execute("ALTER TABLE events ALTER COLUMN seen TYPE INTEGER")
        polled("both back")
    finally:
        c.close()


# --------------------------------------------------------------------------
# A frozen PostgreSQL: every wait is bounded
# --------------------------------------------------------------------------

FROZEN_SECONDS = 8
DB_TIMEOUT = 2          # AcctapiDatabaseTimeout of the test's server
CONNECT_TIMEOUT = 3     # connect_timeout in the suite's DBDParams


def cluster_pids(backend):
    """The postmaster and every PostgreSQL process under it."""
    master = harness.postmaster_pid(backend.cluster.data)
    pids = [master] + harness.children_of(master)
    return pids


def test_frozen_postgres_answers_503_in_bounded_time(pg, expect_log):
    """PostgreSQL stopped (SIGSTOP: its kernel still accepts and acknowledges,
    so no TCP timeout fires): every request is answered 503 JSON with
    Retry-After within AcctapiDatabaseTimeout plus connect_timeout, and the
    server serves again by itself once PostgreSQL resumes."""
    expect_log(DB_LINES)
    backend, start_server = pg
    srv = start_server(name="httpd-frozen", extra=f"AcctapiDatabaseTimeout {DB_TIMEOUT}\n")
    warm = srv.client(token=backend.token)
    for _ in range(20):    # connections pooled in both children
        assert warm.get("/profile").status == 200
    warm.close()
    bound = DB_TIMEOUT + CONNECT_TIMEOUT + 1.5
    results = []
    lock = threading.Lock()

    def client(n):
        s = requests.Session()
        s.headers["Authorization"] = f"Bearer {backend.token}"
        try:
            for i in range(3):
                method, path, body = (("GET", "/profile", None), ("POST", "/tags",
                                      {"label": f"frozen-{n}-{i}"}))[i % 2]
                started = time.monotonic()
                try:
                    r = s.request(method, srv.base_url + path, json=body, timeout=60)
                    outcome = r.status_code, classify(r), r.headers.get("Retry-After")
                except requests.RequestException as e:
                    outcome = "exception", repr(e), None
                with lock:
                    results.append((time.monotonic() - started,) + outcome)
        finally:
            s.close()

    pids = cluster_pids(backend)
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    frozen_at = time.monotonic()
    try:
        harness.run_all(client, [(n,) for n in range(12)], 120,
                        what="requests on a frozen database")
        frozen_for = time.monotonic() - frozen_at
        time.sleep(max(0.0, FROZEN_SECONDS - frozen_for))
    finally:
        for pid in pids:
            os.kill(pid, signal.SIGCONT)
    resumed_at = time.monotonic()
    c = srv.client(token=backend.token)
    try:
        def serves():
            r = c.get("/profile")
            assert classify(r.raw) is None, r
            return r.status == 200
        harness.wait_for(serves, 30, interval=0.2, what="service after PostgreSQL resumed")
        recovered = time.monotonic() - resumed_at
        assert c.post("/tags", json={"label": f"after-frozen-{secrets.token_hex(3)}"}).status == 200
    finally:
        c.close()
    waits = sorted(r[0] for r in results)
    statuses = {}
    for r in results:
        statuses[r[1]] = statuses.get(r[1], 0) + 1
    harness.report_figure(
        f"frozen PostgreSQL (SIGSTOP {FROZEN_SECONDS}s, AcctapiDatabaseTimeout {DB_TIMEOUT}s): "
        f"{len(results)} requests, statuses {statuses}, longest wait {waits[-1]:.1f}s "
        f"(bound {bound:.1f}s); served again {recovered:.1f}s after it resumed")
    problems = [r for r in results if r[1] != 503 or r[2] is not None or r[3] != "5"]
    assert not problems, problems[:5]
    assert waits[-1] <= bound, sorted(results)[-6:]


OUTAGE_SECONDS = 10
# The children the test's server runs: the sanitizer run's httpd -X is one
# process (the test then proves that its stale connections cost nothing).
CHILDREN = 1 if harness.SANITIZE else 2


def test_every_child_serves_once_the_database_answers_one(pg, expect_log, tmp_path):
    """Recovery is prompt in every child: once PostgreSQL, back after a 10 s
    outage that tripped both children's breakers, has answered one request,
    a burst right after it is answered 200 by every child, none 503 (a
    child's breaker heeds another child's answer instead of waiting for a
    probe of its own)."""
    expect_log(DB_LINES)
    backend, start_server = pg
    log = tmp_path / "pid-status.log"
    srv = start_server(name="httpd-recovery", extra=(
        'LogFormat "%P %>s %{X-Phase}i" acctapi_pid_status\n'
        f'CustomLog "{log}" acctapi_pid_status\n'))
    headers = {"Authorization": f"Bearer {backend.token}", "Connection": "close"}

    def burst(phase, n=80):
        """n requests at once, each on a connection of its own (so that the
        listener hands them to both children); their statuses."""
        statuses = []
        lock = threading.Lock()

        def one():
            r = requests.get(srv.base_url + "/profile", timeout=30,
                             headers=dict(headers, **{"X-Phase": phase}))
            why = classify(r)
            with lock:
                statuses.append(r.status_code if why is None else why)
        harness.run_all(one, [()] * n, 60, what=f"{phase} requests")
        return statuses

    def children(phase, status):
        """The children (pids) the access log shows answering `status` in `phase`."""
        pids = set()
        for line in log.read_text().splitlines():
            pid, code, seen_phase = line.split()
            if seen_phase == phase and code == str(status):
                pids.add(pid)
        return pids

    def wait_logged(phase, count):
        harness.wait_for(lambda: sum(1 for line in log.read_text().splitlines()
                                     if line.endswith(" " + phase)) >= count,
                         10, interval=0.05, what=f"{phase} requests logged")

    assert set(burst("before")) == {200}
    backend.cluster.stop()
    stopped_at = time.monotonic()
    # Down: bursts until every child has answered 503 (each has found the
    # database gone, and its breaker has tripped).
    for round_ in range(10):
        phase = f"down{round_}"
        assert set(burst(phase, 40)) == {503}
        wait_logged(phase, 40)
        if len(set().union(*(children(f"down{i}", 503) for i in range(round_ + 1)))) >= CHILDREN:
            break
    else:
        raise AssertionError("the listener never handed a request to the second child")
    time.sleep(max(0.0, OUTAGE_SECONDS - (time.monotonic() - stopped_at)))
    backend.cluster.start()
    # The first request the database answers.
    c = srv.client(token=backend.token)
    try:
        def answered():
            r = c.get("/profile", headers={"X-Phase": "first"})
            assert classify(r.raw) is None, r
            return r.status == 200
        harness.wait_for(answered, 30, interval=0.05, what="a first answer after the restart")
    finally:
        c.close()
    # Right after it: every request is answered, by every child (a burst
    # the listener handed to one child only is followed by another).
    served = set()
    for round_ in range(5):
        phase = f"after{round_}"
        statuses = burst(phase)
        assert statuses.count(200) == len(statuses), \
            f"{phase}: {sorted(set(map(str, statuses)))}, {statuses.count(503)} x 503"
        wait_logged(phase, len(statuses))
        served |= children(phase, 200)
        if len(served) >= CHILDREN:
            break
    else:
        raise AssertionError("the listener never handed a request to the second child")
