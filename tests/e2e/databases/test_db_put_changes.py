"""PUT /databases/{mysql,postgresql}/instances/{id} as today's public API
takes it, end to end on both backends: an in-place major version
upgrade (`version`), a change of node count (`cluster_size`) or node type
(`type`), `private_network` on create and update, the values a client PUTs
back unchanged, and host names as today's service gives them
(AcctapiDatabaseHostNames public).

Where the rules come from (the public clients' sources, mirrored):
- version: the Terraform provider sends the major of a changed engine_id
  ("16") and waits on database_update (linode/databasepostgresqlv2/
  framework_resource.go, Update); Cloud Manager's upgrade dialog offers
  every later version GET /databases/engines lists and warns there is no
  way back (DatabaseSettingsUpgradeVersionDialog.tsx, utilities.ts
  upgradableVersions).
- cluster_size and type: the provider sends them and waits on
  database_resize; Cloud Manager's resize page lets a cluster of today's
  platform go to any node count and to a smaller or larger type whose disk
  holds the data (DatabaseResize.tsx, DatabaseResize.utils.tsx); the status
  stays "updating" (linodego's statuses: no "resizing").
- private_network: {vpc_id, subnet_id, public_access}, public_access false
  by default; null takes the database out of its VPC (the provider's
  linodego.DoublePointerNull for linode_database_mysql_v2, Cloud Manager's
  "Unassign VPC").
- hosts: a<id>-akamai-prod-<n>-default.g2a.akamaidb.net and its
  replica-... standby (linodego's test/integration/fixtures), no standby
  for a single node (the provider's single-node data source test), private-
  in front with a VPC (Cloud Manager's mock of the service).

Time moves with the test clock: operations take the default 3 minutes.
"""

import re
import secrets

import pytest

import harness
from checks import assert_error
from dbaccounts import MY, PG, Account

OPERATED = "4m"     # past the default operation time


def fields_of(r):
    errs = assert_error(r, 400, None, None, only=False)
    return sorted((e.get("field", ""), e["reason"]) for e in errs)


def path_of(db):
    return PG if db["engine"] == "postgresql" else MY


def put(acct, db, body, client=None):
    return (client or acct.client).put(f"{path_of(db)}/{db['id']}", json=body)


def events(acct, db, action=None):
    """The database's events, oldest first: (action, status)."""
    got = [e for e in acct.client.all_pages("/account/events")
           if e["entity"] and e["entity"]["type"] == "database"
           and e["entity"]["id"] == db["id"]]
    return [(e["action"], e["status"]) for e in reversed(got)
            if action is None or e["action"] == action]


def new_events(acct, db, before):
    return events(acct, db)[len(before):]


def register_vpc(acct, account_id=None):
    n = secrets.randbelow(2**40) + 1000
    out = acct.backend.admin("entity", "add", "--account", str(account_id or acct.id),
                             "--type", "vpc", "--id", str(n),
                             "--label", acct.backend.unique("vpc-"))
    assert out == str(n)
    return n


# --------------------------------------------------------------------------
# version: an in-place major version upgrade
# --------------------------------------------------------------------------

def test_upgrade_runs_as_an_update(acct, clock):
    """PostgreSQL 13 to 16, as the provider sends it (the major of the new
    engine_id): the answer already runs the major's current release, the
    database is updating for the operation time with a database_update
    event that finishes with it."""
    db = acct.active(engine="postgresql/13", label="to-upgrade")
    assert acct.get(db)["version"] == "13.2"
    before = events(acct, db)
    r = put(acct, db, {"version": "16"})
    assert r.status == 200, r
    assert (r.json["status"], r.json["version"]) == ("updating", "16.4"), r
    assert new_events(acct, db, before) == [("database_update", "started")]
    clock("advance", OPERATED)
    now = acct.get(db)
    assert (now["status"], now["version"], now["engine"]) == ("active", "16.4", "postgresql")
    assert new_events(acct, db, before) == [("database_update", "finished")]
    # Several majors at once, as Cloud Manager offers every later one.
    r = put(acct, db, {"version": "17"})
    assert r.status == 200 and r.json["version"] == "17.4", r


def test_upgrade_by_a_full_version_id(acct, clock):
    """A full version the catalogue keeps (postgresql/14.15) names its major:
    the upgrade runs that major's current release."""
    db = acct.active(engine="postgresql/13.2", label="full-version")
    r = put(acct, db, {"version": "14.15"})
    assert r.status == 200 and r.json["version"] == "14.15", r


def test_the_version_it_runs_is_no_change(acct, clock):
    """The major it runs, or its own full version: accepted, nothing
    upgraded (an update all the same: every accepted PUT is one)."""
    db = acct.active(engine="postgresql/16", label="same-version")
    for body in ({"version": "16"}, {"version": "16.4"}):
        r = put(acct, db, body)
        assert r.status == 200 and r.json["version"] == "16.4", r
        clock("advance", OPERATED)
    my = acct.active(MY, engine="mysql/8.0.30", label="mysql-same")
    r = put(acct, my, {"version": "8"})
    assert r.status == 200 and r.json["version"] == "8.0.30", r


VERSION_REFUSALS = [
    (PG, "postgresql/16", {"version": "13"},
     [("version", "A database cannot be downgraded: it runs postgresql 16.4")]),
    (PG, "postgresql/16", {"version": "13.2"},
     [("version", "A database cannot be downgraded: it runs postgresql 16.4")]),
    (PG, "postgresql/16", {"version": "99"}, [("version", "Engine postgresql/99 not found")]),
    (PG, "postgresql/16", {"version": "8"}, [("version", "Engine postgresql/8 not found")]),
    (PG, "postgresql/16", {"version": "mysql/8"},
     [("version", "Engine postgresql/mysql/8 not found")]),
    (MY, "mysql/8", {"version": "9"}, [("version", "Engine mysql/9 not found")]),
    (MY, "mysql/8", {"version": "16"}, [("version", "Engine mysql/16 not found")]),
    (PG, "postgresql/16", {"version": 17}, [("version", "version must be a string")]),
    (PG, "postgresql/16", {"version": ""}, [("version", "Length must be 1-100 characters")]),
]


@pytest.mark.parametrize("path,engine,body,problems", VERSION_REFUSALS,
                         ids=[str(i) for i in range(len(VERSION_REFUSALS))])
def test_version_refusals(acct, path, engine, body, problems):
    db = acct.active(path, engine=engine, label="version-refused")
    before = acct.get(db, path)
    r = put(acct, db, body)
    assert fields_of(r) == problems, r
    assert acct.get(db, path) == before


# --------------------------------------------------------------------------
# cluster_size and type: resizes
# --------------------------------------------------------------------------

def test_cluster_grows_and_shrinks(acct, clock):
    """1 -> 3 -> 1 nodes: each a resize (database_resize, nothing else),
    updating for the operation time; the replication a cluster of that size
    has (asynch for PostgreSQL, none for a single node), one member per
    node, the disk unchanged."""
    db = acct.create(label="grows", type="g6-nanode-1")
    clock("advance", "31m")     # provisioned: hosts and members
    assert len(acct.get(db)["members"]) == 1
    before = events(acct, db)
    r = put(acct, db, {"cluster_size": 3})
    assert r.status == 200, r
    up = r.json
    assert (up["status"], up["cluster_size"], up["replication_type"]) == \
        ("updating", 3, "asynch"), up
    assert up["replication_commit_type"] == "local"
    assert up["total_disk_size_gb"] == 9
    assert new_events(acct, db, before) == [("database_resize", "started")]
    clock("advance", OPERATED)
    now = acct.get(db)
    assert now["status"] == "active" and len(now["members"]) == 3, now
    assert new_events(acct, db, before) == [("database_resize", "finished")]
    r = put(acct, db, {"cluster_size": 1})
    assert r.status == 200, r
    assert (r.json["cluster_size"], r.json["replication_type"]) == (1, "none"), r
    clock("advance", OPERATED)
    assert len(acct.get(db)["members"]) == 1


def test_mysql_cluster_and_two_dedicated_nodes(acct, clock):
    """MySQL's replicated default (semi_synch); two nodes only on a
    dedicated type, in one PUT with the type or after it."""
    db = acct.active(MY, label="my-grows")
    r = put(acct, db, {"cluster_size": 3})
    assert r.status == 200 and r.json["replication_type"] == "semi_synch", r
    clock("advance", OPERATED)
    assert fields_of(put(acct, db, {"cluster_size": 2})) == \
        [("cluster_size", "Type g6-nanode-1 is not offered in a cluster of 2 nodes")]
    r = put(acct, db, {"cluster_size": 2, "type": "g6-dedicated-2"})
    assert r.status == 200, r
    # 3 -> 2 keeps the cluster's replication.
    assert (r.json["cluster_size"], r.json["type"], r.json["replication_type"]) == \
        (2, "g6-dedicated-2", "semi_synch"), r
    clock("advance", OPERATED)
    assert fields_of(put(acct, db, {"type": "g6-standard-1"})) == \
        [("type", "Type g6-standard-1 is not offered in a cluster of 2 nodes")]


def test_type_resize_smaller_or_larger(acct, clock, backend):
    """Today's platform resizes to a smaller type as well as a larger one,
    as long as the data stored fits on its disk; the new disk shows at once;
    the event is database_resize."""
    db = acct.active(label="resized")          # g6-standard-2, 58 GB
    before = events(acct, db)
    r = put(acct, db, {"type": "g6-nanode-1"})
    assert r.status == 200, r
    assert (r.json["type"], r.json["total_disk_size_gb"]) == ("g6-nanode-1", 9), r
    assert new_events(acct, db, before) == [("database_resize", "started")]
    clock("advance", OPERATED)
    r = put(acct, db, {"type": "g6-dedicated-4"})
    assert r.status == 200 and r.json["total_disk_size_gb"] == 130, r
    clock("advance", OPERATED)
    # Data that would not fit (the emulation stores none: set as an operator
    # would see it).
    backend.execute(f"UPDATE databases SET used_disk_size_gb = 60 WHERE id = {db['id']}")
    assert fields_of(put(acct, db, {"type": "g6-standard-2"})) == \
        [("type", "The data stored (60 GB) does not fit on type g6-standard-2")]
    r = put(acct, db, {"type": "g6-standard-4"})
    assert r.status == 200 and r.json["type"] == "g6-standard-4", r


RESIZE_REFUSALS = [
    ({"cluster_size": 0}, [("cluster_size", "Must be 1, 2 or 3")]),
    ({"cluster_size": 4}, [("cluster_size", "Must be 1, 2 or 3")]),
    ({"cluster_size": "3"}, [("cluster_size", "Must be 1, 2 or 3")]),
    ({"cluster_size": 2.5}, [("cluster_size", "Must be 1, 2 or 3")]),
    ({"cluster_size": 2}, [("cluster_size",
                            "Type g6-nanode-1 is not offered in a cluster of 2 nodes")]),
    ({"type": "g6-imaginary"}, [("type", "Type not found")]),
    ({"type": "g6-standard-1", "cluster_size": 2},
     [("type", "Type g6-standard-1 is not offered in a cluster of 2 nodes")]),
    ({"type": 5, "cluster_size": 7},
     [("cluster_size", "Must be 1, 2 or 3"), ("type", "type must be a string")]),
]


@pytest.mark.parametrize("body,problems", RESIZE_REFUSALS,
                         ids=[str(i) for i in range(len(RESIZE_REFUSALS))])
def test_resize_refusals(acct, body, problems):
    db = acct.active(label="resize-refused", type="g6-nanode-1")
    before = acct.get(db)
    assert fields_of(put(acct, db, body)) == problems
    assert acct.get(db) == before


def test_a_contract_compute_type_takes_any_node_count(acct, clock):
    """A database whose type is a compute type (the contract's node types,
    GET /linode/types) is not bound by /databases/types' cluster sizes."""
    db = acct.active(label="compute-type", type="g7-highmem-1")
    r = put(acct, db, {"cluster_size": 2})
    assert r.status == 200 and r.json["cluster_size"] == 2, r


def test_unchanged_values_change_nothing(acct, clock):
    """What a client PUTs back as it read it (linode_api4's save(): type,
    cluster_size, private_network null; the engine's own version) is
    accepted and changes nothing: an update, not a resize."""
    db = acct.active(label="as-read", type="g6-nanode-1", cluster_size=3)
    shown = acct.get(db)
    before = events(acct, db)
    r = put(acct, db, {"label": "as-read", "allow_list": [], "cluster_size": 3,
                       "type": "g6-nanode-1", "updates": shown["updates"],
                       "engine_config": shown["engine_config"], "private_network": None,
                       "version": "16"})
    assert r.status == 200, r
    assert new_events(acct, db, before) == [("database_update", "started")]
    clock("advance", OPERATED)
    after = acct.get(db)
    for key in ("type", "cluster_size", "version", "private_network", "replication_type",
                "total_disk_size_gb", "engine_config"):
        assert after[key] == shown[key], key


def test_update_and_resize_in_one_put(acct, clock):
    """The provider's complex test: allow_list, updates and cluster_size in
    one PUT; it waits on both events, which finish with the operation."""
    db = acct.active(label="both", type="g6-nanode-1")
    before = events(acct, db)
    r = put(acct, db, {"allow_list": ["10.0.0.4/32"],
                       "updates": {"day_of_week": 3, "duration": 4, "frequency": "weekly",
                                   "hour_of_day": 2},
                       "cluster_size": 3})
    assert r.status == 200, r
    assert sorted(new_events(acct, db, before)) == [("database_resize", "started"),
                                                    ("database_update", "started")]
    clock("advance", OPERATED)
    assert sorted(new_events(acct, db, before)) == [("database_resize", "finished"),
                                                    ("database_update", "finished")]
    now = acct.get(db)
    assert (now["status"], now["cluster_size"], now["allow_list"]) == \
        ("active", 3, ["10.0.0.4/32"])


# --------------------------------------------------------------------------
# private_network
# --------------------------------------------------------------------------

def test_private_network_set_changed_and_cleared(acct, clock, backend):
    vpc, vpc2 = register_vpc(acct), register_vpc(acct)
    db = acct.active(label="in-a-vpc")
    assert acct.get(db)["private_network"] is None
    before = events(acct, db)
    r = put(acct, db, {"private_network": {"vpc_id": vpc, "subnet_id": 77}})
    assert r.status == 200, r
    assert list(r.json["private_network"].items()) == \
        [("vpc_id", vpc), ("subnet_id", 77), ("public_access", False)], r
    assert new_events(acct, db, before) == [("database_update", "started")]
    clock("advance", OPERATED)
    r = put(acct, db, {"private_network": {"public_access": True, "subnet_id": 78,
                                           "vpc_id": vpc2, "label": "ignored"}})
    assert r.status == 200, r
    assert r.json["private_network"] == {"vpc_id": vpc2, "subnet_id": 78,
                                         "public_access": True}, r
    clock("advance", OPERATED)
    # Put back as read, even once the VPC is gone from the registry.
    backend.admin("entity", "remove", "--type", "vpc", "--id", str(vpc2))
    r = put(acct, db, {"label": "renamed-in-vpc",
                       "private_network": acct.get(db)["private_network"]})
    assert r.status == 200 and r.json["private_network"]["vpc_id"] == vpc2, r
    clock("advance", OPERATED)
    # Absent: unchanged.
    r = put(acct, db, {"label": "still-in-vpc"})
    assert r.status == 200 and r.json["private_network"]["vpc_id"] == vpc2, r
    clock("advance", OPERATED)
    # null: out of the VPC (the one null of a PUT that is not "unchanged").
    before = events(acct, db)
    r = put(acct, db, {"private_network": None})
    assert r.status == 200 and r.json["private_network"] is None, r
    assert new_events(acct, db, before) == [("database_update", "started")]
    clock("advance", OPERATED)
    assert acct.get(db)["private_network"] is None
    # null again: nothing to clear, still accepted.
    r = put(acct, db, {"private_network": None})
    assert r.status == 200 and r.json["private_network"] is None, r


def test_private_network_on_create(acct):
    vpc = register_vpc(acct)
    db = acct.create(label="born-in-vpc",
                     private_network={"vpc_id": vpc, "subnet_id": 5, "public_access": True})
    assert db["private_network"] == {"vpc_id": vpc, "subnet_id": 5, "public_access": True}
    assert acct.get(db)["private_network"] == db["private_network"]
    db = acct.create(MY, label="no-vpc", private_network=None)
    assert db["private_network"] is None


def network_refusals(acct, acct2):
    other = register_vpc(acct2)
    return [
        ({"vpc_id": 424242424242, "subnet_id": 1},
         [("private_network.vpc_id", "VPC 424242424242 not found")]),
        ({"vpc_id": other, "subnet_id": 1},
         [("private_network.vpc_id", f"VPC {other} not found")]),
        ({"subnet_id": 1}, [("private_network.vpc_id", "VPC is required.")]),
        ({"vpc_id": None, "subnet_id": None},
         [("private_network.subnet_id", "Subnet is required."),
          ("private_network.vpc_id", "VPC is required.")]),
        ({"vpc_id": 0, "subnet_id": "7"},
         [("private_network.subnet_id", "Must be a positive integer"),
          ("private_network.vpc_id", "Must be a positive integer")]),
        ({"vpc_id": other, "subnet_id": 1, "public_access": "yes"},
         [("private_network.public_access", "Must be a boolean")]),
        ("vpc-1", [("private_network",
                    "Must be an object of vpc_id, subnet_id and public_access")]),
        ([], [("private_network",
               "Must be an object of vpc_id, subnet_id and public_access")]),
    ]


def test_private_network_refusals(acct, backend, server):
    acct2 = Account(backend, server)
    try:
        db = acct.active(label="net-refused")
        before = acct.get(db)
        for net, problems in network_refusals(acct, acct2):
            assert fields_of(put(acct, db, {"private_network": net})) == problems, net
            r = acct.client.post(PG, json={"label": "never-made", "region": "us-east",
                                           "type": "g6-nanode-1", "engine": "postgresql/16",
                                           "private_network": net})
            assert fields_of(r) == problems, net
        assert acct.get(db) == before
        assert [d["label"] for d in acct.client.all_pages(PG)] == ["net-refused"]
    finally:
        acct2.close()


def test_restricted_users_need_a_grant_on_the_vpc(acct, backend):
    vpc = register_vpc(acct)
    db = acct.active(label="restricted-vpc")
    uid, limited = acct.user(restricted=True)
    backend.admin("grant", "entity", "--user", str(uid), "--type", "database",
                  "--id", str(db["id"]), "--permissions", "read_write")
    body = {"private_network": {"vpc_id": vpc, "subnet_id": 9}}
    assert_error(put(acct, db, body, limited), 403, "Unauthorized")
    assert acct.get(db)["private_network"] is None
    backend.admin("grant", "global", "--user", str(uid), "add_databases=true")
    r = limited.post(PG, json={"label": "restricted-new", "region": "us-east",
                               "type": "g6-nanode-1", "engine": "postgresql/16",
                               "private_network": body["private_network"]})
    assert_error(r, 403, "Unauthorized")
    backend.admin("grant", "entity", "--user", str(uid), "--type", "vpc",
                  "--id", str(vpc), "--permissions", "read_only")
    r = put(acct, db, body, limited)
    assert r.status == 200 and r.json["private_network"]["vpc_id"] == vpc, r
    # Another restricted user who may change the database but not see the
    # VPC still PUTs it back as read.
    uid2, other = acct.user(restricted=True)
    backend.admin("grant", "entity", "--user", str(uid2), "--type", "database",
                  "--id", str(db["id"]), "--permissions", "read_write")
    acct.set_status(db, "active")
    r = put(acct, db, {"label": "put-back", "private_network": r.json["private_network"]},
            other)
    assert r.status == 200 and r.json["private_network"]["vpc_id"] == vpc, r


# --------------------------------------------------------------------------
# Host names (AcctapiDatabaseHostNames)
# --------------------------------------------------------------------------

PUBLIC_HOSTS = """<LocationMatch "^/v4(beta)?(/|$)">
    AcctapiDatabaseHostSuffix g2a.akamaidb.net
    AcctapiDatabaseHostNames public
</LocationMatch>
"""


def test_public_host_names(backend, make_server, clock):
    """Today's service's names (linodego's recorded traffic:
    a227300-akamai-prod-5782758-default.g2a.akamaidb.net and its replica-
    standby), from the create's answer on, as its recorded creates show them
    while provisioning: no standby for a single node, one once the cluster
    has replicas, private- in front while the database is in a VPC; names an
    operator set are answered as set."""
    srv = make_server(name="httpd-public-hosts", extra=PUBLIC_HOSTS)
    acct = Account(backend, srv)
    try:
        db = acct.create(label="named", type="g6-nanode-1")
        base = f"a{db['id']}-akamai-prod-{acct.id}-default.g2a.akamaidb.net"
        assert db["status"] == "provisioning", db
        assert db["hosts"] == {"primary": base, "secondary": None, "standby": None}
        trio = acct.create(label="named-trio", cluster_size=3)
        trio_base = f"a{trio['id']}-akamai-prod-{acct.id}-default.g2a.akamaidb.net"
        assert trio["hosts"] == {"primary": trio_base, "secondary": "replica-" + trio_base,
                                 "standby": "replica-" + trio_base}, trio
        clock("advance", "31m")
        assert acct.get(db)["hosts"] == {"primary": base, "secondary": None, "standby": None}
        r = put(acct, db, {"cluster_size": 3})
        assert r.status == 200, r
        assert r.json["hosts"] == {"primary": base, "secondary": "replica-" + base,
                                   "standby": "replica-" + base}, r
        clock("advance", OPERATED)
        vpc = register_vpc(acct)
        r = put(acct, db, {"private_network": {"vpc_id": vpc, "subnet_id": 3}})
        assert r.json["hosts"] == {"primary": "private-" + base,
                                   "secondary": "private-replica-" + base,
                                   "standby": "private-replica-" + base}, r
        listed = [d for d in acct.client.all_pages("/databases/instances")
                  if d["id"] == db["id"]]
        assert listed[0]["hosts"]["primary"] == "private-" + base, listed
        clock("advance", OPERATED)
        r = put(acct, db, {"private_network": None})
        assert r.json["hosts"]["primary"] == base, r
        clock("advance", OPERATED)
        my = acct.create(MY, label="named-mysql")
        clock("advance", "31m")
        assert acct.get(my, MY)["hosts"]["primary"] == \
            f"a{my['id']}-akamai-prod-{acct.id}-default.g2a.akamaidb.net"
        acct.set_status(db, "active", "--primary", "pg1.orchestrator.example")
        assert acct.get(db)["hosts"]["primary"] == "pg1.orchestrator.example"
    finally:
        acct.close()


def test_contract_host_names_by_default(acct, clock):
    """Unset, the contract's names: a secondary (private host) for a single
    node too, none of a VPC's prefix."""
    vpc = register_vpc(acct)
    db = acct.create(label="contract-named")
    clock("advance", "31m")
    host = f"lin-{acct.id}-{db['id']}-postgresql-primary"
    r = put(acct, db, {"private_network": {"vpc_id": vpc, "subnet_id": 3}})
    assert r.status == 200, r
    assert re.fullmatch(host + r"\.db\.example\.com", r.json["hosts"]["primary"]), r
    assert r.json["hosts"]["standby"] == r.json["hosts"]["secondary"] == \
        f"{host}-private.db.example.com", r


def test_host_names_directive_refuses_other_words(backend, make_server):
    with pytest.raises(Exception) as failed:
        make_server(name="httpd-bad-hosts", extra="AcctapiDatabaseHostNames akamai\n")
    assert "AcctapiDatabaseHostNames: contract (the default) or public" in str(failed.value)


# --------------------------------------------------------------------------
# Concurrency: one operation at a time
# --------------------------------------------------------------------------

@pytest.mark.parametrize("body", [{"cluster_size": 3}, {"version": "17"},
                                  {"type": "g6-standard-4"}], ids=["nodes", "version", "type"])
def test_concurrent_puts_start_one_operation(acct, server, body):
    """Of PUTs racing on one active database, exactly one starts its
    operation (acct_db_begin's compare-and-set); the others find it
    updating."""
    db = acct.active(label="raced")
    path = f"{PG}/{db['id']}"
    results = harness.race(server, acct.client.token, [("PUT", path, body)] * 8)
    ok = [b for status, b in results if status == 200]
    refused = [b for status, b in results if status == 400]
    assert len(ok) == 1 and len(refused) == 7, results
    assert all(b["errors"][0]["reason"].startswith("Your database is updating;")
               for b in refused), refused
    assert len(events(acct, db, "database_resize" if "version" not in body
                      else "database_update")) == 1
