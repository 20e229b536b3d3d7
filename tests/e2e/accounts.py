"""Fixtures of test modules that bring their own classes of accounts.

The `acct` and `acct2` fixtures of a module whose accounts are its own
harness.Account subclass (its helpers differ from module to module):

    acct, acct2 = account_fixtures(Account)

Each is a fresh account of the shared server, closed after the test
(conftest.py's make_account); acct2 is the other account, for what one
account must not see or change of another's.

The `world` fixture of a module whose tests share what a World class sets
up on the shared server (accounts, users, objects; its close() removes
them):

    world = world_fixture(World)"""

import pytest


def account_fixtures(cls):
    @pytest.fixture
    def acct(make_account):
        return make_account(cls)

    @pytest.fixture
    def acct2(make_account):
        return make_account(cls)

    return acct, acct2


def world_fixture(cls, scope="module", server="server"):
    """A fixture of a `cls` world on `backend` and the server fixture named
    `server` (the shared server, or public_server), closed after its scope."""
    @pytest.fixture(scope=scope)
    def world(backend, request):
        w = cls(backend, request.getfixturevalue(server))
        try:
            yield w
        finally:
            w.close()

    return world
