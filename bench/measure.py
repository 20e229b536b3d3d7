"""Measuring for bench/run: wrk runs and their figures; the resident memory
of httpd's children and the CPU time of the server side, sampled while they
run."""

import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import harness  # tests/e2e, on the path bench/run gives its modules

LUA = Path(__file__).resolve().parent / "lua"
WRK = os.environ.get("BENCH_WRK", "wrk")

_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0, "h": 3600000.0}


class WrkError(Exception):
    pass


def _ms(text):
    m = re.fullmatch(r"([0-9.]+)(us|ms|s|m|h)", text)
    if not m:
        raise WrkError(f"unreadable latency {text!r}")
    return float(m.group(1)) * _UNITS[m.group(2)]


def parse(out):
    """The figures of wrk's --latency output: requests, seconds, req/s,
    p50/p90/p99 in ms, non-2xx responses and socket errors."""
    fig = {}
    m = re.search(r"^\s*([0-9]+) requests in ([0-9.]+)(us|ms|s|m|h)", out, re.M)
    rps = re.search(r"^Requests/sec:\s*([0-9.]+)", out, re.M)
    if not m or not rps:
        raise WrkError(f"no figures in wrk's output:\n{out}")
    fig["requests"] = int(m.group(1))
    fig["seconds"] = _ms(m.group(2) + m.group(3)) / 1000.0
    fig["rps"] = float(rps.group(1))
    for pct in ("50", "90", "99"):
        p = re.search(rf"^\s*{pct}(?:\.0+)?%\s+([0-9.]+(?:us|ms|s|m|h))", out, re.M)
        fig[f"p{pct}"] = _ms(p.group(1)) if p else None
    non2xx = re.search(r"Non-2xx or 3xx responses:\s*([0-9]+)", out)
    fig["non2xx"] = int(non2xx.group(1)) if non2xx else 0
    sock = re.search(r"Socket errors: connect ([0-9]+), read ([0-9]+), write ([0-9]+),"
                     r" timeout ([0-9]+)", out)
    fig["socket_errors"] = sum(int(x) for x in sock.groups()) if sock else 0
    return fig


THREAD_DONE = "bench: thread done"


def wrk(url, *, seconds, threads, connections, headers=(), script=None, args=(),
        timeout_s=10, counted=False):
    """Runs wrk over keep-alive connections and returns its figures.
    counted: the script stops its threads after a count of responses
    (common.stop_after); wrk is then interrupted as soon as all of them
    have, instead of sleeping out `seconds`."""
    cmd = [WRK, f"-t{threads}", f"-c{connections}", f"-d{int(seconds)}s",
           f"--timeout={timeout_s}s", "--latency"]
    for h in headers:
        cmd += ["-H", h]
    if script:
        cmd += ["-s", str(LUA / script)]
    cmd.append(url)
    if args:
        cmd += ["--"] + [str(a) for a in args]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as p:
        try:
            err = []
            if counted:
                done = 0
                for line in p.stderr:
                    if line.strip() == THREAD_DONE:
                        done += 1
                        if done == threads:
                            p.send_signal(signal.SIGINT)
                    else:
                        err.append(line)
            out, rest = p.communicate(timeout=seconds + 60)
        except BaseException:
            p.kill()
            raise
    if p.returncode != 0:
        raise WrkError(f"wrk exit {p.returncode}: {' '.join(cmd)}\n{out}{''.join(err)}{rest}")
    return parse(out)


# --------------------------------------------------------------------------
# Memory of httpd's children
# --------------------------------------------------------------------------

def rss_kb(pid):
    """VmRSS of `pid` in kB, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def snapshot(parent):
    """{child pid: VmRSS kB} now."""
    out = {}
    for c in harness.children_of(parent):
        v = rss_kb(c)
        if v is not None:
            out[c] = v
    return out


def cpu_ticks(pid):
    """utime + stime of `pid` in clock ticks, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, ValueError, IndexError):
        return None


class ProcSampler:
    """While in use, samples every `interval` seconds the children of
    `parent` (httpd) and of `db_parent` (the PostgreSQL postmaster, when
    there is one), and the `pooler` process (PgBouncer, when there is one
    between them): peak_kb is the largest VmRSS of a single httpd child,
    peak_total_kb the largest sum; cpu_seconds() the CPU time the server side
    (httpd's children, the pooler and the database's backends) spent
    meanwhile, which
    the other users of a shared machine disturb far less than throughput."""

    TICK = os.sysconf("SC_CLK_TCK")

    # How often the database's connections are looked at (their process
    # titles): a request holds one for a millisecond or so.
    TITLE_INTERVAL = 0.02

    def __init__(self, parent, db_parent=None, interval=0.2, pooler=None, db_user=None):
        self.parent = parent
        self.db_parent = db_parent
        self.pooler = pooler             # PgBouncer's pid, between the two
        # The module's role: its connections are counted, open and busy.
        self.db_user = db_user
        self.open_max = 0
        self.busy_max = 0
        self._busy_sum = 0
        self._title_samples = 0
        self._titles = threading.Thread(target=self._run_titles, daemon=True)
        self.interval = interval
        self.peak_kb = 0
        self.peak_total_kb = 0
        self._base = {}
        self._last = {}
        self._db_pids = set()
        self._kind = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _server_pids(self):
        pids = harness.children_of(self.parent)
        if self.db_parent:
            db = [p for p in harness.children_of(self.db_parent) if self._is_client_backend(p)]
            self._db_pids.update(db)
            pids += db
        if self.pooler:
            pids.append(self.pooler)
        return pids

    def _is_client_backend(self, pid):
        """A backend serving a connection ("postgres: USER DB HOST ..."), not
        the checkpointer, WAL writer or autovacuum, whose work is not tied to
        the requests being measured."""
        if pid not in self._kind:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    title = f.read().split(b"\0")[0].decode("utf-8", "replace")
            except OSError:
                return False
            words = title.split()
            self._kind[pid] = (len(words) >= 4 and words[0] == "postgres:"
                               and words[3][:1].isdigit())
        return self._kind[pid]

    def _sample(self):
        snap = snapshot(self.parent)
        if snap:
            self.peak_kb = max(self.peak_kb, max(snap.values()))
            self.peak_total_kb = max(self.peak_total_kb, sum(snap.values()))
        for pid in self._server_pids():
            t = cpu_ticks(pid)
            if t is not None:
                self._last[pid] = t

    def _run(self):
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.interval)

    def _sample_titles(self):
        """PostgreSQL shows each backend's state in its process title
        ("postgres: USER DB HOST(PORT) idle", "... SELECT", "... idle in
        transaction"): every connection of the module's role that is not
        idle has a statement running or a transaction open at this instant."""
        open_, busy = 0, 0
        for pid in harness.children_of(self.db_parent):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    title = f.read().split(b"\0")[0].decode("utf-8", "replace")
            except OSError:
                continue
            words = title.split()
            if len(words) < 5 or words[0] != "postgres:" or words[1] != self.db_user:
                continue
            open_ += 1
            busy += words[4:] != ["idle"]
        self.open_max = max(self.open_max, open_)
        self.busy_max = max(self.busy_max, busy)
        self._busy_sum += busy
        self._title_samples += 1

    def _run_titles(self):
        while not self._stop.is_set():
            self._sample_titles()
            self._stop.wait(self.TITLE_INTERVAL)

    def busy_mean(self):
        """The mean number of the module's connections PostgreSQL was
        working on at once."""
        return self._busy_sum / self._title_samples if self._title_samples else None

    def cpu_seconds(self, which=None):
        """CPU seconds of the server side; which: "httpd", "db" or "pooler"
        only."""
        def side(pid):
            if pid == self.pooler:
                return "pooler"
            return "db" if pid in self._db_pids else "httpd"

        def wanted(pid):
            return which is None or side(pid) == which
        # A process born during the run counts from zero.
        return sum(t - self._base.get(pid, 0) for pid, t in self._last.items()
                   if wanted(pid)) / self.TICK

    def __enter__(self):
        for pid in self._server_pids():
            t = cpu_ticks(pid)
            if t is not None:
                self._base[pid] = t
        self._thread.start()
        if self.db_parent and self.db_user:
            self._titles.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        if self._titles.is_alive():
            self._titles.join()
        self._sample()
        return False


def settle(seconds=0.5):
    """A pause between runs: connections closed, children idle."""
    time.sleep(seconds)
