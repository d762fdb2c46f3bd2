-- Differential SQL cases: rows and index keys as storage keeps them (packed rows, compact
-- keys; issue 19's memory target). Every value type goes in and comes back exactly, through
-- inserts, HOT and non-HOT updates, deletes and VACUUM; index lookups find rows by keys of
-- every kind (inline integer keys probed with other integer widths, two-column keys and their
-- prefixes, text, dates, timestamps, NULLs). Tables are named cp_<case> and dropped at the end.

-- name: compact_all_types_round_trip
DROP TABLE IF EXISTS cp_types;
CREATE TABLE cp_types (
  id int PRIMARY KEY, c_int2 int2, c_int8 int8, c_num numeric, c_num_s numeric(12, 4),
  c_f4 float4, c_f8 float8, c_text text, c_char char(84), c_varchar varchar(20), c_bool bool,
  c_date date, c_time time, c_ts timestamp, c_tstz timestamptz, c_iv interval, c_bytea bytea,
  c_uuid uuid, c_inet inet, c_cidr cidr, c_arr int[], c_tarr text[]
);
INSERT INTO cp_types VALUES
  (1, -32768, -9223372036854775808, 1.500, 12.3, 1.5, -0.0, 'héllo wörld ✓', 'x', 'abc', true,
   '2024-02-29', '23:59:59.999999', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05+02',
   '1 year 2 mons 3 days 04:05:06.789', '\x00ff10', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
   '192.168.1.5/24', '10.0.0.0/8', '{1,2,NULL,4}', '{"a b","",NULL}'),
  (2, 32767, 9223372036854775807, 'NaN', -0.0001, 'NaN', 'Infinity', '', '', '', false,
   'infinity', '00:00:00', '-infinity', 'infinity', '-1 days', '\x', '00000000-0000-0000-0000-000000000000',
   '::1', '2001:db8::/32', '{}', '{}'),
  (3, 0, 0, 'Infinity', 99999999.9999, '-Infinity', 1e-300, repeat('long ', 2000), repeat('z', 84), NULL, NULL,
   '-infinity', NULL, NULL, NULL, '0 seconds', decode(repeat('ab', 3000), 'hex'), NULL,
   NULL, NULL, '{{1,2},{3,4}}', NULL),
  (4, NULL, NULL, '-Infinity', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (5, 1, 1, 123456789012345678901234567890.123456789012345678901234567890, 0, 0, 0, 'tab	and
newline', 'a', 'b', true, '0001-01-01', '12:00', '1999-12-31 23:59:59', '1970-01-01 00:00:00+00', '-178000000 years', '\xdeadbeef', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '255.255.255.255', '0.0.0.0/0', '{-2147483648,2147483647}', '{"q\"uote"}');
SELECT id, c_int2, c_int8, c_num, c_num_s, c_f4, c_f8, length(c_text), md5(c_text), c_char = repeat('z', 84) AS full_char, c_varchar, c_bool FROM cp_types ORDER BY id;
SELECT id, c_date, c_time, c_ts, c_tstz, c_iv, md5(c_bytea), length(c_bytea), c_uuid, c_inet, c_cidr, c_arr, c_tarr FROM cp_types ORDER BY id;
SELECT id, c_text FROM cp_types WHERE id IN (1, 2, 5) ORDER BY id;
DROP TABLE cp_types;

-- name: compact_updates_deletes_vacuum
DROP TABLE IF EXISTS cp_upd;
CREATE TABLE cp_upd (id int PRIMARY KEY, k int, v text, n numeric);
CREATE INDEX cp_upd_k ON cp_upd (k);
INSERT INTO cp_upd SELECT g, g % 7, 'v' || g, g * 1.25 FROM generate_series(1, 200) g;
UPDATE cp_upd SET v = v || '!', n = n + 0.01 WHERE id % 3 = 0;
UPDATE cp_upd SET k = k + 100 WHERE id % 5 = 0;
UPDATE cp_upd SET v = repeat(v, 10) WHERE id % 10 = 0;
DELETE FROM cp_upd WHERE id % 11 = 0;
VACUUM cp_upd;
UPDATE cp_upd SET n = NULL, v = NULL WHERE id = 33 OR id = 34;
SELECT count(*), sum(k), sum(length(v)), sum(n) FROM cp_upd;
SELECT * FROM cp_upd WHERE id IN (3, 5, 10, 11, 30, 34, 200) ORDER BY id;
SELECT id, v FROM cp_upd WHERE k = 105 ORDER BY id;
SELECT id FROM cp_upd WHERE k = 5 ORDER BY id;
VACUUM cp_upd;
SELECT count(*) FROM cp_upd WHERE k >= 100;
DROP TABLE cp_upd;

-- name: compact_integer_keys_other_widths
DROP TABLE IF EXISTS cp_ik;
CREATE TABLE cp_ik (a int4 PRIMARY KEY, b int8 UNIQUE, c int2, v text);
CREATE INDEX cp_ik_c ON cp_ik (c);
INSERT INTO cp_ik VALUES (-2147483648, -9223372036854775808, -32768, 'min'), (0, 0, 0, 'zero'),
  (2147483647, 9223372036854775807, 32767, 'max'), (7, 70, NULL, 'null c'), (8, 80, NULL, 'null c too');
SELECT v FROM cp_ik WHERE a = 7::int8;
SELECT v FROM cp_ik WHERE a = 32767::int2 + 2147450880;
SELECT v FROM cp_ik WHERE a = 2147483648::int8;
SELECT v FROM cp_ik WHERE b = 70::int4;
SELECT v FROM cp_ik WHERE b = -9223372036854775808;
SELECT v FROM cp_ik WHERE c = 32767::int4;
SELECT v FROM cp_ik WHERE c IS NULL ORDER BY a;
SELECT v FROM cp_ik WHERE a = 7.0;
SELECT a FROM cp_ik ORDER BY a;
DROP TABLE cp_ik;

-- name: compact_two_column_and_other_keys
-- @errors
DROP TABLE IF EXISTS cp_k2;
CREATE TABLE cp_k2 (a int, b int, t text, d date, ts timestamp, PRIMARY KEY (a, b));
CREATE INDEX cp_k2_t ON cp_k2 (t);
CREATE INDEX cp_k2_d ON cp_k2 (d);
CREATE INDEX cp_k2_ts ON cp_k2 (ts);
CREATE INDEX cp_k2_tb ON cp_k2 (t, b);
INSERT INTO cp_k2 SELECT g / 10, g % 10, 'k' || (g % 13), date '2024-01-01' + g, timestamp '2024-01-01' + g * interval '1 hour' FROM generate_series(0, 99) g;
SELECT t FROM cp_k2 WHERE a = 3 AND b = 4;
SELECT b FROM cp_k2 WHERE a = 3 ORDER BY b;
SELECT a, b FROM cp_k2 WHERE a = 3::int8 AND b = 9::int2;
SELECT count(*) FROM cp_k2 WHERE t = 'k5';
SELECT a, b FROM cp_k2 WHERE t = 'k5' AND b = 7;
SELECT a, b FROM cp_k2 WHERE d = '2024-02-01';
SELECT a, b FROM cp_k2 WHERE ts = '2024-01-03 01:00';
INSERT INTO cp_k2 VALUES (3, 4, 'dup', NULL, NULL);
INSERT INTO cp_k2 VALUES (-1, -1, NULL, NULL, NULL), (-1, -2, NULL, 'infinity', 'infinity');
SELECT a, b FROM cp_k2 WHERE d = 'infinity';
SELECT a, b FROM cp_k2 WHERE ts = 'infinity';
UPDATE cp_k2 SET b = 4 WHERE a = 3 AND b = 5;
DROP TABLE cp_k2;

-- name: compact_create_unique_index_finds_duplicates
-- @errors
DROP TABLE IF EXISTS cp_dup;
CREATE TABLE cp_dup (a int, b int, t text);
INSERT INTO cp_dup VALUES (1, 1, 'x'), (1, 2, 'y'), (2, 1, 'x');
CREATE UNIQUE INDEX cp_dup_ab ON cp_dup (a, b);
CREATE UNIQUE INDEX cp_dup_a ON cp_dup (a);
CREATE UNIQUE INDEX cp_dup_t ON cp_dup (t);
DELETE FROM cp_dup WHERE b = 2;
CREATE UNIQUE INDEX cp_dup_a ON cp_dup (a);
INSERT INTO cp_dup VALUES (2, 5, 'z');
SELECT * FROM cp_dup ORDER BY a, b;
DROP TABLE cp_dup;
