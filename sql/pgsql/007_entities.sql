-- mod_acctapi schema, version 7 (PostgreSQL): objects other services own
-- (instances, volumes, node balancers, images, StackScripts, VPCs,
-- monitoring clients), registered by the operator so they can be tagged and
-- granted like domains and databases.
CREATE TABLE entities (
    entity_type TEXT NOT NULL CHECK (entity_type IN ('instance', 'volume',
        'nodebalancer', 'image', 'stackscript', 'vpc', 'monitoring')),
    entity_id BIGINT NOT NULL,
    account_id BIGINT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    label TEXT NOT NULL,
    created BIGINT NOT NULL,
    PRIMARY KEY (entity_type, entity_id)
);
CREATE INDEX entities_account ON entities (account_id, entity_type, entity_id);
