"""Certificates for the suite's TLS servers: a private CA and a server
certificate it signed (make_tls), made with openssl."""

from pathlib import Path

from .base import run

__all__ = ["make_tls"]

# P-256 keys: openssl makes one in about a millisecond where a 2048-bit RSA
# key takes a tenth of a second or more, and every handshake the server
# signs costs less too.  The suite makes a certificate per TLS module.
_NEW_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]


def make_tls(directory, san):
    """A private CA and a server certificate it signed for `san` (an
    openssl subjectAltName value, e.g. "IP:127.0.0.1,DNS:api.linode.com"),
    in `directory`: {"ca", "cert", "key"} paths.  The first name is also the
    common name, which mod_ssl compares with ServerName (127.0.0.1 in the
    suite's configuration; AH01909 otherwise).  The server certificate is
    not the CA's own: mod_ssl warns about a self-signed CA certificate used
    as a server's."""
    common = san.split(",")[0].split(":", 1)[1]
    d = Path(directory)
    ca_key, ca, key, csr, cert = (d / n for n in ("ca.key", "ca.pem", "key.pem",
                                                 "server.csr", "cert.pem"))
    ext = d / "server.ext"
    ext.write_text("basicConstraints=critical,CA:FALSE\n"
                   "keyUsage=critical,digitalSignature\n"
                   f"extendedKeyUsage=serverAuth\nsubjectAltName={san}\n")
    run(["openssl", "req", "-x509", *_NEW_KEY, "-nodes", "-sha256", "-days", "2",
         "-subj", "/CN=acctapi e2e CA", "-keyout", ca_key, "-out", ca])
    run(["openssl", "req", "-new", *_NEW_KEY, "-nodes", "-sha256",
         "-subj", f"/CN={common}", "-keyout", key, "-out", csr])
    run(["openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key,
         "-CAcreateserial", "-days", "2", "-sha256", "-extfile", ext, "-out", cert])
    return {"ca": ca, "cert": cert, "key": key}
