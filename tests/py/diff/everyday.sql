-- Differential SQL cases: what a user types in the first minutes with tables (joins, grouping,
-- windows, subqueries, set operations, RETURNING, TRUNCATE ... CASCADE, GROUP BY expressions).

-- name: ex_basic
-- @errors
DROP TABLE IF EXISTS ex_emp, ex_dept;
CREATE TABLE ex_dept (id serial PRIMARY KEY, name text NOT NULL UNIQUE);
CREATE TABLE ex_emp (id serial PRIMARY KEY, name text, dept_id int REFERENCES ex_dept(id), salary numeric(10,2), hired date DEFAULT '2020-01-01', tags text[]);
INSERT INTO ex_dept (name) VALUES ('eng'), ('ops'), ('sales') RETURNING *;
INSERT INTO ex_emp (name, dept_id, salary, tags) VALUES ('ann', 1, 100.5, '{a,b}'), ('bob', 1, 90, '{b}'), ('cy', 2, 80, NULL), ('di', NULL, 70, '{}') RETURNING id, name;
SELECT d.name, count(e.id), avg(e.salary)::numeric(10,2), max(e.hired) FROM ex_dept d LEFT JOIN ex_emp e ON e.dept_id = d.id GROUP BY d.name ORDER BY d.name;
SELECT name, salary, rank() OVER (ORDER BY salary DESC), sum(salary) OVER (PARTITION BY dept_id) FROM ex_emp ORDER BY name;
SELECT name FROM ex_emp WHERE salary > (SELECT avg(salary) FROM ex_emp) ORDER BY 1;
SELECT name FROM ex_emp e WHERE EXISTS (SELECT 1 FROM ex_dept d WHERE d.id = e.dept_id AND d.name LIKE 'e%') ORDER BY 1;
SELECT name, CASE WHEN salary >= 90 THEN 'high' ELSE 'low' END AS band FROM ex_emp ORDER BY name;
SELECT dept_id, string_agg(name, ',' ORDER BY name), array_agg(salary ORDER BY salary) FROM ex_emp GROUP BY dept_id ORDER BY dept_id NULLS FIRST;
SELECT name, tags, array_length(tags, 1), 'b' = ANY(tags) FROM ex_emp ORDER BY id;
SELECT name, unnest(tags) FROM ex_emp ORDER BY 1, 2;
WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT sum(n) FROM r;
SELECT e.name, d.name FROM ex_emp e, ex_dept d WHERE e.dept_id = d.id ORDER BY 1;
SELECT name FROM ex_emp WHERE dept_id IN (SELECT id FROM ex_dept WHERE name <> 'ops') ORDER BY 1;
SELECT name FROM ex_emp WHERE dept_id NOT IN (SELECT id FROM ex_dept WHERE name = 'ops') ORDER BY 1;
SELECT coalesce(dept_id, -1), count(*) FROM ex_emp GROUP BY 1 HAVING count(*) >= 1 ORDER BY 1;
UPDATE ex_emp SET salary = salary * 1.1 WHERE dept_id = 1 RETURNING name, salary;
UPDATE ex_emp e SET salary = salary + 1 FROM ex_dept d WHERE d.id = e.dept_id AND d.name = 'ops' RETURNING e.name, e.salary, d.name;
DELETE FROM ex_emp WHERE name = 'di' RETURNING *;
SELECT * FROM ex_emp ORDER BY id LIMIT 2 OFFSET 1;
SELECT DISTINCT dept_id FROM ex_emp ORDER BY 1;
SELECT name FROM ex_emp UNION SELECT name FROM ex_dept ORDER BY 1;
SELECT name FROM ex_emp INTERSECT SELECT 'ann' ORDER BY 1;
SELECT name FROM ex_emp EXCEPT SELECT 'ann' ORDER BY 1;
SELECT json_build_object('n', name, 's', salary) FROM ex_emp ORDER BY id;
SELECT to_char(hired, 'YYYY-MM-DD'), hired + interval '1 month', extract(year from hired) FROM ex_emp ORDER BY id;
SELECT name, length(name), upper(name), substring(name from 1 for 2), name || '!' FROM ex_emp ORDER BY 1;
SELECT * FROM ex_emp WHERE name ILIKE 'A%' OR name ~ '^b';
SELECT count(*) FILTER (WHERE salary > 85), count(*) FROM ex_emp;
SELECT greatest(1, 2, 3), least('a', 'b'), nullif(1, 1), 7 / 2, 7 % 2, 7.0 / 2, 2 ^ 10, sqrt(16);
SELECT generate_series(1, 3) AS g, now() IS NOT NULL;
SELECT d.name, (SELECT count(*) FROM ex_emp e WHERE e.dept_id = d.id) FROM ex_dept d ORDER BY 1;
SELECT * FROM ex_dept d LEFT JOIN LATERAL (SELECT name FROM ex_emp e WHERE e.dept_id = d.id ORDER BY salary DESC LIMIT 1) top ON true ORDER BY d.id;
SELECT name, lag(name) OVER w, lead(name) OVER w FROM ex_emp WINDOW w AS (ORDER BY id) ORDER BY id;
INSERT INTO ex_emp (name, dept_id) VALUES ('zed', 99);
INSERT INTO ex_dept (name) VALUES ('eng');
TRUNCATE ex_emp, ex_dept;
TRUNCATE ex_dept CASCADE;
SELECT count(*) FROM ex_emp;
DROP TABLE ex_emp, ex_dept;

-- name: ex_truncate_cascade
DROP TABLE IF EXISTS ex_c3, ex_c2, ex_c1;
CREATE TABLE ex_c1 (id int PRIMARY KEY);
CREATE TABLE ex_c2 (id int PRIMARY KEY, p int REFERENCES ex_c1);
CREATE TABLE ex_c3 (id int PRIMARY KEY, p int REFERENCES ex_c2);
INSERT INTO ex_c1 VALUES (1), (2);
INSERT INTO ex_c2 VALUES (1, 1), (2, 2);
INSERT INTO ex_c3 VALUES (1, 1);
TRUNCATE ex_c1 CASCADE;
SELECT (SELECT count(*) FROM ex_c1), (SELECT count(*) FROM ex_c2), (SELECT count(*) FROM ex_c3);
INSERT INTO ex_c1 VALUES (1);
INSERT INTO ex_c2 VALUES (1, 1);
BEGIN;
TRUNCATE ex_c2, ex_c1 CASCADE;
ROLLBACK;
SELECT (SELECT count(*) FROM ex_c1), (SELECT count(*) FROM ex_c2);
TRUNCATE ex_c1, ex_c2, ex_c3;
DROP TABLE ex_c3, ex_c2, ex_c1;

-- name: ex_group_by_expressions
SELECT coalesce(a % 3, -1), count(*) FROM generate_series(1, 10) a GROUP BY 1 ORDER BY 1;
SELECT CASE WHEN a > 5 THEN 'big' ELSE 'small' END, count(*) FROM generate_series(1, 10) a GROUP BY 1 ORDER BY 1;
SELECT greatest(a, 5), count(*) FROM generate_series(1, 8) a GROUP BY greatest(a, 5) ORDER BY 1;
SELECT a IN (1, 2), count(*) FROM generate_series(1, 8) a GROUP BY a IN (1, 2) ORDER BY 1;
SELECT a IS NULL, (a > 3) IS TRUE, count(*) FROM generate_series(1, 8) a GROUP BY 1, 2 ORDER BY 1, 2;
SELECT nullif(a % 2, 0), count(*) FROM generate_series(1, 8) a GROUP BY nullif(a % 2, 0) ORDER BY 1;
SELECT ARRAY[a % 2, 1], count(*) FROM generate_series(1, 8) a GROUP BY 1 ORDER BY 1;
