-- Differential SQL cases: sequences (issue 19): CREATE / ALTER / DROP SEQUENCE, nextval /
-- currval / setval / lastval, serial and identity columns, pg_get_serial_sequence, the catalog
-- views of sequences and TRUNCATE ... RESTART IDENTITY. Every case creates objects named after
-- the case (prefix sq_) and drops them at the end; the leading DROP ... IF EXISTS makes it
-- idempotent (its NOTICE is compared too).

-- name: seq_basic
DROP SEQUENCE IF EXISTS sq_a;
CREATE SEQUENCE sq_a;
SELECT * FROM sq_a;
SELECT nextval('sq_a'), nextval('sq_a'), currval('sq_a'), lastval();
SELECT * FROM sq_a;
SELECT last_value, is_called FROM sq_a;
SELECT nextval('sq_a'::regclass), nextval('public.sq_a'), nextval('"sq_a"'), nextval('SQ_A');
SELECT pg_typeof(nextval('sq_a')), pg_typeof(currval('sq_a')), pg_typeof(lastval());
DROP SEQUENCE sq_a;

-- name: seq_options
DROP SEQUENCE IF EXISTS sq_opt;
CREATE SEQUENCE sq_opt AS integer INCREMENT BY 5 MINVALUE 3 MAXVALUE 20 START WITH 4 CACHE 1 NO CYCLE;
SELECT nextval('sq_opt') FROM generate_series(1, 4);
SELECT seqtypid::regtype, seqstart, seqincrement, seqmax, seqmin, seqcache, seqcycle FROM pg_sequence WHERE seqrelid = (SELECT oid FROM pg_class WHERE relname = 'sq_opt');
SELECT schemaname, sequencename, sequenceowner, data_type, start_value, min_value, max_value, increment_by, cycle, cache_size, last_value FROM pg_sequences WHERE sequencename = 'sq_opt';
DROP SEQUENCE sq_opt;

-- name: seq_types_and_defaults
DROP SEQUENCE IF EXISTS sq_t2, sq_t4, sq_t8, sq_desc;
CREATE SEQUENCE sq_t2 AS smallint;
CREATE SEQUENCE sq_t4 AS int4;
CREATE SEQUENCE sq_t8 AS bigint;
CREATE SEQUENCE sq_desc INCREMENT -1;
SELECT sequencename, data_type, start_value, min_value, max_value, increment_by FROM pg_sequences WHERE sequencename LIKE 'sq\_t%' OR sequencename = 'sq_desc' ORDER BY 1;
SELECT nextval('sq_desc'), nextval('sq_desc');
DROP SEQUENCE sq_t2, sq_t4, sq_t8, sq_desc;

-- name: seq_max_reached
-- @errors
DROP SEQUENCE IF EXISTS sq_max;
CREATE SEQUENCE sq_max MAXVALUE 2;
SELECT nextval('sq_max');
SELECT nextval('sq_max');
SELECT nextval('sq_max');
SELECT currval('sq_max');
DROP SEQUENCE IF EXISTS sq_min;
CREATE SEQUENCE sq_min INCREMENT -1 MINVALUE -2 MAXVALUE -1;
SELECT nextval('sq_min'), nextval('sq_min');
SELECT nextval('sq_min');
DROP SEQUENCE sq_max, sq_min;

-- name: seq_cycle
DROP SEQUENCE IF EXISTS sq_cyc;
CREATE SEQUENCE sq_cyc MINVALUE 1 MAXVALUE 3 CYCLE;
SELECT nextval('sq_cyc') FROM generate_series(1, 7);
DROP SEQUENCE IF EXISTS sq_cyc_d;
CREATE SEQUENCE sq_cyc_d INCREMENT -2 MINVALUE 1 MAXVALUE 5 CYCLE;
SELECT nextval('sq_cyc_d') FROM generate_series(1, 5);
DROP SEQUENCE sq_cyc, sq_cyc_d;

-- name: seq_setval
-- @errors
DROP SEQUENCE IF EXISTS sq_set;
CREATE SEQUENCE sq_set MAXVALUE 100;
SELECT setval('sq_set', 50);
SELECT currval('sq_set'), nextval('sq_set');
SELECT setval('sq_set', 10, false);
SELECT * FROM sq_set;
SELECT nextval('sq_set'), currval('sq_set');
SELECT setval('sq_set', 20, true), nextval('sq_set');
SELECT setval('sq_set', 0);
SELECT setval('sq_set', 101);
SELECT setval('sq_set', NULL), nextval(NULL::regclass);
DROP SEQUENCE sq_set;

-- name: seq_not_yet_defined
-- @errors
DROP SEQUENCE IF EXISTS sq_undef;
CREATE SEQUENCE sq_undef;
SELECT currval('sq_undef');
SELECT nextval('sq_undef');
SELECT currval('sq_undef');
DROP SEQUENCE sq_undef;
SELECT lastval();

-- name: seq_lastval_undefined
-- @errors
SELECT lastval();

-- name: seq_unknown
-- @errors
SELECT nextval('sq_no_such');
SELECT currval('sq_no_such');
SELECT setval('sq_no_such', 1);
SELECT nextval('sq_no_such'::text);
SELECT nextval('nosuchschema.sq_no_such');
DROP SEQUENCE sq_no_such;
DROP SEQUENCE IF EXISTS sq_no_such, sq_no_such2;
ALTER SEQUENCE sq_no_such RESTART;
ALTER SEQUENCE IF EXISTS sq_no_such RESTART;

-- name: seq_wrong_kind
-- @errors
DROP TABLE IF EXISTS sq_tab;
CREATE TABLE sq_tab (a int);
SELECT nextval('sq_tab');
SELECT nextval('sq_tab'::text);
DROP SEQUENCE sq_tab;
ALTER SEQUENCE sq_tab RESTART;
DROP TABLE sq_tab;

-- name: seq_quoted_names
DROP SEQUENCE IF EXISTS "Sq Mixed";
CREATE SEQUENCE "Sq Mixed" START 7;
SELECT nextval('"Sq Mixed"'), currval('public."Sq Mixed"');
SELECT * FROM "Sq Mixed";
DROP SEQUENCE "Sq Mixed";

-- name: seq_create_errors
-- @errors
CREATE SEQUENCE sq_bad INCREMENT 0;
CREATE SEQUENCE sq_bad MINVALUE 10 MAXVALUE 5;
CREATE SEQUENCE sq_bad START 0;
CREATE SEQUENCE sq_bad START 200 MAXVALUE 100;
CREATE SEQUENCE sq_bad AS smallint MAXVALUE 100000;
CREATE SEQUENCE sq_bad AS smallint MINVALUE -100000;
CREATE SEQUENCE sq_bad AS text;
CREATE SEQUENCE sq_bad CACHE 0;
CREATE SEQUENCE sq_bad INCREMENT 1 INCREMENT 2;
SELECT count(*) FROM pg_class WHERE relname = 'sq_bad';

-- name: seq_if_not_exists
-- @errors
DROP SEQUENCE IF EXISTS sq_ine;
CREATE SEQUENCE sq_ine;
CREATE SEQUENCE IF NOT EXISTS sq_ine START 100;
CREATE SEQUENCE sq_ine;
SELECT nextval('sq_ine');
DROP TABLE IF EXISTS sq_ine_t;
CREATE TABLE sq_ine_t (a int);
CREATE SEQUENCE sq_ine_t;
DROP TABLE sq_ine_t;
DROP SEQUENCE sq_ine;

-- name: seq_cache
DROP SEQUENCE IF EXISTS sq_cache;
CREATE SEQUENCE sq_cache CACHE 10;
SELECT nextval('sq_cache'), nextval('sq_cache');
SELECT * FROM sq_cache;
SELECT nextval('sq_cache') FROM generate_series(1, 9);
SELECT * FROM sq_cache;
DROP SEQUENCE sq_cache;

-- name: seq_log_cnt
DROP SEQUENCE IF EXISTS sq_log;
CREATE SEQUENCE sq_log;
SELECT nextval('sq_log') FROM generate_series(1, 3);
SELECT * FROM sq_log;
ALTER SEQUENCE sq_log INCREMENT 2;
SELECT * FROM sq_log;
SELECT nextval('sq_log');
DROP SEQUENCE sq_log;

-- name: seq_alter
-- @errors
DROP SEQUENCE IF EXISTS sq_alt;
CREATE SEQUENCE sq_alt;
SELECT nextval('sq_alt'), nextval('sq_alt');
ALTER SEQUENCE sq_alt INCREMENT BY 10;
SELECT nextval('sq_alt');
ALTER SEQUENCE sq_alt RESTART;
SELECT nextval('sq_alt');
ALTER SEQUENCE sq_alt RESTART WITH 100;
SELECT nextval('sq_alt'), currval('sq_alt');
ALTER SEQUENCE sq_alt MAXVALUE 50;
ALTER SEQUENCE sq_alt START WITH 5 RESTART MAXVALUE 1000 CYCLE;
SELECT nextval('sq_alt');
ALTER SEQUENCE sq_alt AS smallint;
SELECT data_type, min_value, max_value, start_value, increment_by, cycle FROM pg_sequences WHERE sequencename = 'sq_alt';
ALTER SEQUENCE sq_alt NO MAXVALUE NO CYCLE;
SELECT data_type, max_value, cycle FROM pg_sequences WHERE sequencename = 'sq_alt';
ALTER SEQUENCE sq_alt INCREMENT 0;
DROP SEQUENCE sq_alt;

-- name: seq_nextval_not_rolled_back
DROP SEQUENCE IF EXISTS sq_tx;
CREATE SEQUENCE sq_tx;
BEGIN;
SELECT nextval('sq_tx'), nextval('sq_tx');
ROLLBACK;
SELECT nextval('sq_tx'), currval('sq_tx'), lastval();
BEGIN;
SELECT setval('sq_tx', 40);
ROLLBACK;
SELECT nextval('sq_tx');
BEGIN;
SAVEPOINT a;
SELECT nextval('sq_tx');
ROLLBACK TO a;
SELECT currval('sq_tx');
COMMIT;
DROP SEQUENCE sq_tx;

-- name: seq_ddl_is_transactional
-- @errors
DROP SEQUENCE IF EXISTS sq_ddl;
BEGIN;
CREATE SEQUENCE sq_ddl;
SELECT nextval('sq_ddl'), nextval('sq_ddl');
ROLLBACK;
SELECT nextval('sq_ddl');
CREATE SEQUENCE sq_ddl;
BEGIN;
DROP SEQUENCE sq_ddl;
ROLLBACK;
SELECT nextval('sq_ddl');
BEGIN;
ALTER SEQUENCE sq_ddl RESTART WITH 500;
SELECT nextval('sq_ddl');
ROLLBACK;
SELECT nextval('sq_ddl');
DROP SEQUENCE sq_ddl;

-- name: seq_lastval_follows_nextval
-- @errors
DROP SEQUENCE IF EXISTS sq_l1, sq_l2;
CREATE SEQUENCE sq_l1;
CREATE SEQUENCE sq_l2 START 100;
SELECT nextval('sq_l1');
SELECT lastval();
SELECT nextval('sq_l2');
SELECT lastval();
SELECT setval('sq_l1', 7);
SELECT lastval();
DROP SEQUENCE sq_l2;
SELECT lastval();
DROP SEQUENCE sq_l1;

-- name: seq_discard
-- @errors
DROP SEQUENCE IF EXISTS sq_disc;
CREATE SEQUENCE sq_disc;
SELECT nextval('sq_disc');
DISCARD SEQUENCES;
SELECT currval('sq_disc');
SELECT lastval();
DROP SEQUENCE sq_disc;

-- name: seq_owned_by
-- @errors
DROP TABLE IF EXISTS sq_own_t;
DROP SEQUENCE IF EXISTS sq_own;
CREATE TABLE sq_own_t (id int, v text);
CREATE SEQUENCE sq_own OWNED BY sq_own_t.id;
SELECT pg_get_serial_sequence('sq_own_t', 'id');
ALTER SEQUENCE sq_own OWNED BY NONE;
SELECT pg_get_serial_sequence('sq_own_t', 'id');
ALTER SEQUENCE sq_own OWNED BY sq_own_t.nope;
ALTER SEQUENCE sq_own OWNED BY nope;
ALTER SEQUENCE sq_own OWNED BY sq_own_t.v;
DROP TABLE sq_own_t;
SELECT count(*) FROM pg_class WHERE relname = 'sq_own';
DROP SEQUENCE IF EXISTS sq_own;

-- name: seq_serial_table
-- @errors
DROP TABLE IF EXISTS sq_ser;
CREATE TABLE sq_ser (id serial PRIMARY KEY, big bigserial, small smallserial, v text);
INSERT INTO sq_ser (v) VALUES ('a'), ('b') RETURNING *;
INSERT INTO sq_ser (id, v) VALUES (10, 'explicit') RETURNING id, v;
INSERT INTO sq_ser (v) VALUES ('c') RETURNING id, big, small;
INSERT INTO sq_ser DEFAULT VALUES RETURNING id;
INSERT INTO sq_ser (id, v) VALUES (DEFAULT, 'd') RETURNING id;
SELECT * FROM sq_ser ORDER BY id;
SELECT pg_get_serial_sequence('sq_ser', 'id'), pg_get_serial_sequence('public.sq_ser', 'big'), pg_get_serial_sequence('sq_ser', 'v');
SELECT pg_get_serial_sequence('sq_ser', 'nope');
SELECT pg_get_serial_sequence('sq_nope', 'id');
SELECT currval('sq_ser_id_seq'), currval(pg_get_serial_sequence('sq_ser', 'id'));
SELECT relname, relkind FROM pg_class WHERE relname LIKE 'sq\_ser%' ORDER BY relname;
SELECT a.attname, a.attnotnull, a.atthasdef, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname = 'sq_ser' AND a.attnum > 0 ORDER BY a.attnum;
SELECT sequencename, data_type, max_value FROM pg_sequences WHERE sequencename LIKE 'sq\_ser%' ORDER BY 1;
INSERT INTO sq_ser (id, v) VALUES (NULL, 'null id');
DROP SEQUENCE sq_ser_id_seq;
DROP TABLE sq_ser;
SELECT count(*) FROM pg_class WHERE relname LIKE 'sq\_ser%';

-- name: seq_serial_in_transaction
DROP TABLE IF EXISTS sq_sertx;
CREATE TABLE sq_sertx (id serial, v text);
BEGIN;
INSERT INTO sq_sertx (v) VALUES ('rolled back') RETURNING id;
ROLLBACK;
INSERT INTO sq_sertx (v) VALUES ('kept') RETURNING id;
SELECT * FROM sq_sertx;
BEGIN;
DROP TABLE IF EXISTS sq_sertx2;
CREATE TABLE sq_sertx2 (id bigserial, v text);
INSERT INTO sq_sertx2 (v) VALUES ('x') RETURNING *;
ROLLBACK;
SELECT count(*) FROM pg_class WHERE relname LIKE 'sq\_sertx2%';
DROP TABLE sq_sertx;

-- name: seq_serial_name_taken
DROP TABLE IF EXISTS sq_nt;
DROP SEQUENCE IF EXISTS sq_nt_id_seq;
CREATE SEQUENCE sq_nt_id_seq;
CREATE TABLE sq_nt (id serial);
SELECT pg_get_serial_sequence('sq_nt', 'id');
DROP TABLE sq_nt;
DROP SEQUENCE sq_nt_id_seq;

-- name: seq_drop_used_by_default
-- @errors
DROP TABLE IF EXISTS sq_dep_t;
DROP SEQUENCE IF EXISTS sq_dep;
CREATE SEQUENCE sq_dep;
CREATE TABLE sq_dep_t (id int DEFAULT nextval('sq_dep'::regclass), v text);
INSERT INTO sq_dep_t (v) VALUES ('a') RETURNING *;
DROP SEQUENCE sq_dep;
DROP SEQUENCE sq_dep CASCADE;
INSERT INTO sq_dep_t (v) VALUES ('b') RETURNING *;
DROP TABLE sq_dep_t;

-- name: seq_identity_always
-- @errors
DROP TABLE IF EXISTS sq_ida;
CREATE TABLE sq_ida (id int GENERATED ALWAYS AS IDENTITY, v text);
INSERT INTO sq_ida (v) VALUES ('a'), ('b') RETURNING *;
INSERT INTO sq_ida (id, v) VALUES (100, 'c');
INSERT INTO sq_ida (id, v) VALUES (DEFAULT, 'd') RETURNING *;
INSERT INTO sq_ida (id, v) OVERRIDING SYSTEM VALUE VALUES (100, 'e') RETURNING *;
INSERT INTO sq_ida (id, v) OVERRIDING USER VALUE VALUES (200, 'f') RETURNING *;
INSERT INTO sq_ida (id, v) SELECT 300, 'g';
INSERT INTO sq_ida DEFAULT VALUES RETURNING *;
UPDATE sq_ida SET id = 5 WHERE v = 'a';
UPDATE sq_ida SET id = DEFAULT WHERE v = 'a' RETURNING *;
SELECT * FROM sq_ida ORDER BY id;
SELECT a.attname, a.attidentity, a.attnotnull, a.atthasdef FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname = 'sq_ida' AND a.attnum > 0 ORDER BY a.attnum;
SELECT pg_get_serial_sequence('sq_ida', 'id');
DROP SEQUENCE sq_ida_id_seq;
DROP TABLE sq_ida;
SELECT count(*) FROM pg_class WHERE relname LIKE 'sq\_ida%';

-- name: seq_identity_by_default
-- @errors
DROP TABLE IF EXISTS sq_idd;
CREATE TABLE sq_idd (id bigint GENERATED BY DEFAULT AS IDENTITY (START WITH 10 INCREMENT BY 10) PRIMARY KEY, v text);
INSERT INTO sq_idd (v) VALUES ('a') RETURNING *;
INSERT INTO sq_idd (id, v) VALUES (15, 'b') RETURNING *;
INSERT INTO sq_idd (id, v) OVERRIDING USER VALUE VALUES (99, 'c') RETURNING *;
INSERT INTO sq_idd (v) VALUES ('d') RETURNING *;
UPDATE sq_idd SET id = 1 WHERE v = 'd' RETURNING *;
SELECT sequencename, data_type, start_value, increment_by FROM pg_sequences WHERE sequencename = 'sq_idd_id_seq';
CREATE TABLE sq_idd_bad (id text GENERATED ALWAYS AS IDENTITY);
DROP TABLE sq_idd;

-- name: seq_truncate_restart_identity
DROP TABLE IF EXISTS sq_tr;
CREATE TABLE sq_tr (id serial, v text);
INSERT INTO sq_tr (v) VALUES ('a'), ('b');
TRUNCATE sq_tr;
INSERT INTO sq_tr (v) VALUES ('c') RETURNING id;
TRUNCATE sq_tr RESTART IDENTITY;
INSERT INTO sq_tr (v) VALUES ('d') RETURNING id;
BEGIN;
TRUNCATE sq_tr RESTART IDENTITY;
INSERT INTO sq_tr (v) VALUES ('e') RETURNING id;
ROLLBACK;
INSERT INTO sq_tr (v) VALUES ('f') RETURNING id;
TRUNCATE TABLE sq_tr CONTINUE IDENTITY;
INSERT INTO sq_tr (v) VALUES ('g') RETURNING id;
DROP TABLE sq_tr;

-- name: seq_pg_class
DROP SEQUENCE IF EXISTS sq_cls;
CREATE SEQUENCE sq_cls;
SELECT relname, relkind, relnatts, relpersistence FROM pg_class WHERE relname = 'sq_cls';
SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname = 'sq_cls' AND a.attnum > 0 ORDER BY a.attnum;
SELECT count(*) FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid WHERE c.relname = 'sq_cls';
DROP SEQUENCE sq_cls;

-- name: seq_prepared
DROP SEQUENCE IF EXISTS sq_prep;
CREATE SEQUENCE sq_prep;
PREPARE sq_p AS SELECT nextval('sq_prep');
EXECUTE sq_p;
EXECUTE sq_p;
PREPARE sq_q AS SELECT * FROM sq_prep;
EXECUTE sq_q;
SELECT nextval('sq_prep');
EXECUTE sq_q;
DEALLOCATE sq_p;
DEALLOCATE sq_q;
DROP SEQUENCE sq_prep;

-- name: seq_read_only
-- @errors
DROP SEQUENCE IF EXISTS sq_ro;
CREATE SEQUENCE sq_ro;
BEGIN READ ONLY;
SELECT nextval('sq_ro');
ROLLBACK;
BEGIN READ ONLY;
SELECT setval('sq_ro', 5);
ROLLBACK;
BEGIN READ ONLY;
SELECT * FROM sq_ro;
SELECT currval('sq_ro');
ROLLBACK;
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT nextval('sq_ro');
COMMIT;
DROP SEQUENCE sq_ro;

-- name: seq_temp
DROP SEQUENCE IF EXISTS sq_temp;
CREATE TEMP SEQUENCE sq_temp START 3;
SELECT nextval('sq_temp');
SELECT relpersistence FROM pg_class WHERE relname = 'sq_temp';
DROP SEQUENCE sq_temp;

-- name: seq_many_rows
DROP TABLE IF EXISTS sq_many;
CREATE TABLE sq_many (id bigserial PRIMARY KEY, n int);
INSERT INTO sq_many (n) SELECT g FROM generate_series(1, 2000) g;
SELECT count(*), count(DISTINCT id), min(id), max(id) FROM sq_many;
SELECT * FROM sq_many_id_seq;
DROP TABLE sq_many;

-- name: seq_column_conflicts
-- @errors
CREATE TABLE sq_conf (id int DEFAULT 5 GENERATED ALWAYS AS IDENTITY);
CREATE TABLE sq_conf (id int GENERATED ALWAYS AS IDENTITY DEFAULT 5);
CREATE TABLE sq_conf (id int GENERATED ALWAYS AS IDENTITY GENERATED BY DEFAULT AS IDENTITY);
CREATE TABLE sq_conf (id serial DEFAULT 5);
CREATE TABLE sq_conf (id serial GENERATED ALWAYS AS IDENTITY);
SELECT count(*) FROM pg_class WHERE relname LIKE 'sq\_conf%';
