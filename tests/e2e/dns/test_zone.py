"""GET /domains/{domainId}/zone-file: the zone of a domain as BIND master-file
lines.  Domains and records are made through the API (POST /domains, POST
/domains/{id}/records); every rendered zone must load in named-checkzone,
every record must read back from its line exactly as the records API shows
it, and the SOA serial must grow with every change."""

import os
import re
import secrets
import shutil
import subprocess
import tempfile

import pytest

from checks import assert_error, assert_headers, assert_json

NAMED_CHECKZONE = shutil.which("named-checkzone") or "/usr/bin/named-checkzone"
DEFAULT_NS = ["ns1.example.com", "ns2.example.com", "ns3.example.com"]
HEAD = 2   # the comment and $TTL come before the SOA
SCOPE_REASON = "Your OAuth token is not authorized to use this endpoint."
DEFAULTS = {"refresh": 14400, "retry": 14400, "expire": 1209600, "ttl": 86400}


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

def written(r, what):
    """The JSON of a request that must have succeeded (`what` names it)."""
    assert r.status == 200, (what, r)
    return assert_json(r)


def new_domain_name(backend):
    return f"{backend.unique('zone')}-{secrets.token_hex(3)}.e2e-zone.example"


def create_domain(api, backend, **fields):
    body = {"domain": new_domain_name(backend), "type": "master"}
    body["soa_email"] = f"hostmaster@{body['domain']}"
    body.update(fields)
    body = {k: v for k, v in body.items() if v is not None}   # None: leave out
    return written(api.post("/domains", json=body), "POST /domains")


def add_record(api, domain_id, **fields):
    return written(api.post(f"/domains/{domain_id}/records", json=fields),
                   "POST /domains/{id}/records")


def zone(api, domain_id, **kw):
    r = api.get(f"/domains/{domain_id}/zone-file", **kw)
    assert r.status == 200, r
    assert_headers(r, accepted="domains:read_only")
    doc = assert_json(r)
    assert list(doc) == ["zone_file"], r
    lines = doc["zone_file"]
    assert isinstance(lines, list) and all(isinstance(x, str) for x in lines), r
    assert all("\n" not in x and "\r" not in x for x in lines), r
    return lines


def checkzone(origin, lines):
    """named-checkzone accepts the lines as the zone `origin`."""
    if not os.access(NAMED_CHECKZONE, os.X_OK):
        pytest.skip(f"{NAMED_CHECKZONE} is not installed")
    with tempfile.NamedTemporaryFile("w", suffix=".zone", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    try:
        p = subprocess.run([NAMED_CHECKZONE, origin, path], capture_output=True,
                           text=True, timeout=60)
    finally:
        os.unlink(path)
    assert p.returncode == 0, f"named-checkzone {origin}:\n{p.stdout}{p.stderr}"


def tokens(line):
    """A master-file line as (token, quoted) pairs, escapes decoded to bytes."""
    out, i, n = [], 0, len(line)
    while i < n:
        if line[i] == " ":
            i += 1
            continue
        quoted = line[i] == '"'
        i += quoted
        buf = bytearray()
        while i < n and (line[i] != '"' if quoted else line[i] != " "):
            c = line[i]
            assert 0x20 <= ord(c) < 0x7f, f"raw character {c!r} in {line!r}"
            if c == "\\":
                if line[i + 1].isdigit():
                    buf.append(int(line[i + 1:i + 4]))
                    i += 4
                    continue
                c = line[i + 1]
                i += 1
            buf += c.encode()
            i += 1
        if quoted:
            assert i < n, f"unterminated string in {line!r}"
            i += 1
        out.append((bytes(buf), quoted))
    return out


def record_fields(line):
    """owner, TTL (None when absent), type and RDATA tokens of a record line."""
    toks = tokens(line)
    owner = toks[0][0].decode()
    ttl = None
    rest = toks[1:]
    if rest[0][0].isdigit():
        ttl = int(rest[0][0])
        rest = rest[1:]
    assert rest[0][0] == b"IN", line
    return owner, ttl, rest[1][0].decode(), rest[2:]


def expected_owner(record, domain):
    name = record["name"]
    if record["type"] == "SRV":
        assert name == f"_{record['service']}._{record['protocol']}", record
    return f"{name}.{domain}." if name else f"{domain}."


def check_reads_back(line, record, domain):
    """The line says exactly what the records API says of the record."""
    owner, ttl, rtype, rdata = record_fields(line)
    assert owner == expected_owner(record, domain), (line, record)
    assert ttl == (record["ttl_sec"] or None), (line, record)
    assert rtype == record["type"], (line, record)
    plain = [t.decode() for t, q in rdata if not q]
    target = record["target"]
    if rtype in ("A", "AAAA"):
        assert plain == [target], (line, record)
    elif rtype in ("NS", "CNAME", "PTR"):
        assert plain == [target + "."], (line, record)
    elif rtype == "MX":
        assert plain == [str(record["priority"]), f"{target}." if target else "."], \
            (line, record)
    elif rtype == "SRV":
        assert plain == [str(record["priority"]), str(record["weight"]),
                         str(record["port"]), target + "."], (line, record)
    elif rtype == "TXT":
        assert all(q for _, q in rdata), line
        assert all(len(t) <= 255 for t, _ in rdata), line
        assert b"".join(t for t, _ in rdata) == target.encode(), (line, record)
    elif rtype == "CAA":
        assert [t for t, q in rdata] == [b"0", record["tag"].encode(), target.encode()], \
            (line, record)
        assert [q for _, q in rdata] == [False, False, True], line
    else:
        raise AssertionError(f"unexpected type in {line!r}")


def serial_of(lines):
    soa = lines[HEAD].split(" ")
    assert soa[1:3] == ["IN", "SOA"], lines[HEAD]
    return int(soa[5])


def check_head(lines, domain, nameservers=DEFAULT_NS, rname=None, timers=None):
    """Comment, $TTL, SOA and one NS line per configured nameserver."""
    t = dict(DEFAULTS, **(timers or {}))
    apex = f"{domain['domain']}."
    assert lines[0].startswith("; "), lines[0]
    assert lines[1] == f"$TTL {t['ttl']}", lines[1]
    soa = lines[HEAD].split(" ")
    assert soa[:5] == [apex, "IN", "SOA", f"{nameservers[0]}.",
                       rname or f"hostmaster.{domain['domain']}."], lines[HEAD]
    assert re.fullmatch(r"[0-9]+", soa[5]) and int(soa[5]) < 2 ** 32, lines[HEAD]
    assert soa[6:] == [str(t["refresh"]), str(t["retry"]), str(t["expire"]),
                       str(t["ttl"])], lines[HEAD]
    ns = lines[HEAD + 1:HEAD + 1 + len(nameservers)]
    assert ns == [f"{apex} IN NS {n}." for n in nameservers], lines
    return lines[HEAD + 1 + len(nameservers):]


def records_of(api, domain_id):
    return api.all_pages(f"/domains/{domain_id}/records")


# --------------------------------------------------------------------------
# Tests
# --------------------------------------------------------------------------

def every_type(domain):
    """Records of every type through the API's own request fields."""
    d = domain
    utf8 = "caf\u00e9 \u20ac \U0001F600 "
    return [
        {"type": "A", "name": "", "target": "192.0.2.1"},
        {"type": "A", "name": "www", "target": "192.0.2.2", "ttl_sec": 3600},
        {"type": "AAAA", "name": f"www.{d}", "target": "2001:DB8:0::1"},
        {"type": "A", "name": "mail", "target": "192.0.2.3", "ttl_sec": 300},
        {"type": "A", "name": "sip", "target": "192.0.2.4"},
        {"type": "A", "name": "host", "target": "192.0.2.5"},
        {"type": "NS", "name": "sub", "target": "ns1.other.example."},
        {"type": "MX", "name": "", "target": f"mail.{d}", "priority": 10},
        {"type": "MX", "name": "*.dev", "target": "mx.other.example", "priority": 20,
         "ttl_sec": 7200},
        {"type": "CNAME", "name": "alias", "target": f"www.{d}."},
        {"type": "TXT", "name": "", "target": "v=spf1 mx -all"},
        {"type": "TXT", "name": "_dmarc", "target": "v=DMARC1; p=none"},
        {"type": "TXT", "name": "quote", "target": 'say "hi" \\ (ok); $x @ *'},
        {"type": "TXT", "name": "long", "target": ("0123456789" * 60)[:600]},
        {"type": "TXT", "name": "utf8", "target": utf8 * 40},
        {"type": "SRV", "service": "sip", "protocol": "tcp", "target": "sip",
         "priority": 10, "weight": 20, "port": 5060, "ttl_sec": 300},
        {"type": "SRV", "service": "_xmpp", "protocol": "_udp",
         "target": "xmpp.other.example", "priority": 0, "weight": 0, "port": 0},
        {"type": "PTR", "name": "1", "target": f"host.{d}"},
        {"type": "CAA", "name": "", "tag": "issue", "target": "letsencrypt.org"},
        {"type": "CAA", "name": "", "tag": "issuewild",
         "target": "ca.example; account=12345"},
        {"type": "CAA", "name": "www", "tag": "iodef",
         "target": f"mailto:security@{d}"},
        {"type": "A", "name": "*", "target": "192.0.2.9"},
        {"type": "AAAA", "name": "*.wild", "target": "2001:db8::9", "ttl_sec": 100},
    ]


def test_zone_every_type(api, backend):
    name = new_domain_name(backend)
    dom = create_domain(api, backend, domain=name, soa_email=f"first.last@{name}")
    for body in every_type(name):
        add_record(api, dom["id"], **body)
    lines = zone(api, dom["id"])
    records = records_of(api, dom["id"])
    assert len(records) == len(every_type(name))
    rest = check_head(lines, dom, rname=f"first\\.last.{name}.")
    # One line per record, in the records API's order (by id).
    assert len(rest) == len(records), lines
    for line, record in zip(rest, records):
        check_reads_back(line, record, name)
    assert [r["id"] for r in records] == sorted(r["id"] for r in records)
    checkzone(name, lines)
    # Reading the zone changes nothing.
    assert zone(api, dom["id"]) == lines


def test_zone_null_mx_and_timers(api, backend):
    dom = create_domain(api, backend, refresh_sec=100, retry_sec=30, expire_sec=604800,
                        ttl_sec=3000)
    add_record(api, dom["id"], type="A", name="", target="192.0.2.1")
    add_record(api, dom["id"], type="MX", name="", target="", priority=0)
    lines = zone(api, dom["id"])
    rest = check_head(lines, dom, timers={"refresh": 120, "retry": 30,
                                          "expire": 604800, "ttl": 3600})
    assert rest == [f"{dom['domain']}. IN A 192.0.2.1", f"{dom['domain']}. IN MX 0 ."]
    for line, record in zip(rest, records_of(api, dom["id"])):
        check_reads_back(line, record, dom["domain"])
    checkzone(dom["domain"], lines)


def test_zone_no_records_keeps_case(api, backend):
    name = new_domain_name(backend).replace("zone", "Zone", 1)
    dom = create_domain(api, backend, domain=name, soa_email=f"a.b.c@Mail.{name}")
    lines = zone(api, dom["id"])
    assert check_head(lines, dom, rname=f"a\\.b\\.c.Mail.{name}.") == []
    assert lines[HEAD].startswith(f"{name}. IN SOA "), lines
    checkzone(name, lines)


def test_zone_disabled_and_slave(api, backend):
    dom = create_domain(api, backend)
    add_record(api, dom["id"], type="TXT", name="", target="kept")
    before = zone(api, dom["id"])
    off = written(api.put(f"/domains/{dom['id']}", json={"status": "disabled"}),
                  "PUT /domains/{id}")
    assert off["status"] == "disabled"
    # A disabled domain keeps its zone; the change still bumps the serial.
    after = zone(api, dom["id"])
    assert after[HEAD + 1:] == before[HEAD + 1:]
    assert serial_of(after) > serial_of(before)
    checkzone(dom["domain"], after)

    slave = create_domain(api, backend, type="slave", soa_email=None,
                          master_ips=["192.0.2.53"])
    lines = zone(api, slave["id"])
    assert check_head(lines, slave) == []
    checkzone(slave["domain"], lines)


def test_zone_serial_grows(api, backend, clock):
    dom = create_domain(api, backend)
    did = dom["id"]
    serials = [serial_of(zone(api, did))]

    def changed(r, what):
        written(r, what)
        s = serial_of(zone(api, did))
        assert s > serials[-1], f"{what}: serial {s} after {serials[-1]}"
        serials.append(s)

    changed(api.put(f"/domains/{did}", json={"description": "zone e2e"}),
            "PUT /domains/{id}")
    changed(api.post(f"/domains/{did}/records",
                     json={"type": "A", "name": "a", "target": "192.0.2.1"}),
            "POST /domains/{id}/records")
    rec = written(api.post(f"/domains/{did}/records",
                           json={"type": "TXT", "name": "t", "target": "one"}),
                  "POST /domains/{id}/records")
    s = serial_of(zone(api, did))
    assert s > serials[-1]
    serials.append(s)
    changed(api.put(f"/domains/{did}/records/{rec['id']}", json={"target": "two"}),
            "PUT /domains/{id}/records/{id}")
    assert any(line.endswith('IN TXT "two"') for line in zone(api, did))
    changed(api.delete(f"/domains/{did}/records/{rec['id']}"),
            "DELETE /domains/{id}/records/{id}")
    changed(api.put(f"/domains/{did}", json={"ttl_sec": 300}), "PUT /domains/{id}")
    # The serial follows the clock forward ...
    clock("advance", "2d")
    changed(api.put(f"/domains/{did}", json={"group": "later"}), "PUT /domains/{id}")
    assert serials[-1] >= serials[0] + 2 * 86400
    # ... and never goes back with it.
    clock("advance", "-7d")
    changed(api.put(f"/domains/{did}", json={"group": "earlier"}), "PUT /domains/{id}")
    assert serials[-1] == serials[-2] + 1
    # Reads leave it alone; the SOA shows the stored serial.
    api.get(f"/domains/{did}")
    api.get(f"/domains/{did}/records")
    assert serial_of(zone(api, did)) == serials[-1]
    assert backend.query(f"SELECT serial FROM domains WHERE id = {int(did)}") == \
        [[str(serials[-1])]]
    checkzone(dom["domain"], zone(api, did))


def test_zone_configured_nameservers(make_server, backend):
    ns = ["a.ns.e2e-zone.example", "b.ns.e2e-zone.example"]
    srv = make_server(extra='<Location "/v4">\n'
                            f"    AcctapiNameservers {ns[0]} {ns[1]}.\n"
                            "</Location>\n")
    c = srv.client(token=backend.token)
    try:
        dom = create_domain(c, backend)
        lines = zone(c, dom["id"])
        assert check_head(lines, dom, nameservers=ns) == []
        checkzone(dom["domain"], lines)
    finally:
        c.close()


def test_zone_not_found(api, anon, backend):
    dom = create_domain(api, backend)
    for bad in ("abc", "0", "-1", "1.5", "%20", "99999999999"):
        r = api.get(f"/domains/{bad}/zone-file")
        assert_error(r, 404, "Not found")
        assert_headers(r)
    # Another account's domain does not exist for this caller.
    account = backend.admin("account", "create", "--name", backend.unique("zone-acct-"))
    username = backend.unique("zone-user-")
    uid = backend.admin("user", "create", "--account", account, "--username", username,
                        "--email", f"{username}@example.com")
    stranger = backend.mint_token(scopes="*", user=uid)
    assert_error(anon.get(f"/domains/{dom['id']}/zone-file", token=stranger), 404,
                 "Not found")
    # After a delete the zone is gone.
    written(api.delete(f"/domains/{dom['id']}"), "DELETE /domains/{id}")
    assert_error(api.get(f"/domains/{dom['id']}/zone-file"), 404, "Not found")


def test_zone_scopes_and_grants(api, anon, backend):
    dom = create_domain(api, backend)
    path = f"/domains/{dom['id']}/zone-file"
    assert_error(anon.get(path), 401, "Invalid Token")
    r = anon.get(path, token=backend.mint_token(scopes="account:read_write"))
    assert_error(r, 401, SCOPE_REASON)
    assert zone(anon, dom["id"], token=backend.mint_token(scopes="domains:read_only"))
    # A restricted user of the account without a grant on the domain.
    uid, _ = backend.create_user(restricted=True)
    r = anon.get(path, token=backend.mint_token(scopes="*", user=uid))
    assert_error(r, 403, "Unauthorized")
    # The route answers GET only.
    r = api.post(path, json={})
    assert_error(r, 405, "Method Not Allowed")
