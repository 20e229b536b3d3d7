-- mod_acctapi schema, version 14 (SQLite): nothing to change.  The
-- PostgreSQL migration carries `created` in the index of the plain event
-- page so that the page's count of the account's events reads the index
-- alone.  SQLite counts them from the index alone already: events_entity
-- begins with account_id and holds created (EXPLAIN QUERY PLAN: SEARCH
-- USING COVERING INDEX).
SELECT 1;
