"""A private PostgreSQL cluster."""

import atexit
import contextlib
import os
import pwd
import shutil
import signal
import socket
import threading
from pathlib import Path

import psycopg2

from .base import *  # noqa: F401,F403


def ensure_system_user(name):
    try:
        pwd.getpwnam(name)
    except KeyError:
        run(["useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
             "--shell", "/usr/sbin/nologin", name])


# initdb costs 1.6 CPU-seconds on this project's machines (a copy of its
# output 0.13), and a run of the suite makes a dozen clusters: the
# backends, and those of the tests that stop, kill or fail over a
# PostgreSQL of their own.  With the same options its output is the same,
# so it runs once, and each cluster starts from a copy.  scripts/test makes
# the one template of its five parts while configure leaves a core idle
# (make_initdb_template), names it in INITDB_TEMPLATE_ENV and removes it
# when it ends; a pytest started without it makes its own on first use.
# The template lives in memory (TMP_ROOT): left behind, each run would keep
# 40 MB of the machine's memory.
INITDB_TEMPLATE_ENV = "ACCTAPI_E2E_INITDB"
_initdb = {"data": None, "lock": threading.Lock()}


def postmaster_pid(data):
    """The postmaster's pid, from the first line of the cluster's
    postmaster.pid (data: the cluster's data directory); None when the file
    names none."""
    try:
        return int((Path(data) / "postmaster.pid").read_text().split()[0])
    except (OSError, IndexError, ValueError):
        return None


def kill_postmaster(data, timeout=10):
    """PostgreSQL's immediate shutdown (SIGQUIT: the postmaster ends its
    backends, then exits) of the cluster in `data`, for a cluster whose
    owner could not stop it; a postmaster still there after `timeout`
    seconds has its session killed (pg_ctl starts it as a session's
    leader)."""
    pid = postmaster_pid(data)
    if pid is None or not pid_alive(pid):
        return
    try:
        os.kill(pid, signal.SIGQUIT)
        wait_for(lambda: not pid_alive(pid), timeout, what="the postmaster to exit")
    except ProcessLookupError:
        pass
    except HarnessError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)


def make_initdb_template():
    """A new initdb's home directory under TMP_ROOT (the data directory is
    its pg/data, owned by the server's user, as a cluster's is); whoever
    asked removes it."""
    home = make_tmpdir("acctapi-initdb-")
    try:
        t = PgCluster(home)
        t.make_dirs()
        t._pg([PGBIN / "initdb", "-D", t.data, "-U", "postgres", "--auth=trust",
               "--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions"],
              timeout=120)
    except BaseException:
        shutil.rmtree(home, ignore_errors=True)
        raise
    return home


def initdb_template():
    """The data directory every cluster of this process copies: the one
    INITDB_TEMPLATE_ENV names (a make_initdb_template home), or this
    process's own, made on first use and removed when the process ends."""
    with _initdb["lock"]:
        if _initdb["data"] is None:
            shared = os.environ.get(INITDB_TEMPLATE_ENV)
            if shared:
                data = PgCluster(shared).data
                if not (data / "PG_VERSION").is_file():
                    raise HarnessError(f"{INITDB_TEMPLATE_ENV}={shared}: no initdb there "
                                       f"({data / 'PG_VERSION'} is missing)")
            else:
                home = make_initdb_template()
                atexit.register(shutil.rmtree, home, ignore_errors=True)
                data = PgCluster(home).data
            _initdb["data"] = data
        return _initdb["data"]


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
        # Counts the server's starts, stops and restarts: a session opened
        # before the last one is gone (harness.Backend's own session).
        self.generation = 0

    def _as_owner(self, cmd):
        cmd = [str(c) for c in cmd]
        if IS_ROOT:
            return ["runuser", "-u", PG_SYSTEM_USER, "--"] + cmd
        return cmd

    def _pg(self, args, timeout=60, check=True):
        return run(self._as_owner(args), timeout=timeout, check=check, cwd=str(self.dir))

    def make_dirs(self):
        """The cluster's directory and socket directory, owned by the
        server's user (before initdb, or pg_basebackup for a standby)."""
        self.dir.mkdir(parents=True)
        self.sock.mkdir()
        if IS_ROOT:
            ensure_system_user(PG_SYSTEM_USER)
            shutil.chown(self.dir, PG_SYSTEM_USER, PG_SYSTEM_USER)
            shutil.chown(self.sock, PG_SYSTEM_USER, PG_SYSTEM_USER)
        self.dir.chmod(0o755)

    def connect(self, db="acctapi", **kw):
        """A psycopg2 session as postgres on `db`, autocommit (each statement
        its own transaction, or the one its text opens)."""
        con = psycopg2.connect(host="127.0.0.1", port=self.port, user="postgres",
                               dbname=db, client_encoding="UTF8", **kw)
        con.autocommit = True
        return con

    def init(self):
        """A new cluster: a copy of this process's one initdb (see
        initdb_template)."""
        self.make_dirs()
        run(["cp", "-a", str(initdb_template()), str(self.data)])

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
        self.generation += 1

    def stop(self, mode="fast"):
        if self.started:
            self._pg([PGBIN / "pg_ctl", "-D", self.data, "-m", mode, "-w", "-t", "60", "stop"],
                     timeout=90, check=False)
            self.started = False
            self.generation += 1

    def restart(self):
        self._pg([PGBIN / "pg_ctl", "-D", self.data, "-l", self.log, "-m", "fast", "-w", "-t", "60",
                  "restart"],
                 timeout=90)
        self.started = True
        self.generation += 1

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
