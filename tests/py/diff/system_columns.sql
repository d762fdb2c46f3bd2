-- Differential SQL cases: system column names (issue 31). A table's column may not take the
-- name of a system column (ctid, xmin, cmin, xmax, cmax, tableoid: 42701 on CREATE TABLE,
-- ADD COLUMN and RENAME COLUMN, where a view's may), a system column cannot be renamed, and
-- tableoid reads the table's OID; the types tid, xid and cid; ctid, xmin, xmax, cmin and cmax
-- read in queries, RETURNING and Tid Scans (transaction ids are compared, never shown).
-- Tables are named sc_...; no case shows an OID.

-- name: sc_name_conflicts
-- @errors
DROP TABLE IF EXISTS sc_t;
DROP VIEW IF EXISTS sc_v;
CREATE TABLE sc_t (a int, xmin int);
CREATE TABLE sc_t (a int, ctid text, ctid text);
CREATE TABLE sc_t (tableoid oid);
CREATE TABLE sc_t (a int, b text);
ALTER TABLE sc_t ADD COLUMN cmax int;
ALTER TABLE sc_t ADD COLUMN IF NOT EXISTS xmax int;
ALTER TABLE sc_t RENAME COLUMN b TO cmin;
ALTER TABLE sc_t RENAME COLUMN xmin TO x;
ALTER TABLE sc_t RENAME COLUMN b TO c;
CREATE TABLE sc_t2 AS SELECT 1 AS xmin;
CREATE VIEW sc_v AS SELECT a AS xmin, c FROM sc_t;
SELECT * FROM sc_v;
SELECT attname FROM pg_attribute WHERE attrelid = 'sc_t'::regclass AND attnum > 0 ORDER BY attnum;
DROP VIEW sc_v;
DROP TABLE sc_t;

-- name: sc_tableoid
DROP TABLE IF EXISTS sc_o;
CREATE TABLE sc_o (a int);
INSERT INTO sc_o VALUES (1), (2);
SELECT a, tableoid = 'sc_o'::regclass AS same, tableoid::regclass::text FROM sc_o ORDER BY a;
SELECT count(*) FROM sc_o WHERE tableoid = 'sc_o'::regclass;
DROP TABLE sc_o;

-- name: sc_tid_xid_cid_types
-- @errors
SELECT '(0,0)'::tid, '(0,1)'::tid, '(-1,0)'::tid, '(4294967295,65535)'::tid, '(,1)'::tid, '( 3, 4)x'::tid;
SELECT '(4294967296,1)'::tid;
SELECT '(1,65536)'::tid;
SELECT '(0)'::tid;
SELECT '(0,-1)'::tid;
SELECT '( 3 ,4)'::tid;
SELECT '(1,2)'::tid = '(1,2)', '(1,2)'::tid <> '(1,3)', '(1,2)'::tid < '(2,1)', '(1,2)'::tid <= '(1,2)', '(0,5)'::tid > '(0,4)', '(3,0)'::tid >= '(2,9)';
SELECT '(1,2)'::tid::text, '(5,6)'::text::tid, array['(0,1)','(0,2)']::tid[], pg_typeof('(0,1)'::tid), pg_typeof('1'::xid), pg_typeof('1'::cid);
SELECT t FROM unnest(array['(1,0)','(0,65535)','(0,2)']::tid[]) t ORDER BY t;
SELECT min(t), max(t) FROM unnest(array['(1,0)','(0,65535)','(0,2)']::tid[]) t;
SELECT '42'::xid, '-1'::xid, '0x10'::xid, '010'::xid, 'abc'::xid, '7'::cid;
SELECT '42'::xid = '42'::xid, '42'::xid <> '43'::xid, '42'::xid = 42, '4294967295'::xid = -1, '1'::xid <> 2, '7'::cid = '7'::cid;
SELECT '1'::xid < '2'::xid;
SELECT '4294967301'::xid8::xid, pg_typeof(pg_current_xact_id()::xid);
SELECT typname, typlen, typbyval, typcategory, typelem::regtype, typarray::regtype, typinput, typoutput, typreceive, typsend, typalign, typstorage FROM pg_type WHERE oid IN (27, 28, 29, 1010, 1011, 1012) ORDER BY oid;
SELECT oprname, oprleft::regtype, oprright::regtype FROM pg_operator WHERE oprleft IN ('tid'::regtype, 'xid'::regtype, 'cid'::regtype) ORDER BY 1, 2, 3;

-- name: sc_read_system_columns
-- @errors
DROP TABLE IF EXISTS sc_r;
CREATE TABLE sc_r (a int, b text);
INSERT INTO sc_r VALUES (1, 'x'), (2, 'y'), (3, 'z');
SELECT ctid, * FROM sc_r ORDER BY a;
SELECT * FROM sc_r ORDER BY a;
SELECT sc_r.ctid, r.xmax, r.cmin, r.cmax, r.a FROM sc_r, sc_r r WHERE r.a = sc_r.a ORDER BY 5;
SELECT a FROM sc_r ORDER BY ctid DESC;
SELECT * FROM sc_r WHERE ctid = '(0,2)';
SELECT a FROM sc_r WHERE ctid IN ('(0,1)', '(0,3)', '(0,0)', '(7,1)') ORDER BY a;
SELECT a FROM sc_r WHERE ctid = ANY (ARRAY['(0,3)'::tid, '(0,1)', '(0,9)', NULL]) ORDER BY a;
SELECT a FROM sc_r WHERE ctid = '(0,2)' AND a = 1;
SELECT a FROM sc_r WHERE ctid > '(0,1)' ORDER BY a;
SELECT x.a, y.b FROM sc_r x JOIN sc_r y ON x.ctid = y.ctid ORDER BY 1;
SELECT a, (SELECT r2.b FROM sc_r r2 WHERE r2.ctid = r.ctid) FROM sc_r r ORDER BY a;
SELECT count(*), bool_and(xmin = xmin), bool_and(xmax = 0), bool_and(cmin::text = '0') FROM sc_r;
SELECT min(ctid), max(ctid) FROM sc_r;
SELECT ctid, count(*) FROM sc_r GROUP BY ctid ORDER BY ctid;
SELECT a, ctid FROM sc_r GROUP BY a;
SELECT DISTINCT ctid FROM sc_r ORDER BY 1;
SELECT ctid FROM sc_r a, sc_r b;
SELECT xmin FROM (SELECT * FROM sc_r) s;
SELECT s.ctid FROM (SELECT * FROM sc_r) s;
DROP VIEW IF EXISTS sc_rv;
CREATE VIEW sc_rv AS SELECT * FROM sc_r;
SELECT ctid FROM sc_rv;
DROP VIEW sc_rv;
DROP TABLE sc_r;

-- name: sc_xmin_is_the_writer
DROP TABLE IF EXISTS sc_x;
CREATE TABLE sc_x (id int PRIMARY KEY, v int);
BEGIN;
INSERT INTO sc_x VALUES (1, 10), (2, 20);
SELECT id, xmin = pg_current_xact_id()::xid, xmin::text = (txid_current() % 4294967296)::text, xmax, cmin, cmax, ctid FROM sc_x ORDER BY id;
UPDATE sc_x SET v = 11 WHERE id = 1;
SELECT id, v, xmin = pg_current_xact_id()::xid, cmin, cmax, ctid FROM sc_x ORDER BY id;
COMMIT;
BEGIN;
UPDATE sc_x SET v = 21 WHERE id = 2 RETURNING id, ctid, xmin = pg_current_xact_id()::xid, xmax, cmin;
INSERT INTO sc_x VALUES (3, 30) RETURNING id, ctid, xmin = pg_current_xact_id()::xid, xmax, cmin, cmax;
SELECT id, xmin = pg_current_xact_id()::xid FROM sc_x ORDER BY id;
COMMIT;
SELECT id, xmin <> pg_current_xact_id()::xid FROM sc_x ORDER BY id;
BEGIN;
SELECT id FROM sc_x WHERE id = 1 FOR UPDATE;
SELECT id, xmax = pg_current_xact_id()::xid, xmax <> 0 FROM sc_x ORDER BY id;
COMMIT;
DELETE FROM sc_x WHERE id = 3 RETURNING id, ctid;
DROP TABLE sc_x;

-- name: sc_optimistic_concurrency_token
DROP TABLE IF EXISTS sc_o;
DROP TABLE IF EXISTS sc_tok;
CREATE TABLE sc_o (id int PRIMARY KEY, v text);
INSERT INTO sc_o VALUES (1, 'a'), (2, 'b');
CREATE TABLE sc_tok AS SELECT id, xmin::text::bigint AS tok FROM sc_o;
UPDATE sc_o SET v = 'a2' WHERE id = 1 AND xmin = (SELECT tok FROM sc_tok WHERE id = 1)::text::xid;
UPDATE sc_o SET v = 'a3' WHERE id = 1 AND xmin = (SELECT tok FROM sc_tok WHERE id = 1)::text::xid;
SELECT o.id, o.v, o.xmin::text::bigint = t.tok AS unchanged FROM sc_o o JOIN sc_tok t USING (id) ORDER BY id;
DROP TABLE sc_tok;
DROP TABLE sc_o;

-- name: sc_tid_scan_plans
DROP TABLE IF EXISTS sc_p;
CREATE TABLE sc_p (a int PRIMARY KEY, b text);
INSERT INTO sc_p VALUES (1, 'x'), (2, 'y');
EXPLAIN (COSTS OFF) SELECT * FROM sc_p WHERE ctid = '(0,1)';
EXPLAIN (COSTS OFF) SELECT * FROM sc_p WHERE ctid = ANY (ARRAY['(0,1)'::tid, '(0,2)']);
EXPLAIN (COSTS OFF) SELECT * FROM sc_p WHERE ctid IN ('(0,1)', '(0,2)');
EXPLAIN (COSTS OFF) SELECT * FROM sc_p WHERE ctid = '(0,1)' AND b = 'x';
EXPLAIN (COSTS OFF) SELECT * FROM sc_p WHERE ctid = '(0,1)' OR ctid = '(0,2)';
EXPLAIN (COSTS OFF) SELECT * FROM sc_p WHERE '(0,2)' = ctid;
SELECT a FROM sc_p WHERE ctid = '(0,1)' OR ctid = '(0,2)' OR ctid = '(0,0)' ORDER BY a;
EXPLAIN (COSTS OFF) UPDATE sc_p SET b = 'q' WHERE ctid = '(0,1)';
EXPLAIN (COSTS OFF) DELETE FROM sc_p WHERE ctid = '(0,2)';
UPDATE sc_p SET b = 'q' WHERE ctid = '(0,1)' RETURNING a, b, ctid;
SELECT a, b, ctid FROM sc_p ORDER BY a;
DELETE FROM sc_p WHERE ctid = '(0,2)' RETURNING a;
SELECT a, b FROM sc_p ORDER BY a;
DROP TABLE sc_p;

-- name: sc_assign_system_columns
-- @errors
DROP TABLE IF EXISTS sc_e;
CREATE TABLE sc_e (a int);
INSERT INTO sc_e (ctid) VALUES ('(0,1)');
INSERT INTO sc_e (xmin) VALUES ('1');
UPDATE sc_e SET xmin = '1';
UPDATE sc_e SET ctid = '(0,1)';
UPDATE sc_e SET tableoid = 1;
DROP TABLE sc_e;
