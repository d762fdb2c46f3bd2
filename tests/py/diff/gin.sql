-- Differential SQL cases: GIN indexes (issue 31). jsonb_ops, jsonb_path_ops and array_ops
-- indexes: the same rows with the index (enable_seqscan off) and without, the plan shapes
-- (Bitmap Heap Scan over Bitmap Index Scan), the choice by cost on a larger analyzed table,
-- maintenance by INSERT / UPDATE / DELETE / TRUNCATE / rollback / rewrites, the catalogs and
-- PostgreSQL's errors. Tables are named gin_...

-- name: gin_jsonb_ops
DROP TABLE IF EXISTS gin_j;
CREATE TABLE gin_j (id int, doc jsonb);
INSERT INTO gin_j SELECT g, ('{"a": ' || (g % 10) || ', "b": "x' || g || '", "tags": ["t' || (g % 7) || '", ' || (g % 3) || '], "n": {"k": ' || (g % 5) || '.0}}')::jsonb FROM generate_series(1, 300) g;
INSERT INTO gin_j VALUES (0, '{}'), (-1, NULL), (-2, '[1, "a", null]'), (-3, '"a"'), (-4, '5'), (-5, '{"a": [3]}');
CREATE INDEX gin_j_doc ON gin_j USING gin (doc);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM gin_j WHERE doc @> '{"b": "x17"}';
SELECT * FROM gin_j WHERE doc @> '{"b": "x17"}';
EXPLAIN (COSTS OFF) SELECT count(*) FROM gin_j WHERE doc @> '{"a": 3}';
SELECT count(*) FROM gin_j WHERE doc @> '{"a": 3}';
SELECT count(*) FROM gin_j WHERE doc @> '{"n": {"k": 2}}';
SELECT count(*) FROM gin_j WHERE doc @> '{"tags": ["t3"]}';
SELECT count(*) FROM gin_j WHERE doc @> '{"tags": ["t3", 1]}';
SELECT count(*) FROM gin_j WHERE doc @> '{}';
SELECT id FROM gin_j WHERE doc @> '1' ORDER BY id;
SELECT id FROM gin_j WHERE doc @> '"a"' ORDER BY id;
SELECT id FROM gin_j WHERE doc @> '5' ORDER BY id;
SELECT id FROM gin_j WHERE doc @> '[null]' ORDER BY id;
SELECT count(*) FROM gin_j WHERE doc @> NULL;
EXPLAIN (COSTS OFF) SELECT id FROM gin_j WHERE doc ? 'zz';
SELECT count(*) FROM gin_j WHERE doc ? 'b';
SELECT id FROM gin_j WHERE doc ? 'a' AND id <= 0 ORDER BY id;
SELECT count(*) FROM gin_j WHERE doc ?| array['zz', 'b'];
SELECT count(*) FROM gin_j WHERE doc ?| array[]::text[];
SELECT count(*) FROM gin_j WHERE doc ?& array['a', 'zz'];
SELECT count(*) FROM gin_j WHERE doc ?& array['a', 'tags'];
SELECT count(*) FROM gin_j WHERE doc ?& array[]::text[];
EXPLAIN (COSTS OFF) SELECT id FROM gin_j WHERE doc @> '{"a": 3}' AND doc ? 'tags' AND id > 5;
SELECT id FROM gin_j WHERE doc @> '{"a": 3}' AND doc ? 'tags' AND id > 250 ORDER BY id;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM gin_j WHERE doc @> '{"b": "x17"}';
SELECT count(*) FROM gin_j WHERE doc @> '{"a": 3}';
RESET enable_bitmapscan;
RESET enable_seqscan;
DROP TABLE gin_j;

-- name: gin_jsonb_path_ops
DROP TABLE IF EXISTS gin_p;
CREATE TABLE gin_p (id int, doc jsonb);
INSERT INTO gin_p SELECT g, ('{"a": {"b": ' || (g % 10) || '}, "c": ["x' || (g % 4) || '", {"d": ' || (g % 3) || '}], "e": ' || CASE WHEN g % 2 = 0 THEN 'true' ELSE 'null' END || '}')::jsonb FROM generate_series(1, 200) g;
INSERT INTO gin_p VALUES (0, '{}'), (-1, NULL), (-2, '{"b": 1}'), (-3, '[{"a": {"b": 1}}]');
CREATE INDEX gin_p_doc ON gin_p USING gin (doc jsonb_path_ops);
SELECT indexdef FROM pg_indexes WHERE tablename = 'gin_p';
SELECT pg_get_indexdef('gin_p_doc'::regclass, 0, true), pg_get_indexdef('gin_p_doc'::regclass, 1, true);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM gin_p WHERE doc @> '{"a": {"b": 1}}';
SELECT count(*) FROM gin_p WHERE doc @> '{"a": {"b": 1}}';
SELECT count(*) FROM gin_p WHERE doc @> '{"b": 1}';
SELECT count(*) FROM gin_p WHERE doc @> '{"c": [{"d": 2}]}';
SELECT count(*) FROM gin_p WHERE doc @> '{"c": ["x1"], "e": true}';
SELECT count(*) FROM gin_p WHERE doc @> '{"e": null}';
SELECT count(*) FROM gin_p WHERE doc @> '{"a": {}}';
SELECT id FROM gin_p WHERE doc @> '[{"a": {"b": 1}}]';
-- `?` is not in jsonb_path_ops: a sequential scan, switched off or not.
EXPLAIN (COSTS OFF) SELECT count(*) FROM gin_p WHERE doc ? 'a';
SELECT count(*) FROM gin_p WHERE doc ? 'a';
RESET enable_seqscan;
DROP TABLE gin_p;

-- name: gin_arrays
DROP TABLE IF EXISTS gin_a;
CREATE TABLE gin_a (id int, arr int[], tags text[]);
INSERT INTO gin_a SELECT g, array[g % 10, g % 100, g], array['t' || (g % 5), 'u' || (g % 3)] FROM generate_series(1, 500) g;
INSERT INTO gin_a VALUES (0, '{}', '{}'), (-1, NULL, NULL), (-2, '{NULL,1}', '{NULL}'), (-3, '{{1,2},{3,4}}', '{a,b}');
CREATE INDEX gin_a_arr ON gin_a USING gin (arr);
CREATE INDEX gin_a_tags ON gin_a USING gin (tags array_ops);
SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'gin_a' ORDER BY 1;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM gin_a WHERE arr @> '{5,55}';
SELECT count(*) FROM gin_a WHERE arr @> '{5,55}';
SELECT count(*) FROM gin_a WHERE arr && '{5,55}';
SELECT id FROM gin_a WHERE arr <@ '{1,2,3,4,5,6,7,8,9,0,11}' ORDER BY id;
SELECT id FROM gin_a WHERE arr = '{1,1,1}';
SELECT id FROM gin_a WHERE arr = '{}';
SELECT id FROM gin_a WHERE arr = '{{1,2},{3,4}}';
SELECT count(*) FROM gin_a WHERE arr @> '{}';
SELECT count(*) FROM gin_a WHERE arr && '{}';
SELECT id FROM gin_a WHERE arr <@ '{}';
SELECT count(*) FROM gin_a WHERE arr @> '{NULL}';
SELECT count(*) FROM gin_a WHERE arr && '{NULL,1}';
SELECT id FROM gin_a WHERE arr <@ '{NULL,1}' ORDER BY id;
SELECT count(*) FROM gin_a WHERE arr @> '{1,2}';
EXPLAIN (COSTS OFF) SELECT count(*) FROM gin_a WHERE tags && '{t1,u2}';
SELECT count(*) FROM gin_a WHERE tags && '{t1,u2}';
SELECT count(*) FROM gin_a WHERE tags @> ARRAY['t1', 'u2'];
SELECT count(*) FROM gin_a WHERE arr @> '{5}' AND tags @> '{t0}';
RESET enable_seqscan;
DROP TABLE gin_a;

-- name: gin_maintenance
DROP TABLE IF EXISTS gin_m;
CREATE TABLE gin_m (id int PRIMARY KEY, doc jsonb, arr int[]);
CREATE INDEX gin_m_doc ON gin_m USING gin (doc);
CREATE INDEX gin_m_arr ON gin_m USING gin (arr);
INSERT INTO gin_m SELECT g, jsonb_build_object('k', g % 4, 'v', g), array[g % 4, g] FROM generate_series(1, 100) g;
SET enable_seqscan = off;
SELECT count(*) FROM gin_m WHERE doc @> '{"k": 1}';
UPDATE gin_m SET doc = doc || '{"k": 9}' WHERE id <= 10;
UPDATE gin_m SET id = id + 1000 WHERE id = 50;
SELECT count(*) FROM gin_m WHERE doc @> '{"k": 1}';
SELECT count(*) FROM gin_m WHERE doc @> '{"k": 9}';
SELECT id FROM gin_m WHERE doc @> '{"v": 50}';
DELETE FROM gin_m WHERE arr @> '{2}';
SELECT count(*) FROM gin_m WHERE arr && '{2,3}';
BEGIN;
INSERT INTO gin_m VALUES (500, '{"k": 77}', '{77}');
SELECT id FROM gin_m WHERE doc @> '{"k": 77}';
ROLLBACK;
SELECT id FROM gin_m WHERE doc @> '{"k": 77}';
BEGIN;
DELETE FROM gin_m WHERE doc @> '{"k": 3}';
SELECT count(*) FROM gin_m WHERE doc @> '{"k": 3}';
ROLLBACK;
SELECT count(*) FROM gin_m WHERE doc @> '{"k": 3}';
VACUUM gin_m;
SELECT count(*) FROM gin_m WHERE arr @> '{3}';
ALTER TABLE gin_m ALTER COLUMN id TYPE bigint;
SELECT count(*) FROM gin_m WHERE arr @> '{3}';
ALTER TABLE gin_m ADD COLUMN extra int DEFAULT 7;
SELECT count(*) FROM gin_m WHERE doc @> '{"k": 9}';
TRUNCATE gin_m;
SELECT count(*) FROM gin_m WHERE doc @> '{"k": 9}';
INSERT INTO gin_m VALUES (1, '{"k": 9}', '{9}');
SELECT id FROM gin_m WHERE doc @> '{"k": 9}' AND arr @> '{9}';
RESET enable_seqscan;
DROP TABLE gin_m;

-- name: gin_costs
DROP TABLE IF EXISTS gin_c, gin_small;
CREATE TABLE gin_c (id int, doc jsonb, arr int[]);
INSERT INTO gin_c SELECT g, ('{"id": ' || g || ', "kind": "k' || (g % 3) || '"}')::jsonb, array[g, g % 2] FROM generate_series(1, 30000) g;
CREATE INDEX gin_c_doc ON gin_c USING gin (doc);
CREATE INDEX gin_c_arr ON gin_c USING gin (arr);
ANALYZE gin_c;
EXPLAIN (COSTS OFF) SELECT * FROM gin_c WHERE doc @> '{"id": 1234}';
SELECT * FROM gin_c WHERE doc @> '{"id": 1234}';
EXPLAIN (COSTS OFF) SELECT * FROM gin_c WHERE arr @> '{4321}';
SELECT * FROM gin_c WHERE arr @> '{4321}';
EXPLAIN (COSTS OFF) SELECT count(*) FROM gin_c WHERE arr @> '{1}';
SELECT count(*) FROM gin_c WHERE arr @> '{1}';
CREATE TABLE gin_small (id int, doc jsonb);
INSERT INTO gin_small VALUES (1, '{"a": 1}'), (2, '{"a": 2}');
CREATE INDEX gin_small_doc ON gin_small USING gin (doc);
ANALYZE gin_small;
EXPLAIN (COSTS OFF) SELECT * FROM gin_small WHERE doc @> '{"a": 1}';
SELECT * FROM gin_small WHERE doc @> '{"a": 1}';
DROP TABLE gin_c, gin_small;

-- name: gin_errors_and_catalogs
-- @errors
DROP TABLE IF EXISTS gin_e;
CREATE TABLE gin_e (id int, doc jsonb, arr int[], t text);
CREATE INDEX gin_e_bad ON gin_e USING gin (id);
CREATE INDEX gin_e_bad ON gin_e USING gin (t);
CREATE UNIQUE INDEX gin_e_bad ON gin_e USING gin (arr);
CREATE INDEX gin_e_bad ON gin_e USING gin (arr jsonb_ops);
CREATE INDEX gin_e_bad ON gin_e USING gin (doc no_such_ops);
CREATE INDEX gin_e_bad ON gin_e USING gin (nope);
CREATE INDEX gin_e_doc ON gin_e USING gin (doc);
CREATE INDEX ON gin_e USING gin (arr);
SELECT c.relname, a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.relname LIKE 'gin_e%' ORDER BY 1;
SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'gin_e' ORDER BY 1;
SELECT amname, amtype FROM pg_am WHERE amname = 'gin';
SELECT oid, opcname, opcfamily, opcintype::regtype, opcdefault, opckeytype::regtype FROM pg_opclass WHERE opcmethod = 2742 AND opcname IN ('array_ops', 'jsonb_ops', 'jsonb_path_ops') ORDER BY 2;
SELECT oid, opfname, opfmethod FROM pg_opfamily WHERE opfmethod = 2742 AND opfname IN ('array_ops', 'jsonb_ops', 'jsonb_path_ops') ORDER BY 2;
DROP INDEX gin_e_doc;
SELECT indexname FROM pg_indexes WHERE tablename = 'gin_e' ORDER BY 1;
DROP TABLE gin_e;
