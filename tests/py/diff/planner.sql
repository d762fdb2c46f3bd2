-- Differential SQL cases: the planner's index paths and joins (issue 19, "Executor and
-- planner"): ranges, BETWEEN, IN lists, = ANY($1), row-value IN, an equality prefix with a
-- range, ORDER BY ... LIMIT read from an index (forwards and backwards), index nested-loop and
-- hash joins with NULLs and outer joins. Results must be exactly what the filter gives, so
-- every case compares rows in a defined order. Each case builds its tables (named pl_*) and drops them.

-- name: planner_range
DROP TABLE IF EXISTS pl_t;
CREATE TABLE pl_t (id int PRIMARY KEY, a int, b int, c text);
CREATE INDEX pl_t_a ON pl_t (a);
CREATE INDEX pl_t_ab ON pl_t (a, b);
CREATE INDEX pl_t_c ON pl_t (c);
INSERT INTO pl_t SELECT i, CASE WHEN i % 10 = 0 THEN NULL ELSE i % 17 END, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 5 END, 'x' || (i % 13) FROM generate_series(1, 300) i;
SELECT id, a FROM pl_t WHERE a > 5 AND a <= 7 ORDER BY id;
SELECT id, a FROM pl_t WHERE a >= 15 ORDER BY id;
SELECT id, a FROM pl_t WHERE a < 2 ORDER BY id;
SELECT id, a FROM pl_t WHERE 3 > a ORDER BY id;
SELECT id, a FROM pl_t WHERE a BETWEEN 4 AND 5 ORDER BY id;
SELECT id, a FROM pl_t WHERE a > 5 AND a > 14 AND a < 100 AND a <= 15 ORDER BY id;
SELECT count(*) FROM pl_t WHERE a > 16;
SELECT count(*) FROM pl_t WHERE a > 7 AND a < 7;
SELECT count(*) FROM pl_t WHERE a >= 7 AND a <= 7;
SELECT count(*) FROM pl_t WHERE a > NULL;
SELECT count(*) FROM pl_t WHERE a > 3::int8 AND a < 5::int2;
SELECT id FROM pl_t WHERE id > 290 ORDER BY id;
SELECT id FROM pl_t WHERE id BETWEEN 10 AND 12 OR id = 1 ORDER BY id;
SELECT id, c FROM pl_t WHERE c >= 'x11' AND c < 'x2' ORDER BY id LIMIT 10;
DROP TABLE pl_t;

-- name: planner_in_lists
DROP TABLE IF EXISTS pl_t;
CREATE TABLE pl_t (id int PRIMARY KEY, a int, b int, c text);
CREATE INDEX pl_t_a ON pl_t (a);
CREATE INDEX pl_t_ab ON pl_t (a, b);
CREATE INDEX pl_t_c ON pl_t (c);
INSERT INTO pl_t SELECT i, CASE WHEN i % 10 = 0 THEN NULL ELSE i % 17 END, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 5 END, 'x' || (i % 13) FROM generate_series(1, 300) i;
SELECT id, a FROM pl_t WHERE a IN (3, 1, 3, NULL) ORDER BY id;
SELECT id, a FROM pl_t WHERE a NOT IN (1, 2, 3) AND id < 30 ORDER BY id;
SELECT id FROM pl_t WHERE id IN (5, 1, 300, 301, -1) ORDER BY id;
SELECT id FROM pl_t WHERE id = ANY('{7,3,3,9}'::int[]) ORDER BY id;
SELECT id FROM pl_t WHERE id = ANY(NULL::int[]);
SELECT id FROM pl_t WHERE id = ANY('{}'::int[]);
SELECT id, a, b FROM pl_t WHERE (a, b) IN ((1, 1), (2, 2), (16, NULL)) ORDER BY id;
SELECT id, a, b FROM pl_t WHERE (b, a) IN ((1, 1), (2, 2)) ORDER BY id;
SELECT id, a, b FROM pl_t WHERE a IN (1, 2) AND b IN (3, 4) ORDER BY id;
SELECT id, c FROM pl_t WHERE c IN ('x1', 'x12') AND id < 40 ORDER BY id;
DROP TABLE pl_t;

-- name: planner_any_param
DROP TABLE IF EXISTS pl_t;
CREATE TABLE pl_t (id int PRIMARY KEY, a int, b int, c text);
CREATE INDEX pl_t_a ON pl_t (a);
CREATE INDEX pl_t_ab ON pl_t (a, b);
CREATE INDEX pl_t_c ON pl_t (c);
INSERT INTO pl_t SELECT i, CASE WHEN i % 10 = 0 THEN NULL ELSE i % 17 END, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 5 END, 'x' || (i % 13) FROM generate_series(1, 300) i;
PREPARE pl_any(int[]) AS SELECT id FROM pl_t WHERE id = ANY($1) ORDER BY id;
EXECUTE pl_any('{4,2,200}');
EXECUTE pl_any(NULL);
PREPARE pl_rng(int, int) AS SELECT id, a FROM pl_t WHERE a > $1 AND a < $2 AND id < 50 ORDER BY id;
EXECUTE pl_rng(10, 13);
EXECUTE pl_rng(NULL, 13);
DEALLOCATE pl_any;
DEALLOCATE pl_rng;
DROP TABLE pl_t;

-- name: planner_or_ranges
-- An OR of ranges on one indexed column (sysbench's select_random_ranges) is read as one index
-- scan over the alternatives, overlapping ones merged: each row once, in index order, whatever
-- the bounds (touching, exclusive, NULL, equalities, an AND around the OR, a fixed prefix).
DROP TABLE IF EXISTS pl_o;
CREATE TABLE pl_o (id int PRIMARY KEY, a int, b int);
CREATE INDEX pl_o_b ON pl_o (b);
CREATE INDEX pl_o_ab ON pl_o (a, b);
INSERT INTO pl_o SELECT i, i % 100, CASE WHEN i % 11 = 0 THEN NULL ELSE (i * 7) % 400 END FROM generate_series(1, 5000) i;
ANALYZE pl_o;
SELECT count(*), min(b), max(b) FROM pl_o WHERE b BETWEEN 10 AND 12 OR b BETWEEN 11 AND 14 OR b = 300;
SELECT count(*) FROM pl_o WHERE b BETWEEN 10 AND 12 OR b BETWEEN 13 AND 14;
SELECT count(*) FROM pl_o WHERE (b > 10 AND b < 12) OR (b >= 12 AND b < 14) OR (b > 12 AND b <= 13);
SELECT count(*) FROM pl_o WHERE (b > 10 AND b < 12) OR (b > 12 AND b < 14);
SELECT count(*) FROM pl_o WHERE b < 3 OR b > 397 OR b < 1;
SELECT count(*) FROM pl_o WHERE (b BETWEEN 5 AND 10 OR b BETWEEN 390 AND 395) AND b > 7 AND b <= 392;
SELECT count(*) FROM pl_o WHERE b BETWEEN NULL AND 5 OR b = 7;
SELECT count(*) FROM pl_o WHERE b BETWEEN 9 AND 5 OR b BETWEEN 20 AND 20;
SELECT count(*) FROM pl_o WHERE b > 5 OR b < 10;
SELECT b, id FROM pl_o WHERE b BETWEEN 100 AND 101 OR b BETWEEN 3 AND 4 ORDER BY b DESC, id LIMIT 7;
SELECT b FROM pl_o WHERE b BETWEEN 100 AND 101 OR b BETWEEN 3 AND 4 ORDER BY b LIMIT 4;
SELECT id, a, b FROM pl_o WHERE a = 7 AND (b BETWEEN 0 AND 60 OR b = 287 OR b > 390) ORDER BY id;
SELECT count(*) FROM pl_o WHERE a IN (1, 2, 3) AND (b < 50 OR b BETWEEN 200 AND 210);
SELECT count(*) FROM pl_o WHERE b BETWEEN 1 AND 2 OR id BETWEEN 1 AND 3;
SELECT count(*) FROM pl_o WHERE b BETWEEN 1::int8 AND 4::int8 OR b BETWEEN 6::int2 AND 7::numeric;
PREPARE pl_or(int8, int8, int8, int8) AS SELECT count(*), sum(b) FROM pl_o WHERE b BETWEEN $1 AND $2 OR b BETWEEN $3 AND $4;
EXECUTE pl_or(10, 20, 15, 30);
EXECUTE pl_or(30, 20, 390, 1000);
EXECUTE pl_or(NULL, 20, 0, 0);
DEALLOCATE pl_or;
-- More ranges than are probed one by one (a prefix IN list times the OR's alternatives): the
-- span they cover is read and the conditions re-checked.
CREATE FUNCTION pl_many() RETURNS bigint LANGUAGE plpgsql AS $$ DECLARE q text; r bigint; BEGIN SELECT 'SELECT count(*) FROM pl_o WHERE a IN (' || string_agg(g::text, ',') || ') AND (' || (SELECT string_agg(format('b BETWEEN %s AND %s', g * 3, g * 3 + 1), ' OR ') FROM generate_series(0, 120) g) || ')' INTO q FROM generate_series(0, 99) g; EXECUTE q INTO r; RETURN r; END $$;
SELECT pl_many();
DROP FUNCTION pl_many();
DROP TABLE pl_o;

-- name: planner_prefix_range
DROP TABLE IF EXISTS pl_t;
CREATE TABLE pl_t (id int PRIMARY KEY, a int, b int, c text);
CREATE INDEX pl_t_a ON pl_t (a);
CREATE INDEX pl_t_ab ON pl_t (a, b);
CREATE INDEX pl_t_c ON pl_t (c);
INSERT INTO pl_t SELECT i, CASE WHEN i % 10 = 0 THEN NULL ELSE i % 17 END, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 5 END, 'x' || (i % 13) FROM generate_series(1, 300) i;
SELECT id, a, b FROM pl_t WHERE a = 3 AND b > 2 ORDER BY id;
SELECT id, a, b FROM pl_t WHERE a = 3 AND b >= 2 AND b < 4 ORDER BY id;
SELECT id, a, b FROM pl_t WHERE a IN (3, 4) AND b < 1 ORDER BY id;
SELECT id, a, b FROM pl_t WHERE a = 3 AND b IS NULL ORDER BY id;
SELECT id, a, b FROM pl_t WHERE a IS NULL AND b = 0 ORDER BY id;
SELECT id, a, b FROM pl_t WHERE a > 13 AND b = 1 ORDER BY id;
SELECT id, a, b FROM pl_t WHERE a >= 15 AND b < 2 AND b >= 1 ORDER BY id;
SELECT a, b FROM pl_t WHERE a > 14 AND b <> 1 ORDER BY a, b LIMIT 7;
DROP TABLE pl_t;

-- name: planner_order_limit
DROP TABLE IF EXISTS pl_t;
CREATE TABLE pl_t (id int PRIMARY KEY, a int, b int, c text);
CREATE INDEX pl_t_a ON pl_t (a);
CREATE INDEX pl_t_ab ON pl_t (a, b);
CREATE INDEX pl_t_c ON pl_t (c);
INSERT INTO pl_t SELECT i, CASE WHEN i % 10 = 0 THEN NULL ELSE i % 17 END, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 5 END, 'x' || (i % 13) FROM generate_series(1, 300) i;
SELECT id, a FROM pl_t ORDER BY id LIMIT 5;
SELECT id, a FROM pl_t ORDER BY id DESC LIMIT 5;
SELECT id, a FROM pl_t ORDER BY id DESC LIMIT 3 OFFSET 2;
SELECT id, a FROM pl_t WHERE id < 100 ORDER BY id DESC LIMIT 4;
SELECT id, a FROM pl_t WHERE id > 250 ORDER BY id LIMIT 4;
SELECT a, b, id FROM pl_t WHERE a = 4 ORDER BY b, id LIMIT 20;
SELECT a, b FROM pl_t WHERE a = 4 ORDER BY a, b DESC LIMIT 20;
SELECT a, b FROM pl_t WHERE a = 4 ORDER BY b DESC LIMIT 5;
SELECT a FROM pl_t ORDER BY a LIMIT 3;
SELECT a FROM pl_t ORDER BY a DESC LIMIT 3;
SELECT a FROM pl_t ORDER BY a DESC NULLS LAST LIMIT 3;
SELECT a FROM pl_t ORDER BY a NULLS FIRST LIMIT 3;
SELECT count(*) FROM (SELECT a FROM pl_t ORDER BY a) s;
SELECT id FROM pl_t WHERE a > 14 ORDER BY a, id LIMIT 6;
SELECT id, a FROM pl_t WHERE a BETWEEN 2 AND 3 ORDER BY a DESC, b DESC, id DESC LIMIT 4;
SELECT c FROM pl_t ORDER BY c DESC LIMIT 2;
DROP TABLE pl_t;

-- name: planner_order_limit_after_changes
DROP TABLE IF EXISTS pl_t;
CREATE TABLE pl_t (id int PRIMARY KEY, a int, b int, c text);
CREATE INDEX pl_t_a ON pl_t (a);
CREATE INDEX pl_t_ab ON pl_t (a, b);
CREATE INDEX pl_t_c ON pl_t (c);
INSERT INTO pl_t SELECT i, CASE WHEN i % 10 = 0 THEN NULL ELSE i % 17 END, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 5 END, 'x' || (i % 13) FROM generate_series(1, 300) i;
BEGIN;
UPDATE pl_t SET a = a + 100 WHERE id % 3 = 0;
DELETE FROM pl_t WHERE id > 295;
SELECT id, a FROM pl_t ORDER BY a DESC, id DESC LIMIT 5;
SELECT id, a FROM pl_t WHERE a IN (103, 3) ORDER BY id;
SELECT id FROM pl_t ORDER BY id DESC LIMIT 2;
ROLLBACK;
SELECT id FROM pl_t ORDER BY id DESC LIMIT 2;
DROP TABLE pl_t;

-- name: planner_joins
DROP TABLE IF EXISTS pl_a;
DROP TABLE IF EXISTS pl_b;
CREATE TABLE pl_a (id int PRIMARY KEY, x int, y text);
CREATE TABLE pl_b (id int PRIMARY KEY, k int, z text, w int8);
CREATE INDEX pl_b_k ON pl_b (k);
INSERT INTO pl_a SELECT i, CASE WHEN i % 6 = 0 THEN NULL ELSE i % 9 END, CASE WHEN i % 4 = 0 THEN NULL ELSE 'v' || (i % 5) END FROM generate_series(1, 40) i;
INSERT INTO pl_b SELECT i, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 11 END, CASE WHEN i % 5 = 0 THEN NULL ELSE 'v' || (i % 3) END, i % 4 FROM generate_series(1, 30) i;
SELECT a.id, b.id FROM pl_a a JOIN pl_b b ON b.id = a.x ORDER BY 1, 2;
SELECT a.id, b.id FROM pl_a a, pl_b b WHERE a.x = b.k ORDER BY 1, 2;
SELECT a.id, b.id FROM pl_a a JOIN pl_b b ON a.y = b.z ORDER BY 1, 2;
SELECT a.id, b.id FROM pl_a a JOIN pl_b b ON a.y = b.z AND a.x = b.k ORDER BY 1, 2;
SELECT a.id, b.id FROM pl_a a JOIN pl_b b ON a.x = b.w ORDER BY 1, 2;
SELECT a.id, b.id FROM pl_a a JOIN pl_b b ON a.y = b.z AND a.id < b.id AND b.id > 25 ORDER BY 1, 2;
SELECT a.id, b.id FROM pl_a a LEFT JOIN pl_b b ON a.y = b.z AND b.id > 20 ORDER BY 1, 2;
SELECT a.id, b.id FROM pl_a a LEFT JOIN pl_b b ON b.id = a.x AND b.z IS NOT NULL WHERE a.id < 15 ORDER BY 1, 2;
SELECT a.id, b.id FROM pl_a a LEFT JOIN pl_b b ON b.k = a.x AND a.id > 30 ORDER BY 1, 2;
SELECT a.id, b.id FROM pl_a a RIGHT JOIN pl_b b ON a.y = b.z AND a.id > 35 ORDER BY 1, 2;
SELECT a.id, b.id FROM pl_a a FULL JOIN pl_b b ON a.x = b.k AND a.id < 10 ORDER BY 1, 2;
SELECT a.id, b.id FROM pl_a a FULL JOIN pl_b b ON a.x = b.id WHERE a.id IS NULL OR b.id IS NULL ORDER BY 1, 2;
SELECT count(*) FROM pl_a a JOIN pl_b b USING (id);
SELECT count(*) FROM pl_a a JOIN pl_b b ON a.x = b.k JOIN pl_b c ON c.id = b.k;
SELECT a.id, b.id, c.id FROM pl_a a JOIN pl_b b ON a.x = b.k LEFT JOIN pl_a c ON c.x = b.id AND c.id < 5 WHERE a.id < 8 ORDER BY 1, 2, 3;
SELECT a.id FROM pl_a a WHERE EXISTS (SELECT 1 FROM pl_b b WHERE b.k = a.x AND b.id > 20) ORDER BY 1;
SELECT a.id, (SELECT count(*) FROM pl_b b JOIN pl_a c ON c.x = b.k WHERE b.id = a.id) FROM pl_a a WHERE a.id < 6 ORDER BY 1;
SELECT a.id, s.n FROM pl_a a JOIN (SELECT k, count(*) AS n FROM pl_b GROUP BY k) s ON s.k = a.x ORDER BY 1, 2;
SELECT a.id, b.id FROM pl_a a JOIN pl_b b ON a.x = b.k WHERE a.id IN (1, 2, 3) AND b.id BETWEEN 1 AND 20 ORDER BY 1, 2;
SELECT a.id, v.n FROM pl_a a JOIN (VALUES (1), (2), (NULL)) v(n) ON v.n = a.x ORDER BY 1, 2;
SELECT a.id, b.id FROM pl_a a JOIN pl_b b ON a.x + 0 = b.k ORDER BY 1, 2 LIMIT 5;
SELECT a.id, b.id FROM pl_a a JOIN pl_b b ON a.x > b.k AND b.id < 3 AND a.id < 4 ORDER BY 1, 2;
DROP TABLE pl_a;
DROP TABLE pl_b;

-- name: planner_join_update_delete
DROP TABLE IF EXISTS pl_a;
DROP TABLE IF EXISTS pl_b;
CREATE TABLE pl_a (id int PRIMARY KEY, x int);
CREATE TABLE pl_b (id int PRIMARY KEY, k int);
INSERT INTO pl_a SELECT i, i % 5 FROM generate_series(1, 20) i;
INSERT INTO pl_b SELECT i, i % 3 FROM generate_series(1, 10) i;
UPDATE pl_a SET x = pl_b.k FROM pl_b WHERE pl_b.id = pl_a.id RETURNING pl_a.id, pl_a.x;
DELETE FROM pl_a USING pl_b WHERE pl_b.id = pl_a.x AND pl_b.k = 1;
SELECT * FROM pl_a ORDER BY id;
DROP TABLE pl_a;
DROP TABLE pl_b;

-- name: planner_many_in_combinations
-- More IN combinations than the executor probes one by one (plan/index_path.rs MAX_PROBES):
-- it reads the range they span and re-checks the conditions.
DROP TABLE IF EXISTS pl_m;
CREATE TABLE pl_m (a int, b int, c int);
CREATE INDEX pl_m_ab ON pl_m (a, b);
INSERT INTO pl_m SELECT i % 250, i % 70 - 35, i FROM generate_series(1, 2000) i;
INSERT INTO pl_m VALUES (NULL, 1, -1), (1, NULL, -2);
SELECT count(*), sum(c) FROM pl_m WHERE a = ANY('{0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,68,69,70,71,72,73,74,75,76,77,78,79,80,81,82,83,84,85,86,87,88,89,90,91,92,93,94,95,96,97,98,99,100,101,102,103,104,105,106,107,108,109,110,111,112,113,114,115,116,117,118,119,120,121,122,123,124,125,126,127,128,129,130,131,132,133,134,135,136,137,138,139,140,141,142,143,144,145,146,147,148,149,150,151,152,153,154,155,156,157,158,159,160,161,162,163,164,165,166,167,168,169,170,171,172,173,174,175,176,177,178,179,180,181,182,183,184,185,186,187,188,189,190,191,192,193,194,195,196,197,198,199,200}'::int[]) AND b = ANY('{-30,-29,-28,-27,-26,-25,-24,-23,-22,-21,-20,-19,-18,-17,-16,-15,-14,-13,-12,-11,-10,-9,-8,-7,-6,-5,-4,-3,-2,-1,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30}'::int[]);
SELECT count(*), sum(c) FROM pl_m WHERE a = ANY('{0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,68,69,70,71,72,73,74,75,76,77,78,79,80,81,82,83,84,85,86,87,88,89,90,91,92,93,94,95,96,97,98,99,100,101,102,103,104,105,106,107,108,109,110,111,112,113,114,115,116,117,118,119,120,121,122,123,124,125,126,127,128,129,130,131,132,133,134,135,136,137,138,139,140,141,142,143,144,145,146,147,148,149,150,151,152,153,154,155,156,157,158,159,160,161,162,163,164,165,166,167,168,169,170,171,172,173,174,175,176,177,178,179,180,181,182,183,184,185,186,187,188,189,190,191,192,193,194,195,196,197,198,199,200}'::int[]) AND b = ANY('{-30,-29,-28,-27,-26,-25,-24,-23,-22,-21,-20,-19,-18,-17,-16,-15,-14,-13,-12,-11,-10,-9,-8,-7,-6,-5,-4,-3,-2,-1,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30}'::int[]) AND c > 1000;
SELECT c FROM pl_m WHERE a = ANY('{0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,67,68,69,70,71,72,73,74,75,76,77,78,79,80,81,82,83,84,85,86,87,88,89,90,91,92,93,94,95,96,97,98,99,100,101,102,103,104,105,106,107,108,109,110,111,112,113,114,115,116,117,118,119,120,121,122,123,124,125,126,127,128,129,130,131,132,133,134,135,136,137,138,139,140,141,142,143,144,145,146,147,148,149,150,151,152,153,154,155,156,157,158,159,160,161,162,163,164,165,166,167,168,169,170,171,172,173,174,175,176,177,178,179,180,181,182,183,184,185,186,187,188,189,190,191,192,193,194,195,196,197,198,199,200}'::int[]) AND b = ANY('{-30,-29,-28,-27,-26,-25,-24,-23,-22,-21,-20,-19,-18,-17,-16,-15,-14,-13,-12,-11,-10,-9,-8,-7,-6,-5,-4,-3,-2,-1,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30}'::int[]) ORDER BY c LIMIT 3;
DROP TABLE pl_m;

-- name: planner_scan_filters
-- @errors
-- A sequential scan tests its filter on the filter's columns alone and decodes only the rows
-- that pass: every kind of predicate it takes that way, NULLs, a column added or dropped after
-- the rows were written, errors raised by the filter, and writes through such a scan.
DROP TABLE IF EXISTS pl_f;
CREATE TABLE pl_f (id int, a int, t text, v varchar(10), n numeric, b bool);
INSERT INTO pl_f SELECT i, CASE WHEN i % 6 = 0 THEN NULL ELSE i % 9 END, 't' || (i % 4), CASE WHEN i % 5 = 0 THEN NULL ELSE 'v' || (i % 3) END, i * 1.5, i % 2 = 0 FROM generate_series(1, 60) i;
SELECT id FROM pl_f WHERE a = 3 ORDER BY id;
SELECT id, t FROM pl_f WHERE a > 4 AND t = 't1' ORDER BY id;
SELECT id FROM pl_f WHERE a = 1 OR v = 'v2' ORDER BY id;
SELECT id FROM pl_f WHERE NOT (a < 7) ORDER BY id;
SELECT id FROM pl_f WHERE a IS NULL ORDER BY id;
SELECT id FROM pl_f WHERE v IS NOT NULL AND b IS TRUE AND id < 20 ORDER BY id;
SELECT id FROM pl_f WHERE a IN (2, 4, NULL) ORDER BY id;
SELECT id FROM pl_f WHERE a NOT IN (1, 2, 3, 4, 5, 6, 7) ORDER BY id;
SELECT id FROM pl_f WHERE n::int % 7 = 0 ORDER BY id;
SELECT id FROM pl_f WHERE a IS DISTINCT FROM 2 AND id > 50 ORDER BY id;
SELECT id FROM pl_f WHERE -a = -8 ORDER BY id;
SELECT id, v FROM pl_f WHERE v::text = 'v1' AND n > 60 ORDER BY id;
SELECT count(*) FROM pl_f WHERE b;
SELECT count(*) FROM pl_f WHERE false;
PREPARE pl_fq(int, text) AS SELECT id FROM pl_f WHERE a = $1 AND t <> $2 ORDER BY id;
EXECUTE pl_fq(5, 't0');
DEALLOCATE pl_fq;
SELECT id FROM pl_f WHERE 10 / (a - 3) > 2 ORDER BY id;
SELECT id FROM pl_f WHERE a <> 3 AND 10 / (a - 3) > 2 ORDER BY id;
ALTER TABLE pl_f ADD COLUMN z int DEFAULT 7;
ALTER TABLE pl_f DROP COLUMN t;
SELECT count(*) FROM pl_f WHERE z = 7 AND a = 2;
SELECT id, z FROM pl_f WHERE z = 7 AND v = 'v0' ORDER BY id LIMIT 5;
UPDATE pl_f SET z = 8 WHERE a = 2 AND b;
SELECT id, z FROM pl_f WHERE z = 8 ORDER BY id;
DELETE FROM pl_f WHERE v IS NULL OR a IS NULL;
SELECT count(*), sum(id) FROM pl_f WHERE n >= 0;
SELECT id FROM pl_f WHERE EXISTS (SELECT 1 FROM pl_f f2 WHERE f2.id = pl_f.id + 1 AND f2.a = 4) ORDER BY id;
DROP TABLE pl_f;
