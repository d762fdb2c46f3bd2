-- Differential SQL cases: texts that differ only in their numbers share one parse tree in
-- simple-Query mode (src/sql/parser/shape.rs). Each case sends texts of one shape with other
-- numbers, including places where a number is not a value (ORDER BY / GROUP BY / DISTINCT ON
-- positions, type modifiers), negated numbers, numbers next to strings and names, numbers
-- beyond int4, column defaults and views whose own constants stand where the text's numbers
-- do, and several statements in one text.

-- name: shapes_values
SELECT 1 + 2, -3 * 4, - 5, 6 - -7;
SELECT 8 + 9, -1 * 2, - 3, 4 - -5;
SELECT 2147483647, -2147483647, pg_typeof(1000000000);
SELECT 2147483646, -2147483646, pg_typeof(2000000000);
SELECT 3000000000, -3000000000, pg_typeof(9000000000);
SELECT 2147483648, -2147483648, pg_typeof(2147483648);
SELECT '5' || 6, "x1".a FROM (SELECT 7 AS a) "x1";
SELECT '8' || 9, "x1".a FROM (SELECT 0 AS a) "x1";
SELECT 1.5 + 2, 2.5 + 3, 1e3 + 4;
SELECT 1.5 + 7, 2.5 + 8, 1e3 + 9;
SELECT 00012, 000;
SELECT 00034, 009;

-- name: shapes_positions
SELECT a, b FROM (VALUES (3, 1), (1, 2), (2, 3)) v(a, b) ORDER BY 1;
SELECT a, b FROM (VALUES (4, 1), (1, 2), (2, 3)) v(a, b) ORDER BY 2;
SELECT a % 2, count(*) FROM generate_series(1, 9) a GROUP BY 1 ORDER BY 1;
SELECT a % 3, count(*) FROM generate_series(1, 8) a GROUP BY 1 ORDER BY 2;
SELECT DISTINCT ON (1) a % 2, a FROM generate_series(1, 6) a ORDER BY 1, 2;
SELECT DISTINCT ON (2) a % 2, a FROM generate_series(1, 6) a ORDER BY 2, 1;
SELECT 'abcdef'::varchar(3), 'abcdef'::char(2);
SELECT 'abcdef'::varchar(4), 'abcdef'::char(5);
SELECT 12.345::numeric(5, 2);
SELECT 12.345::numeric(6, 3);
SELECT a FROM generate_series(1, 10) a ORDER BY a LIMIT 2 OFFSET 3;
SELECT a FROM generate_series(1, 10) a ORDER BY a LIMIT 4 OFFSET 1;
SELECT 1 UNION SELECT 2 ORDER BY 1;
SELECT 3 UNION SELECT 4 ORDER BY 1;

-- name: shapes_position_errors
-- @errors
SELECT a FROM generate_series(1, 3) a ORDER BY 1;
SELECT a FROM generate_series(1, 3) a ORDER BY 2;
SELECT a FROM generate_series(1, 3) a GROUP BY 1;
SELECT a FROM generate_series(1, 3) a GROUP BY 5;
SELECT 1 / 0;
SELECT 2 / 0;
SELECT 2147483647 + 1;
SELECT 2147483646 + 1;
SELECT 'x' + 5;
SELECT 'y' + 6;

-- name: shapes_tables
DROP TABLE IF EXISTS sh_t;
CREATE TABLE sh_t (id int PRIMARY KEY, a int DEFAULT 7, b text DEFAULT 'd' || 42);
CREATE VIEW sh_v AS SELECT id, a + 1000 AS a1 FROM sh_t WHERE id > 0;
INSERT INTO sh_t (id) VALUES (1);
INSERT INTO sh_t (id) VALUES (2);
INSERT INTO sh_t (id, a) VALUES (3, 30);
INSERT INTO sh_t (id, a) VALUES (4, 40);
INSERT INTO sh_t VALUES (5, 50, '5'), (6, 60, '6');
INSERT INTO sh_t VALUES (7, 70, '7'), (8, 80, '8');
UPDATE sh_t SET a = a + -5 WHERE id = 3;
UPDATE sh_t SET a = a + -6 WHERE id = 4;
DELETE FROM sh_t WHERE id = 5;
DELETE FROM sh_t WHERE id = 6;
SELECT * FROM sh_t ORDER BY id;
SELECT id, a1 FROM sh_v WHERE id > 1 ORDER BY id;
SELECT id, a1 FROM sh_v WHERE id > 2 ORDER BY id;
SELECT id, a1 FROM sh_v WHERE id = 7;
SELECT id, a1 FROM sh_v WHERE id = 8;
INSERT INTO sh_t VALUES (9, 1, 'x') ON CONFLICT (id) DO UPDATE SET a = 2;
INSERT INTO sh_t VALUES (9, 3, 'x') ON CONFLICT (id) DO UPDATE SET a = 4;
WITH d AS (DELETE FROM sh_t WHERE id = 7 RETURNING id) SELECT id + 100 FROM d;
WITH d AS (DELETE FROM sh_t WHERE id = 8 RETURNING id) SELECT id + 200 FROM d;
SELECT * FROM sh_t ORDER BY id;
DROP VIEW sh_v;
DROP TABLE sh_t;

-- name: shapes_multi_statement
-- @modes simple
SELECT 1; SELECT 2, 3;
SELECT 4; SELECT 5, 6;
