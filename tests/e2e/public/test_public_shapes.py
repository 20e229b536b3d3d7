"""Every in-scope response has the public API's shape (docs/conventions.md
"Today's clients"): each success answer of each operation this build serves
validates against the schema the public API's OpenAPI document gives that
operation, as public_schemas.json holds it (facts only, written by
extract-schemas from the document, which stays outside the project).

The public document forbids keys it does not list almost everywhere
(additionalProperties: false), and clients that validate against it
(or generate their types from it) do the same; and the public API sends
every key of its objects, so each key the document lists is taken as
required (the document itself marks few).  A difference either way fails
unless ALLOWED below lists it, with its reason: a key this module adds on
purpose (docs/conventions.md "Names": both names; the contract's extra fields), or
a defect of the document itself (a key named otherwise than the public API
sends it, a key it does not send, a request rule written on the response,
a value it sends that the document's enum lacks, a null where the document
says otherwise), shown by the public API's recorded traffic or its clients.

One test per backend creates what the operations need (a user of its own,
domains and records, a zone to import from a private named, tags on
registered entities, logins, devices, apps, tokens, SSH keys, two-factor
authentication, a phone number, a database of each engine), calls every
operation with a success path, and then walks the fixture's operations the
route table serves: each must have been called and must match.  Operations
of the fixture this build does not serve are listed (another change brings
them); read-only ones it serves but the scenario does not know (new views)
are called from the lists they belong to, so they are checked once merged.
"""

import copy
import json
import re
import secrets
import subprocess
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit

import jsonschema
import pytest

import harness
from harness import ADMIN, api_path
from named import Named
from otp import server_now, totp

FIXTURE = Path(__file__).with_name("public_schemas.json")
PUBLIC = json.loads(FIXTURE.read_text())
OPERATIONS = PUBLIC["operations"]


# ---------------------------------------------------------------------------
# What may differ, and why
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Allowed:
    """Key `key` may appear in the object at `at` (dotted; `[]` is every item
    of a list; "" the body) of the answers of `ops`, shaped like its public
    twin `like` (a key of the same object) or as `schema` says.  Where the
    document lists the key in that object already, its own rule stands (the
    objects GET /tags/{label} shows are alternatives at one place: a node
    balancer's `type` does not loosen a domain's)."""
    ops: tuple
    at: tuple
    key: str
    why: str
    like: str = None
    schema: dict = None


@dataclass(frozen=True)
class Relaxed:
    """The document's keywords `drop` do not hold for key `key` of the object
    at `at` in the answers of `ops`, with `null` the value may be null, and
    `also` are values its enum lacks: defects of the document (a request
    rule written on the response, a key the public API does not send, a
    value it sends that the document does not list).  "required" in `drop`:
    the key may be absent."""
    ops: tuple
    at: tuple
    key: str
    drop: tuple
    why: str
    null: bool = False
    also: tuple = ()


DOMAIN_OPS = ("GET /domains/{}", "POST /domains", "PUT /domains/{}",
              "POST /domains/import", "POST /domains/{}/clone")
RECORD_OPS = ("GET /domains/{}/records/{}", "POST /domains/{}/records",
              "PUT /domains/{}/records/{}")
TIMESTAMP = {"type": "string"}

R_NAMES = ("both names (docs/conventions.md \"Names\"): the contract's name beside the "
           "public one, until the operator's directive asks for one of them")
R_CREATED = ("the contract's domain carries when it was created and last changed "
             "(docs/conventions.md, Domain), and so does the public API's (recorded traffic: "
             "linodego's TestDomainRecord_Create fixture); its document lists neither")
R_SITE_TYPE = ("defect of the document: it names the key `site-type`; the public API "
               "sends `site_type` (linodego's Region.SiteType and its recorded traffic, "
               "the Terraform provider's linode_regions filter)")
R_EMPTY_DISPLAY = ("defect of the document: minLength 1 is the request rule; the public "
                   "API answers \"\" for an unset group or description (recorded "
                   "traffic: linodego's TestDomainRecord_Create; docs/conventions.md)")
R_APEX = ("defect of the document: minLength 1 is the request rule; a record of the "
          "zone apex has the name \"\" (docs/conventions.md, Record; the Terraform "
          "provider's examples create apex records with name = \"\")")
R_UNANSWERED = ("defect of the document: an unanswered question's response is null "
                "in the public API (recorded traffic: linodego's "
                "TestSecurityQuestions_List); minLength 3 is the request rule")
R_THUMBNAIL = ("defect of the document: an app without a thumbnail has thumbnail_url "
               "null in the public API (linodego's profile_apps fixture; its OAuth "
               "clients' recorded traffic)")
R_TOKEN_LABEL = ("defect of the document: minLength 1 is the create request's rule, and "
                 "that request may leave label out; a token created so has none, which "
                 "this module shows as \"\"")
R_NO_BACKUP = ("defect of the document: an instance without a successful backup has "
               "backups.last_successful null in the public API (recorded traffic: "
               "linodego's TestInstance_GetTransfer, as every instance without backups "
               "in its fixtures; its InstanceBackup.LastSuccessful is a pointer)")
R_EVENT_DATABASE = ("defect of the document: its enums lack the managed databases' event "
                    "actions and entity type, which the public API sends (recorded traffic: "
                    "linodego's TestDatabase_MySQL_Suite, database_create and database_update "
                    "on entity type database; linodego's ActionDatabase* and EntityDatabase; "
                    "@linode/api-v4's EventActionKeys, with database_backup_delete, and "
                    "EntityType)")
R_EVENT_NULL = ("defect of the document: the public API sends percent_complete, rate "
                "and secondary_entity null where they do not apply (recorded traffic: "
                "linodego's TestAccountEvents_List and TestDatabase_MySQL_Suite; "
                "@linode/api-v4's Event types them null | number, null | string and "
                "Entity | null)")
DATABASE_ACTIONS = ("database_create", "database_update", "database_resize",
                    "database_delete", "database_backup_create", "database_backup_restore",
                    "database_backup_delete", "database_credentials_reset",
                    "database_degraded", "database_failed")
R_EVENT_ENTITY_ID = ("defect of the document's type, stated by its own text: \"Some Event "
                     "entities do not have IDs associated with them ... account, profile\" "
                     "(null here) and \"Tag Events use a tag's name for the entity ID "
                     "field\" (a string), while the schema types the id integer")
EVENT_AT = {"GET /account/events": "data[]", "GET /account/events/{}": ""}
R_TODAY_EVENT = ("today's public API, newer than the document: events carry details, {} "
                 "in every recorded one (linodego's TestAccountEvents_List, "
                 "TestEventPoller_Secondary and TestInstance_Clone)")
R_ENGINE_DISK = ("defect of the document: it gives engines the disk sizes of a "
                 "database; the public API's engines are id, engine and version "
                 "(recorded traffic: linodego's TestDatabase_Engine; its DatabaseEngine)")

R_TODAY_REGION = ("today's public API, newer than the document: regions carry `monitors` "
                  "(the services with alerts and metrics) and the flexible placement "
                  "groups' limit (recorded traffic: linodego's TestRegionsMonitorsSection; "
                  "linodego's Region.Monitors, linode_api4's RegionMonitors)")
REGION_AT = {"GET /regions": "data[]", "GET /regions/{}": ""}
MONITORS = {"type": "object", "required": ["alerts", "metrics"],
            "properties": {"alerts": {"type": "array", "items": {"type": "string"}},
                           "metrics": {"type": "array", "items": {"type": "string"}}},
            "additionalProperties": False}

R_USER_TYPE = ("today's public API, newer than the document: the profile carries the "
               "user's type, `default` outside parent and child accounts (recorded "
               "traffic: linodego's TestProfile_Get and TestProfile_Update)")

R_DOMAIN_ERRORS = ("today's public API, newer than the document: a domain carries "
                   "`errors`, the zone's problems, \"\" for none (recorded traffic: "
                   "linodego's TestDomain_Get, TestDomains_List, TestDomain_Clone)")
STRING = {"type": "string"}

R_TODAY_DATABASE = ("today's public API, newer than the document: the managed databases' "
                    "fields it added after 4.189.0 (docs/conventions.md, \"Managed databases\"; "
                    "recorded traffic: linodego's TestDatabaseMySQL_EngineConfig_Suite, "
                    "TestDatabase_MySQL_Suite and, for ssl_connection, port and the disk "
                    "sizes on the all-engines list, TestDatabase_List; linodego's "
                    "MySQLDatabase/PostgresDatabase)")
DB_ITEM_OPS = tuple(f"{m} /databases/{e}/instances{s}" for e in ("mysql", "postgresql")
                    for m, s in (("GET", "/{}"), ("POST", ""), ("PUT", "/{}")))
DB_LIST_OPS = ("GET /databases/instances", "GET /databases/mysql/instances",
               "GET /databases/postgresql/instances")
NULL_OR_OBJECT = {"type": ["object", "null"]}
TODAY_DATABASE_KEYS = {
    "engine_config": {"type": "object"},
    "fork": NULL_OR_OBJECT,
    "members": {"type": "object", "additionalProperties": {"enum": ["primary", "failover"]}},
    "oldest_restore_time": TIMESTAMP,
    "platform": {"enum": ["rdbms-default", "rdbms-legacy"]},
    "private_network": NULL_OR_OBJECT,
}


R_WINDOW = ("today's public API gives a database a 4-hour maintenance window, where "
            "the document's maximum is 3 (recorded traffic: linodego's "
            "TestDatabaseMySQL_EngineConfig_Get and TestDatabase_MySQL_Suite, "
            "\"duration\": 4)")


R_TODAY_VIEWS = ("today's public API, newer than the document: the keys it added after "
                 "4.189.0 to instances, volumes, node balancers and images (recorded "
                 "traffic: linodego's TestInstance_Clone, TestVolume_List, "
                 "TestNodeBalancer_Locks and TestImages_List; its Instance, Volume, "
                 "NodeBalancer and Image)")
LOCKS = {"type": "array", "items": {"type": "string"}}
# kind -> {location in the object ("" itself) -> {key: schema}}
TODAY_VIEW_KEYS = {
    "instance": {
        "": {"disk_encryption": {"enum": ["enabled", "disabled"]},
             "interface_generation": {"enum": ["legacy_config", "linode"]},
             "locks": LOCKS,
             "maintenance_policy": {"type": "string"},
             "site_type": {"enum": ["core", "distributed"]}},
        "alerts": {"system_alerts": {"type": "array"}, "user_alerts": {"type": "array"}},
        "specs": {"accelerated_devices": {"type": "integer"}},
    },
    "volume": {"": {"io_ready": {"type": "boolean"}, "locks": LOCKS}},
    "nodebalancer": {"": {"client_udp_sess_throttle": {"type": "integer"},
                          "frontend_address_type": {"type": "string"},
                          "frontend_vpc_subnet_id": {"type": ["integer", "null"]},
                          "lke_cluster": NULL_OR_OBJECT,
                          "locks": LOCKS,
                          "type": {"type": "string"}}},
    "image": {"": {"image_sharing": NULL_OR_OBJECT, "is_shared": {"type": "boolean"}}},
}
# kind -> the path of its list (its item's is the path/{id})
VIEW_OPS = {"instance": "/linode/instances", "volume": "/volumes",
            "nodebalancer": "/nodebalancers", "image": "/images"}
# The kinds GET /tags/{label} shows.
TAGGED_KINDS = ("instance", "volume", "nodebalancer")


def today_views():
    """The keys today's public API added to the read-only views, where each
    view's objects are: its item, its list's items, the tagged objects (one
    entry for a key several kinds share there, as locks)."""
    places = {}
    for kind, where in TODAY_VIEW_KEYS.items():
        tops = [(f"GET {VIEW_OPS[kind]}/{{}}", ""), (f"GET {VIEW_OPS[kind]}", "data[]")]
        if kind in TAGGED_KINDS:
            tops.append(("GET /tags/{}", "data[].data"))
        for op, top in tops:
            for inner, keys in where.items():
                at = ".".join(p for p in (top, inner) if p)
                for k, v in keys.items():
                    assert places.setdefault((op, at, k), v) == v, (op, at, k)
    return [Allowed((op,), (at,), k, R_TODAY_VIEWS, schema=v)
            for (op, at, k), v in places.items()]


def today_database(ops, at):
    """The keys today's public API added to a database, at `at` of `ops`,
    and the values it sends beyond the document's bounds."""
    prefix = at + "." if at else ""
    return [*[Allowed(ops, (at,), k, R_TODAY_DATABASE, schema=v)
              for k, v in TODAY_DATABASE_KEYS.items()],
            Relaxed(ops, (prefix + "updates",), "duration", ("maximum",), R_WINDOW),
            Allowed(ops, (prefix + "hosts",), "standby", R_TODAY_DATABASE,
                    schema={"type": ["string", "null"]}),
            Allowed(ops, (prefix + "updates",), "pending", R_TODAY_DATABASE,
                    schema={"type": "array"})]


ALLOWED = [
    # Keys of today's public API newer than the document.
    *[Allowed((op,), (at,), "monitors", R_TODAY_REGION, schema=MONITORS)
      for op, at in REGION_AT.items()],
    *[Allowed((op,), (f"{at}.placement_group_limits".lstrip("."),),
              "maximum_linodes_per_flexible_pg", R_TODAY_REGION,
              like="maximum_linodes_per_pg")
      for op, at in REGION_AT.items()],
    *today_database(DB_ITEM_OPS, ""),
    *today_database(DB_LIST_OPS, "data[]"),
    *today_views(),
    *[Allowed((op,), (at,), "details", R_TODAY_EVENT, schema={"type": "object"})
      for op, at in EVENT_AT.items()],
    # The all-engines list's items carry what the engines' lists show of
    # these (TestDatabase_List), which the document gives the engines' only.
    *[Allowed(("GET /databases/instances",), ("data[]",), k, R_TODAY_DATABASE, schema=v)
      for k, v in (("ssl_connection", {"type": "boolean"}),
                   ("port", {"type": "integer"}),
                   ("total_disk_size_gb", {"type": "integer"}),
                   ("used_disk_size_gb", {"type": "integer"}))],
    Allowed(("GET /profile", "PUT /profile"), ("",), "user_type", R_USER_TYPE,
            schema={"enum": ["default", "parent", "child", "proxy"]}),
    *[Allowed((op,), ("",), "errors", R_DOMAIN_ERRORS, schema=STRING) for op in DOMAIN_OPS],
    Allowed(("GET /domains",), ("data[]",), "errors", R_DOMAIN_ERRORS, schema=STRING),
    Allowed(("GET /tags/{}",), ("data[].data",), "errors", R_DOMAIN_ERRORS, schema=STRING),
    # Extra keys this module sends on purpose.
    *[Allowed((op,), ("",), k, R_CREATED, schema=TIMESTAMP)
      for op in DOMAIN_OPS for k in ("created", "updated")],
    *[Allowed(("GET /domains",), ("data[]",), k, R_CREATED, schema=TIMESTAMP)
      for k in ("created", "updated")],
    *[Allowed(("GET /tags/{}",), ("data[].data",), k, R_CREATED, schema=TIMESTAMP)
      for k in ("created", "updated")],
    Allowed(("GET /profile", "PUT /profile"), ("",), "shell_auth_method", R_NAMES,
            like="lish_auth_method"),
    Allowed(("GET /profile/grants",), ("",), "instance", R_NAMES, like="linode"),
    Allowed(("GET /profile/grants",), ("",), "monitoring", R_NAMES, like="longview"),
    Allowed(("GET /profile/grants",), ("global",), "add_instances", R_NAMES,
            like="add_linodes"),
    Allowed(("GET /profile/grants",), ("global",), "add_monitoring", R_NAMES,
            like="add_longview"),
    Allowed(("GET /profile/grants",), ("global",), "monitoring_subscription", R_NAMES,
            like="longview_subscription"),
    Allowed(("POST /profile/security-questions",), ("security_questions[]",), "id",
            R_NAMES + "; `id` and `question` as GET names them", like="question_id"),
    Allowed(("POST /profile/security-questions",), ("security_questions[]",), "question",
            R_NAMES + "; `id` and `question` as GET names them", like="security_question"),
    # Defects of the document.
    Allowed(("GET /regions/{}",), ("",), "site_type", R_SITE_TYPE, like="site-type"),
    Allowed(("GET /regions",), ("data[]",), "site_type", R_SITE_TYPE, like="site-type"),
    Relaxed(("GET /regions/{}",), ("",), "site-type", ("required",), R_SITE_TYPE),
    Relaxed(("GET /regions",), ("data[]",), "site-type", ("required",), R_SITE_TYPE),
    *[Relaxed((op,), ("",), k, ("minLength",), R_EMPTY_DISPLAY)
      for op in DOMAIN_OPS for k in ("group", "description")],
    *[Relaxed(("GET /domains",), ("data[]",), k, ("minLength",), R_EMPTY_DISPLAY)
      for k in ("group", "description")],
    *[Relaxed(("GET /tags/{}",), ("data[].data",), k, ("minLength",), R_EMPTY_DISPLAY)
      for k in ("group", "description")],
    *[Relaxed((op,), ("",), "name", ("minLength",), R_APEX) for op in RECORD_OPS],
    Relaxed(("GET /domains/{}/records",), ("data[]",), "name", ("minLength",), R_APEX),
    Relaxed(("GET /profile/security-questions",), ("security_questions[]",), "response",
            ("minLength",), R_UNANSWERED, null=True),
    Relaxed(("GET /profile/apps/{}",), ("",), "thumbnail_url", (), R_THUMBNAIL, null=True),
    Relaxed(("GET /profile/apps",), ("data[]",), "thumbnail_url", (), R_THUMBNAIL,
            null=True),
    *[Relaxed((op,), ("",), "label", ("minLength",), R_TOKEN_LABEL)
      for op in ("GET /profile/tokens/{}", "POST /profile/tokens")],
    Relaxed(("GET /profile/tokens",), ("data[]",), "label", ("minLength",), R_TOKEN_LABEL),
    Relaxed(("GET /linode/instances",), ("data[].backups",), "last_successful", (),
            R_NO_BACKUP, null=True),
    Relaxed(("GET /linode/instances/{}",), ("backups",), "last_successful", (),
            R_NO_BACKUP, null=True),
    Relaxed(("GET /tags/{}",), ("data[].data.backups",), "last_successful", (),
            R_NO_BACKUP, null=True),
    *[Relaxed((op,), (at,), "action", (), R_EVENT_DATABASE, also=DATABASE_ACTIONS)
      for op, at in EVENT_AT.items()],
    *[Relaxed((op,), (f"{at}.entity".lstrip("."),), "type", (), R_EVENT_DATABASE,
              also=("database",))
      for op, at in EVENT_AT.items()],
    *[Relaxed((op,), (at,), k, (), R_EVENT_NULL, null=True)
      for op, at in EVENT_AT.items()
      for k in ("percent_complete", "rate", "secondary_entity")],
    Relaxed(("GET /account/events",), ("data[].entity",), "id", ("type",),
            R_EVENT_ENTITY_ID, null=True),
    *[Relaxed(("GET /databases/engines",), ("data[]",), k, ("required",), R_ENGINE_DISK)
      for k in ("total_disk_size_gb", "used_disk_size_gb")],
    *[Relaxed(("GET /databases/engines/{}",), ("",), k, ("required",), R_ENGINE_DISK)
      for k in ("total_disk_size_gb", "used_disk_size_gb")],
]

# Operations whose public shape the module does not have yet, with the issue
# that brings it.  Their answers are still checked and their differences
# printed; they do not fail this test until the entry is removed (an entry
# whose operation already matches fails, so the list cannot go stale).
NOT_YET_PUBLIC_SHAPE = {}


# ---------------------------------------------------------------------------
# The fixture's schemas as JSON Schema
# ---------------------------------------------------------------------------

def to_json_schema(s):
    """An OpenAPI 3.0 schema (as the fixture holds it) in JSON Schema 2020-12
    terms: `nullable` becomes a null type (or a null alternative), boolean
    exclusive bounds become numeric ones.  `format` stays an annotation: the
    public API's own date-times have no offset, as this module's."""
    if isinstance(s, list):
        return [to_json_schema(x) for x in s]
    if not isinstance(s, dict):
        return s
    out = {}
    for k, v in s.items():
        if k in ("properties",):
            out[k] = {name: to_json_schema(sub) for name, sub in v.items()}
        elif k in ("items", "not", "additionalProperties", "allOf", "oneOf", "anyOf"):
            out[k] = to_json_schema(v)
        elif k in ("exclusiveMinimum", "exclusiveMaximum") and isinstance(v, bool):
            continue
        elif k == "nullable":
            continue
        else:
            out[k] = v
    for excl, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if s.get(excl) is True and bound in s:
            out[excl] = out.pop(bound)
    if s.get("nullable"):
        if "type" in out:
            out["type"] = [out["type"], "null"] if isinstance(out["type"], str) \
                else list(out["type"]) + ["null"]
            if "enum" in out and None not in out["enum"]:
                out["enum"] = list(out["enum"]) + [None]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


def require_all(s):
    """Every key an object schema lists made required: the public API sends
    every key of its objects (docs/conventions.md: keys always present, null or 0
    when unused), and clients generated from the document read them all;
    the document itself lists few as required."""
    if isinstance(s, list):
        for x in s:
            require_all(x)
    elif isinstance(s, dict):
        if isinstance(s.get("properties"), dict):
            s["required"] = sorted(s["properties"])
            for sub in s["properties"].values():
                require_all(sub)
        for k in ("items", "additionalProperties", "allOf", "oneOf", "anyOf", "not"):
            if k in s:
                require_all(s[k])
    return s


def objects_at(schema, at):
    """The object schemas at dotted location `at` of `schema` (through
    list items, and into each alternative of a oneOf/anyOf/allOf)."""
    nodes = [schema]
    for part in [p for p in at.split(".") if p]:
        name, each = (part[:-2], True) if part.endswith("[]") else (part, False)
        nxt = []
        for n in nodes:
            for m in alternatives(n):
                sub = m.get("properties", {}).get(name)
                if sub is None:
                    continue
                if each:
                    nxt += [alt["items"] for alt in alternatives(sub) if "items" in alt]
                else:
                    nxt.append(sub)
        nodes = nxt
    return [m for n in nodes for m in alternatives(n) if "properties" in m]


def alternatives(n):
    if not isinstance(n, dict):
        return []
    for k in ("oneOf", "anyOf", "allOf"):
        if k in n:
            return [m for x in n[k] for m in alternatives(x)]
    return [n]


def schema_for(op, status, allowed=ALLOWED):
    """The JSON Schema an answer of `op` with `status` must match, with the
    allowed extra keys added where ALLOWED puts them."""
    base = OPERATIONS[op]["responses"].get(str(status))
    if base is None:
        return None
    schema = require_all(to_json_schema(copy.deepcopy(base)))
    for a in allowed:
        if op not in a.ops:
            continue
        for at in a.at:
            targets = objects_at(schema, at)
            assert targets, f"ALLOWED {a.key}: no object at {at!r} in {op}"
            if isinstance(a, Relaxed):
                # The objects (alternatives) where the key has what is dropped.
                targets = [obj for obj in targets if a.key in obj["properties"]
                           and all(kw == "required" or kw in obj["properties"][a.key]
                                   for kw in a.drop + (("enum",) if a.also else ()))]
                assert targets, f"Relaxed {a.key}: no {a.drop} at {at!r} in {op}"
            for obj in targets:
                if isinstance(a, Relaxed):
                    prop = obj["properties"][a.key]
                    for kw in a.drop:
                        if kw == "required":
                            obj["required"].remove(a.key)
                        else:
                            del prop[kw]
                    if a.also:
                        prop["enum"] = prop["enum"] + [v for v in a.also
                                                       if v not in prop["enum"]]
                    if a.null:
                        obj["properties"][a.key] = {"anyOf": [prop, {"type": "null"}]}
                elif a.key in obj["properties"]:
                    continue
                elif a.like is not None:
                    if a.like not in obj["properties"]:
                        continue
                    obj["properties"][a.key] = copy.deepcopy(obj["properties"][a.like])
                else:
                    obj["properties"][a.key] = copy.deepcopy(a.schema)
    return schema


def problems_of(op, status, body, allowed=ALLOWED):
    """What in `body` (parsed JSON, or None for no body) the public schema of
    `op`/`status` does not allow: a list of lines."""
    responses = OPERATIONS[op]["responses"]
    if str(status) not in responses:
        return [f"status {status}: the public document has only {sorted(responses)}"]
    schema = schema_for(op, status, allowed)
    if schema is None:
        return [] if body is None else ["a body where the public shape has none"]
    if body is None:
        return ["no body where the public shape has one"]
    v = jsonschema.Draft202012Validator(schema)
    out = []
    for e in sorted(v.iter_errors(body), key=lambda e: list(map(str, e.absolute_path))):
        where = "/" + "/".join(str(p) for p in e.absolute_path)
        msg = e.message if len(e.message) < 300 else e.message[:300] + "..."
        if e.validator in ("oneOf", "anyOf") and e.context:
            best = jsonschema.exceptions.best_match(e.context)
            msg += f" (nearest: {best.message[:200]})"
        out.append(f"at {where}: {msg}")
    return out


# ---------------------------------------------------------------------------
# The route table: which operations this build serves, and which one a
# request reached
# ---------------------------------------------------------------------------

def op_key(method, path):
    return f"{method} " + re.sub(r"\{[^}]*\}", "{}", path)


def route_table():
    out = subprocess.run([str(ADMIN), "routes"], check=True, capture_output=True,
                         text=True).stdout
    rows = []
    for line in out.splitlines():
        method, path = line.split("\t")[:2]
        path = path[len("/v4"):]
        segs = path.strip("/").split("/")
        rows.append((method, segs, op_key(method, path.replace("...}", "}"))))
    return rows


ROUTES = route_table()
SERVED = {key for _, _, key in ROUTES}


def route_of(method, raw_path):
    """The operation key of the route the module matches (acct_router.c:
    literal segments outrank parameters; "{x...}" takes the rest)."""
    path = api_path(raw_path)
    segs = path.strip("/").split("/")
    best, best_key = -1, None
    for m, tsegs, key in ROUTES:
        if m != method:
            continue
        score, ok = 0, True
        for i, t in enumerate(tsegs):
            if i >= len(segs):
                ok = False
                break
            score <<= 1
            if t.endswith("...}"):
                segs_used = len(segs)
                break
            if t.startswith("{"):
                continue
            if t != segs[i]:
                ok = False
                break
            score |= 1
        else:
            segs_used = len(tsegs)
        if ok and segs_used == len(segs) and score > best:
            best, best_key = score, key
    return best_key


# ---------------------------------------------------------------------------
# Recording what the scenario sees
# ---------------------------------------------------------------------------

class Shapes:
    """Every success answer of the scenario, checked against the public
    shape of the operation it reached."""

    def __init__(self):
        self.called = {}         # op: number of success answers checked
        self.problems = {}       # op: [lines]
        self.used = set()        # ALLOWED entries that let a key through

    def see(self, r):
        req = r.raw.request
        op = route_of(req.method, urlsplit(req.url).path)
        assert op is not None, f"no route for {req.method} {req.url}"
        assert 200 <= r.status < 300, r
        if op not in OPERATIONS:
            return r             # the module's own (e.g. /compute/types)
        self.called[op] = self.called.get(op, 0) + 1
        body = r.json if r.body else None
        found = problems_of(op, r.status, body)
        if found:
            self.problems.setdefault(op, [])
            for line in found:
                line = f"{req.method} {urlsplit(req.url).path} -> {r.status}: {line}"
                if line not in self.problems[op]:
                    self.problems[op].append(line)
        self.note_used(op, r.status, body, len(found))
        return r

    def note_used(self, op, status, body, found):
        """Marks the ALLOWED entries this answer needed: without the entry,
        it would have more problems."""
        if body is None:
            return
        for i, a in enumerate(ALLOWED):
            if i in self.used or op not in a.ops:
                continue
            if isinstance(a, Allowed) and not any(
                    a.key in obj for at in a.at for obj in instances_at(body, at)):
                continue
            rest = [x for x in ALLOWED if x is not a]
            if len(problems_of(op, status, body, rest)) > found:
                self.used.add(i)


def instances_at(body, at):
    nodes = [body]
    for part in [p for p in at.split(".") if p]:
        name, each = (part[:-2], True) if part.endswith("[]") else (part, False)
        nxt = []
        for n in nodes:
            if isinstance(n, dict) and name in n:
                v = n[name]
                if each and isinstance(v, list):
                    nxt += v
                elif not each:
                    nxt.append(v)
        nodes = nxt
    return [n for n in nodes if isinstance(n, dict)]


class Checked:
    """A client whose every success answer goes through Shapes.see; an
    answer that is not a success fails the scenario at once."""

    def __init__(self, client, shapes):
        self.client = client
        self.shapes = shapes

    def __call__(self, method, path, **kw):
        r = self.client.request(method, path, **kw)
        assert 200 <= r.status < 300, r
        return self.shapes.see(r)

    def get(self, path, **kw):
        return self("GET", path, **kw)

    def post(self, path, **kw):
        return self("POST", path, **kw)

    def put(self, path, **kw):
        return self("PUT", path, **kw)

    def delete(self, path, **kw):
        return self("DELETE", path, **kw)


# ---------------------------------------------------------------------------
# The scenario
# ---------------------------------------------------------------------------

def new_zone():
    return f"shape-{secrets.token_hex(4)}.example"


def admin_id(backend, *args):
    out = backend.admin(*args)
    assert re.fullmatch(r"[1-9][0-9]*", out), out
    return int(out)


def catalogue(c):
    regions = c.get("/regions").json["data"]
    c.get("/regions/availability")
    c.get(f"/regions/{regions[0]['id']}")
    c.get(f"/regions/{regions[0]['id']}/availability")
    types = c.get("/linode/types").json["data"]
    c.get(f"/linode/types/{types[0]['id']}")
    engines = c.get("/databases/engines").json["data"]
    for e in engines:
        c.get(f"/databases/engines/{e['id']}")


def profile(c, backend, acct, server):
    c.get("/profile")
    c.put("/profile", json={"timezone": "Europe/Paris"})
    c.get("/profile/grants")                       # unrestricted: 204

    c.get("/profile/preferences")
    c.put("/profile/preferences", json={"theme": "dark", "sortKeys": {"a": 1}})
    c.get("/profile/security-questions")

    # Logins, devices and apps, recorded by the systems that own them.
    uid = acct.uid
    login = admin_id(backend, "login", "record", "--user", str(uid), "--ip", "203.0.113.7")
    c.get("/profile/logins")
    c.get(f"/profile/logins/{login}")
    device = admin_id(backend, "device", "add", "--user", str(uid), "--ip", "198.51.100.23",
                      "--user-agent", "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0")
    c.get("/profile/devices")
    c.get(f"/profile/devices/{device}")
    c.delete(f"/profile/devices/{device}")
    app = backend.admin("app", "authorize", "--user", str(uid), "--label", "shape-app",
                        "--scopes", "account:read_only", "--website", "https://example.com",
                        "--thumbnail-url", "https://example.com/t.png",
                        "--expiry", "2099-01-01T00:00:00").split("\n")[0]
    bare = backend.admin("app", "authorize", "--user", str(uid), "--label", "shape-bare",
                         "--scopes", "*").split("\n")[0]     # no website, no expiry
    c.get("/profile/apps")
    c.get(f"/profile/apps/{app}")
    c.get(f"/profile/apps/{bare}")
    c.delete(f"/profile/apps/{app}")

    # Personal access tokens.
    tok = c.post("/profile/tokens", json={"label": "shape-token",
                                          "scopes": "domains:read_only"}).json
    bare = c.post("/profile/tokens", json={"expiry": "2099-01-01T00:00:00"}).json  # no label
    c.get(f"/profile/tokens/{bare['id']}")
    c.get("/profile/tokens")
    c.get(f"/profile/tokens/{tok['id']}")
    c.put(f"/profile/tokens/{tok['id']}", json={"label": "shape-token-2"})
    c.delete(f"/profile/tokens/{tok['id']}")

    # SSH keys.
    key = ("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl"
           " shape@example")
    k = c.post("/profile/sshkeys", json={"label": "shape-key", "ssh_key": key}).json
    bare = c.post("/profile/sshkeys", json={"ssh_key": key}).json       # no label
    c.get(f"/profile/sshkeys/{bare['id']}")
    c.get("/profile/sshkeys")
    c.get(f"/profile/sshkeys/{k['id']}")
    c.put(f"/profile/sshkeys/{k['id']}", json={"label": "shape-key-2"})
    c.delete(f"/profile/sshkeys/{k['id']}")

    # Two-factor authentication: questions answered, enable, confirm, disable.
    c.post("/profile/security-questions", json={"security_questions": [
        {"question_id": 1, "response": "Paris"}, {"question_id": 5, "response": "Oak Hill"},
        {"question_id": 12, "response": "Porto"}]})
    secret = c.post("/profile/tfa-enable").json["secret"]
    c.post("/profile/tfa-enable-confirm",
           json={"tfa_code": totp(secret, server_now(backend))})
    c.post("/profile/tfa-disable")

    # A phone number: a code sent (read from the SMS sink), verified, deleted.
    rest = f"{secrets.randbelow(10**6):06d}"
    e164 = f"+4477009{rest}"
    c.post("/profile/phone-number", json={"iso_code": "gb",
                                          "phone_number": f"07700 9{rest[:2]} {rest[2:]}"})
    code = None
    for line in server.sms_log.read_text().splitlines():
        m = re.match(r"^\S+ (\+\d+) Your verification code is (\d{6})\b", line)
        if m and m.group(1) == e164:
            code = m.group(2)
    assert code, f"no code texted to {e164}"
    c.post("/profile/phone-number/verify", json={"otp_code": code})
    c.delete("/profile/phone-number")


def zone_source(backend, zone):
    """A private named serving `zone` (SOA, NS and a few records) for
    POST /domains/import (start() waits until it answers over TCP)."""
    ns = Named(backend.base, "shapes")
    ns.add_zone(zone, f"$TTL 3600\n@ IN SOA ns1.old-dns.test. hostmaster.{zone}. "
                      f"2024010101 10800 3600 1209600 300\n@ IN NS ns1.old-dns.test.\n"
                      f"www IN A 192.0.2.11\n@ IN MX 10 mail.{zone}.\n")
    return ns.start()


def domains(c, backend, acct):
    d = c.post("/domains", json={"domain": new_zone(), "type": "master",
                                 "soa_email": "hostmaster@example.com",
                                 "tags": ["shape-tag"]}).json
    c.post("/domains", json={"domain": new_zone(), "type": "master", "group": "g",
                             "soa_email": "hostmaster@example.com", "description": "d",
                             "axfr_ips": ["192.0.2.5"], "status": "disabled",
                             "ttl_sec": 300, "refresh_sec": 7200, "retry_sec": 3600,
                             "expire_sec": 1209600})
    c.post("/domains", json={"domain": new_zone(), "type": "slave",
                             "master_ips": ["192.0.2.1"]})
    c.get("/domains")
    c.get(f"/domains/{d['id']}")
    c.put(f"/domains/{d['id']}", json={"ttl_sec": 7200})
    clone = c.post(f"/domains/{d['id']}/clone", json={"domain": new_zone()}).json
    records = [
        {"type": "A", "name": "www", "target": "192.0.2.10"},
        {"type": "AAAA", "name": "www", "target": "2001:db8::10"},
        {"type": "MX", "name": "", "target": "mail.example.com", "priority": 10},
        {"type": "CNAME", "name": "blog", "target": "www.example.com"},
        {"type": "TXT", "name": "", "target": "v=spf1 -all"},
        {"type": "SRV", "service": "sip", "protocol": "tcp", "target": "sip.example.com",
         "priority": 10, "weight": 5, "port": 5060},
        {"type": "CAA", "name": "", "tag": "issue", "target": "letsencrypt.org"},
        {"type": "NS", "name": "sub", "target": "ns1.example.net"},
        {"type": "PTR", "name": "1", "target": "host.example.com"},
    ]
    made = [c.post(f"/domains/{d['id']}/records", json=rec).json for rec in records]
    c.get(f"/domains/{d['id']}/records")
    for rec in made:
        c.get(f"/domains/{d['id']}/records/{rec['id']}")
    apex = made[2]                                  # MX at the apex: name ""
    c.put(f"/domains/{d['id']}/records/{apex['id']}", json={"ttl_sec": 300})
    c.delete(f"/domains/{d['id']}/records/{made[1]['id']}")
    c.get(f"/domains/{d['id']}/zone-file")

    zone = new_zone()
    ns = zone_source(backend, zone)
    try:
        c.post("/domains/import", json={"domain": zone, "remote_nameserver": ns.address})
    finally:
        ns.stop()
    c.delete(f"/domains/{clone['id']}")
    return d


def tags(c, backend, acct, domain):
    ids = {}
    for kind in ("instance", "volume", "nodebalancer"):
        n = secrets.randbelow(2**40) + 1000
        assert backend.admin("entity", "add", "--account", str(acct.id), "--type", kind,
                             "--id", str(n), "--label", f"shape-{kind}") == str(n)
        ids[kind] = n
    # An image too: not taggable, but GET /images shows registered ones.
    backend.admin("entity", "add", "--account", str(acct.id), "--type", "image",
                  "--id", str(secrets.randbelow(2**40) + 1000), "--label", "shape-image")
    label = f"shape {secrets.token_hex(3)}"
    c.post("/tags", json={"label": label, "domains": [domain["id"]],
                          "instances": [ids["instance"]], "volumes": [ids["volume"]],
                          "nodebalancers": [ids["nodebalancer"]]})
    c.get("/tags")
    c.get(f"/tags/{quote(label)}")
    c.delete(f"/tags/{quote(label)}")


def restricted_grants(c, backend, acct, domain, db=None):
    """GET /profile/grants of a restricted user holding global grants and
    grants on a domain, a registered instance and (if given) a database."""
    ruid, rclient = acct.user(restricted=True)
    backend.admin("grant", "global", "--user", str(ruid), "add_domains=true",
                  "account_access=read_only")
    backend.admin("grant", "entity", "--user", str(ruid), "--type", "domain",
                  "--id", str(domain["id"]), "--permissions", "read_write")
    if db is not None:
        backend.admin("grant", "entity", "--user", str(ruid), "--type", "database",
                      "--id", str(db["id"]), "--permissions", "read_only")
    n = secrets.randbelow(2**40) + 1000
    backend.admin("entity", "add", "--account", str(acct.id), "--type", "instance",
                  "--id", str(n), "--label", "shape-granted")
    backend.admin("grant", "entity", "--user", str(ruid), "--type", "instance",
                  "--id", str(n), "--permissions", "read_only")
    r = Checked(rclient, c.shapes)
    r.get("/profile/grants")
    r.get("/profile")


def databases(c, backend, clock, acct, domain):
    def settle():
        clock("advance", "10m")     # past the longest operation (4m)

    c.get("/databases/instances")
    for engine, version, size in (("mysql", "mysql/8.0.30", "g6-nanode-1"),
                                  ("postgresql", "postgresql/16.4", "g6-standard-2")):
        base = f"/databases/{engine}/instances"
        db = c.post(base, json={"label": backend.unique(f"shape-{engine[:2]}-"),
                                "region": "us-east", "type": size, "engine": version}).json
        path = f"{base}/{db['id']}"
        clock("advance", "31m")                      # provisioning done
        c.get(base)
        c.get("/databases/instances")                # with the database
        c.get(path)
        c.put(path, json={"allow_list": ["192.0.2.0/24"]})
        settle()
        c.get(path + "/credentials")
        c.get(path + "/ssl")
        c.post(path + "/backups", json={"label": "snap1"})
        settle()
        snap = c.get(path + "/backups").json["data"][0]
        c.get(f"{path}/backups/{snap['id']}")
        c.post(f"{path}/backups/{snap['id']}/restore")
        settle()
        c.post(path + "/credentials/reset")
        settle()
        c.post(path + "/patch")
        settle()
        c.delete(f"{path}/backups/{snap['id']}")
        if engine == "postgresql":
            restricted_grants(c, backend, acct, domain, db)
        c.delete(path)


def first_id(item):
    for k in ("id", "username"):
        if isinstance(item, dict) and k in item:
            return item[k]
    return None


def reachable_rest(c):
    """Read-only operations the scenario does not know (other changes add
    them: views, events): a list is called as is; an item, with the first
    id its list shows; seen/read of an event, likewise."""
    done = set(c.shapes.called)
    lists = {}
    uncalled = sorted(op for op in SERVED & set(OPERATIONS) if op not in done)
    for op in uncalled:
        method, path = op.split(" ", 1)
        if method == "GET" and "{}" not in path:
            lists[path] = c.get(path).json.get("data", [])
    for op in uncalled:
        method, path = op.split(" ", 1)
        m = re.fullmatch(r"(/[^{}]*?)/\{\}(/seen|/read)?", path)
        if not m or (method, m.group(2)) not in (("GET", None), ("POST", "/seen"),
                                                  ("POST", "/read")):
            continue
        if m.group(1) not in lists:
            lists[m.group(1)] = c.get(m.group(1)).json.get("data", [])
        items = lists[m.group(1)]
        if items and first_id(items[0]) is not None:
            item = quote(str(first_id(items[0])), safe="")
            c(method, f"{m.group(1)}/{item}{m.group(2) or ''}")


def test_every_served_operation_has_the_public_shape(backend, server, clock):
    shapes = Shapes()
    acct = harness.Account(backend, server, stem="e2e-shape-")
    try:
        c = Checked(acct.client, shapes)
        catalogue(c)
        profile(c, backend, acct, server)
        d = domains(c, backend, acct)
        tags(c, backend, acct, d)
        databases(c, backend, clock, acct, d)
        reachable_rest(c)
        c.delete(f"/domains/{d['id']}")
    finally:
        acct.close()

    checked = sorted(op for op in OPERATIONS if op in SERVED)
    not_served = sorted(op for op in OPERATIONS if op not in SERVED)
    uncalled = [op for op in checked if op not in shapes.called]
    failing = {op: lines for op, lines in shapes.problems.items()
               if op not in NOT_YET_PUBLIC_SHAPE}
    waiting = {op: shapes.problems.get(op, []) for op in NOT_YET_PUBLIC_SHAPE
               if op in SERVED}
    stale = sorted(op for op, lines in waiting.items() if op in shapes.called and not lines)
    unused = [f"{a.key} at {a.at} of {', '.join(a.ops)}" for i, a in enumerate(ALLOWED)
              if i not in shapes.used and all(op in shapes.called for op in a.ops)]

    # In the run's figures (printed at its end, passed or not).
    figure = harness.report_figure
    figure(f"public shapes [{backend.kind}] ({PUBLIC['source']['document']} "
           f"{PUBLIC['source']['version']}): {len(checked)} operations served and "
           f"checked ({sum(shapes.called.values())} answers), "
           f"{len(failing)} with differences; {len(not_served)} of the fixture not "
           f"served by this build: {', '.join(not_served) or 'none'}")
    figure(f"public shapes [{backend.kind}]: NOT_YET_PUBLIC_SHAPE: "
           f"{len(NOT_YET_PUBLIC_SHAPE) or 'none'}")
    for op, why in sorted(NOT_YET_PUBLIC_SHAPE.items()):
        lines = waiting.get(op, [])
        figure(f"  {op} ({why}): {len(lines)} differences")
        for line in lines[:8]:
            figure(f"    {line}")
    report = []
    if uncalled:
        report.append("served, in the public document, never called by the test:\n  "
                      + "\n  ".join(uncalled))
    for op, lines in sorted(failing.items()):
        report.append(f"{op}:\n  " + "\n  ".join(lines[:12]))
    if stale:
        report.append("in NOT_YET_PUBLIC_SHAPE but already matching (remove them):\n  "
                      + "\n  ".join(stale))
    if unused:
        report.append("ALLOWED entries no answer needed (remove them):\n  "
                      + "\n  ".join(unused))
    assert not report, "\n".join(report)


# ---------------------------------------------------------------------------
# The check itself can fail
# ---------------------------------------------------------------------------

DOMAIN = {"id": 7, "domain": "example.com", "type": "master", "status": "active",
          "soa_email": "hostmaster@example.com", "description": "", "group": "",
          "retry_sec": 0, "master_ips": [], "axfr_ips": [], "expire_sec": 0,
          "refresh_sec": 0, "ttl_sec": 0, "tags": [],
          "created": "2024-01-01T00:00:00", "updated": "2024-01-01T00:00:00"}


def test_fixture_is_facts_of_the_newest_document_read():
    src = PUBLIC["source"]
    assert re.fullmatch(r"4\.\d+\.\d+", src["version"]), src
    assert re.fullmatch(r"[0-9a-f]{40}", src["commit"]), src
    text = FIXTURE.read_text()
    for prose in ('"description": "', '"example"', '"x-linode', '"summary"',
                  '"externalDocs"', '"title"'):
        assert prose not in text, prose


@pytest.mark.parametrize("body,expect", [
    (DOMAIN, None),
    (dict(DOMAIN, surprise=1), "Additional properties are not allowed ('surprise'"),
    (dict(DOMAIN, created=5), "5 is not of type 'string'"),
    (dict(DOMAIN, type="primary"), "'primary' is not one of"),
    (dict(DOMAIN, ttl_sec="300"), "'300' is not of type 'integer'"),
    (dict(DOMAIN, master_ips=None), "None is not of type 'array'"),
    ({k: v for k, v in DOMAIN.items() if k != "ttl_sec"}, "'ttl_sec' is a required property"),
])
def test_a_wrong_body_is_caught(body, expect):
    found = problems_of("GET /domains/{}", 200, body)
    if expect is None:
        assert found == []
    else:
        assert any(expect in line for line in found), found


def test_allowed_keys_only_where_listed():
    # created/updated are allowed on a domain, not on an SSH key.
    key = {"id": 1, "label": "k", "ssh_key": "ssh-ed25519 AAAA", "created": "2024-01-01T00:00:00",
           "updated": "2024-01-01T00:00:00"}
    assert any("'updated' was unexpected" in p
               for p in problems_of("GET /profile/sshkeys/{}", 200, key))
    # site_type is shaped like the document's site-type: its enum holds.
    region = {"id": "us-east", "label": "Newark, NJ", "country": "us", "capabilities": [],
              "status": "ok", "resolvers": {"ipv4": "", "ipv6": ""},
              "placement_group_limits": {"maximum_pgs_per_customer": None,
                                         "maximum_linodes_per_pg": 5},
              "site_type": "edge"}
    assert any("'edge' is not one of" in p for p in problems_of("GET /regions/{}", 200, region))
    assert problems_of("GET /regions/{}", 200, dict(region, site_type="core")) == []
    # Without the allow-list, the same domain fails.
    assert problems_of("GET /domains/{}", 200, DOMAIN, allowed=[])
    # A tagged domain keeps its own `type` beside a node balancer's.
    tagged = {"data": [{"type": "domain", "data": DOMAIN}], "page": 1, "pages": 1,
              "results": 1}
    assert problems_of("GET /tags/{}", 200, tagged) == []
    tagged["data"][0]["data"] = dict(DOMAIN, type="common")
    assert problems_of("GET /tags/{}", 200, tagged)


def test_relaxed_enum_takes_only_the_listed_values():
    # A database event: its action and entity type are among the values the
    # allow-list adds to the document's enums, its nulls allowed there.
    event = {"id": 1, "action": "database_create", "created": "2024-01-01T00:00:00",
             "duration": 0, "entity": {"id": 5, "label": "db", "type": "database",
                                       "url": "/v4/databases/mysql/instances/5"},
             "details": {}, "message": "", "percent_complete": None, "rate": None,
             "read": False,
             "secondary_entity": None, "seen": False, "status": "notification",
             "time_remaining": None, "username": "u"}
    assert problems_of("GET /account/events/{}", 200, event) == []
    assert any("'database_nonsense' is not one of" in p for p in problems_of(
        "GET /account/events/{}", 200, dict(event, action="database_nonsense")))
    assert any("'databases' is not one of" in p for p in problems_of(
        "GET /account/events/{}", 200,
        dict(event, entity=dict(event["entity"], type="databases"))))
    # Not where the allow-list does not put them: null has no place in `read`.
    assert problems_of("GET /account/events/{}", 200, dict(event, read=None))
    # Without the allow-list, the same event fails.
    assert problems_of("GET /account/events/{}", 200, event, allowed=[])


def test_route_matching_follows_the_route_table():
    assert route_of("GET", "/v4/databases/engines/mysql/8.0.30") == "GET /databases/engines/{}"
    assert route_of("GET", "/v4beta/domains/5/records") == "GET /domains/{}/records"
    assert route_of("POST", "/v4/domains/import") == "POST /domains/import"
    assert route_of("GET", "/v4/regions/availability") == "GET /regions/availability"
