-- mod_acctapi schema, version 9: what the hot paths need.
-- Rate-limit counters are rewritten on every request; they are worth nothing
-- after a crash (a window lasts a minute), so they skip the write-ahead log:
-- no WAL record and no flush per request.  (Unlogged tables are emptied by
-- crash recovery and not copied to standbys: a promoted standby starts its
-- windows from zero.)
ALTER TABLE rate_counters SET UNLOGGED;
-- Record writes look for a clashing CNAME by case-insensitive name.
CREATE INDEX domain_records_name_ci ON domain_records (domain_id, lower(name));
