-- mod_acctapi schema, version 1 (SQLite).
-- Times are epoch seconds (INTEGER); booleans are 0/1; JSON documents are TEXT.

CREATE TABLE schema_version (
    version INTEGER NOT NULL
);

CREATE TABLE accounts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    created INTEGER NOT NULL
);

CREATE TABLE users (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    username TEXT NOT NULL,
    email TEXT NOT NULL,
    restricted INTEGER NOT NULL DEFAULT 0,
    authentication_type TEXT NOT NULL DEFAULT 'password',
    authorized_keys TEXT,
    email_notifications INTEGER NOT NULL DEFAULT 1,
    ip_whitelist_enabled INTEGER NOT NULL DEFAULT 0,
    shell_auth_method TEXT NOT NULL DEFAULT 'password_keys',
    timezone TEXT NOT NULL DEFAULT 'US/Eastern',
    two_factor_auth INTEGER NOT NULL DEFAULT 0,
    verified_phone_number TEXT,
    referral_code TEXT NOT NULL,
    created INTEGER NOT NULL
);
CREATE UNIQUE INDEX users_username_key ON users (lower(username));
CREATE INDEX users_account ON users (account_id);

-- Access tokens: personal access tokens ('pat') and OAuth app tokens ('app').
-- Only the SHA-256 of a token is stored, plus its first 16 characters.
CREATE TABLE tokens (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind TEXT NOT NULL DEFAULT 'pat' CHECK (kind IN ('pat', 'app')),
    label TEXT,
    token_hash TEXT NOT NULL UNIQUE,
    token_prefix TEXT NOT NULL,
    scopes TEXT NOT NULL,
    created INTEGER NOT NULL,
    expiry INTEGER,
    revoked INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tokens_user ON tokens (user_id);

-- Account-level grants of restricted users.  A missing row means "none".
CREATE TABLE user_global_grants (
    user_id INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    account_access TEXT CHECK (account_access IN ('read_only', 'read_write')),
    add_databases INTEGER NOT NULL DEFAULT 0,
    add_domains INTEGER NOT NULL DEFAULT 0,
    add_firewalls INTEGER NOT NULL DEFAULT 0,
    add_images INTEGER NOT NULL DEFAULT 0,
    add_instances INTEGER NOT NULL DEFAULT 0,
    add_monitoring INTEGER NOT NULL DEFAULT 0,
    add_nodebalancers INTEGER NOT NULL DEFAULT 0,
    add_stackscripts INTEGER NOT NULL DEFAULT 0,
    add_volumes INTEGER NOT NULL DEFAULT 0,
    add_vpcs INTEGER NOT NULL DEFAULT 0,
    cancel_account INTEGER NOT NULL DEFAULT 0,
    monitoring_subscription INTEGER NOT NULL DEFAULT 0
);

-- The fleet-wide test clock: an offset added to the servers' UTC time where
-- AcctapiTestClock is On.  Exactly one row.
CREATE TABLE clock (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    offset_seconds INTEGER NOT NULL DEFAULT 0
);
INSERT INTO clock (id, offset_seconds) VALUES (1, 0);

-- Catalogues (seeded by 002_catalog.sql; operators edit them with SQL).
CREATE TABLE regions (
    id TEXT PRIMARY KEY,
    label TEXT NOT NULL,
    country TEXT NOT NULL,
    capabilities TEXT NOT NULL,            -- JSON array of strings
    status TEXT NOT NULL CHECK (status IN ('ok', 'outage')),
    resolvers_ipv4 TEXT NOT NULL,          -- comma-separated addresses
    resolvers_ipv6 TEXT NOT NULL,
    site_type TEXT NOT NULL
);

CREATE TABLE region_availability (
    region TEXT NOT NULL REFERENCES regions (id) ON DELETE CASCADE,
    plan TEXT NOT NULL,
    available INTEGER NOT NULL,
    PRIMARY KEY (region, plan)
);

CREATE TABLE compute_types (
    id TEXT PRIMARY KEY,
    label TEXT NOT NULL,
    class TEXT NOT NULL CHECK (class IN ('nanode', 'standard', 'dedicated', 'premium', 'gpu', 'highmem')),
    disk INTEGER NOT NULL,
    memory INTEGER NOT NULL,
    transfer INTEGER NOT NULL,
    vcpus INTEGER NOT NULL,
    gpus INTEGER NOT NULL,
    network_out INTEGER NOT NULL,
    price TEXT NOT NULL,                   -- JSON {"hourly": n, "monthly": n}
    region_prices TEXT NOT NULL,           -- JSON array of {"id", "hourly", "monthly"}
    addons TEXT NOT NULL,                  -- JSON {"backups": {"price": {...}, "region_prices": [...]}}
    successor TEXT
);

CREATE TABLE database_engines (
    id TEXT PRIMARY KEY,                   -- engine/version
    engine TEXT NOT NULL,
    version TEXT NOT NULL
);
