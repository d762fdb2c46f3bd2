-- Differential SQL cases: expression and partial indexes (issue 31). CREATE [UNIQUE] INDEX over
-- expressions, mixed columns and expressions, WHERE predicates, USING hash; their maintenance by
-- INSERT / UPDATE / DELETE, uniqueness only where the predicate holds (23505 with the
-- expression in the DETAIL), ON CONFLICT inference, pg_index / pg_get_indexdef / pg_indexes,
-- and the planner's use of them (same rows with and without). Tables are named ie_...

-- name: ie_create_and_catalog
DROP TABLE IF EXISTS ie_t;
CREATE TABLE ie_t (id int PRIMARY KEY, name text, a int, b int, flag bool);
CREATE INDEX ON ie_t (lower(name));
CREATE UNIQUE INDEX ie_t_ab ON ie_t (a, (b + 1));
CREATE INDEX ie_t_part ON ie_t (a) WHERE b > 0;
CREATE INDEX ie_t_both ON ie_t (lower(name), a) WHERE flag AND a IS NOT NULL;
CREATE INDEX ie_t_h ON ie_t USING hash (name);
CREATE INDEX ON ie_t ((a * 2));
CREATE INDEX ON ie_t ((name::varchar));
SELECT c.relname, i.indnatts, i.indkey::text, i.indisunique, i.indexprs IS NULL AS noexprs, i.indpred IS NULL AS nopred FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'ie_t'::regclass ORDER BY 1;
SELECT c.relname, pg_get_indexdef(c.oid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'ie_t'::regclass ORDER BY 1;
SELECT c.relname, pg_get_indexdef(c.oid, 0, true) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'ie_t'::regclass ORDER BY 1;
SELECT pg_get_indexdef('ie_t_ab'::regclass, 2, false), pg_get_indexdef('ie_t_ab'::regclass, 2, true), pg_get_indexdef('ie_t_ab'::regclass, 1, true);
SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'ie_t' ORDER BY 1;
SELECT pg_get_expr(indpred, indrelid) FROM pg_index WHERE indexrelid = 'ie_t_part'::regclass;
SELECT pg_get_expr(indpred, indrelid, true) FROM pg_index WHERE indexrelid = 'ie_t_both'::regclass;
DROP TABLE ie_t;

-- name: ie_unique_expression
-- @errors
DROP TABLE IF EXISTS ie_u;
CREATE TABLE ie_u (id int, name text);
CREATE UNIQUE INDEX ie_u_lower ON ie_u (lower(name));
INSERT INTO ie_u VALUES (1, 'abc');
INSERT INTO ie_u VALUES (2, 'ABC');
INSERT INTO ie_u VALUES (3, 'Abd'), (4, NULL), (5, NULL);
UPDATE ie_u SET name = 'aBd' WHERE id = 1;
UPDATE ie_u SET name = 'xyz' WHERE id = 1;
INSERT INTO ie_u VALUES (6, 'ABC');
DELETE FROM ie_u WHERE id = 6;
INSERT INTO ie_u VALUES (7, 'abc');
SELECT * FROM ie_u ORDER BY id;
SELECT * FROM ie_u WHERE lower(name) = 'abc';
INSERT INTO ie_u VALUES (8, 'XYZ') ON CONFLICT (lower(name)) DO NOTHING;
INSERT INTO ie_u VALUES (8, 'XYZ') ON CONFLICT (lower(name)) DO UPDATE SET id = 80;
INSERT INTO ie_u VALUES (9, 'Q') ON CONFLICT DO NOTHING;
INSERT INTO ie_u VALUES (9, 'q') ON CONFLICT DO NOTHING;
SELECT * FROM ie_u ORDER BY id;
DROP TABLE ie_u;

-- name: ie_unique_mixed_and_build_errors
-- @errors
DROP TABLE IF EXISTS ie_m;
CREATE TABLE ie_m (a int, b int);
INSERT INTO ie_m VALUES (1, 1), (1, 2), (2, 2);
CREATE UNIQUE INDEX ie_m_ab ON ie_m (a, (b % 2));
CREATE UNIQUE INDEX ie_m_ab ON ie_m (a, (b + 1));
INSERT INTO ie_m VALUES (1, 2);
CREATE INDEX ie_m_bad ON ie_m ((a / (b - 2)));
CREATE INDEX ie_m_rand ON ie_m ((a + random()));
CREATE INDEX ie_m_now ON ie_m ((now()));
CREATE INDEX ie_m_sub ON ie_m ((a + (SELECT 1)));
CREATE INDEX ie_m_missing ON ie_m (lower(nope));
CREATE INDEX ie_m_pmissing ON ie_m (a) WHERE nope > 1;
CREATE INDEX ie_m_hash2 ON ie_m USING hash (a, b);
CREATE UNIQUE INDEX ie_m_hashu ON ie_m USING hash (a);
DROP TABLE ie_m;

-- name: ie_partial_unique
-- @errors
DROP TABLE IF EXISTS ie_p;
CREATE TABLE ie_p (id int, email text, deleted bool);
CREATE UNIQUE INDEX ie_p_live ON ie_p (email) WHERE NOT deleted;
INSERT INTO ie_p VALUES (1, 'a@x', false);
INSERT INTO ie_p VALUES (2, 'a@x', true);
INSERT INTO ie_p VALUES (3, 'a@x', true);
INSERT INTO ie_p VALUES (4, 'a@x', false);
UPDATE ie_p SET deleted = false WHERE id = 2;
UPDATE ie_p SET deleted = true WHERE id = 1;
UPDATE ie_p SET deleted = false WHERE id = 2;
SELECT * FROM ie_p ORDER BY id;
INSERT INTO ie_p VALUES (5, 'a@x', false) ON CONFLICT (email) WHERE NOT deleted DO UPDATE SET id = 50;
INSERT INTO ie_p VALUES (6, 'b@x', false) ON CONFLICT (email) WHERE NOT deleted DO NOTHING;
INSERT INTO ie_p VALUES (7, 'b@x', false) ON CONFLICT (email) DO NOTHING;
SELECT * FROM ie_p ORDER BY id;
CREATE UNIQUE INDEX ie_p_dup ON ie_p (email) WHERE deleted;
DELETE FROM ie_p WHERE id = 3;
CREATE UNIQUE INDEX ie_p_dup ON ie_p (email) WHERE deleted;
INSERT INTO ie_p VALUES (8, 'a@x', true);
DROP TABLE ie_p;

-- name: ie_maintenance_same_rows
DROP TABLE IF EXISTS ie_r;
CREATE TABLE ie_r (id int PRIMARY KEY, name text, n int, s text);
INSERT INTO ie_r SELECT g, 'Name' || (g % 17), g % 10, CASE WHEN g % 3 = 0 THEN 'on' ELSE 'off' END FROM generate_series(1, 300) g;
SELECT count(*) FROM ie_r WHERE lower(name) = 'name3';
SELECT count(*) FROM ie_r WHERE n = 4 AND s = 'on';
SELECT count(*) FROM ie_r WHERE n + 1 = 5;
CREATE INDEX ie_r_lower ON ie_r (lower(name));
CREATE INDEX ie_r_on ON ie_r (n) WHERE s = 'on';
CREATE INDEX ie_r_n1 ON ie_r ((n + 1));
SELECT count(*) FROM ie_r WHERE lower(name) = 'name3';
SELECT count(*) FROM ie_r WHERE n = 4 AND s = 'on';
SELECT count(*) FROM ie_r WHERE n + 1 = 5;
UPDATE ie_r SET name = upper(name) WHERE id % 2 = 0;
UPDATE ie_r SET s = 'on' WHERE id % 5 = 0;
UPDATE ie_r SET n = n + 1 WHERE id % 7 = 0;
DELETE FROM ie_r WHERE id % 11 = 0;
SELECT count(*) FROM ie_r WHERE lower(name) = 'name3';
SELECT count(*), sum(id) FROM ie_r WHERE n = 4 AND s = 'on';
SELECT count(*), sum(id) FROM ie_r WHERE s = 'on' AND n > 2 AND n <= 5;
SELECT count(*) FROM ie_r WHERE n + 1 = 5;
SELECT id FROM ie_r WHERE lower(name) = 'name5' ORDER BY id LIMIT 5;
VACUUM ie_r;
SELECT count(*) FROM ie_r WHERE lower(name) = 'name3';
SELECT count(*), sum(id) FROM ie_r WHERE n = 4 AND s = 'on';
DROP TABLE ie_r;

-- name: ie_drop_column_and_index
DROP TABLE IF EXISTS ie_d;
CREATE TABLE ie_d (a int, b text);
CREATE INDEX ie_d_lb ON ie_d (lower(b));
CREATE INDEX ie_d_pa ON ie_d (a) WHERE b IS NOT NULL;
INSERT INTO ie_d VALUES (1, 'X');
DROP INDEX ie_d_lb;
SELECT indexname FROM pg_indexes WHERE tablename = 'ie_d' ORDER BY 1;
ALTER TABLE ie_d DROP COLUMN b;
SELECT indexname FROM pg_indexes WHERE tablename = 'ie_d' ORDER BY 1;
SELECT * FROM ie_d;
DROP TABLE ie_d;

-- name: ie_explain_uses_them
DROP TABLE IF EXISTS ie_x;
CREATE TABLE ie_x (id int PRIMARY KEY, name text, n int, s text);
INSERT INTO ie_x SELECT g, 'Name' || g, g % 10, CASE WHEN g % 3 = 0 THEN 'on' ELSE 'off' END FROM generate_series(1, 200) g;
CREATE INDEX ie_x_lower ON ie_x (lower(name));
CREATE INDEX ie_x_on ON ie_x (n) WHERE s = 'on';
CREATE INDEX ie_x_nn ON ie_x (s) WHERE name IS NOT NULL;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM ie_x WHERE lower(name) = 'name7';
SELECT * FROM ie_x WHERE lower(name) = 'name7';
EXPLAIN (COSTS OFF) SELECT * FROM ie_x WHERE n = 3 AND s = 'on';
SELECT * FROM ie_x WHERE n = 3 AND s = 'on' ORDER BY id;
EXPLAIN (COSTS OFF) SELECT * FROM ie_x WHERE lower(name) = 'name7' AND n = 7;
RESET enable_seqscan;
RESET enable_bitmapscan;
DROP TABLE ie_x;
