-- Differential SQL cases: what pg_dump's catalog queries need (issue 31): the tableoid system
-- column of tables and catalogs (NULL on an outer join's missing side), the catalogs that hold
-- no rows here, pg_options_to_table, name subscripts, ANY over oidvector, the settings pg_dump
-- and its scripts set, pg_get_constraintdef's qualified FOREIGN KEY target, pg_depend's rows
-- for views and column defaults, ALTER FUNCTION ... OWNER TO and ALTER TABLE ... ADD
-- GENERATED AS IDENTITY. Objects are prefixed pd_; each case drops what it makes.

-- name: pg_dump_tableoid
DROP TABLE IF EXISTS pd_t;
CREATE TABLE pd_t (id int PRIMARY KEY, v text);
INSERT INTO pd_t VALUES (1, 'a'), (2, NULL);
SELECT tableoid = 'pd_t'::regclass AS same, id FROM pd_t ORDER BY id;
SELECT t.tableoid = 'pd_t'::regclass, t.v FROM pd_t t ORDER BY t.id;
SELECT c.tableoid, c.relname FROM pg_class c WHERE c.relname = 'pd_t';
SELECT n.tableoid, n.nspname FROM pg_namespace n WHERE n.nspname = 'pg_catalog';
SELECT t.tableoid, t.typname FROM pg_type t WHERE t.typname = 'int4';
SELECT x.id, c.tableoid IS NULL AS missing FROM pd_t x LEFT JOIN pg_constraint c ON c.conrelid = x.id::oid ORDER BY 1;
DROP TABLE pd_t;

-- name: pg_dump_tableoid_ambiguous
-- @errors
DROP TABLE IF EXISTS pd_t2;
CREATE TABLE pd_t2 (id int);
SELECT tableoid FROM pd_t2 x JOIN pd_t2 y USING (id);
DROP TABLE pd_t2;

-- name: pg_dump_empty_catalogs
SELECT count(*) FROM pg_opclass WHERE opcname = 'no_such';
SELECT count(*) FROM pg_cast WHERE oid > 16383;
SELECT count(*) FROM pg_transform;
SELECT count(*) FROM pg_default_acl;
SELECT count(*) FROM pg_seclabels;
SELECT count(*) FROM pg_shseclabel;
SELECT count(*) FROM pg_parameter_acl;
SELECT count(*) FROM pg_ts_config WHERE oid > 16383;
SELECT objoid::regnamespace::text, privtype, initprivs::text FROM pg_init_privs WHERE classoid = 'pg_namespace'::regclass ORDER BY 1::text;

-- name: pg_dump_options_to_table
SELECT * FROM pg_options_to_table('{fillfactor=70,"a=b=c",novalue}'::text[]);
SELECT array_to_string(ARRAY(SELECT quote_ident(option_name) || ' ' || quote_literal(option_value) FROM pg_options_to_table(NULL::text[]) ORDER BY option_name), ', ');

-- name: pg_dump_name_subscript
SELECT typname, typname[0] = '_' AS is_array FROM pg_type WHERE typname IN ('int4', '_int4') ORDER BY 1;
SELECT ('abc'::name)[1], ('abc'::name)[5] = '', ('abc'::name)[100] IS NULL;

-- name: pg_dump_any_oidvector
SELECT 23::oid = ANY ('23 25'::oidvector), 2::int2 = ANY ('1 3'::int2vector);

-- name: pg_dump_settings
SET synchronize_seqscans TO off;
SHOW synchronize_seqscans;
SET row_security = off;
SHOW row_security;
SET default_tablespace = '';
SET default_table_access_method = heap;
SET xmloption = content;
SHOW xmloption;
RESET synchronize_seqscans;
RESET row_security;
RESET xmloption;

-- name: pg_dump_fk_qualified
DROP SCHEMA IF EXISTS pd_s CASCADE;
CREATE SCHEMA pd_s;
CREATE TABLE pd_s.parent (id int PRIMARY KEY);
CREATE TABLE pd_s.child (p int REFERENCES pd_s.parent (id));
SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'child_p_fkey';
SET search_path = pd_s;
SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conname = 'child_p_fkey';
RESET search_path;
DROP SCHEMA pd_s CASCADE;

-- name: pg_dump_depend_views_defaults
DROP VIEW IF EXISTS pd_v;
DROP TABLE IF EXISTS pd_d;
CREATE TABLE pd_d (id serial, a int, b text DEFAULT 'x');
CREATE VIEW pd_v AS SELECT a FROM pd_d;
SELECT classid::regclass::text, refclassid::regclass::text, refobjid::regclass::text, refobjsubid, deptype FROM pg_depend WHERE refobjid IN ('pd_d'::regclass, 'pd_d_id_seq'::regclass) AND classid = 'pg_attrdef'::regclass ORDER BY 3::text, 4;
SELECT count(*) FROM pg_attrdef WHERE adrelid = 'pd_d'::regclass;
SELECT count(DISTINCT oid) FROM pg_attrdef WHERE adrelid = 'pd_d'::regclass;
DROP VIEW pd_v;
DROP TABLE pd_d;

-- name: pg_dump_alter_function_owner
DROP FUNCTION IF EXISTS pd_f(int);
DROP ROLE IF EXISTS pd_role;
CREATE ROLE pd_role;
CREATE FUNCTION pd_f(x int) RETURNS int LANGUAGE sql AS 'SELECT x';
ALTER FUNCTION pd_f(int) OWNER TO pd_role;
SELECT proowner::regrole::text FROM pg_proc WHERE proname = 'pd_f';
ALTER FUNCTION pd_f(int) OWNER TO CURRENT_USER;
SELECT proowner::regrole = current_user::regrole FROM pg_proc WHERE proname = 'pd_f';
DROP FUNCTION pd_f(int);
DROP ROLE pd_role;

-- name: pg_dump_alter_function_owner_missing
-- @errors
ALTER FUNCTION pd_nope(text) OWNER TO CURRENT_USER;

-- name: pg_dump_add_identity
DROP TABLE IF EXISTS pd_i;
CREATE TABLE pd_i (a int NOT NULL, b int, c int NOT NULL DEFAULT 1);
ALTER TABLE pd_i ALTER COLUMN a ADD GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME pd_i_seq START WITH 5 INCREMENT BY 2);
INSERT INTO pd_i (b) VALUES (1), (2);
SELECT * FROM pd_i ORDER BY a;
SELECT attname, attidentity FROM pg_attribute WHERE attrelid = 'pd_i'::regclass AND attnum > 0 ORDER BY attnum;
SELECT pg_get_serial_sequence('pd_i', 'a');
DROP TABLE pd_i;

-- name: pg_dump_add_identity_errors
-- @errors
DROP TABLE IF EXISTS pd_i;
CREATE TABLE pd_i (a int GENERATED ALWAYS AS IDENTITY, b int, c int NOT NULL DEFAULT 1);
ALTER TABLE pd_i ALTER COLUMN a ADD GENERATED BY DEFAULT AS IDENTITY;
ALTER TABLE pd_i ALTER COLUMN b ADD GENERATED BY DEFAULT AS IDENTITY;
ALTER TABLE pd_i ALTER COLUMN c ADD GENERATED BY DEFAULT AS IDENTITY;
DROP TABLE pd_i;

-- name: pg_dump_domain_default
DROP DOMAIN IF EXISTS pd_dom;
CREATE DOMAIN pd_dom AS integer DEFAULT 1 CHECK (VALUE > 0);
SELECT typdefault, pg_get_expr(typdefaultbin, 'pg_type'::regclass) FROM pg_type WHERE typname = 'pd_dom';
DROP DOMAIN pd_dom;
