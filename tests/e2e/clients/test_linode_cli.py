"""linode-cli 5.56 and 5.50: the requests of its integration
tests for the in-scope commands (domains, records, tags, profile, SSH keys,
tokens, users, events, regions, databases, `configure`), sent as the CLI
builds them, and the answers checked for the columns its tests read.

How the CLI builds a request (linodecli/api_request.py, at the tags
v5.50.0 and v5.56.0):

- headers Authorization, `Content-Type: application/json` and
  `User-Agent: linode-cli/<v> linode-api-docs/<spec> python/<v>` on every
  request;
- every GET, lists and single objects alike, ends in `?page=1&page_size=100`,
  and carries no body; its filter arguments go to X-Filter: 5.56 puts them
  side by side (`{"entity.id": 5, "entity.type": "domain"}`), 5.50 sends
  one alone and two or more as `{"+and": [{"entity.id": 5}, ...]}`;
- every other method sends `json.dumps(args)`: the given arguments in the
  operation's argument order (the spec's, alphabetical), None and empty
  lists left out -- DELETE and argument-less POSTs send `{}`;
- before 5.55 (commit "Exclude parameter values from API request bodies")
  the path parameters are arguments like the others: they come first in
  every body, DELETE included (`{"domainId": 5}`), typed as the spec types
  them (integers as numbers);
- `linode-cli configure` GETs /regions, /linode/types and /images without
  a token, /profile/grants with it (204: full access), then
  /account/users, keeping the users that have an `ssh_keys` key.
"""

import json
import secrets
import string
import time

import pytest

from harness import Account
from replay import ENTITY_ID, TIMESTAMP, Nullable, Wire, answer, page_of, reasons, rsa_public_key

# Versions tried, and whether they copy path parameters into bodies.
VERSIONS = {"5.56.0": False, "5.50.0": True}
PAGE = "?page=1&page_size=100"

DOMAIN = {"id": int, "domain": str, "type": str, "status": str, "soa_email": str,
          "master_ips": [str], "tags": [str]}
RECORD = {"id": int, "type": str, "name": str, "target": str, "ttl_sec": int,
          "priority": int, "weight": int, "port": int, "service": Nullable(str),
          "protocol": Nullable(str)}
EVENT = {"id": int, "username": Nullable(str), "action": str, "created": TIMESTAMP,
         "status": str, "entity": Nullable({"id": ENTITY_ID, "type": str, "label": Nullable(str)})}
TOKEN = {"id": int, "label": str, "scopes": str, "created": TIMESTAMP,
         "expiry": Nullable(TIMESTAMP)}
SSH_KEY = {"id": int, "label": str, "ssh_key": str, "created": TIMESTAMP}
USER = {"username": str, "email": str, "restricted": bool, "ssh_keys": [str]}


class Cli:
    """linode-cli of one version, sending for one account."""

    def filter_header(self, filters):
        """_build_filter_header for scalar arguments: 5.56 puts them side by
        side; 5.50 sends a single one alone and several under "+and"."""
        if not filters:
            return None
        if self.path_ids_in_body and len(filters) > 1:
            return json.dumps({"+and": [{k: v} for k, v in filters.items()]})
        return json.dumps(filters)

    def __init__(self, wire, version):
        self.wire = wire
        self.version = version
        self.path_ids_in_body = VERSIONS[version]

    def run(self, method, template, ids=None, args=None, filters=None):
        """One command: `ids` the path parameters in the operation's order,
        `args` the body arguments in theirs, `filters` a GET's filters."""
        ids = ids or {}
        path = template.format(**ids)
        if method == "GET":
            return self.wire.get(path + PAGE, xfilter=self.filter_header(filters))
        body = dict(ids) if self.path_ids_in_body else {}
        body.update({k: v for k, v in (args or {}).items()
                     if v is not None and v != []})
        return self.wire.send(method, path, body)


@pytest.fixture(scope="module", params=list(VERSIONS))
def cli(request, backend, public_server):
    acct = Account(backend, public_server, stem="e2e-cli-")
    version = request.param
    wire = Wire(public_server, acct.client.token, headers={
        "Content-Type": "application/json",
        "User-Agent": f"linode-cli/{version} linode-api-docs/4.176.0 python/3.11.2"})
    c = Cli(wire, version)
    c.account = acct
    yield c
    wire.close()
    acct.close()


def random_text(n=5):
    """get_random_text(): random lowercase letters."""
    return "".join(secrets.choice(string.ascii_lowercase) for _ in range(n))


def unique_domain():
    return f"{random_text()}{time.time_ns() % 10**9}-example.com"


def create_master(cli, **extra):
    """The master_domain fixture: domains create --type master --domain ...
    --soa_email ..., then `domains view` until status is active."""
    args = {"domain": unique_domain(), "soa_email": "pthiel_test@linode.com", "type": "master"}
    args.update(extra)
    args = dict(sorted(args.items()))
    dom = answer(cli.run("POST", "/domains", args=args), DOMAIN)
    view = answer(cli.run("GET", "/domains/{domainId}", {"domainId": dom["id"]}), DOMAIN)
    assert view["status"] == "active", view
    return dom


def delete(cli, template, ids):
    """delete_target_id: the DELETE of `<command> delete ID`."""
    r = cli.run("DELETE", template, ids)
    assert r.status == 200 and r.json == {}, r


# --------------------------------------------------------------------------
# domains
# --------------------------------------------------------------------------

def test_master_domain(cli):
    """test_domain_master.py: create, update soa_email (with --type master
    --master_ips 8.8.8.8, the body 5.50 sends with domainId in it), list
    shows master,active, delete (5.50: a DELETE body naming domainId)."""
    dom = create_master(cli)
    ids = {"domainId": dom["id"]}
    updated = answer(cli.run("PUT", "/domains/{domainId}", ids,
                             {"master_ips": ["8.8.8.8"], "soa_email": "pthiel_new@linode.com",
                              "type": "master"}), DOMAIN)
    assert updated["soa_email"] == "pthiel_new@linode.com", updated
    listed = answer(cli.run("GET", "/domains"), page_of(DOMAIN))
    assert (dom["id"], "master", "active") in \
        [(d["id"], d["type"], d["status"]) for d in listed["data"]], listed
    delete(cli, "/domains/{domainId}", ids)


def test_slave_domain(cli):
    """test_domain_slave.py: create --type slave --master_ips 1.1.1.1,
    update --type slave --master_ips 8.8.8.8 (slave,active), list."""
    dom = answer(cli.run("POST", "/domains", args={
        "domain": unique_domain(), "master_ips": ["1.1.1.1"], "type": "slave"}), DOMAIN)
    ids = {"domainId": dom["id"]}
    updated = answer(cli.run("PUT", "/domains/{domainId}", ids,
                             {"master_ips": ["8.8.8.8"], "type": "slave"}), DOMAIN)
    assert (updated["type"], updated["status"], updated["master_ips"]) == \
        ("slave", "active", ["8.8.8.8"]), updated
    assert "-example.com" in str(answer(cli.run("GET", "/domains"), page_of(DOMAIN)))
    delete(cli, "/domains/{domainId}", ids)


def test_domain_error_texts(cli):
    """The reasons linode-cli's tests assert (printed as `field<TAB>reason`
    after `Request failed: 400`)."""
    r = cli.run("POST", "/domains", args={"domain": f"example.bc-{time.time_ns()}.com",
                                          "soa_email": "pthiel@linode.com"})
    assert r.status == 400 and ("type", "type is required") in reasons(r), r
    r = cli.run("POST", "/domains", args={"domain": f"example.bc-{time.time_ns()}.com",
                                          "type": "master"})
    assert r.status == 400 and \
        ("soa_email", "soa_email required when type=master") in reasons(r), r
    r = cli.run("POST", "/domains", args={"domain": unique_domain(), "type": "slave"})
    assert r.status == 400 and ("master_ips", "You need at least one master DNS server "
                                "IP address for this zone.") in reasons(r), r
    # test_domain_tags.py: a 300-character tag, and a slave with tag "*".
    r = cli.run("POST", "/domains", args={
        "domain": random_text() + "example.com", "soa_email": random_text() + "pthiel@linode.com",
        "tags": ["a" * 300], "type": "master"})
    assert r.status == 400, r
    r = cli.run("POST", "/domains", args={
        "domain": random_text() + "example.com", "soa_email": random_text() + "pthiel@linode.com",
        "tags": ["*"], "type": "slave"})
    assert r.status == 400, r


def test_domain_tags(cli):
    """test_domain_tags.py: create with --tag foo (id,domain,type,status,tags
    is `N,...-example.com,master,active,foo`); create with --tag zoo, `tags
    list` shows zoo, `tags delete zoo`, `domains delete`."""
    foo = create_master(cli, tags=["foo"])
    assert (foo["type"], foo["status"], foo["tags"]) == ("master", "active", ["foo"]), foo
    zoo = create_master(cli, tags=["zoo"])
    labels = [t["label"] for t in answer(cli.run("GET", "/tags"), page_of({"label": str}))["data"]]
    assert "zoo" in labels, labels
    delete(cli, "/tags/{tagLabel}", {"tagLabel": "zoo"})
    assert answer(cli.run("GET", "/domains/{domainId}", {"domainId": zoo["id"]}),
                  DOMAIN)["tags"] == []
    delete(cli, "/domains/{domainId}", {"domainId": zoo["id"]})
    delete(cli, "/domains/{domainId}", {"domainId": foo["id"]})
    delete(cli, "/tags/{tagLabel}", {"tagLabel": "foo"})


def test_records(cli):
    """test_domain_records.py: records-create SRV (--protocol tcp --port 23
    --priority 4 --service telnet --target record-setup --weight 4), the
    row `N,SRV,_telnet._tcp,record-setup.<domain>,0,4,4` from create, list
    and view, records-list filtered on type, records-update --target
    (5.50: domainId and recordId in the body), records-delete."""
    dom = create_master(cli)
    ids = {"domainId": dom["id"]}
    rec = answer(cli.run("POST", "/domains/{domainId}/records", ids, {
        "port": 23, "priority": 4, "protocol": "tcp", "service": "telnet",
        "target": "record-setup", "type": "SRV", "weight": 4}), RECORD)

    def row(r):
        return (r["type"], r["name"], r["target"], r["ttl_sec"], r["priority"], r["weight"])

    want = ("SRV", "_telnet._tcp", f"record-setup.{dom['domain']}", 0, 4, 4)
    assert row(rec) == want, rec
    listed = answer(cli.run("GET", "/domains/{domainId}/records", ids), page_of(RECORD))
    assert [row(r) for r in listed["data"]] == [want], listed
    filtered = answer(cli.run("GET", "/domains/{domainId}/records", ids,
                              filters={"type": "SRV"}), page_of(RECORD))
    assert [r["id"] for r in filtered["data"]] == [rec["id"]], filtered
    rids = {"domainId": dom["id"], "recordId": rec["id"]}
    assert row(answer(cli.run("GET", "/domains/{domainId}/records/{recordId}", rids),
                      RECORD)) == want
    updated = answer(cli.run("PUT", "/domains/{domainId}/records/{recordId}", rids,
                             {"target": "record-setup-update"}), RECORD)
    assert row(updated) == ("SRV", "_telnet._tcp", f"record-setup-update.{dom['domain']}",
                            0, 4, 4), updated
    delete(cli, "/domains/{domainId}/records/{recordId}", rids)
    delete(cli, "/domains/{domainId}", ids)


# --------------------------------------------------------------------------
# tags, profile, SSH keys, tokens, users, events
# --------------------------------------------------------------------------

def test_tags(cli):
    """tags/test_tags.py: create --label, list, delete; a 2-character label
    is refused with `Length must be 3-50 characters`."""
    label = f"{random_text()}-tag"
    assert answer(cli.run("POST", "/tags", args={"label": label}), {"label": str})["label"] == label
    assert label in str(answer(cli.run("GET", "/tags"), page_of({"label": str})))
    delete(cli, "/tags/{tagLabel}", {"tagLabel": label})
    r = cli.run("POST", "/tags", args={"label": "aa"})
    assert r.status == 400 and ("label", "Length must be 3-50 characters") in reasons(r), r


def test_profile_and_lists(cli):
    """users/test_profile.py: profile view (username, email, restricted),
    apps-list, devices-list, logins-list, security-questions list,
    tokens-list, sshkeys list; `profile update --lish_auth_method`."""
    profile = answer(cli.run("GET", "/profile"),
                     {"username": str, "email": str, "restricted": bool,
                      "lish_auth_method": str})
    for path, item in (("/profile/apps", {"label": str, "scopes": str, "website": str}),
                       ("/profile/devices", {"created": TIMESTAMP, "expiry": TIMESTAMP,
                                             "user_agent": str}),
                       ("/profile/logins", {"datetime": TIMESTAMP, "username": str,
                                            "status": str}),
                       ("/profile/tokens", TOKEN), ("/profile/sshkeys", SSH_KEY)):
        answer(cli.run("GET", path), page_of(item))
    questions = answer(cli.run("GET", "/profile/security-questions"),
                       {"security_questions": [{"id": int, "question": str}]})
    assert questions["security_questions"], questions
    updated = answer(cli.run("PUT", "/profile", args={"lish_auth_method": "keys_only"}),
                     {"lish_auth_method": str, "username": str})
    assert updated["lish_auth_method"] == "keys_only" and \
        updated["username"] == profile["username"], updated


def test_ssh_keys_and_tokens(cli):
    """sshkeys create/update/delete and profile token-create/token-update/
    token-delete (5.50: sshKeyId, tokenId in the bodies)."""
    key = answer(cli.run("POST", "/profile/sshkeys", args={
        "label": "cli-key", "ssh_key": rsa_public_key("cli@test")}), SSH_KEY)
    kid = {"sshKeyId": key["id"]}
    assert answer(cli.run("PUT", "/profile/sshkeys/{sshKeyId}", kid, {"label": "cli-key-2"}),
                  SSH_KEY)["label"] == "cli-key-2"
    delete(cli, "/profile/sshkeys/{sshKeyId}", kid)

    tok = answer(cli.run("POST", "/profile/tokens", args={
        "expiry": "2999-01-01T00:00:00", "label": "cli-token", "scopes": "domains:read_only"}),
        dict(TOKEN, token=str))
    tid = {"tokenId": tok["id"]}
    assert answer(cli.run("PUT", "/profile/tokens/{tokenId}", tid, {"label": "cli-token-2"}),
                  TOKEN)["label"] == "cli-token-2"
    assert tok["id"] in [t["id"] for t in answer(cli.run("GET", "/profile/tokens"),
                                                page_of(TOKEN))["data"]]
    delete(cli, "/profile/tokens/{tokenId}", tid)


def test_users(cli):
    """account/test_account.py: users list (email, username), users view."""
    users = answer(cli.run("GET", "/account/users"), page_of(USER))["data"]
    assert users, users
    one = answer(cli.run("GET", "/account/users/{username}", {"username": users[0]["username"]}),
                 USER)
    assert one["username"] == users[0]["username"], one


def test_events(cli):
    """events/test_events.py and account/test_account.py: list, view,
    mark-seen (5.50: eventId in the body), list --id N, and list
    --entity.id D --entity.type domain after a domain's creation."""
    dom = create_master(cli)
    events = answer(cli.run("GET", "/account/events"), page_of(EVENT))["data"]
    assert events, events
    first = events[0]["id"]
    eid = {"eventId": first}
    view = answer(cli.run("GET", "/account/events/{eventId}", eid), EVENT)
    assert view["id"] == first, view
    r = cli.run("POST", "/account/events/{eventId}/seen", eid)
    assert r.status == 200 and r.json == {}, r
    assert answer(cli.run("GET", "/account/events/{eventId}", eid), EVENT)["seen"] is True
    by_id = answer(cli.run("GET", "/account/events", filters={"id": first}), page_of(EVENT))
    assert [e["id"] for e in by_id["data"]] == [first], by_id
    mine = answer(cli.run("GET", "/account/events", filters={
        "entity.id": dom["id"], "entity.type": "domain"}), page_of(EVENT))["data"]
    assert mine and {e["entity"]["id"] for e in mine} == {dom["id"]}, mine
    # The public API's and linodego's name of the action (the CLI's own test
    # looks for "domain_create", which neither knows: see docs/clients.md).
    assert "dns_zone_create" in [e["action"] for e in mine], mine
    delete(cli, "/domains/{domainId}", {"domainId": dom["id"]})


def test_regions_and_databases(cli, clock):
    """regions list; database/test_database.py: engines, engine-view (the id
    goes into the path as it is, its slash unencoded), the postgresql_cluster
    fixture's postgresql-create (label with `_`, --no-defaults; with an
    engine id by full version: the fixture's `postgresql/16` is a major-version id of today's public API),
    its wait for `active`, list, postgresql-list and mysql-list (id, label,
    region), delete."""
    regions = answer(cli.run("GET", "/regions"), page_of(
        {"id": str, "label": str, "country": str, "status": str, "site_type": str,
         "capabilities": [str]}))["data"]
    assert "us-ord" in [r["id"] for r in regions]
    engines = answer(cli.run("GET", "/databases/engines"),
                     page_of({"id": str, "engine": str, "version": str}))["data"]
    assert {"mysql", "postgresql"} <= {e["engine"] for e in engines}
    view = answer(cli.run("GET", "/databases/engines/" + engines[0]["id"]),
                  {"id": str, "engine": str, "version": str})
    assert view == engines[0], view
    label = random_text() + "_postgresql"
    db = answer(cli.run("POST", "/databases/postgresql/instances", args={
        "engine": "postgresql/16.4", "label": label, "region": "us-ord",
        "type": "g6-nanode-1"}), {"id": int, "label": str, "region": str})
    assert db["label"] == label, db
    clock("advance", "40m")
    path = "/databases/postgresql/instances/{instanceId}"
    assert answer(cli.run("GET", path, {"instanceId": db["id"]}),
                  {"status": str})["status"] == "active"
    row = {"id": int, "label": str, "region": str}
    for each in ("/databases/instances", "/databases/postgresql/instances"):
        listed = answer(cli.run("GET", each), page_of(row))["data"]
        assert (db["id"], label, "us-ord") in [(d["id"], d["label"], d["region"])
                                               for d in listed], listed
    answer(cli.run("GET", "/databases/mysql/instances"), page_of(row))
    delete(cli, path, {"instanceId": db["id"]})


# --------------------------------------------------------------------------
# linode-cli configure
# --------------------------------------------------------------------------

def test_configure(cli):
    """The requests of `linode-cli configure` with a token: /profile (the
    token's user), /regions, /linode/types and /images without a token
    (the step that stopped on a 404 before the read-only views existed), /profile/grants
    (204 for a full-access token), /account/users (its users with ssh_keys)."""
    token_headers = {"Authorization": f"Bearer {cli.wire.token}",
                     "Content-type": "application/json"}
    plain = Wire(cli.wire.server, None)
    try:
        me = answer(plain.get("/profile", headers=token_headers), {"username": str})
        for path in ("/regions", "/linode/types", "/images"):
            answer(plain.get(path), page_of({"id": str}))
        r = plain.get("/profile/grants", headers={"Authorization": f"Bearer {cli.wire.token}",
                                                   "Content-Type": "application/json"})
        assert r.status == 204 and r.body == b"", r
        users = answer(plain.get("/account/users", headers=token_headers), page_of(USER))
        assert me["username"] in [u["username"] for u in users["data"] if "ssh_keys" in u], users
    finally:
        plain.close()
