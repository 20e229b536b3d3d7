"""lexicon 3.11 (Debian's `lexicon`, provider linode4) and the certbot plugin
certbot-dns-linode 2.1 built on it.

Both run unchanged: the provider hard-codes https://api.linode.com/v4/ and
offers no option for another base URL, so the test gives the programs only
HTTPS_PROXY (a CONNECT proxy that tunnels api.linode.com:443, and nothing
else, to a TLS server of the module whose certificate names
api.linode.com) and REQUESTS_CA_BUNDLE (that certificate's private CA).
TLS runs end to end between the client and httpd.

What the provider sends (lexicon/providers/linode4.py): every request has
`Accept` and `Content-Type: application/json`, the token as Bearer, and
`json.dumps(data)` as its body with data `{}` when it has none -- GET and
DELETE carry the body `{}`; the zone is found with `X-Filter:
{"domain": "<zone>"}`; records are created with `ttl_sec` 0 and updated
with `"name": null` when no name is given (a PUT the module once refused).
The replay tests send those exact requests to the suite's plain HTTP
server, on every backend, without the Debian packages.
"""

import json
import os
import secrets
import shutil
import subprocess

import pytest

from harness import Account, Httpd, make_tls, make_tmpdir
from replay import ConnectProxy, Wire, answer, page_of

LEXICON = "/usr/bin/lexicon"
DEBIAN_PYTHON = "/usr/bin/python3"
HEADERS = {"Accept": "application/json", "Content-Type": "application/json"}
RECORD = {"id": int, "type": str, "name": str, "ttl_sec": int, "target": str}
DOMAIN = {"id": int, "domain": str}


def zone_name():
    # lexicon reduces the domain it is given to the registered domain (the
    # public suffix list), so the zone sits directly under a real TLD.
    return f"lexicon-{secrets.token_hex(5)}.com"


# --------------------------------------------------------------------------
# The provider's requests, replayed
# --------------------------------------------------------------------------

@pytest.fixture
def wire(backend, server):
    acct = Account(backend, server, stem="e2e-lexicon-")
    w = Wire(server, acct.client.token, headers=HEADERS)
    w.account = acct
    yield w
    w.close()
    acct.close()


def test_replay_dns01_challenge(wire):
    """_authenticate, _create_record (after a _list_records that finds
    nothing), _update_record by identifier without a name, _delete_record:
    every request as the provider builds it, body `{}` on GET and DELETE."""
    zone = zone_name()
    dom = answer(wire.account.client.post("/domains", json={
        "domain": zone, "type": "master", "soa_email": f"admin@{zone}"}), DOMAIN)
    found = answer(wire.get("/domains", body={}, xfilter=json.dumps({"domain": zone})),
                   page_of(DOMAIN))
    assert [d["id"] for d in found["data"]] == [dom["id"]], found
    records = f"/domains/{dom['id']}/records"
    assert answer(wire.get(records, body={}), page_of(RECORD))["data"] == []
    rec = answer(wire.post(records, {"name": "_acme-challenge", "type": "TXT",
                                     "target": "challenge-1", "ttl_sec": 0}), RECORD)
    listed = answer(wire.get(records, body={}), page_of(RECORD))
    assert [(r["name"], r["target"]) for r in listed["data"]] == \
        [("_acme-challenge", "challenge-1")], listed
    updated = answer(wire.put(f"{records}/{rec['id']}",
                              {"name": None, "type": "TXT", "target": "challenge-2"}), RECORD)
    assert (updated["name"], updated["target"]) == ("_acme-challenge", "challenge-2"), updated
    r = wire.delete(f"{records}/{rec['id']}", body={})
    assert r.status == 200, r
    assert answer(wire.get(records, body={}), page_of(RECORD))["data"] == []


def test_replay_unknown_zone(wire):
    """A zone the account does not have: an empty page, which the provider
    turns into "Domain not found" (and certbot tries the parent name)."""
    found = answer(wire.get("/domains", body={},
                            xfilter=json.dumps({"domain": "www." + zone_name()})),
                   page_of(DOMAIN))
    assert found["data"] == [] and found["results"] == 0, found


# --------------------------------------------------------------------------
# The Debian packages, unchanged
# --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def api_host_tls():
    missing = [p for p in (LEXICON, "/usr/lib/python3/dist-packages/certbot_dns_linode")
               if not os.path.exists(p)]
    if missing:
        pytest.fail(f"not installed: {', '.join(missing)} (Debian's lexicon and "
                    "python3-certbot-dns-linode: scripts/deps --test)", pytrace=False)
    d = make_tmpdir("acctapi-lexicon-tls-")
    yield make_tls(d, "IP:127.0.0.1,DNS:api.linode.com")
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="module")
def linode_host(backend, server, api_host_tls):
    """The module over TLS as api.linode.com, reached through the proxy; an
    account of its own, which the test sets up and checks through the
    suite's plain server (the same database)."""
    srv = Httpd(backend, backend.base, name="httpd-lexicon",
                tls=(api_host_tls["cert"], api_host_tls["key"]))
    srv.start()
    proxy = ConnectProxy("api.linode.com", 443, srv.port)
    acct = Account(backend, server, stem="e2e-lexicon-run-")
    home = make_tmpdir("acctapi-lexicon-home-")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8",
           "HTTPS_PROXY": proxy.url, "https_proxy": proxy.url,
           "REQUESTS_CA_BUNDLE": str(api_host_tls["ca"]),
           # tldextract's cache of the public suffix list: its fetch goes
           # through the proxy, is refused, and the bundled copy is used.
           "TLDEXTRACT_CACHE_PATH": str(home / "tld")}
    try:
        yield {"server": srv, "proxy": proxy, "account": acct, "env": env,
               "token": acct.client.token}
    finally:
        acct.close()
        proxy.close()
        shutil.rmtree(home, ignore_errors=True)
        srv.stop_and_check()


def lexicon(host, *args):
    p = subprocess.run([LEXICON, "linode4", *args, "--auth-token", host["token"]],
                       env=host["env"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, f"lexicon {' '.join(args)}: exit {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p.stdout


def records_of(host, dom):
    return host["account"].client.all_pages(f"/domains/{dom['id']}/records")


def test_lexicon_cli_unchanged(linode_host):
    """lexicon linode4 create, list, update by identifier (its PUT with
    "name": null), delete: exit 0 each, and the zone shows each change."""
    host = linode_host
    zone = zone_name()
    dom = answer(host["account"].client.post("/domains", json={
        "domain": zone, "type": "master", "soa_email": f"admin@{zone}"}), DOMAIN)

    lexicon(host, "create", zone, "TXT", "--name", "_acme-challenge", "--content", "one")
    assert [(r["name"], r["target"]) for r in records_of(host, dom)] == \
        [("_acme-challenge", "one")]
    listed = json.loads(lexicon(host, "list", zone, "TXT", "--output", "JSON"))
    assert [(r["name"], r["content"]) for r in listed] == \
        [(f"_acme-challenge.{zone}", "one")], listed

    rid = str(listed[0]["id"])
    lexicon(host, "update", zone, "TXT", "--identifier", rid, "--content", "two")
    assert [(r["name"], r["target"]) for r in records_of(host, dom)] == \
        [("_acme-challenge", "two")]

    lexicon(host, "delete", zone, "TXT", "--name", "_acme-challenge", "--content", "two")
    assert records_of(host, dom) == []
    assert set(host["proxy"].tunnels) == {"api.linode.com:443"}


CERTBOT_DRIVER = """
import sys
from certbot_dns_linode._internal.dns_linode import _LinodeLexiconClient
token, zone, content = sys.argv[1:4]
client = _LinodeLexiconClient(token, 4)
name = "_acme-challenge.www." + zone
client.add_txt_record("www." + zone, name, content)
print("added")
sys.stdout.flush()
sys.stdin.readline()
client.del_txt_record("www." + zone, name, content)
print("deleted")
"""


def test_certbot_dns_linode_challenge(linode_host):
    """certbot-dns-linode's Lexicon client (API version 4), as the plugin's
    authenticator drives it for a DNS-01 challenge of www.<zone>: it finds
    the zone by trying www.<zone> then <zone>, sets the TXT record, and
    removes it in cleanup."""
    host = linode_host
    zone = zone_name()
    dom = answer(host["account"].client.post("/domains", json={
        "domain": zone, "type": "master", "soa_email": f"admin@{zone}"}), DOMAIN)
    p = subprocess.Popen([DEBIAN_PYTHON, "-c", CERTBOT_DRIVER, host["token"], zone, "tok-123"],
                         env=host["env"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        line = p.stdout.readline()
        assert line == "added\n", (line, p.stderr.read() if p.poll() is not None else "")
        assert [(r["type"], r["name"], r["target"]) for r in records_of(host, dom)] == \
            [("TXT", "_acme-challenge.www", "tok-123")]
        out, err = p.communicate("\n", timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0 and out == "deleted\n", (out, err)
    assert records_of(host, dom) == []
