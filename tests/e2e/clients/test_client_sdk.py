"""A published client of the public v4 API against the module: the smoke suite
of tests/client (@linode/api-v4, pinned), run unchanged but for its base URL
and token, on every backend.

The suite prints "WAIT ..." when a database must finish provisioning or
updating; the test answers by advancing the server's test clock (the shared
server runs AcctapiTestClock On), which the clock fixture resets afterwards.
"""

import os
import shutil
import subprocess
import threading

import pytest

import harness
from checks import assert_error
from harness import Account, make_tls, make_tmpdir
from npm_client import CLIENT_DIR, ensure_installed

SMOKE_TIMEOUT = 600
CLOCK_STEP = "40m"   # past the longest provisioning time (30m) and any operation


@pytest.fixture(scope="session")
def client_installed():
    return ensure_installed()


def run_smoke(base_url, token, on_wait):
    """Runs smoke.mjs; calls on_wait() for each WAIT line.  Returns (exit
    status, output)."""
    env = dict(os.environ, ACCTAPI_URL=base_url, ACCTAPI_TOKEN=token,
               ACCTAPI_WAIT_SECONDS="60", ACCTAPI_CLOCK_OFFSET=str(harness.CLOCK.offset))
    env.pop("ACCTAPI_SMOKE_KEEP_GOING", None)
    proc = subprocess.Popen(["node", "smoke.mjs"], cwd=CLIENT_DIR, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            stdin=subprocess.DEVNULL)
    watchdog = threading.Timer(SMOKE_TIMEOUT, proc.kill)
    watchdog.start()
    lines = []
    try:
        for line in proc.stdout:
            lines.append(line)
            if line.startswith("WAIT "):
                on_wait()
        rc = proc.wait()
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if rc < 0:
        lines.append(f"(killed after {SMOKE_TIMEOUT}s)\n")
    return rc, "".join(lines)


def test_client_smoke_suite(client_installed, server, backend, clock):
    # An account of its own: the suite changes the profile it runs as.
    acct = Account(backend, server, stem="e2e-sdk-")
    try:
        rc, out = run_smoke(server.base_url, acct.client.token,
                            lambda: clock("advance", CLOCK_STEP))
    finally:
        acct.close()
    if rc != 0:
        pytest.fail(f"the client smoke suite failed (exit {rc}) against "
                    f"{server.base_url} ({backend.kind}):\n{out}", pytrace=False)
    assert " 0 failed" in out.splitlines()[-1], out


@pytest.fixture(scope="module")
def private_ca():
    """A private CA and a certificate for 127.0.0.1 it signed (module scope:
    it must outlive the servers using it, which read it again to stop)."""
    d = make_tmpdir("acctapi-sdk-tls-")
    yield make_tls(d, "IP:127.0.0.1")
    shutil.rmtree(d, ignore_errors=True)


def test_client_over_tls_with_a_private_ca(client_installed, make_server, backend,
                                           private_ca):
    """What docs/clients.md tells: NODE_EXTRA_CA_CERTS makes the library trust the
    module's private CA; without it the library refuses the certificate."""
    srv = make_server(tls=(private_ca["cert"], private_ca["key"]), name="httpd-sdk-tls")
    env = dict(os.environ, ACCTAPI_URL=srv.base_url, ACCTAPI_TOKEN=backend.token)
    env.pop("NODE_EXTRA_CA_CERTS", None)

    def tls_check(extra):
        return subprocess.run(["node", "tls.mjs"], cwd=CLIENT_DIR, env=dict(env, **extra),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=60)

    p = tls_check({"NODE_EXTRA_CA_CERTS": str(private_ca["ca"])})
    assert p.returncode == 0 and p.stdout.startswith("ok "), p.stdout
    p = tls_check({})
    assert p.returncode == 1, p.stdout
    assert "SELF_SIGNED_CERT_IN_CHAIN" in p.stdout or "certificate" in p.stdout, p.stdout


# --------------------------------------------------------------------------
# Fixes the client suite led to, pinned here in the module's own terms
# --------------------------------------------------------------------------

def test_profile_takes_the_public_name_of_shell_auth_method(server, backend):
    """@linode/api-v4's updateProfile sends lish_auth_method, the public
    API's name of the contract's shell_auth_method: the same setting."""
    acct = Account(backend, server, stem="e2e-sdk-")
    try:
        c = acct.client
        r = c.put("/profile", json={"lish_auth_method": "keys_only"})
        assert r.status == 200, r
        assert r.json["shell_auth_method"] == "keys_only", r
        assert c.get("/profile").json["shell_auth_method"] == "keys_only"
        r = c.put("/profile", json={"lish_auth_method": "disabled",
                                    "shell_auth_method": "disabled"})
        assert r.status == 200 and r.json["shell_auth_method"] == "disabled", r
        r = c.put("/profile", json={"lish_auth_method": "keys_only",
                                    "shell_auth_method": "disabled"})
        assert_error(r, 400, field="lish_auth_method")
        r = c.put("/profile", json={"lish_auth_method": "telnet"})
        assert_error(r, 400, field="lish_auth_method")
        assert c.get("/profile").json["shell_auth_method"] == "disabled"
    finally:
        acct.close()
