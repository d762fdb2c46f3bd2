-- Differential SQL cases: REINDEX of indexes, tables, schemas and partitioned tables, with
-- PostgreSQL's notices and errors (create_index's REINDEX part). Each index is built anew
-- from the rows; a unique index that finds a duplicate keeps its old tree.

-- name: reindex_rebuilds_every_kind_of_index
CREATE TABLE ri_t (a int PRIMARY KEY, b text, j jsonb);
INSERT INTO ri_t SELECT g, 'x' || g, jsonb_build_object('k', g % 10) FROM generate_series(1, 500) g;
CREATE UNIQUE INDEX ri_t_b ON ri_t (b);
CREATE INDEX ri_t_lower ON ri_t (lower(b)) WHERE a > 10;
CREATE INDEX ri_t_hash ON ri_t USING hash (b);
CREATE INDEX ri_t_gin ON ri_t USING gin (j);
REINDEX TABLE ri_t;
REINDEX INDEX ri_t_b;
REINDEX TABLE CONCURRENTLY ri_t;
REINDEX INDEX CONCURRENTLY ri_t_gin;
REINDEX SCHEMA public;
SET enable_seqscan = off;
SELECT a FROM ri_t WHERE b = 'x42';
SELECT a FROM ri_t WHERE lower(b) = 'x77';
SELECT count(*) FROM ri_t WHERE j @> '{"k": 3}';
INSERT INTO ri_t VALUES (501, 'x501', '{}');
SELECT a FROM ri_t WHERE b = 'x501';
RESET enable_seqscan;
DROP TABLE ri_t;

-- name: reindex_notices_and_errors
-- @errors
CREATE TABLE ri_n (a int);
REINDEX TABLE ri_n;
REINDEX (CONCURRENTLY) TABLE ri_n;
REINDEX (CONCURRENTLY false) TABLE ri_n;
CREATE INDEX ri_n_a ON ri_n (a);
REINDEX INDEX ri_n;
REINDEX TABLE ri_n_a;
REINDEX TABLE ri_nosuch;
REINDEX INDEX ri_nosuch;
REINDEX SCHEMA ri_nosuch;
REINDEX DATABASE ri_nosuch;
REINDEX SYSTEM ri_nosuch;
REINDEX (foo) TABLE ri_n;
REINDEX TABLE CONCURRENTLY pg_class;
REINDEX INDEX CONCURRENTLY pg_class_oid_index;
REINDEX SCHEMA CONCURRENTLY pg_catalog;
REINDEX TABLE pg_class;
DROP TABLE ri_n;

-- name: reindex_in_transaction_blocks
-- @errors
CREATE TABLE ri_b (a int PRIMARY KEY);
INSERT INTO ri_b VALUES (1), (2);
BEGIN;
REINDEX TABLE ri_b;
INSERT INTO ri_b VALUES (3);
ROLLBACK;
BEGIN;
REINDEX TABLE CONCURRENTLY ri_b;
ROLLBACK;
BEGIN;
REINDEX INDEX CONCURRENTLY ri_b_pkey;
COMMIT;
SELECT a FROM ri_b ORDER BY a;
DROP TABLE ri_b;

-- name: reindex_partitioned
-- @errors
CREATE TABLE ri_p (a int, b int) PARTITION BY RANGE (a);
CREATE INDEX ri_p_a ON ri_p (a);
CREATE TABLE ri_p1 PARTITION OF ri_p FOR VALUES FROM (0) TO (10);
CREATE TABLE ri_p2 PARTITION OF ri_p FOR VALUES FROM (10) TO (20) PARTITION BY RANGE (a);
CREATE TABLE ri_p21 PARTITION OF ri_p2 FOR VALUES FROM (10) TO (15);
INSERT INTO ri_p SELECT g, g FROM generate_series(0, 14) g;
BEGIN;
REINDEX TABLE ri_p;
ROLLBACK;
BEGIN;
REINDEX INDEX ri_p_a;
ROLLBACK;
REINDEX TABLE ri_p;
REINDEX TABLE CONCURRENTLY ri_p;
REINDEX INDEX ri_p_a;
REINDEX TABLE ri_p21;
SELECT count(*) FROM ri_p WHERE a = 12;
DROP TABLE ri_p;

-- name: reindex_keeps_the_old_index_on_a_duplicate
-- @errors
CREATE TABLE ri_d (a int);
INSERT INTO ri_d VALUES (1), (2);
CREATE UNIQUE INDEX ri_d_a ON ri_d (a);
REINDEX INDEX ri_d_a;
INSERT INTO ri_d VALUES (2);
SELECT a FROM ri_d ORDER BY a;
DROP TABLE ri_d;
