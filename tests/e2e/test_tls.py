"""The module behind mod_ssl: HTTPS with a self-signed certificate."""

import shutil

import pytest

from checks import CACHEABLE, assert_headers, assert_json
from harness import Client, make_tmpdir, run


@pytest.fixture(scope="module")
def certificate():
    """A private CA and a server certificate for 127.0.0.1 signed by it
    (mod_ssl warns about a self-signed CA certificate used as server cert)."""
    d = make_tmpdir("acctapi-tls-")
    ca_key, ca = d / "ca.key", d / "ca.pem"
    key, csr, cert = d / "key.pem", d / "server.csr", d / "cert.pem"
    ext = d / "server.ext"
    ext.write_text("basicConstraints=critical,CA:FALSE\n"
                   "keyUsage=critical,digitalSignature,keyEncipherment\n"
                   "extendedKeyUsage=serverAuth\n"
                   "subjectAltName=IP:127.0.0.1\n")
    run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha256", "-days", "2",
         "-subj", "/CN=acctapi e2e CA", "-keyout", ca_key, "-out", ca])
    run(["openssl", "req", "-new", "-newkey", "rsa:2048", "-nodes", "-sha256",
         "-subj", "/CN=127.0.0.1", "-keyout", key, "-out", csr])
    run(["openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key,
         "-CAcreateserial", "-days", "2", "-sha256", "-extfile", ext, "-out", cert])
    yield {"cert": cert, "key": key, "ca": ca}
    shutil.rmtree(d, ignore_errors=True)


def test_https(make_server, backend, certificate):
    srv = make_server(tls=(certificate["cert"], certificate["key"]), name="httpd-tls")
    assert srv.base_url.startswith("https://127.0.0.1:")
    c = Client(srv.base_url, token=backend.token, verify=str(certificate["ca"]))
    try:
        r = c.get("/regions")
        assert r.status == 200, r
        assert_headers(r, cache=CACHEABLE, accepted="*")
        assert len(assert_json(r)["data"]) >= 10
        r = c.get("/profile")
        assert r.status == 200, r
        assert_headers(r, scopes="*", accepted="*")
        assert r.json["uid"] == backend.uid
        r = c.get("/profile", token=None)
        assert r.status == 401, r
        assert assert_json(r) == {"errors": [{"reason": "Invalid Token"}]}
    finally:
        c.close()
