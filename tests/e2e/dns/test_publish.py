"""Zone publishing (AcctapiZoneDir, AcctapiZoneReloadCommand) against a real
BIND named: the module writes DIR/<zone>.zone and DIR/zones.conf, named
includes zones.conf, and the reload command is named's rndc.  Every change
made through the API must be what `dig` answers afterwards; a slow or
failing reload command never delays or fails the request.

The directory is first filled with `acctapi-admin zones publish` (named
needs zones.conf to start), which also publishes the zones other tests left
in the shared database."""

import contextlib
import os
import re
import secrets
import shutil
import time
from pathlib import Path

import pytest

from harness import (HTTPD_USER, IS_ROOT, SMALL_SERVER, make_tmpdir, proc_stat, race, serving,
                     wait_for)
from named import RNDC, Named

DEFAULT_NS = ["ns1.example.com.", "ns2.example.com.", "ns3.example.com."]


# --------------------------------------------------------------------------
# Set-up
# --------------------------------------------------------------------------

def share(path):
    """httpd's children (www-data) write the directory; named (bind) reads it."""
    path = Path(path)
    path.chmod(0o755)
    if IS_ROOT:
        for p in [path, *path.iterdir()]:
            shutil.chown(p, HTTPD_USER, HTTPD_USER)


class Publishing:
    """A zone directory, a named that includes its zones.conf, and an httpd
    publishing into it (reload: named's rndc unless `reload` is given)."""

    def __init__(self, backend, start_server, reload=None, acl="none"):
        self.backend = backend
        self.dir = make_tmpdir(f"{backend.base}/zones-")
        out = backend.admin("zones", "publish", self.dir)
        assert re.fullmatch(r"\d+ master zones \(\d+ written\), \d+ slave zones, "
                            r"0 files removed, zones.conf written", out), out
        share(self.dir)
        self.ns = Named(backend.base, "named",
                        extra_conf=f'acl "acctapi-transfer" {{ {acl}; }};\n'
                                   f'include "{self.dir}/zones.conf";\n')
        self.ns.start(timeout=60)
        self.rndc = f"{RNDC} -c {self.ns.rndc_conf} reload"
        self.reload = self.rndc if reload is None else reload
        self.srv = start_server(extra='<Location "/v4">\n'
                                     f'    AcctapiZoneDir "{self.dir}"\n'
                                     f'    AcctapiZoneReloadCommand "{self.reload}"\n'
                                     "</Location>\n")
        self.api = self.srv.client(token=backend.token)

    def close(self):
        """Stops httpd, then named.  httpd's children run the reloads still
        queued (and their confirming runs) before they exit: named is still
        there for them."""
        self.api.close()
        try:
            self.srv.stop()
        finally:
            self.ns.stop()

    # ---- the API -------------------------------------------------------

    def name(self):
        return f"{self.backend.unique('pub')}-{secrets.token_hex(3)}.e2e-publish.example"

    def create(self, **fields):
        body = {"domain": self.name(), "type": "master"}
        if fields.get("type", "master") == "master":
            body["soa_email"] = f"hostmaster@{body['domain']}"
        body.update(fields)
        r = self.api.post("/domains", json=body)
        assert r.status == 200, r
        return r.json

    def record(self, did, **fields):
        r = self.api.post(f"/domains/{did}/records", json=fields)
        assert r.status == 200, r
        return r.json

    def update(self, did, **fields):
        r = self.api.put(f"/domains/{did}", json=fields)
        assert r.status == 200, r
        return r.json

    def zone_lines(self, did):
        r = self.api.get(f"/domains/{did}/zone-file")
        assert r.status == 200, r
        return r.json["zone_file"]

    # ---- what was published --------------------------------------------

    def file(self, name):
        return self.dir / f"{name.lower()}.zone"

    def include(self):
        return (self.dir / "zones.conf").read_text()

    def entry(self, name):
        """The zones.conf line of zone `name`, or None."""
        for line in self.include().splitlines():
            if line.startswith(f'zone "{name.lower()}" '):
                return line
        return None

    def assert_file_is_zone(self, did, name):
        assert self.file(name).read_text() == "\n".join(self.zone_lines(did)) + "\n"

    # ---- what named answers --------------------------------------------

    def served(self, name):
        out = self.ns.dig_full(name, "SOA")
        return "status: NOERROR" in out and " aa" in out.split("flags:")[1].split(";")[0]

    def refused(self, name):
        return "status: REFUSED" in self.ns.dig_full(name, "SOA")

    def wait_served(self, name, timeout=20):
        wait_for(lambda: self.served(name), timeout, 0.2, f"named to serve {name}")

    def wait_refused(self, name, timeout=20):
        wait_for(lambda: self.refused(name), timeout, 0.2, f"named to drop {name}")


@pytest.fixture(scope="module")
def pub(backend):
    """The publishing set-up that the tests of everyday changes share: each
    works on domains of its own, so none sees another's (the tests of the
    reload command, and the hidden primary, have set-ups of their own)."""
    with contextlib.ExitStack() as servers:
        def start_server(**opts):
            return servers.enter_context(
                serving(backend, name="httpd-publish", **SMALL_SERVER, **opts))
        p = Publishing(backend, start_server)
        try:
            yield p
        finally:
            p.close()


def httpd_zombies(srv):
    """Zombie processes whose parent is one of httpd's children."""
    stats = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            fields = proc_stat(f"/proc/{d}/stat")
            if fields:
                stats[int(d)] = (fields[0], int(fields[1]))   # state, ppid
    children = {pid for pid, (_, ppid) in stats.items() if ppid == srv.pid}
    return [pid for pid, (state, ppid) in stats.items()
            if ppid in children and state == "Z"]


# --------------------------------------------------------------------------
# Records reach named
# --------------------------------------------------------------------------

def test_every_record_type_is_served(pub):
    dom = pub.create()
    d, did = dom["domain"], dom["id"]
    pub.wait_served(d)
    pub.assert_file_is_zone(did, d)
    assert sorted(pub.ns.dig(d, "NS")) == DEFAULT_NS

    long_txt = "v=" + "x" * 300
    pub.record(did, type="A", name="www", target="192.0.2.10")
    pub.record(did, type="AAAA", name="www", target="2001:db8::10")
    pub.record(did, type="NS", name="", target="ns9.example.net")
    pub.record(did, type="MX", name="", target=f"mail.{d}", priority=10)
    pub.record(did, type="CNAME", name="alias", target=f"www.{d}")
    pub.record(did, type="TXT", name="txt", target=long_txt)
    pub.record(did, type="SRV", service="sip", protocol="tcp", target="sip",
               priority=10, weight=5, port=5060)
    pub.record(did, type="PTR", name="10", target=f"www.{d}")
    pub.record(did, type="CAA", name="", tag="issue", target="letsencrypt.org")

    ns = pub.ns
    ns.wait_for_answer(f"www.{d}", "A", ["192.0.2.10"])
    ns.wait_for_answer(f"www.{d}", "AAAA", ["2001:db8::10"])
    ns.wait_for_answer(d, "NS", DEFAULT_NS + ["ns9.example.net."])
    ns.wait_for_answer(d, "MX", [f"10 mail.{d}."])
    ns.wait_for_answer(f"alias.{d}", "CNAME", [f"www.{d}."])
    ns.wait_for_answer(f"txt.{d}", "TXT", [f'"{long_txt[:255]}" "{long_txt[255:]}"'])
    ns.wait_for_answer(f"_sip._tcp.{d}", "SRV", [f"10 5 5060 sip.{d}."])
    ns.wait_for_answer(f"10.{d}", "PTR", [f"www.{d}."])
    ns.wait_for_answer(d, "CAA", ['0 issue "letsencrypt.org"'])
    pub.assert_file_is_zone(did, d)


def test_names_with_underscores_are_served(pub):
    """What the public API accepts, named serves: linode_api4's fixture SRV
    (service_test, no protocol, bare target rc_test) and other underscored
    names, in a zone whose own name has one.  BIND's default check-names
    would refuse the whole zone; zones.conf turns it off per zone."""
    dom = pub.create(domain="_x." + pub.name())
    d, did = dom["domain"], dom["id"]
    pub.wait_served(d)
    assert "check-names ignore;" in pub.entry(d)
    pub.record(did, type="SRV", target="rc_test", priority=10, weight=5, port=80,
               service="service_test")
    pub.record(did, type="A", name="_a", target="192.0.2.11")
    pub.record(did, type="A", name="rc_test", target="192.0.2.12")
    pub.record(did, type="NS", name="_sub", target="ns_1.example.net")
    pub.record(did, type="CAA", name="caa_test", tag="issue", target="example.com")

    ns = pub.ns
    ns.wait_for_answer(f"_service_test._tcp.{d}", "SRV", [f"10 5 80 rc_test.{d}."])
    ns.wait_for_answer(f"_a.{d}", "A", ["192.0.2.11"])
    ns.wait_for_answer(f"rc_test.{d}", "A", ["192.0.2.12"])
    ns.wait_for_answer(f"caa_test.{d}", "CAA", ['0 issue "example.com"'])
    assert f"_sub.{d}. IN NS ns_1.example.net." in pub.zone_lines(did)
    pub.assert_file_is_zone(did, d)


def test_record_change_and_delete(pub):
    dom = pub.create()
    d, did = dom["domain"], dom["id"]
    pub.wait_served(d)
    rec = pub.record(did, type="A", name="host", target="192.0.2.20")
    pub.ns.wait_for_answer(f"host.{d}", "A", ["192.0.2.20"])

    r = pub.api.put(f"/domains/{did}/records/{rec['id']}", json={"target": "192.0.2.21"})
    assert r.status == 200, r
    pub.ns.wait_for_answer(f"host.{d}", "A", ["192.0.2.21"])
    serial = int(pub.ns.dig(d, "SOA")[0].split()[2])
    assert serial == int(pub.zone_lines(did)[2].split()[5])

    r = pub.api.delete(f"/domains/{did}/records/{rec['id']}")
    assert r.status == 200, r
    pub.ns.wait_for_answer(f"host.{d}", "A", [])
    assert "status: NXDOMAIN" in pub.ns.dig_full(f"host.{d}", "A")
    pub.assert_file_is_zone(did, d)


def test_domain_settings_change_the_soa(pub):
    dom = pub.create()
    d, did = dom["domain"], dom["id"]
    pub.wait_served(d)
    pub.update(did, soa_email=f"dns@{d}", refresh_sec=3600, ttl_sec=300)
    wait_for(lambda: pub.ns.dig(d, "SOA")[0].split()[1:2] == [f"dns.{d}."], 15, 0.2,
             "the new SOA")
    soa = pub.ns.dig(d, "SOA")[0].split()
    assert soa[3] == "3600" and soa[6] == "300", soa


def test_concurrent_changes_all_published(pub):
    """Writers of one zone race; the last file written holds every change."""
    dom = pub.create()
    d, did = dom["domain"], dom["id"]
    pub.wait_served(d)
    calls = [("POST", f"/domains/{did}/records",
              {"type": "A", "name": f"r{i}", "target": f"192.0.2.{100 + i}"})
             for i in range(8)]
    results = race(pub.srv, pub.backend.token, calls)
    assert [s for s, _ in results] == [200] * 8, results
    pub.assert_file_is_zone(did, d)
    for i in range(8):
        pub.ns.wait_for_answer(f"r{i}.{d}", "A", [f"192.0.2.{100 + i}"])


# --------------------------------------------------------------------------
# Zones come and go
# --------------------------------------------------------------------------

def test_disable_enable_delete(pub):
    dom = pub.create()
    d, did = dom["domain"], dom["id"]
    pub.record(did, type="A", name="", target="192.0.2.30")
    pub.ns.wait_for_answer(d, "A", ["192.0.2.30"])
    assert pub.entry(d).startswith(f'zone "{d}" {{ type master; file "{pub.file(d)}";')

    pub.update(did, status="disabled")
    assert not pub.file(d).exists()
    assert pub.entry(d) is None
    pub.wait_refused(d)
    # The zone-file endpoint still shows the last rendered zone.
    assert pub.zone_lines(did)

    pub.update(did, status="active")
    pub.ns.wait_for_answer(d, "A", ["192.0.2.30"])
    pub.assert_file_is_zone(did, d)

    r = pub.api.delete(f"/domains/{did}")
    assert r.status == 200, r
    assert not pub.file(d).exists()
    assert pub.entry(d) is None
    pub.wait_refused(d)


def test_rename(pub):
    dom = pub.create()
    old, did = dom["domain"], dom["id"]
    pub.record(did, type="A", name="www", target="192.0.2.40")
    pub.ns.wait_for_answer(f"www.{old}", "A", ["192.0.2.40"])
    new = pub.name().upper()   # the caller's case is kept; files are lower case
    pub.update(did, domain=new)
    assert not pub.file(old).exists()
    assert pub.entry(old) is None
    pub.assert_file_is_zone(did, new)
    assert pub.entry(new) is not None
    pub.ns.wait_for_answer(f"www.{new.lower()}", "A", ["192.0.2.40"])
    pub.wait_refused(old)


def test_clone_is_published(pub):
    dom = pub.create()
    did = dom["id"]
    pub.record(did, type="TXT", name="", target="cloned")
    name = pub.name()
    r = pub.api.post(f"/domains/{did}/clone", json={"domain": name})
    assert r.status == 200, r
    pub.assert_file_is_zone(r.json["id"], name)
    pub.ns.wait_for_answer(name, "TXT", ['"cloned"'])


def test_zone_transfers_follow_axfr_ips(pub):
    closed = pub.create()
    open_ = pub.create(axfr_ips=["127.0.0.1"])
    assert pub.entry(open_["domain"]).endswith(
        'allow-transfer { "acctapi-transfer"; 127.0.0.1; }; };')
    assert pub.entry(closed["domain"]).endswith('allow-transfer { "acctapi-transfer"; }; };')
    pub.wait_served(open_["domain"])
    pub.wait_served(closed["domain"])
    assert "Transfer failed." in pub.ns.dig_full(closed["domain"], "AXFR")
    axfr = pub.ns.dig_full(open_["domain"], "AXFR")
    assert "Transfer failed." not in axfr and re.search(r"\sIN\s+SOA\s", axfr), axfr

    # Taking the address away closes the zone again (a zones.conf change).
    pub.update(open_["id"], axfr_ips=[])
    wait_for(lambda: "Transfer failed." in pub.ns.dig_full(open_["domain"], "AXFR"),
             15, 0.2, "the transfer to be refused")


def test_slave_domain(pub):
    dom = pub.create(type="slave", master_ips=["192.0.2.53", "2001:db8::53"],
                     axfr_ips=["198.51.100.7"])
    d = dom["domain"]
    assert not pub.file(d).exists()
    assert pub.entry(d) == (f'zone "{d}" {{ type slave; masters {{ 192.0.2.53; '
                            f'2001:db8::53; }}; allow-transfer {{ "acctapi-transfer"; '
                            f'198.51.100.7; }}; }};')

    # Configured but never transferred (192.0.2.53 is not a nameserver):
    # named answers SERVFAIL for a zone it has, REFUSED for one it has not.
    def status():
        m = re.search(r"status: (\w+)", pub.ns.dig_full(d, "SOA"))
        return m and m.group(1)
    wait_for(lambda: status() == "SERVFAIL", 20, 0.2, f"named to know {d}")

    pub.update(dom["id"], master_ips=["192.0.2.54"])
    assert "masters { 192.0.2.54; };" in pub.entry(d)
    r = pub.api.delete(f"/domains/{dom['id']}")
    assert r.status == 200, r
    assert pub.entry(d) is None
    wait_for(lambda: status() == "REFUSED", 20, 0.2, f"named to forget {d}")


def test_hidden_primary_feeds_a_secondary(backend, make_server):
    """docs/dns.md's separate-hosts set-up: this named is a hidden primary
    whose "acctapi-transfer" ACL admits the secondaries; a secondary
    declares the zones of zones.conf as slaves of it and transfers them."""
    p = Publishing(backend, make_server, acl="127.0.0.1")
    secondary = None
    try:
        dom = p.create()
        d, did = dom["domain"], dom["id"]
        p.record(did, type="A", name="www", target="192.0.2.70")
        # The primary loads the zone through the reload that runs after the
        # API's answer (docs/dns.md): the set-up's order is that the primary
        # serves the zone, then the secondary starts and transfers it.
        p.ns.wait_for_answer(f"www.{d}", "A", ["192.0.2.70"])
        # docs/dns.md's sed, on this zone's line only (the shared database
        # holds many other zones).
        entry = p.entry(d)
        slave = re.sub(r'^zone "([^"]*)".*',
                       rf'zone "\1" {{ type slave; masters {{ 127.0.0.1 port {p.ns.port}; }}; }};',
                       entry)
        secondary = Named(backend.base, "secondary", extra_conf=slave + "\n")
        secondary.start()
        secondary.wait_for_answer(f"www.{d}", "A", ["192.0.2.70"])

        p.record(did, type="A", name="www", target="192.0.2.71")
        p.ns.wait_for_answer(f"www.{d}", "A", ["192.0.2.70", "192.0.2.71"])
        secondary.rndc("refresh", d)   # what the primary's NOTIFY triggers
        secondary.wait_for_answer(f"www.{d}", "A", ["192.0.2.70", "192.0.2.71"])
    finally:
        if secondary:
            secondary.stop()
        p.close()


# --------------------------------------------------------------------------
# The reload command and failures
# --------------------------------------------------------------------------

def test_slow_reload_command_does_not_delay(backend, make_server):
    p = Publishing(backend, make_server, reload="/bin/sh -c 'sleep 3' reload")
    try:
        dom = p.create()
        start = time.monotonic()
        rec = p.record(dom["id"], type="A", name="slow", target="192.0.2.50")
        elapsed = time.monotonic() - start
        assert elapsed < 1.5, f"the request took {elapsed:.1f}s"
        # Published before the answer; named is told by hand here.
        assert "slow." in p.file(dom["domain"]).read_text()
        assert rec["target"] == "192.0.2.50"
        p.ns.rndc("reload")
        p.ns.wait_for_answer(f"slow.{dom['domain']}", "A", ["192.0.2.50"])
        # The commands finish and are reaped: no zombie is left in httpd.
        time.sleep(4)
        wait_for(lambda: not httpd_zombies(p.srv), 10, 0.2, "no zombies")
    finally:
        p.close()


def test_child_stops_after_the_reloads_it_owes(backend, make_server):
    """A child that exits (here the server's graceful stop) first lets the
    reload under way finish, then runs the one still queued and the
    confirming run of both: no change is left unreloaded, and no command
    outlives the server."""
    runs_dir = make_tmpdir(f"{backend.base}/runs-")
    share(runs_dir)
    runs = runs_dir / "runs"
    p = Publishing(backend, make_server,
                   reload=f"/bin/sh -c 'echo start >> {runs}; sleep 0.8; "
                          f"echo $# >> {runs}' reload")
    closed = False
    try:
        dom = p.create()
        wait_for(lambda: runs.exists() and runs.read_text() == "start\n", 10, 0.05,
                 "the domain's reload under way")
        # Queued behind it: the zone's own reload.
        p.record(dom["id"], type="A", name="late", target="192.0.2.51")
        p.close()
        closed = True
        # The domain's run (zones.conf changed: no zone), the record's (its
        # zone), then the confirming run of both.
        assert runs.read_text() == "start\n0\nstart\n1\nstart\n0\n", runs.read_text()
    finally:
        if not closed:
            p.close()


def test_failing_reload_command_is_logged(backend, make_server, expect_log):
    expect_log(r"zone reload \(all zones\): /bin/sh exited with status 7: "
               r"rndc: connection refused")
    p = Publishing(backend, make_server,
                   reload="/bin/sh -c 'echo rndc: connection refused >&2; exit 7' x")
    try:
        dom = p.create()
        assert p.file(dom["domain"]).exists()
        wait_for(lambda: "exited with status 7" in p.srv.log_text(), 10, 0.1,
                 "the failure in the error log")
    finally:
        p.close()


def test_unwritable_directory_does_not_fail_requests(pub, expect_log):
    expect_log(r"zone publishing: cannot (create|open)")
    pub.dir.chmod(0o555)
    try:
        if os.access(pub.dir, os.W_OK) and not IS_ROOT:
            pytest.skip("cannot make the directory read-only for this user")
        dom = pub.create()
        assert not pub.file(dom["domain"]).exists()
        wait_for(lambda: "zone publishing: cannot" in pub.srv.log_text(), 10, 0.1,
                 "the failure in the error log")
    finally:
        pub.dir.chmod(0o755)
    # The resynchronisation catches up.
    out = pub.backend.admin("zones", "publish", pub.dir, "--reload-command", pub.rndc)
    assert "zones.conf written" in out, out
    share(pub.dir)
    pub.assert_file_is_zone(dom["id"], dom["domain"])
    pub.wait_served(dom["domain"])


def test_admin_resync(pub, api):
    """A domain made where nothing publishes (the shared server) reaches
    named with `acctapi-admin zones publish`; stale files go."""
    name = pub.name()
    r = api.post("/domains", json={"domain": name, "type": "master",
                                   "soa_email": f"hostmaster@{name}"})
    assert r.status == 200, r
    did = r.json["id"]
    r = api.post(f"/domains/{did}/records", json={"type": "A", "name": "",
                                                  "target": "192.0.2.60"})
    assert r.status == 200, r
    assert not pub.file(name).exists()
    stale = pub.dir / "gone.e2e-publish.example.zone"
    stale.write_text("; nothing publishes this\n")

    out = pub.backend.admin("zones", "publish", pub.dir, "--reload-command", pub.rndc)
    m = re.fullmatch(r"(\d+) master zones \((\d+) written\), (\d+) slave zones, "
                     r"(\d+) files removed, zones.conf written", out)
    assert m and int(m.group(2)) >= 1 and int(m.group(4)) >= 1, out
    share(pub.dir)
    assert not stale.exists()
    pub.assert_file_is_zone(did, name)
    pub.ns.wait_for_answer(name, "A", ["192.0.2.60"])

    # Publishing again changes nothing.
    out = pub.backend.admin("zones", "publish", pub.dir)
    assert re.fullmatch(r"\d+ master zones \(0 written\), \d+ slave zones, "
                        r"0 files removed, zones.conf unchanged", out), out
    share(pub.dir)
