-- Differential SQL cases: transition tables of AFTER triggers (REFERENCING OLD TABLE / NEW
-- TABLE AS): what statement and row triggers read under those names for INSERT, UPDATE,
-- DELETE and INSERT ... ON CONFLICT, joins of them with tables, statements that change no row,
-- a function shared by triggers of two tables, pg_trigger / pg_get_triggerdef /
-- information_schema, and PostgreSQL's errors for misuse. A body's inner lines do not end
-- with ';' (the file format ends a message there). Objects are named tt_...

-- name: tt_statement_insert_update_delete
DROP TABLE IF EXISTS tt_t, tt_log CASCADE;
DROP FUNCTION IF EXISTS tt_ins() CASCADE;
DROP FUNCTION IF EXISTS tt_upd() CASCADE;
DROP FUNCTION IF EXISTS tt_del() CASCADE;
CREATE TABLE tt_t (a int PRIMARY KEY, b text);
CREATE TABLE tt_log (op text, n bigint, detail text);
CREATE FUNCTION tt_ins() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO tt_log SELECT TG_OP || ' ' || TG_LEVEL, count(*), string_agg(nt::text, ' ' ORDER BY a) FROM nt; RAISE NOTICE '% %: % rows', TG_NAME, TG_LEVEL, (SELECT count(*) FROM nt); RETURN NULL; END $$;
CREATE FUNCTION tt_upd() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO tt_log SELECT TG_OP, count(*), string_agg(o.a || ':' || o.b || '->' || n.b, ' ' ORDER BY o.a) FROM ot o JOIN nt n ON o.a = n.a; RETURN NULL; END $$;
CREATE FUNCTION tt_del() RETURNS trigger LANGUAGE plpgsql AS $$ DECLARE r record; BEGIN FOR r IN SELECT * FROM ot ORDER BY a LOOP RAISE NOTICE 'deleted % %', r.a, r.b; END LOOP; INSERT INTO tt_log VALUES (TG_OP, (SELECT count(*) FROM ot), NULL); RETURN NULL; END $$;
CREATE TRIGGER tt_i AFTER INSERT ON tt_t REFERENCING NEW TABLE AS nt FOR EACH STATEMENT EXECUTE FUNCTION tt_ins();
CREATE TRIGGER tt_u AFTER UPDATE ON tt_t REFERENCING OLD TABLE AS ot NEW TABLE AS nt FOR EACH STATEMENT EXECUTE FUNCTION tt_upd();
CREATE TRIGGER tt_d AFTER DELETE ON tt_t REFERENCING OLD TABLE AS ot FOR EACH STATEMENT EXECUTE FUNCTION tt_del();
INSERT INTO tt_t VALUES (1, 'one'), (2, 'two'), (3, 'three');
INSERT INTO tt_t SELECT g, 'x' || g FROM generate_series(10, 14) g;
INSERT INTO tt_t SELECT 1, 'none' WHERE false;
UPDATE tt_t SET b = upper(b) WHERE a < 3;
UPDATE tt_t SET b = b WHERE a > 100;
DELETE FROM tt_t WHERE a >= 12;
DELETE FROM tt_t WHERE a > 100;
SELECT * FROM tt_log ORDER BY op, n, detail;
SELECT * FROM tt_t ORDER BY a;
DROP TABLE tt_t, tt_log;
DROP FUNCTION tt_ins(), tt_upd(), tt_del();

-- name: tt_row_level_sees_whole_statement
DROP TABLE IF EXISTS tt_r CASCADE;
DROP FUNCTION IF EXISTS tt_row() CASCADE;
CREATE TABLE tt_r (a int, b int);
CREATE FUNCTION tt_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF TG_OP = 'INSERT' THEN RAISE NOTICE 'row % of %: sum %', NEW.a, (SELECT count(*) FROM nt), (SELECT sum(b) FROM nt); RETURN NEW; END IF; RAISE NOTICE 'old % new %', (SELECT string_agg(a::text, ',' ORDER BY a) FROM ot), (SELECT string_agg(b::text, ',' ORDER BY b) FROM nt); RETURN NULL; END $$;
CREATE TRIGGER tt_ri AFTER INSERT ON tt_r REFERENCING NEW TABLE AS nt FOR EACH ROW EXECUTE FUNCTION tt_row();
CREATE TRIGGER tt_ru AFTER UPDATE ON tt_r REFERENCING NEW TABLE AS nt OLD TABLE AS ot FOR EACH ROW WHEN (OLD.a > 1) EXECUTE FUNCTION tt_row();
INSERT INTO tt_r VALUES (1, 10), (2, 20), (3, 30);
UPDATE tt_r SET b = b + 1;
UPDATE tt_r SET b = 0 WHERE a = 1;
SELECT * FROM tt_r ORDER BY a;
DROP TABLE tt_r;
DROP FUNCTION tt_row();

-- name: tt_upsert_and_shared_function
DROP TABLE IF EXISTS tt_u1, tt_u2 CASCADE;
DROP FUNCTION IF EXISTS tt_dump() CASCADE;
CREATE TABLE tt_u1 (a int PRIMARY KEY, b text);
CREATE TABLE tt_u2 (x text, a int, y numeric);
CREATE FUNCTION tt_dump() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE NOTICE '% on %: %', TG_NAME, TG_TABLE_NAME, (SELECT string_agg(new_table::text, ', ' ORDER BY a) FROM new_table); RETURN NULL; END $$;
CREATE TRIGGER tt_u1_i AFTER INSERT ON tt_u1 REFERENCING NEW TABLE AS new_table FOR EACH STATEMENT EXECUTE FUNCTION tt_dump();
CREATE TRIGGER tt_u1_u AFTER UPDATE ON tt_u1 REFERENCING NEW TABLE AS new_table FOR EACH STATEMENT EXECUTE FUNCTION tt_dump();
CREATE TRIGGER tt_u2_i AFTER INSERT ON tt_u2 REFERENCING NEW TABLE AS new_table FOR EACH STATEMENT EXECUTE FUNCTION tt_dump();
INSERT INTO tt_u1 VALUES (1, 'a'), (2, 'b');
INSERT INTO tt_u1 VALUES (2, 'B'), (3, 'c') ON CONFLICT (a) DO UPDATE SET b = excluded.b || '!';
INSERT INTO tt_u1 VALUES (3, 'C') ON CONFLICT DO NOTHING;
INSERT INTO tt_u2 VALUES ('p', 7, 1.5), ('q', 5, 2.5);
INSERT INTO tt_u1 VALUES (4, 'd');
ALTER TABLE tt_u1 ADD COLUMN c int DEFAULT 9;
INSERT INTO tt_u1 VALUES (5, 'e');
ALTER TABLE tt_u1 DROP COLUMN b;
INSERT INTO tt_u1 VALUES (6);
DROP TABLE tt_u1, tt_u2;
DROP FUNCTION tt_dump();

-- name: tt_dynamic_sql_and_returning
DROP TABLE IF EXISTS tt_dy CASCADE;
DROP FUNCTION IF EXISTS tt_dyn() CASCADE;
CREATE TABLE tt_dy (a int, b text);
CREATE FUNCTION tt_dyn() RETURNS trigger LANGUAGE plpgsql AS $$ DECLARE n int; BEGIN EXECUTE 'SELECT count(*) FROM ' || quote_ident(TG_ARGV[0]) INTO n; RAISE NOTICE 'dynamic count %', n; RETURN NULL; END $$;
CREATE TRIGGER tt_dy_t AFTER INSERT ON tt_dy REFERENCING NEW TABLE AS "New Rows" FOR EACH STATEMENT EXECUTE FUNCTION tt_dyn('New Rows');
INSERT INTO tt_dy VALUES (1, 'a'), (2, 'b') RETURNING *;
SELECT tgname, tgoldtable, tgnewtable FROM pg_trigger WHERE tgrelid = 'tt_dy'::regclass;
SELECT pg_get_triggerdef(oid), pg_get_triggerdef(oid, true) FROM pg_trigger WHERE tgrelid = 'tt_dy'::regclass;
DROP TABLE tt_dy;
DROP FUNCTION tt_dyn();

-- name: tt_catalog
DROP TABLE IF EXISTS tt_c CASCADE;
DROP FUNCTION IF EXISTS tt_nop() CASCADE;
CREATE TABLE tt_c (a int, b text);
CREATE FUNCTION tt_nop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
CREATE TRIGGER tt_c1 AFTER UPDATE ON tt_c REFERENCING OLD TABLE AS o NEW TABLE AS n FOR EACH ROW EXECUTE FUNCTION tt_nop();
CREATE TRIGGER tt_c2 AFTER DELETE ON tt_c REFERENCING OLD TABLE AS "Old" FOR EACH STATEMENT EXECUTE FUNCTION tt_nop('x');
CREATE TRIGGER tt_c3 AFTER INSERT ON tt_c REFERENCING NEW TABLE n FOR EACH STATEMENT EXECUTE FUNCTION tt_nop();
SELECT tgname, tgtype, tgoldtable, tgnewtable FROM pg_trigger WHERE tgrelid = 'tt_c'::regclass ORDER BY tgname;
SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = 'tt_c'::regclass ORDER BY tgname;
SELECT trigger_name, event_manipulation, action_orientation, action_reference_old_table, action_reference_new_table FROM information_schema.triggers WHERE event_object_table = 'tt_c' ORDER BY trigger_name;
CREATE OR REPLACE TRIGGER tt_c3 AFTER INSERT ON tt_c FOR EACH STATEMENT EXECUTE FUNCTION tt_nop();
SELECT tgname, tgoldtable, tgnewtable FROM pg_trigger WHERE tgname = 'tt_c3';
DROP TABLE tt_c;
DROP FUNCTION tt_nop();

-- name: tt_errors
-- @errors
DROP VIEW IF EXISTS tt_ev CASCADE;
DROP TABLE IF EXISTS tt_e, tt_p CASCADE;
DROP FUNCTION IF EXISTS tt_nop() CASCADE;
CREATE TABLE tt_e (a int, b text);
CREATE VIEW tt_ev AS SELECT * FROM tt_e;
CREATE TABLE tt_p (a int) PARTITION BY RANGE (a);
CREATE TABLE tt_p1 PARTITION OF tt_p FOR VALUES FROM (0) TO (10);
CREATE FUNCTION tt_nop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
CREATE TRIGGER x AFTER INSERT ON tt_ev REFERENCING NEW TABLE AS n FOR EACH STATEMENT EXECUTE FUNCTION tt_nop();
CREATE TRIGGER x BEFORE INSERT ON tt_e REFERENCING NEW TABLE AS n FOR EACH STATEMENT EXECUTE FUNCTION tt_nop();
CREATE TRIGGER x BEFORE INSERT ON tt_e REFERENCING NEW TABLE AS n FOR EACH ROW EXECUTE FUNCTION tt_nop();
CREATE TRIGGER x AFTER INSERT OR UPDATE ON tt_e REFERENCING NEW TABLE AS n FOR EACH STATEMENT EXECUTE FUNCTION tt_nop();
CREATE TRIGGER x AFTER UPDATE OF b ON tt_e REFERENCING NEW TABLE AS n FOR EACH STATEMENT EXECUTE FUNCTION tt_nop();
CREATE TRIGGER x AFTER INSERT ON tt_e REFERENCING OLD TABLE AS o FOR EACH STATEMENT EXECUTE FUNCTION tt_nop();
CREATE TRIGGER x AFTER DELETE ON tt_e REFERENCING NEW TABLE AS n FOR EACH STATEMENT EXECUTE FUNCTION tt_nop();
CREATE TRIGGER x AFTER UPDATE ON tt_e REFERENCING NEW TABLE AS n NEW TABLE AS m FOR EACH STATEMENT EXECUTE FUNCTION tt_nop();
CREATE TRIGGER x AFTER UPDATE ON tt_e REFERENCING OLD TABLE AS n OLD TABLE AS m FOR EACH STATEMENT EXECUTE FUNCTION tt_nop();
CREATE TRIGGER x AFTER UPDATE ON tt_e REFERENCING OLD TABLE AS n NEW TABLE AS n FOR EACH STATEMENT EXECUTE FUNCTION tt_nop();
CREATE TRIGGER x AFTER UPDATE ON tt_e REFERENCING OLD ROW AS r FOR EACH ROW EXECUTE FUNCTION tt_nop();
CREATE TRIGGER x AFTER TRUNCATE ON tt_e REFERENCING OLD TABLE AS o FOR EACH STATEMENT EXECUTE FUNCTION tt_nop();
CREATE TRIGGER x AFTER INSERT ON tt_p REFERENCING NEW TABLE AS n FOR EACH ROW EXECUTE FUNCTION tt_nop();
CREATE TRIGGER x AFTER INSERT ON tt_p1 REFERENCING NEW TABLE AS n FOR EACH ROW EXECUTE FUNCTION tt_nop();
CREATE TRIGGER x AFTER INSERT ON tt_p REFERENCING NEW TABLE AS n FOR EACH STATEMENT EXECUTE FUNCTION tt_nop();
CREATE TRIGGER y AFTER INSERT ON tt_p1 REFERENCING NEW TABLE AS n FOR EACH STATEMENT EXECUTE FUNCTION tt_nop();
CREATE CONSTRAINT TRIGGER z AFTER INSERT ON tt_e REFERENCING NEW TABLE AS n FOR EACH ROW EXECUTE FUNCTION tt_nop();
SELECT tgname, tgnewtable FROM pg_trigger WHERE tgrelid IN ('tt_p'::regclass, 'tt_p1'::regclass) ORDER BY tgname;
SELECT * FROM nt;
DROP VIEW tt_ev;
DROP TABLE tt_e, tt_p;
DROP FUNCTION tt_nop();

-- name: tt_not_visible_outside
-- @errors
DROP TABLE IF EXISTS tt_v CASCADE;
DROP FUNCTION IF EXISTS tt_outer() CASCADE;
DROP FUNCTION IF EXISTS tt_inner() CASCADE;
DROP FUNCTION IF EXISTS tt_sqlf() CASCADE;
CREATE TABLE tt_v (a int);
CREATE FUNCTION tt_inner() RETURNS bigint LANGUAGE plpgsql AS $$ BEGIN RETURN (SELECT count(*) FROM nt); END $$;
CREATE FUNCTION tt_outer() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE NOTICE 'own %', (SELECT count(*) FROM nt); RAISE NOTICE 'inner %', tt_inner(); RETURN NULL; END $$;
CREATE TRIGGER tt_v_t AFTER INSERT ON tt_v REFERENCING NEW TABLE AS nt FOR EACH STATEMENT EXECUTE FUNCTION tt_outer();
INSERT INTO tt_v VALUES (1), (2);
SELECT count(*) FROM tt_v;
DROP TABLE tt_v;
DROP FUNCTION tt_outer(), tt_inner();
