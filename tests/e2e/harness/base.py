"""Paths, settings of the run, small helpers, figures."""

import datetime
import os
import re
import resource
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import requests


REPO = Path(__file__).resolve().parents[3]
BUILD = Path(os.environ.get("ACCTAPI_BUILD_DIR", str(REPO))).resolve()
MODULE = BUILD / "mod_acctapi.so"
ADMIN = BUILD / "acctapi-admin"
HTTPD_CONF = REPO / "scripts" / "httpd-conf"
SMS_TO_FILE = REPO / "scripts" / "sms-to-file"
OPENAPI_DOC = REPO / "mod_acctapi" / "api" / "openapi.json"
HTTPD = os.environ.get("ACCTAPI_HTTPD", "/usr/sbin/apache2")
# scripts/test --sanitize: the module is built with -fsanitize=address,
# undefined; httpd runs in single-process mode (-X) with AddressSanitizer
# preloaded (and, if ACCTAPI_APR_DEBUG_LIB names one, another libapr), and
# every report it writes (to sanitizer/report.* in the server root, or, when
# it cannot write there, to the console) fails the test.
SANITIZE = bool(os.environ.get("ACCTAPI_SANITIZE"))
# What the sanitizers print on the console of httpd -X: a report they could
# not write to their log ("Can't open file": the report directory is not the
# child's user's), or one that went to the console anyway.
SANITIZER_CONSOLE = re.compile(r"Sanitizer|runtime error:|Can't open file")


def sanitizer_env(report_dir):
    """The environment of an instrumented httpd whose reports go to
    report_dir, which the user httpd runs as must be able to write."""
    env = dict(os.environ)
    asan = subprocess.run(["gcc", "-print-file-name=libasan.so"], check=True,
                          capture_output=True, text=True).stdout.strip()
    env["LD_PRELOAD"] = asan
    if os.environ.get("ACCTAPI_APR_DEBUG_LIB"):
        env["LD_LIBRARY_PATH"] = os.environ["ACCTAPI_APR_DEBUG_LIB"]
    log = f"log_path={report_dir}/report"
    # httpd's own start-up allocations live as long as the process: leak
    # reports at exit would be about httpd, not about requests.
    env["ASAN_OPTIONS"] = f"{log}:detect_leaks=0:abort_on_error=0:use_sigaltstack=0"
    env["UBSAN_OPTIONS"] = f"{log}:print_stacktrace=1"
    return env
PGBIN = Path(os.environ.get("ACCTAPI_PGBIN", "/usr/lib/postgresql/15/bin"))
PG_SYSTEM_USER = os.environ.get("ACCTAPI_PG_USER", "acctapi-pg")
HTTPD_USER = "www-data"
IS_ROOT = os.geteuid() == 0


def raise_open_file_limit(want=65536):
    """The slow-client tests hold 1,600 connections open in this process,
    and each httpd child (which inherits the limit) may hold 2,200
    (AsyncRequestWorkerFactor in scripts/httpd-conf)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = want if hard == resource.RLIM_INFINITY else min(hard, want)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


raise_open_file_limit()

if not os.environ.get("ACCTAPI_SANITIZE"):
    # Cores of crashed httpd children (CoreDumpDirectory in each server's
    # configuration; see Httpd.core_stacks).
    _soft, _hard = resource.getrlimit(resource.RLIMIT_CORE)
    resource.setrlimit(resource.RLIMIT_CORE, (_hard, _hard))

SPEC_VERSION = "4.174.0"
NO_STORE = "private, max-age=0, no-cache, no-store"
CACHEABLE = "private, max-age=900"
VARY = "Authorization, X-Filter"

# Error-log lines that fail a test unless the test expected them.
BAD_LEVEL = re.compile(r"\[(?:[A-Za-z0-9_]*:)?(warn|error|crit|alert|emerg)\]")
# Lines that fail a test whatever it expected.
CRASH = re.compile(r"Segmentation fault|exit signal|AH00052")
# httpd's own, not the module's: the event MPM, stopped while a connection it
# just answered goes back to keep-alive, finds its pollset gone (AH03093).
HTTPD_NOISE = re.compile(r"AH03093")


# Figures the tests measure (memory growth, losses, failures under load),
# printed together at the end of the run by conftest.py.
FIGURES = []


def report_figure(line):
    FIGURES.append(line)


class HarnessError(Exception):
    pass


def run(cmd, *, check=True, timeout=60, **kw):
    """Runs a command, capturing output; raises with the output on failure."""
    cmd = [str(c) for c in cmd]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired as e:
        raise HarnessError(f"timed out after {timeout}s: {' '.join(cmd)}\n"
                           f"stdout: {e.stdout}\nstderr: {e.stderr}") from None
    if check and p.returncode != 0:
        raise HarnessError(f"exit {p.returncode}: {' '.join(cmd)}\n"
                           f"stdout: {p.stdout}\nstderr: {p.stderr}")
    return p


# The parts scripts/test runs side by side, each a pytest of its own with
# nothing shared (ACCTAPI_E2E_PART names one): which tests of which backend
# it runs, as (backend, area) pairs.  The backend "none" stands for the
# tests that use no backend of the suite's; the area "server" is the
# directory server/ (the tests of the server as a whole under load, faults,
# floods, TLS and races), "api" every other directory, None both.  A part
# is one sequence of requests, each waiting for its answer: the parts are
# cut so that each is of about the same length and that there are more of
# them than cores, so that one part's waits are another's turn.  The server
# tests are few and long (on PostgreSQL about half of its time): SQLite's
# and PostgreSQL's together are a part; PgBouncer's few go with its API
# tests (the pooled subset, the shortest of the API parts).
PARTS = {
    "sqlite": (("sqlite", "api"),),
    "server": (("sqlite", "server"), ("pgsql", "server")),
    "pgsql": (("pgsql", "api"),),
    "pgbouncer": (("pgbouncer", "api"), ("pgbouncer", "server")),
    "none": (("none", None),),
}


def _port_slice():
    """(first, last) of the ports this process's servers listen on: below
    the kernel's ephemeral range, where no outgoing connection takes a
    port (a port found free by binding port 0 comes from that range, and
    any of the suite's thousands of client, PostgreSQL and PgBouncer
    connections could take it before the server binds it), and a slice of
    its own for each part of scripts/test (PARTS; a process that is no part
    takes the slice of its first backend's place in sqlite, pgsql,
    pgbouncer, none), so that the parts side by side never pick the same
    port.  None when the ephemeral range leaves no room below it."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    first = 16384
    slices = len(PARTS)
    if low - first < slices * 1024:
        return None
    width = (low - first) // slices
    part = os.environ.get("ACCTAPI_E2E_PART")
    if part in PARTS:
        index = list(PARTS).index(part)
    else:
        order = ["sqlite", "pgsql", "pgbouncer", "none"]
        backend = os.environ.get("ACCTAPI_E2E_BACKENDS", "sqlite").split(",")[0]
        index = order.index(backend) if backend in order else len(order) - 1
    return first + index * width, first + (index + 1) * width - 1


_PORTS = _port_slice()
_next_port = [None]


def free_port():
    """A loopback port that nothing listens on, for a server to listen on:
    the next free one of this process's slice (_port_slice), in turn, so
    that a server just stopped does not get its port again at once."""
    if _PORTS is None:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]
    first, last = _PORTS
    if _next_port[0] is None:
        _next_port[0] = first + (os.getpid() % (last - first + 1))
    for _ in range(last - first + 1):
        port = _next_port[0]
        _next_port[0] = first if port >= last else port + 1
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise HarnessError(f"no free port in {first}..{last}")


def port_open(port, host="127.0.0.1"):
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


class LoopbackServer:
    """A TCP server of a test's own on 127.0.0.1, on a port the kernel
    chooses and binds at once: a thread accepts connections and hands each
    to handle(conn), one after another, or each in a thread of its own
    (threaded).  close() stops it."""

    def __init__(self, handle, threaded=False):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self._handle = handle
        self._threaded = threaded
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            if self._threaded:
                threading.Thread(target=self._handle, args=(conn,), daemon=True).start()
            else:
                self._handle(conn)

    def close(self):
        self.sock.close()


def _memory_tmp():
    """Where the suite's files go: ACCTAPI_E2E_TMPDIR, else /dev/shm when it
    is a writable memory file system, else the system's temporary directory.
    In memory an SQLite commit's flush to disk costs nothing, as PostgreSQL's
    does with fsync=off (PgCluster.start): what the suite checks of storage
    is what survives a process's death, which memory keeps."""
    chosen = os.environ.get("ACCTAPI_E2E_TMPDIR")
    if chosen:
        return chosen
    try:
        with open("/proc/mounts") as f:
            if any(line.split()[1:3] == ["/dev/shm", "tmpfs"] for line in f) \
                    and os.access("/dev/shm", os.W_OK | os.X_OK):
                return "/dev/shm"
    except OSError:
        pass
    return None


TMP_ROOT = _memory_tmp()


def make_tmpdir(prefix):
    """A temporary directory every user can traverse (pytest's own are 0700,
    and httpd's children and PostgreSQL run as other users), under TMP_ROOT."""
    d = Path(tempfile.mkdtemp(prefix=prefix, dir=TMP_ROOT))
    d.chmod(0o755)
    return d


def wait_for(predicate, timeout, interval=0.05, what="condition"):
    deadline = time.monotonic() + timeout
    while True:
        v = predicate()
        if v:
            return v
        if time.monotonic() >= deadline:
            raise HarnessError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


def proc_stat(path):
    """The fields of a /proc/PID/stat (or /proc/PID/task/TID/stat) file that
    follow the command name, from the state on (fields[0] the state,
    fields[1] the parent's pid); None when it cannot be read (the process
    has gone).  The command name, in parentheses, may itself hold spaces
    and parentheses: the fields start after its last ")"."""
    try:
        with open(path) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return fields or None


def children_of(pid):
    """The pids of the live or not yet reaped processes whose parent is
    `pid`: the kernel's list of the children each of its threads started
    (/proc/PID/task/TID/children), rather than a scan of every process's
    stat; empty when `pid` has gone."""
    out = []
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in threads:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out.extend(int(p) for p in f.read().split())
        except OSError:
            pass    # the thread has exited
    return out


def unblock_signals():
    """No signal blocked in this process (nor in the threads it starts
    later), whatever blocked them in the one that started it: httpd, named
    and PostgreSQL inherit the mask of the process that starts them, and
    httpd's parent never unblocks a signal it inherits blocked.  `perf
    record -- pytest ...` blocks SIGWINCH in what it runs, and every
    server's graceful stop (SIGWINCH) then never came: the stops failed
    after 20 s."""
    signal.pthread_sigmask(signal.SIG_SETMASK, set())


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie nobody reaps (containers without an init) is gone.
    fields = proc_stat(f"/proc/{pid}/stat")
    return fields is not None and fields[0] != "Z"


TIME_FORMAT = "%Y-%m-%dT%H:%M:%S"


def parse_utc(text):
    """Seconds since the epoch of a UTC timestamp in the API's format."""
    return int(datetime.datetime.strptime(text, TIME_FORMAT)
               .replace(tzinfo=datetime.timezone.utc).timestamp())


def format_utc(epoch):
    return time.strftime(TIME_FORMAT, time.gmtime(epoch))


class SuiteClock:
    """What the servers' test clock reads, as far as the harness knows.

    The test clock is real time plus an offset stored in the database
    (`acctapi-admin clock`).  Every clock command the harness runs goes
    through Backend.admin, which notes the offset it printed here, so tests
    compute the instants they send (expiries, filters) from the servers' time,
    not from the machine's.

    ACCTAPI_TEST_CLOCK_START (a UTC instant, YYYY-MM-DDTHH:MM:SS) starts the
    whole suite at that instant instead of the machine's time: each backend's
    clock is set to it when the backend is set up, and every test that takes
    the `clock` fixture starts from it too, so a run started at 23:59:30 on a
    month's last day makes every test that moves the clock cross a day, and
    a month, boundary (scripts/test --clock-start sets it)."""

    def __init__(self, start):
        self.start = parse_utc(start) if start else None
        self.offset = 0
        # start minus the machine's time when the first backend was set up:
        # the offset of the suite's own clock when it started at `start`
        self.base = None

    def now(self):
        return time.time() + self.offset


CLOCK = SuiteClock(os.environ.get("ACCTAPI_TEST_CLOCK_START"))


def utc_ts(delta_seconds=0):
    """The servers' clock plus delta_seconds, in the API's format."""
    return format_utc(CLOCK.now() + delta_seconds)
