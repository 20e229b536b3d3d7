"""POST /domains/import: real zone transfers from a private BIND `named`.

Every test serves its zones from a `named` of its own on a loopback port
(tests/e2e/named.py), configured to produce what the test is about: a zone
holding every record type (and some the contract has not), a transfer that
named refuses, a stopped named (timeout), a name that does not exist there
(NXDOMAIN), a zone named does not serve (not authoritative), a zone over the
12,000-record limit.  Zone names carry a random part: the names of a backend's
database are unique across the whole session.
"""

import json
import re
import secrets
import socket
import time

import pytest

import harness
from checks import assert_error, assert_json
from named import Named

SCOPE_REASON = "Your OAuth token is not authorized to use this endpoint."
TAKEN = "This domain is already hosted"
R_SERVER = ("remote_nameserver must be an IPv4 or IPv6 address or a host name, "
            "optionally followed by a port: 192.0.2.1, 192.0.2.1:5353, "
            "2001:db8::1, [2001:db8::1]:5353, ns1.example.net or "
            "ns1.example.net:5353")
R_PORT = "The port of remote_nameserver must be a number from 1 to 65535"
SERVICE_NS = ["ns1.acctapi-service.test", "ns2.acctapi-service.test"]


def zone_name(stem="imp"):
    return f"{stem}-{secrets.token_hex(4)}.example"


def soa(zone, *, rname=None, ttl=3600, timers="10800 3600 1209600 300"):
    return (f"$TTL 3600\n"
            f"@ {ttl} IN SOA ns1.old-dns.test. {rname or 'hostmaster.' + zone + '.'} "
            f"2024010101 {timers}\n"
            f"@ IN NS ns1.old-dns.test.\n")


class Source(Named):
    """A named serving the zones of one test; `serve` adds a zone (the SOA and
    an apex NS are written for it), before or after start.  Starting waits
    until every zone answers over TCP: named logs "running" a moment before
    it serves (answering SERVFAIL, or not accepting, meanwhile)."""

    def __init__(self, base, *, ipv6=False):
        super().__init__(base, "source")
        self.served = []
        if ipv6:
            self.extra_options = f"listen-on-v6 port {self.port} {{ ::1; }};"

    def serve(self, zone, body="", allow_transfer="any", *, head=None):
        self.add_zone(zone, (head if head is not None else soa(zone)) + body,
                      allow_transfer=allow_transfer)
        self.served.append(zone)
        if self.proc:
            self.write_conf()
            self.rndc("reconfig")
            self.wait_served(zone)
        return zone

    def start(self, timeout=20):
        super().start(timeout)
        for zone in self.served:
            self.wait_served(zone)
        return self

    def wait_served(self, zone):
        def serving():
            try:
                return "status: NOERROR" in self.dig_full(zone, "SOA", "+tcp")
            except harness.HarnessError:    # dig: connection refused, for now
                return False
        harness.wait_for(serving, 15, interval=0.05, what=f"named serving {zone}")


@pytest.fixture
def source(backend):
    ns = Source(backend.base)
    yield ns
    ns.stop()


def started(ns, *zones):
    """Starts `ns` serving `zones`: names, or (name, body[, allow_transfer])."""
    for z in zones:
        ns.serve(*(z if isinstance(z, tuple) else (z,)))
    return ns.start()


def do_import(client, domain, server, **kw):
    return client.post("/domains/import",
                       json={"domain": domain, "remote_nameserver": server}, **kw)


def hosted(backend, domain):
    rows = backend.query("SELECT count(*) FROM domains WHERE domain_key = "
                         f"'{domain.lower()}'")
    return int(rows[0][0])


def records_of(client, domain_id):
    return client.all_pages(f"/domains/{domain_id}/records")


def view(rec):
    return (rec["type"], rec["name"], rec["target"], rec["priority"], rec["weight"],
            rec["port"], rec["service"], rec["protocol"], rec["ttl_sec"], rec["tag"])


def refused(r, what, field="remote_nameserver"):
    """A failed transfer: 400 naming `what` (a regex) and the field."""
    errs = assert_error(r, 400, None, field)
    assert re.search(what, errs[0]["reason"]), r
    return errs[0]["reason"]


# --------------------------------------------------------------------------
# The happy path: every type
# --------------------------------------------------------------------------

LONG_A = "a" * 255
LONG_B = "b" * 45


def full_zone(z):
    return f"""@ 300 IN A 192.0.2.10
@ IN NS ns2.old-dns.test.
@ IN AAAA 2001:db8::10
www IN A 192.0.2.11
www IN AAAA 2001:db8:0:0::11
* 600 IN A 192.0.2.12
@ IN MX 10 mail.{z}.
@ IN MX 20 mx.backup-mail.test.
mail IN A 192.0.2.13
blog IN CNAME www.{z}.
ext IN CNAME target.elsewhere.test.
@ IN TXT "v=spf1 mx -all"
_dmarc IN TXT "v=DMARC1; p=none"
multi IN TXT "part one " "part two"
long IN TXT "{LONG_A}" "{LONG_B}"
_sip._tcp IN SRV 10 60 5060 sip.{z}.
_xmpp-server._tcp 7200 IN SRV 5 0 5269 xmpp.elsewhere.test.
@ IN CAA 0 issue "letsencrypt.org"
@ IN CAA 128 iodef "mailto:security@{z}"
1.2 IN PTR host.{z}.
sub IN NS ns.sub.{z}.
ns.sub IN A 192.0.2.14
zero 0 IN A 192.0.2.15
big 9999999 IN A 192.0.2.16
@ IN HINFO "PC" "Linux"
@ IN LOC 52 22 23.000 N 4 53 32.000 E -2.00m 0.00m 10000m 10m
@ IN SSHFP 1 1 dd465c09cfa51fb45020cc83316fff21b9ec74ac
_443._tcp.www IN TLSA 3 1 1 {"ab" * 32}
@ IN CAA 0 contactemail "hostmaster@{z}"
_gone._tcp IN SRV 0 0 0 .
"""


def expected_records(z):
    """The API's view of full_zone: apex NS, unsupported types (HINFO, LOC,
    SSHFP, TLSA) and the records the validation refuses (CAA tag
    contactemail, SRV target ".") are not there."""
    n = None
    return sorted([
        ("A", "", "192.0.2.10", 0, 0, 0, n, n, 300, n),
        ("AAAA", "", "2001:db8::10", 0, 0, 0, n, n, 3600, n),
        ("A", "www", "192.0.2.11", 0, 0, 0, n, n, 3600, n),
        ("AAAA", "www", "2001:db8::11", 0, 0, 0, n, n, 3600, n),
        ("A", "*", "192.0.2.12", 0, 0, 0, n, n, 3600, n),        # 600 rounds up
        ("MX", "", f"mail.{z}", 10, 0, 0, n, n, 3600, n),
        ("MX", "", "mx.backup-mail.test", 20, 0, 0, n, n, 3600, n),
        ("A", "mail", "192.0.2.13", 0, 0, 0, n, n, 3600, n),
        ("CNAME", "blog", f"www.{z}", 0, 0, 0, n, n, 3600, n),
        ("CNAME", "ext", "target.elsewhere.test", 0, 0, 0, n, n, 3600, n),
        ("TXT", "", "v=spf1 mx -all", 0, 0, 0, n, n, 3600, n),
        ("TXT", "_dmarc", "v=DMARC1; p=none", 0, 0, 0, n, n, 3600, n),
        ("TXT", "multi", "part one part two", 0, 0, 0, n, n, 3600, n),
        ("TXT", "long", LONG_A + LONG_B, 0, 0, 0, n, n, 3600, n),
        ("SRV", "_sip._tcp", f"sip.{z}", 10, 60, 5060, "sip", "tcp", 3600, n),
        ("SRV", "_xmpp-server._tcp", "xmpp.elsewhere.test", 5, 0, 5269,
         "xmpp-server", "tcp", 7200, n),
        ("CAA", "", "letsencrypt.org", 0, 0, 0, n, n, 3600, "issue"),
        ("CAA", "", f"mailto:security@{z}", 0, 0, 0, n, n, 3600, "iodef"),
        ("PTR", "1.2", f"host.{z}", 0, 0, 0, n, n, 3600, n),
        ("NS", "sub", f"ns.sub.{z}", 0, 0, 0, n, n, 3600, n),
        ("A", "ns.sub", "192.0.2.14", 0, 0, 0, n, n, 3600, n),
        ("A", "zero", "192.0.2.15", 0, 0, 0, n, n, 300, n),       # 0: shortest
        ("A", "big", "192.0.2.16", 0, 0, 0, n, n, 2419200, n),    # capped
    ], key=repr)


# (owner, type) pairs a resolver can ask both servers about.
QUESTIONS = [("", "A"), ("", "AAAA"), ("www", "A"), ("www", "AAAA"), ("anything", "A"),
             ("", "MX"), ("mail", "A"), ("blog", "CNAME"), ("ext", "CNAME"),
             ("", "TXT"), ("_dmarc", "TXT"), ("multi", "TXT"), ("long", "TXT"),
             ("_sip._tcp", "SRV"), ("_xmpp-server._tcp", "SRV"), ("", "CAA"),
             ("1.2", "PTR"), ("zero", "A"), ("big", "A")]


def txt_joined(answers):
    """dig's TXT lines with their strings joined, as resolvers read them."""
    return sorted("".join(re.findall(r'"((?:[^"\\]|\\.)*)"', a)) for a in answers)


def answers(ns, owner, zone, rtype):
    got = ns.dig(f"{owner}.{zone}" if owner else zone, rtype)
    if rtype == "CAA":   # the service keeps no flags, and only the tags it knows
        got = [re.sub(r"^\d+ ", "0 ", a) for a in got
               if re.match(r"\d+ (issue|issuewild|iodef) ", a)]
    return txt_joined(got) if rtype == "TXT" else sorted(got)


@pytest.fixture
def service(make_server):
    """A server that publishes NS lines (so its zone files load in named) and
    logs the module's info lines (import's account of skipped records)."""
    return make_server(extra="AcctapiNameservers " + " ".join(SERVICE_NS) + "\n"
                             "LogLevel warn acctapi:info\n", name="httpd-import")


def test_import_every_type(backend, service, source):
    z = zone_name("full")
    source.serve(z, full_zone(z), head=soa(z, rname=f"dns\\.admin.{z}.", ttl=7200))
    source.start()
    client = service.client(token=backend.token)
    mark = service.log_size()
    t0 = time.time()
    r = do_import(client, z.upper(), source.address)
    assert r.status == 200, r
    d = assert_json(r)
    assert time.time() - t0 < 10
    assert d["domain"] == z.upper() and d["type"] == "master" and d["status"] == "active"
    # the SOA: the mailbox's first label keeps its dot; timers round up like a
    # domain's; ttl_sec is the SOA's own TTL (the zone's default TTL)
    assert d["soa_email"] == f"dns.admin@{z}"
    assert [d[k] for k in ("refresh_sec", "retry_sec", "expire_sec", "ttl_sec")] == \
        [14400, 3600, 1209600, 7200]
    assert d["master_ips"] == [] and d["axfr_ips"] == [] and d["tags"] == []
    assert client.get(f"/domains/{d['id']}").json == d

    recs = records_of(client, d["id"])
    assert sorted((view(x) for x in recs), key=repr) == expected_records(z)
    assert all(x["created"] == d["created"] for x in recs)

    # the service's account of what it skipped
    log = service.log_text(mark)
    assert re.search(rf"import of {re.escape(z.upper())} \(domain {d['id']}\) from "
                     rf"127\.0\.0\.1:{source.port}: 23 records imported, 8 skipped: "
                     r"2 apex NS \(replaced by this service's nameservers\), 2 invalid, "
                     r"unsupported types: HINFO 1, LOC 1, SSHFP 1, TLSA 1", log), log
    assert re.search(r"skipped the CAA record of .*: tag: tag must be one of", log), log
    assert re.search(r"skipped the SRV record of _gone\._tcp\..*: target: target must "
                     r"be a host name", log), log

    # the zone the service renders answers what the source answers
    zf = client.get(f"/domains/{d['id']}/zone-file")
    assert zf.status == 200, zf
    copy = Source(backend.base)
    copy.serve(z, "\n".join(zf.json["zone_file"]) + "\n", head="")
    copy.start()
    try:
        for owner, rtype in QUESTIONS:
            want = answers(source, owner, z, rtype)
            assert want, (owner, rtype)
            assert answers(copy, owner, z, rtype) == want, (owner, rtype)
        assert sorted(copy.dig(z, "NS")) == sorted(n + "." for n in SERVICE_NS)
    finally:
        copy.stop()


def test_import_ipv6_and_host_names(api, backend):
    ns = Source(backend.base, ipv6=True)
    a, b, c = zone_name("v6"), zone_name("host"), zone_name("v6b")
    started(ns, a, b, c)
    try:
        r = do_import(api, a, f"[::1]:{ns.port}")
        assert r.status == 200, r
        r = do_import(api, b, f"localhost.:{ns.port}")
        assert r.status == 200, r
        # a bare IPv6 address has no port: 53, where nothing serves c
        r = do_import(api, c, "::1")
        refused(r, r"\[::1\]:53")
        assert hosted(backend, c) == 0
    finally:
        ns.stop()


def test_default_port_is_53(api, backend):
    z = zone_name("p53")
    r = do_import(api, z, "127.0.0.1")
    # whatever listens there (if anything), it is port 53 that was asked
    refused(r, r"127\.0\.0\.1:53\b")
    assert hosted(backend, z) == 0


# --------------------------------------------------------------------------
# Failure modes, each produced by named
# --------------------------------------------------------------------------

def test_refused_transfer(api, backend, source):
    z, z2 = zone_name("open"), zone_name("closed")
    started(source, (z, "www IN A 192.0.2.1\n"), (z2, "", "none"))
    # named refuses (REFUSED) a transfer that allow-transfer does not permit
    r = do_import(api, z2, source.address)
    reason = refused(r, r"refused the zone transfer \(AXFR\)")
    assert reason == (f"The remote nameserver {source.address} refused the zone "
                      f"transfer (AXFR) of {z2}: it must allow transfers to this service")
    assert hosted(backend, z2) == 0
    # the open one next to it imports
    assert do_import(api, z, source.address).status == 200


def test_timeout(backend, make_server, source):
    z = zone_name("slow")
    started(source, (z, "www IN A 192.0.2.1\n"))
    srv = make_server(extra="AcctapiTransferTimeout 2\n", name="httpd-timeout")
    client = srv.client(token=backend.token)
    # A nameserver that takes the connection and never answers: the kernel
    # completes the TCP handshake of a listening socket that nobody accepts
    # on, and no byte ever comes back, whatever the machine's load (a
    # stopped named may still answer a query that beats its SIGSTOP).
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        silent_ns = "127.0.0.1:%d" % silent.getsockname()[1]
        t0 = time.time()
        r = do_import(client, z, silent_ns)
        elapsed = time.time() - t0
    reason = refused(r, r"timed out")
    assert reason == (f"The zone transfer of {z} from the remote nameserver "
                      f"{silent_ns} timed out: no complete answer within 2 seconds")
    assert 1.9 <= elapsed < 6, elapsed
    assert hosted(backend, z) == 0
    # nothing was kept: the same import from a nameserver that answers works
    assert do_import(client, z, source.address).status == 200


def test_nxdomain(api, backend, source):
    z = zone_name("nx")
    started(source, (z, "www IN A 192.0.2.1\n"))
    missing = f"missing.{z}"
    r = do_import(api, missing, source.address)
    reason = refused(r, r"NXDOMAIN")
    assert reason == (f"The remote nameserver {source.address} answered NXDOMAIN: "
                      f"{missing} does not exist there")
    assert hosted(backend, missing) == 0


def test_not_authoritative(api, backend, source):
    z = zone_name("auth")
    started(source, (z, "www IN A 192.0.2.1\nsub IN NS ns.elsewhere.test.\n"))
    source.add_raw_zone(f'zone "{(fwd := zone_name("fwd"))}" {{ type forward; '
                        f'forwarders {{ 127.0.0.1 port 9; }}; }};')
    source.write_conf()
    source.rndc("reconfig")
    # a zone named does not serve; a name inside one that is no zone; a
    # delegated subdomain; a zone named only forwards queries for
    for name in (zone_name("elsewhere"), f"www.{z}", f"sub.{z}", fwd):
        r = do_import(api, name, source.address)
        reason = refused(r, r"not authoritative")
        assert reason == (f"The remote nameserver {source.address} is not "
                          f"authoritative for {name}: it does not serve that zone"), name
        assert hosted(backend, name) == 0


def test_too_many_records(api, backend, source):
    big, edge = zone_name("big"), zone_name("edge")
    # besides the SOA: the apex NS and 12,000 A records is one too many
    started(source, (big, "".join(f"h{i} IN A 192.0.2.{i % 250 + 1}\n"
                                  for i in range(12000))),
            (edge, "".join(f"h{i} IN A 192.0.2.{i % 250 + 1}\n"
                           for i in range(11999))))
    r = do_import(api, big, source.address)
    errs = assert_error(r, 400, None)
    assert errs[0]["reason"] == (f"The zone {big} has more than 12000 records, "
                                 "the most a domain can hold")
    assert hosted(backend, big) == 0
    # exactly 12,000: imported (the apex NS is replaced, so 11,999 stored)
    t0 = time.time()
    r = do_import(api, edge, source.address, timeout=120)
    assert r.status == 200, r
    assert time.time() - t0 < 60
    rows = backend.query(f"SELECT record_count, (SELECT count(*) FROM domain_records"
                         f" WHERE domain_id = {r.json['id']}) FROM domains"
                         f" WHERE id = {r.json['id']}")
    assert rows == [["11999", "11999"]]
    # and the domain is full, as the limit says
    full = api.post(f"/domains/{r.json['id']}/records",
                    json={"type": "A", "name": "one-more", "target": "192.0.2.1"})
    assert full.status == 200, full
    full = api.post(f"/domains/{r.json['id']}/records",
                    json={"type": "A", "name": "two-more", "target": "192.0.2.1"})
    assert_error(full, 400, None)


def test_unreachable_and_unresolvable(api, backend):
    z = zone_name("nowhere")
    port = harness.free_port()
    r = do_import(api, z, f"127.0.0.1:{port}")
    refused(r, rf"^Could not connect to the remote nameserver 127\.0\.0\.1:{port}: "
               r".*[Rr]efused")
    r = do_import(api, z, "no-such-host.invalid:53")
    reason = refused(r, r"could not be resolved")
    assert reason == ("The remote nameserver no-such-host.invalid:53 could not be "
                      "resolved to an address")
    assert hosted(backend, z) == 0


# --------------------------------------------------------------------------
# Transfer source addresses
# --------------------------------------------------------------------------

def test_transfer_source(api, backend, make_server):
    ns = Source(backend.base, ipv6=True)
    only_2 = zone_name("src")
    started(ns, (only_2, "www IN A 192.0.2.1\n", "127.0.0.2"))
    try:
        # the default server transfers from any address: 127.0.0.1 here
        r = do_import(api, only_2, ns.address)
        refused(r, "refused the zone transfer")
        srv = make_server(extra="AcctapiTransferSource 127.0.0.2\n", name="httpd-source")
        client = srv.client(token=backend.token)
        # an IPv6 server: no IPv6 source configured
        r = do_import(client, only_2, f"[::1]:{ns.port}")
        reason = refused(r, "no address this service can transfer from")
        assert reason == (f"The remote nameserver [::1]:{ns.port} has no address this "
                          "service can transfer from: it has an IPv6 address, and zone "
                          "transfers are made from 127.0.0.2 only")
        # from 127.0.0.2: allowed
        r = do_import(client, only_2, ns.address)
        assert r.status == 200, r
        # a refusal names the addresses to allow
        closed = ns.serve(zone_name("src"), "", "none")
        r = do_import(client, closed, ns.address)
        assert refused(r, "refused").endswith(
            "it must allow transfers to this service's transfer addresses (127.0.0.2)")
    finally:
        ns.stop()


# --------------------------------------------------------------------------
# Names, scopes, grants, bodies
# --------------------------------------------------------------------------

def test_hosted_names_are_refused(api, backend, server, source):
    z, theirs = zone_name("dup"), zone_name("theirs")
    started(source, z, theirs)
    assert do_import(api, z, source.address).status == 200
    # again, in another case and with a trailing dot
    r = do_import(api, z.upper() + ".", source.address)
    assert_error(r, 400, TAKEN, "domain")
    # hosted by another account
    other = harness.Account(backend, server, stem="e2e-imp-")
    try:
        created = other.client.post("/domains", json={
            "domain": theirs, "type": "master", "soa_email": "a@example.net"})
        assert created.status == 200, created
        r = do_import(api, theirs, source.address)
        assert_error(r, 400, TAKEN, "domain")
        assert hosted(backend, theirs) == 1
    finally:
        other.close()


def test_scope_and_grants(api, backend, server, source):
    z, mine = zone_name("scope"), zone_name("mine")
    started(source, z, mine)
    ro = server.client(token=backend.mint_token(scopes="domains:read_only"))
    try:
        assert_error(do_import(ro, z, source.address), 401, SCOPE_REASON)
    finally:
        ro.close()
    acct = harness.Account(backend, server, stem="e2e-imp-")
    try:
        uid, restricted = acct.user(restricted=True)
        assert_error(do_import(restricted, z, source.address), 403, "Unauthorized")
        assert hosted(backend, z) == 0
        backend.execute("INSERT INTO user_global_grants (user_id, add_domains)"
                        f" VALUES ({uid}, 1)")
        r = do_import(restricted, mine, source.address)
        assert r.status == 200, r
        did = r.json["id"]
        # the importer holds read_write on what it imported, like a creator
        assert backend.query("SELECT permissions FROM entity_grants WHERE user_id ="
                             f" {uid} AND entity_type = 'domain' AND entity_id = {did}"
                             ) == [["read_write"]]
        assert restricted.put(f"/domains/{did}", json={"group": "imported"}).status == 200
        assert [d["id"] for d in restricted.all_pages("/domains")] == [did]
    finally:
        acct.close()


BODIES = [
    ({}, [("domain", "domain is required"),
          ("remote_nameserver", "remote_nameserver is required")]),
    ({"domain": "x.example"}, [("remote_nameserver", "remote_nameserver is required")]),
    ({"remote_nameserver": "192.0.2.1"}, [("domain", "domain is required")]),
    ({"domain": 5, "remote_nameserver": ["192.0.2.1"]},
     [("domain", "domain must be a string"),
      ("remote_nameserver", "remote_nameserver must be a string")]),
    # null is an absent field (docs/conventions.md, "Today's clients")
    ({"domain": "x.example", "remote_nameserver": None},
     [("remote_nameserver", "remote_nameserver is required")]),
    ({"domain": "x.example", "remote_nameserver": ""},
     [("remote_nameserver", "Length must be 1-260 characters")]),
    ({"domain": "com", "remote_nameserver": "192.0.2.1"}, [("domain", None)]),
    # keys that are not fields of the route are ignored
    ({"domain": "x.example", "remote_nameserver": "192.0.2.300",
      "type": "master", "domainId": 5}, [("remote_nameserver", R_SERVER)]),
] + [({"domain": "x.example", "remote_nameserver": s}, [("remote_nameserver", R_PORT)])
     for s in ("192.0.2.1:", "192.0.2.1:0", "192.0.2.1:65536", "[2001:db8::1]:x",
               "ns1.example.net:5 3")] \
  + [({"domain": "x.example", "remote_nameserver": s}, [("remote_nameserver", R_SERVER)])
     for s in ("192.0.2.300", "[2001:db8::1", "[2001:db8::1]53", "[192.0.2.1]:53",
               "2001:db8::1:5353x", "ns1..example.net", "-ns.example.net",
               "ns 1.example.net", "ns1.example.net/53")]


@pytest.mark.parametrize("body,errors", BODIES, ids=[json.dumps(b) for b, _ in BODIES])
def test_body_validation(api, backend, body, errors):
    r = api.post("/domains/import", json=body)
    errs = assert_error(r, 400, None, None, only=False)
    assert [e.get("field") for e in errs] == [f for f, _ in errors], r
    for e, (_, reason) in zip(errs, errors):
        assert reason is None or e["reason"] == reason, r
    assert hosted(backend, "x.example") == 0
