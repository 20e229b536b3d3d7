"""Fixtures of the managed-database tests: accounts of their own
(dbaccounts.Account: an owner, its client and the helpers that create and
wait on databases), closed after the test; acct2 for what another account
must not see or change."""

from accounts import account_fixtures
from dbaccounts import Account

acct, acct2 = account_fixtures(Account)
