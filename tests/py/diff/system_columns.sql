-- Differential SQL cases: system column names (issue 31). A table's column may not take the
-- name of a system column (ctid, xmin, cmin, xmax, cmax, tableoid: 42701 on CREATE TABLE,
-- ADD COLUMN and RENAME COLUMN, where a view's may), a system column cannot be renamed, and
-- tableoid reads the table's OID. Tables are named sc_...; no case shows an OID.

-- name: sc_name_conflicts
-- @errors
DROP TABLE IF EXISTS sc_t;
DROP VIEW IF EXISTS sc_v;
CREATE TABLE sc_t (a int, xmin int);
CREATE TABLE sc_t (a int, ctid text, ctid text);
CREATE TABLE sc_t (tableoid oid);
CREATE TABLE sc_t (a int, b text);
ALTER TABLE sc_t ADD COLUMN cmax int;
ALTER TABLE sc_t ADD COLUMN IF NOT EXISTS xmax int;
ALTER TABLE sc_t RENAME COLUMN b TO cmin;
ALTER TABLE sc_t RENAME COLUMN xmin TO x;
ALTER TABLE sc_t RENAME COLUMN b TO c;
CREATE TABLE sc_t2 AS SELECT 1 AS xmin;
CREATE VIEW sc_v AS SELECT a AS xmin, c FROM sc_t;
SELECT * FROM sc_v;
SELECT attname FROM pg_attribute WHERE attrelid = 'sc_t'::regclass AND attnum > 0 ORDER BY attnum;
DROP VIEW sc_v;
DROP TABLE sc_t;

-- name: sc_tableoid
DROP TABLE IF EXISTS sc_o;
CREATE TABLE sc_o (a int);
INSERT INTO sc_o VALUES (1), (2);
SELECT a, tableoid = 'sc_o'::regclass AS same, tableoid::regclass::text FROM sc_o ORDER BY a;
SELECT count(*) FROM sc_o WHERE tableoid = 'sc_o'::regclass;
DROP TABLE sc_o;
