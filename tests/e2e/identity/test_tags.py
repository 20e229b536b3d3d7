"""Tags (/tags), objects registered by the operator (`acctapi-admin entity`)
and grants set with `acctapi-admin grant`: what a restricted user may then
do with domains."""

import secrets
from urllib.parse import quote

import harness
from checks import assert_error, assert_json


def new_domain(client):
    r = client.post("/domains", json={
        "domain": f"tags-{secrets.token_hex(5)}.example", "type": "master",
        "soa_email": "hostmaster@example.com"})
    assert r.status == 200, r
    return r.json


def entity_id():
    return secrets.randbelow(2**40) + 1000


def register(backend, account, kind, label):
    n = entity_id()
    out = backend.admin("entity", "add", "--account", str(account), "--type", kind,
                        "--id", str(n), "--label", label)
    assert out == str(n)
    return n


def tag_labels(client):
    return [t["label"] for t in client.all_pages("/tags")]


def test_tag_lifecycle(backend, server):
    acct = harness.Account(backend, server, stem="e2e-tags-")
    try:
        c = acct.client
        domain = new_domain(c)
        vm = register(backend, acct.id, "instance", "web-1")
        vol = register(backend, acct.id, "volume", "data-1")
        nb = register(backend, acct.id, "nodebalancer", "lb-1")
        label = f"prod {secrets.token_hex(3)}"
        r = c.post("/tags", json={"label": label, "domains": [domain["id"]],
                                  "instances": [vm], "volumes": [vol],
                                  "nodebalancers": [nb]})
        assert assert_json(r) == {"label": label}
        assert_error(c.post("/tags", json={"label": label}), 400,
                     "Tag already exists", "label")
        assert c.post("/tags", json={"label": "aaa-first"}).status == 200
        assert tag_labels(c) == ["aaa-first", label]
        r = c.get("/tags", xfilter={"label": label})
        assert assert_json(r)["data"] == [{"label": label}]

        objs = assert_json(c.get(f"/tags/{quote(label)}"))
        assert objs["results"] == 4 and objs["pages"] == 1
        by_type = {o["type"]: o["data"] for o in objs["data"]}
        assert by_type["domain"] == assert_json(c.get(f"/domains/{domain['id']}"))
        assert by_type["domain"]["tags"] == [label]
        # An instance's type is the public API's value (docs/conventions.md, today's
        # clients: "the public API's value (linode) is sent").
        # A registered object is the whole public object, as its view shows it.
        for kind, path, n, name in (("linode", "/linode/instances", vm, "web-1"),
                                    ("volume", "/volumes", vol, "data-1"),
                                    ("nodebalancer", "/nodebalancers", nb, "lb-1")):
            assert (by_type[kind]["id"], by_type[kind]["label"], by_type[kind]["tags"]) \
                == (n, name, [label]), by_type[kind]
            assert by_type[kind] == assert_json(c.get(f"{path}/{n}")), kind
        assert assert_json(c.get("/tags/aaa-first"))["data"] == []

        # Domains see tags made through /tags.
        found = c.get("/domains", xfilter={"tags": label})
        assert [d["id"] for d in assert_json(found)["data"]] == [domain["id"]]

        # Unregistering an object takes its tag along.
        assert backend.admin("entity", "remove", "--type", "nodebalancer",
                             "--id", str(nb)) == ""
        assert assert_json(c.get(f"/tags/{quote(label)}"))["results"] == 3

        assert assert_json(c.delete(f"/tags/{quote(label)}")) == {}
        assert_error(c.get(f"/tags/{quote(label)}"), 404, "Not found")
        assert_error(c.delete(f"/tags/{quote(label)}"), 404, "Not found")
        assert assert_json(c.get(f"/domains/{domain['id']}"))["tags"] == []
        assert tag_labels(c) == ["aaa-first"]
        assert c.get("/domains", xfilter={"tags": label}).json["results"] == 0
    finally:
        acct.close()


def test_create_all_or_nothing(backend, server):
    mine = harness.Account(backend, server, stem="e2e-tags-")
    theirs = harness.Account(backend, server, stem="e2e-tags-")
    try:
        c = mine.client
        own = new_domain(c)
        other = new_domain(theirs.client)
        their_vm = register(backend, theirs.id, "instance", "theirs")
        my_vol = register(backend, mine.id, "volume", "mine")
        label = f"nope-{secrets.token_hex(3)}"
        r = c.post("/tags", json={"label": label, "domains": [own["id"], other["id"]],
                                  "volumes": [my_vol]})
        errs = assert_error(r, 400, None, "domains[1]")
        r = c.post("/tags", json={"label": label, "instances": [their_vm, 999999]})
        errs = assert_error(r, 400, None, None, only=False)
        assert [e["field"] for e in errs] == ["instances[0]", "instances[1]"]
        r = c.post("/tags", json={"label": label, "volumes": [entity_id()]})
        assert_error(r, 400, None, "volumes[0]")
        assert label not in tag_labels(c)
        assert assert_json(c.get(f"/domains/{own['id']}"))["tags"] == []
        assert_error(c.get(f"/tags/{label}"), 404, "Not found")
        assert_error(c.post("/tags", json={"label": "xy"}), 400, None, "label")
        assert_error(c.post("/tags", json={}), 400, None, "label")
        # Another account's tags are invisible.
        assert theirs.client.post("/tags", json={"label": label}).status == 200
        assert label not in tag_labels(c)
        assert_error(c.get(f"/tags/{label}"), 404, "Not found")
        assert_error(c.delete(f"/tags/{label}"), 404, "Not found")
    finally:
        mine.close()
        theirs.close()


def test_restricted_users_refused(backend, server):
    acct = harness.Account(backend, server, stem="e2e-tags-")
    try:
        label = f"owned-{secrets.token_hex(3)}"
        assert acct.client.post("/tags", json={"label": label}).status == 200
        uid, limited = acct.user(restricted=True)
        backend.admin("grant", "global", "--user", str(uid),
                      "account_access=read_write", "add_domains=true")
        for method, path, body in [("GET", "/tags", None),
                                   ("POST", "/tags", {"label": "restricted-x"}),
                                   ("GET", f"/tags/{label}", None),
                                   ("DELETE", f"/tags/{label}", None)]:
            assert_error(limited.request(method, path, json=body), 403, "Unauthorized")
        assert label in tag_labels(acct.client)
    finally:
        acct.close()


def test_domain_grants_from_cli(backend, server):
    acct = harness.Account(backend, server, stem="e2e-tags-")
    try:
        domain = new_domain(acct.client)
        path = f"/domains/{domain['id']}"
        uid, limited = acct.user(restricted=True)
        assert_error(limited.get(path), 403, "Unauthorized")
        assert backend.admin("grant", "entity", "--user", str(uid), "--type", "domain",
                             "--id", str(domain["id"]), "--permissions", "read_only") == ""
        assert assert_json(limited.get(path))["id"] == domain["id"]
        assert_error(limited.put(path, json={"description": "x"}), 403, "Unauthorized")
        backend.admin("grant", "entity", "--user", str(uid), "--type", "domain",
                      "--id", str(domain["id"]), "--permissions", "read_write")
        assert assert_json(limited.put(path, json={"description": "x"}))["description"] == "x"
        backend.admin("grant", "entity", "--user", str(uid), "--type", "domain",
                      "--id", str(domain["id"]), "--permissions", "none")
        assert_error(limited.get(path), 403, "Unauthorized")

        # add_domains lets it create one (and become its read_write grantee).
        assert_error(limited.post("/domains", json={
            "domain": f"r-{secrets.token_hex(5)}.example", "type": "master",
            "soa_email": "hostmaster@example.com"}), 403, "Unauthorized")
        backend.admin("grant", "global", "--user", str(uid), "add_domains=true")
        mine = new_domain(limited)
        assert assert_json(limited.put(f"/domains/{mine['id']}",
                                       json={"description": "y"}))["description"] == "y"
        backend.admin("grant", "global", "--user", str(uid), "add_domains=false")
        assert limited.post("/domains", json={
            "domain": f"r-{secrets.token_hex(5)}.example", "type": "master",
            "soa_email": "hostmaster@example.com"}).status == 403
    finally:
        acct.close()


def admin_fails(backend, code, message, *args):
    p = backend.admin(*args, check=False)
    assert p.returncode == code, p
    assert p.stdout == ""
    assert message in p.stderr, p.stderr


def test_cli_errors(backend, server):
    acct = harness.Account(backend, server, stem="e2e-tags-")
    other = harness.Account(backend, server, stem="e2e-tags-")
    try:
        uid, _ = acct.user(restricted=True)
        n = register(backend, acct.id, "vpc", "net-1")
        theirs = register(backend, other.id, "image", "img")
        user = str(uid)
        # usage errors: 2
        admin_fails(backend, 2, "invalid type 'server'", "entity", "add", "--account",
                    str(acct.id), "--type", "server", "--id", "5", "--label", "x")
        admin_fails(backend, 2, "--id expects a positive integer", "entity", "remove",
                    "--type", "vpc", "--id", "0")
        admin_fails(backend, 2, "missing --label", "entity", "add", "--account",
                    str(acct.id), "--type", "vpc", "--id", "5")
        admin_fails(backend, 2, "invalid value 'yes' for add_domains", "grant", "global",
                    "--user", user, "add_domains=yes")
        admin_fails(backend, 2, "'root=true' is not KEY=VALUE", "grant", "global",
                    "--user", user, "root=true")
        admin_fails(backend, 2, "missing KEY=VALUE", "grant", "global", "--user", user)
        admin_fails(backend, 2, "given twice", "grant", "global", "--user", user,
                    "add_vpcs=true", "add_vpcs=false")
        admin_fails(backend, 2, "invalid permissions 'all'", "grant", "entity", "--user",
                    user, "--type", "vpc", "--id", str(n), "--permissions", "all")
        # runtime failures: 1
        admin_fails(backend, 1, "is registered already", "entity", "add", "--account",
                    str(acct.id), "--type", "vpc", "--id", str(n), "--label", "again")
        admin_fails(backend, 1, "no account with id", "entity", "add", "--account",
                    "999999999", "--type", "vpc", "--id", str(entity_id()), "--label", "x")
        admin_fails(backend, 1, "no vpc with id", "entity", "remove", "--type", "vpc",
                    "--id", str(entity_id()))
        admin_fails(backend, 1, "no image with id", "grant", "entity", "--user", user,
                    "--type", "image", "--id", str(theirs), "--permissions", "read_only")
        admin_fails(backend, 1, "no user", "grant", "global", "--user",
                    "e2e-nobody-" + secrets.token_hex(4), "add_vpcs=true")

        backend.admin("grant", "entity", "--user", user, "--type", "vpc", "--id", str(n),
                      "--permissions", "read_write")
        backend.admin("grant", "global", "--user", user, "account_access=read_only",
                      "add_vpcs=true", "monitoring_subscription=true")
        rows = backend.query("SELECT account_access, add_vpcs, monitoring_subscription,"
                             f" add_domains FROM user_global_grants WHERE user_id = {uid}")
        assert rows == [["read_only", "1", "1", "0"]]
        backend.admin("grant", "global", "--user", user, "account_access=none")
        rows = backend.query("SELECT account_access, add_vpcs FROM user_global_grants"
                             f" WHERE user_id = {uid}")
        assert rows == [[None, "1"]]
        assert backend.query("SELECT permissions FROM entity_grants WHERE user_id ="
                             f" {uid} AND entity_type = 'vpc'") == [["read_write"]]
        backend.admin("entity", "remove", "--type", "vpc", "--id", str(n))
        assert backend.query("SELECT permissions FROM entity_grants WHERE user_id ="
                             f" {uid} AND entity_type = 'vpc'") == []
        p = backend.admin("grant", "--help", check=False)
        assert p.returncode == 0 and "grant entity" in p.stdout
    finally:
        acct.close()
        other.close()


def test_concurrent_creates_of_one_label(server, backend):
    """50 creates of one label over separate connections: exactly one wins,
    the others get the duplicate refusal, and one tag exists."""
    acct = harness.Account(backend, server, stem="e2e-tagrace-")
    try:
        label = f"race-{secrets.token_hex(4)}"
        results = harness.race(server, acct.client.token,
                               [("POST", "/tags", {"label": label})] * 50)
        ok = [body for status, body in results if status == 200]
        refused = [body for status, body in results if status == 400]
        assert len(ok) == 1 and len(refused) == 49, results
        assert all(b["errors"][0]["reason"] == "Tag already exists" for b in refused), refused
        labels = [t["label"] for t in acct.client.all_pages("/tags")]
        assert labels.count(label) == 1, labels
    finally:
        acct.close()


def test_linodes_is_the_public_name_of_instances(backend, server):
    """Today's clients (linode_api4's tags.create()) send `linodes`: accepted
    as `instances`; both with different ids is a 400 naming `linodes`, and
    bad ids are named as the client named the field (docs/conventions.md, today's
    clients)."""
    acct = harness.Account(backend, server, stem="e2e-tags-")
    try:
        c = acct.client
        vm = register(backend, acct.id, "instance", "web-2")
        other = register(backend, acct.id, "instance", "web-3")
        label = f"pub {secrets.token_hex(3)}"
        r = c.post("/tags", json={"label": label, "linodes": [vm]})
        assert assert_json(r) == {"label": label}
        objs = assert_json(c.get(f"/tags/{quote(label)}"))
        assert [o["data"]["id"] for o in objs["data"]] == [vm]
        # The same ids under both names: one tag link each.
        both = f"both {secrets.token_hex(3)}"
        r = c.post("/tags", json={"label": both, "linodes": [vm], "instances": [vm]})
        assert assert_json(r) == {"label": both}
        assert assert_json(c.get(f"/tags/{quote(both)}"))["results"] == 1
        # Different ids: refused, nothing created.
        clash = f"clash {secrets.token_hex(3)}"
        assert_error(c.post("/tags", json={"label": clash, "linodes": [vm],
                                           "instances": [other]}), 400,
                     "linodes and instances name the same objects; give one, or the "
                     "same ids in both", "linodes")
        assert clash not in tag_labels(c)
        assert_error(c.post("/tags", json={"label": clash, "linodes": [0]}), 400,
                     "Instance ids are positive integers", "linodes[0]")
    finally:
        acct.close()
