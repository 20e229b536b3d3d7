"""Every write route of the route table writes its event, or is
one the public API writes none for (NO_EVENT, with the evidence): the
routes come from `acctapi-admin routes` (the table compiled into this
build, as protocol/test_route_scopes.py reads it), each write route is
performed as a client does it, and the events that appeared meanwhile must
be exactly the one expected (none for NO_EVENT).  A write route added to
the table without an entry here fails test_every_write_route_is_listed.

Also a zone import (dns_zone_import) from a private BIND `named`, end to
end: one event for the zone, none per imported record."""

import json
import re
import secrets
import subprocess

import pytest

import harness
from checks import assert_envelope, assert_json
from harness import ADMIN
from named import Named
from otp import server_now, totp
from tfaflow import answer_three, enable

WRITE_METHODS = ("POST", "PUT", "DELETE")
ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIODawwa+Vh+oKziAsrGIN7OpMSUL4u4dBPf4dZfXjl+p"
UA = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
SMS_LINE = re.compile(r"^\S+ (\+\d+) Your verification code is (\d{6})\b")
ENGINES = {"mysql": "mysql/8.0.30", "postgresql": "postgresql/16.4"}


def write_routes():
    out = subprocess.run([str(ADMIN), "routes"], check=True, capture_output=True,
                         text=True).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    assert len(rows) >= 40, out
    return sorted((m, p[len("/v4"):]) for m, p, *_ in rows if m in WRITE_METHODS)


# --------------------------------------------------------------------------
# The routes the public API writes no event for.  Evidence: the action enum
# of the Event schema in the public API's OpenAPI document (v4.189.0,
# components/schemas/event/properties/action) and linodego's Action*
# constants (account_events.go) have no action for any of them; each line
# says what the nearest names are about.
# --------------------------------------------------------------------------

NO_EVENT = {
    # oauth_client_* are the account's own OAuth clients
    # (/account/oauth-clients); revoking an app's access to the profile has
    # no action.
    ("DELETE", "/profile/apps/{appId}"): "revoking an authorized app",
    # Trusted devices (remembered logins) have no action at all.
    ("DELETE", "/profile/devices/{deviceId}"): "revoking a trusted device",
    # No action names a phone number or its verification.
    ("POST", "/profile/phone-number"): "sending a verification code",
    ("DELETE", "/profile/phone-number"): "deleting the verified number",
    ("POST", "/profile/phone-number/verify"): "verifying the number",
    # Preferences are a client's opaque storage; profile_update is PUT
    # /profile's.
    ("PUT", "/profile/preferences"): "storing preferences",
    # No action names security questions.
    ("POST", "/profile/security-questions"): "answering security questions",
    # tfa-enable only issues a secret: two-factor is not on until the
    # confirmation, whose event tfa_enabled is.
    ("POST", "/profile/tfa-enable"): "issuing a pending two-factor secret",
    # Marking events changes the events themselves; no action names it.
    ("POST", "/account/events/{eventId}/read"): "marking an event read",
    ("POST", "/account/events/{eventId}/seen"): "marking events seen",
}


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

def go_filter(**fields):
    return json.dumps(dict(sorted(fields.items())), separators=(",", ":"))


def list_events(client, xfilter=None, **params):
    r = client.get("/account/events", params=params or None, xfilter=xfilter)
    assert r.status == 200, r
    return assert_envelope(assert_json(r))


class Writer:
    """One account (its owner's all-scopes client), and what a route's
    performer needs; mark() is called right before the write."""

    def __init__(self, backend, server, clock):
        self.backend, self.server, self.clock = backend, server, clock
        self.acct = harness.Account(backend, server, stem="e2e-evroutes-")
        self.c = self.acct.client
        self.username = assert_json(self.c.get("/profile"))["username"]
        self.mark_id = None

    def mark(self):
        self.mark_id = list_events(self.c, page=1)[0]["id"]

    def new_events(self):
        return list_events(self.c, go_filter(id={"+gte": self.mark_id + 1}))

    def ok(self, r):
        assert r.status == 200, r
        return r.json

    def close(self):
        self.acct.close()

    # ---- set-up steps ----------------------------------------------------

    def domain(self):
        return self.ok(self.c.post("/domains", json={
            "domain": self.backend.unique("evr-") + ".example", "type": "master",
            "soa_email": "hostmaster@example.com"}))

    def record(self, domain_id):
        return self.ok(self.c.post(f"/domains/{domain_id}/records", json={
            "type": "A", "name": "www", "target": "192.0.2.10"}))

    def sshkey(self):
        return self.ok(self.c.post("/profile/sshkeys",
                                   json={"label": "evr-key", "ssh_key": ED25519}))

    def token(self):
        return self.ok(self.c.post("/profile/tokens", json={"label": "evr-token"}))

    def tag(self):
        label = self.backend.unique("evr-tag-")
        self.ok(self.c.post("/tags", json={"label": label}))
        return label

    def code_sent(self, national, e164):
        def codes():
            return [m.group(2) for m in map(SMS_LINE.match,
                                            self.server.sms_log.read_text().splitlines())
                    if m and m.group(1) == e164]
        before = len(codes())
        self.ok(self.c.post("/profile/phone-number",
                            json={"iso_code": "gb", "phone_number": national}))
        sent = codes()
        assert len(sent) == before + 1, sent
        return sent[-1]

    def verified_number(self):
        national, e164 = self.phone_number()
        code = self.code_sent(national, e164)
        self.ok(self.c.post("/profile/phone-number/verify", json={"otp_code": code}))

    @staticmethod
    def phone_number():
        rest = f"{secrets.randbelow(10**6):06d}"
        return f"07700 9{rest[:2]} {rest[2:]}", f"+4477009{rest}"

    def tfa_pending(self):
        answer_three(self.c)
        return enable(self.c)

    def tfa_confirm(self, secret):
        return self.c.post("/profile/tfa-enable-confirm",
                           json={"tfa_code": totp(secret, server_now(self.backend))})

    def database(self, engine, active=True):
        db = self.ok(self.c.post(f"/databases/{engine}/instances", json={
            "label": self.backend.unique("evr-db-"), "region": "us-east",
            "type": "g6-dedicated-2", "engine": ENGINES[engine]}))
        if active:
            self.clock("advance", "31m")
            assert self.ok(self.c.get(db_path(engine, db["id"])))["status"] == "active"
        return db

    def backup(self, engine, db_id):
        self.ok(self.c.post(db_path(engine, db_id) + "/backups", json={"label": "evr"}))
        self.clock("advance", "4m")
        # the daily automatic backup is there too once the clock has passed
        # midnight (UTC) since the database became active
        backups = assert_envelope(assert_json(self.c.get(db_path(engine, db_id) + "/backups")))
        (snap,) = [b for b in backups if b["type"] == "snapshot"]
        return snap


def db_path(engine, db_id):
    return f"/databases/{engine}/instances/{db_id}"


def domain_entity(d):
    return {"id": d["id"], "label": d["domain"], "type": "domain",
            "url": f"/v4/domains/{d['id']}"}


def profile_entity(w):
    return {"id": None, "label": w.username, "type": "profile", "url": "/v4/profile"}


def own_entity(kind, path, obj_id, label):
    return {"id": obj_id, "label": label, "type": kind, "url": f"/v4/profile/{path}/{obj_id}"}


def tag_entity(label):
    return {"id": label, "label": label, "type": "tag", "url": f"/v4/tags/{label}"}


# --------------------------------------------------------------------------
# What each write route is, as a client performs it: a function of the
# Writer and the path's engine (databases) that sets up, calls w.mark(),
# writes, and returns (action, entity) of the event expected, or None.
# --------------------------------------------------------------------------

def put_profile(w, _):
    w.mark()
    w.ok(w.c.put("/profile", json={"email_notifications": False}))
    return "profile_update", profile_entity(w)


def revoke_app(w, _):
    out = w.backend.admin("app", "authorize", "--user", str(w.acct.uid), "--label",
                          w.backend.unique("evr-app-"), "--scopes", "*")
    app_id = int(out.split("\n")[0])
    w.mark()
    w.ok(w.c.delete(f"/profile/apps/{app_id}"))


def revoke_device(w, _):
    device = int(w.backend.admin("device", "add", "--user", str(w.acct.uid), "--ip",
                                 "198.51.100.23", "--user-agent", UA))
    w.mark()
    w.ok(w.c.delete(f"/profile/devices/{device}"))


def send_code(w, _):
    national, e164 = w.phone_number()
    w.mark()
    w.code_sent(national, e164)


def delete_number(w, _):
    w.verified_number()
    w.mark()
    w.ok(w.c.delete("/profile/phone-number"))


def verify_number(w, _):
    national, e164 = w.phone_number()
    code = w.code_sent(national, e164)
    w.mark()
    w.ok(w.c.post("/profile/phone-number/verify", json={"otp_code": code}))


def put_preferences(w, _):
    w.mark()
    w.ok(w.c.put("/profile/preferences", json={"theme": "dark"}))


def answer_questions(w, _):
    w.mark()
    answer_three(w.c)


def tfa_disable(w, _):
    w.ok(w.tfa_confirm(w.tfa_pending()))
    w.mark()
    w.ok(w.c.post("/profile/tfa-disable"))
    return "tfa_disabled", profile_entity(w)


def tfa_enable(w, _):
    answer_three(w.c)
    w.mark()
    enable(w.c)


def tfa_confirm(w, _):
    secret = w.tfa_pending()
    w.mark()
    w.ok(w.tfa_confirm(secret))
    return "tfa_enabled", profile_entity(w)


def own_writes(kind, path, make, label, actions):
    """The performers of POST, PUT and DELETE of the user's own objects
    (SSH keys, tokens) at /profile/`path`: `make` creates one labelled
    `label`; `actions` are the events of the three."""
    def url(obj):
        return f"/profile/{path}/{obj['id']}"

    def create(w, _):
        w.mark()
        obj = make(w)
        return actions[0], own_entity(kind, path, obj["id"], label)

    def update(w, _):
        obj = make(w)
        w.mark()
        w.ok(w.c.put(url(obj), json={"label": "evr-renamed"}))
        return actions[1], own_entity(kind, path, obj["id"], "evr-renamed")

    def delete(w, _):
        obj = make(w)
        w.mark()
        w.ok(w.c.delete(url(obj)))
        # The event names the deleted object by the label it had.
        return actions[2], own_entity(kind, path, obj["id"], label)
    return create, update, delete


add_sshkey, update_sshkey, delete_sshkey = own_writes(
    "user_ssh_key", "sshkeys", Writer.sshkey, "evr-key",
    ("user_ssh_key_add", "user_ssh_key_update", "user_ssh_key_delete"))
create_token, update_token, delete_token = own_writes(
    "token", "tokens", Writer.token, "evr-token",
    ("token_create", "token_update", "token_delete"))


def create_domain(w, _):
    w.mark()
    return "dns_zone_create", domain_entity(w.domain())


def import_domain(w, _):
    zone, ns = served_zone(w.backend)
    try:
        w.mark()
        d = w.ok(w.c.post("/domains/import",
                          json={"domain": zone, "remote_nameserver": ns.address}))
    finally:
        ns.stop()
    return "dns_zone_import", domain_entity(d)


def update_domain(w, _):
    d = w.domain()
    w.mark()
    w.ok(w.c.put(f"/domains/{d['id']}", json={"ttl_sec": 3600}))
    return "dns_zone_update", domain_entity(d)


def delete_domain(w, _):
    d = w.domain()
    w.mark()
    w.ok(w.c.delete(f"/domains/{d['id']}"))
    return "dns_zone_delete", domain_entity(d)


def clone_domain(w, _):
    d = w.domain()
    w.mark()
    clone = w.ok(w.c.post(f"/domains/{d['id']}/clone",
                          json={"domain": w.backend.unique("evr-clone-") + ".example"}))
    return "dns_zone_create", domain_entity(clone)


def create_record(w, _):
    d = w.domain()
    w.mark()
    w.record(d["id"])
    return "dns_record_create", domain_entity(d)


def update_record(w, _):
    d = w.domain()
    rec = w.record(d["id"])
    w.mark()
    w.ok(w.c.put(f"/domains/{d['id']}/records/{rec['id']}", json={"target": "192.0.2.11"}))
    return "dns_record_update", domain_entity(d)


def delete_record(w, _):
    d = w.domain()
    rec = w.record(d["id"])
    w.mark()
    w.ok(w.c.delete(f"/domains/{d['id']}/records/{rec['id']}"))
    return "dns_record_delete", domain_entity(d)


def create_tag(w, _):
    w.mark()
    return "tag_create", tag_entity(w.tag())


def delete_tag(w, _):
    label = w.tag()
    w.mark()
    w.ok(w.c.delete(f"/tags/{label}"))
    return "tag_delete", tag_entity(label)


def db_entity(engine, db, label=None):
    return {"id": db["id"], "label": label or db["label"], "type": "database",
            "url": f"/v4{db_path(engine, db['id'])}"}


def create_db(w, engine):
    w.mark()
    db = w.database(engine, active=False)
    return "database_create", db_entity(engine, db)


def update_db(w, engine):
    db = w.database(engine)
    label = w.backend.unique("evr-renamed-")
    w.mark()
    w.ok(w.c.put(db_path(engine, db["id"]), json={"label": label}))
    return "database_update", db_entity(engine, db, label)


def suspend_db(w, engine):
    db = w.database(engine)
    w.mark()
    w.ok(w.c.post(db_path(engine, db["id"]) + "/suspend"))
    return "database_suspend", db_entity(engine, db)


def resume_db(w, engine):
    db = w.database(engine)
    w.ok(w.c.post(db_path(engine, db["id"]) + "/suspend"))
    w.clock("advance", "4m")
    assert w.ok(w.c.get(db_path(engine, db["id"])))["status"] == "suspended"
    w.mark()
    w.ok(w.c.post(db_path(engine, db["id"]) + "/resume"))
    return "database_resume", db_entity(engine, db)


def db_write(action, method, suffix="", backup=False, body=None):
    """The performer of a write on an active database: `method` on its path
    and `suffix` ({backup}: the id of a backup made first)."""
    def perform(w, engine):
        db = w.database(engine)
        path = db_path(engine, db["id"])
        snap = w.backup(engine, db["id"]) if backup else None
        w.mark()
        w.ok(w.c.request(method, path + suffix.format(backup=snap and snap["id"]),
                         json=body))
        return action, db_entity(engine, db)
    return perform


DB_ROUTES = {
    ("POST", "/databases/{engine}/instances"): create_db,
    ("PUT", "/databases/{engine}/instances/{instanceId}"): update_db,
    ("DELETE", "/databases/{engine}/instances/{instanceId}"):
        db_write("database_delete", "DELETE"),
    ("POST", "/databases/{engine}/instances/{instanceId}/backups"):
        db_write("database_backup_create", "POST", "/backups", body={"label": "evr"}),
    ("DELETE", "/databases/{engine}/instances/{instanceId}/backups/{backupId}"):
        db_write("database_backup_delete", "DELETE", "/backups/{backup}", backup=True),
    ("POST", "/databases/{engine}/instances/{instanceId}/backups/{backupId}/restore"):
        db_write("database_backup_restore", "POST", "/backups/{backup}/restore",
                 backup=True),
    ("POST", "/databases/{engine}/instances/{instanceId}/credentials/reset"):
        db_write("database_credentials_reset", "POST", "/credentials/reset"),
    # The public API reports a patch (maintenance applied now) as an update.
    ("POST", "/databases/{engine}/instances/{instanceId}/patch"):
        db_write("database_update", "POST", "/patch"),
    # Its event enum (v4.215.0) has database_suspend and database_resume,
    # and its reference pages name them for these routes (MySQL's suspend
    # page says database_update; the enum's own action is taken).
    ("POST", "/databases/{engine}/instances/{instanceId}/suspend"): suspend_db,
    ("POST", "/databases/{engine}/instances/{instanceId}/resume"): resume_db,
}


def mark_read(w, _):
    w.mark()
    w.ok(w.c.post(f"/account/events/{w.mark_id}/read"))


def mark_seen(w, _):
    w.mark()
    w.ok(w.c.post(f"/account/events/{w.mark_id}/seen"))


WRITES = {
    ("PUT", "/profile"): put_profile,
    ("DELETE", "/profile/apps/{appId}"): revoke_app,
    ("DELETE", "/profile/devices/{deviceId}"): revoke_device,
    ("POST", "/profile/phone-number"): send_code,
    ("DELETE", "/profile/phone-number"): delete_number,
    ("POST", "/profile/phone-number/verify"): verify_number,
    ("PUT", "/profile/preferences"): put_preferences,
    ("POST", "/profile/security-questions"): answer_questions,
    ("POST", "/profile/sshkeys"): add_sshkey,
    ("PUT", "/profile/sshkeys/{sshKeyId}"): update_sshkey,
    ("DELETE", "/profile/sshkeys/{sshKeyId}"): delete_sshkey,
    ("POST", "/profile/tfa-disable"): tfa_disable,
    ("POST", "/profile/tfa-enable"): tfa_enable,
    ("POST", "/profile/tfa-enable-confirm"): tfa_confirm,
    ("POST", "/profile/tokens"): create_token,
    ("PUT", "/profile/tokens/{tokenId}"): update_token,
    ("DELETE", "/profile/tokens/{tokenId}"): delete_token,
    ("POST", "/domains"): create_domain,
    ("POST", "/domains/import"): import_domain,
    ("PUT", "/domains/{domainId}"): update_domain,
    ("DELETE", "/domains/{domainId}"): delete_domain,
    ("POST", "/domains/{domainId}/clone"): clone_domain,
    ("POST", "/domains/{domainId}/records"): create_record,
    ("PUT", "/domains/{domainId}/records/{recordId}"): update_record,
    ("DELETE", "/domains/{domainId}/records/{recordId}"): delete_record,
    ("POST", "/tags"): create_tag,
    ("DELETE", "/tags/{tagLabel}"): delete_tag,
    ("POST", "/account/events/{eventId}/read"): mark_read,
    ("POST", "/account/events/{eventId}/seen"): mark_seen,
}
for (_method, _path), _fn in DB_ROUTES.items():
    for _engine in ENGINES:
        WRITES[(_method, _path.replace("{engine}", _engine))] = _fn

def engine_of(path):
    m = re.match(r"/databases/([a-z]+)/", path)
    return m.group(1) if m else None

# --------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------

def test_every_write_route_is_listed():
    served = set(write_routes())
    assert served - set(WRITES) == set(), "write routes without an event test"
    assert set(WRITES) - served == set(), "tests of routes the table does not serve"
    assert set(NO_EVENT) <= served

@pytest.mark.parametrize("method,path", write_routes())
def test_write_route_event(backend, server, clock, method, path):
    perform = WRITES.get((method, path))
    assert perform, f"{method} {path}: no event test (see WRITES, NO_EVENT)"
    w = Writer(backend, server, clock)
    try:
        expected = perform(w, engine_of(path))
        assert w.mark_id is not None, "the performer never marked the write"
        new = w.new_events()
        if (method, path) in NO_EVENT:
            assert expected is None
            assert new == [], new
            return
        assert expected is not None, f"{method} {path} expects no event: list it in NO_EVENT"
        action, entity = expected
        assert [e["action"] for e in new] == [action], new
        event = new[0]
        assert event["entity"] == entity, event
        assert event["username"] == w.username, event
        assert event["status"] in ("notification", "started"), event
        # The newest of the account, as the provider's poll reads it.
        assert list_events(w.c, page=1)[0]["id"] == event["id"]
    finally:
        w.close()

# --------------------------------------------------------------------------
# A database PUT's operations: the actions the Terraform
# provider's pollers wait on -- database_update for a changed engine_id
# (version), private_network, label..., database_resize for a changed type
# or cluster_size, both when a PUT carries both
# --------------------------------------------------------------------------

PUT_EVENTS = [
    ("postgresql", {"version": "17"}, ["database_update"]),
    ("postgresql", {"cluster_size": 3}, ["database_resize"]),
    ("mysql", {"type": "g6-dedicated-4"}, ["database_resize"]),
    ("mysql", {"label": "evr-both", "cluster_size": 3}, ["database_resize", "database_update"]),
    ("postgresql", {"private_network": "vpc"}, ["database_update"]),
    ("mysql", {"cluster_size": 1, "type": "g6-dedicated-2", "version": "8"},
     ["database_update"]),     # the values it has: an update, not a resize
]


@pytest.mark.parametrize("engine,body,actions", PUT_EVENTS,
                         ids=[str(i) for i in range(len(PUT_EVENTS))])
def test_database_put_events(backend, server, clock, engine, body, actions):
    w = Writer(backend, server, clock)
    try:
        db = w.database(engine)
        if body.get("private_network") == "vpc":
            vpc = secrets.randbelow(2**40) + 1000
            backend.admin("entity", "add", "--account", str(w.acct.id), "--type", "vpc",
                          "--id", str(vpc), "--label", backend.unique("evr-vpc-"))
            body = {"private_network": {"vpc_id": vpc, "subnet_id": 4}}
        label = body.get("label", db["label"])
        if "label" in body:
            body = dict(body, label=backend.unique(body["label"] + "-"))
            label = body["label"]
        w.mark()
        w.ok(w.c.put(db_path(engine, db["id"]), json=body))
        new = w.new_events()
        # Newest first; one event per action, started, by the writer.
        assert sorted(e["action"] for e in new) == sorted(actions), new
        for event in new:
            assert event["entity"] == db_entity(engine, db, label), event
            assert (event["status"], event["username"]) == ("started", w.username), event
        w.clock("advance", "4m")
        for event in new:
            done = w.ok(w.c.get(f"/account/events/{event['id']}"))
            assert done["status"] == "finished", done
        assert w.ok(w.c.get(db_path(engine, db["id"])))["status"] == "active"
    finally:
        w.close()


# --------------------------------------------------------------------------
# A zone import
# --------------------------------------------------------------------------

def served_zone(backend, body="www IN A 192.0.2.20\nmail IN A 192.0.2.21\n"
                              "@ IN MX 10 mail\n"):
    """A zone with a random name, served by a private named (started)."""
    zone = f"evr-imp-{secrets.token_hex(4)}.example"
    ns = Named(backend.base, "evsource")
    ns.add_zone(zone, f"$TTL 3600\n@ IN SOA ns1.old-dns.test. hostmaster.{zone}. "
                      f"2024010101 10800 3600 1209600 300\n"
                      f"@ IN NS ns1.old-dns.test.\n{body}")
    try:
        ns.start()
    except Exception:
        ns.stop()
        raise
    return zone, ns

def test_zone_import_event(backend, server, clock):
    """One dns_zone_import for the zone, at the moment of the import, by its
    user; the imported records write no event of their own."""
    w = Writer(backend, server, clock)
    try:
        action, entity = import_domain(w, None)
        d = w.ok(w.c.get(f"/domains/{entity['id']}"))
        assert action == "dns_zone_import" and entity == domain_entity(d)
        records = w.c.all_pages(f"/domains/{d['id']}/records")
        assert sorted((x["type"], x["name"]) for x in records) == [
            ("A", "mail"), ("A", "www"), ("MX", "")]
        (event,) = w.new_events()
        assert event["action"] == "dns_zone_import", event
        assert event["status"] == "notification" and event["duration"] == 0, event
        assert event["percent_complete"] is None and event["time_remaining"] is None
        assert event["entity"] == domain_entity(d), event
        assert event["username"] == w.username
        assert event["created"] == d["created"]
        # Found as a client polls for it: by the zone and the action.
        found = list_events(w.c, go_filter(**{"entity.type": "domain", "entity.id": d["id"],
                                              "action": "dns_zone_import"}), page=1)
        assert [e["id"] for e in found] == [event["id"]]
    finally:
        w.close()

# --------------------------------------------------------------------------
# No change without its event
# --------------------------------------------------------------------------

def refuse_events(backend, domain_id):
    """Makes the database refuse the dns_record_create events of one domain
    (a trigger: what a full disk or a broken events table would do)."""
    if backend.kind == "sqlite":
        backend.execute(
            "CREATE TRIGGER e2e_refuse_event BEFORE INSERT ON events"
            f" WHEN NEW.action = 'dns_record_create' AND NEW.entity_id = {domain_id}"
            " BEGIN SELECT RAISE(ABORT, 'e2e refuses this event'); END")
    else:
        backend.execute(
            "CREATE FUNCTION e2e_refuse_event() RETURNS trigger LANGUAGE plpgsql AS $$"
            f" BEGIN IF NEW.action = 'dns_record_create' AND NEW.entity_id = {domain_id}"
            " THEN RAISE EXCEPTION 'e2e refuses this event'; END IF; RETURN NEW; END $$;"
            " CREATE TRIGGER e2e_refuse_event BEFORE INSERT ON events"
            " FOR EACH ROW EXECUTE FUNCTION e2e_refuse_event()")

def allow_events(backend):
    if backend.kind == "sqlite":
        backend.execute("DROP TRIGGER e2e_refuse_event")
    else:
        backend.execute("DROP TRIGGER e2e_refuse_event ON events;"
                        " DROP FUNCTION e2e_refuse_event()")

@pytest.mark.expect_log(r"e2e refuses this event", r"COMMIT rolled back",
                        r"POST /v4/domains/\d+/records")
def test_no_change_without_its_event(backend, server, clock):
    """An event that cannot be written fails its change: the record POST is a
    500 and leaves no record (on PostgreSQL the event goes with the COMMIT,
    whose failure rolls the record back)."""
    w = Writer(backend, server, clock)
    try:
        d = w.domain()
        refuse_events(backend, d["id"])
        try:
            w.mark()
            r = w.c.post(f"/domains/{d['id']}/records",
                         json={"type": "A", "name": "www", "target": "192.0.2.10"})
            assert r.status == 500, r
        finally:
            allow_events(backend)
        assert w.c.all_pages(f"/domains/{d['id']}/records") == []
        assert w.new_events() == []
        assert w.ok(w.c.get(f"/domains/{d['id']}")) == d      # rolled back
        # The same write with its event.
        w.record(d["id"])
        assert [e["action"] for e in w.new_events()] == ["dns_record_create"]
    finally:
        w.close()
