-- Differential SQL cases: GROUP BY's functional dependency (issue 30). When GROUP BY lists all
-- columns of a table's primary key, the table's other columns may be used ungrouped, as
-- PostgreSQL's check_functional_grouping allows (go-tpc's check query groups warehouse by
-- w_id and reads w_ytd). Only primary keys count, only for that table's own columns, and with
-- grouping sets only keys common to every set.

-- name: group_by_pk_allowed
DROP TABLE IF EXISTS gb_w, gb_d;
CREATE TABLE gb_w (w_id int PRIMARY KEY, w_name varchar(10), w_ytd numeric(12,2));
CREATE TABLE gb_d (d_w_id int, d_id int, d_ytd numeric(12,2), d_name text, PRIMARY KEY (d_w_id, d_id));
INSERT INTO gb_w VALUES (1, 'one', 100), (2, 'two', 200), (3, NULL, NULL);
INSERT INTO gb_d VALUES (1, 1, 40, 'a'), (1, 2, 60, 'b'), (2, 1, 150, 'c'), (2, 2, 40, NULL);
SELECT w_id, w_name, w_ytd, sum(d_ytd) FROM gb_w, gb_d WHERE d_w_id = w_id GROUP BY w_id HAVING w_ytd <> sum(d_ytd) ORDER BY w_name;
SELECT w.w_ytd, count(*) FROM gb_w w LEFT JOIN gb_d d ON d.d_w_id = w.w_id GROUP BY w.w_id ORDER BY w.w_id;
SELECT w.*, count(d.d_id) FROM gb_w w LEFT JOIN gb_d d ON d.d_w_id = w.w_id GROUP BY w.w_id ORDER BY 1;
SELECT d_name, d_ytd + 1, max(d_id) FROM gb_d GROUP BY d_id, d_w_id ORDER BY 2, 1;
SELECT w_name FROM gb_w GROUP BY w_id, w_name ORDER BY 1;
SELECT upper(w_name) AS n, w_ytd FROM gb_w GROUP BY w_id ORDER BY w_ytd DESC NULLS LAST;
SELECT w_name, count(*) FROM gb_w GROUP BY GROUPING SETS ((w_id), (w_id, w_name)) ORDER BY 1, 2;
SELECT x.w_name FROM gb_w x JOIN gb_w y USING (w_id) GROUP BY w_id ORDER BY 1;
SELECT d.d_name, w.w_name FROM gb_d d JOIN gb_w w ON w.w_id = d.d_w_id GROUP BY d.d_w_id, d.d_id, w.w_id ORDER BY 1, 2;
SELECT w_id, w_name FROM gb_w WHERE w_id < 3 GROUP BY w_id ORDER BY w_id;
EXPLAIN (COSTS OFF) SELECT w_name, count(*) FROM gb_w GROUP BY w_id;
DROP TABLE gb_w, gb_d;

-- name: group_by_pk_still_errors
-- @errors
DROP TABLE IF EXISTS gb_w, gb_d, gb_u, gb_n;
CREATE TABLE gb_w (w_id int PRIMARY KEY, w_name varchar(10), w_ytd numeric(12,2));
CREATE TABLE gb_d (d_w_id int, d_id int, d_name text, PRIMARY KEY (d_w_id, d_id));
CREATE TABLE gb_u (id int UNIQUE NOT NULL, v int);
CREATE TABLE gb_n (id int, v int);
SELECT d_name FROM gb_d GROUP BY d_w_id;
SELECT v FROM gb_u GROUP BY id;
SELECT v FROM gb_n GROUP BY id;
SELECT s.w_name FROM (SELECT * FROM gb_w) s GROUP BY s.w_id;
SELECT y.w_name FROM gb_w x, gb_w y GROUP BY x.w_id;
SELECT w_name FROM gb_w GROUP BY ROLLUP (w_id);
SELECT w_name FROM gb_w GROUP BY GROUPING SETS ((w_id), ());
SELECT w_name FROM gb_w GROUP BY w_id + 0;
SELECT gb_w.* FROM gb_w JOIN gb_u ON true GROUP BY gb_u.id;
SELECT u.v FROM gb_w w JOIN gb_u u ON u.id = w.w_id GROUP BY w.w_id;
DROP TABLE gb_w, gb_d, gb_u, gb_n;

-- name: group_by_pk_error_names
-- @errors
DROP TABLE IF EXISTS gb_a, gb_b;
CREATE TABLE gb_a (id int PRIMARY KEY, x int);
CREATE TABLE gb_b (id int, y int);
SELECT y FROM gb_a JOIN gb_b USING (id) GROUP BY x;
SELECT id FROM gb_a JOIN gb_b USING (id) GROUP BY x;
SELECT x FROM gb_a JOIN gb_b USING (id) GROUP BY id;
SELECT gb_b.* FROM gb_a JOIN gb_b USING (id) GROUP BY gb_a.id;
DROP TABLE gb_a, gb_b;

-- name: grouped_query_subquery_outer_references
-- A subquery in a grouped query's select list, HAVING or ORDER BY runs once per group: its
-- references to the query's columns read the group's row (a group key, or a column through
-- the primary key's functional dependency), wherever the key stands among the table's columns.
-- @errors
DROP TABLE IF EXISTS gs_o, gs_i, gs_p;
CREATE TABLE gs_o (k int, g int, h text);
CREATE TABLE gs_i (g int, v int);
CREATE TABLE gs_p (id int PRIMARY KEY, k int, name text);
INSERT INTO gs_o VALUES (10, 1, 'a'), (20, 1, 'b'), (5, 2, 'c'), (7, NULL, 'd');
INSERT INTO gs_i VALUES (1, 100), (1, 101), (2, 200), (3, 300);
INSERT INTO gs_p VALUES (1, 10, 'one'), (2, 20, 'two'), (3, 30, 'three');
SELECT g, sum(k), (SELECT count(*) FROM gs_i WHERE gs_i.g = gs_o.g) FROM gs_o GROUP BY g ORDER BY g;
SELECT g, (SELECT count(*) FROM gs_i WHERE gs_i.g = gs_o.g) FROM gs_o GROUP BY g ORDER BY g;
SELECT g, (WITH w AS (SELECT * FROM gs_i WHERE gs_i.g = gs_o.g) SELECT sum(v) FROM w) FROM gs_o GROUP BY g ORDER BY g;
SELECT g FROM gs_o GROUP BY g HAVING (SELECT count(*) FROM gs_i WHERE gs_i.g = gs_o.g) > 1;
SELECT g, sum(k) FROM gs_o GROUP BY g ORDER BY (SELECT count(*) FROM gs_i WHERE gs_i.g = gs_o.g) DESC, g;
SELECT g, EXISTS (SELECT 1 FROM gs_i WHERE gs_i.g = gs_o.g), g IN (SELECT gs_i.g FROM gs_i WHERE v > 150) FROM gs_o GROUP BY g ORDER BY g;
SELECT h, g, (SELECT max(v) FROM gs_i WHERE gs_i.g = gs_o.g) FROM gs_o GROUP BY h, g ORDER BY h;
SELECT g + 1, (SELECT count(*) FROM gs_i WHERE gs_i.g = gs_o.g + 1) FROM gs_o GROUP BY g + 1 ORDER BY 1;
SELECT g, (SELECT (SELECT count(*) FROM gs_i WHERE gs_i.g = gs_o.g)) FROM gs_o GROUP BY g ORDER BY g;
SELECT g, (SELECT array_agg(x ORDER BY x) FROM (SELECT v AS x FROM gs_i WHERE gs_i.g = gs_o.g) s) FROM gs_o GROUP BY g ORDER BY g;
SELECT g, count(*), (SELECT string_agg(name, ',' ORDER BY name) FROM gs_p WHERE gs_p.k < g * 20) FROM gs_o GROUP BY ROLLUP (g) ORDER BY g, 2;
SELECT id, (SELECT count(*) FROM gs_o WHERE gs_o.k = gs_p.k), (SELECT name || '!' WHERE gs_p.k > 5) FROM gs_p GROUP BY id ORDER BY id;
SELECT p.id, sum(o.k), (SELECT p.name || ':' || count(*) FROM gs_i WHERE gs_i.g = p.id) FROM gs_p p LEFT JOIN gs_o o ON o.g = p.id GROUP BY p.id ORDER BY 1;
SELECT g, (SELECT h) FROM gs_o GROUP BY g;
SELECT g, (SELECT count(*) FROM gs_i WHERE gs_i.v > gs_o.k) FROM gs_o GROUP BY g;
SELECT count(*), (SELECT gs_o.g) FROM gs_o;
SELECT k FROM gs_o GROUP BY k HAVING (SELECT gs_o.g) > 0;
DROP TABLE gs_o, gs_i, gs_p;
