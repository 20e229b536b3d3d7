"""Today's clients against scripts/quickstart, in wall time (issues 20, 21).

The quickstart is what developers point their Terraform code and SDKs at:
databases provision in 10-20 seconds and finish operations in 5, with no
test clock.  Here the Terraform provider's v2 database resources
(linode/linode 3.13 through linodego 1.69, the requests of
test_terraform.py) run their create / refresh / update / delete against
it, waiting as linodego's event poller and status waiter do, but polling
every second (linodego: every 3).  Every wait must end: one that has not
ended after WAIT_LIMIT fails the test, and the time each took is printed
with the suite's figures.

The quickstart runs on SQLite and on its private PostgreSQL, with the
public service's values (as clients/conftest.py's server), rate limits as
it sets them by default.
Both engines run at the same time, as `terraform apply` creates
independent resources in parallel.
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


@pytest.fixture(scope="module", params=["sqlite", "pgsql"])
def quickstart(request):
    """A quickstart of its own on SQLite, then on its private PostgreSQL
    (ACCTAPI_DB), with the public service's values; its env file as a
    dict.  Its error log is checked when it stops."""
    if harness.BUILD != REPO:
        pytest.skip("the build directory is not the repository")
    d = make_tmpdir("acctapi-qsflows-")
    home = d / "home"
    qs = Quickstart(home, free_port(), ACCTAPI_DB=request.param,
                    ACCTAPI_DB_HOST_SUFFIX="g2a.akamaidb.net",
                    ACCTAPI_DB_ADMIN_USER="akmadmin",
                    ACCTAPI_NAMESERVERS=" ".join(f"ns{i}.linode.com" for i in range(1, 6)))
    try:
        qs.start()
        yield read_env(home)
    finally:
        qs.stop()
    check_error_log(home)
    if not os.environ.get("ACCTAPI_KEEP_TMP"):
        shutil.rmtree(d, ignore_errors=True)


class Terraform:
    """The provider's client (linodego) against the quickstart; `waits`
    collects (what, seconds) of every wait."""

    def __init__(self, env):
        base = env["ACCTAPI_URL"].rsplit("/v4", 1)[0]
        self.wire = Wire(types.SimpleNamespace(url=base), env["ACCTAPI_TOKEN"],
                         headers=HEADERS, encode=go_json)
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


def database_v2_lifecycle(env, engine, engine_id, config_key):
    """linode_database_{mysql,postgresql}_v2: Create (the poller on
    database_create, then the status wait, then the PUT of `updates` and its
    status wait, then Refresh); an Update of label, allow_list and the
    maintenance window with the poller on database_update; the legacy
    resources' update wait; Delete.  Returns the waits."""
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

        r = tf.wire.delete(f"{base}/{db['id']}")
        assert r.status == 200, r
        assert tf.wire.get(f"{base}/{db['id']}").status == 404
        return tf.waits
    finally:
        tf.wire.close()


def test_terraform_database_v2_waits_end_in_seconds(quickstart):
    """Both engines at once, as terraform apply runs them; every wait ends
    (figures: how long each took)."""
    flows = {"mysql": ("mysql/8", "mysql"), "postgresql": ("postgresql/16", "pg")}
    with concurrent.futures.ThreadPoolExecutor(len(flows)) as pool:
        running = {engine: pool.submit(database_v2_lifecycle, quickstart, engine, *args)
                   for engine, args in flows.items()}
        waits = {engine: f.result() for engine, f in running.items()}
    driver = quickstart["ACCTAPI_DB_DRIVER"]
    for engine, taken in waits.items():
        harness.report_figure(f"quickstart ({driver}), Terraform v2 {engine}: " + ", ".join(
            f"{what} {seconds:.1f}s" for what, seconds in taken))
