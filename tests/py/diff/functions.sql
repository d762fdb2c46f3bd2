-- Differential SQL cases: user-defined functions (issue 32): CREATE [OR REPLACE] FUNCTION and
-- PROCEDURE in LANGUAGE sql, calls with positional, named and default arguments, STRICT,
-- overloads, bodies that read and write tables, pg_proc and the pg_get_function* texts, DROP,
-- and the errors PostgreSQL gives. Functions and tables are named fn_...

-- name: fn_scalar_calls
DROP FUNCTION IF EXISTS fn_add1(int), fn_add(int, int), fn_cat(text, text);
CREATE FUNCTION fn_add1(int) RETURNS int LANGUAGE sql AS 'SELECT $1 + 1';
CREATE FUNCTION fn_add(a int, b int DEFAULT 10) RETURNS int LANGUAGE sql IMMUTABLE STRICT RETURN a + b;
CREATE FUNCTION fn_cat(x text, y text DEFAULT '!') RETURNS text LANGUAGE sql AS $$ SELECT x || y $$;
SELECT fn_add1(41), fn_add1(NULL), fn_add(1), fn_add(1, 2), fn_add(b => 5, a => 1), fn_add(2, b => 3), fn_add(NULL, 1);
SELECT fn_cat('a'), fn_cat('a', 'b'), fn_cat(y => 'y', x => 'x'), fn_add1(fn_add(1)) AS nested;
SELECT g, fn_add(g, g) FROM generate_series(1, 3) g WHERE fn_add1(g) > 2 ORDER BY 1;
SELECT fn_add1('5'), fn_add1(2::smallint), public.fn_add1(1);
DROP FUNCTION fn_add1(int), fn_add(int, int), fn_cat(text, text);

-- name: fn_catalog_texts
DROP FUNCTION IF EXISTS fn_meta(int, text), fn_void();
CREATE FUNCTION fn_meta(n int, t text DEFAULT 'x') RETURNS text LANGUAGE sql STABLE STRICT AS 'SELECT repeat(t, n)';
CREATE FUNCTION fn_void() RETURNS void LANGUAGE sql AS 'SELECT 1';
SELECT proname, prokind, provolatile, proisstrict, proretset, pronargs, pronargdefaults, prorettype::regtype, proargnames, prosrc, prolang = (SELECT oid FROM pg_language WHERE lanname = 'sql') AS is_sql FROM pg_proc WHERE proname IN ('fn_meta', 'fn_void') ORDER BY proname;
SELECT pg_get_function_arguments(oid), pg_get_function_identity_arguments(oid), pg_get_function_result(oid) FROM pg_proc WHERE proname IN ('fn_meta', 'fn_void') ORDER BY proname;
SELECT pg_get_functiondef(oid) FROM pg_proc WHERE proname = 'fn_meta';
SELECT pg_get_functiondef(oid) FROM pg_proc WHERE proname = 'fn_void';
SELECT fn_void(), fn_meta(3), fn_meta(2, 'ab');
DROP FUNCTION fn_meta, fn_void;

-- name: fn_bodies_read_and_write_tables
DROP TABLE IF EXISTS fn_t;
CREATE TABLE fn_t (x int PRIMARY KEY, y text);
INSERT INTO fn_t VALUES (1, 'a'), (2, 'b');
CREATE FUNCTION fn_count() RETURNS bigint LANGUAGE sql STABLE AS 'SELECT count(*) FROM fn_t';
CREATE FUNCTION fn_name(x int) RETURNS text LANGUAGE sql AS $$ SELECT y FROM fn_t WHERE fn_t.x = fn_name.x $$;
CREATE FUNCTION fn_ins(v int) RETURNS int LANGUAGE sql AS $$ INSERT INTO fn_t VALUES (v, 'ins'); SELECT count(*)::int FROM fn_t $$;
CREATE FUNCTION fn_ret(v int) RETURNS text LANGUAGE sql AS $$ UPDATE fn_t SET y = y || '+' WHERE x = v RETURNING y $$;
CREATE FUNCTION fn_touch() RETURNS void LANGUAGE sql AS $$ UPDATE fn_t SET y = upper(y) WHERE x = 1 $$;
SELECT fn_count(), fn_name(2), fn_name(3);
SELECT fn_ins(5);
SELECT fn_ret(2), fn_ret(99);
SELECT fn_touch();
SELECT * FROM fn_t ORDER BY x;
SELECT x FROM fn_t WHERE fn_name(x) = 'b';
BEGIN;
SELECT fn_ins(6);
ROLLBACK;
SELECT fn_count();
DROP FUNCTION fn_count(), fn_name(int), fn_ins(int), fn_ret(int), fn_touch();
DROP TABLE fn_t;

-- name: fn_overloads_and_replace
DROP FUNCTION IF EXISTS fn_o(int), fn_o(text), fn_o(int, int);
CREATE FUNCTION fn_o(int) RETURNS text LANGUAGE sql AS $$ SELECT 'int' $$;
CREATE FUNCTION fn_o(text) RETURNS text LANGUAGE sql AS $$ SELECT 'text' $$;
CREATE FUNCTION fn_o(int, int) RETURNS text LANGUAGE sql AS $$ SELECT 'two' $$;
SELECT fn_o(1), fn_o('x'::text), fn_o(1, 2), fn_o(2::bigint::int);
CREATE OR REPLACE FUNCTION fn_o(int) RETURNS text LANGUAGE sql AS $$ SELECT 'int again' $$;
SELECT fn_o(1), count(*) FROM pg_proc WHERE proname = 'fn_o';
DROP FUNCTION fn_o(int);
SELECT fn_o(1, 2), count(*) FROM pg_proc WHERE proname = 'fn_o';
DROP FUNCTION fn_o(text), fn_o(int, int);

-- name: fn_transactional_ddl
DROP FUNCTION IF EXISTS fn_tx();
BEGIN;
CREATE FUNCTION fn_tx() RETURNS int LANGUAGE sql AS 'SELECT 1';
SELECT fn_tx();
ROLLBACK;
SELECT count(*) FROM pg_proc WHERE proname = 'fn_tx';
CREATE FUNCTION fn_tx() RETURNS int LANGUAGE sql AS 'SELECT 1';
BEGIN;
DROP FUNCTION fn_tx();
SELECT count(*) FROM pg_proc WHERE proname = 'fn_tx';
ROLLBACK;
SELECT fn_tx();
BEGIN;
CREATE OR REPLACE FUNCTION fn_tx() RETURNS int LANGUAGE sql AS 'SELECT 2';
SELECT fn_tx();
ROLLBACK;
SELECT fn_tx();
DROP FUNCTION fn_tx();

-- name: fn_check_function_bodies_off
DROP FUNCTION IF EXISTS fn_later();
DROP TABLE IF EXISTS fn_later_t;
SET check_function_bodies = off;
CREATE FUNCTION fn_later() RETURNS int LANGUAGE sql AS 'SELECT max(a) FROM fn_later_t';
RESET check_function_bodies;
CREATE TABLE fn_later_t (a int);
INSERT INTO fn_later_t VALUES (3), (7);
SELECT fn_later();
DROP FUNCTION fn_later();
DROP TABLE fn_later_t;

-- name: fn_definition_errors
-- @errors
DROP FUNCTION IF EXISTS fn_e(int);
CREATE FUNCTION fn_e(int) RETURNS int LANGUAGE sql AS 'SELECT $1';
CREATE FUNCTION fn_e(int) RETURNS int LANGUAGE sql AS 'SELECT $1';
CREATE OR REPLACE FUNCTION fn_e(int) RETURNS text LANGUAGE sql AS 'SELECT $1::text';
CREATE FUNCTION fn_bad() RETURNS int LANGUAGE sql AS $$ SELECT 'a'::text $$;
CREATE FUNCTION fn_bad() RETURNS int LANGUAGE sql AS $$ SELECT 1, 2 $$;
CREATE FUNCTION fn_bad() RETURNS int LANGUAGE sql AS $$ CREATE TABLE fn_nope (a int) $$;
CREATE FUNCTION fn_bad() RETURNS int AS 'SELECT 1';
CREATE FUNCTION fn_bad() RETURNS int LANGUAGE nosuchlang AS 'SELECT 1';
CREATE FUNCTION fn_bad() RETURNS trigger LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION fn_bad(a int DEFAULT 1, b int) RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION fn_bad(a int, a int) RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION fn_bad(a int DEFAULT 'x') RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE FUNCTION fn_bad() RETURNS int LANGUAGE sql STRICT IMMUTABLE STRICT AS 'SELECT 1';
SELECT fn_e(1, 2);
SELECT fn_e(b => 1);
DROP FUNCTION fn_nosuch(int);
DROP FUNCTION fn_nosuch;
DROP FUNCTION IF EXISTS fn_nosuch;
DROP FUNCTION IF EXISTS fn_nosuch(text);
DROP PROCEDURE fn_e(int);
DROP FUNCTION fn_e(int);

-- name: fn_procedures
-- @errors
DROP PROCEDURE IF EXISTS fn_p(int);
CREATE PROCEDURE fn_p(n int) LANGUAGE sql AS 'SELECT n';
SELECT proname, prokind, prorettype::regtype, pg_get_function_result(oid) IS NULL AS no_result FROM pg_proc WHERE proname = 'fn_p';
SELECT fn_p(1);
DROP FUNCTION fn_p(int);
DROP ROUTINE fn_p(int);
SELECT count(*) FROM pg_proc WHERE proname = 'fn_p';

-- name: fn_sql_composite_result_and_call
-- A SQL function returning a table's or composite type's row from the final statement's
-- columns (one per field, assigned to the fields' types), its errors, and CALL in a body.
-- @errors
DROP TABLE IF EXISTS fn_cr CASCADE;
CREATE TABLE fn_cr (a int, b text);
CREATE FUNCTION fn_cr_rows(i int) RETURNS SETOF fn_cr LANGUAGE sql AS $$ SELECT i, 'z'::text UNION ALL SELECT i + 1, 'w' $$;
SELECT * FROM fn_cr_rows(1);
CREATE FUNCTION fn_cr_one(i int) RETURNS fn_cr LANGUAGE sql AS $$ SELECT i * 2, 'v' || i $$;
SELECT fn_cr_one(3), (fn_cr_one(4)).b;
SELECT * FROM fn_cr_one(5);
CREATE TYPE fn_cr_t AS (n numeric(5,1), s varchar(3));
CREATE FUNCTION fn_cr_typed() RETURNS fn_cr_t LANGUAGE sql AS $$ SELECT 1.26, 'abc' $$;
SELECT fn_cr_typed();
CREATE FUNCTION fn_cr_many() RETURNS fn_cr LANGUAGE sql AS $$ SELECT 1, 'a', 2 $$;
CREATE FUNCTION fn_cr_few() RETURNS fn_cr LANGUAGE sql AS $$ SELECT 1 $$;
CREATE FUNCTION fn_cr_wrong() RETURNS fn_cr LANGUAGE sql AS $$ SELECT 'x'::text, 'y'::text $$;
CREATE PROCEDURE fn_cr_p(v int) LANGUAGE sql AS $$ INSERT INTO fn_cr VALUES (v, 'from procedure') $$;
CREATE FUNCTION fn_cr_calls(v int) RETURNS bigint LANGUAGE sql AS $$ CALL fn_cr_p(v); SELECT count(*) FROM fn_cr $$;
SELECT fn_cr_calls(7);
SELECT * FROM fn_cr ORDER BY a;
CREATE FUNCTION fn_cr_ends_in_call() RETURNS int LANGUAGE sql AS $$ CALL fn_cr_p(1) $$;
DROP FUNCTION fn_cr_rows(int), fn_cr_one(int), fn_cr_typed(), fn_cr_calls(int);
DROP PROCEDURE fn_cr_p(int);
DROP TYPE fn_cr_t;
DROP TABLE fn_cr;
