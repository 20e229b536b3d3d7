"""The suite's HTTP transport: requests' own request preparation and
response object over Python's http.client.

requests.Session spends about 0.85 ms of CPU a call on this project's
machines (urllib3's pool, adapters, hooks, proxy lookups in the
environment) where http.client spends 0.13, and the suite sends tens of
thousands of requests.  What goes on the wire and what a test reads back
stay requests': the request is a requests.PreparedRequest (the same URL
quoting, query encoding, JSON and form bodies, chunked bodies from
iterators, Content-Length, default headers) and the answer a
requests.Response (the same .text decoding, .json(), case-insensitive
headers, gzip and deflate undone).  Failures raise requests' exceptions,
as a Session would: a refused or reset connection is
requests.ConnectionError, a timeout requests.Timeout.  Nothing is resent:
an idle kept-alive connection that the server has closed is noticed before
it is reused (as urllib3 does), one idle for REUSE_IDLE_FOR is not reused,
and a request that fails on the wire fails.

A test that sends the same few requests thousands of times (the
hostile-input flood) puts each into bytes once (Prepared, the very bytes
Http.request sends) and sends them on a Connection of its own: a request
then costs a write and the reading of its answer, not its preparation
(1.8 ms of CPU for one with a 200 KB header).
"""

import contextlib
import errno
import functools
import http.client
import select
import socket
import ssl
import threading
import time
import zlib
from urllib.parse import urlsplit

import requests
from requests.structures import CaseInsensitiveDict
from requests.utils import default_headers, get_encoding_from_headers

__all__ = ["Connection", "Http", "Prepared", "Verbs", "request_once"]

_DEFAULT_HEADERS = default_headers()

# How long an idle kept-alive connection is reused: well within the
# generated configuration's KeepAliveTimeout (5 s).  The check before reuse
# (_dropped) sees a close the server has already sent; one it sends at the
# moment the request goes out, when the idle time reaches its timeout,
# would meet the request on the wire ("Remote end closed connection without
# response", seen under the sanitizer run's slowness).  An older connection
# is closed and a new one opened instead: nothing is resent.
REUSE_IDLE_FOR = 2.0


@functools.lru_cache(maxsize=None)
def _tls_context(verify):
    """An SSL context as requests builds one for `verify`: True (the
    system's authorities), a CA file's path, or False (no checks); one per
    value, shared by its connections."""
    if verify is False:
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        return ctx
    if verify is True:
        return ssl.create_default_context()
    return ssl.create_default_context(cafile=str(verify))


def _dropped(conn):
    """Has the server closed this idle connection (or sent something
    unasked)?  urllib3's check before it reuses one."""
    sock = conn.sock
    if sock is None:
        return True
    try:
        return bool(select.select([sock], [], [], 0)[0])
    except (OSError, ValueError):
        return True


def _decoded(body, encoding):
    """The body with its Content-Encoding undone, as urllib3 does."""
    encoding = (encoding or "").strip().lower()
    if not body or encoding not in ("gzip", "x-gzip", "deflate"):
        return body
    if encoding == "deflate":
        try:
            return zlib.decompress(body)
        except zlib.error:
            return zlib.decompress(body, -zlib.MAX_WBITS)
    return zlib.decompress(body, 16 + zlib.MAX_WBITS)


def _headers(pairs):
    """The answer's headers, a field sent more than once as its values
    joined by ", " (urllib3's HTTPHeaderDict, which requests reads)."""
    h = CaseInsensitiveDict()
    for k, v in pairs:
        h[k] = f"{h[k]}, {v}" if k in h else v
    return h


def _prepare(method, url, headers, params, json, data):
    """requests' PreparedRequest of a call, with requests' default headers
    (a header given as None is left out, as a Session leaves it out)."""
    merged = CaseInsensitiveDict(_DEFAULT_HEADERS)
    for k, v in (headers or {}).items():
        merged[k] = v
    for k in [k for k, v in merged.items() if v is None]:
        del merged[k]
    prep = requests.PreparedRequest()
    prep.prepare(method=method.upper(), url=url, headers=merged, params=params,
                 json=json, data=data)
    return prep


def _endpoint(url):
    """(scheme, host, port) of a URL."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, parts.hostname, parts.port or (443 if scheme == "https" else 80)


def _connection(scheme, host, port, timeout, verify):
    if scheme == "https":
        return http.client.HTTPSConnection(host, port, timeout=timeout,
                                           context=_tls_context(verify))
    return http.client.HTTPConnection(host, port, timeout=timeout)


@contextlib.contextmanager
def _failures_as_requests(conn, prep):
    """Failures on the wire as the requests exception a Session raises,
    the connection closed (nothing is resent)."""
    try:
        yield
    except socket.timeout as e:
        conn.close()
        raise requests.Timeout(e, request=prep) from None
    except ssl.SSLError as e:
        conn.close()
        raise requests.exceptions.SSLError(e, request=prep) from None
    except (OSError, http.client.HTTPException) as e:
        conn.close()
        raise requests.ConnectionError(e, request=prep) from None


def _send_until_answered(send):
    """Sends with send().  A server may answer a request and close before
    it has read all of it (a body or header over its limit): the send then
    stops with EPIPE, and the answer it sent is read next, as urllib3 reads
    it.  Nothing is sent again; with no answer there, reading it fails."""
    try:
        send()
    except OSError as e:
        if e.errno not in (errno.EPIPE, errno.ESHUTDOWN):
            raise


def _response(prep, answer, body):
    """The requests.Response of an http.client answer and its body."""
    r = requests.Response()
    r.status_code = answer.status
    r.reason = answer.reason
    r.headers = _headers(answer.getheaders())
    r._content = _decoded(body, r.headers.get("Content-Encoding"))
    r.encoding = get_encoding_from_headers(r.headers)
    r.url = prep.url
    r.request = prep
    return r


class Verbs:
    """get/head/post/put/delete(target, **kw): request(METHOD, target, **kw)
    of the class that mixes them in."""

    def get(self, target, **kw):
        return self.request("GET", target, **kw)

    def head(self, target, **kw):
        return self.request("HEAD", target, **kw)

    def post(self, target, **kw):
        return self.request("POST", target, **kw)

    def put(self, target, **kw):
        return self.request("PUT", target, **kw)

    def delete(self, target, **kw):
        return self.request("DELETE", target, **kw)


class Http(Verbs):
    """A requests.Session-like client without a Session's per-call cost:
    request(method, url, headers=, params=, json=, data=, timeout=,
    verify=, allow_redirects=) and get/post/put/delete/head.  Redirects
    are never followed (the suite asserts them).  Safe to share between
    threads: each request takes an idle connection or opens one."""

    def __init__(self):
        self._idle = {}          # (scheme, host, port, verify): [(connection, idle since)]
        self._lock = threading.Lock()

    # -- connections ---------------------------------------------------------

    def _take(self, key, timeout):
        with self._lock:
            idle = self._idle.get(key, [])
            while idle:
                conn, since = idle.pop()
                if time.monotonic() - since < REUSE_IDLE_FOR and not _dropped(conn):
                    conn.timeout = timeout
                    if conn.sock is not None:
                        conn.sock.settimeout(timeout)
                    return conn
                conn.close()
        scheme, host, port, verify = key
        return _connection(scheme, host, port, timeout, verify)

    def _give_back(self, key, conn):
        with self._lock:
            self._idle.setdefault(key, []).append((conn, time.monotonic()))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Closes the idle connections; the client stays usable."""
        with self._lock:
            conns = [c for idle in self._idle.values() for c, _ in idle]
            self._idle.clear()
        for c in conns:
            c.close()

    # -- requests -------------------------------------------------------------

    def request(self, method, url, *, headers=None, params=None, json=None, data=None,
                timeout=None, verify=True, allow_redirects=False):
        prep = _prepare(method, url, headers, params, json, data)
        scheme, host, port = _endpoint(prep.url)
        key = (scheme, host, port, verify if scheme == "https" else None)
        conn = self._take(key, timeout)
        chunked = "Transfer-Encoding" in prep.headers
        with _failures_as_requests(conn, prep):
            _send_until_answered(lambda: conn.request(
                prep.method, prep.path_url, body=prep.body, headers=dict(prep.headers),
                encode_chunked=chunked))
            answer = conn.getresponse()
            body = answer.read()
        if answer.will_close:
            conn.close()
        else:
            self._give_back(key, conn)
        return _response(prep, answer, body)


class _Recorder(http.client.HTTPConnection):
    """An HTTPConnection that keeps what it would send instead of sending it
    (its Host header as the scheme's connection writes it: no port when it
    is the scheme's own)."""

    def __init__(self, scheme, host, port):
        super().__init__(host, port)
        self.default_port = 443 if scheme == "https" else 80
        self.sent = bytearray()

    def send(self, data):
        self.sent += data


class Prepared:
    """A request put into bytes once: what Http.request would send for the
    same arguments (requests' preparation, http.client's serialisation, the
    Host header of the URL's host and port), for a test that sends it many
    times on a Connection.  The body must be bytes or text (a body read
    from an iterator is sent as it comes, by Http.request)."""

    def __init__(self, method, url, *, headers=None, params=None, json=None, data=None):
        self.request = _prepare(method, url, headers, params, json, data)
        if not isinstance(self.request.body, (bytes, str, type(None))):
            raise TypeError("a prepared request's body is bytes or text")
        recorder = _Recorder(*_endpoint(self.request.url))
        recorder.request(self.request.method, self.request.path_url,
                         body=self.request.body, headers=dict(self.request.headers))
        self.data = bytes(recorder.sent)


class Connection:
    """One kept-alive connection to the server of `url` that sends Prepared
    requests one after another and answers as Http.request does (a
    requests.Response; requests' exceptions; nothing resent).  When the
    server has closed it, the next request opens a new one.  Not for
    sharing between threads."""

    def __init__(self, url, timeout=15, verify=True):
        self._endpoint = _endpoint(url)
        self._timeout = timeout
        self._verify = verify
        self._conn = None

    def send(self, prepared):
        conn = self._conn
        if conn is None or _dropped(conn):
            self.close()
            scheme, host, port = self._endpoint
            conn = self._conn = _connection(scheme, host, port, self._timeout, self._verify)
        prep = prepared.request
        with _failures_as_requests(conn, prep):
            if conn.sock is None:
                conn.connect()
            _send_until_answered(lambda: conn.sock.sendall(prepared.data))
            answer = http.client.HTTPResponse(conn.sock, method=prep.method)
            answer.begin()
            body = answer.read()
        if answer.will_close:
            self.close()
        return _response(prep, answer, body)

    def close(self):
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def request_once(method, url, **kw):
    """One request on a connection of its own, closed after the answer
    (requests.request's way)."""
    with Http() as h:
        return h.request(method, url, **kw)
