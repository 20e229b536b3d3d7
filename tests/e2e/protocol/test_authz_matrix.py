"""A generated authorization matrix: every non-public route of the route
table (as `acctapi-admin routes` prints it for this build) times every kind
of caller, each with the status docs/conventions.md derives for it, checked end to end.

Callers: the account's unrestricted owner; the owner naming another
account's objects (isolation: 404, nested ids included); restricted users of
the owner's account without a grant, with read_only and with read_write on
every entity; a token lacking the route's scope; no token at all on the
routes that take one optionally (GET /images: what the public sees).  Events
are seen through the entity they are about: a restricted user without a
grant on it finds an event 404, as another account's, and lists only the
events of its grants.

"Allowed" cases do not insist on 200: an empty body is a legitimate 400, a
provisioning database a legitimate 400, an id that names nothing a
legitimate 404.  They assert the caller got past authorization (neither 401
nor 403) and, where every object the path names exists, no 404 either.
DELETE rows act on throwaway objects so the shared ones survive in any order.
The grant level a route needs follows its scope: read_only for GETs, except
the backup routes, whose GETs docs/conventions.md scopes databases:read_write.
"""

import re
import secrets
import subprocess
from urllib.parse import quote

import pytest

import harness
from accounts import world_fixture
from checks import assert_envelope, assert_error, assert_json
from harness import ADMIN

SCOPE_REASON = "Your OAuth token is not authorized to use this endpoint."
FAMILIES = ["account", "databases", "domains", "events", "vpc"]
ED25519 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIODawwa+Vh+oKziAsrGIN7OpMSUL4u4dBPf4dZfXjl+p"
ENGINES = {"mysql": {"type": "g6-nanode-1", "engine": "mysql/8.0.30"},
           "postgresql": {"type": "g6-standard-2", "engine": "postgresql/16.4"}}
# The entity routes: restricted users need a grant on the entity they name.
ENTITY_PARAMS = ("domainId", "instanceId", "linodeId", "volumeId", "nodeBalancerId", "imageId")
# The objects the operator registers, served read-only: the path parameter
# of each type and its id as the path spells it.
REGISTERED = {"linodeId": ("instance", str), "volumeId": ("volume", str),
              "nodeBalancerId": ("nodebalancer", str),
              "imageId": ("image", lambda n: f"private/{n}")}
# A list path's entity type, for what restricted users may see of it.
LIST_KINDS = (("/v4/domains", "domain"), ("/v4/databases", "database"),
              ("/v4/linode/instances", "instance"), ("/v4/volumes", "volume"),
              ("/v4/nodebalancers", "nodebalancer"), ("/v4/images", "image"))
# Ids that name nothing for anyone.
MISSING = 987654321

RESTRICTED = {"no_grant": None, "read_only": "read_only", "read_write": "read_write"}


def routes():
    out = subprocess.run([str(ADMIN), "routes"], check=True, capture_output=True,
                         text=True).stdout
    rows = []
    for line in out.splitlines():
        method, path, scope, kindflags = line.split("\t")
        kind, *flags = kindflags.split()
        if kind != "public":
            rows.append((method, path, scope, kind, tuple(flags)))
    assert len(rows) >= 40, out
    return rows


def params_of(path):
    return re.findall(r"\{([^}.]+)(?:\.\.\.)?\}", path)


def principals_for(path, flags=()):
    """Every route gets owner, the three restricted users and the scopeless
    token; routes naming ids also the other account's ids; routes naming a
    record also a record of another domain of the same account; routes that
    take a token optionally also no token."""
    params = params_of(path)
    out = ["owner", "no_grant", "read_only", "read_write", "no_scope"]
    if "token-optional" in flags:
        out.append("anonymous")
    if params:
        out.insert(1, "other")
    if "recordId" in params:
        out.insert(2, "nested")
    return out


# Cases the module gets wrong, as (method, path, principal) -> reason; each
# is a strict xfail, so a fix makes the suite say so.  Empty: none known.
KNOWN_BUGS = {}


def cases():
    out = []
    for (m, p, s, k, f) in routes():
        for who in principals_for(p, f):
            bug = KNOWN_BUGS.get((m, p, who))
            marks = [pytest.mark.xfail(strict=True, reason=bug)] if bug else []
            out.append(pytest.param(m, p, s, k, f, who, id=f"{m} {p} {who}", marks=marks))
    return out


def lacking(scope):
    """Every family read_write but the route's, which gets one level less."""
    family, level = scope.split(":")
    items = [f"{f}:read_write" for f in FAMILIES if f not in (family, "vpc")]
    if level == "read_write":
        items.append(f"{family}:read_only")
    return " ".join(sorted(items, key=lambda s: FAMILIES.index(s.split(":")[0])))


def is_create(method, path):
    """Routes that make a new entity: they need add_domains / add_databases
    (a clone is a new domain), which no restricted user here holds."""
    return method == "POST" and re.fullmatch(
        r"/v4/(domains|domains/import|domains/\{domainId\}/clone|databases/(mysql|postgresql)/instances)",
        path) is not None


def needs_read_write(method, scope):
    """The grant level a route needs follows its scope: writes, and every
    backup route (GETs included, whose scope docs/conventions.md makes read_write)."""
    return method != "GET" or scope.endswith(":read_write")


def is_entity_route(path):
    return any(p in ENTITY_PARAMS for p in params_of(path))


def engine_of(path):
    m = re.match(r"/v4/databases/(mysql|postgresql)/", path)
    return m.group(1) if m else None


# --------------------------------------------------------------------------
# The objects: one account with one of each, another account, three
# restricted users
# --------------------------------------------------------------------------

def ok(r):
    assert r.status == 200, r
    return assert_json(r)


class World:
    def __init__(self, backend, server):
        self.backend = backend
        self.server = server
        self.owner = harness.Account(backend, server, stem="e2e-matrix-")
        self.theirs = harness.Account(backend, server, stem="e2e-matrix-other-")
        self.scopeless = {}
        c = self.owner.client
        self.domain = self.new_domain(c)
        self.record = self.new_record(c, self.domain)
        self.domain2 = self.new_domain(c)
        self.record2 = self.new_record(c, self.domain2)
        self.db = {e: self.new_database(c, e) for e in ENGINES}
        self.ids = {
            "domainId": self.domain, "recordId": self.record,
            "tokenId": self.new_token(c), "sshKeyId": self.new_sshkey(c),
            "appId": self.new_app(self.owner.uid), "deviceId": self.new_device(self.owner.uid),
            "loginId": self.new_login(self.owner.uid), "tagLabel": self.new_tag(c),
            "backupId": MISSING, "username": ok(c.get("/profile"))["username"],
            "eventId": self.create_event(c, self.db["mysql"]),
        }
        self.registered = {}
        for param, (kind, spell) in REGISTERED.items():
            n = self.register(self.owner.id, kind)
            self.registered[kind] = n
            self.ids[param] = spell(n)
        t = self.theirs.client
        other_domain = self.new_domain(t)
        self.other_db = {e: self.new_database(t, e) for e in ENGINES}
        self.other_ids = {
            "domainId": other_domain, "recordId": self.new_record(t, other_domain),
            "tokenId": self.new_token(t), "sshKeyId": self.new_sshkey(t),
            "appId": self.new_app(self.theirs.uid), "deviceId": self.new_device(self.theirs.uid),
            "loginId": self.new_login(self.theirs.uid), "tagLabel": self.new_tag(t),
            "backupId": MISSING, "username": ok(t.get("/profile"))["username"],
            "eventId": self.create_event(t, self.other_db["mysql"]),
        }
        for param, (kind, spell) in REGISTERED.items():
            self.other_ids[param] = spell(self.register(self.theirs.id, kind))
        # Restricted users and what each may see: kind -> set of ids.
        self.users = {}
        self.granted = {}
        for who, perm in RESTRICTED.items():
            uid, client = self.owner.user(restricted=True)
            self.users[who] = (uid, client)
            self.granted[who] = {kind: set() for _, kind in LIST_KINDS}
            if perm:
                for d in (self.domain, self.domain2):
                    self.grant(who, "domain", d)
                for db in self.db.values():
                    self.grant(who, "database", db)
                for kind, n in self.registered.items():
                    self.grant(who, kind, n)

    def close(self):
        self.owner.close()
        self.theirs.close()

    # ---- objects -----------------------------------------------------------

    def new_domain(self, client):
        return ok(client.post("/domains", json={
            "domain": f"matrix-{secrets.token_hex(6)}.example", "type": "master",
            "soa_email": "hostmaster@example.com"}))["id"]

    def new_record(self, client, domain_id):
        return ok(client.post(f"/domains/{domain_id}/records", json={
            "type": "A", "name": f"h{secrets.token_hex(3)}", "target": "192.0.2.10"}))["id"]

    def new_database(self, client, engine):
        body = {"label": f"mx-{secrets.token_hex(4)}", "region": "us-east"}
        body.update(ENGINES[engine])
        return ok(client.post(f"/databases/{engine}/instances", json=body))["id"]

    def create_event(self, client, db_id):
        """The database_create event of database `db_id`."""
        r = client.get("/account/events", xfilter={
            "entity.type": "database", "entity.id": db_id, "action": "database_create"})
        events = assert_envelope(assert_json(r))
        assert len(events) == 1, r
        return events[0]["id"]

    def visible_events(self, who):
        """The ids of the owner's events about what `who` holds a grant on."""
        out = set()
        for kind, ids in self.granted[who].items():
            for entity_id in ids:
                r = self.owner.client.get("/account/events", params={"page_size": 500},
                                          xfilter={"entity.type": kind, "entity.id": entity_id})
                out |= {e["id"] for e in assert_envelope(assert_json(r))}
        return out

    def new_token(self, client):
        return ok(client.post("/profile/tokens",
                              json={"label": f"mx-{secrets.token_hex(4)}"}))["id"]

    def new_sshkey(self, client):
        return ok(client.post("/profile/sshkeys", json={
            "label": f"mx-{secrets.token_hex(4)}", "ssh_key": ED25519}))["id"]

    def new_tag(self, client):
        label = f"mx-{secrets.token_hex(4)}"
        if client is self.owner.client:
            body = {"label": label, "domains": [self.domain]}
        else:
            body = {"label": label}
        ok(client.post("/tags", json=body))
        return label

    def register(self, account_id, kind):
        n = secrets.randbelow(2**40) + 1000
        assert self.backend.admin("entity", "add", "--account", str(account_id), "--type",
                                  kind, "--id", str(n), "--label", f"mx-{kind}") == str(n)
        return n

    def admin_id(self, *args):
        out = self.backend.admin(*args).split("\n")[0]
        assert re.fullmatch(r"[1-9][0-9]*", out), out
        return int(out)

    def new_app(self, uid):
        return self.admin_id("app", "authorize", "--user", str(uid), "--label",
                             self.backend.unique("mx-app-"), "--scopes", "account:read_only")

    def new_device(self, uid):
        return self.admin_id("device", "add", "--user", str(uid), "--ip", "198.51.100.23",
                             "--user-agent", "Mozilla/5.0 matrix")

    def new_login(self, uid):
        return self.admin_id("login", "record", "--user", str(uid), "--ip", "203.0.113.7")

    def grant(self, who, kind, entity_id):
        perm = RESTRICTED[who]
        if perm is None:
            return
        uid = self.users[who][0]
        self.backend.admin("grant", "entity", "--user", str(uid), "--type", kind,
                           "--id", str(entity_id), "--permissions", perm)
        self.granted[who][kind].add(entity_id)

    def scopeless_token(self, scope):
        if scope not in self.scopeless:
            self.scopeless[scope] = self.backend.mint_token(scopes=lacking(scope),
                                                            user=self.owner.uid)
        return self.scopeless[scope]

    # ---- a throwaway for a DELETE row ----------------------------------------

    def throwaway(self, path, who):
        """Fresh ids for the object a DELETE row would remove, granted to the
        acting restricted user as its shared twin is."""
        c = self.owner.client
        params = params_of(path)
        last = params[-1] if params else None
        ids = dict(self.ids)
        ids["instanceId"] = self.db[engine_of(path)] if engine_of(path) else None
        if last == "domainId":
            ids["domainId"] = self.new_domain(c)
            if who in RESTRICTED:
                self.grant(who, "domain", ids["domainId"])
        elif last == "recordId":
            ids["recordId"] = self.new_record(c, self.domain)
        elif last == "instanceId":
            ids["instanceId"] = self.new_database(c, engine_of(path))
            if who in RESTRICTED:
                self.grant(who, "database", ids["instanceId"])
        elif last == "tokenId":
            ids["tokenId"] = self.new_token(c)
        elif last == "sshKeyId":
            ids["sshKeyId"] = self.new_sshkey(c)
        elif last == "appId":
            ids["appId"] = self.new_app(self.owner.uid)
        elif last == "deviceId":
            ids["deviceId"] = self.new_device(self.owner.uid)
        elif last == "tagLabel":
            ids["tagLabel"] = self.new_tag(c)
        return ids

    # ---- the request of a case ---------------------------------------------

    def url(self, path, ids):
        def sub(m):
            v = ids[m.group(1)]
            return quote(str(v), safe="")
        return re.sub(r"\{([^}.]+)(?:\.\.\.)?\}", sub, path)[len("/v4"):]

    def ids_for(self, method, path, who):
        engine = engine_of(path)
        if who == "other":
            ids = dict(self.other_ids)
            ids["instanceId"] = self.other_db[engine] if engine else None
            return ids
        if method == "DELETE" and who != "no_scope":
            ids = self.throwaway(path, who)
        else:
            ids = dict(self.ids)
            ids["instanceId"] = self.db[engine] if engine else None
        if who == "nested":
            ids["recordId"] = self.record2
        return ids

    def client_token(self, who, scope):
        if who in ("owner", "other", "nested"):
            return self.owner.client.token
        if who == "anonymous":
            return None
        if who == "no_scope":
            return self.scopeless_token(scope) if scope != "*" else \
                self.backend.mint_token(scopes="vpc:read_only", user=self.owner.uid)
        return self.users[who][1].token


world = world_fixture(World)


# --------------------------------------------------------------------------
# The matrix
# --------------------------------------------------------------------------

CASES = cases()


def test_matrix_size(capsys):
    n = len(CASES)
    with capsys.disabled():   # printed in every run, not only with -s
        print(f"\nauthorization matrix: {n} cases per backend "
              f"({len(routes())} non-public routes x callers, "
              f"{sum(1 for c in CASES if c.marks)} known module bugs as strict xfail)")
    assert n > 300, n


def test_database_actions_are_in_the_matrix():
    """Suspend and resume are cases like every route: entity
    routes needing databases:read_write, so a restricted user needs
    read_write on the database (the public API's reference: "The user needs
    read_write user grant access to the database")."""
    rows = {(m, p): (s, f) for m, p, s, _, f in routes()}
    for engine in ENGINES:
        for action in ("suspend", "resume"):
            path = f"/v4/databases/{engine}/instances/{{instanceId}}/{action}"
            scope, flags = rows[("POST", path)]
            assert scope == "databases:read_write" and "unrestricted-only" not in flags
            assert is_entity_route(path) and needs_read_write("POST", scope)
            whos = [c.values[-1] for c in CASES if tuple(c.values[:2]) == ("POST", path)]
            assert whos == principals_for(path, flags), whos


def allowed(r, every_object_exists):
    assert r.status not in (401, 403), r
    if every_object_exists:
        assert r.status != 404, r
    assert r.status < 500, r


def listed_ids(r):
    assert r.status == 200, r
    return {item["id"] for item in assert_envelope(assert_json(r))}


@pytest.mark.parametrize("method,path,scope,kind,flags,who", CASES)
def test_authz(world, anon, method, path, scope, kind, flags, who):
    ids = world.ids_for(method, path, who)
    url = world.url(path, ids)
    token = world.client_token(who, scope)
    body = {} if method in ("POST", "PUT") else None
    r = anon.request(method, url, token=token, json=body)
    params = params_of(path)
    every_object_exists = "backupId" not in params

    if who == "anonymous":
        # What the public sees: no registered object (they are private).
        if "list" in flags:
            assert listed_ids(r) == set(), r
        else:
            assert_error(r, 404, "Not found")
        return
    if who == "no_scope":
        if scope == "*":
            assert r.status not in (401, 403), r
        else:
            assert_error(r, 401, SCOPE_REASON)
        return
    if who in ("other", "nested"):
        assert_error(r, 404, "Not found")
        return
    if who == "owner":
        allowed(r, every_object_exists)
        return

    # Restricted users.
    if "unrestricted-only" in flags:
        assert_error(r, 403, "Unauthorized")
        return
    if path.startswith("/v4/profile"):
        # Their own profile: owner's ids name nothing of theirs.
        allowed(r, False)
        return
    if is_create(method, path):
        assert_error(r, 403, "Unauthorized")
        return
    if path.startswith("/v4/account/events"):
        if "{eventId}" not in path:
            got = listed_ids(r)
            assert got <= world.visible_events(who), (who, got)
            if who != "no_grant":
                assert ids["eventId"] in got, (who, got)
        elif RESTRICTED[who] is None:
            assert_error(r, 404, "Not found")
        else:
            allowed(r, True)
        return
    if not is_entity_route(path):
        # A list of entities: only the granted ones.
        assert method == "GET" and "list" in flags, (method, path)
        got = listed_ids(r)
        kind_ = next(k for prefix, k in LIST_KINDS if path.startswith(prefix))
        if kind_ == "image":
            got = {int(i[len("private/"):]) for i in got}
        granted = world.granted[who][kind_]
        assert got <= granted, (who, path, got, granted)
        if who != "no_grant":
            engine = engine_of(path)
            main = {world.domain, world.domain2} if kind_ == "domain" else \
                ({world.db[engine]} if engine else set(world.db.values())) \
                if kind_ == "database" else {world.registered[kind_]}
            assert main <= got, (who, path, got, main)
        return
    perm = RESTRICTED[who]
    if perm is None or (perm == "read_only" and needs_read_write(method, scope)):
        assert_error(r, 403, "Unauthorized")
        return
    allowed(r, every_object_exists)
