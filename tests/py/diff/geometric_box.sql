-- Differential SQL cases: the geometric types point, lseg and box (text and binary forms,
-- operators, functions, casts, arrays, catalogs) and btree indexes with INCLUDE columns
-- (PostgreSQL 15's box and index_including regression files).

-- name: box_input_output
SELECT '(2.0,2.0,0.0,0.0)'::box, '(1.0,1.0,3.0,3.0)'::box, '((-8, 2), (-2, -10))'::box;
SELECT ' ( 1 , 2 ) , ( 3 , 4 ) '::box, '4,4,4,4'::box, box('(2.5, 2.5, 2.5,3.5)');
SELECT '(1e300,-Infinity),(NaN,0)'::box, '(0.1,0.2),(1e-10,-0)'::box;
SELECT point '(1.5,-2)', ' 3 , 4 '::point, lseg '[(1,2),(3,4)]', '(1,2),(3,4)'::lseg;
SELECT '{"(1,1),(0,0)";"(3,3),(2,2)"}'::box[], ARRAY[box '(1,1),(0,0)', NULL], '{"(1,2)","(3,4)"}'::point[];
SELECT pg_typeof(box '(1,1),(0,0)'), pg_typeof(point '(0,0)'), pg_typeof(lseg '(0,0),(1,1)');

-- name: box_input_errors
-- @errors
SELECT '(2.3, 4.5)'::box;
SELECT '[1, 2, 3, 4)'::box;
SELECT '(1, 2, 3, 4]'::box;
SELECT '(1, 2, 3, 4) x'::box;
SELECT 'asdfasdf(ad'::box;
SELECT box('');
SELECT '(1,2'::point;
SELECT '1e400,0'::point;
SELECT '[(1,2),(3,4))'::lseg;

-- name: box_operators
SELECT b1.f1, b2.f1, b1.f1 = b2.f1 AS eq, b1.f1 < b2.f1 AS lt, b1.f1 <= b2.f1 AS le,
       b1.f1 > b2.f1 AS gt, b1.f1 >= b2.f1 AS ge, b1.f1 ~= b2.f1 AS same,
       b1.f1 && b2.f1 AS overlap, b1.f1 @> b2.f1 AS contains, b1.f1 <@ b2.f1 AS contained
FROM (VALUES (box '(2,2),(0,0)'), ('(3,3),(1,1)'), ('(-2,2),(-8,-10)'), ('(2.5,3.5),(2.5,2.5)'), ('(3,3),(3,3)')) b1(f1),
     (VALUES (box '(2,2),(0,0)'), ('(3,3),(1,1)'), ('(2.5,3.5),(2.5,2.5)')) b2(f1)
ORDER BY 1::text, 2::text;
SELECT b1.f1, b2.f1, b1.f1 << b2.f1 AS l, b1.f1 >> b2.f1 AS r, b1.f1 &< b2.f1 AS ol,
       b1.f1 &> b2.f1 AS orr, b1.f1 <<| b2.f1 AS b, b1.f1 |>> b2.f1 AS a,
       b1.f1 &<| b2.f1 AS ob, b1.f1 |&> b2.f1 AS oa, b1.f1 <^ b2.f1 AS be, b1.f1 >^ b2.f1 AS ae
FROM (VALUES (box '(2,2),(0,0)'), ('(3,3),(1,1)'), ('(-2,2),(-8,-10)'), ('(3,3),(3,3)')) b1(f1),
     (VALUES (box '(2,2),(0,0)'), ('(4,4),(3,3)'), ('(1,-1),(0,-2)')) b2(f1)
ORDER BY 1::text, 2::text;
SELECT box '(2,2),(0,0)' # box '(3,3),(1,1)', box '(2,2),(0,0)' # box '(5,5),(4,4)',
       @@ box '(2,2),(0,0)', box '(2,2),(0,0)' <-> box '(5,5),(3,3)';
SELECT box '(2,2),(0,0)' + point '(1,-1)', box '(2,2),(0,0)' - point '(1,1)',
       box '(2,2),(0,0)' * point '(0,1)', box '(2,2),(0,0)' / point '(2,0)';
SELECT box '(2,2),(0,0)' @> point '(1,1)', point '(3,1)' <@ box '(2,2),(0,0)';
SELECT point '(1,2)' + point '(3,4)', point '(1,2)' - point '(3,4)', point '(1,2)' * point '(3,4)',
       point '(1,2)' / point '(3,4)', point '(0,0)' <-> point '(3,4)', point '(1,1)' ~= point '(1,1.0000001)',
       point '(1,1)' << point '(2,1)', point '(1,1)' ?- point '(5,1)', point '(1,1)' ?| point '(1,5)';

-- name: box_operator_errors
-- @errors
SELECT point '(1,2)' / point '(0,0)';
SELECT box '(1,1),(0,0)' <> box '(1,1),(0,0)';
SELECT box '(1,1),(0,0)' ORDER BY 1;

-- name: box_functions_and_casts
SELECT area(f1), center(f1), width(f1), height(f1), diagonal(f1), point(f1), lseg(f1)
FROM (VALUES (box '(2,2),(0,0)'), ('(3,3),(1,1)'), ('(-2,2),(-8,-10)'), ('(2.5,3.5),(2.5,2.5)')) t(f1);
SELECT box(point '(1,2)', point '(0,0)'), box(point '(1,1)'), bound_box(box '(1,1),(0,0)', box '(3,3),(2,2)'),
       point(1.5, 2), point(lseg '[(0,0),(2,2)]'), lseg(point '(0,0)', point '(1,1)');
SELECT '(1,2)'::point::box, '(1,1),(0,0)'::box::point, '(1,1),(0,0)'::box::lseg, '[(0,0),(2,4)]'::lseg::point;
SELECT box '(1,1),(0,0)'::text, '(1,1),(0,0)'::text::box, box('(1,1),(0,0)'), point('(1,2)');
SELECT typname, typlen, typcategory, typdelim, typelem::regtype, typarray::regtype, typinput, typoutput, typreceive, typsend
FROM pg_type WHERE typname IN ('point', 'lseg', 'box', '_point', '_lseg', '_box') ORDER BY oid;
SELECT oprname, oprleft::regtype, oprright::regtype, oprresult::regtype, oprcode FROM pg_operator
WHERE oprleft = 'box'::regtype AND oprright = 'box'::regtype ORDER BY oprname, 2, 3;

-- name: box_table
CREATE TABLE geo_box (id int, b box, p point, l lseg);
INSERT INTO geo_box VALUES (1, '(2,2),(0,0)', '(1,1)', '[(0,0),(1,1)]'), (2, '(3,3),(1,1)', '(5,5)', NULL), (3, NULL, NULL, '[(1,2),(3,4)]');
SELECT * FROM geo_box ORDER BY id;
SELECT id FROM geo_box WHERE b && box '(1.5,1.5),(1,1)' ORDER BY id;
SELECT id FROM geo_box WHERE b @> p ORDER BY id;
UPDATE geo_box SET b = b + point '(10,10)' WHERE id = 2;
SELECT * FROM geo_box ORDER BY id;
COPY geo_box TO STDOUT;
DROP TABLE geo_box;

-- name: box_key_column_refused
-- @errors
CREATE TABLE geo_key (c1 int, c4 box);
CREATE INDEX ON geo_key (c4);
CREATE INDEX ON geo_key USING hash (c4);
CREATE UNIQUE INDEX ON geo_key (c1, c4);
DROP TABLE geo_key;

-- name: include_indexes
CREATE TABLE tbl_include_reg (c1 int, c2 int, c3 int, c4 box);
INSERT INTO tbl_include_reg SELECT x, 2*x, 3*x, box('4,4,4,4') FROM generate_series(1,10) AS x;
CREATE INDEX tbl_include_reg_idx ON tbl_include_reg (c1, c2) INCLUDE (c3, c4);
CREATE INDEX ON tbl_include_reg (c1, c2) INCLUDE (c1, c3);
SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON i.indexrelid = c.oid
WHERE i.indrelid = 'tbl_include_reg'::regclass ORDER BY c.relname;
SELECT c.relname, indnatts, indnkeyatts, indkey, indclass FROM pg_index i JOIN pg_class c ON i.indexrelid = c.oid
WHERE i.indrelid = 'tbl_include_reg'::regclass ORDER BY c.relname;
SELECT attname, atttypid::regtype, attnum FROM pg_attribute WHERE attrelid = 'tbl_include_reg_c1_c2_c11_c3_idx'::regclass ORDER BY attnum;
SELECT pg_get_indexdef('tbl_include_reg_idx'::regclass, 3, true), pg_get_indexdef('tbl_include_reg_idx'::regclass, 4, true);
DROP TABLE tbl_include_reg;
CREATE TABLE tbl (c1 int, c2 int, c3 int, c4 box, CONSTRAINT covering UNIQUE (c1, c2) INCLUDE (c3, c4));
SELECT pg_get_constraintdef(oid), conname, conkey FROM pg_constraint WHERE conrelid = 'tbl'::regclass::oid;
INSERT INTO tbl SELECT x, 2*x, NULL, NULL FROM generate_series(1,300) AS x;
SELECT count(*) FROM tbl WHERE c1 < 10;
ALTER TABLE tbl DROP COLUMN c3;
SELECT indexrelid::regclass FROM pg_index WHERE indrelid = 'tbl'::regclass;
DROP TABLE tbl;
CREATE TABLE tbl (c1 int, c2 int, c3 int, c4 box);
ALTER TABLE tbl ADD PRIMARY KEY (c1, c2) INCLUDE (c3, c4);
ALTER TABLE tbl ADD UNIQUE (c2) INCLUDE (c4);
SELECT pg_get_constraintdef(oid), conname FROM pg_constraint WHERE conrelid = 'tbl'::regclass::oid ORDER BY conname;
CREATE INDEX tbl_idx ON tbl (c1, (c1+0)) INCLUDE (c2);
ALTER INDEX tbl_idx ALTER COLUMN 2 SET STATISTICS 1000;
SELECT attname, attnum FROM pg_attribute WHERE attrelid = 'tbl_idx'::regclass ORDER BY attnum;
DROP TABLE tbl;
CREATE TABLE tbl (c1 int, c2 int, c3 int, c4 box);
INSERT INTO tbl SELECT x, 2*x, 3*x, box('4,4,4,4') FROM generate_series(1,10) AS x;
CREATE UNIQUE INDEX tbl_u ON tbl (c1, c2) INCLUDE (c3, c4);
ALTER TABLE tbl ADD UNIQUE USING INDEX tbl_u;
CREATE UNIQUE INDEX tbl_p ON tbl (c2) INCLUDE (c4);
ALTER TABLE tbl ADD PRIMARY KEY USING INDEX tbl_p;
SELECT conname, contype, pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'tbl'::regclass ORDER BY conname;
SELECT attname, attnotnull FROM pg_attribute WHERE attrelid = 'tbl'::regclass AND attnum > 0 ORDER BY attnum;
SELECT c.relname, indisunique, indisprimary FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE indrelid = 'tbl'::regclass ORDER BY 1;
DROP TABLE tbl;

-- name: include_index_errors
-- @errors
CREATE TABLE tbl (c1 int, c2 int, c3 int, c4 box);
INSERT INTO tbl SELECT 1, 2, 3*x, box('4,4,4,4') FROM generate_series(1,10) AS x;
CREATE UNIQUE INDEX tbl_idx_unique ON tbl USING btree (c1, c2) INCLUDE (c3, c4);
ALTER TABLE tbl ADD UNIQUE (c1, c2) INCLUDE (c3, c4);
CREATE INDEX ON tbl USING hash (c1) INCLUDE (c3);
CREATE INDEX ON tbl USING gin (c1) INCLUDE (c3);
CREATE INDEX ON tbl (c1) INCLUDE (nosuch);
CREATE INDEX tbl_idx ON tbl (c1, (c1+0)) INCLUDE (c2);
ALTER INDEX tbl_idx ALTER COLUMN 1 SET STATISTICS 1000;
ALTER INDEX tbl_idx ALTER COLUMN 3 SET STATISTICS 1000;
ALTER INDEX tbl_idx ALTER COLUMN 4 SET STATISTICS 1000;
ALTER TABLE tbl ADD UNIQUE USING INDEX nosuch;
ALTER TABLE tbl ADD UNIQUE USING INDEX tbl_idx;
INSERT INTO tbl VALUES (NULL, 1, 1, NULL);
CREATE UNIQUE INDEX tbl_u1 ON tbl (c1, c3);
ALTER TABLE tbl ADD PRIMARY KEY USING INDEX tbl_u1;
ALTER TABLE tbl ADD UNIQUE USING INDEX tbl_u1;
ALTER TABLE tbl ADD UNIQUE USING INDEX tbl_u1;
DROP TABLE tbl;

-- name: circle_type
SET extra_float_digits = -1;
CREATE TABLE geo_circle (f1 circle);
INSERT INTO geo_circle VALUES ('<(5,1),3>'), ('((1,2),100)'), (' 1 , 3 , 5 '), (' ( ( 1 , 2 ) , 3 ) '), (' ( 100 , 200 ) , 10 '), ('<(3,5),0>'), ('<(3,5),NaN>');
SELECT f1, center(f1), radius(f1), diameter(f1), area(f1), point(f1), @@ f1 FROM geo_circle;
SELECT c1.f1 AS one, c2.f1 AS two, (c1.f1 <-> c2.f1) AS distance, c1.f1 = c2.f1 AS eq, c1.f1 <> c2.f1 AS ne,
       c1.f1 < c2.f1 AS lt, c1.f1 ~= c2.f1 AS same, c1.f1 && c2.f1 AS ov, c1.f1 @> c2.f1 AS contains,
       c1.f1 << c2.f1 AS l, c1.f1 &> c2.f1 AS ori, c1.f1 |>> c2.f1 AS a
FROM geo_circle c1, geo_circle c2 ORDER BY 1::text, 2::text;
SELECT circle(point '(1,2)', 3), '<(1,2),3>'::circle::point, '{"<(1,2),3>"}'::circle[];
DROP TABLE geo_circle;
RESET extra_float_digits;

-- name: circle_errors
-- @errors
SELECT '<(-100,0),-100>'::circle;
SELECT '<(100,200),10'::circle;
SELECT '<(100,200),10> x'::circle;
SELECT '1abc,3,5'::circle;
SELECT '(3,(1,2),3)'::circle;
CREATE TABLE geo_circle (f1 circle);
CREATE INDEX ON geo_circle (f1);
DROP TABLE geo_circle;
