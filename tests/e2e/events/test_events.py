"""The account's event feed, end to end on both backends: the
public event shape, pagination, the X-Filter fields and operators clients
send, seen and read, scopes, restricted users and other accounts, retention
by the test clock and `acctapi-admin events prune`, the lifecycle of a
managed database's operations, and a replay of the requests today's
Terraform provider (through linodego's EventPoller and
WaitForEventFinished) sends to create, change and delete a MySQL and a
PostgreSQL database.

The shared server provisions a database in 15-30 minutes and runs an
operation in 3, by the test clock: the tests move the clock instead of
waiting, and every wait below is one request that must already see the
outcome."""

import datetime
import json
import re

import pytest

import harness
from checks import assert_envelope, assert_error, assert_json

ENGINES = {"mysql": ("mysql/8.0.30", "g6-dedicated-2", "g6-dedicated-4"),
           "postgresql": ("postgresql/16.4", "g6-dedicated-2", "g6-dedicated-4")}
EVENT_KEYS = {"id", "action", "created", "details", "duration", "entity",
              "secondary_entity", "message", "percent_complete", "rate", "read", "seen",
              "status", "time_remaining", "username"}
ENTITY_KEYS = {"id", "label", "type", "url"}
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$")
SCOPE_REASON = "Your OAuth token is not authorized to use this endpoint."


def go_filter(**fields):
    """X-Filter as linodego's Filter.MarshalJSON writes it: Go's json of a
    map, keys sorted, no spaces."""
    return json.dumps(dict(sorted(fields.items())), separators=(",", ":"))


def poll_filter(entity_id, action):
    """EventPoller's filter (PreTask and WaitForLatestUnknownEvent)."""
    return go_filter(**{"+order_by": "created", "+order": "desc",
                        "entity.type": "database", "entity.id": entity_id,
                        "action": action})


def list_events(client, xfilter=None, **params):
    r = client.get("/account/events", params=params or None, xfilter=xfilter)
    assert r.status == 200, r
    return assert_envelope(assert_json(r))


def db_events(client, **params):
    """The account's database events (its users' tokens have theirs)."""
    return list_events(client, go_filter(**{"entity.type": "database"}), **params)


def get_event(client, event_id):
    r = client.get(f"/account/events/{event_id}")
    assert r.status == 200, r
    return assert_json(r)


def create_db(client, backend, engine):
    version, small, _ = ENGINES[engine]
    r = client.post(f"/databases/{engine}/instances", json={
        "label": backend.unique(f"ev-{engine[:2]}-"), "region": "us-east",
        "type": small, "engine": version})
    assert r.status == 200, r
    return r.json


def db_path(engine, db_id):
    return f"/databases/{engine}/instances/{db_id}"


def check_shape(e):
    assert set(e) == EVENT_KEYS, e
    assert isinstance(e["id"], int) and e["id"] > 0
    assert TIMESTAMP.match(e["created"]), e
    assert e["status"] in ("failed", "finished", "notification", "scheduled", "started")
    assert e["rate"] is None
    # As the public API answers every event of its recorded traffic (linodego's
    # fixtures: 527 events, message "" in each, details {} in each that has it).
    assert e["details"] == {} and e["message"] == "", e
    assert isinstance(e["read"], bool) and isinstance(e["seen"], bool)
    for key in ("entity", "secondary_entity"):
        if e[key] is not None:
            assert set(e[key]) == ENTITY_KEYS, e
    if e["time_remaining"] is not None:
        assert re.fullmatch(r"\d\d+:\d\d:\d\d", e["time_remaining"]), e
    return e


def clock_now(clock):
    """The module's clock as `acctapi-admin clock show` prints it."""
    text = clock("show").split(" ")[0]
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S")


@pytest.fixture
def acct(backend, server):
    a = harness.Account(backend, server, stem="e2e-events-")
    yield a
    a.close()


# --------------------------------------------------------------------------
# The Terraform provider's sequence
# --------------------------------------------------------------------------

class EventPoller:
    """linodego's EventPoller as the provider uses it, one request per tick."""

    def __init__(self, client, entity_id, action, pre_task=True):
        self.client = client
        self.entity_id = entity_id
        self.action = action
        self.previous = set()
        if pre_task:
            self.previous = {e["id"] for e in self.page()}

    def page(self):
        # ListOptions{PageOptions: &PageOptions{Page: 1}, Filter: ...}
        return list_events(self.client, poll_filter(self.entity_id, self.action), page=1)

    def latest_unknown(self):
        for e in self.page():
            check_shape(e)
            if e["id"] not in self.previous:
                self.previous.add(e["id"])
                return e
        return None

    def wait_for_finished(self, clock, advance):
        """WaitForFinished: the new event, then GET it until finished; the
        clock moves by `advance` between the first look and the last."""
        event = self.latest_unknown()
        assert event is not None, "no new event"
        assert event["status"] in ("started", "scheduled", "notification", "finished"), event
        if event["status"] != "finished":
            clock("advance", advance)
        event = get_event(self.client, event["id"])
        check_shape(event)
        assert event["status"] == "finished", event
        return event


def wait_for_status(client, engine, db_id, status):
    r = client.get(db_path(engine, db_id))
    assert r.status == 200, r
    assert r.json["status"] == status, r
    return r.json


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_terraform_provider_sequence(acct, backend, clock, engine):
    c = acct.client
    # Create: NewEventPollerWithoutEntity (no request), POST, then the poll.
    create_poller = EventPoller(c, 0, "database_create", pre_task=False)
    db = create_db(c, backend, engine)
    create_poller.entity_id = db["id"]
    first = create_poller.latest_unknown()
    assert first["action"] == "database_create" and first["status"] == "started", first
    assert first["entity"] == {"id": db["id"], "label": db["label"], "type": "database",
                               "url": f"/v4{db_path(engine, db['id'])}"}
    # While provisioning: the share of the time and what is left move with
    # the clock.
    assert first["percent_complete"] == 0
    clock("advance", "10m")
    mid = get_event(c, first["id"])
    assert mid["status"] == "started" and 30 <= mid["percent_complete"] <= 70, mid
    assert mid["time_remaining"] is not None
    # At most 30 minutes: finished, and the database active at that moment.
    clock("advance", "20m")
    done = get_event(c, first["id"])
    assert done["status"] == "finished" and done["percent_complete"] == 100, done
    assert done["time_remaining"] is None
    assert 15 * 60 <= done["duration"] <= 30 * 60, done
    wait_for_status(c, engine, db["id"], "active")

    # The maintenance window: NewEventPoller (PreTask), PUT, WaitForFinished.
    poller = EventPoller(c, db["id"], "database_update")
    assert poller.previous == set()
    r = c.put(db_path(engine, db["id"]), json={"updates": {
        "day_of_week": 3, "duration": 1, "frequency": "weekly", "hour_of_day": 5}})
    assert r.status == 200, r
    window = poller.wait_for_finished(clock, "3m")
    wait_for_status(c, engine, db["id"], "active")

    # The access list (linode_database_access_controls): the ids that
    # existed before the PUT are skipped.
    poller = EventPoller(c, db["id"], "database_update")
    assert poller.previous == {window["id"]}
    r = c.put(db_path(engine, db["id"]), json={"allow_list": ["203.0.113.0/24"]})
    assert r.status == 200, r
    access = poller.wait_for_finished(clock, "3m")
    assert access["id"] != window["id"]
    wait_for_status(c, engine, db["id"], "active")

    # A new type and a new label in one PUT: both pollers finish.
    update = EventPoller(c, db["id"], "database_update")
    resize = EventPoller(c, db["id"], "database_resize")
    r = c.put(db_path(engine, db["id"]), json={
        "type": ENGINES[engine][2], "label": backend.unique("ev-renamed-")})
    assert r.status == 200, r
    renamed = r.json["label"]
    resized = resize.latest_unknown()
    assert resized is not None and resized["status"] == "started", resized
    updated = update.wait_for_finished(clock, "3m")
    assert updated["entity"]["label"] == renamed
    assert get_event(c, resized["id"])["status"] == "finished"

    # Delete: a notification, and the database is gone.
    r = c.delete(db_path(engine, db["id"]))
    assert r.status == 200, r
    (gone,) = list_events(c, poll_filter(db["id"], "database_delete"), page=1)
    assert gone["status"] == "notification" and gone["duration"] == 0, gone
    assert gone["percent_complete"] is None


def test_legacy_wait_for_event_finished(acct, backend, clock):
    """helper.WaitForDatabaseUpdated: linodego's WaitForEventFinished filters
    on created +gte the time before the PUT, and once it has seen its event
    on id +gte that event's id."""
    c = acct.client
    db = create_db(c, backend, "mysql")
    clock("advance", "31m")
    wait_for_status(c, "mysql", db["id"], "active")
    min_start = clock_now(clock).strftime("%Y-%m-%dT%H:%M:%S")
    r = c.put(db_path("mysql", db["id"]), json={"allow_list": ["192.0.2.1"]})
    assert r.status == 200, r
    fields = {"+order_by": "created", "+order": "desc", "action": "database_update",
              "created": {"+gte": min_start}, "entity.id": db["id"],
              "entity.type": "database"}
    (event,) = list_events(c, go_filter(**fields), page=1)
    assert event["status"] == "started", event
    clock("advance", "3m")
    fields["id"] = {"+gte": event["id"]}
    events = list_events(c, go_filter(**fields), page=1)
    assert [e["id"] for e in events] == [event["id"]]
    assert events[0]["status"] == "finished"
    # Nothing older than the start matches.
    fields["created"] = {"+gte": (clock_now(clock) + datetime.timedelta(hours=1))
                         .strftime("%Y-%m-%dT%H:%M:%S")}
    assert list_events(c, go_filter(**fields), page=1) == []


# --------------------------------------------------------------------------
# Operations and their outcomes
# --------------------------------------------------------------------------

def test_database_operations_write_events(acct, backend, clock):
    c = acct.client
    db = create_db(c, backend, "postgresql")
    path = db_path("postgresql", db["id"])
    clock("advance", "31m")
    wait_for_status(c, "postgresql", db["id"], "active")
    assert c.post(path + "/backups", json={"label": "before"}).status == 200
    clock("advance", "4m")
    # the daily automatic backup is there too once the clock has passed
    # midnight (UTC) since the database became active
    (snap,) = [b for b in assert_envelope(assert_json(c.get(path + "/backups")))
               if b["type"] == "snapshot"]
    assert c.post(path + "/credentials/reset").status == 200
    clock("advance", "15s")
    assert c.post(path + "/patch").status == 200
    clock("advance", "4m")
    # A restore of a backup older than the reset fails: so does its event.
    assert c.post(f"{path}/backups/{snap['id']}/restore").status == 200
    restore, = list_events(c, poll_filter(db["id"], "database_backup_restore"))
    assert restore["status"] == "started", restore
    clock("advance", "4m")
    wait_for_status(c, "postgresql", db["id"], "failed")
    restore = get_event(c, restore["id"])
    assert restore["status"] == "failed" and restore["percent_complete"] is None, restore
    assert c.delete(f"{path}/backups/{snap['id']}").status == 200
    events = list_events(c, go_filter(**{"entity.id": db["id"]}))
    for e in events:
        check_shape(e)
    assert [(e["action"], e["status"]) for e in events] == [
        ("database_backup_delete", "notification"),
        ("database_backup_restore", "failed"),
        ("database_update", "finished"),                # the patch
        ("database_credentials_reset", "finished"),
        ("database_backup_create", "finished"),
        ("database_create", "finished"),
    ]
    assert {e["username"] for e in events} == {c_username(acct)}


def c_username(acct):
    return assert_json(acct.client.get("/profile"))["username"]


def test_set_status_writes_events(acct, backend, clock):
    c = acct.client
    db = create_db(c, backend, "mysql")
    backend.admin("database", "set-status", str(db["id"]), "active")
    (created,) = list_events(c, poll_filter(db["id"], "database_create"))
    assert created["status"] == "finished", created
    backend.admin("database", "set-status", str(db["id"]), "degraded")
    backend.admin("database", "set-status", str(db["id"]), "failed")
    events = list_events(c, go_filter(**{"entity.id": db["id"]}))
    assert [(e["action"], e["status"], e["username"]) for e in events][:2] == [
        ("database_failed", "notification", None),
        ("database_degraded", "notification", None)]


# --------------------------------------------------------------------------
# The feed itself
# --------------------------------------------------------------------------

def test_filters_and_order(acct, backend, clock):
    c = acct.client
    dbs = [create_db(c, backend, "mysql") for _ in range(3)]
    clock("advance", "1h")
    later = create_db(c, backend, "postgresql")
    events = db_events(c)
    ids = [e["id"] for e in events]
    assert ids == sorted(ids, reverse=True) and len(ids) == 4   # newest first
    everything = [e["id"] for e in list_events(c)]
    assert everything[:4] == ids and everything == sorted(everything, reverse=True)
    # The rest: the operator's user_create and the owner's token_create.
    assert everything[4:] and all(e["action"] in ("token_create", "user_create")
                                  for e in list_events(c)[4:])
    db_only = {"entity.type": "database"}
    assert [e["id"] for e in list_events(c, go_filter(**db_only, **{"+order": "asc"}))] \
        == ids[::-1]
    by_created = list_events(c, go_filter(**db_only, **{"+order_by": "created",
                                                         "+order": "desc"}))
    assert [e["id"] for e in by_created] == ids        # ties newest first too
    newest, oldest = ids[0], ids[-1]
    checks = [
        ({"id": oldest}, [oldest]),
        ({"id": {"+gte": ids[1]}}, ids[:2]),
        ({"id": {"+lte": ids[1]}}, ids[1:]),
        ({"action": "database_create"}, ids),
        ({"entity.id": later["id"]}, [newest]),
        ({"entity.type": "database"}, ids),
        ({"entity.type": "domain"}, []),
        ({"entity.label": dbs[0]["label"]}, [oldest]),
        ({"username": c_username(acct)}, ids),
        ({"status": "started"}, [newest]),
        ({"status": "finished"}, ids[1:]),
        ({"seen": False}, ids),
        ({"read": True}, []),
        ({"created": {"+gte": events[0]["created"]}}, [newest]),
        ({"created": {"+lte": events[1]["created"]}}, ids[1:]),
    ]
    for f, want in checks:
        f = dict(db_only, **f) if "entity.type" not in f else f
        got = [e["id"] for e in list_events(c, go_filter(**f))]
        assert got == want, (f, got, want)
    r = c.get("/account/events", xfilter={"secondary_entity": 1})
    assert_error(r, 400, "Cannot filter on secondary_entity", field="X-Filter")


def test_pagination(acct, backend):
    c = acct.client
    for _ in range(26):
        create_db(c, backend, "mysql")
    r = c.get("/account/events", params={"page": 2, "page_size": 25},
              xfilter={"entity.type": "database"})
    assert r.status == 200, r
    assert r.json["page"] == 2 and r.json["pages"] == 2 and r.json["results"] == 26
    assert len(r.json["data"]) == 1
    first = db_events(c, page=1, page_size=25)
    assert r.json["data"][0]["id"] < first[-1]["id"]


# The statement that counts the plain page's `results` (acct_store_list.c's
# count of acct_event.c's ACCOUNT_EVENTS), with the account and the cutoff.
PLAIN_PAGE_COUNT = ("SELECT count(*) AS n FROM events e WHERE (e.account_id = {account}"
                    " AND e.created > {cutoff}) AND (1=1)")


def test_plain_page_count_reads_an_index_alone(acct, backend):
    """The unfiltered feed's count of an account's events reads an index
    alone: the count of a large feed fetches no event row.  On PostgreSQL
    events_account carries `created` for it (events_entity_order, which
    leads with the account too, can answer it as well: the planner picks
    one by the table's statistics, so either passes); the planner's
    cheaper choices on a small table (a sequential or bitmap scan) are
    turned off, since what is asserted is that an index can answer the
    count.  SQLite answers it from a covering index of its choice."""
    sql = PLAIN_PAGE_COUNT.format(account=int(acct.id), cutoff=0)
    if backend.kind == "sqlite":
        plan = backend.query_plan(sql)
        assert re.fullmatch(r"SEARCH e USING COVERING INDEX \w+ \(account_id=\?\)", plan), plan
        return
    plan = backend.query_plan(sql, settings=("enable_seqscan = off",
                                             "enable_bitmapscan = off"))
    assert re.search(r"Index Only Scan using events_(account|entity_order) on events", plan), plan


def test_seen_and_read(acct, backend):
    c = acct.client
    for _ in range(3):
        create_db(c, backend, "mysql")
    ids = [e["id"] for e in db_events(c)]
    r = c.post(f"/account/events/{ids[1]}/seen")
    assert r.status == 200 and r.json == {}, r
    assert [e["seen"] for e in db_events(c)] == [False, True, True]
    # Every older event of the account: the owner's token_create too.
    assert all(e["seen"] for e in list_events(c) if e["id"] < ids[1])
    r = c.post(f"/account/events/{ids[0]}/read")
    assert r.status == 200 and r.json == {}, r
    assert [e["read"] for e in db_events(c)] == [True, False, False]
    assert get_event(c, ids[0])["seen"] is False


def test_scopes_restricted_and_other_accounts(acct, backend, server):
    c = acct.client
    db = create_db(c, backend, "mysql")
    (event,) = db_events(c)
    ro = server.client(token=backend.mint_token(scopes="events:read_only", user=acct.uid))
    assert get_event(ro, event["id"])["id"] == event["id"]
    assert_error(ro.post(f"/account/events/{event['id']}/seen"), 401, SCOPE_REASON)
    none = server.client(token=backend.mint_token(scopes="databases:read_write",
                                                  user=acct.uid))
    assert_error(none.get("/account/events"), 401, SCOPE_REASON)
    assert_error(none.get(f"/account/events/{event['id']}"), 401, SCOPE_REASON)
    ro.close()
    none.close()
    # A restricted user sees the events of its grants only.
    uid, restricted = acct.user(restricted=True)
    assert list_events(restricted) == []
    assert_error(restricted.get(f"/account/events/{event['id']}"), 404, "Not found")
    backend.admin("grant", "entity", "--user", str(uid), "--type", "database",
                  "--id", str(db["id"]), "--permissions", "read_only")
    assert [e["id"] for e in list_events(restricted)] == [event["id"]]
    # Another account's event is 404, and marking it too.
    other = harness.Account(backend, server, stem="e2e-events-other-")
    try:
        assert db_events(other.client) == []
        for r in (other.client.get(f"/account/events/{event['id']}"),
                  other.client.post(f"/account/events/{event['id']}/seen"),
                  other.client.post(f"/account/events/{event['id']}/read")):
            assert_error(r, 404, "Not found")
    finally:
        other.close()


def test_retention_and_prune(acct, backend, clock):
    c = acct.client
    create_db(c, backend, "mysql")
    (event,) = db_events(c)
    clock("advance", "89d")
    assert [e["id"] for e in db_events(c)] == [event["id"]]
    clock("advance", "1d")
    assert list_events(c) == []
    assert_error(c.get(f"/account/events/{event['id']}"), 404, "Not found")
    out = backend.admin("events", "prune")
    assert re.fullmatch(r"[1-9][0-9]* events deleted\n?", out), out
    clock("reset")
    assert list_events(c) == []      # deleted, not only hidden


# --------------------------------------------------------------------------
# Other entities
# --------------------------------------------------------------------------

ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIODawwa+Vh+oKziAsrGIN7OpMSUL4u4dBPf4dZfXjl+p"


def test_domain_and_record_events(acct, backend):
    c = acct.client
    name = backend.unique("ev-") + ".example"
    r = c.post("/domains", json={"domain": name, "type": "master",
                                 "soa_email": "hostmaster@example.com"})
    assert r.status == 200, r
    domain_id = r.json["id"]
    assert c.put(f"/domains/{domain_id}", json={"ttl_sec": 3600}).status == 200
    r = c.post(f"/domains/{domain_id}/records",
               json={"type": "A", "name": "www", "target": "192.0.2.10"})
    assert r.status == 200, r
    record = r.json["id"]
    assert c.put(f"/domains/{domain_id}/records/{record}",
                 json={"target": "192.0.2.11"}).status == 200
    assert c.delete(f"/domains/{domain_id}/records/{record}").status == 200
    assert c.delete(f"/domains/{domain_id}").status == 200
    events = list_events(c, go_filter(**{"entity.type": "domain", "entity.id": domain_id}))
    for e in events:
        check_shape(e)
        assert e["status"] == "notification" and e["entity"] == {
            "id": domain_id, "label": name, "type": "domain",
            "url": f"/v4/domains/{domain_id}"}, e
    assert [e["action"] for e in events] == [
        "dns_zone_delete", "dns_record_delete", "dns_record_update",
        "dns_record_create", "dns_zone_update", "dns_zone_create"]


def test_token_and_ssh_key_events(acct):
    c = acct.client
    r = c.post("/profile/tokens", json={"label": "ev-token"})
    assert r.status == 200, r
    token = r.json["id"]
    assert c.put(f"/profile/tokens/{token}", json={"label": "ev-renamed"}).status == 200
    assert c.delete(f"/profile/tokens/{token}").status == 200
    r = c.post("/profile/sshkeys", json={"label": "ev-key", "ssh_key": ED25519})
    assert r.status == 200, r
    key = r.json["id"]
    assert c.delete(f"/profile/sshkeys/{key}").status == 200
    username = c_username(acct)
    got = [(e["action"], e["entity"]["id"], e["entity"]["label"], e["entity"]["url"])
           for e in list_events(c, go_filter(**{"username": username}))][:5]
    # A delete's event names the object by the label it had.
    assert got == [
        ("user_ssh_key_delete", key, "ev-key", f"/v4/profile/sshkeys/{key}"),
        ("user_ssh_key_add", key, "ev-key", f"/v4/profile/sshkeys/{key}"),
        ("token_delete", token, "ev-renamed", f"/v4/profile/tokens/{token}"),
        ("token_update", token, "ev-renamed", f"/v4/profile/tokens/{token}"),
        ("token_create", token, "ev-token", f"/v4/profile/tokens/{token}"),
    ]
