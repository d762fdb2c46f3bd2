-- Differential SQL cases: SELECT basics. Format: see difftest.parse_sql_file.
-- Every case must be deterministic on PostgreSQL (ORDER BY wherever order is not fixed).

-- name: select_constants
SELECT 1;
SELECT 1 AS one, 'two' AS two, 3.0 AS three, NULL AS nothing, true AS yes;
SELECT -2147483648, 2147483648, 9223372036854775807, 0.5, .5, 5., 1e3, 1.5e-3;
SELECT 'it''s', '', ' padded ', U&'d\0061t\+000061';

-- name: select_no_alias_names
SELECT 1 + 1, 'a' || 'b', count(*), max(1), now() IS NOT NULL, CAST(1 AS int8), 2::text, upper('x');
SELECT (1), (SELECT 1), ARRAY[1], ROW(1, 2) IS NOT NULL, CASE WHEN true THEN 1 END, coalesce(NULL, 2);

-- name: select_aliases
SELECT 1 a, 2 AS b, 3 "Quoted Name", 4 AS "select", 5 AS ABC, 6 AS "ABC";
SELECT x AS y FROM (VALUES (1), (2)) AS t(x) ORDER BY y DESC;
SELECT t.x, t.* FROM (VALUES (1, 'a')) t(x, z);
SELECT x namecnt FROM (SELECT count(*) x FROM generate_series(1, 10)) s;

-- name: select_identifier_folding
SELECT C_W_ID FROM (VALUES (7)) AS T(c_w_id);
SELECT "c_w_id", T.C_W_ID, t."c_w_id" FROM (VALUES (7)) AS T(C_W_ID);

-- name: select_arithmetic
SELECT 1 + 2 * 3, (1 + 2) * 3, 7 / 2, -7 / 2, 7 % 3, -7 % 3, 2 ^ 10, 7.0 / 2, 1 - -1;
SELECT 10 / 4 * 4, 10.0 / 4, 1 / 3.0, 2.0 ^ 0.5, (-8) % 3, 100000 * 100000::int8;
SELECT 1.1 + 2.2, 0.1::float8 + 0.2::float8, 1e15::float8 + 0.3, 3 * 1.5, 5 - 7.25;
SELECT |/ 16.0, ||/ 27.0, @ -5, - (3), +4, 5 & 3, 5 | 3, 5 # 3, ~5, 1 << 4, 256 >> 2;
SELECT (100000 - 1) / 100000 + 1, (200000 - 1) / 100000 + 1;

-- name: select_comparison_logic
SELECT 1 = 1, 1 <> 2, 1 != 1, 1 < 2, 2 <= 2, 3 > 4, 4 >= 5, 'a' < 'b', 'B' < 'a';
SELECT true AND NULL, false AND NULL, true OR NULL, false OR NULL, NOT NULL::bool, NOT true;
SELECT NULL = NULL, NULL IS NULL, 1 IS NOT NULL, NULL IS DISTINCT FROM 1, 2 IS NOT DISTINCT FROM 2;
SELECT 2 BETWEEN 1 AND 3, 5 NOT BETWEEN 1 AND 3, 3 IN (1, 2, 3), 4 NOT IN (1, 2), 4 IN (1, NULL);
SELECT true IS TRUE, NULL::bool IS UNKNOWN, false IS NOT FALSE, 'abc' LIKE 'a%', 'abc' NOT LIKE '_b';
SELECT (1, 2) = (1, 2), (1, 2) < (1, 3), (1, 2) IN ((1, 2), (3, 4)), (1, 2, 3) IN ((1, 2, 4));

-- name: select_where
SELECT x FROM generate_series(1, 10) x WHERE x % 3 = 0;
SELECT x FROM generate_series(1, 10) x WHERE x > 3 AND x < 6 OR x = 9;
SELECT x FROM generate_series(1, 5) x WHERE false;
SELECT 1 WHERE 1 = 1;
SELECT 1 WHERE NULL;
SELECT x FROM (VALUES (1), (NULL), (3)) t(x) WHERE x IS NULL;
SELECT x FROM (VALUES ('a'), ('b'), ('c')) t(x) WHERE x IN ('a', 'c');

-- name: select_order_by
SELECT x FROM (VALUES (3), (1), (2)) t(x) ORDER BY x;
SELECT x FROM (VALUES (3), (1), (2)) t(x) ORDER BY x DESC;
SELECT x, y FROM (VALUES (1, 'b'), (1, 'a'), (2, 'c')) t(x, y) ORDER BY 1 DESC, 2 ASC;
SELECT x FROM (VALUES (3), (NULL), (1)) t(x) ORDER BY x;
SELECT x FROM (VALUES (3), (NULL), (1)) t(x) ORDER BY x DESC;
SELECT x FROM (VALUES (3), (NULL), (1)) t(x) ORDER BY x NULLS FIRST;
SELECT x FROM (VALUES (3), (NULL), (1)) t(x) ORDER BY x DESC NULLS LAST;
SELECT x, -x AS neg FROM generate_series(1, 4) x ORDER BY neg;
SELECT x FROM generate_series(1, 6) x ORDER BY x % 3, x;
SELECT s FROM (VALUES ('b'), ('B'), ('a'), ('A'), ('é'), ('_'), ('1')) t(s) ORDER BY s;

-- name: select_limit_offset
SELECT x FROM generate_series(1, 10) x ORDER BY x LIMIT 3;
SELECT x FROM generate_series(1, 10) x ORDER BY x LIMIT 3 OFFSET 8;
SELECT x FROM generate_series(1, 10) x ORDER BY x OFFSET 7;
SELECT x FROM generate_series(1, 10) x ORDER BY x LIMIT 0;
SELECT x FROM generate_series(1, 10) x ORDER BY x LIMIT ALL OFFSET 9;
SELECT x FROM generate_series(1, 10) x ORDER BY x DESC LIMIT 1;
SELECT x FROM generate_series(1, 10) x ORDER BY x FETCH FIRST 2 ROWS ONLY;
SELECT x FROM generate_series(1, 10) x ORDER BY x LIMIT NULL;

-- name: select_distinct
SELECT DISTINCT x FROM (VALUES (1), (2), (1), (NULL), (NULL)) t(x) ORDER BY x;
SELECT DISTINCT x, y FROM (VALUES (1, 'a'), (1, 'a'), (1, 'b')) t(x, y) ORDER BY x, y;
SELECT DISTINCT ON (x) x, y FROM (VALUES (1, 'b'), (1, 'a'), (2, 'c')) t(x, y) ORDER BY x, y;
SELECT count(DISTINCT x), count(DISTINCT (x)), count(x) FROM (VALUES (1), (2), (1), (NULL)) t(x);

-- name: select_aggregates
SELECT count(*), count(x), sum(x), min(x), max(x), avg(x) FROM generate_series(1, 10) x;
SELECT count(*), sum(x), min(x), max(x), avg(x) FROM generate_series(1, 0) x;
SELECT sum(x::int8), sum(x::numeric), avg(x::float8), sum(x::float8) FROM generate_series(1, 5) x;
SELECT sum(x), avg(x), min(x), max(x) FROM (VALUES (1.5), (2.25), (NULL)) t(x);
SELECT min(s), max(s), count(s) FROM (VALUES ('pear'), ('apple'), ('fig')) t(s);
SELECT bool_and(b), bool_or(b), every(b) FROM (VALUES (true), (false)) t(b);
SELECT array_agg(x ORDER BY x DESC), string_agg(x::text, ',' ORDER BY x) FROM generate_series(1, 4) x;
SELECT min(d), max(d) FROM (VALUES ('2024-01-05'::date), ('2023-12-31'::date)) t(d);
SELECT avg(x) FROM (VALUES (1), (2)) t(x);
SELECT sum(x) FROM (VALUES (2147483647), (2147483647)) t(x);

-- name: select_group_by_having
SELECT x % 3 AS k, count(*), sum(x) FROM generate_series(1, 10) x GROUP BY x % 3 ORDER BY k;
SELECT x % 3 AS k, count(*) FROM generate_series(1, 10) x GROUP BY 1 HAVING count(*) > 3 ORDER BY 1;
SELECT g, max(v) FROM (VALUES ('a', 1), ('b', 5), ('a', 3)) t(g, v) GROUP BY g ORDER BY g;
SELECT count(*) FROM generate_series(1, 10) x HAVING count(*) > 5;
SELECT count(*) FROM generate_series(1, 10) x HAVING count(*) > 50;
SELECT g, count(*) FROM (VALUES (NULL), (1), (NULL)) t(g) GROUP BY g ORDER BY g;
SELECT g, h, count(*) FROM (VALUES (1, 1), (1, 2), (1, 1)) t(g, h) GROUP BY g, h ORDER BY 1, 2;
SELECT x / 10 AS bucket, avg(x), min(x) FROM generate_series(1, 35) x GROUP BY bucket ORDER BY bucket DESC;

-- name: select_union
SELECT 1 UNION ALL SELECT 1 UNION ALL SELECT 2;
SELECT x FROM (SELECT 1 UNION SELECT 1 UNION SELECT 2) t(x) ORDER BY x;
SELECT 1 AS a, 'x' AS b UNION ALL SELECT 2, 'y' ORDER BY a DESC;
SELECT 1 UNION ALL SELECT 2.5;
SELECT NULL UNION ALL SELECT 1;
SELECT 'a' UNION ALL SELECT 'b';
SELECT x FROM generate_series(1, 5) x EXCEPT SELECT 2 ORDER BY 1;
SELECT x FROM generate_series(1, 5) x INTERSECT SELECT y FROM generate_series(3, 9) y ORDER BY 1;
(SELECT 1 AS v) UNION ALL (SELECT 2) ORDER BY v LIMIT 1;

-- name: select_subqueries
SELECT * FROM (SELECT 1 AS a, 2 AS b) s;
SELECT s.a + 1 FROM (SELECT x AS a FROM generate_series(1, 3) x) s ORDER BY 1;
SELECT * FROM (SELECT x FROM generate_series(1, 5) x ORDER BY x DESC LIMIT 2) s ORDER BY x;
SELECT (SELECT max(x) FROM generate_series(1, 7) x) AS m;
SELECT x, (SELECT count(*) FROM generate_series(1, x)) FROM generate_series(1, 3) x ORDER BY x;
SELECT x FROM generate_series(1, 5) x WHERE x IN (SELECT y * 2 FROM generate_series(1, 3) y) ORDER BY x;
SELECT x FROM generate_series(1, 3) x WHERE EXISTS (SELECT 1 WHERE x > 1) ORDER BY x;
SELECT * FROM (SELECT * FROM (SELECT 42 AS deep) a) b;

-- name: select_values
VALUES (1, 'one'), (2, 'two');
VALUES (1), (2) ORDER BY 1 DESC;
SELECT * FROM (VALUES (1, 2.5, 'x', NULL, true)) AS v(a, b, c, d, e);
SELECT column1, column2 FROM (VALUES (1, 'a')) v;
VALUES (1, NULL), (NULL, 'x');
VALUES (1), (2.5);

-- name: select_generate_series
SELECT * FROM generate_series(1, 5);
SELECT * FROM generate_series(1, 10, 3) AS g;
SELECT * FROM generate_series(5, 1, -2) AS g(v);
SELECT generate_series(1, 3) AS s;
SELECT g FROM generate_series(1, 0) g;
SELECT * FROM generate_series(1::int8, 3::int8);
SELECT * FROM generate_series(0.5, 2.0, 0.5);
SELECT * FROM generate_series('2024-01-01'::timestamp, '2024-01-03', '1 day');
SELECT aid, (aid - 1) / 3 + 1 AS bid FROM generate_series(1, 7) AS aid;
SELECT count(*), sum(aid) FROM generate_series(1, 100000) AS aid;

-- name: select_joins
SELECT a.x, b.y FROM (VALUES (1), (2)) a(x), (VALUES ('p'), ('q')) b(y) ORDER BY 1, 2;
SELECT a.x, b.y FROM (VALUES (1), (2)) a(x) JOIN (VALUES (2, 'two'), (3, 'three')) b(k, y) ON a.x = b.k;
SELECT a.x, b.y FROM (VALUES (1), (2)) a(x) LEFT JOIN (VALUES (2, 'two')) b(k, y) ON a.x = b.k ORDER BY 1;
SELECT count(*) FROM generate_series(1, 10) a CROSS JOIN generate_series(1, 10) b;
SELECT x, y FROM generate_series(1, 3) x, LATERAL (SELECT x * 10 AS y) l ORDER BY x;

-- name: select_case_coalesce
SELECT CASE WHEN x < 2 THEN 'small' WHEN x < 4 THEN 'mid' ELSE 'big' END FROM generate_series(1, 5) x;
SELECT CASE x WHEN 1 THEN 'one' WHEN 2 THEN 'two' END FROM generate_series(1, 3) x;
SELECT coalesce(NULL, NULL, 3), coalesce('a', 'b'), nullif(1, 1), nullif(1, 2), greatest(1, 5, 3), least('b', 'a');
SELECT CASE WHEN false THEN 1 ELSE 2.5 END, CASE WHEN true THEN NULL ELSE 'x' END;

-- name: select_star_expansion
SELECT * FROM (VALUES (1, 2)) a(x, y), (VALUES (3)) b(z);
SELECT a.*, 'sep', b.* FROM (VALUES (1)) a(x), (VALUES (2)) b(x);

-- name: select_with_cte
WITH t AS (SELECT 1 AS a UNION ALL SELECT 2) SELECT sum(a) FROM t;
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT array_agg(n) FROM r;

-- name: select_lazy_limit_and_recursion
SELECT generate_series(1, 1000000000) LIMIT 3;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT * FROM t LIMIT 10;
WITH RECURSIVE t(n) AS (SELECT 1 UNION SELECT n % 5 + 1 FROM t) SELECT * FROM t;
SELECT EXISTS (SELECT 1 / (x - 2) FROM generate_series(1, 3) x);
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM (SELECT * FROM t) s WHERE n < 3) SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT (SELECT n + 1) FROM t WHERE n < 3) SELECT * FROM t;

-- name: select_errors_after_rows
-- @errors
WITH t AS (SELECT 1 / (x - 3) AS v FROM generate_series(1, 5) x) SELECT * FROM t;
SELECT (SELECT 1 / (x - 3) FROM generate_series(1, 3) x);
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < (SELECT max(n) FROM t)) SELECT * FROM t;

-- name: select_recursive_search_cycle
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SEARCH DEPTH FIRST BY n SET o SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SEARCH BREADTH FIRST BY n SET o SELECT * FROM t ORDER BY o DESC;
WITH RECURSIVE t(n, m) AS (SELECT 1, 'a' UNION ALL SELECT (n + 1) % 3, m FROM t) CYCLE n SET c USING p SELECT * FROM t;
WITH RECURSIVE t(n, m) AS (SELECT 1, 'a b' UNION ALL SELECT (n + 1) % 3, m FROM t) SEARCH BREADTH FIRST BY n, m SET o CYCLE n SET c TO 'Y' DEFAULT 'N' USING p SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION SELECT n + 1 FROM t x WHERE n < 3 AND array_length(o, 1) < 5) SEARCH DEPTH FIRST BY n SET o SELECT * FROM t ORDER BY o;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT t.* FROM t WHERE n < 0) SEARCH DEPTH FIRST BY n SET o SELECT * FROM t;
WITH RECURSIVE g(a, b) AS (VALUES (1, 2), (2, 3), (3, 1), (3, 4)), t(a, b) AS (SELECT a, b FROM g WHERE a = 1 UNION ALL SELECT g.a, g.b FROM g JOIN t ON g.a = t.b) SEARCH DEPTH FIRST BY a, b SET o CYCLE a SET c USING p SELECT * FROM t ORDER BY o;

-- name: select_recursive_search_cycle_errors
-- @errors
WITH t(n) AS (SELECT 1) SEARCH DEPTH FIRST BY n SET o SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SEARCH DEPTH FIRST BY x SET o SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SEARCH DEPTH FIRST BY n, n SET o SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) CYCLE n SET c USING c SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) SEARCH DEPTH FIRST BY n SET o CYCLE n SET o USING p SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM (SELECT * FROM t) s WHERE n < 3) SEARCH DEPTH FIRST BY n SET o SELECT * FROM t;
WITH RECURSIVE t(n) AS ((SELECT 1 UNION SELECT 2) UNION ALL SELECT n + 1 FROM t WHERE n < 3) CYCLE n SET c USING p SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT a.n FROM t a, t b) SELECT * FROM t;
WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) CYCLE n SET c TO 1 DEFAULT 'x' USING p SELECT * FROM t;

-- name: select_window
SELECT x, row_number() OVER (ORDER BY x DESC), sum(x) OVER (ORDER BY x) FROM generate_series(1, 4) x ORDER BY x;
SELECT g, v, row_number() OVER (PARTITION BY g ORDER BY v) FROM (VALUES ('a', 2), ('a', 1), ('b', 9)) t(g, v) ORDER BY g, v;

-- name: select_comments
SELECT 1 -- trailing comment
;
/* block comment */ SELECT /* inner */ 2 AS two;
SELECT /*+ TIDB_INLJ(a) */ 3;
-- a comment line before the statement
SELECT 4 /* nested /* comment */ here */;

-- name: catalog_pg_type_rows
SELECT oid, typname, typnamespace, typowner, typlen, typbyval, typtype, typcategory, typispreferred, typisdefined, typdelim, typrelid, typsubscript, typelem, typarray FROM pg_type WHERE oid IN (16, 18, 19, 23, 25, 1007, 1043, 1700, 2249, 2950, 3802) ORDER BY oid;
SELECT oid, typinput, typoutput, typreceive, typsend, typmodin, typmodout, typanalyze, typalign, typstorage, typnotnull, typbasetype, typtypmod, typndims, typcollation, typdefaultbin, typdefault, typacl FROM pg_type WHERE oid IN (16, 23, 1007, 1043, 1114, 1186) ORDER BY oid;
SELECT t.typname, n.nspname, e.typname AS elem, e.typdelim FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace LEFT JOIN pg_type e ON e.oid = t.typelem AND t.typlen = -1 WHERE t.oid IN (1007, 1009, 1015, 19) ORDER BY t.oid;
SELECT count(*) FROM pg_range r JOIN pg_type t ON t.oid = r.rngtypid WHERE t.oid IN (23, 1007);

-- name: catalog_reg_types
SELECT 'pg_type'::regclass, 'pg_settings'::regclass::oid, 'pg_stat_activity'::regclass::oid, 0::regclass, 0::regtype, 0::regproc;
SELECT 42::regproc, 'int4in'::regproc::oid, 'array_in'::regproc, '-'::regproc::oid;

-- name: catalog_rowdescription_origin
SELECT * FROM pg_type WHERE false;
SELECT * FROM pg_namespace WHERE false;
SELECT x.typname, x.l, x.l + 1 FROM (SELECT typname, typlen AS l FROM pg_type WHERE oid = 23) x;
WITH c AS (SELECT typname, typlen FROM pg_type WHERE oid = 25) SELECT typlen, typname, typname::text FROM c;
SELECT typlen, count(*) FROM pg_type WHERE oid IN (23, 26) GROUP BY typlen;
SELECT n.nspname, s.nspname FROM pg_namespace n, LATERAL (SELECT n.nspname) s WHERE n.oid = 11;
SELECT name, setting, context FROM pg_settings WHERE name = 'standard_conforming_strings';
SELECT datname, datallowconn, encoding FROM pg_database WHERE datname = 'postgres';
SELECT relname, relkind FROM pg_class WHERE false;
SELECT typname FROM pg_type WHERE oid = 23 UNION ALL SELECT nspname FROM pg_namespace WHERE oid = 11;
SELECT pid, state FROM pg_stat_activity WHERE false;

-- name: select_scan_reads_some_columns
CREATE TABLE scan_cols (a int, b text, c numeric(8,2), d int);
INSERT INTO scan_cols SELECT g, 'r' || g, g * 1.25, CASE WHEN g % 3 = 0 THEN NULL ELSE g END FROM generate_series(1, 200) g;
ALTER TABLE scan_cols ADD COLUMN e int DEFAULT 7;
INSERT INTO scan_cols VALUES (201, 'late', 1.5, 2, 9);
ALTER TABLE scan_cols DROP COLUMN b;
SELECT count(*) FROM scan_cols;
SELECT count(*), sum(c), max(a), min(d), sum(e) FROM scan_cols;
SELECT a, e FROM scan_cols WHERE d IS NULL ORDER BY a LIMIT 5;
SELECT e FROM scan_cols WHERE a > 198 ORDER BY e;
SELECT 1 FROM scan_cols WHERE a = 5;
SELECT count(*) FROM scan_cols WHERE c > 100;
SELECT sum(c) FILTER (WHERE a % 2 = 0), avg(c) FROM scan_cols;
SELECT string_agg(a::text, ',' ORDER BY a) FROM scan_cols WHERE a < 6;
SELECT sum(x) FROM (VALUES (1.5::numeric), (2.25), (-0.75)) v(x);
SELECT sum(x) FROM (VALUES (99999999999999999999999999999999999.5::numeric), (0.5)) v(x);
DROP TABLE scan_cols;
