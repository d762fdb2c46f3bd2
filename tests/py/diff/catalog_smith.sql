-- Differential SQL cases: the catalog rows SQLsmith reads at startup (scripts/sqlsmith.sh) —
-- information_schema.tables for user relations, pg_operator rows, pg_type rows of the
-- pseudo-types and catalog column types, unnest and subscripts of oidvector / int2vector and
-- their text form. Objects are prefixed sm_; each case drops what it makes. The catalog views
-- are filtered to the cases' objects: PostgreSQL's also list its own catalogs.
-- information_schema's columns are of domains in PostgreSQL (sql_identifier, yes_or_no), of
-- their base types in threadgres: the cases cast them to text.

-- name: information_schema_tables_user_relations
DROP TABLE IF EXISTS sm_child, sm_parent CASCADE;
CREATE TABLE sm_parent (id int PRIMARY KEY, name text);
CREATE TABLE sm_child (id bigint, parent int REFERENCES sm_parent (id), tags int[]);
-- A view PostgreSQL cannot update automatically (threadgres updates no view).
CREATE VIEW sm_view AS SELECT id, count(*) AS n FROM sm_parent GROUP BY id;
SELECT table_catalog::text, table_schema::text, table_name::text, table_type::text, self_referencing_column_name::text, reference_generation::text, user_defined_type_catalog::text, user_defined_type_schema::text, user_defined_type_name::text, is_insertable_into::text, is_typed::text, commit_action::text FROM information_schema.tables WHERE table_name LIKE 'sm\_%' ORDER BY table_name;
SELECT table_name::text, table_schema::text, is_insertable_into::text, table_type::text FROM information_schema.tables WHERE table_schema = 'public' AND table_name IN ('sm_parent', 'sm_view') ORDER BY 1;
DROP VIEW sm_view;
DROP TABLE sm_child, sm_parent;
SELECT count(*) FROM information_schema.tables WHERE table_name LIKE 'sm\_%';

-- name: information_schema_tables_schema_and_temp
DROP SCHEMA IF EXISTS sm_s CASCADE;
CREATE SCHEMA sm_s;
CREATE TABLE sm_s.sm_t (a int);
CREATE TEMP TABLE sm_tmp (a int);
SELECT table_schema::text = 'sm_s' OR table_schema::text LIKE 'pg_temp%', table_name::text, table_type::text, is_insertable_into::text FROM information_schema.tables WHERE table_name IN ('sm_t', 'sm_tmp') ORDER BY table_name;
DROP TABLE sm_tmp;
DROP SCHEMA sm_s CASCADE;

-- name: information_schema_tables_transactional
BEGIN;
CREATE TABLE sm_tx (a int);
SELECT table_name::text FROM information_schema.tables WHERE table_name = 'sm_tx';
ROLLBACK;
SELECT count(*) FROM information_schema.tables WHERE table_name = 'sm_tx';

-- name: pg_operator_rows
SELECT oid, oprname, oprnamespace, oprowner, oprkind, oprcanmerge, oprcanhash, oprleft, oprright, oprresult, oprcom, oprnegate, oprcode, oprrest, oprjoin FROM pg_catalog.pg_operator WHERE oid IN (96, 518, 97, 521, 551, 15, 654, 1209, 1054, 3211, 3240, 2750, 558) ORDER BY oid;
SELECT oprname, oprleft, oprright, oprresult FROM pg_operator WHERE oprname = '||' AND oprleft = 'text'::regtype ORDER BY oprright;
SELECT oprname, oprleft, oprright, oprresult FROM pg_operator WHERE oprname = '-' AND oprkind = 'l' AND oprright IN (23, 20, 701) ORDER BY oid;

-- name: pg_operator_called_through_its_row
SELECT cast(null as int4) = cast(null as int4), cast(null as text) || cast(null as text), cast(null as jsonb) ? cast(null as text), - cast(null as int8);

-- name: pg_type_pseudo_and_catalog_types
SELECT oid, typname, typlen, typbyval, typtype, typcategory, typdelim, typrelid, typelem, typinput, typoutput, typalign, typstorage FROM pg_type WHERE oid IN (2281, 5077, 5078, 2776, 22, 30, 28, 194, 1033, 2202, 4089, 4096) ORDER BY oid;
SELECT case typnamespace when 'pg_catalog'::regnamespace then quote_ident(typname) else format('%I.%I', typnamespace::regnamespace, typname) end, oid, typdelim, typrelid, typelem, typtype FROM pg_type WHERE typname IN ('internal', 'anyarray', 'int4', 'bool', 'anycompatible') ORDER BY oid;

-- name: unnest_proargtypes
SELECT unnest(proargtypes) FROM pg_proc WHERE oid = '877';
SELECT unnest(proargtypes) FROM pg_proc WHERE oid = 1397;
SELECT proargtypes, proargtypes[0], array_lower(proargtypes, 1), array_length(proargtypes, 1) FROM pg_proc WHERE oid = 877;

-- name: oidvector_and_int2vector_text
SELECT '701 701 23'::oidvector, ('701 701 23'::oidvector)[0], ('701 701 23'::oidvector)[2], ('701 701 23'::oidvector)[3];
SELECT '1 -2 3'::int2vector, ('1 -2 3'::int2vector)[1], array_length('1 -2 3'::int2vector, 1), array_lower('1 -2 3'::int2vector, 1);
SELECT unnest('5 6'::int2vector), unnest('7 8'::oidvector);

-- name: oidvector_indkey
DROP TABLE IF EXISTS sm_idx;
CREATE TABLE sm_idx (a int, b int, c int);
CREATE INDEX sm_idx_cb ON sm_idx (c, b);
SELECT indkey, indkey[0], indkey[1], array_lower(indkey, 1) FROM pg_index WHERE indexrelid = 'sm_idx_cb'::regclass;
DROP TABLE sm_idx;
