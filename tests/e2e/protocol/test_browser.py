"""A page served from another origin calls the API from headless Chromium
(Debian's chromium package): simple requests, requests that need a CORS
preflight (Authorization, X-Filter, a JSON body, DELETE), and errors the
script must be able to read (404, 405).  The page writes what it saw into
the DOM; Chromium prints the DOM (--dump-dom) and the test reads it.

A request with a header the API does not allow must fail in the browser:
that shows the browser really enforced CORS on these calls."""

import html
import json
import re
import secrets
import shutil
import subprocess
import tempfile
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason="chromium is not installed (scripts/deps installs it)")

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>acctapi CORS</title></head>
<body><pre id="result">pending</pre>
<script>
const API = __API__;
const TOKEN = __TOKEN__;
const LABEL = __LABEL__;
const auth = {"Authorization": "Bearer " + TOKEN};

async function call(name, path, init, read) {
  try {
    const r = await fetch(API + path, init || {});
    const text = await r.text();
    const doc = text ? JSON.parse(text) : null;
    return Object.assign({status: r.status}, read ? read(r, doc) : {});
  } catch (e) {
    return {error: e.name};
  }
}

(async () => {
  const out = {origin: location.origin};
  out.regions = await call("regions", "/regions", {}, (r, doc) => ({
    first: doc.data[0].id, pages: doc.pages,
    spec: r.headers.get("X-Spec-Version"),
    accepted: r.headers.get("X-Accepted-OAuth-Scopes"),
    ctype: r.headers.get("Content-Type"),
    server: r.headers.get("Server")}));
  out.profile = await call("profile", "/profile", {headers: auth}, (r, doc) => ({
    username: doc.username, scopes: r.headers.get("X-OAuth-Scopes")}));
  out.created = await call("created", "/profile/tokens", {
      method: "POST", headers: Object.assign({"Content-Type": "application/json"}, auth),
      body: JSON.stringify({label: LABEL})},
    (r, doc) => ({id: doc.id, label: doc.label,
                  accepted: r.headers.get("X-Accepted-OAuth-Scopes")}));
  out.filtered = await call("filtered", "/profile/tokens", {
      headers: Object.assign({"X-Filter": JSON.stringify({label: LABEL})}, auth)},
    (r, doc) => ({results: doc.results, label: doc.data.length ? doc.data[0].label : null}));
  if (out.created.id) {
    out.deleted = await call("deleted", "/profile/tokens/" + out.created.id,
                             {method: "DELETE", headers: auth}, (r, doc) => ({body: doc}));
  }
  out.missing = await call("missing", "/no/such/route", {headers: auth}, (r, doc) => ({
    reason: doc.errors[0].reason}));
  out.wrong_method = await call("wrong_method", "/regions", {method: "DELETE"}, (r, doc) => ({
    reason: doc.errors[0].reason}));
  out.unauthenticated = await call("unauthenticated", "/profile", {}, (r, doc) => ({
    reason: doc.errors[0].reason}));
  out.forbidden_header = await call("forbidden_header", "/regions",
                                    {headers: {"X-Not-Allowed": "1"}});
  document.getElementById("result").textContent = "RESULT " + JSON.stringify(out) + " END";
})();
</script></body></html>
"""


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


@pytest.fixture
def page_site():
    """A static HTTP server on another port of 127.0.0.1: another origin."""
    root = Path(tempfile.mkdtemp(prefix="acctapi-page-"))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(QuietHandler, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield root, f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=10)
        shutil.rmtree(root, ignore_errors=True)


def run_chromium(url, timeout=90):
    """The page's DOM after its scripts ran, as Chromium serialises it."""
    profile = tempfile.mkdtemp(prefix="acctapi-chromium-")
    try:
        p = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-extensions", f"--user-data-dir={profile}",
             "--virtual-time-budget=10000", "--dump-dom", url],
            capture_output=True, text=True, timeout=timeout)
        return p.stdout, p.stderr
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def test_cross_origin_page_calls_the_api(server, backend, page_site):
    root, site = page_site
    label = f"e2e-browser-{secrets.token_hex(4)}"
    (root / "index.html").write_text(
        PAGE.replace("__API__", json.dumps(server.base_url))
            .replace("__TOKEN__", json.dumps(backend.token))
            .replace("__LABEL__", json.dumps(label)))
    dom, err = run_chromium(site + "/index.html")
    m = re.search(r'<pre id="result">(.*?)</pre>', dom, re.S)
    text = html.unescape(m.group(1)) if m else ""
    assert text.startswith("RESULT ") and text.endswith(" END"), \
        f"the page did not finish:\n{dom[-2000:]}\nstderr:\n{err[-3000:]}"
    out = json.loads(text[len("RESULT "):-len(" END")])

    assert out["origin"] == site and site != server.url, out
    # A simple GET: no preflight; the exposed headers are readable, the
    # others (Server) are not: the browser applied CORS.
    assert out["regions"]["status"] == 200, out
    assert re.fullmatch(r"[a-z]{2}-[a-z]+(-[0-9]+)?", out["regions"]["first"]), out
    assert out["regions"]["pages"] >= 1, out
    assert out["regions"]["spec"] == server.client().get("/regions").headers["X-Spec-Version"]
    assert out["regions"]["accepted"] == "*", out
    assert out["regions"]["ctype"] == "application/json", out
    assert out["regions"]["server"] is None, out
    # Authorization, X-Filter, a JSON body, DELETE: each behind a preflight.
    assert out["profile"]["status"] == 200, out
    assert out["profile"]["username"], out
    assert out["profile"]["scopes"] == "*", out
    assert out["created"]["status"] == 200 and out["created"]["label"] == label, out
    assert out["created"]["accepted"] == "account:read_write", out
    assert out["filtered"] == {"status": 200, "results": 1, "label": label}, out
    assert out["deleted"] == {"status": 200, "body": {}}, out
    # Errors reach the script as the API's JSON, not as network errors.
    assert out["missing"] == {"status": 404, "reason": "Not found"}, out
    assert out["wrong_method"] == {"status": 405, "reason": "Method Not Allowed"}, out
    assert out["unauthenticated"] == {"status": 401, "reason": "Invalid Token"}, out
    # A header the API does not allow: the preflight refuses it.
    assert out["forbidden_header"] == {"error": "TypeError"}, out
    # And the token the page made is gone.
    r = server.client(token=backend.token).get("/profile/tokens", xfilter={"label": label})
    assert r.status == 200 and r.json["results"] == 0, r
