-- Differential SQL cases: ALTER TABLE (columns, types, defaults, NOT NULL, constraints,
-- renames), CREATE / DROP SCHEMA with search_path, CREATE / DROP VIEW, and DROP ... CASCADE
-- over the views that read a table (issue 19). Tables are named after the case (prefix al_);
-- each case drops what it made.

-- name: alter_add_column_default
-- @errors
DROP TABLE IF EXISTS al_add;
CREATE TABLE al_add (a int, b text);
INSERT INTO al_add VALUES (1, 'x'), (2, 'y');
ALTER TABLE al_add ADD COLUMN c int DEFAULT 7;
ALTER TABLE al_add ADD COLUMN d text NOT NULL DEFAULT 'dd', ADD COLUMN e int;
SELECT * FROM al_add ORDER BY a;
INSERT INTO al_add (a) VALUES (3);
SELECT * FROM al_add ORDER BY a;
ALTER TABLE al_add ADD COLUMN f int NOT NULL;
ALTER TABLE al_add ADD COLUMN a int;
ALTER TABLE al_add ADD COLUMN IF NOT EXISTS a int;
ALTER TABLE al_add ADD c2 numeric(5, 1) DEFAULT 1.25;
SELECT a, c2 FROM al_add ORDER BY a;
DROP TABLE al_add;

-- name: alter_add_column_empty_table_not_null
DROP TABLE IF EXISTS al_empty;
CREATE TABLE al_empty (a int);
ALTER TABLE al_empty ADD COLUMN b int NOT NULL;
INSERT INTO al_empty VALUES (1, 2);
SELECT * FROM al_empty;
DROP TABLE al_empty;

-- name: alter_drop_column
-- @errors
DROP TABLE IF EXISTS al_drop;
CREATE TABLE al_drop (a int, b text, c int);
CREATE INDEX al_drop_b ON al_drop (b);
INSERT INTO al_drop VALUES (1, 'x', 10), (2, 'y', 20);
ALTER TABLE al_drop DROP COLUMN b;
SELECT * FROM al_drop ORDER BY a;
INSERT INTO al_drop VALUES (3, 30);
INSERT INTO al_drop (c, a) VALUES (40, 4);
SELECT * FROM al_drop ORDER BY a;
SELECT attname, attnum, attisdropped, atttypid FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname = 'al_drop' AND attnum > 0 ORDER BY attnum;
SELECT relname FROM pg_class WHERE relname LIKE 'al_drop%' ORDER BY relname;
ALTER TABLE al_drop DROP COLUMN zz;
ALTER TABLE al_drop DROP COLUMN IF EXISTS zz;
ALTER TABLE al_drop DROP COLUMN b;
ALTER TABLE al_drop ADD COLUMN b int DEFAULT 5;
SELECT * FROM al_drop ORDER BY a;
DROP TABLE al_drop;

-- name: alter_drop_column_keys_and_checks
DROP TABLE IF EXISTS al_dk;
CREATE TABLE al_dk (id int PRIMARY KEY, u int UNIQUE, v int CHECK (v > 0), w int);
INSERT INTO al_dk VALUES (1, 1, 1, 1);
ALTER TABLE al_dk DROP COLUMN id, DROP COLUMN v;
SELECT conname, contype FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid WHERE c.relname = 'al_dk' ORDER BY conname;
SELECT relname FROM pg_class WHERE relname LIKE 'al_dk%' ORDER BY relname;
INSERT INTO al_dk VALUES (2, -5);
SELECT * FROM al_dk ORDER BY u;
DROP TABLE al_dk;

-- name: alter_rename_column_and_table
-- @errors
DROP TABLE IF EXISTS al_ren;
DROP TABLE IF EXISTS al_ren2;
CREATE TABLE al_ren (a int CHECK (a > 0), b text);
CREATE INDEX al_ren_idx ON al_ren (a);
INSERT INTO al_ren VALUES (1, 'x');
ALTER TABLE al_ren RENAME COLUMN a TO aa;
ALTER TABLE al_ren RENAME COLUMN zz TO yy;
ALTER TABLE al_ren RENAME COLUMN aa TO b;
SELECT aa, b FROM al_ren;
INSERT INTO al_ren VALUES (-1, 'neg');
ALTER TABLE al_ren RENAME TO al_ren2;
SELECT * FROM al_ren;
SELECT * FROM al_ren2;
ALTER TABLE al_ren2 RENAME TO al_ren_idx;
ALTER INDEX al_ren_idx RENAME TO al_ren_idx2;
SELECT relname, relkind FROM pg_class WHERE relname LIKE 'al_ren%' ORDER BY relname;
SELECT attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname = 'al_ren_idx2';
ALTER INDEX nosuch RENAME TO x;
ALTER TABLE IF EXISTS nosuch RENAME TO x;
DROP TABLE al_ren2;

-- name: alter_column_type
-- @errors
DROP TABLE IF EXISTS al_type;
CREATE TABLE al_type (a int PRIMARY KEY, b text, c int);
INSERT INTO al_type VALUES (1, '10', 5), (2, '20', 6);
ALTER TABLE al_type ALTER COLUMN b TYPE int;
ALTER TABLE al_type ALTER COLUMN b TYPE int USING b::int;
ALTER TABLE al_type ALTER COLUMN c TYPE bigint;
ALTER TABLE al_type ALTER COLUMN c SET DATA TYPE numeric(6, 2);
SELECT * FROM al_type ORDER BY a;
SELECT b + 1 FROM al_type ORDER BY a;
ALTER TABLE al_type ALTER COLUMN a TYPE text;
SELECT * FROM al_type WHERE a = '2';
INSERT INTO al_type VALUES ('2', 0, 0);
ALTER TABLE al_type ALTER COLUMN b TYPE text USING b || 'x', ALTER COLUMN zz TYPE int;
ALTER TABLE al_type ALTER COLUMN c TYPE int USING c * 2;
SELECT * FROM al_type ORDER BY a;
ALTER TABLE al_type ALTER COLUMN b TYPE varchar(1);
DROP TABLE al_type;

-- name: alter_defaults_and_not_null
-- @errors
DROP TABLE IF EXISTS al_nn;
CREATE TABLE al_nn (a int, b int DEFAULT 3);
INSERT INTO al_nn VALUES (1, NULL), (2, 2);
ALTER TABLE al_nn ALTER COLUMN b SET NOT NULL;
UPDATE al_nn SET b = 0 WHERE b IS NULL;
ALTER TABLE al_nn ALTER COLUMN b SET NOT NULL;
INSERT INTO al_nn VALUES (3, NULL);
ALTER TABLE al_nn ALTER COLUMN b DROP NOT NULL;
INSERT INTO al_nn VALUES (3, NULL);
ALTER TABLE al_nn ALTER COLUMN a SET DEFAULT 100, ALTER COLUMN b DROP DEFAULT;
INSERT INTO al_nn DEFAULT VALUES;
SELECT * FROM al_nn ORDER BY a;
SELECT attname, attnotnull, atthasdef FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname = 'al_nn' AND attnum > 0 ORDER BY attnum;
ALTER TABLE al_nn ALTER COLUMN zz SET NOT NULL;
ALTER TABLE al_nn ALTER COLUMN a SET DEFAULT 'abc';
DROP TABLE al_nn;

-- name: alter_check_constraints
-- @errors
DROP TABLE IF EXISTS al_ck;
CREATE TABLE al_ck (a int, b int);
INSERT INTO al_ck VALUES (1, 1), (5, 2);
ALTER TABLE al_ck ADD CONSTRAINT al_ck_small CHECK (a < 3);
ALTER TABLE al_ck ADD CONSTRAINT al_ck_pos CHECK (a > 0);
ALTER TABLE al_ck ADD CHECK (b > 0);
ALTER TABLE al_ck ADD CHECK (b > -1);
ALTER TABLE al_ck ADD CONSTRAINT al_ck_pos CHECK (b > 0);
SELECT conname, contype FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid WHERE c.relname = 'al_ck' ORDER BY conname;
INSERT INTO al_ck VALUES (0, 1);
ALTER TABLE al_ck DROP CONSTRAINT al_ck_pos;
INSERT INTO al_ck VALUES (0, 1);
ALTER TABLE al_ck DROP CONSTRAINT nosuch;
ALTER TABLE al_ck DROP CONSTRAINT IF EXISTS nosuch;
ALTER TABLE al_ck RENAME CONSTRAINT al_ck_b_check TO al_ck_b_positive;
ALTER TABLE al_ck RENAME CONSTRAINT nosuch TO x;
ALTER TABLE al_ck RENAME CONSTRAINT al_ck_b_positive TO al_ck_b_check1;
SELECT conname FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid WHERE c.relname = 'al_ck' ORDER BY conname;
DROP TABLE al_ck;

-- name: alter_keys
-- @errors
DROP TABLE IF EXISTS al_keys;
CREATE TABLE al_keys (a int, b int);
INSERT INTO al_keys VALUES (1, 1), (2, 1);
ALTER TABLE al_keys ADD COLUMN c int UNIQUE, ADD PRIMARY KEY (a);
ALTER TABLE al_keys ADD CONSTRAINT al_keys_b UNIQUE (b);
SELECT conname, contype FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid WHERE c.relname = 'al_keys' ORDER BY conname;
INSERT INTO al_keys VALUES (1, 3, 3);
ALTER TABLE al_keys RENAME CONSTRAINT al_keys_pkey TO al_keys_pk;
SELECT relname FROM pg_class WHERE relname LIKE 'al_keys%' ORDER BY relname;
ALTER TABLE al_keys DROP CONSTRAINT al_keys_pk;
SELECT relname FROM pg_class WHERE relname LIKE 'al_keys%' ORDER BY relname;
INSERT INTO al_keys VALUES (1, 3, 4);
SELECT attname, attnotnull FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname = 'al_keys' AND attnum > 0 ORDER BY attnum;
DROP TABLE al_keys;

-- name: alter_missing_table
-- @errors
ALTER TABLE al_nosuch ADD COLUMN x int;
ALTER TABLE IF EXISTS al_nosuch ADD COLUMN x int;
ALTER TABLE IF EXISTS al_nosuch RENAME COLUMN a TO b;

-- name: alter_is_transactional
DROP TABLE IF EXISTS al_tx;
CREATE TABLE al_tx (a int, b text);
INSERT INTO al_tx VALUES (1, 'x');
BEGIN;
ALTER TABLE al_tx ADD COLUMN c int DEFAULT 9;
ALTER TABLE al_tx DROP COLUMN b;
ALTER TABLE al_tx ALTER COLUMN a TYPE text USING a || '!';
ALTER TABLE al_tx RENAME TO al_tx2;
SELECT * FROM al_tx2;
ROLLBACK;
SELECT * FROM al_tx;
SELECT attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname = 'al_tx' AND attnum > 0 ORDER BY attnum;
BEGIN;
ALTER TABLE al_tx ADD COLUMN c int DEFAULT 9;
SAVEPOINT s;
ALTER TABLE al_tx DROP COLUMN a;
ROLLBACK TO s;
COMMIT;
SELECT * FROM al_tx;
DROP TABLE al_tx;

-- name: alter_prepared_statement_replanned
-- @errors
-- @modes simple
DROP TABLE IF EXISTS al_prep;
CREATE TABLE al_prep (a int, b int);
INSERT INTO al_prep VALUES (1, 2);
PREPARE al_p AS SELECT * FROM al_prep;
EXECUTE al_p;
ALTER TABLE al_prep ADD COLUMN c int DEFAULT 3;
EXECUTE al_p;
DEALLOCATE al_p;
PREPARE al_q AS SELECT a FROM al_prep;
ALTER TABLE al_prep RENAME COLUMN b TO bb;
EXECUTE al_q;
DEALLOCATE al_q;
DROP TABLE al_prep;

-- name: alter_set_schema
-- @errors
DROP SCHEMA IF EXISTS al_sch_move CASCADE;
DROP TABLE IF EXISTS al_mv;
CREATE SCHEMA al_sch_move;
CREATE TABLE al_mv (a int PRIMARY KEY);
INSERT INTO al_mv VALUES (1);
ALTER TABLE al_mv SET SCHEMA al_sch_move;
SELECT * FROM al_mv;
SELECT * FROM al_sch_move.al_mv;
SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname LIKE 'al_mv%' ORDER BY c.relname;
ALTER TABLE al_sch_move.al_mv SET SCHEMA al_nosuch_schema;
DROP SCHEMA al_sch_move CASCADE;

-- name: schema_create_drop
-- @errors
DROP SCHEMA IF EXISTS al_s CASCADE;
CREATE SCHEMA al_s;
CREATE SCHEMA al_s;
CREATE SCHEMA IF NOT EXISTS al_s;
CREATE SCHEMA pg_al;
SELECT nspname FROM pg_namespace WHERE nspname = 'al_s';
CREATE TABLE al_s.t1 (a int);
INSERT INTO al_s.t1 VALUES (5);
CREATE VIEW al_s.v1 AS SELECT * FROM al_s.t1;
SELECT * FROM al_s.v1;
SELECT * FROM t1;
DROP SCHEMA al_s;
DROP SCHEMA al_s CASCADE;
SELECT nspname FROM pg_namespace WHERE nspname = 'al_s';
DROP SCHEMA al_nosuch;
DROP SCHEMA IF EXISTS al_nosuch;
CREATE TABLE al_nosuch.t (a int);

-- name: schema_search_path
DROP SCHEMA IF EXISTS al_sp CASCADE;
DROP TABLE IF EXISTS al_tsp;
CREATE SCHEMA al_sp;
SET search_path = al_sp, public;
CREATE TABLE al_tsp (a int);
INSERT INTO al_tsp VALUES (1);
SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname = 'al_tsp';
SELECT current_schema(), current_schemas(false);
CREATE TABLE public.al_tsp (a int);
INSERT INTO public.al_tsp VALUES (2);
SELECT * FROM al_tsp;
RESET search_path;
SELECT * FROM al_tsp;
SELECT * FROM al_sp.al_tsp;
DROP SCHEMA al_sp CASCADE;
DROP TABLE al_tsp;

-- name: schema_is_transactional
DROP SCHEMA IF EXISTS al_stx CASCADE;
BEGIN;
CREATE SCHEMA al_stx;
CREATE TABLE al_stx.t (a int);
ROLLBACK;
SELECT count(*) FROM pg_namespace WHERE nspname = 'al_stx';
CREATE SCHEMA al_stx;
BEGIN;
DROP SCHEMA al_stx;
ROLLBACK;
SELECT count(*) FROM pg_namespace WHERE nspname = 'al_stx';
DROP SCHEMA al_stx;

-- name: schema_with_elements
DROP SCHEMA IF EXISTS al_el CASCADE;
CREATE SCHEMA al_el CREATE TABLE t (a int) CREATE VIEW v AS SELECT a + 1 AS b FROM t;
INSERT INTO al_el.t VALUES (41);
SELECT * FROM al_el.v;
DROP SCHEMA al_el CASCADE;

-- name: view_basics
-- @errors
DROP TABLE IF EXISTS al_vt CASCADE;
CREATE TABLE al_vt (a int PRIMARY KEY, b text, c int);
INSERT INTO al_vt VALUES (1, 'one', 10), (2, 'two', 20);
CREATE VIEW al_v AS SELECT a, b FROM al_vt;
CREATE VIEW al_v2 AS SELECT * FROM al_v WHERE a > 1;
SELECT * FROM al_v ORDER BY a;
SELECT * FROM al_v2;
SELECT v.a, t.c FROM al_v v JOIN al_vt t ON t.a = v.a ORDER BY 1;
SELECT relname, relkind FROM pg_class WHERE relname LIKE 'al_v%' ORDER BY relname;
CREATE VIEW al_v AS SELECT 1;
CREATE VIEW al_v3 (x, y, z) AS SELECT 1, 2;
CREATE VIEW al_v3 (x, x) AS SELECT 1, 2;
CREATE VIEW al_v3 (x) AS SELECT 1, 'lit';
SELECT * FROM al_v3;
DROP VIEW al_vt;
DROP TABLE al_v;
DROP VIEW al_nosuch;
DROP VIEW IF EXISTS al_nosuch;
DROP VIEW al_v3;
DROP TABLE al_vt CASCADE;

-- name: view_replace
-- @errors
DROP TABLE IF EXISTS al_rt CASCADE;
CREATE TABLE al_rt (a int, b text);
INSERT INTO al_rt VALUES (1, 'x');
CREATE OR REPLACE VIEW al_rv AS SELECT a FROM al_rt;
CREATE OR REPLACE VIEW al_rv AS SELECT a, b, a + 1 AS a1 FROM al_rt;
SELECT * FROM al_rv;
CREATE OR REPLACE VIEW al_rv AS SELECT a FROM al_rt;
CREATE OR REPLACE VIEW al_rv AS SELECT a AS x, b, a + 1 AS a1 FROM al_rt;
CREATE OR REPLACE VIEW al_rv AS SELECT a::text, b, a + 1 AS a1 FROM al_rt;
CREATE OR REPLACE VIEW al_rt AS SELECT 1;
DROP TABLE al_rt CASCADE;

-- name: view_star_keeps_its_columns
DROP TABLE IF EXISTS al_st CASCADE;
CREATE TABLE al_st (a int, b int);
INSERT INTO al_st VALUES (1, 2);
CREATE VIEW al_sv AS SELECT * FROM al_st;
ALTER TABLE al_st ADD COLUMN c int DEFAULT 3;
SELECT * FROM al_sv;
DROP TABLE al_st CASCADE;

-- name: view_dependencies
-- @errors
DROP TABLE IF EXISTS al_dt CASCADE;
CREATE TABLE al_dt (a int, b int, c int);
CREATE VIEW al_dv1 AS SELECT a FROM al_dt;
CREATE VIEW al_dv2 AS SELECT b FROM al_dt;
CREATE VIEW al_dv3 AS SELECT * FROM al_dv1;
DROP TABLE al_dt;
DROP VIEW al_dv1;
ALTER TABLE al_dt DROP COLUMN a;
ALTER TABLE al_dt DROP COLUMN c;
ALTER TABLE al_dt ALTER COLUMN b TYPE bigint;
ALTER TABLE al_dt DROP COLUMN b CASCADE;
SELECT relname FROM pg_class WHERE relname LIKE 'al_d%' ORDER BY relname;
DROP VIEW al_dv1, al_dv3;
DROP TABLE al_dt CASCADE;
SELECT relname FROM pg_class WHERE relname LIKE 'al_d%' ORDER BY relname;

-- name: view_drop_cascade_is_transactional
DROP TABLE IF EXISTS al_ct CASCADE;
CREATE TABLE al_ct (a int);
INSERT INTO al_ct VALUES (1);
CREATE VIEW al_cv AS SELECT a FROM al_ct;
BEGIN;
DROP TABLE al_ct CASCADE;
ROLLBACK;
SELECT * FROM al_cv;
DROP TABLE al_ct CASCADE;

-- name: view_follows_renames
DROP TABLE IF EXISTS al_ft CASCADE;
DROP TABLE IF EXISTS al_ft2 CASCADE;
CREATE TABLE al_ft (a int, b text);
INSERT INTO al_ft VALUES (1, 'x');
CREATE VIEW al_fv AS SELECT a, al_ft.b FROM al_ft WHERE a > 0;
CREATE VIEW al_fv2 AS SELECT a FROM al_fv;
ALTER TABLE al_ft RENAME COLUMN a TO aa;
ALTER TABLE al_ft RENAME COLUMN b TO bb;
SELECT * FROM al_fv;
ALTER TABLE al_ft RENAME TO al_ft2;
SELECT * FROM al_fv;
ALTER VIEW al_fv RENAME COLUMN a TO x;
SELECT * FROM al_fv;
SELECT * FROM al_fv2;
ALTER VIEW al_fv RENAME TO al_fv_renamed;
SELECT * FROM al_fv2;
SELECT relname, relkind FROM pg_class WHERE relname LIKE 'al_f%' ORDER BY relname;
DROP TABLE al_ft2 CASCADE;

-- name: alter_rewrite_then_write_in_one_transaction
DROP TABLE IF EXISTS al_rw;
CREATE TABLE al_rw (id int PRIMARY KEY, v text);
INSERT INTO al_rw SELECT g, 'v' || g FROM generate_series(1, 50) g;
BEGIN;
ALTER TABLE al_rw ADD COLUMN n int DEFAULT 0;
UPDATE al_rw SET n = id * 2 WHERE id <= 3;
DELETE FROM al_rw WHERE id > 5;
INSERT INTO al_rw VALUES (100, 'new', 1);
COMMIT;
SELECT * FROM al_rw ORDER BY id;
SELECT * FROM al_rw WHERE id = 2;
VACUUM al_rw;
SELECT count(*) FROM al_rw;
DROP TABLE al_rw;

-- name: view_queries
DROP TABLE IF EXISTS al_qt CASCADE;
CREATE TABLE al_qt (g text, n int);
INSERT INTO al_qt VALUES ('a', 1), ('a', 2), ('b', 5);
CREATE VIEW al_qv AS SELECT g, sum(n) AS total, count(*) AS cnt FROM al_qt GROUP BY g ORDER BY g;
SELECT * FROM al_qv;
SELECT g FROM al_qv WHERE total > 2;
CREATE VIEW al_qj AS SELECT x.g, y.n FROM al_qt x JOIN al_qt y ON x.n = y.n WHERE x.n < 5;
SELECT * FROM al_qj ORDER BY n;
PREPARE al_qp AS SELECT total FROM al_qv WHERE g = $1;
EXECUTE al_qp('b');
DEALLOCATE al_qp;
SELECT attname, atttypid FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname = 'al_qv' ORDER BY attnum;
DROP TABLE al_qt CASCADE;
