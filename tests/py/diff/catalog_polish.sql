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
