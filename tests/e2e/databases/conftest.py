"""Fixtures of the managed-database tests: accounts of their own
(dbaccounts.Account: an owner, its client and the helpers that create and
wait on databases), closed after the test."""

import pytest

from dbaccounts import Account


@pytest.fixture
def acct(backend, server):
    a = Account(backend, server)
    yield a
    a.close()


@pytest.fixture
def acct2(backend, server):
    """A second account, for what another account must not see or change."""
    a = Account(backend, server)
    yield a
    a.close()
