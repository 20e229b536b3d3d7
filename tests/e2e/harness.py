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
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import requests

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("ACCTAPI_BUILD_DIR", str(REPO))).resolve()
MODULE = BUILD / ".libs" / "mod_acctapi.so"
ADMIN = BUILD / "acctapi-admin"
HTTPD_CONF = REPO / "scripts" / "httpd-conf"
SMS_TO_FILE = REPO / "scripts" / "sms-to-file"
HTTPD = os.environ.get("ACCTAPI_HTTPD", "/usr/sbin/apache2")
PGBIN = Path(os.environ.get("ACCTAPI_PGBIN", "/usr/lib/postgresql/15/bin"))
PG_SYSTEM_USER = os.environ.get("ACCTAPI_PG_USER", "acctapi-pg")
HTTPD_USER = "www-data"
IS_ROOT = os.geteuid() == 0

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

    def start(self):
        if self.port is None:
            self.port = free_port()
        opts = (f"-c listen_addresses=127.0.0.1 -p {self.port} "
                f"-c unix_socket_directories={self.sock} -c max_connections=200 "
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                "-c logging_collector=off")
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


def race(server, token, calls):
    """Runs (method, path, body) calls at once, each over its own connection,
    released together by a barrier; returns [(status, json)] in completion
    order ("exception" and its text for a failed request)."""
    import threading
    barrier = threading.Barrier(len(calls))
    results = []
    lock = threading.Lock()

    def worker(method, path, body):
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

    threads = [threading.Thread(target=worker, args=c, daemon=True) for c in calls]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 120
    for t in threads:
        t.join(timeout=max(0.1, deadline - time.monotonic()))
    assert not any(t.is_alive() for t in threads), "workers hung"
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


class Httpd:
    def __init__(self, backend, base, *, tls=None, max_body=None, extra=None,
                 test_clock="On", dbd_max=None, name="httpd"):
        self.backend = backend
        self.root = make_tmpdir(f"{Path(base)}/{name}-") if base else make_tmpdir(f"acctapi-{name}-")
        self.port = free_port()
        self.tls = tls                   # (cert, key) or None
        self.max_body = max_body
        self.extra = extra               # text appended to the configuration
        self.test_clock = test_clock
        self.dbd_max = dbd_max
        self.conf = self.root / "httpd.conf"
        self.error_log = self.root / "error.log"
        self.pid_file = self.root / "httpd.pid"
        self.checked = 0                 # error-log offset already scanned
        self.pid = None
        scheme = "https" if tls else "http"
        self.url = f"{scheme}://127.0.0.1:{self.port}"
        self.base_url = self.url + "/v4"

    def write_conf(self):
        args = [HTTPD_CONF, "--root", self.root, "--port", self.port, "--module", MODULE,
                "--db-driver", self.backend.driver, "--db-params", self.backend.params,
                "--test-clock", self.test_clock]
        if self.tls:
            args += ["--tls-cert", self.tls[0], "--tls-key", self.tls[1]]
        if self.max_body is not None:
            args += ["--max-body", self.max_body]
        if self.dbd_max is not None:
            args += ["--dbd-max", self.dbd_max]
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
        if self.extra:
            extra = self.root / "extra.conf"
            extra.write_text(self.extra)
            args += ["--extra", extra]
        if IS_ROOT:
            args += ["--user", HTTPD_USER, "--group", HTTPD_USER]
        self.conf.write_text(run(args).stdout)

    def start(self, timeout=20, allowed=()):
        """Starts httpd and waits until it answers.  `allowed`: compiled
        regexes of error-log lines expected during startup."""
        self.write_conf()
        SERVERS.append(self)
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
        run([HTTPD, "-f", self.conf, "-k", "stop"], check=False, timeout=timeout)
        deadline = time.monotonic() + timeout
        while pid_alive(self.pid) or self.pid_file.exists():
            if time.monotonic() >= deadline:
                if pid_alive(self.pid):
                    os.kill(self.pid, signal.SIGKILL)
                raise HarnessError(f"httpd (pid {self.pid}) did not stop within {timeout}s")
            time.sleep(0.05)
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
        bad = []
        for line in text.splitlines():
            if CRASH.search(line):
                bad.append(line)
            elif (BAD_LEVEL.search(line) and not HTTPD_NOISE.search(line)
                  and not any(a.search(line) for a in allowed)):
                bad.append(line)
        return bad

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
        return Resp(self.session.request(method, url, headers=h, **kw))

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
