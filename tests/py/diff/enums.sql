-- Differential SQL cases: enum types (issue 32): CREATE TYPE ... AS ENUM, enum columns with
-- input, output and ordering by the labels' sort order, comparisons, indexes and unique
-- constraints, casts, enum_first / enum_last / enum_range, ALTER TYPE (ADD VALUE, RENAME
-- VALUE, RENAME TO), DROP TYPE, pg_type / pg_enum, transactions, and the errors PostgreSQL
-- gives. Types and tables are named en_...; no case shows an OID (the servers number them
-- differently).

-- name: en_create_and_use
DROP TABLE IF EXISTS en_person;
DROP TYPE IF EXISTS en_mood;
CREATE TYPE en_mood AS ENUM ('sad', 'ok', 'happy');
CREATE TABLE en_person (name text, mood en_mood);
INSERT INTO en_person VALUES ('Moe', 'happy'), ('Larry', 'sad'), ('Curly', 'ok'), ('Shemp', NULL);
SELECT * FROM en_person ORDER BY mood, name;
SELECT * FROM en_person ORDER BY mood DESC NULLS LAST, name;
SELECT name FROM en_person WHERE mood > 'sad' ORDER BY name;
SELECT name FROM en_person WHERE mood = 'ok' OR mood <> 'happy' ORDER BY name;
SELECT name FROM en_person WHERE mood >= 'ok' AND mood <= 'happy' ORDER BY 1;
SELECT name FROM en_person WHERE mood IN ('sad', 'happy') ORDER BY 1;
SELECT name FROM en_person WHERE mood BETWEEN 'sad' AND 'ok' ORDER BY 1;
SELECT min(mood), max(mood), count(DISTINCT mood) FROM en_person;
SELECT mood, count(*) FROM en_person GROUP BY mood ORDER BY mood;
SELECT DISTINCT mood FROM en_person ORDER BY 1;
UPDATE en_person SET mood = 'ok' WHERE name = 'Shemp';
SELECT name, mood FROM en_person ORDER BY mood, name;
DROP TABLE en_person;
DROP TYPE en_mood;

-- name: en_casts_and_literals
DROP TYPE IF EXISTS en_color;
CREATE TYPE en_color AS ENUM ('red', 'green', 'blue');
SELECT 'red'::en_color, 'green'::en_color < 'blue'::en_color, 'blue'::en_color = 'blue';
SELECT 'red'::en_color::text, CAST('blue' AS en_color), 'green'::text::en_color, 'red'::en_color::text || '!';
SELECT pg_typeof('red'::en_color)::text, 'en_color'::regtype::text, format_type('en_color'::regtype, NULL);
SELECT ARRAY['red', 'blue']::en_color[]::text, ('{green,red}'::en_color[])[2];
SELECT pg_typeof(ARRAY['red']::en_color[])::text, 'en_color[]'::regtype::text, '_en_color'::regtype::text;
SELECT x FROM (VALUES ('blue'::en_color), ('red'), ('green')) v(x) ORDER BY x;
SELECT greatest('red'::en_color, 'blue'), least('green'::en_color, 'blue');
SELECT CASE WHEN 'red'::en_color < 'green' THEN 'yes' ELSE 'no' END;
DROP TYPE en_color;

-- name: en_bad_input
-- @errors
DROP TYPE IF EXISTS en_color;
CREATE TYPE en_color AS ENUM ('red', 'green', 'blue');
SELECT 'purple'::en_color;
SELECT 'Red'::en_color;
SELECT ' red'::en_color;
CREATE TABLE en_t (c en_color);
INSERT INTO en_t VALUES ('yellow');
INSERT INTO en_t VALUES ('red');
SELECT * FROM en_t WHERE c = 'pink';
SELECT 'red'::en_color = 'red'::text;
SELECT 'red'::en_color + 1;
SELECT 1::en_color;
DROP TABLE en_t;
DROP TYPE en_color;

-- name: en_functions
DROP TYPE IF EXISTS en_rainbow;
DROP TYPE IF EXISTS en_empty;
CREATE TYPE en_rainbow AS ENUM ('red', 'orange', 'yellow', 'green', 'blue', 'purple');
CREATE TYPE en_empty AS ENUM ();
SELECT enum_first(NULL::en_rainbow), enum_last(NULL::en_rainbow), enum_first('green'::en_rainbow);
SELECT enum_range(NULL::en_rainbow)::text;
SELECT enum_range('orange'::en_rainbow, 'green'::en_rainbow)::text;
SELECT enum_range(NULL, 'orange'::en_rainbow)::text, enum_range('blue'::en_rainbow, NULL)::text;
SELECT enum_range('green'::en_rainbow, 'orange'::en_rainbow)::text;
SELECT enum_range(NULL::en_rainbow, NULL)::text;
SELECT enum_range(NULL::en_empty)::text;
SELECT unnest(enum_range(NULL::en_rainbow)) AS c ORDER BY 1 DESC;
SELECT array_length(enum_range(NULL::en_rainbow), 1);
DROP TYPE en_rainbow;
DROP TYPE en_empty;

-- name: en_function_errors
-- @errors
DROP TYPE IF EXISTS en_empty;
CREATE TYPE en_empty AS ENUM ();
SELECT enum_first(NULL::en_empty);
SELECT enum_last(NULL::en_empty);
DROP TYPE en_empty;
SELECT enum_first(1);
SELECT enum_last('x');
SELECT enum_range(1, 2);

-- name: en_indexes_and_unique
DROP TABLE IF EXISTS en_ix;
DROP TYPE IF EXISTS en_level;
CREATE TYPE en_level AS ENUM ('low', 'mid', 'high');
CREATE TABLE en_ix (id int PRIMARY KEY, lvl en_level UNIQUE);
CREATE INDEX en_ix_lvl ON en_ix (lvl, id);
INSERT INTO en_ix VALUES (1, 'high'), (2, 'low'), (3, 'mid');
SELECT * FROM en_ix WHERE lvl = 'mid';
SELECT * FROM en_ix WHERE lvl > 'low' ORDER BY lvl;
SELECT * FROM en_ix ORDER BY lvl DESC;
INSERT INTO en_ix VALUES (4, 'low') ON CONFLICT (lvl) DO UPDATE SET id = en_ix.id + 10;
SELECT * FROM en_ix ORDER BY lvl;
DROP TABLE en_ix;
DROP TYPE en_level;

-- name: en_unique_violation
-- @errors
DROP TABLE IF EXISTS en_ix;
DROP TYPE IF EXISTS en_level;
CREATE TYPE en_level AS ENUM ('low', 'mid', 'high');
CREATE TABLE en_ix (lvl en_level PRIMARY KEY);
INSERT INTO en_ix VALUES ('low'), ('mid');
INSERT INTO en_ix VALUES ('low');
DROP TABLE en_ix;
DROP TYPE en_level;

-- name: en_add_value
DROP TABLE IF EXISTS en_pl;
DROP TYPE IF EXISTS en_planet;
CREATE TYPE en_planet AS ENUM ('venus', 'earth', 'mars');
CREATE TABLE en_pl (p en_planet);
INSERT INTO en_pl VALUES ('venus'), ('earth'), ('mars');
ALTER TYPE en_planet ADD VALUE 'uranus';
ALTER TYPE en_planet ADD VALUE 'mercury' BEFORE 'venus';
ALTER TYPE en_planet ADD VALUE 'saturn' BEFORE 'uranus';
ALTER TYPE en_planet ADD VALUE 'jupiter' AFTER 'mars';
ALTER TYPE en_planet ADD VALUE 'neptune' AFTER 'uranus';
ALTER TYPE en_planet ADD VALUE IF NOT EXISTS 'pluto';
ALTER TYPE en_planet ADD VALUE IF NOT EXISTS 'pluto';
SELECT enumlabel, enumsortorder FROM pg_enum WHERE enumtypid = 'en_planet'::regtype ORDER BY enumsortorder;
SELECT enum_range(NULL::en_planet)::text;
INSERT INTO en_pl VALUES ('jupiter'), ('mercury'), ('pluto');
SELECT p FROM en_pl ORDER BY p;
SELECT p FROM en_pl WHERE p > 'mars' ORDER BY p DESC;
DROP TABLE en_pl;
DROP TYPE en_planet;

-- name: en_add_value_many_between
DROP TYPE IF EXISTS en_dense;
CREATE TYPE en_dense AS ENUM ('a', 'z');
ALTER TYPE en_dense ADD VALUE 'b1' BEFORE 'z';
ALTER TYPE en_dense ADD VALUE 'b2' BEFORE 'z';
ALTER TYPE en_dense ADD VALUE 'b3' BEFORE 'z';
ALTER TYPE en_dense ADD VALUE 'b4' BEFORE 'z';
ALTER TYPE en_dense ADD VALUE 'b5' BEFORE 'z';
ALTER TYPE en_dense ADD VALUE 'b6' BEFORE 'z';
ALTER TYPE en_dense ADD VALUE 'b7' BEFORE 'z';
ALTER TYPE en_dense ADD VALUE 'b8' BEFORE 'z';
ALTER TYPE en_dense ADD VALUE 'b9' BEFORE 'z';
ALTER TYPE en_dense ADD VALUE 'b10' BEFORE 'z';
SELECT enumlabel, enumsortorder FROM pg_enum WHERE enumtypid = 'en_dense'::regtype ORDER BY enumsortorder;
SELECT enum_range(NULL::en_dense)::text;
DROP TYPE en_dense;

-- name: en_add_value_errors
-- @errors
DROP TYPE IF EXISTS en_planet;
CREATE TYPE en_planet AS ENUM ('venus', 'earth', 'mars');
ALTER TYPE en_planet ADD VALUE 'earth';
ALTER TYPE en_planet ADD VALUE 'x' BEFORE 'pluto';
ALTER TYPE en_planet ADD VALUE 'x' AFTER 'pluto';
ALTER TYPE en_planet ADD VALUE 'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklm';
ALTER TYPE en_nosuch ADD VALUE 'x';
ALTER TYPE en_planet RENAME VALUE 'earth' TO 'mars';
ALTER TYPE en_planet RENAME VALUE 'pluto' TO 'x';
ALTER TYPE en_planet RENAME VALUE 'earth' TO 'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklm';
SELECT enum_range(NULL::en_planet)::text;
DROP TYPE en_planet;

-- name: en_rename_value_and_type
DROP TABLE IF EXISTS en_rt;
DROP TYPE IF EXISTS en_state;
DROP TYPE IF EXISTS en_status;
CREATE TYPE en_state AS ENUM ('new', 'open', 'closed');
CREATE TABLE en_rt (id int, s en_state);
INSERT INTO en_rt VALUES (1, 'open'), (2, 'new'), (3, 'closed');
ALTER TYPE en_state RENAME VALUE 'open' TO 'active';
SELECT * FROM en_rt ORDER BY s;
SELECT * FROM en_rt WHERE s = 'active';
ALTER TYPE en_state RENAME TO en_status;
SELECT 'new'::en_status, pg_typeof(s)::text FROM en_rt WHERE id = 2;
SELECT typname FROM pg_type WHERE typname IN ('en_state', 'en_status', '_en_state', '_en_status') ORDER BY 1;
DROP TABLE en_rt;
DROP TYPE en_status;

-- name: en_create_errors
-- @errors
DROP TABLE IF EXISTS en_tab;
DROP TYPE IF EXISTS en_dup;
CREATE TYPE en_dup AS ENUM ('a');
CREATE TYPE en_dup AS ENUM ('b');
CREATE TYPE en_long AS ENUM ('abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklm');
CREATE TABLE en_tab (a int);
CREATE TYPE en_tab AS ENUM ('a');
CREATE TYPE en_nosuchschema.x AS ENUM ('a');
SELECT 'a'::en_nosuch;
CREATE TABLE en_tab2 (a en_nosuch);
DROP TABLE en_tab;
DROP TYPE en_dup;

-- name: en_long_label_ok
DROP TYPE IF EXISTS en_l63;
CREATE TYPE en_l63 AS ENUM ('abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijk', '');
SELECT enum_range(NULL::en_l63)::text, ''::en_l63;
DROP TYPE en_l63;

-- name: en_drop
-- @errors
DROP TABLE IF EXISTS en_dt;
DROP TYPE IF EXISTS en_d;
DROP TYPE IF EXISTS en_nosuch;
DROP TYPE en_nosuch;
CREATE TYPE en_d AS ENUM ('x', 'y');
CREATE TABLE en_dt (a int, d en_d, ds en_d[]);
DROP TYPE en_d;
DROP TYPE en_d RESTRICT;
INSERT INTO en_dt VALUES (1, 'x', '{x,y}');
DROP TYPE en_d CASCADE;
SELECT * FROM en_dt;
SELECT 'x'::en_d;
DROP TABLE en_dt;

-- name: en_schema_qualified
DROP SCHEMA IF EXISTS en_s CASCADE;
CREATE SCHEMA en_s;
CREATE TYPE en_s.en_fruit AS ENUM ('apple', 'pear');
CREATE TABLE en_s.en_basket (f en_s.en_fruit);
INSERT INTO en_s.en_basket VALUES ('pear'), ('apple');
SELECT f FROM en_s.en_basket ORDER BY f;
SELECT 'pear'::en_s.en_fruit, pg_typeof('pear'::en_s.en_fruit)::text;
ALTER TYPE en_s.en_fruit ADD VALUE 'fig' BEFORE 'apple';
SELECT enum_range(NULL::en_s.en_fruit)::text;
DROP TABLE en_s.en_basket;
DROP TYPE en_s.en_fruit;
DROP SCHEMA en_s;

-- name: en_catalogs
DROP TYPE IF EXISTS en_cat;
CREATE TYPE en_cat AS ENUM ('one', 'two', 'three');
SELECT typname, typtype, typcategory, typlen, typbyval, typalign, typstorage, typelem = 0 AS noelem, typarray <> 0 AS hasarray FROM pg_type WHERE typname = 'en_cat';
SELECT t.typname, t.typtype, t.typcategory, e.typname AS elem, t.typlen FROM pg_type t JOIN pg_type e ON t.typelem = e.oid WHERE t.typname = '_en_cat';
SELECT e.enumlabel, e.enumsortorder FROM pg_enum e JOIN pg_type t ON e.enumtypid = t.oid WHERE t.typname = 'en_cat' ORDER BY e.enumsortorder;
SELECT n.nspname, t.typname FROM pg_type t JOIN pg_namespace n ON t.typnamespace = n.oid WHERE t.typname = 'en_cat';
SELECT count(*) FROM pg_type WHERE typtype = 'e' AND typname = 'en_cat';
DROP TYPE en_cat;

-- name: en_transactions
DROP TYPE IF EXISTS en_tx;
BEGIN;
CREATE TYPE en_tx AS ENUM ('a', 'b');
SELECT 'a'::en_tx;
ROLLBACK;
SELECT count(*) FROM pg_type WHERE typname = 'en_tx';
CREATE TYPE en_tx AS ENUM ('a', 'b');
BEGIN;
DROP TYPE en_tx;
ROLLBACK;
SELECT 'b'::en_tx;
BEGIN;
ALTER TYPE en_tx RENAME VALUE 'a' TO 'aa';
ROLLBACK;
SELECT enum_range(NULL::en_tx)::text;
BEGIN;
ALTER TYPE en_tx RENAME TO en_tx2;
ROLLBACK;
SELECT 'a'::en_tx;
DROP TYPE en_tx;

-- name: en_transaction_errors
-- @errors
DROP TYPE IF EXISTS en_tx;
BEGIN;
CREATE TYPE en_tx AS ENUM ('a');
ROLLBACK;
SELECT 'a'::en_tx;

-- name: en_array_column
DROP TABLE IF EXISTS en_arr;
DROP TYPE IF EXISTS en_tag;
CREATE TYPE en_tag AS ENUM ('x', 'y', 'z');
CREATE TABLE en_arr (id int, tags en_tag[]);
INSERT INTO en_arr VALUES (1, '{z,x}'), (2, ARRAY['y']::en_tag[]), (3, '{}');
SELECT id, tags::text, array_length(tags, 1) FROM en_arr ORDER BY id;
SELECT id FROM en_arr WHERE 'x' = ANY (tags) ORDER BY id;
DROP TABLE en_arr;
DROP TYPE en_tag;

-- name: en_prepared_params
DROP TABLE IF EXISTS en_pp;
DROP TYPE IF EXISTS en_pt;
CREATE TYPE en_pt AS ENUM ('lo', 'hi');
CREATE TABLE en_pp (v en_pt);
PREPARE en_ins(en_pt) AS INSERT INTO en_pp VALUES ($1);
EXECUTE en_ins('hi');
EXECUTE en_ins('lo');
PREPARE en_sel(en_pt) AS SELECT v FROM en_pp WHERE v >= $1 ORDER BY v;
EXECUTE en_sel('lo');
EXECUTE en_sel('hi');
DEALLOCATE en_ins;
DEALLOCATE en_sel;
DROP TABLE en_pp;
DROP TYPE en_pt;

-- name: en_new_value_in_transaction
-- @errors
DROP TYPE IF EXISTS en_m;
DROP TYPE IF EXISTS en_n;
CREATE TYPE en_m AS ENUM ('a', 'b');
BEGIN;
ALTER TYPE en_m ADD VALUE 'c';
SELECT 'c'::en_m;
ROLLBACK;
SELECT 'c'::en_m;
BEGIN;
ALTER TYPE en_m ADD VALUE 'c';
COMMIT;
SELECT 'c'::en_m, enum_range(NULL::en_m)::text;
BEGIN;
CREATE TYPE en_n AS ENUM ('x');
SELECT 'x'::en_n;
ALTER TYPE en_n ADD VALUE 'y';
SELECT 'y'::en_n;
COMMIT;
SELECT 'y'::en_n;
DROP TYPE en_m;

-- name: en_in_functions_and_json
DROP FUNCTION IF EXISTS en_f(en_m);
DROP TYPE IF EXISTS en_m;
CREATE TYPE en_m AS ENUM ('a', 'b', 'c');
SELECT to_json('b'::en_m), to_jsonb(ARRAY['a', 'c']::en_m[]), json_build_object('k', 'a'::en_m);
CREATE FUNCTION en_f(x en_m) RETURNS en_m LANGUAGE sql AS 'SELECT enum_last(x)';
SELECT en_f('a'), en_f('b'::en_m) > 'a';
DO $$ BEGIN RAISE NOTICE 'last=%', enum_last('a'::en_m); END $$;
SELECT 'a'::en_m::varchar, 'b'::varchar::en_m, 'a'::en_m IS DISTINCT FROM 'b', NULLIF('a'::en_m, 'a');
DROP FUNCTION en_f(en_m);
DROP TYPE en_m;

-- name: en_drop_schema_and_owner
-- @errors
DROP SCHEMA IF EXISTS en_sch CASCADE;
DROP TYPE IF EXISTS en_o;
DROP ROLE IF EXISTS en_r;
CREATE SCHEMA en_sch;
CREATE TYPE en_sch.t AS ENUM ('q');
DROP SCHEMA en_sch;
DROP SCHEMA en_sch CASCADE;
SELECT 'q'::en_sch.t;
CREATE TYPE en_o AS ENUM ('a');
CREATE ROLE en_r;
ALTER TYPE en_o OWNER TO en_r;
SELECT typowner::regrole::text FROM pg_type WHERE typname = 'en_o';
ALTER TYPE en_o OWNER TO en_nosuch;
ALTER TYPE en_o OWNER TO postgres;
DROP TYPE en_o;
DROP ROLE en_r;

-- name: en_comments
-- @errors
DROP TYPE IF EXISTS en_cm;
CREATE TYPE en_cm AS ENUM ('a');
COMMENT ON TYPE en_cm IS 'a commented enum';
SELECT obj_description('en_cm'::regtype, 'pg_type');
SELECT t.typname, d.description FROM pg_type t JOIN pg_description d ON d.objoid = t.oid WHERE t.typname = 'en_cm';
COMMENT ON TYPE en_cm IS NULL;
SELECT obj_description('en_cm'::regtype, 'pg_type');
COMMENT ON TYPE en_nosuch IS 'x';
DROP TYPE en_cm;
