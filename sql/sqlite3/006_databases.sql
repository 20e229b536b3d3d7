-- mod_acctapi schema, version 6 (SQLite): managed MySQL and PostgreSQL databases.
-- A database's status is a stored fact plus the transition pending on it
-- (status_next at status_due); any request touching the account's databases
-- first applies the transitions that are due (acct_db_settle).

CREATE TABLE databases (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    engine TEXT NOT NULL CHECK (engine IN ('mysql', 'postgresql')),
    version TEXT NOT NULL,
    label TEXT NOT NULL,
    region TEXT NOT NULL,
    type TEXT NOT NULL,
    cluster_size INTEGER NOT NULL DEFAULT 1,
    encrypted INTEGER NOT NULL DEFAULT 0,
    ssl_connection INTEGER NOT NULL DEFAULT 1,
    replication_type TEXT NOT NULL DEFAULT 'none',
    replication_commit_type TEXT,            -- PostgreSQL only
    allow_list TEXT NOT NULL DEFAULT '[]',   -- JSON array of addresses/CIDRs
    port INTEGER NOT NULL,
    host_primary TEXT,                       -- NULL until provisioned
    host_secondary TEXT,
    status TEXT NOT NULL,
    status_next TEXT,                        -- pending transition, or NULL
    status_due INTEGER,                      -- when it is due
    total_disk_size_gb INTEGER NOT NULL DEFAULT 0,
    used_disk_size_gb INTEGER NOT NULL DEFAULT 0,
    updates TEXT NOT NULL,                   -- JSON maintenance window
    root_username TEXT NOT NULL,
    root_password_sealed TEXT NOT NULL,      -- AES-256-GCM, AcctapiSecretKeyFile
    credentials_reset INTEGER,               -- last reset; a restore after it fails
    ca_certificate TEXT,                     -- PEM of the cluster's CA
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL,
    UNIQUE (account_id, label)
);
CREATE INDEX databases_due ON databases (account_id, status_due);

CREATE TABLE database_backups (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    database_id INTEGER NOT NULL REFERENCES databases (id) ON DELETE CASCADE,
    type TEXT NOT NULL CHECK (type IN ('snapshot', 'auto')),
    label TEXT NOT NULL,
    target TEXT NOT NULL DEFAULT 'primary',
    deleted INTEGER NOT NULL DEFAULT 0,      -- a deleted automatic backup, kept until it expires
    created INTEGER NOT NULL,                -- when the backup finishes
    UNIQUE (database_id, type, created)
);
CREATE INDEX database_backups_db ON database_backups (database_id, id);
