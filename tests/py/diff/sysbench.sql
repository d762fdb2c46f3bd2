-- Differential SQL cases: the statements of sysbench 1.0.20's OLTP scripts (oltp_common.lua,
-- pgsql driver; issue 30), with fixed values in place of sysbench's random ones, and what a
-- user looking at its tables sees (psql's \d reads defaults through pg_get_expr).

-- name: sysbench_prepare_and_describe
DROP TABLE IF EXISTS sbtest1;
CREATE TABLE sbtest1(
  id SERIAL,
  k INTEGER DEFAULT '0' NOT NULL,
  c CHAR(120) DEFAULT '' NOT NULL,
  pad CHAR(60) DEFAULT '' NOT NULL,
  PRIMARY KEY (id)
);
INSERT INTO sbtest1(k, c, pad) VALUES(5012, '68487932199-96439406143-93774651418-41631865787-96406072701-20604855487-25459966574-28203206787-41238978918-19503783441', '22195207048-70116052123-74140395089-76317954521-98694025897'),(4991, '13241531885-45658403807-79170748828-69419634012-13605813761-77983377181-01582588137-21344716829-87370944992-02457486289', '28733802923-10548894641-11867531929-71265603657-36546888392');
INSERT INTO sbtest1(k, c, pad) SELECT 5000 + g % 7, lpad(g::text, 119, '0'), lpad(g::text, 59, '9') FROM generate_series(3, 40) g;
CREATE INDEX k_1 ON sbtest1(k);
SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid), pg_get_expr(d.adbin, d.adrelid, true) FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum WHERE a.attrelid = 'sbtest1'::regclass AND a.attnum > 0 ORDER BY a.attnum;
SELECT pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'sbtest1'::regclass ORDER BY 1;
SELECT last_value, is_called FROM sbtest1_id_seq;
SELECT count(*), sum(k), min(length(c)), max(length(pad)) FROM sbtest1;
DROP TABLE IF EXISTS sbtest1;

-- name: sysbench_oltp_statements
DROP TABLE IF EXISTS sbtest1;
CREATE TABLE sbtest1(id SERIAL, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id));
INSERT INTO sbtest1(k, c, pad) SELECT 100 + g % 13, 'c-' || g, 'pad-' || g FROM generate_series(1, 200) g;
CREATE INDEX k_1 ON sbtest1(k);
PREPARE point_selects(int) AS SELECT c FROM sbtest1 WHERE id=$1;
PREPARE simple_ranges(int, int) AS SELECT c FROM sbtest1 WHERE id BETWEEN $1 AND $2;
PREPARE sum_ranges(int, int) AS SELECT SUM(k) FROM sbtest1 WHERE id BETWEEN $1 AND $2;
PREPARE order_ranges(int, int) AS SELECT c FROM sbtest1 WHERE id BETWEEN $1 AND $2 ORDER BY c;
PREPARE distinct_ranges(int, int) AS SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN $1 AND $2 ORDER BY c;
PREPARE index_updates(int) AS UPDATE sbtest1 SET k=k+1 WHERE id=$1;
PREPARE non_index_updates(char(120), int) AS UPDATE sbtest1 SET c=$1 WHERE id=$2;
PREPARE deletes(int) AS DELETE FROM sbtest1 WHERE id=$1;
PREPARE inserts(int, int, char(120), char(60)) AS INSERT INTO sbtest1 (id, k, c, pad) VALUES ($1, $2, $3, $4);
BEGIN;
EXECUTE point_selects(17);
EXECUTE point_selects(999);
EXECUTE simple_ranges(20, 29);
EXECUTE sum_ranges(20, 119);
EXECUTE order_ranges(50, 59);
EXECUTE distinct_ranges(60, 69);
EXECUTE index_updates(17);
EXECUTE non_index_updates('new-c', 18);
EXECUTE deletes(19);
EXECUTE inserts(19, 77, 'again', 'pad');
COMMIT;
SELECT id, k, rtrim(c), rtrim(pad) FROM sbtest1 WHERE id BETWEEN 17 AND 19 ORDER BY id;
SELECT id, k FROM sbtest1 WHERE k = 101 ORDER BY id;
DEALLOCATE ALL;
DROP TABLE IF EXISTS sbtest1;

-- name: sysbench_duplicate_insert
-- @errors
DROP TABLE IF EXISTS sbtest1;
CREATE TABLE sbtest1(id SERIAL, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id));
INSERT INTO sbtest1(k, c, pad) VALUES (1, 'a', 'b'), (2, 'c', 'd');
BEGIN;
INSERT INTO sbtest1 (id, k, c, pad) VALUES (2, 5, 'x', 'y');
ROLLBACK;
SELECT id, k FROM sbtest1 ORDER BY id;
DROP TABLE IF EXISTS sbtest1;

-- name: sysbench_cleanup
DROP TABLE IF EXISTS sbtest1;
CREATE TABLE sbtest1(id SERIAL, k INTEGER DEFAULT '0' NOT NULL, PRIMARY KEY (id));
DROP TABLE IF EXISTS sbtest1;
DROP TABLE IF EXISTS sbtest1;
SELECT count(*) FROM pg_class WHERE relname IN ('sbtest1', 'sbtest1_id_seq', 'sbtest1_pkey');

-- name: literal_defaults_resolved
-- A string literal given as a number's or a boolean's default (sysbench's `DEFAULT '0'`) is
-- stored as the value, so pg_get_expr prints the value as PostgreSQL prints a constant.
DROP TABLE IF EXISTS dl_t;
CREATE TABLE dl_t(a int DEFAULT '0', b int DEFAULT '-1', c bigint DEFAULT '5', d numeric DEFAULT '1.50', e numeric DEFAULT '5', f numeric DEFAULT '-2', g smallint DEFAULT '2', h bool DEFAULT 'yes', i int DEFAULT '  7 ', j numeric(5,2) DEFAULT '1.5', k numeric DEFAULT 'NaN', l numeric DEFAULT 99999999999999999999, m text DEFAULT 'x', n numeric DEFAULT 1e3, o int CHECK (o > '12'), p numeric CHECK (p > '12'));
SELECT a.attname, pg_get_expr(d.adbin, d.adrelid), pg_get_expr(d.adbin, d.adrelid, true) FROM pg_attribute a JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum WHERE a.attrelid = 'dl_t'::regclass ORDER BY a.attnum;
SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'dl_t'::regclass ORDER BY conname;
INSERT INTO dl_t DEFAULT VALUES;
SELECT a, b, c, d, e, f, g, h, i, j, k, l, m, n FROM dl_t;
DROP TABLE dl_t;

-- name: type_modifiers_as_written
-- @errors
-- PostgreSQL's typenameTypeMod: a type without a modifier input refuses modifiers (sysbench's
-- MySQL-only `KEY xid (id)` with --secondary is a column of type xid(id) to PostgreSQL); a
-- modifier may be a string or an identifier and is read as an integer.
DROP TABLE IF EXISTS tm_a, tm_b, tm_c, tm_d;
CREATE TABLE tm_a(a text(id));
CREATE TABLE tm_a(a text('x'));
CREATE TABLE tm_a(a int4(3));
CREATE TABLE tm_a(a text(1+1));
CREATE TABLE tm_a(a numeric(1.5));
CREATE TABLE tm_a(a numeric(x));
CREATE TABLE tm_a(a numeric(99999999999));
SELECT 'a'::text(x);
CREATE TABLE tm_b(a numeric('12', 3), b numeric(6, '2'));
SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'tm_b'::regclass AND attnum > 0 ORDER BY attnum;
INSERT INTO tm_b VALUES (1.23456, 1234.5678);
SELECT * FROM tm_b;
DROP TABLE IF EXISTS tm_a, tm_b, tm_c, tm_d;

-- name: sysbench_random_points_bigint_in
-- select_random_points binds its IN list as bigint parameters against the int4 column k: the
-- list takes the common type, the left operand keeps its own (PostgreSQL's transformAExprIn),
-- so the comparison is the integer cross-type = that k's index serves.
DROP TABLE IF EXISTS sbtest1;
CREATE TABLE sbtest1(id SERIAL, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id));
INSERT INTO sbtest1(k, c, pad) SELECT g % 50, 'c' || g, 'p' || g FROM generate_series(1, 2000) g;
CREATE INDEX k_1 ON sbtest1(k);
PREPARE pts(bigint, bigint, bigint) AS SELECT id, k FROM sbtest1 WHERE k IN ($1, $2, $3) ORDER BY id LIMIT 5;
EXECUTE pts(3, 7, 99999999999);
EXECUTE pts(NULL, 49, -1);
SELECT count(*) FROM sbtest1 WHERE k IN (5::bigint, 6::int2, 7);
SELECT count(*) FROM sbtest1 WHERE k NOT IN (5::bigint, 6);
SELECT count(*) FROM sbtest1 WHERE k IN (1.0, 2.5);
SELECT count(*) FROM sbtest1 WHERE k::int2 IN (5::bigint, 70000);
SELECT count(*) FROM sbtest1 WHERE k IN ('5', 6::bigint);
SELECT 5 IN (5::bigint, NULL), 4 NOT IN (5::bigint, NULL), 2::int2 IN (2::bigint);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM sbtest1 WHERE k IN (5::bigint, 6::bigint);
RESET enable_seqscan;
RESET enable_bitmapscan;
DEALLOCATE ALL;
DROP TABLE sbtest1;
