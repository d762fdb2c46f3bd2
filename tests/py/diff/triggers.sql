-- Differential SQL cases: triggers (issue 32): CREATE [OR REPLACE] / DROP TRIGGER, BEFORE and
-- AFTER, FOR EACH ROW and FOR EACH STATEMENT, INSERT / UPDATE [OF] / DELETE / TRUNCATE, WHEN,
-- arguments and TG_* variables, NEW / OLD (changed, returned, NULL to skip the row), firing
-- order by name, ON CONFLICT, ENABLE / DISABLE, ALTER TRIGGER RENAME, pg_trigger and
-- pg_get_triggerdef, DROP FUNCTION with dependent triggers, and PostgreSQL's errors. A body's
-- inner lines do not end with ';' (the file format ends a message there). Tables and
-- functions are named tr_...

-- name: tr_row_triggers_change_and_skip
DROP TABLE IF EXISTS tr_t CASCADE;
DROP FUNCTION IF EXISTS tr_stamp() CASCADE;
DROP FUNCTION IF EXISTS tr_skip_big() CASCADE;
CREATE TABLE tr_t (id int PRIMARY KEY, name text, n int, note text);
CREATE FUNCTION tr_stamp() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.note := TG_OP || ':' || coalesce(NEW.note, '-'); NEW.name := upper(NEW.name); RETURN NEW; END $$;
CREATE FUNCTION tr_skip_big() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.n > 100 THEN RETURN NULL; END IF; RETURN NEW; END $$;
CREATE TRIGGER a_stamp BEFORE INSERT OR UPDATE ON tr_t FOR EACH ROW EXECUTE FUNCTION tr_stamp();
CREATE TRIGGER b_skip BEFORE INSERT OR UPDATE ON tr_t FOR EACH ROW EXECUTE FUNCTION tr_skip_big();
INSERT INTO tr_t VALUES (1, 'one', 1, NULL), (2, 'two', 200, 'x'), (3, 'three', 3, 'y') RETURNING *;
SELECT * FROM tr_t ORDER BY id;
UPDATE tr_t SET n = n * 50 RETURNING id, n, note;
UPDATE tr_t SET n = n + 1, name = 'renamed' WHERE id = 3 RETURNING *;
SELECT * FROM tr_t ORDER BY id;
DROP TABLE tr_t;
DROP FUNCTION tr_stamp(), tr_skip_big();

-- name: tr_tg_variables_and_order
DROP TABLE IF EXISTS tr_log, tr_u CASCADE;
DROP FUNCTION IF EXISTS tr_log_it() CASCADE;
CREATE TABLE tr_log (seq serial, what text);
CREATE TABLE tr_u (id int, v text);
CREATE FUNCTION tr_log_it() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO tr_log (what) VALUES (concat_ws(' ', TG_NAME, TG_WHEN, TG_LEVEL, TG_OP, TG_TABLE_NAME, TG_TABLE_SCHEMA, TG_RELNAME, TG_RELID = 'tr_u'::regclass, TG_NARGS, TG_ARGV[0], TG_ARGV[1], 'old=' || coalesce(OLD.v, 'null'), 'new=' || coalesce(NEW.v, 'null'))); IF TG_OP = 'DELETE' THEN RETURN OLD; END IF; RETURN NEW; END $$;
CREATE TRIGGER z_after_row AFTER INSERT OR UPDATE OR DELETE ON tr_u FOR EACH ROW EXECUTE FUNCTION tr_log_it('z', 42);
CREATE TRIGGER a_before_row BEFORE INSERT OR UPDATE OR DELETE ON tr_u FOR EACH ROW EXECUTE FUNCTION tr_log_it('a');
CREATE TRIGGER m_before_stmt BEFORE INSERT OR UPDATE OR DELETE ON tr_u FOR EACH STATEMENT EXECUTE FUNCTION tr_log_it();
CREATE TRIGGER m_after_stmt AFTER INSERT OR UPDATE OR DELETE ON tr_u EXECUTE FUNCTION tr_log_it();
CREATE TRIGGER b_before_row BEFORE INSERT ON tr_u FOR EACH ROW EXECUTE FUNCTION tr_log_it('b');
INSERT INTO tr_u VALUES (1, 'x'), (2, 'y');
UPDATE tr_u SET v = v || '!' WHERE id = 2;
DELETE FROM tr_u WHERE id = 1;
UPDATE tr_u SET v = 'none' WHERE id = 99;
SELECT seq, what FROM tr_log ORDER BY seq;
SELECT * FROM tr_u ORDER BY id;
DROP TABLE tr_u, tr_log;
DROP FUNCTION tr_log_it();

-- name: tr_when_and_update_of
DROP TABLE IF EXISTS tr_w, tr_wlog CASCADE;
DROP FUNCTION IF EXISTS tr_wlog_it() CASCADE;
CREATE TABLE tr_w (id int, a int, b int);
CREATE TABLE tr_wlog (what text);
CREATE FUNCTION tr_wlog_it() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO tr_wlog VALUES (TG_NAME || ' ' || NEW.id); RETURN NULL; END $$;
CREATE TRIGGER a_changed AFTER UPDATE ON tr_w FOR EACH ROW WHEN (OLD.a IS DISTINCT FROM NEW.a) EXECUTE FUNCTION tr_wlog_it();
CREATE TRIGGER b_of_b AFTER UPDATE OF b ON tr_w FOR EACH ROW EXECUTE FUNCTION tr_wlog_it();
CREATE TRIGGER c_big AFTER INSERT ON tr_w FOR EACH ROW WHEN (NEW.a > 10) EXECUTE FUNCTION tr_wlog_it();
INSERT INTO tr_w VALUES (1, 1, 1), (2, 20, 2);
UPDATE tr_w SET a = a WHERE id = 1;
UPDATE tr_w SET a = a + 1 WHERE id = 1;
UPDATE tr_w SET b = b WHERE id = 2;
UPDATE tr_w SET a = 5, b = 5 WHERE id = 2;
SELECT what FROM tr_wlog ORDER BY what;
DROP TABLE tr_w, tr_wlog;
DROP FUNCTION tr_wlog_it();

-- name: tr_after_triggers_see_the_statement
DROP TABLE IF EXISTS tr_c, tr_clog CASCADE;
DROP FUNCTION IF EXISTS tr_count() CASCADE;
CREATE TABLE tr_c (id int);
CREATE TABLE tr_clog (level text, n bigint);
CREATE FUNCTION tr_count() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO tr_clog SELECT TG_LEVEL, count(*) FROM tr_c; RETURN NULL; END $$;
CREATE TRIGGER tr_count_row AFTER INSERT ON tr_c FOR EACH ROW EXECUTE FUNCTION tr_count();
CREATE TRIGGER tr_count_stmt AFTER INSERT ON tr_c FOR EACH STATEMENT EXECUTE FUNCTION tr_count();
INSERT INTO tr_c SELECT g FROM generate_series(1, 3) g;
SELECT level, n FROM tr_clog ORDER BY level, n;
DROP TABLE tr_c, tr_clog;
DROP FUNCTION tr_count();

-- name: tr_errors_abort_the_statement
DROP TABLE IF EXISTS tr_e CASCADE;
DROP FUNCTION IF EXISTS tr_check() CASCADE;
CREATE TABLE tr_e (id int, v int);
CREATE FUNCTION tr_check() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.v < 0 THEN RAISE EXCEPTION 'negative value % for id %', NEW.v, NEW.id USING ERRCODE = 'check_violation'; END IF; RETURN NEW; END $$;
CREATE TRIGGER tr_check BEFORE INSERT OR UPDATE ON tr_e FOR EACH ROW EXECUTE FUNCTION tr_check();
-- @errors
INSERT INTO tr_e VALUES (1, 1), (2, -2);
SELECT count(*) FROM tr_e;
INSERT INTO tr_e VALUES (3, 3);
UPDATE tr_e SET v = -v;
SELECT * FROM tr_e ORDER BY id;
DROP TABLE tr_e;
DROP FUNCTION tr_check();

-- name: tr_on_conflict_truncate_and_enable
DROP TABLE IF EXISTS tr_k, tr_klog CASCADE;
DROP FUNCTION IF EXISTS tr_klog_it() CASCADE;
CREATE TABLE tr_k (id int PRIMARY KEY, v text);
CREATE TABLE tr_klog (what text, seq serial);
CREATE FUNCTION tr_klog_it() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO tr_klog (what) VALUES (TG_WHEN || ' ' || TG_LEVEL || ' ' || TG_OP || coalesce(' ' || NEW.v, '') || coalesce(' old ' || OLD.v, '')); RETURN NEW; END $$;
CREATE TRIGGER k1 BEFORE INSERT OR UPDATE ON tr_k FOR EACH ROW EXECUTE FUNCTION tr_klog_it();
CREATE TRIGGER k2 AFTER INSERT OR UPDATE ON tr_k FOR EACH ROW EXECUTE FUNCTION tr_klog_it();
CREATE TRIGGER k3 BEFORE TRUNCATE ON tr_k EXECUTE FUNCTION tr_klog_it();
INSERT INTO tr_k VALUES (1, 'a');
INSERT INTO tr_k VALUES (1, 'b') ON CONFLICT (id) DO UPDATE SET v = tr_k.v || excluded.v;
INSERT INTO tr_k VALUES (1, 'c') ON CONFLICT DO NOTHING;
ALTER TABLE tr_k DISABLE TRIGGER k1;
INSERT INTO tr_k VALUES (2, 'd');
ALTER TABLE tr_k DISABLE TRIGGER ALL;
INSERT INTO tr_k VALUES (3, 'e');
ALTER TABLE tr_k ENABLE TRIGGER ALL;
SELECT tgname, tgenabled FROM pg_trigger WHERE tgrelid = 'tr_k'::regclass ORDER BY tgname;
TRUNCATE tr_k;
SELECT what FROM tr_klog ORDER BY seq;
DROP TABLE tr_k, tr_klog;
DROP FUNCTION tr_klog_it();

-- name: tr_catalog_and_definition
DROP TABLE IF EXISTS tr_d CASCADE;
DROP FUNCTION IF EXISTS tr_noop() CASCADE;
CREATE TABLE tr_d (a int, b text, c int);
CREATE FUNCTION tr_noop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
CREATE TRIGGER x BEFORE INSERT ON tr_d FOR EACH ROW EXECUTE FUNCTION tr_noop('a', 1, b);
CREATE TRIGGER y AFTER UPDATE OF a, c ON tr_d FOR EACH ROW WHEN (old.a IS DISTINCT FROM new.a) EXECUTE FUNCTION tr_noop('x y', 'it''s');
CREATE TRIGGER z AFTER INSERT OR DELETE OR TRUNCATE ON tr_d EXECUTE PROCEDURE tr_noop();
SELECT tgname, tgtype, tgenabled, tgattr, tgnargs, tgargs, tgisinternal, tgconstraint, tgdeferrable, tginitdeferred, tgqual IS NOT NULL AS has_qual, tgoldtable, tgnewtable, tgparentid, tgfoid = (SELECT oid FROM pg_proc WHERE proname = 'tr_noop') AS fn FROM pg_trigger WHERE tgrelid = 'tr_d'::regclass ORDER BY tgname;
SELECT tgname, pg_get_triggerdef(oid), pg_get_triggerdef(oid, true) FROM pg_trigger WHERE tgrelid = 'tr_d'::regclass ORDER BY tgname;
SELECT relhastriggers FROM pg_class WHERE oid = 'tr_d'::regclass;
CREATE OR REPLACE TRIGGER x AFTER DELETE ON tr_d FOR EACH ROW EXECUTE FUNCTION tr_noop();
ALTER TRIGGER y ON tr_d RENAME TO y2;
SELECT tgname, pg_get_triggerdef(oid, true) FROM pg_trigger WHERE tgrelid = 'tr_d'::regclass ORDER BY tgname;
DROP TRIGGER y2 ON tr_d;
DROP TRIGGER IF EXISTS y2 ON tr_d;
DROP TRIGGER IF EXISTS y2 ON tr_no_such_table;
SELECT count(*) FROM pg_trigger WHERE tgrelid = 'tr_d'::regclass;
-- @errors
DROP FUNCTION tr_noop();
DROP FUNCTION tr_noop() CASCADE;
SELECT count(*) FROM pg_trigger WHERE tgrelid = 'tr_d'::regclass;
DROP TABLE tr_d;

-- name: tr_create_errors
DROP TABLE IF EXISTS tr_x CASCADE;
DROP VIEW IF EXISTS tr_xv;
DROP FUNCTION IF EXISTS tr_f() CASCADE;
DROP FUNCTION IF EXISTS tr_notrig() CASCADE;
CREATE TABLE tr_x (a int, b text);
CREATE VIEW tr_xv AS SELECT * FROM tr_x;
CREATE FUNCTION tr_f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
CREATE FUNCTION tr_notrig() RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE TRIGGER x BEFORE INSERT ON tr_x FOR EACH ROW EXECUTE FUNCTION tr_f();
-- @errors
CREATE TRIGGER x BEFORE INSERT ON tr_x FOR EACH ROW EXECUTE FUNCTION tr_f();
CREATE TRIGGER y BEFORE INSERT ON tr_xv FOR EACH ROW EXECUTE FUNCTION tr_f();
CREATE TRIGGER y INSTEAD OF INSERT ON tr_x FOR EACH ROW EXECUTE FUNCTION tr_f();
CREATE TRIGGER y INSTEAD OF INSERT ON tr_xv EXECUTE FUNCTION tr_f();
CREATE TRIGGER y BEFORE TRUNCATE ON tr_x FOR EACH ROW EXECUTE FUNCTION tr_f();
CREATE TRIGGER y BEFORE INSERT ON tr_x FOR EACH ROW EXECUTE FUNCTION tr_notrig();
CREATE TRIGGER y BEFORE INSERT ON tr_x FOR EACH ROW EXECUTE FUNCTION tr_nosuch();
CREATE TRIGGER y BEFORE INSERT ON tr_x FOR EACH ROW WHEN (old.a > 1) EXECUTE FUNCTION tr_f();
CREATE TRIGGER y BEFORE DELETE ON tr_x FOR EACH ROW WHEN (new.a > 1) EXECUTE FUNCTION tr_f();
CREATE TRIGGER y BEFORE DELETE ON tr_x FOR EACH ROW WHEN (a > 1) EXECUTE FUNCTION tr_f();
CREATE TRIGGER y BEFORE DELETE ON tr_x WHEN (old.a > 1) EXECUTE FUNCTION tr_f();
CREATE TRIGGER y BEFORE UPDATE OF zz ON tr_x FOR EACH ROW EXECUTE FUNCTION tr_f();
CREATE TRIGGER y BEFORE UPDATE OF a, a ON tr_x FOR EACH ROW EXECUTE FUNCTION tr_f();
CREATE TRIGGER y BEFORE INSERT ON tr_nosuch FOR EACH ROW EXECUTE FUNCTION tr_f();
CREATE TRIGGER y AFTER UPDATE ON tr_x FOR EACH ROW WHEN (old.a IS DISTINCT FROM new.a AND (SELECT 1) = 1) EXECUTE FUNCTION tr_f();
CREATE TRIGGER y AFTER UPDATE ON tr_x FOR EACH ROW WHEN (new.nosuch > 1) EXECUTE FUNCTION tr_f();
DROP TRIGGER nosuch ON tr_x;
ALTER TRIGGER x ON tr_x RENAME TO x;
ALTER TABLE tr_x DISABLE TRIGGER nosuch;
SELECT tr_f();
DROP TABLE tr_x CASCADE;
DROP FUNCTION tr_f(), tr_notrig();

-- name: tr_rollback_and_returned_rows
DROP TABLE IF EXISTS tr_r CASCADE;
DROP FUNCTION IF EXISTS tr_double() CASCADE;
CREATE TABLE tr_r (id int, v int);
CREATE FUNCTION tr_double() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.v := NEW.v * 2; RETURN NEW; END $$;
BEGIN;
CREATE TRIGGER tr_double BEFORE INSERT ON tr_r FOR EACH ROW EXECUTE FUNCTION tr_double();
INSERT INTO tr_r VALUES (1, 10);
ROLLBACK;
INSERT INTO tr_r VALUES (2, 10);
SELECT count(*) FROM pg_trigger WHERE tgname = 'tr_double';
CREATE TRIGGER tr_double BEFORE INSERT ON tr_r FOR EACH ROW EXECUTE FUNCTION tr_double();
INSERT INTO tr_r VALUES (3, 10) RETURNING *;
SELECT * FROM tr_r ORDER BY id;
DROP TABLE tr_r;
DROP FUNCTION tr_double();
