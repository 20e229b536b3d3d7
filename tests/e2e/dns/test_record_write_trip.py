"""A new record in two round trips on PostgreSQL: the domain travels with
the token lookup, so the record is read against the domain's name before
the transaction; then one pipeline, which PostgreSQL runs as one
transaction: the domain row's lock, and one statement that claims a slot,
checks the CNAME and Null MX rules, stores the record and writes the
event.  Anything that refuses the write there (a rule, or a domain that
changed since it was read) leaves nothing written, and the request takes
the long way, which says why, or writes the record when what refused it
is gone.  SQLite, where statements cost no round trip, always takes the
long way.

Each request's exchanges with the database are counted from its trace
line (exchanges.py)."""

import harness
from checks import assert_error, assert_json
from exchanges import TRACED_ONE_CHILD, ExchangeCount

CNAME_TAKEN = ("A CNAME record already has this name: no other record can share it")
SLAVE = ("Records of a slave domain cannot be added or changed: a slave domain "
         "copies its records from its master")


def make_domain(client, backend, **extra):
    body = {"domain": backend.unique("wtrip-") + ".example", "type": "master",
            "soa_email": "hostmaster@example.com"}
    body.update(extra)
    r = client.post("/domains", json=body)
    assert r.status == 200, r
    return r.json


def domain_state(backend, did):
    """What a refused write must leave as it was: the domain's count and
    serial, its records and its events."""
    (row,) = backend.query(f"SELECT record_count, serial FROM domains WHERE id = {did}")
    records = backend.query(f"SELECT count(*) FROM domain_records WHERE domain_id = {did}")
    events = backend.query("SELECT count(*) FROM events WHERE entity_type = 'domain'"
                           f" AND entity_id = {did}")
    return row, records, events


def test_record_post_round_trips(make_server, backend):
    srv = make_server(name="writetrip", extra=TRACED_ONE_CHILD)
    owner = harness.Account(backend, srv, stem="e2e-wtrip-")
    try:
        uid, restricted = owner.user(restricted=True)
        master = make_domain(owner.client, backend)
        granted = make_domain(owner.client, backend)
        slave = make_domain(owner.client, backend, type="slave", master_ips=["192.0.2.53"])
        backend.admin("grant", "entity", "--user", str(uid), "--type", "domain",
                      "--id", str(granted["id"]), "--permissions", "read_write")
        owner_name = owner.client.get("/profile").json["username"]
        restricted_name = restricted.get("/profile").json["username"]
        c = srv.client()
        count = ExchangeCount(srv, backend, r"POST /v4/domains/\d+/records")
        # Exchanges per request (PostgreSQL, SQLite), besides the test
        # clock's read that opens each request's lease:
        #  - AT_ONCE: the lookup with the domain; the lock with the
        #    write.  SQLite: the lookup; BEGIN; the claim; the
        #    checked insert; the event; COMMIT.
        #  - BODY_REFUSED: the lookup with the domain, and nothing more;
        #    SQLite: the lookup; BEGIN; the claim; ROLLBACK.
        #  - RULE_REFUSED: AT_ONCE refused, then the long way: BEGIN with
        #    the claim; the checked insert; the CNAME count; ROLLBACK.
        #    SQLite: the lookup; BEGIN; the claim; the insert; the count;
        #    ROLLBACK.
        #  - LONG_WAY (a restricted user, whose grants the long way reads):
        #    the lookup (the domain read with it is not used); BEGIN with
        #    the claim; the grant; the checked insert; the event with
        #    COMMIT.  SQLite: the lookup; BEGIN; the claim; the grant; the
        #    insert; the event; COMMIT.
        #  - SLAVE_REFUSED: the lookup with the domain, then the long way:
        #    BEGIN with the claim (no slot on a slave); the domain read
        #    again, to say why; ROLLBACK.  SQLite: the lookup; BEGIN; the
        #    claim; the domain; ROLLBACK.
        AT_ONCE, BODY_REFUSED, RULE_REFUSED = (2, 6), (1, 4), (6, 6)
        LONG_WAY, SLAVE_REFUSED = (5, 7), (4, 5)

        def post(token, principal, did, body, cost, status=200):
            return count.note(c.post(f"/domains/{did}/records", json=body, token=token),
                              principal, status, cost)

        def one_round(n):
            did = master["id"]
            before = domain_state(backend, did)
            rec = assert_json(post(owner.client.token, owner_name, did,
                                   {"type": "CNAME", "name": f"alias{n}",
                                    "target": "www.example.net"}, AT_ONCE))
            assert rec["name"] == f"alias{n}" and rec["type"] == "CNAME", rec
            # Stored with its count, serial and event, in one transaction.
            (count, serial), records, events = domain_state(backend, did)
            assert int(count) == int(before[0][0]) + 1, (before, count)
            assert int(serial) > int(before[0][1]), (before, serial)
            assert int(records[0][0]) == int(before[1][0][0]) + 1
            assert int(events[0][0]) == int(before[2][0][0]) + 1
            assert backend.query(
                "SELECT action, username, entity_label FROM events WHERE entity_type = 'domain'"
                f" AND entity_id = {did} ORDER BY id DESC LIMIT 1") == \
                [["dns_record_create", owner_name, master["domain"]]]
            # A fully qualified name, read against the domain's name.
            rec = assert_json(post(owner.client.token, owner_name, did,
                                   {"type": "A", "name": f"host{n}.{master['domain']}.",
                                    "target": "192.0.2.10"}, AT_ONCE))
            assert rec["name"] == f"host{n}", rec
            before = domain_state(backend, did)
            assert_error(post(owner.client.token, owner_name, did,
                              {"type": "A", "name": "bad", "target": "192.0.2.300"},
                              BODY_REFUSED, status=400), 400, field="target")
            # The CNAME's name is taken: refused by the rule in the write,
            # then said by the long way; nothing written.
            assert_error(post(owner.client.token, owner_name, did,
                              {"type": "A", "name": f"alias{n}", "target": "192.0.2.1"},
                              RULE_REFUSED, status=400), 400, CNAME_TAKEN, field="name")
            assert domain_state(backend, did) == before
            # A restricted user's write goes the long way, its grant read.
            rec = assert_json(post(restricted.token, restricted_name, granted["id"],
                                   {"type": "TXT", "name": f"t{n}", "target": "v"}, LONG_WAY))
            assert rec["name"] == f"t{n}", rec
            before = domain_state(backend, slave["id"])
            assert_error(post(owner.client.token, owner_name, slave["id"],
                              {"type": "A", "name": "www", "target": "192.0.2.1"},
                              SLAVE_REFUSED, status=400), 400, SLAVE)
            assert domain_state(backend, slave["id"]) == before

        one_round(1)
        count.count_from_here()
        one_round(2)
        c.close()
        srv.stop()   # every trace line written
        count.check()
    finally:
        owner.close()

