-- Differential SQL cases: inputs that once ended a session with a panic or ran forever
-- (issue 27); each must answer as PostgreSQL 15 does.

-- name: numeric_power_of_minus_one_beyond_int4
SELECT (-1.0) ^ 2147483648;
SELECT (-1.0) ^ 1000000000000001;
SELECT (-1.0) ^ (-2147483649);
SELECT power(-1::numeric, 4294967296);
SELECT (-1.0) ^ 2147483648.0;
SELECT (-1.0) ^ 2147483647;
SELECT (-0.5) ^ 2147483648;

-- name: numeric_power_overflow
-- @errors
SELECT (-2.0) ^ 2147483648;

-- name: generate_series_numeric_never_ending
-- @errors
SELECT * FROM generate_series(0::numeric, 'nan'::numeric, 10::numeric);
SELECT * FROM generate_series('inf'::numeric, 'inf'::numeric, 10::numeric);
SELECT * FROM generate_series(0::numeric, 'inf'::numeric, 10::numeric);
SELECT * FROM generate_series('-inf'::numeric, 0::numeric);
SELECT * FROM generate_series(0::numeric, 1::numeric, 'nan'::numeric);
SELECT * FROM generate_series(0::numeric, 1::numeric, 'inf'::numeric);

-- name: recursive_union_clauses
-- @errors
WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM x ORDER BY 1) SELECT * FROM x;
WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM x LIMIT 10 OFFSET 1) SELECT * FROM x;
WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM x LIMIT 10) SELECT * FROM x;
WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM x FOR UPDATE) SELECT * FROM x;
WITH RECURSIVE x(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM x WHERE n < 3) SELECT * FROM x;
