"""What today's clients call, read and filter on answers here (docs/clients.md,
"Keeping up with the clients"): the facts client_facts.json holds (written by
extract-client-facts from the clients' newest releases: linodego's
recorded traffic, linode_api4's calls and filters, the Terraform provider's
list filters), checked against this build on a running server.

- Every route of the facts this module serves, or that belongs to what it
  serves (FAMILIES: a path under one of them, with any method), answers:
  neither 404 nor 405, and a success status a client recorded for it.
- Every key the clients' recorded answers of a served route hold is in
  this module's answers of that route (the union over its answers, as the
  facts are the union over the recorded ones), with a compatible JSON type:
  integer and number go together; null only where a client recorded null;
  a key recorded only as null may have any type.  A recorded key below a
  list or object the module's answers leave empty or null cannot be seen
  there: that fails too, since the scenario is to make every recorded key
  visible.
- Every field a client filters a served list on is accepted in X-Filter
  (200): as +order_by, and as an equality on a value the list shows (a
  list-valued field, such as tags, as membership, which has no order).

One module-scoped scenario per backend creates what the routes need (a
user of its own, domains and records, a zone to import from a private
named, tags on registered objects, a login, a device, apps, tokens, SSH
keys, two-factor authentication, a phone number, a MySQL and a PostgreSQL
database) and calls every route of the facts in scope once or more; each
test then looks at what the answers were.

Where this module differs on purpose, ROUTE_EXCEPTIONS, KEY_EXCEPTIONS and
FILTER_EXCEPTIONS say so, each with its reason; an entry that no longer
matches a difference fails (remove it), so the tables cannot go stale.
"""

import json
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import pytest

import harness
from accounts import world_fixture
from harness import ADMIN, run
from named import Named
from otp import server_now, totp

FACTS_FILE = Path(__file__).with_name("client_facts.json")
FACTS = json.loads(FACTS_FILE.read_text())
ROUTES = FACTS["routes"]
FILTERABLE = FACTS["filterable"]


# ---------------------------------------------------------------------------
# What this module serves, and what it leaves to others
# ---------------------------------------------------------------------------

def template(path):
    return re.sub(r"\{[^}]*\}", "{}", path.replace("...}", "}"))


def route_table():
    out = run([str(ADMIN), "routes"]).stdout
    rows = []
    for line in out.splitlines():
        method, path = line.split("\t")[:2]
        if path.startswith("/v4/"):
            rows.append((method, template(path[len("/v4"):])))
    return rows


SERVED = {f"{m} {p}" for m, p in route_table()}

# The path families this module answers for, every method: a route of the
# facts under one of them and not served is a route to add (or an entry of
# ROUTE_EXCEPTIONS).  The read-only views of objects other services own
# (/account/users, /linode/instances, /volumes, /nodebalancers, /images)
# are in scope only as far as the route table serves them.
FAMILIES = ("/regions", "/linode/types", "/databases", "/profile", "/domains", "/tags",
            "/account/events")

R_WHITELIST = ("the IP whitelist is retired: linode_api4 itself marks it \"DEPRECATED: "
               "Limited to customers with a feature tag\", and this module has no IP "
               "whitelist (docs/clients.md: PUT /profile refuses ip_whitelist_enabled: true)")
ROUTE_EXCEPTIONS = {
    "GET /profile/whitelist": R_WHITELIST,
    "POST /profile/whitelist": R_WHITELIST,
}


def in_family(route):
    path = route.split(" ", 1)[1]
    return any(path == f or path.startswith(f + "/") for f in FAMILIES)


def in_scope(route):
    return route in SERVED or (in_family(route) and route not in ROUTE_EXCEPTIONS)


def clients_of(route):
    """'linodego: TestA, TestB; linode_api4: groups/x.py' for messages."""
    return "; ".join(f"{c}: {', '.join(where)}"
                     for c, where in ROUTES.get(route, {}).get("clients", {}).items())


@dataclass(frozen=True)
class KeyException:
    """Keys of the answers of `routes` (each key matched by the regular
    expression `keys`, anchored) that this module answers otherwise on
    purpose."""
    routes: tuple
    keys: str
    why: str


@dataclass(frozen=True)
class FilterException:
    """Filter fields `fields` of the lists `routes` this module refuses on
    purpose."""
    routes: tuple
    fields: tuple
    why: str


R_ENTITY_ID = ("the public document's own text: \"Tag Events use a tag's name for the "
               "entity ID field\" (a string here) and account and profile events have no "
               "id (null here); linodego's recordings hold no such event, so they saw "
               "integers only (docs/clients.md, \"Response shapes\")")
R_SECONDARY = ("every recorded event with a secondary entity is an instance's (linode_boot, "
               "linode_config_create, disk_*, linode_create from an image); this module "
               "writes events of its own objects only (databases, DNS, tokens, SSH keys, "
               "profile, tags), none of which has a secondary entity in the recorded "
               "traffic, so secondary_entity is always null here")
R_OPERATOR_USER = ("the one event without a username is the operator's user_create "
                   "(acctapi-admin user create: no user of the API acts); the public "
                   "document types username nullable")
R_RESERVED_IP = ("tags hold domains, instances, node balancers and volumes here; reserved "
                 "IPv4 addresses belong to the networking service this module does not "
                 "serve (docs/clients.md: POST /tags ignores reserved_ipv4_addresses)")
R_REGISTERED = ("an object another service owns is registered here by id and label only "
                "(acctapi-admin entity add); what only its owner knows (addresses, "
                "capabilities, placement group, locks, an image's regions and description) "
                "is empty or null in its read-only view")

R_STANDBY = ("a single-node cluster has no standby: null here (docs/configuration.md, "
             "AcctapiDatabaseHostNames public); linodego's recordings hold 3-node clusters "
             "only, and the Terraform provider's single-node tests expect none")
DB_HOST_ROUTES = ("GET /databases/instances", "GET /databases/mysql/instances",
                  "GET /databases/postgresql/instances", "POST /databases/mysql/instances",
                  "POST /databases/postgresql/instances")

KEY_EXCEPTIONS = [
    KeyException(DB_HOST_ROUTES, r"(data\[\]\.)?hosts\.standby", R_STANDBY),
    KeyException(("GET /account/events",), r"data\[\]\.entity\.id", R_ENTITY_ID),
    KeyException(("GET /account/events", "GET /account/events/{}"),
                 r"(data\[\]\.)?secondary_entity\.\w+", R_SECONDARY),
    KeyException(("GET /account/events",), r"data\[\]\.username", R_OPERATOR_USER),
    KeyException(("GET /tags/{}",), r"data\[reserved_ipv4_address\].*", R_RESERVED_IP),
    KeyException(("GET /linode/instances", "GET /linode/instances/{}", "GET /tags/{}"),
                 r"(data\[(linode)?\]\.)?(data\.)?(capabilities\[\]|ipv4\[\]|ipv6|"
                 r"locks\[\]|placement_group\.\w+)", R_REGISTERED),
    KeyException(("GET /images", "GET /images/{}"),
                 r"(data\[\]\.)?(capabilities\[\]|regions\[\](\.\w+)?)", R_REGISTERED),
    KeyException(("GET /images/{}",), r"description", R_REGISTERED),
    KeyException(("GET /nodebalancers", "GET /nodebalancers/{}"),
                 r"(data\[\]\.)?(ipv6|locks\[\])", R_REGISTERED),
]
FILTER_EXCEPTIONS = []


def key_exception(route, key):
    for e in KEY_EXCEPTIONS:
        if route in e.routes and re.fullmatch(e.keys, key):
            return e
    return None


def filter_exception(route, name):
    for e in FILTER_EXCEPTIONS:
        if route in e.routes and name in e.fields:
            return e
    return None


# ---------------------------------------------------------------------------
# Keys and types of an answer, as extract-client-facts reads a recorded one
# ---------------------------------------------------------------------------

def json_type(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "integer" if v.is_integer() else "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def keyed_by_data(obj):
    return bool(obj) and all(re.fullmatch(r"[0-9a-fA-F:.]+|\d+", k) and
                             (re.search(r"[.:]", k) or k.isdigit()) for k in obj)


def typed_item(v):
    if isinstance(v, dict) and set(v) == {"type", "data"} and isinstance(v["type"], str) \
            and isinstance(v["data"], dict):
        return v["type"]
    return ""


def walk_keys(value, path, out):
    """out[path] |= the JSON types at path (the facts' notation: dotted
    keys, `[]` for list items, `[TYPE]` for the items of a typed list,
    `{}` for the values of an object keyed by data)."""
    if isinstance(value, dict):
        if keyed_by_data(value):
            for v in value.values():
                sub = f"{path}.{{}}" if path else "{}"
                out.setdefault(sub, set()).add(json_type(v))
                walk_keys(v, sub, out)
            return
        for k, v in value.items():
            sub = f"{path}.{k}" if path else k
            out.setdefault(sub, set()).add(json_type(v))
            walk_keys(v, sub, out)
    elif isinstance(value, list):
        for v in value:
            sub = f"{path}[{typed_item(v)}]"
            out.setdefault(sub, set()).add(json_type(v))
            walk_keys(v, sub, out)


def parent_of(key):
    """The path the key hangs from ('' for a top-level key)."""
    m = re.fullmatch(r"(.*)\[[^\]]*\]", key)
    if m:
        return m.group(1)
    if key.endswith(".{}"):
        return key[:-3]
    m = re.match(r"(.*?)\.?([^.\[\]]+)$", key)
    return m.group(1) if m else ""


def compatible(seen, recorded):
    """The types this module answered, against the types recorded."""
    recorded = set(recorded)
    if recorded == {"null"}:
        return []               # a client that saw only null tells no type
    numeric = {"integer", "number"}
    bad = []
    for t in sorted(seen):
        if t in recorded or (t in numeric and recorded & numeric):
            continue
        bad.append(t)
    return bad


def key_problem(answer_keys, key, recorded):
    """None, or why `key` (recorded with the types `recorded`) is not in
    the answers whose keys and types are `answer_keys`."""
    if key in answer_keys:
        bad = compatible(answer_keys[key], recorded)
        if bad:
            return (f"{'/'.join(sorted(answer_keys[key]))} here, recorded "
                    f"{'/'.join(recorded)}")
        return None
    up = parent_of(key)
    while up and up not in answer_keys:
        up = parent_of(up)
    if not up:
        return "missing"
    types = answer_keys[up]
    m = re.match(re.escape(up) + r"\[([^\]]+)\]", key)
    if m:
        return f"no {m.group(1)} item in {up} here"
    if "object" in types:
        return "missing"
    return (f"not seen: {up} is {'/'.join(sorted(types))} (empty or null) in every answer "
            f"here; the scenario must make it hold a value")


# ---------------------------------------------------------------------------
# The scenario
# ---------------------------------------------------------------------------

def route_of(method, path):
    """The route (METHOD template) of the facts, or of the route table, a
    concrete path stands for: the template with the most literal segments
    (the earlier ones weigh more)."""
    segs = path.split("?")[0].strip("/").split("/")
    best, score_best = None, -1
    for key in set(ROUTES) | SERVED:
        m, t = key.split(" ", 1)
        tsegs = t.strip("/").split("/")
        if m != method or len(tsegs) != len(segs):
            continue
        score = 0
        for a, b in zip(tsegs, segs):
            score <<= 1
            if a == "{}":
                continue
            if a != b:
                break
            score |= 1
        else:
            if score > score_best:
                best, score_best = key, score
    return best or f"{method} {path}"


class World:
    """One account and everything the routes need, every route of the
    facts in scope called; answers[route] holds what they answered."""

    def __init__(self, backend, server):
        self.backend = backend
        self.server = server
        self.answers = {}
        self.ids = {}           # path template up to a {} -> the id to put there
        self.acct = harness.Account(backend, server, stem="e2e-facts-")
        self.c = self.acct.client
        try:
            self.scenario()
        except BaseException:
            self.acct.close()
            raise
        finally:
            backend.admin("clock", "reset")

    def close(self):
        self.acct.close()

    def call(self, method, path, **kw):
        r = self.c.request(method, path, **kw)
        self.answers.setdefault(route_of(method, path), []).append(r)
        return r

    def ok(self, method, path, **kw):
        r = self.call(method, path, **kw)
        assert 200 <= r.status < 300, r
        return r.json if r.body else None

    def admin(self, *args):
        return self.backend.admin(*args)

    def unique(self, stem):
        return self.backend.unique(stem)

    def concrete(self, route):
        """The route's path with the ids of this world in place of {}."""
        out, so_far = [], []
        for seg in route.split(" ", 1)[1].strip("/").split("/"):
            so_far.append(seg)
            if seg == "{}":
                at = "/" + "/".join(so_far)
                assert at in self.ids, f"{route}: no id for {at} in this world"
                out.append(quote(str(self.ids[at]), safe=""))
            else:
                out.append(seg)
        return "/" + "/".join(out)

    # ---- what the routes need ---------------------------------------------

    def scenario(self):
        self.catalogue()
        self.profile()
        self.domains()
        self.registered()
        self.databases()
        self.events()
        self.every_get()
        self.deletes()

    def catalogue(self):
        """The richest item of each catalogue (most keys in its answer: a
        type with region prices, say) is the one whose id the routes get."""
        for path, at in (("/regions", "/regions/{}"), ("/linode/types", "/linode/types/{}"),
                         ("/databases/engines", "/databases/engines/{}"),
                         ("/databases/types", "/databases/types/{}")):
            items = self.ok("GET", path)["data"]
            self.ids[at] = richest(items)["id"]
        self.engines = {}
        for e in self.answers["GET /databases/engines"][-1].json["data"]:
            self.engines.setdefault(e["engine"], e["id"])

    def profile(self):
        me = self.ok("GET", "/profile")
        self.username = me["username"]
        self.ids["/account/users/{}"] = me["username"]
        self.ok("PUT", "/profile", json={"timezone": "Europe/Paris"})
        self.ok("GET", "/profile/preferences")
        self.ok("PUT", "/profile/preferences", json={"theme": "dark"})

        uid = str(self.acct.uid)
        self.ids["/profile/logins/{}"] = int(self.admin("login", "record", "--user", uid,
                                                        "--ip", "203.0.113.7"))
        self.ids["/profile/devices/{}"] = int(self.admin(
            "device", "add", "--user", uid, "--ip", "198.51.100.23",
            "--user-agent", "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0"))
        self.ids["/profile/apps/{}"] = self.admin(
            "app", "authorize", "--user", uid, "--label", "facts-app", "--scopes",
            "account:read_only", "--website", "https://example.com",
            "--thumbnail-url", "https://example.com/t.png",
            "--expiry", "2099-01-01T00:00:00").split("\n")[0]

        tok = self.ok("POST", "/profile/tokens", json={"label": "facts-token",
                                                       "scopes": "domains:read_only",
                                                       "expiry": "2099-01-01T00:00:00"})
        self.ids["/profile/tokens/{}"] = tok["id"]
        self.ok("PUT", f"/profile/tokens/{tok['id']}", json={"label": "facts-token-2"})
        key = ("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"
               " facts@example")
        k = self.ok("POST", "/profile/sshkeys", json={"label": "facts-key", "ssh_key": key})
        self.ids["/profile/sshkeys/{}"] = k["id"]
        self.ok("PUT", f"/profile/sshkeys/{k['id']}", json={"label": "facts-key-2"})

        # Two-factor authentication: questions answered, enable, confirm, disable.
        self.ok("POST", "/profile/security-questions", json={"security_questions": [
            {"question_id": 1, "response": "Paris"}, {"question_id": 5, "response": "Oak Hill"},
            {"question_id": 12, "response": "Porto"}]})
        secret = self.ok("POST", "/profile/tfa-enable")["secret"]
        self.ok("POST", "/profile/tfa-enable-confirm",
                json={"tfa_code": totp(secret, server_now(self.backend))})
        self.ok("POST", "/profile/tfa-disable")

        # A phone number: a code sent (read from the SMS sink), verified, deleted.
        rest = f"{secrets.randbelow(10**6):06d}"
        e164 = f"+4477009{rest}"
        self.ok("POST", "/profile/phone-number",
                json={"iso_code": "gb", "phone_number": f"07700 9{rest[:2]} {rest[2:]}"})
        code = None
        for line in self.server.sms_log.read_text().splitlines():
            m = re.match(r"^\S+ (\+\d+) Your verification code is (\d{6})\b", line)
            if m and m.group(1) == e164:
                code = m.group(2)
        assert code, f"no code texted to {e164}"
        self.ok("POST", "/profile/phone-number/verify", json={"otp_code": code})
        self.ok("DELETE", "/profile/phone-number")

    def new_zone(self):
        return f"facts-{secrets.token_hex(4)}.example"

    def domains(self):
        d = self.ok("POST", "/domains", json={
            "domain": self.new_zone(), "type": "master", "soa_email": "hostmaster@example.com",
            "group": "facts", "description": "facts", "tags": ["facts-tag"]})
        self.ids["/domains/{}"] = d["id"]
        self.ok("PUT", f"/domains/{d['id']}", json={"ttl_sec": 7200})
        self.ok("POST", "/domains", json={"domain": self.new_zone(), "type": "slave",
                                          "master_ips": ["192.0.2.1"]})
        self.clone = self.ok("POST", f"/domains/{d['id']}/clone",
                             json={"domain": self.new_zone()})
        made = [self.ok("POST", f"/domains/{d['id']}/records", json=rec) for rec in (
            {"type": "A", "name": "www", "target": "192.0.2.10", "ttl_sec": 300},
            {"type": "MX", "name": "", "target": "mail.example.com", "priority": 10},
            {"type": "SRV", "service": "sip", "protocol": "tcp", "target": "sip.example.com",
             "priority": 10, "weight": 5, "port": 5060},
            {"type": "CAA", "name": "", "tag": "issue", "target": "letsencrypt.org"},
            {"type": "TXT", "name": "gone", "target": "v=spf1 -all"},
        )]
        self.ids["/domains/{}/records/{}"] = made[0]["id"]
        self.ok("PUT", f"/domains/{d['id']}/records/{made[0]['id']}", json={"ttl_sec": 600})
        self.gone_record = made[-1]["id"]

        zone = self.new_zone()
        ns = Named(self.backend.base, "facts")
        ns.add_zone(zone, f"$TTL 3600\n@ IN SOA ns1.old-dns.test. hostmaster.{zone}. "
                          f"2024010101 10800 3600 1209600 300\n@ IN NS ns1.old-dns.test.\n"
                          f"www IN A 192.0.2.11\n")
        ns.start()
        try:
            self.ok("POST", "/domains/import", json={"domain": zone,
                                                     "remote_nameserver": ns.address})
        finally:
            ns.stop()

    def registered(self):
        """Objects other services own, registered, tagged with the domain."""
        ids = {}
        for kind in ("instance", "volume", "nodebalancer", "image"):
            n = secrets.randbelow(2**40) + 1000
            self.admin("entity", "add", "--account", str(self.acct.id), "--type", kind,
                       "--id", str(n), "--label", f"facts-{kind}")
            ids[kind] = n
        self.ids["/linode/instances/{}"] = ids["instance"]
        self.ids["/volumes/{}"] = ids["volume"]
        self.ids["/nodebalancers/{}"] = ids["nodebalancer"]
        images = [i for i in self.ok("GET", "/images")["data"] if i["label"] == "facts-image"]
        assert images, "the registered image is not listed"
        self.ids["/images/{}"] = images[0]["id"]
        self.tag = f"facts {secrets.token_hex(3)}"
        self.ok("POST", "/tags", json={"label": self.tag, "domains": [self.ids["/domains/{}"]],
                                       "linodes": [ids["instance"]], "volumes": [ids["volume"]],
                                       "nodebalancers": [ids["nodebalancer"]]})
        self.ids["/tags/{}"] = self.tag

    def databases(self):
        """A database of each engine with every setting its config document
        lists (as linodego's engine-config tests set them), taken through
        every operation, and one more without settings (as its plain
        database tests create them), deleted at the end.  The test clock
        moves each operation to its end."""
        self.dbs = {}
        for engine, size in (("mysql", "g6-nanode-1"), ("postgresql", "g6-standard-2")):
            base = f"/databases/{engine}/instances"
            config = self.ok("GET", f"/databases/{engine}/config")
            # Three nodes, as linodego's recorded creates ask: a cluster
            # with replicas has a standby host.
            db = self.ok("POST", base, json={
                "label": self.unique(f"facts-{engine[:2]}-"), "region": "us-east",
                "type": size, "engine": self.engines[engine], "cluster_size": 3,
                "allow_list": ["203.0.113.1", "192.0.1.0/24"],
                "engine_config": settings_of(config)})
            self.dbs[engine] = db["id"]
            self.ids[f"{base}/{{}}"] = db["id"]
            path = f"{base}/{db['id']}"
            self.settle("31m")                       # provisioned
            self.ok("PUT", path, json={"allow_list": ["192.0.2.0/24"],
                                       "updates": {"day_of_week": 3, "duration": 4,
                                                   "frequency": "weekly", "hour_of_day": 8}})
            for op in ("credentials/reset", "patch", "suspend", "resume"):
                self.settle("10m")
                self.ok("POST", f"{path}/{op}")
            self.settle("10m")
            gone = self.ok("POST", base, json={
                "label": self.unique(f"facts-{engine[:2]}-x-"), "region": "us-east",
                "type": size, "engine": self.engines[engine]})
            self.dbs[f"{engine}-gone"] = gone["id"]
            self.settle("31m")

    def settle(self, duration):
        self.admin("clock", "advance", duration)

    def events(self):
        events = self.ok("GET", "/account/events")["data"]
        assert events, "no events in this world"
        self.ids["/account/events/{}"] = events[0]["id"]
        self.ok("POST", f"/account/events/{events[0]['id']}/seen")
        self.ok("POST", f"/account/events/{events[0]['id']}/read")

    def every_get(self):
        """Every GET of the facts in scope not called yet (and in-scope routes
        the module does not serve, any method, to see how they answer)."""
        for route in sorted(ROUTES):
            if not in_scope(route) or route in self.answers:
                continue
            method = route.split(" ", 1)[0]
            if method == "GET":
                self.call("GET", self.concrete(route))
            elif route not in SERVED:
                self.call(method, self.concrete(route), json={})

    def deletes(self):
        d = self.ids["/domains/{}"]
        self.ok("DELETE", f"/domains/{d}/records/{self.gone_record}")
        self.ok("DELETE", f"/domains/{self.clone['id']}")
        self.ok("DELETE", f"/tags/{quote(self.tag)}")
        for engine in ("mysql", "postgresql"):
            self.ok("DELETE", f"/databases/{engine}/instances/{self.dbs[engine + '-gone']}")
        tok = self.ok("POST", "/profile/tokens", json={"label": "facts-gone"})
        self.ok("DELETE", f"/profile/tokens/{tok['id']}")
        key = self.ok("POST", "/profile/sshkeys", json={
            "label": "facts-gone", "ssh_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVz"
                                              "rm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl gone@x"})
        self.ok("DELETE", f"/profile/sshkeys/{key['id']}")


# Against the public service's values (conftest.PUBLIC_VALUES), as the
# clients' recordings were made against the public service.
world = world_fixture(World, server="public_server")


def richest(items):
    """The item with the most keys (ties: the first)."""
    def count(item):
        keys = {}
        walk_keys(item, "", keys)
        return len(keys)
    return max(items, key=count)


def settings_of(config):
    """An engine_config with a value for every setting a config document
    (GET /databases/ENGINE/config) describes: its example, else its default,
    first allowed value or minimum."""
    out = {}
    for name, spec in config.items():
        if not isinstance(spec, dict):
            continue
        if isinstance(spec.get("type"), (str, list)):
            for k in ("example", "default"):
                if k in spec:
                    out[name] = spec[k]
                    break
            else:
                if spec.get("enum"):
                    out[name] = spec["enum"][0]
                elif "minimum" in spec:
                    out[name] = spec["minimum"]
        else:
            sub = settings_of(spec)
            if sub:
                out[name] = sub
    return out


def answer_keys(answers):
    """The keys and types of the success answers of a route, merged."""
    keys = {}
    for r in answers:
        if 200 <= r.status < 300 and r.body:
            walk_keys(r.json, "", keys)
    return keys


# ---------------------------------------------------------------------------
# The checks
# ---------------------------------------------------------------------------

def success_statuses(route):
    return [s for s in ROUTES[route].get("recorded_statuses", []) if 200 <= s < 300]


@pytest.mark.parametrize("route", sorted(r for r in ROUTES if in_scope(r)))
def test_route_answers(world, route):
    answers = world.answers.get(route)
    assert answers, f"{route} ({clients_of(route)}): the scenario never called it; add it"
    statuses = sorted({r.status for r in answers})
    assert not {404, 405} & set(statuses), \
        f"{route} ({clients_of(route)}): answered {statuses}: not served here"
    recorded = success_statuses(route)
    if recorded:
        assert set(statuses) <= set(recorded), \
            f"{route} ({clients_of(route)}): answered {statuses}, clients recorded {recorded}"
    else:
        assert all(200 <= s < 300 for s in statuses), \
            f"{route} ({clients_of(route)}): answered {statuses}: " + \
            "; ".join(repr(r) for r in answers if not 200 <= r.status < 300)[:600]


def key_cases():
    for route in sorted(ROUTES):
        if not in_scope(route):
            continue
        for key, types in ROUTES[route].get("keys", {}).items():
            yield pytest.param(route, key, types, id=f"{route} {key} linodego")


@pytest.mark.parametrize("route,key,recorded", list(key_cases()))
def test_recorded_key_is_answered(world, route, key, recorded):
    keys = answer_keys(world.answers.get(route, []))
    problem = key_problem(keys, key, recorded) if keys else \
        "no success answer here to look at"
    exception = key_exception(route, key)
    where = f"{route}: {key} (linodego: {', '.join(ROUTES[route]['clients']['linodego'])})"
    if exception is not None:
        assert problem is not None, f"{where}: answered now; remove its KEY_EXCEPTIONS entry"
        return
    assert problem is None, f"{where}: {problem}"


def filter_cases():
    for route in sorted(FILTERABLE):
        if not in_scope(route):
            continue
        for name, clients in FILTERABLE[route]["fields"].items():
            yield pytest.param(route, name, clients, id=f"{route} {name} {','.join(clients)}")


def first_value(items, name):
    """The value of the (dotted) field `name` in the first item that has
    one, or None."""
    for item in items:
        v = item
        for part in name.split("."):
            v = v.get(part) if isinstance(v, dict) else None
        if v is not None:
            return v
    return None


@pytest.mark.parametrize("route,name,clients", list(filter_cases()))
def test_filterable_field_is_accepted(world, route, name, clients):
    where = f"{route}: X-Filter on {name} ({', '.join(clients)})"
    path = world.concrete(route)
    items = [i for r in world.answers.get(route, []) if r.status == 200 and r.body
             for i in r.json.get("data", [])] if route in SERVED else []
    recorded = ROUTES.get(route, {}).get("keys", {}).get(f"data[].{name}", [])
    value = first_value(items, name)
    if "array" in recorded or isinstance(value, list):
        filters = [{name: value[0] if value else "facts"}]
    else:
        filters = [{"+order_by": name, "+order": "desc"}]
        if value is not None:
            filters.append({name: value})
    bad = []
    for xf in filters:
        r = world.c.get(path, xfilter=xf)
        if r.status != 200:
            bad.append(f"{json.dumps(xf)} -> {r.status} {r.body[:200]!r}")
    exception = filter_exception(route, name)
    if exception is not None:
        assert bad, f"{where}: accepted now; remove its FILTER_EXCEPTIONS entry"
        return
    assert not bad, f"{where}: " + "; ".join(bad)


def test_exceptions_name_facts():
    """Every exception names a route, key or field of the facts."""
    stale = [r for r in ROUTE_EXCEPTIONS if r not in ROUTES]
    stale += [f"{e.routes} {e.keys}" for e in KEY_EXCEPTIONS
              if not any(re.fullmatch(e.keys, k) for r in e.routes
                         for k in ROUTES.get(r, {}).get("keys", {}))]
    stale += [f"{e.routes} {e.fields}" for e in FILTER_EXCEPTIONS
              if not any(f in FILTERABLE.get(r, {}).get("fields", {})
                         for r in e.routes for f in e.fields)]
    assert not stale, f"exceptions of nothing in client_facts.json (remove them): {stale}"
    served_excepted = [r for r in ROUTE_EXCEPTIONS if r in SERVED]
    assert not served_excepted, f"served now; remove from ROUTE_EXCEPTIONS: {served_excepted}"


def test_facts_are_generated_facts():
    assert FACTS["generated_by"].startswith("tests/e2e/public/extract-client-facts")
    for what, src in FACTS["sources"].items():
        assert re.fullmatch(r"[0-9a-f]{40}", src["commit"]), (what, src)
        assert src["tag"], (what, src)
    for route, entry in ROUTES.items():
        assert re.fullmatch(r"(GET|POST|PUT|DELETE) (/[A-Za-z0-9_.{}-]+)+", route), route
        for key, types in entry.get("keys", {}).items():
            assert types and set(types) <= {"string", "integer", "number", "boolean", "object",
                                             "array", "null"}, (route, key, types)


@pytest.mark.parametrize("answer,key,recorded,expect", [
    ({"a": 1}, "a", ["integer"], None),
    ({"a": 1.5}, "a", ["integer"], None),                 # number and integer go together
    ({"a": None}, "a", ["string"], "null here, recorded string"),
    ({"a": None}, "a", ["null", "string"], None),
    ({"a": "x"}, "a", ["null"], None),                    # recorded only null: any type
    ({"a": "1"}, "a", ["integer"], "string here, recorded integer"),
    ({}, "a", ["integer"], "missing"),
    ({"o": {}}, "o.k", ["string"], "missing"),
    ({"o": None}, "o.k", ["string"], "not seen: o is null"),
    ({"l": []}, "l[].k", ["string"], "not seen: l is array"),
    ({"l": [{"k": "x"}, {}]}, "l[].k", ["string"], None),   # in some item: the facts' union
    ({"m": {"192.0.2.1": "primary"}}, "m.{}", ["string"], None),
])
def test_the_key_check_can_fail(answer, key, recorded, expect):
    keys = {}
    walk_keys(answer, "", keys)
    problem = key_problem(keys, key, recorded)
    if expect is None:
        assert problem is None, problem
    else:
        assert problem is not None and problem.startswith(expect), problem
