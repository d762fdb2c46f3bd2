-- Differential SQL cases: materialized views (issue 31). CREATE MATERIALIZED VIEW (column
-- names, IF NOT EXISTS, WITH [NO] DATA, unknown literals), reading one (joins, subqueries,
-- views over it, the unpopulated error), indexes on it, REFRESH and REFRESH CONCURRENTLY
-- with their errors, DROP / ALTER MATERIALIZED VIEW, what depends on what, the wrong-kind
-- errors, privileges, transactions, and the catalogs (pg_class, pg_matviews,
-- pg_get_viewdef, information_schema). Objects are named mv_...; no case shows an OID.

-- name: mv_create_and_read
DROP TABLE IF EXISTS mv_t CASCADE;
CREATE TABLE mv_t (id int PRIMARY KEY, kind text NOT NULL, amt numeric NOT NULL);
INSERT INTO mv_t VALUES (1, 'x', 2), (2, 'x', 3), (3, 'y', 5), (4, 'y', 7), (5, 'z', 11);
CREATE MATERIALIZED VIEW mv_sums AS SELECT kind, sum(amt) AS total FROM mv_t GROUP BY kind;
SELECT * FROM mv_sums ORDER BY kind;
SELECT kind FROM mv_sums WHERE total > 5 ORDER BY 1;
SELECT s.kind, s.total, count(*) FROM mv_sums s JOIN mv_t t USING (kind) GROUP BY 1, 2 ORDER BY 1;
SELECT * FROM mv_t WHERE kind IN (SELECT kind FROM mv_sums WHERE total < 6) ORDER BY id;
INSERT INTO mv_t VALUES (6, 'z', 13);
SELECT * FROM mv_sums ORDER BY kind;
CREATE MATERIALIZED VIEW IF NOT EXISTS mv_sums AS SELECT 1;
CREATE MATERIALIZED VIEW mv_named (k, n) AS SELECT kind, count(*) FROM mv_t GROUP BY kind;
SELECT * FROM mv_named ORDER BY k;
CREATE MATERIALIZED VIEW mv_part (k) AS SELECT kind, amt FROM mv_t WHERE id < 3;
SELECT * FROM mv_part ORDER BY amt;
CREATE VIEW mv_over AS SELECT k, n * 2 AS twice FROM mv_named;
SELECT * FROM mv_over ORDER BY k;
DROP TABLE mv_t CASCADE;

-- name: mv_with_no_data
-- @errors
DROP TABLE IF EXISTS mv_t CASCADE;
CREATE TABLE mv_t (a int, b text);
INSERT INTO mv_t VALUES (1, 'one'), (2, 'two');
CREATE MATERIALIZED VIEW mv_later AS SELECT a, b FROM mv_t WITH NO DATA;
SELECT relispopulated FROM pg_class WHERE relname = 'mv_later';
SELECT * FROM mv_later;
SELECT count(*) FROM mv_t WHERE a IN (SELECT a FROM mv_later);
CREATE MATERIALIZED VIEW mv_later2 AS SELECT * FROM mv_later WITH NO DATA;
CREATE VIEW mv_later_v AS SELECT a FROM mv_later;
SELECT * FROM mv_later_v;
REFRESH MATERIALIZED VIEW mv_later;
SELECT relispopulated FROM pg_class WHERE relname = 'mv_later';
SELECT * FROM mv_later ORDER BY a;
SELECT * FROM mv_later_v ORDER BY a;
REFRESH MATERIALIZED VIEW mv_later WITH NO DATA;
SELECT * FROM mv_later;
CREATE MATERIALIZED VIEW mv_div AS SELECT 1 / 0 AS x WITH NO DATA;
REFRESH MATERIALIZED VIEW mv_div;
CREATE MATERIALIZED VIEW mv_div2 AS SELECT 1 / 0 AS x;
DROP MATERIALIZED VIEW mv_div;
DROP TABLE mv_t CASCADE;

-- name: mv_column_types
DROP MATERIALIZED VIEW IF EXISTS mv_types;
CREATE MATERIALIZED VIEW mv_types AS
  SELECT 42 AS i, 42.5 AS num, 'foo' AS u, 'bar'::unknown AS u2, NULL AS n, 'x'::varchar(5) AS v;
SELECT * FROM mv_types;
SELECT attname, format_type(atttypid, atttypmod), attnotnull FROM pg_attribute
  WHERE attrelid = 'mv_types'::regclass AND attnum > 0 ORDER BY attnum;
DROP MATERIALIZED VIEW mv_types;

-- name: mv_indexes
-- @errors
DROP TABLE IF EXISTS mv_t CASCADE;
CREATE TABLE mv_t (id int PRIMARY KEY, g int, v text);
INSERT INTO mv_t SELECT i, i % 10, 'v' || i FROM generate_series(1, 300) i;
CREATE MATERIALIZED VIEW mv_idx AS SELECT id, g, v FROM mv_t;
CREATE UNIQUE INDEX mv_idx_id ON mv_idx (id);
CREATE INDEX mv_idx_g ON mv_idx (g);
CREATE INDEX ON mv_idx (lower(v));
CREATE UNIQUE INDEX mv_idx_g_u ON mv_idx ((id / 300));
SELECT * FROM mv_idx WHERE id = 77;
SELECT count(*) FROM mv_idx WHERE g = 3;
SELECT id FROM mv_idx WHERE lower(v) = 'v12';
SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'mv_idx' ORDER BY 1;
SELECT relname, relhasindex FROM pg_class WHERE relname = 'mv_idx';
ANALYZE mv_idx;
VACUUM mv_idx;
UPDATE mv_t SET g = 100 WHERE id = 77;
REFRESH MATERIALIZED VIEW mv_idx;
SELECT * FROM mv_idx WHERE id = 77;
SELECT count(*) FROM mv_idx WHERE g = 100;
DROP INDEX mv_idx_g;
DROP TABLE mv_t CASCADE;

-- name: mv_refresh_concurrently
-- @errors
DROP TABLE IF EXISTS mv_t CASCADE;
CREATE TABLE mv_t (id int PRIMARY KEY, v int, note text);
INSERT INTO mv_t SELECT i, i * 10, 'n' || i FROM generate_series(1, 6) i;
CREATE MATERIALIZED VIEW mv_c AS SELECT id, v, note FROM mv_t;
REFRESH MATERIALIZED VIEW CONCURRENTLY mv_c;
CREATE UNIQUE INDEX mv_c_partial ON mv_c (id) WHERE id > 0;
REFRESH MATERIALIZED VIEW CONCURRENTLY mv_c;
CREATE UNIQUE INDEX mv_c_id ON mv_c (id);
UPDATE mv_t SET v = -v WHERE id % 2 = 0;
DELETE FROM mv_t WHERE id = 5;
INSERT INTO mv_t VALUES (7, 70, NULL), (8, 80, 'n8');
UPDATE mv_t SET note = NULL WHERE id = 1;
REFRESH MATERIALIZED VIEW CONCURRENTLY mv_c;
SELECT * FROM mv_c ORDER BY id;
REFRESH MATERIALIZED VIEW CONCURRENTLY mv_c;
SELECT count(*), sum(v) FROM mv_c;
REFRESH MATERIALIZED VIEW CONCURRENTLY mv_c WITH NO DATA;
REFRESH MATERIALIZED VIEW mv_c WITH NO DATA;
REFRESH MATERIALIZED VIEW CONCURRENTLY mv_c;
REFRESH MATERIALIZED VIEW mv_c;
SELECT count(*) FROM mv_c;
DROP TABLE mv_t CASCADE;

-- name: mv_refresh_duplicates
-- @errors
DROP TABLE IF EXISTS mv_d CASCADE;
CREATE TABLE mv_d (a int, b int);
INSERT INTO mv_d VALUES (1, 10), (2, 20);
CREATE MATERIALIZED VIEW mv_dm AS SELECT * FROM mv_d;
CREATE UNIQUE INDEX mv_dm_a ON mv_dm (a);
INSERT INTO mv_d VALUES (1, 10);
REFRESH MATERIALIZED VIEW mv_dm;
REFRESH MATERIALIZED VIEW CONCURRENTLY mv_dm;
DELETE FROM mv_d WHERE a = 1;
INSERT INTO mv_d VALUES (1, 10), (1, 11);
REFRESH MATERIALIZED VIEW CONCURRENTLY mv_dm;
SELECT * FROM mv_dm ORDER BY a;
DELETE FROM mv_d WHERE b = 11;
INSERT INTO mv_d VALUES (NULL, NULL), (NULL, NULL);
REFRESH MATERIALIZED VIEW CONCURRENTLY mv_dm;
SELECT * FROM mv_dm ORDER BY a, b;
DROP TABLE mv_d CASCADE;

-- name: mv_wrong_kind_errors
-- @errors
DROP TABLE IF EXISTS mv_t CASCADE;
CREATE TABLE mv_t (a int);
INSERT INTO mv_t VALUES (1);
CREATE MATERIALIZED VIEW mv_k AS SELECT a FROM mv_t;
DROP VIEW mv_k;
DROP TABLE mv_k;
DROP INDEX mv_k;
DROP MATERIALIZED VIEW mv_t;
DROP MATERIALIZED VIEW mv_nothere;
DROP MATERIALIZED VIEW IF EXISTS mv_nothere;
TRUNCATE mv_k;
SELECT * FROM mv_k FOR UPDATE;
SELECT * FROM mv_k FOR SHARE;
REFRESH MATERIALIZED VIEW mv_t;
REFRESH MATERIALIZED VIEW mv_nothere;
ALTER MATERIALIZED VIEW mv_t RENAME TO mv_t2;
ALTER MATERIALIZED VIEW IF EXISTS mv_nothere RENAME TO mv_x;
CREATE UNLOGGED MATERIALIZED VIEW mv_u AS SELECT 1;
CREATE MATERIALIZED VIEW mv_k AS SELECT 1;
CREATE MATERIALIZED VIEW mv_cols (a, b, c) AS SELECT a, a FROM mv_t;
CREATE MATERIALIZED VIEW mv_cols (a, a) AS SELECT a, a FROM mv_t;
CREATE TEMP TABLE mv_temp (x int);
CREATE MATERIALIZED VIEW mv_on_temp AS SELECT x FROM mv_temp;
LOCK TABLE mv_k;
BEGIN;
LOCK TABLE mv_k IN ACCESS EXCLUSIVE MODE;
ROLLBACK;
DROP TABLE mv_temp;
DROP TABLE mv_t CASCADE;

-- name: mv_no_changes
-- @errors
-- @modes simple
DROP TABLE IF EXISTS mv_t CASCADE;
CREATE TABLE mv_t (a int);
CREATE MATERIALIZED VIEW mv_ro AS SELECT a FROM mv_t;
INSERT INTO mv_ro VALUES (1);
UPDATE mv_ro SET a = 2;
DELETE FROM mv_ro;
DROP TABLE mv_t CASCADE;

-- name: mv_dependencies
-- @errors
DROP TABLE IF EXISTS mv_base CASCADE;
CREATE TABLE mv_base (id int, v int);
INSERT INTO mv_base VALUES (1, 1), (2, 2);
CREATE VIEW mv_base_v AS SELECT id, v FROM mv_base WHERE v > 0;
CREATE MATERIALIZED VIEW mv_dep AS SELECT id FROM mv_base_v;
CREATE MATERIALIZED VIEW mv_dep2 AS SELECT count(*) AS c FROM mv_dep;
CREATE VIEW mv_dep_v AS SELECT c FROM mv_dep2;
DROP TABLE mv_base;
DROP VIEW mv_base_v;
DROP MATERIALIZED VIEW mv_dep;
ALTER TABLE mv_base DROP COLUMN v;
BEGIN;
DROP TABLE mv_base CASCADE;
SELECT relname FROM pg_class WHERE relname LIKE 'mv_dep%' ORDER BY 1;
ROLLBACK;
SELECT * FROM mv_dep_v;
DROP MATERIALIZED VIEW mv_dep CASCADE;
SELECT relname FROM pg_class WHERE relname LIKE 'mv_dep%' ORDER BY 1;
DROP TABLE mv_base CASCADE;

-- name: mv_alter
DROP SCHEMA IF EXISTS mv_s CASCADE;
DROP TABLE IF EXISTS mv_t CASCADE;
CREATE SCHEMA mv_s;
CREATE TABLE mv_t (a int, b int);
INSERT INTO mv_t VALUES (1, 2);
CREATE MATERIALIZED VIEW mv_a AS SELECT a, b FROM mv_t;
CREATE UNIQUE INDEX mv_a_a ON mv_a (a);
CREATE MATERIALIZED VIEW mv_a2 AS SELECT a AS s, b FROM mv_a WHERE a > 0;
ALTER MATERIALIZED VIEW mv_a RENAME COLUMN a TO aa;
SELECT * FROM mv_a;
ALTER MATERIALIZED VIEW mv_a RENAME TO mv_b;
SELECT * FROM mv_b;
REFRESH MATERIALIZED VIEW mv_a2;
ALTER MATERIALIZED VIEW mv_b SET SCHEMA mv_s;
SELECT schemaname, matviewname, hasindexes FROM pg_matviews WHERE matviewname LIKE 'mv_%' ORDER BY 2;
SELECT schemaname, indexname FROM pg_indexes WHERE indexname = 'mv_a_a';
REFRESH MATERIALIZED VIEW mv_a2;
SELECT * FROM mv_a2;
SELECT pg_get_viewdef('mv_a2'::regclass, true);
ALTER MATERIALIZED VIEW mv_s.mv_b RENAME TO mv_c;
SELECT * FROM mv_s.mv_c;
ALTER TABLE mv_t RENAME COLUMN b TO bb;
REFRESH MATERIALIZED VIEW mv_s.mv_c;
SELECT * FROM mv_s.mv_c;
DROP SCHEMA mv_s CASCADE;
DROP TABLE mv_t CASCADE;

-- name: mv_privileges
-- @errors
DROP TABLE IF EXISTS mv_t CASCADE;
DROP ROLE IF EXISTS mv_reader;
CREATE ROLE mv_reader;
CREATE TABLE mv_t (a int);
INSERT INTO mv_t VALUES (1), (2);
CREATE MATERIALIZED VIEW mv_p AS SELECT a FROM mv_t;
SET ROLE mv_reader;
SELECT * FROM mv_p;
REFRESH MATERIALIZED VIEW mv_p;
RESET ROLE;
GRANT SELECT ON mv_p TO mv_reader;
SELECT relname, relacl FROM pg_class WHERE relname = 'mv_p';
SET ROLE mv_reader;
SELECT * FROM mv_p ORDER BY a;
REFRESH MATERIALIZED VIEW mv_p;
DROP MATERIALIZED VIEW mv_p;
RESET ROLE;
ALTER MATERIALIZED VIEW mv_p OWNER TO mv_reader;
SELECT matviewowner FROM pg_matviews WHERE matviewname = 'mv_p';
SET ROLE mv_reader;
REFRESH MATERIALIZED VIEW mv_p;
RESET ROLE;
REVOKE SELECT ON mv_p FROM mv_reader;
DROP TABLE mv_t CASCADE;
DROP ROLE mv_reader;

-- name: mv_transactions
-- @errors
DROP TABLE IF EXISTS mv_t CASCADE;
CREATE TABLE mv_t (a int);
INSERT INTO mv_t VALUES (1);
BEGIN;
CREATE MATERIALIZED VIEW mv_tx AS SELECT a FROM mv_t;
SELECT * FROM mv_tx;
ROLLBACK;
SELECT * FROM mv_tx;
CREATE MATERIALIZED VIEW mv_tx AS SELECT a FROM mv_t;
INSERT INTO mv_t VALUES (2);
BEGIN;
REFRESH MATERIALIZED VIEW mv_tx;
SELECT * FROM mv_tx ORDER BY a;
ROLLBACK;
SELECT * FROM mv_tx ORDER BY a;
BEGIN;
REFRESH MATERIALIZED VIEW mv_tx WITH NO DATA;
SELECT relispopulated FROM pg_class WHERE relname = 'mv_tx';
ROLLBACK;
SELECT relispopulated FROM pg_class WHERE relname = 'mv_tx';
BEGIN;
REFRESH MATERIALIZED VIEW mv_tx;
SAVEPOINT s;
REFRESH MATERIALIZED VIEW mv_tx WITH NO DATA;
ROLLBACK TO s;
SELECT * FROM mv_tx ORDER BY a;
COMMIT;
BEGIN;
DROP MATERIALIZED VIEW mv_tx;
ROLLBACK;
SELECT count(*) FROM mv_tx;
DROP TABLE mv_t CASCADE;

-- name: mv_catalogs
DROP TABLE IF EXISTS mv_t CASCADE;
CREATE TABLE mv_t (id int, name text);
INSERT INTO mv_t VALUES (1, 'a'), (2, 'b');
CREATE MATERIALIZED VIEW mv_cat AS SELECT id, upper(name) AS up FROM mv_t WHERE id > 0;
CREATE MATERIALIZED VIEW mv_cat_empty AS SELECT id FROM mv_t WITH NO DATA;
COMMENT ON MATERIALIZED VIEW mv_cat IS 'upper names';
SELECT relname, relkind, relispopulated, relpersistence, relhasindex, relnatts, relam <> 0 AS has_am
  FROM pg_class WHERE relname LIKE 'mv_cat%' ORDER BY 1;
SELECT schemaname, matviewname, matviewowner, tablespace, hasindexes, ispopulated
  FROM pg_matviews WHERE matviewname LIKE 'mv_cat%' ORDER BY 2;
SELECT pg_get_viewdef('mv_cat'::regclass, true);
SELECT pg_get_viewdef('mv_cat_empty'::regclass, true);
SELECT obj_description('mv_cat'::regclass, 'pg_class');
SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'mv_cat%';
SELECT count(*) FROM information_schema.columns WHERE table_name LIKE 'mv_cat%';
SELECT c.relname, t.typname = c.relname FROM pg_class c JOIN pg_type t ON t.oid = c.reltype
  WHERE c.relname = 'mv_cat';
SELECT attname, attnum FROM pg_attribute WHERE attrelid = 'mv_cat'::regclass AND attnum > 0 ORDER BY 2;
SELECT relname FROM pg_stat_user_tables WHERE relname LIKE 'mv_cat%' ORDER BY 1;
SELECT pg_relation_size('mv_cat') > 0, pg_relation_size('mv_cat_empty');
SELECT 'mv_cat'::regclass::text;
DROP TABLE mv_t CASCADE;

-- name: mv_explain
DROP TABLE IF EXISTS mv_t CASCADE;
CREATE TABLE mv_t (id int, v int);
CREATE MATERIALIZED VIEW mv_e AS SELECT id, v FROM mv_t WITH NO DATA;
EXPLAIN (COSTS OFF) SELECT * FROM mv_e;
EXPLAIN (COSTS OFF) CREATE MATERIALIZED VIEW mv_e2 AS SELECT id FROM mv_t WHERE v > 1;
EXPLAIN (COSTS OFF) CREATE TABLE mv_e3 AS SELECT id FROM mv_e;
DROP TABLE mv_t CASCADE;
