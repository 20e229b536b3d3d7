"""The module behind a transaction pooler: Debian's PgBouncer 1.18 in
pool_mode = transaction in front of the suite's PostgreSQL
(harness.pgbouncer), the servers with AcctapiPreparedStatements Off.  These
tests run on the pgbouncer backend only (conftest.POOLED_ONLY); the other
modules of conftest.POOLED_SUBSET run through it too and send every route a
request that reaches the database.

Without the setting the same servers fail: with AcctapiPreparedStatements
On, 35 of the 56 tests of catalog/test_catalog.py and
dns/test_domain_records.py failed through this PgBouncer, the error log
full of `prepared statement "acct_2" already exists` (two of the module's
connections naming their statements alike in the one server session
PgBouncer gave both) and statements prepared in one transaction missing in
the next.
"""

import secrets

import pytest

import harness


def test_connections_share_a_few_server_sessions(backend, server):
    """Many requests at once over the servers' pooled connections (16 a
    child) are all answered, while PgBouncer runs them on at most its pool
    of server sessions: the module holds none to itself."""
    calls = ([("GET", "/profile", None)] * 24
             + [("POST", "/tags", {"label": f"pooled-{i}-{secrets.token_hex(3)}"})
                for i in range(24)])
    results = harness.race(server, backend.token, calls)
    assert sorted(status for status, _ in results) == [200] * len(calls), results
    servers = backend.bouncer.show("SERVERS")
    clients = [c for c in backend.bouncer.show("CLIENTS") if c["user"] == "acctapi"]
    assert 0 < len(servers) <= backend.bouncer.pool_size, servers
    assert len(clients) > len(servers), (clients, servers)


def test_the_setting_is_the_servers_not_a_locations(make_server):
    """mod_dbd's connections are the server's (or virtual host's): the
    setting may not differ between locations of one server."""
    with pytest.raises(harness.HarnessError) as e:
        make_server(name="pooler-location",
                    extra='<Location "/v4">\n    AcctapiPreparedStatements Off\n</Location>\n')
    assert "AcctapiPreparedStatements not allowed in <Location> context" in str(e.value), e.value
