-- Differential SQL cases: constraint triggers (issue 32). CREATE CONSTRAINT TRIGGER ...
-- AFTER ... FOR EACH ROW with NOT DEFERRABLE / DEFERRABLE [INITIALLY IMMEDIATE | DEFERRED],
-- FROM and WHEN; fired at the statement's end when immediate, at COMMIT when deferred, and
-- at SET CONSTRAINTS ... IMMEDIATE; savepoints; pg_trigger, pg_constraint (contype 't'),
-- pg_get_triggerdef / pg_get_constraintdef; PostgreSQL's errors. Objects are named ct_...

-- name: ct_catalog
DROP TABLE IF EXISTS ct_t, ct_r;
DROP FUNCTION IF EXISTS ct_note();
CREATE TABLE ct_t (a int);
CREATE TABLE ct_r (a int);
CREATE FUNCTION ct_note() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE NOTICE '% % %', TG_NAME, TG_OP, coalesce(NEW.a, OLD.a); RETURN NULL; END $$;
CREATE CONSTRAINT TRIGGER ct_a AFTER INSERT OR UPDATE ON ct_t FROM ct_r DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ct_note();
CREATE CONSTRAINT TRIGGER ct_b AFTER DELETE ON ct_t NOT DEFERRABLE FOR EACH ROW WHEN (OLD.a > 1) EXECUTE FUNCTION ct_note();
CREATE CONSTRAINT TRIGGER ct_c AFTER UPDATE OF a ON ct_t DEFERRABLE FOR EACH ROW EXECUTE PROCEDURE ct_note();
CREATE CONSTRAINT TRIGGER ct_d AFTER INSERT ON ct_t INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ct_note();
SELECT tgname, tgtype, tgconstraint <> 0 AS has_constraint, tgconstrrelid::regclass::text, tgdeferrable, tginitdeferred, tgisinternal FROM pg_trigger WHERE tgrelid = 'ct_t'::regclass ORDER BY tgname;
SELECT conname, contype, condeferrable, condeferred, convalidated, conrelid::regclass::text, contypid, conindid, conparentid, confrelid, confupdtype, confdeltype, confmatchtype, conislocal, coninhcount, connoinherit, conkey, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'ct_t'::regclass ORDER BY conname;
SELECT t.tgname, c.conname FROM pg_trigger t JOIN pg_constraint c ON c.oid = t.tgconstraint WHERE t.tgrelid = 'ct_t'::regclass ORDER BY 1;
SELECT tgname, pg_get_triggerdef(oid), pg_get_triggerdef(oid, true) FROM pg_trigger WHERE tgrelid = 'ct_t'::regclass ORDER BY tgname;
DROP TRIGGER ct_b ON ct_t;
SELECT count(*) FROM pg_constraint WHERE conrelid = 'ct_t'::regclass;
DROP TABLE ct_t, ct_r;
DROP FUNCTION ct_note();

-- name: ct_immediate_and_deferred
DROP TABLE IF EXISTS ct_t, ct_log;
DROP FUNCTION IF EXISTS ct_logit();
CREATE TABLE ct_t (a int);
CREATE TABLE ct_log (n serial, what text);
CREATE FUNCTION ct_logit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO ct_log (what) VALUES (TG_NAME || ' ' || TG_OP || ' ' || coalesce(NEW.a, OLD.a)); RETURN NULL; END $$;
CREATE CONSTRAINT TRIGGER ct_imm AFTER INSERT OR DELETE ON ct_t FOR EACH ROW EXECUTE FUNCTION ct_logit();
CREATE CONSTRAINT TRIGGER ct_def AFTER INSERT OR UPDATE ON ct_t DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ct_logit();
CREATE CONSTRAINT TRIGGER ct_dim AFTER INSERT ON ct_t DEFERRABLE INITIALLY IMMEDIATE FOR EACH ROW WHEN (NEW.a <> 2) EXECUTE FUNCTION ct_logit();
BEGIN;
INSERT INTO ct_t VALUES (1), (2);
INSERT INTO ct_log (what) VALUES ('statement ended');
SELECT what FROM ct_log ORDER BY n;
COMMIT;
SELECT what FROM ct_log ORDER BY n;
TRUNCATE ct_log;
INSERT INTO ct_t VALUES (3);
SELECT what FROM ct_log ORDER BY n;
TRUNCATE ct_log;
BEGIN;
SET CONSTRAINTS ct_dim DEFERRED;
INSERT INTO ct_t VALUES (4);
UPDATE ct_t SET a = 40 WHERE a = 4;
INSERT INTO ct_log (what) VALUES ('before set immediate');
SET CONSTRAINTS ALL IMMEDIATE;
INSERT INTO ct_log (what) VALUES ('after set immediate');
INSERT INTO ct_t VALUES (5);
COMMIT;
SELECT what FROM ct_log ORDER BY n;
TRUNCATE ct_log;
BEGIN;
SET CONSTRAINTS ct_def IMMEDIATE;
INSERT INTO ct_t VALUES (6);
INSERT INTO ct_log (what) VALUES ('then');
SET CONSTRAINTS ct_def DEFERRED;
INSERT INTO ct_t VALUES (7);
INSERT INTO ct_log (what) VALUES ('end');
COMMIT;
SELECT what FROM ct_log ORDER BY n;
TRUNCATE ct_log;
BEGIN;
INSERT INTO ct_t VALUES (8);
SAVEPOINT s1;
INSERT INTO ct_t VALUES (9);
ROLLBACK TO SAVEPOINT s1;
INSERT INTO ct_t VALUES (10);
COMMIT;
SELECT what FROM ct_log ORDER BY n;
TRUNCATE ct_log;
BEGIN;
INSERT INTO ct_t VALUES (11);
ROLLBACK;
SELECT count(*) FROM ct_log;
DROP TABLE ct_t, ct_log;
DROP FUNCTION ct_logit();

-- name: ct_deferred_check_fails_at_commit
-- @errors
DROP TABLE IF EXISTS ct_acct;
DROP FUNCTION IF EXISTS ct_balance();
CREATE TABLE ct_acct (id int, amount int);
CREATE FUNCTION ct_balance() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF (SELECT sum(amount) FROM ct_acct) <> 0 THEN RAISE EXCEPTION 'unbalanced: %', (SELECT sum(amount) FROM ct_acct); END IF; RETURN NULL; END $$;
CREATE CONSTRAINT TRIGGER ct_balanced AFTER INSERT OR UPDATE OR DELETE ON ct_acct DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ct_balance();
BEGIN;
INSERT INTO ct_acct VALUES (1, 100);
INSERT INTO ct_acct VALUES (2, -100);
COMMIT;
SELECT * FROM ct_acct ORDER BY id;
BEGIN;
INSERT INTO ct_acct VALUES (3, 5);
COMMIT;
SELECT * FROM ct_acct ORDER BY id;
INSERT INTO ct_acct VALUES (4, 7);
SELECT * FROM ct_acct ORDER BY id;
BEGIN;
UPDATE ct_acct SET amount = 50 WHERE id = 1;
SET CONSTRAINTS ct_balanced IMMEDIATE;
COMMIT;
SELECT * FROM ct_acct ORDER BY id;
DROP TABLE ct_acct;
DROP FUNCTION ct_balance();

-- name: ct_errors
-- @errors
DROP TABLE IF EXISTS ct_t;
DROP VIEW IF EXISTS ct_v;
DROP FUNCTION IF EXISTS ct_nop();
CREATE TABLE ct_t (a int);
CREATE VIEW ct_v AS SELECT a FROM ct_t;
CREATE FUNCTION ct_nop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
CREATE CONSTRAINT TRIGGER ct_x BEFORE INSERT ON ct_t FOR EACH ROW EXECUTE FUNCTION ct_nop();
CREATE CONSTRAINT TRIGGER ct_x AFTER INSERT ON ct_t EXECUTE FUNCTION ct_nop();
CREATE CONSTRAINT TRIGGER ct_x AFTER INSERT ON ct_t FOR EACH STATEMENT EXECUTE FUNCTION ct_nop();
CREATE OR REPLACE CONSTRAINT TRIGGER ct_x AFTER INSERT ON ct_t FOR EACH ROW EXECUTE FUNCTION ct_nop();
CREATE CONSTRAINT TRIGGER ct_x AFTER INSERT ON ct_t FROM ct_nosuch FOR EACH ROW EXECUTE FUNCTION ct_nop();
CREATE CONSTRAINT TRIGGER ct_x AFTER INSERT ON ct_v FOR EACH ROW EXECUTE FUNCTION ct_nop();
CREATE CONSTRAINT TRIGGER ct_x AFTER INSERT ON ct_t NOT DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ct_nop();
CREATE CONSTRAINT TRIGGER ct_x AFTER INSERT ON ct_t FOR EACH ROW EXECUTE FUNCTION ct_nop();
CREATE CONSTRAINT TRIGGER ct_x AFTER INSERT ON ct_t FOR EACH ROW EXECUTE FUNCTION ct_nop();
CREATE TRIGGER ct_x AFTER INSERT ON ct_t FOR EACH ROW EXECUTE FUNCTION ct_nop();
CREATE OR REPLACE TRIGGER ct_x AFTER INSERT ON ct_t FOR EACH ROW EXECUTE FUNCTION ct_nop();
BEGIN;
SET CONSTRAINTS ct_x DEFERRED;
ROLLBACK;
BEGIN;
SET CONSTRAINTS ct_x IMMEDIATE;
SET CONSTRAINTS ct_nosuch DEFERRED;
ROLLBACK;
ALTER TABLE ct_t DROP CONSTRAINT ct_x;
DROP TRIGGER ct_x ON ct_t;
SELECT count(*) FROM pg_constraint WHERE conrelid = 'ct_t'::regclass;
DROP VIEW ct_v;
DROP TABLE ct_t;
DROP FUNCTION ct_nop();
