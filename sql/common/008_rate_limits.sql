-- mod_acctapi schema, version 8: rate-limit counters, shared by every child
-- of every node that uses this database.  One row per bucket (a token or a
-- client address, and the budget: lists or other requests) and fixed
-- one-minute window; rows of past windows are deleted as new windows start.
CREATE TABLE rate_counters (
    bucket TEXT NOT NULL,
    window_start BIGINT NOT NULL,
    hits BIGINT NOT NULL,
    PRIMARY KEY (bucket, window_start)
);
CREATE INDEX rate_counters_window ON rate_counters (window_start);
