-- Differential SQL cases: pg_trgm's GIN operator class gin_trgm_ops (issue 31): the same rows
-- through the index (enable_seqscan off) as without it for %, %>, %>>, LIKE, ILIKE, ~, ~* and
-- =, the plan shapes (Bitmap Heap Scan over Bitmap Index Scan), the catalogs and PostgreSQL's
-- errors. Tables are named trgm_...

-- name: trgm_gin_index
-- @errors
DROP TABLE IF EXISTS trgm_t;
DROP EXTENSION IF EXISTS pg_trgm;
CREATE TABLE trgm_t (id int, t text);
CREATE INDEX trgm_t_i ON trgm_t USING gin (t gin_trgm_ops);
CREATE EXTENSION pg_trgm;
INSERT INTO trgm_t SELECT g, 'w' || g || ' ' || (g * 7919 % 10007) || ' Foo' || (g % 13) || ' bar' FROM generate_series(1, 500) g;
INSERT INTO trgm_t VALUES (0, ''), (-1, NULL), (-2, 'Ñandú straße'), (-3, 'foobar'), (-4, 'a b c'), (-5, 'zebra_crossing 100%');
CREATE INDEX trgm_t_i ON trgm_t USING gin (t gin_trgm_ops);
SELECT indexdef FROM pg_indexes WHERE tablename = 'trgm_t';
SELECT opcname, opcdefault FROM pg_opclass WHERE opcname = 'gin_trgm_ops';
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM trgm_t WHERE t % 'w17';
SELECT id FROM trgm_t WHERE t % 'w17' ORDER BY id;
SELECT id FROM trgm_t WHERE t % 'foobar' ORDER BY id;
SELECT id, similarity(t, 'w123 foo') FROM trgm_t WHERE t % 'w123 foo' ORDER BY id;
SELECT count(*) FROM trgm_t WHERE t % '';
SELECT count(*) FROM trgm_t WHERE t % NULL;
EXPLAIN (COSTS OFF) SELECT id FROM trgm_t WHERE t LIKE '%w12%';
SELECT id FROM trgm_t WHERE t LIKE '%w12%' ORDER BY id;
SELECT id FROM trgm_t WHERE t LIKE 'w12%' ORDER BY id;
SELECT id FROM trgm_t WHERE t LIKE '%foo1 bar' ORDER BY id LIMIT 5;
SELECT count(*) FROM trgm_t WHERE t LIKE '%Foo1%';
SELECT count(*) FROM trgm_t WHERE t LIKE '%';
SELECT count(*) FROM trgm_t WHERE t LIKE '%ab%';
SELECT id FROM trgm_t WHERE t LIKE '%100\%' ORDER BY id;
SELECT id FROM trgm_t WHERE t LIKE '%ndú%' ORDER BY id;
EXPLAIN (COSTS OFF) SELECT id FROM trgm_t WHERE t ILIKE '%FOO12%';
SELECT count(*) FROM trgm_t WHERE t ILIKE '%FOO12%';
SELECT count(*) FROM trgm_t WHERE t ILIKE '%STRASSE%' OR t ILIKE '%STRAßE%';
EXPLAIN (COSTS OFF) SELECT id FROM trgm_t WHERE t ~ 'w12[0-9] ';
SELECT id FROM trgm_t WHERE t ~ 'w12[0-9] ' ORDER BY id;
SELECT id FROM trgm_t WHERE t ~ '^w4(5|6)0 ' ORDER BY id;
SELECT id FROM trgm_t WHERE t ~ 'w49+ ' ORDER BY id;
SELECT id FROM trgm_t WHERE t ~ 'w4(99)? ' ORDER BY id;
SELECT count(*) FROM trgm_t WHERE t ~* 'FOO1[12] BAR';
SELECT count(*) FROM trgm_t WHERE t ~ 'Foo1[12] BAR';
SELECT id FROM trgm_t WHERE t = 'foobar';
SELECT id FROM trgm_t WHERE t %> 'w12' ORDER BY id;
SELECT id FROM trgm_t WHERE t %>> 'foo1' ORDER BY id LIMIT 5;
SELECT id FROM trgm_t WHERE t LIKE '%w12%' AND t % 'w12 bar' ORDER BY id;
SET pg_trgm.similarity_threshold = 0.6;
SELECT id FROM trgm_t WHERE t % 'w123 1234' ORDER BY id;
SET pg_trgm.similarity_threshold = 0.1;
SELECT count(*) FROM trgm_t WHERE t % 'w123 1234';
RESET pg_trgm.similarity_threshold;
RESET enable_seqscan;
SELECT id FROM trgm_t WHERE t % 'w17' ORDER BY id;
SELECT count(*) FROM trgm_t WHERE t LIKE '%Foo1%';
UPDATE trgm_t SET t = 'zebra crossing' WHERE id BETWEEN 1 AND 3;
DELETE FROM trgm_t WHERE id BETWEEN 10 AND 20;
SET enable_seqscan = off;
SELECT id FROM trgm_t WHERE t LIKE '%zebra%' ORDER BY id;
SELECT id FROM trgm_t WHERE t LIKE '%w1%' AND id < 25 ORDER BY id;
RESET enable_seqscan;
CREATE INDEX trgm_bad ON trgm_t USING gin (id gin_trgm_ops);
CREATE INDEX trgm_bad ON trgm_t USING gin (t gin_nope_ops);
DROP TABLE trgm_t;
DROP EXTENSION pg_trgm;

-- name: trgm_gin_choice
DROP TABLE IF EXISTS trgm_c;
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE TABLE trgm_c (id int, t text);
INSERT INTO trgm_c SELECT g, md5(g::text) FROM generate_series(1, 20000) g;
CREATE INDEX trgm_c_i ON trgm_c USING gin (t gin_trgm_ops);
ANALYZE trgm_c;
EXPLAIN (COSTS OFF) SELECT id FROM trgm_c WHERE t LIKE '%c4ca42%';
SELECT id FROM trgm_c WHERE t LIKE '%c4ca42%';
EXPLAIN (COSTS OFF) SELECT id FROM trgm_c WHERE t % 'c4ca4238a0b923820dcc509a6f75849b';
SELECT id FROM trgm_c WHERE t % 'c4ca4238a0b923820dcc509a6f75849b';
DROP TABLE trgm_c;
DROP EXTENSION pg_trgm;
