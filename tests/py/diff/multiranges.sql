-- Differential SQL cases: multirange types (issue 32): the six built-in multirange types'
-- text input and output (canonical forms: sorted, merged, empty ranges dropped), the errors
-- PostgreSQL gives for malformed literals, constructors, casts from ranges, the operators
-- against multiranges, ranges and elements, the functions, unnest, range_agg and
-- range_intersect_agg, ordering, grouping and indexes, and the multirange type of a CREATE
-- TYPE ... AS RANGE. Types and tables are named mr_...; no case shows an OID.

-- name: mr_io_builtin
SELECT '{}'::int4multirange, '  { }  '::int4multirange, '{ empty, EMPTY }'::int4multirange, '{[1,3)}'::int4multirange;
SELECT '{[5,7), empty, (0,3]}'::int4multirange, '{[1,3),[3,5)}'::int4multirange, '{[1,2], [3,4]}'::int4multirange;
SELECT '{[1,5), [2,3)}'::int8multirange, '{(,5), [3,)}'::int8multirange, '{[1,1)}'::int4multirange;
SELECT '{[1.5,2.5), [2.5,3]}'::nummultirange, '{[1.5,2), (2,3]}'::nummultirange, '{(,1e3]}'::nummultirange;
SELECT '{[2024-01-01,2024-01-31], [2024-02-01,2024-02-10)}'::datemultirange, '{[-infinity,2024-01-01)}'::datemultirange;
SELECT '{["2024-01-01 10:00","2024-01-01 12:00"), ["2024-01-01 11:00","2024-01-01 13:00")}'::tsmultirange;
SET TimeZone = 'UTC';
SELECT '{[2024-01-01 10:00+02,2024-01-01 12:00+00)}'::tstzmultirange;
RESET TimeZone;
SELECT '{[1,5)}'::int4multirange::text, '{[1,5)}'::text::int4multirange, CAST('{(0,3)}' AS int8multirange);
SELECT pg_typeof('{}'::int4multirange)::text, pg_typeof('{}'::datemultirange)::text, 'nummultirange'::regtype::text, format_type('tstzmultirange'::regtype, NULL);
SELECT '{"{[1,2)}", "{[3,4), [4,5)}"}'::int4multirange[], ARRAY['{[1,2)}'::int4multirange, '{}'];

-- name: mr_io_errors
-- @errors
SELECT ''::int4multirange;
SELECT '{,}'::int4multirange;
SELECT '{(,)}.'::int4multirange;
SELECT '{[1,3),}'::int4multirange;
SELECT '{,[1,3)}'::int4multirange;
SELECT '{-[1,3)}'::int4multirange;
SELECT '{[1,3) - }'::int4multirange;
SELECT '{[1,3)'::int4multirange;
SELECT '{[1,3) [4,5)}'::int4multirange;
SELECT '{[3,1)}'::int4multirange;
SELECT '{[a,b)}'::int4multirange;
SELECT '{(1,5]x}'::int4multirange;

-- name: mr_constructors
SELECT int4multirange(), int4multirange(int4range(1, 3)), int4multirange(int4range(1, 3), int4range(2, 5)), int4multirange(int4range(5, 6), int4range(1, 2));
SELECT nummultirange(numrange(1.7, 1.7, '[]'), numrange(1.7, 1.9)), nummultirange(numrange(2.0, 2.0)), int8multirange('[1,2)', '[2,3)');
SELECT int4multirange(NULL), int4multirange(NULL::int4range), datemultirange(daterange('2024-01-01', '2024-01-05', '[]'));
SELECT multirange(int4range(1, 3)), multirange('empty'::numrange), pg_typeof(multirange(daterange('2024-01-01', '2024-01-02')))::text;

-- name: mr_constructor_errors
-- @errors
SELECT int4multirange(int4range(1, 2), NULL);
SELECT int4multirange(1, 2);
SELECT int4multirange(numrange(1, 2));
SELECT nummultirange(numrange(2.0, 1.0));

-- name: mr_casts
SELECT 'empty'::int4range::int4multirange, int4range(1, 3)::int4multirange, int4range(1, NULL)::int4multirange, int4range(NULL, NULL)::int4multirange;
SELECT numrange(1, 2)::nummultirange, CAST(daterange('2024-01-01', '2024-01-02') AS datemultirange);

-- name: mr_cast_errors
-- @errors
SELECT int4range(1, 3)::int8multirange;
SELECT '{[1,2)}'::int4multirange::int4range;

-- name: mr_accessors
SELECT lower('{[1,3), [5,7)}'::int4multirange), upper('{[1,3), [5,7)}'::int4multirange), lower('{}'::int4multirange), upper('{(,3)}'::int4multirange);
SELECT isempty('{}'::int4multirange), isempty('{[1,2)}'::int4multirange), lower_inc('{[1,2)}'::int4multirange), upper_inc('{[1,2]}'::nummultirange);
SELECT lower_inf('{(,2)}'::int4multirange), upper_inf('{(,2), [5,)}'::int4multirange), lower_inc('{}'::int4multirange), upper_inf('{}'::int4multirange);
SELECT range_merge('{[1,3), [5,7)}'::int4multirange), range_merge('{}'::int4multirange), range_merge('{(,1], [3,4)}'::nummultirange);
SELECT pg_typeof(lower('{[1,3)}'::nummultirange))::text, pg_typeof(range_merge('{}'::datemultirange))::text, lower(NULL::int4multirange);

-- name: mr_unnest
SELECT unnest('{[1,3), [5,7), [10,)}'::int4multirange);
SELECT * FROM unnest('{[1.5,2), (3,4]}'::nummultirange) AS u(r);
SELECT count(*) FROM unnest('{}'::int4multirange);

-- name: mr_comparisons
SELECT '{[1,3)}'::int4multirange = '{[1,3)}', '{[1,3)}'::int4multirange = '{[1,2], [2,2]}', '{[1,3)}'::int4multirange <> '{[1,4)}';
SELECT '{}'::int4multirange < '{[1,2)}', '{[1,3)}'::int4multirange < '{[1,3), [5,6)}', '{[1,3), [5,6)}'::int4multirange < '{[1,4)}';
SELECT '{[2,3)}'::int4multirange > '{(,10)}', '{[1,3)}'::int4multirange >= '{[1,3)}', '{[1,3)}'::int4multirange <= '{}';

-- name: mr_overlaps
SELECT 'empty'::numrange && nummultirange(), nummultirange() && nummultirange(), nummultirange(numrange(1, 2)) && 'empty'::numrange;
SELECT nummultirange(numrange(3, 4)) && nummultirange(numrange(1, 2), numrange(7, 8)), nummultirange(numrange(1, 2), numrange(3.5, 8)) && numrange(3, 4);
SELECT '{(10,20),(30,40),(50,60)}'::nummultirange && '(42,92)'::numrange, numrange(1, 5) && '{[5,6)}'::nummultirange;
SELECT '{[1,2),[5,6)}'::int4multirange && '{[2,5)}', '{[1,2),[5,6)}'::int4multirange && '{[2,5]}';

-- name: mr_contains
SELECT nummultirange() @> nummultirange(), nummultirange() @> 'empty'::numrange, nummultirange(numrange(NULL, NULL)) @> numrange(1, 2);
SELECT nummultirange(numrange(1, 5), numrange(8, 9)) @> numrange(6, 7), nummultirange(numrange(1, 5), numrange(6, 9)) @> numrange(6, 7);
SELECT '{[1,5), [8,9)}'::nummultirange @> '{[1,5)}', '{[1,5), [8,9)}'::nummultirange @> '{[6,7)}', '{[1,9)}' @> '{[1,5), [6,10)}'::nummultirange;
SELECT numrange(1, 9) @> nummultirange(numrange(1, 5), numrange(6, 9)), numrange(1, 9) @> nummultirange(numrange(1, 5), numrange(6, 10)), 'empty'::numrange @> nummultirange();
SELECT '{[1,3), [5,7)}'::int4multirange @> 2, '{[1,3), [5,7)}'::int4multirange @> 3, '{[1,3), [5,7)}'::int4multirange @> 6, '{}'::int4multirange @> 1;
SELECT 4.0 <@ '{[1,3), [4,7)}'::nummultirange, 7 <@ '{[1,3), [5,7]}'::int4multirange, numrange(4.0, 4.2) <@ '{[4,5)}'::nummultirange;
SELECT '{[1,5)}' <@ '{[-4,-2), [1,5)}'::nummultirange, '{[6,7)}' <@ '{[1,5), [8,9)}'::nummultirange, nummultirange(numrange(1, 5), numrange(6, 9)) <@ numrange(1, 9);
SELECT '{(,)}'::int8multirange @> 9223372036854775807::int8, '{[2024-01-01,2024-01-03)}'::datemultirange @> '2024-01-01'::date;

-- name: mr_position
SELECT 'empty'::numrange &< nummultirange(), nummultirange(numrange(1, 2)) &< 'empty'::numrange, numrange(1, 4) &< nummultirange(numrange(3, 4));
SELECT numrange(1, 6) &< nummultirange(numrange(3, 4)), nummultirange(numrange(3.5, 6)) &< numrange(3, 4), nummultirange(numrange(1, 4)) &< nummultirange(numrange(3, 4));
SELECT nummultirange(numrange(3, 4)) &> numrange(1, 6), numrange(3, 4) &> nummultirange(numrange(3.5, 6)), nummultirange(numrange(3, 4)) &> nummultirange(numrange(6, 7));
SELECT nummultirange(numrange(1, 2)) << numrange(2, 3), numrange(1, 2) << nummultirange(numrange(3, 4), numrange(5, 6)), nummultirange() << nummultirange(numrange(1, 2));
SELECT '{[3,4)}'::int4multirange >> '{[1,2)}', int4range(3, 4) >> '{[1,3)}'::int4multirange, '{[1,2), [5,6)}'::int4multirange >> int4range(4, 5);
SELECT 'empty'::numrange -|- nummultirange(), numrange(1, 2) -|- nummultirange(numrange(2, 4)), nummultirange(numrange(1, 2)) -|- numrange(3, 4);
SELECT '{[1,2), [5,6)}'::int4multirange -|- '{[6,8)}', '{[3,4)}'::int4multirange -|- '{[1,3), [5,6)}', '[1,2]'::numrange -|- '{(2,3)}'::nummultirange;

-- name: mr_set_operators
SELECT '{[1,5), [10,20)}'::int4multirange + '{[3,12)}', '{}'::int4multirange + '{[1,2)}', '{[1,2)}'::int4multirange + '{[4,5)}';
SELECT '{[1,5), [10,20)}'::int4multirange - '{[3,12), [15,16)}', '{[1,10)}'::int4multirange - '{[2,3), [4,5), [6,7)}', '{[1,2)}'::int4multirange - '{}';
SELECT '{[1,5), [10,20)}'::int4multirange * '{[3,12), [15,16)}', '{[1,5)}'::int4multirange * '{}', '{(,)}'::nummultirange * '{[1,2], (3,4)}';
SELECT '{[1,3), [5,7)}'::nummultirange - '{(2,6)}', '{(,)}'::nummultirange - '{[1,2]}', '{[1,10)}'::int8multirange * '{[0,2), [3,4), [9,12)}';

-- name: mr_operator_errors
-- @errors
SELECT '{[1,2)}'::int4multirange + int4range(3, 4);
SELECT '{[1,2)}'::int4multirange = '{[1,2)}'::int8multirange;
SELECT '{[1,2)}'::int4multirange @> 1.5;
SELECT '{[1,2)}'::int4multirange @> '3';

-- name: mr_aggregates
CREATE TABLE mr_agg (g int, r int4range, m int4multirange);
INSERT INTO mr_agg VALUES (1, '[1,5)', '{[1,5), [10,12)}'), (1, '[3,8)', '{[3,11)}'), (1, '[10,12)', NULL), (2, NULL, NULL), (3, 'empty', '{}'), (4, '(,3)', '{(,)}'), (4, '[2,)', '{[0,1), [2,3)}');
SELECT g, range_agg(r), range_intersect_agg(r), range_agg(m), range_intersect_agg(m) FROM mr_agg GROUP BY g ORDER BY g;
SELECT range_agg(r), range_intersect_agg(r), range_agg(m) FROM mr_agg WHERE g > 10;
SELECT range_agg(r ORDER BY g DESC), range_agg(DISTINCT m) FROM mr_agg;
SELECT pg_typeof(range_agg(r))::text, pg_typeof(range_intersect_agg(m))::text FROM mr_agg;
SELECT range_agg(x) FROM (VALUES (numrange(1, 2)), (numrange(2, 3)), (numrange(5, 6))) v(x);
SELECT range_intersect_agg(x) FROM (VALUES ('{[1,5), [8,20)}'::nummultirange), ('{[3,10)}'), ('{[4,9)}')) v(x);
DROP TABLE mr_agg;

-- name: mr_aggregate_errors
-- @errors
SELECT range_agg(1);
SELECT range_intersect_agg(x) FROM (VALUES (1)) v(x);

-- name: mr_tables
CREATE TABLE mr_t (id int PRIMARY KEY, m nummultirange);
CREATE INDEX mr_t_m ON mr_t (m);
INSERT INTO mr_t VALUES (1, '{}'), (2, '{[,)}'), (3, '{[3,]}'), (4, '{[,), [3,]}'), (5, '{[, 5)}'), (6, nummultirange()), (7, nummultirange(numrange(1.1, 2.2))), (8, '{empty}'), (9, nummultirange(numrange(1.7, 1.7, '[]'), numrange(1.7, 1.9))), (10, nummultirange(numrange(1.7, 1.7, '[]'), numrange(1.9, 2.1)));
SELECT m, isempty(m), lower(m), upper(m) FROM mr_t ORDER BY m, id;
SELECT m, lower_inc(m), lower_inf(m), upper_inc(m), upper_inf(m) FROM mr_t ORDER BY m, id;
SELECT id FROM mr_t WHERE m = '{}' ORDER BY id;
SELECT id FROM mr_t WHERE m < '{[0.0, 1.0]}' ORDER BY id;
SELECT id FROM mr_t WHERE m >= '{[3,)}' ORDER BY id;
SELECT id FROM mr_t WHERE m && numrange(4.0, 4.2) ORDER BY id;
SELECT id FROM mr_t WHERE m @> 4.0 ORDER BY id;
SELECT id FROM mr_t WHERE numrange(4.0, 4.2) <@ m ORDER BY id;
SELECT m, count(*) FROM mr_t GROUP BY m ORDER BY m;
SELECT DISTINCT m FROM mr_t ORDER BY m;
SELECT a.id, b.id FROM mr_t a JOIN mr_t b ON a.m = b.m AND a.id < b.id ORDER BY 1, 2;
UPDATE mr_t SET m = m + '{[100,200)}' WHERE id IN (3, 5) RETURNING id, m;
DELETE FROM mr_t WHERE m @> 150.0 RETURNING id;
DROP TABLE mr_t;

-- name: mr_unique
-- @errors
CREATE TABLE mr_u (m int4multirange UNIQUE);
INSERT INTO mr_u VALUES ('{[1,3), [5,7)}');
INSERT INTO mr_u VALUES ('{[5,7), [1,2), [2,3)}');
DROP TABLE mr_u;

-- name: mr_user_type
CREATE TYPE mr_floatrange AS RANGE (subtype = float8);
CREATE TYPE mr_textrange AS RANGE (subtype = text, multirange_type_name = mr_texts);
SELECT '{[1.5,2), [2,3]}'::mr_floatmultirange, mr_floatmultirange(mr_floatrange(1, 2), mr_floatrange(5, 6)), mr_floatmultirange();
SELECT '{[a,c), [b,e]}'::mr_texts, '{( " a " " a ", " z " " z " )}'::mr_texts, '{["\\","\\"]}'::mr_texts, mr_texts(mr_textrange('a', 'b'));
SELECT pg_typeof('{}'::mr_floatmultirange)::text, mr_floatrange(1, 2)::mr_floatmultirange, multirange(mr_textrange('x', 'y'));
SELECT '{[1,5)}'::mr_floatmultirange - '{[2,3)}', '{[a,m)}'::mr_texts @> 'c'::text, unnest('{[a,b), [c,d)}'::mr_texts);
CREATE TABLE mr_ut (f mr_floatmultirange, t mr_texts, fa mr_floatmultirange[]);
INSERT INTO mr_ut VALUES ('{[1,2), (3,4]}', '{[a,b)}', ARRAY['{[1,2)}'::mr_floatmultirange]);
SELECT f, t, fa::text FROM mr_ut;
SELECT range_agg(f), range_agg(t) FROM mr_ut;
DROP TABLE mr_ut;
DROP TYPE mr_textrange;
DROP TYPE mr_floatrange;

-- name: mr_catalog
SELECT t.typname, t.typtype, t.typcategory, e.typname AS array_type FROM pg_type t JOIN pg_type e ON e.typelem = t.oid WHERE t.typname LIKE '%multirange' AND t.typnamespace = 'pg_catalog'::regnamespace ORDER BY 1;
SELECT r.rngtypid::regtype::text, r.rngmultitypid::regtype::text FROM pg_range r ORDER BY 1;
