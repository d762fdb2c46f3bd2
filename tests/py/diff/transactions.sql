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
