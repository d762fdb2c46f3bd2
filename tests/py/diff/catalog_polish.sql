-- Differential SQL cases: catalog pieces psql users and drivers meet — the pg_indexes,
-- pg_tables and pg_views views over user relations, the regrole type, pg_attribute of an
-- index, pg_get_constraintdef's CHECK texts. Objects are prefixed cp_; each case drops what it
-- makes. The views are filtered to the cases' schemas: PostgreSQL's also list its catalogs.

-- name: pg_indexes_user_tables
DROP SCHEMA IF EXISTS cp_s CASCADE;
DROP TABLE IF EXISTS cp_t;
CREATE TABLE cp_t (id int PRIMARY KEY, a text UNIQUE, b int, c int);
CREATE INDEX cp_t_b ON cp_t (b);
CREATE UNIQUE INDEX cp_t_cb ON cp_t (c, b);
CREATE SCHEMA cp_s;
CREATE TABLE cp_s."Odd T" ("Col" int PRIMARY KEY, "x y" int);
CREATE INDEX "Odd Idx" ON cp_s."Odd T" ("x y", "Col");
SELECT * FROM pg_indexes WHERE schemaname IN ('public', 'cp_s') AND tablename IN ('cp_t', 'Odd T') ORDER BY indexname;
SELECT indexname, indexdef = pg_get_indexdef(indexname::regclass::oid) FROM pg_catalog.pg_indexes WHERE tablename = 'cp_t' ORDER BY 1;
DROP SCHEMA cp_s CASCADE;
DROP TABLE cp_t;

-- name: pg_indexes_transactional
DROP TABLE IF EXISTS cp_tx;
CREATE TABLE cp_tx (a int, b int);
BEGIN;
CREATE INDEX cp_tx_a ON cp_tx (a);
ALTER TABLE cp_tx ADD CONSTRAINT cp_tx_b_key UNIQUE (b);
SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'cp_tx' ORDER BY 1;
ROLLBACK;
SELECT count(*) FROM pg_indexes WHERE tablename = 'cp_tx';
DROP TABLE cp_tx;
SELECT count(*) FROM pg_indexes WHERE tablename = 'cp_tx';

-- name: pg_tables_user_tables
DROP TABLE IF EXISTS cp_child, cp_parent, cp_plain;
CREATE TABLE cp_parent (id int PRIMARY KEY);
CREATE TABLE cp_child (id int, p int REFERENCES cp_parent);
CREATE TABLE cp_plain (x int);
CREATE SEQUENCE IF NOT EXISTS cp_seq;
SELECT * FROM pg_tables WHERE tablename LIKE 'cp\_%' ORDER BY tablename;
SELECT tablename, hasindexes FROM pg_catalog.pg_tables WHERE schemaname = 'public' AND tablename = 'cp_plain';
DROP SEQUENCE cp_seq;
DROP TABLE cp_child, cp_parent, cp_plain;

-- name: pg_views_user_views
DROP VIEW IF EXISTS cp_v;
DROP TABLE IF EXISTS cp_vt;
CREATE TABLE cp_vt (id int, a text);
CREATE VIEW cp_v AS SELECT id, a FROM cp_vt;
SELECT schemaname, viewname, viewowner, definition FROM pg_views WHERE viewname = 'cp_v';
DROP VIEW cp_v;
DROP TABLE cp_vt;

-- name: regrole_predefined
SELECT 'postgres'::regrole, 'POSTGRES'::regrole, '"postgres"'::regrole, '10'::regrole, 10::regrole, 0::regrole, 99999::regrole, '-'::regrole;
SELECT 'postgres'::regrole::oid, 'pg_monitor'::regrole::oid::int4, 'pg_read_all_data'::regrole::int8, 'pg_monitor'::pg_catalog.regrole::text;
SELECT pg_typeof('postgres'::regrole), 'postgres'::regrole = 10, 'postgres'::regrole::text = 'postgres';
SELECT rolname FROM pg_roles WHERE oid = 'pg_monitor'::regrole;
SELECT to_regrole('postgres'), to_regrole('nosuch'), to_regrole('POSTGRES');

-- name: regrole_unknown_role
-- @errors
SELECT 'cp_no_such_role'::regrole;
SELECT '"Postgres"'::regrole;

-- name: regrole_bad_name
-- @errors
SELECT 'a.b'::regrole;
SELECT ''::regrole;
SELECT 'two words'::regrole;
SELECT to_regrole('a.b');

-- name: regrole_created_roles
DROP ROLE IF EXISTS cp_r1;
DROP ROLE IF EXISTS "Cp Role";
CREATE ROLE cp_r1;
CREATE ROLE "Cp Role";
SELECT 'cp_r1'::regrole::text, '"Cp Role"'::regrole::text, to_regrole('"Cp Role"')::text;
SELECT r.rolname, r.oid::regrole::text, r.oid::regrole = r.oid, to_regrole(quote_ident(r.rolname))::oid = r.oid FROM pg_roles r WHERE r.rolname IN ('cp_r1', 'Cp Role', 'postgres', 'pg_monitor') ORDER BY 1;
SELECT rolname FROM pg_roles WHERE oid = 'cp_r1'::regrole;
SELECT count(*) FROM pg_roles r WHERE r.oid = '"Cp Role"'::regrole::oid;
DROP ROLE cp_r1;
DROP ROLE "Cp Role";

-- name: regrole_created_roles_values
-- @modes simple,extended
-- (In binary a regrole is its OID, which differs between servers for a role made here.)
DROP ROLE IF EXISTS cp_r2;
CREATE ROLE cp_r2;
SELECT 'cp_r2'::regrole, to_regrole('cp_r2'), r.oid::regrole FROM pg_roles r WHERE r.rolname = 'cp_r2';
DROP ROLE cp_r2;

-- name: pg_attribute_of_indexes
DROP TABLE IF EXISTS cp_ai;
CREATE TABLE cp_ai (id int PRIMARY KEY, a text UNIQUE, b int NOT NULL DEFAULT 7, c int, d int GENERATED ALWAYS AS IDENTITY, s serial);
CREATE INDEX cp_ai_bc ON cp_ai (b, c);
CREATE UNIQUE INDEX cp_ai_ds ON cp_ai (d, s);
SELECT c.relname, a.attname, a.attnum, a.attnotnull, a.atthasdef, a.attidentity, a.attgenerated, a.atttypid, a.attlen, a.attstorage, a.attalign, a.attcollation, a.attislocal, a.attbyval, a.attisdropped FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname LIKE 'cp\_ai%' AND c.relkind = 'i' ORDER BY 1, 3;
SELECT attname, attnotnull FROM pg_attribute WHERE attrelid = 'cp_ai_pkey'::regclass;
SELECT attname, attnotnull, atthasdef, attidentity FROM pg_attribute WHERE attrelid = 'cp_ai'::regclass AND attnum > 0 ORDER BY attnum;
DROP TABLE cp_ai;

-- name: constraintdef_check_forms
DROP TABLE IF EXISTS cp_ck;
CREATE TABLE cp_ck (a int CHECK (a > 0), b int, c text, d numeric, e varchar(14), k float8, o int2, f int8, h bool,
  CONSTRAINT ck_and CHECK (a > 0 AND b < 10),
  CONSTRAINT ck_or CHECK (a > 0 OR b IS NULL),
  CONSTRAINT ck_fn CHECK (length(c) < 5),
  CONSTRAINT ck_fn2 CHECK (lower(c) <> upper(c)),
  CONSTRAINT ck_fn3 CHECK (length(e) < 5),
  CONSTRAINT ck_in CHECK (c IN ('x', 'y')),
  CONSTRAINT ck_in2 CHECK (b IN (1, 2, 3)),
  CONSTRAINT ck_not_in CHECK (c NOT IN ('p', 'q')),
  CONSTRAINT ck_not_in1 CHECK (c NOT IN ('z')),
  CONSTRAINT ck_not CHECK (NOT (a = 5)),
  CONSTRAINT ck_not2 CHECK (NOT h),
  CONSTRAINT ck_bool CHECK (h),
  CONSTRAINT ck_mix CHECK ((a > 0 AND b > 0) OR c IS NOT NULL),
  CONSTRAINT ck_mix2 CHECK (upper(c) = 'X' AND (a IS NULL OR a BETWEEN 1 AND 3)),
  CONSTRAINT ck_arith CHECK (a + b * 2 > 3),
  CONSTRAINT ck_arith2 CHECK (a::bigint * 2 - 1 > o % 3),
  CONSTRAINT ck_arith3 CHECK (a + o > f),
  CONSTRAINT ck_between CHECK (b BETWEEN 1 AND 10),
  CONSTRAINT ck_num CHECK (d >= 0.5),
  CONSTRAINT ck_num2 CHECK (d < 10),
  CONSTRAINT ck_neg CHECK (a > -5),
  CONSTRAINT ck_float CHECK (k > 0.5),
  CONSTRAINT ck_like CHECK (e LIKE 'x%'),
  CONSTRAINT ck_empty CHECK (c <> ''));
SELECT conname, pg_get_constraintdef(oid), pg_get_constraintdef(oid, false), pg_get_constraintdef(oid, true) FROM pg_constraint WHERE conrelid = 'cp_ck'::regclass ORDER BY conname;
DROP TABLE cp_ck;

-- name: constraintdef_other_kinds
DROP TABLE IF EXISTS cp_ckc, cp_ckp;
CREATE TABLE cp_ckp (id int PRIMARY KEY, u int UNIQUE);
CREATE TABLE cp_ckc (id int REFERENCES cp_ckp ON DELETE CASCADE, v int CHECK (v <> 0));
SELECT conname, pg_get_constraintdef(oid), pg_get_constraintdef(oid, true) FROM pg_constraint WHERE conrelid IN ('cp_ckp'::regclass, 'cp_ckc'::regclass) ORDER BY conname;
DROP TABLE cp_ckc, cp_ckp;

-- name: get_expr_default_forms
DROP TABLE IF EXISTS cp_df;
CREATE TABLE cp_df (a int DEFAULT 1 + 2, b numeric DEFAULT 5, c text DEFAULT 'x' || 'y', d timestamptz DEFAULT now(), e int8 DEFAULT -1, f varchar(5) DEFAULT upper('q'), g numeric DEFAULT 2 * 3 - 1, h int DEFAULT 7, i float8 DEFAULT 0.5, j bool DEFAULT (NOT false), k int DEFAULT (3), l int8 DEFAULT 1 + 2, m float8 DEFAULT 1 + 1, n numeric DEFAULT length('ab'), o varchar DEFAULT 'a' || 'b');
SELECT a.attname, pg_get_expr(d.adbin, d.adrelid), pg_get_expr(d.adbin, d.adrelid, true), pg_get_expr(d.adbin, d.adrelid, false) FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum WHERE d.adrelid = 'cp_df'::regclass ORDER BY 1;
DROP TABLE cp_df;

-- name: get_expr_check_forms
DROP TABLE IF EXISTS cp_gx;
CREATE TABLE cp_gx (a int, b text, CONSTRAINT cp_gx_c CHECK (a > 0 AND (b IS NULL OR b IN ('u', 'v'))));
SELECT pg_get_expr(conbin, conrelid), pg_get_expr(conbin, conrelid, true) FROM pg_constraint WHERE conname = 'cp_gx_c';
DROP TABLE cp_gx;
