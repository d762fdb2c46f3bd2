-- Differential SQL cases: INSERT ... ON CONFLICT (DO NOTHING / DO UPDATE with EXCLUDED, the
-- conflict target inferred from unique indexes or named by constraint, RETURNING of the rows
-- inserted or updated), data-modifying statements in WITH, and CREATE TABLE AS / SELECT INTO
-- (issue 19). Every case creates tables named after the case (prefix up_) and drops them at
-- the end; the leading DROP TABLE IF EXISTS makes it idempotent. Multi-row results are ORDERed.

-- name: upsert_do_nothing
DROP TABLE IF EXISTS up_dn;
CREATE TABLE up_dn (id int PRIMARY KEY, v text, w int UNIQUE);
INSERT INTO up_dn VALUES (1, 'a', 10), (2, 'b', 20);
INSERT INTO up_dn VALUES (1, 'x', 11) ON CONFLICT DO NOTHING;
INSERT INTO up_dn VALUES (3, 'x', 20) ON CONFLICT DO NOTHING;
INSERT INTO up_dn VALUES (3, 'c', 30), (3, 'd', 31), (4, 'e', 40) ON CONFLICT DO NOTHING RETURNING *;
INSERT INTO up_dn VALUES (1, 'y', 50) ON CONFLICT (id) DO NOTHING RETURNING id;
INSERT INTO up_dn VALUES (5, 'y', NULL), (6, 'z', NULL) ON CONFLICT (w) DO NOTHING;
INSERT INTO up_dn SELECT g, 'g' || g, g * 100 FROM generate_series(1, 8) g ON CONFLICT DO NOTHING RETURNING id, v;
SELECT * FROM up_dn ORDER BY id;
DROP TABLE up_dn;

-- name: upsert_do_update
DROP TABLE IF EXISTS up_du;
CREATE TABLE up_du (id int PRIMARY KEY, v text, n int DEFAULT 0);
INSERT INTO up_du VALUES (1, 'a', 1), (2, 'b', 2);
INSERT INTO up_du VALUES (1, 'x', 5) ON CONFLICT (id) DO UPDATE SET v = excluded.v, n = up_du.n + excluded.n RETURNING *;
INSERT INTO up_du VALUES (3, 'c', 3) ON CONFLICT (id) DO UPDATE SET v = excluded.v RETURNING *;
INSERT INTO up_du AS t VALUES (2, 'y', 7), (4, 'd', 4) ON CONFLICT (id) DO UPDATE SET v = t.v || excluded.v, n = DEFAULT RETURNING t.id, t.v, t.n;
INSERT INTO up_du VALUES (1, 'z', 9) ON CONFLICT (id) DO UPDATE SET (v, n) = (excluded.v || '!', excluded.n * 2);
INSERT INTO up_du VALUES (2, 'w', 1) ON CONFLICT ON CONSTRAINT up_du_pkey DO UPDATE SET v = 'by constraint';
SELECT * FROM up_du ORDER BY id;
DROP TABLE up_du;

-- name: upsert_do_update_where
DROP TABLE IF EXISTS up_dw;
CREATE TABLE up_dw (id int PRIMARY KEY, v int);
INSERT INTO up_dw VALUES (1, 10), (2, 20);
INSERT INTO up_dw VALUES (1, 5), (2, 50), (3, 30) ON CONFLICT (id) DO UPDATE SET v = excluded.v WHERE excluded.v > up_dw.v RETURNING *;
INSERT INTO up_dw AS x VALUES (1, 100) ON CONFLICT (id) DO UPDATE SET v = 0 WHERE x.id = 5;
INSERT INTO up_dw VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET v = up_dw.v + 1 WHERE NULL;
SELECT * FROM up_dw ORDER BY id;
DROP TABLE up_dw;

-- name: upsert_target_inference
DROP TABLE IF EXISTS up_inf;
CREATE TABLE up_inf (a int, b int, c text, PRIMARY KEY (a, b));
CREATE UNIQUE INDEX up_inf_c ON up_inf (c);
INSERT INTO up_inf VALUES (1, 1, 'one');
INSERT INTO up_inf VALUES (1, 1, 'uno') ON CONFLICT (b, a) DO UPDATE SET c = excluded.c;
INSERT INTO up_inf VALUES (2, 2, 'uno') ON CONFLICT (c) DO UPDATE SET a = 5 RETURNING *;
INSERT INTO up_inf VALUES (7, 7, 'uno') ON CONFLICT (c) WHERE a > 0 DO NOTHING RETURNING *;
INSERT INTO up_inf VALUES (8, 8, 'eight') ON CONFLICT (a, b, a) DO NOTHING RETURNING *;
SELECT * FROM up_inf ORDER BY a;
DROP TABLE up_inf;

-- name: upsert_errors
-- @errors
DROP TABLE IF EXISTS up_err;
CREATE TABLE up_err (id int PRIMARY KEY, v text, w int UNIQUE CONSTRAINT w_pos CHECK (w > 0));
CREATE UNIQUE INDEX up_err_v ON up_err (v);
INSERT INTO up_err VALUES (1, 'a', 10);
INSERT INTO up_err VALUES (1, 'b', 11) ON CONFLICT (v, w) DO NOTHING;
INSERT INTO up_err VALUES (1, 'b', 11) ON CONFLICT (nope) DO NOTHING;
INSERT INTO up_err VALUES (1, 'b', 11) ON CONFLICT ON CONSTRAINT nope DO NOTHING;
INSERT INTO up_err VALUES (1, 'b', 11) ON CONFLICT ON CONSTRAINT up_err_v DO NOTHING;
INSERT INTO up_err VALUES (1, 'b', 11) ON CONFLICT ON CONSTRAINT w_pos DO NOTHING;
INSERT INTO up_err VALUES (1, 'b', 11) ON CONFLICT DO UPDATE SET v = 'x';
INSERT INTO up_err VALUES (1, 'b', 11) ON CONFLICT (id) DO UPDATE SET v = v;
INSERT INTO up_err VALUES (1, 'b', 11) ON CONFLICT (id) DO UPDATE SET nope = 1;
INSERT INTO up_err VALUES (1, 'b', 11) ON CONFLICT (id) DO UPDATE SET v = 'x' WHERE nope;
INSERT INTO up_err VALUES (1, 'b', 11) ON CONFLICT (id) DO UPDATE SET v = 'x' WHERE 1;
INSERT INTO up_err VALUES (1, 'b', 11) ON CONFLICT (id) DO UPDATE SET v = 'x' RETURNING excluded.v;
INSERT INTO up_err VALUES (1, 'b', 11) ON CONFLICT (id) DO UPDATE SET w = -1;
INSERT INTO up_err VALUES (1, 'b', -5) ON CONFLICT DO NOTHING;
INSERT INTO up_err VALUES (2, 'a', 12) ON CONFLICT (id) DO NOTHING;
INSERT INTO up_err VALUES (2, 'b', 20) ON CONFLICT (id) DO UPDATE SET w = 10;
INSERT INTO up_err VALUES (1, 'c', 10) ON CONFLICT (id) DO UPDATE SET w = 20;
INSERT INTO up_err VALUES (3, 'd', 30) ON CONFLICT (id) DO UPDATE SET w = 10;
INSERT INTO up_err VALUES (3, 'd', 31) ON CONFLICT (id) DO UPDATE SET w = 10;
INSERT INTO up_err VALUES (4, 'e', 40), (4, 'f', 41) ON CONFLICT (id) DO UPDATE SET v = excluded.v;
INSERT INTO up_err VALUES (1, 'g', 50), (1, 'h', 51) ON CONFLICT (id) DO UPDATE SET v = excluded.v;
INSERT INTO up_err VALUES (5, 'i', 60), (5, 'j', 61) ON CONFLICT (id) DO NOTHING;
SELECT * FROM up_err ORDER BY id;
DROP TABLE up_err;

-- name: upsert_in_transaction
DROP TABLE IF EXISTS up_tx;
CREATE TABLE up_tx (id int PRIMARY KEY, n int);
BEGIN;
INSERT INTO up_tx VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = up_tx.n + 1;
INSERT INTO up_tx VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = up_tx.n + 1;
INSERT INTO up_tx VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET n = up_tx.n + 1 RETURNING n;
SAVEPOINT s;
INSERT INTO up_tx VALUES (2, 1) ON CONFLICT (id) DO UPDATE SET n = up_tx.n + 1;
ROLLBACK TO s;
INSERT INTO up_tx VALUES (2, 10) ON CONFLICT (id) DO UPDATE SET n = up_tx.n + 1 RETURNING *;
COMMIT;
SELECT * FROM up_tx ORDER BY id;
DROP TABLE up_tx;

-- name: upsert_prepared
DROP TABLE IF EXISTS up_prep;
CREATE TABLE up_prep (k text PRIMARY KEY, hits int);
PREPARE hit(text) AS INSERT INTO up_prep VALUES ($1, 1) ON CONFLICT (k) DO UPDATE SET hits = up_prep.hits + excluded.hits RETURNING hits;
EXECUTE hit('a');
EXECUTE hit('a');
EXECUTE hit('b');
EXECUTE hit('a');
DEALLOCATE hit;
SELECT * FROM up_prep ORDER BY k;
DROP TABLE up_prep;

-- name: create_table_as
DROP TABLE IF EXISTS up_src, up_c1, up_c2, up_c3, up_c4, up_c5;
CREATE TABLE up_src (id int PRIMARY KEY, v varchar(10), n numeric(5, 2));
INSERT INTO up_src VALUES (1, 'a', 1.5), (2, 'b', 2.5), (3, 'c', NULL);
CREATE TABLE up_c1 AS SELECT * FROM up_src;
SELECT * FROM up_c1 ORDER BY id;
CREATE TABLE up_c2 (x, y) AS SELECT id, v, n FROM up_src WHERE id > 1;
SELECT * FROM up_c2 ORDER BY x;
CREATE TABLE up_c3 AS SELECT 1 AS a, 'lit' AS b, NULL AS c, 1.5 AS d, now() IS NOT NULL AS e WITH NO DATA;
SELECT a.attname, a.atttypid::int, a.atttypmod, a.attnotnull FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname = 'up_c3' AND a.attnum > 0 ORDER BY a.attnum;
SELECT count(*) FROM up_c3;
SELECT a.attname, a.atttypid::int, a.atttypmod FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname = 'up_c2' AND a.attnum > 0 ORDER BY a.attnum;
CREATE TABLE IF NOT EXISTS up_c1 AS SELECT * FROM up_src;
CREATE TABLE up_c4 AS VALUES (1, 'x'), (2, 'y');
SELECT * FROM up_c4 ORDER BY column1;
CREATE TABLE up_c5 AS WITH w AS (SELECT id * 10 AS t FROM up_src) SELECT count(*), sum(t) FROM w;
SELECT * FROM up_c5;
INSERT INTO up_c1 VALUES (1, 'dup', 0);
SELECT id, v FROM up_c1 ORDER BY id, v;
DROP TABLE up_src, up_c1, up_c2, up_c3, up_c4, up_c5;

-- name: select_into
DROP TABLE IF EXISTS up_si_src, up_si1, up_si2, up_si3;
CREATE TABLE up_si_src (id int, v text);
INSERT INTO up_si_src VALUES (1, 'a'), (2, 'b');
SELECT * INTO up_si1 FROM up_si_src WHERE id = 1;
SELECT * FROM up_si1;
SELECT id * 2 AS twice, upper(v) INTO TEMP up_si2 FROM up_si_src;
SELECT * FROM up_si2 ORDER BY twice;
SELECT 1 AS n INTO up_si3 UNION SELECT 2;
SELECT * FROM up_si3 ORDER BY n;
BEGIN;
SELECT * INTO up_si_tx FROM up_si_src;
SELECT count(*) FROM up_si_tx;
ROLLBACK;
SELECT count(*) FROM pg_class WHERE relname = 'up_si_tx';
DROP TABLE up_si_src, up_si1, up_si2, up_si3;

-- name: create_table_as_errors
-- @errors
DROP TABLE IF EXISTS up_ce_src, up_ce1;
CREATE TABLE up_ce_src (id int, v text);
CREATE TABLE up_ce1 AS SELECT * FROM up_ce_src;
CREATE TABLE up_ce1 AS SELECT * FROM up_ce_src;
CREATE TABLE up_ce2 (a, b, c) AS SELECT * FROM up_ce_src;
CREATE TABLE up_ce3 AS SELECT id, id FROM up_ce_src;
CREATE TABLE up_ce4 AS SELECT * FROM up_ce_nope;
CREATE TABLE up_ce5 AS SELECT 1 / 0 AS x;
SELECT * INTO up_ce1 FROM up_ce_src;
SELECT count(*) FROM pg_class WHERE relname LIKE 'up_ce%';
DROP TABLE up_ce_src, up_ce1;

-- name: with_delete_insert
DROP TABLE IF EXISTS up_wd, up_wd_log;
CREATE TABLE up_wd (id int PRIMARY KEY, v text);
CREATE TABLE up_wd_log (id int, v text, at_id int);
INSERT INTO up_wd VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd');
WITH d AS (DELETE FROM up_wd WHERE id <= 2 RETURNING *) INSERT INTO up_wd_log SELECT id, v, NULL FROM d;
WITH d AS (DELETE FROM up_wd WHERE id = 3 RETURNING *) INSERT INTO up_wd_log (id, v) SELECT id, v FROM d RETURNING *;
WITH m AS (DELETE FROM up_wd_log WHERE id = 1 RETURNING id, v) INSERT INTO up_wd SELECT * FROM m;
SELECT * FROM up_wd ORDER BY id;
SELECT * FROM up_wd_log ORDER BY id;
DROP TABLE up_wd, up_wd_log;

-- name: with_insert_select
DROP TABLE IF EXISTS up_wi;
CREATE TABLE up_wi (id int PRIMARY KEY, v text);
INSERT INTO up_wi VALUES (1, 'a');
WITH i AS (INSERT INTO up_wi VALUES (10, 'x'), (11, 'y') RETURNING id) SELECT * FROM i ORDER BY id;
WITH i AS (INSERT INTO up_wi VALUES (12, 'x') RETURNING id) SELECT 1 AS one;
WITH i AS (INSERT INTO up_wi VALUES (13, 'x') RETURNING id) SELECT * FROM up_wi ORDER BY id;
WITH i(new_id) AS (INSERT INTO up_wi VALUES (14, 'z') RETURNING id) SELECT new_id * 2 AS twice FROM i;
WITH i AS (INSERT INTO up_wi VALUES (15, 'y') RETURNING *) SELECT * FROM i, i AS i2;
WITH i AS (INSERT INTO up_wi VALUES (16, 'y') RETURNING *) SELECT (SELECT count(*) FROM i) AS n;
WITH i AS (INSERT INTO up_wi VALUES (17, 'y') RETURNING id) VALUES ((SELECT id FROM i));
WITH RECURSIVE i AS (INSERT INTO up_wi VALUES (18, 'r') RETURNING *) SELECT * FROM i;
WITH i AS (INSERT INTO up_wi SELECT g, 'g' FROM generate_series(20, 25) g RETURNING id) SELECT * FROM i ORDER BY id LIMIT 2;
WITH i AS (INSERT INTO up_wi VALUES (30, 'u') RETURNING id) SELECT id FROM i UNION SELECT 1 ORDER BY 1;
SELECT * FROM up_wi ORDER BY id;
DROP TABLE up_wi;

-- name: with_update
DROP TABLE IF EXISTS up_wu;
CREATE TABLE up_wu (id int PRIMARY KEY, v text);
INSERT INTO up_wu VALUES (1, 'a'), (2, 'b'), (3, 'c');
WITH u AS (UPDATE up_wu SET v = v || '!' RETURNING *) SELECT count(*) FROM u;
WITH u AS (UPDATE up_wu SET v = v || '?' RETURNING *) SELECT * FROM u ORDER BY id LIMIT 1;
SELECT * FROM up_wu ORDER BY id;
WITH u AS (UPDATE up_wu SET v = 'new' WHERE id = 1 RETURNING *) SELECT u.v AS new_v, t.v AS old_v FROM u JOIN up_wu t USING (id);
WITH u AS (UPDATE up_wu SET v = 'unread' WHERE id = 2) SELECT v FROM up_wu WHERE id = 2;
SELECT * FROM up_wu ORDER BY id;
DROP TABLE up_wu;

-- name: with_modifying_same_row
DROP TABLE IF EXISTS up_ws;
CREATE TABLE up_ws (id int PRIMARY KEY, v text);
INSERT INTO up_ws VALUES (10, 'a'), (11, 'b'), (12, 'c'), (13, 'd');
WITH d AS (DELETE FROM up_ws WHERE id = 10 RETURNING *) UPDATE up_ws SET v = 'upd' WHERE id = 10 RETURNING *;
WITH d AS (UPDATE up_ws SET v = 'cte' WHERE id = 11 RETURNING *) UPDATE up_ws SET v = 'outer' WHERE id = 11 RETURNING *;
WITH d AS (DELETE FROM up_ws WHERE id = 12 RETURNING *) DELETE FROM up_ws WHERE id = 12 RETURNING *;
WITH d AS (DELETE FROM up_ws WHERE id = 13 RETURNING *), e AS (INSERT INTO up_ws SELECT id + 100, v FROM d RETURNING *) SELECT * FROM e;
WITH d AS (DELETE FROM up_ws WHERE id = 113 RETURNING *) INSERT INTO up_ws VALUES (113, 'again') ON CONFLICT (id) DO UPDATE SET v = 'conflict' RETURNING *;
SELECT * FROM up_ws ORDER BY id;
DROP TABLE up_ws;

-- name: with_modifying_errors
-- @errors
DROP TABLE IF EXISTS up_we;
CREATE TABLE up_we (id int PRIMARY KEY, v text);
INSERT INTO up_we VALUES (1, 'a'), (2, 'b');
WITH d AS (DELETE FROM up_we) SELECT * FROM d;
SELECT * FROM (WITH d AS (DELETE FROM up_we RETURNING *) SELECT * FROM d) s;
SELECT (WITH d AS (DELETE FROM up_we RETURNING *) SELECT count(*) FROM d);
WITH a AS (WITH d AS (DELETE FROM up_we RETURNING *) SELECT * FROM d) SELECT * FROM a;
INSERT INTO up_we WITH d AS (DELETE FROM up_we RETURNING *) SELECT * FROM d;
(WITH d AS (DELETE FROM up_we RETURNING id) SELECT id FROM d) UNION SELECT 1;
BEGIN;
DECLARE c CURSOR FOR WITH i AS (INSERT INTO up_we VALUES (40, 'c') RETURNING *) SELECT * FROM i;
ROLLBACK;
WITH i AS (INSERT INTO up_we VALUES (1, 'dup') RETURNING *) SELECT * FROM i;
WITH i AS (INSERT INTO up_we VALUES (5, 'x') RETURNING *) SELECT 1 / 0;
WITH d AS (DELETE FROM up_we RETURNING *) SELECT * FROM d WHERE nope;
SELECT * FROM up_we ORDER BY id;
DROP TABLE up_we;

-- name: with_modifying_prepared
DROP TABLE IF EXISTS up_wp;
CREATE TABLE up_wp (id int PRIMARY KEY, v text);
PREPARE wp(int) AS WITH i AS (INSERT INTO up_wp VALUES ($1, 'p') RETURNING id) SELECT id * 2 AS twice FROM i;
EXECUTE wp(30);
EXECUTE wp(31);
DEALLOCATE wp;
CREATE TABLE up_wp2 AS WITH d AS (DELETE FROM up_wp WHERE id = 30 RETURNING *) SELECT * FROM d;
SELECT * FROM up_wp ORDER BY id;
SELECT * FROM up_wp2 ORDER BY id;
DROP TABLE up_wp, up_wp2;

-- name: returning_error_sends_no_rows
-- @errors
DROP TABLE IF EXISTS up_re;
CREATE TABLE up_re (id int PRIMARY KEY, v text);
INSERT INTO up_re VALUES (1, 'a'), (2, 'b'), (1, 'c') RETURNING *;
INSERT INTO up_re VALUES (1, 'a'), (2, 'b') RETURNING *;
UPDATE up_re SET id = 3 - id RETURNING *;
UPDATE up_re SET id = 5 RETURNING id, v;
INSERT INTO up_re VALUES (3, 'c'), (3, 'd') ON CONFLICT (id) DO UPDATE SET v = excluded.v RETURNING *;
WITH d AS (DELETE FROM up_re RETURNING *) SELECT id, 1 / (id - 2) FROM d ORDER BY id;
SELECT * FROM up_re ORDER BY id;
DROP TABLE up_re;

-- name: with_modifying_view
-- @errors
DROP TABLE IF EXISTS up_wv;
CREATE TABLE up_wv (id int PRIMARY KEY);
INSERT INTO up_wv VALUES (1);
CREATE VIEW up_wv_v AS WITH d AS (DELETE FROM up_wv RETURNING *) SELECT * FROM d;
SELECT count(*) FROM up_wv;
DROP TABLE up_wv;

-- name: upsert_more
DROP TABLE IF EXISTS up_more, up_plain;
CREATE TABLE up_more (id serial PRIMARY KEY, k text UNIQUE, n int DEFAULT 1);
INSERT INTO up_more (k) VALUES ('a'), ('b') ON CONFLICT (k) DO UPDATE SET n = up_more.n + 1 RETURNING *;
INSERT INTO up_more (k) VALUES ('a'), ('c') ON CONFLICT (k) DO UPDATE SET n = up_more.n + 1 RETURNING *;
WITH u AS (INSERT INTO up_more (k) VALUES ('a'), ('d') ON CONFLICT (k) DO UPDATE SET n = up_more.n * 10 RETURNING k, n) SELECT * FROM u ORDER BY k;
INSERT INTO up_more (k, n) SELECT k, 100 FROM up_more WHERE k < 'c' ORDER BY k ON CONFLICT (k) DO UPDATE SET n = excluded.n + (SELECT count(*) FROM up_more)::int RETURNING k, n;
SELECT * FROM up_more ORDER BY id;
CREATE TABLE up_plain (a int, b text);
INSERT INTO up_plain VALUES (1, 'x'), (1, 'x') ON CONFLICT DO NOTHING RETURNING *;
SELECT count(*) FROM up_plain;
DROP TABLE up_more, up_plain;
