-- Differential SQL cases: correlated subqueries with aggregates (issue 30: go-tpc's `tpcc
-- check`, condition 3.3.2.10, compares each customer's balance with sums over its order lines
-- and its history). The plans: a SubPlan per subquery under the node that evaluates it,
-- numbered as PostgreSQL numbers them; a join inside the subquery probes the inner index
-- with the enclosing row's columns beside its own (a nested loop whose inner index scan is
-- keyed by `c.c_d_id` and `sp_ord.o_id`). EXPLAIN ANALYZE counts a subplan's loops (one per
-- evaluation). The planner switches steer PostgreSQL to the index paths threadgres's rules
-- choose for these small tables. The result cases cover empty groups (sum is NULL, count 0),
-- NULL correlation values, HAVING, subqueries two levels deep, and LEFT JOIN inside.

-- name: subplans_explain
DROP TABLE IF EXISTS sp_cust, sp_ord, sp_line, sp_hist;
CREATE TABLE sp_cust (c_w_id int, c_d_id int, c_id int, c_balance numeric(12,2), PRIMARY KEY (c_w_id, c_d_id, c_id));
CREATE TABLE sp_ord (o_w_id int, o_d_id int, o_id int, o_c_id int, PRIMARY KEY (o_w_id, o_d_id, o_id));
CREATE INDEX sp_ord_cust ON sp_ord (o_w_id, o_d_id, o_c_id, o_id);
CREATE TABLE sp_line (ol_w_id int, ol_d_id int, ol_o_id int, ol_number int, ol_amount numeric(6,2), ol_delivery_d timestamp, PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number));
CREATE TABLE sp_hist (h_c_id int, h_c_d_id int, h_c_w_id int, h_amount numeric(6,2));
CREATE INDEX sp_hist_w ON sp_hist (h_c_w_id);
INSERT INTO sp_cust SELECT 1, d, c, 0 FROM generate_series(1, 3) d, generate_series(1, 20) c;
INSERT INTO sp_ord SELECT 1, d, o, (o * 7) % 20 + 1 FROM generate_series(1, 3) d, generate_series(1, 30) o;
INSERT INTO sp_line SELECT 1, d, o, n, (o * n) % 50 + 0.5, CASE WHEN (o + n) % 4 = 0 THEN NULL ELSE timestamp '2026-01-01' END FROM generate_series(1, 3) d, generate_series(1, 30) o, generate_series(1, 4) n;
INSERT INTO sp_hist SELECT c % 20 + 1, c % 3 + 1, 1, (c % 9) + 0.25 FROM generate_series(1, 70) c;
UPDATE sp_cust c SET c_balance = coalesce((SELECT sum(ol_amount) FROM sp_ord, sp_line WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id AND ol_delivery_d IS NOT NULL AND o_w_id = 1 AND o_d_id = c.c_d_id AND o_c_id = c.c_id), 0) - coalesce((SELECT sum(h_amount) FROM sp_hist WHERE h_c_w_id = 1 AND h_c_d_id = c.c_d_id AND h_c_id = c.c_id), 0) WHERE c_id % 5 <> 0;
ANALYZE sp_cust, sp_ord, sp_line, sp_hist;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SET enable_mergejoin = off;
SET enable_hashjoin = off;
SET enable_material = off;
SET enable_memoize = off;
-- go-tpc's condition 3.3.2.10, its derived table pulled up: both subplans under the scan.
EXPLAIN (COSTS OFF) SELECT count(*) FROM (SELECT c.c_id, c.c_d_id, c.c_w_id, c.c_balance c1, (SELECT sum(ol_amount) FROM sp_ord, sp_line WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id AND ol_delivery_d IS NOT NULL AND o_w_id = 1 AND o_d_id = c.c_d_id AND o_c_id = c.c_id) sm, (SELECT sum(h_amount) FROM sp_hist WHERE h_c_w_id = 1 AND h_c_d_id = c.c_d_id AND h_c_id = c.c_id) smh FROM sp_cust c WHERE c.c_w_id = 1) t WHERE c1 <> sm - smh;
SELECT count(*) FROM (SELECT c.c_id, c.c_d_id, c.c_w_id, c.c_balance c1, (SELECT sum(ol_amount) FROM sp_ord, sp_line WHERE ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id AND ol_delivery_d IS NOT NULL AND o_w_id = 1 AND o_d_id = c.c_d_id AND o_c_id = c.c_id) sm, (SELECT sum(h_amount) FROM sp_hist WHERE h_c_w_id = 1 AND h_c_d_id = c.c_d_id AND h_c_id = c.c_id) smh FROM sp_cust c WHERE c.c_w_id = 1) t WHERE c1 <> sm - smh;
-- Target-list subplans numbered before the WHERE's, listed in that order.
EXPLAIN (COSTS OFF) SELECT c_id, (SELECT count(*) FROM sp_hist WHERE h_c_w_id = c.c_w_id AND h_c_d_id = c.c_d_id AND h_c_id = c.c_id) n, (SELECT avg(o_id) FROM sp_ord WHERE o_w_id = 1 AND o_d_id = c.c_d_id AND o_c_id = c.c_id) mean FROM sp_cust c WHERE c_w_id = 1 AND c_d_id = 2 AND c_balance > (SELECT sum(ol_amount) FROM sp_line WHERE ol_w_id = 1 AND ol_d_id = 2 AND ol_o_id = c.c_id);
-- A subplan's loops and rows; a scan whose subplan reads only indexed columns is index-only.
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT c_id, (SELECT sum(ol_amount) FROM sp_ord JOIN sp_line ON ol_w_id = o_w_id AND ol_d_id = o_d_id AND ol_o_id = o_id WHERE o_w_id = 1 AND o_d_id = c.c_d_id AND o_c_id = c.c_id) FROM sp_cust c WHERE c_w_id = 1 AND c_d_id = 3 AND c_id <= 4;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT c_id FROM sp_cust c WHERE c_w_id = 1 AND c_d_id = 1 AND c_id < 6 AND c_balance <> (SELECT coalesce(sum(h_amount), 0) FROM sp_hist WHERE h_c_w_id = 1 AND h_c_d_id = c.c_d_id AND h_c_id = c.c_id);
RESET enable_seqscan;
RESET enable_bitmapscan;
RESET enable_mergejoin;
RESET enable_hashjoin;
RESET enable_material;
RESET enable_memoize;
DROP TABLE sp_cust, sp_ord, sp_line, sp_hist;

-- name: subplans_aggregate_results
DROP TABLE IF EXISTS sq_o, sq_i, sq_j;
CREATE TABLE sq_o (id int PRIMARY KEY, g int, k int);
CREATE TABLE sq_i (id int PRIMARY KEY, g int, k int, v int);
CREATE INDEX sq_i_gk ON sq_i (g, k);
CREATE TABLE sq_j (i_id int, n int, w int, PRIMARY KEY (i_id, n));
INSERT INTO sq_o SELECT i, CASE WHEN i % 11 = 0 THEN NULL ELSE i % 4 END, CASE WHEN i % 13 = 0 THEN NULL ELSE i % 6 END FROM generate_series(1, 40) i;
INSERT INTO sq_i SELECT i, i % 3, CASE WHEN i % 17 = 0 THEN NULL ELSE i % 5 END, CASE WHEN i % 7 = 0 THEN NULL ELSE i END FROM generate_series(1, 120) i;
INSERT INTO sq_j SELECT i, n, i * n % 9 FROM generate_series(1, 120) i, generate_series(1, 3) n WHERE i % 4 <> 0;
-- Empty groups: sum, avg, min and max are NULL, count is 0; NULL correlation values match nothing.
SELECT id, g, k, (SELECT sum(v) FROM sq_i WHERE sq_i.g = sq_o.g AND sq_i.k = sq_o.k) s, (SELECT count(*) FROM sq_i WHERE sq_i.g = sq_o.g AND sq_i.k = sq_o.k) c, (SELECT count(v) FROM sq_i WHERE sq_i.g = sq_o.g AND sq_i.k = sq_o.k) cv, (SELECT min(v) FROM sq_i WHERE sq_i.g = sq_o.g AND sq_i.k = sq_o.k) mn, (SELECT max(v) FROM sq_i WHERE sq_i.g = sq_o.g) mx, (SELECT avg(v) FROM sq_i WHERE sq_i.g = sq_o.g AND sq_i.k = sq_o.k) a FROM sq_o ORDER BY id;
-- A join inside the subquery keyed by the enclosing row and by its own outer side.
SELECT id, (SELECT sum(w) FROM sq_i, sq_j WHERE sq_j.i_id = sq_i.id AND sq_i.g = sq_o.g AND sq_i.k = sq_o.k) sw, (SELECT count(*) FROM sq_i JOIN sq_j ON sq_j.i_id = sq_i.id AND sq_j.n = sq_o.g WHERE sq_i.g = 1 AND sq_i.k = sq_o.k) cn FROM sq_o ORDER BY id;
-- LEFT JOIN inside: the NULL-filled side's condition on the enclosing row stays in the ON.
SELECT id, (SELECT count(*) FROM sq_i LEFT JOIN sq_j ON sq_j.i_id = sq_i.id AND sq_j.n = sq_o.k WHERE sq_i.g = sq_o.g AND sq_i.id < 30) c, (SELECT count(sq_j.w) FROM sq_i LEFT JOIN sq_j ON sq_j.i_id = sq_i.id AND sq_j.n = sq_o.k WHERE sq_i.g = sq_o.g AND sq_i.id < 30) cw FROM sq_o ORDER BY id;
-- In WHERE, with HAVING, and compared with the enclosing row.
SELECT id FROM sq_o WHERE k < (SELECT count(*) FROM sq_i WHERE sq_i.g = sq_o.g AND sq_i.k = sq_o.k) ORDER BY id;
SELECT id, (SELECT sum(v) FROM sq_i WHERE sq_i.g = sq_o.g HAVING count(*) > 39) FROM sq_o WHERE id < 12 ORDER BY id;
-- Two levels: the inner subquery reads the outermost row through a join.
SELECT id, (SELECT sum((SELECT count(*) FROM sq_j WHERE sq_j.i_id = sq_i.id AND sq_j.n <= sq_o.g)) FROM sq_i WHERE sq_i.k = sq_o.k AND sq_i.id < 20) FROM sq_o WHERE id < 15 ORDER BY id;
SELECT id, (SELECT sum(w) FROM sq_i, sq_j WHERE sq_j.i_id = sq_i.id AND sq_j.n = sq_o.g AND sq_i.k = (SELECT min(k) FROM sq_i i2 WHERE i2.g = sq_o.g)) FROM sq_o WHERE id < 15 ORDER BY id;
-- The same through a prepared statement.
PREPARE sq_p(int) AS SELECT id, (SELECT sum(w) FROM sq_i, sq_j WHERE sq_j.i_id = sq_i.id AND sq_i.g = $1 AND sq_i.k = sq_o.k) FROM sq_o WHERE g = $1 ORDER BY id;
EXECUTE sq_p(1);
EXECUTE sq_p(2);
DEALLOCATE sq_p;
DROP TABLE sq_o, sq_i, sq_j;
