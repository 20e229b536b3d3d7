"""A prepared database (SQLite or PostgreSQL) and acctapi-admin; accounts; races."""

import io
import json
import os
import re
import select
import shutil
import sqlite3
import subprocess
import threading
import time
from pathlib import Path

import psycopg2
import requests

from .base import *  # noqa: F401,F403
from .postgres import *  # noqa: F401,F403
from .pgbouncer import *  # noqa: F401,F403
from .openapi_doc import *  # noqa: F401,F403
from .wire import Http


class AdminSession:
    """The suite's acctapi-admin commands, run by one `acctapi-admin batch`
    process: each command line as the same words on a line of its input,
    answered with the exit status and output a process of its own would
    have given (the ops tests run the program itself).  Starting a process
    costs more than most commands, and the suite runs thousands.  One
    command at a time; a command that does not answer within `timeout`
    seconds ends the process and fails.  Under ACCTAPI_SANITIZE each command
    is its own process, so that LeakSanitizer judges each one at its exit."""

    def __init__(self):
        self.lock = threading.Lock()
        self.proc = None

    def _start(self):
        env = {k: v for k, v in os.environ.items()
               if k not in ("ACCTAPI_DB_DRIVER", "ACCTAPI_DB_PARAMS")}
        self.proc = subprocess.Popen([str(ADMIN), "batch"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=env)
        os.set_blocking(self.proc.stdout.fileno(), False)
        self.pending = b""

    def _fail(self, words, why):
        proc, self.proc = self.proc, None
        proc.kill()
        _, err = proc.communicate()
        raise HarnessError(f"acctapi-admin batch {why} running {' '.join(words)}"
                           f" (exit {proc.returncode}): {err.decode(errors='replace')}")

    def _answer(self, words, timeout):
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.pending:
            left = deadline - time.monotonic()
            if left <= 0:
                self._fail(words, f"gave no answer in {timeout}s")
            if select.select([fd], [], [], left)[0]:
                chunk = os.read(fd, 65536)
                if not chunk:
                    self._fail(words, "ended")
                self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)

    def run(self, words, check=True, timeout=60):
        words = [str(w) for w in words]
        if SANITIZE:
            return run([ADMIN] + words, check=check, timeout=timeout)
        with self.lock:
            if self.proc is None:
                self._start()
            try:
                self.proc.stdin.write(json.dumps(words).encode() + b"\n")
                self.proc.stdin.flush()
            except BrokenPipeError:
                self._fail(words, "ended")
            a = self._answer(words, timeout)
        p = subprocess.CompletedProcess([str(ADMIN)] + words, a["status"],
                                        a["stdout"], a["stderr"])
        if check and p.returncode != 0:
            raise HarnessError(f"exit {p.returncode}: {' '.join(p.args)}\n"
                               f"stdout: {p.stdout}\nstderr: {p.stderr}")
        return p


ADMIN_SESSION = AdminSession()


class Backend:
    """A migrated database holding one account, its unrestricted user and an
    all-scopes token (self.token)."""

    def __init__(self, kind, base, pooled=False, pool_size=4):
        self.kind = kind                      # "sqlite" or "pgsql"
        self.base = Path(base)
        self.cluster = None
        self.driver = None
        self.params = None                    # acctapi-admin's (direct)
        # pgsql only: the module's servers reach the database through a
        # PgBouncer in transaction mode (harness.pgbouncer), with
        # AcctapiPreparedStatements Off.
        self.pooled = pooled
        self.pool_size = pool_size            # PgBouncer's server connections
        self.bouncer = None
        self.counter = 0
        # The harness's own session on PostgreSQL for query() and execute():
        # a psql process per statement costs a process and a server
        # backend (0.15 CPU-seconds here), and the suite runs hundreds.
        # Opened again after the cluster starts anew (PgCluster.generation).
        self._session = None
        self._session_generation = None
        self._session_lock = threading.Lock()

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
        if self.pooled:
            self.bouncer = PgBouncer(self.base, self.cluster, "acctapi", "acctapi",
                                     pool_size=self.pool_size)
            self.bouncer.start()
        self.admin("migrate")
        if self.kind == "sqlite":
            self._share_sqlite()
        self.reset_clock()
        self.username = "e2e-owner"
        self.account_id, self.uid, self.token = self.create_account_with_owner(
            "e2e-account", self.username, email="owner@example.com", label="e2e-all")
        return self

    @property
    def server_params(self):
        """The DBDParams of the module's servers: through PgBouncer when
        pooled, else the same as acctapi-admin's."""
        return self.bouncer.params() if self.bouncer else self.params

    def _share_sqlite(self):
        """httpd's children run as www-data: they need to write the database
        and create its -wal/-shm files next to it."""
        if IS_ROOT:
            for p in [self.db_file.parent] + list(self.db_file.parent.iterdir()):
                try:
                    shutil.chown(p, HTTPD_USER, HTTPD_USER)
                except FileNotFoundError:
                    pass    # a -wal or -shm file its last connection removed

    def env(self):
        e = dict(os.environ)
        e["ACCTAPI_DB_DRIVER"] = self.driver
        e["ACCTAPI_DB_PARAMS"] = self.params
        return e

    def admin(self, *args, check=True):
        p = ADMIN_SESSION.run(["--db-driver", self.driver, "--db-params", self.params]
                              + list(args), check=check)
        if self.kind == "sqlite":
            self._share_sqlite()
        if args and args[0] == "clock" and p.returncode == 0:
            # "2028-12-31T23:59:30 (offset +65000000s)": what every clock
            # command prints
            CLOCK.offset = int(re.search(r"\(offset ([+-]\d+)s\)", p.stdout).group(1))
        return p.stdout.strip() if check else p

    def reset_clock(self):
        """Puts the test clock back where the suite runs it: the machine's
        time, or the instant ACCTAPI_TEST_CLOCK_START named at the start of
        the run and moving on from there (harness.SuiteClock)."""
        if CLOCK.start is None:
            self.admin("clock", "reset")
            return
        if CLOCK.base is None:
            CLOCK.base = CLOCK.start - time.time()
        self.admin("clock", "set", format_utc(time.time() + CLOCK.base))

    def start_test_clock(self):
        """Where a test that moves the clock starts: where the suite runs it,
        or the chosen instant itself (ACCTAPI_TEST_CLOCK_START)."""
        if CLOCK.start is None:
            self.admin("clock", "reset")
        else:
            self.admin("clock", "set", format_utc(CLOCK.start))

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

    def create_account_with_owner(self, name, username, email=None, scopes="*", label=None):
        """A new account, its unrestricted first user and a token of theirs:
        (account id, uid, token), made by one `account create --owner ...
        --token-scopes` (one transaction, one process)."""
        out = self.admin("account", "create", "--name", name, "--owner", username,
                         "--owner-email", email or f"{username}@example.com",
                         "--token-scopes", scopes,
                         "--token-label", label or self.unique("e2e-token-"))
        lines = out.split("\n")
        if (len(lines) != 3 or not all(re.fullmatch(r"[1-9][0-9]*", v) for v in lines[:2])
                or not re.fullmatch(r"[0-9a-f]{64}", lines[2])):
            raise HarnessError(f"account create --owner printed {lines!r}, not two ids "
                               "and 64 lowercase hex")
        return int(lines[0]), int(lines[1]), lines[2]

    def create_user_with_token(self, account_id, username, email=None, scopes="*",
                               label=None, restricted=False):
        """A new user of the account and a token of it: (uid, token), made by
        one `user create --token-scopes` (one transaction, one process)."""
        args = ["user", "create", "--account", account_id, "--username", username,
                "--email", email or f"{username}@example.com", "--token-scopes", scopes,
                "--token-label", label or self.unique("e2e-token-")]
        if restricted:
            args.append("--restricted")
        lines = self.admin(*args).split("\n")
        if len(lines) != 2 or not re.fullmatch(r"[0-9a-f]{64}", lines[1]):
            raise HarnessError(f"user create --token-scopes printed {lines!r}, "
                               "not a uid and 64 lowercase hex")
        return int(lines[0]), lines[1]

    def fresh_user(self, server, scopes="*", restricted=False):
        """A new user of the e2e account (self.account_id) and a client of
        `server` with a token of theirs; the client's uid, username and
        token name them."""
        username = self.unique("e2e-user-")
        uid, token = self.create_user_with_token(self.account_id, username, scopes=scopes,
                                                 restricted=restricted)
        c = server.client(token=token)
        c.uid, c.username = uid, username
        return c

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
        # COPY's text format: the values as psql printed them (no Python
        # types in between), "\N" for NULL.
        out = io.StringIO()
        self._on_session(lambda cur: cur.copy_expert(f"COPY ({sql}) TO STDOUT", out))
        return [[None if v == r"\N" else v for v in line.split("\t")]
                for line in out.getvalue().splitlines()]

    def query_plan(self, sql, settings=()):
        """The plan the database chooses for `sql`, as one text: SQLite's
        EXPLAIN QUERY PLAN details, PostgreSQL's EXPLAIN lines, the latter
        under `settings` ("enable_seqscan = off", ...) for this query only."""
        if self.kind == "sqlite":
            return "\n".join(row[-1] for row in self.query(f"EXPLAIN QUERY PLAN {sql}"))
        lines = []

        def explain(cur):
            cur.execute("BEGIN")
            for setting in settings:
                cur.execute(f"SET LOCAL {setting}")
            cur.execute(f"EXPLAIN {sql}")
            lines.extend(row[0] for row in cur.fetchall())
            cur.execute("ROLLBACK")
        self._on_session(explain)
        return "\n".join(lines)

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
            self._on_session(lambda cur: cur.execute(f"BEGIN; {sql}; COMMIT;"))

    def _on_session(self, use):
        """use(cursor) on the harness's session (autocommit: each call is
        its own transaction, or the one its text opens and commits).  A
        failure rolls back what it began and raises HarnessError."""
        with self._session_lock:
            if (self._session is None or self._session.closed
                    or self._session_generation != self.cluster.generation):
                if self._session is not None:
                    self._session.close()
                self._session = self.cluster.connect(
                    application_name="acctapi-e2e-harness",
                    # As psql's run() was bounded: a statement that hangs fails.
                    options="-c statement_timeout=60s")
                self._session_generation = self.cluster.generation
            try:
                with self._session.cursor() as cur:
                    use(cur)
            except psycopg2.Error as e:
                try:
                    with self._session.cursor() as cur:
                        cur.execute("ROLLBACK")
                except psycopg2.Error:
                    self._session.close()
                raise HarnessError(f"PostgreSQL: {e}") from None

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
        # Every table of the schema as COPY's text renders it, a line a row,
        # over the harness's session: schema_to_xml through a psql process
        # took seconds of CPU once the suite's database had grown.
        out = io.StringIO()

        def copy_tables(cur):
            cur.execute("SELECT quote_ident(tablename) FROM pg_tables "
                        "WHERE schemaname = 'public' ORDER BY tablename")
            for (table,) in cur.fetchall():
                out.write(f"-- public.{table}\n")
                cur.copy_expert(f"COPY (SELECT * FROM public.{table}) TO STDOUT", out)
        self._on_session(copy_tables)
        return out.getvalue(), b""

    def destroy(self):
        if self._session is not None:
            self._session.close()
        if self.bouncer:
            self.bouncer.stop()
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
        with Http() as s:
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
        name = backend.unique(stem)
        username = backend.unique(f"{stem}user-")
        self.id, self.uid, token = backend.create_account_with_owner(name, username)
        self.client = server.client(token=token)
        self.clients = [self.client]

    def user(self, restricted=False, scopes="*"):
        username = self.backend.unique(f"{self.stem}user-")
        uid, token = self.backend.create_user_with_token(self.id, username, scopes=scopes,
                                                          restricted=restricted)
        client = self.server.client(token=token)
        self.clients.append(client)
        return uid, client

    def close(self):
        for c in self.clients:
            c.close()
