"""Requests sent as today's public-API clients build them, and the check that
an answer parses into what the client reads.

A client is a Wire: the version segment it puts in front of paths (v4, or
v4beta for linode_api4 and linodego), the headers it sets on every request
and how it encodes a body (Python's json.dumps with its ", " and ": ", or Go's
compact encoding/json).  Bodies go out as the exact text the client would
send, nulls and copied path ids included; each test writes the body's keys
in the order the client's source or recorded traffic puts them.

A model is what the client's types read from an answer: a dict of key ->
kind, where a kind is int, str, bool, NUMBER, TIMESTAMP, ANY, a list of one
kind, a nested model, or Nullable(kind).  Every key a model names must be
present with a value of its kind: a client that finds a string where its
struct has an int fails to decode the whole answer (Go), and a missing key
reads as None where the client's code goes on to use it (Python).
"""

import base64
import json
import re
import socket
import struct
import subprocess
import threading

import harness
from harness import Client

# linodego's and linode_api4's timestamp layout ("2006-01-02T15:04:05",
# "%Y-%m-%dT%H:%M:%S"): anything else fails to parse in both.
_TS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")


class _Kind:
    def __init__(self, name, test):
        self.name = name
        self.test = test

    def __repr__(self):
        return self.name


NUMBER = _Kind("number", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool))
TIMESTAMP = _Kind("timestamp", lambda v: isinstance(v, str) and _TS.fullmatch(v) is not None)
ANY = _Kind("any", lambda v: True)
# An event entity's id: the object's number, a tag's name, or null for the
# account and profile events, which have none (the public document's text).
ENTITY_ID = _Kind("entity id (integer, a tag's name, or null)",
                  lambda v: v is None or isinstance(v, str)
                  or (isinstance(v, int) and not isinstance(v, bool)))


class Nullable:
    """kind or null."""

    def __init__(self, kind):
        self.kind = kind

    def __repr__(self):
        return f"Nullable({self.kind!r})"


def conforms(value, kind, where="$"):
    """Asserts that value has kind (see the module's docstring)."""
    if isinstance(kind, Nullable):
        if value is None:
            return
        kind = kind.kind
    if isinstance(kind, _Kind):
        assert kind.test(value), f"{where}: {value!r} is not a {kind.name}"
    elif kind is int:
        assert isinstance(value, int) and not isinstance(value, bool), \
            f"{where}: {value!r} is not an integer"
    elif kind is dict:
        assert isinstance(value, dict), f"{where}: {value!r} is not an object"
    elif kind in (str, bool):
        assert isinstance(value, kind), f"{where}: {value!r} is not a {kind.__name__}"
    elif isinstance(kind, list):
        assert isinstance(value, list), f"{where}: {value!r} is not a list"
        for i, item in enumerate(value):
            conforms(item, kind[0], f"{where}[{i}]")
    elif isinstance(kind, dict):
        assert isinstance(value, dict), f"{where}: {value!r} is not an object"
        for key, sub in kind.items():
            assert key in value, f"{where}: no {key!r} in {sorted(value)}"
            conforms(value[key], sub, f"{where}.{key}")
    else:
        raise TypeError(f"not a kind: {kind!r}")
    return value


def page_of(kind):
    """The list envelope every client reads, its items of kind."""
    return {"data": [kind], "page": int, "pages": int, "results": int}


def py_json(obj):
    """json.dumps(obj) as linode_api4, linode-cli and lexicon call it."""
    return json.dumps(obj)


def go_json(obj):
    """Go's json.Marshal: compact, no escaping of non-ASCII, <, > and &
    escaped (its HTML-safe default)."""
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


class Wire:
    """One client's way of talking to the module's server."""

    def __init__(self, server, token, *, version="v4", headers=None, encode=py_json):
        self.server = server
        self.token = token
        self.version = version
        self.headers = dict(headers or {})
        self.encode = encode
        self.http = Client(f"{server.url}/{version}")

    def send(self, method, path, body=None, *, text=None, xfilter=None, headers=None,
             token=True):
        """method path (relative to /VERSION, query included).  body: an
        object the client encodes; text: the exact body instead.  xfilter: the
        X-Filter header's exact text.  token False: no Authorization."""
        h = dict(self.headers)
        if token and self.token:
            h["Authorization"] = f"Bearer {self.token}"
        if xfilter is not None:
            assert isinstance(xfilter, str), "X-Filter is sent as the client's exact text"
            h["X-Filter"] = xfilter
        h.update(headers or {})
        if body is not None:
            assert text is None
            text = self.encode(body)
        data = text.encode() if text is not None else None
        return self.http.request(method, path, token=None, headers=h, data=data)

    def get(self, path, **kw):
        return self.send("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.send("POST", path, body, **kw)

    def put(self, path, body=None, **kw):
        return self.send("PUT", path, body, **kw)

    def delete(self, path, **kw):
        return self.send("DELETE", path, **kw)

    def close(self):
        self.http.close()


def answer(r, kind=None, status=200):
    """The JSON answer of r, which must be `status` and parse as kind."""
    assert r.status == status, r
    assert r.ctype == "application/json", r
    doc = r.json
    if kind is not None:
        conforms(doc, kind)
    return doc


def reasons(r):
    """The (field, reason) pairs of an error answer."""
    doc = r.json
    return [(e.get("field"), e["reason"]) for e in doc["errors"]]


def rsa_public_key(comment):
    """A fresh 2048-bit RSA key in OpenSSH's public form, as `ssh-keygen -t
    rsa` writes it (the clients' tests upload such keys), made with openssl."""
    pem = subprocess.run(["openssl", "genrsa", "2048"], check=True, capture_output=True).stdout
    text = subprocess.run(["openssl", "rsa", "-noout", "-text"], input=pem, check=True,
                          capture_output=True).stdout.decode()
    modulus = re.search(r"modulus:\n((?:\s+[0-9a-f:]+\n)+)", text).group(1)
    n = int("".join(modulus.split()).replace(":", ""), 16)
    e = int(re.search(r"publicExponent: (\d+)", text).group(1))

    def mpint(v):
        raw = v.to_bytes(v.bit_length() // 8 + 1, "big")  # a leading 0: positive
        return struct.pack(">I", len(raw)) + raw

    blob = struct.pack(">I", 7) + b"ssh-rsa" + mpint(e) + mpint(n)
    return f"ssh-rsa {base64.b64encode(blob).decode()} {comment}"


class ConnectProxy:
    """An HTTP CONNECT proxy on 127.0.0.1 that tunnels `host:port` (the
    public API's host) to the module's TLS port and refuses everything else
    (403), so that a client whose base URL is hard-coded runs unchanged,
    with only HTTPS_PROXY and its CA bundle set, and reaches nothing else.
    It never sees the plain text: TLS runs end to end between the client and
    httpd.  self.tunnels: the targets tunnelled; self.refused: the others."""

    def __init__(self, host, port, to_port):
        self.target = f"{host}:{port}"
        self.to_port = to_port
        self.tunnels = []
        self.refused = []
        self.server = harness.LoopbackServer(self._tunnel, threaded=True)
        self.port = self.server.port
        self.url = f"http://127.0.0.1:{self.port}"

    def _tunnel(self, conn):
        with conn:
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                head += chunk
            words = head.split(b"\r\n", 1)[0].decode("latin-1").split()
            if len(words) < 2 or words[0] != "CONNECT" or words[1] != self.target:
                self.refused.append(" ".join(words[:2]))
                conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n"
                             b"Connection: close\r\n\r\n")
                return
            self.tunnels.append(words[1])
            with socket.create_connection(("127.0.0.1", self.to_port)) as up:
                conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                pump = threading.Thread(target=self._pipe, args=(up, conn), daemon=True)
                pump.start()
                self._pipe(conn, up)
                pump.join(30)

    @staticmethod
    def _pipe(src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def close(self):
        self.server.close()
