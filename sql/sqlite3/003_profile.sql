-- mod_acctapi schema, version 3 (SQLite): the acting user's profile.
-- Secrets that must be read back (TOTP secrets, security answers) are sealed
-- with AES-256-GCM under AcctapiSecretKeyFile; codes are stored only hashed.

-- OAuth apps authorized by a user (registered through acctapi-admin); each
-- app's access token is a row of tokens with kind 'app'.
CREATE TABLE apps (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    label TEXT NOT NULL,
    scopes TEXT NOT NULL,
    website TEXT,
    thumbnail_url TEXT,
    created INTEGER NOT NULL,
    expiry INTEGER,
    revoked INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX apps_user ON apps (user_id);
ALTER TABLE tokens ADD COLUMN app_id INTEGER REFERENCES apps (id) ON DELETE CASCADE;

-- Trusted devices (remember-me sessions of the web interface).
CREATE TABLE devices (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created INTEGER NOT NULL,
    expiry INTEGER NOT NULL,
    last_authenticated INTEGER NOT NULL,
    last_remote_addr TEXT NOT NULL,
    user_agent TEXT NOT NULL,
    revoked INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX devices_user ON devices (user_id);

-- Login history.
CREATE TABLE logins (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    datetime INTEGER NOT NULL,
    ip TEXT NOT NULL,
    restricted INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('successful', 'failed')),
    username TEXT NOT NULL
);
CREATE INDEX logins_user_time ON logins (user_id, datetime);

CREATE TABLE ssh_keys (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    label TEXT,
    ssh_key TEXT NOT NULL,
    created INTEGER NOT NULL
);
CREATE INDEX ssh_keys_user ON ssh_keys (user_id);

-- The catalogue of security questions (seeded by 004).
CREATE TABLE security_questions (
    id INTEGER PRIMARY KEY,
    question TEXT NOT NULL
);

CREATE TABLE security_answers (
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    question_id INTEGER NOT NULL REFERENCES security_questions (id),
    response_sealed TEXT NOT NULL,
    PRIMARY KEY (user_id, question_id)
);

-- Two-factor authentication: the pending or active TOTP secret of a user.
CREATE TABLE tfa_secrets (
    user_id INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    secret_sealed TEXT NOT NULL,
    expiry INTEGER NOT NULL,             -- a pending secret must be confirmed before
    confirmed INTEGER NOT NULL DEFAULT 0,
    last_step INTEGER NOT NULL DEFAULT 0,      -- highest TOTP step accepted (no replay)
    scratch_hash TEXT,                   -- one-use scratch code, hashed
    failed_attempts INTEGER NOT NULL DEFAULT 0,
    failed_window INTEGER NOT NULL DEFAULT 0   -- start of the current throttling window
);

-- Phone verification in progress (the verified number is users.verified_phone_number).
CREATE TABLE phone_verifications (
    user_id INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    iso_code TEXT NOT NULL,
    phone_number TEXT NOT NULL,          -- normalised, E.164
    code_hash TEXT NOT NULL,
    issued INTEGER NOT NULL,
    expires INTEGER NOT NULL,
    failed_attempts INTEGER NOT NULL DEFAULT 0
);

-- Preferences: one JSON document per user and OAuth client.
CREATE TABLE preferences (
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    client TEXT NOT NULL,
    doc TEXT NOT NULL,
    PRIMARY KEY (user_id, client)
);
