-- Differential SQL cases: JOIN ... USING and NATURAL JOIN. The merged USING columns come
-- first, then each side's other columns; an unqualified reference means the merged column,
-- a qualified one the side's own; a join alias hides the sides' names.

-- name: join_using_columns
DROP TABLE IF EXISTS ju_a, ju_b;
CREATE TABLE ju_a (id int, x int, k int8);
CREATE TABLE ju_b (y text, id int, k int4);
INSERT INTO ju_a VALUES (1, 10, 100), (2, 20, 200), (3, 30, NULL);
INSERT INTO ju_b VALUES ('one', 1, 100), ('four', 4, 400), ('three', 3, 3);
SELECT * FROM ju_a JOIN ju_b USING (id) ORDER BY id;
SELECT * FROM ju_a NATURAL JOIN ju_b ORDER BY id;
SELECT * FROM ju_a LEFT JOIN ju_b USING (id) ORDER BY id;
SELECT * FROM ju_a RIGHT JOIN ju_b USING (id) ORDER BY id;
SELECT * FROM ju_a FULL JOIN ju_b USING (id) ORDER BY id;
SELECT id, ju_a.id, ju_b.id FROM ju_a FULL JOIN ju_b USING (id) ORDER BY 1;
SELECT ju_a.*, ju_b.* FROM ju_a JOIN ju_b USING (id) ORDER BY 1;
SELECT k, pg_typeof(k) FROM ju_a JOIN ju_b USING (id, k);
SELECT * FROM ju_a JOIN ju_b USING (id) WHERE id = 1;
SELECT j.* FROM ju_a JOIN ju_b USING (id) AS j ORDER BY 1;
SELECT count(*) FROM ju_a a1 JOIN ju_a a2 USING (id) JOIN ju_a a3 USING (id);
SELECT id, x FROM ju_a JOIN ju_a a2 USING (id, x, k) ORDER BY id;
SELECT id FROM (ju_a JOIN ju_b USING (id)) JOIN ju_a a3 USING (id) ORDER BY id;
SELECT s.ssl IS NOT NULL FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE pid = pg_backend_pid();
DROP TABLE ju_a, ju_b;

-- name: join_using_errors
-- @errors
DROP TABLE IF EXISTS ju_a, ju_b;
CREATE TABLE ju_a (id int, x int);
CREATE TABLE ju_b (id int, y int);
SELECT * FROM ju_a JOIN ju_b USING (nope);
SELECT * FROM ju_a JOIN ju_b USING (x);
SELECT ju_a.id FROM ju_a JOIN ju_b USING (id) AS j;
SELECT j.x, j.y, j.id FROM ju_a JOIN ju_b USING (id) AS j;
SELECT id FROM ju_a JOIN ju_b ON ju_a.id = ju_b.id;
DROP TABLE ju_a, ju_b;

-- name: settings_fixed_until_restart
-- @errors
SET max_connections = 5;
SET max_prepared_transactions = 1;
RESET max_connections;
