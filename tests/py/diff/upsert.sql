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
