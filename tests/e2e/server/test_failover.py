"""A failover of PostgreSQL under load, as a fleet on PostgreSQL meets it:
a primary and a synchronous streaming standby (pg_basebackup, hot standby),
two httpd nodes whose DBDParams name both hosts with libpq's
target_session_attrs=read-write.  Under a steady load of writes and reads
on both nodes the primary dies (an immediate stop: every process of it
gone at once, as a crash) and, after a while, the standby is promoted.

What it bounds, and prints with the suite's figures:
- every answer meanwhile is a JSON 200, or a JSON 503 with Retry-After (no
  500, no reset, none later than the wait bound below);
- the nodes serve writes again, without a restart, within RECOVERY_BOUND
  seconds of the promotion: each child's breaker tries the database once a
  second (docs/deployment.md, "Recovery is prompt in every child") and
  libpq's reconnect walks the host list to the promoted server;
- no write acknowledged with a 200 is missing on the promoted server
  (synchronous replication: a commit returns once the standby has it).

Before the promotion the nodes have only a read-only server to reach,
which target_session_attrs=read-write refuses: every request is a 503.

A node whose only database is the hot standby (no target_session_attrs)
serves every read and answers every write 503 with Retry-After: PostgreSQL
refuses the write (read-only transaction, SQLSTATE 25006), the module
rolls back and answers "try again later" as for an unreachable database,
without taking it for an outage (reads go on reaching the standby).  The
test before the failover shows it.
"""

import secrets
import shutil
import threading
import time

import requests

import pytest

import harness
from harness import PGBIN, Backend, Httpd, PgCluster, make_tmpdir
from outage import DB_LINES, classify

# Seconds from the standby's promotion until both nodes have answered a
# write: the breaker's trial interval (1 s), a reconnect (connect_timeout
# is 3 s for the dead host's address, which refuses at once here), and the
# load's own pace, with room for a busy machine.
RECOVERY_BOUND = 8
# The longest any request may wait: AcctapiDatabaseTimeout (5 s) plus a
# connection attempt of connect_timeout (3 s), and a second of slack.
WAIT_BOUND = 9
STANDBY_NAME = "standby1"


class Hosts:
    """What harness.Httpd needs of a database: libpq's conninfo for the
    clusters given, in order, with the attributes given."""

    driver = "pgsql"
    pooled = False

    def __init__(self, clusters, attrs=""):
        self.server_params = (
            f"host={','.join('127.0.0.1' for _ in clusters)} "
            f"port={','.join(str(c.port) for c in clusters)} dbname=acctapi "
            f"user=acctapi connect_timeout=3 {attrs}").strip()


def query(cluster, sql):
    """Rows of `sql` on `cluster` (None for a statement without rows), on a
    session of its own: the clusters of this test die and change roles."""
    con = cluster.connect(connect_timeout=5)
    try:
        with con.cursor() as cur:
            cur.execute(sql)
            return cur.fetchall() if cur.description else None
    finally:
        con.close()


def make_standby(base, primary):
    """A streaming standby of `primary`, made by pg_basebackup and started."""
    standby = PgCluster(base / "standby")
    standby.make_dirs()
    standby._pg([PGBIN / "pg_basebackup", "-h", "127.0.0.1", "-p", primary.port,
                 "-U", "postgres", "-D", standby.data, "-X", "stream", "-R"], timeout=120)
    # -R wrote primary_conninfo; the standby names itself for
    # synchronous_standby_names (the last setting in the file wins).
    with open(standby.data / "postgresql.auto.conf", "a") as f:
        f.write(f"primary_conninfo = 'host=127.0.0.1 port={primary.port} user=postgres "
                f"application_name={STANDBY_NAME}'\n")
    standby.start()
    return standby


@pytest.fixture(scope="module")
def replicated(build):
    """(backend, standby): the backend's cluster a primary whose commits
    wait for the standby (synchronous replication, durable commits)."""
    base = make_tmpdir("acctapi-failover-")
    backend = Backend("pgsql", base)
    standby = None
    try:
        backend.setup()
        primary = backend.cluster
        primary.stop()
        primary.start(durable=True)
        standby = make_standby(base, primary)
        query(primary, f"ALTER SYSTEM SET synchronous_standby_names = '{STANDBY_NAME}'")
        query(primary, "SELECT pg_reload_conf()")
        harness.wait_for(lambda: query(
            primary, "SELECT sync_state FROM pg_stat_replication") == [("sync",)], 30,
            what="the standby to replicate synchronously")
        yield backend, standby
    finally:
        if standby is not None:
            standby.destroy()
        backend.destroy()
        shutil.rmtree(base, ignore_errors=True)


def test_a_hot_standby_serves_reads_and_refuses_writes(replicated, expect_log):
    expect_log(r"ACCT00028: database unavailable: .*read-only transaction")
    expect_log(r"ACCT00056: answering 503 to POST /v4/tags")
    backend, standby = replicated
    srv = Httpd(Hosts([standby]), backend.base, name="node-standby").start()
    try:
        c = srv.client(token=backend.token)
        for _ in range(3):
            assert c.get("/profile").status == 200
            r = c.post("/tags", json={"label": f"ro-{secrets.token_hex(4)}"})
            assert r.status == 503, r
            assert r.headers.get("Retry-After"), r
            assert r.json == {"errors": [{"reason": "Service Unavailable"}]}, r
        # A refused write is no outage: the very next read reaches the
        # standby (a tripped breaker would answer 503 for a second).
        assert c.get("/domains").status == 200
    finally:
        srv.stop()
    assert query(standby, "SELECT count(*) FROM tags WHERE label LIKE 'ro-%'") == [(0,)]


def test_failover_to_a_promoted_standby(replicated, expect_log):
    # The nodes' own lines about a database that went away and came back.
    expect_log(DB_LINES)
    backend, standby = replicated
    primary = backend.cluster
    base = backend.base
    nodes = []
    try:
        db = Hosts([primary, standby], "target_session_attrs=read-write")
        for name in ("node-a", "node-b"):
            nodes.append(Httpd(db, base, name=name).start())
        token = backend.token

        lock = threading.Lock()
        stop = threading.Event()
        answers = []          # (monotonic time sent, node, kind, status or exception)
        problems = []
        acknowledged = []     # labels of the tags a 200 acknowledged
        longest = [0.0]

        def worker(node, kind):
            s = requests.Session()
            n = 0
            while not stop.is_set():
                n += 1
                sent = time.monotonic()
                label = f"fo-{secrets.token_hex(4)}-{n}"
                try:
                    if kind == "write":
                        r = s.post(node.base_url + "/tags", json={"label": label}, timeout=30,
                                   headers={"Authorization": f"Bearer {token}"})
                    else:
                        r = s.get(node.base_url + "/profile", timeout=30,
                                  headers={"Authorization": f"Bearer {token}"})
                except requests.RequestException as e:
                    with lock:
                        answers.append((sent, node, kind, "exception"))
                        problems.append(f"{node.root.name} {kind}: {type(e).__name__}: {e}")
                    continue
                took = time.monotonic() - sent
                why = classify(r)
                if why is None and r.status_code == 503 and not r.headers.get("Retry-After"):
                    why = "503 without Retry-After"
                with lock:
                    longest[0] = max(longest[0], took)
                    answers.append((sent, node, kind, r.status_code))
                    if why:
                        problems.append(f"{node.root.name} {kind}: {why}")
                    if kind == "write" and r.status_code == 200:
                        acknowledged.append(label)
                if r.status_code == 503:
                    time.sleep(0.05)
            s.close()

        threads = [threading.Thread(target=worker, args=(node, kind), daemon=True)
                   for node in nodes for kind in ("write", "write", "read")]
        for t in threads:
            t.start()
        try:
            time.sleep(2.0)
            with lock:
                assert acknowledged, "no write acknowledged before the failover"
            # The primary dies: every process of it at once.
            primary._pg([PGBIN / "pg_ctl", "-D", primary.data, "-m", "immediate", "-w",
                         "stop"], timeout=60)
            primary.started = False
            died = time.monotonic()
            time.sleep(3.0)
            standby._pg([PGBIN / "pg_ctl", "-D", standby.data, "-w", "promote"], timeout=60)
            promoted = time.monotonic()

            def served_again():
                with lock:
                    return {id(node) for sent, node, kind, status in answers
                            if kind == "write" and status == 200 and sent >= promoted} \
                        == {id(node) for node in nodes}
            harness.wait_for(served_again, 60, what="both nodes to serve writes again")
            back = time.monotonic() - promoted
            time.sleep(2.0)
        finally:
            stop.set()
            for t in threads:
                t.join(timeout=40)

        stored = {row[0] for row in query(standby, "SELECT label FROM tags")}
        missing = [label for label in acknowledged if label not in stored]
        statuses = {}
        for sent, node, kind, status in answers:
            if sent >= died:
                statuses[status] = statuses.get(status, 0) + 1
        harness.report_figure(
            f"failover: {len(answers)} requests on 2 nodes; from the primary's death on "
            f"{statuses}; writes served again {back:.1f}s after the promotion "
            f"(bound {RECOVERY_BOUND}s); longest answer {longest[0]:.1f}s (bound "
            f"{WAIT_BOUND}s); {len(acknowledged)} writes acknowledged, {len(missing)} missing")
        assert not problems, problems[:10]
        assert not missing, missing[:10]
        assert back <= RECOVERY_BOUND, back
        assert longest[0] <= WAIT_BOUND, longest[0]
    finally:
        for srv in nodes:
            srv.stop()
