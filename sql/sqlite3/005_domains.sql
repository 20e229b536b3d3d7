-- mod_acctapi schema, version 5 (SQLite): DNS domains, their records, tags.

CREATE TABLE domains (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    domain TEXT NOT NULL,                -- as the caller wrote it
    domain_key TEXT NOT NULL UNIQUE,     -- lower(domain): unique across all accounts
    type TEXT NOT NULL CHECK (type IN ('master', 'slave')),
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
    description TEXT NOT NULL DEFAULT '',
    group_name TEXT NOT NULL DEFAULT '',
    soa_email TEXT,
    master_ips TEXT NOT NULL DEFAULT '[]',   -- JSON array of addresses
    axfr_ips TEXT NOT NULL DEFAULT '[]',     -- JSON array of addresses
    expire_sec INTEGER NOT NULL DEFAULT 0,
    refresh_sec INTEGER NOT NULL DEFAULT 0,
    retry_sec INTEGER NOT NULL DEFAULT 0,
    ttl_sec INTEGER NOT NULL DEFAULT 0,
    serial INTEGER NOT NULL DEFAULT 0,       -- SOA serial, bumped by every change
    record_count INTEGER NOT NULL DEFAULT 0, -- kept with the records: the 12,000 limit
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL
);
CREATE INDEX domains_account ON domains (account_id, id);

CREATE TABLE domain_records (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    domain_id INTEGER NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
    type TEXT NOT NULL CHECK (type IN ('A', 'AAAA', 'NS', 'MX', 'CNAME', 'TXT',
                                       'SRV', 'PTR', 'CAA')),
    name TEXT NOT NULL DEFAULT '',           -- relative to the domain; apex ''
    target TEXT NOT NULL DEFAULT '',
    priority INTEGER NOT NULL DEFAULT 0,
    weight INTEGER NOT NULL DEFAULT 0,
    port INTEGER NOT NULL DEFAULT 0,
    service TEXT,
    protocol TEXT,
    ttl_sec INTEGER NOT NULL DEFAULT 0,
    tag TEXT,
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL
);
CREATE INDEX domain_records_domain ON domain_records (domain_id, id);
CREATE INDEX domain_records_name ON domain_records (domain_id, name);

-- Tags of an account and what carries them (domains now; instances,
-- volumes and node balancers registered by the operator later).
CREATE TABLE tags (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    label TEXT NOT NULL,
    created INTEGER NOT NULL,
    UNIQUE (account_id, label)
);

CREATE TABLE tag_links (
    tag_id INTEGER NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
    entity_type TEXT NOT NULL,
    entity_id INTEGER NOT NULL,
    PRIMARY KEY (tag_id, entity_type, entity_id)
);
CREATE INDEX tag_links_entity ON tag_links (entity_type, entity_id);

-- What restricted users may do with each entity of their account
-- (unrestricted users may do everything; no row means no access).
CREATE TABLE entity_grants (
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    entity_type TEXT NOT NULL,
    entity_id INTEGER NOT NULL,
    permissions TEXT NOT NULL CHECK (permissions IN ('read_only', 'read_write')),
    PRIMARY KEY (user_id, entity_type, entity_id)
);
CREATE INDEX entity_grants_entity ON entity_grants (entity_type, entity_id);
