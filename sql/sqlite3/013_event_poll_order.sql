-- mod_acctapi schema, version 13 (SQLite): nothing to change.  The
-- PostgreSQL migration adds id to the index of the Terraform provider's
-- event poll so that its page comes in index order; an SQLite index ends
-- in the rowid (events.id) already, and the poll's page is read from
-- events_entity in order (EXPLAIN QUERY PLAN: no sort).
SELECT 1;
