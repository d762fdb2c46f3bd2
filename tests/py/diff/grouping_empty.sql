-- Differential SQL cases: grouping sets over no input rows. PostgreSQL returns one row for each
-- empty grouping set (ROLLUP's grand total, CUBE's and GROUPING SETS' `()`), with the
-- aggregates of an empty group, and no row for the other sets.

-- name: grouping_sets_empty_input
DROP TABLE IF EXISTS ge_t;
CREATE TABLE ge_t (a int, b int);
SELECT a, count(*), sum(b), grouping(a) FROM ge_t GROUP BY ROLLUP (a);
SELECT count(*) FROM ge_t GROUP BY GROUPING SETS ((), (a));
SELECT a, b, count(*), max(b) FROM ge_t GROUP BY CUBE (a, b);
SELECT a, count(*) FROM ge_t GROUP BY GROUPING SETS ((), (), a);
SELECT a, count(*) FROM ge_t GROUP BY ROLLUP (a) HAVING count(*) > 0;
SELECT a, count(*) FROM ge_t GROUP BY a, ROLLUP (b);
SELECT count(*) FROM ge_t GROUP BY GROUPING SETS (());
SELECT a, count(*) FROM ge_t WHERE a > 0 GROUP BY ROLLUP (a);
INSERT INTO ge_t VALUES (1, 2), (1, 3), (NULL, 4);
SELECT a, count(*), sum(b), grouping(a) FROM ge_t GROUP BY ROLLUP (a) ORDER BY 1, 4;
SELECT a, count(*) FROM ge_t WHERE a > 5 GROUP BY ROLLUP (a);
DROP TABLE ge_t;
