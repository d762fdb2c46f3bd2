-- Differential SQL cases: SQL-level PREPARE / EXECUTE / DEALLOCATE.

-- name: prepare_execute_deallocate
PREPARE p(int) AS SELECT $1 + 1 AS r;
EXECUTE p(41);
EXECUTE p('7');
PREPARE q AS SELECT $1::text || 'x';
EXECUTE q('a');
PREPARE r AS SELECT $1 + 1, $2 || 'y';
EXECUTE r(5, 'x');
PREPARE s(int8, numeric, bool, date, text) AS SELECT $1, $2, $3, $4, $5;
EXECUTE s(1, 2.5, true, '2024-01-01', 'z');
PREPARE nop AS SELECT 1 WHERE false;
EXECUTE nop;
DEALLOCATE p;
DEALLOCATE PREPARE q;
DEALLOCATE ALL;
DEALLOCATE PREPARE ALL;

-- name: prepare_utility
PREPARE st AS SELECT x FROM generate_series(1, 3) x;
EXECUTE st;
EXECUTE st;
PREPARE vals(int, int) AS VALUES ($1, $2), ($2, $1);
EXECUTE vals(1, 2);
DEALLOCATE st;

-- name: prepare_errors
-- @errors
EXECUTE nope;
DEALLOCATE nope;
PREPARE p(int) AS SELECT $1;
PREPARE p(int) AS SELECT $1;
EXECUTE p(1, 2);
EXECUTE p();
EXECUTE p('abc');
PREPARE bad AS SELEC 1;
PREPARE bad2(nosuchtype) AS SELECT $1;
PREPARE bad3 AS SELECT $2;
PREPARE bad4 AS SELECT nosuch($1);
DEALLOCATE p;
EXECUTE p(1);

-- name: prepare_in_failed_transaction
-- @errors
BEGIN;
PREPARE t1 AS SELECT 1;
SELECT 1 / 0;
EXECUTE t1;
ROLLBACK;
EXECUTE t1;
DEALLOCATE ALL;
