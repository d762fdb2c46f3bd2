-- Differential SQL cases: CHECKPOINT and who may run it (issue 29). The effect of a
-- checkpoint (what survives a restart) is checked in test_durable.py.

-- name: checkpoint_privileges
-- @errors
CHECKPOINT;
BEGIN;
CHECKPOINT;
COMMIT;
DROP ROLE IF EXISTS dur_plain;
DROP ROLE IF EXISTS dur_ckpt;
CREATE ROLE dur_plain;
CREATE ROLE dur_ckpt;
GRANT pg_checkpoint TO dur_ckpt;
SET ROLE dur_plain;
CHECKPOINT;
RESET ROLE;
SET ROLE dur_ckpt;
CHECKPOINT;
RESET ROLE;
DROP ROLE dur_plain;
DROP ROLE dur_ckpt;

-- name: checkpoint_settings
-- @errors
SHOW checkpoint_timeout;
SELECT name, setting, unit, context, vartype, short_desc FROM pg_settings WHERE name = 'checkpoint_timeout';
SET checkpoint_timeout = '10min';

-- name: relfilenode_changes_with_the_storage
DROP TABLE IF EXISTS dur_f;
DROP VIEW IF EXISTS dur_fv;
DROP SEQUENCE IF EXISTS dur_fs;
CREATE TABLE dur_f (a int, b text);
INSERT INTO dur_f VALUES (1, 'x');
CREATE VIEW dur_fv AS SELECT a FROM dur_f;
CREATE SEQUENCE dur_fs;
SELECT relname, relfilenode = oid, relfilenode = 0 FROM pg_class WHERE relname IN ('dur_f', 'dur_fv', 'dur_fs') ORDER BY relname;
ALTER TABLE dur_f RENAME COLUMN b TO c;
SELECT relfilenode = oid FROM pg_class WHERE relname = 'dur_f';
CREATE TEMP TABLE dur_before AS SELECT relfilenode FROM pg_class WHERE relname = 'dur_f';
TRUNCATE dur_f;
SELECT relfilenode = oid, relfilenode = (SELECT relfilenode FROM dur_before) FROM pg_class WHERE relname = 'dur_f';
ALTER SEQUENCE dur_fs RESTART;
SELECT relfilenode = oid FROM pg_class WHERE relname = 'dur_fs';
DROP VIEW dur_fv;
DROP TABLE dur_f;
DROP SEQUENCE dur_fs;

-- name: settings_units_contexts_types
SELECT name, setting, unit, context, vartype FROM pg_settings WHERE name IN ('statement_timeout', 'lock_timeout', 'standard_conforming_strings', 'default_transaction_isolation', 'extra_float_digits', 'authentication_timeout', 'idle_session_timeout') ORDER BY name;
SELECT name, context, vartype FROM pg_settings WHERE name = 'server_version_num';
SET statement_timeout = '2min';
SELECT setting, unit FROM pg_settings WHERE name = 'statement_timeout';
SET statement_timeout = 1500;
SELECT setting FROM pg_settings WHERE name = 'statement_timeout';
RESET statement_timeout;
