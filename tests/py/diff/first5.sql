-- Differential cases for issue 20 (first things a PostgreSQL user tries): message levels,
-- ending one's own session, PREPARE TRANSACTION, volatile calls, SHOW's canonical forms.

-- name: client_min_messages_error_hides_warnings_and_notices
SET client_min_messages = error;
COMMIT;
ROLLBACK;
DROP TABLE IF EXISTS no_such_table_f5;
SET client_min_messages = warning;
COMMIT;
DROP TABLE IF EXISTS no_such_table_f5;
SET client_min_messages = notice;
COMMIT;
DROP TABLE IF EXISTS no_such_table_f5;
RESET client_min_messages;
SHOW client_min_messages;

-- name: client_min_messages_debug_and_log_levels
SET client_min_messages = debug1;
DROP TABLE IF EXISTS no_such_table_f5;
COMMIT;
SET client_min_messages = log;
COMMIT;
SET client_min_messages = DEBUG;
SHOW client_min_messages;
SET client_min_messages = info;
SHOW client_min_messages;
COMMIT;
DROP TABLE IF EXISTS no_such_table_f5;

-- name: client_min_messages_never_hides_errors
-- @errors
SET client_min_messages = error;
SELECT 1/0;
SET client_min_messages = panic;
SET client_min_messages = fatal;
SHOW client_min_messages;

-- name: client_min_messages_inside_transaction
-- @errors
BEGIN;
SET LOCAL client_min_messages = error;
BEGIN;
COMMIT;
BEGIN;
SET client_min_messages = error;
ROLLBACK;
BEGIN;
ROLLBACK;
SELECT set_config('client_min_messages', 'warning', false);
DROP TABLE IF EXISTS no_such_table_f5;
SELECT 1/0;

-- name: client_min_messages_identifier_truncation
SET client_min_messages = warning;
SELECT 1 AS aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa;
SET client_min_messages = notice;
SELECT 1 AS aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa;

-- name: log_min_messages_values
-- @errors
SHOW log_min_messages;
SET log_min_messages = info;
SHOW log_min_messages;
SET log_min_messages = debug;
SHOW log_min_messages;
SET log_min_messages = fatal;
SHOW log_min_messages;
SET log_min_messages = nonsense;
RESET log_min_messages;
SHOW log_min_messages;

-- name: prepare_transaction_disabled_ends_the_block
-- @errors
BEGIN;
SELECT 1;
PREPARE TRANSACTION 'f5';
SELECT 2;
COMMIT;
SHOW max_prepared_transactions;

-- name: prepare_transaction_in_savepoint
-- @errors
BEGIN;
SAVEPOINT a;
PREPARE TRANSACTION 'f5';
SELECT 3;

-- name: prepare_transaction_in_failed_block_rolls_back
-- @errors
BEGIN;
SELECT 1/0;
PREPARE TRANSACTION 'f5';
SELECT 4;

-- name: prepare_transaction_outside_a_block
PREPARE TRANSACTION 'f5';
SELECT 5;

-- name: prepare_transaction_undoes_set
-- @errors
BEGIN;
SET application_name = 'in_prepared';
PREPARE TRANSACTION 'f5';
SHOW application_name;

-- name: commit_and_rollback_prepared
-- @errors
COMMIT PREPARED 'f5';
ROLLBACK PREPARED 'f5';
BEGIN;
COMMIT PREPARED 'f5';
ROLLBACK;
BEGIN;
ROLLBACK PREPARED 'f5';
ROLLBACK;
BEGIN;
SELECT 1/0;
COMMIT PREPARED 'f5';
ROLLBACK;

-- name: volatile_inside_pg_typeof_runs
LISTEN f5c;
SELECT pg_typeof(pg_notify('f5c', 'from pg_typeof'));
SELECT pg_typeof(set_config('application_name', 'a1', false));
SHOW application_name;
SELECT pg_typeof(set_config('application_name', 'a2', false))::text;
SELECT pg_typeof(1), pg_typeof('x'::text), pg_typeof(NULL);
SELECT pg_typeof(g) FROM generate_series(1, 2) g;
UNLISTEN f5c;

-- name: volatile_in_coalesce_case_nullif
SET application_name = 'a0';
SELECT COALESCE(1, set_config('application_name', 'a2', false)::int);
SHOW application_name;
SELECT COALESCE(NULL, set_config('application_name', 'a3', false));
SELECT CASE WHEN true THEN 'x' ELSE set_config('application_name', 'a4', false) END;
SELECT CASE WHEN false THEN set_config('application_name', 'a5', false) ELSE 'y' END;
SHOW application_name;
SELECT NULLIF(set_config('application_name', 'a6', false), 'zz');
SELECT CASE set_config('application_name', 'a7', false) WHEN 'a7' THEN 1 ELSE 0 END;
SELECT GREATEST(1, length(set_config('application_name', 'a8', false)));
SELECT set_config('application_name', 'a9', false) IS NULL;
SHOW application_name;

-- name: volatile_under_constant_and_or
SET application_name = 'b0';
SELECT length(set_config('application_name', 'b1', false)) > 0 OR true;
SELECT true OR set_config('application_name', 'b2', false) = 'q';
SELECT false AND set_config('application_name', 'b3', false) = 'q';
SELECT set_config('application_name', 'b4', false) = 'q' AND false;
SHOW application_name;
SELECT false OR set_config('application_name', 'b5', false) = 'b5';
SELECT true AND set_config('application_name', 'b6', false) = 'b6';
SHOW application_name;

-- name: volatile_below_a_false_filter
SET application_name = 'c0';
SELECT 1 FROM (SELECT set_config('application_name', 'c1', false) AS x) s WHERE false;
SELECT count(*) FROM (SELECT set_config('application_name', 'c2', false)) s;
SHOW application_name;
SELECT x FROM (SELECT set_config('application_name', 'c3', false) AS x) s WHERE 1 = 2;
SHOW application_name;

-- name: show_search_path_canonical
SET search_path = a,b;
SHOW search_path;
SET search_path = 'a,b';
SHOW search_path;
SET search_path = "A", b;
SHOW search_path;
SET search_path TO "$user", public;
SHOW search_path;
SET search_path = "my schema", "x""y";
SHOW search_path;
SET search_path = 'Abc';
SHOW search_path;
SET search_path = public,pg_catalog;
SHOW search_path;
SELECT set_config('search_path', 'a,  b', false);
SHOW search_path;
RESET search_path;
SHOW search_path;

-- name: show_units_booleans_enums_canonical
-- @errors
SET statement_timeout = '90s';
SHOW statement_timeout;
SET statement_timeout = 1500;
SHOW statement_timeout;
RESET statement_timeout;
SET work_mem = '64MB';
SHOW work_mem;
SET work_mem = 65536;
SHOW work_mem;
SET work_mem = '1GB';
SHOW work_mem;
SET work_mem = '1000kB';
SHOW work_mem;
SET work_mem = 10;
SET work_mem = '1 PB';
RESET work_mem;
SHOW work_mem;
SET jit = yes;
SHOW jit;
SET intervalstyle = 'SQL_STANDARD';
SHOW intervalstyle;
SET DateStyle = 'german';
SHOW DateStyle;
SET datestyle = 'sql, dmy';
SHOW DateStyle;
SET DateStyle = 'German, YMD';
SHOW DateStyle;
RESET DateStyle;
SET synchronous_commit = ON;
SHOW synchronous_commit;
SET default_transaction_isolation = 'REPEATABLE READ';
SHOW default_transaction_isolation;
SET client_min_messages = 'WARNING';
SHOW client_min_messages;
