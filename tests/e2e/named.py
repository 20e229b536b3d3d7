"""A private BIND `named` for the DNS interop tests.

Each Named runs in its own directory on free loopback ports (DNS over UDP and
TCP, plus an rndc control channel with its own key), in the foreground as a
child of the test process, and is stopped by the test that started it.

    ns = Named(tmpdir, "primary")
    ns.add_zone("example.test", zone_text, allow_transfer="any")
    ns.start()
    ns.dig("www.example.test", "A")          # -> ["192.0.2.1"]
    ns.rndc("reload", "example.test")
    ns.stop()

`extra_options` and `extra_conf` add text to the options block and to the end
of named.conf (to include a file the module publishes, say).

The tests ask named the same questions hundreds of times a run (polling until
a change is served), and a dig process costs about 40 ms of CPU: dig() and
dig_full() ask from this process (dnsquery.py), which prints the answers as
dig prints them.  dig itself still makes zone transfers, and asks what
dnsquery does not print as dig does (other types, options, names).
"""

import base64
import os
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest

import dnsquery
from harness import HarnessError, free_port, make_tmpdir, run, wait_for, IS_ROOT

NAMED = shutil.which("named") or "/usr/sbin/named"
RNDC = shutil.which("rndc") or "/usr/sbin/rndc"
DIG = shutil.which("dig") or "/usr/bin/dig"
NAMED_CHECKZONE = shutil.which("named-checkzone") or "/usr/bin/named-checkzone"
NAMED_CHECKCONF = shutil.which("named-checkconf") or "/usr/bin/named-checkconf"
# named drops to this user when started as root; its files must be readable.
NAMED_USER = "bind"


def published_zone_problem(origin, lines):
    """named-checkzone on the master-file `lines` of zone `origin`, as named
    loads a zone the module publishes (check-names ignore, as zones.conf
    says): None when it loads, else what named-checkzone said.  Fails the
    test without named-checkzone (scripts/deps --test installs it)."""
    if not os.access(NAMED_CHECKZONE, os.X_OK):
        pytest.fail(f"{NAMED_CHECKZONE} is not installed (scripts/deps --test installs it)",
                    pytrace=False)
    with tempfile.NamedTemporaryFile("w", suffix=".zone", delete=False) as f:
        f.write("\n".join(lines) + "\n")
    try:
        p = subprocess.run([NAMED_CHECKZONE, "-k", "ignore", origin, f.name],
                           capture_output=True, text=True, timeout=60)
    finally:
        os.unlink(f.name)
    return None if p.returncode == 0 else (p.stdout + p.stderr).strip()


def published_zones_problems(zones):
    """published_zone_problem for many zones in one process: `zones` maps
    each origin to its master-file lines; returns {origin: what went wrong}
    for those that do not load.  One named-checkconf -z loads them all from
    a configuration that declares each as the module's zones.conf does
    (type master, check-names ignore): a process per zone costs more than
    the requests that made it when the cases are hundreds."""
    if not os.access(NAMED_CHECKCONF, os.X_OK):
        pytest.fail(f"{NAMED_CHECKCONF} is not installed (scripts/deps --test installs it)",
                    pytrace=False)
    if not zones:
        return {}
    with tempfile.TemporaryDirectory(prefix="acctapi-zones-") as d:
        files = {}
        conf = [f'options {{ directory "{d}"; }};']
        for i, (origin, lines) in enumerate(zones.items()):
            files[origin] = f"{i}.zone"
            Path(d, files[origin]).write_text("\n".join(lines) + "\n")
            conf.append(f'zone "{origin}" {{ type master; file "{files[origin]}"; '
                        'check-names ignore; };')
        Path(d, "named.conf").write_text("\n".join(conf) + "\n")
        p = subprocess.run([NAMED_CHECKCONF, "-z", str(Path(d, "named.conf"))],
                           capture_output=True, text=True, timeout=300)
    out = (p.stdout + p.stderr).splitlines()
    problems = {}
    for origin, name in files.items():
        said = [ln for ln in out if ln.startswith((f"zone {origin}/IN:", f"{name}:"))
                or f" {name}:" in ln or f"/{origin}/IN:" in ln]
        if f"zone {origin}/IN: loaded serial" not in "\n".join(said):
            problems[origin] = "\n".join(said) or "\n".join(out)
    if p.returncode != 0 and not problems:
        raise HarnessError(f"named-checkconf -z: exit {p.returncode}, no zone named:\n"
                           + "\n".join(out))
    return problems


class Named:
    def __init__(self, base, name="named", *, extra_options="", extra_conf=""):
        self.root = make_tmpdir(f"{Path(base)}/{name}-") if base else make_tmpdir(f"acctapi-{name}-")
        self.port = free_port()
        self.control_port = free_port()
        self.conf = self.root / "named.conf"
        self.rndc_conf = self.root / "rndc.conf"
        self.log = self.root / "named.log"
        self.zones = []                  # (name, text of the zone statement)
        self.extra_options = extra_options
        self.extra_conf = extra_conf
        self.proc = None
        self.key = base64.b64encode(secrets.token_bytes(32)).decode()

    # ---- configuration -------------------------------------------------

    def add_zone(self, name, text, *, allow_transfer="any", also=""):
        """A master zone `name` whose master file holds `text`.
        allow_transfer: an address match list body ("any", "none",
        "127.0.0.1;"), or None to leave BIND's default."""
        path = self.root / f"{name}.zone"
        path.write_text(text)
        at = f"allow-transfer {{ {allow_transfer.rstrip(';')}; }};" if allow_transfer else ""
        self.zones.append((name, f'zone "{name}" {{ type master; file "{path}"; {at} {also} }};'))
        return path

    def add_raw_zone(self, statement):
        """A zone statement as given (a slave or forward zone, say)."""
        self.zones.append((None, statement))

    def write_conf(self):
        key = f'key "rndc-key" {{ algorithm hmac-sha256; secret "{self.key}"; }};'
        zones = "\n".join(z for _, z in self.zones)
        self.conf.write_text(f"""{key}
controls {{ inet 127.0.0.1 port {self.control_port} allow {{ 127.0.0.1; }} keys {{ "rndc-key"; }}; }};
options {{
    directory "{self.root}";
    pid-file "{self.root}/named.pid";
    session-keyfile "{self.root}/session.key";
    managed-keys-directory "{self.root}";
    listen-on port {self.port} {{ 127.0.0.1; }};
    listen-on-v6 {{ none; }};
    recursion no;
    dnssec-validation no;
    notify no;
    {self.extra_options}
}};
{zones}
{self.extra_conf}
""")
        self.rndc_conf.write_text(f"""{key}
options {{ default-key "rndc-key"; default-server 127.0.0.1; default-port {self.control_port}; }};
""")
        if IS_ROOT:
            for p in [self.root, *self.root.iterdir()]:
                shutil.chown(p, NAMED_USER, NAMED_USER)

    # ---- process -------------------------------------------------------

    def start(self, timeout=20):
        self.write_conf()
        run(["named-checkconf", self.conf])
        cmd = [NAMED, "-g", "-c", str(self.conf)]
        if IS_ROOT:
            cmd += ["-u", NAMED_USER]
        self.log_file = open(self.log, "ab")
        self.proc = subprocess.Popen(cmd, stdout=self.log_file, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        try:
            wait_for(self._ready, timeout, interval=0.1, what=f"named on port {self.port}")
            # "running" is logged a moment before the zones answer over TCP
            # (SERVFAIL or a refused connection until then).
            for name in (n for n, _ in self.zones if n):
                wait_for(lambda n=name: self._serves(n), timeout, interval=0.1,
                         what=f"named serving {name}")
        except HarnessError:
            self.stop()
            raise HarnessError(f"named did not start:\n{self.log.read_text()[-3000:]}")
        return self

    def _serves(self, zone):
        """named answers NOERROR for `zone`'s SOA over TCP; False while it
        does not answer yet."""
        try:
            return "status: NOERROR" in self.dig_full(zone, "SOA", "+tcp")
        except HarnessError:
            return False

    def _ready(self):
        """named logged its last start-up line, "<date> <time> running" (not
        the "running on Linux", "running as:" of its first lines, logged
        before it listens)."""
        if self.proc.poll() is not None:
            raise HarnessError(f"named exited {self.proc.returncode}:\n"
                               f"{self.log.read_text()[-3000:]}")
        return re.search(rb"^\S+ \S+ running$", self.log.read_bytes(), re.M) is not None

    def stop(self, timeout=10):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout)
        if self.proc:
            self.log_file.close()
        self.proc = None

    # ---- clients -------------------------------------------------------

    @property
    def address(self):
        """The server as POST /domains/import's remote_nameserver names it."""
        return f"127.0.0.1:{self.port}"

    def rndc(self, *args, check=True):
        return run([RNDC, "-c", self.rndc_conf, *args], check=check, timeout=30)

    def _query(self, name, rtype, extra, printed):
        """What `dig +norecurse +time=2 +tries=1 name rtype *extra` prints,
        asked by dnsquery and printed by printed(answer) (Answer.short or
        Answer.text); None when only dig can ask or print it (an option
        other than +tcp, a zone transfer, a type or name dnsquery does not
        print as dig).  HarnessError when named does not answer, as run()
        raises when dig exits 9."""
        tcp = False
        for option in extra:            # the last of +tcp and +notcp counts
            if option not in ("+tcp", "+notcp"):
                return None
            tcp = option == "+tcp"
        try:
            return printed(dnsquery.query("127.0.0.1", self.port, name, rtype, tcp=tcp))
        except dnsquery.Unsupported:
            return None
        except dnsquery.NoAnswer as e:
            question = " ".join([name, rtype, *extra])
            raise HarnessError(f"no answer from named on port {self.port} to {question}:\n"
                               f"{e}") from None

    def dig(self, name, rtype="A", *extra):
        """The answer section's data as dig +short prints it, one string per
        record: [] for NXDOMAIN, REFUSED and the like; HarnessError when
        named does not answer.  Asked from this process (dnsquery): tests
        poll with it, and a dig process per poll costs ~40 ms of CPU.  dig
        itself asks what dnsquery cannot (see _query)."""
        lines = self._query(name, rtype, extra, dnsquery.Answer.short)
        if lines is not None:
            return lines
        p = run([DIG, "@127.0.0.1", "-p", self.port, "+short", "+norecurse",
                 "+time=2", "+tries=1", name, rtype, *extra], timeout=30)
        return [line for line in p.stdout.splitlines() if line.strip()]

    def dig_full(self, name, rtype="A", *extra):
        """dig's whole output, for status and flags (NXDOMAIN, aa): the
        header, flags and sections as dig prints them, from this process
        (dnsquery) like dig(); a zone transfer (AXFR: "Transfer failed." or
        the records) and what dnsquery cannot ask are dig's own output."""
        text = self._query(name, rtype, extra, dnsquery.Answer.text)
        if text is not None:
            return text
        return run([DIG, "@127.0.0.1", "-p", self.port, "+norecurse", "+time=2",
                    "+tries=1", name, rtype, *extra], timeout=30).stdout

    def wait_for_answer(self, name, rtype, expected, timeout=15):
        """Polls until dig answers `expected` (a sorted list), for changes that
        reach named through a reload."""
        want = sorted(expected)
        try:
            return wait_for(lambda: sorted(self.dig(name, rtype)) == want, timeout,
                            interval=0.2, what=f"{name} {rtype} = {want}")
        except HarnessError:
            raise HarnessError(f"{name} {rtype}: named answers {self.dig(name, rtype)}, "
                               f"expected {want}\n{self.log.read_text()[-3000:]}")
