-- Differential SQL cases: common SQL a new user tries first (issues 19/20): the aggregates
-- beyond count/sum/avg (JSON, statistics, bitwise, regression, ordered-set) and whole-row
-- references (`SELECT t FROM t`, row_to_json(t), count(t), t IS NOT NULL).

-- name: agg_json
DROP TABLE IF EXISTS sg_emp;
CREATE TABLE sg_emp (id int PRIMARY KEY, name text, dept text, salary numeric(10,2), age int, f float8, b bool, j jsonb);
INSERT INTO sg_emp VALUES (1, 'alice', 'eng', 100.50, 30, 1.5, true, '{"a": 1}'), (2, 'bob', 'eng', 200, 40, 2.25, false, '{"b": [1, 2]}'), (3, 'carol', 'ops', 150, NULL, NULL, true, NULL), (4, 'dave', 'ops', NULL, 50, 3.75, NULL, '[1, 2]');
SELECT json_agg(name), jsonb_agg(name ORDER BY id DESC), json_agg(age ORDER BY age DESC NULLS LAST) FROM sg_emp;
SELECT dept, json_agg(salary ORDER BY id), jsonb_agg(j ORDER BY id), json_agg(j ORDER BY id) FROM sg_emp GROUP BY dept ORDER BY dept;
SELECT json_object_agg(name, age ORDER BY id), jsonb_object_agg(name, age) FROM sg_emp;
SELECT json_object_agg(id, b), jsonb_object_agg(dept, id) FROM sg_emp;
SELECT json_agg(x) FROM (SELECT 1 AS x WHERE false) s;
SELECT json_agg(ARRAY[1, 2]), jsonb_agg(ARRAY[1, 2]), json_agg(1.50), json_agg('{"x": 1}'::json), json_agg('a"b'::text) FROM generate_series(1, 2);
SELECT json_agg(DISTINCT dept), json_agg(name) FILTER (WHERE age > 35) FROM sg_emp;
SELECT id, json_agg(name) OVER (ORDER BY id) FROM sg_emp ORDER BY id;
DROP TABLE sg_emp;

-- name: agg_json_errors
-- @errors
SELECT json_object_agg(NULL::text, 1);
SELECT jsonb_object_agg(NULL::text, 1);
SELECT json_object_agg(ARRAY[1], 1);
SELECT json_object_agg('{}'::json, 1);
SELECT json_agg(1, 2);
SELECT json_agg('x');
SELECT jsonb_agg('x');

-- name: agg_stats_numeric
SELECT stddev(x), stddev_samp(x), stddev_pop(x), variance(x), var_samp(x), var_pop(x) FROM (VALUES (30), (40), (50), (NULL)) v(x);
SELECT stddev(x), variance(x), var_pop(x) FROM (VALUES (100.50), (200.00), (150.00)) v(x);
SELECT stddev(x) FROM (VALUES (1.123), (2.5)) v(x);
SELECT stddev(x), variance(x) FROM (VALUES (1), (2)) v(x);
SELECT variance(x::int8), stddev(x::int2), var_pop(x::int2) FROM (VALUES (1), (2), (4)) v(x);
SELECT variance(x) FROM (VALUES (1), (1)) v(x);
SELECT variance(x), var_pop(x), stddev_pop(x), stddev(x) FROM (VALUES (1.5)) v(x);
SELECT variance(x), stddev_pop(x) FROM (SELECT 1 AS x WHERE false) s;
SELECT variance('nan'::numeric), variance(x) FROM (VALUES ('nan'::numeric), (1)) v(x);
SELECT stddev(DISTINCT x), variance(x) FILTER (WHERE x > 1) FROM (VALUES (1), (1), (2), (5)) v(x);
SELECT x, stddev(x) OVER (ORDER BY x), var_pop(x) OVER () FROM (VALUES (1), (2), (4)) v(x) ORDER BY x;
SELECT pg_typeof(stddev(1::int2)), pg_typeof(variance(1::int8)), pg_typeof(stddev(1.0::float4)), pg_typeof(var_pop(1.0::float8));

-- name: agg_stats_float
SELECT stddev(f), variance(f), var_pop(f), stddev_pop(f) FROM (VALUES (1.5::float8), (2.25), (NULL), (3.75)) v(f);
SELECT variance(x::float4), stddev(x::float4) FROM (VALUES (1.1), (2.5)) v(x);
SELECT var_pop(x), var_samp(x) FROM (VALUES ('infinity'::float8), (1.0)) v(x);
SELECT stddev(x) FROM (VALUES (0.1::float8), (0.2), (0.3), (0.4)) v(x);

-- name: agg_stats_errors
-- @errors
SELECT stddev('a'::text);
SELECT variance(1, 2);
SELECT var_pop(true);
SELECT variance(x) FROM (VALUES (1e300::float8), (1.0)) v(x);
SELECT regr_sxx(1, x) FROM (VALUES (1e300::float8), (-1e300)) v(x);

-- name: agg_bits
SELECT bit_and(x), bit_or(x), bit_xor(x) FROM (VALUES (12), (10), (NULL), (7)) v(x);
SELECT bit_and(x::int2), bit_or(x::int8), bit_xor(x::int2), pg_typeof(bit_or(x::int2)) FROM (VALUES (98), (1022)) v(x);
SELECT bit_and(x) FROM (SELECT 1 AS x WHERE false) s;

-- name: agg_bits_errors
-- @errors
SELECT bit_and(x::text) FROM (VALUES (1), (3)) v(x);
SELECT bool_xor(true);

-- name: agg_regr
SELECT corr(y, x), covar_pop(y, x), covar_samp(y, x), regr_slope(y, x), regr_count(y, x) FROM (VALUES (1, 2.0), (3, 5), (4, 4.5), (NULL, 1), (5, NULL)) v(x, y);
SELECT regr_intercept(y, x), regr_r2(y, x), regr_sxx(y, x), regr_syy(y, x), regr_sxy(y, x), regr_avgx(y, x), regr_avgy(y, x) FROM (VALUES (1, 2), (3, 5), (4, 4.5)) v(x, y);
SELECT corr(x, x), regr_r2(1, x), regr_slope(x, 1), covar_samp(x, x) FROM (VALUES (1), (1)) v(x);
SELECT corr(y, x), regr_count(y, x), covar_pop(y, x) FROM (SELECT 1 AS x, 2 AS y WHERE false) s;
SELECT corr(x::float4, x::numeric) FROM (VALUES (1), (2), (3)) v(x);
SELECT corr('1', '2'), stddev('1'), percentile_cont('0.5') WITHIN GROUP (ORDER BY 2);

-- name: agg_regr_errors
-- @errors
SELECT corr('a'::text, 1);
SELECT corr(1);
SELECT percentile_cont('0.5') WITHIN GROUP (ORDER BY '2');

-- name: agg_ordered_set
DROP TABLE IF EXISTS sg_os;
CREATE TABLE sg_os (name text, dept text, age int, salary numeric);
INSERT INTO sg_os VALUES ('alice', 'eng', 30, 100.5), ('bob', 'eng', 40, 200), ('carol', 'ops', NULL, 150), ('dave', 'ops', 50, NULL), ('eve', 'ops', 50, 90);
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY age), percentile_disc(0.5) WITHIN GROUP (ORDER BY age) FROM sg_os;
SELECT percentile_cont(0.25) WITHIN GROUP (ORDER BY salary), percentile_cont(1e-7) WITHIN GROUP (ORDER BY age), percentile_cont(0.5) WITHIN GROUP (ORDER BY age DESC) FROM sg_os;
SELECT percentile_disc(0.3) WITHIN GROUP (ORDER BY name), percentile_disc(0) WITHIN GROUP (ORDER BY name), percentile_disc(1) WITHIN GROUP (ORDER BY name DESC) FROM sg_os;
SELECT mode() WITHIN GROUP (ORDER BY age), mode() WITHIN GROUP (ORDER BY dept), mode() WITHIN GROUP (ORDER BY dept DESC) FROM sg_os;
SELECT dept, percentile_cont(0.5) WITHIN GROUP (ORDER BY salary), mode() WITHIN GROUP (ORDER BY age) FROM sg_os GROUP BY dept ORDER BY dept;
SELECT percentile_cont(ARRAY[0.25, 0.5, NULL, 1]) WITHIN GROUP (ORDER BY age), percentile_disc(ARRAY[0.1, 0.9]) WITHIN GROUP (ORDER BY name) FROM sg_os;
SELECT percentile_cont('{0.5,0.75}'::float8[]) WITHIN GROUP (ORDER BY salary), percentile_disc(ARRAY[1, 0]) WITHIN GROUP (ORDER BY age DESC) FROM sg_os;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY age), mode() WITHIN GROUP (ORDER BY age) FROM sg_os WHERE false;
SELECT percentile_cont(NULL) WITHIN GROUP (ORDER BY age), percentile_disc(0.5) WITHIN GROUP (ORDER BY age) FILTER (WHERE dept = 'ops') FROM sg_os;
DROP TABLE sg_os;

-- name: agg_ordered_set_errors
-- @errors
SELECT percentile_cont(0.5) FROM (VALUES (1)) v(x);
SELECT count(*) WITHIN GROUP (ORDER BY x) FROM (VALUES (1)) v(x);
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) OVER () FROM (VALUES (1)) v(x);
SELECT percentile_disc(1.5) WITHIN GROUP (ORDER BY x) FROM (VALUES (1)) v(x);
SELECT percentile_disc(-0.25) WITHIN GROUP (ORDER BY x) FROM (VALUES (1)) v(x) WHERE false;
SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM (VALUES ('a')) v(x);
SELECT percentile_cont(ARRAY[0.5, 2]) WITHIN GROUP (ORDER BY x) FROM (VALUES (1)) v(x);
SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY 'a');
SELECT mode() WITHIN GROUP (ORDER BY 'a');
SELECT bit_and('1');

-- name: agg_distinct_order
SELECT string_agg(DISTINCT s, ', '), array_agg(DISTINCT s), json_agg(DISTINCT s), jsonb_agg(DISTINCT n) FROM (VALUES ('paid', 3), ('new', 1), ('paid', 2), (NULL, NULL), ('cancelled', 2)) v(s, n);
SELECT string_agg(DISTINCT s, ',' ORDER BY s DESC), array_agg(DISTINCT n ORDER BY n DESC NULLS LAST) FROM (VALUES ('b', 1), ('a', NULL), ('c', 2)) v(s, n);
SELECT k, array_agg(DISTINCT v) FROM (VALUES (1, 'z'), (1, 'y'), (2, 'x'), (1, 'z')) t(k, v) GROUP BY k ORDER BY k;

-- name: whole_row
DROP TABLE IF EXISTS sg_wr;
CREATE TABLE sg_wr (id int PRIMARY KEY, name text, salary numeric(10,2), f float8, b bool, j jsonb, d date, t text[]);
INSERT INTO sg_wr VALUES (1, 'alice', 100.50, 1.5, true, '{"a": 1}', '2024-01-02', '{x,"y z"}'), (2, 'bob "b"', NULL, NULL, NULL, NULL, NULL, NULL);
SELECT row_to_json(e) FROM sg_wr e ORDER BY id;
SELECT to_json(e), to_jsonb(e) FROM sg_wr e ORDER BY id;
SELECT json_agg(e ORDER BY id), jsonb_agg(e ORDER BY id DESC) FROM sg_wr e;
SELECT e::text FROM sg_wr e ORDER BY id;
SELECT count(e), count(*) FROM sg_wr e;
SELECT id FROM sg_wr e WHERE e IS NOT NULL;
SELECT id FROM sg_wr e WHERE e IS NULL;
SELECT row_to_json(sg_wr) FROM sg_wr WHERE id = 1;
SELECT (SELECT row_to_json(e) FROM sg_wr x WHERE x.id = e.id) FROM sg_wr e ORDER BY id;
DROP TABLE sg_wr;

-- name: whole_row_derived
SELECT t FROM (VALUES (1, 'a'), (2, NULL)) t(a, b);
SELECT row_to_json(t) FROM (VALUES (1, 'a'), (2, NULL)) t(a, b);
SELECT s, row_to_json(s) FROM (SELECT 1 AS x, 'q"r' AS y, ARRAY[1, 2] AS z) s;
SELECT json_agg(s) FROM (SELECT g AS n, g * 2 AS m FROM generate_series(1, 3) g) s;
SELECT count(t), count(t.a) FROM (VALUES (1, 'a'), (NULL, NULL)) t(a, b) WHERE t IS NOT NULL;
SELECT a FROM (VALUES (1, 'a')) a(a, b);

-- name: whole_row_errors
-- @errors
SELECT nosuch FROM (VALUES (1)) t(a);
SELECT row_to_json(nosuch) FROM (VALUES (1)) t(a);

-- name: srf_json_regexp
SELECT jsonb_array_elements('[1, "a", {"b": 2}, null]'), json_array_elements('[1, "a" , {"b":2}]');
SELECT jsonb_array_elements_text('[1, "a", {"b": 2}, null]'), json_array_elements_text('[true, "x"]');
SELECT jsonb_object_keys('{"b": 1, "a": 2, "b": 3}'), json_object_keys('{"b": 1, "a": 2}');
SELECT * FROM jsonb_array_elements_text('["x", "y"]') WITH ORDINALITY;
SELECT e FROM jsonb_array_elements('[{"n": 1}, {"n": 2}]') e WHERE (e->>'n')::int > 1;
SELECT regexp_split_to_table('a b  c', '\s+'), 1;
SELECT * FROM regexp_split_to_table('A1b2C', '\d') AS t(part);
SELECT regexp_matches('a1b22c333', '\d+', 'g');
SELECT regexp_matches('foo-bar', '(\w+)-(\w+)');
SELECT regexp_matches('xyz', '\d');
SELECT regexp_matches('aAbB', '[a-b]', 'gi');
SELECT jsonb_array_elements(NULL);
SELECT * FROM jsonb_array_elements('[1, 2]');
DROP TABLE IF EXISTS sg_j;
CREATE TABLE sg_j (id int, doc jsonb);
INSERT INTO sg_j VALUES (1, '{"tags": ["a", "b"], "k": {"x": 1}}'), (2, '{"tags": []}');
SELECT id, jsonb_array_elements_text(doc->'tags') FROM sg_j ORDER BY 1, 2;
SELECT id, k FROM sg_j, jsonb_object_keys(doc) k ORDER BY 1, 2;
DROP TABLE sg_j;

-- name: srf_json_regexp_errors
-- @errors
SELECT jsonb_array_elements('{"a": 1}');
SELECT jsonb_array_elements('1');
SELECT json_array_elements('{"a": 1}');
SELECT json_array_elements('1');
SELECT jsonb_object_keys('[1]');
SELECT json_object_keys('1');
SELECT jsonb_array_elements(1);
SELECT regexp_matches('a', 'a', 'z');
SELECT jsonb_array_elements('[1');
