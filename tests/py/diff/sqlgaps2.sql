-- Differential SQL cases: more of what a new user tries first (issues 19/20): json(b)_each
-- and friends (set-returning functions of several columns), jsonb_set / jsonb_insert,
-- GROUP BY ROLLUP / CUBE / GROUPING SETS, table row types.

-- name: srf_json_each
SELECT * FROM jsonb_each('{"b": 1, "a": [1, 2], "b": {"x": null}}');
SELECT * FROM json_each('{"b": 1, "a" : [1,2], "b": "x"}');
SELECT * FROM jsonb_each_text('{"b": 1, "a": null, "c": "s", "d": [1]}');
SELECT * FROM json_each_text('{"b": 1, "a": null, "c": "s", "d": [1]}');
SELECT * FROM jsonb_each_text('{"x": 1, "y": 2}') WITH ORDINALITY AS e(k, v, n);
SELECT k, value FROM jsonb_each('{"x": 1, "y": 2}') AS e(k) JOIN (VALUES ('y')) w(k2) ON k = k2;
SELECT key FROM jsonb_each('{}');
SELECT * FROM jsonb_each(NULL);
DROP TABLE IF EXISTS sg2_j;
CREATE TABLE sg2_j (id int, doc jsonb);
INSERT INTO sg2_j VALUES (1, '{"x": 1, "y": "s"}'), (2, '{}'), (3, NULL), (4, '{"z": [true]}');
SELECT id, e.key, e.value FROM sg2_j, jsonb_each(sg2_j.doc) e ORDER BY 1, 2;
SELECT id, key, value FROM sg2_j CROSS JOIN LATERAL jsonb_each_text(doc) ORDER BY 1, 2;
DROP TABLE sg2_j;

-- name: srf_json_each_record
-- In the select list the pairs are records; binary mode would send a json(b) field of a record
-- with the text type oid (records carry no field types yet), so text modes only.
-- @modes simple,extended
SELECT jsonb_each('{"b": 1, "a": null}');
SELECT json_each_text('{"b": 1, "a": "x y"}');
SELECT id, jsonb_each(doc) FROM (VALUES (1, '{"x": 1, "y": "s"}'::jsonb), (2, NULL)) v(id, doc) ORDER BY 1, 2;

-- name: srf_json_each_errors
-- @errors
SELECT * FROM jsonb_each('[1]');
SELECT * FROM jsonb_each_text('3');
SELECT * FROM json_each('[1]');
SELECT * FROM json_each('1');
SELECT * FROM json_each_text('"s"');
SELECT * FROM jsonb_each('{"a": 1}') AS e(a, b, c);
SELECT * FROM jsonb_each(1);

-- name: jsonb_set_insert
SELECT jsonb_set('{"a": [1, 2, 3], "b": {"c": 1}}', '{a,1}', '"x"');
SELECT jsonb_set('{"a": 1}', '{b}', '2'), jsonb_set('{"a": 1}', '{b}', '2', false), jsonb_set('{"a": 1}', '{b,c}', '2');
SELECT jsonb_set('[1, 2, 3]', '{-1}', '9'), jsonb_set('[1, 2, 3]', '{10}', '9'), jsonb_set('[1, 2, 3]', '{-10}', '9'), jsonb_set('[]', '{5}', '9');
SELECT jsonb_set('{"a": 1}', '{}', '9'), jsonb_set('{"a": 1}', '{a}', NULL), jsonb_set('{"a": 1}', '{1}', '9'), jsonb_set('[1]', '{0,0}', '9');
SELECT jsonb_set('{"a": [1]}', '{a,0,b}', '9'), jsonb_set('{"a": {"b": 1}}', '{a,b,c}', '9'), jsonb_set('[[1]]', '{0,-5}', '9'), jsonb_set('{"z": {"b": 1}}', '{z,aa}', '[true]');
SELECT jsonb_set('{"a": 1, "b": 2}', '{b}', '{"n": null}', false), jsonb_set('[1, 2]', '{ 1}', '7');
SELECT jsonb_insert('[1, 2, 3]', '{1}', '9'), jsonb_insert('[1, 2, 3]', '{1}', '9', true), jsonb_insert('[1, 2, 3]', '{-1}', '9'), jsonb_insert('[1, 2, 3]', '{-1}', '9', true);
SELECT jsonb_insert('{"a": 1}', '{b}', '9'), jsonb_insert('[1, 2]', '{10}', '9'), jsonb_insert('[1, 2]', '{-10}', '9', true), jsonb_insert('{"a": {"b": [0]}}', '{a,b,0}', '"new"');
DROP TABLE IF EXISTS sg2_doc;
CREATE TABLE sg2_doc (id int, d jsonb);
INSERT INTO sg2_doc VALUES (1, '{"n": 1, "tags": ["a"]}'), (2, NULL);
UPDATE sg2_doc SET d = jsonb_set(d, '{n}', to_jsonb((d->>'n')::int + 1)) WHERE id = 1;
UPDATE sg2_doc SET d = jsonb_insert(d, '{tags,0}', '"z"') WHERE id = 1;
SELECT id, d, jsonb_pretty(d), jsonb_strip_nulls(jsonb_set(d, '{x}', 'null')) FROM sg2_doc ORDER BY id;
DROP TABLE sg2_doc;

-- name: jsonb_set_insert_errors
-- @errors
SELECT jsonb_set('[1, 2]', '{x}', '9');
SELECT jsonb_set('1', '{a}', '9');
SELECT jsonb_set('"s"', '{}', '9');
SELECT jsonb_set('{"a": 1}', '{NULL}', '3');
SELECT jsonb_set('{"a": [1]}', '{a,z}', '9');
SELECT jsonb_insert('{"a": 1}', '{a}', '9');
SELECT jsonb_insert('{"a": [1]}', '{a,x}', '9');
SELECT jsonb_set('{"a": 1}'::json, '{a}', '1');

-- name: grouping_sets
DROP TABLE IF EXISTS sg2_sales;
CREATE TABLE sg2_sales (region text, product text, yr int, amount numeric);
INSERT INTO sg2_sales VALUES ('east', 'a', 2020, 10), ('east', 'b', 2020, 20), ('east', 'a', 2021, 5), ('west', 'a', 2020, 7), ('west', NULL, 2021, 3), (NULL, 'b', 2021, 1);
SELECT region, product, sum(amount), count(*) FROM sg2_sales GROUP BY ROLLUP (region, product) ORDER BY 1, 2, 3;
SELECT region, product, sum(amount), grouping(region, product) AS g FROM sg2_sales GROUP BY CUBE (region, product) ORDER BY g, 1, 2;
SELECT region, yr, sum(amount) FROM sg2_sales GROUP BY GROUPING SETS ((region), (yr), ()) ORDER BY 1, 2, 3;
SELECT region, product, yr, count(*) FROM sg2_sales GROUP BY region, ROLLUP (product, yr) ORDER BY 1, 2, 3, 4;
SELECT region, product, yr, count(*) FROM sg2_sales GROUP BY ROLLUP ((region, product), yr) ORDER BY 1, 2, 3, 4;
SELECT region, sum(amount) FROM sg2_sales GROUP BY GROUPING SETS (region, region) ORDER BY 1, 2;
SELECT region, grouping(region), sum(amount) FROM sg2_sales GROUP BY GROUPING SETS (region, ()) HAVING sum(amount) > 5 ORDER BY 2, 1;
SELECT CASE WHEN grouping(region) = 1 THEN 'all' ELSE region END AS r, sum(amount) FROM sg2_sales GROUP BY ROLLUP (region) ORDER BY grouping(region), 1;
SELECT region, grouping(region) FROM sg2_sales GROUP BY region ORDER BY 1;
SELECT sum(amount), count(*) FROM sg2_sales GROUP BY ();
SELECT region, sum(amount) FROM sg2_sales GROUP BY GROUPING SETS ((region)) ORDER BY 1;
SELECT upper(region), count(*) FROM sg2_sales GROUP BY ROLLUP (upper(region)) ORDER BY 1, 2;
SELECT region, product, count(*) FROM sg2_sales GROUP BY GROUPING SETS (ROLLUP (region), CUBE (product)) ORDER BY 1, 2, 3;
DROP TABLE sg2_sales;

-- name: grouping_sets_errors
-- @errors
DROP TABLE IF EXISTS sg2_g;
CREATE TABLE sg2_g (a int, b int);
SELECT grouping(a) FROM sg2_g;
SELECT grouping(b) FROM sg2_g GROUP BY a;
SELECT a FROM sg2_g WHERE grouping(a) = 0 GROUP BY a;
SELECT a FROM sg2_g GROUP BY CUBE (a, a, a, a, a, a, a, a, a, a, a, a, a);
SELECT a FROM sg2_g GROUP BY CUBE (a, a, a, a, a, a, a, a, a, a, a, a), CUBE (b, b);
SELECT grouping(a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a) FROM sg2_g GROUP BY a;
SELECT a, b FROM sg2_g GROUP BY ROLLUP (a);
DROP TABLE sg2_g;

-- name: table_row_types
-- A table or view has a composite type (named as it, typrelid = the table) and an array of it;
-- OIDs differ between servers, so only their relations are compared.
DROP VIEW IF EXISTS sg2_rv;
DROP TABLE IF EXISTS sg2_rt;
CREATE TABLE sg2_rt (a int, b text);
CREATE INDEX sg2_rt_a ON sg2_rt (a);
CREATE VIEW sg2_rv AS SELECT a FROM sg2_rt;
SELECT c.relname, c.reltype <> 0 AS has_type, t.typname, t.typtype, t.typcategory, t.typrelid = c.oid AS relid_ok, t.typlen, t.typbyval, t.typalign, t.typstorage, t.typinput::text, t.typoutput::text, t.typreceive::text, t.typsend::text, t.typnamespace::regnamespace::text, a.typname AS array_name, a.typtype AS array_type, a.typcategory AS array_cat, a.typelem = t.oid AS elem_ok, a.typinput::text AS array_in, a.typarray FROM pg_class c JOIN pg_type t ON t.oid = c.reltype JOIN pg_type a ON a.oid = t.typarray WHERE c.relname LIKE 'sg2_r%' ORDER BY 1;
SELECT relname, reltype = 0 AS no_type FROM pg_class WHERE relname LIKE 'sg2_r%' ORDER BY 1;
SELECT count(*) FROM pg_type WHERE typname IN ('sg2_rt', '_sg2_rt', 'sg2_rv', '_sg2_rv', 'sg2_rt_a');
ALTER TABLE sg2_rt ADD COLUMN c int;
SELECT count(*) FROM pg_type t JOIN pg_class c ON c.reltype = t.oid WHERE c.relname = 'sg2_rt';
DROP VIEW sg2_rv;
DROP TABLE sg2_rt;
SELECT count(*) FROM pg_type WHERE typname LIKE '%sg2_r%';
