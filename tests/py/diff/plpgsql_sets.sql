-- Differential SQL cases: PL/pgSQL set-returning functions and OUT parameters (issue 32):
-- RETURNS SETOF / TABLE / SETOF record with RETURN NEXT and RETURN QUERY [EXECUTE ... USING],
-- called in FROM (with column definition lists, aliases, ORDINALITY, joins and lateral
-- references) and in the select list; OUT / INOUT parameters of functions and procedures
-- (CALL returns them as a row); SQL functions returning sets; and the errors PostgreSQL gives.
-- Tables and functions are named pls_...

-- name: pls_setof_scalar
DROP FUNCTION IF EXISTS pls_count(int), pls_texts();
CREATE FUNCTION pls_count(n int) RETURNS SETOF int LANGUAGE plpgsql AS $$ BEGIN FOR i IN 1..n LOOP RETURN NEXT i * 10; END LOOP; END $$;
SELECT * FROM pls_count(3);
SELECT pls_count(3);
SELECT pls_count(2), pls_count(3);
SELECT * FROM pls_count(3) WITH ORDINALITY;
SELECT * FROM pls_count(2) AS c(v);
SELECT c.* FROM pls_count(2) c;
SELECT * FROM pls_count(0);
SELECT count(*), sum(x) FROM pls_count(1000) x;
CREATE FUNCTION pls_texts() RETURNS SETOF text LANGUAGE plpgsql AS $$ BEGIN RETURN NEXT 1; RETURN NEXT 'x'; RETURN NEXT NULL; RETURN; RETURN NEXT 'never'; END $$;
SELECT * FROM pls_texts();
DROP FUNCTION pls_count(int), pls_texts();

-- name: pls_returns_table
DROP TABLE IF EXISTS pls_items;
DROP FUNCTION IF EXISTS pls_tab(int), pls_one_col();
CREATE TABLE pls_items (id int PRIMARY KEY, name text);
INSERT INTO pls_items VALUES (1, 'a'), (2, 'b'), (3, 'c');
CREATE FUNCTION pls_tab(n int) RETURNS TABLE(k int, label text) LANGUAGE plpgsql AS $$ BEGIN FOR i IN 1..n LOOP k := i; label := 'x' || i; RETURN NEXT; END LOOP; END $$;
SELECT * FROM pls_tab(2);
SELECT pls_tab(2);
SELECT * FROM pls_tab(2) AS q(c, d);
SELECT i.name, t.label FROM pls_items i JOIN pls_tab(2) t ON i.id = t.k ORDER BY 1;
SELECT i.id, t.* FROM pls_items i, pls_tab(i.id) t ORDER BY 1, 2;
CREATE FUNCTION pls_one_col() RETURNS TABLE(v int) LANGUAGE plpgsql AS $$ BEGIN RETURN QUERY SELECT id FROM pls_items ORDER BY id DESC; END $$;
SELECT * FROM pls_one_col();
SELECT pls_one_col();
DROP FUNCTION pls_tab(int), pls_one_col();
DROP TABLE pls_items;

-- name: pls_return_query
DROP TABLE IF EXISTS pls_q;
DROP FUNCTION IF EXISTS pls_rq(int), pls_found();
CREATE TABLE pls_q (id int, v text);
INSERT INTO pls_q VALUES (1, 'one'), (2, 'two'), (3, 'three');
CREATE FUNCTION pls_rq(n int) RETURNS SETOF int LANGUAGE plpgsql AS $$ BEGIN RETURN QUERY SELECT id FROM pls_q WHERE id <= n ORDER BY id; RETURN QUERY EXECUTE 'SELECT $1 + 100' USING n; RETURN NEXT -1; END $$;
SELECT * FROM pls_rq(2);
CREATE FUNCTION pls_found() RETURNS SETOF int LANGUAGE plpgsql AS $$ DECLARE n bigint; BEGIN RETURN QUERY SELECT 1 WHERE false; RAISE NOTICE 'found=%', found; RETURN QUERY SELECT g FROM generate_series(1, 3) g; GET DIAGNOSTICS n = ROW_COUNT; RAISE NOTICE 'found=% n=%', found, n; END $$;
SELECT * FROM pls_found();
DROP FUNCTION pls_rq(int), pls_found();
DROP TABLE pls_q;

-- name: pls_setof_record
DROP TABLE IF EXISTS pls_r;
DROP FUNCTION IF EXISTS pls_recs(), pls_rows();
CREATE TABLE pls_r (id int, name text);
INSERT INTO pls_r VALUES (1, 'a'), (2, 'b');
CREATE FUNCTION pls_recs() RETURNS SETOF record LANGUAGE plpgsql AS $$ DECLARE r record; BEGIN FOR r IN SELECT id, name FROM pls_r ORDER BY id LOOP RETURN NEXT r; END LOOP; END $$;
SELECT * FROM pls_recs() AS x(id int, name text);
SELECT name FROM pls_recs() AS x(id int, name text) WHERE id = 2;
CREATE FUNCTION pls_rows() RETURNS SETOF record LANGUAGE plpgsql AS $$ BEGIN RETURN NEXT ROW(1, 'p'::text); RETURN NEXT ROW(2, 'q'::text); END $$;
SELECT * FROM pls_rows() AS t(a int, b text);
DROP FUNCTION pls_recs(), pls_rows();
DROP TABLE pls_r;

-- name: pls_setof_errors
DROP FUNCTION IF EXISTS pls_e_rec(), pls_e_q(), pls_e_raise(int), pls_e_o(int);
CREATE FUNCTION pls_e_rec() RETURNS SETOF record LANGUAGE plpgsql AS $$ BEGIN RETURN NEXT ROW(1, 'a'::text); END $$;
CREATE FUNCTION pls_e_q() RETURNS SETOF int LANGUAGE plpgsql AS $$ BEGIN RETURN QUERY SELECT 'a'::text; END $$;
CREATE FUNCTION pls_e_raise(n int) RETURNS SETOF int LANGUAGE plpgsql AS $$ BEGIN RETURN NEXT 1; RAISE EXCEPTION 'boom %', n; END $$;
CREATE FUNCTION pls_e_o(x int, OUT y int, OUT z text) LANGUAGE plpgsql AS $$ BEGIN y := x; z := 'z'; END $$;
-- @errors
SELECT * FROM pls_e_rec();
SELECT * FROM pls_e_rec() AS t(a int);
SELECT * FROM pls_e_q();
SELECT * FROM pls_e_raise(7);
SELECT * FROM pls_e_o(1) AS t(a int, b text);
SELECT * FROM generate_series(1, 2) AS t(a int);
SELECT 1;
DROP FUNCTION pls_e_rec(), pls_e_q(), pls_e_raise(int), pls_e_o(int);

-- name: pls_out_params
DROP FUNCTION IF EXISTS pls_o1(int), pls_o2(int), pls_io(int), pls_early(int);
CREATE FUNCTION pls_o1(x int, OUT y int) LANGUAGE plpgsql AS $$ BEGIN y := x * 2; END $$;
SELECT pls_o1(3);
SELECT * FROM pls_o1(3);
CREATE FUNCTION pls_o2(x int, OUT y int, OUT z text) LANGUAGE plpgsql AS $$ BEGIN y := x * 2; z := 'q' || x; END $$;
SELECT pls_o2(3);
SELECT * FROM pls_o2(3);
SELECT z, y FROM pls_o2(4);
CREATE FUNCTION pls_io(INOUT a int, OUT b text) LANGUAGE plpgsql AS $$ BEGIN a := a + 1; b := 'b' || a; RETURN; END $$;
SELECT * FROM pls_io(5);
SELECT * FROM pls_io(NULL);
CREATE FUNCTION pls_early(x int, OUT r text, OUT n int) LANGUAGE plpgsql AS $$ BEGIN r := 'start'; IF x > 0 THEN r := 'positive'; n := x; RETURN; END IF; r := 'other'; END $$;
SELECT * FROM pls_early(5);
SELECT * FROM pls_early(-1);
DROP FUNCTION pls_o1(int), pls_o2(int), pls_io(int), pls_early(int);

-- name: pls_call_inout
DROP PROCEDURE IF EXISTS pls_p2(int, text), pls_p1(int);
CREATE PROCEDURE pls_p2(INOUT x int, INOUT y text) LANGUAGE plpgsql AS $$ BEGIN x := x * 10; y := y || '!'; END $$;
CALL pls_p2(4, 'hi');
CREATE PROCEDURE pls_p1(INOUT x int) LANGUAGE plpgsql AS $$ BEGIN x := x + 1; END $$;
CALL pls_p1(1);
DROP PROCEDURE pls_p2(int, text), pls_p1(int);

-- name: pls_sql_functions
DROP FUNCTION IF EXISTS pls_sq(int), pls_sq2(int);
CREATE FUNCTION pls_sq(n int) RETURNS SETOF int LANGUAGE sql AS $$ SELECT g * g FROM generate_series(1, n) g $$;
SELECT * FROM pls_sq(4);
SELECT pls_sq(2);
CREATE FUNCTION pls_sq2(n int) RETURNS TABLE (a int, b text) LANGUAGE sql AS $$ SELECT g, 'v' || g FROM generate_series(1, n) g $$;
SELECT * FROM pls_sq2(2);
SELECT pls_sq2(2);
DROP FUNCTION pls_sq(int), pls_sq2(int);

-- name: pls_cursors
DROP TABLE IF EXISTS pls_ct;
DROP FUNCTION IF EXISTS pls_cur_sum(int), pls_cur_set(int);
CREATE TABLE pls_ct (id int, v text);
INSERT INTO pls_ct SELECT g, 'v' || g FROM generate_series(1, 5) g;
DO $$ DECLARE c CURSOR FOR SELECT id, v FROM pls_ct ORDER BY id; r record; BEGIN OPEN c; LOOP FETCH c INTO r; EXIT WHEN NOT FOUND; RAISE NOTICE 'r=% %', r.id, r.v; END LOOP; CLOSE c; END $$;
DO $$ DECLARE c CURSOR (lo int, hi int) FOR SELECT id FROM pls_ct WHERE id BETWEEN lo AND hi ORDER BY id; x int; BEGIN OPEN c(2, 4); LOOP FETCH NEXT FROM c INTO x; EXIT WHEN NOT FOUND; RAISE NOTICE 'x=%', x; END LOOP; CLOSE c; OPEN c(hi := 5, lo := 5); FETCH c INTO x; RAISE NOTICE 'named x=%', x; CLOSE c; END $$;
DO $$ DECLARE c refcursor; a int; b text; BEGIN OPEN c FOR SELECT id, v FROM pls_ct ORDER BY id; FETCH LAST FROM c INTO a, b; RAISE NOTICE 'last % %', a, b; FETCH PRIOR FROM c INTO a, b; RAISE NOTICE 'prior % %', a, b; FETCH FIRST FROM c INTO a; RAISE NOTICE 'first %', a; FETCH ABSOLUTE 3 FROM c INTO a; RAISE NOTICE 'abs3 %', a; FETCH RELATIVE -1 FROM c INTO a; RAISE NOTICE 'rel-1 %', a; FETCH RELATIVE 0 FROM c INTO a; RAISE NOTICE 'rel0 %', a; MOVE FORWARD 2 FROM c; FETCH c INTO a; RAISE NOTICE 'after move %', a; MOVE BACKWARD ALL FROM c; FETCH c INTO a; RAISE NOTICE 'after move back all % %', a, found; FETCH ABSOLUTE 99 FROM c INTO a; RAISE NOTICE 'abs99 % %', a, found; CLOSE c; END $$;
DO $$ DECLARE c refcursor; n int; BEGIN OPEN c FOR EXECUTE 'SELECT id FROM pls_ct WHERE id > $1 ORDER BY id' USING 3; FETCH c INTO n; RAISE NOTICE 'dyn %', n; CLOSE c; END $$;
DO $$ DECLARE c CURSOR FOR SELECT id FROM pls_ct ORDER BY id DESC; s int := 0; BEGIN FOR r IN c LOOP s := s + r.id; END LOOP; RAISE NOTICE 's=%', s; END $$;
DO $$ DECLARE c CURSOR (k int) FOR SELECT id, v FROM pls_ct WHERE id > k ORDER BY id; BEGIN FOR r IN c(3) LOOP RAISE NOTICE 'r=%', r; END LOOP; END $$;
DO $$ DECLARE c CURSOR FOR SELECT id FROM pls_ct ORDER BY id; x int; BEGIN OPEN c; MOVE LAST FROM c; GET DIAGNOSTICS x = ROW_COUNT; RAISE NOTICE 'moved % found %', x, found; MOVE RELATIVE 10 FROM c; RAISE NOTICE 'found %', found; CLOSE c; END $$;
DO $$ DECLARE c CURSOR FOR SELECT id FROM pls_ct ORDER BY id; x int; y int; BEGIN OPEN c; FETCH c INTO x; CLOSE c; OPEN c; FETCH c INTO y; RAISE NOTICE '% %', x, y; CLOSE c; END $$;
CREATE FUNCTION pls_cur_sum(n int) RETURNS int LANGUAGE plpgsql AS $$ DECLARE c CURSOR FOR SELECT id FROM pls_ct WHERE id <= n; t int := 0; x int; BEGIN OPEN c; LOOP FETCH c INTO x; EXIT WHEN NOT FOUND; t := t + x; END LOOP; CLOSE c; RETURN t; END $$;
SELECT pls_cur_sum(3), pls_cur_sum(5);
CREATE FUNCTION pls_cur_set(n int) RETURNS SETOF text LANGUAGE plpgsql AS $$ DECLARE c CURSOR (k int) FOR SELECT v FROM pls_ct WHERE id >= k ORDER BY id; BEGIN FOR r IN c(n) LOOP RETURN NEXT r.v; END LOOP; END $$;
SELECT * FROM pls_cur_set(4);
DROP FUNCTION pls_cur_sum(int), pls_cur_set(int);
DROP TABLE pls_ct;

-- name: pls_cursor_errors
DROP TABLE IF EXISTS pls_ce;
CREATE TABLE pls_ce (a int);
-- @errors
DO $$ DECLARE c CURSOR FOR SELECT 1; BEGIN OPEN c; OPEN c; END $$;
DO $$ DECLARE c refcursor := 'nope'; x int; BEGIN FETCH c INTO x; END $$;
DO $$ DECLARE c refcursor := 'nope'; BEGIN CLOSE c; END $$;
DO $$ DECLARE c refcursor; x int; BEGIN FETCH c INTO x; END $$;
DO $$ DECLARE c1 CURSOR FOR SELECT 1; c2 refcursor; BEGIN c2 := 'c1'; OPEN c1; OPEN c2 FOR SELECT 2; END $$;
DO $$ DECLARE c refcursor; BEGIN OPEN c FOR DELETE FROM pls_ce; END $$;
DO $$ DECLARE c CURSOR FOR SELECT 1 / 0; BEGIN OPEN c; RAISE NOTICE 'opened'; END $$;
DO $$ DECLARE c CURSOR FOR SELECT 1 / 0; x int; BEGIN OPEN c; RAISE NOTICE 'opened'; FETCH c INTO x; END $$;
SELECT 1;
DROP TABLE pls_ce;

-- name: pls_call_inout_from_plpgsql
DROP PROCEDURE IF EXISTS pls_pio(int, text), pls_pio1(int, int);
CREATE PROCEDURE pls_pio(INOUT a int, INOUT b text) LANGUAGE plpgsql AS $$ BEGIN a := a * 2; b := b || '!'; END $$;
CREATE PROCEDURE pls_pio1(x int, INOUT a int) LANGUAGE plpgsql AS $$ BEGIN a := a + x; END $$;
DO $$ DECLARE v int := 5; w text := 'hi'; BEGIN CALL pls_pio(v, w); RAISE NOTICE 'v=% w=%', v, w; CALL pls_pio1(10, v); RAISE NOTICE 'v=%', v; END $$;
-- @errors
DO $$ DECLARE v int := 5; BEGIN CALL pls_pio1(1, v + 1); END $$;
DO $$ BEGIN CALL pls_pio1(1, 7); END $$;
DROP PROCEDURE pls_pio(int, text), pls_pio1(int, int);
