"""The event list's page travels with the token lookup (GET /account/events
is the route the Terraform provider polls while it waits): on PostgreSQL
the lookup and the page are one round trip, and on both backends the page
read before the principal is known is used only when it is what the
principal would have read.  Each request's exchanges with the database
are counted from its trace line (exchanges.py)."""

import hashlib
import json

import harness
from checks import assert_envelope, assert_error, assert_json
from exchanges import TRACED_ONE_CHILD, ExchangeCount, trace_pattern

SCOPE_REASON = "Your OAuth token is not authorized to use this endpoint."
EVENT_REQUESTS = r"GET /v4/account/events(?:/\w+)?"


def poll_filter(domain_id):
    """linodego's EventPoller filter, for a domain's create event."""
    return json.dumps({"+order": "desc", "+order_by": "created", "action": "dns_zone_create",
                       "entity.id": domain_id, "entity.type": "domain"},
                      separators=(",", ":"))


def make_domain(client, backend):
    r = client.post("/domains", json={"domain": backend.unique("trip-") + ".example",
                                      "type": "master", "soa_email": "hostmaster@example.com"})
    assert r.status == 200, r
    return r.json["id"]


def test_page_goes_with_the_token_lookup(make_server, backend):
    srv = make_server(name="polltrip", extra=TRACED_ONE_CHILD)
    owner = harness.Account(backend, srv, stem="e2e-trip-")
    other = harness.Account(backend, srv, stem="e2e-trip-other-")
    try:
        mine = [make_domain(owner.client, backend) for _ in range(2)]
        theirs = make_domain(other.client, backend)
        uid, restricted = owner.user(restricted=True)
        backend.admin("grant", "entity", "--user", str(uid), "--type", "domain",
                      "--id", str(mine[1]), "--permissions", "read_only")
        no_scope = backend.mint_token(scopes="domains:read_only", user=owner.uid)
        c = srv.client()
        count = ExchangeCount(srv, backend, EVENT_REQUESTS)
        # Per request (PostgreSQL, SQLite), besides the test clock's read:
        # the owner's read goes with the lookup: one round trip on
        # PostgreSQL; SQLite runs it after the lookup.  A restricted user's
        # own read comes after them.  A refusal found before the read is
        # built (a malformed id, an invalid X-Filter) sends the lookup only;
        # SQLite skips the read of an unknown token.
        WITH_LOOKUP, OWN_READ, LOOKUP_ONLY = (1, 2), (2, 3), (1, 1)

        def poll(token, xfilter, principal, cost=WITH_LOOKUP, status=200):
            r = count.note(c.get("/account/events", token=token, xfilter=xfilter),
                           principal, status, cost)
            return assert_envelope(assert_json(r)) if status == 200 else r

        def one_event(token, event_id, principal, cost=WITH_LOOKUP, status=200):
            """linodego's WaitForEventFinished: the event by id."""
            r = count.note(c.get(f"/account/events/{event_id}", token=token),
                           principal, status, cost)
            return assert_json(r) if status == 200 else r

        owner_name = owner.client.get("/profile").json["username"]
        restricted_name = restricted.get("/profile").json["username"]
        other_name = other.client.get("/profile").json["username"]

        def one_round():
            # The owner's poll, and the event it found.
            (event,) = poll(owner.client.token, poll_filter(mine[0]), owner_name)
            assert event["entity"]["id"] == mine[0] and event["action"] == "dns_zone_create"
            assert one_event(owner.client.token, event["id"], owner_name) == event
            # Every event of the account, newest first: the same as one by one.
            page = poll(owner.client.token, None, owner_name)
            domain_events = [e for e in page if e["entity"]["type"] == "domain"]
            assert [e["entity"]["id"] for e in domain_events] == [mine[1], mine[0]]
            for e in page:
                assert one_event(owner.client.token, e["id"], owner_name) == e
            # Another account's token reads its own account, never ours.
            (their_event,) = poll(other.client.token, poll_filter(theirs), other_name)
            assert their_event["entity"]["id"] == theirs
            assert poll(other.client.token, poll_filter(mine[0]), other_name) == []
            assert_error(one_event(other.client.token, event["id"], other_name,
                                   status=404), 404)
            # A restricted user: what was read with the lookup is the whole
            # account's, so the handler reads its own, with its grants; it
            # shows what the owner's shows.
            assert poll(restricted.token, poll_filter(mine[0]), restricted_name, OWN_READ) == []
            (granted,) = poll(restricted.token, poll_filter(mine[1]), restricted_name, OWN_READ)
            assert granted["entity"]["id"] == mine[1]
            assert one_event(restricted.token, granted["id"], restricted_name, OWN_READ) == \
                one_event(owner.client.token, granted["id"], owner_name)
            assert_error(one_event(restricted.token, event["id"], restricted_name, OWN_READ,
                                   status=404), 404)
            # Refusals: what was read with the lookup is never shown.
            assert_error(poll(no_scope, poll_filter(mine[0]), owner_name, status=401),
                         401, SCOPE_REASON)
            assert_error(one_event(no_scope, event["id"], owner_name, status=401),
                         401, SCOPE_REASON)
            assert_error(poll("0" * 64, poll_filter(mine[0]), "-", LOOKUP_ONLY, status=401), 401)
            assert_error(poll(owner.client.token, '{"secondary_entity.id":1}', owner_name,
                              LOOKUP_ONLY, status=400),
                         400, "Cannot filter on secondary_entity.id", field="X-Filter")
            assert_error(one_event(owner.client.token, "first", owner_name, LOOKUP_ONLY,
                                   status=404), 404)

        one_round()
        count.count_from_here()
        one_round()
        c.close()
        srv.stop()   # every trace line written
        count.check()
    finally:
        owner.close()
        other.close()


def test_a_hint_the_lookup_contradicts_is_dropped(make_server, backend):
    """After its first request a process reads by the account it saw the
    token in (no subquery for PostgreSQL to run), a hint the lookup then
    confirms.  A token whose account changed since (here its row moved to
    another account's user, as only an operator with SQL could) gets the
    rows of its account now: those read by the stale hint are dropped, and
    the handler reads again, once."""
    srv = make_server(name="pollhint", extra=TRACED_ONE_CHILD)
    before = harness.Account(backend, srv, stem="e2e-hint-")
    after = harness.Account(backend, srv, stem="e2e-hint-after-")
    try:
        old_domain = make_domain(before.client, backend)
        new_domain = make_domain(after.client, backend)
        token = backend.mint_token(scopes="events:read_only", user=before.uid)
        c = srv.client()
        start = srv.log_size()
        exchanges = []

        def get(path, cost, status=200, **kw):
            r = c.get(path, token=token, **kw)
            exchanges.append(cost[0] if backend.kind == "pgsql" else cost[1])
            assert r.status == status, r
            return assert_json(r) if status == 200 else r

        # Costs as in test_page_goes_with_the_token_lookup.
        WITH_LOOKUP, READ_AGAIN = (1, 2), (2, 3)
        # The first sight of the token in this process, then by its hint.
        (event,) = get("/account/events", WITH_LOOKUP, xfilter=poll_filter(old_domain))["data"]
        for _ in range(2):
            assert get("/account/events", WITH_LOOKUP,
                       xfilter=poll_filter(old_domain))["data"] == [event]
            assert get(f"/account/events/{event['id']}", WITH_LOOKUP) == event
        backend.execute(f"UPDATE tokens SET user_id = {after.uid} WHERE token_hash = "
                        f"'{hashlib.sha256(token.encode()).hexdigest()}'")
        # Read by the stale hint, which named the old account: dropped.
        assert get("/account/events", READ_AGAIN,
                   xfilter=poll_filter(old_domain))["data"] == []
        # The hint is mended: the new account's rows, in one round trip.
        assert_error(get(f"/account/events/{event['id']}", WITH_LOOKUP, status=404), 404)
        (theirs,) = get("/account/events", WITH_LOOKUP,
                        xfilter=poll_filter(new_domain))["data"]
        assert theirs["entity"]["id"] == new_domain
        assert get(f"/account/events/{theirs['id']}", WITH_LOOKUP) == theirs
        c.close()
        srv.stop()
        traces = [m.groups() for m in map(trace_pattern(EVENT_REQUESTS).search,
                                          srv.log_text(start).splitlines()) if m]
        assert len(traces) == len(exchanges), traces
        # The first request may check the schema: counted from the second.
        got = [int(t[2]) - int(t[3]) - 1 for t in traces]
        assert got[1:] == exchanges[1:], list(zip(got, exchanges))
    finally:
        before.close()
        after.close()
