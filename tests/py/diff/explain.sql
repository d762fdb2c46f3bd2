-- Differential SQL cases: EXPLAIN (issue 19). threadgres keeps no statistics, so the cases
-- use COSTS OFF and compare shapes where PostgreSQL 15 picks the same plan for these small
-- tables: planner switches (enable_seqscan, enable_bitmapscan, enable_mergejoin,
-- enable_material) are set on both servers to steer PostgreSQL to the index scans and joins
-- threadgres's rules choose. EXPLAIN ANALYZE runs with TIMING OFF and SUMMARY OFF (counts
-- only), and avoids nodes whose ANALYZE lines report memory (Sort, Hash).

-- name: explain_scans
DROP TABLE IF EXISTS ex_t;
CREATE TABLE ex_t (id int PRIMARY KEY, a int, b int, c text);
CREATE INDEX ex_t_ab ON ex_t (a, b);
INSERT INTO ex_t SELECT i, i % 17, i % 5, 'x' || (i % 13) FROM generate_series(1, 300) i;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM ex_t WHERE id = 5;
EXPLAIN (COSTS false) SELECT * FROM ex_t WHERE id = $$5$$;
EXPLAIN (COSTS OFF) SELECT * FROM ex_t WHERE id > 5 AND id < 10 AND c = 'x';
EXPLAIN (COSTS OFF) SELECT * FROM ex_t WHERE 10 > id;
EXPLAIN (COSTS OFF) SELECT * FROM ex_t WHERE a IN (1, 2, 3);
EXPLAIN (COSTS OFF) SELECT * FROM ex_t WHERE a = 3 AND b > 2;
EXPLAIN (COSTS OFF) SELECT * FROM ex_t WHERE a BETWEEN 2 AND 4 AND c > 'x1';
EXPLAIN (COSTS OFF) SELECT * FROM ex_t WHERE id = ANY ('{1,2}'::int[]);
EXPLAIN (COSTS OFF) SELECT * FROM ex_t WHERE a = 3 ORDER BY b LIMIT 3;
EXPLAIN (COSTS OFF) SELECT * FROM ex_t WHERE a = 3 ORDER BY b DESC LIMIT 3;
EXPLAIN (COSTS OFF) SELECT * FROM ex_t WHERE id < 50 ORDER BY id DESC LIMIT 3;
EXPLAIN (COSTS OFF) SELECT * FROM ex_t ORDER BY id LIMIT 3;
EXPLAIN (COSTS OFF) UPDATE ex_t SET c = 'y' WHERE id = 3;
EXPLAIN (COSTS OFF) DELETE FROM ex_t WHERE a > 5;
EXPLAIN (COSTS OFF) SELECT * FROM ex_t WHERE id = 3 FOR UPDATE;
EXPLAIN (COSTS OFF) SELECT id FROM ex_t WHERE id < 10;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ex_t WHERE a = 3;
EXPLAIN (COSTS OFF) SELECT a, b FROM ex_t WHERE a = 3 ORDER BY b LIMIT 2;
EXPLAIN (COSTS OFF) SELECT id FROM ex_t ORDER BY id DESC LIMIT 2;
EXPLAIN (COSTS OFF) SELECT a FROM ex_t WHERE a > 3 AND b = 1;
EXPLAIN (COSTS OFF) SELECT * FROM ex_t WHERE a > 3 AND b = 1;
EXPLAIN (COSTS OFF) SELECT * FROM ex_t WHERE id < 3 ORDER BY c;
EXPLAIN (COSTS OFF) SELECT c, count(*) FROM ex_t WHERE id < 30 GROUP BY c HAVING count(*) > 1;
EXPLAIN (COSTS OFF) SELECT DISTINCT a FROM ex_t WHERE id < 30;
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE ex_t;

-- name: explain_other_nodes
DROP TABLE IF EXISTS ex_t;
CREATE TABLE ex_t (id int PRIMARY KEY, a int, c text);
INSERT INTO ex_t SELECT i, i % 17, 'x' || (i % 13) FROM generate_series(1, 100) i;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ex_t;
EXPLAIN (COSTS OFF) SELECT a, count(*) FROM ex_t GROUP BY a;
EXPLAIN (COSTS OFF) SELECT * FROM ex_t ORDER BY c;
EXPLAIN (COSTS OFF) SELECT * FROM ex_t ORDER BY c DESC, a NULLS FIRST;
EXPLAIN (COSTS OFF) SELECT * FROM ex_t WHERE c <> 'x' LIMIT 2;
EXPLAIN (COSTS OFF) SELECT 1;
EXPLAIN (COSTS OFF) VALUES (1), (2);
EXPLAIN (COSTS OFF) SELECT * FROM generate_series(1, 3) g;
EXPLAIN (COSTS OFF) SELECT * FROM generate_series(1, 3);
EXPLAIN (COSTS OFF) SELECT x FROM generate_series(1, 3) x WHERE x > 1;
EXPLAIN (COSTS OFF) SELECT * FROM (VALUES (1, 'a'), (2, 'b')) v(n, s) WHERE n > 1;
EXPLAIN (COSTS OFF) INSERT INTO ex_t VALUES (1000, 1, 'x');
EXPLAIN (COSTS OFF) INSERT INTO ex_t VALUES (1000, 1, 'x'), (1001, 2, 'y');
EXPLAIN (COSTS OFF) DELETE FROM ex_t;
SELECT count(*) FROM ex_t;
DROP TABLE ex_t;

-- name: explain_joins
DROP TABLE IF EXISTS ex_a;
DROP TABLE IF EXISTS ex_b;
CREATE TABLE ex_a (id int PRIMARY KEY, x int, y text);
CREATE TABLE ex_b (id int PRIMARY KEY, k int, z text);
INSERT INTO ex_a SELECT i, i % 9, 'v' || (i % 5) FROM generate_series(1, 40) i;
INSERT INTO ex_b SELECT i, i % 11, 'v' || (i % 3) FROM generate_series(1, 30) i;
SET enable_bitmapscan = off;
SET enable_mergejoin = off;
SET enable_material = off;
EXPLAIN (COSTS OFF) SELECT ex_a.id, ex_b.id FROM ex_a JOIN ex_b ON ex_a.y = ex_b.z;
EXPLAIN (COSTS OFF) SELECT ex_a.id, ex_b.id FROM ex_a LEFT JOIN ex_b ON ex_a.y = ex_b.z;
EXPLAIN (COSTS OFF) SELECT ex_a.id, ex_b.id FROM ex_a, ex_b WHERE ex_a.y = ex_b.z AND ex_a.x = ex_b.k;
EXPLAIN (COSTS OFF) SELECT ex_a.id, ex_b.k FROM ex_a JOIN ex_b ON ex_b.id = ex_a.x;
EXPLAIN (COSTS OFF) SELECT ex_a.id, ex_b.k FROM ex_a JOIN ex_b ON ex_b.id = ex_a.x WHERE ex_a.id = 3;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT ex_a.id, ex_b.k FROM ex_a JOIN ex_b ON ex_b.id < ex_a.x WHERE ex_a.id = 3;
EXPLAIN (COSTS OFF) SELECT ex_a.id, ex_b.k FROM ex_a LEFT JOIN ex_b ON ex_b.id = ex_a.x AND ex_b.k > 2 WHERE ex_a.id = 3;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_mergejoin;
RESET enable_material;
DROP TABLE ex_a;
DROP TABLE ex_b;

-- name: explain_oltp_shapes
-- TPC-C's shapes (go-tpc's statements): a join whose inner index is keyed by a constant and
-- the outer row (stock level), a constant reaching a join column through an equality
-- (new order's customer and warehouse: both become lookups, the equality is dropped), and a
-- varchar column compared as text using its index (payment's customer by last name).
DROP TABLE IF EXISTS ex_stock;
DROP TABLE IF EXISTS ex_line;
DROP TABLE IF EXISTS ex_cust;
DROP TABLE IF EXISTS ex_wh;
CREATE TABLE ex_stock (s_w_id int, s_i_id int, s_quantity int, PRIMARY KEY (s_w_id, s_i_id));
CREATE TABLE ex_line (ol_w_id int, ol_d_id int, ol_o_id int, ol_number int, ol_i_id int, PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number));
CREATE TABLE ex_wh (w_id int PRIMARY KEY, w_tax numeric(4,4));
CREATE TABLE ex_cust (c_w_id int, c_d_id int, c_id int, c_last varchar(16), c_first varchar(16), c_discount numeric(4,4), PRIMARY KEY (c_w_id, c_d_id, c_id));
CREATE INDEX ex_cust_last ON ex_cust (c_w_id, c_d_id, c_last, c_first);
INSERT INTO ex_stock SELECT w, i, (i * 7) % 100 FROM generate_series(1, 2) w, generate_series(1, 500) i;
INSERT INTO ex_line SELECT 1, d, o, n, (o * 31 + n * 17) % 500 + 1 FROM generate_series(1, 3) d, generate_series(1, 40) o, generate_series(1, 5) n;
INSERT INTO ex_wh VALUES (1, 0.1), (2, 0.2);
INSERT INTO ex_cust SELECT w, d, c, 'L' || (c % 7), 'F' || c, 0.01 FROM generate_series(1, 2) w, generate_series(1, 3) d, generate_series(1, 30) c;
ANALYZE ex_stock, ex_line, ex_cust, ex_wh;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_mergejoin = off;
SET enable_hashjoin = off;
SET enable_material = off;
SET enable_memoize = off;
EXPLAIN (COSTS OFF) SELECT count(DISTINCT s_i_id) FROM ex_line, ex_stock WHERE ol_w_id = 1 AND ol_d_id = 2 AND ol_o_id < 30 AND ol_o_id >= 30 - 20 AND s_w_id = 1 AND s_i_id = ol_i_id AND s_quantity < 40;
SELECT count(DISTINCT s_i_id) FROM ex_line, ex_stock WHERE ol_w_id = 1 AND ol_d_id = 2 AND ol_o_id < 30 AND ol_o_id >= 30 - 20 AND s_w_id = 1 AND s_i_id = ol_i_id AND s_quantity < 40;
EXPLAIN (COSTS OFF) SELECT c_discount, c_last, w_tax FROM ex_cust, ex_wh WHERE w_id = 2 AND c_w_id = w_id AND c_d_id = 3 AND c_id = 17;
SELECT c_discount, c_last, w_tax FROM ex_cust, ex_wh WHERE w_id = 2 AND c_w_id = w_id AND c_d_id = 3 AND c_id = 17;
SELECT c_id, w_tax FROM ex_cust JOIN ex_wh ON c_w_id = w_id AND w_id = 1 WHERE c_d_id = 2 AND c_id < 4 ORDER BY c_id;
SELECT c_id, w_id FROM ex_cust, ex_wh WHERE c_w_id = w_id AND w_id = 1 AND c_w_id = 2;
EXPLAIN (COSTS OFF) SELECT c_id FROM ex_cust WHERE c_w_id = 1 AND c_d_id = 2 AND c_last = 'L3' ORDER BY c_first;
SELECT c_id FROM ex_cust WHERE c_w_id = 1 AND c_d_id = 2 AND c_last = 'L3' ORDER BY c_first;
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_mergejoin;
RESET enable_hashjoin;
RESET enable_material;
RESET enable_memoize;
DROP TABLE ex_stock;
DROP TABLE ex_line;
DROP TABLE ex_cust;
DROP TABLE ex_wh;

-- name: explain_analyze
DROP TABLE IF EXISTS ex_t;
CREATE TABLE ex_t (id int PRIMARY KEY, a int, c text);
CREATE INDEX ex_t_a ON ex_t (a);
INSERT INTO ex_t SELECT i, i % 17, 'x' || (i % 13) FROM generate_series(1, 300) i;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM ex_t WHERE a = 3 AND c <> 'x1';
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM ex_t ORDER BY id DESC LIMIT 3;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM ex_t WHERE id IN (1, 2, 400);
RESET enable_seqscan;
RESET enable_bitmapscan;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM ex_t LIMIT 3;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT count(*) FROM ex_t WHERE c = 'x3';
BEGIN;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) INSERT INTO ex_t VALUES (1000, 1, 'x');
SELECT count(*) FROM ex_t;
ROLLBACK;
SELECT count(*) FROM ex_t;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) DELETE FROM ex_t WHERE id > 298;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT count(*) FROM ex_t;
DROP TABLE ex_t;

-- name: explain_analyze_loops
-- Per-loop averages: the inner side runs once per outer row; 210 rows over 20 loops print as
-- PostgreSQL rounds 10.5. A node never started says so.
DROP TABLE IF EXISTS ex_o;
CREATE TABLE ex_o (id int PRIMARY KEY, v int);
INSERT INTO ex_o SELECT g, g FROM generate_series(1, 20) g;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM ex_o o, LATERAL (SELECT count(*) FROM generate_series(1, o.v)) s;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM ex_o o, LATERAL (SELECT count(*) FROM generate_series(1, o.v)) s WHERE o.v > 100;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT * FROM ex_o WHERE v % 3 = 0 LIMIT 2;
EXPLAIN (ANALYZE false, COSTS OFF) SELECT * FROM ex_o;
EXPLAIN (COSTS OFF, SUMMARY OFF) SELECT * FROM ex_o;
DROP TABLE ex_o;

-- name: explain_option_errors
-- @errors
EXPLAIN (TIMING) SELECT 1;
EXPLAIN (FOO) SELECT 1;
EXPLAIN (COSTS maybe) SELECT 1;
EXPLAIN (FORMAT yaml2) SELECT 1;
