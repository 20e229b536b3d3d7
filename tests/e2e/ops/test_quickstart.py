"""scripts/quickstart: starts, writes $ACCTAPI_HOME/env, keeps data on re-run;
on SQLite and on its private PostgreSQL cluster (ACCTAPI_DB=pgsql), which it
stops when httpd exits; the testers' knobs (rate limits, nameservers,
database host suffix) reach the module.

Skipped when ACCTAPI_SKIP_QUICKSTART is set, or when the build directory is
not the repository (the quickstart builds in the repository).
"""

import os
import shutil
import signal
import stat
import subprocess

import pytest
import requests

import harness
from harness import REPO, free_port, make_tmpdir, run
from harness.quickstart import (KNOBS, Quickstart, check_error_log, cluster_data, curl,
                                postmaster_running, read_env)

pytestmark = [
    pytest.mark.skipif(bool(os.environ.get("ACCTAPI_SKIP_QUICKSTART")),
                       reason="ACCTAPI_SKIP_QUICKSTART is set"),
    # The quickstart starts its own httpd, which cannot load a module built
    # with AddressSanitizer unless libasan is preloaded: it runs in the
    # normal stage of scripts/test, not in --sanitize.
    pytest.mark.skipif(harness.SANITIZE, reason="scripts/test --sanitize"),
]


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def get(env, path, **kw):
    return requests.get(env["ACCTAPI_URL"] + path, timeout=10,
                        headers={"Authorization": f"Bearer {env['ACCTAPI_TOKEN']}"}, **kw)


def post(env, path, body):
    return requests.post(env["ACCTAPI_URL"] + path, json=body, timeout=10,
                         headers={"Authorization": f"Bearer {env['ACCTAPI_TOKEN']}"})


@pytest.fixture
def qs_home():
    if harness.BUILD != REPO:
        pytest.skip("the build directory is not the repository")
    d = make_tmpdir("acctapi-qs-")
    yield d / "home"
    if not os.environ.get("ACCTAPI_KEEP_TMP"):
        shutil.rmtree(d, ignore_errors=True)


def test_quickstart(qs_home):
    port = free_port()
    qs = Quickstart(qs_home, port)
    try:
        qs.start()
        env = read_env(qs_home)
        assert env["ACCTAPI_URL"] == f"http://127.0.0.1:{port}/v4", env
        assert len(env["ACCTAPI_TOKEN"]) == 64, env
        assert os.path.isabs(env["ACCTAPI_ADMIN"]) and os.access(env["ACCTAPI_ADMIN"], os.X_OK)
        assert env["ACCTAPI_DB_DRIVER"] == "sqlite3", env
        assert env["ACCTAPI_DB_PARAMS"], env
        token = env["ACCTAPI_TOKEN"]
        out = qs.output()
        assert env["ACCTAPI_URL"] in out and token in out and "curl" in out, out

        code, body = curl(env["ACCTAPI_URL"] + "/regions")
        assert code == 200, body
        code, body = curl(env["ACCTAPI_URL"] + "/profile", token)
        assert code == 200, body
        code, _ = curl(env["ACCTAPI_URL"] + "/profile")
        assert code == 401
        # Without knobs, the module's defaults: rate limits on.
        r = get(env, "/profile")
        assert r.status_code == 200 and r.headers.get("X-RateLimit-Limit"), dict(r.headers)
        assert not (qs_home / "quickstart-extra.conf").exists()
        # The token and DBDParams are for their owner only.
        assert mode(qs_home / "httpd.conf") == 0o600 and mode(qs_home / "env") == 0o600
        # The CLI of env works against the same database.
        run(["bash", "-c", f'. "{qs_home}/env" && "$ACCTAPI_ADMIN" clock show'])

        qs.stop()
        assert curl(env["ACCTAPI_URL"] + "/regions")[0] == 0, "still serving after SIGTERM"

        # Again: the data is kept, the token still works.  Started from a
        # process that blocks SIGWINCH, as `perf record` leaves what it
        # runs: httpd, which never unblocks a signal it inherits blocked,
        # would be deaf to the graceful stop, and Ctrl-C would stop nothing.
        qs.start(blocked={signal.SIGWINCH})
        env2 = read_env(qs_home)
        code, body = curl(env2["ACCTAPI_URL"] + "/profile", token)
        assert code == 200, body
        assert env2["ACCTAPI_TOKEN"] == token, (env2, token)
        qs.stop(ctrl_c=True)
        assert curl(env2["ACCTAPI_URL"] + "/regions")[0] == 0, "still serving after Ctrl-C"
    finally:
        qs.stop()
    check_error_log(qs_home)


def test_quickstart_postgresql(qs_home):
    """ACCTAPI_DB=pgsql: a private cluster in the home, the same env file and
    emulator, the knobs applied; the cluster stops when the quickstart does
    (SIGTERM, or Ctrl-C), and a second run reuses it with the data.  The
    knobs carry the values of the public service, as its clients' recorded
    traffic shows them: its nameservers (linodego's zone-file
    fixture), its database host names (linodego's integration fixtures,
    a227300-akamai-prod-5782758-default.g2a.akamaidb.net: the domain and
    the public naming) and its database administrator (linode_api4's
    integration tests: akmadmin)."""
    port = free_port()
    suffix = "g2a.akamaidb.net"
    nameservers = [f"ns{i}.linode.com" for i in range(1, 6)]
    qs = Quickstart(qs_home, port, ACCTAPI_DB="pgsql", ACCTAPI_RATE_LIMIT="off",
                    ACCTAPI_NAMESERVERS=" ".join(nameservers),
                    ACCTAPI_DB_HOST_SUFFIX=suffix, ACCTAPI_DB_HOST_NAMES="public",
                    ACCTAPI_DB_ADMIN_USER="akmadmin", ACCTAPI_FIELD_NAMES="public")
    try:
        qs.start()
        env = read_env(qs_home)
        sock = qs_home / "pg" / "sock"
        assert env["ACCTAPI_DB_DRIVER"] == "pgsql", env
        assert f"host='{sock}'" in env["ACCTAPI_DB_PARAMS"], env
        assert "dbname=acctapi" in env["ACCTAPI_DB_PARAMS"], env
        assert env["ACCTAPI_URL"] == f"http://127.0.0.1:{port}/v4", env
        assert mode(qs_home / "httpd.conf") == 0o600 and mode(qs_home / "env") == 0o600
        assert postmaster_running(qs_home)
        token = env["ACCTAPI_TOKEN"]
        assert "PostgreSQL" in qs.output() and token in qs.output()

        r = get(env, "/profile")
        assert r.status_code == 200, r.text
        # AcctapiFieldNames public: the public API's names only.
        assert "lish_auth_method" in r.json() and "shell_auth_method" not in r.json(), r.json()
        # Rate limits off: no budget headers.
        assert "X-RateLimit-Limit" not in r.headers, dict(r.headers)
        code, _ = curl(env["ACCTAPI_URL"] + "/profile", token)
        assert code == 200
        # AcctapiNameservers: the zone's NS records.
        r = post(env, "/domains", {"domain": "quickstart-pg.example", "type": "master",
                                   "soa_email": "admin@quickstart-pg.example"})
        assert r.status_code == 200, r.text
        domain_id = r.json()["id"]
        zone = get(env, f"/domains/{domain_id}/zone-file").json()["zone_file"]
        ns = [ln for ln in zone if " IN NS " in ln]
        assert ns == [f"quickstart-pg.example. IN NS {n}." for n in nameservers], zone
        # AcctapiDatabaseHostSuffix: a provisioned database's hosts.
        r = post(env, "/databases/mysql/instances",
                 {"label": "qs-db", "region": "us-east", "type": "g6-nanode-1",
                  "engine": "mysql/8.0.30"})
        assert r.status_code == 200, r.text
        db_id = r.json()["id"]
        run(["bash", "-c", f'. "{qs_home}/env" && "$ACCTAPI_ADMIN" clock advance 1h'])
        try:
            db = get(env, f"/databases/mysql/instances/{db_id}").json()
        finally:
            run(["bash", "-c", f'. "{qs_home}/env" && "$ACCTAPI_ADMIN" clock reset'])
        assert db["status"] == "active", db
        # AcctapiDatabaseHostSuffix and AcctapiDatabaseHostNames public.
        account = db["hosts"]["primary"].split("-")[3]
        assert account.isdigit(), db
        assert db["hosts"] == {"primary": f"a{db_id}-akamai-prod-{account}-default.{suffix}",
                               "secondary": None, "standby": None}, db
        # AcctapiDatabaseAdminUser: its administrator.
        creds = get(env, f"/databases/mysql/instances/{db_id}/credentials").json()
        assert creds["username"] == "akmadmin", creds

        qs.stop()
        assert curl(env["ACCTAPI_URL"] + "/regions")[0] == 0, "still serving after SIGTERM"
        assert not postmaster_running(qs_home), "the cluster outlived the quickstart"
        assert "stopping PostgreSQL" in qs.output()

        # Again: the same cluster (no initdb), the data and the token kept.
        qs.start()
        assert qs.output().count("initdb") == 1, qs.output()
        env2 = read_env(qs_home)
        assert env2["ACCTAPI_TOKEN"] == token and env2["ACCTAPI_DB_PARAMS"] == env["ACCTAPI_DB_PARAMS"]
        r = get(env2, f"/domains/{domain_id}")
        assert r.status_code == 200 and r.json()["domain"] == "quickstart-pg.example", r.text

        qs.stop(ctrl_c=True)
        assert curl(env["ACCTAPI_URL"] + "/regions")[0] == 0, "still serving after Ctrl-C"
        assert not postmaster_running(qs_home), "the cluster outlived Ctrl-C"
    finally:
        qs.stop()
        harness.kill_postmaster(cluster_data(qs_home))
    check_error_log(qs_home)


@pytest.mark.parametrize("knob, value, message", [
    ("ACCTAPI_FIELD_NAMES", "linode", "ACCTAPI_FIELD_NAMES must be both, public or contract"),
    ("ACCTAPI_DB_HOST_NAMES", "akamai", "ACCTAPI_DB_HOST_NAMES must be contract or public"),
    ("ACCTAPI_DB_ADMIN_USER", "Root!", "ACCTAPI_DB_ADMIN_USER must be 1 to 32"),
    ("ACCTAPI_NAMESERVERS", "ns1.example.net;reboot", "ACCTAPI_NAMESERVERS must be host names"),
])
def test_quickstart_refuses_a_bad_knob(qs_home, knob, value, message):
    """A bad knob stops the quickstart before it installs, builds or starts
    anything, saying which knob and what it takes."""
    env = dict(os.environ, ACCTAPI_HOME=str(qs_home), PORT=str(free_port()))
    for v in KNOBS:
        env.pop(v, None)
    env[knob] = value
    p = subprocess.run([str(REPO / "scripts" / "quickstart")], cwd=str(REPO), env=env,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
    assert message in p.stderr, p.stderr
    assert not (qs_home / "env").exists()
