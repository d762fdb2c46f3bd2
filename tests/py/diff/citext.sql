-- Differential SQL cases: the citext extension (CREATE EXTENSION citext): the type's input,
-- output and casts, its case-insensitive comparisons, ordering, grouping, DISTINCT, UNIQUE
-- constraints and indexes, LIKE / regular expressions, its functions, min / max, pg_type, and
-- DROP EXTENSION's refusal (2BP01) and CASCADE.

-- name: citext_basics
DROP EXTENSION IF EXISTS citext CASCADE;
CREATE EXTENSION citext;
SELECT 'Hello'::citext, 'Hello'::citext = 'hELLO', 'a'::citext < 'B', 'B'::citext > 'a', 'abc'::citext <> 'ABC', 'x'::citext <= 'X', 'x'::citext >= 'Y';
SELECT 'a'::citext = 'A'::text, 'a'::text = 'A'::citext, 'a'::citext = 'A'::varchar, pg_typeof('x'::citext)::text, pg_typeof('x'::citext || 'y')::text;
SELECT citext_cmp('aardvark', 'AARDVARK'), citext_cmp('B', 'a'), citext_cmp('a', 'B'), citext_eq('x', 'X'), citext_ne('x', 'X'), citext_lt('a', 'B'), citext_ge('b', 'A');
SELECT citext_hash('ABC') = citext_hash('abc'), citext_smaller('a', 'B'), citext_larger('a', 'B'), citext_smaller('A', 'a');
SELECT 'foo'::citext::text, 'foo'::text::citext, 'x  '::bpchar::citext || '|', true::citext, '192.168.1.1/24'::inet::citext, '12'::citext::int + 1, ARRAY['a','B']::citext[]::text, ARRAY['a','B']::citext[] = ARRAY['A','b']::citext[];
SELECT 'Ǆ'::citext = 'ǆ'::citext, 'ÄÖÜ'::citext = 'äöü', upper('abc'::citext), lower('ABC'::citext), length('Ab'::citext);
DROP EXTENSION citext CASCADE;

-- name: citext_tables
DROP EXTENSION IF EXISTS citext CASCADE;
CREATE EXTENSION citext;
DROP TABLE IF EXISTS ci_users;
CREATE TABLE ci_users (id int, email citext UNIQUE, name citext);
INSERT INTO ci_users VALUES (1, 'A@x', 'Bob'), (2, 'b@y', 'alice'), (3, 'C@Z', 'ALICE'), (4, 'd@w', 'carol'), (5, NULL, 'Dave');
SELECT * FROM ci_users WHERE email = 'a@X';
SELECT * FROM ci_users WHERE email IN ('B@Y', 'c@z') ORDER BY id;
SELECT name FROM ci_users ORDER BY name, id;
SELECT name, count(*) FROM ci_users GROUP BY name ORDER BY 1;
SELECT count(DISTINCT name), min(name), max(name), min(email), max(email) FROM ci_users;
SELECT a.id, b.id FROM ci_users a JOIN ci_users b ON a.name = b.name AND a.id < b.id ORDER BY 1, 2;
SELECT name FROM ci_users WHERE name LIKE 'ALI%' ORDER BY id;
SELECT name FROM ci_users WHERE name ILIKE 'ali%' ORDER BY id;
SELECT name FROM ci_users WHERE name NOT LIKE 'a%' ORDER BY id;
SELECT name FROM ci_users WHERE name ~ '^a' ORDER BY id;
SELECT name FROM ci_users WHERE name !~* '^A' ORDER BY id;
SELECT name FROM ci_users WHERE name = 'alice'::text ORDER BY id;
SELECT name FROM ci_users UNION SELECT 'BOB' ORDER BY 1;
SELECT count(*) FROM (SELECT name FROM ci_users INTERSECT SELECT 'ALICE'::citext) s;
SELECT DISTINCT lower(name) FROM ci_users ORDER BY 1;
DROP TABLE ci_users;
DROP EXTENSION citext CASCADE;

-- name: citext_unique
-- @errors
DROP EXTENSION IF EXISTS citext CASCADE;
CREATE EXTENSION citext;
DROP TABLE IF EXISTS ci_u;
CREATE TABLE ci_u (email citext UNIQUE);
INSERT INTO ci_u VALUES ('A@x');
INSERT INTO ci_u VALUES ('a@X');
INSERT INTO ci_u VALUES ('b@x') ON CONFLICT (email) DO NOTHING;
INSERT INTO ci_u VALUES ('B@X') ON CONFLICT (email) DO UPDATE SET email = excluded.email;
SELECT * FROM ci_u ORDER BY 1;
CREATE TABLE ci_pk (k citext PRIMARY KEY, v int);
INSERT INTO ci_pk VALUES ('Key', 1);
INSERT INTO ci_pk VALUES ('KEY', 2);
CREATE INDEX ci_pk_v ON ci_pk (k, v);
CREATE TABLE ci_dup (k citext);
INSERT INTO ci_dup VALUES ('x'), ('X');
CREATE UNIQUE INDEX ci_dup_k ON ci_dup (k);
CREATE INDEX ci_dup_h ON ci_dup USING hash (k);
SELECT * FROM ci_dup WHERE k = 'X' ORDER BY 1;
DROP TABLE ci_u, ci_pk, ci_dup;
DROP EXTENSION citext CASCADE;

-- name: citext_functions
DROP EXTENSION IF EXISTS citext CASCADE;
CREATE EXTENSION citext;
SELECT regexp_match('FooBar'::citext, 'o+b'), regexp_match('FooBar'::citext, 'o+b', 'c'), regexp_replace('Hello World'::citext, 'o', 'X'), regexp_replace('Hello World'::citext, 'O', 'X', 'g');
SELECT regexp_split_to_array('aXbxc'::citext, 'x'), regexp_split_to_array('aXbxc'::citext, 'x', 'c');
SELECT strpos('High'::citext, 'IG'), strpos('high'::citext, 'x'), replace('Thomas'::citext, 'tHoM', 'xx'), replace('a.b.A'::citext, '.A', '!');
SELECT split_part('aBcDbE'::citext, 'b', 2), split_part('aBcDbE'::citext, 'B', 3), split_part('abc'::citext, 'x', 2), translate('abcdefabc'::citext, 'AbC', 'xyz');
SELECT 'abc'::citext ~~ 'A%', 'abc'::citext ~~* 'A%', 'abc'::citext !~~ 'A%', 'abc'::citext ~ 'B', 'abc'::citext ~* 'B', 'abc'::citext !~ 'B';
DROP EXTENSION citext CASCADE;

-- name: citext_catalog
DROP EXTENSION IF EXISTS citext CASCADE;
CREATE EXTENSION citext;
SELECT typname, typtype, typcategory, typlen, typcollation <> 0 FROM pg_type WHERE typname IN ('citext', '_citext') ORDER BY 1;
SELECT e.extname, e.extversion, e.extrelocatable FROM pg_extension e WHERE extname = 'citext';
SELECT format_type('citext'::regtype, -1), 'citext[]'::regtype::text;
DROP EXTENSION citext CASCADE;

-- name: citext_drop
-- @errors
DROP EXTENSION IF EXISTS citext CASCADE;
CREATE EXTENSION citext;
DROP TABLE IF EXISTS ci_keep;
CREATE TABLE ci_keep (id int, c citext);
DROP EXTENSION citext;
DROP TYPE citext;
DROP EXTENSION citext CASCADE;
SELECT attname FROM pg_attribute WHERE attrelid = 'ci_keep'::regclass AND attnum > 0 AND NOT attisdropped;
SELECT 'x'::citext;
CREATE EXTENSION citext;
DROP TABLE ci_keep;
DROP EXTENSION citext;

-- name: citext_explain
DROP EXTENSION IF EXISTS citext CASCADE;
CREATE EXTENSION citext;
CREATE TABLE ci_ex (id int, name citext);
EXPLAIN (COSTS OFF) SELECT id FROM ci_ex WHERE name LIKE 'a%' OR name ~* 'b' OR name !~~* 'c' OR name = 'X';
DROP TABLE ci_ex;
DROP EXTENSION citext CASCADE;
