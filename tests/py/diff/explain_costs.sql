-- Differential SQL cases: EXPLAIN's estimates (issue 30). After ANALYZE of tables read whole,
-- the rows, widths and costs EXPLAIN prints are PostgreSQL's: selectivities from the most
-- common values and histograms (equality, inequality, ranges, IN lists, <>, IS NULL), an
-- index scan's cost, a filter's operators, a hash join's, a LIMIT's bounded sort.

-- name: explain_costs_scans
DROP TABLE IF EXISTS ec1;
DROP TABLE IF EXISTS ec2;
CREATE TABLE ec1 (id int PRIMARY KEY, g int, v text, f float8);
INSERT INTO ec1 SELECT i, i % 10, 'v' || (i % 1000), (i * 37 % 1000) / 7.0 FROM generate_series(1, 20000) i;
CREATE TABLE ec2 (id int PRIMARY KEY, ec1_id int, w int);
INSERT INTO ec2 SELECT i, (i * 7) % 20000 + 1, i % 3 FROM generate_series(1, 5000) i;
ANALYZE ec1;
ANALYZE ec2;
EXPLAIN SELECT * FROM ec1;
EXPLAIN SELECT * FROM ec1 WHERE g = 3;
EXPLAIN SELECT * FROM ec1 WHERE g = 42;
EXPLAIN SELECT * FROM ec1 WHERE id = 42;
EXPLAIN SELECT * FROM ec1 WHERE id < 100;
EXPLAIN SELECT * FROM ec1 WHERE v = 'v5';
EXPLAIN SELECT * FROM ec1 WHERE g = 3 AND v = 'v5';
EXPLAIN SELECT * FROM ec1 WHERE g IN (1, 2, 3);
EXPLAIN SELECT * FROM ec2 WHERE w <> 1;
EXPLAIN SELECT * FROM ec1 WHERE v IS NULL;
EXPLAIN SELECT * FROM ec1 WHERE g > 6;
EXPLAIN SELECT * FROM ec1 ORDER BY f LIMIT 10;
EXPLAIN SELECT * FROM ec1 JOIN ec2 ON ec1.id = ec2.ec1_id;
DROP TABLE ec1;
DROP TABLE ec2;

-- name: explain_costs_choose_scans
-- On an analyzed table of some size, the cheaper of the sequential scan and each index's path
-- by the estimates: an index for a selective condition, the table for one that matches much of
-- it (a range, an IN list, an equality on a column of few values), an index in the sort's order
-- under ORDER BY ... LIMIT (bitmap scans, which threadgres does not have, are off).
DROP TABLE IF EXISTS cs1;
CREATE TABLE cs1 (id int PRIMARY KEY, g int, k int, pad text);
INSERT INTO cs1 SELECT i, i % 4, (i * 7919) % 20000, repeat('x', 40) FROM generate_series(1, 20000) i;
CREATE INDEX cs1_g ON cs1 (g);
CREATE INDEX cs1_k ON cs1 (k);
ANALYZE cs1;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM cs1 WHERE id = 7;
EXPLAIN (COSTS OFF) SELECT * FROM cs1 WHERE id < 50;
EXPLAIN (COSTS OFF) SELECT * FROM cs1 WHERE id > 50;
EXPLAIN (COSTS OFF) SELECT * FROM cs1 WHERE id BETWEEN 100 AND 200;
EXPLAIN (COSTS OFF) SELECT * FROM cs1 WHERE g = 2;
EXPLAIN (COSTS OFF) SELECT * FROM cs1 WHERE g = 2 AND k = 5;
EXPLAIN (COSTS OFF) SELECT * FROM cs1 WHERE k < 100;
EXPLAIN (COSTS OFF) SELECT * FROM cs1 WHERE k >= 1000;
EXPLAIN (COSTS OFF) SELECT * FROM cs1 WHERE id IN (1, 2, 3);
EXPLAIN (COSTS OFF) SELECT * FROM cs1 WHERE g = 1 ORDER BY id LIMIT 3;
SELECT count(*), min(id), max(id) FROM cs1 WHERE id > 50;
SELECT count(*) FROM cs1 WHERE g = 2 AND k < 5000;
SELECT id FROM cs1 WHERE g = 1 ORDER BY id LIMIT 3;
DROP TABLE cs1;
RESET enable_bitmapscan;

-- name: explain_costs_aggregates
-- Under an aggregate the scan returns only the columns the aggregate reads (its width), a
-- hashed DISTINCT costs as a hash aggregate, final functions count per group, and a sort key
-- that the node below computes is shown in parentheses.
DROP TABLE IF EXISTS ew;
CREATE TABLE ew (id int PRIMARY KEY, g int, v text, n numeric);
INSERT INTO ew SELECT i, i % 10, 'v' || i, i FROM generate_series(1, 5000) i;
ANALYZE ew;
EXPLAIN SELECT g, count(*) FROM ew GROUP BY g;
EXPLAIN SELECT g, sum(n), max(v) FROM ew GROUP BY g;
EXPLAIN SELECT g, avg(id), string_agg(v, ',') FROM ew GROUP BY g;
EXPLAIN SELECT count(*) FROM ew;
EXPLAIN SELECT DISTINCT g FROM ew;
EXPLAIN SELECT v FROM ew ORDER BY v LIMIT 5;
EXPLAIN (COSTS OFF) SELECT g, count(*) FROM ew GROUP BY g ORDER BY count(*);
EXPLAIN (COSTS OFF) SELECT g, count(*) FROM ew GROUP BY g ORDER BY 2 DESC;
EXPLAIN (COSTS OFF) SELECT g + 1 FROM ew ORDER BY g + 1;
EXPLAIN (COSTS OFF) SELECT lower(v) FROM ew ORDER BY lower(v);
EXPLAIN (COSTS OFF) SELECT g + 1, count(*) FROM ew GROUP BY g + 1;
EXPLAIN (COSTS OFF) SELECT g, sum(n) s FROM ew GROUP BY g ORDER BY s;
EXPLAIN (COSTS OFF) SELECT g, count(*) FROM ew GROUP BY g HAVING count(*) > 1;
EXPLAIN (COSTS OFF) SELECT id, v FROM ew ORDER BY g, id LIMIT 3;
DROP TABLE ew;
