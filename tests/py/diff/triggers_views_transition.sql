-- Differential SQL cases: INSTEAD OF triggers on views (INSERT / UPDATE / DELETE through them,
-- on views that are not auto-updatable too: joins, aggregates), what the trigger returns
-- deciding the row count and RETURNING, statement-level triggers on views, NOTIFY from an
-- INSTEAD OF trigger, pg_trigger rows, and PostgreSQL's errors for triggers that views and
-- tables may not have. A body's inner lines do not end with ';' (the file format ends a
-- message there). Objects are named tv_...

-- name: tv_instead_of_on_join_view
DROP VIEW IF EXISTS tv_v CASCADE;
DROP TABLE IF EXISTS tv_a, tv_b CASCADE;
DROP FUNCTION IF EXISTS tv_ins() CASCADE;
DROP FUNCTION IF EXISTS tv_upd() CASCADE;
DROP FUNCTION IF EXISTS tv_del() CASCADE;
CREATE TABLE tv_a (id int PRIMARY KEY, name text);
CREATE TABLE tv_b (id int PRIMARY KEY, score int);
CREATE VIEW tv_v AS SELECT a.id, a.name, b.score FROM tv_a a JOIN tv_b b USING (id);
CREATE FUNCTION tv_ins() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.score < 0 THEN RETURN NULL; END IF; INSERT INTO tv_a VALUES (NEW.id, NEW.name); INSERT INTO tv_b VALUES (NEW.id, NEW.score); NEW.name := upper(NEW.name); RETURN NEW; END $$;
CREATE FUNCTION tv_upd() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE tv_a SET name = NEW.name WHERE id = OLD.id; UPDATE tv_b SET score = NEW.score WHERE id = OLD.id; RETURN NEW; END $$;
CREATE FUNCTION tv_del() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF OLD.score > 100 THEN RETURN NULL; END IF; DELETE FROM tv_b WHERE id = OLD.id; DELETE FROM tv_a WHERE id = OLD.id; RETURN OLD; END $$;
CREATE TRIGGER tv_v_ins INSTEAD OF INSERT ON tv_v FOR EACH ROW EXECUTE FUNCTION tv_ins();
CREATE TRIGGER tv_v_upd INSTEAD OF UPDATE ON tv_v FOR EACH ROW EXECUTE FUNCTION tv_upd();
INSERT INTO tv_v VALUES (1, 'one', 10), (2, 'two', -5), (3, 'three', 300) RETURNING *;
INSERT INTO tv_v (id, score) SELECT 4, 40 RETURNING id, name, score;
SELECT * FROM tv_v ORDER BY id;
UPDATE tv_v SET score = score + 1 WHERE id < 4 RETURNING *;
UPDATE tv_v SET name = 'four' WHERE id = 4;
CREATE TRIGGER tv_v_del INSTEAD OF DELETE ON tv_v FOR EACH ROW EXECUTE FUNCTION tv_del();
DELETE FROM tv_v RETURNING *;
SELECT * FROM tv_v ORDER BY id;
SELECT tgname, tgtype, tgenabled, tgconstraint, tgdeferrable, tginitdeferred, tgoldtable, tgnewtable FROM pg_trigger WHERE tgrelid = 'tv_v'::regclass ORDER BY tgname;
SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = 'tv_v'::regclass ORDER BY tgname;
SELECT event_manipulation, action_timing, action_orientation FROM information_schema.triggers WHERE event_object_table = 'tv_v' ORDER BY trigger_name, event_manipulation;
DROP VIEW tv_v;
DROP TABLE tv_a, tv_b;
DROP FUNCTION tv_ins(), tv_upd(), tv_del();

-- name: tv_aggregate_view_and_statement_triggers
DROP VIEW IF EXISTS tv_sum CASCADE;
DROP TABLE IF EXISTS tv_items, tv_log CASCADE;
DROP FUNCTION IF EXISTS tv_sum_upd() CASCADE;
DROP FUNCTION IF EXISTS tv_note() CASCADE;
CREATE TABLE tv_items (grp text, n int);
CREATE TABLE tv_log (seq serial, what text);
INSERT INTO tv_items VALUES ('a', 1), ('a', 2), ('b', 5);
CREATE VIEW tv_sum AS SELECT grp, sum(n) AS total, count(*) AS cnt FROM tv_items GROUP BY grp;
CREATE FUNCTION tv_sum_upd() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO tv_log (what) VALUES (TG_NAME || ' ' || TG_WHEN || ' ' || TG_LEVEL || ' ' || TG_OP || ' ' || coalesce(OLD.grp, '-') || ' ' || coalesce(NEW.total::text, '-')); IF TG_OP = 'UPDATE' THEN INSERT INTO tv_items VALUES (NEW.grp, NEW.total - OLD.total); RETURN NEW; END IF; RETURN OLD; END $$;
CREATE FUNCTION tv_note() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO tv_log (what) VALUES (TG_NAME || ' ' || TG_WHEN || ' ' || TG_LEVEL || ' ' || TG_OP || ' ' || TG_TABLE_NAME); PERFORM pg_notify('tv_chan', TG_NAME); RETURN NULL; END $$;
CREATE TRIGGER tv_sum_instead INSTEAD OF UPDATE ON tv_sum FOR EACH ROW EXECUTE FUNCTION tv_sum_upd();
CREATE TRIGGER tv_sum_before BEFORE UPDATE ON tv_sum FOR EACH STATEMENT EXECUTE FUNCTION tv_note();
CREATE TRIGGER tv_sum_after AFTER UPDATE OR INSERT ON tv_sum FOR EACH STATEMENT EXECUTE FUNCTION tv_note();
LISTEN tv_chan;
UPDATE tv_sum SET total = 10 WHERE grp = 'a' RETURNING *;
UPDATE tv_sum SET total = 0 WHERE grp = 'zzz';
SELECT * FROM tv_sum ORDER BY grp;
SELECT seq, what FROM tv_log ORDER BY seq;
UNLISTEN tv_chan;
DROP VIEW tv_sum;
DROP TABLE tv_items, tv_log;
DROP FUNCTION tv_sum_upd(), tv_note();

-- name: tv_errors
-- @errors
DROP VIEW IF EXISTS tv_ev CASCADE;
DROP TABLE IF EXISTS tv_et CASCADE;
DROP FUNCTION IF EXISTS tv_nop() CASCADE;
CREATE TABLE tv_et (id int, v text);
CREATE VIEW tv_ev AS SELECT * FROM tv_et;
CREATE FUNCTION tv_nop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
CREATE TRIGGER t1 INSTEAD OF INSERT ON tv_et FOR EACH ROW EXECUTE FUNCTION tv_nop();
CREATE TRIGGER t1 BEFORE INSERT ON tv_ev FOR EACH ROW EXECUTE FUNCTION tv_nop();
CREATE TRIGGER t1 AFTER UPDATE ON tv_ev FOR EACH ROW EXECUTE FUNCTION tv_nop();
CREATE TRIGGER t1 INSTEAD OF INSERT ON tv_ev FOR EACH STATEMENT EXECUTE FUNCTION tv_nop();
CREATE TRIGGER t1 INSTEAD OF UPDATE ON tv_ev FOR EACH ROW WHEN (OLD.id > 1) EXECUTE FUNCTION tv_nop();
CREATE TRIGGER t1 INSTEAD OF UPDATE OF v ON tv_ev FOR EACH ROW EXECUTE FUNCTION tv_nop();
CREATE TRIGGER t1 BEFORE TRUNCATE ON tv_ev EXECUTE FUNCTION tv_nop();
CREATE TRIGGER t1 AFTER INSERT ON tv_ev REFERENCING NEW TABLE AS n FOR EACH STATEMENT EXECUTE FUNCTION tv_nop();
CREATE TRIGGER t1 INSTEAD OF INSERT ON tv_ev FOR EACH ROW EXECUTE FUNCTION tv_nop();
INSERT INTO tv_ev VALUES (1, 'a') RETURNING *;
SELECT count(*) FROM tv_et;
DROP VIEW tv_ev;
DROP TABLE tv_et;
DROP FUNCTION tv_nop();
