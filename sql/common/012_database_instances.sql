-- mod_acctapi schema, version 12 (both dialects): managed databases as
-- today's public API serves them.
--   engine_config    the engine's settings (JSON object, the public shape:
--                    {"mysql": {...}, "binlog_retention_period": n} or
--                    {"pg": {...}, ...}); '{}' on rows made before this
--                    version, which answer the engine's defaults
--   platform         "rdbms-default": every database here runs on the
--                    public API's current platform
--   private_network  JSON {vpc_id, subnet_id, public_access}, or NULL
--   fork_source, fork_restore_time
--                    the database and the moment a fork was made from
--                    (NULL for a database created empty)
ALTER TABLE databases ADD COLUMN engine_config TEXT NOT NULL DEFAULT '{}';
ALTER TABLE databases ADD COLUMN platform TEXT NOT NULL DEFAULT 'rdbms-default';
ALTER TABLE databases ADD COLUMN private_network TEXT;
ALTER TABLE databases ADD COLUMN fork_source BIGINT;
ALTER TABLE databases ADD COLUMN fork_restore_time BIGINT;
