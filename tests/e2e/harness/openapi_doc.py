"""Every response checked against the OpenAPI document."""

import json
import os
import re
import threading
import time
import urllib.parse
from pathlib import Path

import jsonschema
import requests

from .base import *  # noqa: F401,F403


METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
# Statuses httpd answers itself before any module sees the request.
HTTPD_REFUSALS = (400, 408, 414, 431)


def resolve_pointer(doc, ref):
    """The value a local "#/a/b" reference names (KeyError if none)."""
    if not ref.startswith("#/"):
        raise KeyError(ref)
    node = doc
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def api_path(raw_path):
    """What follows the version segment (/v4 or /v4beta), as the module finds
    it (mod_acctapi.c: api_path), still percent-encoded; None: not the API's."""
    p = 0
    while True:
        p = raw_path.find("/v4", p)
        if p < 0:
            return None
        after = p + 3
        if raw_path.startswith("beta", after):
            after += 4
        if after == len(raw_path) or raw_path[after] == "/":
            return raw_path[after:]
        p = after


def _percent_decode(seg):
    """acct_percent_decode, then acct_router.c segment_is_text: None on a
    malformed escape, an encoded NUL, invalid UTF-8 or a control character."""
    if re.search(r"%(?![0-9A-Fa-f]{2})|%00|\x00", seg):
        return None
    try:
        text = urllib.parse.unquote_to_bytes(seg).decode("utf-8")
    except UnicodeDecodeError:
        return None
    if re.search("[\x00-\x1f\x7f-\x9f]", text):
        return None
    return text


def _split_path(path):
    """acct_router.c split_path: decoded segments, or None (no such path)."""
    if path.startswith("/"):
        path = path[1:]
    if path.endswith("/"):
        path = path[:-1]
    if not path:
        return []
    segs = path.split("/")
    if len(segs) > 16 or "" in segs:
        return None
    decoded = [_percent_decode(s) for s in segs]
    return None if None in decoded else decoded


def _make_room(cache, limit):
    """Empties a memo (a dict or a set) that holds `limit` entries or more.
    A run asks about a bounded set of values, so the memos rarely fill; the
    bound keeps a run that asks about many (a flood of distinct paths, say)
    from growing them without end."""
    if len(cache) >= limit:
        cache.clear()


class OpenAPI:
    """The document of the repository, its operations found the way the
    module's router finds routes, and compiled validators per response."""

    def __init__(self, path=OPENAPI_DOC):
        self.path = Path(path)
        self.doc = json.loads(self.path.read_text())
        self.version = self.doc["info"]["version"]
        self.templates = []          # (path, [segments], rest-param names)
        for tmpl, item in self.doc["paths"].items():
            rest = set()
            for o in (item.get(m) for m in METHODS):
                for prm in (o or {}).get("parameters", []) + item.get("parameters", []):
                    prm = self.deref(prm)
                    if prm.get("x-rest-of-path"):
                        rest.add(prm["name"])
            self.templates.append((tmpl, tmpl.strip("/").split("/") if tmpl != "/" else [],
                                   rest))
        self._validators = {}
        self._lock = threading.Lock()
        self._check_lock = threading.Lock()
        self._seen_valid = set()     # (validator key, body or item JSON) found valid
        self._items = {}             # validator key: its list's item schema, or None
        self._found = {}             # (method, path): what find() found
        self._headers = {}           # (operation, status key): _documented_headers
        self._header_verdicts = {}   # (validator key, type, value): message or None
        self.checked = 0             # responses checked, and the time it took
        self.seconds = 0.0

    def deref(self, node):
        while isinstance(node, dict) and "$ref" in node:
            node = resolve_pointer(self.doc, node["$ref"])
        return node

    def _score(self, tsegs, rest, segs):
        """acct_router.c match_template: a specificity score, or -1."""
        score = 0
        for i, t in enumerate(tsegs):
            if i >= len(segs):
                return -1
            score <<= 1
            if t.startswith("{"):
                if t[1:-1] in rest:
                    return score
            elif t != segs[i]:
                return -1
            else:
                score |= 1
        return score if len(tsegs) == len(segs) else -1

    def find(self, method, path):
        """(template, operation or None); template None: no such path."""
        found = self._found.get((method, path))
        if found is None:
            _make_room(self._found, 100000)
            found = self._found[(method, path)] = self._find(method, path)
        return found

    def _find(self, method, path):
        segs = _split_path(path)
        if segs is None:
            return None, None
        best, best_tmpl = -1, None
        for tmpl, tsegs, rest in self.templates:
            sc = self._score(tsegs, rest, segs)
            if sc > best:
                best, best_tmpl = sc, tmpl
        if best_tmpl is None:
            return None, None
        m = "get" if method.upper() == "HEAD" else method.lower()
        return best_tmpl, self.doc["paths"][best_tmpl].get(m) if m in METHODS else None

    def inline(self, schema):
        """`schema` with every local $ref replaced by what it names (the
        document's schemas are not recursive): validating then never
        resolves a reference, which is most of jsonschema's cost."""
        if isinstance(schema, list):
            return [self.inline(x) for x in schema]
        if not isinstance(schema, dict):
            return schema
        if "$ref" in schema:
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            target = self.inline(resolve_pointer(self.doc, schema["$ref"]))
            return {"allOf": [target, self.inline(rest)]} if rest else target
        return {k: self.inline(v) for k, v in schema.items()}

    def validator(self, key, schema):
        with self._lock:
            v = self._validators.get(key)
            if v is None:
                v = jsonschema.Draft202012Validator(self.inline(schema))
                self._validators[key] = v
            return v

    def _errors(self, key, schema, value):
        """Schema errors of `value` as (path, message), sorted.  Lists are
        checked item by item, and an item seen valid before (the suite lists
        the same objects again and again) is not checked again."""
        items = self._items.get(key, ())
        if items == ():
            page = self.inline(schema)
            items = page.get("properties", {}).get("data", {}).get("items") \
                if page.get("type") == "object" else None
            self._items[key] = items
        if items is None or not isinstance(value, dict) \
                or not isinstance(value.get("data"), list):
            return self._run(key, schema, value, ())
        errors = self._run(key, schema, dict(value, data=[]), ())
        ikey = key + ("item",)
        for i, item in enumerate(value["data"]):
            text = json.dumps(item, sort_keys=True)
            if (ikey, text) in self._seen_valid:
                continue
            found = self._run(ikey, items, item, ("data", i))
            if found:
                errors += found
            else:
                self._remember_valid(ikey, text)
        return errors

    def _remember_valid(self, key, text):
        _make_room(self._seen_valid, 200000)
        self._seen_valid.add((key, text))

    def _run(self, key, schema, value, prefix):
        errs = self.validator(key, schema).iter_errors(value)
        found = [(prefix + tuple(e.absolute_path), e.message) for e in errs]
        return sorted(found, key=lambda f: (len(f[0]), [str(p) for p in f[0]], f[1]))

    def check(self, method, url, status, headers, body):
        """Raises AssertionError naming what in the response the document
        does not allow."""
        # One check at a time: the threads of a test share the caches.
        with self._check_lock:
            t0 = time.perf_counter()
            try:
                self._check(method.upper(), url, status, headers, body)
            finally:
                self.checked += 1
                self.seconds += time.perf_counter() - t0

    def _check(self, method, url, status, headers, body):
        path = api_path(urllib.parse.urlsplit(url).path)
        if path is None:
            return                      # not the API's URL space
        where = f"{method} {url} -> {status}"

        def fail(msg):
            raise AssertionError(f"OpenAPI: {where}: {msg}\n  body: {body[:600]!r}")

        if headers.get("X-Spec-Version") != self.version:
            fail(f"X-Spec-Version {headers.get('X-Spec-Version')!r}, not {self.version!r}")
        tmpl, op = self.find(method, path)
        if method == "OPTIONS" and status < 400:
            return                      # a CORS preflight: headers only
        if op is None:
            # No such path, or a method the path does not have: an error.
            if status < 400:
                fail("a path or method the document does not have answered "
                     "a success")
            if status == 405 and tmpl is not None and "Allow" not in headers:
                fail("405 without an Allow header")
            self._check_body(fail, ("error",), {"$ref": "#/components/schemas/ErrorEnvelope"},
                             method, headers, body)
            return
        name = f"{method if method != 'HEAD' else 'GET'} {tmpl}"
        responses = op["responses"]
        key = next((k for k in (str(status), f"{status // 100}XX", "default")
                    if k in responses), None)
        if key is None:
            fail(f"status {status} is not documented for {name} "
                 f"(documented: {', '.join(responses)})")
        resp = self.deref(responses[key])
        for hname, required, integer, vkey, schema in self._documented_headers(name, key, resp):
            value = headers.get(hname)
            if value is None:
                if required:
                    fail(f"header {hname} is missing ({name} {key})")
                continue
            hv = value
            if integer:
                try:
                    hv = int(value)
                except ValueError:
                    fail(f"header {hname}: {value!r} is not an integer")
            message = self._header_error(vkey, schema, hv)
            if message:
                fail(f"header {hname}: {message}")
        accepted = headers.get("X-Accepted-OAuth-Scopes")
        # A request httpd refused before the module routed it (a header over
        # LimitRequestFieldSize, say) carries the unrouted headers.
        unrouted = status in HTTPD_REFUSALS and accepted == "*"
        if accepted != op.get("x-required-scope") and not unrouted:
            fail(f"X-Accepted-OAuth-Scopes {accepted!r}, the document says "
                 f"{op.get('x-required-scope')!r}")
        content = resp.get("content")
        if not content:
            if body:
                fail(f"{name} {key} has no body in the document")
            return
        schema = content["application/json"]["schema"]
        self._check_body(fail, (name, key), schema, method, headers, body)

    def _documented_headers(self, name, key, resp):
        """The headers response `key` of operation `name` documents, resolved
        once: (name, required, integer, validator key, schema) each."""
        found = self._headers.get((name, key))
        if found is None:
            found = []
            for hname, h in resp.get("headers", {}).items():
                h = self.deref(h)
                found.append((hname, bool(h.get("required")),
                              h.get("schema", {}).get("type") == "integer",
                              ("header", hname, name, key), h["schema"]))
            self._headers[(name, key)] = found
        return found

    def _header_error(self, vkey, schema, value):
        """jsonschema's message for a header's value, or None.  The verdict
        on a value is kept: the same few values come on almost every
        response (the scopes, Vary, Cache-Control, the rate limit), and
        checking them again was a third of a check's time."""
        memo = (vkey, type(value), value)
        if memo not in self._header_verdicts:
            _make_room(self._header_verdicts, 200000)
            err = jsonschema.exceptions.best_match(
                self.validator(vkey, schema).iter_errors(value))
            self._header_verdicts[memo] = err.message if err else None
        return self._header_verdicts[memo]

    def _check_body(self, fail, key, schema, method, headers, body):
        if method == "HEAD":
            if body:
                fail("HEAD answered a body")
            return
        ctype = headers.get("Content-Type")
        if ctype != "application/json":
            fail(f"Content-Type {ctype!r}, not exactly application/json")
        if (key, body) in self._seen_valid:
            return                      # the same answer as before (errors, mostly)
        try:
            doc = json.loads(body)
        except ValueError:
            fail("the body is not JSON")
        errors = self._errors(key, schema, doc)
        if errors:
            lines = [f"  at /{'/'.join(str(p) for p in path)}: {message}"
                     for path, message in errors[:5]]
            fail(f"the body does not match {' '.join(key)}:\n" + "\n".join(lines))
        if len(body) <= 4096:
            self._remember_valid(key, body)


_openapi = None
_openapi_lock = threading.Lock()


def openapi():
    """The repository's OpenAPI document, loaded once per session."""
    global _openapi
    with _openapi_lock:
        if _openapi is None:
            _openapi = OpenAPI()
        return _openapi


def openapi_loaded():
    """The document if a test has loaded it, else None (for the summary)."""
    return _openapi


def check_response(r):
    """Checks a requests.Response of the API against the OpenAPI document
    (set ACCTAPI_NO_OPENAPI_CHECK=1 to skip: only for debugging)."""
    if os.environ.get("ACCTAPI_NO_OPENAPI_CHECK"):
        return
    openapi().check(r.request.method, r.request.url, r.status_code, r.headers, r.content)
