-- mod_acctapi schema, version 9: what the hot paths need.
-- (PostgreSQL also makes rate_counters unlogged; SQLite has no such thing.)
-- Record writes look for a clashing CNAME by case-insensitive name.
CREATE INDEX domain_records_name_ci ON domain_records (domain_id, lower(name));
