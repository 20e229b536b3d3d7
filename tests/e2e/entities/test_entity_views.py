"""Read-only views of the objects the operator registered (acctapi-admin
entity add) under the public API's paths (today's clients):
/linode/instances, /volumes, /nodebalancers and /images, each with its
/{id}, in the public shapes.  What the module knows (id, label, registration
time, tags) is filled in; every other key has a value of the type the
public shape gives it: null only where the public API answers null, else a
neutral value (0, false, "", an empty list) or the member of an enumeration
that describes an object in service; values that follow from the kind of
object are the public API's.  Tagged objects show the same shapes under
GET /tags/{label}.  Scopes, grants, isolation,
pagination and X-Filter as on every list; writes are the router's 405 or
404; and linode-cli configure's requests (GET /images without a token)
answered in a form it reads."""

import secrets
from urllib.parse import quote

import pytest

import harness
from accounts import world_fixture
from checks import assert_envelope, assert_error, assert_headers, assert_json

SCOPE_REASON = "Your OAuth token is not authorized to use this endpoint."
EMPTY = {"data": [], "page": 1, "pages": 1, "results": 0}
READ_ONLY = "GET, HEAD, OPTIONS"

# The keys of the public shapes (the public API's OpenAPI document 4.189.0),
# and the keys today's public API sends beyond it (its recorded traffic:
# tests/e2e/public/client_facts.json).
INSTANCE_KEYS = {"alerts", "backups", "capabilities", "created", "group", "has_user_data",
                 "host_uuid", "hypervisor", "id", "image", "ipv4", "ipv6", "label",
                 "lke_cluster_id", "placement_group", "region", "specs", "status", "tags",
                 "type", "updated", "watchdog_enabled",
                 "disk_encryption", "interface_generation", "locks", "maintenance_policy",
                 "site_type"}
VOLUME_KEYS = {"created", "encryption", "filesystem_path", "hardware_type", "id", "label",
               "linode_id", "linode_label", "region", "size", "status", "tags", "updated",
               "io_ready", "locks"}
NODEBALANCER_KEYS = {"client_conn_throttle", "created", "hostname", "id", "ipv4", "ipv6",
                     "label", "region", "tags", "transfer", "updated",
                     "client_udp_sess_throttle", "frontend_address_type",
                     "frontend_vpc_subnet_id", "lke_cluster", "locks", "type"}
IMAGE_KEYS = {"capabilities", "created", "created_by", "deprecated", "description", "eol",
              "expiry", "id", "is_public", "label", "regions", "size", "status", "tags",
              "total_size", "type", "updated", "vendor",
              "image_sharing", "is_shared"}

# type -> (list path, scope, public id of entity n)
KINDS = {
    "instance": ("/linode/instances", "linodes:read_only", str),
    "volume": ("/volumes", "volumes:read_only", str),
    "nodebalancer": ("/nodebalancers", "nodebalancers:read_only", str),
    "image": ("/images", "images:read_only", lambda n: f"private/{n}"),
}


def ok(r):
    assert r.status == 200, r
    return assert_json(r)


def entity_id():
    return secrets.randbelow(2**40) + 1000


def one(path, kind, n):
    return f"{path}/{KINDS[kind][2](n)}"


class World:
    """An account with two objects of each kind (the first tagged, except the
    image: /tags does not tag images), another account with one of each,
    and restricted users without grants and with read_only on the first."""

    def __init__(self, backend, server):
        self.backend = backend
        self.account = harness.Account(backend, server, stem="e2e-views-")
        self.theirs = harness.Account(backend, server, stem="e2e-views-other-")
        self.owner = self.account.client
        self.ids = {k: [self.register(self.account.id, k, f"{k}-{i}-{secrets.token_hex(3)}")
                        for i in range(2)] for k in KINDS}
        self.their_ids = {k: self.register(self.theirs.id, k, f"their-{k}") for k in KINDS}
        self.tag = f"views-{secrets.token_hex(4)}"
        ok(self.owner.post("/tags", json={
            "label": self.tag, "linodes": [self.ids["instance"][0]],
            "volumes": [self.ids["volume"][0]],
            "nodebalancers": [self.ids["nodebalancer"][0]]}))
        self.no_grant_uid, self.no_grant = self.account.user(restricted=True)
        self.reader_uid, self.reader = self.account.user(restricted=True)
        for kind, ids in self.ids.items():
            backend.admin("grant", "entity", "--user", str(self.reader_uid), "--type", kind,
                          "--id", str(ids[0]), "--permissions", "read_only")

    def register(self, account, kind, label):
        n = entity_id()
        out = self.backend.admin("entity", "add", "--account", str(account), "--type", kind,
                                 "--id", str(n), "--label", label)
        assert out == str(n)
        return n

    def close(self):
        self.account.close()
        self.theirs.close()


world = world_fixture(World)


# --------------------------------------------------------------------------
# Shapes
# --------------------------------------------------------------------------

def check_common(item, n, label_prefix, tags):
    assert isinstance(item["created"], str) and item["updated"] == item["created"], item
    assert item["label"].startswith(label_prefix), item
    assert item["tags"] == tags, item


def test_instances(world):
    doc = ok(world.owner.get("/linode/instances"))
    items = assert_envelope(doc)
    assert [i["id"] for i in items] == sorted(world.ids["instance"]), items
    for item in items:
        assert set(item) == INSTANCE_KEYS, item
    first = next(i for i in items if i["id"] == world.ids["instance"][0])
    check_common(first, world.ids["instance"][0], "instance-0-", [world.tag])
    assert first["group"] == "" and first["hypervisor"] == "kvm", first
    # Nullable in the public shape: null.
    for key in ("image", "ipv6", "lke_cluster_id", "placement_group"):
        assert first[key] is None, (key, first)
    # Not nullable: a value of its type.
    assert {k: first[k] for k in ("region", "type", "status", "ipv4", "host_uuid",
                                  "watchdog_enabled", "has_user_data", "capabilities",
                                  "locks")} == {
        "region": "", "type": "", "status": "running", "ipv4": [], "host_uuid": "",
        "watchdog_enabled": False, "has_user_data": False, "capabilities": [],
        "locks": []}, first
    # What the public API gives a new instance when the request names nothing.
    assert {k: first[k] for k in ("disk_encryption", "interface_generation",
                                  "maintenance_policy", "site_type")} == {
        "disk_encryption": "enabled", "interface_generation": "legacy_config",
        "maintenance_policy": "linode/migrate", "site_type": "core"}, first
    assert first["specs"] == dict.fromkeys(("accelerated_devices", "disk", "gpus", "memory",
                                            "transfer", "vcpus"), 0), first
    # 0: no alert; none has fired.
    assert first["alerts"] == {
        **dict.fromkeys(("cpu", "io", "network_in", "network_out", "transfer_quota"), 0),
        "system_alerts": [], "user_alerts": []}, first
    # No backup: last_successful null, as the public API answers.
    assert first["backups"] == {"available": False, "enabled": False, "last_successful": None,
                                "schedule": {"day": None, "window": None}}, first
    assert ok(world.owner.get(one("/linode/instances", "instance", first["id"]))) == first


def test_volumes(world):
    items = assert_envelope(ok(world.owner.get("/volumes")))
    assert [i["id"] for i in items] == sorted(world.ids["volume"]), items
    for item in items:
        assert set(item) == VOLUME_KEYS, item
        # The public API's path of a volume follows from its label.
        assert item["filesystem_path"] == "/dev/disk/by-id/scsi-0Linode_Volume_" + item["label"]
        assert {k: item[k] for k in VOLUME_KEYS - {"id", "label", "created", "updated",
                                                   "tags", "filesystem_path"}} == {
            "encryption": "disabled", "hardware_type": "nvme", "linode_id": None,
            "linode_label": None, "region": "", "size": 0, "status": "active",
            "io_ready": False, "locks": []}, item
    first = next(i for i in items if i["id"] == world.ids["volume"][0])
    check_common(first, first["id"], "volume-0-", [world.tag])
    assert ok(world.owner.get(f"/volumes/{first['id']}")) == first


def test_nodebalancers(world):
    items = assert_envelope(ok(world.owner.get("/nodebalancers")))
    assert [i["id"] for i in items] == sorted(world.ids["nodebalancer"]), items
    for item in items:
        assert set(item) == NODEBALANCER_KEYS, item
        assert item["transfer"] == {"in": None, "out": None, "total": None}, item
        assert {k: item[k] for k in NODEBALANCER_KEYS - {"id", "label", "created", "updated",
                                                         "tags", "transfer"}} == {
            "client_conn_throttle": 0, "client_udp_sess_throttle": 0, "hostname": "",
            "ipv4": "", "ipv6": None, "region": "", "frontend_address_type": "public",
            "frontend_vpc_subnet_id": None, "lke_cluster": None, "locks": [],
            "type": "common"}, item
    first = next(i for i in items if i["id"] == world.ids["nodebalancer"][0])
    check_common(first, first["id"], "nodebalancer-0-", [world.tag])
    assert ok(world.owner.get(f"/nodebalancers/{first['id']}")) == first


def test_images(world):
    items = assert_envelope(ok(world.owner.get("/images")))
    assert [i["id"] for i in items] == [f"private/{n}" for n in sorted(world.ids["image"])]
    for item in items:
        assert set(item) == IMAGE_KEYS, item
        # A private image: not public, not deprecated; no vendor, end of
        # life or expiry (the public API: null for private images); an
        # available manual image.
        assert item["is_public"] is False and item["deprecated"] is False, item
        # Not shared: the account's own image, in no share group.
        assert item["is_shared"] is False, item
        assert item["image_sharing"] == {"shared_by": None, "shared_with": {
            "sharegroup_count": 0,
            "sharegroup_list_url": f"/images/{item['id']}/sharegroups"}}, item
        for key in ("vendor", "eol", "expiry", "description"):
            assert item[key] is None, (key, item)
        assert {k: item[k] for k in ("created_by", "size", "total_size", "status", "type",
                                     "regions", "capabilities")} == {
            "created_by": "", "size": 0, "total_size": 0, "status": "available",
            "type": "manual", "regions": [], "capabilities": []}, item
    n = world.ids["image"][0]
    first = next(i for i in items if i["id"] == f"private/{n}")
    check_common(first, n, "image-0-", [])
    # The id travels as two path segments or percent-encoded, as engine ids do.
    assert ok(world.owner.get(f"/images/private/{n}")) == first
    assert ok(world.owner.get(f"/images/{quote(f'private/{n}', safe='')}")) == first
    for bad in (str(n), f"linode/{n}", "linode/debian12", f"private/{n}x", "private/0",
                f"private/-{n}", "private/", "upload"):
        assert_error(world.owner.get(f"/images/{bad}"), 404, "Not found")


def test_tagged_objects_are_the_views(world):
    """GET /tags/{label} shows each tagged registered object as its own view."""
    objs = assert_envelope(ok(world.owner.get(f"/tags/{quote(world.tag)}")))
    by_type = {o["type"]: o["data"] for o in objs}
    assert sorted(by_type) == ["linode", "nodebalancer", "volume"], objs
    for kind, public in (("instance", "linode"), ("volume", "volume"),
                         ("nodebalancer", "nodebalancer")):
        path = KINDS[kind][0]
        assert by_type[public] == ok(world.owner.get(f"{path}/{world.ids[kind][0]}")), kind


# --------------------------------------------------------------------------
# Isolation, scopes, grants
# --------------------------------------------------------------------------

@pytest.mark.parametrize("kind", list(KINDS))
def test_other_accounts_object_is_not_found(world, kind):
    path, _, pub = KINDS[kind]
    n = world.their_ids[kind]
    assert_error(world.owner.get(f"{path}/{pub(n)}"), 404, "Not found")
    listed_id = pub(n) if kind == "image" else n
    assert listed_id not in {i["id"] for i in world.owner.all_pages(path)}
    # And the other account sees its own.
    theirs = ok(world.theirs.client.get(path))
    assert [i["id"] for i in theirs["data"]] == [listed_id], theirs


@pytest.mark.parametrize("kind", list(KINDS))
def test_scope_is_required(world, backend, anon, kind):
    path, scope, pub = KINDS[kind]
    others = [s for s in ("linodes:read_write", "volumes:read_write",
                          "nodebalancers:read_write", "images:read_write")
              if s.split(":")[0] != scope.split(":")[0]]
    lacking = backend.mint_token(scopes=" ".join(others + ["account:read_write"]),
                                 user=world.account.uid)
    for url in (path, f"{path}/{pub(world.ids[kind][0])}"):
        r = anon.get(url, token=lacking)
        assert_error(r, 401, SCOPE_REASON)
        assert r.headers.get("X-Accepted-OAuth-Scopes") == scope, r
    reader = backend.mint_token(scopes=scope, user=world.account.uid)
    assert ok(anon.get(path, token=reader))["results"] == 2
    assert anon.get(f"{path}/{pub(world.ids[kind][0])}", token=reader).status == 200


@pytest.mark.parametrize("kind", list(KINDS))
def test_restricted_users_see_what_they_are_granted(world, kind):
    path, _, pub = KINDS[kind]
    first, second = world.ids[kind]
    # Without a grant: an empty list, and 403 on the object (it exists).
    assert ok(world.no_grant.get(path)) == EMPTY
    assert_error(world.no_grant.get(f"{path}/{pub(first)}"), 403, "Unauthorized")
    # read_only on the first: that one only.
    doc = ok(world.reader.get(path))
    assert [i["id"] for i in doc["data"]] == [pub(first) if kind == "image" else first], doc
    assert ok(world.reader.get(f"{path}/{pub(first)}"))["label"].startswith(f"{kind}-0-")
    assert_error(world.reader.get(f"{path}/{pub(second)}"), 403, "Unauthorized")
    # Another account's object stays 404 for them too.
    assert_error(world.reader.get(f"{path}/{pub(world.their_ids[kind])}"), 404, "Not found")


def test_unregistered_object_is_gone(world, backend):
    n = world.register(world.account.id, "volume", "short-lived")
    assert ok(world.owner.get(f"/volumes/{n}"))["label"] == "short-lived"
    assert backend.admin("entity", "remove", "--type", "volume", "--id", str(n)) == ""
    assert_error(world.owner.get(f"/volumes/{n}"), 404, "Not found")
    assert n not in {i["id"] for i in world.owner.all_pages("/volumes")}


# --------------------------------------------------------------------------
# Pagination and X-Filter
# --------------------------------------------------------------------------

def test_pagination(backend, server):
    acct = harness.Account(backend, server, stem="e2e-views-pages-")
    try:
        base = entity_id()
        # 27 volumes at once, as an operator's bulk registration would.
        backend.execute("INSERT INTO entities (entity_type, entity_id, account_id, label,"
                        " created) VALUES " + ", ".join(
                            f"('volume', {base + i}, {acct.id}, 'bulk-{i:02d}', 1700000000)"
                            for i in range(27)))
        everything = acct.client.all_pages("/volumes")
        assert [v["id"] for v in everything] == [base + i for i in range(27)]
        first = ok(acct.client.get("/volumes", params={"page_size": 25}))
        assert (first["page"], first["pages"], first["results"]) == (1, 2, 27), first
        second = ok(acct.client.get("/volumes", params={"page_size": 25, "page": 2}))
        assert first["data"] + second["data"] == everything
        past = ok(acct.client.get("/volumes", params={"page_size": 25, "page": 5}))
        assert past == {"data": [], "page": 5, "pages": 2, "results": 27}, past
        assert everything[0]["created"] == "2023-11-14T22:13:20", everything[0]
        assert_error(acct.client.get("/volumes", params={"page": "0"}), 400, None, "page")
    finally:
        acct.close()


def ids_of(r):
    return [i["id"] for i in ok(r)["data"]]


def test_filter_instances(world):
    c = world.owner
    first, second = world.ids["instance"]
    label = ok(c.get(f"/linode/instances/{second}"))["label"]
    assert ids_of(c.get("/linode/instances", xfilter={"label": label})) == [second]
    assert ids_of(c.get("/linode/instances", xfilter={"id": first})) == [first]
    assert ids_of(c.get("/linode/instances", xfilter={"tags": world.tag})) == [first]
    assert ids_of(c.get("/linode/instances", xfilter={"label": {"+contains": "instance-"}})) == \
        sorted([first, second])
    assert ids_of(c.get("/linode/instances",
                        xfilter={"+order_by": "label", "+order": "desc"})) == [second, first]
    assert ids_of(c.get("/linode/instances", xfilter={"+and": []})) == sorted([first, second])
    # A filter matches what the key shows: region is "", ipv4 an empty
    # list, image and lke_cluster_id null (an equality on these matches
    # nothing, +neq everything).
    for field, value in (("region", "us-east"), ("ipv4", "192.0.2.1"), ("image", "linode/debian12"),
                         ("lke_cluster_id", 5), ("ipv4", "")):
        assert ok(c.get("/linode/instances", xfilter={field: value})) == EMPTY, field
    assert ids_of(c.get("/linode/instances", xfilter={"region": {"+neq": "us-east"}})) == \
        sorted([first, second])
    assert ids_of(c.get("/linode/instances", xfilter={"region": ""})) == sorted([first, second])
    assert ids_of(c.get("/linode/instances", xfilter={"group": ""})) == sorted([first, second])
    # The Terraform provider's linode_instances: an id and a label, AND-ed.
    assert ids_of(c.get("/linode/instances", xfilter={"+and": [
        {"+or": [{"id": first}]}, {"+or": [{"label": {"+neq": "x"}}]}]})) == [first]
    # linode_api4's other Instance properties: what every instance shows.
    assert ids_of(c.get("/linode/instances", xfilter={
        "status": "running", "hypervisor": "kvm", "watchdog_enabled": False,
        "has_user_data": False, "type": "", "host_uuid": ""})) == sorted([first, second])
    assert ok(c.get("/linode/instances", xfilter={"status": "offline"})) == EMPTY
    assert ok(c.get("/linode/instances", xfilter={"capabilities": "Block Storage"})) == EMPTY
    assert ids_of(c.get("/linode/instances", xfilter={"ipv6": {"+neq": "x"}})) == \
        sorted([first, second])
    created = ok(c.get(f"/linode/instances/{first}"))["created"]
    assert first in ids_of(c.get("/linode/instances", xfilter={"created": {"+lte": created}}))
    assert ok(c.get("/linode/instances",
                    xfilter={"updated": {"+lt": "2000-01-01T00:00:00"}})) == EMPTY
    # Objects are not filterable.
    assert_error(c.get("/linode/instances", xfilter={"alerts": 0}), 400,
                 "Cannot filter on alerts", "X-Filter")
    assert_error(c.get("/linode/instances", xfilter={"id": "one"}), 400,
                 "Could not apply filter", "X-Filter")


def test_filter_volumes_and_nodebalancers(world):
    c = world.owner
    v1, v2 = world.ids["volume"]
    assert ids_of(c.get("/volumes", xfilter={"tags": world.tag})) == [v1]
    assert ids_of(c.get("/volumes", xfilter={"tags": {"+neq": world.tag}})) == [v2]
    # size and status, which linode_api4's Volume marked filterable, and
    # its other properties: each matches what the key shows.
    assert ids_of(c.get("/volumes", xfilter={"size": 0, "status": "active"})) == sorted([v1, v2])
    assert ok(c.get("/volumes", xfilter={"size": {"+gt": 0}})) == EMPTY
    assert ok(c.get("/volumes", xfilter={"status": "resizing"})) == EMPTY
    path = ok(c.get(f"/volumes/{v2}"))["filesystem_path"]
    assert ids_of(c.get("/volumes", xfilter={"filesystem_path": path})) == [v2]
    assert ids_of(c.get("/volumes", xfilter={"id": v1})) == [v1]
    assert ok(c.get("/volumes", xfilter={"region": "us-east"})) == EMPTY
    assert ok(c.get("/volumes", xfilter={"linode_id": v1})) == EMPTY
    assert ids_of(c.get("/volumes", xfilter={"region": "", "encryption": "disabled",
                                             "hardware_type": "nvme"})) == sorted([v1, v2])
    assert_error(c.get("/volumes", xfilter={"linode": 1}), 400,
                 "Cannot filter on linode", "X-Filter")
    n1, n2 = world.ids["nodebalancer"]
    label = ok(c.get(f"/nodebalancers/{n2}"))["label"]
    assert ids_of(c.get("/nodebalancers", xfilter={"label": label})) == [n2]
    assert ok(c.get("/nodebalancers", xfilter={"ipv4": "192.0.2.7"})) == EMPTY
    assert ok(c.get("/nodebalancers", xfilter={"region": "us-east"})) == EMPTY
    assert ids_of(c.get("/nodebalancers", xfilter={"region": "", "ipv4": ""})) == \
        sorted([n1, n2])
    assert ids_of(c.get("/nodebalancers", xfilter={"tags": world.tag})) == [n1]
    assert ids_of(c.get("/nodebalancers", xfilter={"id": n2})) == [n2]
    assert ids_of(c.get("/nodebalancers", xfilter={"client_conn_throttle": 0,
                                                   "hostname": ""})) == sorted([n1, n2])
    assert_error(c.get("/nodebalancers", xfilter={"transfer": 0}), 400,
                 "Cannot filter on transfer", "X-Filter")


def test_filter_images(world):
    c = world.owner
    mine = [f"private/{n}" for n in sorted(world.ids["image"])]
    # The Terraform provider's linode_images filters and linode-cli's
    # "images list --is_public false".
    assert ids_of(c.get("/images", xfilter={"is_public": False})) == mine
    assert ok(c.get("/images", xfilter={"is_public": True})) == EMPTY
    assert ids_of(c.get("/images", xfilter={"deprecated": False})) == mine
    assert ok(c.get("/images", xfilter={"vendor": "Debian"})) == EMPTY
    assert ok(c.get("/images", xfilter={"size": {"+gte": 1}})) == EMPTY
    # What every registered image shows.
    assert ids_of(c.get("/images", xfilter={"status": "available", "type": "manual",
                                            "size": 0})) == mine
    assert ok(c.get("/images", xfilter={"type": "automatic"})) == EMPTY
    label = ok(c.get(f"/images/{mine[1]}"))["label"]
    assert ids_of(c.get("/images", xfilter={"label": label})) == [mine[1]]
    # linode_api4's other Image properties: the id as shown, and what every
    # registered image shows.
    assert ids_of(c.get("/images", xfilter={"id": mine[0]})) == [mine[0]]
    assert ids_of(c.get("/images", xfilter={"id": {"+neq": mine[0]}})) == mine[1:]
    assert ids_of(c.get("/images", xfilter={"created_by": "", "total_size": 0})) == mine
    assert ok(c.get("/images", xfilter={"description": "x"})) == EMPTY
    assert ok(c.get("/images", xfilter={"eol": {"+lt": "2999-01-01T00:00:00"}})) == EMPTY
    assert_error(c.get("/images", xfilter={"regions": "us-east"}), 400,
                 "Cannot filter on regions", "X-Filter")


# What X-Filter may name on each view, apart from tags (a condition, not an
# order); each is orderable, also where every object shows the same value.
COMMON = ("created", "updated")
FILTERABLE = {
    "instance": ("id", "label", "group", "image", "ipv4", "lke_cluster_id", "region",
                 "capabilities", "disk_encryption", "has_user_data", "host_uuid", "hypervisor",
                 "interface_generation", "ipv6", "locks", "maintenance_policy", "status",
                 "type", "watchdog_enabled") + COMMON,
    "volume": ("id", "label", "encryption", "filesystem_path", "hardware_type", "linode_id",
               "linode_label", "region", "size", "status") + COMMON,
    "nodebalancer": ("id", "label", "ipv4", "region", "client_conn_throttle",
                     "client_udp_sess_throttle", "hostname", "ipv6", "locks") + COMMON,
    "image": ("id", "label", "deprecated", "is_public", "size", "status", "type", "vendor",
              "capabilities", "created_by", "description", "eol", "expiry", "is_shared",
              "total_size") + COMMON,
}
# Keys whose value differs between objects (the others: one value for all).
VARYING = ("id", "label", "filesystem_path") + COMMON


@pytest.mark.parametrize("kind", list(KINDS))
def test_order_by_every_filterable_field(world, kind):
    path, _, pub = KINDS[kind]
    mine = [pub(n) if kind == "image" else n for n in sorted(world.ids[kind])]
    for field in FILTERABLE[kind]:
        for order in ("asc", "desc"):
            got = ids_of(world.owner.get(path, xfilter={"+order_by": field, "+order": order}))
            assert sorted(got) == sorted(mine), (field, order, got)
            if field not in VARYING:
                # One value for all: the stable order (by id) decides.
                assert got == mine, (field, order, got)


# --------------------------------------------------------------------------
# The public's GET /images
# --------------------------------------------------------------------------

def test_images_without_a_token(world, anon, backend):
    """The public API lists its public images to anyone; the module keeps
    none, so the public sees an empty list, whatever the accounts hold."""
    r = anon.get("/images")
    assert ok(r) == EMPTY
    assert_headers(r, scopes="unknown", accepted="images:read_only")
    assert ok(anon.get("/images", params={"page": 3})) == dict(EMPTY, page=3)
    assert ok(anon.get("/images", xfilter={"is_public": True})) == EMPTY
    assert_error(anon.get("/images", xfilter={"nope": 1}), 400, "Cannot filter on nope",
                 "X-Filter")
    head = anon.head("/images")
    assert head.status == 200 and head.body == b"", head
    for n in (world.ids["image"][0], world.their_ids["image"]):
        assert_error(anon.get(f"/images/private/{n}"), 404, "Not found")
    # A token that is given is checked.
    assert_error(anon.get("/images", authorization="Bearer " + "0" * 64), 401,
                 "Invalid Token")
    assert_error(anon.get("/images", token=backend.mint_token(scopes="domains:read_only")),
                 401, SCOPE_REASON)


def test_linode_cli_configure(world, anon):
    """linode-cli configure (linodecli/configuration/config.py): GET
    /regions, /linode/types and /images without a token, each must succeed
    and be sorted by the ids of `data`; then, for a full-access token
    (/profile/grants 204), GET /account/users."""
    regions = sorted(r["id"] for r in ok(anon.get("/regions"))["data"])
    types = sorted(t["id"] for t in ok(anon.get("/linode/types"))["data"])
    images = sorted(i["id"] for i in ok(anon.get("/images"))["data"])
    assert regions and types and images == []
    headers = {"Content-type": "application/json"}
    assert anon.get("/profile/grants", token=world.owner.token, headers=headers).status == 204
    users = ok(anon.get("/account/users", token=world.owner.token, headers=headers))
    assert [u["username"] for u in users["data"] if "ssh_keys" in u]


# --------------------------------------------------------------------------
# Writes
# --------------------------------------------------------------------------

@pytest.mark.parametrize("method,path", [
    ("POST", "/linode/instances"), ("PUT", "/linode/instances/{instance}"),
    ("DELETE", "/linode/instances/{instance}"),
    ("POST", "/volumes"), ("PUT", "/volumes/{volume}"), ("DELETE", "/volumes/{volume}"),
    ("POST", "/nodebalancers"), ("PUT", "/nodebalancers/{nodebalancer}"),
    ("DELETE", "/nodebalancers/{nodebalancer}"),
    ("POST", "/images"), ("PUT", "/images/private/{image}"),
    ("DELETE", "/images/private/{image}"), ("POST", "/images/upload"),
])
def test_writes_are_405(world, method, path):
    url = path.format(**{k: v[0] for k, v in world.ids.items()})
    body = {"label": "changed"} if method != "DELETE" else None
    r = world.owner.request(method, url, json=body)
    assert_error(r, 405, "Method Not Allowed")
    assert r.headers.get("Allow") == READ_ONLY, r
    # Nothing changed.
    for listing, _, _ in KINDS.values():
        assert "changed" not in {i["label"] for i in world.owner.all_pages(listing)}


@pytest.mark.parametrize("method,path", [
    ("POST", "/linode/instances/{instance}/boot"), ("GET", "/linode/instances/{instance}/ips"),
    ("POST", "/volumes/{volume}/attach"), ("GET", "/nodebalancers/{nodebalancer}/configs"),
    ("POST", "/volumes/{volume}/clone"),
])
def test_other_paths_are_404(world, method, path):
    url = path.format(**{k: v[0] for k, v in world.ids.items()})
    r = world.owner.request(method, url, json={} if method == "POST" else None)
    assert_error(r, 404, "Not found")
