"""A PostgreSQL of a test's own to break (stop, freeze, kill), and what a
client may see meanwhile: shared by server/test_storage.py and
server/test_faults.py."""

import json
import os
import shutil

import pytest

from harness import Backend, Httpd, make_tmpdir

DB_LINES = r"acctapi|dbd|DBD|AH00629|AH00632|AH00633"
UNAVAILABLE = {"errors": [{"reason": "Service Unavailable"}]}


@pytest.fixture
def pg(build):
    base = make_tmpdir("acctapi-pgres-")
    b = Backend("pgsql", base)
    servers = []

    def server(**opts):
        srv = Httpd(b, base, **opts)
        servers.append(srv)
        return srv.start()
    try:
        b.setup()
        yield b, server
    finally:
        try:
            for srv in servers:
                srv.stop()
        finally:
            b.destroy()
            if not os.environ.get("ACCTAPI_KEEP_TMP"):
                shutil.rmtree(base, ignore_errors=True)


def classify(r):
    """None if the response is acceptable during an outage, else a reason."""
    if 200 <= r.status_code < 300:
        return None
    if r.status_code != 503:
        return f"status {r.status_code}: {r.content[:200]!r}"
    if r.headers.get("Content-Type") != "application/json":
        return f"503 with Content-Type {r.headers.get('Content-Type')!r}"
    try:
        if json.loads(r.content) != UNAVAILABLE:
            return f"503 body {r.content[:200]!r}"
    except ValueError:
        return f"503 not JSON: {r.content[:200]!r}"
    return None
