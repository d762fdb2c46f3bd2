-- Differential SQL cases: domains (issue 32): CREATE DOMAIN with DEFAULT, NULL / NOT NULL and
-- CHECK constraints (VALUE), domains over domains and arrays, arrays of domains; domain
-- columns with their checks on INSERT, UPDATE, ON CONFLICT (COPY: test_copy_context.py), casts, SQL function
-- arguments and results; ALTER DOMAIN (defaults, NOT NULL, ADD / DROP / VALIDATE / RENAME
-- CONSTRAINT, RENAME TO, OWNER TO, SET SCHEMA), DROP DOMAIN [CASCADE], transactions;
-- pg_type / pg_constraint / pg_attribute rows and psql's \dD and \d queries. Domains and
-- tables are named dm_...; no case shows an OID.

-- name: dm_create_and_cast
-- @errors
DROP DOMAIN IF EXISTS dm_posint CASCADE;
DROP DOMAIN IF EXISTS dm_code CASCADE;
CREATE DOMAIN dm_posint AS int CHECK (VALUE > 0);
CREATE DOMAIN dm_code varchar(5) NOT NULL DEFAULT 'x';
SELECT 5::dm_posint, CAST('7' AS dm_posint), 3::dm_posint + 4, 2::dm_posint * 2::dm_posint;
SELECT cast('123456' AS dm_code), 'ab'::dm_code || 'cd';
SELECT (-1)::dm_posint;
SELECT 0::dm_posint;
SELECT NULL::dm_posint IS NULL;
SELECT NULL::dm_code;
SELECT 'abc'::text::dm_code, 12::bigint::dm_posint;
SELECT 'x'::dm_posint;
DROP DOMAIN dm_posint;
DROP DOMAIN dm_code;

-- name: dm_create_errors
-- @errors
DROP DOMAIN IF EXISTS dm_fail;
CREATE DOMAIN dm_fail AS no_such_type;
CREATE DOMAIN dm_fail AS int4 NOT NULL NULL;
CREATE DOMAIN dm_fail AS int4 NOT NULL DEFAULT 3 DEFAULT 3;
CREATE DOMAIN dm_fail int4 DEFAULT 3 + 'h';
CREATE DOMAIN dm_fail AS anyelement;
CREATE DOMAIN dm_fail AS int4 UNIQUE;
CREATE DOMAIN dm_fail AS int4 PRIMARY KEY;
CREATE DOMAIN dm_fail AS int4 CHECK (VALUE > 1) NO INHERIT;
CREATE DOMAIN dm_fail AS int4 CHECK (nosuchcolumn > 1);
CREATE DOMAIN dm_fail int4 COLLATE "C";
CREATE DOMAIN dm_fail AS int4 DEFAULT 'abc';
CREATE DOMAIN dm_fail AS int4;
CREATE DOMAIN dm_fail AS text;
DROP DOMAIN dm_fail;
DROP DOMAIN dm_fail;
DROP DOMAIN IF EXISTS dm_fail;

-- name: dm_table_insert_update
-- @errors
DROP TABLE IF EXISTS dm_t;
DROP DOMAIN IF EXISTS dm_pos CASCADE;
DROP DOMAIN IF EXISTS dm_name CASCADE;
CREATE DOMAIN dm_pos AS int CHECK (VALUE > 0);
CREATE DOMAIN dm_name varchar(5) NOT NULL DEFAULT 'none';
CREATE TABLE dm_t (a dm_pos, b dm_name, c int);
INSERT INTO dm_t VALUES (1, 'abc', 1);
INSERT INTO dm_t (c) VALUES (2);
INSERT INTO dm_t VALUES (-1, 'abc', 3);
INSERT INTO dm_t VALUES (3, NULL, 3);
INSERT INTO dm_t VALUES (4, 'toolongvalue', 4);
INSERT INTO dm_t SELECT 5, 'sel', 5;
INSERT INTO dm_t SELECT -5, 'sel', 5;
INSERT INTO dm_t VALUES (6, DEFAULT, 6);
UPDATE dm_t SET a = 0 WHERE c = 1;
UPDATE dm_t SET a = a + 10 WHERE a IS NOT NULL;
UPDATE dm_t SET b = NULL WHERE c = 1;
UPDATE dm_t SET b = DEFAULT WHERE c = 1;
SELECT * FROM dm_t ORDER BY c;
SELECT a + 1, a * 2, b || 'z', upper(b), a > 12, length(b) FROM dm_t ORDER BY c;
SELECT c FROM dm_t WHERE a = 11 OR b = 'sel' ORDER BY c;
DROP TABLE dm_t;
DROP DOMAIN dm_pos;
DROP DOMAIN dm_name;

-- name: dm_row_description
DROP TABLE IF EXISTS dm_rd;
DROP DOMAIN IF EXISTS dm_vc CASCADE;
DROP DOMAIN IF EXISTS dm_num CASCADE;
CREATE DOMAIN dm_vc varchar(7);
CREATE DOMAIN dm_num numeric(8,2) DEFAULT 1.5;
CREATE TABLE dm_rd (v dm_vc, n dm_num, i int);
INSERT INTO dm_rd (v, i) VALUES ('abc', 1);
SELECT * FROM dm_rd;
SELECT v, n, 'q'::dm_vc, 2.345::dm_num FROM dm_rd;
DROP TABLE dm_rd;
DROP DOMAIN dm_vc;
DROP DOMAIN dm_num;

-- name: dm_defaults
DROP TABLE IF EXISTS dm_def;
DROP DOMAIN IF EXISTS dm_d1 CASCADE;
DROP DOMAIN IF EXISTS dm_d2 CASCADE;
CREATE DOMAIN dm_d1 int4 DEFAULT 3;
CREATE DOMAIN dm_d2 text DEFAULT 5;
CREATE TABLE dm_def (a dm_d1, b dm_d2, c dm_d1 DEFAULT 7, d int);
INSERT INTO dm_def (d) VALUES (1);
INSERT INTO dm_def DEFAULT VALUES;
ALTER DOMAIN dm_d1 SET DEFAULT 42;
INSERT INTO dm_def (d) VALUES (2);
ALTER DOMAIN dm_d1 DROP DEFAULT;
INSERT INTO dm_def (d) VALUES (3);
ALTER TABLE dm_def ALTER COLUMN c DROP DEFAULT;
INSERT INTO dm_def (d) VALUES (4);
SELECT * FROM dm_def ORDER BY d NULLS FIRST;
DROP TABLE dm_def;
DROP DOMAIN dm_d1;
DROP DOMAIN dm_d2;

-- name: dm_not_null_column_rules
-- @errors
DROP TABLE IF EXISTS dm_nt;
DROP DOMAIN IF EXISTS dm_nn CASCADE;
DROP DOMAIN IF EXISTS dm_n CASCADE;
DROP DOMAIN IF EXISTS dm_chk CASCADE;
CREATE DOMAIN dm_nn varchar(15) NOT NULL;
CREATE DOMAIN dm_n varchar(15);
CREATE DOMAIN dm_chk varchar(15) NOT NULL CHECK (VALUE = 'a' OR VALUE = 'c' OR VALUE = 'd');
CREATE TABLE dm_nt (col1 dm_nn, col2 dm_nn NULL, col3 dm_n NOT NULL, col4 dm_n, col5 dm_chk CHECK (col5 IN ('c', 'd')));
INSERT INTO dm_nt DEFAULT VALUES;
INSERT INTO dm_nt VALUES ('a', 'b', 'c', 'd', 'c');
INSERT INTO dm_nt VALUES ('a', 'b', 'c', 'd', NULL);
INSERT INTO dm_nt VALUES ('a', 'b', 'c', 'd', 'a');
INSERT INTO dm_nt VALUES (NULL, 'b', 'c', 'd', 'd');
INSERT INTO dm_nt VALUES ('a', NULL, 'c', 'd', 'c');
INSERT INTO dm_nt VALUES ('a', 'b', NULL, 'd', 'c');
INSERT INTO dm_nt VALUES ('a', 'b', 'c', NULL, 'd');
SELECT * FROM dm_nt ORDER BY col5;
SELECT cast('1' AS dm_nn);
SELECT cast(NULL AS dm_nn);
SELECT cast(cast(NULL AS dm_n) AS dm_nn);
SELECT cast(col4 AS dm_nn) FROM dm_nt;
DROP TABLE dm_nt;
DROP DOMAIN dm_nn;
DROP DOMAIN dm_n;
DROP DOMAIN dm_chk;

-- name: dm_upsert
-- @errors
DROP TABLE IF EXISTS dm_up;
DROP DOMAIN IF EXISTS dm_small CASCADE;
CREATE DOMAIN dm_small int CHECK (VALUE < 10);
CREATE TABLE dm_up (k int PRIMARY KEY, v dm_small);
INSERT INTO dm_up VALUES (1, 1) ON CONFLICT (k) DO UPDATE SET v = excluded.v + 1;
INSERT INTO dm_up VALUES (1, 5) ON CONFLICT (k) DO UPDATE SET v = excluded.v + 1;
INSERT INTO dm_up VALUES (1, 9) ON CONFLICT (k) DO UPDATE SET v = excluded.v + 1;
INSERT INTO dm_up VALUES (2, 12) ON CONFLICT (k) DO NOTHING;
SELECT * FROM dm_up ORDER BY k;
DROP TABLE dm_up;
DROP DOMAIN dm_small;

-- name: dm_index_and_compare
-- @errors
DROP TABLE IF EXISTS dm_ix;
DROP DOMAIN IF EXISTS dm_key CASCADE;
CREATE DOMAIN dm_key text CHECK (length(VALUE) > 1);
CREATE TABLE dm_ix (k dm_key PRIMARY KEY, n int);
CREATE INDEX dm_ix_n ON dm_ix (k, n);
INSERT INTO dm_ix VALUES ('bb', 2), ('aa', 1), ('cc', 3);
INSERT INTO dm_ix VALUES ('aa', 9);
INSERT INTO dm_ix VALUES ('a', 9);
SELECT * FROM dm_ix WHERE k = 'bb';
SELECT * FROM dm_ix WHERE k > 'aa' ORDER BY k DESC;
SELECT k, count(*) FROM dm_ix GROUP BY k ORDER BY k;
SELECT x.k FROM dm_ix x JOIN dm_ix y ON x.k = y.k ORDER BY 1;
DROP TABLE dm_ix;
DROP DOMAIN dm_key;

-- name: dm_domain_over_domain
-- @errors
DROP DOMAIN IF EXISTS dm_vchar4 CASCADE;
CREATE DOMAIN dm_vchar4 varchar(4);
CREATE DOMAIN dm_inter dm_vchar4 CHECK (substring(VALUE, 1, 1) = 'x');
CREATE DOMAIN dm_top dm_inter CHECK (substring(VALUE, 2, 1) = '1');
SELECT 'x123'::dm_top;
SELECT 'x1234'::dm_top;
SELECT 'y1234'::dm_top;
SELECT 'y123'::dm_top;
SELECT 'xz23'::dm_top;
CREATE TABLE dm_dtest (f1 dm_top);
INSERT INTO dm_dtest VALUES ('x123');
INSERT INTO dm_dtest VALUES ('x1234');
INSERT INTO dm_dtest VALUES ('y123');
INSERT INTO dm_dtest VALUES ('xz23');
SELECT * FROM dm_dtest;
DROP TABLE dm_dtest;
DROP DOMAIN dm_vchar4 CASCADE;

-- name: dm_arrays
-- @errors
DROP TABLE IF EXISTS dm_pitable;
DROP DOMAIN IF EXISTS dm_pi CASCADE;
DROP DOMAIN IF EXISTS dm_pair CASCADE;
CREATE DOMAIN dm_pi AS int CHECK (VALUE > 0);
CREATE TABLE dm_pitable (f1 dm_pi[]);
INSERT INTO dm_pitable VALUES (array[42]);
INSERT INTO dm_pitable VALUES (array[-1]);
INSERT INTO dm_pitable VALUES (array[1, 2, 0]);
SELECT f1::text, f1[1] FROM dm_pitable;
CREATE DOMAIN dm_pair AS int[] CHECK (VALUE[1] < VALUE[2]);
SELECT array[1,2]::dm_pair;
SELECT array[2,1]::dm_pair;
SELECT '{3,4}'::dm_pair, array_dims('{1,2,3}'::dm_pair);
DROP TABLE dm_pitable;
DROP DOMAIN dm_pi;
DROP DOMAIN dm_pair;

-- name: dm_alter_not_null
-- @errors
DROP TABLE IF EXISTS dm_domnotnull;
DROP DOMAIN IF EXISTS dm_nnt CASCADE;
CREATE DOMAIN dm_nnt integer;
CREATE TABLE dm_domnotnull (col1 dm_nnt, col2 dm_nnt);
INSERT INTO dm_domnotnull DEFAULT VALUES;
ALTER DOMAIN dm_nnt SET NOT NULL;
UPDATE dm_domnotnull SET col1 = 5;
ALTER DOMAIN dm_nnt SET NOT NULL;
UPDATE dm_domnotnull SET col2 = 6;
ALTER DOMAIN dm_nnt SET NOT NULL;
UPDATE dm_domnotnull SET col1 = NULL;
ALTER DOMAIN dm_nnt DROP NOT NULL;
ALTER DOMAIN dm_nnt ADD not null;
COMMENT ON DOMAIN dm_nnt IS 'a domain';
SELECT obj_description('dm_nnt'::regtype, 'pg_type');
UPDATE dm_domnotnull SET col1 = NULL;
SELECT * FROM dm_domnotnull;
DROP DOMAIN dm_nnt CASCADE;
SELECT * FROM dm_domnotnull;
DROP TABLE dm_domnotnull;

-- name: dm_alter_constraints
-- @errors
DROP TABLE IF EXISTS dm_domcontest;
DROP DOMAIN IF EXISTS dm_con CASCADE;
CREATE DOMAIN dm_con AS integer;
CREATE TABLE dm_domcontest (col1 dm_con);
INSERT INTO dm_domcontest VALUES (1);
INSERT INTO dm_domcontest VALUES (2);
ALTER DOMAIN dm_con ADD CONSTRAINT t CHECK (VALUE < 1);
ALTER DOMAIN dm_con ADD CONSTRAINT t CHECK (VALUE < 34);
ALTER DOMAIN dm_con ADD CHECK (VALUE > 0);
ALTER DOMAIN dm_con ADD CONSTRAINT t CHECK (VALUE < 50);
INSERT INTO dm_domcontest VALUES (-5);
INSERT INTO dm_domcontest VALUES (42);
INSERT INTO dm_domcontest VALUES (5);
ALTER DOMAIN dm_con DROP CONSTRAINT t;
INSERT INTO dm_domcontest VALUES (-5);
INSERT INTO dm_domcontest VALUES (42);
ALTER DOMAIN dm_con DROP CONSTRAINT nonexistent;
ALTER DOMAIN dm_con DROP CONSTRAINT IF EXISTS nonexistent;
SELECT * FROM dm_domcontest ORDER BY 1;
DROP TABLE dm_domcontest;
DROP DOMAIN dm_con;

-- name: dm_not_valid_and_validate
-- @errors
DROP TABLE IF EXISTS dm_thethings;
DROP DOMAIN IF EXISTS dm_things CASCADE;
CREATE DOMAIN dm_things AS INT;
CREATE TABLE dm_thethings (stuff dm_things);
INSERT INTO dm_thethings (stuff) VALUES (55);
ALTER DOMAIN dm_things ADD CONSTRAINT meow CHECK (VALUE < 11);
ALTER DOMAIN dm_things ADD CONSTRAINT meow CHECK (VALUE < 11) NOT VALID;
SELECT conname, contype, convalidated, pg_get_constraintdef(oid) FROM pg_constraint WHERE contypid = 'dm_things'::regtype;
INSERT INTO dm_thethings VALUES (12);
ALTER DOMAIN dm_things VALIDATE CONSTRAINT meow;
UPDATE dm_thethings SET stuff = 10;
ALTER DOMAIN dm_things VALIDATE CONSTRAINT meow;
ALTER DOMAIN dm_things VALIDATE CONSTRAINT nosuch;
SELECT conname, convalidated, pg_get_constraintdef(oid) FROM pg_constraint WHERE contypid = 'dm_things'::regtype;
DROP TABLE dm_thethings;
DROP DOMAIN dm_things;

-- name: dm_add_column_and_alter_type
-- @errors
DROP TABLE IF EXISTS dm_at;
DROP DOMAIN IF EXISTS dm_str CASCADE;
DROP DOMAIN IF EXISTS dm_str2 CASCADE;
DROP DOMAIN IF EXISTS dm_small2 CASCADE;
CREATE DOMAIN dm_str AS text NOT NULL;
CREATE DOMAIN dm_str2 AS text CHECK (VALUE <> 'foo') DEFAULT 'foo';
CREATE DOMAIN dm_small2 AS int CHECK (VALUE < 5);
CREATE TABLE dm_at (a int, b int);
INSERT INTO dm_at VALUES (1, 2), (3, 4);
ALTER TABLE dm_at ADD COLUMN c dm_str;
ALTER TABLE dm_at ADD COLUMN d dm_str2;
ALTER TABLE dm_at ADD COLUMN e dm_str DEFAULT 'e';
ALTER TABLE dm_at ALTER COLUMN b TYPE dm_small2;
ALTER TABLE dm_at ALTER COLUMN a TYPE dm_small2;
INSERT INTO dm_at (a, b) VALUES (4, 1);
INSERT INTO dm_at (a, b) VALUES (5, 1);
SELECT * FROM dm_at ORDER BY a;
DROP TABLE dm_at;
DROP DOMAIN dm_str;
DROP DOMAIN dm_str2;
DROP DOMAIN dm_small2;

-- name: dm_drop_dependents
-- @errors
DROP TABLE IF EXISTS dm_dep;
DROP DOMAIN IF EXISTS dm_base CASCADE;
CREATE DOMAIN dm_base int4;
CREATE DOMAIN dm_dependent dm_base;
DROP DOMAIN dm_base;
DROP DOMAIN dm_dependent;
CREATE TABLE dm_dep (x dm_base, y int);
DROP DOMAIN dm_base;
DROP DOMAIN dm_base RESTRICT;
DROP DOMAIN dm_base CASCADE;
SELECT * FROM dm_dep;
DROP DOMAIN dm_base CASCADE;
DROP TABLE dm_dep;

-- name: dm_rename_owner_schema
-- @errors
DROP DOMAIN IF EXISTS dm_r1 CASCADE;
DROP DOMAIN IF EXISTS dm_r2 CASCADE;
DROP DOMAIN IF EXISTS dm_r3 CASCADE;
DROP SCHEMA IF EXISTS dm_s CASCADE;
CREATE DOMAIN dm_r1 AS int CONSTRAINT unsigned CHECK (VALUE > 0);
ALTER DOMAIN dm_r1 RENAME TO dm_r2;
ALTER TYPE dm_r2 RENAME TO dm_r3;
SELECT 1::dm_r3;
SELECT (-1)::dm_r3;
ALTER DOMAIN dm_r3 RENAME CONSTRAINT unsigned TO unsigned_foo;
SELECT (-1)::dm_r3;
ALTER DOMAIN dm_r3 RENAME CONSTRAINT nosuch TO other;
ALTER DOMAIN dm_r3 OWNER TO postgres;
CREATE SCHEMA dm_s;
ALTER DOMAIN dm_r3 SET SCHEMA dm_s;
SELECT (-1)::dm_s.dm_r3;
SELECT n.nspname, t.typname, t.typtype FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE t.typname = 'dm_r3';
ALTER DOMAIN dm_s.dm_r3 DROP CONSTRAINT unsigned_foo;
SELECT (-1)::dm_s.dm_r3;
DROP DOMAIN dm_r1;
DROP DOMAIN dm_s.dm_r3;
DROP SCHEMA dm_s;

-- name: dm_not_a_domain
-- @errors
DROP TYPE IF EXISTS dm_mood;
CREATE TYPE dm_mood AS ENUM ('a', 'b');
ALTER DOMAIN dm_mood SET NOT NULL;
ALTER DOMAIN dm_nosuch SET NOT NULL;
DROP TYPE dm_mood;

-- name: dm_transactions
DROP DOMAIN IF EXISTS dm_tx CASCADE;
BEGIN;
CREATE DOMAIN dm_tx AS int CHECK (VALUE > 0);
SELECT 1::dm_tx;
ROLLBACK;
SELECT count(*) FROM pg_type WHERE typname = 'dm_tx';
CREATE DOMAIN dm_tx AS int CHECK (VALUE > 0);
BEGIN;
ALTER DOMAIN dm_tx ADD CONSTRAINT dm_tx_small CHECK (VALUE < 5);
SELECT count(*) FROM pg_constraint WHERE contypid = 'dm_tx'::regtype;
ROLLBACK;
SELECT count(*) FROM pg_constraint WHERE contypid = 'dm_tx'::regtype;
SELECT 7::dm_tx;
BEGIN;
DROP DOMAIN dm_tx;
ROLLBACK;
SELECT 3::dm_tx;
DROP DOMAIN dm_tx;

-- name: dm_sql_functions
-- @errors
DROP DOMAIN IF EXISTS dm_fpos CASCADE;
CREATE DOMAIN dm_fpos AS int4 CHECK (VALUE > 0) NOT NULL;
CREATE FUNCTION dm_dec(p dm_fpos) RETURNS dm_fpos LANGUAGE sql AS 'SELECT p - 1';
SELECT dm_dec(3);
SELECT dm_dec(1);
SELECT dm_dec(0);
SELECT dm_dec(NULL);
PREPARE dm_s1 AS SELECT $1::dm_fpos = 10 AS is_ten;
EXECUTE dm_s1(10);
SELECT 0::dm_fpos = 10;
SELECT NULL::dm_fpos = 10;
DEALLOCATE dm_s1;
DROP FUNCTION dm_dec(dm_fpos);
DROP DOMAIN dm_fpos;

-- name: dm_catalogs
DROP TABLE IF EXISTS dm_cat;
DROP DOMAIN IF EXISTS dm_c1 CASCADE;
DROP DOMAIN IF EXISTS dm_c2 CASCADE;
DROP DOMAIN IF EXISTS dm_c3 CASCADE;
CREATE DOMAIN dm_c1 AS int CHECK (VALUE > 0);
CREATE DOMAIN dm_c2 AS varchar(10) NOT NULL DEFAULT 'x' CONSTRAINT dm_c2_len CHECK (length(VALUE) > 0);
CREATE DOMAIN dm_c3 AS int[] DEFAULT '{}';
CREATE TABLE dm_cat (a dm_c1, b dm_c2, c dm_c3, d dm_c1[]);
SELECT typname, typtype, typbasetype::regtype::text, typtypmod, typnotnull, typdefault, typndims, typcategory, typlen, typbyval FROM pg_type WHERE typname LIKE 'dm\_c_' ORDER BY 1;
SELECT t.typname, a.typname AS arr, a.typelem = t.oid AS elem FROM pg_type t JOIN pg_type a ON a.oid = t.typarray WHERE t.typname LIKE 'dm\_c_' ORDER BY 1;
SELECT conname, contype, contypid::regtype::text, conrelid, convalidated, pg_get_constraintdef(oid), pg_get_constraintdef(oid, true) FROM pg_constraint WHERE contypid IN ('dm_c1'::regtype, 'dm_c2'::regtype) ORDER BY conname;
SELECT attname, atttypid::regtype::text, atttypmod, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'dm_cat'::regclass AND attnum > 0 ORDER BY attnum;
SELECT 'dm_c1'::regtype::text, 'dm_c1[]'::regtype::text, '_dm_c2'::regtype::text, format_type('dm_c2'::regtype, NULL);
DROP TABLE dm_cat;
DROP DOMAIN dm_c1;
DROP DOMAIN dm_c2;
DROP DOMAIN dm_c3;

-- name: dm_psql_dD_and_d
DROP TABLE IF EXISTS dm_ps;
DROP DOMAIN IF EXISTS dm_p1 CASCADE;
DROP DOMAIN IF EXISTS dm_p2 CASCADE;
CREATE DOMAIN dm_p1 AS int CHECK (VALUE > 0);
CREATE DOMAIN dm_p2 AS varchar(10) NOT NULL DEFAULT 'x';
CREATE TABLE dm_ps (a dm_p1, b dm_p2 DEFAULT 'y', c int);
SELECT n.nspname as "Schema", t.typname as "Name", pg_catalog.format_type(t.typbasetype, t.typtypmod) as "Type", (SELECT c.collname FROM pg_catalog.pg_collation c, pg_catalog.pg_type bt WHERE c.oid = t.typcollation AND bt.oid = t.typbasetype AND t.typcollation <> bt.typcollation) as "Collation", CASE WHEN t.typnotnull THEN 'not null' END as "Nullable", t.typdefault as "Default", pg_catalog.array_to_string(ARRAY(SELECT pg_catalog.pg_get_constraintdef(r.oid, true) FROM pg_catalog.pg_constraint r WHERE t.oid = r.contypid), ' ') as "Check" FROM pg_catalog.pg_type t LEFT JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace WHERE t.typtype = 'd' AND n.nspname <> 'pg_catalog' AND n.nspname <> 'information_schema' AND pg_catalog.pg_type_is_visible(t.oid) AND t.typname ~ '^(dm_p1|dm_p2)$' ORDER BY 1, 2;
SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), (SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid, true) FROM pg_catalog.pg_attrdef d WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND a.atthasdef), a.attnotnull FROM pg_catalog.pg_attribute a WHERE a.attrelid = 'dm_ps'::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum;
DROP TABLE dm_ps;
DROP DOMAIN dm_p1;
DROP DOMAIN dm_p2;
