-- Differential SQL cases: PL/pgSQL (issue 32): DO blocks and LANGUAGE plpgsql functions,
-- variables and their scopes, IF / CASE / LOOP / WHILE / FOR / FOREACH, EXIT and CONTINUE
-- with labels, SELECT INTO [STRICT], FOUND and GET DIAGNOSTICS, PERFORM, EXECUTE ... USING,
-- RAISE at every level and with its options, exception blocks that undo their writes, and
-- the errors PostgreSQL gives. A body's inner lines do not end with ';' (the file format
-- ends a message there). Tables and functions are named pl_...

-- name: pl_do_notices_and_loops
DO $$ BEGIN RAISE NOTICE 'hello %, %% %', 1 + 1, 'x'; END $$;
DO $$ DECLARE s text := ''; BEGIN FOR i IN 1..5 LOOP s := s || i; END LOOP; RAISE NOTICE 's=%', s; END $$;
DO $$ DECLARE s text := ''; BEGIN FOR i IN REVERSE 10..1 BY 3 LOOP s := s || i || ','; END LOOP; RAISE NOTICE 's=%', s; END $$;
DO $$ DECLARE n int := 0; BEGIN WHILE n < 7 LOOP n := n + 2; END LOOP; RAISE NOTICE 'n=%', n; END $$;
DO $$ DECLARE n int := 0; BEGIN LOOP n := n + 1; EXIT WHEN n >= 4; END LOOP; RAISE NOTICE 'n=%', n; END $$;
DO $$ DECLARE s int := 0; BEGIN FOR i IN 1..10 LOOP CONTINUE WHEN i % 2 = 0; s := s + i; END LOOP; RAISE NOTICE 'odd sum=%', s; END $$;
DO $$ DECLARE s text := ''; BEGIN <<outer>> FOR i IN 1..3 LOOP FOR j IN 1..3 LOOP CONTINUE outer WHEN j > i; EXIT outer WHEN i = 3; s := s || i || j || ' '; END LOOP; END LOOP; RAISE NOTICE '%', s; END $$;
DO $$ DECLARE a int[] := ARRAY[3, 4, 5]; x int; t int := 0; BEGIN FOREACH x IN ARRAY a LOOP t := t + x * x; END LOOP; RAISE NOTICE 't=%', t; END $$;
DO $$ BEGIN FOR i IN 1..0 LOOP RAISE NOTICE 'never'; END LOOP; RAISE NOTICE 'found=%', found; END $$;

-- name: pl_variables_and_scopes
DO $$ DECLARE x int := 1; y CONSTANT text := 'c'; z numeric NOT NULL := 2.5; BEGIN DECLARE x int := 10; BEGIN RAISE NOTICE 'inner x=% y=% z=%', x, y, z; END; RAISE NOTICE 'outer x=%', x; END $$;
DO $$ <<blk>> DECLARE x int := 1; BEGIN DECLARE x int := 2; BEGIN RAISE NOTICE 'x=% blk.x=%', x, blk.x; END; END $$;
DO $$ DECLARE a int; b text; c bool; d date := '2024-02-29'; BEGIN RAISE NOTICE '% % % %', a, b, c, d + 1; END $$;
DO $$ DECLARE x int; BEGIN x := '42'; x := x * 2.6; RAISE NOTICE 'x=%', x; END $$;
DO $$ DECLARE s varchar := 'abc'; n bigint := 9000000000; BEGIN s := upper(s) || n; RAISE NOTICE '%', s; END $$;
DO $$ DECLARE i int := 0; BEGIN FOR i IN 1..2 LOOP NULL; END LOOP; RAISE NOTICE 'i after loop=%', i; END $$;

-- name: pl_case_and_if
DO $$ DECLARE x int := 5; BEGIN CASE x WHEN 1, 2 THEN RAISE NOTICE 'low'; WHEN 5 THEN RAISE NOTICE 'five'; ELSE RAISE NOTICE 'other'; END CASE; END $$;
DO $$ DECLARE x text := 'b'; BEGIN CASE WHEN x = 'a' THEN RAISE NOTICE 'a'; WHEN x IN ('b', 'c') THEN RAISE NOTICE 'b or c'; END CASE; END $$;
-- @errors
DO $$ DECLARE x int := 9; BEGIN CASE x WHEN 1 THEN RAISE NOTICE 'one'; END CASE; END $$;
DO $$ DECLARE x int := 3; BEGIN IF x > 5 THEN RAISE NOTICE 'big'; ELSIF x > 2 THEN RAISE NOTICE 'medium'; ELSE RAISE NOTICE 'small'; END IF; END $$;
DO $$ DECLARE x int; BEGIN IF x > 1 THEN RAISE NOTICE 'yes'; ELSE RAISE NOTICE 'null is not true'; END IF; END $$;

-- name: pl_functions_called_from_sql
DROP TABLE IF EXISTS pl_items;
DROP FUNCTION IF EXISTS pl_double(int), pl_grade(numeric), pl_fib(int), pl_greet(text, text), pl_noret(int);
CREATE TABLE pl_items (id int PRIMARY KEY, price numeric);
INSERT INTO pl_items SELECT g, g * 1.5 FROM generate_series(1, 6) g;
CREATE FUNCTION pl_double(x int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN x * 2; END $$;
CREATE FUNCTION pl_grade(p numeric) RETURNS text LANGUAGE plpgsql AS $$ BEGIN IF p IS NULL THEN RETURN NULL; ELSIF p < 4 THEN RETURN 'cheap'; END IF; RETURN 'dear'; END $$;
CREATE FUNCTION pl_fib(n int) RETURNS bigint LANGUAGE plpgsql AS $$ BEGIN IF n < 2 THEN RETURN n; END IF; RETURN pl_fib(n - 1) + pl_fib(n - 2); END $$;
CREATE FUNCTION pl_greet(who text, greeting text DEFAULT 'hello') RETURNS text LANGUAGE plpgsql AS $$ DECLARE r text; BEGIN r := greeting || ', ' || who; RETURN r; END $$;
SELECT id, pl_double(id), pl_grade(price) FROM pl_items WHERE pl_double(id) > 4 ORDER BY id;
SELECT pl_fib(20), pl_greet('you'), pl_greet(greeting => 'hi', who => 'me'), pl_double(NULL), pl_grade(NULL);
SELECT pl_double('21'), pl_double(2::smallint);
CREATE FUNCTION pl_noret(x int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN IF x > 0 THEN RETURN x; END IF; END $$;
SELECT pl_noret(1);
-- @errors
SELECT pl_noret(-1);
SELECT proname, prolang = (SELECT oid FROM pg_language WHERE lanname = 'plpgsql') AS is_plpgsql, prosrc FROM pg_proc WHERE proname = 'pl_double';
DROP FUNCTION pl_double(int), pl_grade(numeric), pl_fib(int), pl_greet(text, text), pl_noret(int);
DROP TABLE pl_items;

-- name: pl_sql_statements_found_and_row_count
DROP TABLE IF EXISTS pl_t;
CREATE TABLE pl_t (a int PRIMARY KEY, b text);
DO $$ DECLARE n bigint; BEGIN INSERT INTO pl_t SELECT g, 'v' || g FROM generate_series(1, 5) g; GET DIAGNOSTICS n = ROW_COUNT; RAISE NOTICE 'inserted % found=%', n, found; END $$;
DO $$ DECLARE n int; BEGIN UPDATE pl_t SET b = 'u' WHERE a > 3; GET DIAGNOSTICS n = ROW_COUNT; RAISE NOTICE 'updated % found=%', n, found; DELETE FROM pl_t WHERE a > 100; RAISE NOTICE 'deleted nothing: found=%', found; END $$;
DO $$ DECLARE v text; w int; BEGIN SELECT b, a INTO v, w FROM pl_t WHERE a = 4; RAISE NOTICE 'v=% w=% found=%', v, w, found; SELECT b INTO v FROM pl_t WHERE a = 99; RAISE NOTICE 'v=% found=%', v, found; END $$;
DO $$ DECLARE r record; s text := ''; BEGIN FOR r IN SELECT a, b FROM pl_t ORDER BY a DESC LOOP s := s || r.a || r.b || ' '; END LOOP; RAISE NOTICE '%', s; END $$;
DO $$ DECLARE x int; y text; BEGIN FOR x, y IN SELECT a, b FROM pl_t WHERE a <= 2 ORDER BY a LOOP RAISE NOTICE '% %', x, y; END LOOP; END $$;
DO $$ DECLARE r record; BEGIN SELECT * INTO r FROM pl_t WHERE a = 2; RAISE NOTICE 'r.a=% r.b=%', r.a, r.b; END $$;
DO $$ DECLARE new_b text; BEGIN UPDATE pl_t SET b = b || '!' WHERE a = 1 RETURNING b INTO new_b; RAISE NOTICE '%', new_b; END $$;
DO $$ BEGIN FOR r IN 1..3 LOOP INSERT INTO pl_t VALUES (100 + r, 'loop'); END LOOP; END $$;
DO $$ BEGIN PERFORM 1 FROM pl_t WHERE a = 101; RAISE NOTICE 'perform found=%', found; PERFORM 1 FROM pl_t WHERE a = 0; RAISE NOTICE 'perform found=%', found; END $$;
DO $$ DECLARE r record; BEGIN FOR r IN SELECT a FROM pl_t WHERE a > 100 ORDER BY a LOOP INSERT INTO pl_t VALUES (r.a + 100, 'copy'); END LOOP; END $$;
SELECT * FROM pl_t ORDER BY a;
-- @errors
DO $$ DECLARE v int; BEGIN SELECT a INTO STRICT v FROM pl_t WHERE a > 1000; END $$;
DO $$ DECLARE v int; BEGIN SELECT a INTO STRICT v FROM pl_t; END $$;
DO $$ DECLARE v int; BEGIN UPDATE pl_t SET b = 'x' WHERE a < 3 RETURNING a INTO v; END $$;
DO $$ BEGIN SELECT 1; END $$;
DO $$ DECLARE v int; BEGIN SELECT a INTO v FROM pl_t ORDER BY a; RAISE NOTICE 'first=%', v; END $$;
DROP TABLE pl_t;

-- name: pl_exceptions
DROP TABLE IF EXISTS pl_e;
CREATE TABLE pl_e (k int PRIMARY KEY);
DO $$ BEGIN INSERT INTO pl_e VALUES (1); BEGIN INSERT INTO pl_e VALUES (2); INSERT INTO pl_e VALUES (1); EXCEPTION WHEN unique_violation THEN RAISE NOTICE 'caught % %', SQLSTATE, SQLERRM; END; INSERT INTO pl_e VALUES (3); END $$;
SELECT * FROM pl_e ORDER BY k;
DO $$ DECLARE x int; BEGIN x := 1 / 0; EXCEPTION WHEN division_by_zero OR numeric_value_out_of_range THEN RAISE NOTICE 'div: %', SQLERRM; END $$;
DO $$ BEGIN PERFORM 1 / 0; EXCEPTION WHEN SQLSTATE '22012' THEN RAISE NOTICE 'by sqlstate'; END $$;
DO $$ BEGIN PERFORM 1 / 0; EXCEPTION WHEN data_exception THEN RAISE NOTICE 'by class'; END $$;
DO $$ BEGIN RAISE EXCEPTION 'custom' USING ERRCODE = 'P0042', DETAIL = 'det', HINT = 'hin'; EXCEPTION WHEN OTHERS THEN RAISE NOTICE 'others: % %', SQLSTATE, SQLERRM; END $$;
DO $$ DECLARE m text; d text; h text; s text; BEGIN RAISE EXCEPTION 'boom %', 7 USING DETAIL = 'the detail', HINT = 'the hint'; EXCEPTION WHEN raise_exception THEN GET STACKED DIAGNOSTICS m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, h = PG_EXCEPTION_HINT, s = RETURNED_SQLSTATE; RAISE NOTICE '% / % / % / %', m, d, h, s; END $$;
DO $$ BEGIN BEGIN INSERT INTO pl_e VALUES (10); PERFORM 1 / 0; EXCEPTION WHEN unique_violation THEN RAISE NOTICE 'wrong handler'; END; EXCEPTION WHEN division_by_zero THEN RAISE NOTICE 'outer handler'; END $$;
SELECT * FROM pl_e ORDER BY k;
DO $$ DECLARE n int := 0; BEGIN FOR i IN 1..3 LOOP BEGIN INSERT INTO pl_e VALUES (i); n := n + 1; EXCEPTION WHEN unique_violation THEN NULL; END; END LOOP; RAISE NOTICE 'new rows: %', n; END $$;
SELECT * FROM pl_e ORDER BY k;
-- @errors
DO $$ BEGIN PERFORM 1 / 0; EXCEPTION WHEN unique_violation THEN RAISE NOTICE 'no'; END $$;
DO $$ BEGIN INSERT INTO pl_e VALUES (1); EXCEPTION WHEN unique_violation THEN RAISE; END $$;
DO $$ BEGIN RAISE; END $$;
SELECT * FROM pl_e ORDER BY k;
DROP TABLE pl_e;

-- name: pl_raise_levels_and_options
SET client_min_messages = debug1;
DO $$ BEGIN RAISE DEBUG 'dbg %', 1; RAISE LOG 'log'; RAISE INFO 'info'; RAISE NOTICE 'notice'; RAISE WARNING 'warning'; END $$;
RESET client_min_messages;
DO $$ BEGIN RAISE NOTICE 'with options' USING DETAIL = 'd', HINT = 'h', ERRCODE = '01234'; END $$;
DO $$ BEGIN RAISE NOTICE USING MESSAGE = 'message only'; RAISE WARNING 'null param: %', NULL::int; END $$;
-- @errors
DO $$ BEGIN RAISE division_by_zero; END $$;
DO $$ BEGIN RAISE SQLSTATE '22012'; END $$;
DO $$ BEGIN RAISE SQLSTATE 'XX123' USING MESSAGE = 'custom code'; END $$;
DO $$ BEGIN RAISE 'plain % and %', 'a', 2; END $$;
DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = 'unique_violation'; END $$;
DO $$ BEGIN RAISE EXCEPTION 'x' USING TABLE = 'tab', COLUMN = 'col', CONSTRAINT = 'con', SCHEMA = 'sch', DATATYPE = 'typ'; END $$;
DO $$ BEGIN RAISE NOTICE 'x' USING DETAIL = NULL; END $$;
DO $$ BEGIN ASSERT 1 = 2, 'one is not two'; END $$;
DO $$ BEGIN ASSERT false; END $$;
DO $$ BEGIN ASSERT 1 = 1; RAISE NOTICE 'assert passed'; END $$;

-- name: pl_dynamic_sql
DROP TABLE IF EXISTS pl_d;
CREATE TABLE pl_d (id int, tag text);
DO $$ BEGIN EXECUTE 'INSERT INTO pl_d VALUES ($1, $2)' USING 1, 'one'; EXECUTE format('INSERT INTO %I VALUES (%s, %L)', 'pl_d', 2, 'two'); END $$;
DO $$ DECLARE c bigint; t text; BEGIN EXECUTE 'SELECT count(*) FROM pl_d WHERE id >= $1' INTO c USING 1; EXECUTE 'SELECT tag FROM pl_d WHERE id = $1' INTO STRICT t USING 2; RAISE NOTICE 'c=% t=%', c, t; END $$;
DO $$ DECLARE r record; BEGIN FOR r IN EXECUTE 'SELECT id, tag FROM pl_d ORDER BY id' LOOP RAISE NOTICE '% %', r.id, r.tag; END LOOP; END $$;
DO $$ BEGIN EXECUTE 'CREATE TABLE pl_d2 (x int)'; EXECUTE 'INSERT INTO pl_d2 VALUES (7)'; END $$;
SELECT * FROM pl_d2;
SELECT * FROM pl_d ORDER BY id;
-- @errors
DO $$ BEGIN EXECUTE NULL; END $$;
DO $$ DECLARE t text; BEGIN EXECUTE 'SELECT tag FROM pl_d' INTO STRICT t; END $$;
DROP TABLE pl_d, pl_d2;

-- name: pl_transactions_and_notify
DROP TABLE IF EXISTS pl_n;
CREATE TABLE pl_n (x int);
LISTEN pl_chan;
DO $$ BEGIN PERFORM pg_notify('pl_chan', 'from do'); NOTIFY pl_chan, 'notify stmt'; END $$;
BEGIN;
DO $$ BEGIN INSERT INTO pl_n VALUES (1); END $$;
SELECT count(*) FROM pl_n;
ROLLBACK;
SELECT count(*) FROM pl_n;
BEGIN;
-- @errors
DO $$ BEGIN INSERT INTO pl_n VALUES (2); RAISE EXCEPTION 'abort it'; END $$;
SELECT 1;
ROLLBACK;
SELECT count(*) FROM pl_n;
UNLISTEN pl_chan;
DROP TABLE pl_n;

-- name: pl_compile_errors
-- (Errors of PL/pgSQL's grammar carry a position in PostgreSQL that threadgres does not give
-- yet: they are left out.)
-- @errors
DO $$ BEGIN RAISE NOTICE 'a % b %', 1; END $$;
DO $$ BEGIN EXCEPTION WHEN no_such_condition THEN NULL; END $$;
DO LANGUAGE plpgsql $$ BEGIN RAISE NOTICE 'language first'; END $$;
DO $$ DECLARE x int NOT NULL := 1; BEGIN x := NULL; END $$;
DO $$ BEGIN FOR i IN 1..NULL LOOP END LOOP; END $$;
DO $$ BEGIN FOR i IN 1..3 BY 0 LOOP END LOOP; END $$;

-- name: pl_procedures_and_call
DROP TABLE IF EXISTS pl_c;
DROP PROCEDURE IF EXISTS pl_p(int), pl_ins(int);
DROP FUNCTION IF EXISTS pl_f(int), pl_trg();
CREATE TABLE pl_c (v int);
CREATE PROCEDURE pl_p(x int) LANGUAGE plpgsql AS $$ BEGIN RAISE NOTICE 'pl_p %', x; INSERT INTO pl_c VALUES (x); END $$;
CREATE PROCEDURE pl_ins(v int) LANGUAGE sql AS 'INSERT INTO pl_c VALUES (v)';
CREATE FUNCTION pl_f(x int) RETURNS int LANGUAGE sql RETURN x;
CALL pl_p(1);
CALL pl_ins(2);
DO $$ BEGIN CALL pl_p(3); CALL pl_ins(4); END $$;
SELECT * FROM pl_c ORDER BY v;
CREATE FUNCTION pl_trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END; $$;
-- @errors
CALL pl_f(1);
SELECT pl_p(1);
SELECT pl_trg();
DROP PROCEDURE pl_p(int), pl_ins(int);
DROP FUNCTION pl_f(int), pl_trg();
DROP TABLE pl_c;

-- name: plpgsql_transaction_control
-- COMMIT and ROLLBACK in procedures and DO blocks (PostgreSQL's non-atomic CALL and DO): each
-- ends the transaction and the next starts at once; nested CALLs pass the permission on.
DROP TABLE IF EXISTS pltc_t;
DROP PROCEDURE IF EXISTS pltc_p(), pltc_outer();
CREATE TABLE pltc_t (a int);
CREATE PROCEDURE pltc_p() LANGUAGE plpgsql AS $$ BEGIN FOR i IN 0..9 LOOP INSERT INTO pltc_t VALUES (i); IF i % 2 = 0 THEN COMMIT; ELSE ROLLBACK; END IF; END LOOP; END $$;
CALL pltc_p();
SELECT a FROM pltc_t ORDER BY a;
DO $$ BEGIN INSERT INTO pltc_t VALUES (100); COMMIT; INSERT INTO pltc_t VALUES (101); ROLLBACK; INSERT INTO pltc_t VALUES (102); END $$;
SELECT a FROM pltc_t WHERE a >= 100 ORDER BY a;
CREATE PROCEDURE pltc_outer() LANGUAGE plpgsql AS $$ BEGIN DELETE FROM pltc_t; CALL pltc_p(); ROLLBACK; END $$;
CALL pltc_outer();
SELECT count(*), sum(a) FROM pltc_t;
DROP PROCEDURE pltc_p(), pltc_outer();
DROP TABLE pltc_t;

-- name: plpgsql_transaction_control_loops_and_cursors
-- @errors
-- A FOR loop over a query goes on across COMMIT and ROLLBACK with the rows of its first
-- snapshot; an explicit cursor closes at COMMIT; INOUT parameters come back.
DROP TABLE IF EXISTS pltc_src, pltc_log;
DROP PROCEDURE IF EXISTS pltc_batches(), pltc_inout(int);
CREATE TABLE pltc_src (a int);
CREATE TABLE pltc_log (a int);
INSERT INTO pltc_src SELECT g FROM generate_series(1, 20) g;
CREATE PROCEDURE pltc_batches() LANGUAGE plpgsql AS $$ DECLARE r record; BEGIN FOR r IN SELECT a FROM pltc_src ORDER BY a LOOP INSERT INTO pltc_log VALUES (r.a * 10); IF r.a = 3 THEN DELETE FROM pltc_src; END IF; IF r.a % 5 = 0 THEN COMMIT; END IF; IF r.a = 17 THEN ROLLBACK; END IF; END LOOP; END $$;
CALL pltc_batches();
SELECT count(*), sum(a) FROM pltc_log;
SELECT count(*) FROM pltc_src;
CREATE PROCEDURE pltc_inout(INOUT x int) LANGUAGE plpgsql AS $$ BEGIN x := x + 1; COMMIT; x := x * 10; END $$;
CALL pltc_inout(1);
INSERT INTO pltc_src VALUES (1), (2);
DO $$ DECLARE c CURSOR FOR SELECT a FROM pltc_src ORDER BY a; v int; BEGIN OPEN c; FETCH c INTO v; COMMIT; FETCH c INTO v; RAISE NOTICE 'v=%', v; END $$;
DO $$ DECLARE c CURSOR FOR SELECT a FROM pltc_src ORDER BY a; BEGIN FOR r IN c LOOP RAISE NOTICE 'r=%', r.a; COMMIT; END LOOP; END $$;
DROP PROCEDURE pltc_batches(), pltc_inout(int);
DROP TABLE pltc_src, pltc_log;

-- name: plpgsql_transaction_control_errors
-- @errors
-- Where PostgreSQL refuses to end a transaction: inside BEGIN ... COMMIT, in a function, in a
-- block with an exception handler, in a SECURITY DEFINER procedure or one with SET, in one
-- of several statements of a Query; a deferred constraint that fails at the COMMIT.
DROP TABLE IF EXISTS pltc_e, pltc_pk, pltc_fk;
DROP PROCEDURE IF EXISTS pltc_c(), pltc_sub(), pltc_subr(), pltc_def(), pltc_set(), pltc_fkp();
DROP FUNCTION IF EXISTS pltc_f();
CREATE TABLE pltc_e (a int);
CREATE PROCEDURE pltc_c() LANGUAGE plpgsql AS $$ BEGIN INSERT INTO pltc_e VALUES (1); COMMIT; END $$;
BEGIN;
CALL pltc_c();
ROLLBACK;
CREATE FUNCTION pltc_f() RETURNS int LANGUAGE plpgsql AS $$ BEGIN COMMIT; RETURN 1; END $$;
SELECT pltc_f();
CREATE PROCEDURE pltc_sub() LANGUAGE plpgsql AS $$ BEGIN INSERT INTO pltc_e VALUES (2); BEGIN COMMIT; EXCEPTION WHEN division_by_zero THEN NULL; END; END $$;
CALL pltc_sub();
CREATE PROCEDURE pltc_subr() LANGUAGE plpgsql AS $$ BEGIN BEGIN ROLLBACK; EXCEPTION WHEN others THEN RAISE NOTICE 'caught: %', sqlerrm; END; END $$;
CALL pltc_subr();
CREATE PROCEDURE pltc_def() LANGUAGE plpgsql SECURITY DEFINER AS $$ BEGIN COMMIT; END $$;
CALL pltc_def();
CREATE PROCEDURE pltc_set() LANGUAGE plpgsql SET work_mem = '4MB' AS $$ BEGIN COMMIT; END $$;
CALL pltc_set();
SELECT 1; CALL pltc_c();
DO $$ BEGIN PERFORM pltc_f(); END $$;
CREATE TABLE pltc_pk (id int PRIMARY KEY);
CREATE TABLE pltc_fk (id int REFERENCES pltc_pk DEFERRABLE INITIALLY DEFERRED);
CREATE PROCEDURE pltc_fkp() LANGUAGE plpgsql AS $$ BEGIN INSERT INTO pltc_e VALUES (3); COMMIT; INSERT INTO pltc_fk VALUES (7); COMMIT; RAISE NOTICE 'not reached'; END $$;
CALL pltc_fkp();
SELECT a FROM pltc_e ORDER BY a;
SELECT count(*) FROM pltc_fk;
DROP PROCEDURE pltc_c(), pltc_sub(), pltc_subr(), pltc_def(), pltc_set(), pltc_fkp();
DROP FUNCTION pltc_f();
DROP TABLE pltc_e, pltc_fk, pltc_pk;

-- name: plpgsql_error_context_lines
-- @errors
-- @context
-- Where an error in a body's SQL is placed, as PostgreSQL's SPI places it: a SQL statement,
-- an expression or an assignment named in a CONTEXT line; an error with a position moved into
-- the statement (internal query and position: psql's QUERY line); a variable's default names
-- its declaration's line. Expressions over variables fail outside the planner, unnamed.
DROP TABLE IF EXISTS plctx_t;
DROP FUNCTION IF EXISTS plctx_raise(), plctx_vars(int), plctx_sub(int), plctx_decl(int), plctx_diag();
CREATE TABLE plctx_t (a int);
CREATE FUNCTION plctx_raise() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'boom'; END $$;
DO $$ BEGIN INSERT INTO plctx_t VALUES (plctx_raise()); END $$;
DO $$ BEGIN INSERT INTO plctx_t VALUES (nosuch); END $$;
DO $$ BEGIN INSERT INTO plctx_nosuch VALUES (1); END $$;
DO $$ DECLARE x int; BEGIN x := 1/0; END $$;
DO $$ DECLARE x int; BEGIN x := nosuch + 1; END $$;
DO $$ BEGIN IF 1/0 = 1 THEN END IF; END $$;
DO $$ DECLARE x int; BEGIN SELECT 1/0 INTO x; END $$;
DO $$ BEGIN PERFORM 1/0; END $$;
DO $$ BEGIN UPDATE plctx_t SET a = 1/0; INSERT INTO plctx_t VALUES ('x'); END $$;
DO $$ DECLARE r record; BEGIN FOR r IN SELECT 1/0 LOOP END LOOP; END $$;
DO $$ DECLARE r record; BEGIN FOR r IN EXECUTE 'SELECT 1/0' LOOP END LOOP; END $$;
DO $$ BEGIN EXECUTE 'SELECT nosuch'; END $$;
DO $$ BEGIN CREATE TABLE plctx_t (a int); END $$;
DO $$ DECLARE x int := 1/0; BEGIN END $$;
CREATE FUNCTION plctx_vars(a int) RETURNS int LANGUAGE plpgsql AS $$ DECLARE z int; BEGIN z := 10 / a; RETURN z; END $$;
SELECT plctx_vars(0);
CREATE FUNCTION plctx_sub(a int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN (SELECT 10 / a); END $$;
SELECT plctx_sub(0);
CREATE FUNCTION plctx_decl(a int) RETURNS int LANGUAGE plpgsql AS $$ DECLARE y int := 1; z int := 10 / a; BEGIN RETURN z; END $$;
SELECT plctx_decl(0);
CREATE FUNCTION plctx_diag() RETURNS text LANGUAGE plpgsql AS $$ DECLARE c text; BEGIN PERFORM plctx_raise(); RETURN 'x'; EXCEPTION WHEN others THEN GET STACKED DIAGNOSTICS c = PG_EXCEPTION_CONTEXT; RETURN c; END $$;
SELECT plctx_diag();
DROP FUNCTION plctx_raise(), plctx_vars(int), plctx_sub(int), plctx_decl(int), plctx_diag();
DROP TABLE plctx_t;

-- name: plpgsql_set_transaction
-- @errors
-- SET TRANSACTION in a body: before the transaction's first query (after a COMMIT in a
-- procedure), AND CHAIN keeps what it set; too late after a query (25001).
DROP PROCEDURE IF EXISTS plst_p(), plst_late();
DROP FUNCTION IF EXISTS plst_f();
CREATE PROCEDURE plst_p() LANGUAGE plpgsql AS $$ BEGIN COMMIT; SET TRANSACTION ISOLATION LEVEL REPEATABLE READ; RAISE NOTICE '%', current_setting('transaction_isolation'); COMMIT AND CHAIN; RAISE NOTICE '%', current_setting('transaction_isolation'); COMMIT; RAISE NOTICE '%', current_setting('transaction_isolation'); ROLLBACK; SET TRANSACTION READ ONLY; RAISE NOTICE 'ro %', current_setting('transaction_read_only'); ROLLBACK AND CHAIN; RAISE NOTICE 'ro %', current_setting('transaction_read_only'); END $$;
CALL plst_p();
CREATE PROCEDURE plst_late() LANGUAGE plpgsql AS $$ BEGIN SET TRANSACTION ISOLATION LEVEL REPEATABLE READ; END $$;
CALL plst_late();
BEGIN;
DO $$ BEGIN SET TRANSACTION ISOLATION LEVEL SERIALIZABLE; END $$;
ROLLBACK;
CREATE FUNCTION plst_f() RETURNS text LANGUAGE plpgsql AS $$ BEGIN SET TRANSACTION READ ONLY; RETURN current_setting('transaction_read_only'); END $$;
SELECT plst_f();
DROP PROCEDURE plst_p(), plst_late();
DROP FUNCTION plst_f();
