-- Differential SQL cases: errors (SQLSTATE, message, position, detail, hint).

-- name: err_syntax
-- @errors
SELEC 1;
SELECT 1 +;
SELECT (1;
SELECT 'abc;
SELECT * FROM;
SELECT 1 2;
SELECT 1 FROM generate_series(1, 2) x WHERE;
  SELECT   1   FROM   nowhere   WHERE   x ==== 1;
SELECT "";
SELECT $1x;
SELECT 1 AS select;
selECT 1 frOM;

-- name: err_syntax_multiline
-- @errors
SELECT 1,
       2,
       3 +
FROM x;

-- name: err_undefined_function
-- @errors
SELECT nosuchfunc(1);
SELECT length(1, 2, 3);
SELECT upper();
SELECT pg_catalog.nosuch();
SELECT sum('a');
SELECT abs('x'::text);
SELECT generate_series('a', 'b');
SELECT 1 + nosuchfunc(x) FROM generate_series(1, 2) x;

-- name: err_undefined_operator
-- @errors
SELECT 'a'::text + 1;
SELECT true + 1;
SELECT 1 ~~~ 2;
SELECT ARRAY[1] + ARRAY[2];
SELECT now() * 2;

-- name: err_undefined_type
-- @errors
SELECT 1::nosuchtype;
SELECT CAST(1 AS nosuchtype);
SELECT '1'::pg_catalog.nope;
SELECT 1::int9;
SELECT ARRAY[1]::nosuch[];
SELECT 1::foo.bar;

-- name: err_division_by_zero
-- @errors
SELECT 1 / 0;
SELECT 1.0 / 0;
SELECT 1 % 0;
SELECT 1::float8 / 0;
SELECT 1::int8 / 0::int8;
SELECT 5 / (2 - 2);
SELECT mod(1, 0);
SELECT 1::numeric % 0;
SELECT div(1, 0);

-- name: err_error_after_rows
-- @errors
SELECT 1 / (x - 3) FROM generate_series(1, 5) x;
SELECT 10 / x FROM (VALUES (5), (2), (0), (1)) t(x);

-- name: err_invalid_input
-- @errors
SELECT 'abc'::int;
SELECT ''::int;
SELECT '1.5'::int;
SELECT '2024-13-01'::date;
SELECT '2024-02-30'::date;
SELECT 'x'::bool;
SELECT 'abc'::numeric;
SELECT '1 fortnight'::interval;
SELECT 'garbage'::timestamp;
SELECT '\xzz'::bytea;
SELECT '{1,2'::int[];
SELECT 'abc'::float8;
SELECT '99999999999'::int4;
SELECT 'nosuch'::regtype;
SELECT 'x'::oid;

-- name: err_out_of_range
-- @errors
SELECT 2147483647::int4 + 1;
SELECT 32768::int2;
SELECT 9223372036854775807 + 1;
SELECT (-2147483648)::int4 * -1;
SELECT 1e300::float8 * 1e300;
SELECT 1e20::float8::int8;
SELECT 123.45::numeric(4, 2);
SELECT 'abcd'::varchar(2) || '';
SELECT (-32768)::int2 / (-1)::int2;
SELECT 10::numeric ^ 1000000;
SELECT make_date(2024, 2, 30);

-- name: err_undefined_column_table
-- @errors
SELECT nosuchcol;
SELECT x FROM (VALUES (1)) t(y);
SELECT * FROM nosuchtable;
SELECT t.x;
SELECT "X" FROM (VALUES (1)) t(x);
SELECT * FROM public.nosuchtable;
SELECT a.b.c.d;

-- name: err_grouping
-- @errors
SELECT x, count(*) FROM generate_series(1, 3) x;
SELECT count(*) FROM generate_series(1, 3) x WHERE count(*) > 1;
SELECT sum(count(*)) FROM generate_series(1, 3);
SELECT x FROM generate_series(1, 3) x GROUP BY 2;
SELECT x FROM generate_series(1, 3) x ORDER BY 5;

-- name: err_misc_semantic
-- @errors
SELECT 1 UNION SELECT 'a';
SELECT 1, 2 UNION SELECT 1;
SELECT * FROM (SELECT 1) AS s(a, b);
SELECT (SELECT x FROM generate_series(1, 2) x);
SELECT x FROM (VALUES (1)) a(x), (VALUES (2)) b(x);
SELECT ARRAY[1, 'a'];
SELECT CASE WHEN true THEN 1 ELSE 'a' END;
SELECT 1 LIMIT -1;
SELECT 1 OFFSET -1;
SELECT 'a' LIMIT 'x';
SELECT * FROM generate_series(1, 3, 0);
SELECT * FROM generate_series(1::int2, 2::int2);

-- name: err_then_success
-- @errors
SELECT 1 / 0;
SELECT 'still works' AS msg;
SELEC;
SELECT 2;

-- name: err_cast_position
-- @errors
SELECT 1::inet;
SELECT 1.5::date;
SELECT CAST(1 AS inet);
SELECT true::int8;
SELECT '1'::int4::inet;
SELECT 'x'::inet;
SELECT (1 + 2)::bytea;
