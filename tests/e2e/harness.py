"""Mechanics of the end-to-end suite: a private PostgreSQL cluster, databases
prepared with acctapi-admin, httpd started from scripts/httpd-conf with the
module of the build tree, error-log scanning, and an HTTP client.

Nothing here asserts API behaviour; the tests do.
"""

import datetime
import json
import os
import pwd
import re
import resource
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import tempfile
import threading
import time
import urllib.parse
import warnings
from pathlib import Path

import jsonschema
import requests

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("ACCTAPI_BUILD_DIR", str(REPO))).resolve()
MODULE = BUILD / ".libs" / "mod_acctapi.so"
ADMIN = BUILD / "acctapi-admin"
HTTPD_CONF = REPO / "scripts" / "httpd-conf"
SMS_TO_FILE = REPO / "scripts" / "sms-to-file"
OPENAPI_DOC = REPO / "mod_acctapi" / "api" / "openapi.json"
HTTPD = os.environ.get("ACCTAPI_HTTPD", "/usr/sbin/apache2")
# scripts/test --sanitize: the module is built with -fsanitize=address,
# undefined; httpd runs in single-process mode (-X) with AddressSanitizer
# preloaded (and, if ACCTAPI_APR_DEBUG_LIB names one, another libapr), and
# every report it writes (to sanitizer.* in the server root) fails the test.
SANITIZE = bool(os.environ.get("ACCTAPI_SANITIZE"))


def sanitizer_env(root):
    """The environment of an instrumented httpd whose reports go to root."""
    env = dict(os.environ)
    asan = subprocess.run(["gcc", "-print-file-name=libasan.so"], check=True,
                          capture_output=True, text=True).stdout.strip()
    env["LD_PRELOAD"] = asan
    if os.environ.get("ACCTAPI_APR_DEBUG_LIB"):
        env["LD_LIBRARY_PATH"] = os.environ["ACCTAPI_APR_DEBUG_LIB"]
    log = f"log_path={root}/sanitizer"
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


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port, host="127.0.0.1"):
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def make_tmpdir(prefix):
    """A temporary directory every user can traverse (pytest's own are 0700,
    and httpd's children and PostgreSQL run as other users)."""
    d = Path(tempfile.mkdtemp(prefix=prefix))
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


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie nobody reaps (containers without an init) is gone
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def utc_ts(delta_seconds=0):
    t = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=delta_seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%S")


# --------------------------------------------------------------------------
# PostgreSQL
# --------------------------------------------------------------------------

def ensure_system_user(name):
    try:
        pwd.getpwnam(name)
    except KeyError:
        run(["useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
             "--shell", "/usr/sbin/nologin", name])


class PgCluster:
    """A private cluster in a temporary directory: 127.0.0.1 on a free port,
    its unix socket in the same directory, trust authentication."""

    def __init__(self, base):
        self.dir = Path(base) / "pg"
        self.data = self.dir / "data"
        self.sock = self.dir / "sock"
        self.log = self.dir / "postgres.log"
        self.port = None
        self.started = False

    def _as_owner(self, cmd):
        cmd = [str(c) for c in cmd]
        if IS_ROOT:
            return ["runuser", "-u", PG_SYSTEM_USER, "--"] + cmd
        return cmd

    def _pg(self, args, timeout=60, check=True):
        return run(self._as_owner(args), timeout=timeout, check=check, cwd=str(self.dir))

    def init(self):
        self.dir.mkdir(parents=True)
        self.sock.mkdir()
        if IS_ROOT:
            ensure_system_user(PG_SYSTEM_USER)
            shutil.chown(self.dir, PG_SYSTEM_USER, PG_SYSTEM_USER)
            shutil.chown(self.sock, PG_SYSTEM_USER, PG_SYSTEM_USER)
        self.dir.chmod(0o755)
        self._pg([PGBIN / "initdb", "-D", self.data, "-U", "postgres", "--auth=trust",
                  "--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions"],
                 timeout=120)

    def start(self, durable=False):
        """durable: commit as production does (synchronous_commit, fsync), for
        tests that crash the server and count what survived; else fast."""
        if self.port is None:
            self.port = free_port()
        opts = (f"-c listen_addresses=127.0.0.1 -p {self.port} "
                f"-c unix_socket_directories={self.sock} -c max_connections=200 "
                "-c logging_collector=off")
        if not durable:
            opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._pg([PGBIN / "pg_ctl", "-D", self.data, "-l", self.log, "-o", opts,
                  "-w", "-t", "60", "start"], timeout=90)
        self.started = True

    def stop(self, mode="fast"):
        if self.started:
            self._pg([PGBIN / "pg_ctl", "-D", self.data, "-m", mode, "-w", "-t", "60", "stop"],
                     timeout=90, check=False)
            self.started = False

    def restart(self):
        self._pg([PGBIN / "pg_ctl", "-D", self.data, "-l", self.log, "-m", "fast", "-w", "-t", "60",
                  "restart"],
                 timeout=90)
        self.started = True

    def psql(self, sql, db="postgres", raw=False):
        """raw: unaligned, tuples only (aligned output pads every line of a
        large value to its widest line, which a dump cannot afford)."""
        return run([PGBIN / "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1"]
                   + (["-A", "-t"] if raw else [])
                   + ["-h", "127.0.0.1", "-p", self.port, "-U", "postgres", "-d", db,
                      "-c", sql]).stdout

    def create_database(self, name, owner):
        self.psql(f"CREATE ROLE {owner} LOGIN")
        self.psql(f"CREATE DATABASE {name} OWNER {owner}")
        return f"host=127.0.0.1 port={self.port} dbname={name} user={owner} connect_timeout=3"

    def destroy(self):
        try:
            self.stop("immediate")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


# --------------------------------------------------------------------------
# A prepared database and acctapi-admin
# --------------------------------------------------------------------------

class Backend:
    """A migrated database holding one account, its unrestricted user and an
    all-scopes token (self.token)."""

    def __init__(self, kind, base):
        self.kind = kind                      # "sqlite" or "pgsql"
        self.base = Path(base)
        self.cluster = None
        self.driver = None
        self.params = None
        self.counter = 0

    def setup(self):
        if self.kind == "sqlite":
            dbdir = self.base / "db"
            dbdir.mkdir()
            self.db_file = dbdir / "acct.db"
            self.driver, self.params = "sqlite3", str(self.db_file)
        else:
            self.cluster = PgCluster(self.base)
            self.cluster.init()
            self.cluster.start()
            self.driver = "pgsql"
            self.params = self.cluster.create_database("acctapi", "acctapi")
        self.admin("migrate")
        if self.kind == "sqlite":
            self._share_sqlite()
        self.account_id = int(self.admin("account", "create", "--name", "e2e-account"))
        self.username = "e2e-owner"
        self.uid = int(self.admin("user", "create", "--account", self.account_id,
                                  "--username", self.username,
                                  "--email", "owner@example.com"))
        self.token = self.mint_token(scopes="*", label="e2e-all")
        return self

    def _share_sqlite(self):
        """httpd's children run as www-data: they need to write the database
        and create its -wal/-shm files next to it."""
        if IS_ROOT:
            for p in [self.db_file.parent] + list(self.db_file.parent.iterdir()):
                shutil.chown(p, HTTPD_USER, HTTPD_USER)

    def env(self):
        e = dict(os.environ)
        e["ACCTAPI_DB_DRIVER"] = self.driver
        e["ACCTAPI_DB_PARAMS"] = self.params
        return e

    def admin(self, *args, check=True):
        p = run([ADMIN, "--db-driver", self.driver, "--db-params", self.params] + list(args),
                check=check, env=self.env())
        if self.kind == "sqlite":
            self._share_sqlite()
        return p.stdout.strip() if check else p

    def unique(self, stem):
        self.counter += 1
        return f"{stem}{self.counter}"

    def mint_token(self, scopes=None, expiry=None, user=None, label=None):
        args = ["token", "create", "--user", user if user is not None else self.uid]
        if scopes is not None:
            args += ["--scopes", scopes]
        args += ["--label", label or self.unique("e2e-token-")]
        if expiry is not None:
            args += ["--expiry", expiry]
        tok = self.admin(*args)
        if not re.fullmatch(r"[0-9a-f]{64}", tok):
            raise HarnessError(f"token create printed {tok!r}, not 64 lowercase hex")
        return tok

    def create_user(self, restricted=False):
        username = self.unique("e2e-user-")
        args = ["user", "create", "--account", self.account_id, "--username", username,
                "--email", f"{username}@example.com"]
        if restricted:
            args.append("--restricted")
        uid = int(self.admin(*args))
        return uid, username

    def query(self, sql):
        """Rows of a query run directly on the database, as lists of text
        (None for NULL): what an operator with a dump would see."""
        if self.kind == "sqlite":
            con = sqlite3.connect(self.params)
            try:
                return [[None if v is None else str(v) for v in row]
                        for row in con.execute(sql)]
            finally:
                con.close()
        out = self.cluster.psql(f"COPY ({sql}) TO STDOUT", db="acctapi")
        return [[None if v == r"\N" else v for v in line.split("\t")]
                for line in out.splitlines()]

    def execute(self, sql):
        """Runs writing statements directly on the database, in one
        transaction (test set-up an operator would do with SQL: grants, bulk
        rows).  `sql` is the test's own text, never user input."""
        if self.kind == "sqlite":
            con = sqlite3.connect(self.params, timeout=30)
            try:
                con.executescript(f"BEGIN; {sql}; COMMIT;")
            finally:
                con.close()
            self._share_sqlite()   # files sqlite3 created must stay httpd's
        else:
            self.cluster.psql(f"BEGIN; {sql}; COMMIT;", db="acctapi")

    def dump(self):
        """Everything the database holds: (text dump, raw bytes).  The raw
        bytes (SQLite's files, WAL included) catch what a text dump might
        render differently; PostgreSQL gives the text only."""
        if self.kind == "sqlite":
            con = sqlite3.connect(self.params)
            try:
                text = "\n".join(con.iterdump())
            finally:
                con.close()
            raw = b""
            for suffix in ("", "-wal"):
                try:
                    raw += Path(self.params + suffix).read_bytes()
                except FileNotFoundError:
                    pass
            return text, raw
        text = self.cluster.psql("SELECT schema_to_xml('public', true, false, '')",
                                 db="acctapi", raw=True)
        return text, b""

    def destroy(self):
        if self.cluster:
            self.cluster.destroy()


def run_all(target, args_list, timeout, what="workers"):
    """Runs target(*args) for each args in threads at once and waits for all
    of them, `timeout` seconds in all; a thread still running then fails the
    test (a hang is a failure, never waited out)."""
    threads = [threading.Thread(target=target, args=a, daemon=True) for a in args_list]
    for t in threads:
        t.start()
    deadline = time.monotonic() + timeout
    for t in threads:
        t.join(timeout=max(0.1, deadline - time.monotonic()))
    assert not any(t.is_alive() for t in threads), f"{what} hung"


def race(server, token, calls):
    """Runs (method, path, body) calls at once, each over its own connection,
    released together by a barrier; returns [(status, json)] in completion
    order ("exception" and its text for a failed request)."""
    barrier = threading.Barrier(len(calls))
    results = []
    answered = []
    lock = threading.Lock()

    def worker(method, path, body):
        r = None
        with requests.Session() as s:
            try:
                barrier.wait(timeout=30)
                r = s.request(method, server.base_url + path, json=body, timeout=60,
                              headers={"Authorization": f"Bearer {token}"})
                item = (r.status_code, r.json())
            except (requests.RequestException, threading.BrokenBarrierError,
                    ValueError) as e:
                item = ("exception", repr(e))
        with lock:
            results.append(item)
            if r is not None:
                answered.append(r)

    run_all(worker, calls, 120)
    for r in answered:   # here, so that a failure fails the test
        check_response(r)
    return results


class Account:
    """A fresh account of `backend` with an unrestricted owner (self.uid,
    self.client: a client of `server` with an all-scopes token); user()
    adds more users with their own clients.  close() closes them all."""

    def __init__(self, backend, server, stem="e2e-acct-"):
        self.backend = backend
        self.server = server
        self.stem = stem
        self.id = int(backend.admin("account", "create", "--name", backend.unique(stem)))
        self.clients = []
        self.uid, self.client = self.user()

    def user(self, restricted=False, scopes="*"):
        username = self.backend.unique(f"{self.stem}user-")
        args = ["user", "create", "--account", self.id, "--username", username,
                "--email", f"{username}@example.com"]
        if restricted:
            args.append("--restricted")
        uid = int(self.backend.admin(*args))
        client = self.server.client(token=self.backend.mint_token(scopes=scopes, user=uid))
        self.clients.append(client)
        return uid, client

    def close(self):
        for c in self.clients:
            c.close()


# --------------------------------------------------------------------------
# httpd
# --------------------------------------------------------------------------

SERVERS = []   # every server started in this session, for the log checks
# The suite makes thousands of requests a minute with one token: its servers
# count every request (the counters run on every test) against budgets no
# test reaches; test_rate_limits.py starts servers with real ones.
E2E_RATE_LIMIT = "1000000 1000000"
# Likewise the suite's users accumulate far more than the module's default of
# 100 active tokens (every test mints its own): AcctapiMaxTokensPerUser at a
# cap no test reaches; the tests of the cap start servers with small ones.
E2E_MAX_TOKENS = 1000000


class Httpd:
    def __init__(self, backend, base, *, tls=None, max_body=None, extra=None,
                 test_clock="On", dbd_max=None, name="httpd",
                 rate_limit=E2E_RATE_LIMIT, status=None, max_tokens=E2E_MAX_TOKENS):
        self.backend = backend
        self.root = make_tmpdir(f"{Path(base)}/{name}-") if base else make_tmpdir(f"acctapi-{name}-")
        self.port = free_port()
        self.tls = tls                   # (cert, key) or None
        self.max_body = max_body
        self.extra = extra               # text appended to the configuration
        self.test_clock = test_clock
        self.dbd_max = dbd_max
        self.rate_limit = rate_limit     # AcctapiRateLimit, or None: the module's
        self.status = status             # path of the module's counters, or None
        self.max_tokens = max_tokens     # AcctapiMaxTokensPerUser, or None: the module's
        self.conf = self.root / "httpd.conf"
        self.error_log = self.root / "error.log"
        self.pid_file = self.root / "httpd.pid"
        self.proc = None                 # the -X httpd of a sanitizer run
        self.checked = 0                 # error-log offset already scanned
        self.pid = None
        scheme = "https" if tls else "http"
        self.url = f"{scheme}://127.0.0.1:{self.port}"
        self.base_url = self.url + "/v4"

    def write_conf(self):
        args = [HTTPD_CONF, "--root", self.root, "--port", self.port, "--module", MODULE,
                "--db-driver", self.backend.driver, "--db-params", self.backend.params,
                "--test-clock", self.test_clock]
        if self.rate_limit is not None:
            args += ["--rate-limit", self.rate_limit]
        if self.tls:
            args += ["--tls-cert", self.tls[0], "--tls-key", self.tls[1]]
        if self.max_body is not None:
            args += ["--max-body", self.max_body]
        if self.dbd_max is not None:
            args += ["--dbd-max", self.dbd_max]
        if self.status is not None:
            args += ["--status", self.status]
        # Every server seals secrets with its own key and sends its text
        # messages to sms.log in its root (tests read codes from there).
        key = self.root / "secret.key"
        if not key.exists():
            key.write_text(secrets.token_hex(32) + "\n")
            key.chmod(0o600)
        self.sms_log = self.root / "sms.log"
        self.sms_log.touch()
        if IS_ROOT:
            shutil.chown(self.sms_log, HTTPD_USER, HTTPD_USER)
        args += ["--secret-key-file", key,
                 "--sms-command", f"{SMS_TO_FILE} {self.sms_log}"]
        extra_text = self.extra or ""
        if self.max_tokens is not None:
            # First, so that a test's own extra text may set it again.
            extra_text = (f'<Location "/v4">\n    AcctapiMaxTokensPerUser {self.max_tokens}\n'
                          f'</Location>\n{extra_text}')
        if SANITIZE:
            # httpd -X serves every connection from its one process, which
            # the generated configuration sizes for half of them (two
            # children): the same threads for the whole server here.  First,
            # so that a test's own extra text may set it again.
            extra_text = ("ThreadLimit 400\nThreadsPerChild 400\n"
                          "MaxRequestWorkers 400\n" + extra_text)
        if extra_text:
            extra = self.root / "extra.conf"
            extra.write_text(extra_text)
            args += ["--extra", extra]
        if IS_ROOT:
            args += ["--user", HTTPD_USER, "--group", HTTPD_USER]
        self.conf.write_text(run(args).stdout)

    def start(self, timeout=20, allowed=()):
        """Starts httpd and waits until it answers.  `allowed`: compiled
        regexes of error-log lines expected during startup."""
        self.write_conf()
        SERVERS.append(self)
        if SANITIZE:
            # -X does not detach: it is this process's child until stopped.
            self.console = open(self.root / "console.log", "ab")
            self.proc = subprocess.Popen([HTTPD, "-X", "-f", str(self.conf)],
                                         stdout=self.console, stderr=subprocess.STDOUT,
                                         env=sanitizer_env(self.root),
                                         start_new_session=True)
        else:
            p = run([HTTPD, "-f", self.conf, "-k", "start"], check=False, timeout=timeout)
            if p.returncode != 0 or p.stderr.strip():
                raise HarnessError(f"httpd -k start: exit {p.returncode}\n{p.stderr}{p.stdout}\n"
                                   f"{self.log_text()}")
        deadline = time.monotonic() + timeout
        while True:
            if self.pid is None and self.pid_file.exists():
                try:
                    self.pid = int(self.pid_file.read_text().strip())
                except ValueError:
                    pass
            if self.pid is not None and not pid_alive(self.pid):
                raise HarnessError(f"httpd exited during startup\n{self.log_text()}")
            if self.proc is not None and self.proc.poll() is not None:
                # httpd -X refused to start (a configuration error, say):
                # what it said is on its console.
                status = self.proc.returncode
                self.proc = None
                self.console.close()
                console = (self.root / "console.log").read_text(errors="replace")
                raise HarnessError(f"httpd exited during startup (status {status})\n"
                                   f"{console}{self.log_text()}")
            if self.pid is not None and self._answers():
                break
            if time.monotonic() >= deadline:
                self.stop()
                raise HarnessError(f"httpd did not answer within {timeout}s\n{self.log_text()}")
            time.sleep(0.05)
        bad = self.scan_log(allowed)
        if bad:
            self.stop()
            raise HarnessError("httpd logged problems at startup:\n" + "\n".join(bad))
        return self

    def _answers(self):
        if not port_open(self.port):
            return False
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                requests.get(self.base_url + "/regions", timeout=2, verify=False)
            return True
        except requests.RequestException:
            return False

    def stop(self, timeout=20):
        if self.pid is None and self.pid_file.exists():
            try:
                self.pid = int(self.pid_file.read_text().strip())
            except ValueError:
                pass
        if self.pid is None or not pid_alive(self.pid):
            self.pid = None
            return
        proc = self.proc
        if proc:
            # What "-k stop" sends; an uninstrumented apache2 cannot load
            # the instrumented module to read the configuration.
            os.kill(self.pid, signal.SIGTERM)
        else:
            run([HTTPD, "-f", self.conf, "-k", "stop"], check=False, timeout=timeout)
        deadline = time.monotonic() + timeout
        # httpd -X exits without removing its pid file (only a parent does).
        while (proc.poll() is None if proc else pid_alive(self.pid) or self.pid_file.exists()):
            if time.monotonic() >= deadline:
                if pid_alive(self.pid):
                    os.kill(self.pid, signal.SIGKILL)
                raise HarnessError(f"httpd (pid {self.pid}) did not stop within {timeout}s")
            time.sleep(0.05)
        if proc:
            self.proc = None
            self.console.close()
            self.pid_file.unlink(missing_ok=True)
        self.pid = None

    def stop_and_check(self, allowed=()):
        """Stops the server, then fails on problems logged since the last scan."""
        try:
            self.stop()
        finally:
            bad = self.scan_log(allowed)
            if bad:
                raise HarnessError(f"error log of {self.root}:\n" + "\n".join(bad))

    def log_text(self, start=0, end=None):
        try:
            with open(self.error_log, "rb") as f:
                f.seek(start)
                data = f.read() if end is None else f.read(max(0, end - start))
                return data.decode("utf-8", "replace")
        except FileNotFoundError:
            return ""

    def log_size(self):
        try:
            return self.error_log.stat().st_size
        except FileNotFoundError:
            return 0

    def scan_log(self, allowed=()):
        """Lines logged since the last scan that are problems: any crash line,
        and any warn/error/crit/alert/emerg line no `allowed` regex matches."""
        end = self.log_size()
        text = self.log_text(self.checked, end)
        self.checked = end
        bad = self.sanitizer_reports()
        for line in text.splitlines():
            if CRASH.search(line):
                bad.append(line)
            elif (BAD_LEVEL.search(line) and not HTTPD_NOISE.search(line)
                  and not any(a.search(line) for a in allowed)):
                bad.append(line)
        return bad

    def sanitizer_reports(self):
        """New AddressSanitizer/UBSan reports of this server (each once)."""
        seen = self.__dict__.setdefault("_reports_seen", set())
        out = []
        for path in sorted(self.root.glob("sanitizer*")):
            if path in seen or not path.stat().st_size:
                continue
            seen.add(path)
            out.append(f"{path}:\n{path.read_text(errors='replace')[:4000]}")
        return out

    def client(self, token=None, verify=None):
        return Client(self.base_url, token=token, verify=verify)


# --------------------------------------------------------------------------
# HTTP client
# --------------------------------------------------------------------------

_DEFAULT = object()


class Resp:
    def __init__(self, r):
        self.raw = r
        self.status = r.status_code
        self.headers = r.headers
        self.body = r.content
        self.text = r.text

    @property
    def ctype(self):
        return self.headers.get("Content-Type")

    @property
    def json(self):
        try:
            return json.loads(self.body)
        except ValueError:
            raise AssertionError(f"response {self.status} is not JSON: {self.body[:500]!r}") from None

    def json_pairs(self):
        """The body with every object as a list of (key, value) pairs, in order."""
        return json.loads(self.body, object_pairs_hook=list)

    def __repr__(self):
        return (f"<{self.raw.request.method} {self.raw.request.url} -> {self.status} "
                f"{dict(self.headers)} {self.body[:800]!r}>")


class Client:
    """requests around one base URL (…/v4) and an optional default token."""

    def __init__(self, base_url, token=None, verify=None, timeout=15):
        self.base_url = base_url
        self.token = token
        self.verify = verify if verify is not None else True
        self.timeout = timeout
        self.session = requests.Session()

    def request(self, method, path, *, token=_DEFAULT, authorization=None, headers=None,
                xfilter=None, **kw):
        h = dict(headers or {})
        tok = self.token if token is _DEFAULT else token
        if authorization is not None:
            h["Authorization"] = authorization
        elif tok is not None:
            h["Authorization"] = f"Bearer {tok}"
        if xfilter is not None:
            h["X-Filter"] = xfilter if isinstance(xfilter, str) else json.dumps(xfilter)
        kw.setdefault("timeout", self.timeout)
        kw.setdefault("verify", self.verify)
        kw.setdefault("allow_redirects", False)
        url = path if path.startswith("http") else self.base_url + path
        r = self.session.request(method, url, headers=h, **kw)
        check_response(r)
        return Resp(r)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def head(self, path, **kw):
        return self.request("HEAD", path, **kw)

    def post(self, path, **kw):
        return self.request("POST", path, **kw)

    def put(self, path, **kw):
        return self.request("PUT", path, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)

    def all_pages(self, path, **kw):
        """Every item of a list, with page_size 500, following pages (bounded)."""
        items = []
        page = 1
        while page <= 50:
            r = self.get(path, params={"page": page, "page_size": 500}, **kw)
            assert r.status == 200, r
            doc = r.json
            items += doc["data"]
            if page >= doc["pages"]:
                return items
            page += 1
        raise AssertionError(f"{path}: more than 50 pages")

    def close(self):
        self.session.close()


# --------------------------------------------------------------------------
# Every response against the OpenAPI document
# --------------------------------------------------------------------------

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
# Statuses httpd answers itself before any module sees the request.
HTTPD_REFUSALS = (400, 408, 414, 431)


def _resolve_pointer(doc, ref):
    """The value a local "#/a/b" reference names (KeyError if none)."""
    if not ref.startswith("#/"):
        raise KeyError(ref)
    node = doc
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def api_path(raw_path):
    """What follows the version segment (/v4 or /v4beta), as the module finds
    it (mod_acctapi.c: api_path), still percent-encoded; None: not the API's."""
    p = 0
    while True:
        p = raw_path.find("/v4", p)
        if p < 0:
            return None
        after = p + 3
        if raw_path.startswith("beta", after):
            after += 4
        if after == len(raw_path) or raw_path[after] == "/":
            return raw_path[after:]
        p = after


def _percent_decode(seg):
    """acct_percent_decode, then acct_route.c segment_is_text: None on a
    malformed escape, an encoded NUL, invalid UTF-8 or a control character."""
    if re.search(r"%(?![0-9A-Fa-f]{2})|%00|\x00", seg):
        return None
    try:
        text = urllib.parse.unquote_to_bytes(seg).decode("utf-8")
    except UnicodeDecodeError:
        return None
    if re.search("[\x00-\x1f\x7f-\x9f]", text):
        return None
    return text


def _split_path(path):
    """acct_route.c split_path: decoded segments, or None (no such path)."""
    if path.startswith("/"):
        path = path[1:]
    if path.endswith("/"):
        path = path[:-1]
    if not path:
        return []
    segs = path.split("/")
    if len(segs) > 16 or "" in segs:
        return None
    decoded = [_percent_decode(s) for s in segs]
    return None if None in decoded else decoded


class OpenAPI:
    """The document of the repository, its operations found the way the
    module's router finds routes, and compiled validators per response."""

    def __init__(self, path=OPENAPI_DOC):
        self.path = Path(path)
        self.doc = json.loads(self.path.read_text())
        self.version = self.doc["info"]["version"]
        self.templates = []          # (path, [segments], rest-param names)
        for tmpl, item in self.doc["paths"].items():
            rest = set()
            for o in (item.get(m) for m in METHODS):
                for prm in (o or {}).get("parameters", []) + item.get("parameters", []):
                    prm = self.deref(prm)
                    if prm.get("x-rest-of-path"):
                        rest.add(prm["name"])
            self.templates.append((tmpl, tmpl.strip("/").split("/") if tmpl != "/" else [],
                                   rest))
        self._validators = {}
        self._lock = threading.Lock()
        self._check_lock = threading.Lock()
        self._seen_valid = set()     # (validator key, body or item JSON) found valid
        self._items = {}             # validator key: its list's item schema, or None
        self._found = {}             # (method, path): what find() found
        self.checked = 0             # responses checked, and the time it took
        self.seconds = 0.0

    def deref(self, node):
        while isinstance(node, dict) and "$ref" in node:
            node = _resolve_pointer(self.doc, node["$ref"])
        return node

    def _score(self, tsegs, rest, segs):
        """acct_route.c match_template: a specificity score, or -1."""
        score = 0
        for i, t in enumerate(tsegs):
            if i >= len(segs):
                return -1
            score <<= 1
            if t.startswith("{"):
                if t[1:-1] in rest:
                    return score
            elif t != segs[i]:
                return -1
            else:
                score |= 1
        return score if len(tsegs) == len(segs) else -1

    def find(self, method, path):
        """(template, operation or None); template None: no such path."""
        found = self._found.get((method, path))
        if found is None:
            if len(self._found) > 100000:
                self._found.clear()
            found = self._found[(method, path)] = self._find(method, path)
        return found

    def _find(self, method, path):
        segs = _split_path(path)
        if segs is None:
            return None, None
        best, best_tmpl = -1, None
        for tmpl, tsegs, rest in self.templates:
            sc = self._score(tsegs, rest, segs)
            if sc > best:
                best, best_tmpl = sc, tmpl
        if best_tmpl is None:
            return None, None
        m = "get" if method.upper() == "HEAD" else method.lower()
        return best_tmpl, self.doc["paths"][best_tmpl].get(m) if m in METHODS else None

    def inline(self, schema):
        """`schema` with every local $ref replaced by what it names (the
        document's schemas are not recursive): validating then never
        resolves a reference, which is most of jsonschema's cost."""
        if isinstance(schema, list):
            return [self.inline(x) for x in schema]
        if not isinstance(schema, dict):
            return schema
        if "$ref" in schema:
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            target = self.inline(_resolve_pointer(self.doc, schema["$ref"]))
            return {"allOf": [target, self.inline(rest)]} if rest else target
        return {k: self.inline(v) for k, v in schema.items()}

    def validator(self, key, schema):
        with self._lock:
            v = self._validators.get(key)
            if v is None:
                v = jsonschema.Draft202012Validator(self.inline(schema))
                self._validators[key] = v
            return v

    def _errors(self, key, schema, value):
        """Schema errors of `value` as (path, message), sorted.  Lists are
        checked item by item, and an item seen valid before (the suite lists
        the same objects again and again) is not checked again."""
        items = self._items.get(key, ())
        if items == ():
            page = self.inline(schema)
            items = page.get("properties", {}).get("data", {}).get("items") \
                if page.get("type") == "object" else None
            self._items[key] = items
        if items is None or not isinstance(value, dict) \
                or not isinstance(value.get("data"), list):
            return self._run(key, schema, value, ())
        errors = self._run(key, schema, dict(value, data=[]), ())
        ikey = key + ("item",)
        for i, item in enumerate(value["data"]):
            text = json.dumps(item, sort_keys=True)
            if (ikey, text) in self._seen_valid:
                continue
            found = self._run(ikey, items, item, ("data", i))
            if found:
                errors += found
            else:
                self._remember_valid(ikey, text)
        return errors

    def _remember_valid(self, key, text):
        if len(self._seen_valid) > 200000:
            self._seen_valid.clear()
        self._seen_valid.add((key, text))

    def _run(self, key, schema, value, prefix):
        errs = self.validator(key, schema).iter_errors(value)
        found = [(prefix + tuple(e.absolute_path), e.message) for e in errs]
        return sorted(found, key=lambda f: (len(f[0]), [str(p) for p in f[0]], f[1]))

    def check(self, method, url, status, headers, body):
        """Raises AssertionError naming what in the response the document
        does not allow."""
        # One check at a time: the threads of a test share the caches.
        with self._check_lock:
            t0 = time.perf_counter()
            try:
                self._check(method.upper(), url, status, headers, body)
            finally:
                self.checked += 1
                self.seconds += time.perf_counter() - t0

    def _check(self, method, url, status, headers, body):
        path = api_path(urllib.parse.urlsplit(url).path)
        if path is None:
            return                      # not the API's URL space
        where = f"{method} {url} -> {status}"

        def fail(msg):
            raise AssertionError(f"OpenAPI: {where}: {msg}\n  body: {body[:600]!r}")

        if headers.get("X-Spec-Version") != self.version:
            fail(f"X-Spec-Version {headers.get('X-Spec-Version')!r}, not {self.version!r}")
        tmpl, op = self.find(method, path)
        if method == "OPTIONS" and status < 400:
            return                      # a CORS preflight: headers only
        if op is None:
            # No such path, or a method the path does not have: an error.
            if status < 400:
                fail("a path or method the document does not have answered "
                     "a success")
            if status == 405 and tmpl is not None and "Allow" not in headers:
                fail("405 without an Allow header")
            self._check_body(fail, ("error",), {"$ref": "#/components/schemas/ErrorEnvelope"},
                             method, headers, body)
            return
        name = f"{method if method != 'HEAD' else 'GET'} {tmpl}"
        responses = op["responses"]
        key = next((k for k in (str(status), f"{status // 100}XX", "default")
                    if k in responses), None)
        if key is None:
            fail(f"status {status} is not documented for {name} "
                 f"(documented: {', '.join(responses)})")
        resp = self.deref(responses[key])
        for hname, h in resp.get("headers", {}).items():
            h = self.deref(h)
            value = headers.get(hname)
            if value is None:
                if h.get("required"):
                    fail(f"header {hname} is missing ({name} {key})")
                continue
            hv = value
            if h.get("schema", {}).get("type") == "integer":
                try:
                    hv = int(value)
                except ValueError:
                    fail(f"header {hname}: {value!r} is not an integer")
            err = jsonschema.exceptions.best_match(
                self.validator(("header", hname, name, key), h["schema"]).iter_errors(hv))
            if err:
                fail(f"header {hname}: {err.message}")
        accepted = headers.get("X-Accepted-OAuth-Scopes")
        # A request httpd refused before the module routed it (a header over
        # LimitRequestFieldSize, say) carries the unrouted headers.
        unrouted = status in HTTPD_REFUSALS and accepted == "*"
        if accepted != op.get("x-required-scope") and not unrouted:
            fail(f"X-Accepted-OAuth-Scopes {accepted!r}, the document says "
                 f"{op.get('x-required-scope')!r}")
        content = resp.get("content")
        if not content:
            if body:
                fail(f"{name} {key} has no body in the document")
            return
        schema = content["application/json"]["schema"]
        self._check_body(fail, (name, key), schema, method, headers, body)

    def _check_body(self, fail, key, schema, method, headers, body):
        if method == "HEAD":
            if body:
                fail("HEAD answered a body")
            return
        ctype = headers.get("Content-Type")
        if ctype != "application/json":
            fail(f"Content-Type {ctype!r}, not exactly application/json")
        if (key, body) in self._seen_valid:
            return                      # the same answer as before (errors, mostly)
        try:
            doc = json.loads(body)
        except ValueError:
            fail("the body is not JSON")
        errors = self._errors(key, schema, doc)
        if errors:
            lines = [f"  at /{'/'.join(str(p) for p in path)}: {message}"
                     for path, message in errors[:5]]
            fail(f"the body does not match {' '.join(key)}:\n" + "\n".join(lines))
        if len(body) <= 4096:
            self._remember_valid(key, body)


_openapi = None
_openapi_lock = threading.Lock()


def openapi():
    """The repository's OpenAPI document, loaded once per session."""
    global _openapi
    with _openapi_lock:
        if _openapi is None:
            _openapi = OpenAPI()
        return _openapi


def check_response(r):
    """Checks a requests.Response of the API against the OpenAPI document
    (set ACCTAPI_NO_OPENAPI_CHECK=1 to skip: only for debugging)."""
    if os.environ.get("ACCTAPI_NO_OPENAPI_CHECK"):
        return
    openapi().check(r.request.method, r.request.url, r.status_code, r.headers, r.content)
