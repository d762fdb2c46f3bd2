-- Differential SQL cases: object privileges (issue 18): GRANT / REVOKE on tables, columns,
-- views, sequences, schemas and databases, the aclitem[] columns (relacl, attacl, nspacl,
-- datacl), permission checks of SELECT / INSERT / UPDATE / DELETE / TRUNCATE / LOCK / DDL /
-- sequence functions with PostgreSQL's errors, views read with their owner's privileges,
-- OWNER TO, and has_*_privilege. Roles are prefixed pv_, tables pv_; each case drops what it
-- makes (tables before roles).

-- name: privileges_grant_select
-- @errors
DROP TABLE IF EXISTS pv_t;
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
CREATE TABLE pv_t (a int, b int, c int);
INSERT INTO pv_t VALUES (1, 2, 3);
SELECT relacl FROM pg_class WHERE relname = 'pv_t';
SET ROLE pv_a;
SELECT * FROM pv_t;
RESET ROLE;
GRANT SELECT ON pv_t TO pv_a;
SELECT relacl FROM pg_class WHERE relname = 'pv_t';
SET ROLE pv_a;
SELECT * FROM pv_t;
SELECT count(*) FROM pv_t;
INSERT INTO pv_t VALUES (4, 5, 6);
UPDATE pv_t SET a = 2;
DELETE FROM pv_t;
TRUNCATE pv_t;
SELECT * FROM pv_t FOR UPDATE;
RESET ROLE;
REVOKE SELECT ON pv_t FROM pv_a;
SELECT relacl FROM pg_class WHERE relname = 'pv_t';
SET ROLE pv_a;
SELECT * FROM pv_t;
RESET ROLE;
DROP TABLE pv_t;
DROP ROLE pv_a;

-- name: privileges_grant_all_and_public
-- @errors
DROP TABLE IF EXISTS pv_t;
DROP ROLE IF EXISTS pv_a, pv_b;
CREATE ROLE pv_a;
CREATE ROLE pv_b;
CREATE TABLE pv_t (a int);
GRANT ALL ON pv_t TO pv_a;
GRANT INSERT, UPDATE ON TABLE pv_t TO PUBLIC;
GRANT SELECT ON pv_t TO pv_b WITH GRANT OPTION;
SELECT relacl FROM pg_class WHERE relname = 'pv_t';
SET ROLE pv_b;
INSERT INTO pv_t VALUES (1);
UPDATE pv_t SET a = a + 1;
SELECT * FROM pv_t;
DELETE FROM pv_t;
RESET ROLE;
GRANT ALL PRIVILEGES ON pv_t TO PUBLIC WITH GRANT OPTION;
REVOKE ALL ON pv_t FROM pv_a, PUBLIC;
SELECT relacl FROM pg_class WHERE relname = 'pv_t';
GRANT USAGE ON pv_t TO pv_a;
GRANT EXECUTE ON TABLE pv_t TO pv_a;
GRANT SELECT ON pv_t TO pv_nosuch;
GRANT SELECT ON pv_nosuch TO pv_a;
DROP TABLE pv_t;
DROP ROLE pv_a, pv_b;

-- name: privileges_grant_option_chain
-- @errors
DROP TABLE IF EXISTS pv_t;
DROP ROLE IF EXISTS pv_a, pv_b, pv_c;
CREATE ROLE pv_a;
CREATE ROLE pv_b;
CREATE ROLE pv_c;
CREATE TABLE pv_t (a int);
GRANT SELECT, INSERT ON pv_t TO pv_a WITH GRANT OPTION;
SET ROLE pv_a;
GRANT SELECT ON pv_t TO pv_b WITH GRANT OPTION;
GRANT UPDATE ON pv_t TO pv_b;
GRANT SELECT, UPDATE ON pv_t TO pv_b;
RESET ROLE;
SET ROLE pv_b;
GRANT SELECT ON pv_t TO pv_c;
RESET ROLE;
SELECT relacl FROM pg_class WHERE relname = 'pv_t';
SET ROLE pv_c;
GRANT SELECT ON pv_t TO pv_a;
REVOKE SELECT ON pv_t FROM pv_a;
RESET ROLE;
REVOKE SELECT ON pv_t FROM pv_a;
REVOKE GRANT OPTION FOR SELECT ON pv_t FROM pv_a;
REVOKE GRANT OPTION FOR SELECT ON pv_t FROM pv_a RESTRICT;
SELECT relacl FROM pg_class WHERE relname = 'pv_t';
REVOKE GRANT OPTION FOR SELECT ON pv_t FROM pv_a CASCADE;
SELECT relacl FROM pg_class WHERE relname = 'pv_t';
REVOKE SELECT ON pv_t FROM pv_b;
SELECT relacl FROM pg_class WHERE relname = 'pv_t';
GRANT SELECT ON pv_t TO PUBLIC WITH GRANT OPTION;
DROP TABLE pv_t;
DROP ROLE pv_a, pv_b, pv_c;

-- name: privileges_columns
-- @errors
DROP TABLE IF EXISTS pv_t;
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
CREATE TABLE pv_t (a int, b int, c int);
INSERT INTO pv_t VALUES (1, 2, 3);
GRANT SELECT (a, b), UPDATE (c), INSERT (a), REFERENCES (b) ON pv_t TO pv_a;
SELECT attname, attacl FROM pg_attribute WHERE attrelid = (SELECT oid FROM pg_class WHERE relname = 'pv_t') AND attnum > 0 ORDER BY attnum;
SELECT relacl FROM pg_class WHERE relname = 'pv_t';
SET ROLE pv_a;
SELECT a, b FROM pv_t;
SELECT a FROM pv_t WHERE b = 2;
SELECT count(*) FROM pv_t;
SELECT * FROM pv_t;
SELECT c FROM pv_t;
SELECT a FROM pv_t WHERE c = 3;
SELECT a FROM pv_t ORDER BY c;
UPDATE pv_t SET c = 4;
UPDATE pv_t SET c = 5 WHERE a = 1;
UPDATE pv_t SET c = a + 1;
UPDATE pv_t SET c = 6 WHERE c = 5;
UPDATE pv_t SET b = 1;
UPDATE pv_t SET c = 7 RETURNING a;
UPDATE pv_t SET c = 7 RETURNING c;
INSERT INTO pv_t (a) VALUES (10);
INSERT INTO pv_t (a, b) VALUES (10, 11);
INSERT INTO pv_t VALUES (10, 11, 12);
INSERT INTO pv_t (a) VALUES (12) RETURNING b;
DELETE FROM pv_t WHERE a = 10;
RESET ROLE;
SELECT * FROM pv_t ORDER BY a;
GRANT SELECT (d) ON pv_t TO pv_a;
GRANT DELETE (a) ON pv_t TO pv_a;
REVOKE SELECT ON pv_t FROM pv_a;
SELECT attname, attacl FROM pg_attribute WHERE attrelid = (SELECT oid FROM pg_class WHERE relname = 'pv_t') AND attnum > 0 ORDER BY attnum;
DROP TABLE pv_t;
DROP ROLE pv_a;

-- name: privileges_membership
-- @errors
DROP TABLE IF EXISTS pv_t;
DROP ROLE IF EXISTS pv_grp, pv_a, pv_n;
CREATE ROLE pv_grp;
CREATE ROLE pv_a IN ROLE pv_grp;
CREATE ROLE pv_n NOINHERIT IN ROLE pv_grp;
CREATE TABLE pv_t (a int);
INSERT INTO pv_t VALUES (1);
GRANT SELECT ON pv_t TO pv_grp;
SET ROLE pv_a;
SELECT * FROM pv_t;
RESET ROLE;
SET ROLE pv_n;
SELECT * FROM pv_t;
SET ROLE pv_grp;
SELECT * FROM pv_t;
RESET ROLE;
DROP TABLE pv_t;
DROP ROLE pv_a, pv_n, pv_grp;

-- name: privileges_owner
-- @errors
DROP TABLE IF EXISTS pv_t;
DROP ROLE IF EXISTS pv_o, pv_a;
CREATE ROLE pv_o;
CREATE ROLE pv_a;
CREATE TABLE pv_t (a int);
ALTER TABLE pv_t OWNER TO pv_o;
SELECT relowner = (SELECT oid FROM pg_roles WHERE rolname = 'pv_o'), relacl FROM pg_class WHERE relname = 'pv_t';
SET ROLE pv_o;
INSERT INTO pv_t VALUES (1);
SELECT * FROM pv_t;
GRANT SELECT ON pv_t TO pv_a;
SELECT relacl FROM pg_class WHERE relname = 'pv_t';
REVOKE ALL ON pv_t FROM pv_o;
SELECT * FROM pv_t;
GRANT SELECT ON pv_t TO pv_o;
SELECT * FROM pv_t;
ALTER TABLE pv_t ADD COLUMN b int;
CREATE INDEX pv_t_a ON pv_t (a);
RESET ROLE;
SET ROLE pv_a;
ALTER TABLE pv_t ADD COLUMN c int;
ALTER TABLE pv_t RENAME TO pv_u;
CREATE INDEX pv_t_b ON pv_t (b);
DROP INDEX pv_t_a;
DROP TABLE pv_t;
ALTER TABLE pv_t OWNER TO pv_a;
RESET ROLE;
ALTER TABLE pv_t OWNER TO postgres;
SELECT relacl FROM pg_class WHERE relname = 'pv_t';
ALTER TABLE pv_t OWNER TO pv_nosuch;
DROP TABLE pv_t;
DROP ROLE pv_o, pv_a;

-- name: privileges_truncate_lock
-- @errors
DROP TABLE IF EXISTS pv_t;
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
CREATE TABLE pv_t (a int);
GRANT SELECT ON pv_t TO pv_a;
SET ROLE pv_a;
TRUNCATE pv_t;
BEGIN;
LOCK TABLE pv_t IN ACCESS SHARE MODE;
COMMIT;
BEGIN;
LOCK TABLE pv_t IN ROW EXCLUSIVE MODE;
ROLLBACK;
RESET ROLE;
GRANT INSERT ON pv_t TO pv_a;
SET ROLE pv_a;
BEGIN;
LOCK TABLE pv_t IN ROW EXCLUSIVE MODE;
COMMIT;
BEGIN;
LOCK TABLE pv_t IN SHARE MODE;
ROLLBACK;
RESET ROLE;
GRANT TRUNCATE ON pv_t TO pv_a;
SET ROLE pv_a;
TRUNCATE pv_t;
BEGIN;
LOCK TABLE pv_t;
COMMIT;
RESET ROLE;
DROP TABLE pv_t;
DROP ROLE pv_a;

-- name: privileges_views
-- @errors
DROP VIEW IF EXISTS pv_v;
DROP TABLE IF EXISTS pv_t;
DROP ROLE IF EXISTS pv_o, pv_a;
CREATE ROLE pv_o;
CREATE ROLE pv_a;
CREATE TABLE pv_t (a int, b int);
INSERT INTO pv_t VALUES (1, 2);
CREATE VIEW pv_v AS SELECT a FROM pv_t;
ALTER VIEW pv_v OWNER TO pv_o;
GRANT SELECT ON pv_v TO pv_a;
SET ROLE pv_a;
SELECT * FROM pv_v;
RESET ROLE;
GRANT SELECT (a) ON pv_t TO pv_o;
SET ROLE pv_a;
SELECT * FROM pv_v;
SELECT * FROM pv_t;
RESET ROLE;
SELECT * FROM pv_v;
REVOKE SELECT (a) ON pv_t FROM pv_o;
SELECT * FROM pv_v;
ALTER VIEW pv_t OWNER TO pv_o;
DROP VIEW pv_v;
DROP TABLE pv_t;
DROP ROLE pv_o, pv_a;

-- name: privileges_sequences
-- @errors
DROP SEQUENCE IF EXISTS pv_s;
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
CREATE SEQUENCE pv_s;
SET ROLE pv_a;
SELECT nextval('pv_s');
SELECT setval('pv_s', 5);
RESET ROLE;
GRANT USAGE ON SEQUENCE pv_s TO pv_a;
SELECT relacl FROM pg_class WHERE relname = 'pv_s';
SET ROLE pv_a;
SELECT nextval('pv_s');
SELECT currval('pv_s');
SELECT setval('pv_s', 5);
SELECT * FROM pv_s;
RESET ROLE;
GRANT SELECT, UPDATE ON pv_s TO pv_a;
GRANT INSERT ON pv_s TO pv_a;
GRANT DELETE ON SEQUENCE pv_s TO pv_a;
SELECT relacl FROM pg_class WHERE relname = 'pv_s';
SET ROLE pv_a;
SELECT setval('pv_s', 5);
SELECT last_value FROM pv_s;
ALTER SEQUENCE pv_s RESTART;
DROP SEQUENCE pv_s;
RESET ROLE;
CREATE TABLE pv_t (a int);
GRANT USAGE ON SEQUENCE pv_t TO pv_a;
DROP TABLE pv_t;
DROP SEQUENCE pv_s;
DROP ROLE pv_a;

-- name: privileges_schemas
-- @errors
DROP SCHEMA IF EXISTS pv_sch CASCADE;
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
CREATE SCHEMA pv_sch;
CREATE TABLE pv_sch.t (a int);
GRANT SELECT ON pv_sch.t TO pv_a;
SELECT nspname, nspacl FROM pg_namespace WHERE nspname IN ('pv_sch', 'public', 'pg_catalog') ORDER BY 1;
SET ROLE pv_a;
SELECT * FROM pv_sch.t;
CREATE TABLE pv_sch.u (a int);
CREATE TABLE pv_x (a int);
RESET ROLE;
GRANT USAGE ON SCHEMA pv_sch TO pv_a;
SELECT nspname, nspacl FROM pg_namespace WHERE nspname = 'pv_sch';
SET ROLE pv_a;
SELECT * FROM pv_sch.t;
CREATE TABLE pv_sch.u (a int);
RESET ROLE;
GRANT CREATE ON SCHEMA pv_sch TO pv_a;
GRANT SELECT ON SCHEMA pv_sch TO pv_a;
SET ROLE pv_a;
CREATE TABLE pv_sch.u (a int);
DROP SCHEMA pv_sch;
RESET ROLE;
GRANT ALL ON SCHEMA pv_nosuch TO pv_a;
REVOKE ALL ON SCHEMA pv_sch FROM pv_a;
SELECT nspname, nspacl FROM pg_namespace WHERE nspname = 'pv_sch';
DROP SCHEMA pv_sch CASCADE;
DROP ROLE pv_a;

-- name: privileges_public_schema
-- @errors
DROP TABLE IF EXISTS pv_x;
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
SET ROLE pv_a;
CREATE TABLE pv_x (a int);
RESET ROLE;
GRANT CREATE ON SCHEMA public TO pv_a;
SELECT nspacl FROM pg_namespace WHERE nspname = 'public';
SET ROLE pv_a;
CREATE TABLE pv_x (a int);
INSERT INTO pv_x VALUES (1);
SELECT * FROM pv_x;
DROP TABLE pv_x;
RESET ROLE;
REVOKE CREATE ON SCHEMA public FROM pv_a;
SELECT nspacl FROM pg_namespace WHERE nspname = 'public';
DROP ROLE pv_a;

-- name: privileges_all_tables_in_schema
DROP SCHEMA IF EXISTS pv_sch CASCADE;
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
CREATE SCHEMA pv_sch;
CREATE TABLE pv_sch.t1 (a int);
CREATE TABLE pv_sch.t2 (a int);
CREATE SEQUENCE pv_sch.s1;
GRANT SELECT ON ALL TABLES IN SCHEMA pv_sch TO pv_a;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA pv_sch TO pv_a;
SELECT relname, relacl::text FROM pg_class WHERE relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = 'pv_sch') ORDER BY 1;
REVOKE SELECT ON ALL TABLES IN SCHEMA pv_sch FROM pv_a;
SELECT relname, relacl::text FROM pg_class WHERE relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = 'pv_sch') ORDER BY 1;
DROP SCHEMA pv_sch CASCADE;
DROP ROLE pv_a;

-- name: privileges_databases
-- @errors
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
SELECT datname, datacl FROM pg_database WHERE datname LIKE 'template%' ORDER BY 1;
SELECT has_database_privilege('pv_a', current_database(), 'CONNECT'), has_database_privilege('pv_a', current_database(), 'CREATE'), has_database_privilege('pv_a', 'template1', 'connect');
GRANT TEMPORARY ON DATABASE template1 TO pv_a;
SELECT datacl FROM pg_database WHERE datname = 'template1';
REVOKE ALL ON DATABASE template1 FROM pv_a;
SELECT datacl FROM pg_database WHERE datname = 'template1';
GRANT SELECT ON DATABASE template1 TO pv_a;
GRANT CONNECT ON DATABASE pv_nosuch TO pv_a;
SELECT has_database_privilege('pv_nosuch', 'connect');
DROP ROLE pv_a;

-- name: privileges_has_functions
-- @errors
DROP TABLE IF EXISTS pv_t;
DROP SEQUENCE IF EXISTS pv_s;
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
CREATE TABLE pv_t (a int, b int);
CREATE SEQUENCE pv_s;
GRANT SELECT (a) ON pv_t TO pv_a;
GRANT UPDATE ON pv_t TO pv_a WITH GRANT OPTION;
GRANT USAGE ON pv_s TO pv_a;
SELECT has_table_privilege('pv_a', 'pv_t', 'SELECT'), has_table_privilege('pv_a', 'pv_t', 'update'), has_table_privilege('pv_a', 'pv_t', 'UPDATE WITH GRANT OPTION'), has_table_privilege('pv_a', 'public.pv_t', 'insert, update'), has_table_privilege('pv_t', 'delete');
SELECT has_table_privilege((SELECT oid FROM pg_roles WHERE rolname = 'pv_a'), 'pv_t', 'select'), has_table_privilege('pv_a', (SELECT oid FROM pg_class WHERE relname = 'pv_t'), 'update'), has_table_privilege(999999::oid, 'select');
SELECT has_column_privilege('pv_a', 'pv_t', 'a', 'SELECT'), has_column_privilege('pv_a', 'pv_t', 'b', 'SELECT'), has_column_privilege('pv_a', 'pv_t', 'b', 'UPDATE'), has_column_privilege('pv_a', 'pv_t', 2::int2, 'select'), has_column_privilege('pv_t', 'b', 'select');
SELECT has_any_column_privilege('pv_a', 'pv_t', 'SELECT'), has_any_column_privilege('pv_a', 'pv_t', 'INSERT'), has_any_column_privilege('pv_t', 'insert');
SELECT has_sequence_privilege('pv_a', 'pv_s', 'USAGE'), has_sequence_privilege('pv_a', 'pv_s', 'SELECT'), has_sequence_privilege('pv_s', 'update');
SELECT has_schema_privilege('pv_a', 'public', 'USAGE'), has_schema_privilege('pv_a', 'public', 'CREATE'), has_schema_privilege('public', 'create'), has_schema_privilege('pv_a', 'pg_catalog', 'usage');
SELECT has_table_privilege('pv_a', 'pg_class', 'select'), has_table_privilege('pv_a', 'pg_authid', 'select');
SELECT has_table_privilege('pv_a', 'pv_t', 'frobnicate');
SELECT has_table_privilege('pv_a', 'pv_nosuch', 'select');
SELECT has_table_privilege('pv_nosuch', 'pv_t', 'select');
SELECT has_column_privilege('pv_a', 'pv_t', 'zz', 'select');
SELECT has_sequence_privilege('pv_a', 'pv_t', 'usage');
SELECT has_schema_privilege('pv_a', 'pv_nosuch', 'usage');
SELECT has_sequence_privilege('pv_a', 'pv_s', 'delete');
DROP TABLE pv_t;
DROP SEQUENCE pv_s;
DROP ROLE pv_a;

-- name: privileges_catalogs
-- @errors
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
SET ROLE pv_a;
SELECT count(*) >= 0 FROM pg_class;
SELECT count(*) > 0 FROM pg_roles;
SELECT rolname FROM pg_authid LIMIT 0;
SELECT usename FROM pg_shadow LIMIT 0;
RESET ROLE;
DROP ROLE pv_a;

-- name: privileges_insert_on_conflict
-- @errors
DROP TABLE IF EXISTS pv_t;
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
CREATE TABLE pv_t (k int PRIMARY KEY, v int);
INSERT INTO pv_t VALUES (1, 1);
GRANT INSERT ON pv_t TO pv_a;
SET ROLE pv_a;
INSERT INTO pv_t VALUES (2, 2);
INSERT INTO pv_t VALUES (1, 5) ON CONFLICT (k) DO NOTHING;
INSERT INTO pv_t VALUES (1, 5) ON CONFLICT (k) DO UPDATE SET v = excluded.v;
RESET ROLE;
GRANT UPDATE (v) ON pv_t TO pv_a;
SET ROLE pv_a;
INSERT INTO pv_t VALUES (1, 5) ON CONFLICT (k) DO UPDATE SET v = excluded.v;
INSERT INTO pv_t VALUES (1, 6) ON CONFLICT (k) DO UPDATE SET v = pv_t.v + 1;
RESET ROLE;
SELECT * FROM pv_t ORDER BY k;
DROP TABLE pv_t;
DROP ROLE pv_a;

-- name: privileges_in_transaction_rollback
DROP TABLE IF EXISTS pv_t;
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
CREATE TABLE pv_t (a int);
BEGIN;
GRANT SELECT ON pv_t TO pv_a;
SELECT relacl::text FROM pg_class WHERE relname = 'pv_t';
ROLLBACK;
SELECT relacl::text FROM pg_class WHERE relname = 'pv_t';
SELECT has_table_privilege('pv_a', 'pv_t', 'select');
DROP TABLE pv_t;
DROP ROLE pv_a;

-- name: privileges_prepared_after_revoke
-- @errors
DROP TABLE IF EXISTS pv_t;
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
CREATE TABLE pv_t (a int);
INSERT INTO pv_t VALUES (1);
GRANT SELECT ON pv_t TO pv_a;
SET ROLE pv_a;
PREPARE pv_q AS SELECT a FROM pv_t;
EXECUTE pv_q;
RESET ROLE;
REVOKE SELECT ON pv_t FROM pv_a;
SET ROLE pv_a;
EXECUTE pv_q;
RESET ROLE;
EXECUTE pv_q;
PREPARE pv_q2 AS SELECT a FROM pv_t;
SET ROLE pv_a;
EXECUTE pv_q2;
RESET ROLE;
DEALLOCATE pv_q;
DEALLOCATE pv_q2;
DROP TABLE pv_t;
DROP ROLE pv_a;

-- name: privileges_foreign_key_references
-- @errors
DROP TABLE IF EXISTS pv_c, pv_p;
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
CREATE TABLE pv_p (id int PRIMARY KEY);
GRANT CREATE ON SCHEMA public TO pv_a;
SET ROLE pv_a;
CREATE TABLE pv_c (id int REFERENCES pv_p);
RESET ROLE;
GRANT REFERENCES ON pv_p TO pv_a;
SET ROLE pv_a;
CREATE TABLE pv_c (id int REFERENCES pv_p);
DROP TABLE pv_c;
RESET ROLE;
REVOKE CREATE ON SCHEMA public FROM pv_a;
DROP TABLE pv_p;
DROP ROLE pv_a;

-- name: privileges_drop_role_dependencies
-- @errors
DROP SCHEMA IF EXISTS pv_sch CASCADE;
DROP TABLE IF EXISTS pv_t;
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
CREATE TABLE pv_t (a int, b int);
CREATE SCHEMA pv_sch;
GRANT SELECT ON pv_t TO pv_a;
GRANT UPDATE (b) ON pv_t TO pv_a;
GRANT USAGE ON SCHEMA pv_sch TO pv_a;
DROP ROLE pv_a;
REVOKE ALL ON pv_t FROM pv_a;
DROP ROLE pv_a;
DROP SCHEMA pv_sch;
DROP ROLE pv_a;
DROP TABLE pv_t;

-- name: privileges_copy
-- @errors
DROP TABLE IF EXISTS pv_t;
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
CREATE TABLE pv_t (a int, b int);
INSERT INTO pv_t VALUES (1, 2);
SET ROLE pv_a;
COPY pv_t TO STDOUT;
COPY pv_t FROM STDIN;
COPY (SELECT a FROM pv_t) TO STDOUT;
RESET ROLE;
GRANT SELECT (a) ON pv_t TO pv_a;
SET ROLE pv_a;
COPY (SELECT a FROM pv_t) TO STDOUT;
COPY pv_t TO STDOUT;
COPY pv_t (a) TO STDOUT;
COPY pv_t (a) FROM STDIN;
RESET ROLE;
DROP TABLE pv_t;
DROP ROLE pv_a;

-- name: privileges_set_session_authorization
-- @errors
DROP TABLE IF EXISTS pv_t;
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
CREATE TABLE pv_t (a int);
SET SESSION AUTHORIZATION pv_a;
SELECT current_user, session_user;
SELECT * FROM pv_t;
CREATE TABLE pv_u (a int);
RESET SESSION AUTHORIZATION;
SELECT * FROM pv_t;
DROP TABLE pv_t;
DROP ROLE pv_a;

-- name: privileges_dml_reads_need_select
-- @errors
DROP TABLE IF EXISTS pv_t;
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
CREATE TABLE pv_t (a int, b int, c int DEFAULT 9);
INSERT INTO pv_t VALUES (1, 2, 3);
GRANT UPDATE, DELETE ON pv_t TO pv_a;
GRANT INSERT (a, b) ON pv_t TO pv_a;
SET ROLE pv_a;
UPDATE pv_t SET a = 5;
UPDATE pv_t SET a = a + 1;
UPDATE pv_t SET a = 6 WHERE b = 2;
UPDATE pv_t SET a = 7 FROM (SELECT 1 AS x) s;
DELETE FROM pv_t WHERE a = 5;
INSERT INTO pv_t VALUES (10, 11);
INSERT INTO pv_t VALUES (10, 11, 12);
INSERT INTO pv_t SELECT 1, 2;
INSERT INTO pv_t DEFAULT VALUES;
INSERT INTO pv_t (b) VALUES (3) RETURNING *;
WITH d AS (DELETE FROM pv_t RETURNING a) SELECT count(*) FROM d;
DELETE FROM pv_t;
RESET ROLE;
SELECT * FROM pv_t ORDER BY a;
DROP TABLE pv_t;
DROP ROLE pv_a;

-- name: privileges_nested_views_and_subqueries
-- @errors
DROP VIEW IF EXISTS pv_v2;
DROP VIEW IF EXISTS pv_v1;
DROP TABLE IF EXISTS pv_t, pv_u;
DROP ROLE IF EXISTS pv_o1, pv_o2, pv_a;
CREATE ROLE pv_o1;
CREATE ROLE pv_o2;
CREATE ROLE pv_a;
CREATE TABLE pv_t (a int, secret int);
CREATE TABLE pv_u (a int);
INSERT INTO pv_t VALUES (1, 42);
INSERT INTO pv_u VALUES (1);
CREATE VIEW pv_v1 AS SELECT a FROM pv_t;
CREATE VIEW pv_v2 AS SELECT a FROM pv_v1;
ALTER VIEW pv_v1 OWNER TO pv_o1;
ALTER VIEW pv_v2 OWNER TO pv_o2;
GRANT SELECT ON pv_v2 TO pv_a;
GRANT SELECT (a) ON pv_t TO pv_o1;
SET ROLE pv_a;
SELECT * FROM pv_v2;
RESET ROLE;
GRANT SELECT ON pv_v1 TO pv_o2;
GRANT SELECT ON pv_u TO pv_a;
SET ROLE pv_a;
SELECT * FROM pv_v2;
SELECT * FROM pv_u WHERE a IN (SELECT a FROM pv_v2);
SELECT * FROM pv_u WHERE EXISTS (SELECT 1 FROM pv_t WHERE pv_t.a = pv_u.a);
SELECT (SELECT secret FROM pv_t LIMIT 1) FROM pv_u;
WITH c AS (SELECT a FROM pv_t) SELECT * FROM c;
SELECT * FROM (SELECT a FROM pv_v1) s;
RESET ROLE;
DROP VIEW pv_v2;
DROP VIEW pv_v1;
DROP TABLE pv_t, pv_u;
DROP ROLE pv_o1, pv_o2, pv_a;

-- name: privileges_grantors_and_owner_changes
-- @errors
DROP TABLE IF EXISTS pv_t;
DROP ROLE IF EXISTS pv_o, pv_m, pv_a, pv_b;
CREATE ROLE pv_o;
CREATE ROLE pv_m IN ROLE pv_o;
CREATE ROLE pv_a;
CREATE ROLE pv_b;
CREATE TABLE pv_t (a int, b int);
ALTER TABLE pv_t OWNER TO pv_o;
SET ROLE pv_m;
GRANT SELECT ON pv_t TO pv_a WITH GRANT OPTION;
RESET ROLE;
SET ROLE pv_a;
GRANT SELECT (a) ON pv_t TO pv_b;
GRANT SELECT ON pv_t TO pv_b GRANTED BY pv_a;
GRANT SELECT ON pv_t TO pv_b GRANTED BY pv_o;
RESET ROLE;
SELECT relacl::text FROM pg_class WHERE relname = 'pv_t';
SELECT attname, attacl::text FROM pg_attribute WHERE attrelid = (SELECT oid FROM pg_class WHERE relname = 'pv_t') AND attnum > 0 ORDER BY attnum;
REVOKE SELECT ON pv_t FROM pv_o;
SELECT relacl::text FROM pg_class WHERE relname = 'pv_t';
ALTER TABLE pv_t OWNER TO pv_b;
SELECT relacl::text FROM pg_class WHERE relname = 'pv_t';
SELECT attname, attacl::text FROM pg_attribute WHERE attrelid = (SELECT oid FROM pg_class WHERE relname = 'pv_t') AND attnum > 0 ORDER BY attnum;
SET ROLE pv_m;
ALTER TABLE pv_t OWNER TO pv_o;
RESET ROLE;
GRANT foo ON pv_t TO pv_a;
GRANT SELECT ON pv_t TO pv_a GRANTED BY pv_nosuch;
DROP TABLE pv_t;
DROP ROLE pv_m, pv_o, pv_a, pv_b;

-- name: privileges_predefined_and_public
-- @errors
DROP TABLE IF EXISTS pv_t;
DROP ROLE IF EXISTS pv_a, pv_b;
CREATE ROLE pv_a IN ROLE pg_read_all_data;
CREATE ROLE pv_b IN ROLE pg_write_all_data;
CREATE TABLE pv_t (a int);
SET ROLE pv_a;
SELECT * FROM pv_t;
INSERT INTO pv_t VALUES (1);
RESET ROLE;
SET ROLE pv_b;
INSERT INTO pv_t VALUES (1);
SELECT * FROM pv_t;
UPDATE pv_t SET a = 2;
DELETE FROM pv_t;
RESET ROLE;
GRANT SELECT ON pv_t TO PUBLIC;
SET ROLE pv_b;
SELECT * FROM pv_t;
RESET ROLE;
DROP TABLE pv_t;
DROP ROLE pv_a, pv_b;

-- name: privileges_schema_owner
-- @errors
DROP SCHEMA IF EXISTS pv_sch CASCADE;
DROP ROLE IF EXISTS pv_o, pv_a;
CREATE ROLE pv_o;
CREATE ROLE pv_a;
CREATE SCHEMA pv_sch;
GRANT USAGE ON SCHEMA pv_sch TO PUBLIC;
ALTER SCHEMA pv_sch OWNER TO pv_o;
SELECT nspname, nspacl::text, nspowner = (SELECT oid FROM pg_roles WHERE rolname = 'pv_o') FROM pg_namespace WHERE nspname = 'pv_sch';
SET ROLE pv_a;
ALTER SCHEMA pv_sch OWNER TO pv_a;
DROP SCHEMA pv_sch;
RESET ROLE;
SET ROLE pv_o;
CREATE TABLE pv_sch.t (a int);
GRANT CREATE ON SCHEMA pv_sch TO pv_a;
RESET ROLE;
SELECT nspacl::text FROM pg_namespace WHERE nspname = 'pv_sch';
DROP SCHEMA pv_sch CASCADE;
DROP ROLE pv_o, pv_a;

-- name: privileges_search_path_usage
-- @errors
DROP SCHEMA IF EXISTS pv_sch CASCADE;
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
CREATE SCHEMA pv_sch;
CREATE TABLE pv_sch.pv_t (a int);
INSERT INTO pv_sch.pv_t VALUES (1);
GRANT SELECT ON pv_sch.pv_t TO pv_a;
SET search_path = pv_sch, public;
SET ROLE pv_a;
SELECT * FROM pv_t;
RESET ROLE;
GRANT USAGE ON SCHEMA pv_sch TO pv_a;
SET ROLE pv_a;
SELECT * FROM pv_t;
RESET ROLE;
RESET search_path;
DROP SCHEMA pv_sch CASCADE;
DROP ROLE pv_a;

-- name: privileges_acldefault
SELECT acldefault('r', 10)::text, acldefault('s', 10)::text, acldefault('d', 10)::text, acldefault('n', 10)::text, acldefault('c', 10)::text, acldefault('f', 10)::text, acldefault('T', 10)::text;
SELECT acldefault('r', (SELECT oid FROM pg_roles WHERE rolname = 'pg_monitor'))::text, acldefault('r', 4294967)::text;

-- name: privileges_truncate_cascade
-- @errors
DROP TABLE IF EXISTS pv_c, pv_p;
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
CREATE TABLE pv_p (id int PRIMARY KEY);
CREATE TABLE pv_c (id int REFERENCES pv_p);
GRANT TRUNCATE ON pv_p TO pv_a;
SET ROLE pv_a;
TRUNCATE pv_p;
TRUNCATE pv_p CASCADE;
RESET ROLE;
GRANT TRUNCATE ON pv_c TO pv_a;
SET ROLE pv_a;
TRUNCATE pv_p CASCADE;
RESET ROLE;
DROP TABLE pv_c, pv_p;
DROP ROLE pv_a;

-- name: privileges_join_using
-- @errors
DROP TABLE IF EXISTS pv_t1, pv_t2;
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
CREATE TABLE pv_t1 (a int, b int);
CREATE TABLE pv_t2 (a int, c int);
INSERT INTO pv_t1 VALUES (1, 2);
INSERT INTO pv_t2 VALUES (1, 3);
GRANT SELECT ON pv_t1 TO pv_a;
GRANT SELECT (c) ON pv_t2 TO pv_a;
SET ROLE pv_a;
SELECT c FROM pv_t1 JOIN pv_t2 USING (a);
SELECT b, c FROM pv_t1 JOIN pv_t2 ON true;
SELECT * FROM pv_t1 NATURAL JOIN pv_t2;
RESET ROLE;
GRANT SELECT (a) ON pv_t2 TO pv_a;
SET ROLE pv_a;
SELECT * FROM pv_t1 JOIN pv_t2 USING (a);
SELECT a FROM pv_t1 FULL JOIN pv_t2 USING (a);
RESET ROLE;
DROP TABLE pv_t1, pv_t2;
DROP ROLE pv_a;

-- name: privileges_view_ddl
-- @errors
DROP VIEW IF EXISTS pv_v;
DROP TABLE IF EXISTS pv_t;
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
CREATE TABLE pv_t (a int);
CREATE VIEW pv_v AS SELECT a FROM pv_t;
GRANT CREATE ON SCHEMA public TO pv_a;
GRANT SELECT ON pv_t TO pv_a;
SET ROLE pv_a;
CREATE OR REPLACE VIEW pv_v AS SELECT a FROM pv_t;
ALTER VIEW pv_v RENAME TO pv_w;
DROP VIEW pv_v;
SELECT * FROM pv_v;
CREATE VIEW pv_mine AS SELECT a FROM pv_t;
SELECT * FROM pv_mine;
DROP VIEW pv_mine;
RESET ROLE;
REVOKE CREATE ON SCHEMA public FROM pv_a;
DROP VIEW pv_v;
DROP TABLE pv_t;
DROP ROLE pv_a;

-- name: privileges_owner_of_sequences
-- @errors
DROP TABLE IF EXISTS pv_t;
DROP SEQUENCE IF EXISTS pv_s;
DROP ROLE IF EXISTS pv_o;
CREATE ROLE pv_o;
CREATE TABLE pv_t (id serial PRIMARY KEY, a int);
CREATE SEQUENCE pv_s;
GRANT USAGE ON SEQUENCE pv_s TO PUBLIC;
ALTER SEQUENCE pv_s OWNER TO pv_o;
ALTER TABLE pv_t OWNER TO pv_o;
SELECT c.relname, r.rolname, c.relacl::text FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner WHERE c.relname LIKE 'pv\_%' ORDER BY 1;
ALTER SEQUENCE pv_t OWNER TO postgres;
ALTER VIEW pv_t OWNER TO postgres;
ALTER TABLE pv_nosuch OWNER TO postgres;
ALTER TABLE IF EXISTS pv_nosuch OWNER TO postgres;
SET ROLE pv_o;
INSERT INTO pv_t (a) VALUES (1);
SELECT nextval('pv_s');
RESET ROLE;
DROP TABLE pv_t;
DROP SEQUENCE pv_s;
DROP ROLE pv_o;

-- name: privileges_create_schema
-- @errors
DROP SCHEMA IF EXISTS pv_sch;
DROP ROLE IF EXISTS pv_a, pv_b;
CREATE ROLE pv_a;
CREATE ROLE pv_b;
SET ROLE pv_a;
CREATE SCHEMA pv_sch;
CREATE SCHEMA pv_sch AUTHORIZATION pv_b;
RESET ROLE;
GRANT CREATE ON DATABASE postgres TO pv_a;
SET ROLE pv_a;
CREATE SCHEMA pv_sch AUTHORIZATION pv_b;
CREATE SCHEMA pv_sch;
SELECT nspname, nspowner = (SELECT oid FROM pg_roles WHERE rolname = 'pv_a') FROM pg_namespace WHERE nspname = 'pv_sch';
DROP SCHEMA pv_sch;
RESET ROLE;
REVOKE CREATE ON DATABASE postgres FROM pv_a;
SELECT datname, datacl::text FROM pg_database WHERE datname = 'postgres';
DROP ROLE pv_a, pv_b;

-- name: privileges_grant_needs_schema_usage
-- @errors
DROP SCHEMA IF EXISTS pv_sch CASCADE;
DROP ROLE IF EXISTS pv_a, pv_b;
CREATE ROLE pv_a;
CREATE ROLE pv_b;
CREATE SCHEMA pv_sch;
CREATE TABLE pv_sch.t (a int);
GRANT SELECT ON pv_sch.t TO pv_a WITH GRANT OPTION;
SET ROLE pv_a;
GRANT SELECT ON pv_sch.t TO pv_b;
GRANT SELECT ON ALL TABLES IN SCHEMA pv_sch TO pv_b;
RESET ROLE;
GRANT USAGE ON SCHEMA pv_sch TO pv_a;
SET ROLE pv_a;
GRANT SELECT ON pv_sch.t TO pv_b;
RESET ROLE;
SELECT relacl::text FROM pg_class WHERE relname = 't' AND relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = 'pv_sch');
DROP SCHEMA pv_sch CASCADE;
DROP ROLE pv_a, pv_b;

-- name: privileges_temporary
-- @errors
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
REVOKE TEMPORARY ON DATABASE postgres FROM PUBLIC;
SET ROLE pv_a;
CREATE TEMP TABLE pv_tmp (a int);
RESET ROLE;
GRANT TEMPORARY ON DATABASE postgres TO PUBLIC;
SELECT datacl::text FROM pg_database WHERE datname = 'postgres';
SET ROLE pv_a;
CREATE TEMP TABLE pv_tmp (a int);
INSERT INTO pv_tmp VALUES (1);
SELECT * FROM pv_tmp;
DROP TABLE pv_tmp;
RESET ROLE;
DROP ROLE pv_a;

-- name: privileges_aclexplode
DROP TABLE IF EXISTS pv_t;
DROP ROLE IF EXISTS pv_a, "pv B";
CREATE ROLE pv_a;
CREATE ROLE "pv B";
CREATE TABLE pv_t (a int);
GRANT SELECT, UPDATE ON pv_t TO pv_a WITH GRANT OPTION;
GRANT INSERT ON pv_t TO "pv B", PUBLIC;
SELECT (SELECT rolname FROM pg_roles WHERE oid = e.grantor) AS grantor, coalesce((SELECT rolname FROM pg_roles WHERE oid = e.grantee), 'PUBLIC') AS grantee, e.privilege_type, e.is_grantable FROM pg_class c, aclexplode(c.relacl) e WHERE c.relname = 'pv_t';
SELECT count(*) FROM aclexplode(NULL::aclitem[]);
SELECT privilege_type FROM aclexplode((SELECT relacl FROM pg_class WHERE relname = 'pv_t')) WITH ORDINALITY AS x WHERE ordinality < 3;
DROP TABLE pv_t;
DROP ROLE pv_a, "pv B";

-- name: privileges_row_locks
-- @errors
DROP TABLE IF EXISTS pv_t, pv_u;
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
CREATE TABLE pv_t (a int);
CREATE TABLE pv_u (a int);
INSERT INTO pv_t VALUES (1);
INSERT INTO pv_u VALUES (1);
GRANT SELECT ON pv_t, pv_u TO pv_a;
SET ROLE pv_a;
SELECT * FROM pv_t FOR SHARE;
SELECT * FROM pv_t FOR KEY SHARE;
SELECT * FROM pv_t FOR NO KEY UPDATE;
RESET ROLE;
GRANT UPDATE ON pv_t TO pv_a;
SET ROLE pv_a;
SELECT * FROM pv_t FOR SHARE;
SELECT * FROM pv_t, pv_u WHERE pv_t.a = pv_u.a FOR UPDATE OF pv_t;
SELECT * FROM pv_t, pv_u WHERE pv_t.a = pv_u.a FOR UPDATE;
RESET ROLE;
REVOKE UPDATE ON pv_t FROM pv_a;
GRANT DELETE ON pv_t TO pv_a;
SET ROLE pv_a;
SELECT * FROM pv_t FOR UPDATE;
RESET ROLE;
DROP TABLE pv_t, pv_u;
DROP ROLE pv_a;

-- name: privileges_database_grant_rolls_back
DROP ROLE IF EXISTS pv_a;
CREATE ROLE pv_a;
BEGIN;
GRANT CREATE ON DATABASE postgres TO pv_a;
SELECT has_database_privilege('pv_a', 'postgres', 'create');
ROLLBACK;
SELECT has_database_privilege('pv_a', 'postgres', 'create');
SELECT datacl::text FROM pg_database WHERE datname = 'template1';
BEGIN;
GRANT CONNECT ON DATABASE template1 TO pv_a;
SELECT datacl::text FROM pg_database WHERE datname = 'template1';
COMMIT;
SELECT datacl::text FROM pg_database WHERE datname = 'template1';
REVOKE CONNECT ON DATABASE template1 FROM pv_a;
DROP ROLE pv_a;

-- name: privileges_whole_row
-- @errors
DROP TABLE IF EXISTS pv_w;
DROP ROLE IF EXISTS pv_w_a;
CREATE ROLE pv_w_a;
CREATE TABLE pv_w (a int, secret text);
INSERT INTO pv_w VALUES (1, 's');
GRANT SELECT (a) ON pv_w TO pv_w_a;
SET ROLE pv_w_a;
SELECT a FROM pv_w;
SELECT pv_w::text FROM pv_w;
SELECT row_to_json(w) FROM pv_w w;
SELECT count(w) FROM pv_w w;
SELECT a FROM pv_w w WHERE w IS NOT NULL;
RESET ROLE;
GRANT SELECT (secret) ON pv_w TO pv_w_a;
SET ROLE pv_w_a;
SELECT pv_w::text FROM pv_w;
RESET ROLE;
DROP TABLE pv_w;
DROP ROLE pv_w_a;
