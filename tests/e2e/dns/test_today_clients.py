"""What today's clients of the public API send to /domains, byte for byte as
their own tests send it (docs/conventions.md, "Today's clients"): accepted where the
public API accepts it ("never stricter than the public API"), refused with
the reason text the client's test asserts where it is refused ("error
texts").  Both backends.

The requests are copied from the clients' tests:

- linode_api4-python test/integration/conftest.py, fixture test_domain:
  domain_create(domain=<ns>-example.com, soa_email=..., tags=["test-tag"]),
  then record_create("SRV", target="rc_test", priority=10, weight=5, port=80,
  service="service_test"), which sends {"type": "SRV", **kwargs} in that
  order; its test_clone clones the domain.
- linode-cli tests/integration/domains (test_domain_master.py,
  test_domain_slave.py, test_domain_tags.py, 5.50 to 5.68) and
  tests/integration/tags/test_tags.py: `domains create` and `tags create`
  with the options each test passes (the CLI sends only the options given).
- terraform-provider-linode linode/domainrecord/tmpl/data_caa.gotf (a CAA
  record named caa_test) and srv.gotf.
"""

import secrets
import time

import pytest

import harness
from checks import ABSENT, assert_error, assert_json
from named import published_zone_problem


class Account(harness.Account):
    def __init__(self, backend, server):
        super().__init__(backend, server, stem="e2e-today-")

    def ok(self, r):
        assert r.status == 200, r
        return assert_json(r)

    def domain(self, **body):
        return self.ok(self.client.post("/domains", json=body))

    def master(self, **extra):
        return self.domain(domain=f"{time.time_ns()}-{secrets.token_hex(2)}-example.com",
                           type="master", soa_email="hostmaster@example.net", **extra)

    def add(self, domain_id, body):
        return self.ok(self.client.post(f"/domains/{domain_id}/records", json=body))

    def zone(self, domain_id):
        return self.ok(self.client.get(f"/domains/{domain_id}/zone-file"))["zone_file"]


@pytest.fixture
def acct(make_account):
    return make_account(Account)


def record(type, name, target, priority=0, weight=0, port=0, service=None,
           protocol=None, ttl_sec=0, tag=None):
    return {"type": type, "name": name, "target": target, "priority": priority,
            "weight": weight, "port": port, "service": service, "protocol": protocol,
            "ttl_sec": ttl_sec, "tag": tag}


def stored(doc):
    return {k: v for k, v in doc.items() if k not in ("id", "created", "updated")}


def checkzone(origin, lines):
    problem = published_zone_problem(origin, lines)
    assert problem is None, f"named-checkzone {origin}:\n{problem}"


# --------------------------------------------------------------------------
# linode_api4's domain fixture
# --------------------------------------------------------------------------

def test_linode_api4_domain_fixture(acct):
    name = f"{time.time_ns()}-example.com"
    d = acct.domain(domain=name, type="master", soa_email="pathiel-test123@linode.com",
                    tags=["test-tag"])
    srv = acct.add(d["id"], {"type": "SRV", "target": "rc_test", "priority": 10,
                             "weight": 5, "port": 80, "service": "service_test"})
    want = record("SRV", "_service_test._tcp", f"rc_test.{name}", 10, 5, 80,
                  "service_test", "tcp")
    assert stored(srv) == want, srv

    # read back: the record, the list (records.first()), the zone file
    assert acct.ok(acct.client.get(f"/domains/{d['id']}/records/{srv['id']}")) == srv
    listed = acct.ok(acct.client.get(f"/domains/{d['id']}/records"))["data"]
    assert listed == [srv]
    lines = acct.zone(d["id"])
    assert f"_service_test._tcp.{name}. IN SRV 10 5 80 rc_test.{name}." in lines, lines
    checkzone(name, lines)

    # test_clone: the clone holds the same record
    clone = f"example.clone-{time.time_ns()}-inttestsdk.org"
    c = acct.ok(acct.client.post(f"/domains/{d['id']}/clone", json={"domain": clone}))
    copied = acct.ok(acct.client.get(f"/domains/{c['id']}/records"))["data"]
    assert [stored(r) for r in copied] == [want]
    assert f"_service_test._tcp.{clone}. IN SRV 10 5 80 rc_test.{name}." in \
        acct.zone(c["id"])


# --------------------------------------------------------------------------
# SRV: protocol optional, underscores
# --------------------------------------------------------------------------

def test_srv_protocol_defaults_to_tcp(acct):
    d = acct.master()
    did, dom = d["id"], d["domain"]
    base = {"type": "SRV", "target": "sip", "priority": 1, "weight": 2, "port": 5060}
    r = acct.add(did, dict(base, service="sip"))
    assert (r["name"], r["service"], r["protocol"]) == ("_sip._tcp", "sip", "tcp"), r
    r = acct.add(did, dict(base, service="xmpp", protocol=None))
    assert (r["name"], r["protocol"]) == ("_xmpp._tcp", "tcp"), r
    r = acct.add(did, dict(base, service="_sip_tls", protocol="_my_proto",
                           target="sip_1.example.net."))
    assert stored(r) == record("SRV", "_sip_tls._my_proto", "sip_1.example.net", 1, 2,
                               5060, "sip_tls", "my_proto"), r
    # an update keeps the stored protocol; the name follows the service
    r = acct.ok(acct.client.put(f"/domains/{did}/records/{r['id']}",
                                json={"service": "svc_two"}))
    assert (r["name"], r["protocol"]) == ("_svc_two._my_proto", "my_proto"), r
    lines = acct.zone(did)
    assert f"_svc_two._my_proto.{dom}. IN SRV 1 2 5060 sip_1.example.net." in lines, lines
    checkzone(dom, lines)


# --------------------------------------------------------------------------
# Names with underscores, negative seconds
# --------------------------------------------------------------------------

UNDERSCORED = [
    # the Terraform provider's CAA data-source test
    ({"name": "caa_test", "type": "CAA", "tag": "issue", "target": "example.com"},
     record("CAA", "caa_test", "example.com", tag="issue")),
    ({"type": "A", "name": "_a", "target": "192.0.2.1"},
     record("A", "_a", "192.0.2.1")),
    ({"type": "AAAA", "name": "v6_host", "target": "2001:db8::1"},
     record("AAAA", "v6_host", "2001:db8::1")),
    ({"type": "NS", "name": "_sub", "target": "ns_1.example.net"},
     record("NS", "_sub", "ns_1.example.net")),
    ({"type": "CNAME", "name": "_alias", "target": "target_1.example.net"},
     record("CNAME", "_alias", "target_1.example.net")),
    ({"type": "PTR", "name": "_10", "target": "host_10.example.net."},
     record("PTR", "_10", "host_10.example.net")),
    ({"type": "TXT", "name": "_acme-challenge", "target": "x", "ttl_sec": -300},
     record("TXT", "_acme-challenge", "x")),
]


def test_names_with_underscores(acct):
    d = acct.master()
    for body, want in UNDERSCORED:
        assert stored(acct.add(d["id"], body)) == want, body
    # MX names keep the contract's rule 3: letters, digits, hyphens
    r = acct.client.post(f"/domains/{d['id']}/records",
                         json={"type": "MX", "name": "mail_1", "target": "mx.example.net"})
    assert_error(r, 400, field="name")
    checkzone(d["domain"], acct.zone(d["id"]))


def test_domain_names_timers_and_soa_mailboxes(acct):
    stem = f"{time.time_ns()}-{secrets.token_hex(2)}"
    d = acct.domain(domain=f"_x.{stem}_1.example", type="master",
                    soa_email=".dns..admin.@localhost", expire_sec=-1, refresh_sec=-300,
                    retry_sec=-1, ttl_sec=-86400)
    assert d["domain"] == f"_x.{stem}_1.example"
    assert (d["expire_sec"], d["refresh_sec"], d["retry_sec"], d["ttl_sec"]) == (0, 0, 0, 0)
    assert d["soa_email"] == ".dns..admin.@localhost"
    lines = acct.zone(d["id"])
    assert "\\.dns\\.\\.admin\\..localhost." in lines[2], lines
    checkzone(d["domain"], lines)
    d = acct.ok(acct.client.put(f"/domains/{d['id']}", json={"ttl_sec": -5}))
    assert d["ttl_sec"] == 0
    # what no zone can carry: a wildcard zone, a mailbox label over 63
    r = acct.client.post("/domains", json={"domain": f"*.{stem}.example", "type": "master",
                                           "soa_email": "a@example.net"})
    assert_error(r, 400, field="domain")
    r = acct.client.post("/domains", json={"domain": f"{stem}.example", "type": "master",
                                           "soa_email": "a" * 64 + "@example.net"})
    assert_error(r, 400, "soa_email must be a valid e-mail address whose local part is "
                         "at most 63 characters", "soa_email")


# --------------------------------------------------------------------------
# The reasons the clients' tests assert, from the requests they send
# --------------------------------------------------------------------------

def cli_name():
    return f"example.bc-{time.time_ns()}.com"


ASSERTED = [
    # linode-cli test_domain_master.py::test_create_domain_fails_without_spcified_type
    ("POST", "/domains", lambda: {"domain": cli_name(), "soa_email": "pthiel@linode.com"},
     400, "type", "type is required"),
    # linode-cli test_domain_master.py::test_create_master_domain_fails_without_soa_email
    ("POST", "/domains", lambda: {"type": "master", "domain": cli_name()},
     400, "soa_email", "soa_email required when type=master"),
    # linode-cli test_domain_slave.py::test_create_slave_domain_fails_without_master_dns_server
    ("POST", "/domains", lambda: {"type": "slave", "domain": f"{time.time_ns()}-example.com"},
     400, "master_ips", "You need at least one master DNS server IP address for this zone."),
    # linode-cli tags/test_tags.py::test_fail_to_create_tag_shorter_than_three_char
    ("POST", "/tags", lambda: {"label": "aa"},
     400, "label", "Length must be 3-50 characters"),
    # linode_api4 linode_client/test_errors.py::test_error_404 (on /v4beta there;
    # /v4beta answers as /v4 does: test_client_behaviours.py)
    ("GET", "/invalid/endpoint", lambda: None, 404, ABSENT, "Not found"),
]


@pytest.mark.parametrize("method,path,body,status,field,reason", ASSERTED,
                         ids=["no-type", "no-soa-email", "slave-no-masters", "tag-aa",
                              "no-route"])
def test_reasons_clients_assert(acct, method, path, body, status, field, reason):
    payload = body()
    r = acct.client.request(method, path, **({} if payload is None else {"json": payload}))
    assert_error(r, status, reason, field)


@pytest.mark.parametrize("type_", ["master", "slave"])
def test_cli_domain_with_bad_tag_fails(acct, type_):
    """linode-cli test_domain_tags.py: --tag "*" on create fails (status only)."""
    name = f"{time.time_ns()}example.com"
    r = acct.client.post("/domains", json={
        "type": type_, "domain": name, "soa_email": f"{time.time_ns()}pthiel@linode.com",
        "tags": ["*"]})
    assert r.status == 400, r
    assert any(e.get("field") == "tags[0]" for e in r.json["errors"]), r
