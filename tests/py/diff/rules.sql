-- Rules (CREATE RULE, issue 32): the query rewriter's INSERT / UPDATE / DELETE rules on
-- tables and views, their catalog rows, and PostgreSQL's errors.

-- name: rules_also_log
-- DO ALSO rules on a table log each row inserted, updated and deleted, with NEW and OLD;
-- the statement's command tag is its own.
DROP TABLE IF EXISTS rl_t, rl_log CASCADE;
CREATE TABLE rl_t (id int PRIMARY KEY, v text, n int DEFAULT 42);
CREATE TABLE rl_log (op text, id int, oldv text, newv text, n int);
CREATE RULE rl_ins AS ON INSERT TO rl_t DO ALSO INSERT INTO rl_log VALUES ('ins', new.id, NULL, new.v, new.n);
CREATE RULE rl_upd AS ON UPDATE TO rl_t DO ALSO INSERT INTO rl_log VALUES ('upd', old.id, old.v, new.v, new.n);
CREATE RULE rl_del AS ON DELETE TO rl_t DO ALSO INSERT INTO rl_log VALUES ('del', old.id, old.v, NULL, old.n);
INSERT INTO rl_t VALUES (1, 'a'), (2, 'b');
INSERT INTO rl_t (v, id) VALUES ('c', 3);
INSERT INTO rl_t VALUES (4, DEFAULT, DEFAULT);
UPDATE rl_t SET v = v || 'x', n = n + 1 WHERE id <= 2;
UPDATE rl_t SET v = 'none' WHERE id = 99;
DELETE FROM rl_t WHERE id = 2;
SELECT * FROM rl_t ORDER BY id;
SELECT * FROM rl_log ORDER BY op, id;
DROP TABLE rl_t, rl_log;

-- name: rules_insert_select_and_from
-- NEW over INSERT ... SELECT, OLD / NEW over UPDATE ... FROM and DELETE ... USING; a rule
-- with several commands; an action that is INSERT ... SELECT.
DROP TABLE IF EXISTS rs_t, rs_log, rs_src, rs_c CASCADE;
CREATE TABLE rs_t (id int, v text);
CREATE TABLE rs_log (op text, id int, v text);
CREATE TABLE rs_src (a int, b text);
CREATE TABLE rs_c (k int);
INSERT INTO rs_src VALUES (20, 'x'), (21, 'y');
CREATE RULE rs_ins AS ON INSERT TO rs_t DO ALSO INSERT INTO rs_log SELECT 'ins', new.id, new.v;
CREATE RULE rs_upd AS ON UPDATE TO rs_t DO ALSO INSERT INTO rs_log VALUES ('upd', old.id, new.v);
CREATE RULE rs_del AS ON DELETE TO rs_t DO ALSO (INSERT INTO rs_c VALUES (old.id); INSERT INTO rs_c VALUES (old.id * 10));
INSERT INTO rs_t SELECT a, b FROM rs_src;
INSERT INTO rs_t (id) SELECT a + 100 FROM rs_src WHERE a = 20;
UPDATE rs_t SET v = rs_src.b || '!' FROM rs_src WHERE rs_t.id = rs_src.a;
DELETE FROM rs_t USING rs_src WHERE rs_t.id = rs_src.a AND rs_src.b = 'x';
SELECT * FROM rs_t ORDER BY id;
SELECT * FROM rs_log ORDER BY op, id;
SELECT * FROM rs_c ORDER BY k;
DROP TABLE rs_t, rs_log, rs_src, rs_c;

-- name: rules_instead_on_views
-- DO INSTEAD rules make a view writable; RETURNING from the rule's RETURNING list; the
-- command tag counts the rows of the rule's command of the same kind.
DROP TABLE IF EXISTS rv_t CASCADE;
CREATE TABLE rv_t (id int PRIMARY KEY, v text, hidden int DEFAULT 7);
CREATE VIEW rv_v AS SELECT id, v FROM rv_t;
CREATE RULE rv_ins AS ON INSERT TO rv_v DO INSTEAD INSERT INTO rv_t VALUES (new.id, new.v) RETURNING rv_t.id, rv_t.v;
CREATE RULE rv_upd AS ON UPDATE TO rv_v DO INSTEAD UPDATE rv_t SET v = new.v WHERE id = old.id RETURNING rv_t.id, rv_t.v;
CREATE RULE rv_del AS ON DELETE TO rv_v DO INSTEAD DELETE FROM rv_t WHERE id = old.id;
INSERT INTO rv_v VALUES (1, 'one'), (2, 'two');
INSERT INTO rv_v VALUES (3, 'three') RETURNING *;
INSERT INTO rv_v (v, id) VALUES ('four', 4) RETURNING id * 2 AS twice, upper(v);
UPDATE rv_v SET v = upper(v) WHERE id > 2;
UPDATE rv_v SET v = v || '!' WHERE id = 1 RETURNING v;
DELETE FROM rv_v WHERE id = 2;
DELETE FROM rv_v WHERE id = 1;
SELECT * FROM rv_v ORDER BY id;
SELECT * FROM rv_t ORDER BY id;
DROP TABLE rv_t CASCADE;

-- name: rules_conditional_instead
-- A conditional INSTEAD rule: its commands for the rows where the condition holds, the
-- original statement for the others; INSTEAD NOTHING drops the statement.
DROP TABLE IF EXISTS rc_t, rc_log CASCADE;
CREATE TABLE rc_t (id int, v text, n int);
CREATE TABLE rc_log (op text, id int, v text);
CREATE RULE rc_ins AS ON INSERT TO rc_t WHERE new.id > 100 DO INSTEAD INSERT INTO rc_log VALUES ('big', new.id, new.v);
INSERT INTO rc_t VALUES (1, 'a', 1), (200, 'b', 2), (3, 'c', 3), (NULL, 'd', 4);
CREATE RULE rc_upd AS ON UPDATE TO rc_t WHERE new.n > 5 DO INSTEAD INSERT INTO rc_log VALUES ('rejected', old.id, new.v);
UPDATE rc_t SET n = n * 2, v = v || v;
CREATE RULE rc_del AS ON DELETE TO rc_t WHERE old.v LIKE 'c%' DO INSTEAD NOTHING;
DELETE FROM rc_t;
SELECT * FROM rc_t ORDER BY id NULLS FIRST;
SELECT * FROM rc_log ORDER BY op, id;
CREATE RULE rc_nothing AS ON DELETE TO rc_log DO INSTEAD NOTHING;
DELETE FROM rc_log;
SELECT count(*) FROM rc_log;
DROP TABLE rc_t, rc_log;

-- name: rules_manage
-- CREATE OR REPLACE, ALTER RULE ... RENAME, ALTER TABLE ... DISABLE / ENABLE RULE, DROP
-- RULE [IF EXISTS], DROP TABLE taking its rules; pg_rewrite and pg_rules rows.
DROP TABLE IF EXISTS rm_t, rm_log CASCADE;
CREATE TABLE rm_t (id int);
CREATE TABLE rm_log (id int);
CREATE RULE rm_r AS ON INSERT TO rm_t DO ALSO INSERT INTO rm_log VALUES (new.id);
CREATE RULE rm_d AS ON DELETE TO rm_t DO INSTEAD NOTHING;
SELECT rulename, ev_type, ev_enabled, is_instead FROM pg_rewrite WHERE ev_class = 'rm_t'::regclass ORDER BY 1;
SELECT schemaname, tablename, rulename FROM pg_rules WHERE schemaname = 'public' ORDER BY rulename;
SELECT relhasrules FROM pg_class WHERE relname = 'rm_t';
INSERT INTO rm_t VALUES (1);
CREATE OR REPLACE RULE rm_r AS ON INSERT TO rm_t DO ALSO INSERT INTO rm_log VALUES (new.id * 100);
INSERT INTO rm_t VALUES (2);
ALTER RULE rm_r ON rm_t RENAME TO rm_r2;
ALTER TABLE rm_t DISABLE RULE rm_r2;
INSERT INTO rm_t VALUES (3);
SELECT rulename, ev_enabled FROM pg_rewrite WHERE ev_class = 'rm_t'::regclass ORDER BY 1;
ALTER TABLE rm_t ENABLE RULE rm_r2;
INSERT INTO rm_t VALUES (4);
DELETE FROM rm_t;
DROP RULE rm_d ON rm_t;
DROP RULE IF EXISTS rm_d ON rm_t;
DELETE FROM rm_t WHERE id = 1;
SELECT * FROM rm_t ORDER BY id;
SELECT * FROM rm_log ORDER BY id;
BEGIN;
DROP RULE rm_r2 ON rm_t;
ROLLBACK;
SELECT rulename FROM pg_rewrite WHERE ev_class = 'rm_t'::regclass;
DROP TABLE rm_t;
SELECT count(*) FROM pg_rules WHERE schemaname = 'public';
DROP TABLE rm_log;

-- name: rules_errors
-- @errors
-- PostgreSQL's errors for rules: duplicates, missing ones, OLD / NEW where the event has
-- none, NOTIFY with a condition, ON SELECT rules, RETURNING misuse, relations that cannot
-- have rules, infinite recursion, ON CONFLICT and WITH on a relation with rules.
DROP TABLE IF EXISTS re_t, re_c CASCADE;
DROP SEQUENCE IF EXISTS re_sq;
CREATE TABLE re_t (id int PRIMARY KEY, v text);
CREATE TABLE re_c (k int);
CREATE VIEW re_v AS SELECT * FROM re_t;
CREATE SEQUENCE re_sq;
CREATE INDEX re_i ON re_t (v);
CREATE RULE re_r AS ON INSERT TO re_t DO ALSO INSERT INTO re_c VALUES (new.id);
CREATE RULE re_r AS ON INSERT TO re_t DO ALSO NOTHING;
CREATE RULE re_bad AS ON INSERT TO re_t DO ALSO DELETE FROM re_c WHERE k = old.id;
CREATE RULE re_bad AS ON DELETE TO re_t DO ALSO INSERT INTO re_c VALUES (new.id);
CREATE RULE re_bad AS ON INSERT TO re_t WHERE new.id > 1 DO ALSO NOTIFY re_chan;
CREATE RULE re_bad AS ON INSERT TO re_t DO ALSO INSERT INTO re_c VALUES (new.id) RETURNING *;
CREATE RULE re_bad AS ON INSERT TO re_t WHERE new.id > 1 DO INSTEAD INSERT INTO re_c VALUES (new.id) RETURNING *;
CREATE RULE "_RETURN" AS ON INSERT TO re_t DO NOTHING;
CREATE RULE re_sel AS ON SELECT TO re_v DO INSTEAD SELECT * FROM re_t;
CREATE RULE re_sel AS ON SELECT TO re_t DO INSTEAD NOTHING;
CREATE RULE re_sel AS ON SELECT TO re_t DO ALSO SELECT * FROM re_t;
CREATE RULE re_bad AS ON INSERT TO re_i DO NOTHING;
CREATE RULE re_bad AS ON INSERT TO re_sq DO NOTHING;
CREATE RULE re_bad AS ON INSERT TO re_missing DO NOTHING;
DROP RULE re_missing ON re_t;
DROP RULE re_missing ON re_missing;
DROP RULE IF EXISTS re_missing ON re_missing;
DROP RULE "_RETURN" ON re_v;
ALTER RULE re_missing ON re_t RENAME TO re_x;
CREATE RULE re_r2 AS ON INSERT TO re_t DO ALSO NOTHING;
ALTER RULE re_r2 ON re_t RENAME TO re_r;
ALTER TABLE re_t DISABLE RULE re_missing;
INSERT INTO re_t VALUES (1, 'a') ON CONFLICT DO NOTHING;
WITH w AS (SELECT 1) INSERT INTO re_t VALUES (2, 'b');
CREATE RULE re_vd AS ON DELETE TO re_v DO INSTEAD DELETE FROM re_t WHERE id = old.id;
DELETE FROM re_v WHERE id = 1 RETURNING *;
CREATE RULE re_loop AS ON INSERT TO re_c DO ALSO INSERT INTO re_c VALUES (new.k + 1);
INSERT INTO re_c VALUES (1);
INSERT INTO re_t VALUES (4, 'd');
CREATE RULE re_vi AS ON INSERT TO re_v DO INSTEAD INSERT INTO re_v VALUES (new.id, new.v);
INSERT INTO re_v VALUES (5, 'e');
SELECT count(*) FROM re_t;
SELECT count(*) FROM re_c;
DROP TABLE re_t, re_c CASCADE;
DROP SEQUENCE re_sq;

-- name: rules_params
-- Statements with parameters rewritten by rules (the extended protocol binds them into the
-- rule's commands too); a prepared statement sees a rule created after it was prepared.
DROP TABLE IF EXISTS rp_t, rp_log CASCADE;
CREATE TABLE rp_t (id int, v text);
CREATE TABLE rp_log (id int, v text);
PREPARE rp_ins(int, text) AS INSERT INTO rp_t VALUES ($1, $2);
EXECUTE rp_ins(1, 'a');
CREATE RULE rp_r AS ON INSERT TO rp_t DO ALSO INSERT INTO rp_log VALUES (new.id, upper(new.v));
EXECUTE rp_ins(2, 'b');
PREPARE rp_upd(text, int) AS UPDATE rp_t SET v = $1 WHERE id = $2;
CREATE RULE rp_u AS ON UPDATE TO rp_t DO INSTEAD UPDATE rp_log SET v = new.v WHERE id = old.id;
EXECUTE rp_upd('z', 2);
SELECT * FROM rp_t ORDER BY id;
SELECT * FROM rp_log ORDER BY id;
DEALLOCATE rp_ins;
DEALLOCATE rp_upd;
DROP TABLE rp_t, rp_log;

-- name: rules_subquery_reads_old
-- A subquery in a rule command's FROM list reads NEW and OLD (PostgreSQL's rule actions may
-- refer to them anywhere).
DROP TABLE IF EXISTS rq_t, rq_log CASCADE;
CREATE TABLE rq_t (a int, b text);
CREATE TABLE rq_log (a int, c int);
CREATE RULE rq_ins AS ON INSERT TO rq_t DO ALSO INSERT INTO rq_log SELECT * FROM (SELECT a + 10, 0 FROM rq_t WHERE a = new.a) tt;
CREATE RULE rq_upd AS ON UPDATE TO rq_t DO ALSO UPDATE rq_log l SET c = tt.a * 10 FROM (SELECT a FROM rq_t WHERE a = old.a) tt WHERE l.a = tt.a + 10;
INSERT INTO rq_t VALUES (1, 'a'), (2, 'b');
UPDATE rq_t SET b = upper(b) WHERE a < 2;
SELECT * FROM rq_t ORDER BY a;
SELECT * FROM rq_log ORDER BY a;
DROP TABLE rq_t, rq_log;
