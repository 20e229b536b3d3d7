-- mod_acctapi schema, version 13 (PostgreSQL): the Terraform provider's
-- event poll reads its page from the index alone.
-- The poll filters one entity's events of one action and orders them
-- newest first by created, ties by id (acct_event_list_query).  Without id
-- in the index, PostgreSQL fetched every event of that entity and action
-- and sorted them for the top 25 (400 rows for a busy database); with it,
-- it reads the 25 rows of the page in index order and stops.
CREATE INDEX events_entity_order ON events
    (account_id, entity_type, entity_id, action, created, id);
DROP INDEX events_entity;
