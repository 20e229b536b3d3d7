"""Today's clients against scripts/quickstart, in wall time.

The quickstart is what developers point their Terraform code and SDKs at:
databases provision in 10-20 seconds and finish operations in 5, with no
test clock.  Here, against it:

- the Terraform provider's v2 database resources (linode/linode 3.13
  through linodego 1.69, the requests of test_terraform.py) run their
  create / refresh / update (settings, an upgrade and a resize, suspension)
  / delete, waiting as linodego's event poller and status waiter do;
- the Python SDK linode_api4 (the requests of test_linode_api4.py) runs its
  integration tests' database flows: create with engine_config, fork,
  suspend/resume and save() of changes, waiting as its tests'
  wait_for_condition does.

Both poll every second (linodego: every 3; the SDK's tests: 2).  Every wait
must end: one that has not ended after WAIT_LIMIT fails the test, and the
time each took is printed with the suite's figures.

Two quickstarts serve at once, one on SQLite and one on its private
PostgreSQL, with the public service's values (as clients/conftest.py's
server), rate limits as it sets them by default.  The four flows (two
clients, two engines) run on both at the same time, as `terraform apply`
creates independent resources in parallel.
"""

import concurrent.futures
import os
import secrets
import shutil
import time
import types

import pytest

import harness
from harness import REPO, free_port, make_tmpdir
from harness.quickstart import Quickstart, check_error_log, read_env
from replay import Wire, answer, go_json, page_of
from test_linode_api4 import DATABASE_FORK, DATABASE_MUTABLE, ENGINE, USER_AGENT
from test_linode_api4 import MYSQL_FULL_CONFIG, PG_FULL_CONFIG
from test_linode_api4 import label as sdk_label
from test_linode_api4 import save_body
from test_terraform import DATABASE, EVENT, HEADERS, poller_filter

pytestmark = [
    pytest.mark.skipif(bool(os.environ.get("ACCTAPI_SKIP_QUICKSTART")),
                       reason="ACCTAPI_SKIP_QUICKSTART is set"),
    pytest.mark.skipif(harness.SANITIZE, reason="scripts/test --sanitize: the quickstart "
                       "cannot load a module built with AddressSanitizer"),
]

POLL = 1.0          # seconds between two polls
WAIT_LIMIT = 120    # a wait not over by then is a hang: the quickstart's
                    # longest operation is provisioning, at most 20 s


@pytest.fixture(scope="module")
def quickstarts():
    """Two quickstarts of their own, one on SQLite and one on its private
    PostgreSQL (ACCTAPI_DB), with the public service's values: their env
    files as dicts.  Started one after the other (each runs make in the
    repository), then serving together.  Their error logs are checked when
    they stop."""
    if harness.BUILD != REPO:
        pytest.skip("the build directory is not the repository")
    d = make_tmpdir("acctapi-qsflows-")
    started = []
    try:
        for driver in ("sqlite", "pgsql"):
            home = d / driver
            qs = Quickstart(home, free_port(), ACCTAPI_DB=driver,
                            ACCTAPI_DB_HOST_SUFFIX="g2a.akamaidb.net",
                            ACCTAPI_DB_ADMIN_USER="akmadmin",
                            ACCTAPI_NAMESERVERS=" ".join(f"ns{i}.linode.com"
                                                         for i in range(1, 6)))
            started.append((qs, home))
            qs.start()
        yield [read_env(home) for _, home in started]
    finally:
        for qs, _ in started:
            qs.stop()
    for _, home in started:
        check_error_log(home)
    if not os.environ.get("ACCTAPI_KEEP_TMP"):
        shutil.rmtree(d, ignore_errors=True)


class Waiter:
    """A client's wire to the quickstart; `waits` collects (what, seconds)
    of every wait."""

    def __init__(self, env, **wire):
        base = env["ACCTAPI_URL"].rsplit("/v4", 1)[0]
        self.wire = Wire(types.SimpleNamespace(url=base), env["ACCTAPI_TOKEN"], **wire)
        self.waits = []

    def wait(self, what, check):
        """Calls check() every POLL seconds until it returns a value."""
        start = time.monotonic()
        while True:
            value = check()
            if value is not None:
                self.waits.append((what, time.monotonic() - start))
                return value
            assert time.monotonic() - start < WAIT_LIMIT, f"{what}: not over after {WAIT_LIMIT}s"
            time.sleep(POLL)


class Terraform(Waiter):
    """The provider's client, linodego."""

    def __init__(self, env):
        super().__init__(env, headers=HEADERS, encode=go_json)

    def known_events(self, action, entity_id):
        """NewEventPoller's preTask: the ids its filter lists before the change."""
        return {e["id"] for e in self.events(action, entity_id)}

    def events(self, action, entity_id):
        return answer(self.wire.get("/account/events?page=1",
                                    xfilter=poller_filter(action, entity_id, "database")),
                      page_of(EVENT))["data"]

    def wait_for_finished(self, action, entity_id, known=frozenset()):
        """EventPoller.WaitForFinished: the first event its filter lists that
        it did not know, then that event until finished (failed is an
        error; scheduled, started and notification mean wait)."""
        def unknown():
            fresh = [e for e in self.events(action, entity_id) if e["id"] not in known]
            return fresh[0] if fresh else None
        event = self.wait(f"{action}: event listed", unknown)

        def finished():
            e = answer(self.wire.get(f"/account/events/{event['id']}"), EVENT)
            assert e["status"] != "failed", e
            assert e["status"] in ("scheduled", "started", "notification", "finished"), e
            return e if e["status"] == "finished" else None
        return self.wait(f"{action}: event finished", finished)

    def wait_for_event_finished(self, action, entity_id, min_start):
        """WaitForEventFinished, the legacy resources' wait: events of
        `action` created at or after min_start (whole seconds, UTC); once
        it has seen the entity's newest one, only ids from that one on."""
        fields = {"+order": "desc", "+order_by": "created", "action": action,
                  "created": {"+gte": min_start}, "entity.id": entity_id,
                  "entity.type": "database"}
        first = []

        def finished():
            if first:
                fields["id"] = {"+gte": first[0]}
            listed = answer(self.wire.get("/account/events?page=1",
                                          xfilter=go_json(dict(sorted(fields.items())))),
                            page_of(EVENT))["data"]
            for e in listed:
                if not first:
                    first.append(e["id"])
                assert e["status"] != "failed", e
                if e["status"] == "finished":
                    return e
            return None
        return self.wait(f"{action}: legacy wait", finished)

    def wait_for_status(self, base, db_id, status):
        """WaitForDatabaseStatus."""
        def reached():
            db = answer(self.wire.get(f"{base}/{db_id}"), DATABASE)
            return db if db["status"] == status else None
        return self.wait(f"database {status}", reached)

    def refresh(self, base, db_id):
        """Model.Refresh: the database, its certificate and its credentials."""
        db = answer(self.wire.get(f"{base}/{db_id}"), DATABASE)
        answer(self.wire.get(f"{base}/{db_id}/ssl"), {"ca_certificate": str})
        answer(self.wire.get(f"{base}/{db_id}/credentials"),
               {"username": str, "password": str})
        return db


def database_v2_lifecycle(env, engine, engine_id, config_key, upgrade_to):
    """linode_database_{mysql,postgresql}_v2: Create (the poller on
    database_create, then the status wait, then the PUT of `updates` and its
    status wait, then Refresh); an Update of label, allow_list and the
    maintenance window with the poller on database_update; the legacy
    resources' update wait; an upgrade (PostgreSQL) with a resize, waiting
    on database_update and database_resize; suspended set and cleared;
    Delete.  Returns the waits."""
    tf = Terraform(env)
    base = f"/databases/{engine}/instances"
    label = f"qs-{engine[:5]}-{secrets.token_hex(3)}"
    try:
        db = answer(tf.wire.post(base, {
            "label": label, "region": "us-east", "type": "g6-nanode-1",
            "engine": engine_id, "allow_list": ["203.0.113.1"], "cluster_size": 1,
            "engine_config": {config_key: {}}}), DATABASE)
        assert db["status"] == "provisioning", db
        tf.wait_for_finished("database_create", db["id"])
        tf.wait_for_status(base, db["id"], "active")
        answer(tf.wire.put(f"{base}/{db['id']}", {"updates": {
            "day_of_week": 3, "duration": 4, "frequency": "weekly", "hour_of_day": 8}}),
            DATABASE)
        tf.wait_for_status(base, db["id"], "active")
        state = tf.refresh(base, db["id"])
        assert state["updates"]["day_of_week"] == 3, state
        assert state["hosts"]["primary"].endswith(".g2a.akamaidb.net"), state

        known = tf.known_events("database_update", db["id"])
        answer(tf.wire.put(f"{base}/{db['id']}", {
            "label": label + "-u", "allow_list": ["203.0.113.0/24"],
            "updates": {"day_of_week": 5, "duration": 4, "frequency": "weekly",
                        "hour_of_day": 2}}), DATABASE)
        tf.wait_for_finished("database_update", db["id"], known)
        state = tf.refresh(base, db["id"])
        assert (state["status"], state["label"], state["allow_list"],
                state["updates"]["day_of_week"]) == \
            ("active", label + "-u", ["203.0.113.0/24"], 5), state

        # The legacy resources (removed in 3.9, still in state files):
        # WaitForEventFinished from the second before the PUT.
        min_start = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())
        answer(tf.wire.put(f"{base}/{db['id']}", {"allow_list": ["198.51.100.7"]}),
               DATABASE)
        tf.wait_for_event_finished("database_update", db["id"], min_start)
        tf.wait_for_status(base, db["id"], "active")

        # engine_id to a later major (sent as its version) and cluster_size
        # 1 -> 3: both pollers made before the PUT, each waited on.
        change = {"cluster_size": 3}
        if upgrade_to:
            change = {"version": upgrade_to.split("/")[1], "cluster_size": 3}
        known_update = tf.known_events("database_update", db["id"])
        known_resize = tf.known_events("database_resize", db["id"])
        answer(tf.wire.put(f"{base}/{db['id']}", change), DATABASE)
        if upgrade_to:
            tf.wait_for_finished("database_update", db["id"], known_update)
        tf.wait_for_finished("database_resize", db["id"], known_resize)
        state = tf.refresh(base, db["id"])
        assert (state["status"], state["cluster_size"]) == ("active", 3), state
        if upgrade_to:
            assert state["version"].split(".")[0] == upgrade_to.split("/")[1], state

        # suspended = true, then false: ReconcileSuspensionSync, a POST and
        # a wait on status; Refresh skips SSL and credentials while suspended.
        r = tf.wire.post(f"{base}/{db['id']}/suspend")
        assert r.status == 200 and r.json == {}, r
        tf.wait_for_status(base, db["id"], "suspended")
        answer(tf.wire.get(f"{base}/{db['id']}"), DATABASE)
        r = tf.wire.post(f"{base}/{db['id']}/resume")
        assert r.status == 200 and r.json == {}, r
        tf.wait_for_status(base, db["id"], "active")
        tf.refresh(base, db["id"])

        r = tf.wire.delete(f"{base}/{db['id']}")
        assert r.status == 200, r
        assert tf.wire.get(f"{base}/{db['id']}").status == 404
        return tf.waits
    finally:
        tf.wire.close()


class PythonSDK(Waiter):
    """linode_api4's client, with the base URL its tests use."""

    def __init__(self, env):
        super().__init__(env, version="v4beta",
                         headers={"Content-Type": "application/json", "User-Agent": USER_AGENT})

    def wait_for_status(self, path, status):
        """wait_for_condition(..., get_*_db_status, client, id, status): a
        load, so a GET, each time."""
        def reached():
            db = answer(self.wire.get(path), DATABASE_FORK)
            return db if db["status"] == status else None
        return self.wait(f"database {status}", reached)


# test_database_engine_config.py's full settings, as the SDK serialises them
# (test_linode_api4.py replays the tests that send them).
FULL_CONFIG = {"mysql": MYSQL_FULL_CONFIG, "postgresql": PG_FULL_CONFIG}


def sdk_database_flows(env, engine):
    """test_database_engine_config.py's create with every setting, then
    test_database.py's flows on it: fork at the source's `updated`,
    suspend and resume, save() of a resize; each with its wait."""
    sdk = PythonSDK(env)
    base = f"/databases/{engine}/instances"
    try:
        engines = answer(sdk.wire.get("/databases/engines"), page_of(ENGINE))["data"]
        engine_id = [e["id"] for e in engines if e["engine"] == engine][-1]
        db = answer(sdk.wire.post(base, {
            "label": sdk_label() + "-qs", "region": "us-ord", "engine": engine_id,
            "type": "g6-standard-1", "engine_config": FULL_CONFIG[engine]}), DATABASE_FORK)
        path = f"{base}/{db['id']}"
        sdk.wait_for_status(path, "active")
        got = answer(sdk.wire.get(path), dict(DATABASE_FORK, engine_config=dict))
        for key, value in FULL_CONFIG[engine].items():
            if isinstance(value, dict):
                assert {k: got["engine_config"][key][k] for k in value} == value, got
            else:
                assert got["engine_config"][key] == value, got

        updated = answer(sdk.wire.get(path), DATABASE_FORK)["updated"]
        fork = answer(sdk.wire.post(base, {"fork": {"source": db["id"], "restore_time": updated}}),
                      DATABASE_FORK)
        sdk.wait_for_status(f"{base}/{fork['id']}", "active")
        assert answer(sdk.wire.get(f"{base}/{fork['id']}"),
                      DATABASE_FORK)["fork"]["source"] == db["id"]
        assert sdk.wire.delete(f"{base}/{fork['id']}").status == 200

        r = sdk.wire.post(path + "/suspend")
        assert r.status == 200 and r.json == {}, r
        sdk.wait_for_status(path, "suspended")
        r = sdk.wire.post(path + "/resume")
        assert r.status == 200 and r.json == {}, r
        sdk.wait_for_status(path, "active")

        loaded = answer(sdk.wire.get(path), DATABASE_FORK)
        loaded.update(cluster_size=3, label=loaded["label"] + "-3")
        saved = answer(sdk.wire.put(path, save_body(loaded, DATABASE_MUTABLE)), DATABASE_FORK)
        assert saved["status"] == "updating", saved
        now = sdk.wait_for_status(path, "active")
        assert (now["cluster_size"], now["label"]) == (3, loaded["label"]), now
        assert sdk.wire.delete(path).status == 200
        return sdk.waits
    finally:
        sdk.wire.close()


def test_database_waits_end_in_seconds(quickstarts):
    """The four flows (Terraform and the Python SDK, each on both engines)
    on both quickstarts, all at once, as independent resources and test
    sessions run; every wait ends (figures: how long each took)."""
    flows = {
        "Terraform v2 mysql": (database_v2_lifecycle, "mysql", "mysql/8", "mysql", None),
        "Terraform v2 postgresql": (database_v2_lifecycle, "postgresql", "postgresql/16",
                                    "pg", "postgresql/17"),
        "linode_api4 mysql": (sdk_database_flows, "mysql"),
        "linode_api4 postgresql": (sdk_database_flows, "postgresql"),
    }
    with concurrent.futures.ThreadPoolExecutor(len(flows) * len(quickstarts)) as pool:
        running = {(env["ACCTAPI_DB_DRIVER"], name): pool.submit(flow, env, *args)
                   for env in quickstarts for name, (flow, *args) in flows.items()}
        waits = {key: f.result() for key, f in running.items()}
    for (driver, name), taken in waits.items():
        harness.report_figure(f"quickstart ({driver}), {name}: " + ", ".join(
            f"{what} {seconds:.1f}s" for what, seconds in taken))
