"""The suite's transport (harness/wire.py): a request put into bytes once
(Prepared, for the floods that send it thousands of times) is the very
request Http.request sends, and its answer reads the same."""

import pytest

from harness import LoopbackServer
from harness.wire import Connection, Http, Prepared

ANSWER = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
          b"X-Twice: a\r\nX-Twice: b\r\nContent-Length: 11\r\n\r\n{\"ok\":true}")


class Recorder:
    """A loopback server that keeps each request's bytes (a request is its
    header and as many body bytes as its Content-Length says) and answers
    ANSWER on the same connection."""

    def __init__(self):
        self.requests = []
        self.server = LoopbackServer(self._record)
        self.port = self.server.port

    def _record(self, conn):
        with conn:
            buf = b""
            while True:
                while b"\r\n\r\n" not in buf:
                    data = conn.recv(65536)
                    if not data:
                        break
                    buf += data
                if b"\r\n\r\n" not in buf:
                    break
                head, _, rest = buf.partition(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n")[1:]:
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                while len(rest) < length:
                    rest += conn.recv(65536)
                self.requests.append(head + b"\r\n\r\n" + rest[:length])
                buf = rest[length:]
                conn.sendall(ANSWER)

    def close(self):
        self.server.close()


@pytest.fixture
def recorder():
    r = Recorder()
    yield r
    r.close()


CALLS = [
    ("GET", "/v4/profile", {}),
    ("GET", "/v4/domains", {"params": {"page": "-1", "page_size": "9" * 40},
                            "headers": {"X-Filter": '{"+or":' + "[" * 200 + "]" * 200 + "}"}}),
    ("POST", "/v4/domains", {"json": {"domain": "x" * 5000, "soa_email": "\u0000"}}),
    ("POST", "/v4/profile/tokens", {"data": "[" * 5000 + "]" * 5000,
                                    "headers": {"Content-Type": "application/json"}}),
    ("POST", "/v4/profile/tokens", {"data": b"\xff\xfe{\x00}",
                                    "headers": {"Content-Type": "application/json"}}),
    ("PUT", "/v4/tags", {"data": {"label": "a b"}, "headers": {"Authorization": None}}),
    ("DELETE", "/v4/regions", {"headers": {"Authorization": "Bearer " + "0" * 64}}),
]


@pytest.mark.parametrize("method,path,kw", CALLS, ids=[f"{m} {p}" for m, p, _ in CALLS])
def test_prepared_is_what_http_sends(recorder, method, path, kw):
    url = f"http://127.0.0.1:{recorder.port}{path}"
    with Http() as h:
        sent = h.request(method, url, timeout=5, **kw)
    with Connection(url, timeout=5) as conn:
        prepared = Prepared(method, url, **kw)
        resent = conn.send(prepared)
    assert len(recorder.requests) == 2, recorder.requests
    assert recorder.requests[0] == recorder.requests[1] == prepared.data
    for r in (sent, resent):
        assert r.status_code == 200 and r.json() == {"ok": True}
        assert r.headers["x-twice"] == "a, b"
        assert r.request.method == method
    assert resent.url == sent.url and resent.url.startswith(url)


def test_connection_keeps_its_connection(recorder):
    url = f"http://127.0.0.1:{recorder.port}/v4/profile"
    prepared = Prepared("GET", url)
    with Connection(url, timeout=5) as conn:
        for _ in range(3):
            assert conn.send(prepared).status_code == 200
    # One accepted connection answered all three (the recorder serves one
    # connection at a time, in order).
    assert recorder.requests == [prepared.data] * 3


def test_host_header_leaves_out_the_scheme_port():
    """As http.client writes it: the port only when it is not the
    scheme's own."""
    assert b"\r\nHost: example.test\r\n" in Prepared("GET", "https://example.test/v4").data
    assert b"\r\nHost: example.test:8443\r\n" in Prepared("GET", "https://example.test:8443/v4").data
    assert b"\r\nHost: example.test\r\n" in Prepared("GET", "http://example.test/v4").data


def test_a_streamed_body_is_refused():
    with pytest.raises(TypeError):
        Prepared("POST", "http://127.0.0.1:1/v4/tags", data=iter([b"a", b"b"]))
