-- Differential SQL cases: composite types (issue 32): CREATE TYPE ... AS (...), composite
-- literals and their quoting, ROW() casts, field selection and (expr).*, composite columns
-- (INSERT / UPDATE of fields too), tables' row types as types, row comparisons and IS NULL,
-- arrays of composites, ALTER TYPE's attribute forms, RENAME / OWNER / SET SCHEMA, DROP TYPE
-- [CASCADE], transactions; pg_type / pg_class / pg_attribute rows and psql's \dT and \d
-- queries. Types and tables are named ct_...; no case shows an OID.

-- name: ct_create_and_literals
-- @errors
DROP TYPE IF EXISTS ct_pt CASCADE;
CREATE TYPE ct_pt AS (x int, y text);
SELECT '(1,abc)'::ct_pt, '(2,"a b")'::ct_pt, '(3,)'::ct_pt, '(,)'::ct_pt;
SELECT '(4,"quo""te")'::ct_pt, E'(5,back\\\\slash)'::ct_pt, '(6,"comma,paren)")'::ct_pt;
SELECT ' (7,z)  '::ct_pt, '(8,"")'::ct_pt;
SELECT '(9)'::ct_pt;
SELECT '(9,a,b)'::ct_pt;
SELECT '[]'::ct_pt;
SELECT '(9,a) x'::ct_pt;
SELECT '(x,a)'::ct_pt;
SELECT '(1,a'::ct_pt;
SELECT row(1, 'two')::ct_pt, (2, 'three')::ct_pt, row(3, null)::ct_pt;
SELECT row(1)::ct_pt;
SELECT row(1, 2, 3)::ct_pt;
SELECT NULL::ct_pt, (NULL::ct_pt) IS NULL;
SELECT '(1,x)'::ct_pt::text, cast(row(2, 'y')::ct_pt AS text);
DROP TYPE ct_pt;

-- name: ct_create_errors
-- @errors
DROP TYPE IF EXISTS ct_bad CASCADE;
DROP TYPE IF EXISTS public.int4;
CREATE TYPE ct_bad AS (a int, a text);
CREATE TYPE ct_bad AS (a no_such_type);
CREATE TYPE ct_bad AS (a int);
CREATE TYPE ct_bad AS (b int);
CREATE TYPE int4 AS (a int);
DROP TYPE public.int4;
CREATE TYPE ct_empty AS ();
SELECT row()::ct_empty;
DROP TYPE ct_empty;
DROP TYPE ct_bad;
DROP TYPE ct_bad;
DROP TYPE IF EXISTS ct_bad;

-- name: ct_field_selection
-- @errors
DROP TYPE IF EXISTS ct_in CASCADE;
DROP TYPE IF EXISTS ct_out CASCADE;
CREATE TYPE ct_in AS (r float8, i float8);
CREATE TYPE ct_out AS (c1 ct_in, c2 ct_in, n text);
SELECT ('(1.5,2)'::ct_in).r, ('(1.5,2)'::ct_in).i;
SELECT (row((1,2),(3,4),'x')::ct_out).c2, (row((1,2),(3,4),'x')::ct_out).c2.i;
SELECT (row((1,2),(3,4),'x')::ct_out).*;
SELECT (row((1,2),(3,4),'x')::ct_out).c1.*;
SELECT ('(1,2)'::ct_in).nosuch;
SELECT (NULL::ct_in).r;
SELECT (NULL::ct_in).nosuch;
SELECT (row(1, 2.0)).f1, (row(1, 2.0)).f2;
SELECT (row(1, 2.0)).*;
SELECT (row(1, 2.0)).f3;
SELECT (1).x;
DROP TYPE ct_out;
DROP TYPE ct_in;

-- name: ct_columns
-- @errors
DROP TABLE IF EXISTS ct_t;
DROP TYPE IF EXISTS ct_c CASCADE;
CREATE TYPE ct_c AS (a int, b text, c numeric(6,2));
CREATE TABLE ct_t (id int PRIMARY KEY, v ct_c);
INSERT INTO ct_t VALUES (1, '(1,one,1.5)'), (2, row(2, 'two', 2.25)), (3, NULL), (4, '(,,)');
INSERT INTO ct_t VALUES (5, (5, 'five', 5));
SELECT * FROM ct_t ORDER BY id;
SELECT id, (v).a, (v).b, (v).c FROM ct_t ORDER BY id;
SELECT id, (v).* FROM ct_t ORDER BY id;
SELECT id FROM ct_t WHERE (v).a > 1 ORDER BY id;
SELECT id, v IS NULL, v IS NOT NULL FROM ct_t ORDER BY id;
SELECT id FROM ct_t WHERE v = '(1,one,1.5)'::ct_c;
SELECT id FROM ct_t WHERE v = row(2, 'two', 2.25)::ct_c;
SELECT id FROM ct_t WHERE v IS DISTINCT FROM '(1,one,1.5)'::ct_c ORDER BY id;
SELECT count(*) FROM ct_t WHERE v IS NOT DISTINCT FROM NULL;
UPDATE ct_t SET v.b = 'uno' WHERE id = 1;
UPDATE ct_t SET v.a = 30, v.c = 3.333 WHERE id = 3;
UPDATE ct_t SET v.nosuch = 1;
UPDATE ct_t SET v.a = 'x';
UPDATE ct_t SET id.a = 1;
INSERT INTO ct_t (id, v.a, v.b) VALUES (6, 6, 'six');
SELECT * FROM ct_t ORDER BY id;
INSERT INTO ct_t VALUES (7, '(1,2,3,4)');
DROP TABLE ct_t;
DROP TYPE ct_c;

-- name: ct_nested_columns
-- Binary mode would send the nested composites' type OIDs, which differ between the servers.
-- @modes simple,extended
DROP TABLE IF EXISTS ct_qt;
DROP TYPE IF EXISTS ct_q CASCADE;
DROP TYPE IF EXISTS ct_cx CASCADE;
CREATE TYPE ct_cx AS (r float8, i float8);
CREATE TYPE ct_q AS (c1 ct_cx, c2 ct_cx);
CREATE TABLE ct_qt (f1 int, q ct_q);
INSERT INTO ct_qt VALUES (1, ((3.3,4.4),(5.5,6.6)));
INSERT INTO ct_qt VALUES (2, ((null,4.4),(5.5,6.6)));
INSERT INTO ct_qt (f1, q.c1.r, q.c2.i) VALUES (44, 55, 66);
UPDATE ct_qt SET q.c1.r = 12 WHERE f1 = 2;
SELECT * FROM ct_qt ORDER BY f1;
SELECT f1, (q).c1, (qq.q).c1.i FROM ct_qt qq ORDER BY f1;
SELECT row((3.3,4.4),(5.5,null))::ct_q;
DROP TABLE ct_qt;
DROP TYPE ct_q;
DROP TYPE ct_cx;

-- name: ct_table_row_types
-- @errors
DROP TABLE IF EXISTS ct_people;
DROP TABLE IF EXISTS ct_name;
CREATE TABLE ct_name (first text, last text);
INSERT INTO ct_name VALUES ('Joe', 'Blow'), ('Ann', NULL);
SELECT ct_name FROM ct_name ORDER BY 1;
SELECT (n).first, (n).* FROM ct_name n ORDER BY 1;
SELECT row('Jim', 'Beam')::ct_name, '(Jim,"Beam, Jr")'::ct_name;
SELECT ('(a,b)'::ct_name).last;
CREATE TABLE ct_people (fn ct_name, born date);
INSERT INTO ct_people VALUES ('(Joe,Blow)', '1984-01-10'), (row('Al', 'X'), NULL);
SELECT * FROM ct_people ORDER BY born;
SELECT (fn).first FROM ct_people ORDER BY 1;
SELECT n.* FROM ct_name n WHERE n = row('Joe', 'Blow')::ct_name;
SELECT (NULL::ct_name).first;
SELECT (NULL::ct_name).nosuch;
DROP TABLE ct_people;
DROP TABLE ct_name;

-- name: ct_row_comparisons
-- @errors
DROP TYPE IF EXISTS ct_t1 CASCADE;
DROP TYPE IF EXISTS ct_t3 CASCADE;
DROP TYPE IF EXISTS ct_t5 CASCADE;
CREATE TYPE ct_t1 AS (a int, b int);
SELECT ROW(1,2) < ROW(1,3), ROW(1,2) < ROW(1,1), ROW(1,2) < ROW(1,NULL) IS NULL;
SELECT ROW(1,2,3) < ROW(1,3,NULL), ROW(11,'ABC') < ROW(11,'DEF'), ROW(12,'ABC') > ROW(11,'DEF');
SELECT ROW(1,2,3) < ROW(1,NULL,4) IS NULL, ROW(1,2,3) = ROW(1,NULL,4), ROW(1,2,3) <> ROW(1,NULL,4);
SELECT ROW(1,2) = ROW(1,2::int8), ROW(1,2) IN (ROW(3,4), ROW(1,2)), ROW(1,2) <= ROW(1,2), ROW(2,1) >= ROW(1,9);
SELECT ROW(1,2) = ROW(1,2,3);
SELECT ROW() = ROW();
SELECT row(1, 2)::ct_t1 < row(1, 3)::ct_t1, row(1, 2)::ct_t1 <= row(1, 3)::ct_t1, row(1, 2)::ct_t1 = row(1, 2)::ct_t1;
SELECT row(1, 2)::ct_t1 <> row(1, 3)::ct_t1, row(1, 3)::ct_t1 >= row(1, 2)::ct_t1, row(1, 3)::ct_t1 > row(1, 2)::ct_t1;
SELECT row(1, -2)::ct_t1 < row(1, -3)::ct_t1, row(1, -2)::ct_t1 = row(1, -3)::ct_t1, row(1, -2)::ct_t1 < row(1, 3)::ct_t1;
SELECT row(1, NULL)::ct_t1 = row(1, NULL)::ct_t1, row(1, NULL)::ct_t1 < row(1, 2)::ct_t1;
CREATE TYPE ct_t3 AS (a int, b text);
CREATE TYPE ct_t5 AS (a int);
SELECT ROW(NULL, NULL) IS NULL, ROW(1, NULL) IS NULL, ROW(1, NULL) IS NOT NULL, ROW(1, 2) IS NOT NULL;
SELECT ROW(1, NULL) IS DISTINCT FROM ROW(1, NULL), ROW(1, 2) IS DISTINCT FROM ROW(1, NULL);
SELECT row(NULL, NULL)::ct_t1 IS NULL, '(1,)'::ct_t1 IS NOT NULL;
DROP TYPE ct_t1, ct_t3, ct_t5;

-- name: ct_arrays
-- Binary mode would send the element type's OID (it differs between the servers).
-- @modes simple,extended
-- @errors
DROP TABLE IF EXISTS ct_at;
DROP TYPE IF EXISTS ct_e CASCADE;
CREATE TYPE ct_e AS (k text, v int);
SELECT ARRAY[row('a', 1)::ct_e, row('b c', 2)::ct_e, NULL];
SELECT '{"(a,1)","(\\"b c\\",2)"}'::ct_e[];
SELECT ('{"(a,1)","(b,2)"}'::ct_e[])[2], (('{"(a,1)","(b,2)"}'::ct_e[])[2]).k;
CREATE TABLE ct_at (id int, es ct_e[]);
INSERT INTO ct_at VALUES (1, ARRAY['(x,1)'::ct_e, '(y,2)'::ct_e]), (2, '{}'), (3, NULL);
SELECT * FROM ct_at ORDER BY id;
SELECT id, array_length(es, 1) FROM ct_at ORDER BY id;
SELECT array[ row(1,2), row(3,4), row(5,6) ];
DROP TABLE ct_at;
DROP TYPE ct_e;

-- name: ct_alter_type
-- @errors
DROP TABLE IF EXISTS ct_al_t;
DROP TYPE IF EXISTS ct_al CASCADE;
DROP TYPE IF EXISTS ct_al2 CASCADE;
CREATE TYPE ct_al AS (a int, b text);
ALTER TYPE ct_al ADD ATTRIBUTE c date;
ALTER TYPE ct_al ADD ATTRIBUTE a int;
SELECT '(1,x,2024-01-02)'::ct_al;
ALTER TYPE ct_al DROP ATTRIBUTE b;
ALTER TYPE ct_al DROP ATTRIBUTE b;
ALTER TYPE ct_al DROP ATTRIBUTE IF EXISTS b;
SELECT '(1,2024-01-02)'::ct_al, row(3, '2020-02-02')::ct_al;
ALTER TYPE ct_al ALTER ATTRIBUTE a TYPE bigint;
ALTER TYPE ct_al RENAME ATTRIBUTE a TO aa;
ALTER TYPE ct_al RENAME ATTRIBUTE nosuch TO zz;
ALTER TYPE ct_al RENAME ATTRIBUTE aa TO c;
SELECT ('(5,2024-01-02)'::ct_al).aa;
ALTER TYPE ct_al ADD ATTRIBUTE self ct_al;
ALTER TYPE ct_al RENAME TO ct_al2;
SELECT '(6,2024-01-02)'::ct_al2;
SELECT '(6,2024-01-02)'::ct_al;
CREATE TABLE ct_al_t (v ct_al2);
INSERT INTO ct_al_t VALUES ('(7,2024-03-04)');
ALTER TYPE ct_al2 ALTER ATTRIBUTE aa TYPE int;
SELECT * FROM ct_al_t;
DROP TABLE ct_al_t;
DROP TYPE ct_al2;

-- name: ct_schema_owner
-- @errors
DROP TYPE IF EXISTS ct_so CASCADE;
DROP SCHEMA IF EXISTS ct_sch CASCADE;
DROP ROLE IF EXISTS ct_owner;
CREATE SCHEMA ct_sch;
CREATE ROLE ct_owner;
CREATE TYPE ct_so AS (a int);
ALTER TYPE ct_so OWNER TO ct_owner;
SELECT t.typname, r.rolname FROM pg_type t JOIN pg_roles r ON r.oid = t.typowner WHERE t.typname = 'ct_so';
ALTER TYPE ct_so SET SCHEMA ct_sch;
SELECT '(1)'::ct_so;
SELECT '(1)'::ct_sch.ct_so;
SELECT n.nspname, t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE t.typname = 'ct_so';
DROP TYPE ct_sch.ct_so;
DROP SCHEMA ct_sch;
DROP ROLE ct_owner;

-- name: ct_drop_cascade
-- @errors
DROP TABLE IF EXISTS ct_d_t;
DROP TYPE IF EXISTS ct_d_outer CASCADE;
DROP TYPE IF EXISTS ct_d CASCADE;
CREATE TYPE ct_d AS (a int);
CREATE TYPE ct_d_outer AS (x ct_d, y int);
CREATE TABLE ct_d_t (id int, d ct_d, ds ct_d[]);
DROP TYPE ct_d;
DROP TYPE ct_d CASCADE;
SELECT attname FROM pg_attribute WHERE attrelid = 'ct_d_t'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum;
SELECT '(,5)'::ct_d_outer;
DROP TABLE ct_d_t;
DROP TYPE ct_d_outer;

-- name: ct_transactions
-- @errors
DROP TYPE IF EXISTS ct_tx CASCADE;
BEGIN;
CREATE TYPE ct_tx AS (a int);
SELECT '(1)'::ct_tx;
ROLLBACK;
SELECT '(1)'::ct_tx;
CREATE TYPE ct_tx AS (a int);
BEGIN;
ALTER TYPE ct_tx RENAME ATTRIBUTE a TO b;
ROLLBACK;
SELECT ('(2)'::ct_tx).a;
BEGIN;
DROP TYPE ct_tx;
ROLLBACK;
SELECT '(3)'::ct_tx;
DROP TYPE ct_tx;

-- name: ct_catalog_rows
DROP TYPE IF EXISTS ct_cat CASCADE;
CREATE TYPE ct_cat AS (a int, b varchar(10), c text[]);
SELECT t.typname, t.typtype, t.typcategory, t.typlen, t.typbyval, t.typalign, t.typstorage, t.typdelim, t.typinput::text, t.typoutput::text, t.typreceive::text, t.typsend::text, t.typrelid <> 0 AS has_rel FROM pg_type t WHERE t.typname IN ('ct_cat', '_ct_cat') ORDER BY 1;
SELECT e.typname FROM pg_type a JOIN pg_type e ON e.oid = a.typelem WHERE a.typname = '_ct_cat';
SELECT c.relname, c.relkind, c.relnatts, c.relpersistence FROM pg_class c JOIN pg_type t ON t.typrelid = c.oid WHERE t.typname = 'ct_cat';
SELECT a.attname, a.attnum, format_type(a.atttypid, a.atttypmod), a.attnotnull FROM pg_attribute a JOIN pg_type t ON t.typrelid = a.attrelid WHERE t.typname = 'ct_cat' ORDER BY a.attnum;
SELECT c.reltype = t.oid FROM pg_class c JOIN pg_type t ON t.typrelid = c.oid WHERE t.typname = 'ct_cat';
SELECT format_type('ct_cat'::regtype, -1), 'ct_cat'::regtype::text, '_ct_cat'::regtype::text, 'ct_cat[]'::regtype::text;
SELECT pg_typeof('(1,x,{})'::ct_cat)::text;
DROP TYPE ct_cat;

-- name: ct_psql_dT_and_d
DROP TYPE IF EXISTS ct_ps2 CASCADE;
DROP TYPE IF EXISTS ct_ps CASCADE;
CREATE TYPE ct_ps AS (r float8, i float8);
CREATE TYPE ct_ps2 AS (a ct_ps, b text, c int[]);
SELECT n.nspname as "Schema", pg_catalog.format_type(t.oid, NULL) AS "Name", pg_catalog.obj_description(t.oid, 'pg_type') as "Description" FROM pg_catalog.pg_type t LEFT JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace WHERE (t.typrelid = 0 OR (SELECT c.relkind = 'c' FROM pg_catalog.pg_class c WHERE c.oid = t.typrelid)) AND NOT EXISTS(SELECT 1 FROM pg_catalog.pg_type el WHERE el.oid = t.typelem AND el.typarray = t.oid) AND n.nspname <> 'pg_catalog' AND n.nspname <> 'information_schema' AND pg_catalog.pg_type_is_visible(t.oid) AND t.typname ~ '^ct_ps' ORDER BY 1, 2;
SELECT c.relname, c.relkind FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relname OPERATOR(pg_catalog.~) '^(ct_ps2)$' COLLATE pg_catalog.default AND pg_catalog.pg_table_is_visible(c.oid) ORDER BY 1;
SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull FROM pg_catalog.pg_attribute a WHERE a.attrelid = (SELECT typrelid FROM pg_type WHERE typname = 'ct_ps2') AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum;
DROP TYPE ct_ps2;
DROP TYPE ct_ps;
