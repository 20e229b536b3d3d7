"""/databases/instances and /databases/{mysql,postgresql}/instances[/{id}]:
managed databases and their lifecycle end to end, on both backends.

Each test works in an account of its own, so its lists hold only its own
databases.  Time moves with the test clock (the servers run with the default
durations: provisioning 15-30 minutes, operations 3 minutes); statuses the
emulation never reaches by itself (failed, degraded, suspended...) are forced
with `acctapi-admin database set-status`, as an operator would.
"""

import re

import pytest

import harness
from checks import assert_envelope, assert_error, assert_headers
from dbaccounts import MY, PG, Account, my_body, pg_body  # noqa: F401

SCOPE_REASON = "Your OAuth token is not authorized to use this endpoint."
TAKEN = "A database with this label already exists"
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
KEYS = ["id", "label", "engine", "version", "region", "type", "cluster_size",
        "encrypted", "ssl_connection", "allow_list", "port", "hosts", "status",
        "created", "updated", "total_disk_size_gb", "used_disk_size_gb",
        "updates", "replication_type", "replication_commit_type"]
# What today's public API adds (docs/conventions.md, "Today's clients": managed
# databases as the public API serves them).
PUBLIC_KEYS = ["members", "platform", "oldest_restore_time", "engine_config",
               "private_network", "fork"]
# The all-engines list shows ssl_connection too, as today's public API does
# (linodego's recorded TestDatabase_List).
ALL_KEYS = [k for k in KEYS if k not in ("replication_type", "replication_commit_type")] + \
    ["instance_uri"] + PUBLIC_KEYS
KEYS = KEYS + PUBLIC_KEYS
# A new database's window: 4 hours, as today's service gives it.
DEFAULT_UPDATES = {"frequency": "weekly", "duration": 4, "hour_of_day": 0,
                   "day_of_week": 1, "week_of_month": None, "pending": []}
STATUSES = ["provisioning", "active", "suspending", "suspended", "resuming",
            "restoring", "failed", "degraded", "updating", "backing_up"]
PROVISIONED = "31m"     # past the longest default provisioning time
OPERATED = "4m"         # past the default operation time


def fields_of(r):
    errs = assert_error(r, 400, None, None, only=False)
    return sorted(e.get("field", "") for e in errs)


def grant(backend, uid, db_id, level):
    backend.execute("INSERT INTO entity_grants (user_id, entity_type, entity_id,"
                    f" permissions) VALUES ({uid}, 'database', {db_id}, '{level}')")


def allow_add_databases(backend, uid):
    backend.execute("INSERT INTO user_global_grants (user_id, add_databases)"
                    f" VALUES ({uid}, 1)")


def labels(client, path="/databases/instances", **kw):
    return sorted(d["label"] for d in client.all_pages(path, **kw))


def status_refused(r, status):
    errs = assert_error(r, 400)
    assert errs[0]["reason"].startswith(f"Your database is {status};"), r


# --------------------------------------------------------------------------
# As a new user would
# --------------------------------------------------------------------------

def test_new_user_postgresql_cluster(acct, clock, backend):
    """Create a 3-node PostgreSQL cluster, see it provisioning, let half an
    hour pass, see it active with its hosts, in its list and at its URI."""
    r = acct.client.post(PG, json=pg_body("orders-db", cluster_size=3,
                                          allow_list=["203.0.113.0/24"]))
    assert r.status == 200, r
    assert_headers(r, scopes="*", accepted="databases:read_write")
    assert [k for k, _ in r.json_pairs()] == KEYS, r
    db = r.json
    assert isinstance(db["id"], int) and db["id"] > 0
    assert (db["engine"], db["version"], db["region"], db["type"]) == \
        ("postgresql", "16.4", "us-east", "g6-standard-2")
    assert (db["cluster_size"], db["encrypted"], db["ssl_connection"]) == (3, False, True)
    assert (db["replication_type"], db["replication_commit_type"]) == ("asynch", "local")
    assert db["allow_list"] == ["203.0.113.0/24"]
    assert db["port"] == 5432
    assert db["status"] == "provisioning"
    assert db["hosts"] == {"primary": None, "secondary": None, "standby": None}
    # the disk of the database node type (GET /databases/types)
    assert (db["total_disk_size_gb"], db["used_disk_size_gb"]) == (58, 0)
    # oldest_restore_time from the start, as the public API answers a create
    assert (db["members"], db["platform"], db["oldest_restore_time"]) == \
        ({}, "rdbms-default", db["created"])
    assert (db["private_network"], db["fork"]) == (None, None)
    assert set(db["engine_config"]) >= {"pg"}
    assert db["updates"] == DEFAULT_UPDATES
    assert TIMESTAMP.fullmatch(db["created"]) and db["created"] == db["updated"]

    v = acct.client.get(f"{PG}/{db['id']}")
    assert v.status == 200, v
    assert_headers(v, scopes="*", accepted="databases:read_only")
    assert v.json["status"] == "provisioning"

    clock("advance", PROVISIONED)
    now = acct.get(db)
    assert now["status"] == "active"
    host = rf"lin-{acct.id}-{db['id']}-postgresql-primary"
    assert re.fullmatch(host + r"\.db\.example\.com", now["hosts"]["primary"]), now
    assert re.fullmatch(host + r"-private\.db\.example\.com", now["hosts"]["secondary"]), now
    assert now["hosts"]["standby"] == now["hosts"]["secondary"]
    assert sorted(now["members"].values()) == ["failover", "failover", "primary"]
    assert now["oldest_restore_time"] == now["created"]
    assert now["updated"] > now["created"]

    r = acct.client.get("/databases/instances")
    assert r.status == 200, r
    assert_headers(r, scopes="*", accepted="databases:read_only")
    items = assert_envelope(r.json)
    assert len(items) == 1
    assert list(items[0]) == ALL_KEYS
    assert items[0]["instance_uri"] == f"/v4/databases/postgresql/instances/{db['id']}"
    assert items[0]["status"] == "active"
    assert items[0]["ssl_connection"] is now["ssl_connection"]
    follow = acct.client.get(items[0]["instance_uri"][len("/v4"):])
    assert follow.status == 200 and follow.json == now


def test_mysql_shape_and_choices(acct, backend):
    r = acct.client.post(MY, json=my_body(
        "shop.db_1", cluster_size=3, replication_type="asynch", encrypted=True,
        ssl_connection=False,
        allow_list=["192.0.2.7", "2001:DB8:0::1", "10.0.0.0/8", "2001:db8:1::/48",
                    "0.0.0.0/0"]))
    assert r.status == 200, r
    db = r.json
    assert list(db) == [k for k in KEYS if k != "replication_commit_type"]
    assert (db["engine"], db["version"], db["port"]) == ("mysql", "8.0.30", 3306)
    assert (db["encrypted"], db["ssl_connection"]) == (True, False)
    assert db["replication_type"] == "asynch"
    assert db["allow_list"] == ["192.0.2.7", "2001:db8::1", "10.0.0.0/8",
                                "2001:db8:1::/48", "0.0.0.0/0"]
    assert db["total_disk_size_gb"] == 9     # g6-nanode-1 of /databases/types
    # The three-node default of each engine, and none for a single node.
    assert acct.create(MY, label="my-ha", cluster_size=3)["replication_type"] == "semi_synch"
    assert acct.create(MY, label="my-single")["replication_type"] == "none"
    pg = acct.create(PG, label="pg-commit", replication_commit_type="remote_apply")
    assert (pg["replication_type"], pg["replication_commit_type"]) == ("none", "remote_apply")
    # The root password is sealed; the username is the engine's.
    rows = backend.query(f"SELECT root_username, root_password_sealed FROM databases"
                         f" WHERE id = {db['id']}")
    assert rows[0][0] == "linroot" and rows[0][1].startswith("v1:")
    rows = backend.query(f"SELECT root_username FROM databases WHERE id = {pg['id']}")
    assert rows[0][0] == "linpostgres"


# --------------------------------------------------------------------------
# Create refusals
# --------------------------------------------------------------------------

CREATE_REFUSALS = [
    (PG, {"region": "us-east", "type": "g6-nanode-1", "engine": "postgresql/16.4"},
     ["label"]),
    (PG, pg_body("ab"), ["label"]),
    (PG, pg_body("a" * 33), ["label"]),
    (PG, pg_body("tab\tinside"), ["label"]),
    (PG, pg_body(12345), ["label"]),
    (PG, {"label": "nothing-else"}, ["engine", "region", "type"]),
    (PG, pg_body("no-region", region="mars-1"), ["region"]),
    (PG, pg_body("outage", region="us-southeast"), ["region"]),
    (PG, pg_body("no-dbaas", region="id-cgk"), ["region"]),
    (PG, pg_body("no-type", type="g6-imaginary"), ["type"]),
    (PG, pg_body("no-engine", engine="postgresql/99"), ["engine"]),
    (PG, pg_body("wrong-engine", engine="mysql/8.0.30"), ["engine"]),
    (MY, my_body("wrong-engine", engine="postgresql/16.4"), ["engine"]),
    (PG, pg_body("bare-engine", engine="postgresql"), ["engine"]),
    (PG, pg_body("size-4", cluster_size=4), ["cluster_size"]),
    (PG, pg_body("size-text", cluster_size="3"), ["cluster_size"]),
    (PG, pg_body("single-asynch", replication_type="asynch"), ["replication_type"]),
    (PG, pg_body("ha-none", cluster_size=3, replication_type="none"), ["replication_type"]),
    (PG, pg_body("pg-semi", cluster_size=3, replication_type="semi_synch"),
     ["replication_type"]),
    (MY, my_body("my-semi-single", replication_type="semi_synch"), ["replication_type"]),
    (MY, my_body("my-bogus", replication_type="sync"), ["replication_type"]),
    (PG, pg_body("commit-bad", replication_commit_type="always"),
     ["replication_commit_type"]),
    # not a MySQL field: ignored (docs/conventions.md, "Today's clients")
    (MY, my_body("my-commit", replication_commit_type="local", encrypted=1),
     ["encrypted"]),
    (PG, pg_body("enc-int", encrypted=1), ["encrypted"]),
    # null is the default
    (PG, pg_body("ssl-null", ssl_connection=None, cluster_size=4), ["cluster_size"]),
    (PG, pg_body("allow-str", allow_list="10.0.0.1"), ["allow_list"]),
    (PG, pg_body("allow-bad", allow_list=["10.0.0.1", "10.0.0.1/32", "10.0.0.7/24",
                                          "10.0.0.0/33", "::1/129", "host.example",
                                          7, "", "10.0.0.0/08"]),
     [f"allow_list[{i}]" for i in range(3, 9)]),
    # what a create does not set is ignored
    (PG, pg_body("read-only", status="active", port=1, hosts={}, updates={}, id=4,
                 cluster_size=4),
     ["cluster_size"]),
    (PG, {"label": "x", "region": "mars", "type": "t", "engine": "e",
          "cluster_size": 0, "allow_list": ["x"], "extra": 1},
     ["allow_list[0]", "cluster_size", "engine", "label", "region", "type"]),
]


@pytest.mark.parametrize("path,body,fields", CREATE_REFUSALS,
                         ids=[f"{p.split('/')[2]}-{b.get('label')}-{i}"
                              for i, (p, b, f) in enumerate(CREATE_REFUSALS)])
def test_create_refusals(acct, path, body, fields):
    r = acct.client.post(path, json=body)
    assert fields_of(r) == fields, r
    assert labels(acct.client) == []


def test_values_the_public_api_takes(acct):
    """docs/conventions.md, "Today's clients": never stricter than the public API.
    Labels of 3..32 characters (its spec and console set no pattern), two
    nodes of the dedicated types it sells so (GET /databases/types),
    allow-list items kept as given (its pattern admits host bits; its
    recorded traffic repeats an item), 4-hour maintenance windows (its SDKs'
    tests send 4)."""
    db = acct.create(MY, label="My DB (test)", cluster_size=2, type="g6-dedicated-2",
                     allow_list=["10.0.0.7/24", "192.0.2.1", "192.0.2.1"])
    assert (db["label"], db["cluster_size"], db["replication_type"]) == \
        ("My DB (test)", 2, "semi_synch")
    assert db["allow_list"] == ["10.0.0.7/24", "192.0.2.1", "192.0.2.1"]
    pg = acct.create(label="-dash first", cluster_size=2, type="g6-dedicated-4")
    assert pg["replication_type"] == "asynch"
    r = acct.client.post(PG, json=pg_body("two-shared", cluster_size=2))
    assert_error(r, 400, "Type g6-standard-2 is not offered in a cluster of 2 nodes",
                 "cluster_size")
    r = acct.client.post(PG, json=pg_body("two-none", cluster_size=2, replication_type="none",
                                          type="g6-dedicated-2"))
    assert_error(r, 400, "Must be asynch for a cluster of 2 or 3 nodes", "replication_type")
    acct.set_status(db, "active")
    r = acct.client.put(f"{MY}/{db['id']}", json={"updates": {"duration": 4}})
    assert r.status == 200, r
    assert r.json["updates"]["duration"] == 4


def test_create_refusal_reasons(acct):
    r = acct.client.post(PG, json=pg_body("prefix", allow_list=["10.0.0.7/33"]))
    assert_error(r, 400, "The prefix length must be a whole number from 0 to 32",
                 "allow_list[0]")
    r = acct.client.post(PG, json=pg_body("outage", region="us-southeast"))
    assert_error(r, 400, "Region is currently unavailable", "region")
    r = acct.client.post(PG, json=pg_body("single", replication_type="asynch"))
    assert_error(r, 400, "Must be none for a single-node cluster", "replication_type")
    acct.create(label="taken")
    r = acct.client.post(MY, json=my_body("taken"))
    assert_error(r, 400, TAKEN, "label")


def test_create_permissions(acct, acct2, backend):
    acct2.create(label="same-label")            # labels are per account
    acct.create(label="same-label")
    _, read_only = acct.user(scopes="databases:read_only")
    assert_error(read_only.post(PG, json=pg_body("scoped")), 401, SCOPE_REASON)
    uid, limited = acct.user(restricted=True)
    assert_error(limited.post(PG, json=pg_body("limited")), 403, "Unauthorized")
    allow_add_databases(backend, uid)
    r = limited.post(MY, json=my_body("limited"))
    assert r.status == 200, r
    rows = backend.query("SELECT permissions FROM entity_grants WHERE entity_type ="
                         f" 'database' AND entity_id = {r.json['id']} AND user_id = {uid}")
    assert rows == [["read_write"]]
    assert labels(limited) == ["limited"]
    assert labels(acct.client) == ["limited", "same-label"]
    assert acct.client.post("/databases/oracle/instances", json=pg_body("x")).status == 404


def test_concurrent_creates_of_one_label(acct, server):
    """50 creates of one label over separate connections: exactly one wins."""
    calls = [(("POST", PG, pg_body("race")) if i % 2 else ("POST", MY, my_body("race")))
             for i in range(50)]
    results = harness.race(server, acct.client.token, calls)
    ok = [body for status, body in results if status == 200]
    refused = [body for status, body in results if status == 400]
    assert len(ok) == 1 and len(refused) == 49, results
    assert all(b == {"errors": [{"reason": TAKEN, "field": "label"}]} for b in refused)
    assert [d["id"] for d in acct.client.all_pages("/databases/instances")] == [ok[0]["id"]]


def test_concurrent_renames_and_creates_of_one_label(acct, server):
    """Renames cannot use ON CONFLICT; racing creates of the same label they
    still lose cleanly (a 400, never a 500 from the unique index)."""
    own = [acct.active(label=f"before-{i}")["id"] for i in range(10)]
    calls = ([("PUT", f"{PG}/{i}", {"label": "contested"}) for i in own]
             + [("POST", PG, pg_body("contested"))] * 10)
    results = harness.race(server, acct.client.token, calls)
    ok = [body for status, body in results if status == 200]
    refused = [body for status, body in results if status == 400]
    assert len(ok) == 1 and len(refused) == 19, results
    assert all(b == {"errors": [{"reason": TAKEN, "field": "label"}]} for b in refused)
    assert labels(acct.client).count("contested") == 1


# --------------------------------------------------------------------------
# Update
# --------------------------------------------------------------------------

def test_update_and_its_operation(acct, clock):
    db = acct.create(label="to-change", allow_list=["192.0.2.1"])
    clock("advance", PROVISIONED)
    hosts = acct.get(db)["hosts"]
    r = acct.client.put(f"{PG}/{db['id']}", json={
        "label": "changed", "type": "g6-standard-6", "allow_list": ["198.51.100.0/24", "::1"],
        "updates": {"frequency": "monthly", "week_of_month": 3, "day_of_week": 7,
                    "hour_of_day": 22, "duration": 1}})
    assert r.status == 200, r
    assert_headers(r, scopes="*", accepted="databases:read_write")
    up = r.json
    assert list(up) == KEYS
    assert up["status"] == "updating"
    assert (up["label"], up["type"], up["total_disk_size_gb"]) == ("changed", "g6-standard-6", 280)
    assert up["allow_list"] == ["198.51.100.0/24", "::1"]
    assert up["updates"] == {"frequency": "monthly", "duration": 1, "hour_of_day": 22,
                             "day_of_week": 7, "week_of_month": 3, "pending": []}
    assert up["hosts"] == hosts
    assert acct.get(db)["status"] == "updating"
    status_refused(acct.client.put(f"{PG}/{db['id']}", json={"label": "again"}), "updating")
    assert_error(acct.client.put(f"{PG}/{db['id']}", json={"label": "again"}), 400,
                 "Your database is updating; please wait until the update is complete"
                 " to perform this operation.")
    clock("advance", OPERATED)
    now = acct.get(db)
    assert now["status"] == "active" and now["label"] == "changed"
    # A partial window merges onto the stored one; weekly needs week_of_month null.
    r = acct.client.put(f"{PG}/{db['id']}", json={"updates": {"frequency": "weekly",
                                                             "week_of_month": None}})
    assert r.status == 200, r
    assert r.json["updates"] == {"frequency": "weekly", "duration": 1, "hour_of_day": 22,
                                 "day_of_week": 7, "week_of_month": None, "pending": []}
    assert r.json["allow_list"] == ["198.51.100.0/24", "::1"]


UPDATE_REFUSALS = [
    ({"label": "no"}, ["label"]),
    ({"label": "x" * 33}, ["label"]),
    ({"label": "bad\nlabel"}, ["label"]),
    ({"label": "other-one"}, ["label"]),
    # Less disk and the same disk are resizes today's platform takes
    # (test_db_put_changes.py); a type or node count /databases/types does
    # not sell together is not.
    ({"type": "g6-nanode-1", "cluster_size": 2}, ["type"]),
    ({"type": "g6-standard-2", "label": "no"}, ["label"]),  # the same type: no change
    ({"cluster_size": 2}, ["cluster_size"]),          # g6-standard-2: not 2 nodes
    ({"type": "g6-imaginary"}, ["type"]),
    ({"allow_list": ["10.1.1.1/16", "10.0.0.0/8/8"]}, ["allow_list[1]"]),
    ({"allow_list": ["::", "0::0/129"]}, ["allow_list[1]"]),
    ({"allow_list": None, "label": "no"}, ["label"]),   # null: unchanged
    ({"updates": "weekly"}, ["updates"]),
    ({"updates": {"frequency": "daily", "duration": 5, "hour_of_day": -1,
                  "day_of_week": 8, "pending": []}},
     ["updates.day_of_week", "updates.duration", "updates.frequency",
      "updates.hour_of_day"]),
    ({"updates": {"frequency": "monthly"}}, ["updates.week_of_month"]),
    ({"updates": {"frequency": "monthly", "week_of_month": 5}}, ["updates.week_of_month"]),
    ({"updates": {"week_of_month": 2}}, ["updates.week_of_month"]),
    ({"updates": {"duration": 2.0}}, ["updates.duration"]),
    # what the route cannot change, different from the stored value
    # (cluster_size can change: a resize, test_db_put_changes.py)
    ({"status": "provisioning", "engine": "postgresql/13.2", "region": "us-west", "port": 1,
      "cluster_size": 3, "encrypted": True, "ssl_connection": False, "hosts": {},
      "replication_type": "asynch", "id": 0, "created": "2020-01-01T00:00:00"},
     ["created", "encrypted", "engine", "hosts", "id", "port", "region",
      "replication_type", "ssl_connection", "status"]),
]


@pytest.mark.parametrize("body,fields", UPDATE_REFUSALS,
                         ids=[str(i) for i in range(len(UPDATE_REFUSALS))])
def test_update_refusals(acct, body, fields):
    acct.create(label="other-one")
    db = acct.active(label="target")
    before = acct.get(db)
    r = acct.client.put(f"{PG}/{db['id']}", json=body)
    assert fields_of(r) == fields, r
    assert acct.get(db) == before


def test_update_and_view_of_what_is_not_yours(acct, acct2, backend):
    db = acct.active(label="private")
    mine = acct.active(MY, label="mine")
    for client in (acct2.client,):
        assert_error(client.get(f"{PG}/{db['id']}"), 404, "Not found")
        assert_error(client.put(f"{PG}/{db['id']}", json={"label": "stolen"}), 404, "Not found")
        assert_error(client.delete(f"{PG}/{db['id']}"), 404, "Not found")
    # The engine is part of the path.
    assert_error(acct.client.get(f"{MY}/{db['id']}"), 404, "Not found")
    assert_error(acct.client.put(f"{PG}/{mine['id']}", json={"label": "x-y-z"}), 404,
                 "Not found")
    for bad in ("0", "-1", "abc", "99999999999999999999"):
        assert_error(acct.client.get(f"{PG}/{bad}"), 404, "Not found")
    # Restricted users: nothing without a grant, read_only reads, read_write changes.
    uid, limited = acct.user(restricted=True)
    assert labels(limited) == []
    assert labels(limited, PG) == []
    assert_error(limited.get(f"{PG}/{db['id']}"), 403, "Unauthorized")
    grant(backend, uid, db["id"], "read_only")
    assert labels(limited) == ["private"]
    assert limited.get(f"{PG}/{db['id']}").status == 200
    assert_error(limited.put(f"{PG}/{db['id']}", json={"label": "mine-now"}), 403,
                 "Unauthorized")
    backend.execute(f"UPDATE entity_grants SET permissions = 'read_write' WHERE user_id ="
                    f" {uid} AND entity_type = 'database' AND entity_id = {db['id']}")
    r = limited.put(f"{PG}/{db['id']}", json={"label": "renamed"})
    assert r.status == 200 and r.json["label"] == "renamed", r
    # Delete stays unrestricted-only, whatever the grant.
    acct.set_status(db, "active")
    assert_error(limited.delete(f"{PG}/{db['id']}"), 403, "Unauthorized")


# --------------------------------------------------------------------------
# The required-status table: update needs active; delete active, failed or
# degraded, and suspended: docs/conventions.md "Today's clients" (never stricter
# than the public API), the Terraform provider's suspension acceptance test
# destroys a suspended cluster.  Every status, both operations, allowed and
# refused.
# --------------------------------------------------------------------------

UPDATE_ALLOWED = {"active"}
DELETE_ALLOWED = {"active", "failed", "degraded", "suspended"}


@pytest.mark.parametrize("status", STATUSES)
def test_status_table(acct, status):
    db = acct.create(label=f"st-{status}".replace("_", "-"))
    acct.set_status(db, status)
    r = acct.client.put(f"{PG}/{db['id']}", json={"allow_list": ["192.0.2.9"]})
    if status in UPDATE_ALLOWED:
        assert r.status == 200 and r.json["status"] == "updating", r
        acct.set_status(db, status)
    else:
        status_refused(r, status)
        assert acct.get(db)["allow_list"] == []
    r = acct.client.delete(f"{PG}/{db['id']}")
    if status in DELETE_ALLOWED:
        assert r.status == 200 and r.json == {}, r
        assert_error(acct.client.get(f"{PG}/{db['id']}"), 404, "Not found")
    else:
        status_refused(r, status)
        assert acct.get(db)["status"] == status


def test_provisioning_refusals_say_to_wait(acct):
    db = acct.create(label="waiting")
    reason = ("Your database is provisioning; please wait until provisioning is"
              " complete to perform this operation.")
    assert_error(acct.client.put(f"{PG}/{db['id']}", json={"label": "later"}), 400, reason)
    assert_error(acct.client.delete(f"{PG}/{db['id']}"), 400, reason)


# --------------------------------------------------------------------------
# Delete
# --------------------------------------------------------------------------

def test_delete_takes_grants_and_backups(acct, backend):
    db = acct.active(label="doomed")
    uid, limited = acct.user(restricted=True)
    grant(backend, uid, db["id"], "read_write")
    backend.execute("INSERT INTO database_backups (database_id, type, label, created)"
                    f" VALUES ({db['id']}, 'snapshot', 'snap1', 1)")
    _, scoped = acct.user(scopes="databases:read_only")
    assert_error(scoped.delete(f"{PG}/{db['id']}"), 401, SCOPE_REASON)
    r = acct.client.delete(f"{PG}/{db['id']}")
    assert r.status == 200 and r.json == {}, r
    assert_headers(r, scopes="*", accepted="databases:read_write")
    assert_error(acct.client.delete(f"{PG}/{db['id']}"), 404, "Not found")
    assert backend.query(f"SELECT count(*) FROM entity_grants WHERE entity_type ="
                         f" 'database' AND entity_id = {db['id']}") == [["0"]]
    assert backend.query(f"SELECT count(*) FROM database_backups WHERE database_id ="
                         f" {db['id']}") == [["0"]]
    assert labels(acct.client) == []


# --------------------------------------------------------------------------
# Lists and filters
# --------------------------------------------------------------------------

def test_lists_and_filters(acct, acct2, clock):
    acct2.create(label="elsewhere")
    a = acct.create(label="alpha", region="eu-west")
    b = acct.create(MY, label="beta", cluster_size=3)
    c = acct.create(label="gamma", engine="postgresql/13.2", type="g6-standard-4")
    acct.set_status(c, "failed")

    r = acct.client.get(PG)
    assert r.status == 200, r
    assert_headers(r, scopes="*", accepted="databases:read_only")
    items = assert_envelope(r.json)
    assert [d["label"] for d in items] == ["alpha", "gamma"]
    assert all(list(d) == KEYS for d in items)
    items = assert_envelope(acct.client.get(MY).json)
    assert [d["label"] for d in items] == ["beta"] and list(items[0]) == [k for k in KEYS if k != "replication_commit_type"]
    items = assert_envelope(acct.client.get("/databases/instances").json)
    assert [d["id"] for d in items] == [a["id"], b["id"], c["id"]]
    assert all(list(d) == ALL_KEYS for d in items)
    assert items[1]["instance_uri"] == f"/v4/databases/mysql/instances/{b['id']}"

    def filtered(xfilter, path="/databases/instances"):
        return labels(acct.client, path, xfilter=xfilter)

    assert filtered({"label": "beta"}) == ["beta"]
    assert filtered({"type": "g6-standard-4"}) == ["gamma"]
    assert filtered({"engine": "postgresql"}) == ["alpha", "gamma"]
    assert filtered({"engine": "postgresql"}, MY) == []
    assert filtered({"version": "13.2"}) == ["gamma"]
    assert filtered({"region": "eu-west"}) == ["alpha"]
    assert filtered({"status": "failed"}) == ["gamma"]
    assert filtered({"status": "provisioning"}, PG) == ["alpha"]
    assert filtered({"+or": [{"label": "alpha"}, {"label": "beta"}]}) == ["alpha", "beta"]
    assert filtered({"label": {"+contains": "mm"}}) == ["gamma"]
    r = acct.client.get("/databases/instances",
                        xfilter={"+order_by": "label", "+order": "desc"})
    assert [d["label"] for d in r.json["data"]] == ["gamma", "beta", "alpha"]
    # linode_api4's other properties: the port every PostgreSQL cluster shows.
    assert filtered({"port": 5432}, PG) == ["alpha", "gamma"]
    assert filtered({"port": 5432}, MY) == []
    assert_error(acct.client.get("/databases/instances", xfilter={"hosts": "x"}), 400,
                 "Cannot filter on hosts", "X-Filter")
    assert_error(acct.client.get(PG, params={"page_size": 10}), 400, None, "page_size")

    # Lists settle what is due, like views.
    clock("advance", PROVISIONED)
    assert filtered({"status": "active"}) == ["alpha", "beta"]
    assert filtered({"status": "failed"}) == ["gamma"]


# --------------------------------------------------------------------------
# The external backend and acctapi-admin database set-status
# --------------------------------------------------------------------------

def test_external_backend_never_moves(backend, make_server, clock):
    srv = make_server(extra="AcctapiDatabaseBackend external\n", name="httpd-external")
    acct = Account(backend, srv)
    try:
        db = acct.create(label="orchestrated", cluster_size=3)
        assert db["status"] == "provisioning"
        clock("advance", "3d")
        assert acct.get(db)["status"] == "provisioning"
        assert acct.get(db)["hosts"] == {"primary": None, "secondary": None, "standby": None}
        acct.set_status(db, "active", "--primary", "pg1.orchestrator.example",
                        "--secondary", "pg2.orchestrator.example")
        now = acct.get(db)
        assert now["status"] == "active"
        assert now["hosts"] == {"primary": "pg1.orchestrator.example",
                                "secondary": "pg2.orchestrator.example",
                                "standby": "pg2.orchestrator.example"}
        r = acct.client.put(f"{PG}/{db['id']}", json={"label": "orchestrated-2"})
        assert r.status == 200 and r.json["status"] == "updating", r
        clock("advance", "1d")
        assert acct.get(db)["status"] == "updating"
        acct.set_status(db, "active")
        now = acct.get(db)
        assert now["status"] == "active" and now["hosts"]["primary"] == "pg1.orchestrator.example"
    finally:
        acct.close()


def test_set_status_drops_the_pending_transition(acct, clock, backend):
    db = acct.create(label="forced")
    assert backend.admin("database", "set-status", db["id"], "failed") == "failed"
    clock("advance", PROVISIONED)
    now = acct.get(db)
    assert now["status"] == "failed"
    assert now["hosts"] == {"primary": None, "secondary": None, "standby": None}
    assert backend.admin("database", "set-status", db["id"], "degraded",
                         "--primary=p.example.net") == "degraded"
    now = acct.get(db)
    assert (now["status"], now["hosts"]) == \
        ("degraded", {"primary": "p.example.net", "secondary": None, "standby": None})


SET_STATUS_USAGE = [
    ([], "missing ID"),
    (["7"], "missing STATUS"),
    (["x", "active"], "ID expects a database id, not 'x'"),
    (["0", "active"], "ID expects a database id, not '0'"),
    (["7", "ACTIVE"], "invalid status 'ACTIVE'"),
    (["7", "deleted"], "invalid status 'deleted'"),
    (["7", "active", "extra"], "unexpected argument 'extra'"),
    (["7", "active", "--primary"], "option --primary needs a value"),
    (["7", "active", "--primary", "not_a host"], "invalid --primary 'not_a host'"),
    (["7", "active", "--secondary", "nodot"], "invalid --secondary 'nodot'"),
    (["7", "active", "--tertiary", "x.example"], "unknown option '--tertiary'"),
]


@pytest.mark.parametrize("args,message", SET_STATUS_USAGE,
                         ids=[str(i) for i in range(len(SET_STATUS_USAGE))])
def test_set_status_usage_errors(backend, args, message):
    p = backend.admin("database", "set-status", *args, check=False)
    assert p.returncode == 2, p
    assert p.stdout == ""
    assert message in p.stderr, p.stderr
    assert "acctapi-admin database set-status --help" in p.stderr, p.stderr


def test_set_status_failures_and_help(acct, backend):
    p = backend.admin("database", "set-status", "999999999", "active", check=False)
    assert p.returncode == 1, p
    assert p.stdout == ""
    assert "no database with id 999999999" in p.stderr, p.stderr
    for args in (["database", "set-status", "--help"], ["database", "--help"],
                 ["help", "database", "set-status"]):
        p = backend.admin(*args, check=False)
        assert p.returncode == 0, p
        assert "Usage:" in p.stdout and "ID STATUS" in p.stdout, p.stdout
        for s in STATUSES:
            assert s in p.stdout
    p = backend.admin("--help", check=False)
    assert "database set-status" in p.stdout
    # A failed run leaves no trace; every status is accepted.
    db = acct.create(label="every-status")
    for s in STATUSES:
        assert acct.set_status(db, s) == s
        assert acct.get(db)["status"] == s


# --------------------------------------------------------------------------
# Today's public API: engines by major, engine_config, node types
# --------------------------------------------------------------------------

def test_create_as_terraform_v2_sends_it(acct, clock):
    """The Terraform provider's v2 resources name the engine by major
    (engine_id "mysql/8") and always send engine_config; a database of a
    major runs its current release."""
    r = acct.client.post(MY, json={"label": "tf-mysql", "region": "us-east",
                                   "type": "g6-nanode-1", "engine": "mysql/8",
                                   "cluster_size": 1, "allow_list": [],
                                   "engine_config": {"mysql": {}}})
    assert r.status == 200, r
    my = r.json
    assert (my["engine"], my["version"]) == ("mysql", "8.0.35")
    # a new database's defaults, as the public API answered {"mysql": {}}
    assert my["engine_config"]["mysql"]["sql_require_primary_key"] is True
    pg = acct.create(PG, label="tf-pg", engine="postgresql/17",
                     engine_config={"pg": {"jit": False}, "work_mem": 8})
    assert pg["version"] == "17.4"
    assert pg["engine_config"]["pg"]["jit"] is False
    assert pg["engine_config"]["work_mem"] == 8
    # the contract's full-version ids stay accepted
    assert acct.create(PG, label="tf-pg-full")["version"] == "16.4"
    clock("advance", PROVISIONED)
    again = acct.get(pg)
    assert again["engine_config"] == pg["engine_config"]
    assert again["status"] == "active" and len(again["members"]) == 1
    listed = {d["label"]: d for d in acct.client.all_pages("/databases/instances")}
    assert listed["tf-pg"]["engine_config"] == pg["engine_config"]


# What today's public API answers for a new database's engine_config when
# the create names no setting: linodego's recorded
# TestDatabaseMySQL_EngineConfig_Create_NullableFieldAsNilValue ({"mysql":
# {}}) and, for PostgreSQL, its newest recording of a create without
# settings, TestMonitorServicesTokenCreation_Get, which adds the I/O
# settings to what the older
# TestDatabasePostgres_EngineConfig_Create_PasswordEncryption_DefaultsToMD5
# shows.  Its other recordings show the settings their creates sent, and
# nothing more (binlog_retention_period, mysql.connect_timeout, pg.autovacuum_*).
RECORDED_DEFAULTS = {
    "mysql": {"mysql": {
        "sql_mode": "ANSI,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION,NO_ZERO_DATE,"
                    "NO_ZERO_IN_DATE,STRICT_ALL_TABLES",
        "sql_require_primary_key": True}},
    "postgresql": {"pg": {"io_combine_limit": 16, "io_max_combine_limit": 16,
                          "io_max_concurrency": -1, "io_method": "worker", "io_workers": 3,
                          "password_encryption": "md5"},
                   "pg_stat_monitor_enable": False,
                   "pglookout": {"max_failover_replication_time_lag": 60}},
}


@pytest.mark.parametrize("given", ["absent", "empty-group", "null"])
@pytest.mark.parametrize("engine", ["mysql", "postgresql"])
def test_new_database_engine_config_is_the_recorded_defaults(acct, clock, engine, given):
    """A database created without settings has exactly the settings today's
    public API gives one; a setting given takes its place."""
    path, group = (MY, "mysql") if engine == "mysql" else (PG, "pg")
    body = {"absent": {}, "empty-group": {"engine_config": {group: {}}},
            "null": {"engine_config": None}}[given]
    db = acct.create(path, label=f"defaults-{given}", **body)
    assert db["engine_config"] == RECORDED_DEFAULTS[engine], db["engine_config"]
    clock("advance", PROVISIONED)
    assert acct.get(db, path)["engine_config"] == RECORDED_DEFAULTS[engine]
    listed = [d for d in acct.client.all_pages(path) if d["id"] == db["id"]]
    assert listed[0]["engine_config"] == RECORDED_DEFAULTS[engine]
    if given == "absent":
        setting = {"mysql": {"connect_timeout": 20}} if engine == "mysql" else \
            {"pg": {"password_encryption": "scram-sha-256"}}
        other = acct.create(path, label="defaults-given", engine_config=setting)
        want = {k: dict(v) if isinstance(v, dict) else v
                for k, v in RECORDED_DEFAULTS[engine].items()}
        want[group].update(setting[group])
        assert other["engine_config"] == want, other["engine_config"]


def test_engine_config_refusals(acct):
    r = acct.client.post(MY, json=my_body("bad-config", engine_config={
        "mysql": {"connect_timeout": 1}}))
    assert fields_of(r) == ["engine_config.mysql.connect_timeout"], r
    r = acct.client.post(PG, json=pg_body("bad-config", engine_config=[]))
    assert fields_of(r) == ["engine_config"], r
    assert labels(acct.client) == []


def test_update_merges_engine_config(acct, clock):
    """A PUT's engine_config changes the settings it names and keeps the
    others, through updating; the GET's own value sent back changes
    nothing; a bad setting refuses the whole PUT."""
    db = acct.active(MY, label="cfg-merge", engine="mysql/8",
                     engine_config={"mysql": {"connect_timeout": 20}})
    before = acct.get(db, MY)
    r = acct.client.put(f"{MY}/{db['id']}", json={"engine_config": {
        "mysql": {"wait_timeout": 3600}, "binlog_retention_period": 900}})
    assert r.status == 200, r
    cfg = r.json["engine_config"]
    assert r.json["status"] == "updating"
    assert (cfg["mysql"]["connect_timeout"], cfg["mysql"]["wait_timeout"],
            cfg["binlog_retention_period"]) == (20, 3600, 900)
    assert cfg["mysql"]["sql_require_primary_key"] == \
        before["engine_config"]["mysql"]["sql_require_primary_key"]
    clock("advance", OPERATED)
    now = acct.get(db, MY)
    assert now["status"] == "active" and now["engine_config"] == cfg
    r = acct.client.put(f"{MY}/{db['id']}", json=dict(now))
    assert r.status == 200 and r.json["engine_config"] == cfg, r
    clock("advance", OPERATED)
    r = acct.client.put(f"{MY}/{db['id']}", json={"engine_config": {
        "mysql": {"wait_timeout": -1}}, "label": "never"})
    assert fields_of(r) == ["engine_config.mysql.wait_timeout"], r
    assert acct.get(db, MY)["label"] == "cfg-merge"


def test_planned_maintenance(acct, clock):
    """updates.pending: 28 days into a cycle an update is planned for the
    next maintenance window (weekly, Monday 00:00 by default) and is gone
    once that window has started (applied); the next cycle starts then.
    The cycle starts when the database is made: on a Wednesday at noon here,
    so that 28 days and a minute later the next window is days ahead (made
    in a window's last minute, the update would be planned for a window that
    has started by then, and so applied already)."""
    clock("set", "2030-01-02T12:00:00")
    db = acct.active(label="maint")
    assert acct.get(db)["updates"]["pending"] == []
    clock("advance", "28d")
    clock("advance", "1m")
    pending = acct.get(db)["updates"]["pending"]
    assert len(pending) == 1, pending
    item = pending[0]
    assert sorted(item) == ["deadline", "description", "planned_for"]
    assert TIMESTAMP.fullmatch(item["planned_for"]) and item["planned_for"].endswith("T00:00:00")
    assert item["deadline"].endswith("T04:00:00")     # the 4-hour window's end
    clock("advance", "8d")
    assert acct.get(db)["updates"]["pending"] == []
