-- Differential SQL cases: polymorphic user-defined functions (issue 32): CREATE FUNCTION with
-- anyelement, anyarray, anynonarray, anyenum, anyrange, anymultirange and the anycompatible
-- family in LANGUAGE sql and plpgsql, the types a call resolves them to, VARIADIC, SETOF,
-- OUT and TABLE results, overloads against concrete signatures, pg_proc, and PostgreSQL's
-- errors. Objects are named pf_...

-- name: pf_sql_family1
DROP FUNCTION IF EXISTS pf_inc(anyelement), pf_pair(anyelement), pf_first(anyarray), pf_same(anyarray), pf_lower(anyrange);
CREATE FUNCTION pf_inc(x anyelement) RETURNS anyelement LANGUAGE sql AS $$ SELECT x + 1 $$;
CREATE FUNCTION pf_pair(x anyelement) RETURNS anyarray LANGUAGE sql AS $$ SELECT ARRAY[x, x] $$;
CREATE FUNCTION pf_first(x anyarray) RETURNS anyelement LANGUAGE sql AS $$ SELECT x[1] $$;
CREATE FUNCTION pf_same(x anyarray) RETURNS anyarray LANGUAGE sql AS $$ SELECT x $$;
CREATE FUNCTION pf_lower(r anyrange) RETURNS anyelement LANGUAGE sql AS $$ SELECT lower(r) $$;
SELECT pf_inc(42) AS i, pf_inc(4.5) AS n, pf_inc(2::smallint) AS s, pg_typeof(pf_inc(2::smallint));
SELECT pf_pair(1), pf_pair('a'::text), pg_typeof(pf_pair(1.5)), pf_first(ARRAY[2, 4]), pf_first(ARRAY['x', 'y']);
SELECT pf_same(ARRAY[1.5, 2]), pf_same('{1,2}'::int[]), pf_lower(int4range(3, 9)), pg_typeof(pf_lower(numrange(1.5, 2)));
SELECT pf_inc(NULL::int), pf_first(NULL::text[]);
DROP FUNCTION pf_inc(anyelement), pf_pair(anyelement), pf_first(anyarray), pf_same(anyarray), pf_lower(anyrange);

-- name: pf_call_errors
-- @errors
DROP FUNCTION IF EXISTS pf_two(anyelement, anyelement), pf_arr(anyarray, anyelement), pf_na(anynonarray), pf_id(anyelement);
CREATE FUNCTION pf_two(a anyelement, b anyelement) RETURNS anyelement LANGUAGE sql AS 'SELECT a';
CREATE FUNCTION pf_arr(a anyarray, b anyelement) RETURNS anyarray LANGUAGE sql AS 'SELECT a || b';
CREATE FUNCTION pf_na(a anynonarray) RETURNS text LANGUAGE sql AS 'SELECT a::text';
CREATE FUNCTION pf_id(a anyelement) RETURNS anyelement LANGUAGE sql AS 'SELECT a';
SELECT pf_two(1, 2), pf_two(1, '7'), pf_two('x'::text, 'y');
SELECT pf_two(1, 'x'::text);
SELECT pf_two('a', 'b');
SELECT pf_id(NULL);
SELECT pf_id('lit');
SELECT pf_arr(ARRAY[1, 2], 3), pf_arr('{a}'::text[], 'b');
SELECT pf_arr(ARRAY[1, 2], 'x'::text);
SELECT pf_na(5), pf_na('t'::text);
SELECT pf_na(ARRAY[1]);
DROP FUNCTION pf_two(anyelement, anyelement), pf_arr(anyarray, anyelement), pf_na(anynonarray), pf_id(anyelement);

-- name: pf_create_errors
-- @errors
DROP FUNCTION IF EXISTS pf_bad(int);
CREATE FUNCTION pf_bad(x int) RETURNS anyelement LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION pf_bad(x anyelement) RETURNS anyrange LANGUAGE sql AS 'SELECT NULL';
CREATE FUNCTION pf_bad(x anyelement) RETURNS anycompatible LANGUAGE sql AS 'SELECT x';
CREATE FUNCTION pf_bad(x anycompatible) RETURNS anycompatiblerange LANGUAGE sql AS 'SELECT NULL';
CREATE FUNCTION pf_bad(x int, OUT y anyelement) LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION pf_bad(x int) RETURNS TABLE(a anyarray) LANGUAGE sql AS 'SELECT NULL';
CREATE FUNCTION pf_bad(VARIADIC x int) RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION pf_bad(VARIADIC x int[], y int) RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION pf_bad(x int) RETURNS int LANGUAGE sql AS 'SELECT 1';
SELECT proname, prorettype::regtype FROM pg_proc WHERE proname = 'pf_bad';
DROP FUNCTION pf_bad(int);

-- name: pf_anycompatible
-- @errors
DROP FUNCTION IF EXISTS pf_c2(anycompatible, anycompatible), pf_cr(anycompatiblerange, anycompatible), pf_ca(anycompatiblearray, anycompatible);
CREATE FUNCTION pf_c2(x anycompatible, y anycompatible) RETURNS anycompatiblearray LANGUAGE sql AS 'SELECT ARRAY[x, y]';
CREATE FUNCTION pf_cr(r anycompatiblerange, x anycompatible) RETURNS anycompatible LANGUAGE sql AS 'SELECT x';
CREATE FUNCTION pf_ca(a anycompatiblearray, x anycompatible) RETURNS anycompatiblearray LANGUAGE sql AS 'SELECT a || x';
SELECT pf_c2(2, 4) AS i, pf_c2(2, 4.5) AS n, pg_typeof(pf_c2(2, 4.5)), pf_c2(1::smallint, 2::bigint), pf_c2('a', 'b'), pg_typeof(pf_c2('a', 'b'));
SELECT pf_c2(1, '2'), pf_ca(ARRAY[1, 2], 2.5), pf_ca('{1,2}', 3), pf_cr(int4range(1, 5), 2);
SELECT pf_c2(1, now());
SELECT pf_cr(int4range(1, 5), 2.5);
SELECT pf_cr('[1,5)', 2);
DROP FUNCTION pf_c2(anycompatible, anycompatible), pf_cr(anycompatiblerange, anycompatible), pf_ca(anycompatiblearray, anycompatible);

-- name: pf_plpgsql
-- @errors
DROP FUNCTION IF EXISTS pf_pl(anyelement), pf_plout(anyelement), pf_plarr(anyarray);
CREATE FUNCTION pf_pl(x anyelement) RETURNS anyelement LANGUAGE plpgsql AS $$ DECLARE y x%TYPE; BEGIN y := x; RETURN y; END $$;
CREATE FUNCTION pf_plout(x anyelement, OUT a anyelement, OUT b anyarray) LANGUAGE plpgsql AS $$ BEGIN a := x; b := ARRAY[x, x]; END $$;
CREATE FUNCTION pf_plarr(v anyarray) RETURNS anyelement LANGUAGE plpgsql AS $$ DECLARE s v%TYPE; BEGIN s := v; RETURN s[array_upper(s, 1)]; END $$;
SELECT pf_pl(1), pf_pl('x'::text), pf_pl(2.5), pf_pl(1), pg_typeof(pf_pl(true));
SELECT * FROM pf_plout(3);
SELECT * FROM pf_plout('z'::text);
SELECT pf_plarr(ARRAY[1, 2, 3]), pf_plarr(ARRAY['a', 'b']);
SELECT pf_pl('lit');
DROP FUNCTION pf_pl(anyelement), pf_plout(anyelement), pf_plarr(anyarray);

-- name: pf_sets_tables
DROP FUNCTION IF EXISTS pf_srf(anyelement), pf_tab(anyelement), pf_plsrf(anyarray);
CREATE FUNCTION pf_srf(x anyelement) RETURNS SETOF anyelement LANGUAGE sql AS $$ SELECT x UNION ALL SELECT x $$;
CREATE FUNCTION pf_tab(x anyelement) RETURNS TABLE(a anyelement, b anyarray, n int) LANGUAGE sql AS $$ SELECT x, ARRAY[x], 1 $$;
CREATE FUNCTION pf_plsrf(v anyarray) RETURNS SETOF anyelement LANGUAGE plpgsql AS $$ DECLARE e v%TYPE; BEGIN FOR i IN array_lower(v, 1) .. array_upper(v, 1) LOOP RETURN NEXT v[i]; END LOOP; END $$;
SELECT * FROM pf_srf(5);
SELECT * FROM pf_srf('t'::text);
SELECT * FROM pf_tab('q'::text);
SELECT * FROM pf_tab(2.5);
SELECT * FROM pf_plsrf(ARRAY[3, 1, 2]);
SELECT pf_plsrf(ARRAY['a', 'b']);
DROP FUNCTION pf_srf(anyelement), pf_tab(anyelement), pf_plsrf(anyarray);

-- name: pf_overloads
-- @errors
DROP FUNCTION IF EXISTS pf_o(anyelement, int), pf_o(int, int), pf_d(int, int), pf_d(text);
CREATE FUNCTION pf_o(anyelement, int) RETURNS text LANGUAGE sql AS 'SELECT ''poly''';
CREATE FUNCTION pf_o(int, int) RETURNS text LANGUAGE sql AS 'SELECT ''int''';
SELECT pf_o(1, 1), pf_o(1.5, 1), pf_o('x'::text, 1), pf_o(2::bigint, 1);
CREATE FUNCTION pf_d(a int DEFAULT 1.0, b int DEFAULT '-1') RETURNS int LANGUAGE sql AS 'SELECT a + b';
SELECT pf_d(), pf_d(5), pf_d(5, 5);
CREATE FUNCTION pf_d(text DEFAULT 'x') RETURNS text LANGUAGE sql AS 'SELECT $1';
SELECT pf_d();
SELECT pf_d('Hi');
SELECT pf_d(1);
DROP FUNCTION pf_o(anyelement, int), pf_o(int, int), pf_d(int, int), pf_d(text);

-- name: pf_variadic
-- @errors
DROP FUNCTION IF EXISTS pf_least(VARIADIC anyarray), pf_sum(VARIADIC int[]), pf_form(anyelement, VARIADIC anyarray), pf_vc(VARIADIC anycompatiblearray);
CREATE FUNCTION pf_least(VARIADIC anyarray) RETURNS anyelement LANGUAGE sql AS 'SELECT min($1[i]) FROM generate_subscripts($1, 1) g(i)';
CREATE FUNCTION pf_sum(VARIADIC a int[] DEFAULT '{}') RETURNS int LANGUAGE sql AS 'SELECT sum(x)::int FROM unnest(a) x';
CREATE FUNCTION pf_form(anyelement, VARIADIC anyarray) RETURNS anyarray LANGUAGE sql AS 'SELECT array_prepend($1, $2)';
CREATE FUNCTION pf_vc(VARIADIC anycompatiblearray) RETURNS anycompatiblearray LANGUAGE sql AS 'SELECT $1';
SELECT pf_least(10, 1, 20, 33), pf_least(1.1, 0.22, 0.55), pf_least('z'::text), pf_least(VARIADIC ARRAY[5, -1]);
SELECT pf_sum(), pf_sum(1), pf_sum(1, 2, 3), pf_sum(VARIADIC ARRAY[4, 5]), pf_sum(VARIADIC ARRAY[]::int[]);
SELECT pf_form(1, 2, 3), pf_form(1.1, VARIADIC ARRAY[1.2, 55.5]), pf_vc(1, 2.5), pf_vc(1, '2');
SELECT pf_least();
SELECT pf_form(1, 'x'::text);
SELECT proname, provariadic::regtype, pg_get_function_arguments(oid) FROM pg_proc WHERE proname LIKE 'pf\_%' ORDER BY 1;
DROP FUNCTION pf_least(VARIADIC anyarray), pf_sum(VARIADIC int[]), pf_form(anyelement, VARIADIC anyarray), pf_vc(VARIADIC anycompatiblearray);

-- name: pf_catalog_enum
-- @errors
DROP FUNCTION IF EXISTS pf_e(anyenum), pf_shape(anyelement, anyarray, OUT anyelement, OUT anyarray);
DROP TYPE IF EXISTS pf_mood;
CREATE TYPE pf_mood AS ENUM ('sad', 'ok', 'happy');
CREATE FUNCTION pf_e(x anyenum) RETURNS anyenum LANGUAGE sql AS 'SELECT x';
SELECT pf_e('ok'::pf_mood), pg_typeof(pf_e('happy'::pf_mood))::text;
SELECT pf_e(1);
CREATE FUNCTION pf_shape(a anyelement, b anyarray, OUT c anyelement, OUT d anyarray) LANGUAGE sql AS 'SELECT a, b';
SELECT * FROM pf_shape(1, ARRAY[2]);
SELECT p.proname, p.prorettype::regtype, p.proargtypes[0]::regtype AS arg1, pg_get_function_arguments(p.oid), pg_get_function_result(p.oid)
  FROM pg_proc p WHERE p.proname IN ('pf_e', 'pf_shape') ORDER BY 1;
CREATE OR REPLACE FUNCTION pf_e(y anyenum) RETURNS anyenum LANGUAGE sql AS 'SELECT y';
DROP FUNCTION pf_e(anyenum), pf_shape(anyelement, anyarray);
DROP TYPE pf_mood;

-- name: pf_pseudo_columns
-- @errors
DROP TABLE IF EXISTS pf_t;
DROP TYPE IF EXISTS pf_ct;
CREATE TABLE pf_t (a anyelement);
CREATE TABLE pf_t (a anycompatiblearray);
CREATE TYPE pf_ct AS (a anynonarray);
CREATE TABLE pf_t (a int);
ALTER TABLE pf_t ADD COLUMN b anyenum;
SELECT 1::anyelement AS x, pg_typeof(2.5::anycompatible), 'anynonarray'::regtype, 'anycompatiblemultirange'::regtype::oid;
DROP TABLE pf_t;

-- name: pf_plpgsql_variadic
DROP FUNCTION IF EXISTS pf_pv(VARIADIC anyarray), pf_pvi(text, VARIADIC int[]);
CREATE FUNCTION pf_pv(VARIADIC anyarray) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN array_length($1, 1); END $$;
CREATE FUNCTION pf_pvi(s text, VARIADIC v int[]) RETURNS text LANGUAGE plpgsql AS $$ BEGIN RETURN s || array_to_string(v, s); END $$;
SELECT pf_pv(1, 2, 3), pf_pv('a'::text), pf_pv(VARIADIC ARRAY[1, 2]), pf_pvi('-', 1, 2), pf_pvi('+', VARIADIC ARRAY[7, 8, 9]);
DROP FUNCTION pf_pv(VARIADIC anyarray), pf_pvi(text, VARIADIC int[]);
