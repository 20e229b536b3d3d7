"""A private PgBouncer in front of a private PostgreSQL cluster.

Debian's PgBouncer (1.18 on Debian 12) in pool_mode = transaction: each
transaction of a client runs on whichever of `pool_size` server connections
is free, and no prepared statement follows a client from one to the next.
The module's servers reach the database through it (with
AcctapiPreparedStatements Off); the harness's own acctapi-admin connects to
PostgreSQL directly, as docs/deployment.md tells operators to run migrate.
"""

import shutil
import subprocess
import time
from pathlib import Path

import psycopg2

from .base import *  # noqa: F401,F403

PGBOUNCER = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"


class PgBouncer:
    def __init__(self, base, cluster, dbname, user, *, pool_size=4):
        self.dir = Path(base) / "pgbouncer"
        self.cluster = cluster
        self.dbname = dbname
        self.user = user
        self.pool_size = pool_size
        self.port = None
        self.proc = None
        self.ini = self.dir / "pgbouncer.ini"
        self.log = self.dir / "pgbouncer.log"

    def start(self):
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        # trust: the cluster behind it trusts loopback too; a user must
        # still be listed in auth_file.
        (self.dir / "userlist.txt").write_text(f'"{self.user}" ""\n"pgbouncer" ""\n')
        self.ini.write_text(
            "[databases]\n"
            f"{self.dbname} = host=127.0.0.1 port={self.cluster.port} dbname={self.dbname}\n"
            "[pgbouncer]\n"
            f"listen_addr = 127.0.0.1\nlisten_port = {self.port}\n"
            "unix_socket_dir =\n"
            f"auth_type = trust\nauth_file = {self.dir / 'userlist.txt'}\n"
            "pool_mode = transaction\n"
            # Its console (SHOW SERVERS, SHOW CLIENTS) for the tests.
            "admin_users = pgbouncer\n"
            f"default_pool_size = {self.pool_size}\nmax_client_conn = 2000\n"
            f"logfile = {self.log}\npidfile = {self.dir / 'pgbouncer.pid'}\n"
            # A server connection idle this long is closed; tests that stop
            # the cluster find none left behind for long.
            "server_idle_timeout = 30\n")
        if IS_ROOT:
            shutil.chown(self.dir, PG_SYSTEM_USER, PG_SYSTEM_USER)
            for f in self.dir.iterdir():
                shutil.chown(f, PG_SYSTEM_USER, PG_SYSTEM_USER)
        cmd = [PGBOUNCER, str(self.ini)]
        if IS_ROOT:
            # PgBouncer refuses to run as root.
            cmd = ["runuser", "-u", PG_SYSTEM_USER, "--"] + cmd
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 20
        while not port_open(self.port):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise HarnessError("pgbouncer did not start:\n" + self.log_text())
            time.sleep(0.02)

    def params(self):
        """libpq parameters of the database through PgBouncer (no
        `options`: PgBouncer refuses startup parameters it does not know)."""
        return (f"host=127.0.0.1 port={self.port} dbname={self.dbname} user={self.user} "
                "connect_timeout=3")

    def show(self, what):
        """Rows of the console's SHOW `what` as dicts (its own columns)."""
        con = psycopg2.connect(host="127.0.0.1", port=self.port, user="pgbouncer",
                               dbname="pgbouncer")
        try:
            con.autocommit = True
            with con.cursor() as cur:
                cur.execute(f"SHOW {what}")
                names = [d[0] for d in cur.description]
                return [dict(zip(names, row)) for row in cur.fetchall()]
        finally:
            con.close()

    def pid(self):
        """The running PgBouncer's process id (its pid file), or None."""
        try:
            return int((self.dir / "pgbouncer.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def log_text(self):
        try:
            return self.log.read_text(errors="replace")[-3000:]
        except FileNotFoundError:
            return ""

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=20)
        self.proc = None
