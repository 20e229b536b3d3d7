-- mod_acctapi schema, version 11 (both dialects): the managed-database
-- catalogues as today's public API serves them.
--
-- Engines.  The public API lists one engine per major version (id
-- "mysql/8", version "8"); a database created from it runs that major's
-- current release, which its answers report ("8.0.35").  The contract's
-- ids name full versions ("mysql/8.0.30"): they stay rows of this table,
-- unlisted, so every client that sends one keeps working.
--   listed           1: shown by GET /databases/engines (the major ids)
--   current_version  of a listed row: the full version a new database of
--                    that major runs; NULL for the full-version rows
-- An engine id names the row whose id it is, listed or not; the major of a
-- full-version row is its version up to the first dot.  Operators add a
-- major by inserting a listed row with its current_version (and, so that
-- contract clients can name it, an unlisted row for that full version).
-- The full versions are those today's service reports: 8.0.35, 14.15 and
-- 17.4 in recorded traffic of the Go SDK; 13, 15 and 16 run the releases
-- this catalogue already offered.
ALTER TABLE database_engines ADD COLUMN listed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE database_engines ADD COLUMN current_version TEXT;

INSERT INTO database_engines (id, engine, version, listed, current_version) VALUES
    ('mysql/8', 'mysql', '8', 1, '8.0.35'),
    ('postgresql/13', 'postgresql', '13', 1, '13.2'),
    ('postgresql/14', 'postgresql', '14', 1, '14.15'),
    ('postgresql/15', 'postgresql', '15', 1, '15.4'),
    ('postgresql/16', 'postgresql', '16', 1, '16.4'),
    ('postgresql/17', 'postgresql', '17', 1, '17.4'),
    ('mysql/8.0.35', 'mysql', '8.0.35', 0, NULL),
    ('postgresql/14.15', 'postgresql', '14.15', 0, NULL),
    ('postgresql/17.4', 'postgresql', '17.4', 0, NULL);

-- Database node types: GET /databases/types.  Their own catalogue, not the
-- compute types': the public API gives database plans their own labels and
-- disk sizes, a plan of their own (g6-dedicated-56), and prices per engine
-- and cluster size.  `engines` is the JSON object the API answers:
-- {"mysql": [{"price": {"hourly": n, "monthly": n}, "quantity": n}, ...],
--  "postgresql": [...]}, one item per cluster size the plan is sold in.
-- Rows are listed by list_order (unique): the public API's order, shared
-- plans before dedicated ones, each by size.  Values are those of the
-- public API's answer recorded in the Go SDK's tests (January 2025);
-- memory and disk are MB, prices US dollars.
CREATE TABLE database_types (
    id TEXT PRIMARY KEY,
    label TEXT NOT NULL,
    class TEXT NOT NULL,
    memory INTEGER NOT NULL,
    vcpus INTEGER NOT NULL,
    disk INTEGER NOT NULL,
    deprecated INTEGER NOT NULL DEFAULT 0,
    engines TEXT NOT NULL,
    list_order INTEGER NOT NULL UNIQUE
);

INSERT INTO database_types (id, label, class, memory, vcpus, disk, deprecated, engines, list_order) VALUES
    ('g6-nanode-1', 'DBaaS - Nanode 1GB', 'nanode', 1024, 1, 9216, 0,
     '{"mysql": [{"price": {"hourly": 0.024, "monthly": 16.0}, "quantity": 1}, {"price": {"hourly": 0.055, "monthly": 37.0}, "quantity": 3}], "postgresql": [{"price": {"hourly": 0.024, "monthly": 16.0}, "quantity": 1}, {"price": {"hourly": 0.055, "monthly": 37.0}, "quantity": 3}]}',
     1),
    ('g6-standard-1', 'DBaaS - Linode 2GB', 'standard', 2048, 1, 30720, 0,
     '{"mysql": [{"price": {"hourly": 0.047, "monthly": 32.0}, "quantity": 1}, {"price": {"hourly": 0.11, "monthly": 74.0}, "quantity": 3}], "postgresql": [{"price": {"hourly": 0.047, "monthly": 32.0}, "quantity": 1}, {"price": {"hourly": 0.11, "monthly": 74.0}, "quantity": 3}]}',
     2),
    ('g6-standard-2', 'DBaaS - Linode 4GB', 'standard', 4096, 2, 59392, 0,
     '{"mysql": [{"price": {"hourly": 0.094, "monthly": 63.0}, "quantity": 1}, {"price": {"hourly": 0.22, "monthly": 147.0}, "quantity": 3}], "postgresql": [{"price": {"hourly": 0.094, "monthly": 63.0}, "quantity": 1}, {"price": {"hourly": 0.22, "monthly": 147.0}, "quantity": 3}]}',
     3),
    ('g6-standard-4', 'DBaaS - Linode 8GB', 'standard', 8192, 4, 133120, 0,
     '{"mysql": [{"price": {"hourly": 0.189, "monthly": 126.0}, "quantity": 1}, {"price": {"hourly": 0.441, "monthly": 294.0}, "quantity": 3}], "postgresql": [{"price": {"hourly": 0.189, "monthly": 126.0}, "quantity": 1}, {"price": {"hourly": 0.441, "monthly": 294.0}, "quantity": 3}]}',
     4),
    ('g6-standard-6', 'DBaaS - Linode 16GB', 'standard', 16384, 6, 286720, 0,
     '{"mysql": [{"price": {"hourly": 0.378, "monthly": 252.0}, "quantity": 1}, {"price": {"hourly": 0.882, "monthly": 588.0}, "quantity": 3}], "postgresql": [{"price": {"hourly": 0.378, "monthly": 252.0}, "quantity": 1}, {"price": {"hourly": 0.882, "monthly": 588.0}, "quantity": 3}]}',
     5),
    ('g6-standard-8', 'DBaaS - Linode 32GB', 'standard', 32768, 8, 589824, 0,
     '{"mysql": [{"price": {"hourly": 0.756, "monthly": 504.0}, "quantity": 1}, {"price": {"hourly": 1.764, "monthly": 1176.0}, "quantity": 3}], "postgresql": [{"price": {"hourly": 0.756, "monthly": 504.0}, "quantity": 1}, {"price": {"hourly": 1.764, "monthly": 1176.0}, "quantity": 3}]}',
     6),
    ('g6-standard-16', 'DBaaS - Linode 64GB', 'standard', 65536, 16, 1206272, 0,
     '{"mysql": [{"price": {"hourly": 1.512, "monthly": 1008.0}, "quantity": 1}, {"price": {"hourly": 3.528, "monthly": 2352.0}, "quantity": 3}], "postgresql": [{"price": {"hourly": 1.512, "monthly": 1008.0}, "quantity": 1}, {"price": {"hourly": 3.528, "monthly": 2352.0}, "quantity": 3}]}',
     7),
    ('g6-standard-20', 'DBaaS - Linode 96GB', 'standard', 98304, 20, 1830912, 0,
     '{"mysql": [{"price": {"hourly": 2.268, "monthly": 1512.0}, "quantity": 1}, {"price": {"hourly": 5.317, "monthly": 3545.0}, "quantity": 3}], "postgresql": [{"price": {"hourly": 2.268, "monthly": 1512.0}, "quantity": 1}, {"price": {"hourly": 5.317, "monthly": 3545.0}, "quantity": 3}]}',
     8),
    ('g6-standard-24', 'DBaaS - Linode 128GB', 'standard', 131072, 24, 2439168, 0,
     '{"mysql": [{"price": {"hourly": 3.024, "monthly": 2016.0}, "quantity": 1}, {"price": {"hourly": 7.09, "monthly": 4726.0}, "quantity": 3}], "postgresql": [{"price": {"hourly": 3.024, "monthly": 2016.0}, "quantity": 1}, {"price": {"hourly": 7.09, "monthly": 4726.0}, "quantity": 3}]}',
     9),
    ('g6-standard-32', 'DBaaS - Linode 192GB', 'standard', 196608, 32, 3686400, 0,
     '{"mysql": [{"price": {"hourly": 4.536, "monthly": 3025.0}, "quantity": 1}, {"price": {"hourly": 10.634, "monthly": 7090.0}, "quantity": 3}], "postgresql": [{"price": {"hourly": 4.536, "monthly": 3025.0}, "quantity": 1}, {"price": {"hourly": 10.634, "monthly": 7090.0}, "quantity": 3}]}',
     10),
    ('g6-dedicated-2', 'DBaaS - Dedicated 4GB', 'dedicated', 4096, 2, 59392, 0,
     '{"mysql": [{"price": {"hourly": 0.102, "monthly": 68.0}, "quantity": 1}, {"price": {"hourly": 0.214, "monthly": 143.0}, "quantity": 2}, {"price": {"hourly": 0.307, "monthly": 206.0}, "quantity": 3}], "postgresql": [{"price": {"hourly": 0.102, "monthly": 68.0}, "quantity": 1}, {"price": {"hourly": 0.214, "monthly": 143.0}, "quantity": 2}, {"price": {"hourly": 0.307, "monthly": 206.0}, "quantity": 3}]}',
     11),
    ('g6-dedicated-4', 'DBaaS - Dedicated 8GB', 'dedicated', 8192, 4, 133120, 0,
     '{"mysql": [{"price": {"hourly": 0.204, "monthly": 136.0}, "quantity": 1}, {"price": {"hourly": 0.427, "monthly": 285.0}, "quantity": 2}, {"price": {"hourly": 0.615, "monthly": 410.0}, "quantity": 3}], "postgresql": [{"price": {"hourly": 0.204, "monthly": 136.0}, "quantity": 1}, {"price": {"hourly": 0.427, "monthly": 285.0}, "quantity": 2}, {"price": {"hourly": 0.615, "monthly": 410.0}, "quantity": 3}]}',
     12),
    ('g6-dedicated-8', 'DBaaS - Dedicated 16GB', 'dedicated', 16384, 8, 286720, 0,
     '{"mysql": [{"price": {"hourly": 0.409, "monthly": 273.0}, "quantity": 1}, {"price": {"hourly": 0.885, "monthly": 590.0}, "quantity": 2}, {"price": {"hourly": 1.228, "monthly": 819.0}, "quantity": 3}], "postgresql": [{"price": {"hourly": 0.409, "monthly": 273.0}, "quantity": 1}, {"price": {"hourly": 0.885, "monthly": 590.0}, "quantity": 2}, {"price": {"hourly": 1.228, "monthly": 819.0}, "quantity": 3}]}',
     13),
    ('g6-dedicated-16', 'DBaaS - Dedicated 32GB', 'dedicated', 32768, 16, 589824, 0,
     '{"mysql": [{"price": {"hourly": 0.819, "monthly": 546.0}, "quantity": 1}, {"price": {"hourly": 1.752, "monthly": 1168.0}, "quantity": 2}, {"price": {"hourly": 2.457, "monthly": 1638.0}, "quantity": 3}], "postgresql": [{"price": {"hourly": 0.819, "monthly": 546.0}, "quantity": 1}, {"price": {"hourly": 1.752, "monthly": 1168.0}, "quantity": 2}, {"price": {"hourly": 2.457, "monthly": 1638.0}, "quantity": 3}]}',
     14),
    ('g6-dedicated-32', 'DBaaS - Dedicated 64GB', 'dedicated', 65536, 32, 1206272, 0,
     '{"mysql": [{"price": {"hourly": 1.759, "monthly": 1173.0}, "quantity": 1}, {"price": {"hourly": 3.547, "monthly": 2365.0}, "quantity": 2}, {"price": {"hourly": 5.188, "monthly": 3459.0}, "quantity": 3}], "postgresql": [{"price": {"hourly": 1.759, "monthly": 1173.0}, "quantity": 1}, {"price": {"hourly": 3.547, "monthly": 2365.0}, "quantity": 2}, {"price": {"hourly": 5.188, "monthly": 3459.0}, "quantity": 3}]}',
     15),
    ('g6-dedicated-48', 'DBaaS - Dedicated 96GB', 'dedicated', 98304, 48, 1830912, 0,
     '{"mysql": [{"price": {"hourly": 2.639, "monthly": 1759.0}, "quantity": 1}, {"price": {"hourly": 5.448, "monthly": 3632.0}, "quantity": 2}, {"price": {"hourly": 7.792, "monthly": 5195.0}, "quantity": 3}], "postgresql": [{"price": {"hourly": 2.639, "monthly": 1759.0}, "quantity": 1}, {"price": {"hourly": 5.448, "monthly": 3632.0}, "quantity": 2}, {"price": {"hourly": 7.792, "monthly": 5195.0}, "quantity": 3}]}',
     16),
    ('g6-dedicated-50', 'DBaaS - Dedicated 128GB', 'dedicated', 131072, 50, 2379776, 0,
     '{"mysql": [{"price": {"hourly": 3.511, "monthly": 2341.0}, "quantity": 1}, {"price": {"hourly": 7.132, "monthly": 4755.0}, "quantity": 2}, {"price": {"hourly": 10.108, "monthly": 6739.0}, "quantity": 3}], "postgresql": [{"price": {"hourly": 3.511, "monthly": 2341.0}, "quantity": 1}, {"price": {"hourly": 7.132, "monthly": 4755.0}, "quantity": 2}, {"price": {"hourly": 10.108, "monthly": 6739.0}, "quantity": 3}]}',
     17),
    ('g6-dedicated-56', 'DBaaS - Dedicated 256GB', 'dedicated', 262144, 56, 4816896, 0,
     '{"mysql": [{"price": {"hourly": 7.032, "monthly": 4684.0}, "quantity": 1}, {"price": {"hourly": 13.677, "monthly": 9118.0}, "quantity": 2}, {"price": {"hourly": 20.329, "monthly": 13553.0}, "quantity": 3}], "postgresql": [{"price": {"hourly": 7.032, "monthly": 4684.0}, "quantity": 1}, {"price": {"hourly": 13.677, "monthly": 9118.0}, "quantity": 2}, {"price": {"hourly": 20.329, "monthly": 13553.0}, "quantity": 3}]}',
     18);
