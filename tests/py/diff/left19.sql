-- Differential SQL cases for the items of issue 19 left open: FOR UPDATE under ORDER BY /
-- LIMIT / OFFSET and over joins (plan shape and errors), pg_locks, lock_timeout, temporary
-- tables, pg_get_viewdef, sequence names. Tables are named after the case (prefix l19_); each
-- case drops what it made. Multi-session behaviour is in test_isolation_left19.py.

-- name: for_update_errors
-- @errors
DROP TABLE IF EXISTS l19_fu;
CREATE TABLE l19_fu (id int PRIMARY KEY, v int);
INSERT INTO l19_fu VALUES (1, 1), (2, 2), (3, 3);
SELECT DISTINCT v FROM l19_fu FOR UPDATE;
SELECT count(*) FROM l19_fu FOR SHARE;
SELECT v FROM l19_fu GROUP BY v FOR KEY SHARE;
SELECT v FROM l19_fu HAVING v > 1 FOR UPDATE;
SELECT v, count(*) FROM l19_fu FOR UPDATE;
SELECT sum(v) OVER () FROM l19_fu FOR NO KEY UPDATE;
SELECT generate_series(1, 2) FROM l19_fu FOR UPDATE;
SELECT * FROM l19_fu UNION SELECT * FROM l19_fu FOR UPDATE;
SELECT * FROM l19_fu FOR UPDATE OF nosuch;
SELECT * FROM l19_fu FOR SHARE OF l19_fu, nosuch NOWAIT;
SELECT * FROM l19_fu, generate_series(1, 2) g FOR UPDATE OF g;
SELECT * FROM l19_fu a JOIN l19_fu b ON true FOR UPDATE OF a.b;
WITH c AS (SELECT 1) SELECT * FROM l19_fu, c FOR UPDATE OF c;
SELECT * FROM l19_fu a LEFT JOIN l19_fu b ON a.id = b.id FOR UPDATE;
SELECT * FROM l19_fu a LEFT JOIN l19_fu b ON a.id = b.id FOR UPDATE OF b;
SELECT 1 FOR UPDATE;
DROP TABLE l19_fu;

-- name: for_update_order_limit_offset
BEGIN;
DROP TABLE IF EXISTS l19_fo;
CREATE TABLE l19_fo (id int PRIMARY KEY, v int);
INSERT INTO l19_fo VALUES (1, 30), (2, 20), (3, 10), (4, 40);
SELECT * FROM l19_fo ORDER BY v LIMIT 2 FOR UPDATE;
SELECT * FROM l19_fo ORDER BY id DESC OFFSET 1 LIMIT 2 FOR SHARE;
SELECT id, v * 2 AS twice FROM l19_fo WHERE v > 15 ORDER BY v DESC FOR NO KEY UPDATE SKIP LOCKED;
SELECT v FROM l19_fo ORDER BY id LIMIT 1 OFFSET 3 FOR KEY SHARE NOWAIT;
SELECT * FROM l19_fo WHERE id = 2 FOR UPDATE FOR SHARE;
SELECT * FROM l19_fo ORDER BY id FETCH FIRST 1 ROW ONLY FOR UPDATE;
ROLLBACK;

-- name: for_update_joins
BEGIN;
DROP TABLE IF EXISTS l19_fj, l19_fjc;
CREATE TABLE l19_fj (id int PRIMARY KEY, v int);
CREATE TABLE l19_fjc (id int PRIMARY KEY, p int, note text);
INSERT INTO l19_fj VALUES (1, 10), (2, 20);
INSERT INTO l19_fjc VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 2, 'c');
SELECT c.id, c.note, t.v FROM l19_fjc c JOIN l19_fj t ON t.id = c.p ORDER BY c.id FOR UPDATE;
SELECT c.id, t.v FROM l19_fjc c JOIN l19_fj t ON t.id = c.p ORDER BY c.id DESC LIMIT 2 FOR UPDATE OF t;
SELECT c.id, t.v FROM l19_fjc c, l19_fj t WHERE t.id = c.p AND c.note <> 'b' FOR SHARE OF c FOR UPDATE OF t;
SELECT t.id, c.id FROM l19_fj t LEFT JOIN l19_fjc c ON t.id = c.p ORDER BY 1, 2 FOR UPDATE OF t;
SELECT * FROM (SELECT * FROM l19_fj ORDER BY id FOR UPDATE) s ORDER BY id DESC;
ROLLBACK;

-- name: for_update_explain
BEGIN;
DROP TABLE IF EXISTS l19_fe;
CREATE TABLE l19_fe (id int PRIMARY KEY, v int);
EXPLAIN (COSTS OFF) SELECT * FROM l19_fe ORDER BY v LIMIT 1 FOR UPDATE SKIP LOCKED;
EXPLAIN (COSTS OFF) SELECT * FROM l19_fe WHERE v > 1 FOR SHARE;
ROLLBACK;

-- name: pg_locks_lock_table
DROP TABLE IF EXISTS l19_lk;
CREATE TABLE l19_lk (id int);
BEGIN;
LOCK TABLE l19_lk IN SHARE MODE;
SELECT locktype, relation = 'l19_lk'::regclass AS is_t, page, tuple, transactionid, classid, objid, objsubid, mode, granted, fastpath, waitstart, database = (SELECT oid FROM pg_database WHERE datname = current_database()) AS this_db, pid = pg_backend_pid() AS mine FROM pg_locks WHERE relation = 'l19_lk'::regclass;
SELECT * FROM l19_lk;
INSERT INTO l19_lk VALUES (1);
SELECT mode, granted, fastpath FROM pg_locks WHERE relation = 'l19_lk'::regclass ORDER BY mode;
COMMIT;
SELECT count(*) FROM pg_locks WHERE relation = 'l19_lk'::regclass;
BEGIN;
SELECT * FROM l19_lk FOR UPDATE;
SELECT mode, granted, fastpath FROM pg_locks WHERE relation = 'l19_lk'::regclass ORDER BY mode;
SELECT * FROM pg_locks WHERE false;
SELECT count(*) > 0 AS has_vxid FROM pg_locks WHERE locktype = 'virtualxid' AND pid = pg_backend_pid() AND mode = 'ExclusiveLock' AND granted;
ROLLBACK;
DROP TABLE l19_lk;

-- name: regclass_of_user_tables
-- @errors
DROP TABLE IF EXISTS l19_rc;
CREATE TABLE l19_rc (id int);
-- (text: a user relation's regclass is sent by name in binary too, not yet as an OID)
SELECT 'l19_rc'::regclass::text, 'public.l19_rc'::regclass::text, '"l19_rc"'::regclass::text;
SELECT 'l19_rc'::regclass::oid = (SELECT oid FROM pg_class WHERE relname = 'l19_rc');
SELECT relname FROM pg_class WHERE oid = 'l19_rc'::regclass;
SELECT count(*) FROM pg_attribute WHERE attrelid = 'l19_rc'::regclass AND attnum > 0;
SELECT 'pg_class'::regclass::text, 'l19_nosuch'::regclass;
SELECT 'public.l19_nosuch'::regclass;
DROP TABLE l19_rc;

-- name: temp_tables_basics
-- @errors
DROP TABLE IF EXISTS l19_tt;
CREATE TEMP TABLE l19_tt (a int PRIMARY KEY, b text);
INSERT INTO l19_tt VALUES (1, 'one'), (2, 'two');
SELECT * FROM l19_tt ORDER BY a;
SELECT * FROM pg_temp.l19_tt ORDER BY a;
SELECT c.relname, c.relpersistence, n.nspname LIKE 'pg_temp\_%' AS in_temp, pg_table_is_visible(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relname LIKE 'l19\_tt%' ORDER BY 1;
CREATE TABLE l19_tt (z int);
SELECT * FROM l19_tt ORDER BY a;
SELECT * FROM public.l19_tt;
DROP TABLE l19_tt;
SELECT * FROM l19_tt;
DROP TABLE l19_tt;
CREATE TEMPORARY TABLE public.l19_tt2 (a int);
CREATE TABLE l19_tt3 (a int) ON COMMIT DROP;
CREATE TABLE pg_temp.l19_tt4 (a int);
SELECT relpersistence FROM pg_class WHERE relname = 'l19_tt4';
CREATE TEMP TABLE l19_tt5 AS SELECT 1 AS x;
SELECT * FROM l19_tt5;
CREATE TEMP TABLE l19_tt6 (id serial PRIMARY KEY, v text DEFAULT 'd');
INSERT INTO l19_tt6 DEFAULT VALUES RETURNING *;
SELECT pg_get_serial_sequence('l19_tt6', 'id') LIKE 'pg_temp\_%.l19_tt6_id_seq';
DISCARD TEMP;
SELECT * FROM l19_tt4;
SELECT * FROM l19_tt5;
SELECT count(*) FROM pg_class WHERE relname LIKE 'l19\_tt%';

-- name: temp_tables_on_commit
-- @errors
CREATE TEMP TABLE l19_oc_keep (a int) ON COMMIT PRESERVE ROWS;
CREATE TEMP TABLE l19_oc_del (a int) ON COMMIT DELETE ROWS;
INSERT INTO l19_oc_keep VALUES (1);
INSERT INTO l19_oc_del VALUES (1);
SELECT * FROM l19_oc_keep;
SELECT * FROM l19_oc_del;
BEGIN;
INSERT INTO l19_oc_del VALUES (2), (3);
SELECT count(*) FROM l19_oc_del;
COMMIT;
SELECT count(*) FROM l19_oc_del;
BEGIN;
CREATE TEMP TABLE l19_oc_drop (a int) ON COMMIT DROP;
INSERT INTO l19_oc_drop VALUES (1);
SELECT * FROM l19_oc_drop;
COMMIT;
SELECT * FROM l19_oc_drop;
BEGIN;
CREATE TEMP TABLE l19_oc_drop (a int) ON COMMIT DROP;
ROLLBACK;
SELECT * FROM l19_oc_drop;
BEGIN;
CREATE TEMP TABLE l19_oc_drop2 ON COMMIT DROP AS SELECT 5 AS v;
SELECT * FROM l19_oc_drop2;
COMMIT;
SELECT * FROM l19_oc_drop2;
DISCARD ALL;
SELECT * FROM l19_oc_keep;
SELECT * FROM l19_oc_del;

-- name: pg_get_viewdef_pretty
DROP VIEW IF EXISTS l19_v1, l19_v2, l19_v3, l19_v4, l19_v5, l19_v6, l19_v7, l19_v8, l19_vq;
DROP TABLE IF EXISTS l19_vi, l19_vu;
CREATE TABLE l19_vi (id int PRIMARY KEY, name text NOT NULL DEFAULT 'x', price numeric(10,2), code varchar(20));
CREATE TABLE l19_vu (id int, tid int, note text);
CREATE VIEW l19_v1 AS SELECT id, name FROM l19_vi WHERE price < 10;
CREATE VIEW l19_v2 AS SELECT i.id AS ident, upper(i.name) AS n, price * 2 AS p2 FROM l19_vi i WHERE i.name LIKE 'a%' AND id > 3 ORDER BY id DESC LIMIT 5;
CREATE VIEW l19_v3 AS SELECT *, 'x' AS s, 2 FROM l19_vi;
CREATE VIEW l19_v4 AS SELECT count(*) AS c, name FROM l19_vi GROUP BY name HAVING count(*) > 1;
CREATE VIEW l19_v5 AS SELECT DISTINCT name FROM l19_vi WHERE code IS NOT NULL AND id IN (1, 2);
CREATE VIEW l19_v6 AS SELECT i.id, l19_vu.note FROM l19_vi i LEFT JOIN l19_vu ON l19_vu.tid = i.id JOIN l19_vu u2 ON u2.id = l19_vu.id ORDER BY 1 NULLS FIRST, l19_vu.note DESC NULLS LAST OFFSET 2;
CREATE VIEW l19_v7 (a, b) AS SELECT a.id, b.note FROM l19_vi a, l19_vu b WHERE a.id = b.tid;
CREATE VIEW l19_v8 AS SELECT a.id FROM l19_vi a JOIN (l19_vu b JOIN l19_vu c ON b.id = c.id) ON a.id = b.id;
SELECT c.relname, pg_get_viewdef(c.oid, true) FROM pg_class c WHERE c.relname LIKE 'l19\_v_' ORDER BY 1;
SELECT pg_get_viewdef(0, true), pg_get_viewdef('l19_vi'::regclass, true);
CREATE VIEW l19_vq AS SELECT id AS "a$b", name AS "select", code AS "Code", 'it''s a\b'::text AS lit FROM l19_vi;
SELECT pg_get_viewdef('l19_vq'::regclass, true);
DROP VIEW l19_v1, l19_v2, l19_v3, l19_v4, l19_v5, l19_v6, l19_v7, l19_v8, l19_vq;
DROP TABLE l19_vi, l19_vu;

-- name: sequences_in_other_schemas
-- @errors
DROP SCHEMA IF EXISTS l19s CASCADE;
CREATE SCHEMA l19s;
CREATE SEQUENCE l19s.sq;
CREATE TABLE l19s.t (id serial PRIMARY KEY, v int);
SELECT nextval('l19s.sq'), currval('l19s.sq'), setval('l19s.sq', 10), nextval('l19s.sq');
SELECT nextval('l19s.sq'::regclass), currval('"l19s"."sq"');
SELECT nextval('sq');
SET search_path = l19s, public;
SELECT nextval('sq'), currval('sq');
INSERT INTO t (v) VALUES (1) RETURNING *;
SELECT nextval('nosuch.sq');
SELECT nextval('l19s.nosuch');
SELECT pg_get_serial_sequence('l19s.t', 'id'), pg_get_serial_sequence('t', 'id');
SELECT last_value FROM l19s.sq;
SELECT last_value FROM sq;
RESET search_path;
INSERT INTO l19s.t (v) VALUES (2) RETURNING *;
SELECT * FROM l19s.t ORDER BY id;
DROP SCHEMA l19s CASCADE;

-- name: explain_table_aliases
BEGIN;
DROP TABLE IF EXISTS l19_ea;
CREATE TABLE l19_ea (id int PRIMARY KEY, v int);
EXPLAIN (COSTS OFF) SELECT * FROM l19_ea x WHERE x.v = 1;
EXPLAIN (COSTS OFF) SELECT * FROM l19_ea x WHERE x.id = 1;
EXPLAIN (COSTS OFF) SELECT * FROM l19_ea l19_ea WHERE v = 1;
EXPLAIN (COSTS OFF) SELECT * FROM l19_ea AS "X" JOIN l19_ea y ON "X".id = y.id;
EXPLAIN (COSTS OFF) SELECT * FROM l19_ea x ORDER BY x.id DESC LIMIT 1 FOR UPDATE;
EXPLAIN (COSTS OFF) UPDATE l19_ea x SET v = 1 WHERE x.id = 1;
EXPLAIN (COSTS OFF) DELETE FROM l19_ea x WHERE v = 2;
ROLLBACK;

-- name: temp_views_and_sequences
CREATE TEMP TABLE l19_tvt (a int);
INSERT INTO l19_tvt VALUES (1);
CREATE TEMP VIEW l19_tvv AS SELECT a FROM l19_tvt;
CREATE TEMP SEQUENCE l19_tvs;
SELECT nextval('l19_tvs'), * FROM l19_tvv;
SELECT relname, relpersistence, n.nspname LIKE 'pg_temp\_%' AS in_temp FROM pg_class c JOIN pg_namespace n ON n.oid = relnamespace WHERE relname LIKE 'l19\_tv_' ORDER BY 1;
SELECT pg_get_viewdef('l19_tvv'::regclass, true);
DISCARD TEMP;
SELECT count(*) FROM pg_class WHERE relname LIKE 'l19\_tv_';

-- name: temp_schema_functions
CREATE TEMP TABLE l19_tsf (a int);
SELECT pg_my_temp_schema() = (SELECT relnamespace FROM pg_class WHERE relname = 'l19_tsf') AS mine;
SELECT pg_is_other_temp_schema(pg_my_temp_schema()), pg_is_other_temp_schema(11), pg_is_other_temp_schema(2200);
SELECT nspname = 'pg_temp_' || substr(nspname, 9) AS named_as_pg FROM pg_namespace WHERE oid = pg_my_temp_schema();
DROP TABLE l19_tsf;
