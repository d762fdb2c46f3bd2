-- Differential SQL cases: DML on tables (issue 19): INSERT (VALUES, SELECT, column lists,
-- DEFAULT, RETURNING), constraint and type errors, SELECT over tables (index and sequential
-- paths, joins, aggregates, subqueries), UPDATE [FROM], DELETE [USING], and their
-- transactional behaviour (failed blocks, savepoints, rollback). Every case creates tables
-- named after the case (prefix dm_) and drops them at the end; the leading DROP TABLE IF
-- EXISTS makes it idempotent (its NOTICE is compared too). Multi-row results are ORDERed.

-- name: dml_insert_values
DROP TABLE IF EXISTS dm_ins;
CREATE TABLE dm_ins (id int PRIMARY KEY, name text, score numeric(6, 2));
INSERT INTO dm_ins VALUES (1, 'one', 1.5);
INSERT INTO dm_ins VALUES (2, 'two', 2.25), (3, 'three', NULL), (4, 'four', 4.999);
INSERT INTO dm_ins (name, id) VALUES ('five', 5);
SELECT * FROM dm_ins ORDER BY id;
SELECT count(*) FROM dm_ins;
DROP TABLE dm_ins;

-- name: dml_insert_select
DROP TABLE IF EXISTS dm_src, dm_dst;
CREATE TABLE dm_src (id int PRIMARY KEY, v text);
CREATE TABLE dm_dst (id int8 PRIMARY KEY, v varchar(20), doubled int);
INSERT INTO dm_src SELECT g, 'v' || g FROM generate_series(1, 5) g;
INSERT INTO dm_dst (id, v, doubled) SELECT id, upper(v), id * 2 FROM dm_src WHERE id > 2;
INSERT INTO dm_dst SELECT 100, 'const', 0;
INSERT INTO dm_dst SELECT id + 1000, v, NULL FROM dm_src WHERE false;
SELECT * FROM dm_dst ORDER BY id;
DROP TABLE dm_src, dm_dst;

-- name: dml_insert_defaults
DROP TABLE IF EXISTS dm_def;
CREATE TABLE dm_def (id int DEFAULT 0, a text DEFAULT 'dflt', b int DEFAULT 1 + 1, c bool, d timestamptz DEFAULT now());
INSERT INTO dm_def (id, c) VALUES (1, true);
INSERT INTO dm_def VALUES (2, DEFAULT, 10, DEFAULT);
INSERT INTO dm_def (id, a, b) VALUES (3, DEFAULT, DEFAULT), (4, 'given', DEFAULT);
INSERT INTO dm_def DEFAULT VALUES;
SELECT id, a, b, c, d IS NOT NULL AS has_d FROM dm_def ORDER BY id;
DROP TABLE dm_def;

-- name: dml_insert_returning
DROP TABLE IF EXISTS dm_ret;
CREATE TABLE dm_ret (id int PRIMARY KEY, v text, n int DEFAULT 7);
INSERT INTO dm_ret (id, v) VALUES (1, 'a') RETURNING *;
INSERT INTO dm_ret VALUES (2, 'b', 20), (3, 'c', 30) RETURNING id, v || '!' AS shout, n * 2;
INSERT INTO dm_ret (id) SELECT 4 RETURNING n, v IS NULL AS v_null;
INSERT INTO dm_ret VALUES (5, 'e') RETURNING dm_ret.id, length(v);
SELECT * FROM dm_ret ORDER BY id;
DROP TABLE dm_ret;

-- name: dml_insert_casts
DROP TABLE IF EXISTS dm_cast;
CREATE TABLE dm_cast (i2 int2, i8 int8, n numeric(5, 1), f float8, t text, vc varchar(3), c char(3), d date, ts timestamp);
INSERT INTO dm_cast VALUES ('12', 3.7, 1.25, 1, 42, 'ab', 'x', '2024-01-01', '2024-01-01');
INSERT INTO dm_cast VALUES (1.5, '9000000000', '12.35', '1e10', true, 'abc   ', 'ab', date '2024-03-01', date '2024-03-01');
SELECT * FROM dm_cast ORDER BY i2;
DROP TABLE dm_cast;

-- name: dml_unique_violation
-- @errors
DROP TABLE IF EXISTS dm_uv;
CREATE TABLE dm_uv (id int PRIMARY KEY, code text UNIQUE);
INSERT INTO dm_uv VALUES (1, 'a'), (2, 'b');
INSERT INTO dm_uv VALUES (1, 'c');
INSERT INTO dm_uv VALUES (3, 'b');
INSERT INTO dm_uv VALUES (3, 'c'), (4, 'd'), (3, 'e');
INSERT INTO dm_uv VALUES (5, 'x y ''q''');
INSERT INTO dm_uv VALUES (6, 'x y ''q''');
SELECT * FROM dm_uv ORDER BY id;
DROP TABLE dm_uv;

-- name: dml_not_null_violation
-- @errors
DROP TABLE IF EXISTS dm_nn;
CREATE TABLE dm_nn (id int PRIMARY KEY, a text NOT NULL, b int, d date);
INSERT INTO dm_nn VALUES (1, NULL, 5, '2024-01-01');
INSERT INTO dm_nn (id, b) VALUES (2, 6);
INSERT INTO dm_nn VALUES (3, 'ok', NULL, NULL);
UPDATE dm_nn SET a = NULL WHERE id = 3;
SELECT * FROM dm_nn ORDER BY id;
DROP TABLE dm_nn;

-- name: dml_check_violation
-- @errors
DROP TABLE IF EXISTS dm_ck;
CREATE TABLE dm_ck (id int PRIMARY KEY, qty int CHECK (qty >= 0), price numeric CONSTRAINT positive_price CHECK (price > 0));
INSERT INTO dm_ck VALUES (1, 5, 9.99);
INSERT INTO dm_ck VALUES (2, -1, 1);
INSERT INTO dm_ck VALUES (3, 1, 0);
UPDATE dm_ck SET qty = qty - 10 WHERE id = 1;
SELECT * FROM dm_ck ORDER BY id;
DROP TABLE dm_ck;

-- name: dml_type_errors
-- @errors
DROP TABLE IF EXISTS dm_te;
CREATE TABLE dm_te (x int, s varchar(3), sm int2, d date);
INSERT INTO dm_te (x) VALUES (true);
INSERT INTO dm_te (x) VALUES ('abc');
INSERT INTO dm_te (s) VALUES ('abcd');
INSERT INTO dm_te (sm) VALUES (70000);
INSERT INTO dm_te (d) VALUES ('2024-13-01');
INSERT INTO dm_te (d) VALUES (1);
UPDATE dm_te SET x = 'x';
UPDATE dm_te SET x = false;
INSERT INTO dm_te (x) VALUES (1), ('2'), ('three');
SELECT count(*) FROM dm_te;
DROP TABLE dm_te;

-- name: dml_select_primary_key
DROP TABLE IF EXISTS dm_sel;
CREATE TABLE dm_sel (id int PRIMARY KEY, grp int, name text);
INSERT INTO dm_sel SELECT g, g % 4, 'n' || g FROM generate_series(1, 100) g;
SELECT * FROM dm_sel WHERE id = 42;
SELECT * FROM dm_sel WHERE id = 1000;
SELECT name FROM dm_sel WHERE id IN (3, 1, 2) ORDER BY id;
SELECT id FROM dm_sel WHERE id BETWEEN 95 AND 200 ORDER BY id DESC;
SELECT id FROM dm_sel WHERE id = 10 AND grp = 3;
SELECT id FROM dm_sel WHERE id = 11 AND grp = 3;
SELECT id, name FROM dm_sel WHERE name = 'n77';
SELECT id FROM dm_sel WHERE grp = 0 AND id < 20 ORDER BY id;
SELECT id FROM dm_sel WHERE name LIKE 'n9%' ORDER BY id LIMIT 3 OFFSET 1;
DROP TABLE dm_sel;

-- name: dml_select_composite_key
DROP TABLE IF EXISTS dm_ck2;
CREATE TABLE dm_ck2 (a int, b text, v int, PRIMARY KEY (a, b));
INSERT INTO dm_ck2 SELECT g / 10, 'k' || (g % 10), g FROM generate_series(0, 99) g;
SELECT v FROM dm_ck2 WHERE a = 3 AND b = 'k4';
SELECT b, v FROM dm_ck2 WHERE a = 5 ORDER BY b;
SELECT count(*) FROM dm_ck2 WHERE b = 'k1';
DROP TABLE dm_ck2;

-- name: dml_select_nulls_and_expressions
DROP TABLE IF EXISTS dm_nx;
CREATE TABLE dm_nx (id int PRIMARY KEY, a int, t text);
INSERT INTO dm_nx VALUES (1, NULL, 'x'), (2, 2, NULL), (3, 3, 'z');
SELECT id FROM dm_nx WHERE a IS NULL;
SELECT id, coalesce(a, -1), coalesce(t, '?') FROM dm_nx ORDER BY id;
SELECT id, a * 10 + id AS calc, t || '-' || id FROM dm_nx ORDER BY calc NULLS FIRST;
SELECT DISTINCT a IS NULL FROM dm_nx ORDER BY 1;
SELECT dm_nx.id, x.t FROM dm_nx, dm_nx AS x WHERE dm_nx.id = x.id AND x.t IS NOT NULL ORDER BY 1;
DROP TABLE dm_nx;

-- name: dml_join
DROP TABLE IF EXISTS dm_cust, dm_ord;
CREATE TABLE dm_cust (id int PRIMARY KEY, name text);
CREATE TABLE dm_ord (id int PRIMARY KEY, cust_id int, amount numeric);
INSERT INTO dm_cust VALUES (1, 'ann'), (2, 'bob'), (3, 'cy');
INSERT INTO dm_ord VALUES (10, 1, 5.5), (11, 1, 4.5), (12, 2, 100), (13, 99, 1);
SELECT c.name, o.id, o.amount FROM dm_cust c JOIN dm_ord o ON o.cust_id = c.id ORDER BY o.id;
SELECT c.name, o.id FROM dm_cust c LEFT JOIN dm_ord o ON o.cust_id = c.id ORDER BY c.id, o.id;
SELECT c.name, o.id FROM dm_cust c RIGHT JOIN dm_ord o ON o.cust_id = c.id ORDER BY o.id;
SELECT c.name, o.id FROM dm_cust c FULL JOIN dm_ord o ON o.cust_id = c.id ORDER BY c.id NULLS LAST, o.id NULLS LAST;
SELECT name FROM dm_cust c, dm_ord o WHERE o.cust_id = c.id AND o.id = 12;
SELECT c.name, count(o.id), sum(o.amount) FROM dm_cust c LEFT JOIN dm_ord o ON o.cust_id = c.id GROUP BY c.name ORDER BY c.name;
DROP TABLE dm_cust, dm_ord;

-- name: dml_aggregates
DROP TABLE IF EXISTS dm_agg;
CREATE TABLE dm_agg (id int PRIMARY KEY, grp text, n int, f float8);
INSERT INTO dm_agg SELECT g, chr(97 + g % 3), g, g / 4.0 FROM generate_series(1, 30) g;
SELECT count(*), sum(n), avg(n), min(n), max(n), sum(f) FROM dm_agg;
SELECT grp, count(*), sum(n), max(f) FROM dm_agg GROUP BY grp ORDER BY grp;
SELECT grp FROM dm_agg GROUP BY grp HAVING sum(n) > 150 ORDER BY grp;
SELECT string_agg(id::text, ',' ORDER BY id) FROM dm_agg WHERE n % 7 = 0;
SELECT count(*) FROM dm_agg WHERE n > 1000;
SELECT sum(n), max(grp) FROM dm_agg WHERE n > 1000;
SELECT id, n, sum(n) OVER (PARTITION BY grp ORDER BY id) FROM dm_agg WHERE id <= 6 ORDER BY id;
DROP TABLE dm_agg;

-- name: dml_subqueries
DROP TABLE IF EXISTS dm_sq_a, dm_sq_b;
CREATE TABLE dm_sq_a (id int PRIMARY KEY, v int);
CREATE TABLE dm_sq_b (id int PRIMARY KEY, a_id int);
INSERT INTO dm_sq_a SELECT g, g * 10 FROM generate_series(1, 6) g;
INSERT INTO dm_sq_b VALUES (1, 2), (2, 4), (3, 4), (4, 9);
SELECT id FROM dm_sq_a WHERE id IN (SELECT a_id FROM dm_sq_b) ORDER BY id;
SELECT id FROM dm_sq_a WHERE id NOT IN (SELECT a_id FROM dm_sq_b) ORDER BY id;
SELECT id FROM dm_sq_a a WHERE EXISTS (SELECT 1 FROM dm_sq_b b WHERE b.a_id = a.id) ORDER BY id;
SELECT id, (SELECT count(*) FROM dm_sq_b b WHERE b.a_id = a.id) AS refs FROM dm_sq_a a ORDER BY id;
SELECT (SELECT max(v) FROM dm_sq_a), (SELECT v FROM dm_sq_a WHERE id = 3);
SELECT s.a_id, s.c FROM (SELECT a_id, count(*) AS c FROM dm_sq_b GROUP BY a_id) s ORDER BY s.a_id;
WITH big AS (SELECT * FROM dm_sq_a WHERE v > 30) SELECT count(*) FROM big;
SELECT id FROM dm_sq_a WHERE v > (SELECT avg(v) FROM dm_sq_a) ORDER BY id;
DROP TABLE dm_sq_a, dm_sq_b;

-- name: dml_scalar_subquery_too_many_rows
-- @errors
DROP TABLE IF EXISTS dm_sq_many;
CREATE TABLE dm_sq_many (id int PRIMARY KEY);
INSERT INTO dm_sq_many VALUES (1), (2);
SELECT (SELECT id FROM dm_sq_many);
DROP TABLE dm_sq_many;

-- name: dml_update_expressions
DROP TABLE IF EXISTS dm_upd;
CREATE TABLE dm_upd (id int PRIMARY KEY, a int, b text, c numeric);
INSERT INTO dm_upd SELECT g, g, 'b' || g, g * 1.5 FROM generate_series(1, 6) g;
UPDATE dm_upd SET a = a * 10 WHERE id <= 3;
UPDATE dm_upd SET b = b || '!', c = c + a WHERE id = 5;
UPDATE dm_upd SET a = length(b), b = upper(b) WHERE a >= 30;
UPDATE dm_upd SET a = DEFAULT WHERE id = 6;
SELECT * FROM dm_upd ORDER BY id;
UPDATE dm_upd SET a = id, b = 'x';
SELECT * FROM dm_upd ORDER BY id;
DROP TABLE dm_upd;

-- name: dml_update_swap_columns
DROP TABLE IF EXISTS dm_swap;
CREATE TABLE dm_swap (id int PRIMARY KEY, a int, b int);
INSERT INTO dm_swap VALUES (1, 1, 2), (2, 3, 4);
UPDATE dm_swap SET a = b, b = a;
SELECT * FROM dm_swap ORDER BY id;
UPDATE dm_swap SET (a, b) = (b + 100, a + 100) WHERE id = 2;
SELECT * FROM dm_swap ORDER BY id;
DROP TABLE dm_swap;

-- name: dml_update_returning
DROP TABLE IF EXISTS dm_updr;
CREATE TABLE dm_updr (id int PRIMARY KEY, v int, t text);
INSERT INTO dm_updr VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c');
UPDATE dm_updr SET v = v + 1 WHERE id = 2 RETURNING *;
UPDATE dm_updr SET t = t || t WHERE id = 3 RETURNING id, t, v * 2 AS dbl;
UPDATE dm_updr SET v = 0 WHERE id = 99 RETURNING *;
SELECT * FROM dm_updr ORDER BY id;
DROP TABLE dm_updr;

-- name: dml_update_primary_key
-- @errors
DROP TABLE IF EXISTS dm_updpk;
CREATE TABLE dm_updpk (id int PRIMARY KEY, v text);
INSERT INTO dm_updpk VALUES (1, 'a'), (2, 'b'), (3, 'c');
UPDATE dm_updpk SET id = id + 10;
SELECT * FROM dm_updpk ORDER BY id;
UPDATE dm_updpk SET id = 1 WHERE id = 11 RETURNING *;
UPDATE dm_updpk SET id = 12 WHERE id = 1;
SELECT * FROM dm_updpk WHERE id = 1;
SELECT * FROM dm_updpk WHERE id = 11;
UPDATE dm_updpk SET v = 'z' WHERE id = 1;
SELECT * FROM dm_updpk ORDER BY id;
DROP TABLE dm_updpk;

-- name: dml_update_from
DROP TABLE IF EXISTS dm_uf_t, dm_uf_s;
CREATE TABLE dm_uf_t (id int PRIMARY KEY, price numeric, note text);
CREATE TABLE dm_uf_s (id int PRIMARY KEY, t_id int, delta numeric);
INSERT INTO dm_uf_t VALUES (1, 10, NULL), (2, 20, NULL), (3, 30, NULL);
INSERT INTO dm_uf_s VALUES (100, 1, 1.5), (101, 3, -5);
UPDATE dm_uf_t SET price = dm_uf_t.price + s.delta, note = 'from ' || s.id FROM dm_uf_s s WHERE s.t_id = dm_uf_t.id;
SELECT * FROM dm_uf_t ORDER BY id;
UPDATE dm_uf_t t SET note = 'v' FROM (VALUES (2), (3)) AS v(x) WHERE t.id = v.x AND t.price > 21 RETURNING t.id, t.note, v.x;
SELECT * FROM dm_uf_t ORDER BY id;
DROP TABLE dm_uf_t, dm_uf_s;

-- name: dml_delete_where
DROP TABLE IF EXISTS dm_del;
CREATE TABLE dm_del (id int PRIMARY KEY, v int);
INSERT INTO dm_del SELECT g, g % 3 FROM generate_series(1, 12) g;
DELETE FROM dm_del WHERE id = 5;
DELETE FROM dm_del WHERE v = 0;
SELECT * FROM dm_del ORDER BY id;
DELETE FROM dm_del WHERE id = 5;
DELETE FROM dm_del;
SELECT count(*) FROM dm_del;
INSERT INTO dm_del VALUES (5, 5);
SELECT * FROM dm_del;
DROP TABLE dm_del;

-- name: dml_delete_returning
DROP TABLE IF EXISTS dm_delr;
CREATE TABLE dm_delr (id int PRIMARY KEY, v text);
INSERT INTO dm_delr VALUES (1, 'a'), (2, 'b'), (3, 'c');
DELETE FROM dm_delr WHERE id = 2 RETURNING *;
DELETE FROM dm_delr WHERE id = 3 RETURNING id * 100, upper(v) AS up;
DELETE FROM dm_delr WHERE id = 3 RETURNING *;
SELECT * FROM dm_delr ORDER BY id;
DROP TABLE dm_delr;

-- name: dml_delete_using
DROP TABLE IF EXISTS dm_du_t, dm_du_s;
CREATE TABLE dm_du_t (id int PRIMARY KEY, tag text);
CREATE TABLE dm_du_s (tag text PRIMARY KEY, doomed bool);
INSERT INTO dm_du_t VALUES (1, 'x'), (2, 'y'), (3, 'x'), (4, 'z');
INSERT INTO dm_du_s VALUES ('x', true), ('y', false);
DELETE FROM dm_du_t t USING dm_du_s s WHERE t.tag = s.tag AND s.doomed;
SELECT * FROM dm_du_t ORDER BY id;
DELETE FROM dm_du_t USING dm_du_s WHERE dm_du_t.tag = dm_du_s.tag RETURNING dm_du_t.id, dm_du_s.doomed;
SELECT * FROM dm_du_t ORDER BY id;
DROP TABLE dm_du_t, dm_du_s;

-- name: dml_zero_rows
DROP TABLE IF EXISTS dm_zero;
CREATE TABLE dm_zero (id int PRIMARY KEY, v int);
UPDATE dm_zero SET v = 1;
DELETE FROM dm_zero;
INSERT INTO dm_zero VALUES (1, 1);
UPDATE dm_zero SET v = 2 WHERE id = 2;
UPDATE dm_zero SET v = 2 WHERE v > 10;
DELETE FROM dm_zero WHERE id = 2;
DELETE FROM dm_zero WHERE false;
INSERT INTO dm_zero SELECT 2, 2 WHERE false;
SELECT * FROM dm_zero WHERE id = 2;
SELECT * FROM dm_zero;
DROP TABLE dm_zero;

-- name: dml_failed_block_rollback
-- @errors
DROP TABLE IF EXISTS dm_fb;
CREATE TABLE dm_fb (id int PRIMARY KEY, v text);
INSERT INTO dm_fb VALUES (1, 'before');
BEGIN;
INSERT INTO dm_fb VALUES (2, 'in tx');
UPDATE dm_fb SET v = 'changed' WHERE id = 1;
INSERT INTO dm_fb VALUES (3, 'x'), (1, 'dup');
SELECT * FROM dm_fb;
INSERT INTO dm_fb VALUES (4, 'after error');
COMMIT;
SELECT * FROM dm_fb ORDER BY id;
DROP TABLE dm_fb;

-- name: dml_failed_block_explicit_rollback
-- @errors
DROP TABLE IF EXISTS dm_fb2;
CREATE TABLE dm_fb2 (id int PRIMARY KEY, n int NOT NULL);
BEGIN;
INSERT INTO dm_fb2 VALUES (1, 1), (2, 2);
DELETE FROM dm_fb2 WHERE id = 1;
UPDATE dm_fb2 SET n = NULL WHERE id = 2;
ROLLBACK;
SELECT count(*) FROM dm_fb2;
DROP TABLE dm_fb2;

-- name: dml_implicit_transaction_multi_statement
-- @errors
-- @modes simple
DROP TABLE IF EXISTS dm_multi;
CREATE TABLE dm_multi (id int PRIMARY KEY);
INSERT INTO dm_multi VALUES (1); INSERT INTO dm_multi VALUES (2); INSERT INTO dm_multi VALUES (1);
SELECT count(*) FROM dm_multi;
INSERT INTO dm_multi VALUES (3); SELECT count(*) FROM dm_multi; DELETE FROM dm_multi WHERE id = 3 RETURNING id;
SELECT count(*) FROM dm_multi;
DROP TABLE dm_multi;

-- name: dml_savepoints
DROP TABLE IF EXISTS dm_sp;
CREATE TABLE dm_sp (id int PRIMARY KEY, v text);
INSERT INTO dm_sp VALUES (1, 'a'), (2, 'b'), (3, 'c');
BEGIN;
INSERT INTO dm_sp VALUES (4, 'd');
SAVEPOINT s1;
INSERT INTO dm_sp VALUES (5, 'e');
UPDATE dm_sp SET v = 'B' WHERE id = 2;
DELETE FROM dm_sp WHERE id = 3;
SELECT * FROM dm_sp ORDER BY id;
ROLLBACK TO SAVEPOINT s1;
SELECT * FROM dm_sp ORDER BY id;
SAVEPOINT s2;
UPDATE dm_sp SET v = 'A' WHERE id = 1;
DELETE FROM dm_sp WHERE id = 4;
RELEASE SAVEPOINT s2;
COMMIT;
SELECT * FROM dm_sp ORDER BY id;
DROP TABLE dm_sp;

-- name: dml_savepoint_after_error
-- @errors
DROP TABLE IF EXISTS dm_sperr;
CREATE TABLE dm_sperr (id int PRIMARY KEY);
BEGIN;
INSERT INTO dm_sperr VALUES (1);
SAVEPOINT s;
INSERT INTO dm_sperr VALUES (2);
INSERT INTO dm_sperr VALUES (1);
SELECT count(*) FROM dm_sperr;
ROLLBACK TO s;
INSERT INTO dm_sperr VALUES (2);
SAVEPOINT t;
INSERT INTO dm_sperr VALUES (3);
ROLLBACK TO t;
COMMIT;
SELECT * FROM dm_sperr ORDER BY id;
DROP TABLE dm_sperr;

-- name: dml_nested_savepoints_same_row
DROP TABLE IF EXISTS dm_nsp;
CREATE TABLE dm_nsp (id int PRIMARY KEY, v int);
INSERT INTO dm_nsp VALUES (1, 0);
BEGIN;
UPDATE dm_nsp SET v = 1;
SAVEPOINT a;
UPDATE dm_nsp SET v = 2;
SAVEPOINT b;
UPDATE dm_nsp SET v = 3;
SELECT v FROM dm_nsp;
ROLLBACK TO a;
SELECT v FROM dm_nsp;
UPDATE dm_nsp SET v = v + 10;
COMMIT;
SELECT * FROM dm_nsp;
DROP TABLE dm_nsp;

-- name: dml_transaction_rollback
-- @errors
DROP TABLE IF EXISTS dm_tx;
CREATE TABLE dm_tx (id int PRIMARY KEY, v text);
BEGIN;
INSERT INTO dm_tx VALUES (1, 'gone');
SELECT * FROM dm_tx;
ROLLBACK;
SELECT * FROM dm_tx;
BEGIN;
INSERT INTO dm_tx VALUES (1, 'kept');
COMMIT;
BEGIN;
UPDATE dm_tx SET v = 'not kept';
DELETE FROM dm_tx;
SELECT count(*) FROM dm_tx;
ROLLBACK;
SELECT * FROM dm_tx;
INSERT INTO dm_tx VALUES (1, 'dup after rollback');
DROP TABLE dm_tx;

-- name: dml_reinsert_after_delete_same_tx
DROP TABLE IF EXISTS dm_reins;
CREATE TABLE dm_reins (id int PRIMARY KEY, v text);
INSERT INTO dm_reins VALUES (1, 'old');
BEGIN;
DELETE FROM dm_reins WHERE id = 1;
INSERT INTO dm_reins VALUES (1, 'new');
UPDATE dm_reins SET v = v || '!' WHERE id = 1;
COMMIT;
SELECT * FROM dm_reins;
BEGIN;
DELETE FROM dm_reins WHERE id = 1;
INSERT INTO dm_reins VALUES (1, 'rolled back');
ROLLBACK;
SELECT * FROM dm_reins;
DROP TABLE dm_reins;

-- name: dml_many_updates_same_row
DROP TABLE IF EXISTS dm_many;
CREATE TABLE dm_many (id int PRIMARY KEY, n int);
INSERT INTO dm_many VALUES (1, 0), (2, 0);
UPDATE dm_many SET n = n + 1 WHERE id = 1;
UPDATE dm_many SET n = n + 1 WHERE id = 1;
UPDATE dm_many SET n = n + 1 WHERE id = 1;
BEGIN;
UPDATE dm_many SET n = n + 1 WHERE id = 1;
UPDATE dm_many SET n = n + 1;
UPDATE dm_many SET n = n + 1 WHERE id = 1;
COMMIT;
SELECT * FROM dm_many ORDER BY id;
SELECT * FROM dm_many WHERE id = 1;
DROP TABLE dm_many;

-- name: dml_prepared_statements
DROP TABLE IF EXISTS dm_prep;
CREATE TABLE dm_prep (id int PRIMARY KEY, v text);
PREPARE dm_ins_p (int, text) AS INSERT INTO dm_prep VALUES ($1, $2) RETURNING id;
EXECUTE dm_ins_p(1, 'one');
EXECUTE dm_ins_p(2, 'two');
PREPARE dm_sel_p (int) AS SELECT v FROM dm_prep WHERE id = $1;
EXECUTE dm_sel_p(2);
PREPARE dm_upd_p (int, text) AS UPDATE dm_prep SET v = $2 WHERE id = $1;
EXECUTE dm_upd_p(1, 'uno');
EXECUTE dm_sel_p(1);
DEALLOCATE dm_ins_p;
DEALLOCATE dm_sel_p;
DEALLOCATE dm_upd_p;
DROP TABLE dm_prep;

-- name: dml_large_table
DROP TABLE IF EXISTS dm_large;
CREATE TABLE dm_large (id int PRIMARY KEY, k int, pad text);
INSERT INTO dm_large SELECT g, g % 97, repeat('x', g % 50) FROM generate_series(1, 5000) g;
SELECT count(*), sum(id), sum(length(pad)) FROM dm_large;
SELECT pad FROM dm_large WHERE id = 4321;
UPDATE dm_large SET k = -1 WHERE id % 100 = 0;
DELETE FROM dm_large WHERE id % 7 = 0;
SELECT count(*), sum(k) FROM dm_large;
SELECT count(*) FROM dm_large WHERE k = -1;
DROP TABLE dm_large;
