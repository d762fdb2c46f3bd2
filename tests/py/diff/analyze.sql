-- Differential SQL cases: ANALYZE's statistics (issue 30). Tables small enough to be read
-- whole (fewer than 30,000 rows), where every figure is exact and PostgreSQL's: null
-- fractions, widths, distinct counts, most common values and their frequencies, histograms and
-- correlations in pg_stats, the row count in pg_class, the counters in pg_stat_user_tables.

-- name: analyze_pg_stats
DROP TABLE IF EXISTS an_t;
CREATE TABLE an_t (id int, a int, t text, v varchar(10), n numeric, b bool, d date, ts timestamp, f float8);
INSERT INTO an_t SELECT i, CASE WHEN i % 6 = 0 THEN NULL ELSE i % 9 END, 't' || (i % 4), CASE WHEN i % 5 = 0 THEN NULL ELSE 'v' || (i % 3) END, i * 1.5, i % 2 = 0, date '2020-01-01' + (i * 7) % 400, timestamp '2021-03-04 05:06:07' + i * interval '1 hour', (i % 37) / 8.0 FROM generate_series(1, 3000) i;
INSERT INTO an_t SELECT i, i % 150, 'u' || i, NULL, NULL, NULL, NULL, NULL, NULL FROM generate_series(3001, 3500) i;
ANALYZE an_t;
SELECT attname, null_frac, avg_width, n_distinct, most_common_vals, most_common_freqs, histogram_bounds, correlation FROM pg_stats WHERE tablename = 'an_t' ORDER BY attname;
SELECT reltuples FROM pg_class WHERE relname = 'an_t';
SELECT analyze_count, n_mod_since_analyze FROM pg_stat_user_tables WHERE relname = 'an_t';
DELETE FROM an_t WHERE id > 3400;
UPDATE an_t SET a = 100 WHERE id <= 10;
VACUUM ANALYZE an_t;
SELECT attname, n_distinct, most_common_vals, most_common_freqs FROM pg_stats WHERE tablename = 'an_t' AND attname IN ('a', 'id') ORDER BY attname;
SELECT reltuples FROM pg_class WHERE relname = 'an_t';
SELECT analyze_count, n_mod_since_analyze FROM pg_stat_user_tables WHERE relname = 'an_t';
DROP TABLE an_t;

-- name: analyze_edges
DROP TABLE IF EXISTS an_e;
DROP TABLE IF EXISTS an_one;
CREATE TABLE an_e (id int, x text, gone int, y int);
ANALYZE an_e;
SELECT attname, null_frac, n_distinct, most_common_vals FROM pg_stats WHERE tablename = 'an_e' ORDER BY attname;
INSERT INTO an_e SELECT i, NULL, i, 5 FROM generate_series(1, 200) i;
ALTER TABLE an_e DROP COLUMN gone;
ANALYZE an_e (id, x);
ANALYZE an_e;
SELECT attname, null_frac, avg_width, n_distinct, most_common_vals, most_common_freqs, histogram_bounds, correlation FROM pg_stats WHERE tablename = 'an_e' ORDER BY attname;
CREATE TABLE an_one (k int);
INSERT INTO an_one VALUES (7);
ANALYZE an_one;
SELECT attname, null_frac, n_distinct, most_common_vals, histogram_bounds, correlation FROM pg_stats WHERE tablename = 'an_one';
INSERT INTO an_one SELECT 200 - g FROM generate_series(1, 150) g;
ANALYZE an_one;
SELECT n_distinct, most_common_vals, histogram_bounds, correlation FROM pg_stats WHERE tablename = 'an_one';
DROP TABLE an_e;
DROP TABLE an_one;
