"""GET /profile answers from the token lookup's row: the lookup of that
route alone brings the profile's columns (the other routes' lookup leaves
them out), so the profile costs one exchange with the database, and shows
what was just written.

LogLevel acctapi:debug's trace line counts each request's exchanges
(PostgreSQL: round trips; SQLite: statements); requests over one
connection trace in order."""

import re

import harness
from checks import assert_json

TRACE = re.compile(r"ACCT00059: GET /v4/profile(\S*): route \S+, principal \S+ \(user \d+, "
                   r"token \d+\), status (\d+), \d+ us, \d+ database connection\(s\), "
                   r"(\d+) database exchange\(s\) \((\d+) to set a connection up\)")


def test_profile_comes_with_the_lookup(make_server, backend):
    srv = make_server(name="profilerow", extra="LogLevel warn acctapi:debug\n")
    account = harness.Account(backend, srv, stem="e2e-profilerow-")
    try:
        check_profile(srv, srv.client(token=account.client.token))
    finally:
        account.close()


def check_profile(srv, c):
    start = srv.log_size()
    first = assert_json(c.get("/profile"))
    for key in ("email", "timezone", "authorized_keys", "two_factor_auth",
                "verified_phone_number", "referrals", "restricted", "uid", "username",
                "authentication_type", "email_notifications", "ip_whitelist_enabled",
                "lish_auth_method"):
        assert key in first, first
    r = c.put("/profile", json={"timezone": "Europe/Paris", "email_notifications": False})
    assert r.status == 200, r
    # What the lookup reads is the row as it is now.
    again = assert_json(c.get("/profile"))
    assert again == assert_json(r), (again, r.json)
    assert again["timezone"] == "Europe/Paris" and again["email_notifications"] is False
    c.close()
    srv.stop()
    traces = [m.groups() for m in map(TRACE.search, srv.log_text(start).splitlines()) if m]
    assert [(t[0], t[1]) for t in traces] == [("", "200"), ("", "200")], traces
    # The second profile, its statements prepared: the lookup, and the read
    # of the test clock (AcctapiTestClock On) that opens each request's lease.
    _, _, exchanges, setup = traces[1]
    assert int(exchanges) - int(setup) - 1 == 1, traces[1]
