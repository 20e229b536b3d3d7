"""The HTTP client of the tests."""

import json

from .openapi_doc import *  # noqa: F401,F403
from .wire import Connection, Http, Prepared, Verbs, request_once  # noqa: F401


_DEFAULT = object()


class Resp:
    def __init__(self, r):
        self.raw = r
        self.status = r.status_code
        self.headers = r.headers
        self.body = r.content
        self.text = r.text

    @property
    def ctype(self):
        return self.headers.get("Content-Type")

    @property
    def json(self):
        try:
            return json.loads(self.body)
        except ValueError:
            raise AssertionError(f"response {self.status} is not JSON: {self.body[:500]!r}") from None

    def json_pairs(self):
        """The body with every object as a list of (key, value) pairs, in order."""
        return json.loads(self.body, object_pairs_hook=list)

    def __repr__(self):
        return (f"<{self.raw.request.method} {self.raw.request.url} -> {self.status} "
                f"{dict(self.headers)} {self.body[:800]!r}>")


class Client(Verbs):
    """Requests to one base URL (…/v4) with an optional default token, over
    harness.wire's transport (requests' requests and answers, http.client's
    cost); each answer is checked against the OpenAPI document."""

    def __init__(self, base_url, token=None, verify=None, timeout=15):
        self.base_url = base_url
        self.token = token
        self.verify = verify if verify is not None else True
        self.timeout = timeout
        self.session = Http()

    def _call(self, path, token, authorization, headers, xfilter):
        """(URL, headers) of a call: the client's token unless another (or
        an Authorization header) is given, the X-Filter as JSON."""
        h = dict(headers or {})
        tok = self.token if token is _DEFAULT else token
        if authorization is not None:
            h["Authorization"] = authorization
        elif tok is not None:
            h["Authorization"] = f"Bearer {tok}"
        if xfilter is not None:
            h["X-Filter"] = xfilter if isinstance(xfilter, str) else json.dumps(xfilter)
        return (path if path.startswith("http") else self.base_url + path), h

    def request(self, method, path, *, token=_DEFAULT, authorization=None, headers=None,
                xfilter=None, **kw):
        url, h = self._call(path, token, authorization, headers, xfilter)
        kw.setdefault("timeout", self.timeout)
        kw.setdefault("verify", self.verify)
        kw.setdefault("allow_redirects", False)
        r = self.session.request(method, url, headers=h, **kw)
        check_response(r)
        return Resp(r)

    def prepare(self, method, path, *, token=_DEFAULT, authorization=None, headers=None,
                xfilter=None, **kw):
        """The request request() would send, put into bytes once (a
        wire.Prepared) for send(): for a test that sends it many times."""
        url, h = self._call(path, token, authorization, headers, xfilter)
        return Prepared(method, url, headers=h, **kw)

    def connection(self):
        """A kept-alive connection of its own to this client's server, for
        send() (one per thread)."""
        return Connection(self.base_url, timeout=self.timeout, verify=self.verify)

    def send(self, connection, prepared):
        """Sends a prepare()d request on `connection`; its answer is checked
        against the OpenAPI document, as request()'s are."""
        r = connection.send(prepared)
        check_response(r)
        return Resp(r)

    def all_pages(self, path, **kw):
        """Every item of a list, with page_size 500, following pages (bounded)."""
        items = []
        page = 1
        while page <= 50:
            r = self.get(path, params={"page": page, "page_size": 500}, **kw)
            assert r.status == 200, r
            doc = r.json
            items += doc["data"]
            if page >= doc["pages"]:
                return items
            page += 1
        raise AssertionError(f"{path}: more than 50 pages")

    def close(self):
        """Closes the client's idle connections (httpd's graceful stop would
        wait out their lingering close); it may still be used (it opens new
        ones)."""
        self.session.close()
