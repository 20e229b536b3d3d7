"""Fixtures of the client suites: a server set up with the public service's
own values, the ones today's clients' tests assert (nameservers
ns1..ns5.linode.com, database hosts named a<id>-akamai-prod-<n>-default
under g2a.akamaidb.net, administrator akmadmin), as README's quickstart
section shows them."""

import pytest

from harness import Httpd

PUBLIC_VALUES = """<LocationMatch "^/v4(beta)?(/|$)">
    AcctapiNameservers ns1.linode.com ns2.linode.com ns3.linode.com ns4.linode.com ns5.linode.com
    AcctapiDatabaseHostSuffix g2a.akamaidb.net
    AcctapiDatabaseHostNames public
    AcctapiDatabaseAdminUser akmadmin
</LocationMatch>
"""


@pytest.fixture(scope="session")
def public_server(backend):
    """A server of `backend` with the public service's values (above)."""
    srv = Httpd(backend, backend.base, name="httpd-public-values", extra=PUBLIC_VALUES)
    try:
        srv.start()
        yield srv
    finally:
        srv.stop_and_check()
