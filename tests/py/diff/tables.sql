-- Differential SQL cases: DDL on tables (issue 19): CREATE TABLE with column types and
-- constraints, DROP TABLE, CREATE/DROP INDEX, ALTER TABLE ADD PRIMARY KEY, TRUNCATE, and
-- transactional DDL. Every case creates tables named after the case (prefix tb_) and drops
-- them at the end; the leading DROP TABLE IF EXISTS makes it idempotent (its NOTICE is
-- compared too).

-- name: tables_create_all_types
DROP TABLE IF EXISTS tb_types;
CREATE TABLE tb_types (
  c_int2 int2, c_int4 int4, c_int8 int8, c_num numeric, c_num_p numeric(10, 2),
  c_text text, c_varchar varchar(10), c_char char(5), c_bool bool, c_date date,
  c_ts timestamp, c_tstz timestamptz, c_f8 float8, c_bytea bytea, c_uuid uuid
);
INSERT INTO tb_types VALUES (
  -32768, 2147483647, -9223372036854775808, 12345.678901234567890, 3.14159,
  'héllo', 'abc', 'ab', true, '2024-02-29',
  '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05+02', 1.5e300, '\x00ff10', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'
);
INSERT INTO tb_types (c_int4) VALUES (NULL);
SELECT * FROM tb_types ORDER BY c_int4 NULLS LAST;
SELECT c_char, length(c_char), c_char || '|', octet_length(c_bytea), c_num_p * 2 FROM tb_types WHERE c_int2 = -32768;
DROP TABLE tb_types;

-- name: tables_create_synonyms
DROP TABLE IF EXISTS tb_syn;
CREATE TABLE tb_syn (a smallint, b integer, c bigint, d boolean, e character varying(4), f character(2), g decimal(6, 3), h double precision, i timestamp without time zone, j timestamp with time zone);
INSERT INTO tb_syn VALUES (1, 2, 3, 't', 'wxyz', 'q', 123.4567, 0.25, '2000-01-01', '2000-01-01 00:00:00+00');
SELECT * FROM tb_syn;
DROP TABLE tb_syn;

-- name: tables_not_null_default
DROP TABLE IF EXISTS tb_defaults;
CREATE TABLE tb_defaults (
  id int NOT NULL,
  n int DEFAULT 42,
  s text NOT NULL DEFAULT 'none',
  e int DEFAULT 1 + 1,
  b bool DEFAULT false,
  ts timestamptz DEFAULT now(),
  d date DEFAULT '2020-02-02'
);
INSERT INTO tb_defaults (id) VALUES (1);
INSERT INTO tb_defaults (id, n, s) VALUES (2, NULL, 'given');
SELECT id, n, s, e, b, ts IS NOT NULL AS has_ts, d FROM tb_defaults ORDER BY id;
DROP TABLE tb_defaults;

-- name: tables_primary_key_single
-- @errors
DROP TABLE IF EXISTS tb_pk;
CREATE TABLE tb_pk (id int PRIMARY KEY, v text);
INSERT INTO tb_pk VALUES (1, 'a'), (2, 'b');
INSERT INTO tb_pk VALUES (1, 'again');
INSERT INTO tb_pk VALUES (NULL, 'null key');
SELECT * FROM tb_pk ORDER BY id;
DROP TABLE tb_pk;

-- name: tables_primary_key_multi
-- @errors
DROP TABLE IF EXISTS tb_pk2;
CREATE TABLE tb_pk2 (a int, b text, v int, PRIMARY KEY (a, b));
INSERT INTO tb_pk2 VALUES (1, 'x', 10), (1, 'y', 11), (2, 'x', 12);
INSERT INTO tb_pk2 VALUES (1, 'x', 13);
SELECT * FROM tb_pk2 ORDER BY a, b;
DROP TABLE tb_pk2;

-- name: tables_named_primary_key
-- @errors
DROP TABLE IF EXISTS tb_pkn;
CREATE TABLE tb_pkn (id int8, CONSTRAINT my_pk PRIMARY KEY (id));
INSERT INTO tb_pkn VALUES (7);
INSERT INTO tb_pkn VALUES (7);
DROP TABLE tb_pkn;

-- name: tables_unique
-- @errors
DROP TABLE IF EXISTS tb_uniq;
CREATE TABLE tb_uniq (id int PRIMARY KEY, email text UNIQUE, a int, b int, UNIQUE (a, b));
INSERT INTO tb_uniq VALUES (1, 'x@y', 1, 1);
INSERT INTO tb_uniq VALUES (2, 'x@y', 2, 2);
INSERT INTO tb_uniq VALUES (3, 'z@y', 1, 1);
INSERT INTO tb_uniq VALUES (4, NULL, NULL, 1), (5, NULL, NULL, 1);
SELECT * FROM tb_uniq ORDER BY id;
DROP TABLE tb_uniq;

-- name: tables_check_constraints
-- @errors
DROP TABLE IF EXISTS tb_check;
CREATE TABLE tb_check (
  a int CHECK (a > 0),
  b int,
  c int CONSTRAINT c_small CHECK (c < 100),
  CHECK (a < b),
  CONSTRAINT named_ab CHECK (a + b < 1000)
);
INSERT INTO tb_check VALUES (1, 2, 3);
INSERT INTO tb_check VALUES (0, 2, 3);
INSERT INTO tb_check VALUES (5, 2, 3);
INSERT INTO tb_check VALUES (1, 2, 300);
INSERT INTO tb_check VALUES (1, 999, 3);
INSERT INTO tb_check VALUES (NULL, NULL, NULL);
SELECT * FROM tb_check ORDER BY a NULLS FIRST;
DROP TABLE tb_check;

-- name: tables_if_not_exists
DROP TABLE IF EXISTS tb_ine;
CREATE TABLE IF NOT EXISTS tb_ine (a int);
CREATE TABLE IF NOT EXISTS tb_ine (b text, c text);
INSERT INTO tb_ine VALUES (1);
SELECT * FROM tb_ine;
DROP TABLE tb_ine;

-- name: tables_duplicate_table
-- @errors
DROP TABLE IF EXISTS tb_dup;
CREATE TABLE tb_dup (a int);
CREATE TABLE tb_dup (a int);
CREATE TABLE tb_dup (b int);
DROP TABLE tb_dup;

-- name: tables_duplicate_column
-- @errors
DROP TABLE IF EXISTS tb_dupcol;
CREATE TABLE tb_dupcol (a int, b text, a text);
CREATE TABLE tb_dupcol (a int, b text);
DROP TABLE tb_dupcol;

-- name: tables_two_primary_keys
-- @errors
DROP TABLE IF EXISTS tb_twopk;
CREATE TABLE tb_twopk (a int PRIMARY KEY, b int PRIMARY KEY);
CREATE TABLE tb_twopk (a int PRIMARY KEY, b int, PRIMARY KEY (b));
SELECT 1 FROM tb_twopk;

-- name: tables_drop_several
-- @errors
DROP TABLE IF EXISTS tb_drop_a, tb_drop_b;
CREATE TABLE tb_drop_a (x int);
CREATE TABLE tb_drop_b (y int);
DROP TABLE tb_drop_a, tb_drop_b;
SELECT * FROM tb_drop_a;
DROP TABLE tb_drop_a;
CREATE TABLE tb_drop_b (y int);
DROP TABLE IF EXISTS tb_drop_a, tb_drop_b;
DROP TABLE tb_drop_b, tb_drop_a;

-- name: tables_create_index
DROP TABLE IF EXISTS tb_idx;
CREATE TABLE tb_idx (id int PRIMARY KEY, a int, b text, c int);
INSERT INTO tb_idx SELECT g, g % 10, 'b' || (g % 7), g * 2 FROM generate_series(1, 200) g;
CREATE INDEX tb_idx_a ON tb_idx (a);
CREATE INDEX tb_idx_ab ON tb_idx (a, b);
CREATE INDEX IF NOT EXISTS tb_idx_a ON tb_idx (c);
CREATE UNIQUE INDEX tb_idx_c ON tb_idx (c);
SELECT count(*) FROM tb_idx WHERE a = 3;
SELECT id FROM tb_idx WHERE a = 3 AND b = 'b3' ORDER BY id;
SELECT id FROM tb_idx WHERE c = 100;
DROP INDEX tb_idx_ab;
DROP INDEX IF EXISTS tb_idx_ab;
SELECT count(*) FROM tb_idx WHERE a = 3 AND b = 'b3';
DROP TABLE tb_idx;

-- name: tables_unique_index_violations
-- @errors
DROP TABLE IF EXISTS tb_uidx;
CREATE TABLE tb_uidx (a int, b text, v int);
INSERT INTO tb_uidx VALUES (1, 'x', 1), (1, 'y', 2), (2, 'x', 2);
CREATE UNIQUE INDEX tb_uidx_ab ON tb_uidx (a, b);
INSERT INTO tb_uidx VALUES (1, 'x', 3);
CREATE UNIQUE INDEX tb_uidx_v ON tb_uidx (v);
INSERT INTO tb_uidx VALUES (3, 'z', 2);
SELECT * FROM tb_uidx ORDER BY a, b;
DROP TABLE tb_uidx;

-- name: tables_drop_index_errors
-- @errors
DROP TABLE IF EXISTS tb_dropidx;
CREATE TABLE tb_dropidx (a int);
DROP INDEX tb_dropidx_missing;
DROP INDEX tb_dropidx;
DROP TABLE tb_dropidx;

-- name: tables_alter_add_primary_key
-- @errors
DROP TABLE IF EXISTS tb_addpk;
CREATE TABLE tb_addpk (c int, v text);
INSERT INTO tb_addpk VALUES (1, 'a'), (2, 'b');
ALTER TABLE tb_addpk ADD PRIMARY KEY (c);
INSERT INTO tb_addpk VALUES (3, 'c');
INSERT INTO tb_addpk VALUES (1, 'dup');
SELECT * FROM tb_addpk WHERE c = 2;
DROP TABLE tb_addpk;

-- name: tables_alter_add_primary_key_duplicates
-- @errors
DROP TABLE IF EXISTS tb_addpk_dup;
CREATE TABLE tb_addpk_dup (c int, v text);
INSERT INTO tb_addpk_dup VALUES (1, 'a'), (2, 'b'), (1, 'c');
ALTER TABLE tb_addpk_dup ADD PRIMARY KEY (c);
INSERT INTO tb_addpk_dup VALUES (1, 'still allowed');
SELECT count(*) FROM tb_addpk_dup;
DROP TABLE tb_addpk_dup;

-- name: tables_alter_add_primary_key_twice
-- @errors
DROP TABLE IF EXISTS tb_addpk2;
CREATE TABLE tb_addpk2 (c int PRIMARY KEY, d int);
ALTER TABLE tb_addpk2 ADD PRIMARY KEY (d);
DROP TABLE tb_addpk2;

-- name: tables_truncate
DROP TABLE IF EXISTS tb_trunc_a, tb_trunc_b;
CREATE TABLE tb_trunc_a (id int PRIMARY KEY);
CREATE TABLE tb_trunc_b (id int);
INSERT INTO tb_trunc_a SELECT generate_series(1, 50);
INSERT INTO tb_trunc_b VALUES (1), (2);
TRUNCATE tb_trunc_a;
SELECT count(*) FROM tb_trunc_a;
INSERT INTO tb_trunc_a VALUES (1);
SELECT * FROM tb_trunc_a;
TRUNCATE TABLE tb_trunc_a, tb_trunc_b;
SELECT (SELECT count(*) FROM tb_trunc_a), (SELECT count(*) FROM tb_trunc_b);
DROP TABLE tb_trunc_a, tb_trunc_b;

-- name: tables_truncate_rolled_back
DROP TABLE IF EXISTS tb_trunc_rb;
CREATE TABLE tb_trunc_rb (id int PRIMARY KEY);
INSERT INTO tb_trunc_rb VALUES (1), (2), (3);
BEGIN;
TRUNCATE tb_trunc_rb;
SELECT count(*) FROM tb_trunc_rb;
ROLLBACK;
SELECT * FROM tb_trunc_rb ORDER BY id;
DROP TABLE tb_trunc_rb;

-- name: tables_create_rolled_back
-- @errors
DROP TABLE IF EXISTS tb_create_rb;
BEGIN;
CREATE TABLE tb_create_rb (a int PRIMARY KEY);
INSERT INTO tb_create_rb VALUES (1);
SELECT * FROM tb_create_rb;
ROLLBACK;
SELECT * FROM tb_create_rb;
DROP TABLE IF EXISTS tb_create_rb;

-- name: tables_drop_rolled_back
DROP TABLE IF EXISTS tb_drop_rb;
CREATE TABLE tb_drop_rb (a int PRIMARY KEY);
INSERT INTO tb_drop_rb VALUES (1), (2);
BEGIN;
DROP TABLE tb_drop_rb;
ROLLBACK;
SELECT * FROM tb_drop_rb ORDER BY a;
DROP TABLE tb_drop_rb;

-- name: tables_create_in_savepoint
-- @errors
DROP TABLE IF EXISTS tb_sp_keep, tb_sp_gone;
BEGIN;
CREATE TABLE tb_sp_keep (a int);
SAVEPOINT s1;
CREATE TABLE tb_sp_gone (a int);
ROLLBACK TO SAVEPOINT s1;
INSERT INTO tb_sp_keep VALUES (1);
COMMIT;
SELECT * FROM tb_sp_keep;
SELECT * FROM tb_sp_gone;
DROP TABLE tb_sp_keep;

-- name: tables_missing_relation
-- @errors
SELECT * FROM tb_no_such_table;
INSERT INTO tb_no_such_table VALUES (1);
UPDATE tb_no_such_table SET a = 1;
DELETE FROM tb_no_such_table;
DROP TABLE tb_no_such_table;
DROP TABLE IF EXISTS tb_no_such_table;

-- name: tables_missing_column
-- @errors
DROP TABLE IF EXISTS tb_nocol;
CREATE TABLE tb_nocol (a int, b text);
SELECT c FROM tb_nocol;
INSERT INTO tb_nocol (a, c) VALUES (1, 2);
UPDATE tb_nocol SET c = 1;
INSERT INTO tb_nocol VALUES (1, 'x', 3);
SELECT a FROM tb_nocol;
DROP TABLE tb_nocol;

-- name: tables_quoted_and_qualified_names
-- @errors
DROP TABLE IF EXISTS public."Tb Quoted";
CREATE TABLE public."Tb Quoted" ("Id" int PRIMARY KEY, "select" text, Lower_Col int);
INSERT INTO "Tb Quoted" ("Id", "select", LOWER_COL) VALUES (1, 'kw', 2);
SELECT "Id", "select", lower_col FROM public."Tb Quoted";
SELECT t."Id" FROM "Tb Quoted" AS t WHERE t."Id" = 1;
SELECT id FROM "Tb Quoted";
SELECT * FROM "tb quoted";
DROP TABLE "Tb Quoted";

-- name: tables_pg_stat_user_tables_shape
-- The statistics view's columns and types (its counts differ by design: compared elsewhere).
DROP TABLE IF EXISTS tb_stat;
CREATE TABLE tb_stat (id int PRIMARY KEY);
SELECT * FROM pg_stat_user_tables WHERE relname = 'tb_stat_none';
SELECT relname, schemaname FROM pg_stat_user_tables WHERE relname = 'tb_stat';
DROP TABLE tb_stat;
