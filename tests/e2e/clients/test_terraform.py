"""The Terraform provider linode/linode 3.13, which talks to the
API through linodego v1.69.0: the requests of its in-scope resources
(linode_domain, linode_domain_record, linode_sshkey, linode_token,
linode_database_mysql_v2 / _postgresql_v2) and data sources (linode_domain,
linode_domains, linode_domain_record, linode_domain_zonefile,
linode_profile, linode_user, linode_users, linode_sshkeys, linode_regions,
linode_region, linode_database_engines, linode_databases), sent as linodego
encodes them, and the answers checked for what linodego decodes.

What goes over the wire, from the provider's source (tag v3.13.0) and
linodego's (tag v1.69.0; its recorded fixtures show the same bodies):

- `encoding/json` bodies of linodego's option structs, keys in field order:
  a domain create or update always carries `master_ips`, `axfr_ips` and
  `tags`, null when the provider left them unset -- on update, whenever
  they did not change; a record update carries `type` and, once the state
  holds them, `priority`, `weight` and `port` (0 for an A record);
- headers `Accept` and `Content-Type: application/json` on every request,
  and the provider's User-Agent;
- lists: `GET ...?page=1`, and every list data source's X-Filter is
  `{"+and":[...],"+order":"desc"}` -- `"+and":[]` when no filter applies
  to the API, `{"+or":[{field:value}]}` per filter otherwise
  (linode_regions filters on `site_type`);
- waits: linodego's event poller lists
  `{"+order":"desc","+order_by":"created","action":A,"entity.id":N,"entity.type":T}`
  and GETs the event until it is finished; then the database until active.

linodego decodes every answer into typed structs: a string where it has
an int, an object where it has a list, or a timestamp not in the layout
2006-01-02T15:04:05 fails the whole call, so the models below give the
kinds of the fields its structs have.
"""

import json
import secrets

import pytest

import harness
from harness import Account
from replay import (ANY, NUMBER, TIMESTAMP, Nullable, Wire, answer, go_json, page_of,
                    rsa_public_key)

USER_AGENT = ("HashiCorp Terraform/1.9.8 (+https://www.terraform.io) "
              "Terraform-Plugin-SDK/2.36.0 terraform-provider-linode/3.13.0")
HEADERS = {"Accept": "application/json", "Content-Type": "application/json",
           "User-Agent": USER_AGENT}
EMPTY_FILTER = '{"+and":[],"+order":"desc"}'

# linodego v1.69.0's structs, as the kinds of their fields (a Go string,
# int, bool or slice takes null as its zero value: Nullable where the API
# may send null, strict where the provider needs the value).
DOMAIN = {"id": int, "domain": str, "type": str, "group": str, "status": str,
          "description": str, "soa_email": str, "retry_sec": int, "master_ips": [str],
          "axfr_ips": [str], "tags": [str], "expire_sec": int, "refresh_sec": int,
          "ttl_sec": int}
RECORD = {"id": int, "type": str, "name": str, "target": str, "priority": int, "weight": int,
          "port": int, "service": Nullable(str), "protocol": Nullable(str), "ttl_sec": int,
          "tag": Nullable(str), "created": TIMESTAMP, "updated": TIMESTAMP}
SSH_KEY = {"id": int, "label": str, "ssh_key": str, "created": TIMESTAMP}
TOKEN = {"id": int, "scopes": str, "label": str, "created": TIMESTAMP,
         "expiry": Nullable(TIMESTAMP)}
PROFILE = {"uid": int, "username": str, "email": str, "timezone": str,
           "email_notifications": bool, "ip_whitelist_enabled": bool,
           "two_factor_auth": bool, "restricted": bool, "lish_auth_method": str,
           "referrals": {"total": int, "completed": int, "pending": int, "credit": NUMBER,
                         "code": str, "url": str},
           "authorized_keys": Nullable([str]), "authentication_type": str}
USER = {"username": str, "email": str, "restricted": bool, "ssh_keys": [str],
        "tfa_enabled": bool, "user_type": str,
        "last_login": Nullable({"login_datetime": TIMESTAMP, "status": str}),
        "password_created": Nullable(TIMESTAMP), "verified_phone_number": Nullable(str)}
REGION = {"id": str, "country": str, "capabilities": [str], "status": str, "label": str,
          "site_type": str, "resolvers": {"ipv4": str, "ipv6": str},
          "monitors": {"alerts": [str], "metrics": [str]},
          "placement_group_limits": Nullable({"maximum_pgs_per_customer": Nullable(int),
                                              "maximum_linodes_per_pg": Nullable(int)})}
ENGINE = {"id": str, "engine": str, "version": str}
EVENT = {"id": int, "status": str, "action": str, "percent_complete": Nullable(int),
         "read": bool, "seen": bool, "username": Nullable(str), "created": TIMESTAMP,
         "entity": Nullable({"id": ANY, "label": Nullable(str), "type": str,
                             "url": Nullable(str)})}
DATABASE = {"id": int, "status": str, "label": str, "region": str, "type": str,
            "engine": str, "version": str, "cluster_size": int, "encrypted": bool,
            "allow_list": [str], "created": TIMESTAMP, "updated": TIMESTAMP,
            "hosts": {"primary": Nullable(str)}, "ssl_connection": bool, "port": int,
            "updates": {"day_of_week": int, "duration": int, "frequency": str,
                        "hour_of_day": int}}


def list_filter(*ands, order_by=None):
    """frameworkfilter's X-Filter: one {"+or": [...]} per filter block."""
    f = {"+and": [{"+or": [{k: v} for v in values]} for k, values in ands],
         "+order": "desc"}
    if order_by:
        f["+order_by"] = order_by
    return go_json(f)


def poller_filter(action, entity_id, entity_type):
    """linodego's EventPoller filter (Filter.MarshalJSON of a map: sorted keys)."""
    return go_json({"+order": "desc", "+order_by": "created", "action": action,
                    "entity.id": entity_id, "entity.type": entity_type})


@pytest.fixture(scope="module")
def tf(backend, public_server):
    acct = Account(backend, public_server, stem="e2e-tf-")
    wire = Wire(public_server, acct.client.token, headers=HEADERS, encode=go_json)
    wire.account = acct
    yield wire
    wire.close()
    acct.close()


def zone_name():
    return f"tf-{secrets.token_hex(5)}.example"


def create_domain(tf, **fields):
    """linode_domain Create: DomainCreateOptions in field order."""
    body = {"domain": zone_name(), "type": "master"}
    body.update({k: fields[k] for k in ("group", "status", "description", "soa_email",
                                        "retry_sec") if k in fields})
    body.update({"master_ips": fields.get("master_ips"), "axfr_ips": fields.get("axfr_ips"),
                 "tags": fields.get("tags")})
    body.update({k: fields[k] for k in ("expire_sec", "refresh_sec", "ttl_sec") if k in fields})
    return answer(tf.post("/domains", body), DOMAIN)


# --------------------------------------------------------------------------
# linode_domain, linode_domain_record
# --------------------------------------------------------------------------

def test_domain_resource_update_sends_null_for_what_did_not_change(tf):
    """An apply that changes only the description: Update sends domain,
    status, soa_email and the timers from the state, and master_ips,
    axfr_ips and tags as null (not changed), which must leave them as they
    are (the module once cleared them)."""
    dom = create_domain(tf, soa_email="hostmaster@example.com", tags=["tf-a", "dns"],
                        axfr_ips=["192.0.2.53"], ttl_sec=300)
    assert sorted(dom["tags"]) == ["dns", "tf-a"] and dom["axfr_ips"] == ["192.0.2.53"], dom
    state = answer(tf.get(f"/domains/{dom['id']}"), DOMAIN)
    body = {"domain": state["domain"], "status": state["status"],
            "description": "managed by terraform", "soa_email": state["soa_email"],
            "retry_sec": state["retry_sec"], "master_ips": None, "axfr_ips": None,
            "tags": None, "expire_sec": state["expire_sec"],
            "refresh_sec": state["refresh_sec"], "ttl_sec": state["ttl_sec"]}
    body = {k: v for k, v in body.items() if v not in (0, "") or k in
            ("master_ips", "axfr_ips", "tags")}   # omitempty
    updated = answer(tf.put(f"/domains/{dom['id']}", body), DOMAIN)
    assert updated["description"] == "managed by terraform", updated
    assert sorted(updated["tags"]) == ["dns", "tf-a"], updated
    assert updated["axfr_ips"] == ["192.0.2.53"] and updated["ttl_sec"] == 300, updated
    # A changed set goes as the whole new list; [] clears.
    body.update(tags=[], axfr_ips=["192.0.2.54"])
    updated = answer(tf.put(f"/domains/{dom['id']}", body), DOMAIN)
    assert updated["tags"] == [] and updated["axfr_ips"] == ["192.0.2.54"], updated
    r = tf.delete(f"/domains/{dom['id']}")
    assert r.status == 200, r


def test_domain_record_resource(tf):
    """linode_domain_record: Create (type, name, target; SRV with its
    pointers), Read, an Update after the state holds priority/weight/port
    (an A record's 0s and its type go along), Delete."""
    dom = create_domain(tf, soa_email="hostmaster@example.com")
    base = f"/domains/{dom['id']}/records"
    a = answer(tf.post(base, {"type": "A", "name": "www", "target": "192.0.2.1"}), RECORD)
    srv = answer(tf.post(base, {"type": "SRV", "name": "", "target": "sip.example.net",
                                "priority": 10, "weight": 20, "port": 5060,
                                "service": "sip", "protocol": "udp"}), RECORD)
    assert (srv["service"], srv["protocol"], srv["port"]) == ("sip", "udp", 5060), srv
    state = answer(tf.get(f"{base}/{a['id']}"), RECORD)
    updated = answer(tf.put(f"{base}/{a['id']}", {
        "type": "A", "name": "www", "target": "192.0.2.2", "priority": state["priority"],
        "weight": state["weight"], "port": state["port"], "ttl_sec": 7200}), RECORD)
    assert (updated["target"], updated["ttl_sec"]) == ("192.0.2.2", 7200), updated
    # linode_domain_record data source by name: ListDomainRecords with a filter.
    found = answer(tf.get(f"{base}?page=1", xfilter=go_json({"name": "www"})), page_of(RECORD))
    assert [r["id"] for r in found["data"]] == [a["id"]], found
    for rid in (a["id"], srv["id"]):
        assert tf.delete(f"{base}/{rid}").status == 200
    assert tf.delete(f"/domains/{dom['id']}").status == 200


def test_domain_data_sources(tf):
    """linode_domain (by name: X-Filter {"domain": ...}), linode_domains
    (empty "+and", and filters on domain, group and tags), and
    linode_domain_zonefile."""
    dom = create_domain(tf, soa_email="hostmaster@example.com", group="tf-group",
                        tags=["tf-ds"])
    by_name = answer(tf.get("/domains?page=1", xfilter=go_json({"domain": dom["domain"]})),
                     page_of(DOMAIN))
    assert [d["id"] for d in by_name["data"]] == [dom["id"]], by_name
    everything = answer(tf.get("/domains?page=1", xfilter=EMPTY_FILTER), page_of(DOMAIN))
    assert dom["id"] in [d["id"] for d in everything["data"]], everything
    ids = [d["id"] for d in everything["data"]]
    assert ids == sorted(ids, reverse=True), ids     # "+order": "desc" on the default key
    for field, value in (("domain", dom["domain"]), ("group", "tf-group"), ("tags", "tf-ds")):
        got = answer(tf.get("/domains?page=1", xfilter=list_filter((field, [value]))),
                     page_of(DOMAIN))
        assert [d["id"] for d in got["data"]] == [dom["id"]], (field, got)
    got = answer(tf.get("/domains?page=1",
                        xfilter=list_filter(("domain", [dom["domain"], "other.example"]),
                                            order_by="domain")), page_of(DOMAIN))
    assert [d["id"] for d in got["data"]] == [dom["id"]], got
    zone = answer(tf.get(f"/domains/{dom['id']}/zone-file"), {"zone_file": [str]})
    assert any(dom["domain"] in line for line in zone["zone_file"]), zone
    assert tf.delete(f"/domains/{dom['id']}").status == 200


# --------------------------------------------------------------------------
# linode_sshkey, linode_token, profile and users
# --------------------------------------------------------------------------

def test_sshkey_resource_and_data_sources(tf):
    """linode_sshkey Create/Update(label)/Delete; linode_sshkey (lists all
    keys, no filter) and linode_sshkeys (the empty "+and")."""
    key = answer(tf.post("/profile/sshkeys", {"label": "tf-key",
                                              "ssh_key": rsa_public_key("tf@host")}), SSH_KEY)
    renamed = answer(tf.put(f"/profile/sshkeys/{key['id']}", {"label": "tf-key-2"}), SSH_KEY)
    assert renamed["label"] == "tf-key-2", renamed
    listed = answer(tf.get("/profile/sshkeys?page=1"), page_of(SSH_KEY))
    assert key["id"] in [k["id"] for k in listed["data"]], listed
    filtered = answer(tf.get("/profile/sshkeys?page=1", xfilter=EMPTY_FILTER), page_of(SSH_KEY))
    assert key["id"] in [k["id"] for k in filtered["data"]], filtered
    assert tf.delete(f"/profile/sshkeys/{key['id']}").status == 200


def test_token_resource(tf):
    """linode_token: Create with an expiry (Go's time.Time: RFC 3339 with
    Z) and without one (null); Update = GetToken, then the label."""
    expiry = harness.utc_ts(86400) + "Z"
    tok = answer(tf.post("/profile/tokens", {"scopes": "domains:read_only",
                                             "label": "tf-token", "expiry": expiry}),
                 dict(TOKEN, token=str))
    assert tok["expiry"] == expiry[:-1] and tok["scopes"] == "domains:read_only", tok
    forever = answer(tf.post("/profile/tokens", {"scopes": "*", "label": "tf-forever",
                                                 "expiry": None}), dict(TOKEN, token=str))
    current = answer(tf.get(f"/profile/tokens/{tok['id']}"), TOKEN)
    renamed = answer(tf.put(f"/profile/tokens/{tok['id']}",
                            {"label": current["label"] + "-2"}), TOKEN)
    assert renamed["label"] == "tf-token-2", renamed
    for t in (tok, forever):
        assert tf.delete(f"/profile/tokens/{t['id']}").status == 200


def test_profile_data_source(tf):
    """linode_profile: GetProfile, lish_auth_method included."""
    profile = answer(tf.get("/profile"), PROFILE)
    assert profile["lish_auth_method"] in ("password_keys", "keys_only", "disabled"), profile


def test_user_and_users_data_sources(tf):
    """linode_user (GetUser) and linode_users (the username filter) for an
    unrestricted user; both GET the user's grants only for a restricted one."""
    me = answer(tf.get("/profile"), PROFILE)["username"]
    user = answer(tf.get(f"/account/users/{me}"), USER)
    assert user["username"] == me and user["restricted"] is False, user
    users = answer(tf.get("/account/users?page=1", xfilter=list_filter(("username", [me]))),
                   page_of(USER))
    assert [u["username"] for u in users["data"]] == [me], users
    everyone = answer(tf.get("/account/users?page=1", xfilter=EMPTY_FILTER), page_of(USER))
    assert me in [u["username"] for u in everyone["data"]], everyone


# --------------------------------------------------------------------------
# regions, database engines, databases
# --------------------------------------------------------------------------

def test_regions_data_sources(tf):
    """linode_regions: the empty "+and", and the site_type filter (a 400
    before the module followed today's clients); linode_region: GetRegion."""
    regions = answer(tf.get("/regions?page=1", xfilter=EMPTY_FILTER), page_of(REGION))["data"]
    assert regions, regions
    core = answer(tf.get("/regions?page=1", xfilter=list_filter(("site_type", ["core"]))),
                  page_of(REGION))["data"]
    assert core and {r["site_type"] for r in core} == {"core"}, core
    assert {r["id"] for r in core} == {r["id"] for r in regions if r["site_type"] == "core"}
    both = answer(tf.get("/regions?page=1",
                         xfilter=list_filter(("site_type", ["core", "distributed"]))),
                  page_of(REGION))["data"]
    assert {r["id"] for r in both} >= {r["id"] for r in core}, both
    one = answer(tf.get(f"/regions/{core[0]['id']}"), REGION)
    assert one["id"] == core[0]["id"], one


VPC_AVAILABILITY = {"region": str, "available": bool, "available_ipv6_prefix_lengths": [int]}


def test_region_vpc_availability_data_sources(tf):
    """linode_regions_vpc_availability: ListRegionsVPCAvailability without
    options; linode_region_vpc_availability: GetRegionVPCAvailability."""
    every = answer(tf.get("/regions/vpc-availability?page=1"),
                   page_of(VPC_AVAILABILITY))["data"]
    assert every and any(v["available"] for v in every), every
    one = answer(tf.get(f"/regions/{every[0]['region']}/vpc-availability"), VPC_AVAILABILITY)
    assert one == every[0], one


def test_database_engines_and_databases_data_sources(tf):
    """linode_database_engines (engine and version filters) and
    linode_databases (the empty "+and", with an order_by)."""
    engines = answer(tf.get("/databases/engines?page=1", xfilter=EMPTY_FILTER),
                     page_of(ENGINE))["data"]
    mysql = answer(tf.get("/databases/engines?page=1", xfilter=list_filter(("engine", ["mysql"]))),
                   page_of(ENGINE))["data"]
    assert mysql and {e["engine"] for e in mysql} == {"mysql"}, mysql
    assert {e["id"] for e in mysql} == {e["id"] for e in engines if e["engine"] == "mysql"}
    version = mysql[0]["version"]
    exact = answer(tf.get("/databases/engines?page=1",
                          xfilter=list_filter(("engine", ["mysql"]), ("version", [version]))),
                   page_of(ENGINE))["data"]
    assert [e["version"] for e in exact] == [version], exact
    answer(tf.get("/databases/instances?page=1", xfilter=EMPTY_FILTER), page_of(dict))
    answer(tf.get("/databases/instances?page=1",
                  xfilter=list_filter(order_by="label")), page_of(dict))


def wait_for_event(tf, clock, action, entity_id, known=()):
    """linodego's EventPoller: list with its filter until an event it did not
    know appears, then GET it until finished (the test clock stands in for
    the poller's ticks)."""
    listed = answer(tf.get("/account/events?page=1",
                           xfilter=poller_filter(action, entity_id, "database")),
                    page_of(EVENT))["data"]
    new = [e for e in listed if e["id"] not in known]
    assert new, (action, listed)
    event = new[0]
    assert event["action"] == action and event["entity"]["id"] == entity_id, event
    if event["status"] != "finished":
        clock("advance", "40m")
    event = answer(tf.get(f"/account/events/{event['id']}"), EVENT)
    assert event["status"] == "finished", event
    return event


@pytest.mark.parametrize("engine,engine_id", [("mysql", "mysql/8.0.30"),
                                              ("postgresql", "postgresql/16.4")])
def test_database_v2_resource(tf, clock, engine, engine_id):
    """linode_database_{mysql,postgresql}_v2 with the attributes the module
    serves today (engine ids by full version; today's major-version ids and
    engine_config are today's public API's): Create, the poller on database_create, the
    status wait; an Update of label, allow_list and updates with the poller
    on database_update (PreTask first); Delete."""
    base = f"/databases/{engine}/instances"
    label = f"tf-{engine[:5]}-{secrets.token_hex(3)}"
    db = answer(tf.post(base, {"label": label, "region": "us-east", "type": "g6-nanode-1",
                               "engine": engine_id, "allow_list": ["203.0.113.1"],
                               "cluster_size": 1}), DATABASE)
    wait_for_event(tf, clock, "database_create", db["id"])
    assert answer(tf.get(f"{base}/{db['id']}"), DATABASE)["status"] == "active"

    known = {e["id"] for e in answer(
        tf.get("/account/events?page=1",
               xfilter=poller_filter("database_update", db["id"], "database")),
        page_of(EVENT))["data"]}
    updated = answer(tf.put(f"{base}/{db['id']}", {
        "label": label + "-u", "allow_list": ["203.0.113.0/24"],
        "updates": {"day_of_week": 3, "duration": 1, "frequency": "weekly",
                    "hour_of_day": 8}}), DATABASE)
    assert updated["label"] == label + "-u", updated
    wait_for_event(tf, clock, "database_update", db["id"], known)
    final = answer(tf.get(f"{base}/{db['id']}"), DATABASE)
    assert final["status"] == "active" and final["allow_list"] == ["203.0.113.0/24"], final
    assert final["updates"]["day_of_week"] == 3, final
    assert tf.delete(f"{base}/{db['id']}").status == 200


# The v2 resources as provider 3.x reads them (framework_models.go Flatten).
DATABASE_V2 = dict(DATABASE, **{
    "hosts": {"primary": Nullable(str), "standby": Nullable(str)},
    "members": dict, "platform": str, "oldest_restore_time": Nullable(TIMESTAMP),
    "engine_config": dict, "fork": Nullable({"source": int, "restore_time": TIMESTAMP}),
    "private_network": Nullable({"vpc_id": int, "subnet_id": int, "public_access": bool}),
    "total_disk_size_gb": int, "used_disk_size_gb": Nullable(int),
    "updates": {"day_of_week": int, "duration": int, "frequency": str, "hour_of_day": int,
                "pending": [dict]}})


def tf_refresh(tf, base, db_id):
    """Model.Refresh: the database, then (not suspended) its SSL certificate
    and credentials, which answer only while it is active."""
    db = answer(tf.get(f"{base}/{db_id}"), DATABASE_V2)
    answer(tf.get(f"{base}/{db_id}/ssl"), {"ca_certificate": str})
    answer(tf.get(f"{base}/{db_id}/credentials"), {"username": str, "password": str})
    return db


def tf_pretask(tf, action, db_id):
    """NewEventPoller's preTask: the events it already knows."""
    return {e["id"] for e in answer(
        tf.get("/account/events?page=1", xfilter=poller_filter(action, db_id, "database")),
        page_of(EVENT))["data"]}


def tf_update(tf, clock, base, db_id, body, update, resize):
    """Update: the pollers (database_update when shouldUpdate, then
    database_resize when shouldResize) made before the PUT, the PUT of
    {MySQL,Postgres}UpdateOptions (keys in field order: label, allow_list,
    updates, type, cluster_size, version, engine_config, private_network),
    the waits in that order, then Refresh."""
    known = {a: tf_pretask(tf, a, db_id) for a, on in (("database_update", update),
                                                        ("database_resize", resize)) if on}
    order = ("label", "allow_list", "updates", "type", "cluster_size", "version",
             "engine_config", "private_network")
    assert set(body) <= set(order), body
    answer(tf.put(f"{base}/{db_id}", {k: body[k] for k in order if k in body}), DATABASE_V2)
    for action, seen in known.items():
        wait_for_event(tf, clock, action, db_id, seen)
    return tf_refresh(tf, base, db_id)


def tf_vpc(tf, backend):
    """A linode_vpc (and its subnet) of the account: registered here, as
    the module knows VPCs; the subnet's id is the provider's to give."""
    vpc = secrets.randbelow(2**40) + 1000
    backend.admin("entity", "add", "--account", str(tf.account.id), "--type", "vpc",
                  "--id", str(vpc), "--label", backend.unique("tf-vpc-"))
    return vpc, secrets.randbelow(2**30) + 1


@pytest.mark.parametrize("engine,engine_id", [("mysql", "mysql/8"), ("postgresql", "postgresql/13")])
def test_database_v2_version_size_and_network(tf, clock, backend, engine, engine_id):
    """linode_database_{mysql,postgresql}_v2 through the changes of the
    provider's acceptance tests (framework_resource_test.go: _vpc,
    _resize, _complex; an engine_id change): Create in a VPC (vpc_0.gotf)
    with engine_config as GetEngineConfig builds it; for PostgreSQL an
    engine_id of a later major, sent as version (its major) with the wait on
    database_update; cluster_size 1 -> 3 with allow_list and updates in one
    PUT, waiting on both events; a larger type (database_resize); another
    VPC with public access (vpc_1.gotf, database_update); for MySQL
    private_network removed, sent as null (DoublePointerNull) -- the
    PostgreSQL resource dereferences a nil model there and sends nothing;
    Delete.  Each Refresh right after the waits finds the database active,
    as the provider's checks require (status, host_standby with replicas)."""
    base = f"/databases/{engine}/instances"
    label = f"tf-{engine[:5]}-{secrets.token_hex(3)}"
    vpc, subnet = tf_vpc(tf, backend)
    config = {"mysql": {}} if engine == "mysql" else {"pg": {}, "pglookout": {}}
    db = answer(tf.post(base, {"label": label, "region": "us-east", "type": "g6-nanode-1",
                               "engine": engine_id, "cluster_size": 1,
                               "engine_config": config,
                               "private_network": {"vpc_id": vpc, "subnet_id": subnet,
                                                   "public_access": False}}), DATABASE_V2)
    wait_for_event(tf, clock, "database_create", db["id"])
    assert answer(tf.get(f"{base}/{db['id']}"), DATABASE_V2)["status"] == "active"
    state = tf_refresh(tf, base, db["id"])
    assert state["private_network"] == {"vpc_id": vpc, "subnet_id": subnet,
                                        "public_access": False}, state
    assert state["hosts"]["primary"].startswith(f"private-a{db['id']}-akamai-prod-"), state
    assert state["hosts"]["standby"] is None, state
    assert state["engine"] + "/" + state["version"].split(".")[0] == engine_id, state

    if engine == "postgresql":
        state = tf_update(tf, clock, base, db["id"], {"version": "16"}, True, False)
        assert (state["status"], state["version"]) == ("active", "16.4"), state

    state = tf_update(tf, clock, base, db["id"], {
        "allow_list": ["10.0.0.4/32"],
        "updates": {"day_of_week": 3, "duration": 4, "frequency": "weekly", "hour_of_day": 2},
        "cluster_size": 3}, True, True)
    assert (state["status"], state["cluster_size"], state["allow_list"]) == \
        ("active", 3, ["10.0.0.4/32"]), state
    assert state["hosts"]["standby"].startswith(f"private-replica-a{db['id']}-"), state
    assert len(state["members"]) == 3, state

    state = tf_update(tf, clock, base, db["id"], {"type": "g6-standard-1"}, False, True)
    assert (state["status"], state["type"]) == ("active", "g6-standard-1"), state

    vpc2, subnet2 = tf_vpc(tf, backend)
    net = {"vpc_id": vpc2, "subnet_id": subnet2, "public_access": True}
    state = tf_update(tf, clock, base, db["id"], {"private_network": net}, True, False)
    assert (state["status"], state["private_network"]) == ("active", net), state

    if engine == "mysql":
        state = tf_update(tf, clock, base, db["id"], {"private_network": None}, True, False)
        assert state["private_network"] is None, state
        assert state["hosts"]["primary"].startswith(f"a{db['id']}-akamai-prod-"), state
    assert tf.delete(f"{base}/{db['id']}").status == 200


# --------------------------------------------------------------------------
# linodego's own recorded requests (test/integration/fixtures)
# --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def lgo(tf):
    """linodego's integration tests run against /v4beta."""
    wire = Wire(tf.server, tf.token, version="v4beta", headers=HEADERS, encode=go_json)
    yield wire
    wire.close()


def test_linodego_profile_update(lgo):
    """TestProfile_Update: GetProfile, then UpdateProfile with
    Profile.GetUpdateOptions() -- every field back, two_factor_auth and
    restricted included, authorized_keys [] for none."""
    p = answer(lgo.get("/profile"), PROFILE)
    body = {"email": p["email"], "timezone": p["timezone"],
            "email_notifications": p["email_notifications"],
            "ip_whitelist_enabled": p["ip_whitelist_enabled"],
            "lish_auth_method": p["lish_auth_method"],
            "authorized_keys": p["authorized_keys"] or [],
            "two_factor_auth": p["two_factor_auth"], "restricted": p["restricted"]}
    if not body["timezone"]:
        del body["timezone"]                        # omitempty
    saved = answer(lgo.put("/profile", body), PROFILE)
    assert saved == answer(lgo.get("/profile"), PROFILE)
    assert (saved["email"], saved["lish_auth_method"]) == (p["email"], p["lish_auth_method"])


def test_linodego_tags(lgo, backend, tf):
    """TestTag_Create's POST /tags {"label", "linodes": [id]} and its
    ListTaggedObjects (GET /tags/{label}?page=1, an object of type linode);
    TestTag_ListTaggedObjects_Missing: 404 `Not found`."""
    n = secrets.randbelow(2**40) + 1000
    assert backend.admin("entity", "add", "--account", str(tf.account.id), "--type",
                         "instance", "--id", str(n), "--label", "go-ins-test-tag") == str(n)
    label = f"go-tag-test-{secrets.token_hex(3)}"
    assert answer(lgo.post("/tags", {"label": label, "linodes": [n]}), {"label": str}) == \
        {"label": label}
    tagged = answer(lgo.get(f"/tags/{label}?page=1"),
                    page_of({"type": str, "data": {"id": int, "label": str}}))["data"]
    assert [(o["type"], o["data"]["id"]) for o in tagged] == [("linode", n)], tagged
    assert lgo.delete(f"/tags/{label}").status == 200
    r = lgo.get("/tags/does-not-exist?page=1")
    assert r.status == 404 and r.json == {"errors": [{"reason": "Not found"}]}, r
