-- Differential SQL cases: transaction blocks, savepoints, failed blocks, cursors.

-- name: tx_begin_commit
BEGIN;
SELECT 1;
COMMIT;
START TRANSACTION;
SELECT 2;
END;
begin;
rollback;
BEGIN WORK;
ABORT;
BEGIN TRANSACTION;
COMMIT TRANSACTION;

-- name: tx_isolation_levels
BEGIN ISOLATION LEVEL REPEATABLE READ;
SHOW transaction_isolation;
COMMIT;
START TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ WRITE;
SHOW transaction_isolation;
SHOW transaction_read_only;
COMMIT;
BEGIN READ ONLY;
SHOW transaction_read_only;
COMMIT;
BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE;
SHOW transaction_isolation;
ROLLBACK;
BEGIN READ WRITE;
COMMIT;
SHOW transaction_isolation;

-- name: tx_set_transaction
BEGIN;
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;
SHOW transaction_isolation;
COMMIT;
SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE;
SHOW default_transaction_isolation;
BEGIN;
SHOW transaction_isolation;
COMMIT;
SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED;
SHOW default_transaction_isolation;
SHOW transaction isolation level;

-- name: tx_set_transaction_too_late
-- @errors
BEGIN;
SELECT 1;
SET TRANSACTION ISOLATION LEVEL SERIALIZABLE;
ROLLBACK;

-- name: tx_failed_block
-- @errors
BEGIN;
SELECT 1 / 0;
SELECT 1;
SAVEPOINT sp;
COMMIT;
SHOW transaction_isolation;

-- name: tx_failed_block_rollback
-- @errors
BEGIN;
SELECT nosuchcol;
SELECT 'ignored';
ROLLBACK;
SELECT 'after';

-- name: tx_warnings_outside_block
COMMIT;
ROLLBACK;
END;
ABORT;
BEGIN;
BEGIN;
COMMIT;
COMMIT;

-- name: tx_savepoints
-- @errors
BEGIN;
SAVEPOINT a;
SELECT 1 / 0;
ROLLBACK TO SAVEPOINT a;
SELECT 2;
RELEASE SAVEPOINT a;
SAVEPOINT b;
SAVEPOINT c;
RELEASE b;
ROLLBACK TO c;
COMMIT;

-- name: tx_savepoints_nested
BEGIN;
SAVEPOINT s1;
SELECT 1;
SAVEPOINT s2;
SAVEPOINT s1;
ROLLBACK TO s1;
ROLLBACK TO SAVEPOINT s2;
RELEASE SAVEPOINT s1;
SAVEPOINT "_pg3_1";
RELEASE "_pg3_1";
COMMIT;

-- name: tx_savepoint_errors
-- @errors
SAVEPOINT a;
RELEASE SAVEPOINT a;
ROLLBACK TO SAVEPOINT a;
BEGIN;
ROLLBACK TO SAVEPOINT nope;
ROLLBACK;
BEGIN;
RELEASE SAVEPOINT nope;
ROLLBACK;

-- name: tx_rollback_to_after_error_keeps_block
-- @errors
BEGIN;
SAVEPOINT s;
SELECT 'x'::int;
SELECT 1;
ROLLBACK TO s;
SELECT 'recovered';
COMMIT;

-- name: tx_set_local_and_rollback
SET application_name = 'outer';
BEGIN;
SET LOCAL application_name = 'inner';
SHOW application_name;
COMMIT;
SHOW application_name;
BEGIN;
SET application_name = 'rolled_back';
ROLLBACK;
SHOW application_name;
BEGIN;
SET search_path = public;
SAVEPOINT s;
SET search_path = pg_catalog;
ROLLBACK TO s;
SHOW search_path;
COMMIT;

-- name: tx_set_local_outside
SET LOCAL statement_timeout = '1s';
SHOW statement_timeout;

-- name: tx_commit_and_chain
BEGIN ISOLATION LEVEL REPEATABLE READ;
COMMIT AND CHAIN;
SHOW transaction_isolation;
ROLLBACK AND NO CHAIN;

-- name: tx_discard_close
-- @errors
DISCARD ALL;
CLOSE ALL;
BEGIN;
DISCARD ALL;
ROLLBACK;
BEGIN;
CLOSE ALL;
COMMIT;

-- name: tx_cursor
-- @errors
BEGIN;
DECLARE c CURSOR FOR SELECT x FROM generate_series(1, 5) x;
FETCH 2 FROM c;
FETCH NEXT FROM c;
FETCH ALL FROM c;
FETCH 1 FROM c;
CLOSE c;
CLOSE c;
ROLLBACK;
DECLARE d CURSOR FOR SELECT 1;

-- name: tx_statuses_in_multi_statement
-- @modes simple
BEGIN; SELECT 1;
SELECT 2; COMMIT;
SELECT 1; BEGIN; SELECT 2;
COMMIT; SELECT 3;
BEGIN; SELECT 1; COMMIT; SELECT 2;

-- name: tx_deferrable_and_read_only_defaults
-- @errors
SHOW transaction_deferrable;
BEGIN ISOLATION LEVEL SERIALIZABLE, READ ONLY, DEFERRABLE;
SHOW transaction_deferrable;
SHOW transaction_read_only;
SELECT 1;
SET TRANSACTION NOT DEFERRABLE;
ROLLBACK;
BEGIN;
SET TRANSACTION DEFERRABLE;
SHOW transaction_deferrable;
SET transaction_deferrable = off;
SHOW transaction_deferrable;
COMMIT;
SET default_transaction_deferrable = on;
BEGIN;
SHOW transaction_deferrable;
COMMIT;
RESET default_transaction_deferrable;
SET default_transaction_read_only = on;
BEGIN;
SHOW transaction_read_only;
CREATE TABLE tx_ro_default (a int);
ROLLBACK;
CREATE TABLE tx_ro_default (a int);
RESET default_transaction_read_only;
SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY, DEFERRABLE;
SHOW default_transaction_deferrable;
BEGIN;
SHOW transaction_deferrable;
SHOW transaction_read_only;
COMMIT;
SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE, NOT DEFERRABLE;
BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY DEFERRABLE;
SELECT count(*) FROM pg_class WHERE relname = 'tx_ro_default';
COMMIT;
BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY DEFERRABLE;
DECLARE c CURSOR FOR SELECT 1 AS x;
FETCH c;
COMMIT;

-- name: tx_deferrable_too_late
-- @errors
BEGIN;
SELECT 1;
SET TRANSACTION DEFERRABLE;
ROLLBACK;
BEGIN;
SAVEPOINT a;
SET TRANSACTION NOT DEFERRABLE;
ROLLBACK;
BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY;
SELECT 1;
SET transaction_deferrable = off;
ROLLBACK;
