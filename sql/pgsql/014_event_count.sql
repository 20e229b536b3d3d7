-- mod_acctapi schema, version 14 (PostgreSQL): the plain event page's
-- count reads the index alone.
-- GET /account/events without a filter answers `results`: a count of the
-- account's events younger than the retention cutoff (acct_event.c,
-- ACCOUNT_EVENTS).  events_account held (account_id, id) only, so that
-- count fetched every event of the account from the table to read its
-- `created`; in a table many accounts share, those rows lie on nearly
-- every page (1,000,000 events of 10 accounts: 63 ms a count).  With
-- `created` carried in the index (INCLUDE: not a key, so the page still
-- walks it by id, newest first), the count is an index-only scan (9 ms
-- there), and the page tests the cutoff before it fetches a row.  The
-- index is no larger in keys and as cheap to write, and replaces the old
-- one.  (When one account owns nearly the whole table, PostgreSQL reads
-- the table in order instead, which costs about the same.)
CREATE INDEX events_account_created ON events (account_id, id) INCLUDE (created);
DROP INDEX events_account;
ALTER INDEX events_account_created RENAME TO events_account;
