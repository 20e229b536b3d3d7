"""Every field today's clients filter on, on every list this module serves,
is filterable here (docs/conventions.md, "Today's clients": Filters).

The facts, each field with where it comes from:

- DOCS: the fields the public API's document marks `x-linode-filterable`
  on each list's items.  The newest release of linode-api-docs whose
  document still carries the marks is 4.176.0 (later releases dropped
  them); linode-cli builds its list commands' filter options from these
  marks.
- TF: the fields the Terraform provider's list data sources send in
  X-Filter (v3.13.0, `APIFilterable: true`: linode_regions' site_type,
  linode_instances' lke_cluster_id).
- SDK_MARK: the properties linode_api4's models marked `filterable=True`
  until 5.3.0 (Domain.master_ips, Volume.size, Volume.status).
- SDK: the other properties of linode_api4's models (v5.44.0), each of
  which its filters may name (FilterableMetaclass makes every property a
  filter attribute: `client.database.types(DatabaseType.disk == 8192)`):
  those of scalar or list values that the module's answer shows.
- VIEW: lists the public document does not mark; the module's own
  choice, the keys clients read (region VPC availability).

Each field is checked twice: listed in the module's OpenAPI document, and
accepted by the server, answered 200: as a `+order_by` (which, like every
filter, takes only filterable fields), or for a list-valued key, which has
no order, as the membership test clients send (`{"tags": "x"}`).  And for
every list, at least one of the fields this change made filterable selects
exactly the items whose key has the value, and not the others.
"""

import json

import pytest

from checks import assert_envelope, assert_error
from harness import OPENAPI_DOC

DOCS = "linode-api-docs 4.176.0 x-linode-filterable"
TF = "Terraform provider v3.13.0 data source, APIFilterable"
SDK_MARK = "linode_api4 <= 5.3.0, filterable=True"
SDK = "linode_api4 v5.44.0 model property (FilterableMetaclass)"
VIEW = "module's own list: the keys its clients read"


def fields(source, *names):
    return {n: source for n in names}


DB_FIELDS = {**fields(DOCS, "engine", "label", "region", "status", "type", "version"),
             **fields(SDK, "id", "cluster_size", "encrypted", "ssl_connection", "allow_list",
                      "port", "created", "updated")}

# list path -> {field: where it comes from}.
PUBLIC_FILTERABLE = {
    "/regions": {**fields(TF, "site_type"),
                 **fields(SDK_MARK, "country"),
                 **fields(SDK, "id", "label", "capabilities", "status")},
    "/regions/availability": fields(DOCS, "available", "plan", "region"),
    "/regions/vpc-availability": fields(VIEW, "available", "region"),
    "/linode/types": {**fields(DOCS, "class", "disk", "gpus", "label", "memory",
                               "network_out", "transfer", "vcpus"),
                      **fields(SDK, "id", "successor")},
    "/databases/engines": {**fields(DOCS, "engine", "version"), **fields(SDK, "id")},
    "/databases/types": {**fields(DOCS, "deprecated"),
                         **fields(SDK, "disk", "id", "label", "memory", "vcpus")},
    "/profile/apps": {**fields(DOCS, "created", "expiry", "label"),
                      **fields(SDK, "id", "scopes", "thumbnail_url", "website")},
    "/profile/tokens": {**fields(DOCS, "created", "label"),
                        **fields(SDK, "id", "scopes", "expiry")},
    "/profile/sshkeys": {**fields(DOCS, "created", "label"), **fields(SDK, "id", "ssh_key")},
    "/profile/devices": fields(SDK, "id", "created", "expiry", "last_authenticated",
                               "last_remote_addr", "user_agent"),
    "/profile/logins": fields(SDK, "id", "datetime", "ip", "restricted", "status", "username"),
    "/domains": {**fields(DOCS, "domain", "group", "tags"),
                 **fields(SDK_MARK, "master_ips"),
                 **fields(SDK, "id", "type", "status", "description", "soa_email",
                          "axfr_ips", "expire_sec", "refresh_sec", "retry_sec", "ttl_sec")},
    "/domains/{domainId}/records": {**fields(DOCS, "name", "tag", "target", "type"),
                                    **fields(SDK, "id", "priority", "weight", "port",
                                             "service", "protocol", "ttl_sec", "created",
                                             "updated")},
    "/account/users": {**fields(DOCS, "username"),
                       **fields(SDK, "email", "restricted", "tfa_enabled", "user_type")},
    "/linode/instances": {**fields(DOCS, "group", "id", "image", "ipv4", "label", "region",
                                   "tags"),
                          **fields(TF, "lke_cluster_id"),
                          **fields(SDK, "capabilities", "created", "disk_encryption",
                                   "has_user_data", "host_uuid", "hypervisor",
                                   "interface_generation", "ipv6", "locks",
                                   "maintenance_policy", "status", "type", "updated",
                                   "watchdog_enabled")},
    "/volumes": {**fields(DOCS, "label", "tags"), **fields(SDK_MARK, "size", "status"),
                 **fields(SDK, "id", "created", "updated", "encryption", "filesystem_path",
                          "hardware_type", "linode_id", "linode_label", "region")},
    "/nodebalancers": {**fields(DOCS, "ipv4", "label", "region", "tags"),
                       **fields(SDK, "id", "created", "updated", "client_conn_throttle",
                                "client_udp_sess_throttle", "hostname", "ipv6", "locks")},
    "/images": {**fields(DOCS, "deprecated", "is_public", "label", "size", "status", "type",
                         "vendor"),
                **fields(SDK, "id", "capabilities", "created", "created_by", "description",
                         "eol", "expiry", "is_shared", "total_size", "updated")},
    "/account/events": fields(DOCS, "action", "created", "entity.id", "entity.type", "id",
                              "read"),
    "/databases/instances": DB_FIELDS,
    "/databases/mysql/instances": DB_FIELDS,
    "/databases/postgresql/instances": DB_FIELDS,
    "/databases/mysql/instances/{instanceId}/backups": fields(DOCS, "created", "type"),
    "/databases/postgresql/instances/{instanceId}/backups": fields(DOCS, "created", "type"),
}

# Keys whose value is a list: filtered by one member, never ordered.
LIST_KEYS = {"tags", "capabilities", "master_ips", "axfr_ips", "allow_list", "locks"}


def documented_fields(doc, path):
    for p in doc["paths"][path]["get"].get("parameters", []):
        if "$ref" in p:
            continue
        if p.get("name") == "X-Filter":
            return set(p.get("x-filterable-fields", []))
    return set()


@pytest.fixture(scope="module")
def doc():
    return json.loads(OPENAPI_DOC.read_text())


def test_every_field_says_where_it_comes_from():
    for path, table in PUBLIC_FILTERABLE.items():
        for field, source in table.items():
            assert source in (DOCS, TF, SDK_MARK, SDK, VIEW), (path, field, source)


@pytest.mark.parametrize("path", sorted(PUBLIC_FILTERABLE))
def test_public_filterable_fields_are_documented(doc, path):
    missing = set(PUBLIC_FILTERABLE[path]) - documented_fields(doc, path)
    assert not missing, f"{path}: not filterable here: {sorted(missing)}"


@pytest.fixture(scope="module")
def objects(server, backend):
    """Domains (a master with records, a slave), and two databases of each
    engine (3 nodes, 1 node) of the shared account, for the nested lists and
    the selections."""
    c = server.client(token=backend.token)
    try:
        name = backend.unique("pubfilter-") + ".example"
        r = c.post("/domains", json={"domain": name, "type": "master", "ttl_sec": 300,
                                     "soa_email": "hostmaster@example.com"})
        assert r.status == 200, r
        domain = r.json["id"]
        r = c.post("/domains", json={"domain": backend.unique("pubfilter-s-") + ".example",
                                     "type": "slave", "master_ips": ["192.0.2.77"]})
        assert r.status == 200, r
        for rec in ({"type": "A", "name": "www", "target": "192.0.2.10"},
                    {"type": "MX", "name": "", "target": "mail.example.com", "priority": 10},
                    {"type": "SRV", "service": "sip", "protocol": "udp", "port": 5060,
                     "target": "sip.example.com", "priority": 10, "weight": 5}):
            assert c.post(f"/domains/{domain}/records", json=rec).status == 200
        dbs = {}
        for engine, version in (("mysql", "mysql/8"), ("postgresql", "postgresql/16")):
            for nodes in (3, 1):
                r = c.post(f"/databases/{engine}/instances", json={
                    "label": backend.unique("pf-")[:32], "region": "us-east",
                    "type": "g6-nanode-1", "engine": version, "cluster_size": nodes})
                assert r.status == 200, r
                dbs[engine] = r.json["id"]
                # Provisioned: its backups list answers.
                backend.admin("database", "set-status", str(dbs[engine]), "active")
        # Tokens that expire and one that never does (the public API's 2999).
        for expiry in ("2099-01-01T00:00:00", None):
            r = c.post("/profile/tokens", json={"label": "pubfilter", "expiry": expiry,
                                                "scopes": "domains:read_only"})
            assert r.status == 200, r
        yield {"domainId": domain, "mysql": dbs["mysql"], "postgresql": dbs["postgresql"]}
    finally:
        c.close()


def concrete(path, objects):
    engine = "postgresql" if "/postgresql/" in path else "mysql"
    return path.replace("{domainId}", str(objects["domainId"])) \
               .replace("{instanceId}", str(objects[engine]))


@pytest.mark.parametrize("path,field", [(p, f) for p in sorted(PUBLIC_FILTERABLE)
                                        for f in PUBLIC_FILTERABLE[p]])
def test_public_filterable_fields_are_accepted(api, objects, path, field):
    xfilter = {field: "pubfilter"} if field in LIST_KEYS else {"+order_by": field,
                                                                "+order": "desc"}
    r = api.get(concrete(path, objects), headers={"X-Filter": json.dumps(xfilter)})
    assert r.status == 200, (field, r)
    assert_envelope(r.json)


# (list, field, how the value is picked from the whole list): for each list
# of this module's own rows, a field this change made filterable; the filter
# must select exactly the items that show the value, and not every item.
# The lists of registered objects, of the profile's logins, devices, apps
# and SSH keys and of the account's users have theirs in their own files
# (entities/test_entity_views.py, identity/).
def first(key):
    return lambda items: items[0][key]


def member(key):
    return lambda items: next(i[key][0] for i in items if i[key])


SELECTIONS = [
    ("/regions", "label", first("label")),
    ("/regions", "capabilities", lambda items: "VPCs"),
    ("/regions/vpc-availability", "available", lambda items: False),
    ("/linode/types", "id", first("id")),
    ("/databases/engines", "id", first("id")),
    ("/databases/types", "disk", first("disk")),
    ("/domains", "master_ips", member("master_ips")),
    ("/domains", "ttl_sec", lambda items: 300),
    ("/domains/{domainId}/records", "priority", lambda items: 10),
    ("/domains/{domainId}/records", "service", lambda items: "sip"),
    ("/databases/instances", "cluster_size", lambda items: 3),
    ("/databases/mysql/instances", "id", first("id")),
    ("/databases/postgresql/instances", "cluster_size", lambda items: 3),
    ("/profile/tokens", "expiry", lambda items: "2999-12-12T05:00:00"),
]


def holds(item, field, value):
    got = item[field]
    return value in got if isinstance(got, list) else got == value


@pytest.mark.parametrize("path,field,pick", SELECTIONS,
                         ids=[f"{p}:{f}" for p, f, _ in SELECTIONS])
def test_new_fields_select_exactly_the_matching_items(api, objects, path, field, pick):
    url = concrete(path, objects)
    everything = api.all_pages(url)
    value = pick(everything)
    want = [i for i in everything if holds(i, field, value)]
    assert want and len(want) < len(everything), (field, value, everything)
    got = api.all_pages(url, headers={"X-Filter": json.dumps({field: value})})
    assert got == want, (field, value)
    # +neq selects the others.
    rest = api.all_pages(url, headers={"X-Filter": json.dumps({field: {"+neq": value}})})
    assert rest == [i for i in everything if not holds(i, field, value)], (field, value)


@pytest.mark.parametrize("path,field", [("/regions", "resolvers"), ("/linode/types", "price"),
                                        ("/databases/types", "engines"),
                                        ("/domains", "errors"),
                                        ("/databases/instances", "hosts"),
                                        ("/regions/vpc-availability", "plan")])
def test_other_keys_still_refused(api, path, field):
    """Objects and keys no client filters on stay refused, as every field
    a list does not name."""
    r = api.get(path, headers={"X-Filter": json.dumps({field: "x"})})
    assert_error(r, 400, f"Cannot filter on {field}", "X-Filter")
