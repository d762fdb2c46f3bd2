-- Differential SQL cases: several statements in one Query, empty queries.

-- name: multi_basic
-- @modes simple
SELECT 1; SELECT 2;
SELECT 1 AS a; SELECT 'x' AS b, 2 AS c;
SELECT 1;;SELECT 2;
SELECT ';' AS semi; SELECT 'a;b';
SELECT 1; -- trailing comment
SELECT 1; /* trailing block */
VALUES (1); SELECT * FROM generate_series(1, 2); SHOW search_path;

-- name: multi_error_stops
-- @errors
-- @modes simple
SELECT 1; SELECT 1 / 0; SELECT 3;
SELECT 'after';
SELECT 1; SELEC 2; SELECT 3;
SELECT 1; SELECT nosuch(); SELECT 3;

-- name: multi_implicit_transaction
-- @errors
-- @modes simple
SET application_name = 'kept'; SELECT 1;
SET application_name = 'lost'; SELECT 1 / 0;
SHOW application_name;
SELECT 1; BEGIN; SELECT 2;
COMMIT;
BEGIN; SELECT 1 / 0; COMMIT; SELECT 3;
ROLLBACK;
BEGIN; SELECT 1; COMMIT; SELECT 1 / 0;
SHOW transaction_isolation;

-- name: multi_asyncpg_reset
-- @modes simple
SELECT pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL;
LISTEN a; SET application_name = 'x'; SELECT pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL;
SELECT * FROM pg_listening_channels();

-- name: multi_transaction_statements
-- @errors
-- @modes simple
BEGIN; SAVEPOINT a; SELECT 1 / 0; ROLLBACK TO a; SELECT 2; COMMIT;
ROLLBACK;
SAVEPOINT x; SELECT 1;
BEGIN; SAVEPOINT a; RELEASE a; COMMIT;
SELECT 1; COMMIT; SELECT 2;
PREPARE mp AS SELECT 1; EXECUTE mp; DEALLOCATE mp;

-- name: empty_queries
-- @raw ""
-- @raw ";"
-- @raw "-- ping"
-- @raw "   "
-- @raw ";;"
-- @raw "/* comment */"
-- @raw "\n\t\n"
-- @raw "-- comment\n;"
SELECT 1;

-- name: empty_queries_in_transaction
BEGIN;
-- @raw ""
-- @raw ";"
COMMIT;
