"""Every field the public API marks filterable, on every list this module
serves, is filterable here (DECISIONS.md, "Today's clients": X-Filter).

The facts: the fields the public API's document marks `x-linode-filterable`
on each list's items.  The newest release of linode-api-docs whose document
still carries the marks is 4.176.0 (later releases dropped them); the lists
this module added later take their fields from the clients that filter on
them (the Terraform provider's `linode_regions` filters on `site_type`).
Each field is checked twice: listed in the module's OpenAPI document, and
accepted by the server, answered 200: as a `+order_by` (which, like every
filter, takes only filterable fields), or for a list field (`tags`), which
has no order, as the membership test clients send (`{"tags": "x"}`).
"""

import json

import pytest

from checks import assert_envelope
from harness import OPENAPI_DOC

# list path -> the public API's filterable fields of its items.
PUBLIC_FILTERABLE = {
    "/regions": ["site_type"],
    "/regions/availability": ["available", "plan", "region"],
    "/linode/types": ["class", "disk", "gpus", "label", "memory", "network_out",
                      "transfer", "vcpus"],
    "/databases/engines": ["engine", "version"],
    "/databases/types": ["deprecated"],
    "/profile/apps": ["created", "expiry", "label"],
    "/profile/tokens": ["created", "label"],
    "/domains": ["domain", "group", "tags"],
    "/domains/{domainId}/records": ["name", "tag", "target", "type"],
    "/account/users": ["username"],
    "/linode/instances": ["group", "id", "image", "ipv4", "label", "region", "tags"],
    "/volumes": ["label", "tags"],
    "/nodebalancers": ["ipv4", "label", "region", "tags"],
    "/images": ["deprecated", "is_public", "label", "size", "status", "type", "vendor"],
    "/account/events": ["action", "created", "entity.id", "entity.type", "id", "read"],
    "/databases/instances": ["engine", "label", "region", "status", "type", "version"],
    "/databases/mysql/instances": ["engine", "label", "region", "status", "type", "version"],
    "/databases/postgresql/instances": ["engine", "label", "region", "status", "type",
                                        "version"],
    "/databases/mysql/instances/{instanceId}/backups": ["created", "type"],
    "/databases/postgresql/instances/{instanceId}/backups": ["created", "type"],
}


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


@pytest.mark.parametrize("path", sorted(PUBLIC_FILTERABLE))
def test_public_filterable_fields_are_documented(doc, path):
    missing = set(PUBLIC_FILTERABLE[path]) - documented_fields(doc, path)
    assert not missing, f"{path}: not filterable here: {sorted(missing)}"


@pytest.fixture(scope="module")
def objects(server, backend):
    """A domain and a database of each engine of the shared account, for the
    nested lists."""
    c = server.client(token=backend.token)
    try:
        name = backend.unique("pubfilter-") + ".example"
        r = c.post("/domains", json={"domain": name, "type": "master",
                                     "soa_email": "hostmaster@example.com"})
        assert r.status == 200, r
        domain = r.json["id"]
        dbs = {}
        for engine, version in (("mysql", "mysql/8"), ("postgresql", "postgresql/16")):
            r = c.post(f"/databases/{engine}/instances", json={
                "label": backend.unique("pf-")[:32], "region": "us-east",
                "type": "g6-nanode-1", "engine": version})
            assert r.status == 200, r
            dbs[engine] = r.json["id"]
            # Provisioned: its backups list answers.
            backend.admin("database", "set-status", str(dbs[engine]), "active")
        yield {"domainId": domain, "mysql": dbs["mysql"], "postgresql": dbs["postgresql"]}
    finally:
        c.close()


@pytest.mark.parametrize("path,field", [(p, f) for p in sorted(PUBLIC_FILTERABLE)
                                        for f in PUBLIC_FILTERABLE[p]])
def test_public_filterable_fields_are_accepted(api, objects, path, field):
    engine = "postgresql" if "/postgresql/" in path else "mysql"
    concrete = path.replace("{domainId}", str(objects["domainId"])) \
                   .replace("{instanceId}", str(objects[engine]))
    xfilter = {field: "pubfilter"} if field == "tags" else {"+order_by": field,
                                                              "+order": "desc"}
    r = api.get(concrete, headers={"X-Filter": json.dumps(xfilter)})
    assert r.status == 200, (field, r)
    assert_envelope(r.json)
