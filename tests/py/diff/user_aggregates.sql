-- Differential SQL cases: CREATE AGGREGATE (issue 32): the new and old syntaxes, state and
-- final functions that are built-ins, SQL or PL/pgSQL functions, strict transition
-- functions and a missing INITCOND, GROUP BY, no rows, DISTINCT and ORDER BY in the call,
-- polymorphic aggregates, DROP AGGREGATE and PostgreSQL's errors. Objects are named ua_...

-- name: ua_builtin_sfunc
DROP TABLE IF EXISTS ua_t;
DROP AGGREGATE IF EXISTS ua_sum(int4);
DROP AGGREGATE IF EXISTS ua_sum0(int4);
DROP AGGREGATE IF EXISTS ua_max(int4);
CREATE TABLE ua_t (g int, x int);
INSERT INTO ua_t VALUES (1, 1), (1, 2), (2, 3), (2, NULL), (3, NULL);
CREATE AGGREGATE ua_sum(int4) (SFUNC = int4pl, STYPE = int4);
CREATE AGGREGATE ua_sum0(int4) (sfunc = int4pl, stype = int4, initcond = '0');
CREATE AGGREGATE ua_max(int4) (sfunc = int4larger, stype = int4);
SELECT g, ua_sum(x), ua_sum0(x), ua_max(x) FROM ua_t GROUP BY g ORDER BY g;
SELECT ua_sum(x), ua_sum0(x), ua_max(x) FROM ua_t WHERE false;
SELECT ua_sum(DISTINCT g), ua_sum0(x) FILTER (WHERE g > 1) FROM ua_t;
DROP AGGREGATE ua_sum(int4);
DROP AGGREGATE ua_sum0(int4);
DROP AGGREGATE ua_max(int4);
DROP TABLE ua_t;

-- name: ua_user_functions
DROP TABLE IF EXISTS ua_t2;
DROP AGGREGATE IF EXISTS ua_cnt(int);
DROP AGGREGATE IF EXISTS ua_join(int4);
DROP AGGREGATE IF EXISTS ua_acc(int4);
DROP FUNCTION IF EXISTS ua_add(int, int);
DROP FUNCTION IF EXISTS ua_fin(int[]);
CREATE TABLE ua_t2 (g int, x int);
INSERT INTO ua_t2 VALUES (1, 1), (1, 2), (2, 3), (2, NULL), (3, NULL);
CREATE FUNCTION ua_add(int, int) RETURNS int LANGUAGE sql AS 'SELECT $1 + coalesce($2, 0) + 1';
CREATE FUNCTION ua_fin(int[]) RETURNS text LANGUAGE plpgsql AS $$ BEGIN RETURN array_to_string($1, '-'); END $$;
CREATE AGGREGATE ua_cnt(int) (sfunc = ua_add, stype = int, initcond = 0);
CREATE AGGREGATE ua_join(int4) (sfunc = array_append, stype = int4[], initcond = '{}', finalfunc = ua_fin);
CREATE AGGREGATE ua_acc(basetype = int4, sfunc = array_append, stype = int4[], initcond = '{}');
SELECT g, ua_cnt(x), ua_join(x), ua_acc(x ORDER BY x DESC) FROM ua_t2 GROUP BY g ORDER BY g;
SELECT ua_acc(DISTINCT g), ua_join(x ORDER BY x) FROM ua_t2;
SELECT ua_cnt(x) FROM ua_t2 WHERE false;
CREATE OR REPLACE AGGREGATE ua_cnt(int) (sfunc = ua_add, stype = int, initcond = 100);
SELECT ua_cnt(x) FROM ua_t2;
DROP AGGREGATE ua_cnt(int);
DROP AGGREGATE ua_join(int4);
DROP AGGREGATE ua_acc(int4);
DROP FUNCTION ua_add(int, int);
DROP FUNCTION ua_fin(int[]);
DROP TABLE ua_t2;

-- name: ua_polymorphic
DROP AGGREGATE IF EXISTS ua_accum(anycompatible);
DROP AGGREGATE IF EXISTS ua_accum2(anyelement);
DROP FUNCTION IF EXISTS ua_app(anyarray, anyelement);
CREATE FUNCTION ua_app(anyarray, anyelement) RETURNS anyarray LANGUAGE sql AS 'SELECT $1 || $2';
CREATE AGGREGATE ua_accum(anycompatible) (sfunc = array_append, stype = anycompatiblearray, initcond = '{}');
CREATE AGGREGATE ua_accum2(anyelement) (sfunc = ua_app, stype = anyarray, initcond = '{}');
SELECT ua_accum(x), ua_accum(x::text), ua_accum2(x * 1.5) FROM generate_series(1, 3) x;
SELECT pg_typeof(ua_accum(x)), pg_typeof(ua_accum2(x::float8)) FROM generate_series(1, 2) x;
DROP AGGREGATE ua_accum(anycompatible);
DROP AGGREGATE ua_accum2(anyelement);
DROP FUNCTION ua_app(anyarray, anyelement);

-- name: ua_errors
-- @errors
DROP AGGREGATE IF EXISTS ua_e(int4);
DROP FUNCTION IF EXISTS ua_f(int4, int4);
CREATE AGGREGATE ua_e(int4) (sfunc = int4pl);
CREATE AGGREGATE ua_e(int4) (stype = int4);
CREATE AGGREGATE ua_e(int4) (sfunc = ua_nosuch, stype = int4);
CREATE AGGREGATE ua_e(text) (sfunc = int4pl, stype = int4);
CREATE AGGREGATE ua_e(basetype = int4, sfunc = int4pl);
CREATE AGGREGATE ua_e(int4) (sfunc = int4pl, stype = int4);
CREATE AGGREGATE ua_e(int4) (sfunc = int4pl, stype = int4);
SELECT ua_e('x'::text);
DROP FUNCTION ua_e(int4);
DROP AGGREGATE ua_e(int4);
DROP AGGREGATE ua_e(int4);
DROP AGGREGATE IF EXISTS ua_e(int4);
CREATE FUNCTION ua_f(int4, int4) RETURNS int4 LANGUAGE sql AS 'SELECT $1 + $2';
DROP AGGREGATE ua_f(int4, int4);
DROP FUNCTION ua_f(int4, int4);

-- name: ua_catalog
DROP AGGREGATE IF EXISTS ua_p(int8);
CREATE AGGREGATE ua_p(int8) (sfunc = int8pl, stype = int8, initcond = '0', parallel = safe);
SELECT proname, prokind, prosrc, prorettype::regtype, proargtypes[0]::regtype, pronargs FROM pg_proc WHERE proname = 'ua_p';
SELECT ua_p(x) FROM generate_series(1, 10) x;
DROP AGGREGATE ua_p(int8);

-- name: ua_transition_type_errors
-- @errors
CREATE AGGREGATE ua_bad(int4) (sfunc = ua_nosuch, stype = anyarray);
CREATE AGGREGATE ua_bad(int4) (sfunc = int4pl, stype = void);
