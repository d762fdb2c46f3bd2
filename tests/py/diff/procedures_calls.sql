-- Differential SQL cases: procedures as PostgreSQL 15's create_procedure.sql uses them (issue
-- 32): CALL's errors (no such procedure, a function called with CALL, a procedure called with
-- SELECT), OUT and INOUT arguments passed by CALL (polymorphic ones with NULL), the texts of
-- pg_get_function_arguments and pg_get_functiondef for procedures, DROP PROCEDURE with OUT
-- arguments, and the definitions PostgreSQL refuses for procedures. Objects are named pc_...

-- name: pc_call_errors
-- @errors
DROP PROCEDURE IF EXISTS pc_p1(text);
CREATE PROCEDURE pc_p1(x text) LANGUAGE sql AS $$ SELECT x $$;
CREATE FUNCTION pc_f1(a int) RETURNS int LANGUAGE sql AS 'SELECT a';
CALL pc_nonexistent();
CALL pc_nonexistent(1, 'a', b => 2);
CALL random();
CALL version();
CALL sum(1);
CALL pc_f1(1);
SELECT pc_p1('x');
SELECT pc_p1(x => 'x');
CALL pc_p1(1, 2);
CALL pc_p1('ok');
DROP FUNCTION pc_f1(int);
DROP PROCEDURE pc_p1;

-- name: pc_out_arguments
-- @errors
CREATE PROCEDURE pc_p9(OUT a int) LANGUAGE sql BEGIN ATOMIC SELECT 1; END;
CALL pc_p9(NULL);
CALL pc_p9(7);
CREATE PROCEDURE pc_p10(OUT a int, IN b int, IN c int) LANGUAGE sql AS $$ SELECT b - c $$;
CALL pc_p10(null, 7, 4);
CALL pc_p10(a => null, b => 8, c => 2);
CALL pc_p10(null, 7, c => 2);
CALL pc_p10(null, c => 4, b => 11);
CALL pc_p10(b => 8, c => 2, a => 0);
CREATE PROCEDURE pc_p11(a OUT int, VARIADIC b int[]) LANGUAGE sql AS $$ SELECT b[1] + b[2] $$;
CALL pc_p11(null, 11, 12, 13);
CREATE PROCEDURE pc_p4(INOUT a int, INOUT b int) LANGUAGE sql AS $$ SELECT 1, 2 $$;
CALL pc_p4(NULL, NULL);
CALL pc_p4(NULL);
DROP PROCEDURE pc_p9, pc_p10, pc_p11, pc_p4;

-- name: pc_polymorphic_out
CREATE PROCEDURE pc_p6a(inout a anyelement, out b anyelement) LANGUAGE sql AS $$ SELECT $1, $1 $$;
CALL pc_p6a(1, null);
CALL pc_p6a(1.1, null);
CREATE PROCEDURE pc_p6b(a anyelement, out b anyelement, out c anyarray) LANGUAGE sql AS $$ SELECT $1, array[$1] $$;
CALL pc_p6b(1, null, null);
CALL pc_p6b('x'::text, null, null);
CREATE PROCEDURE pc_p6c(inout a anyelement, inout b anyelement) LANGUAGE sql AS $$ SELECT $1, 1 $$;
CALL pc_p6c(1, null);
CALL pc_p6c(1.1, null);
DROP PROCEDURE pc_p6a, pc_p6b, pc_p6c;

-- name: pc_texts
CREATE PROCEDURE pc_t1(x text, INOUT y int, OUT z int, VARIADIC w int[]) LANGUAGE sql AS $$ SELECT y, 1 $$;
CREATE PROCEDURE pc_t2(x text) LANGUAGE sql BEGIN ATOMIC END;
CREATE PROCEDURE pc_t3(a int DEFAULT 1) LANGUAGE sql AS $$ SELECT '$procedure' $$;
SELECT proname, prokind, pg_get_function_arguments(oid), pg_get_function_identity_arguments(oid), pg_get_function_result(oid) FROM pg_proc WHERE proname LIKE 'pc\_t_' ORDER BY 1;
SELECT pg_get_functiondef('pc_t1'::regproc);
SELECT pg_get_functiondef('pc_t2'::regproc);
SELECT pg_get_functiondef('pc_t3'::regproc);
SELECT 'pg_catalog.trigger'::pg_catalog.regtype::oid, 'event_trigger'::regtype::oid;
DROP PROCEDURE pc_t1, pc_t2, pc_t3;

-- name: pc_drop_with_out_arguments
-- @errors
CREATE PROCEDURE pc_d(OUT a int, IN b int, IN c int) LANGUAGE sql AS $$ SELECT b - c $$;
CREATE PROCEDURE pc_d(IN a int, IN b int, IN c int) LANGUAGE sql AS $$ SELECT 1 $$;
DROP PROCEDURE pc_d;
DROP PROCEDURE pc_d(int, int, int);
DROP PROCEDURE pc_d(out int, int, int);
SELECT pg_get_function_arguments(oid) FROM pg_proc WHERE proname = 'pc_d';
DROP PROCEDURE pc_d(int, int, int);
CREATE PROCEDURE pc_d(OUT a int, IN b int, IN c int) LANGUAGE sql AS $$ SELECT b - c $$;
DROP PROCEDURE pc_d(int, int, int);
SELECT count(*) FROM pg_proc WHERE proname = 'pc_d';

-- name: pc_bad_definitions
-- @errors
CREATE PROCEDURE pc_x() LANGUAGE SQL WINDOW AS $$ SELECT 1 $$;
CREATE PROCEDURE pc_x() LANGUAGE SQL STRICT AS $$ SELECT 1 $$;
CREATE PROCEDURE pc_x() LANGUAGE SQL IMMUTABLE AS $$ SELECT 1 $$;
CREATE PROCEDURE pc_x() LANGUAGE SQL PARALLEL SAFE AS $$ SELECT 1 $$;
CREATE PROCEDURE pc_x() LANGUAGE SQL COST 10 AS $$ SELECT 1 $$;
CREATE PROCEDURE pc_x(a VARIADIC int[], b OUT int) LANGUAGE SQL AS $$ SELECT 1 $$;
CREATE PROCEDURE pc_x(a int DEFAULT 42, b OUT int) LANGUAGE SQL AS $$ SELECT 1 $$;
CREATE FUNCTION pc_xf(a VARIADIC int[], b OUT int) LANGUAGE SQL AS $$ SELECT 1 $$;
SELECT pc_xf(1, 2);
DROP FUNCTION pc_xf;
