-- Differential SQL cases: subscripts (arrays: elements of any dimension, slices with omitted
-- bounds; jsonb; name), and assignment through them in UPDATE, INSERT and PL/pgSQL, with
-- domains over arrays and fields of composite elements.

-- name: subscript_reads
SELECT (array[1,2,3])[1:2], (array[[1,2],[3,4]])[2][1], ('{1,2,3}'::int[])[2:], ('{1,2,3}'::int[])[:2];
SELECT (array[[1,2],[3,4]])[1:1][2], (array[[1,2],[3,4]])[2], ('[0:2]={1,2,3}'::int[])[0], ('[0:2]={1,2,3}'::int[])[:];
SELECT (array[1,2,3])[5:9], (array[1,2,3])[2:1], (array[1,2,3])[null], (array[1,2,3])[1:null], (array[1,2,3])['2'], (array[1,2,3])[1.7];
SELECT ('{"a":{"b":[1,2,{"c":3}]}}'::jsonb)['a']['b'][2]['c'], ('{"a":1}'::jsonb)['x'], ('[1,2]'::jsonb)[-1], ('{"a":1}'::jsonb)[null], ('{"a":null}'::jsonb)['a'];
SELECT ('{"1":"k"}'::jsonb)[1], ('[1,2]'::jsonb)['1'], ('[1,2]'::jsonb)['x'], ('7'::jsonb)['a'];
SELECT ('abc'::name)[0], ('abc'::name)[2], ('abc'::name)[5];

-- name: subscript_read_errors
-- @errors
SELECT (1)[1];
SELECT ('[1,2,3]'::jsonb)[1.0];
SELECT ('[1,2,3]'::jsonb)[1:2];
SELECT (array[1,2,3])[true];
SELECT (array[1])[1][1][1][1][1][1][1];

-- name: subscript_update_insert
CREATE TABLE sub_t (a int[], j jsonb, c int);
INSERT INTO sub_t VALUES ('{1,2}', '{"a":1}', 1);
UPDATE sub_t SET a[5] = 9, j['b']['c'] = '2';
SELECT * FROM sub_t;
UPDATE sub_t SET a[0:1] = '{7,8}', j['x'][2] = '"q"';
SELECT a, array_dims(a), j FROM sub_t;
UPDATE sub_t SET a[1] = a[1] + 100, a[2] = 0 RETURNING a;
INSERT INTO sub_t (a[2], a[3], c) VALUES (5, 6, 7);
INSERT INTO sub_t (j['k'], j['m'][1], c) SELECT '1', '2', 8;
SELECT a, array_dims(a), j, c FROM sub_t ORDER BY c;
UPDATE sub_t SET j = NULL, a = NULL WHERE c = 1;
UPDATE sub_t SET j[0] = '5', a[2:3] = '{1,2}' WHERE c = 1;
UPDATE sub_t SET a[1:2] = NULL WHERE c = 7;
SELECT a, array_dims(a), j FROM sub_t ORDER BY c;
DROP TABLE sub_t;

-- name: subscript_assignment_errors
-- @errors
CREATE TABLE sub_e (a int[], m int[], j jsonb, c int);
INSERT INTO sub_e VALUES ('{1,2}', '{{1,2},{3,4}}', '{"a":1}', 1);
UPDATE sub_e SET a[1:1][1] = '{1}';
UPDATE sub_e SET a[null] = 1;
UPDATE sub_e SET j[null] = '1';
UPDATE sub_e SET a[1] = 'x';
UPDATE sub_e SET a[1] = default;
UPDATE sub_e SET c[1] = 1;
UPDATE sub_e SET m[3][1] = 1;
UPDATE sub_e SET m[1:2][1:3] = '{1,2,3,4,5,6}';
UPDATE sub_e SET a[2:1] = '{1}';
UPDATE sub_e SET a[1:] = '{1}' WHERE false;
UPDATE sub_e SET a = NULL;
UPDATE sub_e SET a[1:] = '{1}';
UPDATE sub_e SET a[1:3] = '{1}';
UPDATE sub_e SET j['a'][0] = '1';
UPDATE sub_e SET j = '[1]';
UPDATE sub_e SET j['a'] = '1';
UPDATE sub_e SET j[-5] = '1';
SELECT * FROM sub_e;
DROP TABLE sub_e;

-- name: subscript_domains_composites
-- @modes simple,extended
-- @errors
CREATE DOMAIN sub_posarr AS int[] CHECK (value[1] > 0);
CREATE TABLE sub_d (d sub_posarr);
INSERT INTO sub_d VALUES ('{1,2}');
UPDATE sub_d SET d[1] = -1;
UPDATE sub_d SET d[2] = -1;
SELECT * FROM sub_d;
CREATE TYPE sub_cmp AS (x int, y int[]);
CREATE TABLE sub_c (c sub_cmp, cs sub_cmp[]);
INSERT INTO sub_c VALUES (row(1,'{1,2}'), array[row(1,'{3}')::sub_cmp]);
UPDATE sub_c SET c.y[2] = 5, cs[1].x = 9, cs[2].y[1] = 4;
SELECT * FROM sub_c;
SELECT (cs[1]).x, (cs[2]).y[1], (c).y[2] FROM sub_c;
DROP TABLE sub_c;
DROP TYPE sub_cmp;
DROP TABLE sub_d;
DROP DOMAIN sub_posarr;

-- name: subscript_plpgsql
DO $$ declare a int[]; b int[] := '{1,2,3}'; j jsonb; m int[] := '{{1,2},{3,4}}'; t text[]; begin a[3] := 5; raise notice 'a=% dims=%', a, array_dims(a); b[1:2] := array[8,9]; b[5] := 1; b[ 2 ] := b[1] + 1; raise notice 'b=%', b; m[2][1] := 7; m[1:1][1:2] := '{0,0}'; raise notice 'm=%', m; j['a']['b'] := '1'; j['c'] := to_jsonb(2); raise notice 'j=%', j; t[(select 2)] := 'x'; b[:2] := '{4,4}'; raise notice 't=% b=%', t, b; end $$;
CREATE FUNCTION sub_squares(n int) RETURNS int[] LANGUAGE plpgsql AS $$ declare a int[] := '{}'; begin for i in 1..n loop a[i] := i*i; end loop; return a; end $$;
SELECT sub_squares(5), sub_squares(0);
CREATE TYPE sub_rt AS (f int[], g text);
DO $$ declare r sub_rt; begin r.f[2] := 3; raise notice 'r=%', r; end $$;
DROP TYPE sub_rt;
DROP FUNCTION sub_squares;

-- name: subscript_plpgsql_errors
-- @errors
DO $$ declare a int[]; begin a[null] := 1; end $$;
DO $$ declare m int[] := '{{1,2},{3,4}}'; begin m[3][1] := 1; end $$;
CREATE DOMAIN sub_pa AS int[] CHECK (value[1] > 0);
DO $$ declare d sub_pa := '{1}'; begin d[2] := -1; raise notice 'd=%', d; d[1] := -1; end $$;
DROP DOMAIN sub_pa;

-- name: plpgsql_user_typed_variables
-- @errors
CREATE TYPE sub_mood AS ENUM ('a', 'b');
CREATE DOMAIN sub_dint AS int CHECK (value > 0);
CREATE TYPE sub_pair AS (a int, b text);
DO $$ declare m sub_mood := 'a'; begin raise notice '%', m; m := 'b'; raise notice '% %', m, m > 'a'; end $$;
DO $$ declare m sub_dint not null := 1; begin m := m + 1; raise notice '%', m; m := -1; end $$;
DO $$ declare r sub_pair := row(1, 'x'); begin raise notice '% %', r, r.b; end $$;
CREATE FUNCTION sub_fm(m sub_mood, d sub_dint) RETURNS text LANGUAGE plpgsql AS $$ begin return m::text || d; end $$;
SELECT sub_fm('b', 3);
SELECT sub_fm('b', -3);
DROP FUNCTION sub_fm;
DROP TYPE sub_pair;
DROP DOMAIN sub_dint;
DROP TYPE sub_mood;

-- name: star_as_whole_row
CREATE TABLE sub_st (a int, b text);
INSERT INTO sub_st VALUES (1, 'x'), (2, NULL);
SELECT sub_st.* IS NOT NULL, row(sub_st.*), row(sub_st.*, 9), row(a, b) = row(a, b) FROM sub_st ORDER BY a;
CREATE FUNCTION sub_stf(sub_st) RETURNS text LANGUAGE sql AS 'select $1.b';
SELECT sub_stf(sub_st.*) FROM sub_st ORDER BY a;
CREATE FUNCTION sub_trg() RETURNS trigger LANGUAGE plpgsql AS $$ begin raise notice 'old % new %', old.*::text, new.b; return new; end $$;
CREATE TRIGGER sub_trg AFTER UPDATE ON sub_st FOR EACH ROW WHEN (old.* IS DISTINCT FROM new.*) EXECUTE FUNCTION sub_trg();
UPDATE sub_st SET b = b;
UPDATE sub_st SET b = 'w' WHERE a = 2;
DROP FUNCTION sub_stf;
DROP TABLE sub_st;
DROP FUNCTION sub_trg;

-- name: plpgsql_record_takes_structure
CREATE TYPE sub_rp AS (a int, b text);
DO $$ declare r record; begin r := (2, 'q')::sub_rp; raise notice '% %', r, r.b; r := row(1, 2); raise notice '%', r; end $$;
DROP TYPE sub_rp;

-- name: fixed_length_subscripts
-- @errors
SELECT p[0], p[1], p[2], b[0], b[1], b[1][0], l[1], p[null] FROM (VALUES (point '(1,2)', box '(3,4),(1,2)', lseg '[(1,2),(5,6)]')) v(p, b, l);
CREATE TABLE sub_gp (p point, b box);
INSERT INTO sub_gp VALUES ('(1,2)', '(3,4),(1,2)'), (NULL, NULL);
UPDATE sub_gp SET p[1] = 7, b[0] = '(9,9)';
SELECT * FROM sub_gp;
UPDATE sub_gp SET p[2] = 1;
UPDATE sub_gp SET p[0][0] = 1;
DROP TABLE sub_gp;
