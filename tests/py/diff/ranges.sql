-- Differential SQL cases: range types (issue 32): the six built-in range types' text input
-- and output (canonical forms, quoting, infinite bounds, empty), the errors PostgreSQL gives
-- for malformed literals and misordered bounds, constructors, casts, arrays, the operators and
-- functions, ordering, grouping, indexes and unique constraints, pg_range / pg_type rows, and
-- CREATE TYPE ... AS RANGE. Types and tables are named rg_...; no case shows an OID.

-- name: rg_io_builtin
SELECT '[1,5]'::int4range, '(1,5)'::int4range, '(1,5]'::int8range, '[1,1)'::int4range, '[1,1]'::int4range;
SELECT ' EMPTY '::int4range, '(,)'::int4range, '[,5]'::int4range, '(3,)'::int8range, '[ 1 , 5 ]'::int4range;
SELECT '[1.5,2.50)'::numrange, '(,1e3]'::numrange, '["1.5","2")'::numrange, '[1.5,1.5]'::numrange;
SELECT '[2024-01-01,2024-01-31]'::daterange, '(2024-01-01,2024-01-02)'::daterange, '[-infinity,infinity]'::daterange;
SELECT '[2024-01-01 10:00,2024-01-01 12:00)'::tsrange, '(,"2024-01-01 00:00:00")'::tsrange;
SET TimeZone = 'UTC';
SELECT '[2024-01-01 10:00+02,2024-01-01 12:00+00)'::tstzrange;
RESET TimeZone;
SELECT '[1,5)'::int4range::text, '[1,5)'::text::int4range, CAST('(0,3)' AS int8range);
SELECT pg_typeof('[1,2)'::int4range)::text, pg_typeof('[1,2)'::numrange)::text, 'int4range'::regtype::text, format_type('daterange'::regtype, NULL);

-- name: rg_io_errors
-- @errors
SELECT 'x'::int4range;
SELECT '[1,5'::int4range;
SELECT '[1 5)'::int4range;
SELECT '[1,2,3)'::int4range;
SELECT '[1,2) x'::int4range;
SELECT 'empty x'::int4range;
SELECT '[5,1)'::int4range;
SELECT '[a,b)'::int4range;
SELECT '[1,2147483647]'::int4range;
SELECT '[1.5,"")'::numrange;
SELECT '[2,1]'::numrange;

-- name: rg_constructors
SELECT int4range(1, 5), int4range(1, 5, '[]'), int4range(1, 5, '()'), int4range(NULL, 5), int4range(1, NULL, '(]');
SELECT int8range(1, 10), numrange(1.5, 2.5, '(]'), numrange(1, 2), daterange('2024-01-01', '2024-01-05', '[]');
SELECT tsrange('2024-01-01 10:00', '2024-01-01 11:00'), int4range(NULL, NULL), int4range(3, 3), int4range(3, 3, '[]');
SELECT int4range(1, 5, '[]') = '[1,6)', numrange(1, 5) = '[1,5)';

-- name: rg_constructor_errors
-- @errors
SELECT int4range(5, 1);
SELECT int4range(1, 5, 'xx');
SELECT int4range(1, 5, '[');
SELECT int4range(1, 5, NULL);
SELECT int4range(1.5, 2);

-- name: rg_accessors
SELECT lower('[1,5)'::int4range), upper('[1,5)'::int4range), lower('(,5)'::int4range), upper('empty'::int4range);
SELECT isempty('empty'::int4range), isempty('[1,2)'::int4range), lower_inc('[1,5)'::int4range), upper_inc('[1,5]'::numrange);
SELECT lower_inf('(,5)'::int4range), upper_inf('(,5)'::int4range), lower_inf('empty'::int4range), lower_inc('(,5]'::numrange);
SELECT lower(NULL::int4range), isempty(NULL::numrange), pg_typeof(lower('[1,5)'::numrange))::text, pg_typeof(upper('[2024-01-01,2024-02-01)'::daterange))::text;
SELECT lower('[A,B)');

-- name: rg_operators
SELECT '[1,5)'::int4range = '[1,4]', '[1,5)'::int4range <> '[1,5]', '[1,5)'::int4range < '[1,6)', 'empty'::int4range < '(,1)'::int4range, '[2,3)'::int4range > '(,10)';
SELECT '[1,10)'::int4range @> '[2,3)'::int4range, '[1,10)'::int4range @> 10, '[1,10)'::int4range @> 1, 5 <@ '[1,10)'::int4range, '[2,3)'::int4range <@ '[1,10)';
SELECT '[1,10)'::int4range @> 'empty', 'empty'::int4range @> '[1,2)'::int4range, '(,)'::numrange @> 1e100::numeric;
SELECT '[1,5)'::int4range && '[4,8)', '[1,5)'::int4range && '[5,8)', '[1,5)'::int4range << '[5,8)', '[5,8)'::int4range >> '[1,5)';
SELECT '[1,5)'::int4range &< '[2,8)', '[1,9)'::int4range &< '[2,8)', '[3,5)'::int4range &> '[2,8)', '[1,5)'::int4range &> '[2,8)';
SELECT '[1,5)'::int4range -|- '[5,8)', '[1,5]'::numrange -|- '(5,8)', '[1,5]'::numrange -|- '[5,8)', 'empty'::int4range -|- '[1,2)';
SELECT '[1,5)'::int4range + '[3,8)', '[1,5)'::int4range + '[5,8)', '[1,5)'::int4range * '[3,8)', '[1,5)'::int4range * '[6,8)';
SELECT '[1,10)'::int4range - '[5,12)', '[1,10)'::int4range - '[0,3)', '[1,10)'::int4range - '[0,12)', '[1,10)'::int4range - '[20,30)';
SELECT range_merge('[1,3)'::int4range, '[7,9)'), range_merge('empty'::int4range, '[7,9)'), 'empty'::int4range + '[1,2)';
SELECT numrange(1, 2) + numrange(2, 3), numrange(1, 2, '()') - numrange(1.5, 3), daterange('2024-01-01', '2024-01-10') * daterange('2024-01-05', NULL);
SELECT '[1,5)'::int4range = NULL, NULL::int4range @> 3, '[1,5)'::int4range @> NULL::int4;

-- name: rg_operator_errors
-- @errors
SELECT '[1,5)'::int4range + '[7,8)';
SELECT '[1,10)'::int4range - '[3,4)';
SELECT '[1,5)'::int4range @> '3';
SELECT '[1,5)'::int4range = '[1,5)'::int8range;
SELECT '[1,5)'::int4range @> 3.5;

-- name: rg_table_order_group
DROP TABLE IF EXISTS rg_t;
CREATE TABLE rg_t (id int, r int4range, n numrange);
INSERT INTO rg_t VALUES (1, '[1,5)', '[1,2)'), (2, 'empty', NULL), (3, '(,3)', '[0,)'), (4, '[1,3)', '(1,2)'), (5, NULL, 'empty'), (6, '[1,5)', '[1,2]'), (7, '[2,2]', '(,)');
SELECT id, r FROM rg_t ORDER BY r, id;
SELECT id, r FROM rg_t ORDER BY r DESC NULLS LAST, id;
SELECT r, count(*) FROM rg_t GROUP BY r ORDER BY r;
SELECT DISTINCT r FROM rg_t ORDER BY r;
SELECT min(id), max(id) FROM rg_t WHERE r @> 2;
SELECT id FROM rg_t WHERE r && '[4,10)' ORDER BY id;
SELECT id, lower(r), upper(r), isempty(r) FROM rg_t ORDER BY id;
SELECT a.id, b.id FROM rg_t a JOIN rg_t b ON a.r = b.r AND a.id < b.id ORDER BY 1, 2;
SELECT id FROM rg_t WHERE r IN ('[1,5)', 'empty') ORDER BY id;
SELECT id, n FROM rg_t WHERE n <@ '[0,10)' ORDER BY n, id;
UPDATE rg_t SET r = r + '[5,6)' WHERE id = 1;
SELECT r FROM rg_t WHERE id = 1;
DROP TABLE rg_t;

-- name: rg_index_unique
-- @errors
DROP TABLE IF EXISTS rg_u;
CREATE TABLE rg_u (r int4range PRIMARY KEY, d daterange);
CREATE INDEX rg_u_d ON rg_u (d);
INSERT INTO rg_u VALUES ('[1,5)', '[2024-01-01,2024-01-31]'), ('[5,9)', NULL), ('empty', 'empty');
INSERT INTO rg_u VALUES ('[1,4]', NULL);
INSERT INTO rg_u VALUES ('(,)', '(,)') ON CONFLICT (r) DO NOTHING;
INSERT INTO rg_u VALUES ('(0,4]', NULL) ON CONFLICT (r) DO UPDATE SET d = 'empty';
SELECT * FROM rg_u ORDER BY r;
SELECT * FROM rg_u WHERE r = '[1,5)';
SELECT * FROM rg_u WHERE r > '[1,5)' ORDER BY r;
SELECT * FROM rg_u WHERE d = '[2024-01-01,2024-02-01)';
DROP TABLE rg_u;

-- name: rg_arrays
SELECT ARRAY['[1,2)'::int4range, 'empty', '(,3]'], '{"[1,2)",empty,"(,)"}'::int4range[], ARRAY[numrange(1, 2)]::text;
SELECT ('{"[1,2)","[3,4)"}'::int4range[])[2], array_length('{"[1,2)","[3,4)"}'::int4range[], 1), pg_typeof('{}'::daterange[])::text;
SELECT '[1,5)'::int4range = ANY ('{"[1,5)","[2,3)"}'::int4range[]), ARRAY['[2024-01-01 10:00,2024-01-01 11:00)'::tsrange];

-- name: rg_catalog
SELECT t.typname, t.typtype, t.typcategory, t.typlen, t.typalign, t.typstorage, r.rngsubtype::regtype, r.rngmultitypid::regtype, r.rngcanonical, r.rngsubdiff, a.typname AS arr
  FROM pg_range r JOIN pg_type t ON t.oid = r.rngtypid JOIN pg_type a ON a.oid = t.typarray ORDER BY 1;
SELECT typname, typinput, typoutput, typreceive, typsend FROM pg_type WHERE typname IN ('int4range', '_int4range', 'int4multirange') ORDER BY 1;

-- name: rg_user_type
DROP TABLE IF EXISTS rg_ut;
DROP TYPE IF EXISTS rg_floatrange;
DROP TYPE IF EXISTS rg_textrange;
CREATE TYPE rg_floatrange AS RANGE (subtype = float8, subtype_diff = float8mi);
CREATE TYPE rg_textrange AS RANGE (SUBTYPE = text);
SELECT '[1.5,2.5)'::rg_floatrange, rg_floatrange(1, 2), rg_floatrange(1, 2, '(]'), '(1,1]'::rg_floatrange, '[a,"m n"]'::rg_textrange;
SELECT rg_floatrange(1, 5) @> 2.5::float8, rg_floatrange(1, 5) * rg_floatrange(3, 9), rg_floatrange(1, 3) -|- rg_floatrange(3, 4), upper(rg_textrange('a', 'z'));
SELECT pg_typeof(rg_floatrange(1, 2))::text, format_type('rg_floatrange'::regtype, NULL), 'rg_textrange[]'::regtype::text;
SELECT t.typname, t.typtype, t.typcategory, r.rngsubtype::regtype, r.rngsubdiff, r.rngcanonical, m.typname AS multi, format_type(m.oid, NULL) AS multi_type, format_type(m.typarray, NULL) AS multi_array
  FROM pg_range r JOIN pg_type t ON t.oid = r.rngtypid LEFT JOIN pg_type m ON m.oid = r.rngmultitypid WHERE t.typname LIKE 'rg\_%' ORDER BY 1;
CREATE TABLE rg_ut (id int, f rg_floatrange, fs rg_floatrange[]);
INSERT INTO rg_ut VALUES (1, '[1,2)', '{"[0,1]"}'), (2, '(,0)', NULL), (3, 'empty', '{}');
SELECT id, f, fs::text FROM rg_ut ORDER BY f;
BEGIN;
DROP TABLE rg_ut;
DROP TYPE rg_floatrange;
ROLLBACK;
SELECT count(*) FROM rg_ut;
DROP TYPE rg_floatrange CASCADE;
SELECT * FROM rg_ut ORDER BY id;
DROP TABLE rg_ut;
DROP TYPE rg_textrange;

-- name: rg_user_type_errors
-- @errors
DROP TABLE IF EXISTS rg_ut2;
DROP TYPE IF EXISTS rg_r2;
CREATE TYPE rg_r2 AS RANGE (subtype = int4, bogus = 1);
CREATE TYPE rg_r2 AS RANGE (subtype_diff = int4mi);
CREATE TYPE rg_r2 AS RANGE (subtype = int4, subtype = int8);
CREATE TYPE rg_r2 AS RANGE (subtype = record);
CREATE TYPE rg_r2 AS RANGE (subtype = int4, collation = "C");
CREATE TYPE rg_r2 AS RANGE (subtype = int4);
CREATE TYPE rg_r2 AS RANGE (subtype = int8);
CREATE TABLE rg_ut2 (r rg_r2);
DROP TYPE rg_r2;
SELECT '[2,1]'::rg_r2;
SELECT rg_r2(1, 2) = int4range(1, 2);
DROP TABLE rg_ut2;
DROP TYPE rg_r2;

-- name: rg_domains
-- @errors
DROP TABLE IF EXISTS rg_dt;
DROP TYPE IF EXISTS rg_domrange;
DROP DOMAIN IF EXISTS rg_posint;
DROP DOMAIN IF EXISTS rg_small;
CREATE DOMAIN rg_posint AS int4 CHECK (VALUE > 0);
CREATE TYPE rg_domrange AS RANGE (subtype = rg_posint);
SELECT '[4,50)'::rg_domrange @> 7::rg_posint, rg_domrange(1, 3), upper(rg_domrange(1, 3));
SELECT rg_domrange(-1, 3);
DROP DOMAIN rg_posint;
DROP DOMAIN rg_posint CASCADE;
CREATE DOMAIN rg_small AS int4range CHECK (upper(VALUE) < 10);
SELECT '[4,5)'::rg_small @> 7, '[4,5)'::rg_small;
SELECT '[4,50)'::rg_small;
CREATE TABLE rg_dt (r rg_small);
INSERT INTO rg_dt VALUES ('[1,3)'), ('(,5]');
INSERT INTO rg_dt VALUES ('[1,30)');
SELECT r, lower(r) FROM rg_dt ORDER BY r;
DROP TABLE rg_dt;
DROP DOMAIN rg_small;
