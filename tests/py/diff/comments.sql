-- Differential SQL cases: COMMENT ON (tables, views, sequences, indexes, columns, schemas,
-- constraints, roles), pg_description / pg_shdescription, obj_description, col_description,
-- shobj_description; descriptions going away with their object and rolling back with their
-- transaction. Objects are prefixed cm_; each case drops what it makes.

-- name: comments_basic
DROP TABLE IF EXISTS cm_t CASCADE;
CREATE TABLE cm_t (a int PRIMARY KEY, b text, CONSTRAINT cm_chk CHECK (a > 0));
CREATE VIEW cm_v AS SELECT a FROM cm_t;
CREATE SEQUENCE cm_s;
CREATE INDEX cm_i ON cm_t (b);
COMMENT ON TABLE cm_t IS 'the table';
COMMENT ON VIEW cm_v IS 'the view';
COMMENT ON SEQUENCE cm_s IS 'the sequence';
COMMENT ON INDEX cm_i IS 'the index';
COMMENT ON COLUMN cm_t.b IS 'column b';
COMMENT ON COLUMN cm_v.a IS 'view column a';
COMMENT ON CONSTRAINT cm_chk ON cm_t IS 'positive';
SELECT obj_description('cm_t'::regclass, 'pg_class'), obj_description('cm_v'::regclass), obj_description('cm_s'::regclass, 'pg_class'), obj_description('cm_i'::regclass, 'pg_class');
SELECT col_description('cm_t'::regclass, 1), col_description('cm_t'::regclass, 2), col_description('cm_v'::regclass, 1);
SELECT obj_description(oid, 'pg_constraint') FROM pg_constraint WHERE conname = 'cm_chk';
SELECT c.relname, d.objsubid, d.description, d.classoid::regclass FROM pg_description d JOIN pg_class c ON c.oid = d.objoid WHERE c.relname LIKE 'cm\_%' ORDER BY 1, 2;
SELECT count(*) FROM pg_description d JOIN pg_constraint c ON c.oid = d.objoid AND d.classoid = 'pg_constraint'::regclass WHERE c.conname = 'cm_chk';
COMMENT ON TABLE cm_t IS 'changed';
COMMENT ON COLUMN cm_t.b IS NULL;
COMMENT ON INDEX cm_i IS '';
SELECT obj_description('cm_t'::regclass, 'pg_class'), col_description('cm_t'::regclass, 2), obj_description('cm_i'::regclass, 'pg_class');
SELECT obj_description('cm_t'::regclass, 'no_such_catalog'), obj_description('cm_t'::regclass, 'pg_namespace');
DROP VIEW cm_v;
DROP SEQUENCE cm_s;
DROP TABLE cm_t;

-- name: comments_go_with_object
DROP TABLE IF EXISTS cm_g;
CREATE TABLE cm_g (a int, b int, c int);
COMMENT ON TABLE cm_g IS 'g';
COMMENT ON COLUMN cm_g.b IS 'gb';
COMMENT ON COLUMN cm_g.c IS 'gc';
ALTER TABLE cm_g DROP COLUMN b;
SELECT col_description('cm_g'::regclass, 2), col_description('cm_g'::regclass, 3);
SELECT d.objsubid, d.description FROM pg_description d WHERE d.objoid = 'cm_g'::regclass ORDER BY 1;
CREATE TEMP TABLE cm_oid AS SELECT 'cm_g'::regclass::oid AS o;
DROP TABLE cm_g;
SELECT count(*) FROM pg_description d, cm_oid WHERE d.objoid = cm_oid.o;
SELECT obj_description(o) FROM cm_oid;
DROP TABLE cm_oid;

-- name: comments_transactional
DROP TABLE IF EXISTS cm_x;
CREATE TABLE cm_x (a int);
BEGIN;
COMMENT ON TABLE cm_x IS 'in txn';
SELECT obj_description('cm_x'::regclass, 'pg_class');
ROLLBACK;
SELECT obj_description('cm_x'::regclass, 'pg_class');
BEGIN;
COMMENT ON TABLE cm_x IS 'kept';
SAVEPOINT s1;
COMMENT ON TABLE cm_x IS 'savepoint';
SELECT obj_description('cm_x'::regclass, 'pg_class');
ROLLBACK TO s1;
SELECT obj_description('cm_x'::regclass, 'pg_class');
COMMIT;
SELECT obj_description('cm_x'::regclass, 'pg_class');
BEGIN;
DROP TABLE cm_x;
ROLLBACK;
SELECT obj_description('cm_x'::regclass, 'pg_class');
DROP TABLE cm_x;

-- name: comments_schema_role
DROP SCHEMA IF EXISTS cm_sch;
DROP ROLE IF EXISTS cm_role;
CREATE SCHEMA cm_sch;
CREATE ROLE cm_role;
COMMENT ON SCHEMA cm_sch IS 'a schema';
COMMENT ON ROLE cm_role IS 'a role';
SELECT obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname = 'cm_sch';
SELECT shobj_description(oid, 'pg_authid') FROM pg_roles WHERE rolname = 'cm_role';
SELECT d.description FROM pg_shdescription d JOIN pg_authid a ON a.oid = d.objoid WHERE a.rolname = 'cm_role';
SELECT d.description, d.classoid::regclass FROM pg_shdescription d JOIN pg_database b ON b.oid = d.objoid ORDER BY 1;
COMMENT ON SCHEMA public IS 'changed public';
SELECT obj_description('public'::regnamespace, 'pg_namespace');
COMMENT ON SCHEMA public IS NULL;
SELECT obj_description('public'::regnamespace, 'pg_namespace');
COMMENT ON SCHEMA public IS 'standard public schema';
SELECT obj_description('public'::regnamespace, 'pg_namespace'), obj_description('pg_catalog'::regnamespace, 'pg_namespace');
DROP SCHEMA cm_sch;
DROP ROLE cm_role;
SELECT count(*) FROM pg_shdescription WHERE description = 'a role';
SELECT count(*) FROM pg_description WHERE description = 'a schema';

-- name: comments_errors
-- @errors
DROP TABLE IF EXISTS cm_e CASCADE;
CREATE TABLE cm_e (a int, CONSTRAINT cm_e_chk CHECK (a > 0));
CREATE VIEW cm_ev AS SELECT a FROM cm_e;
CREATE INDEX cm_ei ON cm_e (a);
COMMENT ON TABLE cm_nope IS 'x';
COMMENT ON TABLE public.cm_nope IS 'x';
COMMENT ON COLUMN cm_nope.a IS 'x';
COMMENT ON COLUMN cm_e.nope IS 'x';
COMMENT ON TABLE cm_ev IS 'x';
COMMENT ON VIEW cm_e IS 'x';
COMMENT ON INDEX cm_e IS 'x';
COMMENT ON SEQUENCE cm_e IS 'x';
COMMENT ON COLUMN cm_ei.a IS 'x';
COMMENT ON CONSTRAINT nope ON cm_e IS 'x';
COMMENT ON SCHEMA cm_nope IS 'x';
COMMENT ON ROLE cm_nope IS 'x';
DROP VIEW cm_ev;
DROP TABLE cm_e;

-- name: like_basic
-- @errors
DROP TABLE IF EXISTS cm_src, cm_l1, cm_l2, cm_l3, cm_l4 CASCADE;
CREATE TABLE cm_src (id int PRIMARY KEY, name text NOT NULL DEFAULT 'n', code varchar(5) UNIQUE, qty numeric(8,2) DEFAULT 1.5, junk int, CONSTRAINT cm_id_pos CHECK (id > 0));
CREATE INDEX cm_src_name ON cm_src (name);
ALTER TABLE cm_src DROP COLUMN junk;
COMMENT ON COLUMN cm_src.name IS 'the name';
CREATE TABLE cm_l1 (LIKE cm_src);
CREATE TABLE cm_l2 (before int, LIKE cm_src INCLUDING DEFAULTS INCLUDING CONSTRAINTS, after text);
CREATE TABLE cm_l3 (LIKE cm_src INCLUDING ALL);
CREATE TABLE cm_l4 (LIKE cm_src INCLUDING ALL EXCLUDING INDEXES EXCLUDING COMMENTS);
SELECT c.relname, a.attnum, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid), col_description(c.oid, a.attnum) FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum WHERE c.relname LIKE 'cm\_l%' AND c.relkind = 'r' ORDER BY 1, 2;
SELECT r.relname, c.conname, c.contype, pg_get_constraintdef(c.oid, true) FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid WHERE r.relname LIKE 'cm\_l%' ORDER BY 1, 2;
SELECT c.relname, i.relname, pg_get_indexdef(i.oid) FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class c ON c.oid = x.indrelid WHERE c.relname LIKE 'cm\_l%' ORDER BY 1, 2;
INSERT INTO cm_l3 (id, code) VALUES (1, 'a');
INSERT INTO cm_l3 (id, code) VALUES (2, 'a');
SELECT * FROM cm_l3;
DROP TABLE cm_src, cm_l1, cm_l2, cm_l3, cm_l4;

-- name: like_view_and_errors
-- @errors
DROP TABLE IF EXISTS cm_lsrc, cm_lv1 CASCADE;
CREATE TABLE cm_lsrc (a int, b text);
CREATE VIEW cm_lview AS SELECT a, b FROM cm_lsrc;
CREATE SEQUENCE cm_lseq;
CREATE TABLE cm_lv1 (LIKE cm_lview);
SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'cm_lv1'::regclass AND attnum > 0 ORDER BY attnum;
CREATE TABLE cm_lv2 (LIKE cm_nope);
CREATE TABLE cm_lv2 (LIKE public.cm_nope);
CREATE TABLE cm_lv2 (LIKE cm_lseq);
CREATE TABLE cm_lv2 (a int, LIKE cm_lsrc);
CREATE TABLE IF NOT EXISTS cm_lv1 (LIKE cm_nope);
DROP SEQUENCE cm_lseq;
DROP VIEW cm_lview;
DROP TABLE cm_lsrc, cm_lv1;

-- name: comments_ownership
-- @errors
DROP TABLE IF EXISTS cm_own;
DROP SCHEMA IF EXISTS cm_osch;
DROP ROLE IF EXISTS cm_plain, cm_creator, cm_other;
CREATE ROLE cm_plain;
CREATE ROLE cm_creator CREATEROLE;
CREATE ROLE cm_other;
CREATE TABLE cm_own (a int, CONSTRAINT cm_own_chk CHECK (a > 0));
CREATE SCHEMA cm_osch;
GRANT USAGE ON SCHEMA cm_osch TO cm_plain;
SET ROLE cm_plain;
COMMENT ON TABLE cm_own IS 'x';
COMMENT ON COLUMN cm_own.a IS 'x';
COMMENT ON COLUMN cm_own.nope IS 'x';
COMMENT ON CONSTRAINT cm_own_chk ON cm_own IS 'x';
COMMENT ON SCHEMA cm_osch IS 'x';
COMMENT ON SCHEMA public IS 'x';
COMMENT ON ROLE cm_other IS 'x';
COMMENT ON ROLE postgres IS 'x';
RESET ROLE;
SET ROLE cm_creator;
COMMENT ON ROLE cm_other IS 'by creator';
COMMENT ON ROLE postgres IS 'x';
RESET ROLE;
ALTER TABLE cm_own OWNER TO cm_plain;
SET ROLE cm_plain;
COMMENT ON TABLE cm_own IS 'mine';
RESET ROLE;
SELECT obj_description('cm_own'::regclass, 'pg_class'), (SELECT shobj_description(oid, 'pg_authid') FROM pg_roles WHERE rolname = 'cm_other');
DROP TABLE cm_own;
DROP SCHEMA cm_osch;
DROP ROLE cm_plain, cm_creator, cm_other;

-- name: like_needs_select
-- @errors
DROP TABLE IF EXISTS cm_lp, cm_lp2;
DROP ROLE IF EXISTS cm_lrole;
CREATE ROLE cm_lrole;
CREATE TABLE cm_lp (a int);
GRANT CREATE ON SCHEMA public TO cm_lrole;
SET ROLE cm_lrole;
CREATE TABLE cm_lp2 (LIKE cm_lp);
RESET ROLE;
GRANT SELECT ON cm_lp TO cm_lrole;
SET ROLE cm_lrole;
CREATE TABLE cm_lp2 (LIKE cm_lp);
DROP TABLE cm_lp2;
RESET ROLE;
REVOKE CREATE ON SCHEMA public FROM cm_lrole;
DROP TABLE cm_lp;
DROP ROLE cm_lrole;

-- name: comment_on_function
-- @errors
CREATE FUNCTION cmt_f(a int) RETURNS int LANGUAGE sql AS 'SELECT a + 1';
CREATE FUNCTION cmt_f(a text) RETURNS text LANGUAGE sql AS 'SELECT a';
CREATE PROCEDURE cmt_p() LANGUAGE sql AS 'SELECT 1';
COMMENT ON FUNCTION cmt_f(int) IS 'adds one';
COMMENT ON FUNCTION cmt_f(text) IS 'echoes';
COMMENT ON PROCEDURE cmt_p() IS 'does nothing';
SELECT p.proname, pg_get_function_arguments(p.oid), d.description FROM pg_description d JOIN pg_proc p ON p.oid = d.objoid AND d.classoid = 'pg_proc'::regclass WHERE p.proname LIKE 'cmt_%' ORDER BY 1, 2;
SELECT obj_description(p.oid, 'pg_proc') FROM pg_proc p WHERE p.proname = 'cmt_p';
COMMENT ON FUNCTION cmt_f IS 'ambiguous';
COMMENT ON FUNCTION cmt_missing(int) IS 'x';
COMMENT ON FUNCTION cmt_f(bigint) IS 'x';
COMMENT ON ROUTINE cmt_p IS 'by routine';
COMMENT ON FUNCTION cmt_f(text) IS NULL;
SELECT p.proname, d.description FROM pg_description d JOIN pg_proc p ON p.oid = d.objoid WHERE p.proname LIKE 'cmt_%' ORDER BY 1, 2;
BEGIN;
DROP FUNCTION cmt_f(int);
SELECT count(*) FROM pg_description d JOIN pg_proc p ON p.oid = d.objoid WHERE p.proname = 'cmt_f';
ROLLBACK;
SELECT count(*) FROM pg_description d JOIN pg_proc p ON p.oid = d.objoid WHERE p.proname = 'cmt_f';
DROP FUNCTION cmt_f(int);
DROP FUNCTION cmt_f(text);
DROP PROCEDURE cmt_p();
