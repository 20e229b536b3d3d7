"""Fixtures of the managed-database tests: accounts of their own
(dbaccounts.Account: an owner, its client and the helpers that create and
wait on databases), closed after the test (conftest.py's make_account)."""

import pytest

from dbaccounts import Account


@pytest.fixture
def acct(make_account):
    return make_account(Account)


@pytest.fixture
def acct2(make_account):
    """A second account, for what another account must not see or change."""
    return make_account(Account)
