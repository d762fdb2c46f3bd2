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
SELECT name, short_desc FROM pg_settings WHERE name = 'checkpoint_timeout';
SET checkpoint_timeout = '10min';
