"""The Python SDK linode_api4: the requests its integration tests
make through the in-scope modules (domains, tags, profile, SSH keys, tokens,
account users and events, databases and their engine settings, regions,
types, images, errors), sent as linode_api4's LinodeClient sends them, and
the answers read as its models read them.

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
from replay import (ANY, NUMBER, TIMESTAMP, Nullable, Wire, answer, page_of, reasons,
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
# The engine_config of MySQLDatabase and PostgreSQLDatabase: a JSONObject
# whose from_json() reads the engine's sub-object (its tests then read its
# attributes, which fails on a missing sub-object).
MYSQL_DATABASE = dict(DATABASE, engine_config={"mysql": dict})
PG_DATABASE = dict(DATABASE, engine_config={"pg": dict})
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


# models/database/helpers.py's make_full_mysql_engine_config() and
# make_full_postgres_engine_config(), as JSONObject._serialize() writes them:
# the dataclasses' fields in their declared order, under their json_key
# (the dotted PostgreSQL names), the None ones left out.
MYSQL_FULL_CONFIG = {
    "mysql": {
        "connect_timeout": 20, "default_time_zone": "+00:00", "group_concat_max_len": 1024,
        "information_schema_stats_expiry": 900, "innodb_change_buffer_max_size": 25,
        "innodb_flush_neighbors": 1, "innodb_ft_min_token_size": 3,
        "innodb_ft_server_stopword_table": "db_name/table_name",
        "innodb_lock_wait_timeout": 50, "innodb_log_buffer_size": 16777216,
        "innodb_online_alter_log_max_size": 134217728, "innodb_read_io_threads": 4,
        "innodb_rollback_on_timeout": True, "innodb_thread_concurrency": 8,
        "innodb_write_io_threads": 4, "interactive_timeout": 300,
        "internal_tmp_mem_storage_engine": "TempTable", "max_allowed_packet": 67108864,
        "max_heap_table_size": 16777216, "net_buffer_length": 16384, "net_read_timeout": 30,
        "net_write_timeout": 60, "sort_buffer_size": 262144, "sql_mode": "TRADITIONAL",
        "sql_require_primary_key": False, "tmp_table_size": 16777216, "wait_timeout": 28800,
    },
    "binlog_retention_period": 600,
}
PG_FULL_CONFIG = {
    "pg": {
        "autovacuum_analyze_scale_factor": 0.1, "autovacuum_analyze_threshold": 50,
        "autovacuum_max_workers": 3, "autovacuum_naptime": 60,
        "autovacuum_vacuum_cost_delay": 20, "autovacuum_vacuum_cost_limit": 200,
        "autovacuum_vacuum_scale_factor": 0.2, "autovacuum_vacuum_threshold": 50,
        "bgwriter_delay": 200, "bgwriter_flush_after": 64, "bgwriter_lru_maxpages": 100,
        "bgwriter_lru_multiplier": 2.0, "deadlock_timeout": 1000,
        "default_toast_compression": "lz4", "idle_in_transaction_session_timeout": 600000,
        "jit": True, "max_files_per_process": 1000, "max_locks_per_transaction": 64,
        "max_logical_replication_workers": 4, "max_parallel_workers": 4,
        "max_parallel_workers_per_gather": 2, "max_pred_locks_per_transaction": 64,
        "max_replication_slots": 10, "max_slot_wal_keep_size": 2048,
        "max_stack_depth": 6291456, "max_standby_archive_delay": 30000,
        "max_standby_streaming_delay": 30000, "max_wal_senders": 20,
        "max_worker_processes": 8, "password_encryption": "scram-sha-256",
        "pg_partman_bgw.interval": 3600, "pg_partman_bgw.role": "myrolename",
        "pg_stat_monitor.pgsm_enable_query_plan": True,
        "pg_stat_monitor.pgsm_max_buckets": 2, "pg_stat_statements.track": "top",
        "temp_file_limit": 1, "timezone": "UTC", "track_activity_query_size": 2048,
        "track_functions": "all", "wal_sender_timeout": 60000, "wal_writer_delay": 200,
    },
    "pg_stat_monitor_enable": True,
    "shared_buffers_percentage": 25.0,
    "work_mem": 1024,
}


def get_db_engine_id(sdk, engine):
    """models/database/helpers.py: the id of the last engine of
    database.engines() whose `engine` equals the argument, else ""."""
    engine_id = ""
    for e in answer(sdk.get("/databases/engines"), page_of(ENGINE))["data"]:
        if e["engine"] == engine:
            engine_id = e["id"]
    return engine_id


def create_with_engine_config(sdk, engine, engine_id, config, db_label):
    """database.{mysql,postgresql}_create(label, "us-ord", engine_id,
    "g6-standard-1", cluster_size=None, engine_config=...): drop_null_keys
    leaves out cluster_size and private_network; the answer is read into
    the model."""
    return sdk.post(f"/databases/{engine}/instances",
                    {"label": db_label, "region": "us-ord", "engine": engine_id,
                     "type": "g6-standard-1", "engine_config": config})


def delete_when_available(sdk, clock, path):
    """send_request_when_resource_available(300, db.delete): a DELETE,
    repeated every 10 s while the answer is 400, 500 or 503.  The database
    is still provisioning, which the module's required-status table
    answers with a 400 (docs/emulator.md).  The replay sends the two
    requests that sequence comes to here, each with its asserted answer:
    the 400, then (the clock moved past the provisioning) the 200."""
    r = sdk.delete(path)
    assert r.status == 400 and "provisioning" in r.json["errors"][0]["reason"], r
    clock("advance", "40m")
    r = sdk.delete(path)
    assert r.status == 200 and r.json == {}, r


def test_get_mysql_config(sdk):
    """test_database_engine_config.py::test_get_mysql_config:
    database.mysql_config_options(), as its test reads the document."""
    config = answer(sdk.get("/databases/mysql/config"), dict)
    assert "binlog_retention_period" in config and "mysql" in config, config
    brp = config["binlog_retention_period"]
    assert isinstance(brp, dict), brp
    assert brp["type"] == "integer" and brp["minimum"] == 600, brp
    assert brp["maximum"] == 9007199254740991 and brp["requires_restart"] is False, brp
    mysql = config["mysql"]
    for key in ("connect_timeout", "default_time_zone", "group_concat_max_len",
                "information_schema_stats_expiry", "innodb_change_buffer_max_size",
                "innodb_flush_neighbors", "innodb_ft_min_token_size",
                "innodb_ft_server_stopword_table", "innodb_lock_wait_timeout",
                "innodb_log_buffer_size", "innodb_online_alter_log_max_size",
                "innodb_read_io_threads", "innodb_rollback_on_timeout",
                "innodb_thread_concurrency", "innodb_write_io_threads", "interactive_timeout",
                "internal_tmp_mem_storage_engine", "max_allowed_packet", "max_heap_table_size",
                "net_buffer_length", "net_read_timeout", "net_write_timeout",
                "sort_buffer_size", "sql_mode", "sql_require_primary_key", "tmp_table_size",
                "wait_timeout"):
        assert key in mysql, f"{key} not in the mysql settings"
    assert mysql["connect_timeout"]["type"] == "integer", mysql["connect_timeout"]
    assert mysql["default_time_zone"]["type"] == "string", mysql["default_time_zone"]
    assert mysql["innodb_rollback_on_timeout"]["type"] == "boolean", \
        mysql["innodb_rollback_on_timeout"]
    assert "enum" in mysql["internal_tmp_mem_storage_engine"], \
        mysql["internal_tmp_mem_storage_engine"]
    assert "pattern" in mysql["sql_mode"], mysql["sql_mode"]


def test_get_postgres_config(sdk):
    """test_database_engine_config.py::test_get_postgres_config:
    database.postgresql_config_options(), as its test reads the document."""
    config = answer(sdk.get("/databases/postgresql/config"), dict)
    assert "pg" in config, config
    assert config["pg_stat_monitor_enable"]["type"] == "boolean", config
    assert config["shared_buffers_percentage"]["type"] == "number", config
    assert config["shared_buffers_percentage"]["minimum"] >= 1, config
    assert config["work_mem"]["type"] == "integer", config
    assert "minimum" in config["work_mem"], config
    pg = config["pg"]
    for key in ("autovacuum_analyze_scale_factor", "autovacuum_analyze_threshold",
                "autovacuum_max_workers", "autovacuum_naptime", "autovacuum_vacuum_cost_delay",
                "autovacuum_vacuum_cost_limit", "autovacuum_vacuum_scale_factor",
                "autovacuum_vacuum_threshold", "bgwriter_delay", "bgwriter_flush_after",
                "bgwriter_lru_maxpages", "bgwriter_lru_multiplier", "deadlock_timeout",
                "default_toast_compression", "idle_in_transaction_session_timeout", "jit",
                "max_files_per_process", "max_locks_per_transaction",
                "max_logical_replication_workers", "max_parallel_workers",
                "max_parallel_workers_per_gather", "max_pred_locks_per_transaction",
                "max_replication_slots", "max_slot_wal_keep_size", "max_stack_depth",
                "max_standby_archive_delay", "max_standby_streaming_delay", "max_wal_senders",
                "max_worker_processes", "password_encryption", "pg_partman_bgw.interval",
                "pg_partman_bgw.role", "pg_stat_monitor.pgsm_enable_query_plan",
                "pg_stat_monitor.pgsm_max_buckets", "pg_stat_statements.track",
                "temp_file_limit", "timezone", "track_activity_query_size",
                "track_commit_timestamp", "track_functions", "track_io_timing",
                "wal_sender_timeout", "wal_writer_delay"):
        assert key in pg, f"{key} not in the pg settings"
    assert pg["autovacuum_analyze_scale_factor"]["type"] == "number"
    assert pg["autovacuum_analyze_threshold"]["type"] == "integer"
    assert pg["autovacuum_max_workers"]["requires_restart"] is True
    assert pg["default_toast_compression"]["enum"] == ["lz4", "pglz"]
    assert pg["jit"]["type"] == "boolean"
    assert "enum" in pg["password_encryption"]
    assert "pattern" in pg["pg_partman_bgw.role"]
    assert pg["pg_stat_monitor.pgsm_enable_query_plan"]["type"] == "boolean"
    assert pg["pg_stat_monitor.pgsm_max_buckets"]["requires_restart"] is True
    assert pg["pg_stat_statements.track"]["enum"] == ["all", "top", "none"]
    assert pg["track_commit_timestamp"]["enum"] == ["off", "on"]
    assert pg["track_functions"]["enum"] == ["all", "pl", "none"]
    assert pg["track_io_timing"]["enum"] == ["off", "on"]


def test_mysql_engine_config(sdk, clock):
    """test_database_engine_config.py's MySQL tests on their session fixture
    mysql_db_with_engine_config: mysql_create() with
    make_full_mysql_engine_config() and the last mysql engine id, the wait
    on status (volatile: GETs); test_create_mysql_with_engine_config (every
    mysql value sent comes back equal); test_update_mysql_engine_config
    (updates.day_of_week = 2, engine_config = a new
    MySQLDatabaseConfigOptions(mysql=...(connect_timeout=50),
    binlog_retention_period=880), save() -- a PUT of the mutable properties,
    the new engine_config serialised alone --, the wait, load());
    test_list_mysql_engine_config (mysql_instances()),
    test_get_mysql_engine_config (load()); the fixture's delete."""
    base = "/databases/mysql/instances"
    engine_id = get_db_engine_id(sdk, "mysql")
    db = answer(create_with_engine_config(sdk, "mysql", engine_id, MYSQL_FULL_CONFIG,
                                          label() + "-sqldb"), MYSQL_DATABASE)
    path = f"{base}/{db['id']}"
    assert answer(sdk.get(path), MYSQL_DATABASE)["status"] == "provisioning"
    clock("advance", "40m")
    loaded = answer(sdk.get(path), MYSQL_DATABASE)
    assert loaded["status"] == "active", loaded
    for key, expected in MYSQL_FULL_CONFIG["mysql"].items():
        got = loaded["engine_config"]["mysql"].get(key)
        assert got == expected, f"{key}: sent {expected!r}, got {got!r}"

    loaded["updates"] = dict(loaded["updates"], day_of_week=2)
    loaded["engine_config"] = {"mysql": {"connect_timeout": 50},
                               "binlog_retention_period": 880}
    body = save_body(loaded, DATABASE_MUTABLE)
    assert body["private_network"] is None and body["cluster_size"] == 1, body
    answer(sdk.put(path, body), MYSQL_DATABASE)
    clock("advance", "40m")
    assert answer(sdk.get(path), MYSQL_DATABASE)["status"] == "active"
    database = answer(sdk.get(path), MYSQL_DATABASE)
    assert database["updates"]["day_of_week"] == 2, database
    assert database["engine_config"]["mysql"]["connect_timeout"] == 50, database
    assert database["engine_config"]["binlog_retention_period"] == 880, database
    # The settings the PUT did not name are kept.
    assert database["engine_config"]["mysql"]["sql_mode"] == "TRADITIONAL", database

    assert db["id"] in [d["id"] for d in answer(sdk.get(base), page_of(MYSQL_DATABASE))["data"]]
    assert answer(sdk.get(path), MYSQL_DATABASE)["id"] == db["id"]
    r = sdk.delete(path)
    assert r.status == 200 and r.json == {}, r


def test_create_mysql_db_nullable_field(sdk, clock):
    """test_database_engine_config.py::test_create_mysql_db_nullable_field:
    mysql_create() with engine_config MySQLDatabaseConfigOptions(mysql=
    ...(innodb_ft_server_stopword_table=None)): the None values are left
    out, so the body carries {"mysql": {}}; the create's answer shows the
    setting null or not at all; then delete() through
    send_request_when_resource_available(300, ...)."""
    base = "/databases/mysql/instances"
    db = answer(create_with_engine_config(sdk, "mysql", get_db_engine_id(sdk, "mysql"),
                                          {"mysql": {}}, label(5) + "-sqldb"),
                MYSQL_DATABASE)
    assert db["engine_config"]["mysql"].get("innodb_ft_server_stopword_table") is None, db
    delete_when_available(sdk, clock, f"{base}/{db['id']}")


def test_postgres_engine_config(sdk, clock):
    """test_database_engine_config.py's PostgreSQL tests on their session
    fixture postgres_db_with_engine_config: postgresql_create() with
    "postgresql/17" and make_full_postgres_engine_config(), the wait on
    status; test_create_postgres_with_engine_config (each pg value sent
    comes back equal or not at all); test_update_postgres_engine_config
    (updates.day_of_week = 2, engine_config = PostgreSQLDatabaseConfigOptions(
    pg=...(autovacuum_analyze_threshold=70, deadlock_timeout=2000),
    shared_buffers_percentage=25.0), save(), the wait, load());
    test_list_postgres_engine_config, test_get_postgres_engine_config; the
    fixture's delete."""
    base = "/databases/postgresql/instances"
    db = answer(create_with_engine_config(sdk, "postgresql", "postgresql/17", PG_FULL_CONFIG,
                                          label() + "-postgresqldb"), PG_DATABASE)
    path = f"{base}/{db['id']}"
    assert answer(sdk.get(path), PG_DATABASE)["status"] == "provisioning"
    clock("advance", "40m")
    loaded = answer(sdk.get(path), PG_DATABASE)
    assert loaded["status"] == "active", loaded
    for key, expected in PG_FULL_CONFIG["pg"].items():
        got = loaded["engine_config"]["pg"].get(key)
        assert got is None or got == expected, f"{key}: sent {expected!r}, got {got!r}"
    # What the module keeps: every value, not merely none contradicted.
    assert {k: loaded["engine_config"]["pg"].get(k) for k in PG_FULL_CONFIG["pg"]} == \
        PG_FULL_CONFIG["pg"], loaded

    loaded["updates"] = dict(loaded["updates"], day_of_week=2)
    loaded["engine_config"] = {"pg": {"autovacuum_analyze_threshold": 70,
                                      "deadlock_timeout": 2000},
                               "shared_buffers_percentage": 25.0}
    body = save_body(loaded, DATABASE_MUTABLE)
    assert body["private_network"] is None and body["type"] == "g6-standard-1", body
    answer(sdk.put(path, body), PG_DATABASE)
    clock("advance", "40m")
    assert answer(sdk.get(path), PG_DATABASE)["status"] == "active"
    database = answer(sdk.get(path), PG_DATABASE)
    assert database["updates"]["day_of_week"] == 2, database
    assert database["engine_config"]["pg"]["autovacuum_analyze_threshold"] == 70, database
    assert database["engine_config"]["pg"]["deadlock_timeout"] == 2000, database
    assert database["engine_config"]["shared_buffers_percentage"] == 25.0, database

    assert db["id"] in [d["id"] for d in answer(sdk.get(base), page_of(PG_DATABASE))["data"]]
    assert answer(sdk.get(path), PG_DATABASE)["id"] == db["id"]
    r = sdk.delete(path)
    assert r.status == 200 and r.json == {}, r


def test_create_postgres_db_password_encryption_default_md5(sdk, clock):
    """test_database_engine_config.py::
    test_create_postgres_db_password_encryption_default_md5:
    postgresql_create() with "postgresql/17" and PostgreSQLDatabaseConfigOptions(
    pg=...(password_encryption=None)), sent as {"pg": {}}: the create's
    answer shows password_encryption "md5" at once; then delete() through
    send_request_when_resource_available(300, ...)."""
    base = "/databases/postgresql/instances"
    db = answer(create_with_engine_config(sdk, "postgresql", "postgresql/17", {"pg": {}},
                                          label() + "-postgresqldb"), PG_DATABASE)
    assert db["engine_config"]["pg"]["password_encryption"] == "md5", db
    delete_when_available(sdk, clock, f"{base}/{db['id']}")


def test_create_pg13_with_lz4_error_is_a_400(sdk):
    """test_database_engine_config.py::test_create_pg13_with_lz4_error, a
    difference kept (docs/clients.md): get_db_engine_id(client,
    "postgresql/13") compares the name with each engine's `engine`, never
    matches and gives "", so the create goes out with engine "" and
    engine_config PostgreSQLDatabaseConfigOptions(pg=...(
    default_toast_compression="lz4"), work_mem=4).  The SDK's test expects
    the public API's 500 "An error occurred" (a 400 fails it); the module
    answers an empty engine id as every invalid field, 400 `Length must be
    1-100 characters` on `engine`, and creates nothing."""
    engine_id = get_db_engine_id(sdk, "postgresql/13")
    assert engine_id == ""
    base = "/databases/postgresql/instances"
    before = answer(sdk.get(base), page_of(PG_DATABASE))["results"]
    r = create_with_engine_config(sdk, "postgresql", engine_id,
                                  {"pg": {"default_toast_compression": "lz4"}, "work_mem": 4},
                                  label() + "-postgresqldb")
    assert r.status == 400 and r.ctype == "application/json", r
    assert reasons(r) == [("engine", "Length must be 1-100 characters")], r
    assert answer(sdk.get(base), page_of(PG_DATABASE))["results"] == before
