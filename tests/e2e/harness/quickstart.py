"""scripts/quickstart run by a test: started in its own session with the
knobs the test gives, in an $ACCTAPI_HOME of the test's, stopped with
SIGTERM or a terminal's Ctrl-C; its env file read back; its error log
scanned like the harness servers' logs.  Used by ops/test_quickstart.py and
by the client flows replayed against the quickstart."""

import os
import signal
import subprocess
import time

from .base import CLOCK, REPO, format_utc, pid_alive, run
from .base import BAD_LEVEL, CRASH, HTTPD_NOISE
from .postgres import kill_postmaster, postmaster_pid

__all__ = ["KNOBS", "Quickstart", "check_error_log", "cluster_data", "curl",
           "postmaster_running", "read_env"]


START_TIMEOUT = 300   # a first run may have to build
# Ctrl-C stops httpd gracefully (GracefulShutdownTimeout 5 s, then its
# children are killed), then the quickstart's PostgreSQL: seconds, on a
# loaded machine too.
STOP_TIMEOUT = 45


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


def terminal_signals(blocked=()):
    """In the quickstart's process, before it runs: Ctrl-C's default action,
    as a terminal's shell gives it, and the `blocked` signals blocked.  A
    suite started in the background of a non-interactive shell (as
    scripts/test starts its parts, or as a CI runner may start it) runs
    with SIGINT ignored, which every child inherits, and bash can neither
    trap nor restore a signal ignored when it started: the quickstart would
    never see the Ctrl-C its test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_BLOCK, blocked)


KNOBS = ("ACCTAPI_DB", "ACCTAPI_RATE_LIMIT", "ACCTAPI_NAMESERVERS", "ACCTAPI_DB_HOST_SUFFIX",
         "ACCTAPI_DB_HOST_NAMES", "ACCTAPI_DB_ADMIN_USER", "ACCTAPI_FIELD_NAMES",
         "ACCTAPI_PG_PORT")


class Quickstart:
    def __init__(self, home, port, **knobs):
        self.home, self.port, self.knobs = home, port, knobs
        self.proc = None
        self.out = home.parent / f"quickstart-{port}.out"

    def start(self, blocked=()):
        """blocked: signals the quickstart starts with blocked, as a tool
        that runs it may leave them (`perf record` blocks SIGWINCH)."""
        env = dict(os.environ, ACCTAPI_HOME=str(self.home), PORT=str(self.port))
        for v in ("ACCTAPI_DB_DRIVER", "ACCTAPI_DB_PARAMS", "ACCTAPI_URL", "ACCTAPI_TOKEN") + KNOBS:
            env.pop(v, None)
        env.update(self.knobs)
        f = open(self.out, "ab")
        self.proc = subprocess.Popen([str(REPO / "scripts" / "quickstart")], cwd=str(REPO),
                                     env=env, stdout=f, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True,
                                     preexec_fn=lambda: terminal_signals(blocked))
        f.close()
        url = f"http://127.0.0.1:{self.port}/v4/regions"
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                raise AssertionError(f"quickstart exited {self.proc.returncode}:\n{self.output()}")
            if (self.home / "env").exists() and curl(url)[0] == 200:
                self._start_clock()
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"quickstart not serving after {START_TIMEOUT}s:\n"
                                     f"{self.output()}")
            time.sleep(0.2)

    def _start_clock(self):
        """With ACCTAPI_TEST_CLOCK_START, the quickstart's clock starts at
        that instant too, as the suite's servers' do (harness.SuiteClock)."""
        if CLOCK.start is None:
            return
        env = read_env(self.home)
        run([env["ACCTAPI_ADMIN"], "--db-driver", env["ACCTAPI_DB_DRIVER"],
             "--db-params", env["ACCTAPI_DB_PARAMS"], "clock", "set", format_utc(CLOCK.start)])

    def output(self):
        return self.out.read_text(errors="replace")[-4000:]

    def stop(self, ctrl_c=False):
        """SIGTERM to the quickstart, or SIGINT to its process group as a
        terminal's Ctrl-C sends it.  A quickstart that has not stopped within
        STOP_TIMEOUT fails the test (its output, its httpd's processes and
        error log said), after everything it started is killed."""
        if self.proc and self.proc.poll() is None:
            sent = time.monotonic()
            if ctrl_c:
                os.killpg(self.proc.pid, signal.SIGINT)
            else:
                self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                left = run(["ps", "-eo", "pid,ppid,sid,stat,etime,args"], check=False).stdout
                left = "\n".join(ln for ln in left.splitlines()
                                 if str(self.home) in ln or "PID" in ln)
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
                self._kill_httpd()
                # Its PostgreSQL (ACCTAPI_DB=pgsql): pg_ctl starts it in a
                # session of its own, which neither group above holds.
                kill_postmaster(cluster_data(self.home))
                log = self.home / "error.log"
                log = log.read_text(errors="replace")[-3000:] if log.exists() else ""
                self.proc = None
                raise AssertionError(
                    f"quickstart still running {time.monotonic() - sent:.1f}s after "
                    f"{'Ctrl-C' if ctrl_c else 'SIGTERM'}:\n{self.output()}\n"
                    f"--- its processes:\n{left}\n--- error.log:\n{log}")
        self.proc = None

    def _kill_httpd(self):
        """httpd runs in a session of its own, its children in its process
        group: the group of the pid in its pid file is killed."""
        pid_file = self.home / "httpd.pid"
        try:
            os.killpg(int(pid_file.read_text().split()[0]), signal.SIGKILL)
        except (OSError, ValueError, IndexError):
            pass



def check_error_log(home):
    log = home / "error.log"
    if log.exists():
        text = log.read_text(errors="replace")
        bad = [ln for ln in text.splitlines()
               if CRASH.search(ln)
               or (BAD_LEVEL.search(ln) and not HTTPD_NOISE.search(ln))]
        assert not bad, "quickstart error log:\n" + "\n".join(bad) + "\n--- full log:\n" + text[-6000:]


def cluster_data(home):
    """The data directory of the quickstart's PostgreSQL cluster."""
    return home / "pg" / "data"


def postmaster_running(home):
    """The cluster's postmaster.pid names a live process."""
    pid = postmaster_pid(cluster_data(home))
    return pid is not None and pid_alive(pid)



