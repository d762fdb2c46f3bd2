-- Differential SQL cases: DEFERRABLE unique and primary keys (issue 31). The catalog
-- (pg_constraint, pg_index.indimmediate, pg_get_constraintdef), the check at the end of the
-- statement (UPDATE t SET id = id + 1), at COMMIT and at SET CONSTRAINTS ... IMMEDIATE,
-- savepoints, and the refusals: ON CONFLICT arbiters, referenced keys of foreign keys, GROUP BY
-- functional dependency. Tables are named du_...

-- name: du_catalog
DROP TABLE IF EXISTS du_a, du_b;
CREATE TABLE du_a (i int UNIQUE DEFERRABLE, j int PRIMARY KEY INITIALLY DEFERRED, k int, l int, m int UNIQUE NOT DEFERRABLE, UNIQUE (k, l) DEFERRABLE INITIALLY IMMEDIATE);
CREATE TABLE du_b (x int, y int);
ALTER TABLE du_b ADD CONSTRAINT du_b_x_key UNIQUE (x) DEFERRABLE INITIALLY DEFERRED;
ALTER TABLE du_b ADD PRIMARY KEY (y) DEFERRABLE;
SELECT conname, contype, condeferrable, condeferred, pg_get_constraintdef(oid), pg_get_constraintdef(oid, true) FROM pg_constraint WHERE conrelid IN ('du_a'::regclass, 'du_b'::regclass) ORDER BY conname;
SELECT c.relname, i.indisunique, i.indisprimary, i.indimmediate FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid IN ('du_a'::regclass, 'du_b'::regclass) ORDER BY 1;
SELECT conname, conindid::regclass::text FROM pg_constraint WHERE conrelid = 'du_b'::regclass ORDER BY 1;
DROP TABLE du_a, du_b;

-- name: du_shift_at_end_of_statement
-- @errors
DROP TABLE IF EXISTS du_t;
CREATE TABLE du_t (i int UNIQUE DEFERRABLE, t text);
INSERT INTO du_t VALUES (0, 'one'), (1, 'two'), (2, 'tree'), (3, 'four'), (4, 'five');
BEGIN;
UPDATE du_t SET i = 1 WHERE i = 0;
SELECT 1;
ROLLBACK;
UPDATE du_t SET i = i + 1;
SELECT * FROM du_t ORDER BY i;
UPDATE du_t SET i = i - 1 RETURNING i, t;
UPDATE du_t SET i = 3 WHERE i < 2;
SELECT * FROM du_t ORDER BY i;
INSERT INTO du_t VALUES (4, 'again');
INSERT INTO du_t VALUES (9, 'x'), (9, 'y');
INSERT INTO du_t VALUES (NULL, 'n1'), (NULL, 'n2');
SELECT count(*) FROM du_t;
DROP TABLE du_t;

-- name: du_primary_key_shift_and_detail
-- @errors
DROP TABLE IF EXISTS du_p;
CREATE TABLE du_p (a int, b text, v int, PRIMARY KEY (a, b) DEFERRABLE);
INSERT INTO du_p SELECT g, 'k', g FROM generate_series(1, 50) g;
UPDATE du_p SET a = a + 1;
SELECT min(a), max(a), count(*) FROM du_p;
UPDATE du_p SET a = 51 WHERE a = 50;
UPDATE du_p SET a = 2, b = 'k' WHERE a = 3;
SELECT count(*) FROM du_p WHERE a = 2;
DROP TABLE du_p;

-- name: du_set_constraints_deferred_then_commit
-- @errors
DROP TABLE IF EXISTS du_t;
CREATE TABLE du_t (i int UNIQUE DEFERRABLE, t text);
INSERT INTO du_t VALUES (1, 'one'), (2, 'two'), (3, 'tree');
BEGIN;
SET CONSTRAINTS du_t_i_key DEFERRED;
INSERT INTO du_t VALUES (3, 'three');
SELECT * FROM du_t WHERE i = 3 ORDER BY t;
DELETE FROM du_t WHERE t = 'tree';
COMMIT;
SELECT * FROM du_t ORDER BY i;
BEGIN;
SET CONSTRAINTS ALL DEFERRED;
INSERT INTO du_t VALUES (3, 'Three');
SET CONSTRAINTS ALL IMMEDIATE;
SELECT 1;
COMMIT;
BEGIN;
SET CONSTRAINTS du_t_i_key DEFERRED;
INSERT INTO du_t VALUES (2, 'Two');
SET CONSTRAINTS du_t_i_key IMMEDIATE;
ROLLBACK;
SELECT * FROM du_t ORDER BY i;
DROP TABLE du_t;

-- name: du_initially_deferred
-- @errors
DROP TABLE IF EXISTS du_t;
CREATE TABLE du_t (i int, t text);
INSERT INTO du_t VALUES (3, 'three'), (1, 'five'), (5, 'one'), (4, 'two'), (2, 'four');
ALTER TABLE du_t ADD CONSTRAINT du_t_i_key UNIQUE (i) DEFERRABLE INITIALLY DEFERRED;
BEGIN;
INSERT INTO du_t VALUES (1, 'five2');
INSERT INTO du_t VALUES (5, 'one2');
UPDATE du_t SET i = 4 WHERE i = 2;
UPDATE du_t SET i = 2 WHERE i = 4 AND t = 'four';
DELETE FROM du_t WHERE i = 1 AND t = 'five';
DELETE FROM du_t WHERE i = 5 AND t = 'one';
COMMIT;
SELECT * FROM du_t ORDER BY i;
BEGIN;
INSERT INTO du_t VALUES (3, 'Three');
COMMIT;
SELECT * FROM du_t ORDER BY i;
BEGIN;
SET CONSTRAINTS ALL IMMEDIATE;
INSERT INTO du_t VALUES (3, 'Three');
COMMIT;
INSERT INTO du_t VALUES (3, 'autocommit');
INSERT INTO du_t VALUES (6, 'six'), (6, 'six again');
SELECT count(*) FROM du_t;
DROP TABLE du_t;

-- name: du_savepoints
-- @errors
DROP TABLE IF EXISTS du_t;
CREATE TABLE du_t (i int UNIQUE DEFERRABLE);
BEGIN;
INSERT INTO du_t VALUES (1);
SAVEPOINT f;
INSERT INTO du_t VALUES (1);
ROLLBACK TO f;
SET CONSTRAINTS du_t_i_key DEFERRED;
SAVEPOINT g;
INSERT INTO du_t VALUES (1);
ROLLBACK TO g;
INSERT INTO du_t VALUES (2);
COMMIT;
SELECT * FROM du_t ORDER BY 1;
BEGIN;
SET CONSTRAINTS du_t_i_key DEFERRED;
INSERT INTO du_t VALUES (1);
SAVEPOINT h;
DELETE FROM du_t WHERE i = 1;
RELEASE h;
INSERT INTO du_t VALUES (2);
COMMIT;
SELECT * FROM du_t ORDER BY 1;
DROP TABLE du_t;

-- name: du_on_conflict_refuses_deferrable_arbiters
-- @errors
DROP TABLE IF EXISTS du_o;
CREATE TABLE du_o (i int UNIQUE DEFERRABLE, j int UNIQUE, k int CONSTRAINT du_o_k UNIQUE INITIALLY DEFERRED);
INSERT INTO du_o VALUES (1, 1, 1);
INSERT INTO du_o VALUES (1, 2, 2) ON CONFLICT (i) DO NOTHING;
INSERT INTO du_o VALUES (1, 2, 2) ON CONFLICT DO NOTHING;
INSERT INTO du_o VALUES (2, 1, 2) ON CONFLICT ON CONSTRAINT du_o_k DO NOTHING;
INSERT INTO du_o VALUES (2, 1, 2) ON CONFLICT (k) DO UPDATE SET j = 5;
INSERT INTO du_o SELECT 1, 1, 1 WHERE false ON CONFLICT (i) DO NOTHING;
INSERT INTO du_o VALUES (2, 1, 2) ON CONFLICT (j) DO UPDATE SET i = 7;
INSERT INTO du_o VALUES (3, 3, 1) ON CONFLICT (j) DO NOTHING;
SELECT * FROM du_o ORDER BY 1;
DROP TABLE du_o;

-- name: du_foreign_key_refuses_deferrable_referenced_key
-- @errors
DROP TABLE IF EXISTS du_c, du_p, du_q;
CREATE TABLE du_p (id int PRIMARY KEY DEFERRABLE, u int UNIQUE DEFERRABLE INITIALLY DEFERRED, w int UNIQUE DEFERRABLE, CONSTRAINT du_p_w_key2 UNIQUE (w));
CREATE TABLE du_c (p int REFERENCES du_p);
CREATE TABLE du_c (p int REFERENCES du_p (id));
CREATE TABLE du_c (p int REFERENCES du_p (u));
CREATE TABLE du_c (p int, q int);
ALTER TABLE du_c ADD FOREIGN KEY (p) REFERENCES du_p;
ALTER TABLE du_c ADD FOREIGN KEY (q) REFERENCES du_p (u);
ALTER TABLE du_c ADD FOREIGN KEY (q) REFERENCES du_p (w);
CREATE TABLE du_q (id int PRIMARY KEY DEFERRABLE, parent int REFERENCES du_q);
CREATE TABLE du_q (id int UNIQUE DEFERRABLE, parent int REFERENCES du_q (id));
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'du_c'::regclass ORDER BY 1;
DROP TABLE du_c, du_p;

-- name: du_group_by_needs_an_immediate_primary_key
-- @errors
DROP TABLE IF EXISTS du_g, du_h;
CREATE TABLE du_g (a int PRIMARY KEY DEFERRABLE, b int);
CREATE TABLE du_h (a int PRIMARY KEY, b int);
INSERT INTO du_g VALUES (1, 10);
INSERT INTO du_h VALUES (1, 10);
SELECT a, b FROM du_h GROUP BY a;
SELECT a, b FROM du_g GROUP BY a;
DROP TABLE du_g, du_h;

-- name: du_like_including_indexes
DROP TABLE IF EXISTS du_l, du_m;
CREATE TABLE du_l (i int PRIMARY KEY DEFERRABLE INITIALLY DEFERRED, j int UNIQUE DEFERRABLE, k int UNIQUE);
CREATE TABLE du_m (LIKE du_l INCLUDING ALL);
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'du_m'::regclass ORDER BY 1;
DROP TABLE du_l, du_m;

-- name: du_readers_see_both_rows_until_commit
-- @errors
DROP TABLE IF EXISTS du_r;
CREATE TABLE du_r (i int PRIMARY KEY DEFERRABLE INITIALLY DEFERRED, t text);
INSERT INTO du_r SELECT g, 'r' || g FROM generate_series(1, 100) g;
ANALYZE du_r;
BEGIN;
INSERT INTO du_r VALUES (7, 'dup');
SET LOCAL enable_seqscan = off;
SELECT t FROM du_r WHERE i = 7 ORDER BY t;
SELECT count(*) FROM du_r WHERE i BETWEEN 6 AND 8;
UPDATE du_r SET t = t || '!' WHERE i = 7;
SELECT t FROM du_r WHERE i = 7 ORDER BY t;
COMMIT;
SELECT t FROM du_r WHERE i = 7;
VACUUM du_r;
SELECT count(*) FROM du_r;
BEGIN;
UPDATE du_r SET i = i + 1;
UPDATE du_r SET i = i - 1;
COMMIT;
SELECT min(i), max(i), count(*) FROM du_r;
DROP TABLE du_r;

-- name: du_psql_describe_query
DROP TABLE IF EXISTS du_d;
CREATE TABLE du_d (i int PRIMARY KEY DEFERRABLE INITIALLY DEFERRED, j int UNIQUE DEFERRABLE);
SELECT c2.relname, i.indisprimary, i.indisunique, pg_catalog.pg_get_indexdef(i.indexrelid, 0, true), pg_catalog.pg_get_constraintdef(con.oid, true), contype, condeferrable, condeferred FROM pg_catalog.pg_class c, pg_catalog.pg_class c2, pg_catalog.pg_index i LEFT JOIN pg_catalog.pg_constraint con ON (conrelid = i.indrelid AND conindid = i.indexrelid AND contype IN ('p','u','x')) WHERE c.oid = 'du_d'::regclass AND c.oid = i.indrelid AND i.indexrelid = c2.oid ORDER BY i.indisprimary DESC, c2.relname;
DROP TABLE du_d;

-- name: du_ddl_refuses_a_table_with_pending_checks
-- @errors
DROP TABLE IF EXISTS du_c, du_t, du_p;
CREATE TABLE du_t (i int UNIQUE DEFERRABLE INITIALLY DEFERRED, t text);
CREATE TABLE du_p (id int PRIMARY KEY);
CREATE TABLE du_c (p int REFERENCES du_p DEFERRABLE INITIALLY DEFERRED);
INSERT INTO du_t VALUES (1, 'a');
BEGIN;
INSERT INTO du_t VALUES (2, 'b');
TRUNCATE du_t;
INSERT INTO du_t VALUES (1, 'c');
TRUNCATE du_t;
ROLLBACK;
BEGIN;
INSERT INTO du_t VALUES (1, 'c');
TRUNCATE du_t;
ROLLBACK;
BEGIN;
INSERT INTO du_t VALUES (1, 'c');
ALTER TABLE du_t ADD COLUMN u int;
ROLLBACK;
BEGIN;
INSERT INTO du_t VALUES (1, 'c');
ALTER TABLE du_t ADD CONSTRAINT du_t_t UNIQUE (t);
ROLLBACK;
BEGIN;
INSERT INTO du_t VALUES (1, 'c');
CREATE INDEX du_t_t ON du_t (t);
ROLLBACK;
BEGIN;
INSERT INTO du_t VALUES (1, 'c');
DROP TABLE du_t;
ROLLBACK;
BEGIN;
INSERT INTO du_t VALUES (1, 'c');
SET CONSTRAINTS ALL IMMEDIATE;
ROLLBACK;
BEGIN;
INSERT INTO du_t VALUES (1, 'c');
DELETE FROM du_t WHERE t = 'a';
SET CONSTRAINTS ALL IMMEDIATE;
TRUNCATE du_t;
ROLLBACK;
BEGIN;
INSERT INTO du_c VALUES (5);
ALTER TABLE du_c ADD COLUMN q int;
ROLLBACK;
BEGIN;
INSERT INTO du_c VALUES (5);
ALTER TABLE du_p ADD COLUMN q int;
ROLLBACK;
SELECT * FROM du_t;
DROP TABLE du_c, du_p, du_t;
