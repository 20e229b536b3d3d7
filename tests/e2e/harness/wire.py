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
it is reused (as urllib3 does), and a request that fails on the wire
fails.
"""

import errno
import functools
import http.client
import select
import socket
import ssl
import threading
import zlib
from urllib.parse import urlsplit

import requests
from requests.structures import CaseInsensitiveDict
from requests.utils import default_headers, get_encoding_from_headers

__all__ = ["Http", "Verbs", "request_once"]

_DEFAULT_HEADERS = default_headers()


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
        self._idle = {}          # (scheme, host, port, verify): [connection]
        self._lock = threading.Lock()

    # -- connections ---------------------------------------------------------

    def _take(self, key, timeout):
        with self._lock:
            idle = self._idle.get(key, [])
            while idle:
                conn = idle.pop()
                if not _dropped(conn):
                    conn.timeout = timeout
                    if conn.sock is not None:
                        conn.sock.settimeout(timeout)
                    return conn
                conn.close()
        scheme, host, port, verify = key
        if scheme == "https":
            return http.client.HTTPSConnection(host, port, timeout=timeout,
                                               context=_tls_context(verify))
        return http.client.HTTPConnection(host, port, timeout=timeout)

    def _give_back(self, key, conn):
        with self._lock:
            self._idle.setdefault(key, []).append(conn)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Closes the idle connections; the client stays usable."""
        with self._lock:
            conns = [c for idle in self._idle.values() for c in idle]
            self._idle.clear()
        for c in conns:
            c.close()

    # -- requests -------------------------------------------------------------

    def request(self, method, url, *, headers=None, params=None, json=None, data=None,
                timeout=None, verify=True, allow_redirects=False):
        merged = CaseInsensitiveDict(_DEFAULT_HEADERS)
        for k, v in (headers or {}).items():
            merged[k] = v
        for k in [k for k, v in merged.items() if v is None]:
            del merged[k]
        prep = requests.PreparedRequest()
        prep.prepare(method=method.upper(), url=url, headers=merged, params=params,
                     json=json, data=data)
        parts = urlsplit(prep.url)
        scheme = parts.scheme.lower()
        port = parts.port or (443 if scheme == "https" else 80)
        key = (scheme, parts.hostname, port, verify if scheme == "https" else None)
        conn = self._take(key, timeout)
        chunked = "Transfer-Encoding" in prep.headers
        try:
            try:
                conn.request(prep.method, prep.path_url, body=prep.body,
                             headers=dict(prep.headers), encode_chunked=chunked)
            except OSError as e:
                # A server may answer and close before it has read the
                # whole body (a body over its limit): the answer is still
                # there to read, as urllib3 reads it.
                if e.errno not in (errno.EPIPE, errno.ESHUTDOWN):
                    raise
            answer = conn.getresponse()
            body = answer.read()
        except socket.timeout as e:
            conn.close()
            raise requests.Timeout(e, request=prep) from None
        except ssl.SSLError as e:
            conn.close()
            raise requests.exceptions.SSLError(e, request=prep) from None
        except (OSError, http.client.HTTPException) as e:
            conn.close()
            raise requests.ConnectionError(e, request=prep) from None
        if answer.will_close:
            conn.close()
        else:
            self._give_back(key, conn)
        r = requests.Response()
        r.status_code = answer.status
        r.reason = answer.reason
        r.headers = _headers(answer.getheaders())
        r._content = _decoded(body, r.headers.get("Content-Encoding"))
        r.encoding = get_encoding_from_headers(r.headers)
        r.url = prep.url
        r.request = prep
        return r



def request_once(method, url, **kw):
    """One request on a connection of its own, closed after the answer
    (requests.request's way)."""
    with Http() as h:
        return h.request(method, url, **kw)
