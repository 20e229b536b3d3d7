"""scripts/quickstart: starts, writes $ACCTAPI_HOME/env, keeps data on re-run.

Skipped when ACCTAPI_SKIP_QUICKSTART is set, or when the build directory is
not the repository (the quickstart builds in the repository).
"""

import os
import shutil
import signal
import subprocess
import time

import pytest

import harness
from harness import REPO, free_port, make_tmpdir, run

pytestmark = [
    pytest.mark.skipif(bool(os.environ.get("ACCTAPI_SKIP_QUICKSTART")),
                       reason="ACCTAPI_SKIP_QUICKSTART is set"),
    # The quickstart starts its own httpd, which cannot load a module built
    # with AddressSanitizer unless libasan is preloaded: it runs in the
    # normal stage of scripts/test, not in --sanitize.
    pytest.mark.skipif(harness.SANITIZE, reason="scripts/test --sanitize"),
]

START_TIMEOUT = 300   # a first run may have to build


def read_env(home):
    """$ACCTAPI_HOME/env, sourced by a shell, as a dict."""
    out = run(["bash", "-c", 'set -e; . "$1"; for v in ACCTAPI_URL ACCTAPI_TOKEN ACCTAPI_ADMIN '
               'ACCTAPI_DB_DRIVER ACCTAPI_DB_PARAMS; do printf "%s=%s\\n" "$v" "${!v}"; done',
               "read-env", str(home / "env")]).stdout
    return dict(line.split("=", 1) for line in out.splitlines())


def curl(url, token=None):
    cmd = ["curl", "-sS", "--max-time", "10", "-o", "/dev/stdout", "-w", "\n%{http_code}", url]
    if token:
        cmd[1:1] = ["-H", f"Authorization: Bearer {token}"]
    out = run(cmd, check=False, timeout=20).stdout
    body, _, code = out.rpartition("\n")
    return int(code or 0), body


class Quickstart:
    def __init__(self, home, port):
        self.home, self.port = home, port
        self.proc = None
        self.out = home.parent / f"quickstart-{port}.out"

    def start(self):
        env = dict(os.environ, ACCTAPI_HOME=str(self.home), PORT=str(self.port))
        for v in ("ACCTAPI_DB_DRIVER", "ACCTAPI_DB_PARAMS", "ACCTAPI_URL", "ACCTAPI_TOKEN"):
            env.pop(v, None)
        f = open(self.out, "ab")
        self.proc = subprocess.Popen([str(REPO / "scripts" / "quickstart")], cwd=str(REPO),
                                     env=env, stdout=f, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True)
        f.close()
        url = f"http://127.0.0.1:{self.port}/v4/regions"
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                raise AssertionError(f"quickstart exited {self.proc.returncode}:\n{self.output()}")
            if (self.home / "env").exists() and curl(url)[0] == 200:
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"quickstart not serving after {START_TIMEOUT}s:\n"
                                     f"{self.output()}")
            time.sleep(0.2)

    def output(self):
        return self.out.read_text(errors="replace")[-4000:]

    def stop(self):
        if self.proc and self.proc.poll() is None:
            # httpd runs in the foreground in the quickstart's own process.
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        self.proc = None


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
        # The CLI of env works against the same database.
        run(["bash", "-c", f'. "{qs_home}/env" && "$ACCTAPI_ADMIN" clock show'])

        qs.stop()
        assert curl(env["ACCTAPI_URL"] + "/regions")[0] == 0, "still serving after SIGTERM"

        # Again: the data is kept, the token still works.
        qs.start()
        env2 = read_env(qs_home)
        code, body = curl(env2["ACCTAPI_URL"] + "/profile", token)
        assert code == 200, body
        assert env2["ACCTAPI_TOKEN"] == token, (env2, token)
    finally:
        qs.stop()
    log = (qs_home / "error.log")
    if log.exists():
        text = log.read_text(errors="replace")
        bad = [ln for ln in text.splitlines()
               if harness.CRASH.search(ln)
               or (harness.BAD_LEVEL.search(ln) and not harness.HTTPD_NOISE.search(ln))]
        assert not bad, "quickstart error log:\n" + "\n".join(bad) + "\n--- full log:\n" + text[-6000:]
