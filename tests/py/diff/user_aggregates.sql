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

-- name: ua_window
-- User aggregates as window functions: frames that grow and frames that move (computed
-- afresh per row, as PostgreSQL does without moving-aggregate support), FILTER, a final
-- function, a strict PL/pgSQL transition function, a polymorphic state, over a grouped query.
DROP TABLE IF EXISTS ua_w;
DROP AGGREGATE IF EXISTS ua_wsum(int);
DROP AGGREGATE IF EXISTS ua_wcat(text);
DROP AGGREGATE IF EXISTS ua_wacc(anycompatible);
DROP FUNCTION IF EXISTS ua_waddit(int, int);
DROP FUNCTION IF EXISTS ua_wcatf(text, text);
DROP FUNCTION IF EXISTS ua_wfin(text);
CREATE TABLE ua_w (g int, x int, s text);
INSERT INTO ua_w VALUES (1, 1, 'a'), (1, 2, 'b'), (1, 3, NULL), (2, 4, 'd'), (2, NULL, 'e'), (3, 6, 'f');
CREATE FUNCTION ua_waddit(int, int) RETURNS int LANGUAGE sql AS 'select $1 + $2';
CREATE FUNCTION ua_wcatf(text, text) RETURNS text LANGUAGE plpgsql STRICT AS $$ BEGIN RETURN $1 || ',' || $2; END $$;
CREATE FUNCTION ua_wfin(text) RETURNS text LANGUAGE sql AS 'select ''['' || $1 || '']''';
CREATE AGGREGATE ua_wsum(int) (sfunc = ua_waddit, stype = int, initcond = '0');
CREATE AGGREGATE ua_wcat(text) (sfunc = ua_wcatf, stype = text, finalfunc = ua_wfin);
CREATE AGGREGATE ua_wacc(anycompatible) (sfunc = array_append, stype = anycompatiblearray, initcond = '{}');
SELECT x, ua_wsum(x) OVER (ORDER BY x) FROM generate_series(1, 3) x;
SELECT g, x, ua_wsum(x) OVER (PARTITION BY g ORDER BY x), ua_wcat(s) OVER (PARTITION BY g ORDER BY x) FROM ua_w ORDER BY g, x;
SELECT g, x, ua_wsum(x) OVER (ORDER BY g, x ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM ua_w ORDER BY g, x;
SELECT g, x, ua_wcat(s) OVER (ORDER BY g, x ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM ua_w ORDER BY g, x;
SELECT g, x, ua_wsum(x) FILTER (WHERE x % 2 = 0) OVER (PARTITION BY g) FROM ua_w ORDER BY g, x;
SELECT g, ua_wacc(x) OVER (PARTITION BY g ORDER BY x ROWS UNBOUNDED PRECEDING) FROM ua_w ORDER BY g, x;
SELECT g, sum(x), ua_wsum(sum(x)::int) OVER (ORDER BY g) FROM ua_w GROUP BY g ORDER BY g;
SELECT x, ua_wsum(x) OVER w, count(*) OVER w FROM generate_series(1, 4) x WINDOW w AS (ORDER BY x ROWS 2 PRECEDING);
DROP AGGREGATE ua_wsum(int);
DROP AGGREGATE ua_wcat(text);
DROP AGGREGATE ua_wacc(anycompatible);
DROP FUNCTION ua_waddit(int, int);
DROP FUNCTION ua_wcatf(text, text);
DROP FUNCTION ua_wfin(text);
DROP TABLE ua_w;

-- name: ua_window_errors
-- @errors
DROP AGGREGATE IF EXISTS ua_we(int);
DROP FUNCTION IF EXISTS ua_wef(int, int);
CREATE FUNCTION ua_wef(int, int) RETURNS int LANGUAGE sql AS 'select $1 + $2';
CREATE AGGREGATE ua_we(int) (sfunc = ua_wef, stype = int, initcond = '0');
SELECT ua_we(DISTINCT x) OVER () FROM generate_series(1, 2) x;
SELECT ua_we(x ORDER BY x) OVER () FROM generate_series(1, 2) x;
SELECT ua_wef(x, 1) OVER () FROM generate_series(1, 2) x;
SELECT ua_we_nosuch(x) OVER () FROM generate_series(1, 2) x;
SELECT ua_we(x, x) OVER () FROM generate_series(1, 2) x;
SELECT ua_we(x) OVER (ORDER BY ua_we(x) OVER ()) FROM generate_series(1, 2) x;
DROP AGGREGATE ua_we(int);
DROP FUNCTION ua_wef(int, int);

-- name: ua_pg_aggregate
-- pg_aggregate: user aggregates' rows (support functions as regproc names) and PostgreSQL's
-- rows for built-in ones; 'name'::regproc of a user function.
DROP AGGREGATE IF EXISTS ua_pa(int);
DROP AGGREGATE IF EXISTS ua_pb(text);
DROP FUNCTION IF EXISTS ua_paf(int, int);
DROP FUNCTION IF EXISTS ua_pbf(text);
CREATE FUNCTION ua_paf(int, int) RETURNS int LANGUAGE sql AS 'select $1 + $2';
CREATE FUNCTION ua_pbf(text) RETURNS text LANGUAGE sql AS 'select upper($1)';
CREATE AGGREGATE ua_pa(int) (sfunc = ua_paf, stype = int, initcond = '0');
CREATE AGGREGATE ua_pb(text) (sfunc = textcat, stype = text, finalfunc = ua_pbf, initcond = '');
SELECT aggfnoid::text, aggkind, aggnumdirectargs, aggtransfn::text, aggfinalfn::text, aggcombinefn::text, aggmtransfn::text, aggfinalextra, aggfinalmodify, aggsortop, aggtranstype::regtype::text, aggtransspace, agginitval, aggminitval FROM pg_aggregate WHERE aggfnoid IN ('ua_pa'::regproc, 'ua_pb'::regproc) ORDER BY aggfnoid::oid;
SELECT p.proname, a.aggkind, a.aggtransfn = t.oid AS trans_is_proc, t.proname FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid JOIN pg_proc t ON t.oid = a.aggtransfn WHERE p.proname = 'ua_pa' ORDER BY 1;
SELECT aggfnoid, aggkind, aggnumdirectargs, aggtransfn, aggfinalfn, aggcombinefn, aggserialfn, aggdeserialfn, aggmtransfn, aggminvtransfn, aggmfinalfn, aggfinalextra, aggmfinalextra, aggfinalmodify, aggmfinalmodify, aggsortop, aggtranstype, aggtransspace, aggmtranstype, aggmtransspace, agginitval, aggminitval FROM pg_aggregate WHERE aggfnoid::oid IN (2100, 2101, 2108, 2116, 2147, 2803, 3972, 3974, 3986, 2335, 2517) ORDER BY aggfnoid::oid;
SELECT p.proname, a.aggkind, count(*) FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid WHERE p.proname IN ('avg', 'count', 'array_agg', 'string_agg', 'stddev', 'corr', 'percentile_disc', 'mode', 'rank', 'bool_and', 'json_agg') GROUP BY 1, 2 ORDER BY 1;
SELECT 'ua_pa'::regproc::text, 'ua_pa'::regproc::oid = (SELECT oid FROM pg_proc WHERE proname = 'ua_pa');
DROP AGGREGATE ua_pa(int);
DROP AGGREGATE ua_pb(text);
DROP FUNCTION ua_paf(int, int);
DROP FUNCTION ua_pbf(text);

-- name: ua_moving_and_clauses
-- @errors
-- Moving-aggregate clauses (checked, kept in pg_aggregate, results computed afresh per
-- frame), COMBINEFUNC / FINALFUNC_MODIFY kept, PARALLEL's values, clause names as written
-- (a quoted "Sfunc" is not sfunc) and CREATE OR REPLACE over a function.
DROP AGGREGATE IF EXISTS ua_msum(int4);
DROP AGGREGATE IF EXISTS ua_bad(int4);
DROP FUNCTION IF EXISTS ua_minus(int4, int4);
DROP FUNCTION IF EXISTS ua_minus_ns(int4, int4);
DROP FUNCTION IF EXISTS ua_minus_int(int4, int4);
DROP FUNCTION IF EXISTS ua_fn1(int4);
CREATE FUNCTION ua_minus(int4, int4) RETURNS int4 LANGUAGE sql STRICT AS 'select $1 - $2';
CREATE FUNCTION ua_minus_ns(int4, int4) RETURNS int4 LANGUAGE sql AS 'select $1 - $2';
CREATE FUNCTION ua_minus_int(int4, int4) RETURNS int8 LANGUAGE sql STRICT AS 'select ($1 - $2)::int8';
CREATE FUNCTION ua_fn1(int4) RETURNS int4 LANGUAGE sql AS 'select $1';
CREATE AGGREGATE ua_msum(int4) (sfunc = int4pl, stype = int4, mstype = int4, msfunc = int4pl, minvfunc = ua_minus, combinefunc = int4pl, finalfunc_modify = read_write, parallel = safe);
SELECT x, ua_msum(x) OVER (ORDER BY x ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM generate_series(1, 4) x;
SELECT aggfnoid::text, aggtransfn::text, aggcombinefn::text, aggmtransfn::text, aggminvtransfn::text, aggmtranstype::regtype::text, aggfinalmodify, aggmfinalmodify FROM pg_aggregate WHERE aggfnoid = 'ua_msum'::regproc;
SELECT proparallel FROM pg_proc WHERE proname = 'ua_msum';
CREATE AGGREGATE ua_bad(int4) (sfunc = int4pl, stype = int4, mstype = int4, msfunc = int4pl);
CREATE AGGREGATE ua_bad(int4) (sfunc = int4pl, stype = int4, mstype = int4, minvfunc = ua_minus);
CREATE AGGREGATE ua_bad(int4) (sfunc = int4pl, stype = int4, msfunc = int4pl);
CREATE AGGREGATE ua_bad(int4) (sfunc = int4pl, stype = int4, minitcond = '0');
CREATE AGGREGATE ua_bad(int4) (sfunc = int4pl, stype = int4, mstype = int4, msfunc = int4pl, minvfunc = ua_minus_ns);
CREATE AGGREGATE ua_bad(int4) (sfunc = int4pl, stype = int4, mstype = int4, msfunc = int4pl, minvfunc = ua_minus_int);
CREATE AGGREGATE ua_bad(int4) (sfunc = int4pl, stype = int4, mstype = int4, msfunc = ua_nosuch, minvfunc = ua_minus);
CREATE AGGREGATE ua_bad(int4) (sfunc = int4pl, stype = int4, serialfunc = int4pl);
CREATE AGGREGATE ua_bad(int4) (sfunc = int4pl, stype = int4, finalfunc_modify = sometimes);
CREATE AGGREGATE ua_bad(int4) (sfunc = int4pl, stype = int4, parallel = pear);
CREATE AGGREGATE ua_bad(int4) ("Sfunc" = int4pl, "Stype" = int4);
CREATE AGGREGATE ua_bad(int4) (sfunc = int4pl, stype = int4, "Parallel" = safe);
SELECT ua_bad(x) FROM generate_series(1, 3) x;
CREATE OR REPLACE AGGREGATE ua_fn1(int4) (sfunc = int4pl, stype = int4);
DROP AGGREGATE ua_msum(int4);
DROP AGGREGATE ua_bad(int4);
DROP FUNCTION ua_minus(int4, int4);
DROP FUNCTION ua_minus_ns(int4, int4);
DROP FUNCTION ua_minus_int(int4, int4);
DROP FUNCTION ua_fn1(int4);
