"""httpd started from scripts/httpd-conf with the module of the build tree, and its error log."""

import collections
import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import time
import warnings
import weakref
from pathlib import Path

import requests

from .base import *  # noqa: F401,F403
from .client import *  # noqa: F401,F403


SERVERS = []   # every server started in this session, for the log checks
# The suite makes thousands of requests a minute with one token: its servers
# count every request (the counters run on every test) against budgets no
# test reaches; test_rate_limits.py starts servers with real ones.
E2E_RATE_LIMIT = "1000000 1000000"
# Likewise the suite's users accumulate far more than the module's default of
# 100 active tokens (every test mints its own): AcctapiMaxTokensPerUser at a
# cap no test reaches; the tests of the cap start servers with small ones.
E2E_MAX_TOKENS = 1000000
# The size of the servers a test starts for a setting of its own (the
# make_server fixture, and harness.serving(..., **SMALL_SERVER)): two
# children of 50 threads, each making one database connection at start and
# up to 4 on the way of the requests that need them.  A server start costs
# about 0.6 ms of CPU a thread (its start and exit) and 50 ms a PostgreSQL
# connection (a server process's start and end) on this project's machines,
# and the suite starts about a hundred such servers a backend: on
# PostgreSQL a server of the generated size (200 threads and 16 connections
# made at start a child) costs 1.9 CPU-seconds to start and stop, one of
# 200 threads and 4 connections 0.86, one of this size 0.41.  The tests of
# load, faults and floods, and the shared servers, run the generated size
# (make_server(size=None)).
SMALL_SERVER = {"threads": 50, "dbd_min": 1, "dbd_max": 4}


class Httpd:
    def __init__(self, backend, base, *, tls=None, max_body=None, extra=None,
                 test_clock="On", dbd_max=None, dbd_min=None, threads=None, name="httpd",
                 rate_limit=E2E_RATE_LIMIT, status=None, max_tokens=E2E_MAX_TOKENS):
        self.backend = backend
        self.root = make_tmpdir(f"{Path(base)}/{name}-") if base else make_tmpdir(f"acctapi-{name}-")
        self.port = free_port()
        self.tls = tls                   # (cert, key) or None
        self.max_body = max_body
        self.extra = extra               # text appended to the configuration
        self.test_clock = test_clock
        self.dbd_max = dbd_max           # None: the generated configuration's
        self.dbd_min = dbd_min           # None: dbd_max
        self.threads = threads           # threads a child; None: the generated 200
        self.rate_limit = rate_limit     # AcctapiRateLimit, or None: the module's
        self.status = status             # path of the module's counters, or None
        self.max_tokens = max_tokens     # AcctapiMaxTokensPerUser, or None: the module's
        self.conf = self.root / "httpd.conf"
        self.error_log = self.root / "error.log"
        self.pid_file = self.root / "httpd.pid"
        self.proc = None                 # the -X httpd of a sanitizer run
        self.checked = 0                 # error-log offset already scanned
        self.stopped = False             # stop() saw every process of it gone
        self.log_final = False           # scanned whole since it stopped
        self.pid = None
        self.clients = weakref.WeakSet()  # client() made: closed on stop()
        scheme = "https" if tls else "http"
        self.url = f"{scheme}://127.0.0.1:{self.port}"
        self.base_url = self.url + "/v4"

    def write_conf(self):
        args = [HTTPD_CONF, "--root", self.root, "--port", self.port, "--module", MODULE,
                "--db-driver", self.backend.driver, "--db-params", self.backend.server_params,
                "--test-clock", self.test_clock]
        if self.rate_limit is not None:
            args += ["--rate-limit", self.rate_limit]
        if self.tls:
            args += ["--tls-cert", self.tls[0], "--tls-key", self.tls[1]]
        if self.max_body is not None:
            args += ["--max-body", self.max_body]
        if self.dbd_max is not None:
            args += ["--dbd-max", self.dbd_max]
        if self.dbd_min is not None:
            args += ["--dbd-min", self.dbd_min]
        if self.threads is not None and not SANITIZE:
            # (httpd -X: one process, with the threads set below.)
            args += ["--threads", self.threads]
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
        if not SANITIZE:
            # A child that crashes leaves a core here; scan_log prints its
            # threads' stacks with the crash line.  First, so that a test's
            # own extra text may set it again.
            cores = self.root / "cores"
            cores.mkdir(exist_ok=True)
            if IS_ROOT:
                shutil.chown(cores, HTTPD_USER, HTTPD_USER)
            extra_text = f'CoreDumpDirectory "{cores}"\n' + extra_text
        if self.backend.pooled:
            # PgBouncer in transaction mode keeps no prepared statement.
            extra_text = "AcctapiPreparedStatements Off\n" + extra_text
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
        self.stopped = self.log_final = False
        if self not in SERVERS:          # a restarted server is there already
            SERVERS.append(self)
        if SANITIZE:
            # -X does not detach: it is this process's child until stopped.
            self.console = open(self.root / "console.log", "ab")
            reports = self.root / "sanitizer"
            reports.mkdir(exist_ok=True)
            if IS_ROOT:
                # -X serves as the configured user too: the reports it
                # writes at run time are written as that user.
                shutil.chown(reports, HTTPD_USER, HTTPD_USER)
            self.proc = subprocess.Popen([HTTPD, "-X", "-f", str(self.conf)],
                                         stdout=self.console, stderr=subprocess.STDOUT,
                                         env=sanitizer_env(reports),
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
            time.sleep(0.01)
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
        # The connections of this process's clients, idle or soon to be:
        # httpd's graceful stop would wait out their lingering close (2 s
        # each).  The clients stay usable should the server start again.
        for c in list(self.clients):
            c.close()
        proc = self.proc
        if proc:
            # httpd -X knows no graceful stop: SIGTERM (what "-k stop" sends;
            # an uninstrumented apache2 cannot load the instrumented module
            # to read the configuration) closes, from the main thread, the
            # sockets its workers are serving, which reads freed memory
            # when a worker is just closing one (httpd's race: a SEGV in
            # apr_os_sock_get under AddressSanitizer).  The connections the
            # clients just closed or reset are first let go by the server
            # (held_connections: by the server's own sockets, since a reset
            # one leaves the kernel's tables before httpd closes it), and
            # its threads are then all asleep twice in a row: a worker that
            # has closed a connection's socket still names it until it has
            # recycled the connection's pool and gone back to wait for
            # work, and SIGTERM in between is the race.  A test's own
            # connection still open (a slow client) bounds the wait.
            quiet = [0]

            def settled():
                if held_connections(self.pid, self.port) or not threads_asleep(self.pid):
                    quiet[0] = 0
                    return False
                quiet[0] += 1
                return quiet[0] >= 2
            with contextlib.suppress(HarnessError):
                wait_for(settled, 5, 0.02,
                         what="the server to close its connections and its workers to rest")
            os.kill(self.pid, signal.SIGTERM)
        else:
            # Graceful: "-k stop" (SIGTERM) makes httpd's event MPM close the
            # sockets its workers are serving from the main thread while
            # they finish and free them, which crashes a child now and then
            # when many connections end at once (httpd's race, not the
            # module's).  GracefulShutdownTimeout bounds the wait.  SIGWINCH
            # is what "-k graceful-stop" sends the parent, without a process
            # that loads every module and reads the configuration to send
            # it (60 ms of CPU here, and the suite stops hundreds).
            try:
                os.kill(self.pid, signal.SIGWINCH)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + timeout
        nudged = 0.0
        # httpd -X exits without removing its pid file (only a parent does).
        while (proc.poll() is None if proc else pid_alive(self.pid) or self.pid_file.exists()):
            if time.monotonic() >= deadline:
                if pid_alive(self.pid):
                    # Its children first: killed alone, the parent would
                    # leave them to init, each holding its threads and the
                    # listening socket until the machine restarts.
                    for child in children_of(self.pid):
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(child, signal.SIGKILL)
                    os.kill(self.pid, signal.SIGKILL)
                raise HarnessError(f"httpd (pid {self.pid}) did not stop within {timeout}s")
            if (not proc and time.monotonic() - nudged >= 0.2
                    and not self.pid_file.exists() and self._children_gone()):
                # Every child has served its connections and exited: the
                # graceful stop is done but for the parent, which notices
                # only after a whole second's sleep (event MPM).  SIGTERM
                # wakes it: it reaps the children as it would have (logging
                # a crashed child's status) and exits.  No worker is left for
                # SIGTERM's closing of sockets to race with.  Sent again
                # should it land before the parent starts its wait (which
                # clears a pending stop); then the wait ends as before.
                nudged = time.monotonic()
                try:
                    os.kill(self.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            time.sleep(0.02)
        if proc:
            self.proc = None
            self.console.close()
            self.pid_file.unlink(missing_ok=True)
        self.pid = None
        # The parent exits after its children (a graceful stop waits for
        # them, then kills what is left): nothing of it writes any more.
        self.stopped = True

    def _children_gone(self):
        """True when the parent has no live child process (exited ones wait
        as zombies for the parent to reap them)."""
        return not any(pid_alive(p) for p in children_of(self.pid))

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
        if self.log_final:
            # Nothing of a stopped server writes any more, and this log was
            # read to its end after the stop: every test after that would
            # scan it again for nothing (the suite starts hundreds).
            return []
        final = self.stopped
        end = self.log_size()
        # Most tests log nothing: a stat, not an open and a read, tells.
        text = self.log_text(self.checked, end) if end != self.checked else ""
        self.checked = end
        bad = self.sanitizer_reports() if SANITIZE else []
        crashed = False
        for line in text.splitlines():
            if CRASH.search(line):
                bad.append(line)
                crashed = True
            elif (BAD_LEVEL.search(line) and not HTTPD_NOISE.search(line)
                  and not any(a.search(line) for a in allowed)):
                bad.append(line)
        if crashed:
            bad.extend(self.core_stacks())
        self.log_final = final
        return bad

    def core_stacks(self, max_lines=200):
        """The stacks of every thread of each core a crashed child left
        (gdb, where installed), so that a rare crash is diagnosed from the
        run that met it."""
        out = []
        for core in sorted((self.root / "cores").glob("core*")):
            if not shutil.which("gdb"):
                out.append(f"core {core} (install gdb for its stacks)")
                continue
            p = subprocess.run(["gdb", "-batch", "-nx", "-ex", "thread apply all bt 25",
                                HTTPD, str(core)], capture_output=True, text=True,
                               timeout=120, check=False)
            lines = [ln for ln in p.stdout.splitlines() if ln.startswith(("#", "Thread", "Program"))]
            out.append(f"core {core}:")
            out.extend(lines[:max_lines])
        return out

    def sanitizer_reports(self):
        """New AddressSanitizer/UBSan reports of this server (each once), and
        the console's sanitizer lines not read before (a report that could
        not be written to its file is printed there)."""
        seen = self.__dict__.setdefault("_reports_seen", set())
        out = []
        for path in sorted((self.root / "sanitizer").glob("report*")):
            if path in seen or not path.stat().st_size:
                continue
            seen.add(path)
            out.append(f"{path}:\n{path.read_text(errors='replace')[:4000]}")
        console = self.root / "console.log"
        if console.exists():
            with open(console, "rb") as f:
                f.seek(self.__dict__.get("_console_read", 0))
                text = f.read()
                self._console_read = f.tell()
            lines = text.decode("utf-8", "replace").splitlines()
            if any(SANITIZER_CONSOLE.search(ln) for ln in lines):
                out.append(f"{console}:\n" + "\n".join(lines[-80:]))
        return out

    def client(self, token=None, verify=None):
        c = Client(self.base_url, token=token, verify=verify)
        self.clients.add(c)
        return c


# TCP states in /proc/net/tcp: a connection the server has not closed yet
# (ESTABLISHED, and CLOSE_WAIT: the client closed, the server not yet), and
# a listening socket.
_OPEN_STATES = {"01", "08"}
_LISTEN = "0A"
# A client's connection whose SYN has no answer yet, and a server's
# half-open one (its SYN-ACK sent, the client's last ACK not yet taken).
_SYN_SENT = "02"
_SYN_RECV = "03"


_TcpSocket = collections.namedtuple(
    "_TcpSocket", "local_port remote_port state tx_queue rx_queue inode")


def _tcp_sockets():
    """A _TcpSocket for every IPv4 and IPv6 TCP socket the kernel lists.  A
    connection's tx_queue is the bytes it has sent that its peer has not
    acknowledged yet, its rx_queue those it has received that its process
    has not read; a listening socket's rx_queue is its accept queue
    (connections the kernel has completed and the server has not accepted
    yet)."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                next(f)
                for line in f:
                    fields = line.split()
                    tx_queue, rx_queue = (int(q, 16) for q in fields[4].split(":"))
                    yield _TcpSocket(int(fields[1].rsplit(":", 1)[1], 16),
                                     int(fields[2].rsplit(":", 1)[1], 16),
                                     fields[3], tx_queue, rx_queue, fields[9])
        except FileNotFoundError:
            continue


# The kernel's other socket tables, and the column of each that holds the
# inode.
_OTHER_SOCKET_TABLES = (("udp", 9), ("udp6", 9), ("raw", 9), ("raw6", 9),
                        ("unix", 6), ("netlink", 9))


def _listed_sockets():
    """inode -> (local port, state) of every socket the kernel lists (port
    and state None outside TCP)."""
    listed = {t.inode: (t.local_port, t.state) for t in _tcp_sockets()}
    for table, column in _OTHER_SOCKET_TABLES:
        try:
            with open(f"/proc/net/{table}") as f:
                next(f)
                for line in f:
                    fields = line.split()
                    if len(fields) > column:
                        listed[fields[column]] = (None, None)
        except FileNotFoundError:
            continue
    return listed


def held_connections(pid, port):
    """Client connections that process `pid`, serving `port`, has not
    finished with: those still queued or open on the port, and the sockets
    it holds that the kernel no longer lists.  A client that closes with
    unread data (a TLS client that never read the server's session tickets)
    resets its connection, and the server's side of it leaves the kernel's
    tables at once, while the server has yet to notice and close it."""
    listed = _listed_sockets()
    held = sum(1 for p, state in listed.values()
               if p == port and state in _OPEN_STATES)
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return held
    for fd in fds:
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:[") and target[8:-1] not in listed:
            held += 1
    return held


def threads_asleep(pid):
    """True when every thread of process `pid` sleeps (state S: blocked
    waiting for work, for events or for a signal); False while one runs or
    waits to run, or when /proc cannot tell."""
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for tid in tids:
        fields = proc_stat(f"/proc/{pid}/task/{tid}/stat")
        if fields is not None and fields[0] != "S":   # None: it has just exited
            return False
    return bool(tids)


def connections_in_flight(port):
    """Connections to the local listener on `port` that the kernel has not
    yet handed to it whole: in its accept queue, half-open on the server's
    side, or whose client still waits for its SYN or its data to be
    acknowledged.  Past a full accept queue the kernel drops a connection's
    last ACK (the client believes it open and sends) or answers its SYN
    with a cookie and keeps nothing; either comes in later, on a
    retransmission, so an empty accept queue alone does not mean the
    listener has accepted every client that has sent."""
    count = 0
    for t in _tcp_sockets():
        if t.local_port == port and t.state == _LISTEN:
            count += t.rx_queue
        elif t.local_port == port and t.state == _SYN_RECV:
            count += 1
        elif t.remote_port == port and (t.state == _SYN_SENT or t.tx_queue > 0):
            count += 1
    return count


@contextlib.contextmanager
def serving(backend, **opts):
    """A server of `backend` (Httpd's options) for the length of a
    with-block, which is how a module- or session-scoped fixture shares one
    among its tests: started on entry; on exit stopped, and its error log
    checked for what was logged since the last test's scan."""
    srv = Httpd(backend, backend.base, **opts)
    try:
        srv.start()
        yield srv
    finally:
        srv.stop_and_check()
