-- Differential SQL cases: PL/pgSQL %ROWTYPE variables: declared from a table, a view or a
-- composite type, their fields NULL until assigned, assigned field by field, by SELECT INTO
-- and FOR loops, returned whole, passed to other functions, and their errors (a %ROWTYPE of a relation that does not exist fails when
-- the function is called, not yet when it is created as in PostgreSQL).

-- name: rowtype_fields_and_return
CREATE TABLE rt_t (id int, name text, price numeric(8,2));
INSERT INTO rt_t VALUES (1, 'one', 1.50), (2, 'two', 2.25);
CREATE FUNCTION rt_make(i int) RETURNS rt_t LANGUAGE plpgsql AS $$ DECLARE r rt_t%ROWTYPE; BEGIN r.id := i; r.name := 'made ' || i; RETURN r; END $$;
SELECT rt_make(7);
SELECT (rt_make(8)).name;
CREATE FUNCTION rt_nulls() RETURNS text LANGUAGE plpgsql AS $$ DECLARE r public.rt_t%rowtype; BEGIN RETURN coalesce(r.name, 'null name') || ' ' || (r.id IS NULL)::text; END $$;
SELECT rt_nulls();
CREATE FUNCTION rt_sum() RETURNS numeric LANGUAGE plpgsql AS $$ DECLARE r rt_t%ROWTYPE; total numeric := 0; BEGIN FOR r IN SELECT * FROM rt_t ORDER BY id LOOP total := total + r.price * r.id; END LOOP; SELECT * INTO r FROM rt_t WHERE id = 2; RETURN total + r.price; END $$;
SELECT rt_sum();
DROP FUNCTION rt_make(int), rt_nulls(), rt_sum();
DROP TABLE rt_t;

-- name: rowtype_of_a_composite_type
CREATE TYPE rt_pair AS (a int, b text);
CREATE FUNCTION rt_pair_of(x int) RETURNS rt_pair LANGUAGE plpgsql AS $$ DECLARE p rt_pair%ROWTYPE; BEGIN p.a := x * 2; p.b := 'b' || x; RETURN p; END $$;
SELECT rt_pair_of(21), (rt_pair_of(4)).b;
DROP FUNCTION rt_pair_of(int);
DROP TYPE rt_pair;

-- name: rowtype_errors
-- @errors
CREATE TABLE rt_e (id int);
CREATE FUNCTION rt_bad_field() RETURNS int LANGUAGE plpgsql AS $$ DECLARE r rt_e%ROWTYPE; BEGIN r.nosuch := 1; RETURN r.id; END $$;
SELECT rt_bad_field();
DROP FUNCTION rt_bad_field();
DROP TABLE rt_e;

-- name: rowtype_declared_by_type_name
-- A variable declared with a table's or composite type's name (no %ROWTYPE) starts as that
-- type's row of NULLs too; `record` stays unassigned until assigned.
-- @errors
CREATE TABLE rt_n (a int, b text);
CREATE TYPE rt_np AS (x int, y numeric(6,2));
CREATE FUNCTION rt_n_make(i int) RETURNS rt_n LANGUAGE plpgsql AS $$ DECLARE r rt_n; BEGIN r.a := i; r.b := 'x' || i; RETURN r; END $$;
SELECT * FROM rt_n_make(3);
SELECT rt_n_make(4), (rt_n_make(5)).b;
CREATE FUNCTION rt_np_make() RETURNS text LANGUAGE plpgsql AS $$ DECLARE p public.rt_np; q rt_np; BEGIN q := ROW(1, 2.5); p.y := 1.239; RETURN p::text || ' ' || q::text || ' ' || (p.x IS NULL)::text; END $$;
SELECT rt_np_make();
CREATE FUNCTION rt_rec_unassigned() RETURNS int LANGUAGE plpgsql AS $$ DECLARE r record; BEGIN r.a := 1; RETURN 1; END $$;
SELECT rt_rec_unassigned();
DROP FUNCTION rt_n_make(int), rt_np_make(), rt_rec_unassigned();
DROP TYPE rt_np;
DROP TABLE rt_n;
