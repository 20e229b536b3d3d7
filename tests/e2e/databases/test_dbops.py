"""Operations on one managed database, end to end on both backends: backups
(automatic ones across days, snapshots and their limit, restore), root
credentials, patch and the CA certificate, as a new user would script them
with the test clock; and every cell of the contract's required-status table
for these operations (suspend and resume included), on both engines.

Databases are created through the API; statuses the emulation never reaches
by itself (failed, degraded, suspended...) are forced with `acctapi-admin
database set-status`, and backups the status table needs are rows written
with SQL."""

import base64
import datetime
import subprocess
import threading

import pytest

import harness
import requests

from checks import assert_envelope, assert_error, assert_json

ENGINES = {"mysql": "mysql/8.0.30", "postgresql": "postgresql/16.4"}
STATUSES = ["provisioning", "active", "suspending", "suspended", "resuming",
            "restoring", "failed", "degraded", "updating", "backing_up"]
# What acct_db_require_status says a user waits for in a transient status.
AWAITED = {"provisioning": "provisioning", "updating": "the update",
           "backing_up": "the backup", "restoring": "the restore",
           "resuming": "resuming", "suspending": "suspending"}
SNAPSHOT_LIMIT = ("A database may have at most 3 snapshots; delete one before "
                  "creating another.")
DAY = 86400


def status_reason(status):
    if status in AWAITED:
        return (f"Your database is {status}; please wait until {AWAITED[status]} "
                "is complete to perform this operation.")
    return f"Your database is {status}; this operation is not available in that status."


def create_db(api, backend, engine):
    label = backend.unique(f"ops-{engine[:2]}-")
    r = api.post(f"/databases/{engine}/instances", json={
        "label": label, "region": "us-east", "type": "g6-dedicated-2",
        "engine": ENGINES[engine]})
    assert r.status == 200, r
    assert r.json["status"] == "provisioning", r
    return r.json


def base(engine, db):
    return f"/databases/{engine}/instances/{db['id']}"


def db_status(api, engine, db):
    r = api.get(base(engine, db))
    assert r.status == 200, r
    return r.json["status"]


def set_status(backend, db, status):
    backend.admin("database", "set-status", str(db["id"]), status)


def fix_clock(clock, hour=10):
    """Puts the clock at `hour`:00 UTC tomorrow (real time), so that the
    days a test advances through hold a known number of midnights."""
    today = datetime.datetime.now(datetime.timezone.utc).date()
    start = datetime.datetime.combine(today + datetime.timedelta(days=1),
                                      datetime.time(hour), datetime.timezone.utc)
    clock("set", start.strftime("%Y-%m-%dT%H:%M:%S"))
    return start


def backups(api, engine, db, **kw):
    r = api.get(base(engine, db) + "/backups", **kw)
    assert r.status == 200, r
    return assert_envelope(assert_json(r))


def add_backup_row(backend, db, created_epoch, kind="snapshot"):
    """A finished backup written the way an operator would, with SQL."""
    backend.execute(
        "INSERT INTO database_backups (database_id, type, label, created) "
        f"VALUES ({db['id']}, '{kind}', 'sql{created_epoch}', {created_epoch})")
    rows = backend.query("SELECT max(id) FROM database_backups "
                         f"WHERE database_id = {db['id']}")
    return int(rows[0][0])


def db_created_epoch(backend, db):
    return int(backend.query(f"SELECT created FROM databases WHERE id = {db['id']}")[0][0])


def openssl_text(pem):
    p = subprocess.run(["openssl", "x509", "-noout", "-text"], input=pem,
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    return p.stdout


# --------------------------------------------------------------------------
# A new user's session
# --------------------------------------------------------------------------

@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_new_user_database_operations(api, backend, clock, engine):
    start = fix_clock(clock)
    db = create_db(api, backend, engine)
    path = base(engine, db)
    clock("advance", "31m")
    assert db_status(api, engine, db) == "active"

    # Credentials; a reset makes a new password after a few seconds.
    creds = assert_json(api.get(path + "/credentials"))
    assert set(creds) == {"username", "password"}
    assert len(creds["password"]) >= 16 and creds["password"].isalnum()
    r = api.post(path + "/credentials/reset")
    assert r.status == 200 and r.json == {}, r
    assert_error(api.get(path + "/credentials"), 400, status_reason("updating"))
    clock("advance", "15s")
    fresh = assert_json(api.get(path + "/credentials"))
    assert fresh["username"] == creds["username"]
    assert fresh["password"] != creds["password"]
    assert len(fresh["password"]) >= 16

    # Three snapshots, each finishing before the next; a fourth is refused.
    for n in range(1, 4):
        r = api.post(path + "/backups", json={"label": f"snap{n}"})
        assert r.status == 200 and r.json == {}, r
        assert db_status(api, engine, db) == "backing_up"
        assert len(backups(api, engine, db)) == n - 1    # appears when done
        clock("advance", "4m")
        assert db_status(api, engine, db) == "active"
        items = backups(api, engine, db)
        assert [b["label"] for b in items] == [f"snap{i}" for i in range(1, n + 1)]
        assert all(set(b) == {"id", "type", "label", "created"} for b in items)
    assert_error(api.post(path + "/backups", json={"label": "snap4"}), 400,
                 SNAPSHOT_LIMIT)

    # Three days on: three automatic backups, one per midnight.
    clock("advance", "3d")
    autos = backups(api, engine, db, xfilter={"type": "auto"})
    midnights = [start.date() + datetime.timedelta(days=d) for d in (1, 2, 3)]
    assert [a["created"] for a in autos] == [f"{d}T00:00:00" for d in midnights]
    assert [a["label"] for a in autos] == [f"auto{d:%Y%m%d}" for d in midnights]
    assert len(backups(api, engine, db)) == 6

    # Restore one: restoring, then active.
    r = api.post(f"{path}/backups/{autos[-1]['id']}/restore")
    assert r.status == 200 and r.json == {}, r
    assert db_status(api, engine, db) == "restoring"
    clock("advance", "4m")
    assert db_status(api, engine, db) == "active"

    # The CA certificate, as openssl reads it; the same one every time.
    ssl = assert_json(api.get(path + "/ssl"))
    assert list(ssl) == ["ca_certificate"]
    pem = base64.b64decode(ssl["ca_certificate"], validate=True).decode()
    text = openssl_text(pem)
    assert f"CN = {db['label']} CA" in text
    assert "CA:TRUE" in text and "Certificate Sign, CRL Sign" in text
    assert "X509v3 Subject Key Identifier" in text
    assert "critical" in text.split("X509v3 Basic Constraints")[1].splitlines()[0]
    assert assert_json(api.get(path + "/ssl")) == ssl


def test_restore_after_credentials_reset_fails(api, backend, clock):
    fix_clock(clock)
    db = create_db(api, backend, "postgresql")
    path = base("postgresql", db)
    clock("advance", "31m")
    assert api.post(path + "/backups", json={"label": "before"}).status == 200
    clock("advance", "4m")
    (snap,) = backups(api, "postgresql", db)
    assert api.post(path + "/credentials/reset").status == 200
    clock("advance", "15s")
    r = api.post(f"{path}/backups/{snap['id']}/restore")
    assert r.status == 200, r
    assert db_status(api, "postgresql", db) == "restoring"
    clock("advance", "4m")
    assert db_status(api, "postgresql", db) == "failed"
    # From failed, a backup taken after the reset restores fine.
    clock("advance", "1d")
    (auto,) = backups(api, "postgresql", db, xfilter={"type": "auto"})
    assert api.post(f"{path}/backups/{auto['id']}/restore").status == 200
    clock("advance", "4m")
    assert db_status(api, "postgresql", db) == "active"


def test_automatic_backups_keep_seven_days(api, backend, clock):
    fix_clock(clock)
    db = create_db(api, backend, "mysql")
    clock("advance", "31m")
    clock("advance", "10d")
    autos = backups(api, "mysql", db)
    assert len(autos) == 7
    # A deleted one stays deleted; the next midnight adds one, expires one.
    victim = autos[3]
    r = api.delete(f"{base('mysql', db)}/backups/{victim['id']}")
    assert r.status == 200 and r.json == {}, r
    assert_error(api.get(f"{base('mysql', db)}/backups/{victim['id']}"), 404, "Not found")
    clock("advance", "1d")
    later = backups(api, "mysql", db)
    assert len(later) == 6
    assert victim["created"] not in [b["created"] for b in later]
    assert later[0]["created"] == autos[1]["created"]
    one = assert_json(api.get(f"{base('mysql', db)}/backups/{later[0]['id']}"))
    assert one == later[0]


def test_snapshot_body_validation(api, backend):
    db = create_db(api, backend, "mysql")
    set_status(backend, db, "active")
    path = base("mysql", db) + "/backups"
    assert_error(api.post(path, json={}), 400, "label is required", "label")
    assert_error(api.post(path, json={"label": "no-dash"}), 400,
                 "Label must contain only ASCII letters, digits and underscores", "label")
    assert_error(api.post(path, json={"label": "x" * 31}), 400,
                 "Length must be 1-30 characters", "label")
    assert_error(api.post(path, json={"label": "ok", "target": "tertiary"}), 400,
                 "target must be one of: primary, secondary", "target")
    # "size" is not a field of the route: ignored (docs/conventions.md, "Today's
    # clients"); null is the default, and label has none
    errs = assert_error(api.post(path, json={"target": 1, "size": 2, "label": None}), 400,
                        field=None, only=False)
    assert sorted(e["field"] for e in errs) == ["label", "target"]
    assert db_status(api, "mysql", db) == "active"
    # the public API's snapshot labels take '_'
    r = api.post(path, json={"label": "x_" * 15, "target": "secondary"})
    assert r.status == 200, r


def test_parallel_snapshots_start_once(api, backend, server):
    """Many clients at once: exactly one snapshot starts."""
    db = create_db(api, backend, "postgresql")
    set_status(backend, db, "active")
    url = server.base_url + base("postgresql", db) + "/backups"
    results, lock, gate = [], threading.Lock(), threading.Barrier(8)

    def worker(n):
        with requests.Session() as s:
            gate.wait(timeout=30)
            r = s.post(url, json={"label": f"race{n}"}, timeout=30,
                       headers={"Authorization": f"Bearer {backend.token}"})
            with lock:
                results.append((r.status_code, r.text))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    codes = sorted(c for c, _ in results)
    assert codes == [200] + [400] * 7, results
    assert all(status_reason("backing_up") in text or "in progress" in text
               for c, text in results if c == 400), results
    count = backend.query(f"SELECT count(*) FROM database_backups WHERE database_id = {db['id']}")
    assert count == [["1"]]


def test_other_engine_and_other_user(api, backend, server):
    db = create_db(api, backend, "mysql")
    set_status(backend, db, "active")
    assert_error(api.get(base("postgresql", db) + "/ssl"), 404, "Not found")
    uid, _ = backend.create_user(restricted=True)
    restricted = server.client(token=backend.mint_token(scopes="*", user=uid))
    try:
        assert_error(restricted.post(base("mysql", db) + "/credentials/reset"), 403,
                     "Unauthorized")
        backend.execute("INSERT INTO entity_grants (user_id, entity_type, entity_id,"
                        f" permissions) VALUES ({uid}, 'database', {db['id']}, 'read_only')")
        assert restricted.get(base("mysql", db) + "/credentials").status == 200
        assert_error(restricted.get(base("mysql", db) + "/backups"), 403, "Unauthorized")
        assert_error(restricted.post(base("mysql", db) + "/patch"), 403, "Unauthorized")
    finally:
        restricted.close()
    assert db_status(api, "mysql", db) == "active"


# --------------------------------------------------------------------------
# The required-status table: one test per cell, both engines
# --------------------------------------------------------------------------

NOT_PROVISIONING = [s for s in STATUSES if s != "provisioning"]

# (cell, method, path after the instance ({b}: a finished backup), body, allowed)
CELLS = [
    ("backups-list", "GET", "/backups", None, NOT_PROVISIONING),
    ("backup-view", "GET", "/backups/{b}", None, NOT_PROVISIONING),
    ("backup-delete", "DELETE", "/backups/{b}", None, NOT_PROVISIONING),
    ("snapshot-create", "POST", "/backups", {"label": "cell"}, ["active"]),
    ("backup-restore", "POST", "/backups/{b}/restore", None,
     ["active", "degraded", "failed"]),
    ("credentials-view", "GET", "/credentials", None, ["active"]),
    ("credentials-reset", "POST", "/credentials/reset", None, ["active"]),
    ("patch", "POST", "/patch", None, ["active"]),
    ("ssl-view", "GET", "/ssl", None, ["active"]),
    # Today's public API: suspend from active (provisioning too:
    # linode-cli suspends a cluster it has just made), resume from suspended
    # (suspending too: the console offers it, linode-cli resumes at once).
    ("suspend", "POST", "/suspend", None, ["provisioning", "active"]),
    ("resume", "POST", "/resume", None, ["suspending", "suspended"]),
    # A PUT's operations of today's public API: an update, like
    # any PUT (a body of one engine or the other: {engine: body}).
    ("upgrade", "PUT", "", {"mysql": {"version": "8"}, "postgresql": {"version": "17"}},
     ["active"]),
    ("resize-nodes", "PUT", "", {"cluster_size": 3}, ["active"]),
    ("resize-type", "PUT", "", {"type": "g6-dedicated-4"}, ["active"]),
    ("private-network", "PUT", "", {"private_network": None}, ["active"]),
]


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("cell,method,rest,body,allowed", CELLS, ids=[c[0] for c in CELLS])
def test_required_status(api, backend, engine, cell, method, rest, body, allowed):
    db = create_db(api, backend, engine)
    created = db_created_epoch(backend, db)
    if isinstance(body, dict) and set(body) == set(ENGINES):
        body = body[engine]
    for status in STATUSES:
        set_status(backend, db, status)
        # A fresh start each time: deletes and snapshots use backups up.
        backend.execute(f"DELETE FROM database_backups WHERE database_id = {db['id']}")
        backup = add_backup_row(backend, db, created - 60) if "{b}" in rest else None
        path = base(engine, db) + rest.format(b=backup)
        r = api.request(method, path, json=body)
        if status in allowed:
            assert r.status == 200, (status, r)
        else:
            assert_error(r, 400, status_reason(status))
            assert db_status(api, engine, db) == status, (status, "refusal changed it")


# --------------------------------------------------------------------------
# The administrator's name (AcctapiDatabaseAdminUser)
# --------------------------------------------------------------------------

def admin_of(client, backend, engine):
    """The credentials' user name of a new, active database of `engine`."""
    db = create_db(client, backend, engine)
    set_status(backend, db, "active")
    creds = assert_json(client.get(base(engine, db) + "/credentials"))
    return creds["username"]


def test_admin_users_are_the_contracts_by_default(api, backend):
    assert admin_of(api, backend, "mysql") == "linroot"
    assert admin_of(api, backend, "postgresql") == "linpostgres"


def test_admin_user_directive_names_both_engines(make_server, backend):
    """Today's service names the administrator akmadmin on both engines."""
    srv = make_server(name="db-admin-user", extra="AcctapiDatabaseAdminUser akmadmin\n")
    c = srv.client(token=backend.token)
    try:
        assert admin_of(c, backend, "mysql") == "akmadmin"
        assert admin_of(c, backend, "postgresql") == "akmadmin"
    finally:
        c.close()


@pytest.mark.parametrize("value", ["9root", "Admin", "a-b", "x" * 33])
def test_admin_user_directive_refuses_bad_names(make_server, value):
    with pytest.raises(harness.HarnessError) as e:
        make_server(name="db-admin-bad", extra=f"AcctapiDatabaseAdminUser {value}\n")
    assert ("AcctapiDatabaseAdminUser: 1 to 32 lowercase letters, digits and "
            "underscores, not starting with a digit") in str(e.value)
