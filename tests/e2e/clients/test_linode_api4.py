"""The Python SDK linode_api4: the requests its integration tests
make through the in-scope modules (domains, tags, profile, SSH keys, tokens,
account users and events, databases, regions, types, images, errors), sent
as linode_api4's LinodeClient sends them, and the answers read as its
models read them.

What the client does, from its source (linode_api4/linode_client.py,
objects/*.py, groups/*.py) and its test/integration suite:

- every request goes to `<base_url><path>` with the base URL its tests use,
  `.../v4beta`; headers Authorization, `Content-Type: application/json`
  (GET and DELETE too), `User-Agent: python-linode_api4/<v> python-requests/<v>`;
  a body is `json.dumps(data)`; an X-Filter header only when filtered;
- `Base.save()` on an object it has loaded PUTs every mutable property the
  GET showed, in the model's order, leaving out those that are None or ""
  unless the property is nullable (then None goes as null): the GET-then-PUT
  pattern, read-only and unchanged values included;
- `tags.create()` sends `linodes`, `nodebalancers`, `domains`, `volumes`,
  each null when empty;
- a model's datetime properties parse `%Y-%m-%dT%H:%M:%S`.
"""

import json
import secrets
import time

import pytest

import harness
from harness import Account
from replay import (ANY, NUMBER, TIMESTAMP, Nullable, Wire, answer, page_of,
                    rsa_public_key)

USER_AGENT = "python-linode_api4/5.44.0 python-requests/2.28.1"

# The models' properties that the client and its tests read.
DOMAIN = {"id": int, "domain": str, "group": str, "description": str, "status": str,
          "soa_email": str, "retry_sec": int, "master_ips": [str], "axfr_ips": [str],
          "expire_sec": int, "refresh_sec": int, "ttl_sec": int, "type": str, "tags": [str]}
RECORD = {"id": int, "type": str, "name": str, "target": str, "priority": int,
          "weight": int, "port": int, "service": Nullable(str), "protocol": Nullable(str),
          "ttl_sec": int, "tag": Nullable(str), "created": TIMESTAMP, "updated": TIMESTAMP}
PROFILE = {"username": str, "uid": int, "email": str, "timezone": str,
           "email_notifications": bool, "referrals": dict, "ip_whitelist_enabled": bool,
           "lish_auth_method": str, "authorized_keys": Nullable([str]),
           "two_factor_auth": bool, "restricted": bool, "authentication_type": str,
           "verified_phone_number": Nullable(str)}
TOKEN = {"id": int, "scopes": str, "label": str, "created": TIMESTAMP, "expiry": Nullable(TIMESTAMP)}
SSH_KEY = {"id": int, "label": str, "ssh_key": str, "created": TIMESTAMP}
TAGGED = {"type": str, "data": {"id": int}}
USER = {"username": str, "email": str, "restricted": bool, "ssh_keys": [str],
        "tfa_enabled": bool}
EVENT = {"id": int, "action": str, "created": TIMESTAMP, "status": str,
         "username": Nullable(str), "entity": Nullable({"id": ANY, "label": Nullable(str), "type": str})}
ENGINE = {"id": str, "engine": str, "version": str}
DATABASE = {"id": int, "label": str, "allow_list": [str], "cluster_size": int,
            "created": TIMESTAMP, "encrypted": bool, "engine": str,
            "hosts": {"primary": Nullable(str)}, "port": int, "region": str,
            "ssl_connection": bool, "status": str, "type": str, "updated": TIMESTAMP,
            "updates": {"day_of_week": int, "duration": int, "frequency": str,
                        "hour_of_day": int},
            "version": str}
REGION = {"id": str, "label": str, "country": str, "capabilities": [str], "status": str,
          "resolvers": {"ipv4": str, "ipv6": str}, "site_type": str,
          "placement_group_limits": {"maximum_pgs_per_customer": Nullable(int),
                                     "maximum_linodes_per_pg": int},
          "monitors": {"alerts": [str], "metrics": [str]}}
LINODE_TYPE = {"id": str, "label": str, "disk": int, "memory": int, "vcpus": int,
               "class": str, "price": {"hourly": NUMBER, "monthly": NUMBER},
               "region_prices": [{"hourly": NUMBER, "monthly": NUMBER}]}
DATABASE_TYPE = {"id": str, "label": str, "disk": int, "memory": int, "vcpus": int,
                 "class": str}
# RegionVPCAvailability: what its tests read of each entry.
VPC_AVAILABILITY = {"region": str, "available": bool, "available_ipv6_prefix_lengths": [int]}

# Base.save(): the mutable properties of each model, in its order, and
# whether a property is nullable (None goes as null instead of being left out).
DOMAIN_MUTABLE = [("domain", False), ("group", False), ("description", False),
                  ("status", False), ("soa_email", False), ("retry_sec", False),
                  ("master_ips", False), ("axfr_ips", False), ("expire_sec", False),
                  ("refresh_sec", False), ("ttl_sec", False), ("type", False), ("tags", False)]
# Profile lists authorized_keys twice; the second, read-only entry wins.
PROFILE_MUTABLE = [("email", False), ("timezone", False), ("email_notifications", False),
                   ("ip_whitelist_enabled", False), ("lish_auth_method", False)]
DATABASE_MUTABLE = [("label", False), ("allow_list", False), ("cluster_size", False),
                    ("type", False), ("updates", False), ("engine_config", False),
                    ("private_network", True)]


def save_body(loaded, mutable):
    """The body Base.save() builds from an object loaded with `loaded` (the
    GET's answer, changed as the caller changed the object)."""
    body = {}
    for key, nullable in mutable:
        value = loaded.get(key)
        if not nullable and (value is None or value == ""):
            continue
        body[key] = value
    return body


def label(n=8):
    """get_test_label(): random lowercase letters."""
    return "".join(secrets.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n))


@pytest.fixture(scope="module")
def sdk(backend, public_server):
    """An account of its own and linode_api4's wire to the module."""
    acct = Account(backend, public_server, stem="e2e-py-")
    wire = Wire(public_server, acct.client.token, version="v4beta",
                headers={"Content-Type": "application/json", "User-Agent": USER_AGENT})
    wire.account = acct
    yield wire
    wire.close()
    acct.close()


@pytest.fixture(scope="module")
def test_domain(sdk):
    """conftest.py's session fixture: domain_create() with a tag, then the
    SRV record of its record_create() (service `service_test`, no protocol,
    target `rc_test`), which the module refused before it followed today's clients."""
    name = f"{time.time_ns()}-example.com"
    dom = answer(sdk.post("/domains", {"domain": name, "type": "master",
                                       "soa_email": "pathiel-test123@linode.com",
                                       "tags": ["test-tag"]}), DOMAIN)
    assert dom["domain"] == name and dom["tags"] == ["test-tag"], dom
    rec = answer(sdk.post(f"/domains/{dom['id']}/records",
                          {"type": "SRV", "target": "rc_test", "priority": 10, "weight": 5,
                           "port": 80, "service": "service_test"}), RECORD)
    assert (rec["type"], rec["service"], rec["protocol"]) == ("SRV", "service_test", "tcp"), rec
    assert (rec["priority"], rec["weight"], rec["port"]) == (10, 5, 80), rec
    yield dom
    r = sdk.delete(f"/domains/{dom['id']}")
    assert r.status == 200 and r.json == {}, r


def test_domain_fixture_srv_record_and_first_record(sdk, test_domain):
    """test_get_domain_record: domain.records.first() lists the records."""
    records = answer(sdk.get(f"/domains/{test_domain['id']}/records"), page_of(RECORD))
    assert [r["type"] for r in records["data"]] == ["SRV"], records
    first = records["data"][0]
    assert first["id"] > 0 and first["service"] == "service_test", first


def test_zone_file_view(sdk, test_domain):
    """test_zone_file_view: the domain's name and nsN.linode.com in the zone."""
    doc = answer(sdk.get(f"/domains/{test_domain['id']}/zone-file"), {"zone_file": [str]})
    text = str(doc["zone_file"])
    assert test_domain["domain"] in text, doc
    assert "ns1.linode.com" in text and "_service_test._tcp" in text, doc


def test_save_sends_the_loaded_domain_back(sdk, test_domain):
    """test_save_null_values_excluded: load(Domain), type = master,
    master_ips = [...], save(): a PUT of every mutable property the GET
    showed (status, type, tags, the unchanged timers...)."""
    loaded = answer(sdk.get(f"/domains/{test_domain['id']}"), DOMAIN)
    loaded.update(type="master", master_ips=["127.0.0.1"])
    body = save_body(loaded, DOMAIN_MUTABLE)
    assert {"status", "type", "tags", "master_ips", "axfr_ips", "retry_sec"} <= set(body), body
    saved = answer(sdk.put(f"/domains/{test_domain['id']}", body), DOMAIN)
    assert saved["master_ips"] == ["127.0.0.1"] and saved["tags"] == ["test-tag"], saved
    assert saved["soa_email"] == test_domain["soa_email"], saved


def test_clone(sdk, test_domain):
    """test_clone: POST .../clone, then the clone is in domains()."""
    name = f"example.clone-{time.time_ns()}-inttestsdk.org"
    clone = answer(sdk.post(f"/domains/{test_domain['id']}/clone", {"domain": name}), DOMAIN)
    listed = answer(sdk.get("/domains"), page_of(DOMAIN))
    assert name in [d["domain"] for d in listed["data"]], listed
    records = answer(sdk.get(f"/domains/{clone['id']}/records"), page_of(RECORD))
    assert [r["service"] for r in records["data"]] == ["service_test"], records
    assert sdk.delete(f"/domains/{clone['id']}").status == 200


def tag_create(sdk, tag, linodes=None, nodebalancers=None, domains=None, volumes=None):
    """TagGroup.create(): every id list, null when empty."""
    return sdk.post("/tags", {"label": tag, "linodes": linodes or None,
                              "nodebalancers": nodebalancers or None,
                              "domains": domains or None, "volumes": volumes or None})


def test_tag_create_sends_null_lists(sdk):
    """test_tag.py's fixture: tag_create(label) sends every list as null;
    load(Tag, label) GETs the tag's objects; delete()."""
    tag = label() + "_tag"
    assert answer(tag_create(sdk, tag), {"label": str}) == {"label": tag}
    assert answer(sdk.get(f"/tags/{tag}"), page_of(TAGGED))["data"] == []
    assert tag in [t["label"] for t in answer(sdk.get("/tags"), page_of({"label": str}))["data"]]
    r = sdk.delete(f"/tags/{tag}")
    assert r.status == 200 and r.json == {}, r


def register(sdk, backend, kind, label):
    """An object the operator registered (the module serves instances, node
    balancers and volumes read-only)."""
    n = secrets.randbelow(2**40) + 1000
    assert backend.admin("entity", "add", "--account", str(sdk.account.id), "--type", kind,
                         "--id", str(n), "--label", label) == str(n)
    return n


@pytest.fixture(scope="module")
def entities(sdk, backend):
    return {"linode": register(sdk, backend, "instance", "py-sdk-linode"),
            "nodebalancer": register(sdk, backend, "nodebalancer", "py-sdk-nb"),
            "volume": register(sdk, backend, "volume", "py-sdk-volume")}


def test_tag_create_with_ids(sdk, entities, test_domain):
    """test_linode_client.py::test_create_tag_with_id: tag_create(label,
    instances=[id, obj], nodebalancers=..., domains=..., volumes=...) --
    every id twice, under the public name `linodes` --; the tagged objects
    come back as the types its TaggedObjectProxy maps; tags() lists it."""
    tag = label()
    lin, nb, vol, dom = (entities["linode"], entities["nodebalancer"], entities["volume"],
                         test_domain["id"])
    answer(tag_create(sdk, tag, linodes=[lin, lin], nodebalancers=[nb, nb],
                      domains=[dom, dom], volumes=[vol, vol]), {"label": str})
    objects = answer(sdk.get(f"/tags/{tag}"), page_of(TAGGED))["data"]
    assert sorted((o["type"], o["data"]["id"]) for o in objects) == sorted(
        [("linode", lin), ("nodebalancer", nb), ("domain", dom), ("volume", vol)]), objects
    assert tag in [t["label"] for t in answer(sdk.get("/tags"), page_of({"label": str}))["data"]]
    assert sdk.delete(f"/tags/{tag}").status == 200


def test_tag_create_with_entities(sdk, entities, test_domain):
    """test_create_tag_with_entities: tag_create(label, entities=[linode,
    domain, nodebalancer, volume]), sorted by the client into its lists."""
    tag = label()
    answer(tag_create(sdk, tag, linodes=[entities["linode"]],
                      nodebalancers=[entities["nodebalancer"]], domains=[test_domain["id"]],
                      volumes=[entities["volume"]]), {"label": str})
    assert len(answer(sdk.get(f"/tags/{tag}"), page_of(TAGGED))["data"]) == 4
    assert sdk.delete(f"/tags/{tag}").status == 200


def test_model_filters(sdk, test_domain):
    """filters/model_filters_test.py: domains(Domain.domain == name),
    database.types(DatabaseType.disk == the first type's disk),
    database.engines(DatabaseEngine.engine == "mysql") (fewer than all),
    linode.types(Type.label.contains("Linode")); and test_database.py's
    test_get_types: the first of database.types() is g6-nanode-1, its
    type_class (the answer's `class`) containing "nanode"."""
    db_types = answer(sdk.get("/databases/types"), page_of(DATABASE_TYPE))["data"]
    assert "g6-nanode-1" in db_types[0]["id"], db_types[0]
    assert "nanode" in db_types[0]["class"], db_types[0]
    disk = db_types[0]["disk"]
    same_disk = answer(sdk.get("/databases/types", xfilter=json.dumps({"disk": disk})),
                       page_of(DATABASE_TYPE))["data"]
    assert same_disk and {t["disk"] for t in same_disk} == {disk}, same_disk
    assert len(same_disk) < len(db_types), same_disk
    got = answer(sdk.get("/domains", xfilter=json.dumps({"domain": test_domain["domain"]})),
                 page_of(DOMAIN))
    assert [d["id"] for d in got["data"]] == [test_domain["id"]], got
    every = answer(sdk.get("/databases/engines"), page_of(ENGINE))["results"]
    mysql = answer(sdk.get("/databases/engines", xfilter=json.dumps({"engine": "mysql"})),
                   page_of(ENGINE))
    assert 0 < mysql["results"] < every and \
        {e["engine"] for e in mysql["data"]} == {"mysql"}, mysql
    types = answer(sdk.get("/linode/types",
                           xfilter=json.dumps({"label": {"+contains": "Linode"}})),
                   page_of(LINODE_TYPE))["data"]
    assert types and "Linode" in types[0]["label"], types


def test_image_model_filter(sdk, backend):
    """filters/model_filters_test.py::test_image_model_filter:
    images(Image.label.contains("Debian")) is shorter than images().  The
    module lists only the images the operator registered: one whose label
    has "Debian" and one whose label has not."""
    register(sdk, backend, "image", "Debian 12 py-sdk")
    register(sdk, backend, "image", "py-sdk-alpine")
    debian = answer(sdk.get("/images", xfilter=json.dumps({"label": {"+contains": "Debian"}})),
                    page_of({"id": str, "label": str}))
    every = answer(sdk.get("/images"), page_of({"id": str, "label": str}))
    assert every["results"] > debian["results"] > 0, (every, debian)
    assert all("Debian" in i["label"] for i in debian["data"]), debian


def test_domain_without_soa_email(sdk):
    """test_fails_to_create_domain_without_soa_email: a 400."""
    r = sdk.post("/domains", {"domain": f"{time.time_ns()}example.com", "type": "master"})
    assert r.status == 400, r


def test_profile_load_and_save(sdk):
    """test_user_profile, then Profile.save(): the mutable properties the GET
    showed, ip_whitelist_enabled false and lish_auth_method included."""
    profile = answer(sdk.get("/profile"), PROFILE)
    profile["lish_auth_method"] = "keys_only"
    body = save_body(profile, PROFILE_MUTABLE)
    assert list(body)[:1] == ["email"] and body["ip_whitelist_enabled"] is False, body
    saved = answer(sdk.put("/profile", body), PROFILE)
    assert saved["lish_auth_method"] == "keys_only", saved
    assert saved["email"] == profile["email"], saved


def test_tokens(sdk):
    """test_get_personal_access_token_objects, token_create(label, expiry,
    scopes) and PersonalAccessToken.save() of a new label."""
    expiry = harness.utc_ts(86400)
    tok = answer(sdk.post("/profile/tokens", {"label": "py-sdk-token", "expiry": expiry,
                                              "scopes": "domains:read_only"}),
                 dict(TOKEN, token=str))
    assert tok["expiry"] == expiry and tok["scopes"] == "domains:read_only", tok
    listed = answer(sdk.get("/profile/tokens"), page_of(TOKEN))
    assert tok["id"] in [t["id"] for t in listed["data"]], listed
    loaded = answer(sdk.get(f"/profile/tokens/{tok['id']}"), TOKEN)
    renamed = answer(sdk.put(f"/profile/tokens/{tok['id']}",
                             {"label": loaded["label"] + "-renamed"}), TOKEN)
    assert renamed["label"] == "py-sdk-token-renamed", renamed
    assert sdk.delete(f"/profile/tokens/{tok['id']}").status == 200


def test_ssh_keys(sdk):
    """test_sshkey fixture (ssh_key_upload(pub_key, label)), test_get_sshkeys,
    test_ssh_key_create (the key comes back exactly as sent)."""
    pub = rsa_public_key("root@py-sdk")
    key_label = label() + "_key"
    key = answer(sdk.post("/profile/sshkeys", {"ssh_key": pub, "label": key_label}), SSH_KEY)
    assert key["ssh_key"] == pub and key["label"] == key_label, key
    keys = answer(sdk.get("/profile/sshkeys"), page_of(SSH_KEY))
    assert key_label in [k["label"] for k in keys["data"]], keys
    renamed = answer(sdk.put(f"/profile/sshkeys/{key['id']}", {"label": key_label + "2"}),
                     SSH_KEY)
    assert renamed["label"] == key_label + "2", renamed
    assert sdk.delete(f"/profile/sshkeys/{key['id']}").status == 200


def test_get_user_from_the_latest_event(sdk, test_domain):
    """test_get_user: load(Event, "") GETs /account/events/ (the list, its
    trailing slash from the empty id), takes the first event's username,
    and load(User, username) must show an email."""
    events = answer(sdk.get("/account/events/"), page_of(EVENT))
    assert events["data"], events
    username = events["data"][0]["username"]
    user = answer(sdk.get(f"/account/users/{username}"), USER)
    assert user["username"] == username and "email" in user, user


def test_error_404_text(sdk):
    """test_errors.py::test_error_404: `[404] Not found`."""
    r = sdk.get("/invalid/endpoint")
    assert r.status == 404 and r.json == {"errors": [{"reason": "Not found"}]}, r


def test_regions_types_images(sdk):
    """regions(), linode.types(), images(): the lists its tests and helpers
    (get_region) walk."""
    regions = answer(sdk.get("/regions"), page_of(REGION))
    assert "us-ord" in [r["id"] for r in regions["data"]], regions
    # test_get_linode_types: g6-nanode-1 among the ids.
    types = answer(sdk.get("/linode/types"), page_of(LINODE_TYPE))
    assert "g6-nanode-1" in [t["id"] for t in types["data"]], types
    answer(sdk.get("/images"), page_of({"id": str}))
    # test_get_regions: Region(client, "us-east").site_type loads the region.
    assert answer(sdk.get("/regions/us-east"), REGION)["site_type"] in ("core", "edge")


def test_get_linode_types_overrides(sdk):
    """test_linode.py::test_get_linode_types_overrides: linode.types() has
    types whose region_prices[0].hourly is above 0, each with hourly and
    monthly at least 0."""
    types = answer(sdk.get("/linode/types"), page_of(LINODE_TYPE))
    assert len(types["data"]) == types["results"], types
    target = [t for t in types["data"]
              if t["region_prices"] and t["region_prices"][0]["hourly"] > 0]
    assert target, types
    for t in target:
        assert t["region_prices"][0]["hourly"] >= 0, t
        assert t["region_prices"][0]["monthly"] >= 0, t


def test_root_pass_required_region_lookup(sdk):
    """test_linode.py::test_expected_error_if_fields_authorized_users_
    authorized_keys_root_pass_are_not_set: conftest's get_region(client,
    {"Linodes", "Cloud Firewall"}, site_type="core") lists regions(), then
    account.availabilities(), whose failure must be an error answer the
    client raises as ApiError (the helper catches it and takes every region
    as available to the account), then picks at random among the core
    regions with both capabilities -- there must be one.  instance_create()
    then raises ValueError in the client, before any request."""
    regions = answer(sdk.get("/regions"), page_of(REGION))
    assert len(regions["data"]) == regions["results"], regions
    r = sdk.get("/account/availability")
    assert 400 <= r.status <= 599 and r.ctype == "application/json", r
    assert r.json["errors"] and all("reason" in e for e in r.json["errors"]), r
    usable = [g["id"] for g in regions["data"]
              if {"Linodes", "Cloud Firewall"} <= set(g["capabilities"])
              and g["site_type"] == "core"]
    assert usable, regions


def test_regions_vpc_availability(sdk):
    """models/region/test_region.py: regions.vpc_availability() (a paged list,
    every entry with its region, a boolean and a list of IPv6 prefix
    lengths, some available), and Region(client, id).vpc_availability for
    the first region of regions()."""
    entries = answer(sdk.get("/regions/vpc-availability"), page_of(VPC_AVAILABILITY))
    assert entries["results"] > 0 and len(entries["data"]) == entries["results"], entries
    assert all(e["region"] for e in entries["data"]), entries
    assert any(e["available"] for e in entries["data"]), entries
    first = answer(sdk.get("/regions"), page_of(REGION))["data"][0]["id"]
    one = answer(sdk.get(f"/regions/{first}/vpc-availability"), VPC_AVAILABILITY)
    assert one["region"] == first, one
    assert one in entries["data"], (one, entries)


@pytest.mark.parametrize("engine", ["mysql", "postgresql"])
def test_database_lifecycle(sdk, clock, engine):
    """test_database.py: the engine id get_db_engine_id() picks (the last of
    its engine), {mysql,postgresql}_create(label, region, engine, ltype,
    cluster_size=None), a wait on status, the instance lists, then
    test_update_*_db: load, change allow_list, updates.day_of_week and
    label, save() -- a PUT that carries the unchanged cluster_size and type
    and private_network null --, then ssl, credentials (akmadmin), reset,
    patch, delete."""
    engines = answer(sdk.get("/databases/engines"), page_of(ENGINE))["data"]
    engine_id = [e["id"] for e in engines if e["engine"] == engine][-1]
    for e in engines:
        assert e["id"] == e["engine"] + "/" + e["version"], e
    base = f"/databases/{engine}/instances"
    db_label = label() + ("-sqldb" if engine == "mysql" else "-postgresqldb")
    db = answer(sdk.post(base, {"label": db_label, "region": "us-ord", "engine": engine_id,
                                "type": "g6-standard-1"}), DATABASE)
    assert db["status"] == "provisioning", db
    clock("advance", "40m")
    assert answer(sdk.get(f"{base}/{db['id']}"), DATABASE)["status"] == "active"

    listed = [d for d in answer(sdk.get(base), page_of(DATABASE))["data"] if d["id"] == db["id"]]
    assert len(listed) == 1, listed
    assert listed[0]["label"] == db_label and listed[0]["cluster_size"] == 1, listed
    assert listed[0]["engine"] == engine, listed
    assert ".g2a.akamaidb.net" in listed[0]["hosts"]["primary"], listed

    loaded = answer(sdk.get(f"{base}/{db['id']}"), DATABASE)
    loaded["allow_list"] = ["192.168.0.1/32"]
    loaded["updates"] = dict(loaded["updates"], day_of_week=2)
    loaded["label"] = label() + ("updatedSQLDB" if engine == "mysql" else "updatedPostgresDB")
    body = save_body(loaded, DATABASE_MUTABLE)
    assert body["private_network"] is None and body["cluster_size"] == 1, body
    assert body["type"] == "g6-standard-1", body
    answer(sdk.put(f"{base}/{db['id']}", body), DATABASE)
    clock("advance", "40m")
    updated = answer(sdk.get(f"{base}/{db['id']}"), DATABASE)
    assert updated["allow_list"] == ["192.168.0.1/32"], updated
    assert updated["updates"]["day_of_week"] == 2, updated
    assert updated["status"] == "active", updated

    assert "ca_certificate" in str(answer(sdk.get(f"{base}/{db['id']}/ssl"),
                                          {"ca_certificate": str}))
    creds = answer(sdk.get(f"{base}/{db['id']}/credentials"),
                   {"username": str, "password": str})
    assert creds["username"] == "akmadmin" and creds["password"], creds
    r = sdk.post(f"{base}/{db['id']}/credentials/reset")
    assert r.status == 200 and r.json == {}, r
    clock("advance", "40m")
    again = answer(sdk.get(f"{base}/{db['id']}/credentials"), {"username": str, "password": str})
    assert again["username"] == "akmadmin" and again["password"] != creds["password"], again

    r = sdk.post(f"{base}/{db['id']}/patch")
    assert r.status == 200 and r.json == {}, r
    assert answer(sdk.get(f"{base}/{db['id']}"), DATABASE)["status"] == "updating"
    clock("advance", "40m")
    assert answer(sdk.get(f"{base}/{db['id']}"), DATABASE)["status"] == "active"
    r = sdk.delete(f"{base}/{db['id']}")
    assert r.status == 200 and r.json == {}, r


# The fork as linode_api4 reads it (Property() of MySQLDatabase and
# PostgreSQLDatabase: a MappedObject whose `source` its tests compare).
DATABASE_FORK = dict(DATABASE, fork=Nullable({"source": int, "restore_time": TIMESTAMP}))


def sdk_database(sdk, clock, engine):
    """The session fixtures test_create_sql_db / test_create_postgres_db:
    {mysql,postgresql}_create(label, "us-ord", get_db_engine_id(),
    "g6-standard-1", cluster_size=None) -- drop_null_keys leaves the four
    ids --, then wait_for_condition on db.status == "active"."""
    engines = answer(sdk.get("/databases/engines"), page_of(ENGINE))["data"]
    engine_id = [e["id"] for e in engines if e["engine"] == engine][-1]
    base = f"/databases/{engine}/instances"
    db_label = label() + ("-sqldb" if engine == "mysql" else "-postgresqldb")
    db = answer(sdk.post(base, {"label": db_label, "region": "us-ord", "engine": engine_id,
                                "type": "g6-standard-1"}), DATABASE_FORK)
    assert db["fork"] is None, db
    clock("advance", "40m")
    assert answer(sdk.get(f"{base}/{db['id']}"), DATABASE_FORK)["status"] == "active"
    return base, db


@pytest.mark.parametrize("engine", ["mysql", "postgresql"])
def test_database_suspend_resume(sdk, clock, engine):
    """test_mysql_suspend_resume / test_postgres_suspend_resume: load(), then
    db.suspend() -- a POST without a body (data None), then invalidate() --,
    wait_for_condition(10, 300, get_*_db_status, ..., "suspended") (a load,
    so a GET, each time), `db.status` of the invalidated object (a GET),
    db.resume(), the same wait for "active" and read."""
    base, db = sdk_database(sdk, clock, engine)
    path = f"{base}/{db['id']}"
    answer(sdk.get(path), DATABASE_FORK)
    r = sdk.post(path + "/suspend")
    assert r.status == 200 and r.json == {}, r
    assert answer(sdk.get(path), DATABASE_FORK)["status"] == "suspending"
    clock("advance", "10m")
    assert answer(sdk.get(path), DATABASE_FORK)["status"] == "suspended"
    assert answer(sdk.get(path), DATABASE_FORK)["status"] == "suspended"
    r = sdk.post(path + "/resume")
    assert r.status == 200 and r.json == {}, r
    assert answer(sdk.get(path), DATABASE_FORK)["status"] == "resuming"
    clock("advance", "10m")
    assert answer(sdk.get(path), DATABASE_FORK)["status"] == "active"
    back = answer(sdk.get(path), DATABASE_FORK)
    assert back["status"] == "active" and back["label"] == db["label"], back
    assert sdk.delete(path).status == 200


@pytest.mark.parametrize("engine", ["mysql", "postgresql"])
def test_database_fork(sdk, clock, engine):
    """test_fork_sql_db / test_fork_postgres_db: {mysql,postgresql}_fork(
    source.id, source.updated) -- `updated` is volatile: older than 15 s it
    is read again, a GET --, a POST of the fork alone (restore_time
    strftime'd "%Y-%m-%dT%H:%M:%S"), MySQLDatabase(client, result["id"],
    result); then wait_for_condition on db_fork.status == "active"
    (volatile: GETs), db_fork.fork.source == source.id, db_fork.delete()."""
    base, src = sdk_database(sdk, clock, engine)
    updated = answer(sdk.get(f"{base}/{src['id']}"), DATABASE_FORK)["updated"]
    fork = answer(sdk.post(base, {"fork": {"source": src["id"], "restore_time": updated}}),
                  DATABASE_FORK)
    assert fork["id"] != src["id"] and fork["status"] == "provisioning", fork
    assert fork["fork"] == {"source": src["id"], "restore_time": updated}, fork
    assert (fork["region"], fork["type"], fork["engine"], fork["version"]) == (
        src["region"], src["type"], src["engine"], src["version"]), fork
    assert fork["label"] == src["label"] + "-fork", fork
    assert answer(sdk.get(f"{base}/{fork['id']}"), DATABASE_FORK)["status"] == "provisioning"
    clock("advance", "40m")
    got = answer(sdk.get(f"{base}/{fork['id']}"), DATABASE_FORK)
    assert got["status"] == "active" and got["fork"]["source"] == src["id"], got
    r = sdk.delete(f"{base}/{fork['id']}")
    assert r.status == 200 and r.json == {}, r
    assert sdk.delete(f"{base}/{src['id']}").status == 200


@pytest.mark.parametrize("engine", ["mysql", "postgresql"])
def test_database_save_with_changes(sdk, clock, backend, engine):
    """save() after changing what the model lets a program change: a PUT of
    every mutable property, the changed cluster_size and type among the
    unchanged ones (a resize), then private_network set to a
    DatabasePrivateNetwork (its three fields, public_access left None goes
    as null: the default, false), then private_network = None (nullable:
    an explicit null, which takes the database out of its VPC); each
    followed by the wait on status the SDK's tests use."""
    engines = answer(sdk.get("/databases/engines"), page_of(ENGINE))["data"]
    engine_id = [e["id"] for e in engines if e["engine"] == engine][-1]
    base = f"/databases/{engine}/instances"
    db = answer(sdk.post(base, {"label": label() + "-resized", "region": "us-ord",
                                "engine": engine_id, "type": "g6-nanode-1"}), DATABASE)
    clock("advance", "40m")

    def save(change):
        loaded = answer(sdk.get(f"{base}/{db['id']}"), DATABASE)
        loaded.update(change)
        saved = answer(sdk.put(f"{base}/{db['id']}", save_body(loaded, DATABASE_MUTABLE)),
                       DATABASE)
        assert saved["status"] == "updating", saved
        clock("advance", "40m")
        now = answer(sdk.get(f"{base}/{db['id']}"), DATABASE)
        assert now["status"] == "active", now
        return now

    now = save({"cluster_size": 3, "type": "g6-standard-1"})
    assert (now["cluster_size"], now["type"], now["total_disk_size_gb"]) == \
        (3, "g6-standard-1", 30), now
    assert now["hosts"]["standby"].startswith("replica-"), now
    vpc = secrets.randbelow(2**40) + 1000
    backend.admin("entity", "add", "--account", str(sdk.account.id), "--type", "vpc",
                  "--id", str(vpc), "--label", backend.unique("py-vpc-"))
    now = save({"private_network": {"vpc_id": vpc, "subnet_id": 5678, "public_access": None}})
    assert now["private_network"] == {"vpc_id": vpc, "subnet_id": 5678,
                                      "public_access": False}, now
    # Unchanged, put back by a save() of something else.
    now = save({"label": db["label"] + "-2"})
    assert now["private_network"]["vpc_id"] == vpc and now["cluster_size"] == 3, now
    now = save({"private_network": None})
    assert now["private_network"] is None, now
    r = sdk.delete(f"{base}/{db['id']}")
    assert r.status == 200 and r.json == {}, r

