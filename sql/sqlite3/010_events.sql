-- mod_acctapi schema, version 10 (SQLite): the account's event feed.
-- One row per action the module performed, written in the transaction of
-- the change.  A timed operation's event is stored as the database's status
-- is: `status` now and the status it takes (status_next) at status_due, the
-- same moment the database's own transition is due; readers show the
-- status that is due by their clock, so nothing runs in the background and
-- every node agrees.  Rows older than 90 days are hidden from reads and
-- deleted by `acctapi-admin events prune`.
CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    action TEXT NOT NULL,
    created INTEGER NOT NULL,
    username TEXT,                           -- NULL: the operator or the system
    entity_type TEXT,                        -- NULL: no entity
    entity_id INTEGER,                       -- NULL for entities named by label (tags)
    entity_label TEXT,
    entity_url TEXT,
    secondary_type TEXT,
    secondary_id TEXT,
    secondary_label TEXT,
    secondary_url TEXT,
    message TEXT,
    status TEXT NOT NULL CHECK (status IN
        ('failed', 'finished', 'notification', 'scheduled', 'started')),
    status_next TEXT CHECK (status_next IN ('failed', 'finished')),
    status_due INTEGER,                      -- when status_next is due
    ended INTEGER,                           -- when it finished or failed
    seen INTEGER NOT NULL DEFAULT 0,
    read INTEGER NOT NULL DEFAULT 0
);
-- The Terraform provider's poll: one entity's events of one action, newest
-- first.
CREATE INDEX events_entity ON events
    (account_id, entity_type, entity_id, action, created);
-- The plain page, newest first (the rowid follows account_id).
CREATE INDEX events_account ON events (account_id);
-- Retention: prune by age.
CREATE INDEX events_created ON events (created);
