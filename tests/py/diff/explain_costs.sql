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
