"""Suspend, resume and fork of managed databases, end to end on
both backends, as today's public API serves them.

Suspend (POST .../suspend) and resume (POST .../resume) answer {} and the
database moves by itself: suspending -> suspended, resuming -> active, each
for the operation time (3 minutes on these servers), with a database_suspend
/ database_resume event started and finished with it.  Suspend takes an
active database, or one still provisioning (whose provisioning then
completes at once); resume a suspended or suspending one.  A suspended
database refuses what needs active and may be deleted.

Fork: POST .../instances with `fork: {source, restore_time}` makes a new
database from another of the same engine in the account, at a moment of its
restore window (its oldest_restore_time to now; now when no time is given);
what the body leaves out comes from the source, the label is made.  Time
moves with the test clock."""

import calendar
import datetime
import json
import threading
import time

import pytest
import requests

from checks import assert_error, assert_json
from dbaccounts import MY, PG, Account, my_body, pg_body
from otp import server_now

PATHS = {"mysql": MY, "postgresql": PG}
BODIES = {"mysql": my_body, "postgresql": pg_body}
PROVISIONED = "31m"     # past the longest default provisioning time
OPERATED = "4m"         # past the default operation time (3 minutes)
WAIT = "Your database is {0}; please wait until {1} is complete to perform this operation."
NOT_NOW = "Your database is {0}; this operation is not available in that status."
TIME_FORMAT = "%Y-%m-%dT%H:%M:%S"


def ok(r):
    assert r.status == 200, r
    return assert_json(r)


def fix_clock(clock):
    """The clock at 10:00 UTC tomorrow, so that the test's times are known."""
    day = datetime.datetime.now(datetime.timezone.utc).date() + datetime.timedelta(days=1)
    start = datetime.datetime.combine(day, datetime.time(10), datetime.timezone.utc)
    clock("set", start.strftime(TIME_FORMAT))
    return start


def stamp(t):
    return t.strftime(TIME_FORMAT)


def epoch(text):
    return calendar.timegm(time.strptime(text, TIME_FORMAT))


def about_now(backend, text, slack=5):
    """`text` is the servers' now (their clock runs on while the test does)."""
    return abs(epoch(text) - server_now(backend)) <= slack


def make_db(acct, engine, label):
    return ok(acct.client.post(PATHS[engine], json=BODIES[engine](label)))


def active_db(acct, clock, engine, label):
    db = make_db(acct, engine, label)
    clock("advance", PROVISIONED)
    got = ok(acct.client.get(f"{PATHS[engine]}/{db['id']}"))
    assert got["status"] == "active", got
    return got


def events_of(client, db_id, action=None):
    """The database's events, newest first (as EventPoller asks for them)."""
    flt = {"entity.type": "database", "entity.id": db_id}
    if action:
        flt["action"] = action
    r = client.get("/account/events", xfilter=json.dumps(flt))
    return ok(r)["data"]


def status_of(client, engine, db_id):
    return ok(client.get(f"{PATHS[engine]}/{db_id}"))["status"]


# --------------------------------------------------------------------------
# Suspend and resume
# --------------------------------------------------------------------------

@pytest.mark.parametrize("engine", sorted(PATHS))
def test_suspend_and_resume(acct, clock, engine):
    fix_clock(clock)
    c = acct.client
    db = active_db(acct, clock, engine, f"sr-{engine[:2]}")
    path = f"{PATHS[engine]}/{db['id']}"

    r = c.post(path + "/suspend")
    assert r.status == 200 and r.json == {}, r
    now = ok(c.get(path))
    assert now["status"] == "suspending", now
    assert now["hosts"] == db["hosts"] and now["members"] == db["members"], now
    (ev,) = events_of(c, db["id"], "database_suspend")
    assert ev["status"] == "started" and ev["entity"]["id"] == db["id"], ev
    # Suspending: the suspend runs; a second one, a resume-free change wait.
    assert_error(c.post(path + "/suspend"), 400, WAIT.format("suspending", "suspending"))
    assert_error(c.put(path, json={"label": "other-label"}), 400,
                 WAIT.format("suspending", "suspending"))

    clock("advance", OPERATED)
    assert status_of(c, engine, db["id"]) == "suspended"
    assert ok(c.get(f"/account/events/{ev['id']}"))["status"] == "finished"
    # Suspended: what needs active is refused; backups stay listed.
    refused = NOT_NOW.format("suspended")
    assert_error(c.post(path + "/suspend"), 400, refused)
    assert_error(c.put(path, json={"label": "other-label"}), 400, refused)
    assert_error(c.get(path + "/credentials"), 400, refused)
    assert_error(c.get(path + "/ssl"), 400, refused)
    assert_error(c.post(path + "/patch"), 400, refused)
    assert_error(c.post(path + "/credentials/reset"), 400, refused)
    assert_error(c.post(path + "/backups", json={"label": "snap"}), 400, refused)
    assert ok(c.get(path + "/backups"))["data"] == []

    r = c.post(path + "/resume")
    assert r.status == 200 and r.json == {}, r
    assert status_of(c, engine, db["id"]) == "resuming"
    (res,) = events_of(c, db["id"], "database_resume")
    assert res["status"] == "started", res
    assert_error(c.post(path + "/resume"), 400, WAIT.format("resuming", "resuming"))
    clock("advance", OPERATED)
    back = ok(c.get(path))
    assert back["status"] == "active", back
    assert back["hosts"] == db["hosts"] and back["label"] == db["label"], back
    assert ok(c.get(f"/account/events/{res['id']}"))["status"] == "finished"
    assert_error(c.post(path + "/resume"), 400, NOT_NOW.format("active"))
    # Usable again.
    assert ok(c.get(path + "/credentials"))["username"]
    assert [e["action"] for e in events_of(c, db["id"])] == [
        "database_resume", "database_suspend", "database_create"]


def test_suspend_while_provisioning_then_resume_at_once(acct, clock):
    """linode-cli's test_mysql_suspend_resume: suspend a cluster just
    created, resume it right after; neither is refused.  Provisioning
    completes at the suspend (hosts, its event finished); the resume cuts
    the suspend short (its event finished then)."""
    fix_clock(clock)
    c = acct.client
    db = make_db(acct, "mysql", "sr-prov")
    assert db["status"] == "provisioning" and db["hosts"]["primary"] is None, db
    path = f"{MY}/{db['id']}"

    r = c.post(path + "/suspend")
    assert r.status == 200 and r.json == {}, r
    now = ok(c.get(path))
    assert now["status"] == "suspending", now
    assert now["hosts"]["primary"] and now["hosts"]["secondary"], now
    assert len(now["members"]) == 1, now
    (created,) = events_of(c, db["id"], "database_create")
    assert created["status"] == "finished", created

    r = c.post(path + "/resume")
    assert r.status == 200 and r.json == {}, r
    assert status_of(c, "mysql", db["id"]) == "resuming"
    (suspend,) = events_of(c, db["id"], "database_suspend")
    assert suspend["status"] == "finished", suspend
    (resume,) = events_of(c, db["id"], "database_resume")
    assert resume["status"] == "started", resume
    clock("advance", OPERATED)
    assert status_of(c, "mysql", db["id"]) == "active"
    assert ok(c.get(f"/account/events/{resume['id']}"))["status"] == "finished"
    # The provisioning time left changes nothing any more.
    clock("advance", PROVISIONED)
    assert status_of(c, "mysql", db["id"]) == "active"


@pytest.mark.parametrize("engine", sorted(PATHS))
def test_suspended_database_may_be_deleted(acct, clock, engine):
    """The Terraform provider's suspension test ends on a suspended cluster
    and destroys it."""
    c = acct.client
    db = active_db(acct, clock, engine, f"sr-del-{engine[:2]}")
    path = f"{PATHS[engine]}/{db['id']}"
    ok(c.post(path + "/suspend"))
    clock("advance", OPERATED)
    assert status_of(c, engine, db["id"]) == "suspended"
    r = c.delete(path)
    assert r.status == 200 and r.json == {}, r
    assert_error(c.get(path), 404, "Not found")


def test_suspend_and_resume_permissions(acct, clock, backend, server):
    c = acct.client
    db = active_db(acct, clock, "postgresql", "sr-perm")
    path = f"{PG}/{db['id']}"
    uid, limited = acct.user(restricted=True)
    _, scoped = acct.user(scopes="databases:read_only")
    assert_error(limited.post(path + "/suspend"), 403, "Unauthorized")
    backend.execute("INSERT INTO entity_grants (user_id, entity_type, entity_id,"
                    f" permissions) VALUES ({uid}, 'database', {db['id']}, 'read_only')")
    assert_error(limited.post(path + "/suspend"), 403, "Unauthorized")
    assert_error(scoped.post(path + "/suspend"), 401,
                 "Your OAuth token is not authorized to use this endpoint.")
    # The other engine's route does not know it; another account's neither.
    assert_error(c.post(f"{MY}/{db['id']}/suspend"), 404, "Not found")
    other = Account(backend, server)
    try:
        assert_error(other.client.post(path + "/suspend"), 404, "Not found")
        assert_error(other.client.post(path + "/resume"), 404, "Not found")
    finally:
        other.close()
    assert status_of(c, "postgresql", db["id"]) == "active"
    backend.execute(f"UPDATE entity_grants SET permissions = 'read_write' WHERE user_id = {uid}")
    ok(limited.post(path + "/suspend"))
    clock("advance", OPERATED)
    ok(limited.post(path + "/resume"))
    (ev,) = events_of(c, db["id"], "database_resume")
    assert ev["username"] == ok(limited.get("/profile"))["username"], ev


@pytest.mark.parametrize("op,start,to", [("suspend", "active", "suspending"),
                                         ("resume", "suspended", "resuming")])
def test_concurrent_requests_start_one_operation(acct, backend, server, op, start, to):
    """Many clients at once: exactly one suspend (resume) starts, the others
    find the status it left (a compare-and-set: on PostgreSQL by the row
    lock and the WHERE evaluated again)."""
    db = acct.active(path=PG, label=f"sr-race-{op}")
    acct.set_status(db, start)
    url = server.base_url + f"{PG}/{db['id']}/{op}"
    token = acct.client.token
    results, lock, gate = [], threading.Lock(), threading.Barrier(8)

    def worker():
        with requests.Session() as s:
            gate.wait(timeout=30)
            r = s.post(url, timeout=30, headers={"Authorization": f"Bearer {token}"})
            with lock:
                results.append((r.status_code, r.text))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(code for code, _ in results) == [200] + [400] * 7, results
    reason = WAIT.format(to, to)
    assert all(reason in text for code, text in results if code == 400), results
    assert status_of(acct.client, "postgresql", db["id"]) == to
    assert len(events_of(acct.client, db["id"], f"database_{op}")) == 1


def test_external_backend_suspend_waits_for_the_operator(backend, make_server, clock):
    """AcctapiDatabaseBackend external: nothing moves by itself; the
    operator's set-status ends the operation and its event."""
    srv = make_server(name="db-external-sr", extra="AcctapiDatabaseBackend external\n")
    acct = Account(backend, srv)
    try:
        c = acct.client
        db = acct.active(path=PG, label="sr-external")
        path = f"{PG}/{db['id']}"
        ok(c.post(path + "/suspend"))
        clock("advance", "2h")
        assert status_of(c, "postgresql", db["id"]) == "suspending"
        (ev,) = events_of(c, db["id"], "database_suspend")
        assert ev["status"] == "started", ev
        acct.set_status(db, "suspended")
        assert ok(c.get(f"/account/events/{ev['id']}"))["status"] == "finished"
        ok(c.post(path + "/resume"))
        clock("advance", "2h")
        assert status_of(c, "postgresql", db["id"]) == "resuming"
    finally:
        acct.close()


# --------------------------------------------------------------------------
# Fork
# --------------------------------------------------------------------------

@pytest.mark.parametrize("engine", sorted(PATHS))
def test_fork_at_a_point_in_time(acct, clock, backend, engine):
    start = fix_clock(clock)
    c = acct.client
    src = active_db(acct, clock, engine, f"fk-src-{engine[:2]}")
    clock("advance", "2h")
    at = start + datetime.timedelta(hours=1)
    body = BODIES[engine](f"fk-new-{engine[:2]}",
                          fork={"source": src["id"], "restore_time": stamp(at)})
    fork = ok(c.post(PATHS[engine], json=body))
    assert fork["fork"] == {"source": src["id"], "restore_time": stamp(at)}, fork
    assert fork["status"] == "provisioning" and fork["id"] != src["id"], fork
    assert fork["label"] == f"fk-new-{engine[:2]}", fork
    assert (fork["engine"], fork["version"]) == (src["engine"], src["version"]), fork
    (ev,) = events_of(c, fork["id"], "database_create")
    assert ev["status"] == "started", ev
    clock("advance", PROVISIONED)
    got = ok(c.get(f"{PATHS[engine]}/{fork['id']}"))
    assert got["status"] == "active" and got["fork"] == fork["fork"], got
    assert ok(c.get(f"{PATHS[engine]}/{src['id']}"))["fork"] is None
    listed = [d for d in c.all_pages("/databases/instances") if d["id"] == fork["id"]]
    assert listed[0]["fork"] == fork["fork"], listed
    # The source goes; its fork keeps naming it.
    assert c.delete(f"{PATHS[engine]}/{src['id']}").status == 200
    assert ok(c.get(f"{PATHS[engine]}/{fork['id']}"))["fork"]["source"] == src["id"]


def test_fork_of_only_the_fork_takes_the_source(acct, clock):
    """The Python SDK's mysql_fork(source, restore_time): a body of the fork
    alone, restore_time the source's `updated`; the rest is the source's,
    the label made from the source's (unique in the account)."""
    fix_clock(clock)
    c = acct.client
    src = active_db(acct, clock, "postgresql", "fk-whole")
    path = f"{PG}/{src['id']}"
    changed = ok(c.put(path, json={"allow_list": ["192.0.2.0/24"],
                                   "engine_config": {"pg": {"autovacuum_naptime": 100}}}))
    clock("advance", OPERATED)
    src = ok(c.get(path))
    assert src["status"] == "active" and changed["engine_config"] == src["engine_config"]
    first = ok(c.post(PG, json={"fork": {"source": src["id"],
                                         "restore_time": src["updated"]}}))
    assert first["label"] == "fk-whole-fork", first
    assert first["fork"] == {"source": src["id"], "restore_time": src["updated"]}, first
    for key in ("region", "type", "engine", "version", "cluster_size", "encrypted",
                "ssl_connection", "replication_type", "replication_commit_type",
                "allow_list", "engine_config", "total_disk_size_gb", "port"):
        assert first[key] == src[key], (key, first[key], src[key])
    second = ok(c.post(PG, json={"fork": {"source": src["id"]}}))
    assert second["label"] == "fk-whole-fork-2", second
    assert about_now(acct.backend, second["fork"]["restore_time"]), second


def test_fork_as_go_and_the_console_send_it(acct, clock):
    """linodego's create options send every id ("" when unset) and the
    fork's time under the key "-" (ignored: the newest); the console a
    restore_time with milliseconds, the region and private_network null."""
    fix_clock(clock)
    c = acct.client
    src = active_db(acct, clock, "mysql", "fk-clients-" + "x" * 21)   # 32 characters
    go = ok(c.post(MY, json={"label": "", "region": "", "type": "", "engine": "",
                             "fork": {"source": src["id"], "-": "2020-01-01T00:00:00Z"}}))
    assert go["label"] == "fk-clients-" + "x" * 16 + "-fork", go    # cut to 32
    assert about_now(acct.backend, go["fork"]["restore_time"]), go
    at = datetime.datetime.strptime(src["created"], TIME_FORMAT) + datetime.timedelta(minutes=5)
    console = ok(c.post(MY, json={"fork": {"source": src["id"],
                                           "restore_time": stamp(at) + ".000"},
                                  "region": "us-east", "private_network": None}))
    assert console["fork"]["restore_time"] == stamp(at), console
    assert console["label"] == "fk-clients-" + "x" * 14 + "-fork-2", console
    # A body that names an existing label is refused, as any create.
    assert_error(c.post(MY, json={"label": go["label"], "fork": {"source": src["id"]}}),
                 400, "A database with this label already exists", "label")


def test_fork_refusals(acct, clock, backend, server):
    start = fix_clock(clock)
    c = acct.client
    src = active_db(acct, clock, "mysql", "fk-refused")
    pg = active_db(acct, clock, "postgresql", "fk-refused-pg")
    oldest = src["oldest_restore_time"]
    assert oldest == src["created"], src
    before = stamp(datetime.datetime.strptime(oldest, TIME_FORMAT) - datetime.timedelta(seconds=1))
    later = time.strftime(TIME_FORMAT, time.gmtime(server_now(backend) + 60))
    cases = [
        ({"fork": {"source": src["id"], "restore_time": before}}, "fork.restore_time",
         f"Must not be before the source's oldest_restore_time ({oldest})"),
        ({"fork": {"source": src["id"], "restore_time": later}}, "fork.restore_time",
         "Must not be in the future"),
        ({"fork": {"source": src["id"], "restore_time": "yesterday"}}, "fork.restore_time",
         "Must be a date-time in the form YYYY-MM-DDTHH:MM:SS (UTC)"),
        ({"fork": {"source": pg["id"]}}, "fork.source",
         "Must be a mysql database: a fork runs its source's engine"),
        ({"fork": {"source": 987654321}}, "fork.source", "Database not found"),
        # linodego's unset ids stay unset: the source is the one problem.
        ({"label": "", "region": "", "type": "", "engine": "", "fork": {"source": 987654321}},
         "fork.source", "Database not found"),
        ({"fork": {"source": str(src["id"])}}, "fork.source", "Must be the id of a database"),
        ({"fork": {"restore_time": stamp(start)}}, "fork.source", "fork.source is required"),
        ({"fork": [src["id"]]}, "fork", "Must be an object"),
        ({"fork": {"source": src["id"]}, "engine": "mysql/5.7"}, "engine", "Engine not found"),
    ]
    for body, field, reason in cases:
        assert_error(c.post(MY, json=body), 400, reason, field)
    # Another major of the engine: a fork runs its source's version.
    assert_error(c.post(PG, json={"fork": {"source": pg["id"]}, "engine": "postgresql/13"}),
                 400, "Must be postgresql/16, the engine of the database forked", "engine")
    # Every problem at once.
    r = c.post(MY, json={"fork": {"source": src["id"], "restore_time": before},
                         "cluster_size": 7})
    assert sorted(e["field"] for e in assert_error(r, 400, None, None, only=False)) == [
        "cluster_size", "fork.restore_time"], r
    # Another account's database is not found.
    other = Account(backend, server)
    try:
        theirs = other.create(path=MY, label="fk-theirs")
        assert_error(c.post(MY, json={"fork": {"source": theirs["id"]}}), 400,
                     "Database not found", "fork.source")
    finally:
        other.close()
    # The source's status: the statuses at rest only.
    for status, reason in [("provisioning", WAIT.format("provisioning", "provisioning")),
                           ("suspended", NOT_NOW.format("suspended")),
                           ("updating", WAIT.format("updating", "the update"))]:
        acct.set_status(src, status)
        assert_error(c.post(MY, json={"fork": {"source": src["id"]}}), 400, reason)
    for status in ("degraded", "failed"):
        acct.set_status(src, status)
        assert ok(c.post(MY, json={"fork": {"source": src["id"]}}))["fork"]["source"] == src["id"]
    assert [d["label"] for d in c.all_pages(MY)] == [
        "fk-refused", "fk-refused-fork", "fk-refused-fork-2"]


def test_fork_restore_window_is_seven_days(acct, clock):
    start = fix_clock(clock)
    c = acct.client
    src = active_db(acct, clock, "postgresql", "fk-window")
    clock("advance", "8d")
    now = ok(c.get(f"{PG}/{src['id']}"))
    oldest = now["oldest_restore_time"]
    assert about_now(acct.backend, stamp(datetime.datetime.strptime(oldest, TIME_FORMAT)
                                         + datetime.timedelta(days=7))), now
    old = stamp(start + datetime.timedelta(hours=1))
    r = c.post(PG, json={"fork": {"source": src["id"], "restore_time": old}})
    (e,) = assert_error(r, 400, None, "fork.restore_time")
    assert e["reason"].startswith("Must not be before the source's oldest_restore_time ("), r
    at = time.strftime(TIME_FORMAT, time.gmtime(epoch(oldest) + 60))
    fork = ok(c.post(PG, json={"fork": {"source": src["id"], "restore_time": at}}))
    assert fork["fork"]["restore_time"] == at, fork


def test_fork_permissions(acct, clock, backend):
    """A restricted user needs add_databases and read_write on the source;
    it then holds read_write on the fork, as on anything it creates."""
    c = acct.client
    src = active_db(acct, clock, "mysql", "fk-perm")
    uid, limited = acct.user(restricted=True)
    body = {"fork": {"source": src["id"]}}
    assert_error(limited.post(MY, json=body), 403, "Unauthorized")
    backend.execute("INSERT INTO user_global_grants (user_id, add_databases)"
                    f" VALUES ({uid}, 1)")
    assert_error(limited.post(MY, json=body), 403, "Unauthorized")
    backend.execute("INSERT INTO entity_grants (user_id, entity_type, entity_id,"
                    f" permissions) VALUES ({uid}, 'database', {src['id']}, 'read_only')")
    assert_error(limited.post(MY, json=body), 403, "Unauthorized")
    backend.execute(f"UPDATE entity_grants SET permissions = 'read_write' WHERE user_id = {uid}")
    fork = ok(limited.post(MY, json=body))
    assert ok(limited.get(f"{MY}/{fork['id']}"))["fork"]["source"] == src["id"]
    grants = backend.query("SELECT permissions FROM entity_grants WHERE user_id = "
                           f"{uid} AND entity_id = {fork['id']}")
    assert grants == [["read_write"]], grants
    assert len(c.all_pages(MY)) == 2
