-- Differential SQL cases: shell types and base types made from built-in I/O functions, as
-- PostgreSQL 15's create_type.sql makes them (issue 32): CREATE TYPE name; its NOTICEs in the
-- I/O functions' CREATE FUNCTION, the full CREATE TYPE with a DEFAULT columns use, pg_type's
-- rows, and PostgreSQL's errors for bad definitions. Objects are named st_...

-- name: st_shell_types
-- @errors
CREATE TYPE st_shell;
CREATE TYPE st_shell;
SELECT typname, typtype, typisdefined, typarray FROM pg_type WHERE typname = 'st_shell';
DROP TYPE st_shell;
SELECT count(*) FROM pg_type WHERE typname = 'st_shell';
CREATE TYPE st_nosuch (INPUT = st_in, OUTPUT = st_out);

-- name: st_base_types
-- @errors
BEGIN;
CREATE TYPE st_int42;
CREATE TYPE st_text_w_default;
CREATE FUNCTION st_int42_in(cstring) RETURNS st_int42 AS 'int4in' LANGUAGE internal IMMUTABLE STRICT;
CREATE FUNCTION st_int42_out(st_int42) RETURNS cstring AS 'int4out' LANGUAGE internal IMMUTABLE STRICT;
CREATE FUNCTION st_text_in(cstring) RETURNS st_text_w_default AS 'textin' LANGUAGE internal IMMUTABLE STRICT;
CREATE FUNCTION st_text_out(st_text_w_default) RETURNS cstring AS 'textout' LANGUAGE internal IMMUTABLE STRICT;
CREATE TYPE st_int42 (internallength = 4, input = st_int42_in, output = st_int42_out, alignment = int4, default = 42, passedbyvalue);
CREATE TYPE st_text_w_default (internallength = variable, input = st_text_in, output = st_text_out, alignment = int4, default = 'zippo');
CREATE TABLE st_default_test (f1 st_text_w_default, f2 st_int42);
INSERT INTO st_default_test DEFAULT VALUES;
SELECT f1::text, f2::text FROM st_default_test;
SELECT typname, typtype, typlen, typbyval, typalign, typstorage, typcategory, typdefault, typisdefined FROM pg_type WHERE typname IN ('st_int42', 'st_text_w_default') ORDER BY 1;
CREATE TYPE st_text_w_default;
ROLLBACK;

-- name: st_bad_definitions
-- @errors
CREATE TYPE st_bogus;
CREATE TYPE st_bogus ("Internallength" = 4, "Input" = st_in, "Output" = st_out, "Passedbyvalue");
CREATE TYPE st_bogus (INPUT = array_in, OUTPUT = array_out, ELEMENT = int, INTERNALLENGTH = 32);
CREATE TYPE st_bogus (OUTPUT = array_out);
CREATE TYPE st_bogus (INPUT = st_nosuch_in, OUTPUT = array_out);
CREATE FUNCTION st_sql_in(cstring) RETURNS st_bogus LANGUAGE sql AS 'SELECT NULL';
DROP TYPE st_bogus;
